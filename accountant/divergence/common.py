"""Shared pieces of the divergence modules: direction handling and safe value conversion."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from accountant.errors import ParameterError, PrecisionError
from accountant.numeric.mp import to_mpf
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.result import Direction, Kind, Result
from accountant.view import ViewPair

# Relative slack for one elementary float operation (exp, log, log1p, logaddexp, ...).
ULP_SLACK = 8 * UNIT_ROUNDOFF


def as_direction(direction: Direction | str) -> Direction:
    """A Direction from a Direction or its string value.

    Args:
        direction: a Direction, or "P||Q", "Q||P" or "max".

    Returns:
        The Direction.

    Raises:
        ParameterError: `direction` is not one of the Direction values.
    """
    try:
        return Direction(direction)
    except ValueError:
        raise ParameterError(f"direction={direction!r} is not one of "
                             f"{', '.join(d.value for d in Direction)}") from None


def oriented(view: ViewPair, direction: Direction) -> ViewPair:
    """The view oriented for one direction.

    Args:
        view: the pair (P, Q).
        direction: P_Q or Q_P (MAX is treated as P_Q: use `over_directions` for it).

    Returns:
        `view.swapped()` for Q_P, else `view` itself.
    """
    return view.swapped() if direction is Direction.Q_P else view


def over_directions(view: ViewPair, direction: Direction,
                    one: Callable[[ViewPair, Direction], Result]) -> Result:
    """Evaluate P||Q, Q||P or the maximum of both; a max is EXACT only if both are.

    Args:
        view: the pair (P, Q).
        direction: P_Q, Q_P or MAX.
        one: evaluates one orientation: called with the oriented view (swapped for Q_P) and
            its direction, returns that direction's Result.

    Returns:
        For P_Q or Q_P, `one`'s Result as it is. For MAX, the Result with the larger value
        (compared as mpf) relabelled direction=MAX, with kind EXACT if both are EXACT, LOWER
        if the ends are LOWER/EXACT, UPPER if they are UPPER/EXACT; error_budget kept unless
        EXACT, and both values noted in `method`.

    Raises:
        PrecisionError: one orientation gave a LOWER and the other an UPPER result (their
            maximum bounds nothing).
    """
    if direction is not Direction.MAX:
        return one(oriented(view, direction), direction)
    a = one(view, Direction.P_Q)
    b = one(view.swapped(), Direction.Q_P)
    top = a if to_mpf(a.value) >= to_mpf(b.value) else b
    kinds = {a.kind, b.kind}
    if kinds == {Kind.EXACT}:
        kind = Kind.EXACT
    elif Kind.LOWER in kinds and Kind.UPPER in kinds:
        # the maximum of a lower and an upper bound bounds nothing: refuse, never guess
        raise PrecisionError(f"cannot combine a lower and an upper bound into the maximum "
                             f"over both orders ({a.method}; {b.method})")
    else:  # exact with upper: upper; exact with lower: lower (max of the ends is one too)
        kind = Kind.LOWER if Kind.LOWER in kinds else Kind.UPPER
    return top.with_(direction=Direction.MAX, kind=kind,
                     error_budget=0.0 if kind is Kind.EXACT else top.error_budget,
                     method=f"{top.method} [max over P||Q={_short(a)}, Q||P={_short(b)}]")


def _short(r: Result) -> str:
    return f"{float(r):.6g}"


def exp_up(log_x: float) -> float | mpmath.mpf:
    """exp(log_x) rounded up; an mpf when below the normal float range (never 0).

    Args:
        log_x: a log-value (float; +-inf allowed).

    Returns:
        0.0 for -inf, inf for +inf, exp(log_x) (1 + ULP_SLACK) as a float for log_x > -700,
        else the same as an mpmath.mpf.
    """
    if log_x == -math.inf:
        return 0.0
    if log_x == math.inf:
        return math.inf
    if log_x > -700.0:
        return math.exp(log_x) * (1 + ULP_SLACK)
    return mpmath.exp(mpmath.mpf(log_x)) * (1 + ULP_SLACK)


def exp_down(log_x: float) -> float | mpmath.mpf:
    """exp(log_x) rounded down; an mpf when below the normal float range (never 0).

    Args:
        log_x: a log-value (float; +-inf allowed).

    Returns:
        0.0 for -inf, inf for +inf, exp(log_x) (1 - ULP_SLACK) as a float for log_x > -700,
        else the same as an mpmath.mpf.
    """
    if log_x == -math.inf:
        return 0.0
    if log_x == math.inf:
        return math.inf
    if log_x > -700.0:
        return math.exp(log_x) * (1 - ULP_SLACK)
    return mpmath.exp(mpmath.mpf(log_x)) * (1 - ULP_SLACK)


def add_values(a: Any, b: Any) -> Any:
    """a + b for float/mpf values, staying in float when both are comfortably floats.

    Args:
        a: a nonnegative float or mpf.
        b: a nonnegative float or mpf (0 leaves `a` unchanged).

    Returns:
        `a` when b == 0; else a + b raised by a relative ULP_SLACK: a float, or for mpf
        inputs a float when the sum is in (1e-290, inf), otherwise the mpf sum itself
        (not raised).
    """
    if isinstance(a, mpmath.mpf) or isinstance(b, mpmath.mpf):
        s = mpmath.mpf(a) + mpmath.mpf(b)
        return float(s) * (1 + ULP_SLACK) if s > 1e-290 and not mpmath.isinf(s) else s
    return (a + b) * (1 + ULP_SLACK) if b else a


def budget(upper: Any, nominal: Any) -> float:
    """upper - nominal as a float error budget (0 if not finite).

    Args:
        upper: the certified upper value (float, mpf or Fraction).
        nominal: the plain evaluation of the same quantity.

    Returns:
        float(upper - nominal) (to nearest) when it is finite and positive, else 0.0
        (also when the values do not convert).
    """
    try:
        d = float(to_mpf(upper) - to_mpf(nominal))
    except (TypeError, ValueError):
        return 0.0
    return d if math.isfinite(d) and d > 0 else 0.0


def arr(x: Any, size: int) -> np.ndarray:
    """A float error bound broadcast to one value per grid point.

    Args:
        x: a scalar or an array broadcastable to (size,).
        size: the number of grid points.

    Returns:
        A read-only float array of shape (size,) (np.broadcast_to).
    """
    return np.broadcast_to(np.asarray(x, dtype=float), (size,))


def backend_note(view: ViewPair) -> str:
    """The backend part of a Result's `method` text.

    Args:
        view: the pair whose backend is described.

    Returns:
        "float64 log-space, certified error model", "mpmath <dps> digits" (the current
        mpmath precision) or "exact rationals".
    """
    return {"float": "float64 log-space, certified error model",
            "mp": f"mpmath {mpmath.mp.dps} digits", "exact": "exact rationals"}[view.backend]
