"""The class of all epsilon0-LDP randomizers, shuffled, as a `Mechanism`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from accountant.domains import EPSILON0, N_PAIR
from accountant.pairs.subsampled_count import subsampled_count_pair
from accountant.protocols import binary_rr
from accountant.protocols.contract import DominatingPair, Mechanism, brackets_by_order, param
from accountant.protocols.ldp.privacy import (
    clones_pair,
    delta_for_epsilon,
    epsilon_for_delta,
    max_divergence,
    renyi_curve,
)
from accountant.result import Bracket
from accountant.view import ViewPair

__all__ = ["LDP"]


@dataclass(frozen=True, slots=True)
class LDP(Mechanism):
    """Worst case over every epsilon0-LDP local randomizer for n shuffled users.

    Upper ends hold for every randomizer of the class (the clones pair); lower ends are
    binary RR's special pair, a member of the class. There is no single view pair.

    Raises:
        ParameterError: on construction, an argument outside its domain.
    """

    n: int = param(N_PAIR, "number of users (>= 2)")
    epsilon0: float = param(EPSILON0, "local epsilon0 > 0")
    name: ClassVar[str] = "ldp"
    summary: ClassVar[str] = "any epsilon0-LDP randomizer (clones pair upper, binary RR lower)"

    def subsampled_view_pair(self, rate: float,
                             relation: str = "substitute") -> ViewPair:
        """Binary RR's subsampled special-pair count (`BinaryRR.subsampled_view_pair`): binary
        RR is a member of the class, so the value of this one pair of one randomizer is a
        lower bound on the worst epsilon0-LDP randomizer's (the same semantics as this
        class's other lower ends).

        Args:
            rate: participation probability q, in (0, 1].
            relation: "substitute" or "add-remove".

        Returns:
            The float ViewPair (grid exact).

        Raises:
            ParameterError: rate or relation outside its domain.
        """
        p = binary_rr.flip_probability(self.epsilon0)
        keep = binary_rr.keep_probability(self.epsilon0)
        return subsampled_count_pair(
            n=self.n, high=keep, low=p, rate=rate, relation=relation, high_complement=p,
            low_complement=keep, description={"protocol": "ldp (binary RR, a member of the "
                                                          "class)", "epsilon0": self.epsilon0})

    def dominating_pair(self) -> DominatingPair:
        """The clones pair: it dominates every neighbouring pair of every epsilon0-LDP randomizer.

        Returns:
            DominatingPair with the ClonePair of `ldp.clones_pair`.
        """
        return DominatingPair(pair=clones_pair.unchecked(n=self.n, epsilon0=self.epsilon0),
                              name="clones pair (Feldman, McMillan, Talwar, FOCS 2021)",
                              proof="docs/clones-and-blankets.md")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta) over the class, maximum over both orders (`ldp.epsilon_for_delta`).

        Args:
            delta: target delta, in (0, 1).

        Returns:
            The Bracket of `ldp.epsilon_for_delta`.

        Raises:
            ParameterError: delta outside (0, 1).
        """
        return epsilon_for_delta.unchecked(n=self.n, epsilon0=self.epsilon0, delta=delta)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon) over the class, maximum over both orders (`ldp.delta_for_epsilon`).

        Args:
            epsilon: epsilon >= 0.

        Returns:
            The Bracket of `ldp.delta_for_epsilon`.

        Raises:
            ParameterError: epsilon < 0 or NaN.
        """
        return delta_for_epsilon.unchecked(n=self.n, epsilon0=self.epsilon0, epsilon=epsilon)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences at many orders (`ldp.renyi_curve` for the finite ones).

        Args:
            orders: Renyi orders, each in (1, inf]; inf gives the max-divergence.

        Returns:
            One Bracket(lower, upper) per order, in the order given.

        Raises:
            ParameterError: an order outside (1, inf].
        """
        return brackets_by_order(
            orders, lambda alphas: renyi_curve.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                 alphas=alphas),
            self.max_divergence)

    def max_divergence(self) -> Bracket:
        """The pure-DP epsilon of the class: epsilon0.

        Returns:
            Bracket with the EXACT Result epsilon0 as both ends.
        """
        r = max_divergence.unchecked(n=self.n, epsilon0=self.epsilon0)
        return Bracket(lower=r, upper=r)
