"""Balcer-Cheu samplers (verify/samplers/balcer_cheu.py) against the theorems and the exact
PMFs of accountant.protocols.balcer_cheu.

Spurious-failure rates: every goodness-of-fit / two-sample check uses false_alarm=1e-3
(so with k such checks, about k * 1e-3 on a fresh seed; deterministic here, seeds fixed).
The accuracy checks compare empirical quantiles with bounds that hold with probability
>= 1 - beta and are in fact loose by a large factor, so they cannot fail by chance at
1e5 trials unless the sampler or the bound is wrong.
"""

import numpy as np
import pytest

from accountant.bounds.balcer_cheu_2020 import (
    accuracy_alpha_thm31,
    simultaneous_alpha_thm32,
)
from accountant.distributions import binomial
from accountant.pmf import product, shift
from accountant.protocols import balcer_cheu as bc
from accountant.protocols.balcer_cheu.calibration import error_quantile
from verify.crosscheck import goodness_of_fit, two_sample_test
from verify.samplers import balcer_cheu as s

TRIALS = 100_000
N, EPSILON, DELTA = 10_000, 1.0, 1e-6


def test_literal_randomizers_follow_fig1_and_fig2():
    rng = np.random.default_rng(1)
    assert s.zsum_randomizer(1, p=0.0, rng=rng) == [1]
    assert s.zsum_randomizer(0, p=1.0, rng=rng) == [1]
    assert s.zsum_randomizer(1, p=1.0, rng=rng) == [1, 1]
    msgs = s.hist_randomizer(2, d=3, p=1.0, rng=rng)  # every value once, value 2 twice
    assert sorted(msgs) == [1, 2, 2, 3]
    assert s.zsum_analyzer([1] * 10, n=10, p=0.7) == 0.0      # c* = 1 is not > 1
    assert s.zsum_analyzer([1] * 13, n=10, p=0.7) == pytest.approx(0.6)
    with pytest.raises(ValueError):
        s.zsum_randomizer(2, p=0.5, rng=rng)


def test_zero_count_property_every_trial():
    """Theorem 3.1(iii): on the all-zero dataset the output is exactly 0 (fast path over
    1e5 trials; the literal protocol over 2000)."""
    params = bc.zsum_parameters(n=N, epsilon=EPSILON, delta=DELTA)
    rng = np.random.default_rng(2)
    _, out = s.zsum_fast(ones=0, n=N, p=params.p, trials=TRIALS, rng=rng)
    assert np.all(out == 0.0)
    lit = [s.run_zsum(np.zeros(40, dtype=int), p=0.9, rng=rng)[1] for _ in range(2000)]
    assert all(v == 0.0 for v in lit)
    _, hist_out = s.hist_fast(bin_counts=[N, 0, 0, 0], p=params.p, trials=TRIALS, rng=rng)
    assert np.all(hist_out[:, 1:] == 0.0)


@pytest.mark.parametrize("beta", [0.1, 0.01])
def test_empirical_error_quantile_below_theorem_31_alpha(beta):
    params = bc.zsum_parameters(n=N, epsilon=EPSILON, delta=DELTA)
    ones = 3_000
    rng = np.random.default_rng(3)
    _, out = s.zsum_fast(ones=ones, n=N, p=params.p, trials=TRIALS, rng=rng)
    errors = np.abs(out - ones / N)
    empirical = float(np.quantile(errors, 1 - beta))
    alpha = accuracy_alpha_thm31(epsilon=EPSILON, delta=DELTA, n=N, beta=beta).value
    assert empirical < alpha
    # and the empirical quantile is near the exact one (1e5 trials: the order statistic
    # lies within a few lattice steps 1/n of it)
    exact = error_quantile(params, ones=ones, beta=beta)
    assert abs(empirical - exact) <= 5 / N


@pytest.mark.parametrize("beta", [0.1, 0.01])
def test_histogram_simultaneous_error_below_theorem_32_bound(beta):
    params = bc.hist_parameters(n=N, d=6, epsilon=EPSILON, delta=DELTA)
    h = np.array([4000, 3000, 2000, 1000, 0, 0])
    rng = np.random.default_rng(4)
    _, out = s.hist_fast(bin_counts=h, p=params.p, trials=TRIALS, rng=rng)
    worst = np.max(np.abs(out - h / N), axis=1)
    bound = simultaneous_alpha_thm32(epsilon=EPSILON, delta=DELTA, n=N, beta=beta).value
    assert float(np.quantile(worst, 1 - beta)) < bound
    assert np.all(out[:, 4:] == 0.0)   # zero bins are reported exactly 0


def test_zsum_fast_counts_fit_the_exact_view():
    params = bc.zsum_parameters(n=N, epsilon=EPSILON, delta=DELTA)
    rng = np.random.default_rng(5)
    counts, _ = s.zsum_fast(ones=1234, n=N, p=params.p, trials=TRIALS, rng=rng)
    # the view P of the exact pair is Bin(n, p) up to the dataset's shift
    # (docs/balcer-cheu-2020.md#exact-zsum-view)
    view = bc.zsum_view(params, tail=1e-12)
    pmf = shift(binomial(N, params.p, tail=1e-12), 1234)
    assert view.size > 0 and goodness_of_fit(counts, pmf).passed
    # the neighbouring dataset's view (one more 1) is rejected
    assert not goodness_of_fit(counts, shift(pmf, 1)).passed


def test_literal_zsum_matches_fast_path_and_exact_pmf():
    n, p, ones = 80, 0.85, 30
    rng = np.random.default_rng(6)
    xs = np.array([1] * ones + [0] * (n - ones))
    literal = np.array([s.run_zsum(xs, p=p, rng=rng)[0] for _ in range(4000)])
    fast, _ = s.zsum_fast(ones=ones, n=n, p=p, trials=20_000, rng=rng)
    assert two_sample_test(literal, fast).passed
    assert goodness_of_fit(literal, shift(binomial(n, p), ones)).passed


def test_literal_hist_matches_fast_path_and_exact_product_pmf():
    n, p, d = 40, 0.8, 3
    h = [25, 15, 0]
    rng = np.random.default_rng(7)
    xs = s.hist_dataset(h)
    runs = [s.run_hist(xs, d=d, p=p, rng=rng) for _ in range(1500)]
    literal = np.array([c for c, _ in runs])
    # the analyzer output is the zsum analyzer applied per value
    for c, out in runs[:50]:
        assert np.allclose(out, np.where(c / n > 1, c / n - p, 0.0))
    fast, _ = s.hist_fast(bin_counts=h, p=p, trials=20_000, rng=rng)
    assert two_sample_test(literal[:, :2], fast[:, :2]).passed
    exact = product(shift(binomial(n, p), h[0]), shift(binomial(n, p), h[1]))
    assert goodness_of_fit(literal[:, :2], exact).passed
    assert goodness_of_fit(fast[:, :2], exact).passed
    assert goodness_of_fit(fast[:, 2], binomial(n, p)).passed


@pytest.mark.slow
def test_literal_and_fast_agree_at_scale():
    n, p, ones = 300, 0.9, 100
    rng = np.random.default_rng(8)
    xs = np.array([1] * ones + [0] * (n - ones))
    literal = np.array([s.run_zsum(xs, p=p, rng=rng)[0] for _ in range(30_000)])
    fast, _ = s.zsum_fast(ones=ones, n=n, p=p, trials=TRIALS, rng=rng)
    assert two_sample_test(literal, fast).passed
    assert goodness_of_fit(literal, shift(binomial(n, p), ones)).passed


def test_simulate_summary_reports_the_checks():
    params = bc.zsum_parameters(n=N, epsilon=EPSILON, delta=DELTA)
    alphas = {b: accuracy_alpha_thm31(epsilon=EPSILON, delta=DELTA, n=N, beta=b).value
              for b in (0.1, 0.01)}
    out = s.simulate_summary(protocol="zsum", n=N, p=params.p, trials=20_000, seed=9,
                             alphas=alphas, literal_trials=20)
    assert out["zero_count_property_every_trial"]
    assert all(r["below_bound"] for r in out["error_quantiles"].values())
    assert out["counts"].shape == (20_000,) and out["literal_counts"].shape == (20,)


@pytest.mark.slow
def test_zero_count_property_literal_1e5_trials():
    """Theorem 3.1(iii) with the literal message-list protocol, 1e5 trials (n = 20, the
    paper-independent p = 0.95 so that all-ones noise, c* = 1, happens often)."""
    rng = np.random.default_rng(10)
    xs = np.zeros(20, dtype=int)
    outs = [s.run_zsum(xs, p=0.95, rng=rng)[1] for _ in range(TRIALS)]
    assert all(v == 0.0 for v in outs)
    hist_xs = s.hist_dataset([20, 0, 0])
    hist_outs = np.array([s.run_hist(hist_xs, d=3, p=0.95, rng=rng)[1]
                          for _ in range(TRIALS // 10)])
    assert np.all(hist_outs[:, 1:] == 0.0)
