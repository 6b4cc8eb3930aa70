"""Users who differ, collude or drop out (issue 24, items 3 and 4; docs/heterogeneous.md).

Modules: `groups` (groups of users sharing a randomizer matrix, counts or count ranges),
`decomposition` (clone probabilities across groups, one dominating pair per differing
group, colluders), `views` (one real pair's count view, the lower end; the exact worst case
over every neighbouring pair for tiny n), `mechanism` (the contract object).
"""

from accountant.protocols.heterogeneous.decomposition import (
    DifferingGroup,
    cross_clone_probability,
    differing_groups,
)
from accountant.protocols.heterogeneous.groups import (
    Group,
    binary_rr_group,
    check_groups,
    k_rr_group,
    matrix_group,
)
from accountant.protocols.heterogeneous.mechanism import HeterogeneousRandomizer
from accountant.protocols.heterogeneous.views import (
    ExactWorstCase,
    count_pair,
    exact_worst_case,
)

__all__ = [
    "DifferingGroup",
    "ExactWorstCase",
    "Group",
    "HeterogeneousRandomizer",
    "binary_rr_group",
    "check_groups",
    "count_pair",
    "cross_clone_probability",
    "differing_groups",
    "exact_worst_case",
    "k_rr_group",
    "matrix_group",
]
