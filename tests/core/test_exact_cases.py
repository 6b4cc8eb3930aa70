"""Small rational cases that the exact backend must reproduce to the last digit.

Every expected value is derived by hand in the comment above its test.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant import (
    PMF,
    Direction,
    Kind,
    ViewPair,
    binomial,
    delta_for_epsilon,
    epsilon_for_delta,
    kl_divergence,
    max_divergence,
    renyi_divergence,
)
from accountant.pairs import binomial_shift_pair

# Bin(4, 1/3): B(k) = C(4,k) (1/3)^k (2/3)^(4-k) = (16, 32, 24, 8, 1)/81 for k = 0..4.
# P = Bin on k = 0..5 (P(5) = 0), Q(k) = B(k-1) (Q(0) = 0):
#   P = (16, 32, 24,  8,  1, 0)/81
#   Q = ( 0, 16, 32, 24,  8, 1)/81
# At e^eps = 2:
#   P - 2Q = (16, 0, -40, -40, -15, -2)/81   -> H(P||Q) = 16/81
#   Q - 2P = (-32, -48, -16, 8, 6, 1)/81     -> H(Q||P) = 15/81 = 5/27


@pytest.fixture(scope="module")
def shift_view_exact() -> ViewPair:
    return binomial_shift_pair(4, Fraction(1, 3), backend="exact")


@pytest.mark.parametrize(("direction", "expected"), [
    (Direction.P_Q, Fraction(16, 81)),
    (Direction.Q_P, Fraction(5, 27)),
    (Direction.MAX, Fraction(16, 81)),
])
def test_delta_at_exp_epsilon_2_is_the_hand_derived_fraction(shift_view_exact, direction,
                                                             expected):
    r = delta_for_epsilon(shift_view_exact, exp_epsilon=Fraction(2), direction=direction)
    assert r.value == expected
    assert isinstance(r.value, Fraction)
    assert r.kind is Kind.EXACT


def test_shift_pair_built_from_pmfs_by_hand_gives_the_same_fractions():
    b = binomial(4, Fraction(1, 3), backend="exact")
    assert list(b.values) == [Fraction(c, 81) for c in (16, 32, 24, 8, 1)]
    P = PMF("exact", (0,), np.append(b.values, Fraction(0)), Fraction(0))
    Q = PMF("exact", (0,), np.insert(b.values, 0, Fraction(0)), Fraction(0))
    v = ViewPair.from_pmfs(P, Q)
    assert delta_for_epsilon(v, exp_epsilon=Fraction(2), direction="P||Q").value == Fraction(16, 81)
    assert delta_for_epsilon(v, exp_epsilon=Fraction(2), direction="Q||P").value == Fraction(5, 27)


# epsilon(delta = 1/5), P||Q: infinite-loss atom A0 = P(0) = 16/81 < 1/5. Finite positive
# losses in decreasing order: k = 1 (L = log 2) only (k = 2 has 24/32 < 1). With
# A1 = 48/81, B1 = 16/81: eps = log((48/81 - 1/5)/(16/81)) = log(159/80).
# Q||P: atom Q(5) = 1/81; losses log 8 (k=4), log 3 (k=3), log(4/3) (k=2):
#   j=1: A = 9/81 < 1/5; j=2: A = 33/81, B = 9/81 -> log(28/15);
#   j=3: A = 65/81, B = 33/81 -> log(244/165) < log(28/15).
# Maximum over both orders: log(159/80) ~ 0.687 > log(28/15) ~ 0.624.
@pytest.mark.parametrize(("direction", "expected"), [
    (Direction.P_Q, Fraction(159, 80)),
    (Direction.Q_P, Fraction(28, 15)),
    (Direction.MAX, Fraction(159, 80)),
])
def test_epsilon_for_delta_is_log_of_the_hand_derived_ratio(shift_view_exact, direction,
                                                            expected):
    r = epsilon_for_delta(shift_view_exact, Fraction(1, 5), direction=direction)
    with mpmath.workdps(50):
        ref = mpmath.log(mpmath.mpf(expected.numerator) / expected.denominator)
        assert abs(r.value - ref) < mpmath.mpf(10) ** -45
    assert r.kind is Kind.EXACT


def test_epsilon_is_infinite_when_the_atom_exceeds_delta(shift_view_exact):
    # P(0) = 16/81 ~ 0.1975 > 0.1: no finite epsilon makes H(P||Q) <= 0.1.
    r = epsilon_for_delta(shift_view_exact, Fraction(1, 10))
    assert mpmath.isinf(r.value)


# A three-outcome pair: P = (1/2, 1/3, 1/6), Q = (1/6, 1/3, 1/2).
#   H at e^eps = 3/2: P - 3/2 Q = (1/4, -1/6, -7/12) -> 1/4 (and the same for Q||P by symmetry)
#   D_2(P||Q) = log sum p^2/q = log(3/2 + 1/3 + 1/18) = log(17/9)
#   D_inf = log 3; KL = (1/2) log 3 + (1/6) log(1/3) = (1/3) log 3
@pytest.fixture(scope="module")
def three_point() -> ViewPair:
    third = Fraction(1, 3)
    return ViewPair.from_arrays([Fraction(1, 2), third, Fraction(1, 6)],
                                [Fraction(1, 6), third, Fraction(1, 2)], backend="exact")


def test_three_point_pair_hockey_stick(three_point):
    r = delta_for_epsilon(three_point, exp_epsilon=Fraction(3, 2))
    assert r.value == Fraction(1, 4)


def test_three_point_pair_renyi_max_and_kl(three_point):
    with mpmath.workdps(50):
        d2 = renyi_divergence(three_point, 2, direction="P||Q")
        assert abs(d2.value - mpmath.log(mpmath.mpf(17) / 9)) < mpmath.mpf(10) ** -45
        assert d2.kind is Kind.EXACT
        dinf = max_divergence(three_point)
        assert abs(dinf.value - mpmath.log(3)) < mpmath.mpf(10) ** -45
        kl = kl_divergence(three_point, direction="P||Q")
        assert abs(kl.value - mpmath.log(3) / 3) < mpmath.mpf(10) ** -45


def test_float_backend_brackets_the_exact_fraction():
    exact = binomial_shift_pair(4, Fraction(1, 3), backend="exact")
    approx = binomial_shift_pair(4, 1 / 3, backend="float")
    e = delta_for_epsilon(exact, exp_epsilon=Fraction(2))
    f = delta_for_epsilon(approx, epsilon=float(mpmath.log(2)))
    assert f.kind is Kind.UPPER
    # float(log 2) is within half an ulp of log 2; the bound must still be within its budget
    assert float(e.value) * (1 - 1e-15) <= f.value <= float(e.value) + f.error_budget + 1e-15


def test_renyi_and_max_divergence_of_a_shift_pair_are_infinite(shift_view_exact):
    assert mpmath.isinf(renyi_divergence(shift_view_exact, 2).value)
    assert mpmath.isinf(max_divergence(shift_view_exact).value)
