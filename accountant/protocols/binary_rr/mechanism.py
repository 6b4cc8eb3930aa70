"""Shuffled binary randomized response as a `Mechanism` (the protocol contract)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from accountant.pairs import clones
from accountant.protocols.binary_rr.privacy import delta_for_epsilon, epsilon_for_delta
from accountant.protocols.binary_rr.renyi import max_divergence, renyi_curve
from accountant.protocols.binary_rr.view import check_parameters, view_pair
from accountant.protocols.contract import DominatingPair, Mechanism
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

    n: int
    epsilon0: float
    ones: int | None = None
    name: ClassVar[str] = "binary-rr"

    def __post_init__(self) -> None:
        n, epsilon0, ones = check_parameters(self.n, self.epsilon0, self.ones)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "epsilon0", epsilon0)
        object.__setattr__(self, "ones", ones)

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "epsilon0": self.epsilon0}
        if self.ones is not None:
            out["ones"] = self.ones
        return out

    def view_pair(self) -> ViewPair:
        return view_pair(n=self.n, epsilon0=self.epsilon0,
                         ones=0 if self.ones is None else self.ones)

    def dominating_pair(self) -> DominatingPair:
        return DominatingPair(
            pair=clones.blanket_k_rr(n=self.n, epsilon0=self.epsilon0, k=2),
            name="blanket pair of binary RR (clone probability 2/(e^epsilon0 + 1))",
            proof="docs/single-message.md")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        return epsilon_for_delta(n=self.n, epsilon0=self.epsilon0, delta=delta,
                                 ones=self.ones)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        return delta_for_epsilon(n=self.n, epsilon0=self.epsilon0, epsilon=epsilon,
                                 ones=self.ones)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        finite = [a for a in orders if a != math.inf]
        curve = iter(renyi_curve(n=self.n, epsilon0=self.epsilon0, alphas=finite,
                                 ones=self.ones) if finite else [])
        out = []
        for alpha in orders:
            if alpha == math.inf:
                out.append(self.max_divergence())
            else:
                low, up = next(curve)
                out.append(Bracket(lower=low, upper=up))
        return out

    def max_divergence(self) -> Bracket:
        r = max_divergence(n=self.n, epsilon0=self.epsilon0, ones=self.ones)
        return Bracket(lower=r, upper=r)
