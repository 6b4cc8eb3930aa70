"""The continuous randomizers' lower end at small delta (issue 24): `continuous.tail_events`.

References, each independent of the module's float search and ball sums:
- binomial tails: mpmath's regularized incomplete beta, P(Bin(n, s) >= m) = I_s(m, n - m + 1),
  at 60 digits;
- the m = 1 event in closed form, P(C >= 1) = 1 - (1 - s_0)^(n-1) (1 - s_1), from mpmath's erfc;
- the special pair's delta at n = 2, Gaussian noise: mpmath quadrature at 50 digits with the
  second user in closed form, E_0[(r - c)_+] = P_1(r > c) - c P_0(r > c);
- discrete Laplace: the likelihood ratio takes two values, so the special pair's delta is an
  exact binomial sum of positive parts, any n;
- discrete Gaussian, n = 2: the double sum over all output pairs in a window.
"""

from __future__ import annotations

import math
import time
import warnings

import mpmath
import pytest
from flint import arb, ctx

from accountant.protocols.continuous import (
    DiscreteGaussianLaw,
    DiscreteLaplaceLaw,
    GaussianLaw,
    GaussianRandomizer,
    LaplaceLaw,
    LaplaceRandomizer,
    tail_events,
    threshold,
)
from accountant.result import Direction, Kind

mp = mpmath.mp


def _contains(ball: arb, x: mpmath.mpf) -> bool:
    """Whether the ball contains the mpmath value (converted exactly through its string at
    the current mpmath precision, a relative 1e-55: far below the balls' own radii)."""
    with ctx.workprec(256):
        return ball.overlaps(arb(mpmath.nstr(x, 60, min_fixed=1, max_fixed=0)))


# ------------------------------------------------------------------ binomial tails and events
@pytest.mark.parametrize("n, s, m", [(10, 0.3, 1), (10, 0.3, 4), (10, 0.3, 9), (1000, 1e-4, 1),
                                     (1000, 1e-4, 3), (1000, 0.2, 150), (1000, 0.2, 250),
                                     (10 ** 10, 1e-12, 1), (10 ** 10, 1e-12, 5),
                                     (10 ** 5, 1e-300, 2), (99, 0.999, 99)])
def test_binomial_tails_against_incomplete_beta(n, s, m):
    with mp.workdps(60):
        ref_up = mpmath.betainc(m, n - m + 1, 0, mpmath.mpf(s), regularized=True)
        ref_low = 1 - ref_up if ref_up < mpmath.mpf("0.5") else mpmath.betainc(
            m, n - m + 1, mpmath.mpf(s), 1, regularized=True)
    with ctx.workprec(192):
        up, low = tail_events._binomial_tails(n, arb(s), 1 - arb(s), m)
    with mp.workdps(60):
        assert _contains(up, ref_up)
        assert _contains(low, ref_low)
    # the balls are tight, not just valid
    assert float(up.rad()) <= 1e-30 * float(up.mid()) + 1e-320


@pytest.mark.parametrize("law, n, t", [(GaussianLaw(1.0), 1000, 22.0), (GaussianLaw(0.3), 2, 9.5),
                                       (LaplaceLaw(0.5), 10, 300.0),
                                       (GaussianLaw(3.0), 10 ** 5, 111.5)])
def test_one_far_output_event_closed_form(law, n, t):
    """P(C >= 1) and Q(C >= 1) from the balls against 1 - prod (1 - s_i) in mpmath."""
    with mp.workdps(60):
        sc = mpmath.mpf(law.scale)
        if isinstance(law, GaussianLaw):
            def sf(y):
                return mpmath.erfc(y / (sc * mpmath.sqrt(2))) / 2
        else:
            def sf(y):
                return mpmath.exp(-y / sc) / 2 if y >= 0 else 1 - mpmath.exp(y / sc) / 2
        s0, s1 = sf(mpmath.mpf(t)), sf(mpmath.mpf(t) - 1)
        # 1 - (1 - s)^k without cancellation
        p_ref = -mpmath.expm1((n - 1) * mpmath.log1p(-s0) + mpmath.log1p(-s1))
        q_ref = -mpmath.expm1(n * mpmath.log1p(-s0))
        a, b = tail_events.event_masses(law, n, tail_events.Event(t, 1, "PQ"))
        assert _contains(a, p_ref) and _contains(b, q_ref)
        ac, bc = tail_events.event_masses(law, n, tail_events.Event(t, 1, "QP"))
        assert _contains(ac, 1 - q_ref) and _contains(bc, 1 - p_ref)


# ------------------------------------------------------------------ references for the truth
def _gaussian_pair_delta(sigma: float, epsilon: float) -> mpmath.mpf:
    """delta_{P||Q}(eps) of the n = 2 special pair, Gaussian noise, 50 digits: P/Q =
    (r(y1) + r(y2))/2, r(y) = exp((2y - 1)/(2 sigma^2)); the y2-integral in closed form."""
    with mp.workdps(50):
        s = mpmath.mpf(sigma)
        g = mpmath.exp(mpmath.mpf(epsilon))

        def h(c):  # E_0[(r(Y) - c)_+]
            if c <= 0:
                return 1 - c
            y = s * s * mpmath.log(c) + mpmath.mpf(1) / 2
            return mpmath.ncdf(-(y - 1) / s) - c * mpmath.ncdf(-y / s)

        def f(y1):
            r1 = mpmath.exp((2 * y1 - 1) / (2 * s * s))
            return mpmath.npdf(y1, 0, s) * h(2 * g - r1) / 2

        ystar = s * s * mpmath.log(2 * g) + mpmath.mpf(1) / 2  # where r(y1) = 2g: h's kink
        pts = sorted({mpmath.mpf(0), mpmath.mpf(1), ystar - 4 * s, ystar - s, ystar,
                      ystar + s, ystar + 4 * s})
        return mpmath.quad(f, [-mpmath.inf, *pts, mpmath.inf], maxdegree=10)


def _count_pair_delta(n: int, a0, a1, epsilon: float) -> mpmath.mpf:
    """max over orders of sum_k (P(k) - e^eps Q(k))_+ for P = Bin(n-1, a0) + Bern(a1),
    Q = Bin(n, a0), exactly in mpmath (a sufficient statistic when r takes two values)."""
    g = mpmath.exp(mpmath.mpf(epsilon))

    def pmf(m, a):
        return [mpmath.binomial(m, k) * a ** k * (1 - a) ** (m - k) for k in range(m + 1)]

    b = pmf(n - 1, a0)
    p = [(b[k] if k < n else 0) * (1 - a1) + (b[k - 1] * a1 if k > 0 else 0)
         for k in range(n + 1)]
    q = pmf(n, a0)
    pq = mpmath.fsum(max(x - g * y, 0) for x, y in zip(p, q, strict=True))
    qp = mpmath.fsum(max(y - g * x, 0) for x, y in zip(p, q, strict=True))
    return max(pq, qp)


def _discrete_laplace_delta(b: float, n: int, epsilon: float) -> mpmath.mpf:
    with mp.workdps(60):
        p = mpmath.exp(-1 / mpmath.mpf(b))
        # outputs >= 1: P(noise >= 1) under input 0, P(noise >= 0) under input 1
        return _count_pair_delta(n, p / (1 + p), 1 / (1 + p), epsilon)


def _discrete_gaussian_delta(sigma: float, epsilon: float) -> mpmath.mpf:
    """The n = 2 special pair's delta (both orders), double sum over |k| <= 40 sigma + 40."""
    with mp.workdps(50):
        s2 = 2 * mpmath.mpf(sigma) ** 2
        top = math.ceil(40 * sigma) + 40
        ks = range(-top, top + 2)
        w = {k: mpmath.exp(-mpmath.mpf(k) ** 2 / s2) for k in range(-top - 1, top + 2)}
        z = mpmath.fsum(w[k] for k in range(-top, top + 1))
        f0 = {k: w.get(k, 0) / z for k in ks}
        f1 = {k: w.get(k - 1, 0) / z for k in ks}
        g = mpmath.exp(mpmath.mpf(epsilon))
        pq = qp = mpmath.mpf(0)
        for k1 in ks:
            for k2 in ks:
                p = (f0[k1] * f1[k2] + f1[k1] * f0[k2]) / 2
                q = f0[k1] * f0[k2]
                pq += max(p - g * q, 0)
                qp += max(q - g * p, 0)
        return max(pq, qp)


# ------------------------------------------------------------------ lower ends vs the truth
@pytest.mark.parametrize("sigma, delta", [(1.0, 1e-6), (1.0, 1e-30), (1.0, 1e-100),
                                          (0.5, 1e-30), (0.3, 1e-12), (3.0, 1e-100)])
def test_gaussian_n2_below_truth_and_close(sigma, delta):
    """The special pair's delta at the reported eps is above the target (so the true eps is
    larger); 2 % further on it is below (the end is within 2 % of the special pair's)."""
    low = tail_events.epsilon_lower(GaussianLaw(sigma), 2, delta)
    assert low is not None and low.kind is Kind.LOWER and low.direction is Direction.MAX
    e = float(low.value)
    assert _gaussian_pair_delta(sigma, e) >= delta
    assert _gaussian_pair_delta(sigma, 1.02 * e) < delta


@pytest.mark.parametrize("b, n", [(1.0, 2), (0.3, 10), (2.0, 100), (0.5, 1000)])
@pytest.mark.parametrize("delta", [1e-6, 1e-30, 1e-300])
def test_discrete_laplace_is_the_special_pair(b, n, delta):
    """For discrete Laplace noise the count above 1/2 is sufficient, so the best count event
    is the special pair's epsilon itself: below the exact value and within 1e-9 of it."""
    low = tail_events.epsilon_lower(DiscreteLaplaceLaw(b), n, delta)
    if low is None:  # nothing certified: only allowed if the exact value is 0
        assert _discrete_laplace_delta(b, n, 0.0) <= delta
        return
    e = float(low.value)
    assert e <= 1.0 / b  # the exact max-divergence
    assert _discrete_laplace_delta(b, n, e) >= delta
    assert _discrete_laplace_delta(b, n, e + 1e-9 * max(1.0, e)) < delta


@pytest.mark.parametrize("sigma, delta", [(0.5, 1e-12), (1.0, 1e-30), (1.0, 1e-100)])
def test_discrete_gaussian_n2_below_truth(sigma, delta):
    low = tail_events.epsilon_lower(DiscreteGaussianLaw(sigma), 2, delta)
    assert low is not None
    assert _discrete_gaussian_delta(sigma, float(low.value)) >= delta


def test_delta_lower_below_truth():
    """delta(eps) lower ends: below the exact discrete Laplace value and the n = 2 Gaussian
    quadrature, and not far below (the event is the pair's best at these points)."""
    for b, n, e in [(1.0, 10, 0.5), (0.3, 2, 3.0), (0.5, 1000, 1.0)]:
        d = float(tail_events.delta_lower(DiscreteLaplaceLaw(b), n, e).value)
        ref = _discrete_laplace_delta(b, n, e)
        assert ref * (1 - 1e-9) <= d <= ref
    for sigma, e in [(1.0, 5.0), (0.5, 20.0)]:
        d = float(tail_events.delta_lower(GaussianLaw(sigma), 2, e).value)
        ref = _gaussian_pair_delta(sigma, e)
        assert 0.2 * ref <= d <= ref


# ------------------------------------------------------------------ bound relations
@pytest.mark.parametrize("b", [0.02, 0.3, 1.0, 1e4])
@pytest.mark.parametrize("n", [2, 100, 10 ** 5])
@pytest.mark.parametrize("delta", [1e-6, 1e-100, 5e-324])
def test_laplace_below_max_divergence(b, n, delta):
    """The randomizers are exactly (1/b)-DP after shuffling (the max-divergence): no lower end
    of epsilon(delta) may exceed 1/b, however small delta."""
    for law in (LaplaceLaw(b), DiscreteLaplaceLaw(b)):
        low = tail_events.epsilon_lower(law, n, delta)
        assert low is None or float(low.value) <= 1.0 / b


@pytest.mark.parametrize("sigma, n, delta", [(1.0, 1000, 1e-12), (0.5, 10, 1e-30),
                                             (3.0, 100, 1e-30), (1.0, 2, 1e-100)])
def test_below_certified_upper_end(sigma, n, delta):
    b = GaussianRandomizer(n=n, sigma=sigma).epsilon_for_delta(delta)
    low = tail_events.epsilon_lower(GaussianLaw(sigma), n, delta)
    assert low is not None and math.isfinite(float(b.upper.value))
    assert float(low.value) <= float(b.upper.value)
    assert float(b.lower.value) >= float(low.value)  # the mechanism reports the largest end


def test_laplace_mechanism_bracket_ordered_at_tiny_delta():
    b = LaplaceRandomizer(n=10, scale=1.0).epsilon_for_delta(1e-100)
    assert 0 < float(b.lower.value) <= float(b.upper.value) <= 1.0 + 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("sigma", [0.3, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("n", [2, 10, 100, 1000, 10 ** 5])
@pytest.mark.parametrize("delta", [1e-6, 1e-12, 1e-30, 1e-100])
def test_grid_below_certified_upper_end(sigma, n, delta):
    up = GaussianRandomizer(n=n, sigma=sigma).epsilon_for_delta(delta).upper
    low = tail_events.epsilon_lower(GaussianLaw(sigma), n, delta)
    assert low is None or float(low.value) <= float(up.value)


# ------------------------------------------------------------------ improvement claimed
@pytest.mark.parametrize("sigma, n, delta, factor", [(1.0, 1000, 1e-100, 5.0),
                                                     (3.0, 10 ** 5, 1e-300, 10.0),
                                                     (0.5, 100, 1e-100, 3.0)])
def test_improves_on_the_fixed_thresholds(sigma, n, delta, factor):
    """Far in the tail the events chosen for delta beat the fixed thresholds by a factor."""
    law = GaussianLaw(sigma)
    old = float(threshold.epsilon_lower(law, n, delta).value)
    new = float(tail_events.epsilon_lower(law, n, delta).value)
    assert new >= factor * old


def test_large_epsilon_with_little_noise():
    """sigma = 0.1, n = 2, delta = 1e-6: one output far out; the lower end is within 2 % of
    log(P_1(Y > t) / (2 P_0(Y > t))) at the t with P_1(Y > t) = 2 delta (a rough estimate of the
    truth, computed here from mpmath) and above the old fixed-threshold end."""
    law = GaussianLaw(0.1)
    new = float(tail_events.epsilon_lower(law, 2, 1e-6).value)
    with mp.workdps(30):
        z = mpmath.findroot(lambda x: mpmath.ncdf(-x) - 2e-6, 4.5)
        t = 1 + 0.1 * z
        rough = mpmath.log(mpmath.ncdf(-(t - 1) / 0.1) / (2 * mpmath.ncdf(-t / 0.1)))
    assert abs(new / float(rough) - 1) < 0.02
    assert new > float(threshold.epsilon_lower(law, 2, 1e-6).value)
    assert _gaussian_pair_delta(0.1, new) >= 1e-6


# ------------------------------------------------------------------ robustness
@pytest.mark.parametrize("law", [GaussianLaw(0.1), GaussianLaw(1e4), LaplaceLaw(0.02),
                                 LaplaceLaw(1e4), DiscreteGaussianLaw(0.1),
                                 DiscreteGaussianLaw(100.0), DiscreteLaplaceLaw(0.02),
                                 DiscreteLaplaceLaw(1e4)])
@pytest.mark.parametrize("n", [2, 10 ** 10])
def test_extremes_no_warning_and_fast(law, n):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for delta in (0.5, 1e-300, 5e-324):
            t0 = time.perf_counter()
            low = tail_events.epsilon_lower(law, n, delta)
            assert time.perf_counter() - t0 < 10.0
            assert low is None or (math.isfinite(float(low.value)) and float(low.value) > 0)
        for epsilon in (0.0, 1.0, 200.0):
            d = tail_events.delta_lower(law, n, epsilon)
            assert d is None or 0 <= float(d.value) <= 1
