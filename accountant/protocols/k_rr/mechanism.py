"""Shuffled k-ary randomized response as a `Mechanism` (the protocol contract)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from accountant.domains import ALPHABET, EPSILON0, N_PAIR
from accountant.pairs import clones
from accountant.pairs.subsampled_count import subsampled_count_pair
from accountant.protocols.contract import DominatingPair, Mechanism, param
from accountant.protocols.k_rr.blanket import blanket_count_pair
from accountant.protocols.k_rr.privacy import (
    delta_for_epsilon,
    epsilon_for_delta,
    max_divergence,
    renyi_divergence,
    special_pair,
)
from accountant.result import Bracket
from accountant.view import ViewPair

__all__ = ["KRR"]


@dataclass(frozen=True, slots=True)
class KRR(Mechanism):
    """n users, each reporting one of k symbols through epsilon0-k-RR, shuffled.

    Attributes:
        n: number of users, >= 2.
        epsilon0: the local randomizer's epsilon0 > 0.
        k: alphabet size, >= 2.

    Raises:
        ParameterError: on construction, an argument outside its domain.
    """

    n: int = param(N_PAIR, "number of users (>= 2)")
    epsilon0: float = param(EPSILON0, "local epsilon0 > 0")
    k: int = param(ALPHABET, "alphabet size (>= 2)")
    name: ClassVar[str] = "k-rr"
    summary: ClassVar[str] = "shuffled k-ary randomized response"

    def view_pair(self) -> ViewPair:
        """The special pair (all other users hold x, the differing user x').

        Returns:
            The float ViewPair of `k_rr.special_pair` (default tail).

        Raises:
            ParameterError: n > SPECIAL_PAIR_LIMIT.
        """
        return special_pair.unchecked(n=self.n, epsilon0=self.epsilon0, k=self.k)

    def subsampled_view_pair(self, rate: float,
                             relation: str = "substitute") -> ViewPair:
        """The count of y* = x under one neighbouring pair of a Poisson-subsampled round
        (`pairs.subsampled_count_pair`): the other users hold x' != x, the differing user x
        (P) or x' / absent (Q); R(x|x) = e^eps0/(e^eps0+k-1), R(x|x') = 1/(e^eps0+k-1). At
        rate 1 with the substitute relation it is a post-processing of the special pair
        (relabel x <-> x'). One neighbouring pair: a lower bound on the mechanism.

        Args:
            rate: participation probability q, in (0, 1].
            relation: "substitute" or "add-remove".

        Returns:
            The float ViewPair (grid exact).

        Raises:
            ParameterError: rate or relation outside its domain.
        """
        t = math.exp(-self.epsilon0)            # e^-eps0: no overflow for large eps0
        den = 1.0 + (self.k - 1) * t
        high, low = 1.0 / den, t / den
        return subsampled_count_pair(
            n=self.n, high=high, low=low, rate=rate, relation=relation,
            high_complement=(self.k - 1) * t / den,
            low_complement=(1.0 + (self.k - 2) * t) / den,
            description={"protocol": "k-rr", "epsilon0": self.epsilon0, "k": self.k})

    def dominating_pair(self) -> DominatingPair:
        """The blanket pair that dominates every neighbouring pair.

        Returns:
            DominatingPair with the ClonePair of `pairs.clones.blanket_k_rr` for k = 2, else the
            BlanketCountPair of `k_rr.blanket_count_pair` (which reveals only N).

        Raises:
            ParameterError: epsilon0 > 700 with k >= 3 (`blanket_count_pair`).
        """
        if self.k == 2:
            return DominatingPair(pair=clones.blanket_k_rr.unchecked(
                                      n=self.n, epsilon0=self.epsilon0, k=2),
                                  name="blanket pair of binary RR",
                                  proof="docs/single-message.md")
        return DominatingPair(pair=blanket_count_pair.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                      k=self.k),
                              name="k-RR blanket pair revealing only the blanket count N",
                              proof="docs/single-message.md",
                              # it reveals more, so it dominates too
                              # (docs/single-message.md#blanket-pairs-for-k-rr)
                              composable=clones.blanket_k_rr.unchecked(
                                  n=self.n, epsilon0=self.epsilon0, k=self.k))

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta) over every dataset, maximum over both orders (`k_rr.epsilon_for_delta`).

        Args:
            delta: target delta, in (0, 1).

        Returns:
            The Bracket of `k_rr.epsilon_for_delta`.

        Raises:
            ParameterError: delta outside (0, 1).
        """
        return epsilon_for_delta.unchecked(n=self.n, epsilon0=self.epsilon0, k=self.k, delta=delta)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon) over every dataset, maximum over both orders (`k_rr.delta_for_epsilon`).

        Args:
            epsilon: epsilon >= 0.

        Returns:
            The Bracket of `k_rr.delta_for_epsilon`.

        Raises:
            ParameterError: epsilon < 0 or NaN.
        """
        return delta_for_epsilon.unchecked(n=self.n, epsilon0=self.epsilon0, k=self.k,
                                           epsilon=epsilon)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences, one `k_rr.renyi_divergence` call per order.

        Args:
            orders: Renyi orders, each in (1, inf].

        Returns:
            One Bracket per order, in the order given.

        Raises:
            ParameterError: an order outside (1, inf].
        """
        return [renyi_divergence.unchecked(n=self.n, epsilon0=self.epsilon0, k=self.k, alpha=a)
                for a in orders]

    def max_divergence(self) -> Bracket:
        """The pure-DP epsilon: epsilon0.

        Returns:
            Bracket with the EXACT Result epsilon0 as both ends.
        """
        r = max_divergence.unchecked(n=self.n, epsilon0=self.epsilon0, k=self.k)
        return Bracket(lower=r, upper=r)
