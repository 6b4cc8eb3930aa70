"""n known only as a range (docs/heterogeneous.md#n-as-a-range): the worst-case divergence of a
shuffled single-message protocol is nonincreasing in n, checked on exact values of binary RR
(every count evaluated), of k-RR's special pair and of 3-RR's exact worst case over datasets."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from accountant.divergence import delta_bracket, renyi_divergence
from accountant.protocols import binary_rr, k_rr
from accountant.protocols.heterogeneous import HeterogeneousRandomizer, binary_rr_group
from accountant.protocols.randomizer import exact_worst_case
from accountant.protocols.randomizer import k_rr as k_rr_matrix

FAST_NS = list(range(2, 41))
SLOW_NS = list(range(41, 201))


def _binary_rr(n: int):
    return binary_rr.delta_for_epsilon(n=n, epsilon0=1.0, epsilon=0.3)


def _check_binary_rr(ns: list[int]) -> None:
    prev = _binary_rr(ns[0] - 1) if ns[0] > 2 else None
    for n in ns:
        b = _binary_rr(n)
        # exact mechanism value (worst over all counts, both orders), bracketed to ~1e-12:
        # n + 1 users can never be certified above n users
        if prev is not None:
            assert b.lower.value <= prev.upper.value, (n, prev, b)
        prev = b


def test_binary_rr_mechanism_value_is_nonincreasing_in_n_up_to_40():
    _check_binary_rr(FAST_NS)


@pytest.mark.slow
def test_binary_rr_mechanism_value_is_nonincreasing_in_n_up_to_200():
    _check_binary_rr(SLOW_NS)


def _check_k_rr_special(ns: list[int], k: int) -> None:
    # the special pair at n + 1 is the one at n plus a user holding x: a post-processing
    prev = None
    for n in ns:
        view = k_rr.special_pair(n=n, epsilon0=1.0, k=k)
        lo, hi = delta_bracket(view, 0.3)
        r = renyi_divergence(view, 4.0)
        if prev is not None:
            assert lo.value <= prev[0].value
            assert r.value - 2 * r.error_budget <= prev[1].value
        prev = (hi, r)


def test_k_rr_special_pair_is_nonincreasing_in_n_up_to_40():
    _check_k_rr_special(list(range(2, 41, 3)), 3)


@pytest.mark.slow
@pytest.mark.parametrize("k", [3, 5])
def test_k_rr_special_pair_is_nonincreasing_in_n_up_to_200(k):
    _check_k_rr_special(list(range(2, 201)), k)


def test_k_rr_exact_worst_case_over_datasets_is_nonincreasing_in_n():
    # exact rational worst case over every dataset and both orders (3-RR, e^eps0 = 3)
    matrix = k_rr_matrix(3, exp_epsilon0=Fraction(3))
    gammas = [Fraction(1), Fraction(3, 2), Fraction(2)]
    values = [exact_worst_case(matrix, n, exp_epsilon=gammas) for n in range(2, 7)]
    for before, after in zip(values, values[1:], strict=False):
        for b, a in zip(before, after, strict=True):
            assert a.delta <= b.delta
    assert values[-1][0].delta < values[0][0].delta  # strictly, somewhere


def test_range_is_answered_at_its_smallest_n_and_says_so():
    ranged = HeterogeneousRandomizer(groups=({"count": 50, "count_max": 5000,
                                              "randomizer": "binary-rr", "epsilon0": 1.0},))
    at_min = HeterogeneousRandomizer(groups=(binary_rr_group(50, 1.0),))
    at_max = HeterogeneousRandomizer(groups=(binary_rr_group(5000, 1.0),))
    b = ranged.epsilon_for_delta(1e-6)
    assert b.upper.value == at_min.epsilon_for_delta(1e-6).upper.value
    # the answer at n_max would be optimistic for the smaller counts of the range
    assert at_max.epsilon_for_delta(1e-6).upper.value < b.upper.value
    assert ranged.params()["groups"][0]["count_max"] == 5000
    assert not math.isnan(b.upper.value)
