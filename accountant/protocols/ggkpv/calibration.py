"""The least noise rho for a target (epsilon, delta) (docs/ggkpv.md#calibration).

The slides say rho = Theta(log(1/delta)/epsilon^2) and leave the constant open. With the
certified accountant of `views`, `calibrate` finds the least integer rho whose certified
upper epsilon(delta) meets the target, and brackets the true least rho from below by the
largest rho whose certified lower end (one neighbouring pair's real-view counts) still
exceeds the target. The true epsilon(delta) is non-increasing in rho: more noise tuples
are a post-processing (the analyzer could add them itself).

The search is bounded: one evaluation costs time roughly proportional to the mean noise
count n rho 2^-tau in a tuple's cell, so rho stops at MAX_MEAN_COUNT of it (a few seconds
per evaluation); a target that needs more noise is a RegimeError that says so, with the
certified epsilon reached there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from accountant.domains import DELTA, Interval
from accountant.errors import ParameterError, RegimeError
from accountant.protocols.ggkpv.views import (
    GGKPVParameters,
    epsilon_bracket,
    ggkpv_parameters,
    heuristic_epsilon,
    slides_rho,
)
from accountant.result import Result

__all__ = ["Calibration", "calibrate", "least_rho", "MAX_MEAN_COUNT", "largest_rho"]

_RHO_MAX = 1 << 20
# the evaluation budget of `calibrate`: mean noise count n rho 2^-tau per cell
MAX_MEAN_COUNT = 1 << 13
# rho ~ log(1/delta)/epsilon^2: epsilon 0 needs infinite noise; above 700 e^epsilon overflows
_TARGET_EPSILON = Interval("target_epsilon", 0.0, 700.0, closed="neither",
                           note="e^epsilon must stay a finite float")


@dataclass(frozen=True, slots=True, kw_only=True)
class Calibration:
    """The result of `calibrate`.

    Attributes:
        params: the parameters at the calibrated rho.
        target_epsilon, target_delta: the target.
        rho: least rho whose certified upper epsilon(delta) <= target_epsilon.
        epsilon: that certified upper Result at rho.
        rho_insufficient: largest rho whose certified lower end exceeds the target (the
            true least rho is above it), or None (no lower end for B <= 3, or none found).
        slides_rho: log(1/delta)/epsilon^2, the slides' rule with constant 1.
        heuristic_rho: least rho meeting the target by the slides' count-level pair
            (a heuristic comparison, not a calibration), or None when no rho within the
            search budget meets it.
    """

    params: GGKPVParameters
    target_epsilon: float
    target_delta: float
    rho: int
    epsilon: Result
    rho_insufficient: int | None
    slides_rho: float
    heuristic_rho: int | None

    def to_json(self) -> dict[str, Any]:
        """The calibration as a JSON object (the CLI's output).

        Returns:
            params, target, rho, certified epsilon, the lower bracket and the heuristics.
        """
        return {"params": self.params.to_json(), "target_epsilon": self.target_epsilon,
                "target_delta": self.target_delta, "rho": self.rho,
                "epsilon": self.epsilon.to_json(),
                "rho_insufficient": self.rho_insufficient,
                "slides_rho": self.slides_rho, "rho_over_slides_rho": self.rho / self.slides_rho,
                "heuristic_rho": self.heuristic_rho,
                "heuristic_note": "heuristic: the slides' count-level pair, not a bound"}


def least_rho(ok: Callable[[int], bool], *, start: int = 1, rho_max: int = _RHO_MAX) -> int:
    """The least rho >= start with ok(rho), assuming ok is monotone (doubling, then
    bisection); the returned rho satisfies ok(rho), and ok(rho - 1) is False unless
    rho == start.

    Args:
        ok: the predicate on integer rho.
        start: the least rho tried.
        rho_max: give up above this.

    Returns:
        The least rho found.

    Raises:
        ParameterError: ok(rho) is False up to rho_max.
    """
    lo, hi = start - 1, start  # ok(lo) is False (or lo < start), ok(hi) to be found
    while not ok(hi):
        if hi >= rho_max:
            raise ParameterError(f"no rho <= {rho_max} meets the target")
        lo, hi = hi, min(hi * 2, rho_max)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def largest_rho(params: GGKPVParameters, delta: float = 1e-6) -> int:
    """The largest rho `calibrate` evaluates for these n, tau and target delta.

    An evaluation's cost grows like the mean noise count n rho 2^-tau in a cell times the
    log of the truncated tail (at most delta 1e-14, at most 1e-30), so the budget is
    n rho 2^-tau max(1, (ln(1/delta) + 32) / 69) <= MAX_MEAN_COUNT.

    Args:
        params: the parameters (rho is ignored).
        delta: the target delta, in (0, 1).

    Returns:
        The search's upper limit on rho (at least 1, at most 2^20).
    """
    depth = max(1.0, (-math.log(delta) + 32.0) / 69.0)  # 1/delta overflows below 1e-308
    return max(1, min(_RHO_MAX, math.floor(MAX_MEAN_COUNT / (params.n * params.pi * depth))))


def calibrate(*, n: int, B: int, target_epsilon: float, target_delta: float,
              tau: int | None = None) -> Calibration:
    """The least rho with certified epsilon(target_delta) <= target_epsilon.

    Args:
        n: number of users.
        B: domain size (>= 2).
        target_epsilon: > 0.
        target_delta: in (0, 1).
        tau: indices per tuple (default ceil(log2 n)).

    Returns:
        A `Calibration`.

    Raises:
        ParameterError: invalid parameters.
        RegimeError: no rho up to `largest_rho` (the evaluation budget, module docstring)
            meets the target; the message gives the certified epsilon reached there.
    """
    _TARGET_EPSILON.check(target_epsilon)
    DELTA.named("target_delta").check(target_delta)
    base = ggkpv_parameters(n=n, B=B, rho=1, tau=tau)
    top = largest_rho(base, target_delta)

    def at(rho: int) -> GGKPVParameters:
        return replace(base, rho=rho)

    uppers: dict[int, Result] = {}

    def upper_ok(rho: int) -> bool:
        uppers[rho] = epsilon_bracket(at(rho), target_delta).require_upper()
        return float(uppers[rho]) <= target_epsilon

    try:
        rho = least_rho(upper_ok, rho_max=top)
    except ParameterError:
        reached = uppers[top]
        raise RegimeError(
            f"protocols.ggkpv.calibrate: no rho <= {top} meets target_epsilon="
            f"{target_epsilon!r} at target_delta={target_delta!r} (n={n}, B={B}, "
            f"tau={base.tau}); the certified epsilon at rho={top} is {float(reached):.6g}. "
            "Larger rho exceeds the search budget (protocols.ggkpv.calibration.largest_rho: "
            f"mean noise count n rho 2^-tau <= {MAX_MEAN_COUNT}, less for tiny delta)") from None
    if rho not in uppers:
        upper_ok(rho)

    def lower_fails(rho: int) -> bool:
        low = epsilon_bracket(at(rho), target_delta).lower
        return low is not None and float(low) > target_epsilon

    insufficient = None
    if base.K >= 8 and lower_fails(1):
        # the largest failing rho: least rho (>= 1) at which the lower end no longer fails
        insufficient = least_rho(lambda r: not lower_fails(r), start=2, rho_max=rho) - 1
    try:
        h_rho: int | None = least_rho(
            lambda r: float(heuristic_epsilon(at(r), target_delta)) <= target_epsilon,
            rho_max=top)
    except ParameterError:  # a heuristic beyond the budget: reported as not found
        h_rho = None
    return Calibration(params=at(rho), target_epsilon=float(target_epsilon),
                       target_delta=float(target_delta), rho=rho, epsilon=uppers[rho],
                       rho_insufficient=insufficient,
                       slides_rho=slides_rho(target_epsilon, target_delta),
                       heuristic_rho=h_rho)
