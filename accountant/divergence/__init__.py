"""Divergences of a `ViewPair`: hockey-stick (delta, epsilon), Renyi, max-divergence, KL."""

from accountant.divergence.hockey_stick import (
    delta_bracket,
    delta_for_epsilon,
    epsilon_bracket,
    epsilon_for_delta,
)
from accountant.divergence.renyi import (
    kl_divergence,
    max_divergence,
    renyi_bracket,
    renyi_divergence,
    renyi_divergences,
)

__all__ = [
    "delta_for_epsilon",
    "epsilon_for_delta",
    "delta_bracket",
    "epsilon_bracket",
    "renyi_divergence",
    "renyi_bracket",
    "renyi_divergences",
    "max_divergence",
    "kl_divergence",
]
