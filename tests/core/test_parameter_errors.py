"""Every invalid input raises ParameterError naming the parameter, its value and the range."""

import math
from fractions import Fraction

import pytest

from accountant import (
    ParameterError,
    ViewPair,
    binomial,
    delta_for_epsilon,
    epsilon_for_delta,
    geometric,
    poisson,
    renyi_divergence,
)
from accountant.pairs import binomial_shift_pair


@pytest.fixture(scope="module")
def view():
    return binomial_shift_pair(50, 0.3)


def test_negative_epsilon(view):
    with pytest.raises(ParameterError, match=r"epsilon=-0\.5 is outside \[0, inf\)"):
        delta_for_epsilon(view, -0.5)


@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5, -1e-6])
def test_delta_outside_open_unit_interval(view, delta):
    with pytest.raises(ParameterError, match=rf"delta={delta!r} is outside \(0, 1\)"):
        epsilon_for_delta(view, delta)


def test_nan_delta(view):
    with pytest.raises(ParameterError, match="delta=nan"):
        epsilon_for_delta(view, math.nan)


@pytest.mark.parametrize("n", [0, -3])
def test_n_below_one(n):
    with pytest.raises(ParameterError, match=rf"n={n} is outside integers in \[1, 1e10\]"):
        binomial_shift_pair(n, 0.3)


def test_n_not_an_integer():
    with pytest.raises(ParameterError, match=r"n=2\.5 is not an integer"):
        binomial_shift_pair(2.5, 0.3)


@pytest.mark.parametrize("p", [-0.1, 1.2])
def test_probability_outside_unit_interval(p):
    with pytest.raises(ParameterError, match=rf"p={p!r} is outside \[0, 1\]"):
        binomial(10, p)


def test_float_probability_with_exact_backend():
    with pytest.raises(ParameterError, match="must be a fractions.Fraction"):
        binomial(10, 0.3, backend="exact")


@pytest.mark.parametrize("alpha", [1.0, 0.5, -2.0])
def test_renyi_order_at_most_one(view, alpha):
    with pytest.raises(ParameterError, match=rf"alpha={alpha!r} is outside \(1, inf\]"):
        renyi_divergence(view, alpha)


def test_pmf_not_summing_to_one():
    with pytest.raises(ParameterError, match=r"p sums to 0\.9"):
        ViewPair.from_arrays([0.5, 0.4], [0.5, 0.5])


def test_exact_pmf_not_summing_to_one():
    with pytest.raises(ParameterError, match="q sums to 11/10"):
        ViewPair.from_arrays([Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 2), Fraction(3, 5)],
                             backend="exact")


def test_negative_probability_in_pmf():
    with pytest.raises(ParameterError, match=r"p has a value -0\.1 outside \[0, 1\]"):
        ViewPair.from_arrays([-0.1, 1.1], [0.5, 0.5])


def test_unknown_backend():
    with pytest.raises(ParameterError, match="backend='gpu' is not one of float, mp, exact"):
        binomial(10, 0.5, backend="gpu")


def test_tail_outside_unit_interval():
    with pytest.raises(ParameterError, match=r"tail=0\.0 is outside \(0, 1\)"):
        poisson(3.0, tail=0.0)


def test_geometric_with_zero_success_probability():
    with pytest.raises(ParameterError, match="p=0 is outside"):
        geometric(0.0)


def test_unknown_direction(view):
    with pytest.raises(ParameterError, match="direction='both' is not one of"):
        delta_for_epsilon(view, 0.1, direction="both")


def test_both_epsilon_and_exp_epsilon(view):
    with pytest.raises(ParameterError, match="exactly one of epsilon and exp_epsilon"):
        delta_for_epsilon(view, 0.1, exp_epsilon=2)


def test_exp_epsilon_below_one(view):
    with pytest.raises(ParameterError, match=r"exp_epsilon=0\.5 is outside \[1, inf\)"):
        delta_for_epsilon(view, exp_epsilon=0.5)


def test_parameter_error_is_a_value_error():
    assert issubclass(ParameterError, ValueError)
