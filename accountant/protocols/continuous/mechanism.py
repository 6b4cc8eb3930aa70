"""Shuffled local randomizers given as noise laws, inputs {0, 1}, as `Mechanism` families.

Each user reports x + noise. Upper ends: the certified privacy blanket (`blanket`; for
(discrete) Laplace noise also the clones pair of the (1/b)-LDP class, whichever is smaller);
lower ends: the special pair's certified value (`special_pair`), a thresholded count of it
(`threshold`) or its count events chosen for the target (`tail_events`), whichever is
larger. The (discrete) Laplace families compose through the clones pair; the (discrete)
Gaussian ones through their report pair (`report_noise`; sampled rounds under substitution
too), the blanket's per-round values and their local Renyi curve alpha / (2 sigma^2)
(docs/continuous-randomizers.md#composition, #sampled-rounds).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import ClassVar

import numpy as np

from accountant.domains import DELTA, DISCRETE_SIGMA, LAPLACE_SCALE, N_PAIR, SIGMA
from accountant.errors import AccountantError
from accountant.numeric import rounding
from accountant.protocols import ldp
from accountant.protocols.continuous import (
    blanket,
    blanket_lower,
    special_pair,
    tail_events,
    threshold,
)
from accountant.protocols.continuous.laws import (
    DiscreteGaussianLaw,
    DiscreteLaplaceLaw,
    GaussianLaw,
    LaplaceLaw,
    NoiseLaw,
)
from accountant.protocols.contract import DominatingPair, Mechanism, brackets_by_order, param
from accountant.result import Bracket, Direction, Kind, Result, Scope, Source
from accountant.view import ViewPair

__all__ = ["NoiseRandomizer", "inverse_scale_up", "GaussianRandomizer", "LaplaceRandomizer",
           "DiscreteGaussianRandomizer", "DiscreteLaplaceRandomizer", "SIGMA", "LAPLACE_SCALE",
           "DISCRETE_SIGMA"]

# (the noise domains SIGMA, LAPLACE_SCALE, DISCRETE_SIGMA are declared in accountant.domains)

_NO_PAIR = ("no dominating pair for this family (the blanket pair given its count is a "
            "multiset of continuous messages, not a pair the PLD engine composes, and the "
            "randomizer is not epsilon0-LDP for any finite epsilon0, so the clones pair does "
            "not apply); unsampled rounds compose through the local report's Renyi curve "
            "alpha / (2 sigma^2) (docs/continuous-randomizers.md#composition)")
# the Renyi divergence of one user's report x + noise, x = 1 against x = 0: the shuffled
# view post-processes it with the other users' independent reports (data processing)
_LOCAL_GAUSSIAN = Source(citation="Mironov, Renyi Differential Privacy, CSF 2017",
                         locator="Table II (Gaussian: alpha / (2 sigma^2))")
_LOCAL_DISCRETE_GAUSSIAN = Source(
    citation="Canonne, Kamath, Steinke, The Discrete Gaussian for Differential Privacy, "
             "NeurIPS 2020", locator="the discrete Gaussian's Renyi divergence at shift 1 is "
                                     "at most alpha / (2 sigma^2), checked by exact sums in "
                                     "tests/protocols/test_continuous.py")
# the special pair's epsilon search ends here (its default epsilon_max)
_SPECIAL_PAIR_REACH = 60.0
_PURE = Source(citation="this library", locator="docs/continuous-randomizers.md#pure-dp")


class NoiseRandomizer(Mechanism):
    """Shared answers of the noise-law families (subclasses declare n and the scale)."""

    n: int
    no_pair_reason: ClassVar[str] = _NO_PAIR

    @abc.abstractmethod
    def law(self) -> NoiseLaw:
        """The noise law.

        Returns:
            The family's NoiseLaw at its scale.
        """

    def epsilon0(self) -> float | None:
        """The randomizer's pure local epsilon0 (None: not epsilon0-LDP for any finite one).

        Returns:
            1/b for (discrete) Laplace noise, None for (discrete) Gaussian noise.
        """
        return None

    def _clones(self) -> ldp.LDP | None:
        e0 = self.epsilon0()
        return None if e0 is None else ldp.LDP(n=self.n, epsilon0=e0)

    def _upper(self, delta: float) -> tuple[Result, str]:
        """The certified blanket's epsilon(delta), or the clones pair's where smaller."""
        up = blanket.epsilon_upper(self.law(), self.n, delta)
        clones = self._clones()
        other = None if clones is None else clones.epsilon_for_delta(delta).upper
        if other is not None and float(other.value) < float(up.value):
            return other, "clones"
        return up, "blanket"

    def epsilon_upper(self, delta: float) -> Result:
        """The upper end of `epsilon_for_delta` without its lower ends (5x faster).

        Args:
            delta: target delta, in (0, 1).

        Returns:
            The blanket's (or clones pair's) upper end, scope MECHANISM.

        Raises:
            ParameterError: delta outside (0, 1).
        """
        DELTA.check(delta)
        up, _ = self._upper(float(delta))
        return up.with_(scope=Scope.MECHANISM)

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """Lower end: the largest of the special pair's certified value (`special_pair`), the
        threshold count's and the tail events' (`tail_events`); upper end: the certified
        blanket (or the clones pair's when the randomizer is epsilon0-LDP and that is
        smaller)."""
        up, name = self._upper(delta)
        # the threshold count's fixed thresholds, and count events chosen for this delta (the
        # far tail, where the special pair's lattice sees nothing)
        low = _larger(threshold.epsilon_lower(self.law(), self.n, delta),
                      tail_events.epsilon_lower(self.law(), self.n, delta))
        # the upper end's delta is at most the target, so the special pair's search needs
        # no point above it; the threshold's end is where it starts
        start = 0.0 if low is None else float(low.value)
        special = None
        # the special pair's search reaches eps = 60 (beyond, its first step 2 * start would
        # overflow e^eps from 355 on); far out its lattice sees nothing the tail events miss
        if start < _SPECIAL_PAIR_REACH:
            # its per-message term 1 - e^eps E_0[r | cell] may overflow to -inf there: harmless
            # (it only picks a lattice index, clipped before use), so no warning is leaked
            with np.errstate(over="ignore"):
                special = special_pair.epsilon_lower(self.law(), self.n, delta, above=start,
                                                     below=float(up.value))
        pair_low = _blanket_pair_lower(
            lambda: blanket_lower.epsilon_lower(self.law(), self.n, delta,
                                                below=float(up.value))) \
            if name == "blanket" and float(up.value) >= _PAIR_LOWER_FROM else None
        return Bracket(lower=_larger(low, special), upper=up, pair_name=name,
                       pair_lower=pair_low)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """Lower end: the largest of the special pair's, the threshold count's and the tail
        events'; upper end: the certified blanket (or the clones pair's). Beyond eps = 300
        the upper end is the one at 300 and the lower end 0 (below)."""
        if epsilon > _DELTA_EPSILON_CAP:
            # delta(eps) is nonincreasing in eps, so the upper end at the cap bounds it; the
            # blanket's products with e^eps overflow from about 600 on (NaN inside a root
            # finder at 699, OverflowError at 1000), and what lies beyond is below every
            # tail budget (the upper end at the cap is that budget, about 3e-17)
            at_cap = self.delta_for_epsilon(_DELTA_EPSILON_CAP)
            assert at_cap.upper is not None
            up = at_cap.upper.with_(at=float(epsilon), method=(
                f"{at_cap.upper.method} [its value at eps = {_DELTA_EPSILON_CAP:g}: delta is "
                "nonincreasing in eps]"))
            zero = Result(quantity="delta", value=0.0, kind=Kind.LOWER,
                          direction=Direction.MAX, scope=up.scope, at=float(epsilon),
                          method="protocols.continuous: delta >= 0 (no lower end computed "
                                 f"beyond eps = {_DELTA_EPSILON_CAP:g})")
            return Bracket(lower=zero, upper=up, pair_name=at_cap.pair_name)
        up = blanket.delta_upper(self.law(), self.n, epsilon)
        name = "blanket"
        clones = self._clones()
        other = None if clones is None else clones.delta_for_epsilon(epsilon).upper
        if other is not None and float(other.value) < float(up.value):
            up, name = other, "clones"
        low = _larger(_larger(threshold.delta_lower(self.law(), self.n, epsilon),
                              tail_events.delta_lower(self.law(), self.n, epsilon)),
                      special_pair.delta_lower(self.law(), self.n, epsilon))
        pair_low = _blanket_pair_lower(
            lambda: blanket_lower.delta_lower(
                self.law(), self.n, epsilon,
                # counts left out cost their mass: keep it far below the value sought
                tail=min(1e-7, max(1e-3 * float(up.value), 1e-300)))) \
            if name == "blanket" else None
        return Bracket(lower=low, upper=up, pair_name=name, pair_lower=pair_low)

    def local_renyi_source(self) -> Source | None:
        """Where the local report's Renyi curve alpha / (2 sigma^2) comes from, for the
        (discrete) Gaussian families; None for the others (the clones pair's curve).

        Returns:
            The Source, or None.
        """
        return None

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Finite orders: the clones pair's upper ends when epsilon0-LDP, else the local
        report's curve alpha / (2 sigma^2) (Gaussian noise: every neighbouring pair's view
        post-processes user 1's report and the others' independent ones); inf: the
        max-divergence."""
        clones = self._clones()
        if clones is None:
            source = self.local_renyi_source()
            sigma = float(self.sigma)  # type: ignore[attr-defined]

            def local(alphas: list[float]) -> list[tuple[None, Result | None]]:
                if source is None:
                    return [(None, None) for _ in alphas]
                return [(None, Result(
                    quantity="renyi", value=rounding.up(Fraction(a) / (2 * Fraction(sigma) ** 2)),
                    kind=Kind.UPPER, direction=Direction.MAX, order=a, source=source,
                    method=f"protocols.continuous: the local report's Renyi divergence "
                           f"alpha / (2 sigma^2), sigma = {sigma!r} (data processing: the "
                           "shuffled view post-processes it)")) for a in alphas]
            return brackets_by_order(orders, local, self.max_divergence)
        return brackets_by_order(
            orders, lambda alphas: [(None, b.upper) for b in clones.renyi(alphas)],
            self.max_divergence)

    def dominating_pair(self) -> DominatingPair[object] | None:
        """For (discrete) Laplace noise, the clones pair of the (1/b)-LDP class (1/b rounded
        up): it dominates every epsilon0-LDP randomizer's shuffled rounds, sampled or not,
        so the accountant composes these families through it.

        Returns:
            The clones pair as a DominatingPair; None for (discrete) Gaussian noise, which
            is not epsilon0-LDP for any finite epsilon0 (`no_pair_reason`: its unsampled
            rounds compose through the local Renyi curve).
        """
        e0 = self.epsilon0()
        if e0 is None:
            return None
        clones = ldp.LDP(n=self.n, epsilon0=e0).dominating_pair()
        return DominatingPair(pair=clones.pair,
                              name=f"clones pair of the (1/b)-LDP class, epsilon0 = {e0!r} "
                                   "(Feldman, McMillan, Talwar, FOCS 2021)",
                              proof="docs/continuous-randomizers.md#composition")

    def subsampling_pair(self) -> DominatingPair[object] | None:
        """The clones pair for Poisson-sampled and add/remove rounds too (`dominating_pair`).

        Returns:
            The clones pair as a DominatingPair; None for (discrete) Gaussian noise, whose
            sampled rounds compose through `report_noise` under substitution.
        """
        return self.dominating_pair()

    def report_noise(self) -> tuple[str, float] | None:
        """For (discrete) Gaussian noise, user 1's report x + noise: every shuffled view
        post-processes it with the others' independent reports, so its pair (x = 1 against
        x = 0) dominates every neighbouring pair (no shuffle amplification), and mixed with
        "no message" a Poisson-sampled round under substitution
        (docs/continuous-randomizers.md#sampled-rounds).

        Returns:
            (law name, sigma); None for (discrete) Laplace noise, which composes through
            the clones pair.
        """
        if self.epsilon0() is not None:
            return None
        return self.law().name, float(self.law().scale)

    def lower_view_pair(self) -> ViewPair:
        """The count above a threshold of the special pair's view (the other users hold 0):
        a post-processing of one real pair, the lower end of composed plain rounds
        (`threshold.composition_pair`).

        Returns:
            A float ViewPair, grid exact.
        """
        return threshold.composition_pair(self.law(), self.n)

    def subsampled_pair(self, rate: float, relation: str) -> ViewPair:
        """The same count in a Poisson-sampled round (a user out sends nothing), the lower
        end of sampled rounds.

        Args:
            rate: the participation probability, in (0, 1] (checked).
            relation: "substitute" or "add-remove" (checked).

        Returns:
            A float ViewPair, grid exact.
        """
        return threshold.composition_pair(self.law(), self.n, rate, relation)

    def participants_round(self, users: int) -> NoiseRandomizer:
        """This family at `users` users (each report depends on its own bit only).

        Args:
            users: an integer >= 2.

        Returns:
            The same randomizer with n = users.
        """
        return replace(self, n=users)  # type: ignore[type-var]

    def local_guarantee(self) -> tuple[float, float] | None:
        """(epsilon0, 0) for (discrete) Laplace noise; None for Gaussian noise (not
        epsilon0-LDP for any finite epsilon0)."""
        e0 = self.epsilon0()
        return None if e0 is None else (e0, 0.0)

    def max_divergence(self) -> Bracket:
        """epsilon0 = 1/b exactly for (discrete) Laplace noise (post-processing bounds it;
        the special pair attains it when every output is >= 1); +inf exactly for (discrete)
        Gaussian noise (the special pair's ratio on "every output > t" is unbounded in t)."""
        e0 = self.epsilon0()
        # exactly 1/b as a rational (epsilon0() is its float rounded up)
        exact = math.inf if e0 is None else Fraction(1) / Fraction(self.scale)  # type: ignore[attr-defined]
        r = Result(quantity="max_divergence", value=exact, order=math.inf,
                   kind=Kind.EXACT, direction=Direction.MAX, source=_PURE,
                   method=f"protocols.continuous ({self.law().name}: "
                          + ("unbounded likelihood ratio)" if e0 is None
                             else "ratio e^(1/b) on outputs >= 1)"))
        return Bracket(lower=r, upper=r)



# the blanket pair's lower end is attached to epsilon(delta) from this upper end on: below,
# its lattice must resolve a tiny epsilon (n = 1e9, delta = 0.5, upper 1.5e-9: 58 s for a
# lower end of 0, in a selfcheck draw), and a numerics gap there tells a user nothing
_PAIR_LOWER_FROM = 1e-6
# the largest eps at which delta(eps) is evaluated (`delta_for_epsilon`)
_DELTA_EPSILON_CAP = 300.0


def _blanket_pair_lower(compute: Callable[[], Result]) -> Result | None:
    """The blanket pair's own certified lower end (`blanket_lower`): how close the upper end
    is to the value of the pair it bounds, i.e. what the numerics leave; the rest of the
    bracket's width is the gap between that pair and the worst dataset. None where it
    cannot be certified (an edge of its lattice): it is information, never a bound."""
    try:
        with np.errstate(over="ignore", under="ignore"):
            r = compute()
    except (AccountantError, ArithmeticError):
        return None
    return r if r.value > 0 else None


def _larger(a: Result | None, b: Result | None) -> Result | None:
    """The larger of two lower ends (either may be None)."""
    if a is None or b is None:
        return b if a is None else a
    return b if float(b.value) > float(a.value) else a


def inverse_scale_up(scale: float) -> float:
    """epsilon0 = 1/b of (discrete) Laplace noise, rounded up: 1.0 / b to nearest fell below
    1/b (e.g. at b = 1694.2626724825548), and every bound built on it must hold for the true
    epsilon0.

    Args:
        scale: b > 0.

    Returns:
        The smallest float >= 1/b.
    """
    return rounding.up(Fraction(1) / Fraction(scale))

@dataclass(frozen=True, slots=True)
class GaussianRandomizer(NoiseRandomizer):
    """n users each report x + N(0, sigma^2) for x in {0, 1}, shuffled (worst case over
    datasets). Not epsilon0-LDP for any finite epsilon0, so pure-DP and clones bounds are
    infinite; the blanket gives the upper ends."""

    n: int = param(N_PAIR, "number of users (>= 2)")
    sigma: float = param(SIGMA, "standard deviation of the Gaussian noise")
    name: ClassVar[str] = "gaussian-randomizer"
    summary: ClassVar[str] = "x + N(0, sigma^2) on inputs {0, 1} (blanket upper, threshold lower)"

    def law(self) -> NoiseLaw:
        """GaussianLaw(sigma)."""
        return GaussianLaw(self.sigma)

    def local_renyi_source(self) -> Source:
        """Mironov's Gaussian RDP (the local report's curve)."""
        return _LOCAL_GAUSSIAN


@dataclass(frozen=True, slots=True)
class LaplaceRandomizer(NoiseRandomizer):
    """n users each report x + Laplace(b) for x in {0, 1}, shuffled (worst case over
    datasets). The randomizer is (1/b)-LDP."""

    n: int = param(N_PAIR, "number of users (>= 2)")
    scale: float = param(LAPLACE_SCALE, "scale b of the Laplace noise (the randomizer is 1/b-LDP)")
    name: ClassVar[str] = "laplace-randomizer"
    summary: ClassVar[str] = "x + Laplace(b) on inputs {0, 1} (blanket or clones upper)"

    def law(self) -> NoiseLaw:
        """LaplaceLaw(b)."""
        return LaplaceLaw(self.scale)

    def epsilon0(self) -> float:
        """1/b rounded up (`inverse_scale_up`)."""
        return inverse_scale_up(self.scale)


@dataclass(frozen=True, slots=True)
class DiscreteGaussianRandomizer(NoiseRandomizer):
    """n users each report x + discrete Gaussian(sigma) on the integers, x in {0, 1},
    shuffled (worst case over datasets). Not epsilon0-LDP for any finite epsilon0."""

    n: int = param(N_PAIR, "number of users (>= 2)")
    sigma: float = param(DISCRETE_SIGMA, "scale sigma of the discrete Gaussian noise")
    name: ClassVar[str] = "discrete-gaussian-randomizer"
    summary: ClassVar[str] = "x + discrete Gaussian on inputs {0, 1} (blanket upper)"

    def law(self) -> NoiseLaw:
        """DiscreteGaussianLaw(sigma)."""
        return DiscreteGaussianLaw(self.sigma)

    def local_renyi_source(self) -> Source:
        """The discrete Gaussian's Renyi bound (the local report's curve)."""
        return _LOCAL_DISCRETE_GAUSSIAN


@dataclass(frozen=True, slots=True)
class DiscreteLaplaceRandomizer(NoiseRandomizer):
    """n users each report x + discrete Laplace(b) on the integers, x in {0, 1}, shuffled
    (worst case over datasets). The randomizer is (1/b)-LDP."""

    n: int = param(N_PAIR, "number of users (>= 2)")
    scale: float = param(LAPLACE_SCALE, "scale b of the discrete Laplace noise (1/b-LDP)")
    name: ClassVar[str] = "discrete-laplace-randomizer"
    summary: ClassVar[str] = "x + discrete Laplace(b) on inputs {0, 1} (blanket or clones upper)"

    def law(self) -> NoiseLaw:
        """DiscreteLaplaceLaw(b)."""
        return DiscreteLaplaceLaw(self.scale)

    def epsilon0(self) -> float:
        """1/b rounded up (`inverse_scale_up`)."""
        return inverse_scale_up(self.scale)
