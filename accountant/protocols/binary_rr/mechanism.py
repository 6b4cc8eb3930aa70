"""Shuffled binary randomized response as a `Mechanism` (the protocol contract)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from accountant.domains import EPSILON0, N_PAIR
from accountant.pairs import clones
from accountant.pairs.subsampled_count import subsampled_count_pair
from accountant.protocols.binary_rr import privacy, renyi, view
from accountant.protocols.contract import DominatingPair, Mechanism, brackets_by_order, param
from accountant.result import Bracket
from accountant.view import ViewPair

__all__ = ["BinaryRR"]


@dataclass(frozen=True, slots=True)
class BinaryRR(Mechanism):
    """n users, each reporting its bit through epsilon0-randomized response, shuffled.

    With `ones` left None the values are the worst case over datasets (the view pair is then
    the special pair, ones = 0); with `ones` given, they are that dataset's pair's.
    """

    n: int = param(N_PAIR, "number of users (>= 2)")
    epsilon0: float = param(EPSILON0, "local epsilon0 > 0")
    ones: int | None = param(view.ONES, "how many of the other n-1 users hold a 1 (default: "
                                        "worst case)", optional=True)
    name: ClassVar[str] = "binary-rr"
    summary: ClassVar[str] = "shuffled binary randomized response"

    def one_pair(self) -> bool:
        """True when `ones` is given: the answers are that dataset's pair's."""
        return self.ones is not None

    def check_relations(self) -> None:
        """ones <= n - 1 (`binary_rr.as_checked`)."""
        view.as_checked(self.n, self.epsilon0, self.ones)

    def view_pair(self) -> ViewPair:
        """The exact pair of one count at `ones` (ones = 0, the special pair, when None)."""
        return view.view_pair.unchecked(n=self.n, epsilon0=self.epsilon0,
                                        ones=0 if self.ones is None else self.ones)

    def subsampled_pair(self, rate: float, relation: str) -> ViewPair:
        """The count of 1s under the special pair of a Poisson-subsampled round (R(1|1) =
        1-p, R(1|0) = p): the other users hold 0, the differing user 1 (P) or 0 / absent
        (Q); at rate 1 with the substitute relation, `view_pair()` at ones = 0. One pair,
        whatever `ones` says."""
        p = view.flip_probability(self.epsilon0)
        keep = view.keep_probability(self.epsilon0)
        return subsampled_count_pair.unchecked(
            n=self.n, high=keep, low=p, rate=rate, relation=relation, high_complement=p,
            low_complement=keep, description={"protocol": "binary-rr",
                                              "epsilon0": self.epsilon0})

    def dominating_pair(self) -> DominatingPair[object]:
        """The blanket pair of binary RR (`pairs.clones.blanket_k_rr` with k = 2)."""
        return DominatingPair(
            pair=clones.blanket_k_rr.unchecked(n=self.n, epsilon0=self.epsilon0, k=2),
            name="blanket pair of binary RR (clone probability 2/(e^epsilon0 + 1))",
            proof="docs/single-message.md")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """`binary_rr.epsilon_for_delta` at this mechanism's `ones`."""
        return privacy.epsilon_for_delta.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                   delta=delta, ones=self.ones)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """`binary_rr.delta_for_epsilon` at this mechanism's `ones`."""
        return privacy.delta_for_epsilon.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                   epsilon=epsilon, ones=self.ones)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """`binary_rr.renyi_curve` at the finite orders, the max-divergence at inf."""
        return brackets_by_order(orders, lambda alphas: renyi.renyi_curve.unchecked(
            n=self.n, epsilon0=self.epsilon0, alphas=alphas, ones=self.ones),
            self.max_divergence)

    def local_guarantee(self) -> tuple[float, float]:
        """The local guarantee: (epsilon0, 0): binary RR is epsilon0-LDP.

        Returns:
            (epsilon0, 0.0).
        """
        return (self.epsilon0, 0.0)

    def max_divergence(self) -> Bracket:
        """epsilon0 for every pair, exactly."""
        r = renyi.max_divergence.unchecked(n=self.n, epsilon0=self.epsilon0, ones=self.ones)
        return Bracket(lower=r, upper=r)
