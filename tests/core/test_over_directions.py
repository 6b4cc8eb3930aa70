"""The maximum over both orders (`divergence.common.over_directions`) with balls: the two
survivors of the fourth mutation run that were not judged harmless (docs/soundness.md):
an EXACT maximum keeps the larger radius, and an EXACT ball beside an UPPER (LOWER) end is
moved to its upper (lower) end before the maximum is taken."""

import pytest

from accountant import Direction, Kind, Result, ViewPair
from accountant.divergence.common import over_directions

VIEW = ViewPair.from_arrays([0.5, 0.5], [0.25, 0.75])


def _one(spec):
    # spec: direction -> (value, kind, radius)
    def one(view, direction):
        value, kind, radius = spec[direction]
        return Result(quantity="delta", value=value, kind=kind, direction=direction,
                      method="test", radius=radius)
    return one


@pytest.mark.parametrize("first, second", [(0.1, 0.3), (0.3, 0.1)])
def test_an_exact_maximum_keeps_the_larger_radius(first, second):
    # max(x, y) with x in 1.0 +- first, y in 0.9 +- second: within max(first, second) of 1.0
    out = over_directions(VIEW, Direction.MAX, _one({
        Direction.P_Q: (1.0, Kind.EXACT, first), Direction.Q_P: (0.9, Kind.EXACT, second)}))
    assert out.kind is Kind.EXACT and out.value == 1.0
    assert out.radius >= max(first, second)


@pytest.mark.parametrize("exact_side", [Direction.P_Q, Direction.Q_P])
def test_an_exact_ball_beside_an_upper_end_is_moved_to_its_upper_end(exact_side):
    # the true maximum can be 1.0 + 0.5 = 1.5 > 1.2: an UPPER end below 1.5 would be wrong
    other = Direction.Q_P if exact_side is Direction.P_Q else Direction.P_Q
    out = over_directions(VIEW, Direction.MAX, _one({
        exact_side: (1.0, Kind.EXACT, 0.5), other: (1.2, Kind.UPPER, 0.0)}))
    assert out.kind is Kind.UPPER and out.value >= 1.5 and out.radius == 0.0


@pytest.mark.parametrize("exact_side", [Direction.P_Q, Direction.Q_P])
def test_an_exact_ball_beside_a_lower_end_is_moved_to_its_lower_end(exact_side):
    # the true maximum can be as small as max(1.0 - 0.5, 0.8) = 0.8: a LOWER end above it
    # would be wrong
    other = Direction.Q_P if exact_side is Direction.P_Q else Direction.P_Q
    out = over_directions(VIEW, Direction.MAX, _one({
        exact_side: (1.0, Kind.EXACT, 0.5), other: (0.8, Kind.LOWER, 0.0)}))
    assert out.kind is Kind.LOWER and out.value <= 0.8 and out.radius == 0.0
