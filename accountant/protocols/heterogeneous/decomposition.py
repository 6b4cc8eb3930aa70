"""The clones decomposition across groups: clone probabilities from the matrices.

docs/heterogeneous.md#the-decomposition. When the differing user belongs to group g and
holds x0 or x1, a user of group h is a clone with probability p_hg provided

    R_h(z)(y) >= (p_hg / 2) (R_g(x0)(y) + R_g(x1)(y))      for every input z and output y.

One p_hg that serves every input pair of g is

    p_hg = min over y of 2 min_z R_h(z)(y) / (the sum of the two largest entries of column y
           of R_g),                                              (outputs with a zero sum skipped)

computed exactly on the rational matrices and rounded down (a smaller p is still valid).
The differing user's w comes from eps_g, the epsilon0 of R_g (rounded up): every input pair
of g is eps_g-LDP. So, for each group g, ONE pair dominates every neighbouring pair whose
differing user is in g; the mechanism takes the worst over g.

Colluders: the analyzer knows c users' messages. The others' clone count loses the c users
with the largest p_hg (a smaller Poisson-binomial: the worst case over which users collude,
docs/heterogeneous.md#colluders).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from accountant.errors import ParameterError
from accountant.numeric.rounding import down
from accountant.pairs.heterogeneous_clones import HeterogeneousClonePair, heterogeneous_clones
from accountant.protocols.heterogeneous.groups import Group

__all__ = ["cross_clone_probability", "DifferingGroup", "differing_groups", "honest_counts",
           "check_epsilon0", "group_epsilon0_bound"]

# the clones pair needs e^eps as a finite float (as every clones pair of the library)
_MAX_EPSILON0 = 700.0


def cross_clone_probability(other: Group, differing: Group) -> Fraction:
    """p_hg: the largest p with R_h(z)(y) >= (p/2)(R_g(x0)(y) + R_g(x1)(y)) for all z, y and
    every input pair x0 != x1 of g.

    Args:
        other: the other user's group h.
        differing: the differing user's group g.

    Returns:
        The exact p in [0, 1].
    """
    best = Fraction(1)
    for y in range(differing.matrix.outputs):
        col = sorted((row[y] for row in differing.matrix.rows), reverse=True)
        top = col[0] + col[1]
        if top == 0:
            continue
        floor = min(row[y] for row in other.matrix.rows)
        best = min(best, 2 * floor / top)
    return best


@dataclass(frozen=True, slots=True)
class DifferingGroup:
    """The dominating pair when the differing user is in one group.

    Attributes:
        group: the group's index.
        epsilon0: its matrix's epsilon0 (0: the view does not depend on the user's input).
        pair: the heterogeneous clones pair, None when epsilon0 is 0.
        colluders: the honest-count reduction used, per group: how many of each group's
            users are taken as colluders (the ones with the largest clone probabilities).
    """

    group: int
    epsilon0: float
    pair: HeterogeneousClonePair | None
    colluders: tuple[int, ...]


def honest_counts(groups: tuple[Group, ...], take: tuple[int, ...]) -> tuple[int, ...]:
    """Each group's count less the colluders taken from it.

    Args:
        groups: the groups.
        take: colluders taken from each group.

    Returns:
        The honest counts.
    """
    return tuple(g.count - t for g, t in zip(groups, take, strict=True))


def check_epsilon0(groups: tuple[Group, ...]) -> None:
    """Every group's matrix has a finite epsilon0 the clones pair can use.

    Args:
        groups: the groups.

    Raises:
        ParameterError: naming the group whose epsilon0 is infinite or above 700.
    """
    for i, g in enumerate(groups):
        e0 = g.matrix.epsilon0
        if not e0 <= _MAX_EPSILON0:
            raise ParameterError(
                f"groups[{i}] has epsilon0={e0!r}, outside [0, {_MAX_EPSILON0:g}] (an output "
                "some inputs never produce gives inf; the clones decomposition needs finite "
                "ratios, docs/heterogeneous.md#what-is-not-covered)")


def differing_groups(groups: tuple[Group, ...], colluders: int) -> list[DifferingGroup]:
    """One dominating pair per group that can hold the differing user.

    Args:
        groups: the validated groups (finite epsilon0, see `check_epsilon0`).
        colluders: the number of users whose messages the analyzer knows (validated:
            at most the total count - 1).

    Returns:
        A DifferingGroup for each group with at least one user.
    """
    out = []
    for g_index, g in enumerate(groups):
        if g.count == 0:
            continue
        probs = [cross_clone_probability(h, g) for h in groups]
        others = [h.count - (1 if i == g_index else 0) for i, h in enumerate(groups)]
        # worst case over which users collude: remove the largest p first (a stochastically
        # smaller clone count, docs/heterogeneous.md#colluders)
        take = [0] * len(groups)
        left = colluders
        for i in sorted(range(len(groups)), key=lambda j: probs[j], reverse=True):
            t = min(left, others[i])
            take[i], left = t, left - t
        counts = [m - t for m, t in zip(others, take, strict=True)]
        e0 = g.matrix.epsilon0
        pair = None
        if e0 > 0:
            pair = heterogeneous_clones(
                counts=counts, clone_probabilities=[float(down(p)) for p in probs],
                epsilon0=min(e0, _MAX_EPSILON0),
                description={"protocol": "heterogeneous", "differing_group": g_index,
                             "colluders": colluders})
        out.append(DifferingGroup(group=g_index, epsilon0=e0, pair=pair, colluders=tuple(take)))
    return out


def group_epsilon0_bound(groups: tuple[Group, ...]) -> float:
    """The largest epsilon0 over groups with a user (the mechanism's max-divergence).

    Args:
        groups: the groups.

    Returns:
        max epsilon0, 0.0 when no group has a user.
    """
    return max([g.matrix.epsilon0 for g in groups if g.count > 0], default=0.0)

