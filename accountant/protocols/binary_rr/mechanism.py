"""Shuffled binary randomized response as a `Mechanism` (the protocol contract)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from accountant.domains import EPSILON0, N_PAIR
from accountant.pairs import clones
from accountant.pairs.subsampled_count import subsampled_count_pair
from accountant.protocols.binary_rr.privacy import delta_for_epsilon, epsilon_for_delta
from accountant.protocols.binary_rr.renyi import max_divergence, renyi_curve
from accountant.protocols.binary_rr.view import (
    ONES,
    as_checked,
    flip_probability,
    keep_probability,
    view_pair,
)
from accountant.protocols.contract import DominatingPair, Mechanism, brackets_by_order, param
from accountant.result import Bracket
from accountant.view import ViewPair

__all__ = ["BinaryRR"]


@dataclass(frozen=True, slots=True)
class BinaryRR(Mechanism):
    """n users, each reporting its bit through epsilon0-randomized response, shuffled.

    Attributes:
        n: number of users, >= 2.
        epsilon0: the local randomizer's epsilon0 > 0.
        ones: how many of the other n-1 users hold a 1; None for the worst case over
            datasets (the view pair then is the special pair, ones = 0).

    Raises:
        ParameterError: on construction, an argument outside its domain.
    """

    n: int = param(N_PAIR, "number of users (>= 2)")
    epsilon0: float = param(EPSILON0, "local epsilon0 > 0")
    ones: int | None = param(ONES, "how many of the other n-1 users hold a 1 (default: "
                                   "worst case)", optional=True)
    name: ClassVar[str] = "binary-rr"
    summary: ClassVar[str] = "shuffled binary randomized response"

    def one_pair(self) -> bool:
        """Whether the values are one dataset's pair's.

        Returns:
            True when `ones` is given (the answers are PAIR statements).
        """
        return self.ones is not None

    def check_relations(self) -> None:
        """ones <= n - 1 (`binary_rr.as_checked`)."""
        as_checked(self.n, self.epsilon0, self.ones)

    def view_pair(self) -> ViewPair:
        """The exact pair of one count (`binary_rr.view_pair`, float backend, default tail).

        Returns:
            The ViewPair at `ones`, or at ones = 0 (the special pair) when ones is None.
        """
        return view_pair.unchecked(n=self.n, epsilon0=self.epsilon0,
                         ones=0 if self.ones is None else self.ones)

    def subsampled_view_pair(self, rate: float,
                             relation: str = "substitute") -> ViewPair:
        """The count of 1s under the special pair of a Poisson-subsampled round
        (`pairs.subsampled_count_pair` with R(1|1) = 1-p, R(1|0) = p): the other users hold
        0, the differing user 1 (P) or 0 / absent (Q). At rate 1 with the substitute relation
        it is `view_pair()` at ones = 0. One neighbouring pair: a lower bound on the
        mechanism, whatever `ones` says.

        Args:
            rate: participation probability q, in (0, 1].
            relation: "substitute" or "add-remove".

        Returns:
            The float ViewPair (grid exact).

        Raises:
            ParameterError: rate or relation outside its domain.
        """
        p = flip_probability(self.epsilon0)
        keep = keep_probability(self.epsilon0)
        return subsampled_count_pair(
            n=self.n, high=keep, low=p, rate=rate, relation=relation, high_complement=p,
            low_complement=keep, description={"protocol": "binary-rr",
                                              "epsilon0": self.epsilon0})

    def dominating_pair(self) -> DominatingPair:
        """The blanket pair of binary RR (`pairs.clones.blanket_k_rr` with k = 2).

        Returns:
            DominatingPair(pair=ClonePair, name=..., proof="docs/single-message.md").
        """
        return DominatingPair(
            pair=clones.blanket_k_rr.unchecked(n=self.n, epsilon0=self.epsilon0, k=2),
            name="blanket pair of binary RR (clone probability 2/(e^epsilon0 + 1))",
            proof="docs/single-message.md")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta), maximum over both orders (`binary_rr.epsilon_for_delta`).

        Args:
            delta: target delta, in (0, 1).

        Returns:
            The Bracket of `binary_rr.epsilon_for_delta` at this mechanism's `ones`.

        Raises:
            ParameterError: delta outside (0, 1).
        """
        return epsilon_for_delta.unchecked(n=self.n, epsilon0=self.epsilon0, delta=delta,
                                           ones=self.ones)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon), maximum over both orders (`binary_rr.delta_for_epsilon`).

        Args:
            epsilon: epsilon >= 0.

        Returns:
            The Bracket of `binary_rr.delta_for_epsilon` at this mechanism's `ones`.

        Raises:
            ParameterError: epsilon < 0 or NaN.
        """
        return delta_for_epsilon.unchecked(n=self.n, epsilon0=self.epsilon0, epsilon=epsilon,
                                           ones=self.ones)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences at many orders (`binary_rr.renyi_curve` for the finite ones).

        Args:
            orders: Renyi orders, each in (1, inf]; inf gives the max-divergence.

        Returns:
            One Bracket(lower, upper) per order, in the order given.

        Raises:
            ParameterError: an order outside (1, inf].
        """
        return brackets_by_order(
            orders, lambda alphas: renyi_curve.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                         alphas=alphas, ones=self.ones),
            self.max_divergence)

    def max_divergence(self) -> Bracket:
        """The pure-DP epsilon: epsilon0 for every pair.

        Returns:
            Bracket with the EXACT Result epsilon0 as both ends.
        """
        r = max_divergence.unchecked(n=self.n, epsilon0=self.epsilon0, ones=self.ones)
        return Bracket(lower=r, upper=r)
