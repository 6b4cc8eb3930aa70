"""`shuffle-accountant selfcheck`: random oracle checks within a time budget."""

from __future__ import annotations

import ast
import json
import pathlib
import random

import pytest

from accountant.cli.main import main
from verify import oracle, selfcheck


def test_selfcheck_json_reports_cases_and_no_violations(capsys: pytest.CaptureFixture) -> None:
    """The acceptance run: 20 s, at least 100 numbers checked, none on the wrong side."""
    assert main(["selfcheck", "--json", "--seconds", "20", "--seed", "16"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["command"] == "selfcheck"
    assert report["cases"] >= 100
    assert report["violations"] == 0, report["details"]
    assert report["seconds"] >= 20
    assert sum(report["by_check"].values()) == report["cases"]
    # the sympy identities ran first, each one case, all established
    assert report["by_check"]["symbolic"] == len(report["symbolic"]) == 8
    assert all(": holds (" in line for line in report["symbolic"])
    # every family of the original mix was drawn, and the property kinds joined it
    assert {"divergence", "binomial_shift", "binary_rr_count", "binary_rr_worst", "k_rr",
            "bc_zsum", "kov"} < set(report["families"])


def test_selfcheck_table_output(capsys: pytest.CaptureFixture) -> None:
    assert main(["selfcheck", "--seconds", "1", "--seed", "2", "--no-symbolic"]) == 0
    out = capsys.readouterr().out
    assert "violations" in out and "cases" in out and "symbolic" not in out


def test_selfcheck_exits_1_when_a_check_fails(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture) -> None:
    # a finding must reach scripts and CI through the exit status, not only the report
    real_case = selfcheck.random_case

    def one_wrong(rng: random.Random, c: selfcheck.Checker) -> str:
        family = real_case(rng, c)
        c.violations.append(selfcheck.Violation("planted", "a number on the wrong side"))
        return family

    monkeypatch.setattr(selfcheck, "random_case", one_wrong)
    assert main(["selfcheck", "--json", "--seconds", "0.5", "--seed", "3", "--no-symbolic"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["violations"] >= 1 and "exit_status" not in report


def test_a_failed_identity_fails_selfcheck(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture) -> None:
    # a closed form that sympy cannot establish is a violation, and exits 1
    from verify import symbolic

    wrong = symbolic.Check(name="planted", backs="nothing", statement="1 = 2", holds=False,
                           method="simplify", detail="residual 1")
    monkeypatch.setattr(symbolic, "all_checks", lambda: [wrong])
    assert main(["selfcheck", "--json", "--seconds", "0.2", "--seed", "4"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["by_check"]["symbolic"] == 1 and report["violations"] >= 1
    assert any("planted: FAILS" in d for d in report["details"])


@pytest.mark.parametrize("flags", [["--seconds", "0"], ["--seconds", "-5"],
                                   ["--seconds", "nan"], ["--seconds", ""],
                                   ["--seed", "-1"], ["--seed", "1.5"], ["--seed", "2e20"]])
def test_selfcheck_refuses_bad_flags(flags: list[str], capsys: pytest.CaptureFixture) -> None:
    assert main(["selfcheck", *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flags[0].lstrip("-") in err


def test_a_wrong_number_is_a_violation() -> None:
    """The checker is not vacuous: an upper end below the truth, a lower end above it and an
    inexact 'exact' value are each reported."""
    from accountant.result import Direction, Kind, Result

    def r(v: float, kind: Kind) -> Result:
        return Result(quantity="delta", value=v, kind=kind, direction=Direction.MAX,
                      method="test")

    c = selfcheck.Checker()
    c.bound("up", r(0.1, Kind.UPPER), 0.2, "")
    c.bound("low", r(0.3, Kind.LOWER), 0.2, "")
    c.bound("exact", r(0.2 + 1e-12, Kind.EXACT), 0.2, "")
    c.bound("fine", r(0.2, Kind.UPPER), 0.2, "")
    assert [v.check for v in c.violations] == ["up", "low", "exact"]
    with oracle.digits(40):
        P, Q = [0.5, 0.5], [0.25, 0.75]
        H = lambda e: oracle.hockey_stick(P, Q, e)  # noqa: E731
        c.epsilon("eps", r(0.0, Kind.UPPER).with_(quantity="epsilon"), H, 0.01, "")
    assert c.violations[-1].check == "eps" and c.total == 5


def test_run_is_reproducible_with_a_seed() -> None:
    a = selfcheck.run(seed=7, seconds=0.5)
    rng = random.Random(7)
    c = selfcheck.Checker()
    first = selfcheck.random_case(rng, c)
    assert first in a["families"] and a["cases"] >= c.total


def test_oracle_imports_nothing_from_the_library() -> None:
    """verify/oracle.py must stay independent of the code it checks."""
    tree = ast.parse(pathlib.Path(oracle.__file__).read_text())
    names = {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for a in node.names}
    names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(n.split(".")[0] in ("accountant", "verify", "figures") for n in names), names
