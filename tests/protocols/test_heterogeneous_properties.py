"""HeterogeneousRandomizer through its domains (the property suite's checks for a family built
from groups): epsilon0 drawn from the declared EPSILON0 (edges to 50 included), counts and
colluders from COUNT, matrices from `verify.strategies.Matrix` (edges 0, 1e-300, below the
float range); the contract's order relations (`verify.strategies.contract_violations`) and,
at n <= 5, the exact worst case inside the bracket. Every bad draw must be a ParameterError."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from accountant.errors import ParameterError
from accountant.protocols.heterogeneous import (
    HeterogeneousRandomizer,
    binary_rr_group,
    exact_worst_case,
    k_rr_group,
    matrix_group,
)
from verify import strategies as S

COUNTS = st.sampled_from([0, 1, 2, 3, 1000, 10 ** 6])
SMALL = st.integers(0, 3)


@st.composite
def named_groups(draw, counts=COUNTS):
    k = draw(st.sampled_from([2, 3, 5]))
    out = []
    for _ in range(draw(st.integers(1, 3))):
        e0 = draw(S.EPSILON0_DRAW.strategy())
        c = draw(counts)
        out.append(binary_rr_group(c, e0) if k == 2 else k_rr_group(c, e0, k))
    return tuple(out)


@st.composite
def matrix_groups(draw, counts=SMALL):
    # raw rows: the library's own validation (e.g. an entry below the float range) is part
    # of what is tested, so groups are built in the test
    shape = S.Matrix(inputs=(2, 2), outputs=(3, 3))
    return tuple({"count": draw(counts), "rows": draw(shape.strategy())}
                 for _ in range(draw(st.integers(1, 3))))


def _build(groups, colluders):
    try:
        return HeterogeneousRandomizer(groups=groups, colluders=colluders)
    except ParameterError:  # no user, an infinite epsilon0, colluders >= n: documented
        assume(False)
        raise


def _settings(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@_settings(6)
@given(groups=named_groups(), colluders=st.sampled_from([None, 0, 1, 2]))
def test_named_groups_keep_the_contracts_order_relations(groups, colluders):
    assert not S.contract_violations(_build(groups, colluders))


@_settings(8)
@given(groups=matrix_groups(), colluders=st.sampled_from([None, 1]))
def test_matrix_groups_bracket_the_exact_worst_case(groups, colluders):
    mech = _build(groups, colluders)
    assume(mech.n - (colluders or 0) <= 5)
    # the honest users' groups, the colluders removed as the library removes them: the
    # exact worst case of every split is below the upper end, so test each split
    take = [0] * len(groups)
    left = colluders or 0
    for i, g in enumerate(mech.groups):
        t = min(left, g.count)
        take[i], left = t, left - t
    honest = tuple(matrix_group(g.count - t, g.matrix) for g, t in zip(mech.groups, take,
                                                                       strict=True))
    gamma = Fraction(3, 2)
    worst = exact_worst_case(honest, exp_epsilons=[gamma])
    b = mech.delta_for_epsilon(math.log(1.5))
    assert worst.deltas[gamma] <= b.upper.value * (1 + 1e-12)
    if not colluders:
        assert b.lower.value <= worst.deltas[gamma] * (1 + 1e-12) + 1e-300


@pytest.mark.slow
@_settings(60)
@given(groups=named_groups(), colluders=st.sampled_from([None, 0, 1, 2, 999]))
def test_named_groups_keep_the_contracts_order_relations_slow(groups, colluders):
    assert not S.contract_violations(_build(groups, colluders))


@pytest.mark.slow
@_settings(80)
@given(groups=matrix_groups(), colluders=st.sampled_from([None, 1, 2]))
def test_matrix_groups_bracket_the_exact_worst_case_slow(groups, colluders):
    test_matrix_groups_bracket_the_exact_worst_case.hypothesis.inner_test(groups, colluders)
