"""Ghazi-Kumar-Manurangsi counting and GKMP20 as `Mechanism`s (the protocol contract).

Values are maxima over the other users' count of ones (or for one count, when `ones` is
given) of the views' certified divergences, computed on their rays; beyond a budget, and
for composition, the one-user pair that dominates every count (`counts`, docs/gkm.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from accountant.domains import orders as order_domain
from accountant.errors import ParameterError
from accountant.protocols.contract import DominatingPair, Mechanism
from accountant.protocols.gkm.counts import (
    LOWER_VIEW_WORK,
    ONE_VIEW_ATOMS,
    atom_count,
    delta_for_epsilon_worst,
    dominating_view,
    epsilon_for_delta_worst,
    pure_epsilon_bound,
    ray_view,
    renyi_worst,
    view_work,
)
from accountant.protocols.gkm.difference import difference_view
from accountant.protocols.gkm.protocol import GkmParameters
from accountant.result import Bracket, Result, Scope
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

    def one_pair(self) -> bool:
        """Whether the values are one count's pair's."""
        return self.ones is not None

    def params(self) -> dict[str, Any]:
        """The parameters as a JSON object."""
        return self.parameters.to_json()

    def view_pair(self) -> ViewPair:
        """The exact view pair at `ones` (ones = 0 when None) on its rays: the divergences of
        the 2-D view `protocol.view_pair`, on far fewer atoms and with no box
        (`counts.ray_view`)."""
        return ray_view(self.parameters, ones=0 if self.ones is None else self.ones)

    def dominating_pair(self) -> DominatingPair | None:
        """The one-user pair on its rays: every count's pair at every n is it followed by
        the common channel "add the other users' messages" (docs/gkm.md#a-dominating-pair;
        for GKMP20 a shift, so its values are the mechanism's). None beyond its atom budget.

        Returns:
            A DominatingPair of `counts.dominating_view`, or None.
        """
        try:
            view = dominating_view(self.parameters)
        except ParameterError:
            return None
        return DominatingPair(pair=view, name="one-user pair (the protocol's noise)",
                              proof="docs/gkm.md#a-dominating-pair")

    no_pair_reason: ClassVar[str] = ("the one-user pair's rays exceed their atom budget "
                                     "(lam too large)")

    def lower_view_pair(self) -> ViewPair | None:
        """One real pair's view on its rays (ones = 0 unless `ones`); beyond
        `counts.ONE_VIEW_ATOMS` or `counts.LOWER_VIEW_WORK` (Theorem 6's lam at n = 100) the
        sign of that pair's analyzer output (`difference.difference_view`, ones = 0), or
        None for another count.

        Returns:
            `counts.ray_view`, `difference_view`, or None.
        """
        k = 0 if self.ones is None else self.ones
        if (atom_count(self.parameters, [k]) > ONE_VIEW_ATOMS
                or view_work(self.parameters, k) > LOWER_VIEW_WORK):
            return difference_view(self.parameters) if k == 0 else None
        return ray_view(self.parameters, ones=k)

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta), worst case over counts unless `ones` (`counts`)."""
        up, low = epsilon_for_delta_worst(self.parameters, delta=delta, ones=self.ones,
                                          lower=True)
        return _bracket(low, up)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon), worst case over counts unless `ones` (`counts`)."""
        up, low = delta_for_epsilon_worst(self.parameters, epsilon=epsilon, ones=self.ones,
                                          lower=True)
        return _bracket(low, up)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences, worst case over counts unless `ones` (`counts.renyi_worst`)."""
        return [_bracket(low, up) for up, low in renyi_worst(
            self.parameters, orders=list(orders), ones=self.ones, lower=True)]

    def renyi_upper(self, orders: Sequence[float]) -> list[Result | None]:
        """The upper ends only (a composition's Renyi route): no lower-end pass.

        Args:
            orders: Renyi orders, each in (1, inf].

        Returns:
            One upper end per order (`counts.renyi_worst`), a mechanism statement unless
            `ones` is given, as `renyi` gives them.

        Raises:
            ParameterError: an order outside (1, inf].
        """
        order_domain(orders)  # (the contract's gate checks renyi, not this override)
        ups: list[Result | None] = [
            up if self.one_pair() else up.with_(scope=Scope.MECHANISM)
            for up, _ in renyi_worst(self.parameters, orders=list(orders), ones=self.ones)]
        return ups

    def max_divergence(self) -> Bracket:
        """The certified pure-DP epsilon along the views' rays (`counts.pure_epsilon_bound`)."""
        return Bracket.of(pure_epsilon_bound(self.parameters, ones=self.ones)[0])


def _bracket(lower: Result | None, upper: Result) -> Bracket:
    """The two ends (Bracket refuses crossed ends on construction)."""
    return Bracket(lower=lower, upper=upper)


@dataclass(frozen=True, slots=True)
class GKMP20Count(GKMCount):
    """The earlier GKMP20 protocol (q = 0, s = 0; parameters from `gkmp20_parameters`)."""

    name: ClassVar[str] = "gkmp20-count"
