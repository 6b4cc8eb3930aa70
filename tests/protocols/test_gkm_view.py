"""The exact 2-D GKM view: independent mpmath oracle, mass, incomplete gamma, outside box.

The oracle `_mp_pmf` evaluates docs/gkm.md#exact-view's defining sum
    P(a, b) = sum_{k1, k0} Bin(m1,1-q)(k1) Bin(m0,1-q)(k0)
              sum_{f=0}^{min(u,v)} Poi(lam)(f) (1-r) r^(u-f) (1-r) r^(v-f),
    u = a - s t - k1, v = b - s t, t = k0 + k1,
term by term at 50 digits: it uses neither the incomplete-gamma closed form nor the
factorization of `gkm_view`, so agreement checks both.
"""

import math

import mpmath
import numpy as np
import pytest
from scipy.special import gammaincc

from accountant.protocols.gkm import view as gkm_view
from accountant.result import Kind

SMALL = dict(n=3, epsilon_prime=0.7, q=0.2, s=2, lam=3.0)


def _mp_pmf(a, b, *, m1, m0, epsilon_prime, q, s, lam):
    with mpmath.workdps(50):
        r = mpmath.exp(-mpmath.mpf(epsilon_prime))
        qq = mpmath.mpf(q)
        total = mpmath.mpf(0)
        for k1 in range(m1 + 1):
            w1 = mpmath.binomial(m1, k1) * (1 - qq) ** k1 * qq ** (m1 - k1)
            for k0 in range(m0 + 1):
                w0 = mpmath.binomial(m0, k0) * (1 - qq) ** k0 * qq ** (m0 - k0)
                t = k0 + k1
                u, v = a - s * t - k1, b - s * t
                if u < 0 or v < 0:
                    continue
                inner = mpmath.fsum(
                    mpmath.exp(-lam) * mpmath.mpf(lam) ** f / mpmath.factorial(f)
                    * (1 - r) ** 2 * r ** (u - f) * r ** (v - f) for f in range(min(u, v) + 1))
                total += w1 * w0 * inner
        return total


def _value_at(view, arr, a, b):
    hit = np.nonzero((view.coords[0] == a) & (view.coords[1] == b))[0]
    return arr[hit[0]] if hit.size else -np.inf


@pytest.mark.parametrize("ones", [0, 1, 2])
def test_float_view_matches_independent_mpmath_sum(ones):
    view = gkm_view.view_pair(ones=ones, **SMALL)
    rng = np.random.default_rng(7)
    points = [(0, 0), (5, 3), (6, 6), (12, 10), (0, 9), (30, 2)] + [
        tuple(int(x) for x in rng.integers(0, 40, size=2)) for _ in range(8)]
    for a, b in points:
        exact_p = _mp_pmf(a, b, m1=ones + 1, m0=SMALL["n"] - 1 - ones,
                          **{k: SMALL[k] for k in ("epsilon_prime", "q", "s", "lam")})
        exact_q = _mp_pmf(a, b, m1=ones, m0=SMALL["n"] - ones,
                          **{k: SMALL[k] for k in ("epsilon_prime", "q", "s", "lam")})
        lp = _value_at(view, view.p, a, b)
        lq = _value_at(view, view.q, a, b)
        assert abs(lp - float(mpmath.log(exact_p))) <= view.log_error
        assert abs(lq - float(mpmath.log(exact_q))) <= view.log_error
        loss = _value_at(view, view.loss, a, b)
        assert abs(loss - float(mpmath.log(exact_p / exact_q))) <= view.loss_error


def test_zero_probability_points_match_the_support():
    # GKMP20 (q = 0, s = 0): V+ >= m1 always; with x1 = 0 and one other one, V+ = 1 has
    # positive probability, with x1 = 1 it does not: loss -inf there (P = 0 < Q).
    view = gkm_view.view_pair(n=3, ones=1, epsilon_prime=0.7, q=0.0, s=0, lam=3.0)
    assert _value_at(view, view.loss, 1, 4) == -np.inf
    assert _mp_pmf(1, 4, m1=2, m0=1, epsilon_prime=0.7, q=0.0, s=0, lam=3.0) == 0
    assert _mp_pmf(1, 4, m1=1, m0=2, epsilon_prime=0.7, q=0.0, s=0, lam=3.0) > 0


@pytest.mark.parametrize("params", [
    SMALL,
    dict(n=10, epsilon_prime=0.5, q=0.1, s=8, lam=59.62846681260541),
    dict(n=10, epsilon_prime=0.5, q=0.0, s=0, lam=10.0),
    dict(n=4, epsilon_prime=2.0, q=0.5, s=1, lam=0.5),
], ids=["small", "n10-minimal", "gkmp20", "large-eps"])
def test_grid_mass_is_one_within_certified_tail(params):
    view = gkm_view.view_pair(ones=params["n"] // 2, **params)
    for log_values, tail in ((view.p, view.tail_p), (view.q, view.tail_q)):
        mass = math.fsum(np.exp(log_values))
        rel = math.expm1(view.log_error) + 1e-12
        assert 1 - tail - rel <= mass <= 1 + rel
        assert tail < 1e-15


@pytest.mark.parametrize("mu", [0.5, 7.3, 163.0, 900.0])
def test_log_poisson_cdf_is_the_regularized_incomplete_gamma(mu):
    m_max = int(mu + 12 * math.sqrt(mu) + 20)
    log_g, err = gkm_view.log_poisson_cdf(mu, m_max)
    for m in sorted({0, 1, int(mu) // 2, int(mu), m_max}):
        with mpmath.workdps(40):
            ref = mpmath.log(mpmath.gammainc(m + 1, mpmath.mpf(mu), mpmath.inf,
                                             regularized=True))
        assert abs(log_g[m] - float(ref)) <= err[m]
        scipy_value = gammaincc(m + 1, mu)
        if scipy_value > 1e-300:  # scipy underflows far below the mean
            assert log_g[m] == pytest.approx(math.log(scipy_value), rel=1e-9, abs=1e-12)


def test_log_poisson_cdf_stays_accurate_at_large_mean():
    # mu = 2e5: log G(0) = -2e5; the error bound must stay small (no mu^2 u growth)
    mu = 2.0e5
    log_g, err = gkm_view.log_poisson_cdf(mu, int(mu + 4000))
    assert float(np.max(err)) < 1e-8
    for m in (0, 1000, 150_000, 199_000, 200_000, 203_000):
        with mpmath.workdps(40):
            ref = mpmath.log(mpmath.gammainc(m + 1, mpmath.mpf(mu), mpmath.inf,
                                             regularized=True))
        assert abs(log_g[m] - float(ref)) <= err[m]


def test_chernoff_tail_bound_dominates_the_exact_tail():
    r, lam = math.exp(-0.5), 20.0
    for c in (10, 40, 80, 150):
        with mpmath.workdps(40):
            rr = mpmath.mpf(r)
            # P[N + F >= c] = 1 - sum_{k<c} P[N + F = k]
            below = mpmath.fsum(
                mpmath.fsum(mpmath.exp(-lam) * mpmath.mpf(lam) ** f / mpmath.factorial(f)
                            * (1 - rr) * rr ** (k - f) for f in range(k + 1))
                for k in range(c))
            exact = 1 - below
        bound = gkm_view.sum_tail_bound(c, r=r, lam=lam)
        assert float(exact) <= bound


def test_outside_loss_bound_holds_beyond_the_box():
    """The loss outside the box (seen on a 3x larger box) never exceeds the recorded
    one-sided suprema: the proof of the module docstring, checked numerically."""
    params = dict(n=4, epsilon_prime=0.6, q=0.15, s=1, lam=4.0)
    small = gkm_view.view_pair(ones=1, **params)
    side = small.description["box"]
    big = gkm_view.view_pair(ones=1, box=3 * side, **params)
    outside = (big.coords[0] >= side) | (big.coords[1] >= side)
    sup = small.description["outside_loss_sup"]
    assert float(np.max(big.loss[outside])) <= sup["P||Q"]
    assert float(np.max(-big.loss[outside])) <= sup["Q||P"]
    # ... and the bounds are nearly attained (the loss is constant along rays out there)
    assert float(np.max(big.loss[outside])) >= sup["P||Q"] - 1e-6
    # the max-divergence does not change when the box grows
    for d in ("P||Q", "Q||P"):
        a = gkm_view.pure_epsilon(small, direction=d)
        b = gkm_view.pure_epsilon(big, direction=d)
        assert abs(a.value - b.value) <= a.error_budget + b.error_budget + 1e-12


def test_too_small_box_is_refused():
    from accountant.errors import ParameterError

    with pytest.raises(ParameterError, match="box"):
        gkm_view.view_pair(ones=0, box=5, **SMALL)


def test_pure_epsilon_brackets_the_grid_maximum():
    view = gkm_view.view_pair(ones=1, **SMALL)
    upper = gkm_view.pure_epsilon(view)
    lower = gkm_view.pure_epsilon_lower(view)
    assert upper.kind is Kind.UPPER and lower.kind is Kind.LOWER
    assert lower.value <= upper.value <= lower.value + 1e-9


@pytest.mark.parametrize("params, ones", [
    (SMALL, 0), (SMALL, 2),
    (dict(n=10, epsilon_prime=0.5, q=0.1, s=1, lam=1.0), 9),
    (dict(n=6, epsilon_prime=1.2, q=0.4, s=3, lam=8.0), 2),
    (dict(n=10, epsilon_prime=0.5, q=0.0, s=0, lam=10.0), 3),
], ids=["small-0", "small-2", "violating-n10", "n6", "gkmp20"])
def test_ray_evaluation_equals_the_box_evaluation(params, ones):
    view = gkm_view.view_pair(ones=ones, **params)
    rays = gkm_view.pure_epsilon_rays(ones=ones, **params)
    for d, ray in zip(("P||Q", "Q||P"), rays, strict=True):
        box = gkm_view.pure_epsilon(view, direction=d)
        assert ray.kind is box.kind
        if math.isinf(box.value):
            assert math.isinf(ray.value)
        else:
            assert abs(ray.value - box.value) <= ray.error_budget + box.error_budget + 1e-12
            # both are upper bounds on every loss actually seen on the grid
            seen = float(np.max(view.loss if d == "P||Q" else -view.loss))
            assert seen - view.loss_error <= ray.value
