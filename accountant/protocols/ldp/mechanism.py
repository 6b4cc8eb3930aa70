"""The class of all epsilon0-LDP randomizers, shuffled, as a `Mechanism`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from accountant.domains import EPSILON0, N_PAIR
from accountant.pairs.subsampled_count import subsampled_count_pair
from accountant.protocols import binary_rr
from accountant.protocols.contract import DominatingPair, Mechanism, brackets_by_order, param
from accountant.protocols.ldp import privacy
from accountant.result import Bracket
from accountant.view import ViewPair

__all__ = ["LDP"]


@dataclass(frozen=True, slots=True)
class LDP(Mechanism):
    """Worst case over every epsilon0-LDP local randomizer for n shuffled users.

    Upper ends hold for every randomizer of the class (the clones pair); lower ends are
    binary RR's special pair, a member of the class. There is no single view pair.
    """

    n: int = param(N_PAIR, "number of users (>= 2)")
    epsilon0: float = param(EPSILON0, "local epsilon0 > 0")
    name: ClassVar[str] = "ldp"
    summary: ClassVar[str] = "any epsilon0-LDP randomizer (clones pair upper, binary RR lower)"

    def subsampled_pair(self, rate: float, relation: str) -> ViewPair:
        """Binary RR's subsampled special-pair count: binary RR is a member of the class, so
        this one pair of one randomizer is a lower end for the class."""
        p = binary_rr.flip_probability(self.epsilon0)
        keep = binary_rr.keep_probability(self.epsilon0)
        return subsampled_count_pair.unchecked(
            n=self.n, high=keep, low=p, rate=rate, relation=relation, high_complement=p,
            low_complement=keep, description={"protocol": "ldp (binary RR, a member of the "
                                                          "class)", "epsilon0": self.epsilon0})

    def dominating_pair(self) -> DominatingPair[object]:
        """The clones pair: it dominates every neighbouring pair of every epsilon0-LDP
        randomizer."""
        return DominatingPair(pair=privacy.clones_pair.unchecked(n=self.n,
                                                                 epsilon0=self.epsilon0),
                              name="clones pair (Feldman, McMillan, Talwar, FOCS 2021)",
                              proof="docs/clones-and-blankets.md")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """`ldp.epsilon_for_delta`: the clones pair's upper end, binary RR's lower end."""
        return privacy.epsilon_for_delta.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                   delta=delta)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """`ldp.delta_for_epsilon`: the clones pair's upper end, binary RR's lower end."""
        return privacy.delta_for_epsilon.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                   epsilon=epsilon)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """`ldp.renyi_curve` at the finite orders, the max-divergence at inf."""
        return brackets_by_order(orders, lambda alphas: privacy.renyi_curve.unchecked(
            n=self.n, epsilon0=self.epsilon0, alphas=alphas), self.max_divergence)

    def local_guarantee(self) -> tuple[float, float]:
        """The local guarantee: (epsilon0, 0): the class's local guarantee.

        Returns:
            (epsilon0, 0.0).
        """
        return (self.epsilon0, 0.0)

    def max_divergence(self) -> Bracket:
        """epsilon0, exactly (LDP post-processing; binary RR attains it)."""
        r = privacy.max_divergence.unchecked(n=self.n, epsilon0=self.epsilon0)
        return Bracket(lower=r, upper=r)
