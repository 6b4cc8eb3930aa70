"""Corollary 3's bit-by-bit real summation (accountant.protocols.gkm.real_summation)."""

import math

import pytest

from accountant.errors import ParameterError
from accountant.protocols import gkm
from accountant.protocols.gkm import real_summation as rs


@pytest.mark.parametrize("split", rs.SPLITS)
def test_budget_adds_up_and_bits_cover_the_rounding(split):
    plan = rs.plan_bits(n=10**4, epsilon=2.0, split=split)
    assert sum(plan.epsilons) == pytest.approx(2.0, rel=1e-14)
    assert plan.bits == 8  # ceil(log2(1e4)/2) + 1 = ceil(6.64) + 1
    assert 10**4 * 4.0 ** -plan.bits / 4 <= 1 / 16


def test_mse_upper_is_the_weighted_sum_of_the_bits_all_ones_mse():
    plan = rs.plan_bits(n=100, epsilon=1.0)
    want = sum(4.0 ** -(j + 1) * (gkm.dlap_variance(p.epsilon_prime) + 100 * p.q
                                  + 100 * 99 * p.q ** 2) for j, p in enumerate(plan.protocols))
    assert rs.mse_upper(plan) == pytest.approx(want + 100 * 4.0 ** -plan.bits / 4, rel=1e-12)


def test_the_two_splits_trade_error_for_messages():
    mse, harm = (rs.plan_bits(n=10**8, epsilon=1.0, split=s) for s in ("mse", "harmonic"))
    assert rs.mse_upper(mse) < rs.mse_upper(harm)
    assert rs.messages_per_user(harm) < rs.messages_per_user(mse)
    # the 'mse' split's RMSE is flat in n, the 'harmonic' one's grows
    small = rs.plan_bits(n=10**4, epsilon=1.0, split="mse")
    assert math.sqrt(rs.mse_upper(mse)) / math.sqrt(rs.mse_upper(small)) < 1.05


def test_composed_privacy_is_the_sum_of_the_bits():
    plan = rs.plan_bits(n=10, epsilon=1.0)
    bits = [gkm.gkm_parameters(n=10, epsilon=e, epsilon_prime=e / 2, q=0.1)
            for e in plan.epsilons]
    total = sum(float(gkm.worst_case_max_divergence(b)[0].value) for b in bits)
    assert total <= 1.0
    assert total >= sum(plan.epsilons) / 2 - 1e-3  # each bit approaches its eps'_j


def test_bad_split():
    with pytest.raises(ParameterError, match="split="):
        rs.plan_bits(n=10, epsilon=1.0, split="even")
