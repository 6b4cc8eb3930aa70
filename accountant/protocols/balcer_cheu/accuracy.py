"""Exact accuracy of zsum and hist at their worst datasets (Balcer-Cheu 2020, Thms 3.1-3.2).

Theorem 3.1(ii) promises |output - m/n| <= alpha with probability >= 1 - beta for EVERY
dataset; here m is the number of users holding 1, the only thing the output depends on.
The analyzer's output is (m + K)/n - p when m + K > n and 0 otherwise, K ~ Bin(n, p), so the
error is |K/n - p| on the first event and m/n on the second. For each m in 0..n

    f(m) = P[error > alpha] = [m/n > alpha] P[K <= n - m] + P[K > n - m, |K/n - p| > alpha],

an O(n) vector from one binomial PMF (scipy, float). The worst dataset is max_m f(m); a
single "balanced" dataset can miss it badly: the truncation error m/n peaks where m is just
below the point where K > n - m becomes likely (docs/balcer-cheu-2020.md#accuracy).

Theorem 3.2(ii) is Theorem 3.1(ii) for one bin (each bin runs zsum on its indicator bits).
Theorem 3.2(iii) (all d bins at once, failure probability beta) is decided exactly too: the
bins' noises are independent, a zero bin is exact (Thm 3.1(iii)), so for the bin counts
m_1..m_d (summing to n)

    P[some bin off by more than alpha] = 1 - prod_j (1 - f(m_j)),

and its maximum over histograms is an unbounded knapsack over the parts of n (at most n
nonzero bins, so the maximum over all d >= n; smaller d can only lower it), solved by
dynamic programming in O(n^2). The values are float computations of exact expressions
("exact" in the audit's sense; a diagnostic of accuracy, not a privacy bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from accountant.domains import Interval
from accountant.errors import ParameterError
from accountant.protocols.balcer_cheu.views import BalcerCheuParameters

__all__ = ["WorstAccuracy", "failure_probabilities", "simultaneous_failure",
           "worst_error_quantile", "worst_simultaneous_error_quantile"]

_BETA = Interval("beta", 0.0, 1.0, closed="neither")
_ALPHA = Interval("alpha", 0.0, math.inf, closed="left")
# the DP over parts of n is O(n^2); beyond this it takes minutes
_MAX_SIMULTANEOUS_N = 30_000


@dataclass(frozen=True, slots=True, kw_only=True)
class WorstAccuracy:
    """The worst dataset for an accuracy claim and what happens there.

    Attributes:
        error: the least alpha whose worst failure probability is <= beta (the claim's
            alpha must be at least this for the claim to hold).
        failure: the worst failure probability at `error`.
        ones: for one count, the number of ones of a dataset that forces alpha up to
            `error` (its failure probability exceeds beta at the next smaller error value);
            for a histogram, the largest bin count of such a histogram.
        bins: the number of nonzero bins of that histogram (1 for one count).
    """

    error: float
    failure: float
    ones: int
    bins: int


def failure_probabilities(params: BalcerCheuParameters, *, alpha: float) -> np.ndarray:
    """f(m) = P[|zsum output - m/n| > alpha] for every number of ones m = 0..n.

    Args:
        params: the zsum instance (n and p).
        alpha: the error threshold, >= 0 (an error equal to alpha is a success).

    Returns:
        A float array of length n + 1 (f(0) = 0: the all-zero dataset is answered exactly).

    Raises:
        ParameterError: alpha < 0.
    """
    _ALPHA.check(alpha)
    n = params.n
    k = np.arange(n + 1)
    pmf = stats.binom.pmf(k, n, params.p)
    cdf = np.cumsum(pmf)
    bad = np.abs(k / n - params.p) > alpha
    # tail[j] = P[K > j, K bad], summed from the right so small tails keep their digits
    tail = np.concatenate([np.cumsum((pmf * bad)[::-1])[::-1][1:], [0.0]])
    m = np.arange(n + 1)
    truncated = np.where(m / n > alpha, cdf[n - m], 0.0)
    return np.minimum(1.0, truncated + tail[n - m])


def _candidates(params: BalcerCheuParameters) -> np.ndarray:
    """Every value the error can take, sorted: m/n and |k/n - p|."""
    n = params.n
    grid = np.arange(n + 1) / n
    return np.unique(np.concatenate([grid, np.abs(grid - params.p)]))


def _least(candidates: np.ndarray, fails: object) -> int:
    """Index of the first candidate at which `fails` is False (it is monotone)."""
    lo, hi = 0, len(candidates) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if fails(float(candidates[mid])):  # type: ignore[operator]
            lo = mid + 1
        else:
            hi = mid
    return lo


def worst_error_quantile(params: BalcerCheuParameters, *, beta: float) -> WorstAccuracy:
    """The least alpha with P[|output - m/n| > alpha] <= beta for every m (Theorem 3.1(ii)).

    The failure probability is nonincreasing in alpha and the error takes only the values
    m/n and |k/n - p|, so a bisection over those values finds the least alpha exactly.

    Args:
        params: the zsum instance (n and p).
        beta: the failure probability, in (0, 1).

    Returns:
        WorstAccuracy(error, failure at error, ones of a worst dataset, bins=1).

    Raises:
        ParameterError: beta outside (0, 1).
    """
    _BETA.check(beta)
    values = _candidates(params)
    i = _least(values, lambda a: failure_probabilities(params, alpha=a).max() > beta)
    f = failure_probabilities(params, alpha=float(values[i]))
    # the dataset that forces alpha up to values[i] fails at the value just below it
    below = failure_probabilities(params, alpha=float(values[max(i - 1, 0)]))
    return WorstAccuracy(error=float(values[i]), failure=float(f.max()),
                         ones=int(np.argmax(below)), bins=1)


def _worst_histogram(f: np.ndarray) -> tuple[float, int, int]:
    """max over parts m_1 + ... = n of 1 - prod (1 - f(m_j)), its largest part and count."""
    n = len(f) - 1
    with np.errstate(divide="ignore"):
        w = -np.log1p(-np.minimum(f, 1.0))  # inf where a bin fails surely
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    choice = np.zeros(n + 1, dtype=np.int64)
    for s in range(1, n + 1):
        totals = best[s - 1::-1] + w[1:s + 1]  # part m = 1..s, the rest s - m
        j = int(np.argmax(totals))
        best[s], choice[s] = totals[j], j + 1
    parts, s = [], n
    while s > 0:
        parts.append(int(choice[s]))
        s -= int(choice[s])
    return float(-np.expm1(-best[n])), max(parts), len(parts)


def simultaneous_failure(params: BalcerCheuParameters, *,
                         alpha: float) -> tuple[float, int, int]:
    """The worst probability, over all histograms of n users, that hist misses some bin by
    more than alpha (Theorem 3.2(iii)'s event), exact up to float.

    Args:
        params: the instance (n and p; d is not used: the maximum is over every d).
        alpha: the error threshold, >= 0.

    Returns:
        (failure probability, largest bin count of a worst histogram, its nonzero bins).

    Raises:
        ParameterError: alpha < 0, or n above 30000 (the O(n^2) program would take minutes).
    """
    if params.n > _MAX_SIMULTANEOUS_N:
        raise ParameterError(f"n={params.n} is outside [1, {_MAX_SIMULTANEOUS_N}] for the "
                             "exact worst histogram (an O(n^2) program)")
    return _worst_histogram(failure_probabilities(params, alpha=alpha))


def worst_simultaneous_error_quantile(params: BalcerCheuParameters, *,
                                      beta: float) -> WorstAccuracy:
    """The least alpha at which every histogram of n users has all its bins within alpha
    with probability >= 1 - beta (Theorem 3.2(iii)), exact up to float.

    Args:
        params: the instance (n and p).
        beta: the failure probability, in (0, 1).

    Returns:
        WorstAccuracy(error, worst failure at error, largest bin and nonzero bins of a
        worst histogram).

    Raises:
        ParameterError: beta outside (0, 1), or n above 30000.
    """
    _BETA.check(beta)
    if params.n > _MAX_SIMULTANEOUS_N:
        raise ParameterError(f"n={params.n} is outside [1, {_MAX_SIMULTANEOUS_N}] for the "
                             "exact worst histogram (an O(n^2) program)")
    values = _candidates(params)
    i = _least(values, lambda a: simultaneous_failure(params, alpha=a)[0] > beta)
    failure = simultaneous_failure(params, alpha=float(values[i]))[0]
    _, largest, bins = simultaneous_failure(params, alpha=float(values[max(i - 1, 0)]))
    return WorstAccuracy(error=float(values[i]), failure=failure, ones=largest, bins=bins)
