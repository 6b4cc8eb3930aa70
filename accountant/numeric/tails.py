"""Certified binomial windows: the one place where a binomial's bulk is cut.

A window [lo, hi] of Bin(n, p) is kept only with a certificate on the mass outside it:
the Chernoff bound P(X <= k) <= exp(-n KL(k/n || p)) below the mean and its mirror above
(Mitzenmacher & Upfal, Thm 4.4), with n KL(k/n || p) = bd0(k, np) + bd0(n - k, nq) from
Loader's deviance (`numeric.special.bd0`). The float exponent is made a certificate by
shrinking it by a relative `EXPONENT_SLACK` and raising the log bound by `LOG_SLACK`; both
constants are shared by every window of the library (docs/soundness.md#certified-windows).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from accountant.numeric.special import bd0, binomial_logpmf, log_pmf_error

__all__ = [
    "EXPONENT_SLACK",
    "LOG_SLACK",
    "certified_exp",
    "certified_log_bound",
    "chernoff_window",
    "binomial_chernoff_log",
    "binomial_log_window",
    "binomial_fast_window",
    "binomial_outside",
    "binomial_window_linear",
]

# Relative slack on a float Chernoff exponent before it is used as a certificate, and the
# absolute slack on the resulting log bound (bd0 is accurate to a few ulps; these dominate).
EXPONENT_SLACK = 1e-9
LOG_SLACK = 1e-12


def certified_log_bound(exponent: float) -> float:
    """-exponent, raised so that exp(result) bounds exp(-true exponent) from above.

    Args:
        exponent: a float Chernoff exponent, >= 0, computed with relative error below
            EXPONENT_SLACK.

    Returns:
        -exponent (1 - EXPONENT_SLACK) + LOG_SLACK, a certified upper bound on -exponent.
    """
    return -exponent * (1 - EXPONENT_SLACK) + LOG_SLACK


def certified_exp(exponent: float) -> float:
    """exp(-exponent), made an upper bound despite float error in the exponent.

    Args:
        exponent: a float Chernoff exponent, >= 0.

    Returns:
        exp(certified_log_bound(exponent)) as a float. An exponent beyond about 745
        underflows to 0.0 (callers that need a nonzero bound clamp it themselves, as
        `binomial_fast_window` does).
    """
    return math.exp(certified_log_bound(exponent))


def binomial_chernoff_log(n: int, prob: float, x: int) -> float:
    """Certified log of Bin(n, prob)'s mass at or beyond x (below the mean: <= x; above: >= x).

    Args:
        n: number of trials, >= 0.
        prob: success probability in (0, 1).
        x: the cut point, an integer in 0..n; on the left of the mean the bound is for
            P(X <= x), on the right for P(X >= x) (at the mean the bound is trivial, log 1).

    Returns:
        A float log-bound -n KL(x/n || prob), made certified by `certified_log_bound`.
    """
    f = float(bd0(np.array(float(x)), n * prob) + bd0(np.array(float(n - x)), n * (1 - prob)))
    return certified_log_bound(f)


def binomial_log_window(n: int, prob: float, log_tail: float, *,
                        complement: bool = False, tight: bool = False,
                        ) -> tuple[int, int, float]:
    """[lo, hi] with log(mass of Bin(n, prob) outside) <= about log_tail, and that certified
    log bound (any log_tail, even below the float range). complement=True: the window of
    Bin(n, 1 - prob), mirrored from Bin(n, prob)'s so that 1 - prob is never rounded.

    The window is mean +- z sd widened by log_tail/3, a width at which the Chernoff
    exponent exceeds -log_tail; whatever the width, the returned bound is the certificate
    at the edges, never the target.

    Args:
        n: number of trials, >= 0.
        prob: success probability in (0, 1).
        log_tail: target log of the mass outside the window (< 0; any magnitude).
        complement: window of Bin(n, 1 - prob) instead, as described above.
        tight: then move each edge inwards, by bisection, to the last point whose Chernoff
            bound is still <= log_tail - log 2 (the z sd + log_tail/3 edges hold about 10.7
            sd at log_tail = -30 where 7.7 suffice: a two-dimensional window of them has
            1.9x the outcomes).

    Returns:
        (lo, hi, log_out): the integer window 0 <= lo <= hi <= n and the certified log of the
        mass outside it (sum of the edge Chernoff bounds at lo - 1 and hi + 1); -inf when the
        window is all of 0..n.
    """
    if complement:
        lo, hi, log_out = binomial_log_window(n, prob, log_tail, tight=tight)
        return n - hi, n - lo, log_out
    mean = n * prob
    sd = math.sqrt(n * prob * (1 - prob))
    z = math.sqrt(2 * max(-log_tail, 1.0)) + 3.0
    lo = max(0, int(math.floor(mean - z * sd - (-log_tail) / 3)) - 1)
    hi = min(n, int(math.ceil(mean + z * sd + (-log_tail) / 3)) + 1)
    if tight and 0 < prob < 1:
        side = log_tail - math.log(2.0)
        lo, hi = _tighter(n, prob, lo, hi, side)
    logs = [binomial_chernoff_log(n, prob, edge)
            for edge in ([lo - 1] if lo > 0 else []) + ([hi + 1] if hi < n else [])]
    if not logs:
        return lo, hi, -math.inf
    top = max(logs)
    return lo, hi, top + math.log(sum(math.exp(v - top) for v in logs))


def _tighter(n: int, prob: float, lo: int, hi: int, side: float) -> tuple[int, int]:
    """[lo, hi] shrunk towards the mean: the largest lo' >= lo (smallest hi' <= hi) whose
    outer neighbour's Chernoff bound is <= side; each bound decreases away from the mean,
    so the feasible edges are an interval, found by bisection (the certificate is
    recomputed at the returned edges by the caller either way)."""
    mean = n * prob
    if lo > 0 and binomial_chernoff_log(n, prob, lo - 1) <= side:
        a, b = lo, max(lo, min(int(math.floor(mean)), hi))   # a feasible, b maybe not
        while a < b:
            mid = (a + b + 1) // 2
            if binomial_chernoff_log(n, prob, mid - 1) <= side:
                a = mid
            else:
                b = mid - 1
        lo = a
    if hi < n and binomial_chernoff_log(n, prob, hi + 1) <= side:
        a, b = min(hi, max(int(math.ceil(mean)), lo)), hi     # b feasible, a maybe not
        while a < b:
            mid = (a + b) // 2
            if binomial_chernoff_log(n, prob, mid + 1) <= side:
                b = mid
            else:
                a = mid + 1
        hi = b
    return lo, hi


def binomial_fast_window(m: int, prob: float, tail: float) -> tuple[np.ndarray, float, int]:
    """(log Bin(m, prob) on a window, certified mass outside it, first point).

    The window is mean +- z sd with z from the Gaussian approximation (no root finding);
    its outside mass is certified by the Chernoff bound at the edges, whatever z was.

    Args:
        m: number of trials, >= 0.
        prob: success probability in (0, 1).
        tail: target mass outside the window, in (0, 1); may be subnormal.

    Returns:
        (logs, outside, lo): log Bin(m, prob) on lo..lo + len(logs) - 1 (from
        `binomial_logpmf`), the certified outside mass as a float (each edge's bound at least
        5e-324, never rounded to 0) and the window's first point. m = 0 gives
        (array([0.0]), 0.0, 0).
    """
    if m == 0:
        return np.zeros(1), 0.0, 0
    mean = m * prob
    sd = math.sqrt(m * prob * (1 - prob))
    # log(2/tail) from logs: 2/tail overflows for tails below ~1e-308
    # a target below the least subnormal (delta * 1e-12 at delta = 5e-324) is taken as that
    # subnormal: the outside mass is certified below whatever the window is
    z = math.sqrt(2 * (math.log(2.0) - math.log(max(tail, 5e-324)))) + 3.0
    lo = max(0, int(math.floor(mean - z * sd)) - 1)
    hi = min(m, int(math.ceil(mean + z * sd)) + 1)
    logs = binomial_logpmf(np.arange(lo, hi + 1), m, prob)
    # a bound below the float range is rounded up to the least subnormal, never to 0
    out = sum(max(math.exp(binomial_chernoff_log(m, prob, edge)), 5e-324)
              for edge in ([lo - 1] if lo > 0 else []) + ([hi + 1] if hi < m else []))
    return logs, float(out), lo


def binomial_outside(m: int, prob: float, lo: int, hi: int) -> float:
    """Certified Bin(m, prob) mass outside [lo, hi] (1 when an edge is on the wrong side of
    the mean, where the Chernoff bound says nothing).

    Args:
        m: number of trials, >= 0.
        prob: success probability in (0, 1).
        lo: the window's first point, 0 <= lo.
        hi: the window's last point, hi <= m.

    Returns:
        A float in [0, 1]: the sum of the Chernoff bounds at lo - 1 and hi + 1 (0 for an edge
        at the end of the support), capped at 1; 1.0 when lo - 1 >= m prob or hi + 1 <= m prob.
    """
    mean = m * prob
    out = 0.0
    if lo > 0 and lo - 1 < mean:
        out += math.exp(binomial_chernoff_log(m, prob, lo - 1))
    elif lo > 0:
        return 1.0
    if hi < m and hi + 1 > mean:
        out += math.exp(binomial_chernoff_log(m, prob, hi + 1))
    elif hi < m:
        return 1.0
    return min(out, 1.0)


def binomial_window_linear(m: int, prob: float, log_tail: float, *,
                           complement: bool = False) -> tuple[np.ndarray, int, float, float]:
    """(linear PMF of Bin(m, prob) on a certified window, its first point, log of the mass
    outside, relative error of the entries); complement=True: of Bin(m, 1 - prob).

    Args:
        m: number of trials, >= 0.
        prob: success probability in (0, 1).
        log_tail: target log of the mass outside the window (`binomial_log_window`).
        complement: the window and PMF of Bin(m, 1 - prob) instead.

    Returns:
        (pmf, lo, log_out, rel_error): exp of `binomial_logpmf` on the window starting at lo,
        the certified log of the mass outside it, and expm1 of the largest `log_pmf_error` on
        the window (the relative error of each entry, before exp's own rounding). m = 0 gives
        (array([1.0]), 0, -inf, 0.0).
    """
    if m == 0:
        return np.ones(1), 0, -math.inf, 0.0
    lo, hi, log_out = binomial_log_window(m, prob, log_tail, complement=complement)
    logs = binomial_logpmf(np.arange(lo, hi + 1), m, prob, complement=complement)
    return np.exp(logs), lo, log_out, math.expm1(float(np.max(log_pmf_error(logs))))


def _solve(f: Callable[[float], float], target: float, a: float, b: float) -> float:
    """The x in [a, b] with f(x) = target, f monotone, f(a), f(b) on either side: to an
    absolute 1e-9, or a point with the root's floor and ceil.

    Plain bisection to an absolute width of 1e-9 (a few dozen evaluations), stopped early
    once [a, b] holds no integer (floor and ceil are then constant over it, so the integer
    edges that `chernoff_window` takes are those of the full search): the root only places
    a window edge, whose certificate is computed at the edge afterwards, and a root finder
    from scipy.optimize would cost ~0.25 s of import in every command-line call.
    """
    fa = f(a) - target
    for _ in range(200):
        if b - a <= 1e-9 * max(1.0, abs(a)):
            break
        if math.floor(a) == math.floor(b) and math.ceil(a) == math.ceil(b):
            break
        m = 0.5 * (a + b)
        fm = f(m) - target
        if (fm > 0) == (fa > 0):
            a, fa = m, fm
        else:
            b = m
    return 0.5 * (a + b)


def chernoff_window(f: Callable[[float], float], mean: float, lo_limit: float,
                    hi_limit: float, tail: float) -> tuple[int, int, float]:
    """Integer window [lo, hi] around `mean` with each side's Chernoff bound <= tail/2.

    Args:
        f: the law's Chernoff exponent (0 at the mean, decreasing below, increasing above).
        mean: the law's mean.
        lo_limit: the support's left end.
        hi_limit: the support's right end (may be inf).
        tail: the target mass outside, in (0, 1).

    Returns:
        (lo, hi, certified mass outside [lo, hi]): the bound is the certificate at the
        edges (`certified_exp`), not the target.
    """
    target = math.log(2.0) - math.log(tail)  # 2/tail overflows for subnormal tails
    if f(lo_limit) <= target:
        lo, below = int(lo_limit), 0.0
    else:
        x = _solve(f, target, lo_limit, mean)
        lo = int(math.floor(x)) + 1
        below = certified_exp(f(lo - 1)) if lo - 1 >= lo_limit else 0.0
    if math.isfinite(hi_limit) and f(hi_limit) <= target:
        hi, above = int(hi_limit), 0.0
    else:
        b = max(2.0 * mean, mean + 10.0)
        while f(b) <= target:
            b *= 2.0
        x = _solve(f, target, mean, b if not math.isfinite(hi_limit) else min(b, hi_limit))
        hi = int(math.ceil(x)) - 1
        above = certified_exp(f(hi + 1))
    return max(lo, int(lo_limit)), hi, below + above
