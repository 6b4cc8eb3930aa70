"""GGKPV's count-min protocol (public coins) at a certified (epsilon, delta): the least
certified rho, its error over every dataset, bits per user and query cost, for the audit's
`multi-message upper bounds (slides, count-min)` record.

Protocol and accountant: `accountant.protocols.ggkpv.countmin` (docs/ggkpv.md#count-min-variant).
Choices here (ours; the slides give none): width w = n, depth d = ceil(log2 B), and the
count-min estimate f^_x = min_j C_j[h_j(x)] - n rho/w of `verify.samplers.ggkpv_countmin`.

Least certified rho (`least_rho`): the least rho whose certified upper end of epsilon(delta)
(`countmin_epsilon_bracket(...).upper`, the criterion `calibrate_countmin` settles on) meets
the target, searched from a guess (the previous grid point's rho, or the rule rho ~ 2.6 d
ln(1/delta)/eps^2 seen at n = 1e3..1e4) and checked on both sides: rho meets it, rho - 1 does
not. About 0.3 s per evaluation instead of 7-25 s per `calibrate_countmin` from rho = 1;
tests/figures/test_ggkpv_countmin.py checks they agree.

Error over every dataset (`error_tail_bound`). Fix the dataset and a query x with count f_x.
In row j the read cell holds f_x + coll_j + Y_j, coll_j = sum_{x' != x} f_x' 1[h_j(x') =
h_j(x)] >= 0 (hash collisions, E coll_j = (n - f_x)/w <= n/w =: m) and Y_j ~ Bin(n rho, 1/w)
(noise); the d rows are independent (independent hash rows and noise). With mu = n rho/w the
error is err = min_j (coll_j + Y_j) - mu, so

- P(err >= t) = prod_j P(coll_j + Y_j >= s), s = ceil(t + mu). With G(c) = P(Y >= s - c)
  (non-decreasing in c), G(c) - G(0) <= K c for every integer c >= 0, K = max_{c >= 1}
  (G(c) - G(0))/c, so for any law of coll_j with mean <= m: P(coll_j + Y_j >= s) <= G(0) +
  K m. Nearly attained: f_x' = c on about n/c values makes coll_j about c Bin(n/c, 1/w);
- P(err <= -t) = 1 - prod_j (1 - P(coll_j + Y_j <= mu - t)) <= 1 - (1 - P(Y <= mu - t))^d
  (coll_j >= 0; equality when no other value collides, e.g. every user holds x).

Both hold for every dataset and query; the union over the B values bounds the slides'
error, max_x |err_x|: P(max_x |err_x| >= t) <= B (upper + lower tail). `error_quantile` is
the least t on a grid of step 1/4 where that is <= beta (an upper bound on the worst-case
(1 - beta)-quantile). Binomial tails in float (scipy), not interval arithmetic.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

from accountant.errors import ParameterError
from accountant.protocols import ggkpv

__all__ = ["depth", "rho_guess", "least_rho", "error_tail_bound", "error_quantile",
           "bits_per_user", "countmin_rows"]

GRID_STEP = 0.25  # resolution of error_quantile's grid of t


def depth(B: int) -> int:
    """d = ceil(log2 B) rows (our choice: the union over B values then costs a constant)."""
    return max(1, math.ceil(math.log2(B)))


def rho_guess(d: int, epsilon: float, delta: float) -> int:
    """Where the search starts: 2.6 d ln(1/delta)/eps^2 (217 at d = 6, (1, 1e-6) is 2.62 x
    d ln(1/delta)). Nothing is certified by it."""
    return max(1, round(2.6 * d * math.log(1.0 / delta) / epsilon**2))


def _upper(n: int, B: int, w: int, d: int, rho: int, delta: float) -> float:
    params = ggkpv.countmin_parameters(n=n, B=B, w=w, d=d, rho=rho)
    return float(ggkpv.countmin_epsilon_bracket(params, delta).require_upper())


@functools.lru_cache(maxsize=256)
def least_rho(n: int, B: int, w: int, d: int, epsilon: float, delta: float,
              guess: int | None = None) -> tuple[int, float, float]:
    """The least rho whose certified upper epsilon(delta) is <= epsilon, searched from a guess.

    Doubling steps from the guess bracket it (a rho that meets the target above one that
    does not), then bisection; rho - 1 is checked to fail. The true epsilon(delta) is
    non-increasing in rho (docs/ggkpv.md#count-min-variant).

    Args:
        n, B, w, d: the count-min parameters.
        epsilon, delta: the target.
        guess: the starting rho (default `rho_guess`).

    Returns:
        (rho, its certified upper epsilon, the certified upper epsilon at rho - 1 (inf at
        rho = 1)).

    Raises:
        ParameterError: no rho <= 2^20 meets the target.
    """
    seen: dict[int, float] = {}

    def eps(rho: int) -> float:
        if rho not in seen:
            seen[rho] = _upper(n, B, w, d, rho, delta)
        return seen[rho]

    x = rho_guess(d, epsilon, delta) if guess is None else max(1, int(guess))
    step = 1
    if eps(x) <= epsilon:
        hi, lo = x, x - 1
        while lo >= 1 and eps(lo) <= epsilon:
            hi, lo, step = lo, max(lo - 2 * step, 0), 2 * step
    else:
        lo, hi = x, x + 1
        while eps(hi) > epsilon:
            if hi > 2**20:
                raise ParameterError(f"no rho <= 2^20 meets epsilon={epsilon} at "
                                     f"delta={delta} (n={n}, w={w}, d={d})")
            lo, hi, step = hi, hi + 2 * step, 2 * step
    while hi - lo > 1:  # eps(hi) <= epsilon, lo = 0 or eps(lo) > epsilon
        mid = (lo + hi) // 2
        if eps(mid) <= epsilon:
            hi = mid
        else:
            lo = mid
    return hi, eps(hi), (eps(hi - 1) if hi > 1 else math.inf)


def error_tail_bound(t: Sequence[float] | np.ndarray, *, n: int, B: int, w: int, d: int,
                     rho: int, values: int | None = None,
                     collision_mean: float | None = None) -> np.ndarray:
    """An upper bound, over every dataset, on P(max over `values` queries of |err| >= t).

    Args:
        t: error levels (>= 0).
        n, B, w, d, rho: the protocol.
        values: how many queries the maximum runs over (default B: the slides' error).
        collision_mean: the bound m on E coll_j (default n/w, every dataset); 0 gives the
            exact P(|err| >= t) of a query no other value collides with (values = 1).

    Returns:
        min(1, values (upper tail + lower tail)) at each t (module docstring).
    """
    t = np.asarray(t, dtype=float)
    N, mu = n * rho, n * rho / w
    m = n / w if collision_mean is None else float(collision_mean)
    y = stats.binom(N, 1.0 / w)
    s = np.ceil(t + mu).astype(np.int64)  # err >= t  <=>  min_j S_j >= s
    top = max(int(s.max()), 1)
    c = np.arange(1, top + 1)
    at_least = y.sf(np.arange(-1, top))  # at_least[i] = P(Y >= i), i = 0..top
    g0 = at_least[np.clip(s, 0, top)]
    gc = at_least[np.clip(s[:, None] - c[None, :], 0, top)]  # P(Y >= s - c)
    k = np.max((gc - g0[:, None]) / c[None, :], axis=1)
    row_up = np.minimum(g0 + k * m, 1.0)
    upper = row_up ** d
    a = np.floor(mu - t)  # err <= -t  <=>  min_j S_j <= mu - t
    row_low = np.where(a >= 0, y.cdf(a), 0.0)
    lower = -np.expm1(d * np.log1p(-np.minimum(row_low, 1.0)))
    return np.minimum(1.0, (B if values is None else values) * (upper + lower))


def error_quantile(beta: float, *, n: int, B: int, w: int, d: int, rho: int,
                   values: int | None = None) -> float:
    """The least t on the grid GRID_STEP Z+ where `error_tail_bound` <= beta: over every
    dataset, max |err| < t with probability >= 1 - beta (over the hash draw and the noise).

    Raises:
        ParameterError: beta outside (0, 1).
    """
    if not 0 < beta < 1:
        raise ParameterError(f"beta={beta!r} must lie in (0, 1)")
    span = 40.0 * math.sqrt(n * rho / w + 1.0) + 40.0
    t = np.arange(0.0, span, GRID_STEP)
    bound = error_tail_bound(t, n=n, B=B, w=w, d=d, rho=rho, values=values)
    ok = np.flatnonzero(bound <= beta)
    if ok.size == 0:
        raise ParameterError("the tail bound stays above beta on the grid")
    return float(t[ok[0]])


def bits_per_user(*, w: int, d: int, rho: int) -> int:
    """d (1 + rho) messages of ceil(log2 d) + ceil(log2 w) bits (row, cell)."""
    return d * (1 + rho) * (math.ceil(math.log2(d)) + math.ceil(math.log2(w)))


def countmin_rows(ns: Sequence[int], Bs: Sequence[int], *, epsilon: float = 1.0,
                  delta: float = 1e-6, beta: float = 0.05) -> list[dict[str, Any]]:
    """One row per (n, B): w = n, d = ceil(log2 B), the least certified rho, its certified
    epsilon, the error bound, the noise sd, bits and cells read per query.

    The search for each (n, B) starts from the rho found for the same d at the previous n
    (the privacy depends on n rho/w = rho and d, nearly only).

    Returns:
        Rows with keys n, B, w, d, rho, epsilon_upper, epsilon_upper_rho_minus_1,
        error_bound (worst-case (1 - beta)-quantile of max_x |err|, upper), noise_sd
        (sqrt(n rho (1/w)(1 - 1/w)), exact), bits_per_user, cells_per_query (= d).
    """
    rows = []
    last: dict[int, int] = {}
    for n in ns:
        for B in Bs:
            w, d = n, depth(B)
            rho, up, below = least_rho(n, B, w, d, epsilon, delta, last.get(d))
            last[d] = rho
            rows.append({"n": n, "B": B, "w": w, "d": d, "rho": rho, "epsilon_upper": up,
                         "epsilon_upper_rho_minus_1": below,
                         "error_bound": error_quantile(beta, n=n, B=B, w=w, d=d, rho=rho),
                         "noise_sd": math.sqrt(n * rho / w * (1 - 1 / w)),
                         "bits_per_user": bits_per_user(w=w, d=d, rho=rho),
                         "cells_per_query": d})
    return rows
