"""`shuffle-accountant bound NAME ... --json`: shapes of CLI.md, values equal to the library
calls, and exit status 2 with one stderr line naming the condition and numbers."""

import json

import pytest

from accountant.bounds import balle_2019, feldman_2020
from accountant.bounds import girgis_2021 as g
from accountant.cli import main

RDP_BOUNDS = {
    "girgis-thm1": g.rdp_upper_remark2, "girgis-thm2": g.rdp_upper_thm2,
    "girgis-thm3": g.rdp_lower_thm3, "girgis-reverse": g.rdp_lower_reverse,
    "girgis-refined": g.rdp_upper_refined,
}


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("name", sorted(RDP_BOUNDS))
def test_rdp_bound_json(capsys, name):
    status, out, _ = run(capsys, "bound", name, "--n", "1e4", "--epsilon0", "1",
                         "--orders", "2,8.5", "--json")
    assert status == 0
    body = json.loads(out)
    assert body["command"] == "bound" and body["bound"] == name
    assert body["params"] == {"n": 10000, "epsilon0": 1.0}
    assert [r["order"] for r in body["renyi"]] == [2.0, 8.5]
    for item in body["renyi"]:
        expected = RDP_BOUNDS[name](alpha=item["order"], epsilon0=1.0, n=10000)
        assert item["value"] == expected.value and item["kind"] == expected.kind.value


@pytest.mark.parametrize("name,kind", [("girgis-cor2", "lower"), ("girgis-cor1", "upper"),
                                       ("erlingsson-eq10", "upper")])
def test_integer_order_bounds(capsys, name, kind):
    status, out, _ = run(capsys, "bound", name, "--n", "1e7", "--epsilon0", "1",
                         "--orders", "2,4", "--json")
    assert status == 0
    assert [r["kind"] for r in json.loads(out)["renyi"]] == [kind, kind]


def test_integer_only_bound_rejects_real_order(capsys):
    status, out, err = run(capsys, "bound", "girgis-cor2", "--n", "100", "--epsilon0", "1",
                           "--orders", "2.5", "--json")
    assert status == 2 and out == "" and err.count("\n") == 1 and "alpha=2.5" in err


def test_cor1_regime_error_and_fallback(capsys):
    args = ["bound", "girgis-cor1", "--n", "200", "--epsilon0", "3e-5", "--orders", "2",
            "--json"]
    status, out, err = run(capsys, *args)
    assert status == 2 and "S3 + E <= T2" in err and "n=200" in err
    with pytest.warns(Warning):
        status, out, _ = run(capsys, *args, "--allow-fallback")
    assert status == 0
    assert json.loads(out)["renyi"][0]["value"] == g.rdp_upper_thm1(alpha=2, epsilon0=3e-5,
                                                                    n=200).value


def test_fmt_json_and_regime_error(capsys):
    status, out, _ = run(capsys, "bound", "fmt", "--n", "1e6", "--epsilon0", "1",
                         "--at-delta", "1e-6", "--json")
    body = json.loads(out)
    assert status == 0 and body["delta"] == {"value": 1e-6, "kind": "exact"}
    assert body["epsilon"]["value"] == feldman_2020.epsilon_upper(
        epsilon0=1.0, n=10**6, delta=1e-6).value
    assert body["epsilon"]["kind"] == "upper"
    status, out, err = run(capsys, "bound", "fmt", "--n", "100", "--epsilon0", "0.5",
                           "--at-delta", "1e-6", "--variant", "reference-code", "--json")
    assert status == 2 and out == "" and "log(n/(16 log(4/delta)))" in err and "n=100" in err


def test_bbgn_json(capsys):
    status, out, _ = run(capsys, "bound", "bbgn", "--n", "1e6", "--epsilon0", "1",
                         "--at-delta", "1e-6", "--k", "4", "--json")
    body = json.loads(out)
    assert status == 0 and body["params"]["k"] == 4
    assert body["epsilon"]["value"] == balle_2019.epsilon_upper(
        epsilon0=1.0, n=10**6, delta=1e-6, k=4).value
