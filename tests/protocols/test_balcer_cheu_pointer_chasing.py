"""Pointer chasing and Table 2's central row (Balcer-Cheu 2020, Defs. 3.5, 3.6): the chase on
a hand example, the central stability histogram's success against a direct sum, its least n
against its neighbour, and Table 2's relations (central below shuffled, by a factor that
grows like 1/eps)."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from accountant.errors import ParameterError
from accountant.protocols.balcer_cheu import (
    central_support_success,
    least_n_central,
    least_n_for_support,
    pointer_chase,
)


def test_pointer_chase_hand_example():
    # a = (2, 3, 1), b = (3, 1, 2): a_1 = 2, b_2 = 1, a_1 = 2, b_2 = 1
    a, b = [2, 3, 1], [3, 1, 2]
    assert [pointer_chase(a, b, k) for k in (1, 2, 3, 4)] == [2, 1, 2, 1]
    # identity permutations: every step stays at 1
    assert pointer_chase([1, 2], [1, 2], 7) == 1


def test_pointer_chase_bad_input():
    with pytest.raises(ParameterError, match="a=\\[1, 1\\]"):
        pointer_chase([1, 1], [1, 2], 1)
    with pytest.raises(ParameterError, match="k=0"):
        pointer_chase([1, 2], [2, 1], 0)


def test_central_success_matches_a_direct_sum_at_h_2():
    eps, delta, n = 1.0, 1e-6, 120
    tau = 1 + 2 * math.log(2 / delta) / eps

    def released(m):  # P[m + Lap(2/eps) > tau] from scipy's Laplace law
        return 0.0 if m == 0 else float(stats.laplace.sf(tau - m, scale=2 / eps))

    direct = sum(stats.binom.pmf(m, n, 0.5) * released(m) * released(n - m)
                 for m in range(n + 1))
    value = central_support_success(epsilon=eps, delta=delta, h=2, n=n)
    assert value == pytest.approx(direct, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("h", [2, 6])
def test_least_n_central_is_least(h):
    n = least_n_central(epsilon=1.0, delta=1e-6, h=h)
    assert central_support_success(epsilon=1.0, delta=1e-6, h=h, n=n - 1) < 0.99
    assert central_support_success(epsilon=1.0, delta=1e-6, h=h, n=n) >= 0.99


def test_central_improves_on_shuffled_by_a_factor_growing_like_one_over_eps():
    # "This improves the bounds by 1/eps" (Sec. 3.3): the ratio shuffled / central grows as
    # eps falls, by at least 1.5 per halving of eps
    ratios = [least_n_for_support(epsilon=e, delta=1e-6, h=2)
              / least_n_central(epsilon=e, delta=1e-6, h=2) for e in (1.0, 0.5)]
    assert 1 < ratios[0] and ratios[1] > 1.5 * ratios[0]


def test_central_bad_input():
    with pytest.raises(ParameterError, match="delta=0"):
        central_support_success(epsilon=1.0, delta=0.0, h=2, n=10)
    with pytest.raises(ParameterError, match="n=0"):
        central_support_success(epsilon=1.0, delta=1e-6, h=2, n=0)
