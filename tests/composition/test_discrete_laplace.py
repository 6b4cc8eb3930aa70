"""The discrete Laplace event (dp_accounting's DiscreteLaplaceDpEvent): its dominating view,
checked against an independent 40-digit oracle, the monotonicity in the shift it relies on,
closed forms, dp_accounting, and the event's round trip."""

from __future__ import annotations

import math

import mpmath
import pytest

from accountant.composition import Accountant, DiscreteLaplaceNoise, Subsampled
from accountant.divergence import hockey_stick
from accountant.errors import ParameterError


def _oracle_delta(a: float, shift: int, epsilon: float) -> mpmath.mpf:
    """sum_z (P(z) - e^eps P(z - shift))_+ for P(z) = tanh(a/2) e^(-a|z|), at 40 digits:
    every z in [-60/a - 5, shift + 60/a + 5] plus the two geometric tails in closed form
    (beyond the window the sign of P - e^eps Q is constant)."""
    with mpmath.workdps(40):
        am, e = mpmath.mpf(a), mpmath.exp(mpmath.mpf(epsilon))
        t = mpmath.tanh(am / 2)
        pmf = lambda z: t * mpmath.exp(-am * abs(z))  # noqa: E731
        lo, hi = -int(60 / a) - 5, shift + int(60 / a) + 5
        total = mpmath.fsum(max(pmf(z) - e * pmf(z - shift), 0) for z in range(lo, hi + 1))
        # z < lo: P/Q = e^(a shift); z > hi: P/Q = e^(-a shift)
        left = t * mpmath.exp(am * (lo - 1)) / (1 - mpmath.exp(-am))
        if a * shift > epsilon:
            total += left * (1 - e * mpmath.exp(-am * shift))
        return total


@pytest.mark.parametrize("a", [0.1, 0.5, 2.0])
def test_divergence_grows_with_the_shift(a):
    # the view takes the largest shift as the worst pair (Lehmann 1988, log-concave noise):
    # check every shift below it, at epsilons on both sides of each shift's a*s
    for big in range(2, 9):
        for eps in (0.0, 0.05, 0.3, 1.0, 2.5):
            deltas = [_oracle_delta(a, s, eps) for s in range(1, big + 1)]
            pairs = zip(deltas[:-1], deltas[1:], strict=True)
            assert all(x <= y * (1 + mpmath.mpf(10) ** -30) for x, y in pairs)


@pytest.mark.parametrize(("a", "sensitivity", "relation"), [
    (0.3, 1, "add-remove"), (0.3, 2, "substitute"), (1.7, 3, "add-remove"),
    (0.05, 4, "substitute")])
def test_view_matches_the_oracle(a, sensitivity, relation):
    view = DiscreteLaplaceNoise(a, sensitivity).view(relation)
    shift = sensitivity * (2 if relation == "substitute" else 1)
    for eps in (0.0, 0.2, 0.9 * a * shift):
        lower, upper = hockey_stick.delta_bracket(view, eps)
        truth = _oracle_delta(a, shift, eps)
        assert float(lower) <= truth <= float(upper)
        assert float(upper) == pytest.approx(float(truth), rel=1e-9)


@pytest.mark.parametrize("a", [0.2, 1.0, 2.0, 7.5])
def test_one_round_epsilon_closed_form(a):
    # shift 1: two outcomes {z <= 0}, {z >= 1}; delta(eps) = p (1 - e^(eps - a)) with
    # p = 1/(1 + e^-a), so eps(delta) = a + log(1 - delta (1 + e^-a))
    delta = 1e-5
    truth = a + math.log1p(-delta * (1 + math.exp(-a)))
    b = Accountant("add-remove").compose(DiscreteLaplaceNoise(a, 1)).get_epsilon(delta)
    assert float(b.lower) <= truth <= float(b.upper)
    assert float(b.upper) <= truth * (1 + 1e-3)


def test_substitution_doubles_the_shift():
    a = 0.4
    sub = Accountant("substitute").compose(DiscreteLaplaceNoise(a, 1), 5).get_epsilon(1e-6)
    two = Accountant("add-remove").compose(DiscreteLaplaceNoise(a, 2), 5).get_epsilon(1e-6)
    assert float(sub.upper) == pytest.approx(float(two.upper), rel=1e-12)
    assert float(sub.lower) > float(
        Accountant("add-remove").compose(DiscreteLaplaceNoise(a, 1), 5).get_epsilon(1e-6).upper)


@pytest.mark.parametrize(("a", "sensitivity", "rounds"), [(1.0, 1, 10), (0.2, 3, 100)])
def test_dp_event_agrees_with_dp_accounting(a, sensitivity, rounds):
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.dp_event import DiscreteLaplaceDpEvent

    ours = Accountant().compose(DiscreteLaplaceDpEvent(a, sensitivity), rounds)
    assert ours.neighboring == "add-remove"  # dp_accounting's convention for its events
    b = ours.get_epsilon(1e-5)
    theirs = dpa.pld.PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)
    theirs.compose(DiscreteLaplaceDpEvent(a, sensitivity), rounds)
    # their pessimistic PLD is an upper bound too: it cannot be below our certified lower end
    assert float(b.lower) <= theirs.get_epsilon(1e-5)
    assert float(b.upper) <= theirs.get_epsilon(1e-5) * (1 + 2e-3)
    event = ours.to_dp_event()
    assert event == dpa.SelfComposedDpEvent(DiscreteLaplaceDpEvent(a, sensitivity), rounds)


@pytest.mark.parametrize(("a", "sensitivity"), [
    (0.0, 1), (-1.0, 1), (math.inf, 1), (math.nan, 1), (1.0, 0), (1.0, 1.5), (1.0, 10**6)])
def test_bad_parameters_are_refused(a, sensitivity):
    with pytest.raises(ParameterError, match="noise_parameter|sensitivity"):
        DiscreteLaplaceNoise(a, sensitivity)


def test_subsampled_discrete_laplace_is_refused():
    with pytest.raises(ParameterError, match="DiscreteLaplaceNoise"):
        Accountant("add-remove").compose(Subsampled(DiscreteLaplaceNoise(1.0, 1), 0.1))
