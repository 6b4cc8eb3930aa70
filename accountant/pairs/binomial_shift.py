"""Generic view pairs that several protocols share.

`binomial_shift_pair(n, p)` is the pair Bin(n, p) against 1 + Bin(n, p)
(docs/balcer-cheu-2020.md#exact-zsum-view):
the exact neighbouring view of Balcer-Cheu's zsum, and the benchmark pair of the
foundation issue. The privacy loss has the closed form
    L(k) = log(B(k)/B(k-1)) = log((n-k+1) p / (k (1-p))),
computed as log1p(((n+1)p - k)/(k(1-p))) with an error-free product, so that it is
accurate to a few ulps of L itself even when L ~ 1e-4 and n ~ 1e9 (a difference of two
log-PMFs would carry ~1e-13 absolute error, which the hockey-stick amplifies by
P(S)/delta ~ 1e6).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from accountant.distributions import DEFAULT_DPS, binomial, binomial_window
from accountant.domains import N_USERS, PROBABILITY
from accountant.errors import ParameterError
from accountant.numeric.mp import to_mpf
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error, two_product
from accountant.pmf import PMF, check_backend
from accountant.view import ViewPair

__all__ = ["binomial_shift_pair", "binomial_shift_loss"]


def binomial_shift_loss(k: np.ndarray, n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """(L(k), error bound) with L(k) = log(Bin(n,p)(k) / Bin(n,p)(k-1)); +inf at k = 0,
    -inf at k = n + 1.

    Args:
        k: integer-valued points (array or scalar); k <= 0 gives +inf, k >= n + 1 gives -inf.
        n: number of trials, >= 1.
        p: success probability in (0, 1), a float.

    Returns:
        (loss, error): arrays of the shape of `k`; the error bound is 0 where the loss is
        infinite, 32 u |L| where |r| < 0.5 (the log1p branch), 16 u (1 + |L| + log(n + 2))
        elsewhere (u the unit roundoff).
    """
    k = np.asarray(k, dtype=float)
    q = 1.0 - p
    hi, lo = two_product(np.array(float(n + 1)), p)
    with np.errstate(divide="ignore", invalid="ignore"):
        num = (hi - k) + lo  # (n+1)p - k, to a few ulps of itself
        r = num / (k * q)
        small = np.abs(r) < 0.5
        loss = np.where(small, np.log1p(np.where(small, r, 0.0)),
                        np.log((n - k + 1) * p) - np.log(k * q))
    loss = np.where(k <= 0, np.inf, np.where(k >= n + 1, -np.inf, loss))
    finite = np.isfinite(loss)
    absl = np.abs(np.where(finite, loss, 0.0))
    err = np.where(small, 32 * UNIT_ROUNDOFF * absl,
                   16 * UNIT_ROUNDOFF * (1.0 + absl + math.log(n + 2.0)))
    return loss, np.where(finite, err, 0.0)


def binomial_shift_pair(n: int, p: Any, *, backend: str = "float", tail: float | None = None,
                        dps: int = DEFAULT_DPS,
                        description: dict[str, Any] | None = None) -> ViewPair:
    """The pair P = Bin(n, p), Q = 1 + Bin(n, p) on a common grid.

    With tail=None the whole support 0..n+1 is used (O(n) points); with tail=t only the
    bulk window of Bin(n, p) with certified outside mass <= t, extended by one point, so
    that both residual masses are <= t. Renyi and max-divergences of this pair are +inf
    (the atoms k = 0 and k = n + 1).

    Args:
        n: number of trials, an integer >= 1.
        p: success probability in (0, 1). The exact backend with tail=None needs a Fraction
            (see `distributions.binomial`); with a tail it takes Fraction(p) of any real.
        backend: "float", "mp" or "exact".
        tail: None for the whole support, else the certified outside mass, in (0, 1).
        dps: decimal digits for the mp backend.
        description: extra entries for the pair's description (they override the defaults
            "pair", "n", "p").

    Returns:
        A ViewPair on k = a..b+1 (a..b the window of Bin(n, p); 0..n with tail=None) with
        residual_loss_bound inf; float views carry the closed-form loss `binomial_shift_loss`.

    Raises:
        ParameterError: unknown backend, n not an integer >= 1, p outside (0, 1) (p = 0 and
            p = 1 give disjoint views), tail outside (0, 1), or a non-Fraction p for the exact
            backend with tail=None.
    """
    check_backend(backend)
    N_USERS.check(n)
    PROBABILITY.named("p").check(p)
    if p in (0, 1):
        raise ParameterError(f"p={p!r} is outside (0, 1) for a shift pair (views are disjoint)")
    n = int(n)
    if tail is None:
        a, b, cut = 0, n, 0.0
    else:
        a, b, cut = binomial_window(n, float(p), tail)
    grid = np.arange(a, b + 2)
    desc = {"pair": "Bin(n,p) vs 1+Bin(n,p)", "n": n, "p": float(p)} | dict(description or {})
    if backend == "float":
        pf = float(p)
        # one evaluation on [a-1, b+1]: Q's log-PMF at k is P's at k-1 (half the work)
        ext = binomial_logpmf(np.arange(a - 1, b + 2), n, pf)
        lp, lq = ext[1:], ext[:-1]
        err = np.maximum(log_pmf_error(lp), log_pmf_error(lq))
        P = PMF("float", (a,), lp, cut, err, True)
        Q = PMF("float", (a,), lq, cut, err, True)
        return ViewPair.from_pmfs(
            P, Q, loss=lambda coords: binomial_shift_loss(coords[0], n, pf),
            residual_loss_bound=math.inf, description=desc)
    lo = max(a - 1, 0)
    B = binomial(n, p, backend=backend, dps=dps) if tail is None else _window_pmf(
        n, p, lo, b + 1, backend, dps)
    vals = B.values  # covers [lo, min(b+1, n)]
    zero = vals[0] * 0
    full = {int(k): v for k, v in zip(range(B.offset[0], B.offset[0] + vals.size), vals,
                                      strict=True)}
    pv = np.array([full.get(int(k), zero) for k in grid], dtype=object)
    qv = np.array([full.get(int(k) - 1, zero) for k in grid], dtype=object)
    tail_v = _as(cut, zero)
    P = PMF(backend, (a,), pv, tail_v, 0.0, True)
    Q = PMF(backend, (a,), qv, tail_v, 0.0, True)
    return ViewPair.from_pmfs(P, Q, residual_loss_bound=math.inf, description=desc)


def _as(x: float, like: Any) -> Any:
    from fractions import Fraction

    import mpmath

    return Fraction(x) if isinstance(like, Fraction) else mpmath.mpf(x)


def _window_pmf(n: int, p: Any, lo: int, hi: int, backend: str, dps: int) -> PMF:
    """Bin(n, p) values on [lo, min(hi, n)] in an object backend."""
    import mpmath


    hi = min(hi, n)
    ks = range(lo, hi + 1)
    if backend == "exact":
        from fractions import Fraction

        pp = Fraction(p)
        vals = [math.comb(n, k) * pp ** k * (1 - pp) ** (n - k) for k in ks]
    else:
        with mpmath.workdps(dps + 10):
            pm = to_mpf(p)
            qm = 1 - pm
            v = mpmath.exp(mpmath.loggamma(n + 1) - mpmath.loggamma(lo + 1)
                           - mpmath.loggamma(n - lo + 1) + lo * mpmath.log(pm)
                           + (n - lo) * mpmath.log(qm))
            vals = []
            for k in ks:
                vals.append(+v)
                v = v * (n - k) * pm / ((k + 1) * qm)
    return PMF(backend, (lo,), np.array(vals, dtype=object), 0.0, 0.0, True)
