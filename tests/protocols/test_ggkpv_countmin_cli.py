"""ggkpv-countmin on the command line: registered right after ggkpv-hadamard, dp / rdp / pure /
calibrate through `accountant.cli.main.main` with values equal to the library's, errors exit 2."""

from __future__ import annotations

import json

import pytest

from accountant.cli import main
from accountant.cli.registry import PROTOCOLS
from accountant.protocols.ggkpv import (
    calibrate_countmin,
    countmin_delta_bracket,
    countmin_epsilon_bracket,
    countmin_parameters,
)

FLAGS = ["--n", "500", "--B", "100", "--w", "100", "--d", "3"]


def run(capsys, *argv):
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_registered_right_after_hadamard() -> None:
    names = [e.name for e in PROTOCOLS]
    assert names[names.index("ggkpv-hadamard") + 1] == "ggkpv-countmin"
    entry = PROTOCOLS[names.index("ggkpv-countmin")]
    assert set(entry.commands) == {"dp", "rdp", "pure", "calibrate", "simulate"}


def test_dp_matches_library(capsys) -> None:
    params = countmin_parameters(n=500, B=100, w=100, d=3, rho=40)
    code, out, _ = run(capsys, "dp", "ggkpv-countmin", *FLAGS, "--rho", "40",
                       "--at-delta", "1e-6")
    assert code == 0 and out["protocol"] == "ggkpv-countmin"
    lib = countmin_epsilon_bracket(params, 1e-6)
    assert out["epsilon"]["value"] == float(lib.upper) and out["epsilon"]["kind"] == "upper"
    assert out["epsilon_lower"]["value"] == float(lib.lower) < out["epsilon"]["value"]
    assert out["epsilon"]["direction"] == "max" and out["params"]["noise_per_cell"] == 200.0
    code, out, _ = run(capsys, "dp", "ggkpv-countmin", *FLAGS, "--rho", "40",
                       "--at-epsilon", "1")
    lib = countmin_delta_bracket(params, 1.0)
    assert code == 0 and out["delta"]["value"] == float(lib.upper)
    assert 0 < out["delta_lower"]["value"] <= out["delta"]["value"] < 1e-6


def test_rdp_and_pure_are_exactly_infinite(capsys) -> None:
    code, out, _ = run(capsys, "rdp", "ggkpv-countmin", *FLAGS, "--rho", "40",
                       "--orders", "2,inf")
    assert code == 0 and [r["value"] for r in out["renyi"]] == ["inf", "inf"]
    assert all(r["kind"] == "exact" for r in out["renyi"])
    code, out, _ = run(capsys, "pure", "ggkpv-countmin", *FLAGS, "--rho", "40")
    assert code == 0 and out["max_divergence"]["value"] == "inf"


def test_calibrate(capsys) -> None:
    code, out, _ = run(capsys, "calibrate", "ggkpv-countmin", *FLAGS, "--target-epsilon", "1",
                       "--target-delta", "1e-6")
    assert code == 0
    lib = calibrate_countmin(n=500, B=100, w=100, d=3, target_epsilon=1.0, target_delta=1e-6)
    assert out["rho"] == lib.rho and out["epsilon"]["value"] <= 1.0
    assert out["rho_insufficient"] is not None and out["rho_insufficient"] < out["rho"]
    # rho - 1 fails the certified upper end
    below = countmin_epsilon_bracket(countmin_parameters(n=500, B=100, w=100, d=3,
                                                         rho=lib.rho - 1), 1e-6)
    assert float(below.upper) > 1.0


@pytest.mark.parametrize("argv", [
    ["dp", "ggkpv-countmin", "--n", "500", "--B", "100", "--d", "3", "--rho", "4",
     "--at-delta", "1e-6"],
    ["dp", "ggkpv-countmin", *FLAGS, "--at-delta", "1e-6"],
    ["calibrate", "ggkpv-countmin", *FLAGS, "--rho", "3", "--target-epsilon", "1",
     "--target-delta", "1e-6"],
    ["dp", "ggkpv-countmin", *FLAGS, "--rho", "4", "--w", "1", "--at-delta", "1e-6"],
])
def test_missing_or_bad_flags_exit_2(capsys, argv) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


def test_simulate_reports_errors_that_grow_with_the_noise(capsys):
    """`simulate ggkpv-countmin`: the literal protocol's maximum count errors; more noise
    messages per user (rho) must give larger errors of the unbiased mean-of-rows estimator
    (seeded, same data and hash draws)."""
    import json

    from accountant.cli.main import main

    out = {}
    for rho in (1, 400):
        assert main(["simulate", "ggkpv-countmin", "--n", "500", "--B", "15", "--w", "50",
                     "--d", "3", "--rho", str(rho), "--trials", "4", "--seed", "7",
                     "--json"]) == 0
        body = json.loads(capsys.readouterr().out)
        assert body["simulation"]["messages_per_user"] == 3 * (1 + rho)
        out[rho] = body["simulation"]["max_count_error_over_B_values"]
    # hash collisions of the Zipf data set a floor (~44 here); the noise doubles it
    assert out[400]["mean_of_rows"]["mean_max_error"] > 1.5 * out[1]["mean_of_rows"][
        "mean_max_error"]
