"""The class of all (epsilon0, delta0)-LDP randomizers, shuffled, as a `Mechanism`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from accountant.domains import EPSILON0, N_PAIR
from accountant.protocols.approximate_ldp import reduction, reveal
from accountant.protocols.approximate_ldp.reduction import DELTA0
from accountant.protocols.contract import Mechanism, param
from accountant.result import Bracket, Direction, Kind, Result, Source

__all__ = ["ApproximateLDP"]

_INFINITE = Source(citation="binary RR with a delta0 reveal branch, a member of the class",
                   locator="docs/approximate-ldp.md#max-divergence-and-renyi")


@dataclass(frozen=True, slots=True)
class ApproximateLDP(Mechanism):
    """Worst case over every (epsilon0, delta0)-LDP local randomizer for n shuffled users.

    Upper ends hold for every randomizer of the class (this library's reduction to the
    clones pair, or the local guarantee; docs/approximate-ldp.md); lower ends are members of
    the class (binary RR, and binary RR with a delta0 reveal branch). The max-divergence and
    every Renyi divergence are +inf. There is no single view pair and no dominating pair:
    compose the (epsilon, delta) values as an `EpsilonDelta` event.
    """

    n: int = param(N_PAIR, "number of users (>= 2)")
    epsilon0: float = param(EPSILON0, "local epsilon0 > 0")
    delta0: float = param(DELTA0, "local delta0 in (0, 1)")
    name: ClassVar[str] = "approximate-ldp"
    summary: ClassVar[str] = ("any (epsilon0, delta0)-LDP randomizer (clones pair + delta "
                              "term upper, binary RR with reveal lower)")
    no_pair_reason: ClassVar[str] = (
        "the (epsilon0, delta0)-LDP class has no dominating pair here (its upper end is the "
        "clones pair plus an additive delta term, docs/approximate-ldp.md); compose "
        "EpsilonDelta(epsilon, delta) from its epsilon_for_delta instead")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta): `reduction.epsilon_upper` and `reveal.epsilon_lower`."""
        n, e0, d0 = self.n, self.epsilon0, self.delta0
        return Bracket(lower=reveal.epsilon_lower.unchecked(n=n, epsilon0=e0, delta0=d0,
                                                            delta=delta),
                       upper=reduction.epsilon_upper.unchecked(n=n, epsilon0=e0, delta0=d0,
                                                               delta=delta))

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon): `reduction.delta_upper` and `reveal.delta_lower`."""
        n, e0, d0 = self.n, self.epsilon0, self.delta0
        return Bracket(lower=reveal.delta_lower.unchecked(n=n, epsilon0=e0, delta0=d0,
                                                          epsilon=epsilon),
                       upper=reduction.delta_upper.unchecked(n=n, epsilon0=e0, delta0=d0,
                                                             epsilon=epsilon))

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """+inf at every order: the reveal member's view V1 has an atom (a bottom_1 report)
        of mass delta0 > 0 where V0 has none, so sum V1^alpha V0^(1 - alpha) is infinite."""
        out = []
        for alpha in orders:
            if alpha == math.inf:
                out.append(self.max_divergence())
                continue
            r = Result(quantity="renyi", value=math.inf, kind=Kind.EXACT,
                       direction=Direction.MAX, order=float(alpha), source=_INFINITE,
                       method="protocols.approximate_ldp.renyi (an atom of one view only: "
                              "+inf)")
            out.append(Bracket(lower=r, upper=r))
        return out

    def local_guarantee(self) -> tuple[float, float]:
        """(epsilon0, delta0): the class's local guarantee (post-processing)."""
        return (self.epsilon0, self.delta0)

    def max_divergence(self) -> Bracket:
        """+inf exactly: the reveal member's atom of mass delta0 under one dataset only."""
        r = Result(quantity="max_divergence", value=math.inf, kind=Kind.EXACT,
                   direction=Direction.MAX, order=math.inf, source=_INFINITE,
                   method="protocols.approximate_ldp.max_divergence (an atom of one view "
                          "only: +inf)")
        return Bracket(lower=r, upper=r)
