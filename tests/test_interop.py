"""docs/interop.md: the hand-over of the library's RDP curves to dp_accounting and autodp,
the Opacus-compatible accountant and the ledger's exports, run from the page and checked
against the library's own numbers."""

from __future__ import annotations

import importlib.util
import math
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from accountant.composition import epsilon_best

PAGE = Path(__file__).resolve().parents[1] / "docs" / "interop.md"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
BLOCKS = FENCE.findall(PAGE.read_text())
DELTA = 1e-6


def _needs(code: str) -> list[str]:
    """The optional packages a block imports (dp_accounting, autodp)."""
    return [m for m in ("dp_accounting", "autodp") if re.search(rf"^\s*(from|import) {m}\b",
                                                              code, re.M)]


@pytest.fixture(scope="module")
def page() -> dict[str, Any]:
    """The page's blocks run in order in one namespace (a block whose package is missing
    is left out; the tests that need its names skip)."""
    namespace: dict[str, Any] = {"__name__": "interop"}
    namespace["__skipped__"] = skipped = []
    for i, code in enumerate(BLOCKS):
        missing = [m for m in _needs(code) if importlib.util.find_spec(m) is None]
        if missing:
            skipped.extend(missing)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # scipy's line search in autodp
            exec(compile(code, f"{PAGE}:python-block-{i}", "exec"), namespace)
    return namespace


def test_page_has_the_three_hand_overs() -> None:
    text = PAGE.read_text()
    assert len(BLOCKS) == 5
    for heading in ("## dp_accounting", "## autodp", "## An Opacus-compatible accountant",
                    "## Handing a ledger to dp_accounting or autodp"):
        assert heading in text
    assert "dp_accounting.rdp.compute_epsilon" in BLOCKS[1]


def test_curve_is_certified_and_monotone(page: dict[str, Any]) -> None:
    curve = page["one_round"]
    assert curve.kind.value in ("upper", "exact") and curve.orders[-1] == math.inf
    # the max-divergence of any eps0-LDP randomizer's shuffled view is at most eps0
    assert curve.pure_epsilon <= 1.0 + 1e-12
    eps = [epsilon_best(curve.times(t), delta=DELTA)[0].value for t in (1, 10, 100, 1000)]
    assert eps == sorted(eps) and page["ours"].value == eps[2]


def test_dp_accounting_gets_the_same_curve(page: dict[str, Any]) -> None:
    if "dp_accounting" in page["__skipped__"]:
        pytest.skip("dp_accounting is not installed (the `interop` extra)")
    ours = page["ours"].value
    # dp_accounting's conversion is never below the library's best (which includes it)
    assert ours <= page["eps"] * (1 + 1e-9)
    assert page["eps"] <= ours * 1.01
    assert page["order"] in page["finite"]


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_autodp_mechanism(page: dict[str, Any]) -> None:
    if "autodp" in page["__skipped__"]:
        pytest.skip("autodp is not installed (pip install autodp)")
    ours = page["ours"].value
    composed = page["composed_autodp"]
    got = composed.get_approxDP(DELTA)
    # autodp optimises over every real order of the same (interpolated) curve: within 1%
    assert got == pytest.approx(ours, rel=1e-2)
    # its RDP function is 100 x the curve (chords between orders, clamped below 1.5)
    assert composed.RenyiDP(8.0) == pytest.approx(100 * page["one_round"].value_at(8.0))
    assert composed.RenyiDP(1.2) == pytest.approx(100 * page["one_round"].value_at(1.5))
    # one round alone, for contrast: autodp's RDP conversion is above the certified best
    single = page["ShuffleRound"](page["one_round"]).get_approxDP(DELTA)
    assert single >= epsilon_best(page["one_round"], delta=DELTA)[0].value * (1 - 1e-9)


def test_opacus_compatible_accountant(page: dict[str, Any]) -> None:
    training = page["training"]
    assert len(training) == 1000 and training.history == [(1.0, 0.01, 1000)]
    b = training.get_bracket(1e-5)
    # the numbers the page quotes: the bracket [1.8161, 1.8282]
    assert f"{b.lower.value:.4f}" == "1.8161" and f"{b.upper.value:.4f}" == "1.8282"
    assert training.get_epsilon(1e-5) == b.upper.value


def test_exports(page: dict[str, Any]) -> None:
    if page["__skipped__"]:
        pytest.skip(f"{page['__skipped__']} not installed (the `interop` extra)")
    # dp_accounting's own (pessimistic, uncertified) PLD of the exported event: at or
    # above the certified lower end, and within 0.1 % of the upper end on either side
    theirs = page["pld_accountant"].get_epsilon(1e-5)
    b = page["ledger"].get_epsilon(1e-5)
    assert b.lower.value <= theirs and abs(b.upper.value / theirs - 1) <= 1e-3
    shuffled = page["shuffled"]
    assert shuffled.RenyiDP(8.0) == page["one_round"].value_at(8.0)
