"""The exact RDP curve of the Poisson-subsampled Gaussian mechanism (add-or-remove-one),
certified by ball arithmetic and rounded up.

Reference: Mironov, Talwar, Zhang, "Renyi Differential Privacy of the Sampled Gaussian
Mechanism", arXiv:1908.10530 (2019) [MTZ19].

Setting: noise multiplier sigma (standard deviation over the l2 sensitivity), Poisson rate q,
mu0 = N(0, sigma^2), mu1 = N(1, sigma^2), mu = (1 - q) mu0 + q mu1. [MTZ19] Sec. 3 reduces
the mechanism to this one-dimensional pair: it is (alpha, eps)-RDP with
eps = log(max(A_alpha, B_alpha)) / (alpha - 1), A_alpha = E_mu0[(mu/mu0)^alpha] (the
divergence D_alpha(mu || mu0)) and B_alpha = E_mu[(mu0/mu)^alpha], and shows
A_alpha >= B_alpha for alpha >= 1, so the curve is log(A_alpha) / (alpha - 1).
(tests/composition/test_sampled_gaussian.py checks A_alpha >= B_alpha by quadrature.)

A_alpha = E_mu0[(1 - q + q e^((2z - 1)/(2 sigma^2)))^alpha], evaluated as in [MTZ19] Sec. 3.3:

- Case I, integer alpha: the binomial theorem and E_mu0[e^(k z / sigma^2)] = e^(k^2/(2 sigma^2))
  give the finite sum A = sum_k C(alpha, k) (1-q)^(alpha-k) q^k e^((k^2-k)/(2 sigma^2)). We sum
  A - 1 = sum_{k>=2} C(alpha, k) (1-q)^(alpha-k) q^k expm1((k^2-k)/(2 sigma^2)) instead: every
  term is >= 0, so nothing cancels however small q is.
- Case II, fractional alpha: split the line at z0 = sigma^2 log(1/q - 1) + 1/2, where
  x(z) = q e^((2z-1)/(2 sigma^2)) / (1-q) equals 1, and expand (1 + x)^alpha in powers of x
  left of z0 and of 1/x right of it. Term i of the two series is
  C(alpha, i) q^i (1-q)^(alpha-i) e^((i^2-i)/(2 sigma^2)) erfc((i - z0)/(sqrt(2) sigma))/2
  plus C(alpha, i) q^(alpha-i) (1-q)^i e^((j^2-j)/(2 sigma^2)) erfc((z0 - j)/(sqrt(2) sigma))/2
  with j = alpha - i.

Error ledger (everything is a proved enclosure; nothing is estimated):

1. Arithmetic: every operation, exp, log and erfc is evaluated in python-flint's arb ball
   arithmetic, whose radii are proven; sigma, q and alpha are floats and enter exactly.
   The working precision grows (from an estimate of log2(A - 1), doubling up to
   `MAX_PREC` bits) until the relative radius of the RDP value is below 2^-70; a wider
   ball is still an enclosure, only a looser one.
2. Truncation (fractional alpha only): the terms i = 0..N are summed, N > floor(alpha). For
   n > alpha, C(alpha, n) alternates in sign and
   |C(alpha, n)| = (|sin(pi alpha)|/pi) int_0^1 t^(n-alpha-1) (1-t)^alpha dt, and term n is
   C(alpha, n) times (1-q)^alpha int_{z<=z0} x^n dmu0 + q^alpha int_{z>z0} e^(alpha(2z-1)/
   (2 sigma^2)) x^(-n) dmu0, with x <= 1, resp. 1/x <= 1, on each range. So the magnitudes
   b_k = |term N+1+k| are moments int s^k dnu(s) of one positive measure nu on [0, 1], and
   the tail is sign(C(alpha, N+1)) int dnu(s)/(1+s). Euler's transform
   1/(1+s) = sum_{m<M} (1-s)^m/2^(m+1) + r_M(s), 0 <= r_M(s) <= (1-s)^M/2^M, puts the tail
   in sign * [S_M, S_M + Delta^M b_0/2^M], S_M = sum_{m<M} Delta^m b_0/2^(m+1), where the
   forward differences Delta^m b_0 = int (1-s)^m dnu >= 0 are computed from b_0..b_M. That
   interval, not an estimate, enters the ball of A.
3. Conversion: RDP = log(A)/(alpha - 1) in the same arithmetic (log1p of A - 1 for integer
   orders); the ball's upper end is converted exactly to a rational and rounded up to a float
   (`accountant.numeric.rounding.up`).

q = 1 is the Gaussian mechanism itself: alpha / (2 sigma^2) ([Mir17] Table II), rounded up.
alpha = inf gives inf (the sampled Gaussian has no pure-DP bound).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb, ctx

from accountant.composition.noise import NOISE_MULTIPLIER
from accountant.composition.rdp import RdpCurve
from accountant.domains import ALPHA, SAMPLING_RATE, checked
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric import rounding
from accountant.numeric.mp import arb_upper
from accountant.result import Source

__all__ = ["sampled_gaussian_rdp_curve", "sampled_gaussian_rdp", "sampled_gaussian_rdp_ball",
           "SAMPLED_GAUSSIAN_ORDERS", "MAX_PREC"]

# The peers' grid (dp_accounting's DEFAULT_RDP_ORDERS: 1.1..10.9 by 0.1, 11..63, 128..1024;
# Opacus: 1.1..10.9 by 0.1, 12..63) with 1.05, 64 and a few large orders added: the optimum
# of long DP-SGD runs is often fractional (7.8 for sigma = 1, q = 0.01, 1000 steps,
# delta = 1e-5), and the chord between two integers is no substitute for the value there.
SAMPLED_GAUSSIAN_ORDERS: tuple[float, ...] = tuple(sorted(
    {1.05} | {1.0 + x / 10.0 for x in range(1, 100)} | {float(a) for a in range(11, 65)}
    | {80.0, 96.0, 128.0, 192.0, 256.0, 512.0, 1024.0}))

# the largest working precision tried (bits): past it a loose ball is returned as it is
MAX_PREC = 1 << 14
_TARGET = 2.0 ** -70     # relative radius of the RDP value at which we stop refining
_FIRST_TAIL = 24         # terms beyond floor(alpha) summed before the tail's enclosure
_FIRST_EULER = 48        # M: Euler-transform steps of the tail enclosure

_MTZ = Source(citation="Mironov, Talwar, Zhang, arXiv:1908.10530 (2019)",
              locator="Sec. 3 (the add/remove RDP is log(A_alpha)/(alpha-1)) and "
                      "Sec. 3.3 (integer and fractional alpha); truncated tail enclosed by "
                      "Euler's transform, ball arithmetic, rounded up")


def _check_orders(orders: Any) -> None:
    """Orders: a nonempty, strictly increasing sequence in (1, inf]."""
    try:
        values = tuple(orders)
    except TypeError:
        raise ParameterError(f"orders={orders!r} is not a sequence of Renyi orders in "
                             f"{ALPHA.describe()}") from None
    if not values:
        raise ParameterError(f"orders=() is empty; give Renyi orders in {ALPHA.describe()}")
    for a in values:
        ALPHA.check(a)
    if any(b <= a for a, b in zip(values, values[1:], strict=False)):
        raise ParameterError(f"orders={list(values)} must be strictly increasing")


@checked(noise_multiplier=NOISE_MULTIPLIER, sampling_rate=SAMPLING_RATE,
         orders=_check_orders)
def sampled_gaussian_rdp_curve(noise_multiplier: float, sampling_rate: float,
                               orders: tuple[float, ...] = SAMPLED_GAUSSIAN_ORDERS
                               ) -> RdpCurve:
    """The RDP curve of one Poisson-subsampled Gaussian round under add-or-remove-one.

    Exact ([MTZ19] Sec. 3.3, module docstring) and certified: each value is the upper end of
    a proven enclosure of log(A_alpha)/(alpha - 1), rounded up to a float.

    Args:
        noise_multiplier: sigma, the noise standard deviation over the l2 sensitivity.
        sampling_rate: q in (0, 1]: each record takes part with probability q (1: no
            sampling, the Gaussian mechanism's alpha / (2 sigma^2)).
        orders: strictly increasing Renyi orders in (1, inf] (inf gives inf).

    Returns:
        The curve, kind UPPER (certified upper bounds), direction MAX ([MTZ19] Sec. 3: the
        A_alpha direction is the larger of the two).

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: a value could not be enclosed at `MAX_PREC` bits.
    """
    sigma, q = float(noise_multiplier), float(sampling_rate)
    return RdpCurve.from_function(
        lambda alpha: sampled_gaussian_rdp.unchecked(sigma, q, alpha), tuple(orders),
        method=f"composition.sampled_gaussian.sampled_gaussian_rdp_curve(noise_multiplier="
               f"{sigma}, sampling_rate={q}) [add-remove]",
        source=_MTZ)


@checked(noise_multiplier=NOISE_MULTIPLIER, sampling_rate=SAMPLING_RATE, alpha=ALPHA)
def sampled_gaussian_rdp(noise_multiplier: float, sampling_rate: float,
                         alpha: float) -> float:
    """One value of `sampled_gaussian_rdp_curve`: log(A_alpha)/(alpha - 1), rounded up.

    Args:
        noise_multiplier: sigma.
        sampling_rate: q in (0, 1].
        alpha: a Renyi order in (1, inf].

    Returns:
        A float upper bound on the order-alpha RDP (inf at alpha = inf).

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: no finite enclosure at `MAX_PREC` bits.
    """
    if math.isinf(alpha):
        return math.inf
    return rounding.up(Fraction(*_upper_end(sampled_gaussian_rdp_ball.unchecked(
        noise_multiplier, sampling_rate, alpha))))


@checked(noise_multiplier=NOISE_MULTIPLIER, sampling_rate=SAMPLING_RATE, alpha=ALPHA)
def sampled_gaussian_rdp_ball(noise_multiplier: float, sampling_rate: float,
                              alpha: float) -> arb:
    """A proven enclosure (an arb ball) of the order-alpha RDP, log(A_alpha)/(alpha - 1).

    Args:
        noise_multiplier: sigma.
        sampling_rate: q in (0, 1].
        alpha: a Renyi order in (1, inf].

    Returns:
        The ball (infinite at alpha = inf), at the precision that met the target.

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: no finite enclosure at `MAX_PREC` bits.
    """
    sigma, q, a = float(noise_multiplier), float(sampling_rate), float(alpha)
    if math.isinf(a):
        return arb("inf")
    prec = _first_prec(sigma, q, a)
    ball = None
    while True:
        with ctx.workprec(prec):
            if q == 1.0:
                ball = arb(a) / (2 * arb(sigma) ** 2)
            elif a.is_integer():
                ball = _integer_rdp(sigma, q, int(a))
            else:
                ball = _fractional_rdp(sigma, q, a, prec)
        if ball.is_finite() and _relative_radius_ok(ball):
            return ball
        if prec >= MAX_PREC:
            break
        prec = min(2 * prec, MAX_PREC)
    if ball is None or not ball.is_finite():
        raise PrecisionError(f"the sampled Gaussian RDP at noise_multiplier={sigma}, "
                             f"sampling_rate={q}, alpha={a} has no finite enclosure at "
                             f"{MAX_PREC} bits")
    return ball  # wider than the target, still a proven enclosure


def _first_prec(sigma: float, q: float, alpha: float) -> int:
    """A first working precision: 128 bits plus those lost to A - 1 being small
    (A - 1 ~ C(alpha, 2) q^2 expm1(1/sigma^2) for small q)."""
    if q == 1.0:
        return 128
    inv = 1.0 / (sigma * sigma)
    gain = -2 * math.log2(sigma) if inv < 1e-10 else math.log2(math.expm1(min(inv, 700.0)))
    lead = math.log2(alpha * (alpha - 1) / 2) + 2 * math.log2(q) + gain
    return int(min(MAX_PREC, 128 + max(0.0, -lead)))


def _relative_radius_ok(ball: arb) -> bool:
    """Whether rad/|mid| <= the target (in arb: values below 1e-308 are common)."""
    mid = abs(arb(ball.mid()))
    if not mid > 0:
        return False
    return bool(arb(ball.rad()) <= _TARGET * mid)


def _upper_end(ball: arb) -> tuple[int, int]:
    """The ball's upper end as (numerator, denominator), exactly; clamped at 0."""
    if not ball.is_finite():
        raise PrecisionError(f"an infinite enclosure {ball} cannot be rounded")
    end = arb_upper(ball)
    if end < 0:
        return 0, 1
    return int(end.p), int(end.q)


def _integer_rdp(sigma: float, q: float, alpha: int) -> arb:
    """[MTZ19] Sec. 3.3 Case I as A - 1 (nonnegative terms), then log1p / (alpha - 1)."""
    qa = arb(q)
    two_s2 = 2 * arb(sigma) ** 2
    log_q, log_p = qa.log(), (-qa).log1p()
    excess = arb(0)
    for k in range(2, alpha + 1):
        weight = (k * log_q + (alpha - k) * log_p).exp()
        excess += arb(math.comb(alpha, k)) * weight * (arb(k * (k - 1)) / two_s2).expm1()
    return excess.log1p() / (alpha - 1)


def _fractional_rdp(sigma: float, q: float, alpha: float, prec: int) -> arb:
    """[MTZ19] Sec. 3.3 Case II: the two series to N, the tail enclosed (module docstring)."""
    a = arb(alpha)
    qa = arb(q)
    s = arb(sigma)
    two_s2 = 2 * s * s
    log_q, log_p = qa.log(), (-qa).log1p()
    z0 = (s * s) * (log_p - log_q) + arb(0.5)
    root = arb(2).sqrt() * s
    first = int(math.floor(alpha)) + 1   # n >= first > alpha: C(alpha, n) alternates in sign
    n_sum = first + _FIRST_TAIL
    n_euler = _FIRST_EULER + prec // 32

    def term(i: int, coef: arb) -> arb:
        j = a - i
        left = (i * log_q + j * log_p + arb(i * (i - 1)) / two_s2).exp() \
            * ((i - z0) / root).erfc()
        right = (j * log_q + i * log_p + j * (j - 1) / two_s2).exp() \
            * ((z0 - j) / root).erfc()
        return coef * (left + right) / 2

    total = arb(0)
    coef = arb(1)
    for i in range(n_sum + 1):
        total += term(i, coef)
        coef = coef * (a - i) / (i + 1)
    # tail n = n_sum + 1, n_sum + 2, ...: sign s_n of C(alpha, n) alternates from here
    if not (coef > 0 or coef < 0):
        raise PrecisionError(f"the sign of C({alpha}, {n_sum + 1}) is not resolved")
    sign = 1 if coef > 0 else -1
    mags: list[arb] = []
    c = coef
    for n in range(n_sum + 1, n_sum + n_euler + 2):
        mags.append(sign * (-1) ** (n - n_sum - 1) * term(n, c))
        c = c * (a - n) / (n + 1)
    head = arb(0)
    row = mags
    for m in range(n_euler):
        head += row[0] / arb(2) ** (m + 1)
        row = [row[k] - row[k + 1] for k in range(len(row) - 1)]
    # r_M's share: a ball holding [0, Delta^M b_0 / 2^M] (arb(0.5, 0.5) holds [0, 1])
    rest = row[0] / arb(2) ** n_euler * arb(0.5, 0.5)
    value = total + sign * (head + rest)
    return value.log() / (alpha - 1)
