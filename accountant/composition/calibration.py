"""Calibration: the parameter (noise multiplier, epsilon0, sampling rate, rounds, n) that
meets a target (epsilon, delta), by monotone bisection on certified brackets.

The returned parameter's composed epsilon has a certified upper end <= the target; the
result also names the last parameter tried whose certified LOWER end exceeds the target
(beyond it the target is certainly missed): between the two, the truth is not settled by
the brackets computed, which says how much the certificates leave on the table.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accountant.composition.accountant import Accountant, GaussianNoise, Subsampled
from accountant.domains import DELTA, EPSILON, POSITIVE, checked
from accountant.errors import LooseBoundWarning, ParameterError, RegimeError
from accountant.result import Bracket

__all__ = ["Calibration", "calibrate", "noise_multiplier"]


@dataclass(frozen=True, slots=True)
class Calibration:
    """The outcome of `calibrate`.

    Attributes:
        value: the parameter; the certified upper epsilon there is <= target_epsilon.
        bracket: the composed epsilon(delta) bracket at `value`.
        missed: the parameter tried nearest to `value` whose certified lower epsilon
            exceeds the target (the target is certainly missed there), or None.
        target_epsilon, delta: the target.
        evaluations: how many brackets were computed.
    """

    value: float
    bracket: Bracket
    missed: float | None
    target_epsilon: float
    delta: float
    evaluations: int


@checked(target_epsilon=EPSILON.named("target_epsilon"), delta=DELTA,
         rtol=POSITIVE.named("rtol"))
def calibrate(build: Callable[[float], Accountant], *, lo: float, hi: float,
              target_epsilon: float, delta: float, increasing: bool,
              integer: bool = False, rtol: float = 1e-3,
              method: str = "all") -> Calibration:
    """The parameter in [lo, hi] nearest the boundary of the target whose certified upper
    epsilon(delta) is <= target_epsilon: the largest such one if epsilon grows with the
    parameter (`increasing`: epsilon0, rate, rounds), else the smallest (noise, n).

    Args:
        build: the ledger at a parameter value (e.g. lambda s: Accountant().compose(...)).
        lo, hi: the search interval, 0 < lo < hi.
        target_epsilon, delta: the target.
        increasing: whether epsilon grows with the parameter.
        integer: search integers only (rounds, n).
        rtol: stop when the interval is this narrow relative to the value.
        method: the accountant's route ("all", "pld", "rdp", ...).

    Returns:
        A `Calibration`.

    Raises:
        ParameterError: lo, hi not 0 < lo < hi.
        RegimeError: even the safest end of [lo, hi] misses the target.

    Warns:
        LooseBoundWarning: the search closed against a value at which no route certified a
            finite epsilon (not one where the target is certainly missed).
    """
    if not (0 < lo < hi and math.isfinite(hi)):
        raise ParameterError(f"lo={lo!r}, hi={hi!r}: need 0 < lo < hi < inf")
    count = 0
    missed: float | None = None
    unbounded: set[float] = set()  # values at which no route certified a finite epsilon

    def evaluate(p: float) -> Bracket:
        nonlocal count, missed
        count += 1
        bracket = build(p).get_epsilon(delta, method=method)
        if bracket.upper is None or not math.isfinite(bracket.upper.value):
            unbounded.add(p)
        low = bracket.lower
        if low is not None and low.value > target_epsilon:
            # certainly missed here: keep the one nearest the boundary
            if missed is None or (p < missed if increasing else p > missed):
                missed = p
        return bracket

    def meets(b: Bracket) -> bool:
        return b.upper is not None and b.upper.value <= target_epsilon

    safe, risky = (lo, hi) if increasing else (hi, lo)
    if integer:
        safe, risky = float(round(safe)), float(round(risky))
    good_bracket = evaluate(safe)
    if not meets(good_bracket):
        raise RegimeError(f"target epsilon={target_epsilon:g} at delta={delta:g} is missed "
                          f"even at the parameter's safest end {safe:g} (certified upper "
                          f"{float(good_bracket):.6g}); widen [lo, hi]")
    # the risky end is evaluated last, and only once the search closes on it: it is the
    # costliest bracket (sigma = 0.1 at delta 1e-300 took 100 s, where the answer, near
    # sigma = 3, took seconds), and bisection needs no value there. After three halvings
    # that all met the target the boundary lies within the last eighth of the interval,
    # where the risky end costs about what the values left to try cost, and it often
    # ends the search (a sampling rate for a target epsilon of 699 that even rate 1
    # meets: 16 evaluations and 122 s)
    good, bad, met, tried = safe, risky, 0, False
    while abs(bad - good) > rtol * abs(good) and not (integer and abs(bad - good) <= 1):
        if bad == risky and met >= 3 and not tried:
            tried = True
            risky_bracket = evaluate(risky)
            if meets(risky_bracket):
                return Calibration(risky, risky_bracket, missed, target_epsilon, delta,
                                   count)
        mid = math.sqrt(good * bad) if not integer else float(round((good + bad) / 2))
        if mid in (good, bad):
            break
        b = evaluate(mid)
        if meets(b):
            good, good_bracket, met = mid, b, met + 1
        else:
            bad = mid
    if bad == risky and not tried:
        risky_bracket = evaluate(risky)
        if meets(risky_bracket):
            return Calibration(risky, risky_bracket, missed, target_epsilon, delta, count)
    if bad in unbounded and bad != missed:
        # the search stopped where no route certifies anything, not where the target is
        # certainly missed (delta 1e-300 below the PLD's round-off floor: sigma 875 where
        # about 3 would do): valid, possibly far from the boundary
        warnings.warn(LooseBoundWarning(
            f"no route certifies a finite epsilon at delta={delta:g} for the parameter "
            f"{bad:g}, next to the calibrated {good:g} (certified epsilon "
            f"{float(good_bracket):.6g} against the target {target_epsilon:g}): "
            f"the calibrated value is valid but may be far from the boundary"), stacklevel=2)
    return Calibration(good, good_bracket, missed, target_epsilon, delta, count)


def noise_multiplier(target_epsilon: float, delta: float, *, sampling_rate: float,
                     rounds: int, relation: str = "add-remove", lo: float = 0.3,
                     hi: float = 50.0, rtol: float = 1e-3) -> Calibration:
    """The least Gaussian noise multiplier (sigma over the sensitivity) whose `rounds`
    Poisson-subsampled rounds are certified (target_epsilon, delta)-DP.

    Args:
        target_epsilon, delta: the target.
        sampling_rate: Poisson rate q in (0, 1].
        rounds: T.
        relation: "add-remove" (the DP-SGD convention) or "substitute".
        lo, hi: the search interval of sigma.
        rtol: relative precision of sigma.

    Returns:
        A `Calibration` (value = sigma).
    """
    def build(sigma: float) -> Any:
        event: Any = GaussianNoise(sigma)
        if sampling_rate < 1:
            event = Subsampled(event, sampling_rate)
        return Accountant(relation).compose(event, rounds)

    return calibrate(build, lo=lo, hi=hi, target_epsilon=target_epsilon, delta=delta,
                     increasing=False, rtol=rtol)
