"""Balcer-Cheu zsum and hist as `Mechanism`s (the protocol contract).

Every neighbouring pair of zsum gives the same view pair up to a common shift, and every
pair of hist the same product pair up to relabelling coordinates
(docs/balcer-cheu-2020.md), so the exact view pair is also the dominating pair and its
values are the mechanism's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from accountant.domains import N_USERS
from accountant.pairs.product import ProductPair
from accountant.protocols.balcer_cheu.sampled import sampled_count_pair
from accountant.protocols.balcer_cheu.views import (
    BalcerCheuParameters,
    hist_delta,
    hist_epsilon,
    hist_view,
    max_divergence,
    renyi_divergence,
    zsum_delta,
    zsum_epsilon,
    zsum_view,
)
from accountant.protocols.contract import DominatingPair, Mechanism
from accountant.result import Bracket
from accountant.view import ViewPair

__all__ = ["BalcerCheuZsum", "BalcerCheuHist"]


@dataclass(frozen=True, slots=True)
class _BalcerCheuMechanism(Mechanism):
    """What zsum and hist share: their parameters, the view pair as the dominating pair,
    and Renyi and max-divergences that are +inf exactly."""

    parameters: BalcerCheuParameters
    pair_name: ClassVar[str] = ""

    def params(self) -> dict[str, Any]:
        """The parameters as a JSON object."""
        return self.parameters.to_json()

    def dominating_pair(self) -> DominatingPair:
        """The view pair itself: every neighbouring pair gives it up to a common shift (zsum) or
        a relabelling of coordinates (hist)."""
        return DominatingPair(pair=self.view_pair(), name=self.pair_name,
                              proof="docs/balcer-cheu-2020.md")

    def participants_round(self, users: int) -> _BalcerCheuMechanism:
        """The protocol run by `users` of the users with the same p (each user's messages
        are its data and its own Bernoulli(p) noise), without the paper's target (p was
        set for n users).

        Args:
            users: an integer >= 2.

        Returns:
            The same family with n = users and the same p.
        """
        N_USERS.named("users").check(users)
        return replace(self, parameters=replace(self.parameters, n=int(users), epsilon=None,
                                                delta=None))

    def subsampled_pair(self, rate: float, relation: str) -> ViewPair:
        """One real pair of a Poisson-sampled round, counted (`sampled.sampled_count_pair`:
        the others hold 0; for hist, coordinate a's count): a lower end.

        Args:
            rate: the participation probability, in (0, 1] (checked).
            relation: "substitute" or "add-remove" (checked).

        Returns:
            The count pair, grid exact.
        """
        return sampled_count_pair(self.parameters, rate, relation)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences: +inf at every order (`renyi_divergence`)."""
        return [Bracket.of(renyi_divergence(self.parameters, a)) for a in orders]

    def max_divergence(self) -> Bracket:
        """The pure-DP epsilon: +inf (`max_divergence`)."""
        return Bracket.of(max_divergence(self.parameters))


@dataclass(frozen=True, slots=True)
class BalcerCheuZsum(_BalcerCheuMechanism):
    """The zero-sum binary counting protocol (Fig. 1) with parameters from `zsum_parameters`.

    Attributes:
        parameters: n and p (and the paper's target epsilon, delta when p came from it).
        backend: "float" (certified log-space) or "mp" for the epsilon/delta values.
    """

    backend: str = "float"
    name: ClassVar[str] = "bc-zsum"
    pair_name: ClassVar[str] = "binomial shift pair"

    def view_pair(self) -> ViewPair:
        """The exact neighbouring view Bin(n, p) vs 1 + Bin(n, p) (`zsum_view`)."""
        return zsum_view(self.parameters, backend=self.backend)

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """Exact epsilon(delta) of zsum (`zsum_epsilon`), maximum over both orders."""
        return Bracket.of(zsum_epsilon(self.parameters, delta, backend=self.backend))

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """Exact delta(epsilon) of zsum (`zsum_delta`), maximum over both orders."""
        return Bracket.of(zsum_delta(self.parameters, epsilon, backend=self.backend))


@dataclass(frozen=True, slots=True)
class BalcerCheuHist(_BalcerCheuMechanism):
    """The histogram protocol (Fig. 2) with parameters from `hist_parameters`."""

    name: ClassVar[str] = "bc-hist"
    pair_name: ClassVar[str] = "product of two binomial shift pairs"

    def view_pair(self) -> ViewPair:
        """The product pair on the two changed coordinates (`hist_view`, float backend)."""
        return hist_view(self.parameters)

    def _pair(self) -> ProductPair:
        # the coordinates are independent: the PLD engine composes the product from the two
        # 1-D pairs (the same values as the 2-D view's, n = 5000: 0.02 s against 0.25 s),
        # also beyond HIST_PRODUCT_CELLS, where the 2-D view is refused
        one = zsum_view(self.parameters)
        return ProductPair((one, one.swapped()),
                           {"protocol": "bc-hist", **self.parameters.to_json(),
                            "pair": "product of the zsum pair and its swap"})

    def dominating_pair(self) -> DominatingPair:
        """The product pair itself (every neighbouring pair gives it up to relabelling the
        coordinates), as its two independent coordinates."""
        return DominatingPair(pair=self._pair(), name=self.pair_name,
                              proof="docs/balcer-cheu-2020.md")

    def lower_view_pair(self) -> ProductPair:
        """The same product pair: its values are the mechanism's (lower ends too).

        Returns:
            The ProductPair of the zsum pair and its swap.
        """
        return self._pair()

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """Exact epsilon(delta) of hist by the 2-D sum (`hist_epsilon`)."""
        return Bracket.of(hist_epsilon(self.parameters, delta))

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """Exact delta(epsilon) of hist by the 2-D sum (`hist_delta`)."""
        return Bracket.of(hist_delta(self.parameters, epsilon))
