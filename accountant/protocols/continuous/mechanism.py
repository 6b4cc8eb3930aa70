"""Shuffled local randomizers given as noise laws, inputs {0, 1}, as `Mechanism` families.

Each user reports x + noise. Upper ends: the certified privacy blanket (`blanket`; for
Laplace noise also the clones pair of the (1/b)-LDP class, whichever is smaller); lower
ends: a thresholded count of one real neighbouring pair (`threshold`). Neither family has a
dominating pair that the accountant composes (docs/continuous-randomizers.md#composition).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from accountant.domains import N_PAIR, Interval
from accountant.protocols import ldp
from accountant.protocols.continuous import blanket, threshold
from accountant.protocols.continuous.laws import GaussianLaw, LaplaceLaw, NoiseLaw
from accountant.protocols.contract import Mechanism, brackets_by_order, param
from accountant.result import Bracket, Direction, Kind, Result, Source

__all__ = ["GaussianRandomizer", "LaplaceRandomizer", "SIGMA", "LAPLACE_SCALE"]

# Bounded so that the blanket's terms e^(log-ratio) stay far inside float range: the grid
# reaches t ~ 40 sigma, where the Gaussian log-ratio is t/sigma^2 ~ 40/sigma.
SIGMA = Interval("sigma", 0.1, 1e4, closed="both",
                 note="the Gaussian blanket's terms grow like e^(40/sigma)")
LAPLACE_SCALE = Interval("scale", 0.02, 1e4, closed="both",
                         note="a Laplace randomizer with b < 0.02 is more than 50-LDP")

_NO_PAIR = ("no dominating pair: the blanket bound is a per-round certified delta(epsilon), "
            "not a pair the PLD engine can compose (docs/continuous-randomizers.md"
            "#composition)")


def _ends(law: NoiseLaw, n: int, delta: float) -> tuple[Result | None, Result]:
    up = blanket.epsilon_upper(law, n, delta)
    return threshold.epsilon_lower(law, n, delta), up


@dataclass(frozen=True, slots=True)
class GaussianRandomizer(Mechanism):
    """n users each report x + N(0, sigma^2) for x in {0, 1}, shuffled (worst case over
    datasets). Not epsilon0-LDP for any finite epsilon0, so pure-DP and clones bounds are
    infinite; the blanket gives the upper ends."""

    n: int = param(N_PAIR, "number of users (>= 2)")
    sigma: float = param(SIGMA, "standard deviation of the Gaussian noise")
    name: ClassVar[str] = "gaussian-randomizer"
    summary: ClassVar[str] = "x + N(0, sigma^2) on inputs {0, 1} (blanket upper, threshold lower)"
    no_pair_reason: ClassVar[str] = _NO_PAIR

    def law(self) -> NoiseLaw:
        """The noise law.

        Returns:
            GaussianLaw(sigma).
        """
        return GaussianLaw(self.sigma)

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """Threshold-count lower end, certified blanket upper end."""
        low, up = _ends(self.law(), self.n, delta)
        return Bracket(lower=low, upper=up, pair_name="blanket")

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """Threshold-count lower end, certified blanket upper end."""
        return Bracket(lower=threshold.delta_lower(self.law(), self.n, epsilon),
                       upper=blanket.delta_upper(self.law(), self.n, epsilon),
                       pair_name="blanket")

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Not computed at finite orders (both ends unknown); inf: the max-divergence."""
        return brackets_by_order(orders, lambda alphas: [(None, None) for _ in alphas],
                                 self.max_divergence)

    def max_divergence(self) -> Bracket:
        """+inf exactly: on the event that every output exceeds t, the special pair's ratio
        is at least e^((t - 1/2)/sigma^2), unbounded in t."""
        r = Result(quantity="max_divergence", value=math.inf, kind=Kind.EXACT,
                   direction=Direction.MAX, method="protocols.continuous: unbounded "
                   "likelihood ratio of the Gaussian outputs",
                   source=Source(citation="this library",
                                 locator="docs/continuous-randomizers.md#pure-dp"))
        return Bracket(lower=r, upper=r)


@dataclass(frozen=True, slots=True)
class LaplaceRandomizer(Mechanism):
    """n users each report x + Laplace(b) for x in {0, 1}, shuffled (worst case over
    datasets). The randomizer is (1/b)-LDP: the upper end is the smaller of the blanket and
    the clones pair at epsilon0 = 1/b."""

    n: int = param(N_PAIR, "number of users (>= 2)")
    scale: float = param(LAPLACE_SCALE, "scale b of the Laplace noise (the randomizer is 1/b-LDP)")
    name: ClassVar[str] = "laplace-randomizer"
    summary: ClassVar[str] = "x + Laplace(b) on inputs {0, 1} (blanket or clones upper)"
    no_pair_reason: ClassVar[str] = _NO_PAIR

    def law(self) -> NoiseLaw:
        """The noise law.

        Returns:
            LaplaceLaw(scale).
        """
        return LaplaceLaw(self.scale)

    def _clones(self) -> ldp.LDP:
        return ldp.LDP(n=self.n, epsilon0=1.0 / self.scale)

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """Threshold-count lower end; the smaller of the blanket and clones upper ends."""
        low, up = _ends(self.law(), self.n, delta)
        clones = self._clones().epsilon_for_delta(delta).upper
        if clones is not None and float(clones.value) < float(up.value):
            return Bracket(lower=low, upper=clones, pair_name="clones")
        return Bracket(lower=low, upper=up, pair_name="blanket")

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """Threshold-count lower end; the smaller of the blanket and clones upper ends."""
        up = blanket.delta_upper(self.law(), self.n, epsilon)
        clones = self._clones().delta_for_epsilon(epsilon).upper
        low = threshold.delta_lower(self.law(), self.n, epsilon)
        if clones is not None and float(clones.value) < float(up.value):
            return Bracket(lower=low, upper=clones, pair_name="clones")
        return Bracket(lower=low, upper=up, pair_name="blanket")

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Upper ends at finite orders: the clones pair's (the (1/b)-LDP class)."""
        clones = self._clones()
        return brackets_by_order(
            orders, lambda alphas: [(None, b.upper) for b in clones.renyi(alphas)],
            self.max_divergence)

    def max_divergence(self) -> Bracket:
        """1/b exactly: post-processing of the (1/b)-LDP reports bounds it, and the special
        pair attains it on the event that every output exceeds 1."""
        r = Result(quantity="max_divergence", value=1.0 / self.scale, kind=Kind.EXACT,
                   direction=Direction.MAX, method="protocols.continuous: Laplace ratio "
                   "e^(1/b) on outputs above 1",
                   source=Source(citation="this library",
                                 locator="docs/continuous-randomizers.md#pure-dp"))
        return Bracket(lower=r, upper=r)
