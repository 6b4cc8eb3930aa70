"""Any epsilon0-LDP randomizer (docs/clones-and-blankets.md#clones-pair): clones UPPER >= binary RR
special pair LOWER,
for every n >= 2, in (epsilon, delta) and in Renyi."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accountant.domains import EPSILON0
from accountant.protocols import binary_rr, ldp
from accountant.result import Kind


@pytest.mark.parametrize("n", [2, 3, 5, 10, 30, 100, 10**4, 10**6])
def test_upper_dominates_lower_and_the_exact_binary_worst_case(n):
    res = ldp.epsilon_for_delta(n=n, epsilon0=0.5, delta=1e-6)
    up, low = float(res.upper.value), float(res.lower.value)
    assert res.upper.kind is Kind.UPPER and res.lower.kind is Kind.LOWER
    assert low <= up
    if n <= 100:
        worst = binary_rr.epsilon_for_delta(n=n, epsilon0=0.5, delta=1e-6)
        assert float(worst.lower.value) <= up
        assert up > 0.2  # the published scan's 5e-7 at n <= 100 is far below the truth


@given(n=st.integers(min_value=2, max_value=300),
       epsilon0=EPSILON0.strategy(min_value=0.05, max_value=6.0),
       alpha=st.floats(min_value=1.1, max_value=64.0))
def test_renyi_upper_dominates_lower(n, epsilon0, alpha):
    r = ldp.renyi_divergence(n=n, epsilon0=epsilon0, alpha=alpha)
    assert float(r.lower.value) <= float(r.upper.value)
    # Renyi of epsilon0-DP is at most epsilon0 (and the clones bound respects it)
    assert float(r.lower.value) <= epsilon0 + 1e-12


def test_delta_for_epsilon_bracket_and_pure():
    d = ldp.delta_for_epsilon(n=500, epsilon0=1.0, epsilon=0.2)
    assert float(d.lower.value) <= float(d.upper.value)
    m = ldp.max_divergence(n=500, epsilon0=1.0)
    assert m.kind is Kind.EXACT and m.value == 1.0
    inf = ldp.renyi_divergence(n=500, epsilon0=1.0, alpha=math.inf)
    assert inf.upper.value == 1.0


def test_renyi_curve_matches_single_order_calls():
    orders = [1.5, 3.0, 40.0]
    rows = ldp.renyi_curve(n=2000, epsilon0=1.0, alphas=orders)
    for alpha, (low, up) in zip(orders, rows, strict=True):
        single = ldp.renyi_divergence(n=2000, epsilon0=1.0, alpha=alpha)
        # windows depend on the largest order asked for, so agreement is to rounding
        assert float(up.value) == pytest.approx(float(single.upper.value), rel=1e-9)
        assert float(low.value) <= float(up.value)
        assert low.kind is Kind.LOWER and up.kind is Kind.UPPER
