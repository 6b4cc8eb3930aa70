"""Certified composition through privacy-loss distributions (PLD), our own engine
(docs/conversions.md#certified-pld-engine).

For a product of independent pairs the privacy loss adds, so the distribution of the total
loss under P is the convolution of the per-pair ones, and
H_{e^eps} = E_P[(1 - e^(eps - L))_+] with a +inf atom kept apart
(docs/divergences.md#products). Every step keeps the value on its side of the truth:

- `measure`: the discretised measure (`LossPmf`), pessimistic, optimistic or
  connect-the-dots, with its error ledger;
- `runs`: neighbouring atoms taken as one on coarse grids;
- `sources`: what is composed (float views, clones and blanket pairs, `LossPmfSource`s)
  and the measures of each;
- `convolution`: two measures composed by a bounded FFT or directly, and truncation;
- `self_composition`: T rounds by one FFT and a power, or by windowed, tilted squaring;
- `reading`: certified upper and lower delta(eps) and eps(delta);
- `compose`: `compose_views`, which picks the grid, reads both ends and refines.
"""

from accountant.composition.pld.compose import (
    DEFAULT_DISCRETIZATION,
    PldComposition,
    check_items,
    compose_measures,
    compose_views,
    truncation_tail,
)
from accountant.composition.pld.convolution import convolve, fft_error_bound, truncate
from accountant.composition.pld.measure import (
    LossPmf,
    connected_pmf,
    grid_index,
    pmf_from_entries,
    split_pmf,
)
from accountant.composition.pld.reading import (
    coupling_shift,
    delta_of,
    epsilon_of,
    lower_delta_of,
    lower_epsilon_of,
)
from accountant.composition.pld.self_composition import power_compose, self_compose
from accountant.composition.pld.sources import (
    LossPmfSource,
    OutcomeLimitError,
    PairSource,
    connects,
    from_clone_pair,
    from_view,
)

__all__ = ["LossPmf", "OutcomeLimitError", "PldComposition", "compose_views", "from_view",
           "from_clone_pair", "connected_pmf", "split_pmf", "lower_delta_of", "lower_epsilon_of",
           "coupling_shift", "connects", "power_compose",
           "convolve", "self_compose", "compose_measures", "check_items", "delta_of", "epsilon_of",
           "fft_error_bound", "grid_index", "pmf_from_entries", "truncate", "truncation_tail",
           "DEFAULT_DISCRETIZATION", "LossPmfSource", "PairSource"]
