"""Accurate float64 log-PMFs of the binomial, Poisson and negative binomial laws.

`scipy.special.gammaln` differences lose about 1e-6 in log C(n, k) at n = 1e9 (three
numbers near 2e10 are subtracted), and scipy's pmf underflows to 0 below 1e-308. We use
the saddle-point expansion of Loader ("Fast and accurate computation of binomial
probabilities", 2000): log b(x; n, p) = stirlerr(n) - stirlerr(x) - stirlerr(n-x)
- bd0(x, np) - bd0(n-x, nq) - log(2 pi x (n-x)/n) / 2, whose terms are each small and
computed without cancellation. The stated error model is `LOG_PMF_ABS_ERROR` +
`LOG_PMF_REL_ERROR` * |log pmf|, tested against mpmath in tests/numeric.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = [
    "stirlerr",
    "bd0",
    "two_product",
    "binomial_logpmf",
    "poisson_logpmf",
    "negative_binomial_logpmf",
    "log_pmf_error",
    "LOG_PMF_ABS_ERROR",
    "LOG_PMF_REL_ERROR",
]

# Error model of the functions below (abs + rel * |value|), with a wide margin over what
# tests/numeric/test_special.py measures against 60-digit mpmath.
LOG_PMF_ABS_ERROR = 1e-13
LOG_PMF_REL_ERROR = 1e-14

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)
# the unit round-off (`rounding.UNIT_ROUNDOFF`, not imported: that module loads mpmath)
_U = 2.0 ** -53
# Stirling-series coefficients 1/12, 1/360, 1/1260, 1/1680, 1/1188 (Bernoulli numbers).
_S0, _S1, _S2, _S3, _S4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188


def log_pmf_error(log_pmf: np.ndarray) -> np.ndarray:
    """The stated bound on |computed - true| for log-PMF values from this module.

    Args:
        log_pmf: log-PMF values computed by this module (-inf and other non-finite entries
            count as 0 in the relative term).

    Returns:
        LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR * |log_pmf|, elementwise, as an array.
    """
    return LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR * np.abs(np.where(np.isfinite(log_pmf),
                                                                    log_pmf, 0.0))


def stirlerr(n: np.ndarray) -> np.ndarray:
    """log(n!) - log(sqrt(2 pi n) (n/e)^n) for real n > 0 (0 at n = 0).

    Args:
        n: real arguments, >= 0 (array or scalar).

    Returns:
        An array of the shape of `n`: from math.lgamma for 0 < n <= 15, a Stirling series with
        2 to 5 terms above 15, and 0 for n == 0 (negative entries also give 0).
    """
    n = np.asarray(n, dtype=float)
    out = np.zeros_like(n)
    small = (n > 0) & (n <= 15.0)
    ns = n[small]
    # math.lgamma (C library, a few ulps) instead of scipy.special.gammaln: importing
    # scipy.special costs ~0.25 s of every command-line call
    out[small] = (np.asarray(_LGAMMA(ns + 1.0), dtype=float) - (ns + 0.5) * np.log(ns) + ns
                  - _LOG_SQRT_2PI)
    # Stirling series, with as many terms as each range needs (masks, not nested np.where,
    # so that each element pays for its own branch only)
    for lo, hi, terms in ((500.0, np.inf, 2), (80.0, 500.0, 3), (35.0, 80.0, 4), (15.0, 35.0, 5)):
        sel = (n > lo) & (n <= hi)
        if not np.any(sel):
            continue
        nb = n[sel]
        nn = nb * nb
        coeffs = (_S0, _S1, _S2, _S3, _S4)[:terms]
        acc = coeffs[-1]
        for c in coeffs[-2::-1]:
            acc = c - acc / nn
        out[sel] = acc / nb
    return out


def two_product(a: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """(hi, lo) with hi + lo == a * b exactly (Dekker's splitting; no FMA needed).

    Args:
        a: float factors (array or scalar).
        b: a float factor.

    Returns:
        (hi, lo): hi = fl(a * b) and the exact rounding error lo, as arrays, barring
        overflow or underflow in the splitting.
    """
    a = np.asarray(a, dtype=float)
    hi = a * b
    split = 134217729.0  # 2^27 + 1
    ta = split * a
    a_hi = ta - (ta - a)
    a_lo = a - a_hi
    tb = split * b
    b_hi = tb - (tb - b)
    b_lo = b - b_hi
    lo = ((a_hi * b_hi - hi) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return hi, lo


def bd0(x: npt.ArrayLike, m: npt.ArrayLike, diff: npt.ArrayLike | None = None) -> np.ndarray:
    """x log(x/m) + m - x, computed without cancellation (Loader 2000), for x >= 0, m > 0.

    `diff`, if given, is x - m computed more accurately than x - fl(m) (the rounding of
    m = n p alone shifts log Bin(n, p)(k) by ~ |k - np| ulp(np) / (npq), 1e-10 at n = 1e9).

    Args:
        x: values >= 0.
        m: values > 0, broadcast against `x`.
        diff: optional x - m, broadcast against `x`; defaults to x - m in float.

    Returns:
        An array of the broadcast shape: a series in v = (x - m)/(x + m) where
        |x - m| < 0.1 (x + m), x log(x/m) - (x - m) elsewhere (the x log(x/m) term is 0 at x = 0).
    """
    x, m = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(m, dtype=float))
    d = x - m if diff is None else np.broadcast_to(np.asarray(diff, dtype=float), x.shape)
    near = np.abs(d) < 0.1 * (x + m)
    if near.all():  # the bulk of a distribution: skip the masked copies
        return _bd0_series(x, m, d)
    out = np.empty(x.shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        far = ~near
        xf, mf, df = x[far], m[far], d[far]
        # x/m overflows for a subnormal mean (m = 1e-320, x = 1): the ratio's log is then
        # the difference of the logs, finite, instead of log(inf) (it leaked a warning)
        ratio = xf / mf
        lr = np.where(np.isfinite(ratio), np.log(ratio), np.log(xf) - np.log(mf))
        out[far] = np.where(xf > 0, xf * lr, 0.0) - df
    out[near] = _bd0_series(x[near], m[near], d[near])
    return out


def _bd0_series(x: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """bd0 for |x - m| < 0.1 (x + m): 2 x sum_j v^(2j+1)/(2j+1) with v = d/(x+m)."""
    v = d / (x + m)
    s = d * v
    ej = 2.0 * x * v
    v2 = v * v
    # |v| < 0.1 so each term is at least 100x smaller than the previous: 12 suffice; stop
    # earlier once no term can change any sum (in the bulk |v| ~ 1e-3: 3 terms).
    for j in range(1, 13):
        ej = ej * v2
        term = ej / (2 * j + 1)
        s = s + term
        if not np.any(np.abs(term) > 1e-17 * np.abs(s)):
            break
    return s


def binomial_logpmf(k: np.ndarray, n: npt.ArrayLike, p: float, *,
                    complement: bool = False) -> np.ndarray:
    """log Bin(n, p)(k) for integer-valued k (vectorized, also over n); -inf outside 0..n.

    complement=True gives log Bin(n, 1 - p)(k) = log Bin(n, p)(n - k) without forming 1 - p:
    the rounded 1 - p loses the relative accuracy of the small probability p (at p = 1e-11,
    about 1e-5 relative), which would fall outside the stated error model.

    Args:
        k: integer-valued points (array or scalar; floats holding integers are fine).
        n: number of trials, an integer-valued float >= 0, or an array of them broadcast
            against `k` (one evaluation for many n: the same operations elementwise).
        p: success probability in [0, 1].
        complement: evaluate Bin(n, 1 - p) instead, as described above.

    Returns:
        An array of the broadcast shape with log Bin(n, p)(k) (or log Bin(n, 1 - p)(k)),
        within `log_pmf_error` of the truth; -inf outside 0..n; p = 0 and p = 1 give the
        point masses.
    """
    scalar = np.ndim(n) == 0
    k = np.asarray(k, dtype=float)
    nn = np.asarray(n, dtype=float)
    if not scalar:
        k, nn = np.broadcast_arrays(k, nn)
    if complement:
        k = nn - k
    q = 1.0 - p
    out = np.full(k.shape, -np.inf)
    if p == 0.0:
        out[k == 0] = 0.0
        return out
    if p == 1.0:
        out[k == nn] = 0.0
        return out
    inside = (k >= 0) & (k <= nn)
    at0, atn = inside & (k == 0), inside & (k == nn)
    out[at0] = (nn if scalar else nn[at0]) * math.log1p(-p)
    out[atn] = (nn if scalar else nn[atn]) * math.log(p)
    mid = inside & (k > 0) & (k < nn)
    if not mid.any():  # n = 0 (an empty binomial, the point mass at 0) has no interior
        return out
    km = k[mid]
    nm = nn if scalar else nn[mid]
    np_hi, np_lo = two_product(np.asarray(nm), p)
    d = (km - np_hi) - np_lo  # k - np, to about one ulp of itself
    lc = (stirlerr(np.asarray(nm)) - stirlerr(km) - stirlerr(nm - km)
          - bd0(km, np_hi, d) - bd0(nm - km, nm * q, -d))
    # log(x (n-x)/n) from exact integer differences; log1p(-x/n) loses digits near x = n.
    ln_n = math.log(float(nm)) if scalar else np.log(nm)
    lf = np.log(2.0 * math.pi) + np.log(km) + np.log(nm - km) - ln_n
    out[mid] = lc - 0.5 * lf
    return out


def poisson_logpmf(k: np.ndarray, mu: float) -> np.ndarray:
    """log Poi(mu)(k) for integer-valued k (vectorized); -inf for k < 0.

    Args:
        k: integer-valued points (array or scalar).
        mu: the Poisson mean, >= 0 (mu = 0 is the point mass at 0).

    Returns:
        An array of the shape of `k` with log Poi(mu)(k), -inf for k < 0.
    """
    k = np.asarray(k, dtype=float)
    out = np.full(k.shape, -np.inf)
    if mu == 0.0:
        out[k == 0] = 0.0
        return out
    out[k == 0] = -mu
    pos = k > 0
    kp = k[pos]
    out[pos] = -stirlerr(kp) - bd0(kp, mu) - 0.5 * np.log(2.0 * math.pi * kp)
    return out


def negative_binomial_logpmf(k: np.ndarray, r: float, p: float) -> np.ndarray:
    """log NB(r, p)(k) = log Gamma(k+r)/(Gamma(r) k!) p^r (1-p)^k, real r > 0.

    Uses NB(k; r, p) = r/(k+r) * Bin(k+r, p)(r) with the binomial saddle-point form
    extended to real arguments (as R's dnbinom does).

    Args:
        k: integer-valued points (array or scalar), >= 0.
        r: number of successes, a real > 0.
        p: success probability in (0, 1] (p = 1 is the point mass at 0).

    Returns:
        An array of the shape of `k` with log NB(r, p)(k), -inf for k < 0.
    """
    k = np.asarray(k, dtype=float)
    out = np.full(k.shape, -np.inf)
    q = 1.0 - p
    if q == 0.0:
        out[k == 0] = 0.0
        return out
    out[k == 0] = r * math.log(p)
    pos = k > 0
    kp = k[pos]
    nn = kp + r
    m_hi, m_lo = two_product(nn, p)
    d = (r - m_hi) - m_lo  # r - (k + r) p
    lc = (stirlerr(nn) - stirlerr(np.full_like(kp, r)) - stirlerr(kp)
          - bd0(np.full_like(kp, r), m_hi, d) - bd0(kp, nn * q, -d))
    lf = np.log(2.0 * math.pi) + math.log(r) + np.log(kp) - np.log(nn)
    out[pos] = math.log(r) - np.log(nn) + lc - 0.5 * lf
    return out


def half_binomial_rows(c: np.ndarray, half: int) -> tuple[np.ndarray, np.ndarray]:
    """(log Bin(c, 1/2)(a), its error bound) for a = floor(c/2) + j, j = -half..half, one
    row per count c (-inf or nan outside 0 <= a <= c).

    From the centre's log-PMF, stepping out by the ratios Bin(a+1)/Bin(a) = (c-a)/(a+1)
    and Bin(a-1)/Bin(a) = a/(c-a+1), summed in order: each step's log is within 4 u
    (1 + |step|) of the true one (one division of integers, one log), and the k-th partial
    sum adds u |S_k| (sequential summation), so the bound is the centre's plus the running
    sum of those. Loader's log-PMF on every outcome took 4.4 of each 5.5 s build of a
    subsampled round at n = 1e8 users, q = 0.01 (9e6 outcomes), and one call per row
    1.5 of each 2 s build of the clones pair at n = 1e5; the steps' bound stays below
    1e-11."""
    a0 = np.floor(c / 2)
    centre = binomial_logpmf(a0, c, 0.5)
    e_centre = log_pmf_error(centre)
    j = np.arange(1, half + 1, dtype=float)[None, :]
    cc, aa = c[:, None], a0[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.log((cc - aa - j + 1) / (aa + j))        # a0 + j - 1 -> a0 + j
        down = np.log((aa - j + 1) / (cc - aa + j))      # a0 - j + 1 -> a0 - j
        sides = []
        for steps in (up, down):
            total = np.cumsum(np.concatenate([centre[:, None], steps], axis=1), axis=1)
            per_step = 4 * _U * (1 + np.abs(steps)) + _U * np.abs(total[:, 1:])
            bound = e_centre[:, None] + np.cumsum(per_step, axis=1) * (1 + 1e-6)
            sides.append((total[:, 1:], bound))
    (up_v, up_e), (down_v, down_e) = sides
    values = np.concatenate([down_v[:, ::-1], centre[:, None], up_v], axis=1)
    errors = np.concatenate([down_e[:, ::-1], e_centre[:, None], up_e], axis=1)
    return values, errors
