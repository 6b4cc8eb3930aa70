"""`shuffle-accountant compose` (CLI.md): JSON shape, the tightest sound value, every spec
kind, and exit status 2 with one line naming the parameter."""

import json
import math

import pytest

from accountant.cli import main
from accountant.composition.kov import epsilon_kov
from accountant.composition.rdp import RdpCurve


def _run(capsys, *argv):
    status = main(["compose", *argv, "--json"])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if status == 0 else None), err


def test_eps_delta_homogeneous_reports_exact_kov_as_tightest(capsys):
    status, out, _ = _run(capsys, "--mechanism", "eps-delta --epsilon 0.1 --delta 1e-8",
                          "--rounds", "30", "--at-delta", "1e-5")
    assert status == 0 and out["command"] == "compose"
    names = [m["method"] for m in out["methods"]]
    # KOV is exact: the PLD and RDP routes cannot change the bracket and are skipped
    assert {"kov", "drv"} <= set(names) and "pld.pessimistic" not in names
    exact = float(epsilon_kov(epsilon=0.1, delta=1e-8, rounds=30, delta_total=1e-5).value)
    assert out["epsilon"]["kind"] == "exact"
    assert out["epsilon"]["value"] == pytest.approx(exact, rel=1e-15)
    assert out["delta"] == {"value": 1e-5, "kind": "exact"}
    status, out, _ = _run(capsys, "--mechanism", "eps-delta --epsilon 0.1 --delta 1e-8",
                          "--rounds", "30", "--at-delta", "1e-5", "--method", "pld")
    values = {m["method"]: m["value"] for m in out["methods"] if "value" in m}
    assert values["pld.optimistic"] <= exact <= values["pld.pessimistic"]


def test_protocol_spec_lists_every_method_and_picks_the_smallest_upper(capsys):
    status, out, _ = _run(capsys, "--mechanism", "binary-rr --n 5000 --epsilon0 1",
                          "--rounds", "20", "--at-delta", "1e-6", "--method", "all")
    assert status == 0
    uppers = [m for m in out["methods"] if m.get("kind") in ("upper", "exact")]
    assert {m["method"] for m in uppers} == {"rdp.mironov", "rdp.cks", "rdp.optimal",
                                             "pld.pessimistic", "kov", "drv"}
    assert out["epsilon"]["value"] == min(m["value"] for m in uppers)
    # KOV of the class of 1-DP mechanisms: an upper end (binary RR is in the class), far
    # above the shuffled rounds' own PLD value
    kov_entry = next(m for m in uppers if m["method"] == "kov")
    assert kov_entry["kind"] == "upper"
    exact = epsilon_kov(epsilon=1.0, delta=0.0, rounds=20, delta_total=1e-6).upper_end()
    assert kov_entry["value"] == pytest.approx(exact, rel=1e-12) and exact > out["epsilon"]["value"]


def test_rdp_curve_file_and_at_epsilon(tmp_path, capsys, rr):
    path = tmp_path / "rr.json"
    path.write_text(json.dumps(RdpCurve.from_view(rr(0.5)).to_json()))
    status, out, _ = _run(capsys, "--mechanism", f"rdp-curve:{path}", "--rounds", "10",
                          "--at-epsilon", "3.0", "--method", "rdp")
    assert status == 0
    assert out["epsilon"] == {"value": 3.0, "kind": "exact"}
    assert 0 < out["delta"]["value"] < 1 and out["delta"]["kind"] == "upper"


def test_sampling_rate_marks_the_caveat_and_composes_the_class(capsys):
    """ZW19 on a replace-one curve is Girgis et al.'s heuristic pipeline: its values are
    listed as heuristic and never chosen; the certified upper end is then KOV's for the
    class of 1-DP mechanisms (each sampled round is one, without amplification), which the
    PLD of the class's KOV pair can only meet from above."""
    status, out, _ = _run(capsys, "--mechanism", "eps-delta --epsilon 1 --delta 0",
                          "--rounds", "100", "--sampling-rate", "0.01", "--at-delta", "1e-6")
    assert status == 0 and "heuristic" in out["caveat"]
    pld_value = next(m["value"] for m in out["methods"] if m["method"] == "pld.pessimistic")
    rdp = [m for m in out["methods"] if m["method"].startswith("rdp")]
    assert rdp and all(m["kind"] == "heuristic" and math.isfinite(m["value"]) for m in rdp)
    exact = epsilon_kov(epsilon=1.0, delta=0.0, rounds=100, delta_total=1e-6).upper_end()
    assert out["epsilon"]["kind"] == "upper"
    assert out["epsilon"]["value"] == pytest.approx(exact, rel=1e-12)
    assert min(m["value"] for m in rdp) < exact  # the heuristic value, lower, is not chosen
    assert exact <= pld_value <= exact * 1.01


def test_heterogeneous_mechanisms_compose(capsys):
    status, out, _ = _run(capsys, "--mechanism", "binary-rr --n 2000 --epsilon0 1",
                          "--mechanism", "eps-delta --epsilon 0.05 --delta 0",
                          "--rounds", "3", "--at-delta", "1e-6", "--method", "pld")
    assert status == 0 and out["epsilon"]["kind"] == "upper"
    alone = _run(capsys, "--mechanism", "binary-rr --n 2000 --epsilon0 1", "--rounds", "3",
                 "--at-delta", "1e-6", "--method", "pld")[1]
    assert out["epsilon"]["value"] > alone["epsilon"]["value"]


@pytest.mark.parametrize("argv, needle", [
    (["--mechanism", "eps-delta --epsilon -1 --delta 0", "--at-delta", "1e-6", "--rounds",
      "1"], "epsilon=-1"),
    (["--mechanism", "eps-delta --epsilon 1 --delta 0", "--at-delta", "2", "--rounds", "1"],
     "at-delta=2"),
    (["--mechanism", "no-such-protocol --n 3", "--at-delta", "1e-6", "--rounds", "1"],
     "no-such-protocol"),
    (["--mechanism", "rdp-curve:/nonexistent.json", "--at-delta", "1e-6", "--rounds", "1"],
     "does not exist"),
    (["--mechanism", "binary-rr --n 10", "--at-delta", "1e-6", "--rounds", "1"], "epsilon0"),
    (["--mechanism", "eps-delta --epsilon 1 --delta 0", "--rounds", "0", "--at-delta",
      "1e-6"], "rounds"),
])
def test_errors_exit_2_with_one_line(capsys, argv, needle):
    status, _, err = _run(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and needle in err


def test_k_rr_and_ldp_specs_use_their_protocol_modules(capsys):
    """k-rr composes its exact special pair; ldp (no view pair) its certified clones
    curve, which upper-bounds binary RR, itself an eps0-LDP randomizer."""
    status, out, _ = _run(capsys, "--mechanism", "k-rr --n 300 --epsilon0 1 --k 3",
                          "--rounds", "5", "--at-delta", "1e-6", "--method", "rdp")
    assert status == 0 and "k-rr" in out["methods"][0]["name"]
    ldp = _run(capsys, "--mechanism", "ldp --n 2000 --epsilon0 1", "--rounds", "5",
               "--at-delta", "1e-6", "--method", "rdp")[1]
    brr = _run(capsys, "--mechanism", "binary-rr --n 2000 --epsilon0 1", "--rounds", "5",
               "--at-delta", "1e-6", "--method", "rdp")[1]
    assert "ldp" in ldp["methods"][0]["name"]
    assert brr["epsilon"]["value"] <= ldp["epsilon"]["value"]
