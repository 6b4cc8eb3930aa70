"""CLI of binary-rr, k-rr and ldp (CLI.md): JSON equal to the library values, lower-bound
objects present, one-line exit-2 errors."""

from __future__ import annotations

import json

import pytest

from accountant.cli import main
from accountant.protocols import binary_rr, k_rr, ldp


def run(capsys, argv):
    code = main(argv + ["--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


def test_dp_binary_rr_matches_library_and_reports_both_ends(capsys):
    code, out, _ = run(capsys, ["dp", "binary-rr", "--n", "300", "--epsilon0", "1",
                                "--at-delta", "1e-6"])
    assert code == 0 and out["command"] == "dp" and out["protocol"] == "binary-rr"
    lib = binary_rr.epsilon_for_delta(n=300, epsilon0=1.0, delta=1e-6)
    assert out["epsilon"]["value"] == float(lib.upper)
    assert out["epsilon"]["kind"] == "upper" and out["epsilon_lower"]["kind"] == "lower"
    assert out["params"] == {"n": 300, "epsilon0": 1.0, "delta": 1e-6}


def test_dp_binary_rr_with_ones_at_epsilon(capsys):
    code, out, _ = run(capsys, ["dp", "binary-rr", "--n", "100", "--epsilon0", "1",
                                "--ones", "3", "--at-epsilon", "0.5"])
    lib = binary_rr.delta_for_epsilon(n=100, epsilon0=1.0, epsilon=0.5, ones=3)
    assert code == 0 and out["delta"]["value"] == float(lib.upper)
    assert out["params"]["ones"] == 3


def test_rdp_and_pure_binary_rr(capsys):
    code, out, _ = run(capsys, ["rdp", "binary-rr", "--n", "1e3", "--epsilon0", "1",
                                "--orders", "2,8.5,inf"])
    assert code == 0 and [r["order"] for r in out["renyi"]] == [2.0, 8.5, "inf"]
    assert out["renyi"][-1]["value"] == 1.0
    assert all(lo["value"] <= up["value"] for lo, up in zip(out["renyi_lower"], out["renyi"],
                                                            strict=True))
    code, out, _ = run(capsys, ["pure", "binary-rr", "--n", "10", "--epsilon0", "0.7"])
    assert out["max_divergence"] == {**out["max_divergence"], "value": 0.7, "kind": "exact"}


def test_k_rr_and_ldp_commands(capsys):
    code, out, _ = run(capsys, ["dp", "k-rr", "--n", "500", "--epsilon0", "1", "--k", "4",
                                "--at-delta", "1e-6"])
    lib = k_rr.epsilon_for_delta(n=500, epsilon0=1.0, k=4, delta=1e-6)
    assert code == 0 and out["epsilon"]["value"] == float(lib.upper)
    assert out["epsilon_lower"]["value"] <= out["epsilon"]["value"]
    code, out, _ = run(capsys, ["dp", "ldp", "--n", "1e6", "--epsilon0", "1",
                                "--at-delta", "1e-6"])
    lib = ldp.epsilon_for_delta(n=10**6, epsilon0=1.0, delta=1e-6)
    assert out["epsilon"]["value"] == float(lib.upper)
    assert out["epsilon_lower"]["kind"] == "lower"
    code, out, _ = run(capsys, ["rdp", "ldp", "--n", "200", "--epsilon0", "1",
                                "--orders", "2,4"])
    assert code == 0 and len(out["renyi"]) == 2 and len(out["renyi_lower"]) == 2
    code, out, _ = run(capsys, ["pure", "k-rr", "--n", "20", "--epsilon0", "2", "--k", "3"])
    assert out["max_divergence"]["value"] == 2.0


@pytest.mark.parametrize(("argv", "needle"), [
    (["dp", "binary-rr", "--n", "1", "--epsilon0", "1", "--at-delta", "1e-6"], "n=1"),
    (["dp", "ldp", "--n", "10", "--epsilon0", "-1", "--at-delta", "1e-6"], "epsilon0=-1.0"),
    (["dp", "binary-rr", "--n", "10", "--epsilon0", "1", "--ones", "10", "--at-delta",
      "1e-6"], "ones=10"),
    (["dp", "k-rr", "--n", "10", "--epsilon0", "1", "--k", "1", "--at-delta", "1e-6"], "k=1"),
    (["dp", "ldp", "--n", "10", "--epsilon0", "1", "--at-delta", "2"], "delta=2"),
])
def test_errors_exit_2_with_one_line_naming_the_parameter(capsys, argv, needle):
    code, out, err = run(capsys, argv)
    assert code == 2 and out is None
    assert needle in err and err.count("\n") == 1
