"""Exact worst-dataset accuracy of zsum and hist (Balcer-Cheu 2020, Theorems 3.1(ii), 3.2(ii),
3.2(iii)) against independent enumerations: Fractions over the outputs, every dataset, every
partition of n into bins."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from accountant.bounds import balcer_cheu_2020 as bounds
from accountant.errors import ParameterError
from accountant.protocols.balcer_cheu import error_quantile, zsum_parameters
from accountant.protocols.balcer_cheu.accuracy import (
    failure_probabilities,
    simultaneous_failure,
    worst_error_quantile,
    worst_simultaneous_error_quantile,
)


def _failure_by_enumeration(n, p, m, alpha):
    """P[|output - m/n| > alpha], summing the binomial law over the analyzer's cases."""
    p = Fraction(p)
    total = Fraction(0)
    for k in range(n + 1):
        out = Fraction(m + k, n) - p if m + k > n else Fraction(0)
        if abs(out - Fraction(m, n)) > Fraction(alpha):
            total += math.comb(n, k) * p**k * (1 - p) ** (n - k)
    return float(total)


def _partitions(n, largest=None):
    largest = n if largest is None else largest
    if n == 0:
        yield []
        return
    for m in range(min(n, largest), 0, -1):
        for rest in _partitions(n - m, m):
            yield [m, *rest]


@pytest.mark.parametrize(("n", "p", "alpha"), [(12, 0.8, 0.1), (15, 0.7, 0.2), (9, 0.9, 0.0)])
def test_failure_probabilities_match_enumeration(n, p, alpha):
    params = zsum_parameters(n=n, p=p)
    f = failure_probabilities(params, alpha=alpha)
    expected = [_failure_by_enumeration(n, p, m, alpha) for m in range(n + 1)]
    assert f == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert f[0] == 0.0  # Theorem 3.1(iii): the all-zero dataset is answered exactly


@pytest.mark.parametrize(("n", "p", "beta"), [(200, 0.9, 0.05), (301, 0.8, 0.1), (150, 0.95, 0.2)])
def test_worst_quantile_is_the_max_over_every_dataset(n, p, beta):
    params = zsum_parameters(n=n, p=p)
    by_dataset = [error_quantile(params, ones=m, beta=beta) for m in range(n + 1)]
    worst = worst_error_quantile(params, beta=beta)
    assert worst.error == pytest.approx(max(by_dataset), abs=1e-12)
    assert by_dataset[worst.ones] == pytest.approx(worst.error, abs=1e-12)
    assert worst.failure <= beta


def test_worst_dataset_at_the_issue_instance():
    # n = 1e4, (1, 1e-6): the truncation error of m = 768 ones is the worst (issue 22), and the
    # balanced datasets m in {0, n/2, n} the old record used are 16 times better
    params = zsum_parameters(n=10**4, epsilon=1.0, delta=1e-6)
    worst = worst_error_quantile(params, beta=0.05)
    assert (worst.ones, worst.error) == (768, 0.0768)
    alpha = float(bounds.accuracy_alpha_thm31(epsilon=1.0, delta=1e-6, n=10**4, beta=0.05))
    assert worst.error <= alpha < 1.1 * worst.error
    assert max(error_quantile(params, ones=m, beta=0.05) for m in (0, 5000, 10000)) < alpha / 10


@pytest.mark.parametrize(("n", "p", "alpha"), [(10, 0.7, 0.15), (12, 0.8, 0.1), (9, 0.6, 0.3)])
def test_simultaneous_failure_is_the_max_over_every_histogram(n, p, alpha):
    params = zsum_parameters(n=n, p=p)
    f = [_failure_by_enumeration(n, p, m, alpha) for m in range(n + 1)]
    brute = max(1 - math.prod(1 - f[m] for m in parts) for parts in _partitions(n))
    failure, largest, bins = simultaneous_failure(params, alpha=alpha)
    assert failure == pytest.approx(brute, rel=1e-9, abs=1e-15)
    assert 1 <= bins <= n and 1 <= largest <= n


def test_simultaneous_failure_dominates_one_bin():
    params = zsum_parameters(n=400, p=0.9)
    for alpha in (0.02, 0.05, 0.1):
        one = failure_probabilities(params, alpha=alpha)
        assert simultaneous_failure(params, alpha=alpha)[0] >= one.max() - 1e-15


@pytest.mark.parametrize(("epsilon", "delta", "n"), [(1.0, 1e-6, 2000), (0.5, 1e-3, 4000)])
def test_theorem_32_iii_holds_at_the_worst_histogram(epsilon, delta, n):
    params = zsum_parameters(n=n, epsilon=epsilon, delta=delta)
    alpha = float(bounds.simultaneous_alpha_thm32(epsilon=epsilon, delta=delta, n=n, beta=0.05))
    worst = worst_simultaneous_error_quantile(params, beta=0.05)
    assert worst.error <= alpha
    assert simultaneous_failure(params, alpha=alpha)[0] <= 0.05
    # the simultaneous worst needs at least the one-count worst
    assert worst.error >= worst_error_quantile(params, beta=0.05).error


@pytest.mark.parametrize(("epsilon", "delta", "n", "beta"),
                         [(1.0, 1e-6, 1451, 0.05), (1.0, 1e-6, 10**5, 1e-3),
                          (0.5, 1e-9, 10**5, 0.01)])
def test_theorem_31_ii_holds_at_the_worst_dataset(epsilon, delta, n, beta):
    params = zsum_parameters(n=n, epsilon=epsilon, delta=delta)
    alpha = float(bounds.accuracy_alpha_thm31(epsilon=epsilon, delta=delta, n=n, beta=beta))
    assert worst_error_quantile(params, beta=beta).error <= alpha


def test_bad_input_names_the_parameter():
    params = zsum_parameters(n=100, p=0.9)
    with pytest.raises(ParameterError, match="alpha=-0.1"):
        failure_probabilities(params, alpha=-0.1)
    with pytest.raises(ParameterError, match="beta=1.5"):
        worst_error_quantile(params, beta=1.5)
    with pytest.raises(ParameterError, match="n=40000"):
        simultaneous_failure(zsum_parameters(n=40000, p=0.9), alpha=0.1)
