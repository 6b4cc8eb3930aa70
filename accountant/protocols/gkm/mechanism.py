"""Ghazi-Kumar-Manurangsi counting and GKMP20 as `Mechanism`s (the protocol contract).

Values are maxima over the other users' count of ones (or for one count, when `ones` is
given) of the exact 2-D views' certified divergences (docs/gkm.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from accountant.protocols.contract import Mechanism
from accountant.protocols.gkm.protocol import (
    GkmParameters,
    delta_for_epsilon_worst,
    epsilon_for_delta_worst,
    pure_epsilon_both,
    renyi_worst,
    view_pair,
)
from accountant.protocols.gkm.view import MAX_BOX_SIDE, box_size
from accountant.result import Bracket
from accountant.view import ViewPair

__all__ = ["GKMCount", "GKMP20Count"]


@dataclass(frozen=True, slots=True)
class GKMCount(Mechanism):
    """The correlated-noise pure-DP counting protocol with the given parameters.

    Attributes:
        parameters: from `gkm_parameters` or `theorem6_parameters`.
        ones: ones among the other n-1 users; None for the worst case over counts.
    """

    parameters: GkmParameters
    ones: int | None = None
    name: ClassVar[str] = "gkm-count"
    no_pair_reason: ClassVar[str] = ("the worst case is a maximum over the counts' 2-D views; "
                                     "no single dominating pair is derived")

    def one_pair(self) -> bool:
        """Whether the values are one count's pair's."""
        return self.ones is not None

    def params(self) -> dict[str, Any]:
        """The parameters as a JSON object."""
        return self.parameters.to_json()

    def view_pair(self) -> ViewPair:
        """The exact 2-D view pair at `ones` (ones = 0 when None)."""
        return view_pair(self.parameters, ones=0 if self.ones is None else self.ones)

    def lower_view_pair(self) -> ViewPair | None:
        """The exact 2-D view pair, or None when its box would not fit.

        Theorem 6's lam puts the box side in the millions: a composition then has no
        lower end from the view, rather than a refusal.

        Returns:
            `view_pair()`, or None beyond `MAX_BOX_SIDE`.
        """
        p = self.parameters
        _, side = box_size(n=p.n, epsilon_prime=p.epsilon_prime, s=p.s, lam=p.lam)
        return None if side > MAX_BOX_SIDE else self.view_pair()

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta) of the exact views, worst case over counts unless `ones`."""
        return Bracket.of(epsilon_for_delta_worst(self.parameters, delta=delta, ones=self.ones))

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon) of the exact views, worst case over counts unless `ones`."""
        return Bracket.of(delta_for_epsilon_worst(self.parameters, epsilon=epsilon,
                                                ones=self.ones))

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences of the exact views (`renyi_worst`)."""
        return [Bracket.of(r) for r in renyi_worst(self.parameters, orders=list(orders),
                                                 ones=self.ones)]

    def max_divergence(self) -> Bracket:
        """The certified pure-DP epsilon along the views' rays (`pure_epsilon_both`)."""
        return Bracket.of(pure_epsilon_both(self.parameters, ones=self.ones)[0])


@dataclass(frozen=True, slots=True)
class GKMP20Count(GKMCount):
    """The earlier GKMP20 protocol (q = 0, s = 0; parameters from `gkmp20_parameters`)."""

    name: ClassVar[str] = "gkmp20-count"
