"""KOV's float window (docs/conversions.md#optimal-composition, "float path") against the
mpmath sum over every term: the float ball holds the 50-digit value, on both sides, and is
as narrow as its stated budget (1e-10 relative); beyond `MP_ROUNDS` it is the default."""

import math

import pytest

from accountant.composition import kov
from accountant.composition.accountant import Accountant, EpsilonDelta
from accountant.errors import ParameterError
from accountant.result import Kind

# (epsilon, delta, rounds): small and large epsilon, delta = 0 and > 0, k from 1 to MP_ROUNDS
CASES = [(0.5, 0.0, 1), (1.0, 1e-4, 3), (0.1, 1e-8, 100), (0.5, 0.0, 20), (0.1, 1e-9, 500),
         (0.05, 0.0, 1000), (0.01, 1e-10, 2000), (3.0, 1e-6, 40)]
BUDGET = 1e-10   # the stated relative width of a float ball (measured: about 1e-11)


@pytest.mark.parametrize("epsilon, delta, rounds", CASES)
@pytest.mark.parametrize("at", [0.0, 0.3, 0.9])
def test_float_delta_ball_holds_the_mpmath_value(epsilon, delta, rounds, at):
    epsilon_total = at * rounds * epsilon
    exact = kov.delta_kov(epsilon=epsilon, delta=delta, rounds=rounds,
                          epsilon_total=epsilon_total, backend="mp")
    ball = kov.delta_kov(epsilon=epsilon, delta=delta, rounds=rounds,
                         epsilon_total=epsilon_total, backend="float")
    assert exact.kind is Kind.EXACT and not exact.radius
    assert ball.kind is Kind.EXACT
    assert ball.lower_end() <= exact.value <= ball.upper_end()
    assert ball.upper_end() - ball.lower_end() <= BUDGET * float(exact.value) + 1e-300


@pytest.mark.parametrize("epsilon, delta, rounds", CASES)
@pytest.mark.parametrize("delta_total", [1e-3, 1e-6, 1e-12])
def test_float_epsilon_ball_holds_the_mpmath_value(epsilon, delta, rounds, delta_total):
    exact = kov.epsilon_kov(epsilon=epsilon, delta=delta, rounds=rounds,
                            delta_total=delta_total, backend="mp")
    ball = kov.epsilon_kov(epsilon=epsilon, delta=delta, rounds=rounds,
                           delta_total=delta_total, backend="float")
    if math.isinf(exact.value):
        assert math.isinf(ball.upper_end())
        return
    assert ball.lower_end() <= exact.value <= ball.upper_end()
    # the budget holds on delta_RR = (delta' - atom)/keep, which the +inf atom's rounding
    # enters relative to the difference: the eps width scales with that conditioning
    atom = -math.expm1(rounds * math.log1p(-delta))
    condition = delta_total / (delta_total - atom)
    assert ball.upper_end() - ball.lower_end() <= BUDGET * condition * float(exact.value)


def test_float_epsilon_ends_are_certified_by_the_float_delta():
    """The ball's upper end has certified delta' <= target, its lower end certified > target."""
    target = 1e-5
    ball = kov.epsilon_kov(epsilon=0.02, delta=1e-12, rounds=200_000, delta_total=target)
    low, _ = kov.kov_delta_bounds(epsilon=0.02, delta=1e-12, rounds=200_000,
                                  epsilon_total=ball.lower_end())
    _, high = kov.kov_delta_bounds(epsilon=0.02, delta=1e-12, rounds=200_000,
                                   epsilon_total=ball.upper_end())
    assert high <= target < low


def test_delta_bounds_decrease_in_epsilon_total():
    """delta'(eps') is nonincreasing: the certified ends at a larger eps' are never both
    above those at a smaller one (a wrong window or sign would break this)."""
    points = [0.0, 1.0, 2.0, 4.0, 8.0, 16.0]
    ends = [kov.kov_delta_bounds(epsilon=0.01, delta=1e-9, rounds=1_000_000,
                                 epsilon_total=e) for e in points]
    for (lo1, _), (_, hi2) in zip(ends, ends[1:], strict=False):
        assert hi2 <= lo1 * (1 + 1e-9)


def test_default_backend_switches_above_mp_rounds():
    small = kov.epsilon_kov(epsilon=0.1, delta=0.0, rounds=kov.MP_ROUNDS, delta_total=1e-5)
    large = kov.epsilon_kov(epsilon=0.1, delta=0.0, rounds=kov.MP_ROUNDS + 1,
                            delta_total=1e-5)
    assert not small.radius and "float window" not in small.method
    assert large.radius > 0 and "float window" in large.method
    # one more round of a 0.1-DP mechanism cannot lower epsilon'
    assert large.lower_end() >= float(small.value) * (1 - 1e-12)


def test_zero_epsilon_composes_to_zero():
    r = kov.epsilon_kov(epsilon=0.0, delta=0.0, rounds=10**6, delta_total=1e-5)
    assert r.upper_end() == 0.0


def test_infinite_loss_mass_above_target_is_infinite_in_float():
    # 1 - (1 - 1e-10)^1e6 ~ 1e-4 > 1e-5
    r = kov.epsilon_kov(epsilon=0.01, delta=1e-10, rounds=10**6, delta_total=1e-5)
    assert math.isinf(r.value)


def test_million_rounds_through_the_accountant_is_a_ball_between_drv_and_zero():
    """T = 1e6 by the kov route: a two-sided bracket (the ball split), below DRV's
    advanced composition (a looser upper bound) and above sqrt(T) eps * 0.9 (the optimum
    at small eps is about sqrt(2 T log(1/delta')) eps; here 0.9 sqrt(T) eps is a weak
    lower check that the bulk was not cut)."""
    acc = Accountant().compose(EpsilonDelta(0.001, 1e-13), count=10**6)
    bracket = acc.get_epsilon(1e-5, method="kov")
    drv = kov.epsilon_drv(epsilon=0.001, delta=1e-13, rounds=10**6, delta_total=1e-5)
    assert bracket.lower is not None
    assert 0.9 * 1.0 <= float(bracket.lower) <= float(bracket.upper) <= drv.value
    assert float(bracket.upper) - float(bracket.lower) <= BUDGET * float(bracket.upper)


def test_unknown_backend_names_the_parameter():
    with pytest.raises(ParameterError, match="backend='fft'"):
        kov.delta_kov(epsilon=0.1, delta=0.0, rounds=3, epsilon_total=0.1, backend="fft")


@pytest.mark.slow
def test_float_matches_mpmath_at_a_hundred_thousand_rounds():
    """The mpmath path at k = 1e5 (about 4 s) against the float window (a few ms)."""
    args = dict(epsilon=0.01, delta=1e-12, rounds=100_000)
    exact = kov.epsilon_kov(**args, delta_total=1e-6, backend="mp")
    ball = kov.epsilon_kov(**args, delta_total=1e-6, backend="float")
    assert ball.lower_end() <= exact.value <= ball.upper_end()
    exact_d = kov.delta_kov(**args, epsilon_total=5.0, backend="mp")
    ball_d = kov.delta_kov(**args, epsilon_total=5.0, backend="float")
    assert ball_d.lower_end() <= exact_d.value <= ball_d.upper_end()
