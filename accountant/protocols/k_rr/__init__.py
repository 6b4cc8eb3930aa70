"""Shuffled k-ary randomized response (docs/single-message.md#k-ary-randomized-response).

Modules: `special_pair` is in `privacy` with the mechanism-level values; `blanket` is the
certified pair revealing only the number of blanket users; `mechanism` the contract object.
"""

from accountant.protocols.k_rr import blanket
from accountant.protocols.k_rr.blanket import BlanketCountPair, blanket_count_pair
from accountant.protocols.k_rr.mechanism import KRR
from accountant.protocols.k_rr.privacy import (
    SPECIAL_PAIR_LIMIT,
    blanket_pair,
    delta_for_epsilon,
    epsilon_for_delta,
    max_divergence,
    renyi_divergence,
    special_loss,
    special_pair,
)

__all__ = [
    "KRR",
    "SPECIAL_PAIR_LIMIT",
    "BlanketCountPair",
    "blanket",
    "blanket_count_pair",
    "blanket_pair",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "max_divergence",
    "renyi_divergence",
    "special_loss",
    "special_pair",
]
