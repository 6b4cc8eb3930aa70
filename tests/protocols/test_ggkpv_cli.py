"""ggkpv-hadamard on the command line: JSON shapes of CLI.md, values equal to the library's,
the heuristic labelled, simulate wired to verify's handler, errors exit 2."""

from __future__ import annotations

import json
import math

import pytest

from accountant.cli import main
from accountant.cli.registry import EXTRA_HANDLERS, PROTOCOLS
from accountant.protocols.ggkpv import epsilon_bracket, ggkpv_parameters


def run(capsys, *argv):
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_registered_after_gkmp20_with_simulate_in_verify() -> None:
    names = [e.name for e in PROTOCOLS]
    assert names[names.index("gkmp20-count") + 1] == "ggkpv-hadamard"
    assert EXTRA_HANDLERS[("simulate", "ggkpv-hadamard")] == "accountant.cli.simulate:CLI_HANDLERS"


def test_dp_matches_library_and_labels_the_heuristic(capsys) -> None:
    code, out, _ = run(capsys, "dp", "ggkpv-hadamard", "--n", "2000", "--B", "63", "--rho",
                       "44", "--at-delta", "1e-6")
    assert code == 0 and out["protocol"] == "ggkpv-hadamard"
    lib = epsilon_bracket(ggkpv_parameters(n=2000, B=63, rho=44), 1e-6)
    assert out["epsilon"]["value"] == float(lib.upper) and out["epsilon"]["kind"] == "upper"
    assert out["epsilon_lower"]["value"] == float(lib.lower) < out["epsilon"]["value"]
    assert out["params"]["tau"] == 11 and out["params"]["K"] == 64
    h = out["epsilon_heuristic"]
    assert "heuristic" in h["method"] and "not a bound" in h["method"]


def test_dp_too_little_noise_is_infinite_on_both_ends(capsys) -> None:
    code, out, _ = run(capsys, "dp", "ggkpv-hadamard", "--n", "2000", "--B", "63", "--rho",
                       "8", "--at-delta", "1e-6")
    assert code == 0
    assert out["epsilon"]["value"] == "inf" and out["epsilon_lower"]["value"] == "inf"


def test_rdp_and_pure_are_exactly_infinite(capsys) -> None:
    code, out, _ = run(capsys, "rdp", "ggkpv-hadamard", "--n", "500", "--B", "15", "--rho",
                       "20", "--orders", "2,inf")
    assert code == 0 and [r["value"] for r in out["renyi"]] == ["inf", "inf"]
    assert all(r["kind"] == "exact" for r in out["renyi"])
    code, out, _ = run(capsys, "pure", "ggkpv-hadamard", "--n", "500", "--B", "15",
                       "--epsilon", "1", "--delta", "1e-6")
    assert code == 0 and out["max_divergence"]["value"] == "inf"
    assert out["params"]["rho"] == math.ceil(math.log(1e6))


def test_calibrate(capsys) -> None:
    code, out, _ = run(capsys, "calibrate", "ggkpv-hadamard", "--n", "2000", "--B", "63",
                       "--target-epsilon", "1", "--target-delta", "1e-6")
    assert code == 0
    assert out["epsilon"]["value"] <= 1.0 and out["epsilon"]["kind"] == "upper"
    assert out["rho_insufficient"] < out["rho"] and out["rho_over_slides_rho"] > 1
    assert out["slides_rho"] == pytest.approx(math.log(1e6))


def test_simulate_the_issue_example(capsys) -> None:
    code, out, _ = run(capsys, "simulate", "ggkpv-hadamard", "--n", "2000", "--epsilon", "1",
                       "--delta", "1e-6", "--B", "63", "--trials", "5", "--seed", "1")
    assert code == 0
    s = out["simulation"]
    assert s["trials"] == 5 and s["rho"] == out["params"]["rho"] == 14
    assert s["messages_per_user"] == 15 and s["bits_per_user"] == 15 * 11 * 6
    assert 0 < s["max_count_error_mean"] <= s["max_count_error_max"]
    assert abs(s["mean_signed_error"]) <= 3 * s["mean_signed_error_se"]
    # the slides' rule with constant 1 is provably not (1, 1e-6)-DP here (lower end > 1)
    assert out["epsilon_lower"]["value"] > 1.0


@pytest.mark.parametrize("argv, word", [
    (["--n", "100", "--B", "1", "--rho", "3"], "B=1"),
    (["--n", "100", "--B", "7"], "rho"),
    (["--B", "7", "--rho", "3"], "--n"),
    (["--n", "100", "--B", "7", "--rho", "3", "--epsilon", "1", "--delta", "1e-6"], "either"),
])
def test_errors_exit_2_naming_the_parameter(capsys, argv, word) -> None:
    code, _, err = run(capsys, "dp", "ggkpv-hadamard", *argv, "--at-delta", "1e-6")
    assert code == 2 and word in err and err.count("\n") == 1
