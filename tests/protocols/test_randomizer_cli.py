"""CLI of `randomizer` (dp/rdp/pure): JSON equal to the library's values, matrix files in
JSON and CSV, one-line exit-2 errors for bad files."""

from __future__ import annotations

import json

import pytest

from accountant.cli import main
from accountant.cli.faces.randomizer import read_matrix
from accountant.protocols import k_rr
from accountant.protocols.randomizer import RandomizerMechanism
from accountant.protocols.randomizer import k_rr as k_rr_matrix


def run(capsys, argv):
    code = main(argv + ["--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


@pytest.fixture
def krr_files(tmp_path):
    rows = k_rr_matrix(3, 1.0).array.tolist()
    js = tmp_path / "krr.json"
    js.write_text(json.dumps({"name": "my k-RR", "rows": rows}))
    csv = tmp_path / "krr.csv"
    csv.write_text("# k-RR, k = 3, eps0 = 1\n" + "\n".join(",".join(repr(v) for v in r)
                                                          for r in rows) + "\n")
    return js, csv


def test_dp_from_json_and_csv_matches_library_and_k_rr(capsys, krr_files):
    js, csv = krr_files
    assert read_matrix(str(js)).rows == read_matrix(str(csv)).rows  # same exact matrix
    code, out, _ = run(capsys, ["dp", "randomizer", "--matrix", str(csv), "--n", "40",
                                "--at-delta", "1e-3"])
    assert code == 0 and out["protocol"] == "randomizer"
    assert out["params"]["matrix"]["name"] == "krr.csv"
    lib = RandomizerMechanism(k_rr_matrix(3, 1.0), 40).epsilon_for_delta(1e-3)
    assert out["epsilon"]["value"] == float(lib.upper)
    assert out["epsilon"]["kind"] == "upper" and out["epsilon_lower"]["kind"] == "lower"
    # reference: the k-RR protocol's own certified bracket (same randomizer, same pair)
    ref = k_rr.epsilon_for_delta(n=40, epsilon0=1.0, k=3, delta=1e-3)
    assert float(ref.lower) <= out["epsilon"]["value"] <= float(ref.upper) * 1.001
    code, out, _ = run(capsys, ["dp", "randomizer", "--matrix", str(js), "--n", "40",
                                "--at-epsilon", "0.5"])
    assert code == 0 and out["params"]["matrix"]["name"] == "my k-RR"
    assert out["delta_lower"]["value"] <= out["delta"]["value"]


def test_rdp_and_pure(capsys, krr_files):
    js, _ = krr_files
    code, out, _ = run(capsys, ["pure", "randomizer", "--matrix", str(js), "--n", "10"])
    assert code == 0 and abs(out["max_divergence"]["value"] - 1.0) < 1e-12
    code, out, _ = run(capsys, ["rdp", "randomizer", "--matrix", str(js), "--n", "10",
                                "--orders", "2,inf"])
    assert code == 0 and [r["order"] for r in out["renyi"]] == [2.0, "inf"]
    assert out["renyi_lower"][0]["value"] <= out["renyi"][0]["value"]


@pytest.mark.parametrize(("content", "suffix", "needle"), [
    ("[[0.5, 0.5], [0.5]]", ".json", "matrix row 1 has 1 entries"),
    ("[[0.5, 0.5], [0.2, 0.3]]", ".json", "matrix row 1 sums to 0.5"),
    ("{\"rows\": [[0.5, 0.5], [-0.5, 1.5]]}", ".json", "matrix[1][0]=-0.5 is outside [0, 1]"),
    ("[[0.5, 0.5],", ".json", "is not valid JSON"),
    ("{\"name\": \"x\"}", ".json", "needs a \"rows\" key"),
    ("0.5,0.5\n0.5,abc\n", ".csv", "line 2 is not a row of numbers"),
    ("0.5,0.5\n", ".csv", "1 input row"),
])
def test_bad_files_exit_2_with_one_line(capsys, tmp_path, content, suffix, needle):
    path = tmp_path / f"bad{suffix}"
    path.write_text(content)
    code, out, err = run(capsys, ["dp", "randomizer", "--matrix", str(path), "--n", "10",
                                  "--at-delta", "1e-6"])
    assert code == 2 and out is None
    assert needle in err and err.count("\n") == 1


def test_missing_file_exit_2(capsys, tmp_path):
    code, out, err = run(capsys, ["dp", "randomizer", "--matrix", str(tmp_path / "no.json"),
                                  "--n", "10", "--at-delta", "1e-6"])
    assert code == 2 and "cannot be read" in err and err.count("\n") == 1
