"""The class of all epsilon0-LDP randomizers, shuffled, as a `Mechanism`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from accountant.protocols.contract import DominatingPair, Mechanism
from accountant.protocols.ldp.privacy import (
    check_parameters,
    clones_pair,
    delta_for_epsilon,
    epsilon_for_delta,
    max_divergence,
    renyi_curve,
)
from accountant.result import Bracket

__all__ = ["LDP"]


@dataclass(frozen=True, slots=True)
class LDP(Mechanism):
    """Worst case over every epsilon0-LDP local randomizer for n shuffled users.

    Upper ends hold for every randomizer of the class (the clones pair); lower ends are
    binary RR's special pair, a member of the class. There is no single view pair.

    Raises:
        ParameterError: on construction, an argument outside its domain.
    """

    n: int
    epsilon0: float
    name: ClassVar[str] = "ldp"

    def __post_init__(self) -> None:
        n, epsilon0 = check_parameters(self.n, self.epsilon0)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "epsilon0", epsilon0)

    def params(self) -> dict[str, Any]:
        return {"n": self.n, "epsilon0": self.epsilon0}

    def dominating_pair(self) -> DominatingPair:
        return DominatingPair(pair=clones_pair(n=self.n, epsilon0=self.epsilon0),
                              name="clones pair (Feldman, McMillan, Talwar, FOCS 2021)",
                              proof="docs/clones-and-blankets.md")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        return epsilon_for_delta(n=self.n, epsilon0=self.epsilon0, delta=delta)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        return delta_for_epsilon(n=self.n, epsilon0=self.epsilon0, epsilon=epsilon)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        finite = [a for a in orders if a != math.inf]
        curve = iter(renyi_curve(n=self.n, epsilon0=self.epsilon0, alphas=finite)
                     if finite else [])
        out = []
        for alpha in orders:
            if alpha == math.inf:
                out.append(self.max_divergence())
            else:
                low, up = next(curve)
                out.append(Bracket(lower=low, upper=up))
        return out

    def max_divergence(self) -> Bracket:
        r = max_divergence(n=self.n, epsilon0=self.epsilon0)
        return Bracket(lower=r, upper=r)
