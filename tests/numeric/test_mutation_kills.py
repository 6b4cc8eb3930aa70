"""Compensated summation and the certified binomial windows, pinned where mutation testing
found gaps (docs/soundness.md#mutation-testing).

The oracles are independent of the code under test: math.fsum (correctly rounded sums),
exact binomial tails summed in mpmath at 60 digits, Chernoff exponents n KL(k/n || p)
written out in mpmath, and the closed forms of the docstrings.
"""

import math

import mpmath
import numpy as np
import pytest

from accountant.numeric.special import bd0, binomial_logpmf, log_pmf_error
from accountant.numeric.summation import cascade_sum, cascade_sum_rows
from accountant.numeric.tails import (
    EXPONENT_SLACK,
    LOG_SLACK,
    binomial_chernoff_log,
    binomial_fast_window,
    binomial_log_window,
    binomial_outside,
    binomial_window_linear,
    certified_exp,
    certified_log_bound,
    chernoff_window,
)

_U = 2.0**-53

# ---------------------------------------------------------------- cascade_sum


def _cascade_bound(x):
    """The docstring's bound: 2u |sum| + 2 N u^2 sum|x| (Ogita, Rump, Oishi 2005)."""
    x = np.asarray(x, dtype=float).ravel()
    return 2 * _U * abs(math.fsum(x)) + 2 * x.size * _U**2 * math.fsum(np.abs(x)) + 5e-324


def test_cascade_sum_of_nothing_is_zero():
    assert cascade_sum(np.array([])) == 0.0
    assert isinstance(cascade_sum(np.array([])), float)


@pytest.mark.parametrize("value", [0.1, -3.5, 1e-310, 1e300])
def test_cascade_sum_of_one_term_is_that_term(value):
    assert cascade_sum(np.array([value])) == value


@pytest.mark.parametrize(("terms", "exact"), [
    ([1e16, 1.0, -1e16], 1.0),  # a naive left-to-right sum gives 0.0
    ([1.0, 1e100, 1.0, -1e100], 2.0),
    ([1e16, 1.0, 1.0, -1e16, 1.0], 3.0),  # odd length: padding at the first level
    ([3.0, 1e-16, 1e-16, 1e-16, 1e-16, -3.0], 4e-16),
])
def test_cascade_sum_recovers_what_cancellation_hides(terms, exact):
    """Hand derivation: each sum is exactly `exact` in real arithmetic."""
    assert cascade_sum(np.array(terms)) == pytest.approx(exact, rel=1e-15, abs=0)


@pytest.mark.parametrize("size", [2, 3, 7, 64, 1001, 4096])
@pytest.mark.parametrize("seed", [0, 1])
def test_cascade_sum_is_within_its_stated_bound_of_fsum(size, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size) * 10.0 ** rng.integers(-20, 20, size)
    assert abs(cascade_sum(x) - math.fsum(x)) <= _cascade_bound(x)


def test_cascade_sum_accepts_lists():
    assert cascade_sum([1e16, 1.0, -1e16]) == 1.0


def test_cascade_sum_converts_integers_to_float64():
    """2**62 + 2**62 = 2**63 overflows int64; in float64 it is exact (docstring: converted)."""
    assert cascade_sum(np.array([2**62, 2**62], dtype=np.int64)) == 2.0**63


def test_cascade_sum_beats_numpy_on_a_long_ill_conditioned_sum():
    """10**4 alternating +-1e10 and 10**4 copies of 0.1: fsum is the truth."""
    x = np.concatenate([np.tile([1e10, -1e10], 5000), np.full(10**4, 0.1)])
    rng = np.random.default_rng(3)
    rng.shuffle(x)
    truth = math.fsum(x)
    assert abs(cascade_sum(x) - truth) <= _cascade_bound(x)
    assert abs(cascade_sum(x) - truth) <= abs(float(np.sum(x)) - truth)


@pytest.mark.parametrize("size", [0, 1, 2, 7, 64, 1001])
def test_row_sums_are_each_rows_cascade_sum_and_within_its_bound(size):
    # the rows at once: the same tree per row, so each row's sum is within the bound of
    # fsum (cancellations included), and the rows do not mix
    rng = np.random.default_rng(size)
    x = rng.standard_normal((5, size)) * 10.0 ** rng.integers(-20, 20, (5, size))
    if size >= 3:
        x[0, :3] = [1e16, 1.0, -1e16]
    sums = cascade_sum_rows(x)
    assert sums.shape == (5,)
    for row, got in zip(x, sums, strict=True):
        assert abs(got - math.fsum(row)) <= _cascade_bound(row)
        assert got == pytest.approx(cascade_sum(row), rel=4 * _U, abs=_cascade_bound(row))
    if size >= 3:
        assert sums[0] == math.fsum(x[0])
    with pytest.raises(ValueError, match="2-D"):
        cascade_sum_rows(np.ones(3))


# ---------------------------------------------------------------- certified exponents


@pytest.mark.parametrize("exponent", [0.0, 1e-3, 1.0, 37.5, 700.0, 1e6])
def test_certified_log_bound_is_the_stated_closed_form(exponent):
    expected = -exponent * (1 - EXPONENT_SLACK) + LOG_SLACK
    assert certified_log_bound(exponent) == expected
    assert certified_log_bound(exponent) > -exponent  # raised: a certificate, not the target
    assert certified_exp(exponent) == math.exp(expected)


def test_slack_constants_are_the_documented_ones():
    """docs/soundness.md#certified-windows: relative 1e-9 on the exponent, 1e-12 on the log."""
    assert (EXPONENT_SLACK, LOG_SLACK) == (1e-9, 1e-12)


def _kl_exponent(n, p, x):
    """n KL(x/n || p) in mpmath at 60 digits (0 log 0 = 0)."""
    with mpmath.workdps(60):
        n, p, x = mpmath.mpf(n), mpmath.mpf(p), mpmath.mpf(x)
        out = mpmath.mpf(0)
        if x > 0:
            out += x * mpmath.log(x / (n * p))
        if n - x > 0:
            out += (n - x) * mpmath.log((n - x) / (n * (1 - p)))
        return out


def _exact_tail(n, p, lo, hi):
    """Bin(n, p) mass outside [lo, hi], summed exactly enough (60 digits)."""
    with mpmath.workdps(60):
        p = mpmath.mpf(p)
        def pmf(k):
            return mpmath.binomial(n, k) * p**k * (1 - p) ** (n - k)
        return (mpmath.fsum(pmf(k) for k in range(0, max(lo, 0)))
                + mpmath.fsum(pmf(k) for k in range(hi + 1, n + 1)))


@pytest.mark.parametrize(("n", "p", "x"), [
    (100, 0.3, 10), (100, 0.3, 55), (1000, 0.01, 0), (1000, 0.01, 40), (50, 0.5, 50),
    (10**6, 0.25, 248000),
])
def test_binomial_chernoff_log_matches_kl_and_bounds_the_tail(n, p, x):
    exponent = _kl_exponent(n, p, x)
    log_bound = binomial_chernoff_log(n, p, x)
    assert log_bound >= -exponent  # certified: never below the true Chernoff exponent
    assert log_bound == pytest.approx(float(-exponent), rel=2e-9, abs=2e-12)
    if n <= 1000:
        lo, hi = (x + 1, n) if x < n * p else (0, x - 1)
        assert _exact_tail(n, p, lo, hi) <= mpmath.exp(log_bound)


# ---------------------------------------------------------------- binomial_log_window


@pytest.mark.parametrize(("n", "p", "log_tail"), [
    (1000, 0.3, -20.0), (1000, 0.01, -30.0), (400, 0.5, -5.0), (200, 0.9, -40.0),
    (10**5, 0.2, -900.0),
])
def test_log_window_certifies_its_outside_mass(n, p, log_tail):
    lo, hi, log_out = binomial_log_window(n, p, log_tail)
    assert 0 <= lo <= n * p <= hi <= n
    edges = ([lo - 1] if lo > 0 else []) + ([hi + 1] if hi < n else [])
    logs = [binomial_chernoff_log(n, p, e) for e in edges]
    assert log_out == pytest.approx(float(mpmath.log(mpmath.fsum(mpmath.exp(v) for v in logs))),
                                    rel=1e-14, abs=1e-14)
    assert log_out <= log_tail + math.log(2.0)  # each edge's exponent beats -log_tail
    if n <= 1000:
        assert _exact_tail(n, p, lo, hi) <= mpmath.exp(log_out)


@pytest.mark.parametrize(("n", "p", "log_tail"), [(1000, 0.3, -20.0), (500, 0.02, -15.0)])
def test_log_window_is_mean_plus_minus_its_stated_width(n, p, log_tail):
    """mean -+ (z sd + |log_tail|/3), z = sqrt(2 max(|log_tail|, 1)) + 3, widened by one."""
    lo, hi, _ = binomial_log_window(n, p, log_tail)
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    width = (math.sqrt(2 * max(-log_tail, 1.0)) + 3.0) * sd - log_tail / 3
    assert lo == max(0, math.floor(mean - width) - 1)
    assert hi == min(n, math.ceil(mean + width) + 1)


def test_log_window_small_target_uses_z_of_one():
    """log_tail = -0.5 > -1: z = sqrt(2) + 3 (the max with 1)."""
    n, p = 10**4, 0.5
    lo, hi, _ = binomial_log_window(n, p, -0.5)
    width = (math.sqrt(2.0) + 3.0) * 50.0 + 0.5 / 3
    assert (lo, hi) == (math.floor(5000 - width) - 1, math.ceil(5000 + width) + 1)


def test_log_window_with_its_first_point_at_one_bounds_the_mass_at_zero():
    """Bin(1000, 0.03) at log_tail -2: lo = 1; the bound at 0 is part of log_out."""
    lo, hi, log_out = binomial_log_window(1000, 0.03, -2.0)
    assert lo == 1
    expected = mpmath.log(mpmath.exp(binomial_chernoff_log(1000, 0.03, 0))
                          + mpmath.exp(binomial_chernoff_log(1000, 0.03, hi + 1)))
    assert log_out == pytest.approx(float(expected), rel=1e-15, abs=0)


def test_log_window_that_covers_everything_has_no_outside_mass():
    assert binomial_log_window(5, 0.5, -30.0) == (0, 5, -math.inf)


def test_log_window_with_one_edge_at_the_support_end():
    n, p = 200, 0.001
    lo, hi, log_out = binomial_log_window(n, p, -10.0)
    assert lo == 0 and hi < n
    assert log_out == binomial_chernoff_log(n, p, hi + 1)


@pytest.mark.parametrize(("n", "p"), [(1000, 0.3), (300, 0.01)])
def test_complement_window_is_the_mirror(n, p):
    lo, hi, log_out = binomial_log_window(n, p, -20.0)
    assert binomial_log_window(n, p, -20.0, complement=True) == (n - hi, n - lo, log_out)
    c_lo, c_hi, c_out = binomial_log_window(n, p, -20.0, complement=True)
    assert c_lo <= n * (1 - p) <= c_hi
    assert _exact_tail(n, 1 - p, c_lo, c_hi) <= mpmath.exp(c_out)


# ---------------------------------------------------------------- binomial_fast_window


@pytest.mark.parametrize(("m", "p", "tail"), [
    (1000, 0.3, 1e-10), (1000, 0.02, 1e-6), (50, 0.5, 1e-3), (10**5, 0.4, 1e-300),
    (2000, 0.5, 1e-320),
])
def test_fast_window_logs_and_certificate(m, p, tail):
    logs, outside, lo = binomial_fast_window(m, p, tail)
    hi = lo + len(logs) - 1
    assert 0 <= lo <= m * p <= hi <= m
    np.testing.assert_array_equal(logs, binomial_logpmf(np.arange(lo, hi + 1), m, p))
    assert outside == binomial_outside(m, p, lo, hi) or outside >= 5e-324
    if m <= 2000:
        assert _exact_tail(m, p, lo, hi) <= outside


@pytest.mark.parametrize(("m", "p", "tail"), [
    (1000, 0.3, 1e-10), (10**4, 0.05, 1e-30), (2000, 0.5, 1e-12),  # 0.5: both edges count
])
def test_fast_window_is_mean_plus_minus_gaussian_z(m, p, tail):
    """z = sqrt(2 log(2/tail)) + 3, the window floor(mean - z sd) - 1 .. ceil(mean + z sd) + 1."""
    logs, outside, lo = binomial_fast_window(m, p, tail)
    mean, sd = m * p, math.sqrt(m * p * (1 - p))
    z = math.sqrt(2 * math.log(2 / tail)) + 3.0
    assert lo == math.floor(mean - z * sd) - 1
    assert lo + len(logs) - 1 == math.ceil(mean + z * sd) + 1
    edges = (lo - 1, lo + len(logs))
    expected = sum(math.exp(binomial_chernoff_log(m, p, e)) for e in edges)
    assert outside == pytest.approx(expected, rel=1e-15, abs=0)
    assert outside <= tail  # the Gaussian z is generous: the certificate meets the target


def test_fast_window_edge_bounds_never_round_to_zero():
    """Both edge bounds are below the float range: each counts as the least subnormal."""
    logs, outside, lo = binomial_fast_window(10**6, 0.5, 1e-320)
    assert binomial_chernoff_log(10**6, 0.5, lo - 1) < -745
    assert outside == 2 * 5e-324


def test_fast_window_with_its_first_point_at_one_bounds_the_mass_at_zero():
    """Bin(500, 0.08) at tail 1e-2: lo = 1, so P(X = 0) is cut and must be certified."""
    logs, outside, lo = binomial_fast_window(500, 0.08, 1e-2)
    assert lo == 1
    hi = lo + len(logs) - 1
    expected = (math.exp(binomial_chernoff_log(500, 0.08, 0))
                + math.exp(binomial_chernoff_log(500, 0.08, hi + 1)))
    assert outside == pytest.approx(expected, rel=1e-15, abs=0)
    assert _exact_tail(500, 0.08, lo, hi) <= outside


def test_fast_window_of_one_trial_is_the_whole_law():
    """Bin(1, 0.3): log PMF (log 0.7, log 0.3) on 0..1, nothing outside."""
    logs, outside, lo = binomial_fast_window(1, 0.3, 1e-9)
    np.testing.assert_allclose(logs, [math.log(0.7), math.log(0.3)], rtol=1e-15)
    assert (outside, lo) == (0.0, 0)


def test_fast_window_of_zero_trials():
    logs, outside, lo = binomial_fast_window(0, 0.3, 1e-9)
    np.testing.assert_array_equal(logs, [0.0])
    assert (outside, lo) == (0.0, 0)


def test_fast_window_reaching_the_support_counts_no_edge():
    logs, outside, lo = binomial_fast_window(8, 0.5, 1e-3)
    assert (lo, len(logs), outside) == (0, 9, 0.0)


# ---------------------------------------------------------------- binomial_outside


def test_outside_is_the_sum_of_edge_bounds():
    m, p = 1000, 0.3
    expected = (math.exp(binomial_chernoff_log(m, p, 249))
                + math.exp(binomial_chernoff_log(m, p, 351)))
    assert binomial_outside(m, p, 250, 350) == pytest.approx(expected, rel=1e-15, abs=0)
    assert _exact_tail(m, p, 250, 350) <= binomial_outside(m, p, 250, 350)


def test_outside_of_one_sided_windows():
    m, p = 1000, 0.3
    assert binomial_outside(m, p, 0, 350) == math.exp(binomial_chernoff_log(m, p, 351))
    assert binomial_outside(m, p, 250, m) == math.exp(binomial_chernoff_log(m, p, 249))
    assert binomial_outside(m, p, 0, m) == 0.0


@pytest.mark.parametrize(("lo", "hi"), [
    (302, 400),  # lo - 1 = 301 is above the mean 300
    (301, 400),  # lo - 1 = 300 is the mean: no Chernoff bound
    (200, 299),  # hi + 1 = 300 is the mean
    (200, 250),
])
def test_outside_is_one_when_an_edge_is_on_the_wrong_side(lo, hi):
    assert binomial_outside(1000, 0.3, lo, hi) == 1.0


def test_outside_of_a_window_starting_at_one_counts_the_mass_at_zero():
    m, p = 1000, 0.01
    expected = (math.exp(binomial_chernoff_log(m, p, 0))
                + math.exp(binomial_chernoff_log(m, p, 31)))
    assert binomial_outside(m, p, 1, 30) == pytest.approx(expected, rel=1e-15, abs=0)
    assert _exact_tail(m, p, 1, 30) <= binomial_outside(m, p, 1, 30)


# Bin(1000, 0.3005) has the non-integer mean 300.5: edges one step either side of it
@pytest.mark.parametrize(("lo", "hi"), [(302, 1000), (0, 299)])
def test_outside_is_one_for_an_edge_past_a_fractional_mean(lo, hi):
    """lo - 1 = 301 >= 300.5, or hi + 1 = 300 <= 300.5: the Chernoff bound says nothing."""
    assert binomial_outside(1000, 0.3005, lo, hi) == 1.0


@pytest.mark.parametrize(("lo", "hi", "edge"), [(301, 1000, 300), (0, 300, 301)])
def test_outside_bounds_an_edge_just_short_of_a_fractional_mean(lo, hi, edge):
    """lo - 1 = 300 < 300.5, or hi + 1 = 301 > 300.5: a real bound below 1."""
    out = binomial_outside(1000, 0.3005, lo, hi)
    assert out == math.exp(binomial_chernoff_log(1000, 0.3005, edge)) < 1.0
    assert _exact_tail(1000, 0.3005, lo, hi) <= out


def test_outside_just_inside_the_mean_is_a_real_bound():
    """lo - 1 = 299 < 300 and hi + 1 = 301 > 300: both bounds are near 1; the cap holds."""
    assert binomial_outside(1000, 0.3, 300, 300) == 1.0  # capped: two bounds near 1 each
    out = binomial_outside(1000, 0.3, 280, 320)  # each edge exp(-0.95) or so: no cap
    assert 0.5 < out < 1.0
    assert _exact_tail(1000, 0.3, 280, 320) <= out


# ---------------------------------------------------------------- binomial_window_linear


@pytest.mark.parametrize("complement", [False, True])
def test_window_linear_is_exp_of_the_log_window(complement):
    m, p, log_tail = 1000, 0.05, -25.0
    pmf, lo, log_out, rel = binomial_window_linear(m, p, log_tail, complement=complement)
    w_lo, w_hi, w_out = binomial_log_window(m, p, log_tail, complement=complement)
    logs = binomial_logpmf(np.arange(w_lo, w_hi + 1), m, p, complement=complement)
    assert (lo, log_out) == (w_lo, w_out)
    np.testing.assert_array_equal(pmf, np.exp(logs))
    assert rel == math.expm1(float(np.max(log_pmf_error(logs))))
    assert 0 < rel < 1e-10
    # the window plus its certified outside mass hold all of the law's mass
    assert math.fsum(pmf) * (1 + rel) + math.exp(log_out) >= 1 - 1e-12
    mean = m * (1 - p if complement else p)
    assert lo <= mean <= lo + len(pmf) - 1


def test_window_linear_defaults_to_the_law_itself():
    """complement defaults to False: the window of Bin(1000, 0.05) holds its mean 50."""
    pmf, lo, log_out, _ = binomial_window_linear(1000, 0.05, -25.0)
    assert (lo, log_out) == binomial_log_window(1000, 0.05, -25.0)[::2]
    assert lo <= 50 <= lo + len(pmf) - 1 < 950


def test_window_linear_of_zero_trials():
    pmf, lo, log_out, rel = binomial_window_linear(0, 0.4, -10.0)
    np.testing.assert_array_equal(pmf, [1.0])
    assert (lo, log_out, rel) == (0, -math.inf, 0.0)


# ---------------------------------------------------------------- chernoff_window


def _poisson_exponent(lam):
    """Chernoff exponent of Poisson(lam): bd0(x, lam) = x log(x/lam) + lam - x."""
    def f(x):
        return float(bd0(np.array(float(x)), lam))
    return f


def _poisson_tail(lam, lo, hi):
    with mpmath.workdps(60):
        lam = mpmath.mpf(lam)
        inside = mpmath.fsum(mpmath.exp(-lam) * lam**k / mpmath.factorial(k)
                             for k in range(lo, hi + 1))
        return 1 - inside


@pytest.mark.parametrize(("lam", "tail"), [(50.0, 1e-6), (15.0, 1e-3), (1000.0, 1e-12)])
def test_chernoff_window_is_the_narrowest_with_each_side_below_half_the_tail(lam, tail):
    f = _poisson_exponent(lam)
    lo, hi, cut = chernoff_window(f, lam, 0.0, math.inf, tail)
    target = math.log(2 / tail)
    assert 0 < lo <= lam <= hi
    # each cut side's Chernoff exponent reaches the target (bound <= tail/2) ...
    assert f(lo - 1) >= target and f(hi + 1) >= target
    # ... and the window is no wider: one step in on either side would not
    assert f(lo) < target and f(hi) < target
    assert cut == certified_exp(f(lo - 1)) + certified_exp(f(hi + 1))
    assert cut <= tail * (1 + 1e-6)
    assert _poisson_tail(lam, lo, hi) <= cut


def test_chernoff_window_with_subnormal_tail():
    f = _poisson_exponent(20.0)
    lo, hi, cut = chernoff_window(f, 20.0, 0.0, math.inf, 1e-320)
    target = math.log(2.0) - math.log(1e-320)
    assert f(hi + 1) >= target and f(hi) < target
    assert lo == 0  # f(0) = 20 < 737: the whole left side is kept
    assert cut == certified_exp(f(hi + 1))


@pytest.mark.parametrize(("n", "p", "tail"), [
    (1000, 0.3, 1e-9), (100, 0.5, 1e-4),
    (100, 0.7, 1e-4),  # the search bracket max(2 mean, mean + 10) = 140 passes n: clamped
])
def test_chernoff_window_of_a_binomial(n, p, tail):
    def f(x):
        return float(bd0(np.array(x), n * p) + bd0(np.array(n - x), n * (1 - p)))

    lo, hi, cut = chernoff_window(f, n * p, 0.0, float(n), tail)
    target = math.log(2 / tail)
    assert f(lo - 1) >= target > f(lo)
    assert f(hi + 1) >= target > f(hi)
    assert cut == certified_exp(f(lo - 1)) + certified_exp(f(hi + 1))
    assert _exact_tail(n, p, lo, hi) <= cut <= tail * (1 + 1e-6)


def test_chernoff_window_keeps_a_support_end_the_target_does_not_reach():
    """Bin(20, 0.5): f(0) = f(20) = 20 log 2 = 13.9 < log(2/1e-9) = 21.4: the whole support."""
    def f(x):
        return float(bd0(np.array(x), 10.0) + bd0(np.array(20.0 - x), 10.0))

    assert chernoff_window(f, 10.0, 0.0, 20.0, 1e-9) == (0, 20, 0.0)


def test_chernoff_window_one_end_kept_other_cut():
    """Bin(30, 0.1): the left end (f(0) = 3.2) is kept, the right side is cut."""
    n, p = 30, 0.1

    def f(x):
        return float(bd0(np.array(x), n * p) + bd0(np.array(n - x), n * (1 - p)))

    lo, hi, cut = chernoff_window(f, n * p, 0.0, float(n), 1e-6)
    target = math.log(2 / 1e-6)
    assert lo == 0 and hi < n
    assert f(hi + 1) >= target > f(hi)
    assert cut == certified_exp(f(hi + 1))


def test_chernoff_window_with_a_non_integer_left_limit():
    """The left edge is clamped to int(lo_limit) and certified from there."""
    f = _poisson_exponent(100.0)
    lo, hi, cut = chernoff_window(f, 100.0, 0.5, math.inf, 1e-6)
    target = math.log(2 / 1e-6)
    assert f(lo - 1) >= target > f(lo)
    assert cut == certified_exp(f(lo - 1)) + certified_exp(f(hi + 1))


def test_chernoff_window_cutting_only_zero_certifies_it():
    """Poisson(20) at tail 2 e^-18 (target 18): f(0) = 20 >= 18 > f(1) = 16.0, so lo = 1."""
    f = _poisson_exponent(20.0)
    tail = 2 * math.exp(-18.0)
    lo, hi, cut = chernoff_window(f, 20.0, 0.0, math.inf, tail)
    assert lo == 1
    assert cut == certified_exp(f(0)) + certified_exp(f(hi + 1))
    assert _poisson_tail(20.0, lo, hi) <= cut


def test_chernoff_window_with_roots_at_integers():
    """f(x) = (x - 10)^2 at target 4 (tail 2 e^-4) has its roots at 8 and 12 (up to the
    rounding of the target): the search ends on the width test, not the integer test."""
    def f(x):
        return (x - 10.0) ** 2

    lo, hi, cut = chernoff_window(f, 10.0, 0.0, math.inf, 2 * math.exp(-4.0))
    assert lo in (8, 9) and hi in (11, 12)
    assert f(lo - 1) >= 4.0 * (1 - 1e-12) and f(hi + 1) >= 4.0 * (1 - 1e-12)
    assert cut == certified_exp(f(lo - 1)) + certified_exp(f(hi + 1))


@pytest.mark.parametrize(("n", "p", "log_tail"), [
    (1000, 0.3, -20.0), (1000, 0.01, -30.0), (200, 0.9, -40.0), (10**6, 0.9, -29.7),
    (10**9, 1e-6, -29.7), (10**5, 1 - 1e-9, -29.7), (50, 0.3, -30.0), (2000, 0.5, -3.0),
])
def test_tight_window_is_the_least_certified_one_inside_the_wide_one(n, p, log_tail):
    """tight=True: the edges move in to the last points whose outer neighbour's Chernoff
    bound is <= log_tail - log 2; one step further in breaks that, and the certificate is
    still the bound at the returned edges (the exact tail below it where n is small)."""
    wide_lo, wide_hi, _ = binomial_log_window(n, p, log_tail)
    lo, hi, log_out = binomial_log_window(n, p, log_tail, tight=True)
    assert wide_lo <= lo <= n * p <= hi <= wide_hi
    side = log_tail - math.log(2.0)
    if lo > 0:
        assert binomial_chernoff_log(n, p, lo - 1) <= side
        if lo > wide_lo:                                   # it moved: and no further
            assert binomial_chernoff_log(n, p, lo) > side
    if hi < n:
        assert binomial_chernoff_log(n, p, hi + 1) <= side
        if hi < wide_hi:
            assert binomial_chernoff_log(n, p, hi) > side
    edges = ([lo - 1] if lo > 0 else []) + ([hi + 1] if hi < n else [])
    logs = [binomial_chernoff_log(n, p, e) for e in edges]
    if logs:
        assert log_out == pytest.approx(
            float(mpmath.log(mpmath.fsum(mpmath.exp(v) for v in logs))), rel=1e-14, abs=1e-14)
    assert log_out <= log_tail
    if n <= 2000:
        assert _exact_tail(n, p, lo, hi) <= mpmath.exp(log_out)
    # the complement's window is its mirror
    assert binomial_log_window(n, p, log_tail, tight=True, complement=True) == (
        n - hi, n - lo, log_out)


def test_tight_windows_of_the_subsampled_round_shrink_it():
    """The wide edges (z sd + |log_tail|/3, z = 10.7 at log_tail = -29.7) against the tight
    ones: 1e6 trials at p = 0.9 go from 6,449 points to about 4,700."""
    wide = binomial_log_window(10**6, 0.9, -29.7)
    tight = binomial_log_window(10**6, 0.9, -29.7, tight=True)
    assert (tight[1] - tight[0]) < 0.75 * (wide[1] - wide[0])
