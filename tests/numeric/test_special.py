"""The float log-PMFs meet their stated error model against 60-digit mpmath, computed here
independently from loggamma (not from the library's mp backend)."""

import mpmath
import numpy as np
import pytest

from accountant.numeric.special import (
    LOG_PMF_ABS_ERROR,
    LOG_PMF_REL_ERROR,
    binomial_logpmf,
    log_pmf_error,
    negative_binomial_logpmf,
    poisson_logpmf,
    two_product,
)


def _check(got, ref):
    ref = np.array([float(r) for r in ref])
    bound = LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR * np.abs(ref)
    assert np.all(np.abs(got - ref) <= bound), float(np.max(np.abs(got - ref) / bound))


def _ks(center, spread, lo, hi, count=41):
    return np.unique(np.clip(np.round(np.linspace(center - spread, center + spread, count)),
                             lo, hi))


@pytest.mark.parametrize(("n", "p"), [
    (10, 0.3), (1000, 0.01), (10**6, 0.2689414213699951), (10**9, 1 - 7e-7),
    (10**9, 0.2689414213699951), (10**8, 0.1192029220221175), (3, 0.999),
])
def test_binomial_logpmf_error_model(n, p):
    sd = (n * p * (1 - p)) ** 0.5
    ks = _ks(n * p, 40 * sd + 5, 0, n)
    with mpmath.workdps(60):
        mp_p = mpmath.mpf(p)
        ref = [mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
               + k * mpmath.log(mp_p) + (n - k) * mpmath.log1p(-mp_p) for k in map(int, ks)]
    _check(binomial_logpmf(ks, n, p), ref)


@pytest.mark.parametrize("mu", [0.3, 7.0, 1234.5, 1e7])
def test_poisson_logpmf_error_model(mu):
    ks = _ks(mu, 40 * mu ** 0.5 + 5, 0, np.inf)
    with mpmath.workdps(60):
        ref = [k * mpmath.log(mu) - mu - mpmath.loggamma(k + 1) for k in map(int, ks)]
    _check(poisson_logpmf(ks, mu), ref)


@pytest.mark.parametrize(("r", "p"), [(1e-6, 0.5), (0.01, 0.2), (1.0, 0.63), (250.5, 0.9)])
def test_negative_binomial_logpmf_error_model(r, p):
    mean = r * (1 - p) / p
    ks = _ks(mean, 40 * (mean / p) ** 0.5 + 30, 0, np.inf)
    with mpmath.workdps(60):
        rm, pm = mpmath.mpf(r), mpmath.mpf(p)
        ref = [mpmath.loggamma(k + rm) - mpmath.loggamma(rm) - mpmath.loggamma(k + 1)
               + rm * mpmath.log(pm) + k * mpmath.log1p(-pm) for k in map(int, ks)]
    _check(negative_binomial_logpmf(ks, r, p), ref)


def test_logpmf_outside_support_is_minus_infinity():
    assert np.all(np.isneginf(binomial_logpmf(np.array([-1, 11]), 10, 0.4)))
    assert np.isneginf(poisson_logpmf(np.array([-2]), 3.0))[0]


@pytest.mark.parametrize(("a", "b"), [(1e9 + 1, 0.2689414213699951), (12345.0, 1 / 3),
                                      (2.0**52 - 1, 0.1)])
def test_two_product_is_error_free(a, b):
    hi, lo = two_product(np.array(a), b)
    with mpmath.workdps(60):
        assert mpmath.mpf(float(hi)) + mpmath.mpf(float(lo)) == mpmath.mpf(a) * mpmath.mpf(b)


def test_bd0_with_a_subnormal_mean_is_finite_and_right():
    """x/m overflowed for m = 1e-320 (a RuntimeWarning and bd0 = inf, i.e. probability 0
    where it is about 1e-320): x log(x/m) - (x - m) from mpmath at 50 digits."""
    import warnings

    import mpmath
    import numpy as np

    from accountant.numeric.special import bd0

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = bd0(np.array([1.0, 3.0]), np.array([1e-320, 1e-320]))
    with mpmath.workdps(50):
        m = mpmath.mpf(1e-320)
        want = [float(x * mpmath.log(x / m) - (x - m)) for x in (mpmath.mpf(1), mpmath.mpf(3))]
    assert np.allclose(got, want, rtol=1e-13, atol=0)


def test_binomial_logpmf_broadcasts_over_n_as_the_scalar_calls_do() -> None:
    # the vectorised n (used for Bin(c, 1/2) over many c in composition/subsampled.py) runs
    # the same operations elementwise: each entry equals its scalar call to a few ulps, and
    # lies within the stated error model of 60-digit mpmath
    rng = np.random.default_rng(11)
    for p in (0.5, 0.013, 0.97):
        n = rng.integers(0, 5000, 400).astype(float)
        k = np.floor(rng.uniform(-2, 1.02, 400) * n)
        many = binomial_logpmf(k, n, p)
        one = np.array([binomial_logpmf(np.array([kk]), float(nn), p)[0]
                        for kk, nn in zip(k, n, strict=True)])
        assert np.array_equal(np.isneginf(many), np.isneginf(one))
        fin = np.isfinite(one)
        assert np.allclose(many[fin], one[fin], rtol=1e-14, atol=1e-13)
        with mpmath.workdps(60):
            for kk, nn, v in list(zip(k[fin], n[fin], many[fin], strict=True))[:40]:
                exact = (mpmath.log(mpmath.binomial(int(nn), int(kk))) + int(kk) * mpmath.log(p)
                         + int(nn - kk) * mpmath.log(1 - mpmath.mpf(p)))
                assert abs(v - float(exact)) <= log_pmf_error(np.array([v]))[0]
