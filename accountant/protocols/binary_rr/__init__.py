"""Shuffled binary randomized response (docs/single-message.md#binary-randomized-response).

Modules: `view` (the exact pair of one count of ones among the others), `worst` (all
counts in one pass), `renyi` (Renyi and max-divergence), `privacy` (mechanism-level
epsilon(delta) and delta(epsilon)), `mechanism` (the contract object).
"""

from accountant.protocols.binary_rr.mechanism import BinaryRR
from accountant.protocols.binary_rr.privacy import (
    EXACT_WORST_CASE_LIMIT,
    WORST_CASE_DELTA_FLOOR,
    delta_for_epsilon,
    epsilon_for_delta,
    special_epsilon_bracket,
)
from accountant.protocols.binary_rr.renyi import (
    RENYI_WORST_CASE_LIMIT,
    max_divergence,
    renyi_curve,
    renyi_divergence,
    special_pair_renyi,
)
from accountant.protocols.binary_rr.view import (
    DEFAULT_TAIL,
    flip_probability,
    keep_probability,
    special_loss,
    view_pair,
)
from accountant.protocols.binary_rr.worst import order_deltas, worst_case_pairs

__all__ = [
    "BinaryRR",
    "DEFAULT_TAIL",
    "EXACT_WORST_CASE_LIMIT",
    "RENYI_WORST_CASE_LIMIT",
    "WORST_CASE_DELTA_FLOOR",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "flip_probability",
    "keep_probability",
    "max_divergence",
    "order_deltas",
    "renyi_curve",
    "renyi_divergence",
    "special_epsilon_bracket",
    "special_loss",
    "special_pair_renyi",
    "view_pair",
    "worst_case_pairs",
]
