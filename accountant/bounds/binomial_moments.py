"""Moments E[L(k)^s] of the binary-RR likelihood ratio under k ~ Bin(n, p), p = 1/(e^eps0+1).

Shared by the lower bounds of Girgis et al. 2021 (Theorem 3 = forward order,
docs/girgis-2021.md#theorem-3-and-corollary-2,
and the reverse order, docs/single-message.md#binary-randomized-response). `L(k) = (k e^eps0 +
(n-k) e^-eps0)/n` and E[L] = 1.

Why the form `E[L^s] - 1 = E[f_s(L - 1)]` with `f_s(x) = (1+x)^s - 1 - s x`: E[L - 1] = 0
exactly, and f_s >= 0 for s >= 1 and for s <= 0 (convexity of x^s), so the sum has no
cancellation, and log1p of it keeps full relative accuracy even when the divergence is
1e-12 (docs/soundness.md#precision-and-cancellation). Dropping terms of a nonnegative sum can only
lower it, so a window
around the mass is sound for a LOWER bound without any tail bound.
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np

from accountant.numeric.special import binomial_logpmf

__all__ = ["log1p_moment_float", "log_moment_mp", "window"]

# Relative error allowed for the float path of `log1p_moment_float` (see its docstring);
# tests/bounds compare it with 50-digit mpmath over a grid of (n, eps0, s).
FLOAT_RELATIVE_ERROR = 1e-10


def window(n: int, epsilon0: float, s: float) -> tuple[int, int]:
    """k-range that holds every term within exp(-60) of the largest (heuristic, used only
    for lower bounds and the mp oracle's speed; a smaller window only lowers the sum).

    Args:
        n: number of users, >= 1.
        epsilon0: the binary randomizer's parameter, > 0 (p = 1/(e^eps0 + 1)).
        s: the moment's order (its magnitude, rounded up to a power of two, widens the
            window).

    Returns:
        (lo, hi): the inclusive k-range, clipped to 0..n.
    """
    p = 1.0 / (math.exp(epsilon0) + 1.0)
    mean = n * p
    var = n * p * (1.0 - p)
    # The tilt L^s moves the mass by at most |s| * eps0 in log-weight on either side; |s| is
    # rounded up to a power of two so that many orders share one cached window.
    tilt = 2.0 ** math.ceil(math.log2(max(abs(s), 1.0)))
    slack = 2.0 * tilt * epsilon0 + 60.0
    r = math.sqrt(2.0 * var * slack) + slack + 10.0
    return max(0, math.floor(mean - r)), min(n, math.ceil(mean + r))


def _expm1_minus(y: np.ndarray) -> np.ndarray:
    """expm1(y) - y without cancellation (series for |y| < 0.5)."""
    out = np.expm1(y) - y
    small = np.abs(y) < 0.5
    ys = y[small]
    term = ys * ys / 2.0
    acc = term.copy()
    for j in range(3, 25):  # 0.5^24/24! is far below one ulp
        term = term * ys / j
        acc = acc + term
    out[small] = acc
    return out


def _log1p_minus(x: np.ndarray) -> np.ndarray:
    """log1p(x) - x without cancellation (series for |x| < 0.1)."""
    out = np.log1p(x) - x
    small = np.abs(x) < 0.1
    xs = x[small]
    power = xs * xs
    acc = -power / 2.0
    for j in range(3, 20):  # 0.1^19/19 is far below one ulp of x^2/2
        power = power * xs
        acc = acc + (power / j if j % 2 else -power / j)
    out[small] = acc
    return out


def _log_f(x: np.ndarray, s: float) -> np.ndarray:
    """log f_s(x), f_s(x) = (1+x)^s - 1 - s x >= 0, for s >= 1 or s <= 0, x > -1."""
    y = s * np.log1p(x)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        big = y > 30.0  # then f = e^y (1 - (1 + s x) e^-y), the correction below 1e-12
        f = _expm1_minus(np.where(big, 0.0, y)) + s * _log1p_minus(np.where(big, 0.0, x))
        log_small = np.log(np.maximum(f, 0.0))
        log_big = y + np.log1p(-(1.0 + s * x) * np.exp(-np.where(big, y, 0.0)))
    return np.where(big, log_big, log_small)


def log1p_moment_float(*, n: int, epsilon0: float, s: float) -> float:
    """log E_{k~Bin(n,p)}[L(k)^s] in float64 over `window`, for s >= 1 or s <= 0.

    Error model (stated, and checked against mpmath in tests/bounds): the log-PMFs carry
    ~1e-13 relative error each, f_s is evaluated to a few ulps of itself except through
    the rounding of x = L - 1, whose effect relative to the sum is about
    u (e^eps0 - e^-eps0) / sqrt(chi/n), below 1e-10 for n <= 1e9 on our domain. Callers
    that need a certified lower bound shrink the result by FLOAT_RELATIVE_ERROR.

    Args:
        n: number of users, >= 1.
        epsilon0: the binary randomizer's parameter, > 0.
        s: the moment's order, s >= 1 or s <= 0 (not validated; f_s can be negative in
            between).

    Returns:
        log1p(E[f_s(L - 1)]) over the window as a float (computed in log space when the sum
        leaves the float range); 0.0 when no term is finite. Not rounded in a chosen
        direction (see the error model).
    """
    log_w, x = _window_terms(n, epsilon0, *window(n, epsilon0, s))
    terms = log_w + _log_f(x, s)
    terms = terms[np.isfinite(terms)]
    if terms.size == 0:
        return 0.0
    m = float(np.max(terms))
    total = math.exp(m) * float(np.sum(np.exp(terms - m))) if m < 700 else math.inf
    if math.isinf(total):  # E[L^s] - 1 beyond float range: log E = m + log(sum) exactly
        return m + math.log(float(np.sum(np.exp(terms - m))))
    return math.log1p(total)


@functools.lru_cache(maxsize=16)
def _window_terms(n: int, epsilon0: float, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """(log Bin(n,p)(k), L(k) - 1) for k = lo..hi; cached because every Renyi order of one
    (n, epsilon0) reuses them (read-only arrays)."""
    p = 1.0 / (math.exp(epsilon0) + 1.0)
    k = np.arange(lo, hi + 1, dtype=float)
    log_w = binomial_logpmf(k, n, p)
    a = math.expm1(epsilon0)      # e^eps0 - 1
    b = -math.expm1(-epsilon0)    # 1 - e^-eps0
    x = np.maximum((k * (a + b) - n * b) / n, math.exp(-epsilon0) - 1.0)  # L(k) - 1
    log_w.setflags(write=False)
    x.setflags(write=False)
    return log_w, x


def log_moment_mp(*, n: int, epsilon0: float, s: float, digits: int = 50,
                  full: bool = False) -> mpmath.mpf:
    """log E_{k~Bin(n,p)}[L(k)^s] in mpmath (ratio recurrence for the PMF,
    docs/soundness.md#precision-and-cancellation).

    With full=False the sum runs over `window` (a lower bound, equal to the full sum to far
    more than 1e-12 relative on our domain); with full=True over k = 0..n.

    Args:
        n: number of users, >= 1.
        epsilon0: the binary randomizer's parameter, > 0.
        s: the moment's order (any real).
        digits: mpmath decimal digits.
        full: sum over every k (O(n) terms) instead of `window`.

    Returns:
        The logarithm as an mpmath.mpf rounded to the caller's working precision.
    """
    with mpmath.workdps(digits):
        e = mpmath.exp(mpmath.mpf(epsilon0))
        p = 1 / (e + 1)
        q = 1 - p
        lo, hi = (0, n) if full else window(n, epsilon0, s)
        w = mpmath.binomial(n, lo) * p**lo * q**(n - lo)
        ratio = p / q
        einv = 1 / e
        total = mpmath.mpf(0)
        for k in range(lo, hi + 1):
            L = (k * e + (n - k) * einv) / n
            total += w * L**s
            w = w * (n - k) / (k + 1) * ratio
        return +mpmath.log(total)
