"""Corollary 4 of Ghazi-Kumar-Manurangsi: histograms by one (epsilon/2)-DP counting protocol
per bucket (docs/gkm.md#corollary-4-histograms).

Changing one user's value changes two buckets' bits, so each bucket runs the counting
protocol at epsilon/2 (Theorem 6's parameters, corrected q). Bucket b's estimate errs by
e_b = Z_b - D_b, Z_b ~ DLap(eps'), D_b ~ Bin(h_b, q) (the dropped ones), independent over
buckets, so for the integer M = max_b |e_b|

    E M = sum_{t >= 1} (1 - prod_b P(|e_b| < t)),

with P(|e_b| < t) = sum_d Bin(h_b, q)(d) (F(d + t - 1) - F(d - t)), F the DLap CDF in closed
form. `expected_linf_error` sums t = 1..T exactly (float64) and bounds the rest by the union
bound: sum_{t > T} sum_b [P(|Z| >= t/2) + P(D_b >= t/2)], both in closed form
(docs/gkm.md#corollary-4-histograms), returning a (lower, upper) pair.

Example (B = 2 buckets at eps = 1, each error DLap(0.4975) minus the dropped ones:
without drops E max(|Z1|, |Z2|) = sum_t (1 - (1 - 2 r^t/(1+r))^2) = 2.9515 at r = e^-0.4975;
the ten users' drops, q = 0.005, add about 0.007):
    >>> lo, hi = expected_linf_error(counts=(10, 0), epsilon=1.0)
    >>> round(lo, 3), hi - lo < 1e-9
    (2.958, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

from accountant.domains import EPSILON0
from accountant.errors import ParameterError
from accountant.protocols.gkm.protocol import RHO, expected_messages, theorem6_parameters

__all__ = ["expected_linf_error", "messages_per_user"]


def _dlap_cdf(k: np.ndarray, r: float) -> np.ndarray:
    """P(Z <= k), Z ~ DLap with P(Z = z) = (1-r)/(1+r) r^|z|."""
    kf = k.astype(float)
    with np.errstate(over="ignore"):
        return np.where(kf >= 0, 1.0 - r ** (kf + 1) / (1 + r), r ** (-kf) / (1 + r))


def expected_linf_error(*, counts: Sequence[int], epsilon: float,
                        rho: float = 0.5) -> tuple[float, float]:
    """(lower, upper) on E max_b |h~_b - h_b| for the histogram `counts` (Corollary 4).

    Args:
        counts: h_b, users per bucket (B = len(counts) >= 1 buckets, n = sum >= 2).
        epsilon: the histogram's pure-DP target, > 0 (each bucket runs at epsilon/2).
        rho: Theorem 6's slack, in (0, 1/2].

    Returns:
        (lower, upper): the exact sum over t = 1..T (lower) and it plus the certified tail
        bound (upper); float64 sums, relative rounding well below the 1e-12 tail target.

    Raises:
        ParameterError: counts empty or negative, n < 2, epsilon or rho outside its domain.
    """
    EPSILON0.named("epsilon").check(epsilon)
    RHO.check(rho)
    h = np.asarray(counts, dtype=np.int64)
    if h.ndim != 1 or h.size == 0 or np.any(h < 0) or int(h.sum()) < 2:
        raise ParameterError(f"counts={tuple(counts)!r} must be a non-empty sequence of "
                             "non-negative integers summing to n >= 2")
    n = int(h.sum())
    p = theorem6_parameters(n=n, epsilon=epsilon / 2, rho=rho, corrected_q=True)
    r = math.exp(-p.epsilon_prime)
    # T: the DLap tail 2 r^(T/2) / ((1+r)(1-r)) per bucket drops below 1e-13 / B
    big_t = int(math.ceil(2 * math.log(1e13 * h.size * 4 / (1 - r * r)) / p.epsilon_prime)) + 2
    t = np.arange(1, big_t + 1)
    log_below = np.zeros(big_t)  # log P(M < t)
    tail_d = 0.0
    log_above = np.zeros(big_t)  # log of an upper bound on P(M < t)
    for count in np.unique(h):
        c = int(count)
        # D beyond d_max (mass m < 1e-30) is left out of the sums and accounted for below
        d_max = 0
        while d_max < c and stats.binom.sf(d_max, c, p.q) > 1e-30:  # scipy's isf stalls there
            d_max += 1
        m = float(stats.binom.sf(d_max, c, p.q))
        d = np.arange(d_max + 1)
        w = stats.binom.pmf(d, c, p.q)
        inside = (_dlap_cdf(d[None, :] + t[:, None] - 1, r)
                  - _dlap_cdf(d[None, :] - t[:, None], r)) @ w
        times = int(np.sum(h == count))
        log_below += times * np.log(np.clip(inside, 1e-300, 1.0))
        log_above += times * np.log(np.clip(inside + m, 1e-300, 1.0))
        # sum_{t > T} P(D >= t/2) <= 2 E[(D - ceil((T+1)/2) + 1)_+], the part beyond d_max
        # at most 2 E[D 1{D > d_max}] = 2 c q P(Bin(c - 1, q) >= d_max)
        beyond = 2 * c * p.q * float(stats.binom.sf(d_max - 1, max(c - 1, 0), p.q))
        tail_d += times * (2 * float(np.sum(w * np.maximum(d - math.ceil((big_t + 1) / 2) + 1,
                                                          0))) + beyond)
    # E M >= sum_{t <= T} (1 - P(M < t)) >= sum (1 - upper bound on P(M < t))
    lower = float(np.sum(-np.expm1(log_above)))
    upper_head = float(np.sum(-np.expm1(log_below)))
    tail_z = h.size * 2 * 2 * r ** math.ceil((big_t + 1) / 2) / ((1 + r) * (1 - r))
    return lower, upper_head + tail_z + tail_d + 1e-12 * upper_head


def messages_per_user(*, n: int, B: int, epsilon: float, rho: float = 0.5) -> float:
    """Exact expected messages of a user (B bucket protocols at epsilon/2, one holding 1).

    Args:
        n: number of users, >= 1.
        B: buckets, >= 1.
        epsilon: the histogram's target, > 0.
        rho: Theorem 6's slack, in (0, 1/2].

    Returns:
        expected_messages(x=1) + (B - 1) expected_messages(x=0) at epsilon/2.

    Raises:
        ParameterError: an argument outside its domain.
    """
    if not (isinstance(B, int) and B >= 1):
        raise ParameterError(f"B={B!r} is outside [1, inf) (an integer)")
    p = theorem6_parameters(n=n, epsilon=epsilon / 2, rho=rho, corrected_q=True)
    return expected_messages(p, x=1) + (B - 1) * expected_messages(p, x=0)
