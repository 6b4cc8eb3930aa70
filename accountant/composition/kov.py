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
Up to `MP_ROUNDS` rounds the sum runs over every term in mpmath (50 digits by default) and
the results are EXACT in the library's sense (like the mp backend). Beyond, it runs in float
numpy over a certified window of Bin(k, 1/(1+e^eps)) (the law of the number of "-eps"
rounds; the mass outside bounded by `numeric.tails`), with every term's float error bounded
(log-PMF error model, the rounding of 1/(1+e^eps), of the losses and of the sums): the
result is an EXACT ball, `value` -+ `radius` holding the truth (docs/conversions.md#optimal-
composition, "float path"), about 1e-12 relative wide, in O(sqrt(k log(1/tail))) time.
Heterogeneous (eps_i, delta_i) go through `kov_view_pair` and PLD
composition (`accountant.composition.pld`), since the exact optimum is #P-hard.

[DRV10] Dwork, Rothblum, Vadhan, FOCS 2010, Theorem III.3
(docs/conversions.md#advanced-composition): the k-fold
composition is (sqrt(2k log(1/delta'')) eps + k eps (e^eps - 1), k delta + delta'')-DP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from accountant.domains import DELTA, EPSILON, Interval, checked
from accountant.errors import ParameterError, RegimeError
from accountant.numeric import rounding
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.numeric.tails import binomial_log_window
from accountant.pmf import PMF
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = ["delta_kov", "epsilon_kov", "epsilon_drv", "delta_drv", "kov_view_pair",
           "kov_delta_bounds", "MP_ROUNDS", "BACKENDS"]

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


# the mpmath loop costs ~40 us per term (40 s at k = 1e6); below this count it is cheap
# (<0.1 s) and gives plain EXACT values, above it the float window takes over
MP_ROUNDS = 2000
BACKENDS = ("mp", "float")
# beyond this epsilon e^eps overflows and p = 1/(1 + e^eps) underflows: the mp path serves
_FLOAT_EPSILON = 700.0
_U = rounding.UNIT_ROUNDOFF
# relative error of numpy's exp and of libm's log/log1p/expm1, in units of u (numpy's SIMD
# exp is documented within 4 ulp; libm's within 1-2): a margin, not a measurement
_ULPS = 4.0


def _backend(backend: str | None, rounds: int) -> str:
    if backend is None:
        return "mp" if rounds <= MP_ROUNDS else "float"
    if backend not in BACKENDS:
        raise ParameterError(f"backend={backend!r} is outside {{'mp', 'float'}}")
    return backend


def _log_sum_bounds(logs_lo: np.ndarray, logs_hi: np.ndarray) -> tuple[float, float]:
    """Certified (lower, upper) logs of sum_i exp(t_i) given lo_i <= t_i <= hi_i.

    Each sum is formed as m + log(sum exp(x_i - m)): the subtraction errs by u |x_i - m|,
    numpy's exp by `_ULPS` u, the pairwise sum by `rounding.sum_relative_error`, the final
    log and addition by a few u of their magnitudes; all of it is added to (subtracted from)
    the log with a factor 2 of margin.
    """
    out = []
    for logs, sign in ((logs_lo, -1), (logs_hi, +1)):
        live = logs[np.isfinite(logs)] if logs.size else logs
        if live.size == 0:
            out.append(-math.inf)
            continue
        m = float(np.max(live))
        d = live - m
        s = float(np.sum(np.exp(d)))
        rel = _U * float(np.max(-d)) + 2 * _ULPS * _U + rounding.sum_relative_error(live.size)
        ls = math.log(s)
        slack = 2 * (rel + _ULPS * _U * (abs(m) + abs(ls) + 1))
        out.append(m + ls + sign * slack)
    return out[0], out[1]


def _exp_bounds(log_lo: float, log_hi: float) -> tuple[float, float]:
    """(exp(log_lo) rounded down, exp(log_hi) rounded up): exp's ulps covered, an upper end
    that underflows is the least subnormal, never 0."""
    lo = 0.0 if log_lo == -math.inf else max(0.0, math.exp(log_lo) * (1 - 2 * _ULPS * _U))
    if log_hi == -math.inf:
        return lo, 0.0
    hi = math.exp(log_hi) * (1 + 2 * _ULPS * _U)
    return lo, max(math.nextafter(hi, math.inf), 5e-324)


@dataclass(frozen=True, slots=True)
class _FloatPld:
    """The k-fold binary-RR PLD in float: P-mass of "l rounds at -eps" is Bin(k, p)(l) with
    p = 1/(1+e^eps), loss (k - 2l) eps; plus the +inf atom 1 - (1-delta)^k, kept apart.

    Attributes:
        epsilon, rounds: the composed guarantee and k.
        prob: p rounded to a float (relative error <= `prob_error`).
        prob_error: the bound on |fl(p) - p| / p.
        keep_lo, keep_hi: (1-delta)^k enclosed.
        infinity_lo, infinity_hi: 1 - (1-delta)^k enclosed.
    """

    epsilon: float
    rounds: int
    prob: float
    prob_error: float
    keep_lo: float
    keep_hi: float
    infinity_lo: float
    infinity_hi: float

    @classmethod
    def of(cls, epsilon: float, delta: float, rounds: int) -> _FloatPld:
        # p = 1/(1 + e^eps): exp, the addition and the division each err by <= _ULPS u
        prob = 1.0 / (1.0 + math.exp(epsilon))
        prob_error = 4 * _ULPS * _U
        if delta == 0:
            return cls(epsilon, rounds, prob, prob_error, 1.0, 1.0, 0.0, 0.0)
        log_keep = rounds * math.log1p(-delta)   # log1p's ulps, one product: relative
        slack = 2 * _ULPS * _U * abs(log_keep) + 1e-300
        lk_lo, lk_hi = log_keep - slack, min(log_keep + slack, 0.0)
        keep_lo = math.exp(lk_lo) * (1 - 2 * _ULPS * _U)
        keep_hi = min(1.0, math.exp(lk_hi) * (1 + 2 * _ULPS * _U))
        inf_lo = max(0.0, -math.expm1(lk_hi) * (1 - 2 * _ULPS * _U))
        inf_hi = min(1.0, math.nextafter(-math.expm1(lk_lo) * (1 + 2 * _ULPS * _U), 2.0))
        return cls(epsilon, rounds, prob, prob_error, keep_lo, keep_hi, inf_lo, inf_hi)

    def log_masses(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(l, log P lower, log P upper) on first..last: the log-PMF error model plus the
        rounding of p, |d log Bin(k, p)(l) / dp| |dp| = |l - kp| / (1 - p) relative error."""
        ls = np.arange(first, last + 1, dtype=float)
        logs = binomial_logpmf(ls, self.rounds, self.prob)
        err = (log_pmf_error(logs)
               + 1.01 * self.prob_error * np.abs(ls - self.rounds * self.prob) / (1 - self.prob))
        return ls, logs - err, logs + err

    def rr_bounds(self, epsilon_total: float) -> tuple[float, float]:
        """Enclosure of delta_RR(eps') = sum_l P(l) [1 - e^(eps' - loss_l)]_+.

        Only the terms with loss > eps' count, so the sum is cut on the right exactly
        (l <= about (k - eps'/eps)/2); on the left and beyond the window of Bin(k, p) it is
        cut with the window's certified outside mass (each term is at most P(l)), which is
        added to the upper end. The window is widened until that mass is below 1e-16 of the
        sum (or the sum is below the float range).
        """
        k, eps = self.rounds, self.epsilon
        top = min(k, math.floor((k - epsilon_total / eps) / 2) + 2) if eps > 0 else -1
        if top < 0:
            return 0.0, 0.0
        log_tail = -40.0
        lo_log = hi_log = -math.inf
        log_out = 0.0
        for _ in range(12):
            first, last, log_out = binomial_log_window(k, self.prob, log_tail)
            last = min(last, top)
            if last >= first:
                ls, lp_lo, lp_hi = self.log_masses(first, last)
                loss = (k - 2 * ls) * eps            # one rounding: <= u |loss|
                x = epsilon_total - loss             # one more: <= u |x|
                dx = 2 * _U * (np.abs(loss) + np.abs(epsilon_total)) + 1e-300
                with np.errstate(divide="ignore", invalid="ignore"):
                    # log(1 - e^y) for y < 0, y moved by dx toward the unsafe side; the
                    # log's and expm1's ulps as a relative margin
                    f_hi = np.where(x - dx < 0, np.log(-np.expm1(np.minimum(x - dx, 0.0)))
                                    + 2 * _ULPS * _U, -math.inf)
                    f_lo = np.where(x + dx < 0, np.log(-np.expm1(np.minimum(x + dx, -1e-300)))
                                    - 2 * _ULPS * _U, -math.inf)
                lo_log, hi_log = _log_sum_bounds(lp_lo + f_lo, lp_hi + f_hi)
            # stop once the cut mass is below 1e-16 of the sum: it is then inside the radius
            if log_out < lo_log - 37.0 or log_out == -math.inf:
                break
            if lo_log == -math.inf and log_out < -745.0:
                break   # nothing in the float range: the answer is 0 up to the cut mass
            log_tail = min(lo_log - 40.0, 2.0 * log_tail) if lo_log > -math.inf \
                else 2.0 * log_tail
        lo, hi = _exp_bounds(lo_log, hi_log)
        out_hi = _exp_bounds(-math.inf, log_out)[1] if log_out > -math.inf else 0.0
        return lo, min(1.0, rounding.up((hi + out_hi) * (1 + 2 * _U)))

    def delta_bounds(self, epsilon_total: float) -> tuple[float, float]:
        """(lower, upper) of delta'(eps') = (1 - keep) + keep delta_RR(eps')."""
        rr_lo, rr_hi = self.rr_bounds(epsilon_total)
        lo = rounding.down((self.infinity_lo + self.keep_lo * rr_lo) * (1 - 4 * _U))
        hi = rounding.up((self.infinity_hi + self.keep_hi * rr_hi) * (1 + 4 * _U))
        return max(0.0, lo), min(1.0, hi)

    def epsilon_guess(self, delta_total: float) -> float:
        """eps'(delta') by the exact inversion on the window's atoms, in float (a starting
        point only: `epsilon_bounds` certifies around it)."""
        k, eps = self.rounds, self.epsilon
        infinity = 0.5 * (self.infinity_lo + self.infinity_hi)
        if infinity > delta_total:
            return math.inf
        first, last, _ = binomial_log_window(k, self.prob,
                                             max(math.log(delta_total) - 40.0, -2e4))
        last = min(last, (k - 1) // 2)       # positive losses only
        if last < first:
            return 0.0
        ls = np.arange(first, last + 1, dtype=float)
        logs = binomial_logpmf(ls, k, self.prob)
        log_keep = math.log(0.5 * (self.keep_lo + self.keep_hi))
        la = np.logaddexp.accumulate(logs) + log_keep
        if infinity > 0:
            la = np.logaddexp(la, math.log(infinity))
        lb = np.logaddexp.accumulate(logs - (k - 2 * ls) * eps) + log_keep
        ok = la > math.log(delta_total)
        if not np.any(ok):
            return 0.0
        with np.errstate(divide="ignore"):
            cand = la[ok] + np.log(-np.expm1(math.log(delta_total) - la[ok])) - lb[ok]
        return max(0.0, float(np.max(cand)))

    def epsilon_bounds(self, delta_total: float) -> tuple[float, float]:
        """(lower, upper) of eps'(delta'): upper = an eps whose certified upper delta is
        <= delta' (the truth is then at most it), lower = one whose certified lower delta
        exceeds delta' (the truth is then above it), or 0."""
        if self.infinity_lo > delta_total:
            return math.inf, math.inf
        top = self.rounds * self.epsilon      # beyond it only the +inf atom is left
        if self.infinity_hi > delta_total:
            # undecidable at float precision: the +inf atom alone may exceed delta'
            return top if self.delta_bounds(top)[0] > delta_total else 0.0, math.inf
        if self.delta_bounds(0.0)[1] <= delta_total:
            return 0.0, 0.0
        guess = min(self.epsilon_guess(delta_total), top)
        step = 1e-11 * max(guess, 1e-3)
        up = guess + step
        while self.delta_bounds(up)[1] > delta_total:
            if up >= top:
                up = math.inf
                break
            step *= 4
            up = min(guess + step, top)
        step = 1e-11 * max(guess, 1e-3)
        low = guess - step
        while low > 0 and not self.delta_bounds(low)[0] > delta_total:
            step *= 4
            low = guess - step
        low = max(0.0, low)
        # the steps above overshoot by up to 4x: bisect while the middle is decided, so the
        # ball is as narrow as the delta enclosures allow (ill-conditioned eps' included)
        for _ in range(40):
            if not (math.isfinite(up) and up - low > 1e-13 * up):
                break
            mid = low + 0.5 * (up - low)
            lo_mid, hi_mid = self.delta_bounds(mid)
            if hi_mid <= delta_total:
                up = mid
            elif lo_mid > delta_total:
                low = mid
            else:
                break
        return low, up


def kov_delta_bounds(*, epsilon: float, delta: float, rounds: int,
                     epsilon_total: float) -> tuple[float, float]:
    """Certified (lower, upper) floats of the KOV delta'(eps'), by the float window.

    Args:
        epsilon: each mechanism's epsilon, >= 0.
        delta: each mechanism's delta, in [0, 1).
        rounds: k >= 1.
        epsilon_total: eps' >= 0.

    Returns:
        (lower, upper) with lower <= delta'(eps') <= upper, from the float window
        (module docstring); O(sqrt(k)) work.
    """
    epsilon, delta, rounds = _check(epsilon, delta, rounds)
    EPSILON.named("epsilon_total").check(epsilon_total)
    return _FloatPld.of(epsilon, delta, rounds).delta_bounds(float(epsilon_total))


def _ball(low: float, high: float, **fields: Any) -> Result:
    """An EXACT Result holding the truth in [low, high]: midpoint and radius, the radius
    rounded up so that value -+ radius covers both ends (checked in Fractions)."""
    if not math.isfinite(high) or low == high:
        if math.isinf(low) or low == high:
            return Result(value=high, kind=Kind.EXACT, **fields)
        return Result(value=high, kind=Kind.UPPER, **fields)
    mid = low + 0.5 * (high - low)
    radius = rounding.up(max(Fraction(high) - Fraction(mid), Fraction(mid) - Fraction(low)))
    return Result(value=mid, kind=Kind.EXACT, radius=radius, precision=53, **fields)


@checked(epsilon=EPSILON, delta=_DELTA0, rounds=_ROUNDS,
         epsilon_total=EPSILON.named("epsilon_total"))
def delta_kov(*, epsilon: float, delta: float, rounds: int, epsilon_total: float,
              dps: int = _DPS, backend: str | None = None) -> Result:
    """delta' at eps' of the k-fold composition of (eps, delta)-DP mechanisms: exact, tight.

    Args:
        epsilon: each mechanism's epsilon, >= 0.
        delta: each mechanism's delta, in [0, 1) (may be 0).
        rounds: k >= 1.
        epsilon_total: eps' >= 0 at which delta' is wanted.
        dps: decimal digits of the mpmath path.
        backend: "mp" (every term in mpmath: O(k), 40 s at k = 1e6), "float" (the certified
            window: O(sqrt(k))), or None: "mp" up to `MP_ROUNDS` rounds, else "float".

    Returns:
        An EXACT Result: a plain value from "mp"; from "float" a ball, value -+ radius
        holding the truth (radius about 1e-12 relative).

    Raises:
        ParameterError: an argument outside its domain, or an unknown backend.
    """
    epsilon, delta, rounds = float(epsilon), float(delta), int(rounds)
    method = (f"composition.kov.delta_kov(epsilon={epsilon}, delta={delta}, "
              f"rounds={rounds})")
    if _backend(backend, rounds) == "float" and epsilon <= _FLOAT_EPSILON:
        low, high = _FloatPld.of(epsilon, delta, rounds).delta_bounds(float(epsilon_total))
        return _ball(low, high, quantity="delta", direction=Direction.MAX,
                     method=method + " float window", source=_KOV, at=float(epsilon_total))
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
                  method=method, source=_KOV, at=float(epsilon_total))


@checked(epsilon=EPSILON, delta=_DELTA0, rounds=_ROUNDS,
         delta_total=DELTA.named("delta_total"))
def epsilon_kov(*, epsilon: float, delta: float, rounds: int, delta_total: float,
                dps: int = _DPS, backend: str | None = None) -> Result:
    """eps' at delta' of the k-fold composition: the exact inversion of
    docs/divergences.md#exact-inversion on the
    binomial PLD (infinite-loss atom 1 - (1-delta)^k, losses (k-2l) eps).

    Args:
        epsilon: each mechanism's epsilon, >= 0.
        delta: each mechanism's delta, in [0, 1) (may be 0).
        rounds: k >= 1.
        delta_total: delta' in (0, 1) at which eps' is wanted.
        dps: decimal digits of the mpmath path.
        backend: as for `delta_kov`.

    Returns:
        An EXACT Result: a plain value from "mp"; from "float" a ball whose upper end is an
        eps with certified delta'(eps) <= delta_total and whose lower end is an eps with
        certified delta'(eps) > delta_total (or 0). An UPPER +inf when the +inf atom may
        exceed delta_total but float precision cannot decide.

    Raises:
        ParameterError: an argument outside its domain, or an unknown backend.
    """
    epsilon, delta, rounds = float(epsilon), float(delta), int(rounds)
    method = (f"composition.kov.epsilon_kov(epsilon={epsilon}, delta={delta}, "
              f"rounds={rounds})")
    if _backend(backend, rounds) == "float" and epsilon <= _FLOAT_EPSILON:
        low, high = _FloatPld.of(epsilon, delta, rounds).epsilon_bounds(float(delta_total))
        return _ball(low, high, quantity="epsilon", direction=Direction.MAX,
                     method=method + " float window", source=_KOV, at=float(delta_total))
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
                  method=method, source=_KOV, at=float(delta_total))


@checked(epsilon=EPSILON, delta=_DELTA0, rounds=_ROUNDS,
         delta_total=DELTA.named("delta_total"))
def epsilon_drv(*, epsilon: float, delta: float, rounds: int, delta_total: float) -> Result:
    """eps' = sqrt(2k log(1/delta'')) eps + k eps (e^eps - 1) with delta'' = delta' - k delta.

    Raises RegimeError when k delta >= delta' (no room for delta'').
    """
    epsilon, delta, rounds = float(epsilon), float(delta), int(rounds)
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
    # e^eps overflows beyond 709: the bound is +inf there (basic composition, k eps, is
    # always below it; the accountant's comparison once died on an OverflowError)
    growth = math.expm1(epsilon) if epsilon < 709 else math.inf
    value = (math.sqrt(2 * rounds * log_inv * (1 + 4 * u)) * epsilon
             + rounds * epsilon * growth)
    return Result(quantity="epsilon", value=rounding.up(value * (1 + 16 * u)),
                  kind=Kind.UPPER, direction=Direction.MAX,
                  method=f"composition.kov.epsilon_drv(delta''={slack:.3g})", source=_DRV,
                  at=float(delta_total))


@checked(epsilon=EPSILON, delta=_DELTA0, rounds=_ROUNDS,
         epsilon_total=EPSILON.named("epsilon_total"))
def delta_drv(*, epsilon: float, delta: float, rounds: int, epsilon_total: float) -> Result:
    """k delta + delta'' with delta'' solved from eps' (1 when eps' <= k eps (e^eps - 1))."""
    epsilon, delta, rounds = float(epsilon), float(delta), int(rounds)
    u = rounding.UNIT_ROUNDOFF
    # room = eps' - k eps (e^eps - 1) rounded down (expm1 raised by 2u, exact products);
    # beyond eps = 709, eps e^eps exceeds every float eps': no room (expm1 overflowed)
    room = rounding.down(Fraction(epsilon_total) - rounds * Fraction(epsilon)
                         * Fraction(math.expm1(epsilon) * (1 + 2 * u))) if epsilon < 709 \
        else -1.0
    if room <= 0 or epsilon == 0:
        value = 1.0 if epsilon > 0 else min(1.0, rounding.up(rounds * Fraction(delta)))
    else:
        # (room / eps)^2 overflows past 1e154: e^-log_inv is 0 there
        ratio = room / epsilon
        log_inv = ratio * ratio / (2 * rounds) * (1 - 8 * u) if ratio < 1e150 else math.inf
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
