"""A user's own randomizer matrix in subsampled and add/remove rounds: composed through the
clones pair of its epsilon0 class (issue 25: it printed epsilon = inf)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from accountant import LDP
from accountant.composition import Accountant, Subsampled
from accountant.protocols.randomizer.matrix import Randomizer
from accountant.protocols.randomizer.mechanism import RandomizerMechanism

CYCLIC = [[Fraction(v, 10) for v in row] for row in
          ([4, 3, 2, 1], [1, 4, 3, 2], [2, 1, 4, 3], [3, 2, 1, 4])]


def _mech(rows: list[list[Fraction]], n: int) -> RandomizerMechanism:
    return RandomizerMechanism(n=n, matrix=Randomizer(rows, name="cyclic"))


@pytest.mark.parametrize("relation", ["substitute", "add-remove"])
def test_a_subsampled_matrix_is_bounded_by_its_epsilon0_class(relation: str) -> None:
    mech = _mech(CYCLIC, 10**4)
    assert mech.matrix.epsilon0 == pytest.approx(math.log(4), rel=1e-15)
    assert mech.matrix.epsilon0 >= math.log(4)  # rounded up: the class is larger
    ours = Accountant(relation).compose(Subsampled(mech, 0.05), 20).get_epsilon(1e-5)
    cls = Accountant(relation).compose(Subsampled(LDP(n=10**4, epsilon0=mech.matrix.epsilon0),
                                                  0.05), 20).get_epsilon(1e-5)
    assert math.isfinite(ours.upper.value)
    assert ours.upper.value == cls.upper.value  # the same pair, composed the same way
    # the matrix's own neighbouring pair is a lower end below it
    assert ours.lower is not None and ours.lower.value <= ours.upper.value


def test_the_issue_case_is_finite_and_within_the_class_number() -> None:
    # issue 25: n = 1e5, q = 0.01, 100 rounds, delta = 1e-5; `ldp --epsilon0 1.386` gave 0.0201
    ours = Accountant().compose(Subsampled(_mech(CYCLIC, 10**5), 0.01), 100).get_epsilon(1e-5)
    assert ours.upper.value <= 0.0201
    assert ours.lower.value <= ours.upper.value


def test_a_matrix_with_a_zero_entry_has_no_class_pair() -> None:
    # epsilon0 = inf: no clones pair; the PLD route says why instead of inventing a number
    rows = [[Fraction(1), Fraction(0)], [Fraction(1, 2), Fraction(1, 2)]]
    mech = _mech(rows, 100)
    assert mech.subsampling_pair() is None
    report = Accountant().compose(Subsampled(mech, 0.1), 2).report(delta=1e-5)
    assert any("clones or blanket pair" in str(e.get("skipped", "")) for e in report.entries)
