"""Any local randomizer given as a matrix R(y|x) (issue 12).

Modules: `matrix` (the validated exact matrix, its epsilon0 and blanket mass, named
constructors), `views` (exact shuffled views for small n and the worst case over datasets),
`blanket` (the certified blanket upper bound for any n), `mechanism` (the contract object).
"""

from accountant.protocols.randomizer import blanket
from accountant.protocols.randomizer.blanket import BlanketBound, blanket_bound
from accountant.protocols.randomizer.matrix import (
    MAX_OUTPUTS,
    Randomizer,
    binary_rr,
    hadamard_response,
    k_rr,
    local_hashing,
    subset_selection,
    unary_encoding,
)
from accountant.protocols.randomizer.mechanism import SPECIAL_VIEW_LIMIT, RandomizerMechanism
from accountant.protocols.randomizer.views import (
    VIEW_LIMIT,
    Compositions,
    WorstCase,
    exact_view_pair,
    exact_worst_case,
    histogram_count,
)

__all__ = [
    "BlanketBound",
    "MAX_OUTPUTS",
    "RandomizerMechanism",
    "SPECIAL_VIEW_LIMIT",
    "blanket",
    "blanket_bound",
    "VIEW_LIMIT",
    "Compositions",
    "Randomizer",
    "WorstCase",
    "binary_rr",
    "exact_view_pair",
    "exact_worst_case",
    "hadamard_response",
    "histogram_count",
    "k_rr",
    "local_hashing",
    "subset_selection",
    "unary_encoding",
]
