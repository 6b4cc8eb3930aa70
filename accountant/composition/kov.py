"""Approximate-DP composition: the exact optimal k-fold composition of Kairouz, Oh and
Viswanath, and the advanced composition of Dwork, Rothblum and Vadhan for comparison.

[KOV15] Kairouz, Oh, Viswanath, "The Composition Theorem for Differential Privacy",
ICML 2015 / IEEE Trans. IT 2017, Theorem 3.3 (docs/conversions.md#optimal-composition): every (eps,
delta)-DP mechanism
is dominated by the four-outcome pair

    P~ = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0),
    Q~ = (0, (1-delta)/(1+e^eps), (1-delta) e^eps/(1+e^eps), delta),

so the k-fold adaptive composition has exactly the privacy curve of the k-fold product:
    delta'(eps') = 1 - (1-delta)^k (1 - delta_RR(eps')),
    delta_RR(eps') = (1+e^eps)^(-k) sum_l C(k,l) [e^((k-l) eps) - e^(eps') e^(l eps)]_+.
Evaluated in mpmath (50 digits by default), the results are EXACT in the library's sense
(like the mp backend). Heterogeneous (eps_i, delta_i) go through `kov_view_pair` and PLD
composition (`accountant.composition.pld`), since the exact optimum is #P-hard.

[DRV10] Dwork, Rothblum, Vadhan, FOCS 2010, Theorem III.3
(docs/conversions.md#advanced-composition): the k-fold
composition is (sqrt(2k log(1/delta'')) eps + k eps (e^eps - 1), k delta + delta'')-DP.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from accountant.domains import DELTA, EPSILON, Interval
from accountant.errors import ParameterError, RegimeError
from accountant.numeric import rounding
from accountant.pmf import PMF
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = ["delta_kov", "epsilon_kov", "epsilon_drv", "delta_drv", "kov_view_pair"]

# counts are multiplied into floats (T mu^2, T times an RDP curve): beyond 1e12 the
# products lose the float error model, and 10**400 raised OverflowError
_ROUNDS = Interval("rounds", 1, 1e12, closed="both", integer=True,
                   note="counts are multiplied into floats")
_DELTA0 = Interval("delta", 0.0, 1.0, closed="left")
_KOV = Source(citation="Kairouz, Oh, Viswanath, ICML 2015", locator="Theorem 3.3 "
    "(docs/conversions.md#optimal-composition)")
_DRV = Source(citation="Dwork, Rothblum, Vadhan, FOCS 2010",
              locator="Theorem III.3 (docs/conversions.md#advanced-composition)")
_DPS = 50


def _check(epsilon: float, delta: float, rounds: int) -> tuple[float, float, int]:
    EPSILON.check(epsilon)
    _DELTA0.check(delta)
    _ROUNDS.check(rounds)
    return float(epsilon), float(delta), int(rounds)


def _binomial_pld(epsilon: float, rounds: int) -> tuple[list, list, list]:
    """(losses, P-masses, Q-masses) of k-fold binary RR, l = 0..k (losses (k-2l) eps)."""
    e = mpmath.mpf(epsilon)
    log_norm = -rounds * mpmath.log1p(mpmath.exp(e))
    losses, pm, qm = [], [], []
    log_c = mpmath.mpf(0)
    for l_ in range(rounds + 1):
        if l_ > 0:
            log_c += mpmath.log(mpmath.mpf(rounds - l_ + 1) / l_)
        losses.append((rounds - 2 * l_) * e)
        pm.append(mpmath.exp(log_c + (rounds - l_) * e + log_norm))
        qm.append(mpmath.exp(log_c + l_ * e + log_norm))
    return losses, pm, qm


def delta_kov(*, epsilon: float, delta: float, rounds: int, epsilon_total: float,
              dps: int = _DPS) -> Result:
    """delta' at eps' of the k-fold composition of (eps, delta)-DP mechanisms: exact, tight.

    Args:
        epsilon, delta: each mechanism's guarantee (delta may be 0).
        rounds: k >= 1.
        epsilon_total: eps' >= 0 at which delta' is wanted.
    """
    epsilon, delta, rounds = _check(epsilon, delta, rounds)
    EPSILON.named("epsilon_total").check(epsilon_total)
    with mpmath.workdps(dps):
        losses, pm, qm = _binomial_pld(epsilon, rounds)
        et = mpmath.mpf(epsilon_total)
        # p - e^eps' q = q e^eps' expm1(loss - eps'): no cancellation when the losses are tiny
        rr = mpmath.fsum(q * mpmath.exp(et) * mpmath.expm1(loss - et)
                         for loss, q in zip(losses, qm, strict=True) if loss > et)
        log_keep = rounds * mpmath.log1p(-mpmath.mpf(delta))
        # 1 - keep (1 - rr) = (1 - keep) + keep rr, with 1 - keep = -expm1(log keep): at 50
        # digits the plain form cancelled every value below ~1e-35 to 0
        value = -mpmath.expm1(log_keep) + mpmath.exp(log_keep) * max(rr, mpmath.mpf(0))
    return Result(quantity="delta", value=value, kind=Kind.EXACT, direction=Direction.MAX,
                  method=f"composition.kov.delta_kov(epsilon={epsilon}, delta={delta}, "
                         f"rounds={rounds})", source=_KOV, at=float(epsilon_total))


def epsilon_kov(*, epsilon: float, delta: float, rounds: int, delta_total: float,
                dps: int = _DPS) -> Result:
    """eps' at delta' of the k-fold composition: the exact inversion of
    docs/divergences.md#exact-inversion on the
    binomial PLD (infinite-loss atom 1 - (1-delta)^k, losses (k-2l) eps)."""
    epsilon, delta, rounds = _check(epsilon, delta, rounds)
    DELTA.named("delta_total").check(delta_total)
    with mpmath.workdps(dps):
        losses, pm, qm = _binomial_pld(epsilon, rounds)
        log_keep = rounds * mpmath.log1p(-mpmath.mpf(delta))
        keep = mpmath.exp(log_keep)
        target = mpmath.mpf(delta_total)
        a = -mpmath.expm1(log_keep)  # infinite-loss mass 1 - keep, without cancellation
        b = mpmath.mpf(0)
        value = mpmath.mpf(0) if a <= target else mpmath.inf
        if a <= target:
            for j, loss in enumerate(losses):
                if loss <= 0:
                    break
                a += keep * pm[j]
                b += keep * qm[j]
                if a > target:
                    value = max(value, mpmath.log((a - target) / b))
    return Result(quantity="epsilon", value=value, kind=Kind.EXACT, direction=Direction.MAX,
                  method=f"composition.kov.epsilon_kov(epsilon={epsilon}, delta={delta}, "
                         f"rounds={rounds})", source=_KOV, at=float(delta_total))


def epsilon_drv(*, epsilon: float, delta: float, rounds: int, delta_total: float) -> Result:
    """eps' = sqrt(2k log(1/delta'')) eps + k eps (e^eps - 1) with delta'' = delta' - k delta.

    Raises RegimeError when k delta >= delta' (no room for delta'').
    """
    epsilon, delta, rounds = _check(epsilon, delta, rounds)
    DELTA.named("delta_total").check(delta_total)
    # delta'' = delta' - k delta exactly (Fraction), then rounded down: a float subtraction
    # loses everything when k delta is close to delta' (issue 16).
    exact_slack = Fraction(delta_total) - rounds * Fraction(delta)
    if exact_slack <= 0:
        raise RegimeError(f"composition.kov.epsilon_drv needs delta_total > rounds*delta "
                          f"(Dwork-Rothblum-Vadhan 2010, Thm III.3); got delta_total="
                          f"{delta_total}, rounds*delta={rounds * delta}")
    slack = rounding.down(exact_slack)
    if slack <= 0:  # below the float range
        log_inv = -float(mpmath.log(mpmath.mpf(exact_slack.numerator)
                                    / exact_slack.denominator))
    else:
        log_inv = -math.log(slack)
    u = rounding.UNIT_ROUNDOFF
    # each factor rounded up by a few ulps: log, product, sqrt, expm1, products, sum
    value = (math.sqrt(2 * rounds * log_inv * (1 + 4 * u)) * epsilon
             + rounds * epsilon * math.expm1(epsilon))
    return Result(quantity="epsilon", value=rounding.up(value * (1 + 16 * u)),
                  kind=Kind.UPPER, direction=Direction.MAX,
                  method=f"composition.kov.epsilon_drv(delta''={slack:.3g})", source=_DRV,
                  at=float(delta_total))


def delta_drv(*, epsilon: float, delta: float, rounds: int, epsilon_total: float) -> Result:
    """k delta + delta'' with delta'' solved from eps' (1 when eps' <= k eps (e^eps - 1))."""
    epsilon, delta, rounds = _check(epsilon, delta, rounds)
    EPSILON.named("epsilon_total").check(epsilon_total)
    u = rounding.UNIT_ROUNDOFF
    # room = eps' - k eps (e^eps - 1) rounded down (expm1 raised by 2u, exact products)
    room = rounding.down(Fraction(epsilon_total) - rounds * Fraction(epsilon)
                         * Fraction(math.expm1(epsilon) * (1 + 2 * u)))
    if room <= 0 or epsilon == 0:
        value = 1.0 if epsilon > 0 else min(1.0, rounding.up(rounds * Fraction(delta)))
    else:
        log_inv = (room / epsilon) ** 2 / (2 * rounds) * (1 - 8 * u)
        value = min(1.0, rounding.up((rounding.up(rounds * Fraction(delta))
                                      + math.exp(-log_inv)) * (1 + 8 * u)))
    return Result(quantity="delta", value=value, kind=Kind.UPPER, direction=Direction.MAX,
                  method="composition.kov.delta_drv", source=_DRV, at=float(epsilon_total))


def kov_view_pair(*, epsilon: float, delta: float) -> ViewPair:
    """The dominating four-outcome pair (P~, Q~) of an (eps, delta)-DP mechanism (float).

    The losses are exactly +inf, eps, -eps, -inf; they are supplied in closed form so that
    PLD discretization sees them without rounding error.
    """
    EPSILON.check(epsilon)
    _DELTA0.check(delta)
    if delta >= 1:
        raise ParameterError(f"delta={delta!r} is outside [0, 1)")

    log_keep = math.log1p(-delta)
    hi = log_keep - float(np.logaddexp(0.0, -epsilon))   # log((1-d) e^e/(1+e^e))
    lo = log_keep - float(np.logaddexp(0.0, epsilon))    # log((1-d)/(1+e^e))
    log_d = math.log(delta) if delta > 0 else -math.inf
    p = np.array([log_d, hi, lo, -math.inf])
    q = np.array([-math.inf, lo, hi, log_d])
    err = 8 * rounding.UNIT_ROUNDOFF * (1 + abs(epsilon))
    P = PMF("float", (0,), p, 0.0, err, True)
    Q = PMF("float", (0,), q, 0.0, err, True)

    def loss(coords: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        table = np.array([math.inf, epsilon, -epsilon, -math.inf])
        return table[coords[0]], np.zeros(coords[0].shape)

    return ViewPair.from_pmfs(P, Q, loss=loss, residual_loss_bound=0.0,
                              description={"pair": "KOV dominating pair", "epsilon": epsilon,
                                           "delta": delta})
