"""Tests of verify.crosscheck: the goodness-of-fit test accepts samples of the right law,
rejects a wrong law, handles 1-D/2-D and the outside-grid cell, and its empirical
false-alarm rate matches the stated one.

Spurious-failure rates: each "passes" assertion uses false_alarm=1e-3 on a fixed seed, so
it is deterministic here; were the seed changed, it would fail with probability ~1e-3.
"""

import numpy as np
import pytest
from scipy import stats

from accountant.distributions import binomial
from accountant.errors import ParameterError
from accountant.pmf import product
from verify.crosscheck import GofResult, goodness_of_fit, two_sample_test


def test_binomial_samples_pass_against_their_exact_pmf():
    rng = np.random.default_rng(11)
    res = goodness_of_fit(rng.binomial(200, 0.4, size=50_000), binomial(200, 0.4))
    assert isinstance(res, GofResult)
    assert res.passed and res.dof >= 10 and res.false_alarm == 1e-3


def test_mp_and_exact_backends_give_the_same_test_as_float():
    from fractions import Fraction
    rng = np.random.default_rng(12)
    x = rng.binomial(30, 0.25, size=10_000)
    f = goodness_of_fit(x, binomial(30, 0.25))
    m = goodness_of_fit(x, binomial(30, 0.25, backend="mp"))
    e = goodness_of_fit(x, binomial(30, Fraction(1, 4), backend="exact"))
    assert f.statistic == pytest.approx(m.statistic, rel=1e-9)
    assert f.statistic == pytest.approx(e.statistic, rel=1e-9)
    assert f.dof == m.dof == e.dof


def test_a_slightly_wrong_law_is_rejected():
    rng = np.random.default_rng(13)
    x = rng.binomial(200, 0.4, size=50_000)
    assert not goodness_of_fit(x, binomial(200, 0.41)).passed
    # a shift by one outcome (the neighbouring view of a shift pair) is rejected outright
    assert not goodness_of_fit(x + 1, binomial(200, 0.4)).passed


def test_window_pmf_puts_the_outside_mass_in_one_cell():
    rng = np.random.default_rng(14)
    pmf = binomial(10_000, 0.5, tail=1e-3)   # grid covers all but <= 1e-3 of the mass
    x = rng.binomial(10_000, 0.5, size=20_000)
    res = goodness_of_fit(x, pmf)
    assert res.passed
    # samples far outside the window are counted, not dropped: too many fail the test
    assert not goodness_of_fit(np.concatenate([x, np.zeros(200, dtype=int)]), pmf).passed


def test_two_dimensional_product_law():
    rng = np.random.default_rng(15)
    pmf = product(binomial(20, 0.3), binomial(15, 0.6))
    x = np.stack([rng.binomial(20, 0.3, 30_000), rng.binomial(15, 0.6, 30_000)], axis=1)
    assert pmf.ndim == 2 and goodness_of_fit(x, pmf).passed
    # swapping the coordinates is a different law
    assert not goodness_of_fit(x[:, ::-1].copy(), product(binomial(20, 0.3),
                                                          binomial(20, 0.6))).passed


def test_array_law_with_labels_and_missing_mass():
    rng = np.random.default_rng(16)
    probs = np.array([0.5, 0.3, 0.15])  # 0.05 on "anything else"
    labels = np.array([-3, 7, 100])
    x = rng.choice([-3, 7, 100, 5], p=[0.5, 0.3, 0.15, 0.05], size=5000)
    assert goodness_of_fit(x, probs, labels=labels).passed
    full = goodness_of_fit(x, np.append(probs, 0.05), labels=np.append(labels, 5))
    assert full.passed and full.dof == 3


def test_a_sample_on_a_probability_zero_outcome_fails_outright():
    res = goodness_of_fit(np.array([0, 1, 1, 2]), np.array([0.5, 0.5, 0.0]))
    assert not res.passed and res.p_value == 0.0
    res = goodness_of_fit(np.array([0, 1, 3]), np.array([0.5, 0.5]))
    assert not res.passed


def test_pooling_gives_expected_counts_of_at_least_five():
    # Bin(1000, 0.01) with 2000 samples: many cells with tiny expected counts.
    rng = np.random.default_rng(17)
    res = goodness_of_fit(rng.binomial(1000, 0.01, 2000), binomial(1000, 0.01))
    exp_counts = 2000 * stats.binom.pmf(np.arange(0, 1001), 1000, 0.01)
    assert res.cells <= int(np.sum(exp_counts >= 5)) + 2
    assert res.passed


def test_empirical_false_alarm_rate_matches_the_stated_rate():
    """400 independent tests at false_alarm=0.1: the number of failures is Bin(400, ~0.1)
    if the stated rate is right; [16, 68] holds with probability > 1 - 1e-6 for any true
    rate in [0.07, 0.13], and excludes rates outside about [0.04, 0.17]."""
    rng = np.random.default_rng(18)
    pmf = binomial(40, 0.3)
    fails = sum(not goodness_of_fit(rng.binomial(40, 0.3, 500), pmf,
                                    false_alarm=0.1).passed for _ in range(400))
    assert 16 <= fails <= 68


def test_two_sample_test_same_and_different_laws():
    rng = np.random.default_rng(19)
    a = rng.binomial(100, 0.5, 20_000)
    b = rng.binomial(100, 0.5, 30_000)
    c = rng.binomial(100, 0.52, 30_000)
    assert two_sample_test(a, b).passed
    assert not two_sample_test(a, c).passed
    two_d = np.stack([a, a[::-1]], axis=1)
    assert two_sample_test(two_d, two_d[::-1].copy()).passed


def test_two_sample_false_alarm_rate():
    """As above: 300 tests at false_alarm=0.1; [10, 55] holds with probability > 1 - 1e-6
    for a true rate in [0.07, 0.13]."""
    rng = np.random.default_rng(20)
    fails = sum(not two_sample_test(rng.poisson(8, 400), rng.poisson(8, 600),
                                    false_alarm=0.1).passed for _ in range(300))
    assert 10 <= fails <= 55


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 2.0])
def test_false_alarm_outside_unit_interval_is_rejected(bad):
    with pytest.raises(ParameterError, match="false_alarm"):
        goodness_of_fit(np.array([0, 1]), np.array([0.5, 0.5]), false_alarm=bad)


def test_malformed_inputs_are_rejected():
    with pytest.raises(ParameterError, match="shape"):
        goodness_of_fit(np.zeros((5, 2), dtype=int), binomial(5, 0.5))
    with pytest.raises(ParameterError, match="empty"):
        goodness_of_fit(np.array([], dtype=int), binomial(5, 0.5))
    with pytest.raises(ParameterError, match="integer"):
        goodness_of_fit(np.array([0.5]), binomial(5, 0.5))
    with pytest.raises(ParameterError, match="sum"):
        goodness_of_fit(np.array([0]), np.array([0.7, 0.7]))
    with pytest.raises(ParameterError, match="labels"):
        goodness_of_fit(np.array([0]), np.array([0.5, 0.5]), labels=[1, 1])


@pytest.mark.slow
def test_false_alarm_rate_with_thousands_of_sparse_2d_cells():
    """Regression: with the likelihood-ratio G, 2-D tables of ~1700 pooled cells of
    expected count 5-10 failed 28% of the time at a nominal 10% (Pearson's X^2 is used
    now). 200 runs at 0.1: the
    failure count is Bin(200, ~0.1); [8, 36] holds with probability > 1 - 1e-4 for a
    true rate of 0.1 and excludes 0.28 (and rates below 0.02)."""
    rng = np.random.default_rng(21)
    pmf = product(binomial(400, 0.5), binomial(400, 0.5))
    fails_gof = fails_two = 0
    for _ in range(200):
        x = np.stack([rng.binomial(400, 0.5, 20_000), rng.binomial(400, 0.5, 20_000)], axis=1)
        y = np.stack([rng.binomial(400, 0.5, 20_000), rng.binomial(400, 0.5, 20_000)], axis=1)
        fails_gof += not goodness_of_fit(x, pmf, false_alarm=0.1).passed
        fails_two += not two_sample_test(x, y, false_alarm=0.1).passed
    assert 8 <= fails_gof <= 36
    assert 8 <= fails_two <= 36
