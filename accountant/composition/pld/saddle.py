"""A float guess of a long self-composition's epsilon(delta) from one round's measure, by the
saddle point (docs/conversions.md#saddle-point-guesses): where tilted squarings are
aimed, without composing anything. Never a bound: every reading is certified elsewhere.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfcx, logsumexp

from accountant.composition.pld.measure import LossPmf

_SQRT2 = math.sqrt(2.0)


def _log_half_erfcx(x: float) -> float:
    """log of G(x) = e^(x^2/2) P[Z > x] = erfcx(x / sqrt 2) / 2, finite for every x >= 0."""
    return math.log(0.5 * float(erfcx(x / _SQRT2)))


def saddle_epsilon(pmf: LossPmf, rounds: int, delta: float) -> float | None:
    """A float guess of inf{eps: H_T(eps) <= delta} for the `rounds`-fold composition of
    `pmf` (its finite masses and +inf atom), or None where the approximation does not apply
    (one loss only, or delta above the value at the mean loss).

    With K(lam) = log sum_i m_i e^(lam l_i) over the finite atoms, the composed measure
    tilted by lam has mean eps = T K'(lam) and variance s^2 = T K''(lam); taking it normal
    there, H_T(eps) = e^(T K - lam eps) E_lam[(1 - e^-(L - eps)) e^(-lam (L - eps)); L > eps]
    = e^(T K - lam eps) (G(lam s) - G((lam + 1) s)), G(x) = e^(x^2/2) P[Z > x]. The tilt is
    found by bisection on lam > 0 (eps grows with lam); the composed +inf atom,
    (f + p_inf)^T - f^T with f the finite mass, is taken from delta first.

    At 1e9 rounds of 10-ary randomized response (n = 1000, eps0 = 5) on a 0.05 grid it
    gave 164178854 where composing the same measure (7.6e6 cells, 8 s) gave 164178866.
    """
    live = pmf.mass > 0
    if not np.any(live):
        return None
    losses = (np.flatnonzero(live) + pmf.offset) * pmf.width
    log_m = np.log(pmf.mass[live])
    finite = float(np.sum(pmf.mass))
    infinity = 0.0
    if pmf.infinity > 0:
        infinity = math.exp(rounds * math.log(finite)) * math.expm1(
            rounds * math.log1p(pmf.infinity / finite))
    if infinity >= delta:
        return math.inf
    target = math.log(delta - infinity)

    def at(lam: float) -> tuple[float, float]:
        """(eps, log H_T(eps)) of the tilt lam."""
        a = log_m + lam * losses
        k = float(logsumexp(a))
        w = np.exp(a - k)
        mean = float(w @ losses)
        var = float(w @ (losses - mean) ** 2)
        eps, s = rounds * mean, math.sqrt(rounds * max(var, 0.0))
        g0, g1 = _log_half_erfcx(lam * s), _log_half_erfcx((lam + 1) * s)
        if not g1 < g0:
            return eps, -math.inf
        return eps, rounds * k - lam * eps + g0 + math.log1p(-math.exp(g1 - g0))

    if losses.size < 2 or at(0.0)[1] <= target:
        return None
    lo, hi = 0.0, 1.0
    while at(hi)[1] > target:
        lo, hi = hi, 2 * hi
        if hi > 2.0 ** 60:
            return None
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if at(mid)[1] > target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return at(hi)[0]
