"""shuffle-accountant: exact and certified privacy accounting for the shuffle model.

The curated public surface; docs/architecture.md describes the layout and the protocol
contract. Everything that reports a
privacy number returns a `Result` saying whether it is exact, an upper or a lower bound.
"""

import importlib
from typing import Any

# Names load on first use (PEP 562), so that `import accountant.cli` for `--help` does not
# pay for numpy and scipy; `from accountant import epsilon_for_delta` works as before.
_EXPORTS = {
    "AccountantError": "accountant.errors",
    "BalcerCheuHist": "accountant.protocols.balcer_cheu",
    "BalcerCheuZsum": "accountant.protocols.balcer_cheu",
    "BinaryRR": "accountant.protocols.binary_rr",
    "Bracket": "accountant.result",
    "GKMCount": "accountant.protocols.gkm",
    "GKMP20Count": "accountant.protocols.gkm",
    "KRR": "accountant.protocols.k_rr",
    "LDP": "accountant.protocols.ldp",
    "ApproximateLDP": "accountant.protocols.approximate_ldp",
    "HeterogeneousRandomizer": "accountant.protocols.heterogeneous",
    "GaussianRandomizer": "accountant.protocols.continuous",
    "LaplaceRandomizer": "accountant.protocols.continuous",
    "DiscreteGaussianRandomizer": "accountant.protocols.continuous",
    "DiscreteLaplaceRandomizer": "accountant.protocols.continuous",
    "Mechanism": "accountant.protocols.contract",
    "Direction": "accountant.result",
    "Kind": "accountant.result",
    "LooseBoundWarning": "accountant.errors",
    "PMF": "accountant.pmf",
    "ParameterError": "accountant.errors",
    "PrecisionError": "accountant.errors",
    "RegimeError": "accountant.errors",
    "Result": "accountant.result",
    "Source": "accountant.result",
    "ViewPair": "accountant.view",
    "bernoulli": "accountant.distributions",
    "binomial": "accountant.distributions",
    "convolve": "accountant.pmf",
    "delta_bracket": "accountant.divergence",
    "delta_for_epsilon": "accountant.divergence",
    "epsilon_bracket": "accountant.divergence",
    "epsilon_for_delta": "accountant.divergence",
    "geometric": "accountant.distributions",
    "kl_divergence": "accountant.divergence",
    "max_divergence": "accountant.divergence",
    "mixture": "accountant.pmf",
    "negative_binomial": "accountant.distributions",
    "point_mass": "accountant.distributions",
    "poisson": "accountant.distributions",
    "poisson_binomial": "accountant.distributions",
    "product": "accountant.pmf",
    "renyi_divergence": "accountant.divergence",
    "renyi_divergences": "accountant.divergence",
    "shift": "accountant.pmf",
    "tightest": "accountant.result",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'accountant' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__version__ = "0.2.0"

__all__ = [
    "AccountantError",
    "BalcerCheuHist",
    "BalcerCheuZsum",
    "BinaryRR",
    "Bracket",
    "Direction",
    "GKMCount",
    "GKMP20Count",
    "KRR",
    "Kind",
    "LDP",
    "LooseBoundWarning",
    "Mechanism",
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
    "ApproximateLDP",
    "HeterogeneousRandomizer",
    "GaussianRandomizer",
    "LaplaceRandomizer",
    "DiscreteGaussianRandomizer",
    "DiscreteLaplaceRandomizer",
]
