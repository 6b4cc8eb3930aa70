"""Log-space arithmetic: the only home of logsumexp and log-subtraction.

Privacy numbers such as delta = 1e-400 are normal in this field; float64 cannot hold them,
their logarithms it can.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

__all__ = ["logsumexp", "log1mexp", "log_sub", "exp_value", "log_value", "finite_abs"]


def logsumexp(x: np.ndarray) -> float:
    """log(sum(exp(x))) over a 1-D or flattened array; -inf for an empty or all -inf input.

    Args:
        x: log-values (any shape; flattened); -inf entries stand for zero terms.

    Returns:
        The float log(sum(exp(x))), computed after shifting by the maximum; -inf for an empty
        or all -inf input, inf if any entry is inf.
    """
    x = np.asarray(x, dtype=float).ravel()
    if x.size == 0:
        return -math.inf
    m = float(np.max(x))
    if m == -math.inf:
        return -math.inf
    if m == math.inf:
        return math.inf
    return m + math.log(float(np.sum(np.exp(x - m))))


def log1mexp(x: np.ndarray | float) -> np.ndarray | float:
    """log(1 - exp(x)) for x <= 0, accurate for x near 0 and for very negative x.

    Uses the two-branch rule of Maechler ("Accurately computing log(1 - exp(-|a|))", 2012):
    log(-expm1(x)) for x > -log 2, log1p(-exp(x)) otherwise.

    Args:
        x: a float or an array of floats, meant to be <= 0.

    Returns:
        log(1 - exp(x)), elementwise, with the shape of `x` (a float for a scalar input);
        -inf where x >= 0 (x = 0 is the exact value; for x > 0 the logarithm is undefined
        and -inf is returned rather than NaN).
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        out = np.where(x > -math.log(2.0), np.log(-np.expm1(np.minimum(x, 0.0))),
                       np.log1p(-np.exp(np.minimum(x, 0.0))))
    out = np.where(x >= 0.0, -np.inf, out)
    return out if out.ndim else float(out)


def log_sub(a: float, b: float) -> float:
    """log(exp(a) - exp(b)) for a >= b; -inf when equal.

    Args:
        a: log of the larger value (may be -inf only together with b).
        b: log of the smaller value; -inf means subtracting zero.

    Returns:
        The float log(exp(a) - exp(b)); `a` itself when b = -inf, -inf when a == b.

    Raises:
        ValueError: b > a (the difference would be negative). A plain ValueError, not a
            ParameterError: callers pass values they have already ordered.
    """
    if b == -math.inf:
        return a
    if b > a:
        raise ValueError(f"log_sub needs a >= b, got a={a}, b={b}")
    return a + float(log1mexp(b - a))


def exp_value(log_x: float) -> float | mpmath.mpf:
    """exp(log_x) as a float when representable as a normal float, else as an mpf.

    Never returns 0 for a finite log_x: values below float range stay visible.

    Args:
        log_x: natural logarithm of a nonnegative value, <= about 709.78 (the float range).

    Returns:
        0.0 for log_x = -inf; math.exp(log_x) for log_x > -700; otherwise an mpmath.mpf
        (mpf exponents are unbounded, so a finite log_x never gives 0). log_x above the float
        range makes math.exp raise OverflowError rather than fall back to an mpf.
    """
    if log_x == -math.inf:
        return 0.0
    if log_x > -700.0:
        return math.exp(log_x)
    return mpmath.exp(mpmath.mpf(log_x))


def log_value(x: float | mpmath.mpf) -> float:
    """log of a nonnegative float or mpf, as a float (-inf for 0).

    Args:
        x: a nonnegative float or mpmath.mpf.

    Returns:
        log(x) as a float: -inf for x == 0; an mpf is taken through mpmath.log first, so
        values below the float range keep a finite logarithm.
    """
    if x == 0:
        return -math.inf
    if isinstance(x, mpmath.mpf):
        return float(mpmath.log(x))
    return math.log(x)


def finite_abs(x: np.ndarray) -> np.ndarray:
    """|x| where finite, else 0: the magnitude a rounding-error bound scales with (a -inf
    log is a zero term, exact).

    Args:
        x: values (any shape).

    Returns:
        An array of the shape of `x`.
    """
    x = np.asarray(x, dtype=float)
    return np.abs(np.where(np.isfinite(x), x, 0.0))
