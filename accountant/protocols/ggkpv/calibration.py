"""The least noise rho for a target (epsilon, delta) (docs/ggkpv.md#calibration).

The slides say rho = Theta(log(1/delta)/epsilon^2) and leave the constant open. With the
certified accountant of `views`, `calibrate` finds the least integer rho whose certified
upper epsilon(delta) meets the target, and brackets the true least rho from below by the
largest rho whose certified lower end (one neighbouring pair's real-view counts) still
exceeds the target. The true epsilon(delta) is non-increasing in rho: more noise tuples
are a post-processing (the analyzer could add them itself).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from accountant.domains import DELTA, EPSILON
from accountant.errors import ParameterError
from accountant.protocols.ggkpv.views import (
    GGKPVParameters,
    epsilon_bracket,
    ggkpv_parameters,
    heuristic_epsilon,
    slides_rho,
)
from accountant.result import Result

__all__ = ["Calibration", "calibrate", "least_rho"]

_RHO_MAX = 1 << 20


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
            (a heuristic comparison, not a calibration).
    """

    params: GGKPVParameters
    target_epsilon: float
    target_delta: float
    rho: int
    epsilon: Result
    rho_insufficient: int | None
    slides_rho: float
    heuristic_rho: int

    def to_json(self) -> dict[str, Any]:
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
        ParameterError: invalid parameters, or no rho <= 2^20 meets the target.
    """
    EPSILON.check(target_epsilon)
    DELTA.check(target_delta)
    base = ggkpv_parameters(n=n, B=B, rho=1, tau=tau)

    def at(rho: int) -> GGKPVParameters:
        return replace(base, rho=rho)

    uppers: dict[int, Result] = {}

    def upper_ok(rho: int) -> bool:
        uppers[rho] = epsilon_bracket(at(rho), target_delta).upper
        return float(uppers[rho]) <= target_epsilon

    rho = least_rho(upper_ok)
    if rho not in uppers:
        upper_ok(rho)

    def lower_fails(rho: int) -> bool:
        low = epsilon_bracket(at(rho), target_delta).lower
        return low is not None and float(low) > target_epsilon

    insufficient = None
    if base.K >= 8 and lower_fails(1):
        # the largest failing rho: least rho (>= 1) at which the lower end no longer fails
        insufficient = least_rho(lambda r: not lower_fails(r), start=2, rho_max=rho) - 1
    h_rho = least_rho(lambda r: float(heuristic_epsilon(at(r), target_delta))
                      <= target_epsilon)
    return Calibration(params=at(rho), target_epsilon=float(target_epsilon),
                       target_delta=float(target_delta), rho=rho, epsilon=uppers[rho],
                       rho_insufficient=insufficient,
                       slides_rho=slides_rho(target_epsilon, target_delta),
                       heuristic_rho=h_rho)
