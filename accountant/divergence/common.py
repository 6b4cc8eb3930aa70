"""Shared pieces of the divergence modules: direction handling and safe value conversion."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from accountant.errors import ParameterError
from accountant.numeric.mp import to_mpf
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.result import Direction, Kind, Result
from accountant.view import ViewPair

# Relative slack for one elementary float operation (exp, log, log1p, logaddexp, ...).
ULP_SLACK = 8 * UNIT_ROUNDOFF


def as_direction(direction: Direction | str) -> Direction:

    try:
        return Direction(direction)
    except ValueError:
        raise ParameterError(f"direction={direction!r} is not one of "
                             f"{', '.join(d.value for d in Direction)}") from None


def oriented(view: ViewPair, direction: Direction) -> ViewPair:
    return view.swapped() if direction is Direction.Q_P else view


def over_directions(view: ViewPair, direction: Direction,
                    one: Callable[[ViewPair, Direction], Result]) -> Result:
    """Evaluate P||Q, Q||P or the maximum of both; a max is EXACT only if both are."""
    if direction is not Direction.MAX:
        return one(oriented(view, direction), direction)
    a = one(view, Direction.P_Q)
    b = one(view.swapped(), Direction.Q_P)
    top = a if to_mpf(a.value) >= to_mpf(b.value) else b
    kind = Kind.EXACT if a.kind is b.kind is Kind.EXACT else (
        Kind.LOWER if a.kind is b.kind is Kind.LOWER else Kind.UPPER)
    if kind is Kind.UPPER and top.kind is Kind.LOWER:
        top = a if top is b else b
    return top.with_(direction=Direction.MAX, kind=kind,
                     error_budget=0.0 if kind is Kind.EXACT else top.error_budget,
                     method=f"{top.method} [max over P||Q={_short(a)}, Q||P={_short(b)}]")


def _short(r: Result) -> str:
    return f"{float(r):.6g}"


def exp_up(log_x: float) -> float | mpmath.mpf:
    """exp(log_x) rounded up; an mpf when below the normal float range (never 0)."""
    if log_x == -math.inf:
        return 0.0
    if log_x == math.inf:
        return math.inf
    if log_x > -700.0:
        return math.exp(log_x) * (1 + ULP_SLACK)
    return mpmath.exp(mpmath.mpf(log_x)) * (1 + ULP_SLACK)


def exp_down(log_x: float) -> float | mpmath.mpf:
    if log_x == -math.inf:
        return 0.0
    if log_x == math.inf:
        return math.inf
    if log_x > -700.0:
        return math.exp(log_x) * (1 - ULP_SLACK)
    return mpmath.exp(mpmath.mpf(log_x)) * (1 - ULP_SLACK)


def add_values(a: Any, b: Any) -> Any:
    """a + b for float/mpf values, staying in float when both are comfortably floats."""
    if isinstance(a, mpmath.mpf) or isinstance(b, mpmath.mpf):
        s = mpmath.mpf(a) + mpmath.mpf(b)
        return float(s) * (1 + ULP_SLACK) if s > 1e-290 and not mpmath.isinf(s) else s
    return (a + b) * (1 + ULP_SLACK) if b else a


def budget(upper: Any, nominal: Any) -> float:
    """upper - nominal as a float error budget (0 if not finite)."""
    try:
        d = float(to_mpf(upper) - to_mpf(nominal))
    except (TypeError, ValueError):
        return 0.0
    return d if math.isfinite(d) and d > 0 else 0.0


def arr(x: Any, size: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(x, dtype=float), (size,))


def backend_note(view: ViewPair) -> str:
    return {"float": "float64 log-space, certified error model",
            "mp": f"mpmath {mpmath.mp.dps} digits", "exact": "exact rationals"}[view.backend]
