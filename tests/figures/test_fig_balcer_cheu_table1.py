"""Table 1's added rows are the estimators they claim to be: local Hadamard response is
unbiased with the exact variance of accountant.protocols.ggkpv.local_hadamard, and the
central stability histogram never releases an absent value and releases a count-1 value with
probability delta/4."""

from __future__ import annotations

import math

import numpy as np

from accountant.protocols.ggkpv import local_hadamard as lh
from figures import fig_balcer_cheu_table1 as table1


def test_local_hadamard_is_unbiased_with_the_exact_variance():
    counts = np.array([700, 200, 100, 0, 0])
    n, trials = int(counts.sum()), 400
    est = table1.local_hadamard(counts, 1.0, trials, np.random.default_rng(3))
    for x, c in enumerate(counts):
        sd = math.sqrt(lh.variance(n=n, epsilon=1.0, count=int(c))) / n
        # 5 standard errors: false-alarm rate below 1e-5 per value
        assert abs(est[:, x].mean() - c / n) <= 5 * sd / math.sqrt(trials)
        assert 0.7 * sd <= est[:, x].std(ddof=1) <= 1.3 * sd


def test_central_stability_releases_a_count_one_value_with_probability_delta_over_4():
    counts = np.array([0, 1, 10**4])
    delta, trials = 0.5, 20000
    est = table1.central_stability(counts, 1.0, delta, trials, np.random.default_rng(4))
    assert np.all(est[:, 0] == 0)
    released = float(np.mean(est[:, 1] > 0))
    sd = math.sqrt(delta / 4 * (1 - delta / 4) / trials)
    assert abs(released - delta / 4) <= 5 * sd


def test_rr_epsilon0_is_the_largest_certified_one():
    from accountant import LDP
    e0 = table1.rr_epsilon0(n=10**4, epsilon=0.5, delta=5e-7)
    assert float(LDP(n=10**4, epsilon0=e0).epsilon_for_delta(5e-7).upper) <= 0.5
    assert float(LDP(n=10**4, epsilon0=e0 + 2e-4).epsilon_for_delta(5e-7).upper) > 0.5


def test_shuffled_rr_is_unbiased():
    counts = np.array([600, 300, 100])
    n, trials, e0 = 1000, 2000, 2.0
    est = table1.shuffled_rr(counts, e0, trials, np.random.default_rng(5))
    e = math.exp(e0)
    keep, flip = e / (1 + e), 1 / (1 + e)
    for x, c in enumerate(counts):
        var = (c * keep * (1 - keep) + (n - c) * flip * (1 - flip)) / (n * (keep - flip)) ** 2
        assert abs(est[:, x].mean() - c / n) <= 5 * math.sqrt(var / trials)
