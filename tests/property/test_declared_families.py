"""Every declared family is under test by being declared: its parameters are drawn from the
domains its declaration names (`verify.strategies.declared_args`), edges included, and its
answers must keep the order relations of `verify.strategies.contract_violations` (a
certified upper end of a larger true value never below a certified lower end of a smaller
one)."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hypothesis import HealthCheck, assume, given, settings

from accountant.errors import ParameterError, PrecisionError
from accountant.protocols import (  # noqa: F401 - defines the families
    approximate_ldp,
    binary_rr,
    continuous,
    k_rr,
    ldp,
)
from accountant.protocols.contract import declared, families
from verify import strategies as S

# the families whose constructor parameters are all declared (those built from a calibrated
# record, or with a matrix, have their own draws in S.FAMILIES)
DECLARED = sorted(
    (cls for cls in families().values()
     if declared(cls) and {f.name for f in fields(cls)} == {d.name for d in declared(cls)}),
    key=lambda cls: cls.name)


def test_the_built_in_declared_families_are_found():
    assert {cls.name for cls in DECLARED} >= {"binary-rr", "k-rr", "ldp"}


def _run(cls, args) -> None:
    try:
        mechanism = cls(**args)
    except ParameterError:  # a relation between drawn parameters (ones <= n - 1)
        assume(False)
    try:
        found = S.contract_violations(mechanism)
    except (ParameterError, PrecisionError) as exc:  # a documented refusal, not a number
        assume(False)
        raise AssertionError(exc) from None
    assert not found, found


@pytest.mark.parametrize("cls", DECLARED, ids=lambda cls: cls.name)
def test_declared_families_keep_the_contracts_order_relations(cls):
    @settings(max_examples=8, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(args=S.declared_args(cls))
    def check(args):
        _run(cls, args)

    check()


def test_a_family_whose_ends_cross_is_caught():
    """The checks can fail: a family whose epsilon(delta) grows with delta (an upper end at
    delta = 1e-9 below the lower end at 1e-3) is reported."""
    from dataclasses import dataclass
    from typing import ClassVar

    from accountant.protocols.contract import forget
    from accountant.result import Bracket, Direction, Kind, Result

    @dataclass(frozen=True, slots=True)
    class Crossed(ldp.LDP):
        name: ClassVar[str] = "crossed-test-family"

        def epsilon_for_delta(self, delta: float) -> Bracket:
            """A wrong answer on purpose: 100 delta, exactly."""
            r = Result(quantity="epsilon", value=100 * delta, kind=Kind.EXACT,
                       direction=Direction.MAX, at=delta, method="wrong on purpose")
            return Bracket(lower=r, upper=r)

    try:
        found = S.contract_violations(Crossed(n=10, epsilon0=1.0))
    finally:
        forget(Crossed.name)
    assert found and "epsilon(1e-9) upper >= epsilon(1e-3) lower" in found[0]
