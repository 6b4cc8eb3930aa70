"""protocols.randomizer on degenerate matrices: entries near 1e-300 or subnormal, ratios
beyond float range. Every answer is a library Result or a library error, never an
OverflowError, and upper ends stay above the certified lower ends of the special pair."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from accountant.errors import AccountantError, ParameterError
from accountant.protocols.randomizer import RandomizerMechanism, blanket
from accountant.protocols.randomizer.matrix import Randomizer

TINY = {
    "one-tiny-entry": [[1.0, 1e-300], [0.5, 0.5]],
    "subnormal": [[5e-324, 1.0], [0.5, 0.5]],
    "tiny-and-one": [[1e-300, 1.0], [1.0, 1e-300]],
    "huge-ratio": [[1e-200, 1.0], [1.0, 1e-200]],
}


@pytest.mark.parametrize("rows", TINY.values(), ids=TINY.keys())
def test_epsilon_upper_end_is_computed_and_above_the_special_pair(rows):
    m = RandomizerMechanism(matrix=rows, n=50)
    b = m.epsilon_for_delta(1e-6)
    assert b.upper.value == b.upper.value  # not NaN
    assert b.lower is not None and float(b.lower) <= float(b.upper)


@pytest.mark.parametrize("rows", TINY.values(), ids=TINY.keys())
def test_delta_upper_end_is_a_probability_above_the_special_pair(rows):
    b = RandomizerMechanism(matrix=rows, n=50).delta_for_epsilon(1.0)
    assert 0.0 <= float(b.lower) <= float(b.upper) <= 1.0


@pytest.mark.parametrize("rows", TINY.values(), ids=TINY.keys())
def test_renyi_upper_end_never_exceeds_epsilon0_and_covers_the_special_pair(rows):
    m = RandomizerMechanism(matrix=rows, n=50)
    for b in m.renyi([2.0, 8.0]):
        assert float(b.upper) <= m.matrix.epsilon0
        assert float(b.lower) <= float(b.upper)


def test_extreme_columns_leave_the_blanket_and_ordinary_ones_stay():
    tiny = Randomizer.from_rows(TINY["one-tiny-entry"])
    gamma, omega, dropped = blanket.certifiable_blanket(tiny)
    # column 1 has ratio 0.5/1e-300: out; column 0 (ratio 2) keeps min = 1/2
    assert dropped == 1 and gamma == Fraction(1, 2) and omega == (1, 0)
    ordinary = Randomizer.from_rows([[0.55, 0.15, 0.3], [0.15, 0.55, 0.3]])
    gamma, omega, dropped = blanket.certifiable_blanket(ordinary)
    assert dropped == 0 and (gamma, omega) == ordinary.blanket()


def test_a_smaller_blanket_only_raises_the_bound():
    # same matrix, one column's ratio just under and once over the cut: the certified delta
    # with the column outside the blanket is never below the one with it inside
    rows = [[0.5, 0.5 - 1e-30, 1e-30], [0.5, 0.5 - 1e-30 * 2.0 ** 64, 1e-30 * 2.0 ** 64]]
    m = Randomizer.from_rows(rows)
    assert blanket.certifiable_blanket(m)[2] == 0
    kept = blanket.delta_for_epsilon(blanket.blanket_bound(m, 200), epsilon=0.5)
    smaller = blanket.MAX_BLANKET_RATIO
    try:
        blanket.MAX_BLANKET_RATIO = 2.0 ** 32  # module constant read at call time
        assert blanket.certifiable_blanket(m)[2] == 1
        cut = blanket.delta_for_epsilon(blanket.blanket_bound(m, 200), epsilon=0.5)
    finally:
        blanket.MAX_BLANKET_RATIO = smaller
    # exactly, a smaller blanket gives a larger value; the two certified uppers come from
    # different float paths, so they may cross by their rounding slack only
    assert float(cut.value) >= float(kept.value) * (1 - 1e-9)
    assert float(cut.value) > 0


def test_renyi_beyond_epsilon0_700_uses_the_post_processing_end():
    m = RandomizerMechanism(matrix=TINY["subnormal"], n=50)
    assert m.matrix.epsilon0 > 700
    (b,) = m.renyi([2.0])
    assert b.upper.value == m.matrix.epsilon0 and "post-processing" in b.upper.method


@pytest.mark.parametrize("rows", [[[1.0]], [[0.5, 0.5]], [[math.nan, 1.0], [0.5, 0.5]],
                                  [[0.5, 0.6], [0.5, 0.5]], []],
                         ids=["1x1", "one-row", "nan", "not-stochastic", "no-rows"])
def test_invalid_matrices_raise_the_library_error(rows):
    with pytest.raises(AccountantError):
        RandomizerMechanism(matrix=rows, n=10)


def test_delta_beyond_e700_is_zero_above_epsilon0_and_refused_below():
    m = RandomizerMechanism(matrix=[[0.55, 0.15, 0.3], [0.15, 0.55, 0.3]], n=50)
    b = m.delta_for_epsilon(1e300)
    assert b.upper.value == 0.0 == b.lower.value
    with pytest.raises(ParameterError, match="epsilon=1e\\+300 is outside"):
        RandomizerMechanism(matrix=[[1.0, 0.0], [0.5, 0.5]], n=50).delta_for_epsilon(1e300)


def test_renyi_at_a_huge_order_is_epsilon0_at_most():
    m = RandomizerMechanism(matrix=[[0.55, 0.15, 0.3], [0.15, 0.55, 0.3]], n=50)
    (b,) = m.renyi([1e300])
    assert float(b.lower) <= float(b.upper) <= m.matrix.epsilon0
