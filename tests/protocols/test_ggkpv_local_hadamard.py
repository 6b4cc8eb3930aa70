"""Local Hadamard response's error (accountant.protocols.ggkpv.local_hadamard).

The certified bound c sqrt(n/4) sqrt(2 ln 2B) is checked against a seeded simulation of the
literal randomizer (Sylvester Hadamard matrix, rows 1..B): the simulated mean max error must
stay below it (it is an upper bound for every dataset); the exact variance against the
simulated one. False-failure rate: the variance check allows 5 standard errors (< 1e-6).
"""

import math

import numpy as np
import pytest

from accountant.errors import ParameterError
from accountant.protocols.ggkpv import local_hadamard as lh


def _simulate(xs, B, epsilon, trials, rng):
    K = B + 1  # a power of 2 here
    idx = np.arange(K)
    H = np.array([[(-1) ** bin(i & j).count("1") for j in idx] for i in idx])
    counts = np.bincount(xs, minlength=B + 1)
    errors = []
    for _ in range(trials):
        keep = rng.random(xs.size) < math.exp(epsilon) / (1 + math.exp(epsilon))
        ys = np.empty(xs.size, dtype=int)
        for i, (x, k) in enumerate(zip(xs, keep, strict=True)):
            side = np.flatnonzero(H[x] == (1 if k else -1))
            ys[i] = rng.choice(side)
        hits = (H[1:, ys] == 1).sum(axis=1)
        est = lh.estimator_scale(epsilon) * (hits - xs.size / 2)
        errors.append(est - counts[1:])
    return np.array(errors)


def test_simulated_errors_match_the_exact_variance_and_stay_below_the_bound():
    rng = np.random.default_rng(2024)
    n, B, epsilon = 400, 7, 1.0
    xs = np.concatenate([np.ones(n // 2, dtype=int), 2 + np.arange(n // 2) % (B - 1)])
    err = _simulate(xs, B, epsilon, 300, rng)
    var1 = lh.variance(n=n, epsilon=epsilon, count=n // 2)
    se = var1 * math.sqrt(2 / 300)
    assert abs(err[:, 0].var() - var1) < 5 * se
    assert np.abs(err).max(axis=1).mean() <= lh.expected_max_error_upper(n=n, B=B,
                                                                          epsilon=epsilon)


def test_estimator_scale_is_2_coth_half_epsilon():
    assert lh.estimator_scale(1.0) == pytest.approx(2 * (math.e + 1) / (math.e - 1), rel=1e-14)


def test_bound_ratio_to_the_slides_rate_is_bounded_and_matches_its_closed_form():
    for n in (10**3, 10**6):
        for B in (3, 1023, 2**30):
            for eps in (0.1, 1.0):
                ratio = lh.expected_max_error_upper(n=n, B=B, epsilon=eps) / (
                    math.sqrt(n * math.log(B)) / eps)
                closed = lh.estimator_scale(eps) * eps / 2 * math.sqrt(
                    2 * math.log(2 * B) / math.log(B))
                assert ratio == pytest.approx(closed, rel=1e-12)
                assert ratio < 4.5


@pytest.mark.parametrize("call", [
    lambda: lh.expected_max_error_upper(n=0, B=7, epsilon=1.0),
    lambda: lh.expected_max_error_upper(n=10, B=1, epsilon=1.0),
    lambda: lh.variance(n=10, epsilon=1.0, count=11),
    lambda: lh.estimator_scale(0.0),
    lambda: lh.estimator_scale(math.inf),
])
def test_bad_input_raises_parameter_error(call):
    with pytest.raises(ParameterError):
        call()
