"""Local randomizers given as noise laws (Gaussian, Laplace, discrete Gaussian, discrete
Laplace) on inputs {0, 1} (issue 24).

Modules: `laws` (the noise laws), `blanket` (the certified privacy-blanket upper bound),
`cells` (certified output-cell masses), `special_pair` (the special pair's certified value,
the lower end), `threshold` (a cheaper lower end: the special pair's thresholded count),
`mechanism` (the families). docs/continuous-randomizers.md has the proofs.
"""

from accountant.protocols.continuous import blanket, cells, special_pair, threshold
from accountant.protocols.continuous.laws import (
    DiscreteGaussianLaw,
    DiscreteLaplaceLaw,
    GaussianLaw,
    LaplaceLaw,
    NoiseLaw,
)
from accountant.protocols.continuous.mechanism import (
    DiscreteGaussianRandomizer,
    DiscreteLaplaceRandomizer,
    GaussianRandomizer,
    LaplaceRandomizer,
    NoiseRandomizer,
)

__all__ = ["DiscreteGaussianLaw", "DiscreteGaussianRandomizer", "DiscreteLaplaceLaw",
           "DiscreteLaplaceRandomizer", "GaussianLaw", "GaussianRandomizer", "LaplaceLaw",
           "LaplaceRandomizer", "NoiseLaw", "NoiseRandomizer", "blanket", "cells",
           "special_pair", "threshold"]
