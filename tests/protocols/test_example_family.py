"""A new family costs one declaration: this module declares one (binary randomized response
given by its flip probability p rather than by epsilon0) and proves, without touching any
other file, that its command-line subcommands, --help, JSON parameters, validation and
domain-drawn tests follow from the declaration (issue: parameters once)."""

from __future__ import annotations

import contextlib
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountant.domains import N_PAIR, Interval
from accountant.errors import ParameterError
from accountant.protocols import binary_rr
from accountant.protocols.contract import (
    Mechanism,
    brackets_by_order,
    declared,
    families,
    forget,
    param,
)
from accountant.result import Bracket
from verify.strategies import contract_violations, declared_args

FLIP = Interval("p", 1e-300, 0.5, closed="neither",
                note="a flip probability below 1/2 whose epsilon0 = log((1-p)/p) stays below 700")


def _declare() -> type[Mechanism]:
    """The whole family: a declaration and its maths (defined on demand, so that the
    family exists only while this module's tests run)."""

    @dataclass(frozen=True, slots=True)
    class FlipRR(Mechanism):
        """Binary randomized response that flips each bit with probability p, shuffled."""

        n: int = param(N_PAIR, "number of users (>= 2)")
        p: float = param(FLIP, "flip probability in (0, 1/2)")
        name: ClassVar[str] = "flip-rr"

        @property
        def epsilon0(self) -> float:
            return math.log1p(-self.p) - math.log(self.p)  # log((1-p)/p), no cancellation

        # the maths: binary RR's, at the epsilon0 that p gives (values already checked)
        def epsilon_for_delta(self, delta: float) -> Bracket:
            return binary_rr.epsilon_for_delta.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                         delta=delta)

        def delta_for_epsilon(self, epsilon: float) -> Bracket:
            return binary_rr.delta_for_epsilon.unchecked(n=self.n, epsilon0=self.epsilon0,
                                                         epsilon=epsilon)

        def renyi(self, orders: Sequence[float]) -> list[Bracket]:
            return brackets_by_order(orders, lambda a: binary_rr.renyi_curve.unchecked(
                n=self.n, epsilon0=self.epsilon0, alphas=a), self.max_divergence)

        def max_divergence(self) -> Bracket:
            r = binary_rr.max_divergence.unchecked(n=self.n, epsilon0=self.epsilon0)
            return Bracket(lower=r, upper=r)

    return FlipRR


@pytest.fixture(scope="module")
def FlipRR():  # noqa: N802 - it is the family class
    cls = _declare()
    yield cls
    forget(cls.name)


def _cli(*argv: str) -> tuple[int, str]:
    from accountant.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


def test_declaration_is_the_record_and_the_json(FlipRR):  # noqa: N803
    m = FlipRR(n=1000.0, p=0.25)
    assert m.n == 1000 and isinstance(m.n, int) and m.p == 0.25
    assert m.params() == {"n": 1000, "p": 0.25}
    assert [d.name for d in declared(FlipRR)] == ["n", "p"]
    with pytest.raises(ParameterError, match=r"p=0\.5 is outside \(1e-300, 0\.5\)"):
        FlipRR(n=10, p=0.5)


def test_cli_subcommands_help_and_json_follow_from_the_declaration(FlipRR):  # noqa: N803
    assert "flip-rr" in families()
    code, text = _cli("dp", "flip-rr", "--help")
    assert code == 0 and "flip probability in (0, 1/2)" in text and "--p P" in text
    code, text = _cli("dp", "flip-rr", "--n", "1000", "--p", "0.25", "--at-delta", "1e-6",
                      "--json")
    out = json.loads(text)
    assert code == 0 and out["params"] == {"n": 1000, "p": 0.25, "delta": 1e-6}
    # the same numbers as binary RR at epsilon0 = log 3 (an identity: p = 1/(e^eps0 + 1))
    ref = binary_rr.epsilon_for_delta(n=1000, epsilon0=math.log(3.0), delta=1e-6)
    assert out["epsilon"]["value"] == pytest.approx(float(ref.upper.value), rel=1e-12)
    code, text = _cli("rdp", "flip-rr", "--n", "50", "--p", "0.1", "--orders", "2,inf",
                      "--json")
    rows = json.loads(text)["renyi"]
    assert code == 0 and rows[1]["value"] == pytest.approx(math.log(9.0), rel=1e-12)
    assert _cli("pure", "flip-rr", "--n", "50", "--p", "0.6")[0] == 2  # outside (0, 1/2)


@settings(max_examples=25, deadline=None)
@given(n=N_PAIR.strategy(max_value=5000), p=FLIP.strategy(min_value=1e-6))
def test_drawn_from_the_declared_domains(FlipRR, n, p):  # noqa: N803
    b = FlipRR(n=n, p=p).epsilon_for_delta(1e-6)
    # upper end >= lower end, both within [0, epsilon0] (D_inf = epsilon0)
    eps0 = FlipRR(n=n, p=p).epsilon0
    assert 0.0 <= float(b.lower.value) <= float(b.upper.value) <= eps0 * (1 + 1e-12)


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_the_declaration_puts_it_under_the_contract_checks(FlipRR, data):  # noqa: N803
    """The generic draws and checks every declared family gets (tests/property)."""
    args = data.draw(declared_args(FlipRR))
    assert not contract_violations(FlipRR(**args))


def test_a_forgotten_family_leaves_the_command_line():
    cls = _declare()
    forget(cls.name)
    assert _cli("dp", "flip-rr", "--n", "10", "--p", "0.2", "--at-delta", "1e-6")[0] == 2
