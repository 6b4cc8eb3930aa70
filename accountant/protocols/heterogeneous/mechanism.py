"""Users in groups with different local randomizers, shuffled, as a `Mechanism`.

Upper ends: for each group g that can hold the differing user, the heterogeneous clones pair
of `decomposition` (clone probabilities from the matrices, a Poisson-binomial clone count;
`pairs.heterogeneous_clones`), the worst over g. Lower ends: one real neighbouring pair,
post-processed to the count of one output (`views.count_pair`). Colluders: the honest
users' view, the colluders with the largest clone probabilities removed. Group counts given
as ranges: everything at the fewest users (docs/heterogeneous.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from accountant.divergence import delta_bracket, epsilon_bracket, renyi_divergence
from accountant.domains import Interval
from accountant.errors import ParameterError
from accountant.pairs import clones
from accountant.pairs import heterogeneous_clones as hc
from accountant.protocols import ldp
from accountant.protocols.contract import DominatingPair, Mechanism, param
from accountant.protocols.heterogeneous import decomposition
from accountant.protocols.heterogeneous.decomposition import DifferingGroup
from accountant.protocols.heterogeneous.groups import Group, check_groups
from accountant.protocols.heterogeneous.views import count_pair, histogram_pair
from accountant.result import Bracket, Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = ["HeterogeneousRandomizer"]

_METHOD = "protocols.heterogeneous"
_MAX_EXP_EPSILON = 700.0
_LOWER = Source(citation="one neighbouring pair of the heterogeneous view",
                locator="the differing user in the group of largest epsilon0 holds x or x'; "
                        "the other honest users all hold x, or all x' (histogram view, small "
                        "n), or x' with the count of output y (docs/heterogeneous.md#lower-end)")


# at most the users the library handles at all (N_USERS): a larger count is refused when the
# flag is read, before the groups file is
_COLLUDERS = Interval("colluders", 0, 1e10, closed="both", integer=True,
                      note="colluders are users: at most 1e10, and fewer than the users")


@dataclass(frozen=True)
class HeterogeneousRandomizer(Mechanism):
    """Groups of users, each group with its own local randomizer matrix, shuffled together.

    Attributes:
        groups: the groups (`protocols.heterogeneous.Group`, or JSON-like objects read by
            `check_groups`): counts (or count ranges) and matrices on common input and
            output alphabets.
        colluders: the number of users whose messages the analyzer knows (None: 0); the
            guarantee is for the other users, the worst case over which users collude.

    Raises:
        ParameterError: on construction, invalid groups, a matrix with an infinite epsilon0,
            fewer than one user, or colluders >= the number of users.
    """

    groups: tuple[Group, ...]
    colluders: int | None = param(_COLLUDERS,
                                  "users whose messages the analyzer knows (default 0)",
                                  optional=True)
    # the lower end's views, built once per object (a cache, not a parameter)
    _views: list[ViewPair] = field(default_factory=list, init=False, repr=False,
                                   compare=False)
    name: ClassVar[str] = "heterogeneous"
    summary: ClassVar[str] = ("users in groups with different randomizer matrices (clones pair "
                              "with a Poisson-binomial count)")

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", check_groups(self.groups))
        super().__post_init__()  # validates colluders, then check_relations

    def check_relations(self) -> None:
        """At least one user, finite epsilon0 in every group, colluders <= users - 1.

        Raises:
            ParameterError: naming the condition that fails.
        """
        n = self.n
        if n < 1:
            raise ParameterError(f"groups hold n={n} users, outside [1, inf)")
        decomposition.check_epsilon0(self.groups)
        if self.colluders is not None and self.colluders > n - 1:
            raise ParameterError(f"colluders={self.colluders} is outside [0, {n - 1}] (n={n}: "
                                 "at least one honest user)")

    @property
    def n(self) -> int:
        """The number of users (the fewest, for groups given with a range)."""
        return sum(g.count for g in self.groups)

    def params(self) -> dict[str, Any]:
        """{"n": ..., "groups": [...], "colluders": ...} (count ranges in their groups)."""
        out: dict[str, Any] = {"n": self.n, "groups": [g.describe() for g in self.groups]}
        if self.colluders:
            out["colluders"] = self.colluders
        if any(g.count_max is not None for g in self.groups):
            out["counts"] = "ranges: every value at the fewest users (nonincreasing in n)"
        return out

    def _scope_note(self) -> str:
        c = self.colluders or 0
        return (f"honest users n - c = {self.n - c} of n = {self.n} (colluders c = {c})"
                if c else f"n = {self.n}")

    def differing(self) -> list[DifferingGroup]:
        """One dominating pair per group that can hold the differing user.

        Returns:
            `decomposition.differing_groups` of the groups and colluders.
        """
        return decomposition.differing_groups(self.groups, self.colluders or 0)

    def _lower_case(self) -> tuple[int, tuple[int, ...]]:
        """(differing group, honest counts) of the lower end's pair."""
        cases = self.differing()
        best = max(cases, key=lambda d: d.epsilon0)
        return best.group, decomposition.honest_counts(self.groups, best.colluders)

    def view_pair(self) -> ViewPair:
        """One real neighbouring pair's view: the full histogram view when it has at most
        `views.HISTOGRAM_LIMIT` histograms, else the count of one output
        (`views.count_pair`); its divergences are lower bounds on the mechanism's."""
        return self._lower_views()[0]

    def _lower_views(self) -> list[ViewPair]:
        """The real pairs whose values are the lower ends (the best one is reported): the
        histogram views with the other users at x and at x' when small, else the count."""
        if self._views:
            return self._views
        g, honest = self._lower_case()
        views = [histogram_pair(self.groups, differing=g, honest=honest, others_hold=side)
                 for side in ("x", "x_prime")]
        found = [v for v in views if v is not None]
        self._views.extend(found or [count_pair(self.groups, differing=g, honest=honest)])
        return self._views

    def dominating_pair(self) -> DominatingPair[object]:
        """The heterogeneous clones pairs (one per differing group); composed as ONE binomial
        clones pair that dominates them all: the largest epsilon0 and the smallest clone
        probability over groups (docs/heterogeneous.md#numerics, Composition)."""
        cases = [d for d in self.differing() if d.pair is not None]
        if not cases:  # every matrix has epsilon0 = 0: the view ignores the data
            return DominatingPair(pair=None, name="no pair: every output ignores the data",
                                  proof="docs/heterogeneous.md")
        e0 = max(d.epsilon0 for d in cases)
        q = min(min((p for p, m in zip(d.pair.clone_probabilities, d.pair.counts,
                                       strict=True) if m > 0), default=1.0)
                for d in cases if d.pair is not None)
        others = min(d.pair.others for d in cases if d.pair is not None)
        base = clones.fmt_clones.unchecked(n=2, epsilon0=e0)
        composable = clones.ClonePair(
            others=others, clone_probability=q if others > 0 else 1.0, w=base.w,
            w_prime=base.w_prime, w_star=0.0, epsilon0=e0, source=hc.SOURCE,
            description={"pair": "heterogeneous clones (largest epsilon0, smallest p)",
                         "n": self.n, "colluders": self.colluders or 0})
        return DominatingPair(pair=tuple(d.pair for d in cases),
                              name="heterogeneous clones pairs, one per differing group",
                              proof="docs/heterogeneous.md#the-decomposition",
                              composable=composable)

    def subsampling_pair(self) -> DominatingPair[object] | None:
        """The clones pair of the largest epsilon0 class (Feldman-McMillan-Talwar 2021):
        every user's randomizer is in that class, so it dominates sampled rounds too."""
        e0 = decomposition.group_epsilon0_bound(self.groups)
        honest = self.n - (self.colluders or 0)
        if not 0 < e0 <= _MAX_EXP_EPSILON or honest < 2:
            return None
        return DominatingPair(pair=ldp.clones_pair.unchecked(n=honest, epsilon0=e0),
                              name=f"clones pair of the epsilon0 = {e0:.6g} class (Feldman, "
                                   "McMillan, Talwar, FOCS 2021)",
                              proof="docs/clones-and-blankets.md#clones-pair")

    def _upper(self, quantity: str, per_pair: Any, at: float, zero: float,
               only: list[int] | None = None) -> tuple[Result, Result]:
        """(upper, pair_lower): the worst over differing groups (those in `only`, in that
        order, when given) of the pairs' brackets."""
        ups, lows, names = [], [], []
        by_group = {d.group: d for d in self.differing()}
        for g in (only if only is not None else list(by_group)):
            d = by_group[g]
            if d.pair is None:
                continue
            b = per_pair(d.pair)
            ups.append(b.upper)
            lows.append(b.lower)
            names.append(d.group)
        m = (f"{_METHOD}.{quantity} (heterogeneous clones pairs, worst over differing groups; "
             f"{self._scope_note()})")
        if not ups:
            r = Result(quantity=quantity, value=zero, kind=Kind.EXACT, direction=Direction.MAX,
                       at=at, method=f"{_METHOD}: every matrix has epsilon0 = 0")
            return r, r
        i = max(range(len(ups)), key=lambda j: ups[j].value)
        j = max(range(len(lows)), key=lambda t: lows[t].value)
        return (ups[i].with_(method=f"{m}: group {names[i]}, {ups[i].method}"),
                lows[j].with_(method=f"{m}: group {names[j]}, {lows[j].method}"))

    def _with_lower(self, upper: Result, pair_low: Result, bracket: Any, what: str) -> Bracket:
        """The Bracket: `upper`, and the largest certified lower end over `_lower_views`."""
        if upper.kind is Kind.EXACT:
            return Bracket(lower=upper, upper=upper)
        ends = [bracket(view) for view in self._lower_views()]
        lo, hi = max(ends, key=lambda e: e[0].value)
        m = f"{_METHOD}.{what}(one real pair: lower bound; {self._scope_note()})"
        return Bracket(lower=lo.with_(method=m, source=_LOWER), upper=upper,
                       pair_lower=pair_low, pair_name="clones",
                       special=hi.with_(method=m, source=_LOWER))

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta): the worst clones pair's upper end, one real pair's lower end.

        The groups are searched in decreasing epsilon0; a group whose certified delta at the
        largest upper end found so far is already <= delta needs no search of its own (that
        end is certified for it too)."""
        cases = sorted((d for d in self.differing() if d.pair is not None),
                       key=lambda d: -d.epsilon0)
        found: list[tuple[int, Bracket]] = []
        for d in cases:
            assert d.pair is not None
            if found:
                top = max(float(b.require_upper()) for _, b in found)
                if float(hc.delta_for_epsilon.unchecked(
                        d.pair, epsilon=top).require_upper()) <= delta:
                    continue
            found.append((d.group, hc.epsilon_for_delta.unchecked(d.pair, delta=delta)))
        results = iter(found)
        up, pair_low = self._upper("epsilon", lambda p: next(results)[1], float(delta), 0.0,
                                   only=[g for g, _ in found])
        return self._with_lower(up, pair_low, lambda v: epsilon_bracket.unchecked(v, delta),
                                "epsilon_for_delta")

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon): the worst clones pair's upper end, one real pair's lower end.
        Above epsilon = 700 only epsilon >= every group's epsilon0 is answered (delta = 0)."""
        if epsilon > _MAX_EXP_EPSILON:
            if epsilon >= decomposition.group_epsilon0_bound(self.groups):
                return Bracket.of(Result(
                    quantity="delta", value=0.0, kind=Kind.EXACT, direction=Direction.MAX,
                    at=float(epsilon), method=f"{_METHOD}.delta_for_epsilon (epsilon >= every "
                                              "group's epsilon0: pure DP, delta = 0)"))
            raise ParameterError(f"epsilon={epsilon!r} is outside [0, {_MAX_EXP_EPSILON:g}] "
                                 "(e^epsilon must stay a finite float)")
        up, pair_low = self._upper("delta", lambda p: hc.delta_for_epsilon.unchecked(
            p, epsilon=epsilon), float(epsilon), 0.0)
        return self._with_lower(up, pair_low, lambda v: delta_bracket.unchecked(v, epsilon),
                                "delta_for_epsilon")

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences: upper ends the smaller of the largest epsilon0 and the worst
        Renyi-dominating binomial clones pair (`heterogeneous_clones.renyi_upper`); lower
        ends one real pair's count view."""
        finite = [float(a) for a in orders if a != math.inf]
        e0 = decomposition.group_epsilon0_bound(self.groups)
        worst: dict[float, Result] = {}
        if finite:
            for d in self.differing():
                if d.pair is None:
                    continue
                for a, r in zip(finite, hc.renyi_upper.unchecked(d.pair, alphas=finite),
                                strict=True):
                    if a not in worst or r.value > worst[a].value:
                        worst[a] = r.with_(method=f"{_METHOD}.renyi (group {d.group}; "
                                                  f"{self._scope_note()}; {r.method})")
        views = self._lower_views() if finite else []
        out = []
        for alpha in orders:
            if alpha == math.inf:
                out.append(self.max_divergence())
                continue
            up = Result(quantity="renyi", value=e0, kind=Kind.UPPER, direction=Direction.MAX,
                        order=float(alpha), method=f"{_METHOD}.renyi (D_alpha <= D_inf <= "
                                                   "the largest epsilon0)")
            c = worst.get(float(alpha))
            if c is not None and c.value < up.value:
                up = c
            values = [renyi_divergence(view, alpha) for view in views]
            low = max(max(float(v.value) - 2 * v.error_budget, 0.0) for v in values)
            m = f"{_METHOD}.renyi(one real pair: lower bound)"
            lower = Result(quantity="renyi", value=min(low, up.value), kind=Kind.LOWER,
                           direction=Direction.MAX, method=m, source=_LOWER,
                           order=float(alpha),
                           error_budget=max(v.error_budget for v in values))
            out.append(Bracket(lower=lower, upper=up))
        return out

    def local_guarantee(self) -> tuple[float, float] | None:
        """(the largest epsilon0 over groups, 0), None when it is infinite."""
        e0 = decomposition.group_epsilon0_bound(self.groups)
        return (e0, 0.0) if math.isfinite(e0) else None

    def max_divergence(self) -> Bracket:
        """The largest epsilon0 over groups with a user: every view is a post-processing of
        the reports (upper); the lower end is that group's exact ratio when every other
        honest user can send the output attaining it (the histogram of that output alone)."""
        e0 = decomposition.group_epsilon0_bound(self.groups)
        m = f"{_METHOD}.max_divergence (largest epsilon0 over groups; {self._scope_note()})"
        g, honest = self._lower_case()
        _, _, _, y = self.groups[g].matrix.max_ratio()
        reachable = all(max(row[y] for row in grp.matrix.rows) > 0
                        for i, grp in enumerate(self.groups)
                        if honest[i] - (1 if i == g else 0) > 0)
        low = self.groups[g].matrix.epsilon0_lower if reachable else 0.0
        mk = lambda v, kind: Result(quantity="max_divergence", value=v,  # noqa: E731
                                    kind=kind, direction=Direction.MAX, order=math.inf,
                                    method=m)
        return Bracket(lower=mk(low, Kind.LOWER), upper=mk(e0, Kind.UPPER))
