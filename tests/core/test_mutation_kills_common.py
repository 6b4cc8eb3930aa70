"""The maximum over both orders (`accountant.divergence.common.over_directions`) at the balls'
extremes, and the plumbing helpers of common.py, pinned where mutation testing found gaps
(docs/soundness.md#mutation-testing, sixth run).

An EXACT Result with a radius r states only that the truth lies in [value - r, value + r].
The maximum over P||Q and Q||P must hold max(x, y) for every x in one ball (or below an UPPER
end) and y in the other; the tests below put the two orientations where the side with the
larger midpoint has the narrower ball, so that the other side's ball decides the answer. The
oracle is that statement itself, evaluated exactly in Fractions at the balls' corners.
"""

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant.divergence import common
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric.mp import to_fmpq
from accountant.result import Direction, Kind, Result
from accountant.view import ViewPair


def _view():
    # any valid pair: over_directions only orients it; `one` below ignores its contents
    p = np.array([Fraction(3, 4), Fraction(1, 4)], dtype=object)
    q = np.array([Fraction(1, 4), Fraction(3, 4)], dtype=object)
    return ViewPair(backend="exact", p=p, q=q)


def _result(value, kind, radius=0.0, precision=None):
    return Result(quantity="renyi", value=mpmath.mpf(value), kind=kind,
                  direction=Direction.P_Q, method=f"test.{kind.value}", order=2.0,
                  radius=radius, precision=precision)


def _one(pq, qp):
    """A `one` callback giving `pq` for P||Q and `qp` for Q||P (direction relabelled)."""
    def one(view, direction):
        return (pq if direction is Direction.P_Q else qp).with_(direction=direction)
    return one


def _q(x):
    """A float/mpf/Fraction value as an exact Fraction."""
    v = to_fmpq(x)
    return Fraction(int(v.p), int(v.q))


def _corners(r):
    """The extreme admissible truths of one orientation's Result (exact Fractions)."""
    v = _q(r.value)
    if r.kind is Kind.EXACT:
        return (v - Fraction(r.radius), v + Fraction(r.radius))
    return (v,)   # the truth may sit at an UPPER (LOWER) end itself


# (P||Q, Q||P): the larger midpoint has the narrower (or no) ball
BALLS = {
    "wide-below": (("1.0", 0.0), ("0.99", 0.1)),
    "wide-below-both-radii": (("1.0", 1e-3), ("0.95", 0.2)),
    "equal-mid-wider-second": (("0.5", 1e-6), ("0.5", 1e-3)),
}


@pytest.mark.parametrize("swap", [False, True], ids=["wide-Q||P", "wide-P||Q"])
@pytest.mark.parametrize("name", list(BALLS))
def test_exact_maximum_takes_the_wider_radius(name, swap):
    """max(x, y) with x, y in two EXACT balls lies in the returned ball for every corner:
    the returned radius must be max(ra, rb), not the radius of the side that wins on the
    midpoint (0 in "wide-below": the truth 1.09 lies outside [1, 1])."""
    (va, ra), (vb, rb) = BALLS[name]
    a = _result(va, Kind.EXACT, ra, precision=128)
    b = _result(vb, Kind.EXACT, rb, precision=256)
    if swap:
        a, b = b, a
    out = common.over_directions(_view(), Direction.MAX, _one(a, b))
    assert out.kind is Kind.EXACT and out.direction is Direction.MAX
    assert out.radius == max(ra, rb)
    assert out.precision == 256
    assert _q(out.value) == max(_q(a.value), _q(b.value))   # the larger midpoint
    mid, rad = _q(out.value), Fraction(out.radius)
    for x, y in itertools.product(_corners(a), _corners(b)):
        assert mid - rad <= max(x, y) <= mid + rad
    assert out.upper_end() >= max(_corners(a) + _corners(b))


@pytest.mark.parametrize("swap", [False, True], ids=["exact-P||Q", "exact-Q||P"])
@pytest.mark.parametrize("upper_value", ["1.05", "0.5", "1.2"])
def test_exact_ball_meeting_an_upper_end_of_radius_zero(upper_value, swap):
    """EXACT 1.0 +- 0.1 against an UPPER end of radius 0: the maximum is an UPPER bound only
    once the ball is moved up by its radius. At 1.05 the UPPER side wins on the value but the
    ball's upper end 1.1 is larger (the truth may be 1.1); at 0.5 the ball wins on both."""
    ball = _result("1.0", Kind.EXACT, 0.1, precision=128)
    upper = _result(upper_value, Kind.UPPER)
    a, b = (ball, upper) if not swap else (upper, ball)
    out = common.over_directions(_view(), Direction.MAX, _one(a, b))
    assert out.kind is Kind.UPPER and out.direction is Direction.MAX and out.radius == 0.0
    worst = max(_corners(ball) + _corners(upper))
    assert _q(out.value) >= worst
    # and not looser than the exact maximum of the two upper ends, rounded up once
    assert _q(out.value) <= worst * (1 + Fraction(1, 2**100))


@pytest.mark.parametrize("swap", [False, True], ids=["exact-P||Q", "exact-Q||P"])
@pytest.mark.parametrize("lower_value", ["0.95", "0.85", "1.5"])
def test_exact_ball_meeting_a_lower_end(lower_value, swap):
    """EXACT 1.0 +- 0.1 against a LOWER end: the maximum is a LOWER bound at most the smallest
    admissible maximum, max(0.9, lower)."""
    ball = _result("1.0", Kind.EXACT, 0.1, precision=128)
    lower = _result(lower_value, Kind.LOWER)
    a, b = (ball, lower) if not swap else (lower, ball)
    out = common.over_directions(_view(), Direction.MAX, _one(a, b))
    assert out.kind is Kind.LOWER and out.direction is Direction.MAX
    least = max(min(_corners(ball)), _q(lower.value))
    assert _q(out.value) <= least
    assert _q(out.value) >= least * (1 - Fraction(1, 2**100))


@pytest.mark.parametrize("kind", [Kind.UPPER, Kind.LOWER])
@pytest.mark.parametrize("swap", [False, True], ids=["larger-P||Q", "larger-Q||P"])
def test_maximum_of_two_bounds_without_radius(kind, swap):
    """Two UPPER (LOWER) ends: the maximum is the larger one, same kind, its method first."""
    a, b = _result("0.25", kind), _result("0.75", kind)
    b = b.with_(method="test.larger")
    if swap:
        a, b = b, a
    out = common.over_directions(_view(), Direction.MAX, _one(a, b))
    assert out.kind is kind and out.direction is Direction.MAX and out.radius == 0.0
    assert _q(out.value) == Fraction(3, 4)
    assert out.method.startswith("test.larger [max over")


def test_upper_and_lower_do_not_combine():
    """max(lower bound, upper bound) bounds nothing: PrecisionError, in either order."""
    lo, up = _result("0.3", Kind.LOWER), _result("0.2", Kind.UPPER)
    for a, b in ((lo, up), (up, lo)):
        with pytest.raises(PrecisionError, match="cannot combine"):
            common.over_directions(_view(), Direction.MAX, _one(a, b))


def test_one_direction_is_passed_through_oriented():
    """P||Q and Q||P call `one` once with the (swapped for Q||P) view and return its Result;
    MAX calls it with both."""
    seen = []
    r = _result("0.7", Kind.UPPER)

    def one(view, direction):
        seen.append((view.p[0], direction))
        return r.with_(direction=direction)

    assert common.over_directions(_view(), Direction.P_Q, one).direction is Direction.P_Q
    assert common.over_directions(_view(), Direction.Q_P, one).direction is Direction.Q_P
    assert seen == [(Fraction(3, 4), Direction.P_Q), (Fraction(1, 4), Direction.Q_P)]
    seen.clear()
    assert common.over_directions(_view(), Direction.MAX, one).direction is Direction.MAX
    assert seen == [(Fraction(3, 4), Direction.P_Q), (Fraction(1, 4), Direction.Q_P)]


def test_as_direction_and_oriented():
    """Strings map to Directions; a bad one names the value and the valid ones."""
    assert common.as_direction("P||Q") is Direction.P_Q
    assert common.as_direction("max") is Direction.MAX
    assert common.as_direction(Direction.Q_P) is Direction.Q_P
    with pytest.raises(ParameterError, match=r"direction='PQ' is not one of P\|\|Q, Q\|\|P"):
        common.as_direction("PQ")
    v = _view()
    assert common.oriented(v, Direction.P_Q) is v
    assert common.oriented(v, Direction.MAX) is v
    assert list(common.oriented(v, Direction.Q_P).p) == [Fraction(1, 4), Fraction(3, 4)]


def test_budget_and_arr():
    """budget = upper - nominal when finite and positive, else 0; arr broadcasts read-only."""
    assert common.budget(1.5, 1.25) == 0.25
    assert common.budget(Fraction(1, 2), mpmath.mpf("0.25")) == 0.25
    assert common.budget(1.0, 1.5) == 0.0
    assert common.budget(1.0, 1.0) == 0.0
    assert common.budget(float("inf"), 1.0) == 0.0
    assert common.budget(None, 1.0) == 0.0
    a = common.arr(0.5, 3)
    assert a.shape == (3,) and a.dtype == float and list(a) == [0.5] * 3
    assert not a.flags.writeable
    assert list(common.arr([1, 2], 2)) == [1.0, 2.0]


def test_ball_against_a_rational_upper_end():
    """An exact view's UPPER end may be a Fraction: the ends are compared exactly
    (exact_key), not by Python's mixed mpf/Fraction ordering (which raises)."""
    ball = _result("1.0", Kind.EXACT, 0.1, precision=128)
    upper = Result(quantity="renyi", value=Fraction(21, 20), kind=Kind.UPPER,
                   direction=Direction.P_Q, method="test.rational", order=2.0)
    for a, b in ((ball, upper), (upper, ball)):
        out = common.over_directions(_view(), Direction.MAX, _one(a, b))
        top = max(_corners(ball))        # 1 + the float radius 0.1, exactly
        assert out.kind is Kind.UPPER and _q(out.value) >= top > Fraction(21, 20)
        assert _q(out.value) <= top * (1 + Fraction(1, 2**100))


def test_exact_maximum_of_two_rationals_has_no_precision():
    """Two EXACT rationals (no balls, precision None): the maximum is the larger one, EXACT,
    radius 0, precision None."""
    a = Result(quantity="delta", value=Fraction(1, 3), kind=Kind.EXACT,
               direction=Direction.P_Q, method="test.a")
    b = Result(quantity="delta", value=Fraction(1, 2), kind=Kind.EXACT,
               direction=Direction.P_Q, method="test.b")
    out = common.over_directions(_view(), Direction.MAX, _one(a, b))
    assert out.kind is Kind.EXACT and out.value == Fraction(1, 2)
    assert out.radius == 0.0 and out.precision is None
