"""bc-zsum / bc-hist on the command line: JSON shapes of CLI.md, values equal to the
library's, errors exit 2 with one line naming the parameter."""

import json

import pytest

from accountant.cli import main
from accountant.protocols import balcer_cheu as bc


def run(capsys, *argv):
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_dp_zsum_matches_library(capsys):
    code, out, _ = run(capsys, "dp", "bc-zsum", "--n", "1e5", "--epsilon", "1", "--delta",
                       "1e-6", "--at-delta", "1e-6")
    assert code == 0 and out["command"] == "dp" and out["protocol"] == "bc-zsum"
    lib = bc.zsum_epsilon(bc.zsum_parameters(n=10**5, epsilon=1.0, delta=1e-6), 1e-6)
    assert out["epsilon"]["value"] == float(lib) and out["epsilon"]["kind"] == "upper"
    assert out["params"]["p"] == pytest.approx(0.99275, abs=1e-5)
    assert out["delta"] == {"value": 1e-6, "kind": "exact"}


def test_dp_hist_reports_the_cross_check(capsys):
    code, out, _ = run(capsys, "dp", "bc-hist", "--n", "1e4", "--p", "0.95", "--d", "4",
                       "--at-delta", "1e-6")
    assert code == 0
    assert out["epsilon"]["value"] == pytest.approx(out["epsilon_cross_check"]["value"],
                                                    rel=1e-6)


def test_rdp_and_pure_are_infinite(capsys):
    code, out, _ = run(capsys, "rdp", "bc-zsum", "--n", "1000", "--p", "0.9", "--orders",
                       "2,inf")
    assert code == 0 and [r["value"] for r in out["renyi"]] == ["inf", "inf"]
    code, out, _ = run(capsys, "pure", "bc-hist", "--n", "1000", "--p", "0.9", "--d", "3")
    assert code == 0 and out["max_divergence"]["value"] == "inf"
    assert "support-edge" in out["max_divergence"]["method"]


def test_audit_one_record(capsys):
    code, out, _ = run(capsys, "audit", "bc-zsum", "--n", "1e4", "--epsilon", "1", "--delta",
                       "1e-6")
    assert code == 0 and out["verdict"] == "loose" and out["looseness"] > 2
    assert out["claimed"]["value"] == 1.0 and out["computed"]["kind"] == "upper"


@pytest.mark.slow
def test_audit_table_without_flags(capsys):
    code, out, _ = run(capsys, "audit", "bc-hist")
    assert code == 0 and out["summary"]["rows"] == 12
    s = out["summary"]
    assert s["holds"] + s["loose"] + s["not_applicable"] == 12


def test_calibrate(capsys):
    code, out, _ = run(capsys, "calibrate", "bc-zsum", "--n", "1e5", "--target-epsilon", "1",
                       "--target-delta", "1e-6")
    assert code == 0
    assert 1 - 1e-6 <= out["epsilon"]["value"] <= 1.0
    assert out["params"]["p"] > out["paper_p"]
    acc = out["accuracy"]
    assert acc["improvement_factor"] > 1
    assert (acc["calibrated"]["simulated_error_quantile"]
            < acc["paper"]["simulated_error_quantile"])


def test_simulate(capsys):
    code, out, _ = run(capsys, "simulate", "bc-zsum", "--n", "2000", "--epsilon", "1",
                       "--delta", "1e-6", "--trials", "20000", "--seed", "3",
                       "--literal-trials", "50")
    assert code == 0
    sim = out["simulation"]
    assert sim["zero_count_property_every_trial"]
    assert all(r["below_bound"] for r in sim["error_quantiles"].values())
    assert out["goodness_of_fit"]["passed"] and out["literal_vs_fast"]["passed"]


@pytest.mark.parametrize("argv,needle", [
    (["dp", "bc-zsum", "--n", "100", "--epsilon", "1", "--delta", "1e-6", "--at-delta",
      "1e-6"], "n=100"),
    (["dp", "bc-zsum", "--n", "1000", "--p", "1.5", "--at-delta", "1e-6"], "p=1.5"),
    (["dp", "bc-hist", "--n", "1000", "--p", "0.9", "--at-delta", "1e-6"], "--d"),
    (["dp", "bc-zsum", "--p", "0.9", "--at-delta", "1e-6"], "--n"),
    (["calibrate", "bc-zsum", "--n", "10", "--target-epsilon", "0.01", "--target-delta",
      "1e-9"], "p=1/2"),
])
def test_errors_exit_2_with_one_line(capsys, argv, needle):
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and needle in err


def test_bound_commands(capsys):
    code, out, _ = run(capsys, "bound", "bc20-zsum", "--n", "1e5", "--epsilon", "1",
                       "--delta", "1e-6")
    assert code == 0 and out["accuracy_alpha"]["kind"] == "upper"
    code, out, _ = run(capsys, "bound", "bc20-smoothness", "--n", "1e4", "--gamma", "0.1",
                       "--a", "0.2")
    assert code == 0 and out["delta_exact"]["value"] <= out["delta"]["value"]
    code, _, err = run(capsys, "bound", "bc20-smoothness", "--n", "100", "--gamma", "0.1",
                       "--a", "0.1")
    assert code == 2 and "k <= a*gamma*n/2" in err
