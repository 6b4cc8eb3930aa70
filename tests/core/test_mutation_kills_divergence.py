"""The hockey-stick divergence and its inversion on float views
(accountant/divergence/hockey_stick.py), pinned where mutation testing found gaps
(docs/soundness.md#mutation-testing).

Oracle: the definition H_{e^eps}(P||Q) = sum_x [P(x) - e^eps Q(x)]_+ and
eps(delta) = inf{eps >= 0: H <= delta}, evaluated in mpmath at 50 digits from the exact
probabilities the float view was built from. A float view with log_error r says each true
log-probability is within r of the stored one; the upper bound must hold for the worst
admissible pair (P raised, Q lowered by r each), the lower bound for the best one.
"""

import math

import mpmath
import numpy as np
import pytest

from accountant.divergence import hockey_stick as hs
from accountant.result import Direction, Kind
from accountant.view import ViewPair

_P = [0.3, 0.2, 0.15, 0.1, 0.1, 0.05, 0.05, 0.05, 0.0]
_Q = [0.05, 0.1, 0.15, 0.2, 0.05, 0.3, 0.1, 0.0, 0.05]


def _view(p, q, log_error=0.0, tail_p=0.0, tail_q=0.0, grid_exact=True):
    with np.errstate(divide="ignore"):
        lp, lq = np.log(np.asarray(p, float)), np.log(np.asarray(q, float))
    return ViewPair(backend="float", p=lp, q=lq, log_error=log_error, tail_p=tail_p,
                    tail_q=tail_q, grid_exact=grid_exact)


def _h(p, q, eps, shift=0.0):
    """sum [P e^shift - e^eps Q e^-shift]_+ at 50 digits (shift = +-log_error: the worst
    or best admissible pair)."""
    with mpmath.workdps(50):
        g = mpmath.exp(mpmath.mpf(eps))
        s = mpmath.exp(mpmath.mpf(shift))
        return sum(max(mpmath.mpf(0), mpmath.mpf(a) * s - g * mpmath.mpf(b) / s)
                   for a, b in zip(p, q, strict=True))


def _eps(p, q, delta, shift=0.0, extra=0.0):
    """inf{eps >= 0: H(eps) + extra <= delta} by bisection at 50 digits."""
    with mpmath.workdps(50):
        if _h(p, q, 0.0, shift) + extra <= delta:
            return mpmath.mpf(0)
        atom = sum(mpmath.mpf(a) for a, b in zip(p, q, strict=True) if b == 0)
        if atom * mpmath.exp(shift) + extra > delta:
            return mpmath.inf
        lo, hi = mpmath.mpf(0), mpmath.mpf(40)
        for _ in range(120):
            mid = (lo + hi) / 2
            if _h(p, q, mid, shift) + extra <= delta:
                hi = mid
            else:
                lo = mid
        return hi


_CASES = [(0.0, 0.0), (1e-6, 0.0), (0.0, 1e-4), (1e-5, 1e-7)]


@pytest.mark.parametrize("log_error, tail_p", _CASES)
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0, 1.8, 2.5])
def test_delta_bracket_holds_every_admissible_pair(log_error, tail_p, epsilon):
    view = _view(_P, _Q, log_error, tail_p=tail_p)
    lo, up = hs.delta_bracket(view, epsilon, direction="P||Q")
    single = hs.delta_for_epsilon(view, epsilon, direction="P||Q")
    worst = _h(_P, _Q, epsilon, log_error) + tail_p
    best = _h(_P, _Q, epsilon, -log_error)
    assert lo.kind is Kind.LOWER and up.kind is Kind.UPPER
    assert lo.quantity == up.quantity == single.quantity == "delta"
    assert lo.at == up.at == single.at == epsilon
    assert mpmath.mpf(up.value) >= min(worst, 1) and mpmath.mpf(single.value) >= min(worst, 1)
    assert mpmath.mpf(lo.value) <= best
    # tight: the float allowances are far below 1e-9 of the value
    assert up.value <= worst * (1 + 1e-9) and lo.value >= best * (1 - 1e-9)
    assert single.value == up.value
    assert single.error_budget >= 0


@pytest.mark.parametrize("log_error, tail_p", _CASES)
@pytest.mark.parametrize("delta", [1e-3, 0.02, 0.1, 0.3])
def test_epsilon_bracket_holds_every_admissible_pair(log_error, tail_p, delta):
    view = _view(_P, _Q, log_error, tail_p=tail_p)
    lo, up = hs.epsilon_bracket(view, delta, direction="P||Q")
    single = hs.epsilon_for_delta(view, delta, direction="P||Q")
    worst = _eps(_P, _Q, delta, log_error, extra=tail_p)
    best = _eps(_P, _Q, delta, -log_error)
    assert lo.quantity == up.quantity == single.quantity == "epsilon"
    assert lo.at == up.at == single.at == delta
    assert lo.kind is Kind.LOWER and up.kind is Kind.UPPER
    assert mpmath.mpf(up.value) >= worst and mpmath.mpf(single.value) >= worst
    assert mpmath.mpf(lo.value) <= best
    if math.isfinite(worst):
        assert up.value <= worst + 1e-9 and lo.value >= best - 1e-9
    assert single.value == up.value


def test_epsilon_is_infinite_when_the_infinite_loss_mass_exceeds_delta():
    """P puts 0.05 where Q puts 0: H >= 0.05 at every eps."""
    view = _view(_P, _Q)
    assert hs.epsilon_for_delta(view, 0.049, direction="P||Q").value == math.inf
    assert hs.epsilon_for_delta(view, 0.051, direction="P||Q").value < math.inf
    lo, up = hs.epsilon_bracket(view, 0.049, direction="P||Q")
    assert up.value == math.inf and lo.value == math.inf


@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.5])
def test_max_direction_takes_the_larger_order(epsilon):
    view = _view(_P, _Q, 1e-6)
    pq = hs.delta_for_epsilon(view, epsilon, direction="P||Q").value
    qp = hs.delta_for_epsilon(view, epsilon, direction="Q||P").value
    both = hs.delta_for_epsilon(view, epsilon, direction="max")
    assert both.value == max(pq, qp) and both.direction is Direction.MAX
    assert qp >= _h(_Q, _P, epsilon, 1e-6)
    lo, up = hs.delta_bracket(view, epsilon)
    assert up.value == both.value and lo.value <= min(pq, qp) + 1e-9 * both.value + 1e-300
    assert lo.value >= max(float(_h(_P, _Q, epsilon, -1e-6)),
                           float(_h(_Q, _P, epsilon, -1e-6))) * (1 - 1e-9)


@pytest.mark.parametrize("delta", [0.06, 0.2])
def test_max_direction_epsilon_takes_the_larger_order(delta):
    view = _view(_P, _Q)
    pq = hs.epsilon_for_delta(view, delta, direction="P||Q").value
    qp = hs.epsilon_for_delta(view, delta, direction="Q||P").value
    lo, up = hs.epsilon_bracket(view, delta)
    assert up.value == max(pq, qp)
    assert lo.value >= float(max(_eps(_P, _Q, delta), _eps(_Q, _P, delta))) - 1e-9


@pytest.mark.parametrize("epsilon", [0.0, 0.4, 1.2])
def test_lower_end_on_a_grid_of_lower_bounds_gives_up_e_eps_tail_q(epsilon):
    """Grid values that are only lower bounds (p~ <= p, q~ <= q, Q's deficit <= tail_q):
    the truth can be as low as H_grid - e^eps tail_q (Q's deficit placed where P - e^eps Q
    is positive), so the lower end must be at most that."""
    tail_q = 0.01
    view = _view(_P, _Q, 0.0, tail_q=tail_q, grid_exact=False)
    lo, up = hs.delta_bracket(view, epsilon, direction="P||Q")
    with mpmath.workdps(50):
        worst_low = max(mpmath.mpf(0), _h(_P, _Q, epsilon) - mpmath.exp(epsilon) * tail_q)
    assert mpmath.mpf(lo.value) <= worst_low
    assert lo.value >= float(worst_low) * (1 - 1e-9)
    assert mpmath.mpf(up.value) >= _h(_P, _Q, epsilon)


@pytest.mark.parametrize("delta", [0.06, 0.15])
def test_epsilon_lower_end_on_a_grid_of_lower_bounds(delta):
    tail_q = 0.005
    view = _view(_P, _Q, 0.0, tail_q=tail_q, grid_exact=False)
    lo, up = hs.epsilon_bracket(view, delta, direction="P||Q")
    # the truth H_true >= H_grid - e^eps tail_q: its eps(delta) is at least the inverse
    # of that function, with eps limited to the upper end
    with mpmath.workdps(50):
        e_up = mpmath.mpf(up.value)
        g = mpmath.exp(e_up) * tail_q
        bound = _eps(_P, _Q, delta + g)
    assert mpmath.mpf(lo.value) <= bound
    assert lo.value >= float(bound) - 1e-9
    assert mpmath.mpf(up.value) >= _eps(_P, _Q, delta)


def test_exp_epsilon_argument_is_e_to_the_epsilon():
    view = _view(_P, _Q)
    a = hs.delta_for_epsilon(view, exp_epsilon=math.e, direction="P||Q")
    assert mpmath.mpf(a.value) >= _h(_P, _Q, 1.0)
    assert a.value <= float(_h(_P, _Q, 1.0)) * (1 + 1e-9)
    assert a.at == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("epsilon", [0.7, 1.0, 3.0])
def test_delta_is_zero_above_the_largest_loss(epsilon):
    """P = (1/2, 1/2), Q = (1/4, 3/4): the largest loss is log 2 < eps, so H = 0 exactly and
    both ends of the bracket are 0 (no outcome contributes)."""
    view = _view([0.5, 0.5], [0.25, 0.75])
    lo, up = hs.delta_bracket(view, epsilon, direction="P||Q")
    assert lo.value == 0.0 and up.value == 0.0
    assert hs.delta_for_epsilon(view, epsilon, direction="P||Q").value == 0.0
    # a residual mass tail_p is all of the upper end there: at least tail_p, exactly
    with_tail = _view([0.5, 0.5], [0.25, 0.75], tail_p=1e-4)
    assert hs.delta_for_epsilon(with_tail, epsilon, direction="P||Q").value >= 1e-4
    assert hs.delta_bracket(with_tail, epsilon, direction="P||Q")[1].value >= 1e-4


def test_epsilon_of_a_single_positive_loss_outcome():
    """P = (1/2, 1/2), Q = (1/4, 3/4): one outcome of positive loss log 2, so
    eps(delta) = log((1/2 - delta)/(1/4)) for delta < 1/4 and 0 above H(e^0) = 1/4."""
    view = _view([0.5, 0.5], [0.25, 0.75])
    for delta in (0.01, 0.1, 0.2):
        lo, up = hs.epsilon_bracket(view, delta, direction="P||Q")
        with mpmath.workdps(50):
            exact = mpmath.log((mpmath.mpf(1) / 2 - mpmath.mpf(delta)) * 4)
        assert mpmath.mpf(lo.value) <= exact <= mpmath.mpf(up.value)
        assert up.value - lo.value <= 1e-12
    lo, up = hs.epsilon_bracket(view, 0.3, direction="P||Q")
    assert lo.value == 0.0 and 0.0 <= up.value <= 1e-15
    # delta above all of P's positive-loss mass (1/2): no prefix is live, both ends 0
    lo, up = hs.epsilon_bracket(view, 0.6, direction="P||Q")
    assert lo.value == 0.0 and up.value == 0.0
    # no outcome of positive loss at all (P = Q): both ends 0
    same = _view([0.5, 0.5], [0.5, 0.5])
    lo, up = hs.epsilon_bracket(same, 1e-3, direction="P||Q")
    assert lo.value == 0.0 and up.value == 0.0


@pytest.mark.parametrize("delta", [0.01, 0.06, 0.08, 0.2])
def test_epsilon_of_outcomes_given_in_increasing_loss_order(delta):
    """Positive losses stored in increasing order (log 1.5, then log 3): the inversion
    must sort them; both orientations of the running pair against the oracle."""
    p, q = [0.3, 0.6, 0.1], [0.2, 0.2, 0.6]
    view = _view(p, q)
    lo, up = hs.epsilon_bracket(view, delta, direction="P||Q")
    exact = _eps(p, q, delta)
    assert mpmath.mpf(lo.value) <= exact <= mpmath.mpf(up.value)
    assert up.value - lo.value <= 1e-9
    lo, up = hs.epsilon_bracket(_view(_P, _Q), delta, direction="Q||P")
    exact = _eps(_Q, _P, delta)          # inf below Q's infinite-loss mass 0.05
    assert mpmath.mpf(lo.value) <= exact <= mpmath.mpf(up.value)
    if math.isfinite(exact):
        assert up.value - lo.value <= 1e-9


def test_epsilon_ends_on_a_grid_of_lower_bounds_when_the_upper_end_is_infinite():
    """P's infinite-loss mass 0.05 exceeds delta = 0.01: the upper end is +inf; on a grid
    of lower-bound values the lower end falls back to the largest finite loss for the
    deficit allowance, and is +inf too (the atom alone exceeds delta plus that allowance:
    0.05 > 0.01 + e^(log 6) 1e-3)."""
    view = _view(_P, _Q, 0.0, tail_q=1e-3, grid_exact=False)
    lo, up = hs.epsilon_bracket(view, 0.01, direction="P||Q")
    assert up.value == math.inf and lo.value == math.inf
