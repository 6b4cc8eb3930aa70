"""Shared pieces of the divergence modules: direction handling and safe value conversion."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from accountant.divergence.objects import Certified
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric.mp import to_fmpq, to_mpf
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
    top = a if exact_key(a.value) >= exact_key(b.value) else b
    kinds = {a.kind, b.kind}
    if kinds == {Kind.EXACT}:
        kind = Kind.EXACT
    elif Kind.LOWER in kinds and Kind.UPPER in kinds:
        # the maximum of a lower and an upper bound bounds nothing: refuse, never guess
        raise PrecisionError(f"cannot combine a lower and an upper bound into the maximum "
                             f"over both orders ({a.method}; {b.method})")
    else:  # exact with upper: upper; exact with lower: lower (max of the ends is one too)
        kind = Kind.LOWER if Kind.LOWER in kinds else Kind.UPPER
    method = f"{top.method} [max over P||Q={_short(a)}, Q||P={_short(b)}]"
    if kind is Kind.EXACT:
        # max(x, y) with x in [a +- ra], y in [b +- rb] lies within max(ra, rb) of max(a, b)
        return top.with_(direction=Direction.MAX, method=method,
                         radius=max(a.radius, b.radius),
                         precision=_max_precision(a.precision, b.precision))
    if a.radius or b.radius:
        # an EXACT end with a radius becomes a bound only once moved by its radius
        sign = +1 if kind is Kind.UPPER else -1
        ends = [(ball_end(r, sign), r) for r in (a, b)]
        value, top = max(ends, key=lambda t: exact_key(t[0]))
        return top.with_(direction=Direction.MAX, kind=kind, value=value, radius=0.0,
                         error_budget=top.error_budget, method=method,
                         precision=_max_precision(a.precision, b.precision))
    return top.with_(direction=Direction.MAX, kind=kind, error_budget=top.error_budget,
                     method=method)


def ball_end(r: Result, sign: int) -> Any:
    """The upper (sign +1) or lower (sign -1) end of a Result's ball, value +- radius.

    Args:
        r: a Result; its radius may be 0.
        sign: +1 for the upper end, -1 for the lower end.

    Returns:
        r.value itself when the radius is 0 (or the value infinite); else an mpf rounded
        outward (up for +1, down for -1).
    """
    if not r.radius or not r.is_finite:
        return r.value
    v = to_fmpq(r.value)
    exact = Fraction(int(v.p), int(v.q)) + sign * Fraction(r.radius)
    rnd = mpmath.libmp.round_ceiling if sign > 0 else mpmath.libmp.round_floor
    return mpmath.mp.make_mpf(mpmath.libmp.from_rational(
        exact.numerator, exact.denominator, max(mpmath.mp.prec, 128), rnd))


def exact_key(x: Any) -> tuple[int, Any]:
    """A sort key comparing float, mpf and Fraction values exactly (+-inf included).

    Args:
        x: a float, mpf, Fraction or int.

    Returns:
        (0, the exact rational) for finite values, (1, 0) for +inf, (-1, 0) for -inf.
    """
    if isinstance(x, float | mpmath.mpf) and mpmath.isinf(x):
        return (1, 0) if x > 0 else (-1, 0)
    return 0, to_fmpq(x)


def _max_precision(a: int | None, b: int | None) -> int | None:
    return max((x for x in (a, b) if x is not None), default=None)


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
    return _exp_times(log_x, 1 + ULP_SLACK)


def exp_down(log_x: float) -> float | mpmath.mpf:
    """exp(log_x) rounded down; an mpf when below the normal float range (never 0).

    Args:
        log_x: a log-value (float; +-inf allowed).

    Returns:
        0.0 for -inf, inf for +inf, exp(log_x) (1 - ULP_SLACK) as a float for log_x > -700,
        else the same as an mpmath.mpf.
    """
    return _exp_times(log_x, 1 - ULP_SLACK)


def _exp_times(log_x: float, factor: float) -> float | mpmath.mpf:
    # exp(log_x) times a rounding factor: a float between the subnormal range and overflow,
    # else an mpf (above e^709 math.exp raised a bare OverflowError; an mpf keeps a lower end
    # finite and below the truth)
    if log_x == -math.inf:
        return 0.0
    if log_x == math.inf:
        return math.inf
    if -700.0 < log_x < 709.0:
        return math.exp(log_x) * factor
    return mpmath.exp(mpmath.mpf(log_x)) * factor


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


def object_result(cert: Certified, *, quantity: str, view: ViewPair, direction: Direction,
                  method: str, exact_ok: bool, **extra: Any) -> Result:
    """The Result of a certified enclosure: EXACT (with radius) when tight and the view is
    complete, else its UPPER end (error_budget the enclosure's width).

    Args:
        cert: the enclosure.
        quantity: the Result's quantity.
        view: the view it was computed on (for the method note).
        direction: the Result's direction.
        method: the method name, without the backend note.
        exact_ok: the grid holds all of P's mass with true values.
        **extra: further Result fields (at, order).

    Returns:
        The Result, with `precision` the ball precision and `radius` the certified radius.
    """
    note = f"{method} ({object_note(view, cert)})"
    # mp views and logarithmic quantities report mpf values; exact delta stays a Fraction
    mp = view.backend == "mp" or quantity != "delta"
    if mp:
        cert = cert.as_mpf()
    if cert.tight and exact_ok:
        return Result(quantity=quantity, value=cert.value, kind=Kind.EXACT, direction=direction,
                      method=note, radius=cert.radius, precision=cert.precision, **extra)
    width = cert.width()
    return Result(quantity=quantity, value=cert.upper_value(mp), kind=Kind.UPPER,
                  direction=direction, method=note,
                  error_budget=width if math.isfinite(width) else 0.0,
                  precision=cert.precision, **extra)


def object_bracket(cert: Certified, *, quantity: str, view: ViewPair, direction: Direction,
                   method: str, **extra: Any) -> tuple[Result, Result]:
    """(LOWER, UPPER) Results of a certified enclosure.

    Args:
        cert: the enclosure.
        quantity: the Results' quantity.
        view: the view it was computed on (for the method note).
        direction: the Results' direction.
        method: the method name, without the backend note.
        **extra: further Result fields (at, order).

    Returns:
        The lower end rounded down and the upper end rounded up, each with the ball
        precision; error budgets are the enclosure's width.
    """
    note = f"{method} ({object_note(view, cert)})"
    width = cert.width()
    budget_ = width if math.isfinite(width) else 0.0
    mp = view.backend == "mp" or quantity != "delta"
    lower = Result(quantity=quantity, value=cert.lower_value(mp), kind=Kind.LOWER,
                   direction=direction, method=note, error_budget=budget_,
                   precision=cert.precision, **extra)
    upper = Result(quantity=quantity, value=cert.upper_value(mp), kind=Kind.UPPER,
                   direction=direction, method=note, error_budget=budget_,
                   precision=cert.precision, **extra)
    return lower, upper


def object_note(view: ViewPair, cert: Certified) -> str:
    """The backend part of the `method` text of an exact/mp evaluation.

    Args:
        view: the pair evaluated.
        cert: its enclosure.

    Returns:
        "exact rationals" or "mpmath values within a relative rho (stated | model)", plus
        "arb balls at N bits" when a ball was used.
    """
    if view.backend == "exact":
        out = "exact rationals"
    else:
        rho, stated = view.relative_error()
        out = f"mpmath values, relative error <= {rho:.3g} ({'stated' if stated else 'model'})"
    if cert.precision is not None:
        out += f", arb balls at {cert.precision} bits"
    return out


def backend_note(view: ViewPair) -> str:
    """The backend part of a Result's `method` text.

    Args:
        view: the pair whose backend is described.

    Returns:
        "float64 log-space, certified error model", "mpmath values" or "exact rationals"
        (exact/mp evaluations describe themselves with `object_note`).
    """
    return {"float": "float64 log-space, certified error model",
            "mp": "mpmath values", "exact": "exact rationals"}[view.backend]
