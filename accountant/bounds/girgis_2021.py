"""Renyi-DP bounds of Girgis, Data, Diggavi, Suresh, Kairouz for the shuffle model.

"On the Renyi Differential Privacy of the Shuffle Model", ACM CCS 2021 (arXiv:2105.05180).
Every formula is the reconstruction of docs/girgis-2021.md#girgis-et-al-2021 (the text copy lost
its mathematics);
the section numbers in each docstring say which one. Notation: e = e^epsilon0,
chi = (e-1)^2/e = 4 sinh(epsilon0/2)^2, nbar = floor((n-1)/(2e)) + 1.

Upper bounds (every epsilon0-LDP randomizer, every neighbouring pair, both orders):
`rdp_upper_thm1` (integer orders, eq. (6)), `rdp_upper_remark2` (real orders by convexity),
`rdp_upper_thm2` (real orders), `rdp_upper_cor1` (where its inequality holds numerically),
`rdp_upper_refined` (docs/girgis-2021.md#theorem-4-and-the-refined-bound, ours: Theorem 4 evaluated
exactly), `rdp_upper_thm5`
(special pairs of m users). Lower bounds on the worst case (binary randomized response):
`rdp_lower_thm3` (forward order, exact), `rdp_lower_cor2`, `rdp_lower_reverse` (the stronger
reverse order, docs/girgis-2021.md#theorem-3-and-corollary-2).

Upper bounds are evaluated in mpmath and rounded up; lower bounds are rounded down.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np

from accountant.bounds import binomial_moments as moments
from accountant.domains import EPSILON0, N_USERS, Interval
from accountant.errors import LooseBoundWarning, ParameterError, RegimeError
from accountant.numeric import rounding
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.result import Direction, Kind, Result, Source

__all__ = [
    "CITATION",
    "rdp_upper_thm1",
    "rdp_upper_remark3",
    "rdp_upper_remark2",
    "rdp_upper_thm2",
    "rdp_upper_cor1",
    "rdp_upper_thm5",
    "rdp_upper_refined",
    "rdp_lower_thm3",
    "rdp_lower_cor2",
    "rdp_lower_reverse",
]

CITATION = "Girgis, Data, Diggavi, Suresh, Kairouz, CCS 2021"
# 20+ digits beyond any tolerance we test (docs/soundness.md#precision-and-cancellation)
_DIGITS = 60
_INTEGER_ORDER = Interval("alpha", 2, math.inf, closed="left", integer=True)
_REAL_ORDER = Interval("alpha", 1.0, math.inf, closed="neither")
_GAMMA = Interval("gamma", 0.0, 1.0, closed="neither")
_M_USERS = N_USERS.named("m")
# Blocks of clone counts in the refined bound beyond which A is evaluated per block (upper
# end): the relative change of A - 1 across a block is below 1e-4 of itself at n >= 1e5.
_BLOCKS = 4096


def _source(locator: str) -> Source:
    return Source(citation=CITATION, locator=locator)


def _check(*, alpha: float, epsilon0: float, n: int, integer: bool) -> None:
    (_INTEGER_ORDER if integer else _REAL_ORDER).check(alpha)
    EPSILON0.check(epsilon0)
    N_USERS.check(n)


def _nbar(*, n: int, epsilon0: float, gamma: float = 0.5) -> int:
    """floor((1-gamma)(n-1)/e^eps0) + 1 (gamma = 1/2: the paper's nbar), exactly."""
    with mpmath.workdps(_DIGITS):
        return int(mpmath.floor((1 - mpmath.mpf(gamma)) * (n - 1) / mpmath.exp(epsilon0))) + 1


def _thm5_terms(*, alpha: int, epsilon0: float, m: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(T2, S3) of Theorem 5 at m users (docs/girgis-2021.md#theorem-5), in mpmath at the working
    precision.

    T2 = C(alpha,2) chi/m, S3 = sum_{j=3}^{alpha} C(alpha,j) j Gamma(j/2) (v/m)^(j/2),
    v = (e^(2 eps0)-1)^2/(2 e^(2 eps0)) = 2 sinh(eps0)^2 (no cancellation at small eps0).
    """
    eps = mpmath.mpf(epsilon0)
    chi = 4 * mpmath.sinh(eps / 2) ** 2
    v = 2 * mpmath.sinh(eps) ** 2
    t2 = mpmath.binomial(alpha, 2) * chi / m
    s3 = mpmath.fsum(mpmath.binomial(alpha, j) * j * mpmath.gamma(mpmath.mpf(j) / 2)
                     * (v / m) ** (mpmath.mpf(j) / 2) for j in range(3, alpha + 1))
    return t2, s3


def _exp_term(*, alpha: float, epsilon0: float, n: int, gamma: float = 0.5) -> mpmath.mpf:
    """exp(eps0 alpha - gamma^2 (n-1)/(2 e^eps0)): Chernoff bound on the few-clones event
    times the single-user bound e^(alpha eps0) (docs/girgis-2021.md#theorem-1; gamma = 1/2
    gives (n-1)/(8e))."""
    eps = mpmath.mpf(epsilon0)
    g = mpmath.mpf(gamma)
    return mpmath.exp(eps * alpha - g**2 * (n - 1) / (2 * mpmath.exp(eps)))


def _renyi(value: mpmath.mpf, *, kind: Kind, alpha: float, method: str, locator: str,
           direction: Direction = Direction.MAX) -> Result:
    rounded = rounding.up(value) if kind is Kind.UPPER else rounding.down(value)
    return Result(quantity="renyi", value=rounded, kind=kind, direction=direction,
                  method=f"bounds.girgis_2021.{method}", source=_source(locator), order=alpha)


def rdp_upper_thm5(*, alpha: int, epsilon0: float, m: int) -> Result:
    """Upper bound on the forward-order Renyi divergence of a special pair of m users.

    Girgis et al. 2021, Theorem 5 (docs/girgis-2021.md#theorem-5): the binomial expansion of
    E(1+X)^alpha with
    Lemma 6 (moments) and Lemma 7 (maximal chi^2). The pair is (d',...,d',d) against
    (d',...,d'), for any epsilon0-LDP randomizer; exact at alpha = 2 for binary RR.

    Args:
        alpha: Renyi order, an integer >= 2.
        epsilon0: local randomizer's pure-DP parameter, > 0.
        m: number of users of the special pair, an integer >= 1.

    Returns:
        Result(quantity="renyi", kind=UPPER, direction=P_Q, order=alpha): log1p(T2 + S3) /
        (alpha - 1), evaluated at 60 digits and rounded up.

    Raises:
        ParameterError: alpha not an integer >= 2, epsilon0 <= 0, or m < 1.
    """
    _INTEGER_ORDER.check(alpha)
    EPSILON0.check(epsilon0)
    _M_USERS.check(m)
    alpha = int(alpha)
    with mpmath.workdps(_DIGITS):
        t2, s3 = _thm5_terms(alpha=alpha, epsilon0=epsilon0, m=int(m))
        value = mpmath.log1p(t2 + s3) / (alpha - 1)
        return _renyi(value, kind=Kind.UPPER, alpha=alpha, method="rdp_upper_thm5",
                      locator="Theorem 5 (special pairs)", direction=Direction.P_Q)


def rdp_upper_thm1(*, alpha: int, epsilon0: float, n: int, gamma: float = 0.5) -> Result:
    """Upper bound on the order-alpha RDP of n shuffled epsilon0-LDP reports.

    Girgis et al. 2021, Theorem 1, eq. (6) (docs/girgis-2021.md#theorem-1), integer orders:
    eps(alpha) <= 1/(alpha-1) log(1 + T2 + S3 + E) with T2, S3 the Theorem 5 terms at
    m = nbar and E = exp(eps0 alpha - (n-1)/(8 e^eps0)). With gamma != 1/2 this is the
    Remark 3 generalisation (nbar = floor((1-gamma)(n-1)/e^eps0) + 1 and
    E = exp(eps0 alpha - gamma^2 (n-1)/(2 e^eps0))); every gamma in (0, 1) is valid.

    Args:
        alpha: Renyi order, an integer >= 2.
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, >= 1.
        gamma: Remark 3's split parameter in (0, 1); the paper's theorem uses 1/2.

    Returns:
        Result(quantity="renyi", kind=UPPER, direction=MAX, order=alpha).

    Raises:
        ParameterError: an argument is outside its domain.
    """
    _check(alpha=alpha, epsilon0=epsilon0, n=n, integer=True)
    _GAMMA.check(gamma)
    alpha = int(alpha)
    with mpmath.workdps(_DIGITS):
        nbar = _nbar(n=n, epsilon0=epsilon0, gamma=gamma)
        t2, s3 = _thm5_terms(alpha=alpha, epsilon0=epsilon0, m=nbar)
        e_term = _exp_term(alpha=alpha, epsilon0=epsilon0, n=n, gamma=gamma)
        value = mpmath.log1p(t2 + s3 + e_term) / (alpha - 1)
        locator = ("Theorem 1, eq. (6)" if gamma == 0.5
                   else f"Theorem 1 with Remark 3 (gamma={gamma})")
        return _renyi(value, kind=Kind.UPPER, alpha=alpha, method="rdp_upper_thm1",
                      locator=locator)


def rdp_upper_remark3(*, alpha: int, epsilon0: float, n: int,
                      gammas: tuple[float, ...] | None = None) -> Result:
    """Theorem 1 minimised over Remark 3's split parameter gamma (docs/girgis-2021.md#theorem-1).

    Girgis et al. 2021, Remark 3: for every gamma in (0, 1), Theorem 1 holds with
    nbar = floor((1-gamma)(n-1)/e^eps0) + 1 and E = exp(eps0 alpha - gamma^2 (n-1)/(2 e^eps0));
    the minimum of valid bounds is valid. Default grid: gamma = 0.05, 0.10, ..., 0.95 (which
    contains the paper's 1/2, so the result is never above Theorem 1).

    Args:
        alpha: Renyi order, an integer >= 2.
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, an integer >= 1.
        gammas: the split parameters to try, each in (0, 1); None for the default grid.

    Returns:
        Result(quantity="renyi", kind=UPPER, direction=MAX, order=alpha): the least
        `rdp_upper_thm1` value over the grid; `source` names the winning gamma.

    Raises:
        ParameterError: an argument is outside its domain (gamma outside (0, 1) included),
            or `gammas` is empty.
    """
    grid = tuple(round(0.05 * i, 2) for i in range(1, 20)) if gammas is None else gammas
    if not grid:
        raise ParameterError("gammas=() is empty; give at least one gamma in (0, 1)")
    value, gamma = min((rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n, gamma=gamma).value,
                        gamma) for gamma in grid)
    return Result(quantity="renyi", value=value, kind=Kind.UPPER, direction=Direction.MAX,
                  method="bounds.girgis_2021.rdp_upper_remark3",
                  source=_source(f"Theorem 1 with Remark 3 (best gamma on the grid: {gamma})"),
                  order=alpha)


def _interpolate(bound, *, alpha: float, epsilon0: float, n: int) -> mpmath.mpf:
    """Remark 2 (docs/girgis-2021.md#remark-2): (alpha-1) eps(alpha) is convex in alpha, so it lies
    below the
    chord between the integer orders around alpha; below 2 the chord starts at (1, 0)."""
    lo, hi = math.floor(alpha), math.ceil(alpha)
    if lo == hi:
        return mpmath.mpf(float(bound(alpha=lo, epsilon0=epsilon0, n=n)))
    t = mpmath.mpf(alpha) - lo
    upper_hi = (hi - 1) * mpmath.mpf(float(bound(alpha=hi, epsilon0=epsilon0, n=n)))
    upper_lo = (0 if lo < 2 else
                (lo - 1) * mpmath.mpf(float(bound(alpha=lo, epsilon0=epsilon0, n=n))))
    return ((1 - t) * upper_lo + t * upper_hi) / (mpmath.mpf(alpha) - 1)


def rdp_upper_remark2(*, alpha: float, epsilon0: float, n: int) -> Result:
    """Theorem 1 at a real order alpha > 1 through Remark 2 (docs/girgis-2021.md#remark-2).

    Girgis et al. 2021, Remark 2: since (alpha-1) eps(alpha) is convex, interpolate
    (alpha-1) eps linearly between the Theorem 1 values at floor(alpha) and ceil(alpha);
    for 1 < alpha < 2 the chord runs from (1, 0) to (2, eps(2)), which gives
    eps(alpha) <= eps(2). Integer alpha returns Theorem 1.

    Args:
        alpha: Renyi order, a finite real > 1.
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, an integer >= 1.

    Returns:
        Result(quantity="renyi", kind=UPPER, direction=MAX, order=alpha), rounded up, with
        the Remark 2 locator (also at integer orders, where the value is Theorem 1's).

    Raises:
        ParameterError: alpha <= 1 or infinite, epsilon0 <= 0, n < 1.
    """
    _check(alpha=alpha, epsilon0=epsilon0, n=n, integer=False)
    if math.isinf(alpha):
        raise ParameterError("alpha=inf is outside (1, inf) for Remark 2 (finite orders only)")
    with mpmath.workdps(_DIGITS):
        value = _interpolate(rdp_upper_thm1, alpha=alpha, epsilon0=epsilon0, n=n)
        return _renyi(value, kind=Kind.UPPER, alpha=alpha, method="rdp_upper_remark2",
                      locator="Remark 2 (convex interpolation of Theorem 1, eq. (6))")


def rdp_upper_thm2(*, alpha: float, epsilon0: float, n: int) -> Result:
    """Upper bound on the RDP of n shuffled epsilon0-LDP reports at any real order.

    Girgis et al. 2021, Theorem 2, eq. (9), as reconstructed in docs/girgis-2021.md#theorem-2
    (medium
    confidence on lambda^2 versus lambda(lambda-1); lambda^2 is the conservative reading):
    eps(alpha) <= 1/(alpha-1) log( exp(alpha^2 (e^eps0-1)^2/(nbar e^eps0))
                                   + exp(eps0 alpha - (n-1)/(8 e^eps0)) ).

    Args:
        alpha: Renyi order, a finite real > 1.
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, an integer >= 1.

    Returns:
        Result(quantity="renyi", kind=UPPER, direction=MAX, order=alpha), evaluated at 60
        digits and rounded up.

    Raises:
        ParameterError: alpha <= 1 or infinite, epsilon0 <= 0, n < 1.
    """
    _check(alpha=alpha, epsilon0=epsilon0, n=n, integer=False)
    if math.isinf(alpha):
        raise ParameterError("alpha=inf is outside (1, inf) for Theorem 2 (finite orders)")
    with mpmath.workdps(_DIGITS):
        eps = mpmath.mpf(epsilon0)
        a = mpmath.mpf(alpha)
        chi = 4 * mpmath.sinh(eps / 2) ** 2
        nbar = _nbar(n=n, epsilon0=epsilon0)
        # log(exp(x) + exp(y)) - computed as x + log1p(exp(y - x)) to keep small x exact.
        x = a**2 * chi / nbar
        y = eps * a - (n - 1) / (8 * mpmath.exp(eps))
        big, small = (x, y) if x >= y else (y, x)
        value = (big + mpmath.log1p(mpmath.exp(small - big))) / (a - 1)
        return _renyi(value, kind=Kind.UPPER, alpha=alpha, method="rdp_upper_thm2",
                      locator="Theorem 2, eq. (9)")


def rdp_upper_cor1(*, alpha: int, epsilon0: float, n: int, strict: bool = True) -> Result:
    """Corollary 1's simplified bound, applied only where its inequality is checked.

    Girgis et al. 2021, Corollary 1 (docs/girgis-2021.md#corollary-1): when S3 + E <= T2 (the
    Theorem 1 terms),
    eps(alpha) <= 1/(alpha-1) log(1 + 2 T2) = 1/(alpha-1) log(1 + 2 C(alpha,2) chi/nbar).
    We check S3 + E <= T2 numerically, never the paper's sufficient condition
    alpha^4 e^(5 eps0) < n/9 alone: at small eps0 near that threshold E exceeds T2.
    (We use the nbar form: the paper's display with n in place of n-1 can fail by rounding.)

    Args:
        alpha: Renyi order, an integer >= 2.
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, an integer >= 1.
        strict: if True (default), raise RegimeError where S3 + E > T2; if False, warn
            (LooseBoundWarning) and return Theorem 1, whose method then says so.

    Returns:
        Result(quantity="renyi", kind=UPPER, direction=MAX, order=alpha), rounded up; out of
        regime with strict=False, `rdp_upper_thm1`'s Result with " (Corollary 1 out of
        regime)" appended to its method.

    Raises:
        ParameterError: an argument is outside its domain.
        RegimeError: S3 + E > T2 and strict is True; the message gives the three numbers.
    """
    _check(alpha=alpha, epsilon0=epsilon0, n=n, integer=True)
    alpha = int(alpha)
    with mpmath.workdps(_DIGITS):
        nbar = _nbar(n=n, epsilon0=epsilon0)
        t2, s3 = _thm5_terms(alpha=alpha, epsilon0=epsilon0, m=nbar)
        e_term = _exp_term(alpha=alpha, epsilon0=epsilon0, n=n)
        if s3 + e_term > t2:
            message = (f"bounds.girgis_2021.rdp_upper_cor1 needs S3 + E <= T2 (Girgis et al. "
                       f"2021, Corollary 1; docs/girgis-2021.md#corollary-1); got alpha={alpha}, "
                       f"epsilon0={epsilon0}, n={n}: S3={mpmath.nstr(s3, 4)}, "
                       f"E={mpmath.nstr(e_term, 4)}, T2={mpmath.nstr(t2, 4)} "
                       f"(S3 + E - T2 = {mpmath.nstr(s3 + e_term - t2, 4)} > 0)")
            if strict:
                raise RegimeError(message)
            warnings.warn(message + "; returning Theorem 1 instead", LooseBoundWarning,
                          stacklevel=2)
            fallback = rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n)
            return fallback.with_(method=fallback.method + " (Corollary 1 out of regime)")
        value = mpmath.log1p(2 * t2) / (alpha - 1)
        return _renyi(value, kind=Kind.UPPER, alpha=alpha, method="rdp_upper_cor1",
                      locator="Corollary 1 (checked S3 + E <= T2)")


def _single_user_log(*, alpha: int, epsilon0: float) -> mpmath.mpf:
    """log of (e^(alpha eps0) + e^((1-alpha) eps0))/(1 + e^eps0): E[L^alpha] of one binary-RR
    user, the largest over all epsilon0-LDP pairs, hence a bound for every special pair."""
    eps = mpmath.mpf(epsilon0)
    return (mpmath.log(mpmath.exp(alpha * eps) + mpmath.exp((1 - alpha) * eps))
            - mpmath.log1p(mpmath.exp(eps)))


def _single_user_excess_log(*, alpha: int, epsilon0: float) -> mpmath.mpf:
    """log(B1 - 1), B1 the single-user moment of `_single_user_log`, without cancellation.

    B1 - 1 = (expm1(alpha eps) + expm1((1-alpha) eps) - expm1(eps)) / (1 + e^eps) ~
    alpha (alpha-1) eps^2 / 2: the first-order terms cancel, losing about log10(1/eps)
    digits, so the working precision grows by that much (log(expm1(log B1)) at 60 digits
    was log(0) = -inf below eps ~ 1e-30, and the bound NaN).
    """
    extra = max(0, math.ceil(-math.log10(epsilon0))) + 10
    with mpmath.workdps(_DIGITS + extra):
        eps = mpmath.mpf(epsilon0)
        excess = (mpmath.expm1(alpha * eps) + mpmath.expm1((1 - alpha) * eps)
                  - mpmath.expm1(eps)) / (1 + mpmath.exp(eps))
        return +mpmath.log(excess)


def _log_sinh(x: float, scale: float = 1.0) -> float:
    """log(2 sinh(x / 2)) (scale 0.5) or log(sinh(x)) (scale 1) for x > 0, not below it:
    sinh underflows to 0 below 1e-308 (and x / 2 to 0 at 5e-324)."""
    if x > 1e-8:
        return math.log(math.sinh(x * scale) / scale)
    # sinh(s x) / s = x (1 + y), y <= (s x)^2 / 6 (1 + x^2), and log(1 + y) <= y
    return math.log(x) + (scale * x) ** 2 / 6.0 * (1.0 + x * x)


def rdp_upper_refined(*, alpha: float, epsilon0: float, n: int) -> Result:
    """Theorem 4's reduction evaluated exactly: always <= Theorem 1
    (docs/girgis-2021.md#theorem-4-and-the-refined-bound).

    Not in the paper. With m ~ Bin(n-1, e^-eps0) clones, Theorem 4 gives
    eps(alpha) <= 1/(alpha-1) log E_m[ A_{m+1} ], A_k = min(Theorem 5's inner sum at k,
    the single-user bound (e^(alpha eps0) + e^((1-alpha) eps0))/(1 + e^eps0)). A_k is
    nonincreasing in k (Lemma 8), so the m outside a window [lo, hi] are covered by the
    Chernoff bounds P(m <= (1-d) mu) <= exp(-d^2 mu/2), P(m >= (1+d) mu) <= exp(-d^2 mu/(2+d))
    times A at the window's edges; nothing is truncated without its bound.

    Evaluated in float64 log-space over the window with every error bounded and added:
    log-PMF errors (`log_pmf_error`), 1e-10 relative on the sum. Windows wider than 4096
    clone counts are cut into 4096 blocks, each charged A at its smallest count (sound by
    Lemma 8's monotonicity; loosens the value by < 1e-4 relative). Real orders go through
    Remark 2's convex interpolation between the neighbouring integer orders.

    Args:
        alpha: Renyi order, a finite real > 1.
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, an integer >= 1 (n = 1: the single-user bound).

    Returns:
        Result(quantity="renyi", kind=UPPER, direction=MAX, order=alpha), rounded up.

    Raises:
        ParameterError: alpha <= 1 or infinite, epsilon0 <= 0, n < 1.
    """
    _check(alpha=alpha, epsilon0=epsilon0, n=n, integer=False)
    if math.isinf(alpha):
        raise ParameterError("alpha=inf is outside (1, inf) for the refined bound")
    if float(alpha).is_integer() and alpha >= 2:
        value = _refined_integer(alpha=int(alpha), epsilon0=epsilon0, n=n)
        locator = ("Theorem 4 + Theorem 5, evaluated exactly "
                   "(docs/girgis-2021.md#theorem-4-and-the-refined-bound)")
    else:
        with mpmath.workdps(_DIGITS):
            value = _interpolate(lambda **kw: rounding.up(_refined_integer(**kw)),
                                 alpha=alpha, epsilon0=epsilon0, n=n)
        locator = ("Theorem 4 + Theorem 5 (docs/girgis-2021.md#theorem-4-and-the-refined-bound), "
                   "Remark 2 interpolation")
    with mpmath.workdps(_DIGITS):
        return _renyi(value, kind=Kind.UPPER, alpha=alpha, method="rdp_upper_refined",
                      locator=locator)


def _refined_integer(*, alpha: int, epsilon0: float, n: int) -> mpmath.mpf:
    """(1/(alpha-1)) log E_m[A_{m+1}] rounded outward, as an mpf (see rdp_upper_refined)."""
    with mpmath.workdps(_DIGITS):
        log_b1_minus_1 = _single_user_excess_log(alpha=alpha, epsilon0=epsilon0)
        trials = n - 1
        if trials == 0:  # one user: no clones, the single-user bound is exact
            return mpmath.log1p(mpmath.exp(log_b1_minus_1)) / (alpha - 1)
        p = math.exp(-epsilon0)
        mu = trials * p
        # Tail targets: small enough that the tails cost < e^-60 relative to the answer.
        target = 80.0 + max(0.0, float(log_b1_minus_1))
        d_low = math.sqrt(2.0 * target / mu)
        d_up = (target + math.sqrt(target**2 + 8.0 * target * mu)) / (2.0 * mu)
        lo = max(0, math.ceil(mu * (1.0 - d_low)))
        hi = min(trials, math.floor(mu * (1.0 + d_up)))
        m = np.arange(lo, hi + 1, dtype=float)
        if p == 1.0:
            # eps0 < 2^-53: e^-eps0 rounds to 1, so 1 - p is 0 and the first-order model
            # below divides by it (0 * inf = NaN at m = mu). The window's mass is <= 1 and
            # A_{m+1} is nonincreasing in m (Lemma 8): the window contributes at most
            # A_{lo+1}, i.e. one term of weight 1 at m = lo.
            m = m[:1]
            log_w = np.zeros(1)
        else:
            log_w = binomial_logpmf(m, trials, p)
            # Each weight rounded up: the log-PMF's own error, plus the effect of
            # p = e^-eps0 being rounded to float (d log w/dp = (m - mu)/(p(1-p)),
            # |dp| <= 2^-53 p).
            log_w = log_w + log_pmf_error(log_w) + np.abs(m - mu) * 2.0**-52 / (1.0 - p)
        if m.size > _BLOCKS:
            # A_{m+1} is nonincreasing in m (Lemma 8), so on a block of consecutive m the
            # value at the block's first m bounds every term: sum_block w A <= w(block) A_start.
            starts = np.linspace(0, m.size, _BLOCKS, endpoint=False).astype(np.int64)
            top_w = float(np.max(log_w))
            block_w = np.add.reduceat(np.exp(log_w - top_w), starts)
            with np.errstate(divide="ignore"):
                log_w = np.log(block_w) + top_w
            m = m[starts]
        log_a = np.minimum(_log_thm5_excess(alpha=alpha, epsilon0=epsilon0, k=m + 1.0),
                           float(log_b1_minus_1) + 1e-12)
        terms = log_w + log_a
        top = float(np.max(terms))
        window_sum = mpmath.exp(top) * mpmath.mpf(float(np.sum(np.exp(terms - top))))
        tails = mpmath.mpf(0)
        if lo > 0:  # P(m < lo) (A - 1) <= exp(-d^2 mu/2) (B1 - 1)
            tails += mpmath.exp(-mpmath.mpf(d_low) ** 2 * mu / 2 + log_b1_minus_1)
        if hi < trials:  # P(m > hi) (A_{m+1} - 1) <= exp(-d^2 mu/(2+d)) (A_{hi+2} - 1)
            edge = float(_log_thm5_excess(alpha=alpha, epsilon0=epsilon0,
                                          k=np.array([hi + 2.0]))[0])
            tails += mpmath.exp(-mpmath.mpf(d_up) ** 2 * mu / (2 + d_up)
                                + min(edge + 1e-9, float(log_b1_minus_1)))
        # 1e-10 relative covers the float log-space evaluation (see _log_thm5_excess).
        excess = (window_sum + tails) * (1 + mpmath.mpf("1e-10"))
        return mpmath.log1p(excess) / (alpha - 1)


def _log_thm5_excess(*, alpha: int, epsilon0: float, k: np.ndarray) -> np.ndarray:
    """log(T2 + S3) of Theorem 5 at k users (vectorized), plus a margin for float error.

    Each term's log, log C(alpha,j) + log j + lgamma(j/2) + (j/2)(log v - log k), is a
    sum of a few numbers each within a few ulps; 1e-12 (1 + |log term|) covers their error.
    """
    eps = epsilon0
    log_chi = 2.0 * _log_sinh(eps, 0.5)
    log_v = math.log(2.0) + 2.0 * _log_sinh(eps)
    log_k = np.log(k)
    rows = [math.log(math.comb(alpha, 2)) + log_chi - log_k]
    for j in range(3, alpha + 1):
        const = math.log(math.comb(alpha, j)) + math.log(j) + math.lgamma(j / 2.0)
        rows.append(const + (j / 2.0) * (log_v - log_k))
    stacked = np.vstack(rows)
    top = np.max(stacked, axis=0)
    out = top + np.log(np.sum(np.exp(stacked - top), axis=0))
    return out + 1e-12 * (1.0 + np.abs(out)) + 4e-16 * alpha * (1.0 + np.abs(top))


def _lower_moment(*, alpha: float, epsilon0: float, n: int, s: float,
                  backend: str) -> mpmath.mpf:
    """(1/(alpha-1)) log E_k[L^s] as a certified lower value (see _binomial_moments)."""
    if backend == "mp":
        with mpmath.workdps(_DIGITS):
            log_e = moments.log_moment_mp(n=n, epsilon0=epsilon0, s=s, digits=_DIGITS)
            # Window truncation lowers the sum; shave 1e-40 relative for the rounding.
            return log_e * (1 - mpmath.mpf("1e-40")) / (mpmath.mpf(alpha) - 1)
    if backend != "float":
        raise ParameterError(f"backend={backend!r} is outside {{'float', 'mp'}}")
    log_e = moments.log1p_moment_float(n=n, epsilon0=epsilon0, s=s)
    with mpmath.workdps(_DIGITS):
        return (mpmath.mpf(log_e) * (1 - mpmath.mpf(moments.FLOAT_RELATIVE_ERROR))
                / (mpmath.mpf(alpha) - 1))


def rdp_lower_thm3(*, alpha: float, epsilon0: float, n: int, backend: str = "float") -> Result:
    """Lower bound on the worst-case RDP: the forward order of binary RR, exactly.

    Girgis et al. 2021, Theorem 3 (docs/girgis-2021.md#theorem-3-and-corollary-2): with k ~ Bin(n,
    1/(e^eps0+1)) and
    L(k) = (k e^eps0 + (n-k) e^-eps0)/n, eps(alpha) >= 1/(alpha-1) log E_k[L(k)^alpha].
    The paper states integer orders; the identity holds for every real alpha > 1, and this
    function accepts them. It equals the exact Renyi divergence D_alpha(M(D)||M(D')) of the
    special pair (D' all zeros), computed as log1p(E[(1+x)^alpha - 1 - alpha x]) so that
    nothing cancels. backend="float" (fast, certified by FLOAT_RELATIVE_ERROR = 1e-10) or
    "mp" (60-digit mpmath over the mass window).

    Args:
        alpha: Renyi order, a finite real > 1.
        epsilon0: the binary randomizer's parameter, > 0.
        n: number of users, an integer >= 1.
        backend: "float" or "mp".

    Returns:
        Result(quantity="renyi", kind=LOWER, direction=MAX, order=alpha), rounded down: a
        lower bound on the worst case over both orders and all neighbouring pairs.

    Raises:
        ParameterError: alpha <= 1 or infinite, epsilon0 <= 0, n < 1, unknown backend.
    """
    _check(alpha=alpha, epsilon0=epsilon0, n=n, integer=False)
    if math.isinf(alpha):
        raise ParameterError("alpha=inf is outside (1, inf) for Theorem 3 (finite orders)")
    value = _lower_moment(alpha=alpha, epsilon0=epsilon0, n=int(n), s=float(alpha),
                          backend=backend)
    with mpmath.workdps(_DIGITS):
        return _renyi(value, kind=Kind.LOWER, alpha=alpha, method=f"rdp_lower_thm3 ({backend})",
                      locator="Theorem 3 (binary RR, forward order)")


def rdp_lower_reverse(*, alpha: float, epsilon0: float, n: int,
                      backend: str = "float") -> Result:
    """The stronger exact lower bound: binary RR's special pair in the reverse order.

    docs/girgis-2021.md#theorem-3-and-corollary-2 / §5.2 (a correction to Girgis et al. 2021,
    Theorem 3, which uses the weaker
    order): eps(alpha) >= 1/(alpha-1) log E_k[L(k)^(1-alpha)], k ~ Bin(n, 1/(e^eps0+1)).
    This is D_alpha(M(D')||M(D)) with D' all zeros, one binary-RR neighbouring pair, so it
    is a lower bound on the mechanism's RDP. Same numerics as `rdp_lower_thm3`.

    Args:
        alpha: Renyi order, a finite real > 1.
        epsilon0: the binary randomizer's parameter, > 0.
        n: number of users, an integer >= 1.
        backend: "float" or "mp".

    Returns:
        Result(quantity="renyi", kind=LOWER, direction=MAX, order=alpha), rounded down.

    Raises:
        ParameterError: alpha <= 1 or infinite, epsilon0 <= 0, n < 1, unknown backend.
    """
    _check(alpha=alpha, epsilon0=epsilon0, n=n, integer=False)
    if math.isinf(alpha):
        raise ParameterError("alpha=inf is outside (1, inf) for the reverse-order bound")
    value = _lower_moment(alpha=alpha, epsilon0=epsilon0, n=int(n), s=1.0 - float(alpha),
                          backend=backend)
    with mpmath.workdps(_DIGITS):
        return _renyi(value, kind=Kind.LOWER, alpha=alpha,
                      method=f"rdp_lower_reverse ({backend})",
                      locator="Theorem 3's pair in the reverse order "
                              "(docs/girgis-2021.md#theorem-3-and-corollary-2)")


def rdp_lower_cor2(*, alpha: int, epsilon0: float, n: int) -> Result:
    """Corollary 2: eps(alpha) >= 1/(alpha-1) log(1 + C(alpha,2)(e^eps0-1)^2/(n e^eps0)).

    Girgis et al. 2021, Corollary 2 (docs/girgis-2021.md#theorem-3-and-corollary-2): Theorem 3's
    expansion with every j >= 3
    term dropped; valid because the odd central moments of Bin(n, p), p < 1/2, are >= 0
    (the paper's Jensen argument is not valid as written, the claim is). Integer orders.

    Args:
        alpha: Renyi order, an integer >= 2.
        epsilon0: the binary randomizer's parameter, > 0.
        n: number of users, an integer >= 1.

    Returns:
        Result(quantity="renyi", kind=LOWER, direction=MAX, order=alpha), rounded down.

    Raises:
        ParameterError: alpha not an integer >= 2, epsilon0 <= 0, n < 1.
    """
    _check(alpha=alpha, epsilon0=epsilon0, n=n, integer=True)
    alpha = int(alpha)
    with mpmath.workdps(_DIGITS):
        chi = 4 * mpmath.sinh(mpmath.mpf(epsilon0) / 2) ** 2
        value = mpmath.log1p(mpmath.binomial(alpha, 2) * chi / n) / (alpha - 1)
        return _renyi(value, kind=Kind.LOWER, alpha=alpha, method="rdp_lower_cor2",
                      locator="Corollary 2")
