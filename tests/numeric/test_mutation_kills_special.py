"""The float log-PMFs, log-space helpers and multiprecision conversions, pinned where
mutation testing found gaps (docs/soundness.md#mutation-testing; issue 20, item 6).

The oracles are independent of the code under test: the definitions evaluated in mpmath
at 60 digits (log Gamma, log, exp, log1p), exact rational arithmetic (fractions.Fraction,
python-flint's fmpq), and the functions' documented special values. Float arguments are
taken exactly (mpmath.mpf(x) and Fraction(x) are exact for a float).
"""

import math
import numbers
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx, fmpq, fmpz

from accountant.numeric.logspace import exp_value, log1mexp, log_sub, log_value, logsumexp
from accountant.numeric.mp import (
    arb_lower,
    arb_to_mpf,
    arb_upper,
    mantissa_bits,
    to_fmpq,
    to_mpf,
)
from accountant.numeric.special import (
    LOG_PMF_ABS_ERROR,
    LOG_PMF_REL_ERROR,
    bd0,
    binomial_logpmf,
    log_pmf_error,
    negative_binomial_logpmf,
    poisson_logpmf,
    stirlerr,
    two_product,
)

_U = 2.0**-53
_DPS = 60


def _within_model(got, ref):
    """|got - ref| <= LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR |ref|, elementwise (the
    module's stated error model); -inf must match exactly."""
    got = np.asarray(got, dtype=float)
    ref = np.array([float(r) for r in ref])
    assert np.array_equal(np.isneginf(got), np.isneginf(ref))
    fin = np.isfinite(ref)
    bound = LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR * np.abs(ref[fin])
    err = np.abs(got[fin] - ref[fin])
    assert np.all(err <= bound), float(np.max(err / bound))


def _log_binom_ref(ks, n, p):
    with mpmath.workdps(_DPS):
        mp_p = mpmath.mpf(p)
        return [mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
                + k * mpmath.log(mp_p) + (n - k) * mpmath.log1p(-mp_p) for k in ks]


# ---------------------------------------------------------------- log_pmf_error


def test_log_pmf_error_is_the_stated_closed_form():
    values = np.array([0.0, -1.0, -1000.0, -7.5e5])
    want = [LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR * abs(float(v)) for v in values]
    assert log_pmf_error(values).tolist() == want


def test_log_pmf_error_counts_non_finite_entries_as_zero():
    """The docstring: -inf (a zero probability) contributes nothing to the relative term."""
    got = log_pmf_error(np.array([-np.inf, np.inf, -2.0]))
    assert got.tolist() == [LOG_PMF_ABS_ERROR, LOG_PMF_ABS_ERROR,
                            LOG_PMF_ABS_ERROR + 2.0 * LOG_PMF_REL_ERROR]


# ---------------------------------------------------------------- stirlerr


def _stirlerr_ref(n):
    with mpmath.workdps(_DPS):
        x = mpmath.mpf(n)
        return (mpmath.loggamma(x + 1) - (x + mpmath.mpf(1) / 2) * mpmath.log(x) + x
                - mpmath.log(2 * mpmath.pi) / 2)


# every range edge of the implementation (15, 35, 80, 500) and points on both sides
_STIRLERR_POINTS = [0.25, 0.5, 1.0, 2.0, 7.5, 14.5, 15.0, 15.5, 16.0, 34.5, 35.0, 35.5, 36.0,
                    79.5, 80.0, 80.5, 81.0, 120.25, 499.5, 500.0, 500.5, 501.0, 1000.0,
                    12345.5, 1e6, 1e9, 1e15]


def test_stirlerr_matches_its_definition_across_every_range():
    """stirlerr(n) = log n! - log(sqrt(2 pi n) (n/e)^n) at 60 digits. Allowed error: below
    15 the lgamma difference cancels about log(n!) to the result, so a few ulps of
    lgamma(n + 1) + (n + 1/2) |log n| + n; above 15 the truncated Stirling series (an
    alternating series: the remainder is below the first omitted term, at most
    691/(360360 n^11) = 2.2e-16 with five terms at n = 15, and 1/(1680 n^7) = 2.8e-17, 1/(1260
    n^5) = 2.5e-17 at the edges 80 and 500), plus a few ulps of the value."""
    ns = np.array(_STIRLERR_POINTS)
    got = stirlerr(ns)
    for n, g in zip(ns, got, strict=True):
        ref = _stirlerr_ref(float(n))
        if n <= 15:
            scale = math.lgamma(n + 1) + (n + 0.5) * abs(math.log(n)) + n + 1
            tol = 16 * _U * scale
        else:
            tol = 2.5e-16 + 8 * _U * float(ref)
        assert abs(float(g) - ref) <= tol, (float(n), float(g), float(ref))


def test_stirlerr_at_zero_and_below_is_zero():
    """The docstring: 0 at n = 0 (log 0! - 0 in the limit), and negative entries give 0."""
    got = stirlerr(np.array([0.0, -1.0, -20.0, 3.0]))
    assert got[:3].tolist() == [0.0, 0.0, 0.0]
    assert abs(got[3] - float(_stirlerr_ref(3.0))) < 1e-15


def test_stirlerr_of_a_scalar():
    got = stirlerr(501.0)
    assert np.shape(got) == ()
    assert abs(float(got) - float(_stirlerr_ref(501.0))) < 5e-17  # 2.5e-17: two terms


# ---------------------------------------------------------------- two_product


def test_two_product_is_error_free_on_random_pairs():
    """hi = fl(a b) and hi + lo == a b exactly (Fractions), for a and b spread over many
    binades and both signs, including b with a full 53-bit mantissa."""
    rng = np.random.default_rng(20)
    a = rng.uniform(0.5, 1.0, 400) * np.exp2(rng.integers(-60, 60, 400))
    a *= rng.choice([-1.0, 1.0], 400)
    bs = [0.1, 1 / 3, 0.2689414213699951, 1 - 7e-7, 0.9999999999999999, 3.0000000000000004,
          -12345.678901234567, 1e-200 * 3 ** 0.5, 2.0**-30 + 2.0**-82]
    bs += list(rng.uniform(0.5, 1.0, 20) * np.exp2(rng.integers(-40, 40, 20)))
    for b in bs:
        hi, lo = two_product(a, float(b))
        assert np.array_equal(hi, a * b)
        for ai, h, low in zip(a, hi, lo, strict=True):
            assert Fraction(float(h)) + Fraction(float(low)) == Fraction(float(ai)) * Fraction(b)


# ---------------------------------------------------------------- bd0


def _bd0_ref(x, m):
    with mpmath.workdps(_DPS):
        xm, mm = mpmath.mpf(x), mpmath.mpf(m)
        if x == 0:
            return mm
        return xm * mpmath.log(xm / mm) + mm - xm


@pytest.mark.parametrize("x", [1e-3, 0.01, 0.3, 1.0, 7.0, 123.0, 1e5, 1e9])
def test_bd0_is_relatively_accurate_near_and_far(x):
    """bd0 = x log(x/m) + m - x "without cancellation": relative error within a few tens
    of ulps (the far formula near its edge |x - m| = 0.1 (x + m) cancels by a factor of
    about 20), on both sides of the edge and deep in the series' range."""
    for t in (-0.5, -0.2, -0.19, -0.1, -0.01, -1e-5, -1e-9, 1e-9, 1e-5, 0.01, 0.1, 0.18, 0.2,
              0.222, 0.25, 1.0, 10.0, 1e3):
        m = x * (1 + t)
        got = float(bd0(np.array(x), np.array(m)))
        ref = _bd0_ref(x, m)
        assert abs(got - ref) <= 1e-14 * ref, (x, t, got, float(ref))


def test_bd0_series_for_small_arguments_keeps_its_terms():
    """Small x + m with |v| near 0.1: the series needs ~10 terms before they drop below
    1e-17 of the sum; stopping on an absolute rule loses ~1e-12 relative."""
    for x in (1e-5, 1e-4, 1e-3, 0.01, 0.05):
        for ratio in (1.2, 1.22, 0.82, 0.819):
            m = x * ratio
            got = float(bd0(np.array(x), np.array(m)))
            ref = _bd0_ref(x, m)
            assert abs(got - ref) <= 1e-14 * ref, (x, ratio)


def test_bd0_with_an_exact_difference():
    """diff = x - m given exactly: bd0 of (x, fl(m)) with the true difference equals the
    value at the unrounded m to within the float's own rounding of the result."""
    n, p = 10**9, 0.2689414213699951
    np_hi, np_lo = two_product(np.array(float(n)), p)
    x = np.array([268941421.0, 268950000.0, 268900000.0])
    d = (x - np_hi) - np_lo
    got = bd0(x, np_hi, d)
    with mpmath.workdps(_DPS):
        m = mpmath.mpf(n) * mpmath.mpf(p)
        for xi, g in zip(x, got, strict=True):
            xm = mpmath.mpf(float(xi))
            ref = xm * mpmath.log(xm / m) + m - xm
            # without `diff`, the rounding of n p alone costs ~2 ulp(np) / |x - np| relative
            assert abs(g - ref) <= 1e-14 * ref, (float(xi), g, float(ref))


def test_bd0_at_zero_is_the_mean_without_warnings():
    """bd0(0, m) = m (the x log(x/m) term is 0 at x = 0), with no RuntimeWarning from the
    log(0) and 0 * inf that the masked branch evaluates."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = bd0(np.array([0.0, 0.0, 5.0]), np.array([3.0, 1e-300, 5.0]))
    assert got.tolist() == [3.0, 1e-300, 0.0]


# ---------------------------------------------------------------- binomial_logpmf


@pytest.mark.parametrize("p", [0.0, 1.0])
def test_binomial_point_masses(p):
    """Bin(n, 0) is the point mass at 0, Bin(n, 1) the point mass at n."""
    n = 10
    ks = np.arange(-1, n + 2)
    got = binomial_logpmf(ks, n, p)
    want = np.full(ks.shape, -np.inf)
    want[ks == (0 if p == 0.0 else n)] = 0.0
    assert np.array_equal(got, want)
    # complement=True is Bin(n, 1 - p)
    got_c = binomial_logpmf(ks, n, 1.0 - p, complement=True)
    assert np.array_equal(got_c, want)


@pytest.mark.parametrize(("n", "p"), [
    (30, 0.5), (31, 0.5), (32, 0.5),            # k, n - k across 15
    (70, 0.5), (71, 0.5), (72, 0.5),            # across 35
    (160, 0.5), (161, 0.5), (162, 0.5),         # across 80
    (1000, 0.5), (1001, 0.5), (1002, 0.5),      # across 500
    (2000, 0.2505), (640, 0.125),
])
def test_binomial_logpmf_at_the_stirling_range_edges(n, p):
    """Near the mean, where |log pmf| is small and the stated error is ~1e-13 absolute:
    the counts k and n - k cross the stirlerr range edges 15, 35, 80 and 500."""
    ks = np.arange(max(0, round(n * p) - 6), min(n, round(n * p) + 7))
    _within_model(binomial_logpmf(ks, n, p), _log_binom_ref([int(k) for k in ks], n, p))


# ---------------------------------------------------------------- poisson_logpmf


def _log_poisson_ref(ks, mu):
    with mpmath.workdps(_DPS):
        m = mpmath.mpf(mu)
        return [k * mpmath.log(m) - m - mpmath.loggamma(k + 1) for k in ks]


def test_poisson_point_mass_at_zero_mean():
    ks = np.array([-1.0, 0.0, 1.0, 2.0, 50.0])
    assert np.array_equal(poisson_logpmf(ks, 0.0), [-np.inf, 0.0, -np.inf, -np.inf, -np.inf])


@pytest.mark.parametrize("mu", [1.0, 2.0, 15.0, 35.0, 80.0, 500.0, 501.0, 0.001])
def test_poisson_logpmf_near_the_mean(mu):
    """mu = 1 (the point-mass test must not be mu == 1) and means at the stirlerr edges."""
    ks = np.arange(max(0, round(mu) - 6), round(mu) + 7)
    _within_model(poisson_logpmf(ks, mu), _log_poisson_ref([int(k) for k in ks], mu))


# ---------------------------------------------------------------- negative_binomial_logpmf


def _log_nb_ref(ks, r, p):
    with mpmath.workdps(_DPS):
        rm, pm = mpmath.mpf(r), mpmath.mpf(p)
        return [mpmath.loggamma(k + rm) - mpmath.loggamma(rm) - mpmath.loggamma(k + 1)
                + rm * mpmath.log(pm) + k * mpmath.log1p(-pm) for k in ks]


def test_negative_binomial_point_mass_and_negative_counts():
    """p = 1 is the point mass at 0; k < 0 has probability 0 (-inf) for every p."""
    ks = np.array([-2.0, -1.0, 0.0, 1.0, 7.0])
    assert np.array_equal(negative_binomial_logpmf(ks, 3.5, 1.0),
                          [-np.inf, -np.inf, 0.0, -np.inf, -np.inf])
    got = negative_binomial_logpmf(ks, 3.5, 0.4)
    assert got[:2].tolist() == [-np.inf, -np.inf]
    _within_model(got[2:], _log_nb_ref([0, 1, 7], 3.5, 0.4))


@pytest.mark.parametrize(("r", "p"), [
    (1e6 + 0.5, 0.2689414213699951), (1e8, 0.1192029220221175), (2.5e7 + 0.25, 0.7),
    (3e5, 0.5), (0.01, 0.01188), (1e-4, 1.2e-4),
])
def test_negative_binomial_logpmf_with_many_successes(r, p):
    """Large r: the two bd0 terms are both in their series range and their x - m must come
    from the exact product (k + r) p; the far formulas they would otherwise use lose
    ~r u. Small r with (k + r) p ~ 1.2 r: bd0's series with small arguments."""
    mean = r * (1 - p) / p
    sd = math.sqrt(r * (1 - p)) / p
    ks = np.unique(np.clip(np.round(np.linspace(mean - 30 * sd, mean + 30 * sd, 25)), 0, None))
    ks = np.union1d(ks, [0.0, 1.0, 2.0]) if r < 1 else ks
    _within_model(negative_binomial_logpmf(ks, r, p), _log_nb_ref([int(k) for k in ks], r, p))


# ---------------------------------------------------------------- logsumexp


def test_logsumexp_special_values():
    assert logsumexp(np.array([])) == -math.inf
    assert logsumexp(np.array([-np.inf, -np.inf])) == -math.inf
    assert logsumexp(np.array([0.0, np.inf])) == math.inf
    assert logsumexp(np.array([np.inf])) == math.inf
    assert logsumexp(np.array([-np.inf, 2.5])) == 2.5


def test_logsumexp_matches_mpmath():
    x = np.array([[-1000.0, -1001.5], [-999.25, -np.inf]])
    with mpmath.workdps(_DPS):
        ref = mpmath.log(sum(mpmath.exp(mpmath.mpf(v)) for v in (-1000.0, -1001.5, -999.25)))
    assert abs(logsumexp(x) - ref) <= 4 * _U * abs(ref)
    assert logsumexp([1, 2, 3]) == pytest.approx(float(mpmath.log(
        mpmath.e + mpmath.e**2 + mpmath.e**3)), rel=4 * _U)


# ---------------------------------------------------------------- log1mexp


def test_log1mexp_is_accurate_on_both_branches():
    """log(1 - e^x) at 60 digits: near 0 (where log1p(-exp(x)) loses everything to the
    rounding of exp(x)), around -log 2, and far out."""
    xs = [-1e-300, -1e-20, -1e-10, -1e-5, -0.01, -0.5, -0.6931471805599453, -0.7, -1.0, -5.0,
          -40.0, -700.0, -1e5]
    got = log1mexp(np.array(xs))
    for x, g in zip(xs, got, strict=True):
        with mpmath.workdps(_DPS):
            xm = mpmath.mpf(x)
            # each form where it has no cancellation at 60 digits
            ref = mpmath.log(-mpmath.expm1(xm)) if x > -1 else mpmath.log1p(-mpmath.exp(xm))
        assert abs(g - ref) <= 4 * _U * abs(ref) + 5e-324, (x, g, float(ref))  # underflow


def test_log1mexp_at_and_above_zero_is_minus_infinity_without_warnings():
    """-inf where x >= 0 (exact at 0; the logarithm is undefined above), no NaN, no
    RuntimeWarning; a float for a scalar, an array of floats for an array."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert log1mexp(0.0) == -math.inf
        assert log1mexp(0.5) == -math.inf
        arr = log1mexp(np.array([0.0, 0.5, 3.0, -1.0]))
    assert arr.dtype == np.float64
    assert arr[:3].tolist() == [-math.inf] * 3
    assert arr[3] == pytest.approx(math.log(-math.expm1(-1.0)), rel=4 * _U)


def test_log1mexp_returns_a_float_for_a_scalar():
    got = log1mexp(-1.0)
    assert type(got) is float
    assert got == pytest.approx(math.log(-math.expm1(-1.0)), rel=4 * _U)
    assert type(log1mexp(np.float64(-3.0))) is float
    assert log1mexp(np.array([-1.0])).shape == (1,)


# ---------------------------------------------------------------- log_sub


@pytest.mark.parametrize(("a", "b"), [(0.0, -1e-12), (0.0, -1.0), (5.0, 4.999), (-800.0, -801.0),
                                      (3.0, -40.0), (-2.0, -2.0 - 1e-9)])
def test_log_sub_matches_mpmath(a, b):
    with mpmath.workdps(_DPS):
        ref = mpmath.log(mpmath.exp(mpmath.mpf(a)) - mpmath.exp(mpmath.mpf(b)))
    got = log_sub(a, b)
    assert type(got) is float
    assert abs(got - ref) <= 8 * _U * max(abs(ref), 1.0), (got, float(ref))


def test_log_sub_special_cases():
    assert log_sub(1.5, -math.inf) == 1.5
    assert log_sub(-math.inf, -math.inf) == -math.inf
    assert log_sub(2.0, 2.0) == -math.inf
    with pytest.raises(ValueError, match="a >= b"):
        log_sub(1.0, 1.0 + 1e-15)


# ---------------------------------------------------------------- exp_value, log_value


def test_exp_value_in_float_range_is_a_float():
    assert exp_value(-math.inf) == 0.0
    assert type(exp_value(-math.inf)) is float
    for x in (0.0, 1.0, -3.25, -699.9, 700.0):
        got = exp_value(x)
        assert type(got) is float
        assert got == math.exp(x)


@pytest.mark.parametrize("x", [-700.0, -700.5, -745.5, -1000.0, -1e6])
def test_exp_value_below_float_range_is_an_mpf_and_never_zero(x):
    got = exp_value(x)
    assert isinstance(got, mpmath.mpf)
    assert got > 0
    with mpmath.workdps(_DPS):
        ref = mpmath.exp(mpmath.mpf(x))
        assert abs(got - ref) <= 4 * _U * ref


def test_log_value_of_floats_and_mpfs():
    assert log_value(0.0) == -math.inf
    assert log_value(0) == -math.inf
    assert log_value(mpmath.mpf(0)) == -math.inf
    assert log_value(1.0) == 0.0
    assert log_value(2.5) == math.log(2.5)
    tiny = mpmath.mpf("1e-400")
    assert type(log_value(tiny)) is float
    with mpmath.workdps(_DPS):
        ref = mpmath.log(mpmath.mpf("1e-400"))
    assert abs(log_value(tiny) - ref) <= 4 * _U * abs(ref)
    assert log_value(exp_value(-1234.5)) == pytest.approx(-1234.5, rel=4 * _U)


# ---------------------------------------------------------------- to_mpf


def test_to_mpf_of_rationals_divides_once():
    with mpmath.workdps(30):
        assert to_mpf(fmpq(1, 3)) == mpmath.mpf(1) / 3
        assert to_mpf(fmpq(-22, 7)) == mpmath.mpf(-22) / 7
        assert to_mpf(Fraction(5, 8)) == mpmath.mpf("0.625")
        assert to_mpf(fmpq(10**40 + 1, 3)) == mpmath.mpf(10**40 + 1) / 3
    assert to_mpf(0.1) == mpmath.mpf(0.1)
    assert to_mpf(7) == 7


# ---------------------------------------------------------------- to_fmpq


def test_to_fmpq_of_mpfs_is_exact():
    """An mpf is a dyadic rational sign * man * 2^exp; its Fraction is the oracle
    (mpmath.mpf -> float is exact for these 53-bit values, and Fraction(float) is exact)."""
    for v in (6.0, -6.0, 3.0, -3.0, 1.5, -1.5, 0.1, -0.1, 2.0**70 * 3, -(2.0**-1070),
              12345.678, -1e300):
        got = to_fmpq(mpmath.mpf(v))
        f = Fraction(v)
        assert got == fmpq(f.numerator, f.denominator), v
    with mpmath.workdps(50):
        third = mpmath.mpf(1) / 3
        got = to_fmpq(-third)
        assert got < 0 and abs(got + fmpq(1, 3)) < fmpq(1, 2**160)
        assert to_mpf(got) == -third
    assert to_fmpq(mpmath.mpf(0)) == 0


def test_to_fmpq_of_infinities_and_nan_raises():
    for bad in (mpmath.inf, -mpmath.inf, mpmath.nan):
        with pytest.raises(ValueError, match="no rational value"):
            to_fmpq(bad)
    for bad in (math.inf, math.nan):
        with pytest.raises((ValueError, OverflowError)):
            to_fmpq(bad)


def test_to_fmpq_of_other_types():
    assert to_fmpq(fmpz(7)) == 7
    assert to_fmpq(fmpz(-(10**30))) == -(10**30)
    assert to_fmpq(np.int64(-7)) == -7
    assert to_fmpq(Fraction(-3, 4)) == fmpq(-3, 4)
    assert to_fmpq(5) == 5
    assert to_fmpq(0.375) == fmpq(3, 8)

    class Ratio:  # a numbers.Rational that is neither an int nor a Fraction
        def __init__(self, num, den):
            self.numerator, self.denominator = num, den

    numbers.Rational.register(Ratio)
    assert to_fmpq(Ratio(-5, 12)) == fmpq(-5, 12)
    with pytest.raises(TypeError, match="cannot convert str"):
        to_fmpq("1/3")


# ---------------------------------------------------------------- arb_to_mpf, arb_lower/upper


def test_arb_to_mpf_is_the_exact_midpoint():
    """A 200-bit ball of 1/3: its midpoint m satisfies |3 m - 1| <= 2^-198, which a
    midpoint rounded to mpmath's 53 bits does not."""
    old = ctx.prec
    try:
        ctx.prec = 200
        x = arb(1) / 3
        y = -arb(5) * arb(2) ** 100
    finally:
        ctx.prec = old
    with mpmath.workprec(53):
        m = arb_to_mpf(x)
        assert isinstance(m, mpmath.mpf)
        assert mantissa_bits(m) > 150
    assert abs(3 * to_fmpq(m) - 1) <= fmpq(1, 2**198)
    assert to_fmpq(arb_to_mpf(y)) == -5 * 2**100
    assert arb_to_mpf(arb(0.375)) == mpmath.mpf(0.375)
    assert arb_to_mpf(arb(-6)) == -6


def test_arb_ends_are_exact_rational_ends():
    old = ctx.prec
    try:
        ctx.prec = 100
        third = arb(1) / 3
        e = arb(1).exp()
    finally:
        ctx.prec = old
    lo, hi = arb_lower(third), arb_upper(third)
    assert lo <= fmpq(1, 3) <= hi
    assert 0 < hi - lo < fmpq(1, 2**90)
    # e to 60 decimals (the published expansion), within 1e-60 of e
    e_60 = Fraction("2.718281828459045235360287471352662497757247093699959574966968")
    e_ref = fmpq(e_60.numerator, e_60.denominator)
    assert arb_lower(e) <= e_ref + fmpq(1, 10**59) and e_ref - fmpq(1, 10**59) <= arb_upper(e)
    assert arb_upper(e) - arb_lower(e) < fmpq(1, 2**90)
    # exact integer balls with positive exponents: lower == upper == the integer
    for v in (6, -6, 3 * 2**80, 1):
        assert arb_lower(arb(v)) == v == arb_upper(arb(v))
    ball = arb(1.5, 0.25)  # radius rounded up by arb to a 30-bit magnitude
    assert fmpq(5, 4) - fmpq(1, 2**28) <= arb_lower(ball) <= fmpq(5, 4)
    assert fmpq(7, 4) <= arb_upper(ball) <= fmpq(7, 4) + fmpq(1, 2**28)
    big = arb(2**70, 2**60)  # mid and radius with positive exponents
    assert arb_lower(big) <= 2**70 - 2**60 and arb_upper(big) >= 2**70 + 2**60
    assert arb_upper(big) - arb_lower(big) <= 2**61 + 2**40


def test_arb_ends_of_a_non_finite_ball_raise():
    for bad in (arb("inf"), arb(1, "inf"), arb("nan")):
        with pytest.raises(ValueError, match="not finite"):
            arb_lower(bad)
        with pytest.raises(ValueError, match="not finite"):
            arb_upper(bad)


# ---------------------------------------------------------------- mantissa_bits


def test_mantissa_bits():
    assert mantissa_bits(0.1) == 53
    assert mantissa_bits(1.0) == 53  # a float counts as 53 bits, whatever its value
    assert mantissa_bits(mpmath.mpf(0)) == 0
    assert mantissa_bits(mpmath.mpf(1)) == 1
    assert mantissa_bits(mpmath.mpf(3)) == 2
    assert mantissa_bits(mpmath.mpf(0.1)) == 53 - 1  # 0.1 = 0x1.999999999999ap-4: even mantissa
    with mpmath.workprec(100):
        assert mantissa_bits(mpmath.mpf(1) / 3) == 100
