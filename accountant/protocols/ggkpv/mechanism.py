"""[GGKPV]'s shuffled multi-message Hadamard response as a `Mechanism` (the contract).

Upper ends come from the labelled-signals pair, which dominates every neighbouring pair
(docs/ggkpv.md#certified-accountant-of-the-full-view); lower ends from the real-view
counts of one neighbouring pair (B >= 4). Renyi and max-divergences are +inf, exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from accountant.protocols.contract import DominatingPair, Mechanism
from accountant.protocols.ggkpv.views import (
    GGKPVParameters,
    delta_bracket,
    epsilon_bracket,
    labelled_view,
    max_divergence_bracket,
    renyi_bracket,
)
from accountant.result import Bracket

__all__ = ["GGKPVHadamard"]


@dataclass(frozen=True, slots=True)
class GGKPVHadamard(Mechanism):
    """Shuffled multi-message Hadamard response with parameters from `ggkpv_parameters`.

    Attributes:
        parameters: n, B, rho, tau (and the target that set rho, if any).
    """

    parameters: GGKPVParameters
    name: ClassVar[str] = "ggkpv-hadamard"
    no_pair_reason: ClassVar[str] = ""

    def params(self) -> dict[str, Any]:
        return self.parameters.to_json()

    def view_pair(self) -> None:
        """None: the real view (a multiset of n (1 + rho) tuples) is not computed exactly;
        `dominating_pair` gives the pair every neighbouring view is a post-processing of."""
        return None

    def dominating_pair(self) -> DominatingPair:
        return DominatingPair(pair=labelled_view(self.parameters),
                              name="labelled-signals count pair (1+Bin(n rho, pi)) x "
                                   "Bin(n rho+1, pi) vs its swap",
                              proof="docs/ggkpv.md#certified-accountant-of-the-full-view")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        return epsilon_bracket(self.parameters, delta)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        return delta_bracket(self.parameters, epsilon)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        return [renyi_bracket(self.parameters, a) for a in orders]

    def max_divergence(self) -> Bracket:
        return max_divergence_bracket(self.parameters)
