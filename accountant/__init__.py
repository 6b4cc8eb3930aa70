"""shuffle-accountant: exact and certified privacy accounting for the shuffle model.

The curated public surface; see DESIGN.md for the architecture. Everything that reports a
privacy number returns a `Result` saying whether it is exact, an upper or a lower bound.
"""

from accountant.distributions import (
    bernoulli,
    binomial,
    geometric,
    negative_binomial,
    point_mass,
    poisson,
    poisson_binomial,
)
from accountant.divergence import (
    delta_bracket,
    delta_for_epsilon,
    epsilon_bracket,
    epsilon_for_delta,
    kl_divergence,
    max_divergence,
    renyi_divergence,
    renyi_divergences,
)
from accountant.errors import (
    AccountantError,
    LooseBoundWarning,
    ParameterError,
    PrecisionError,
    RegimeError,
)
from accountant.pmf import PMF, convolve, mixture, product, shift
from accountant.result import Direction, Kind, Result, Source, tightest
from accountant.view import ViewPair

__version__ = "0.1.0"

__all__ = [
    "AccountantError",
    "Direction",
    "Kind",
    "LooseBoundWarning",
    "PMF",
    "ParameterError",
    "PrecisionError",
    "RegimeError",
    "Result",
    "Source",
    "ViewPair",
    "bernoulli",
    "binomial",
    "convolve",
    "delta_bracket",
    "delta_for_epsilon",
    "epsilon_bracket",
    "epsilon_for_delta",
    "geometric",
    "kl_divergence",
    "max_divergence",
    "mixture",
    "negative_binomial",
    "point_mass",
    "poisson",
    "poisson_binomial",
    "product",
    "renyi_divergence",
    "renyi_divergences",
    "shift",
    "tightest",
]
