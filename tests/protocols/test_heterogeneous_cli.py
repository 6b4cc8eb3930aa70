"""CLI of `heterogeneous` (dp/rdp/pure): a groups file in JSON, answers equal to the library's,
--colluders, and one-line exit-2 errors for bad files."""

from __future__ import annotations

import json

import pytest

from accountant.cli import main, registry
from accountant.cli.faces.heterogeneous import read_groups
from accountant.errors import ParameterError
from accountant.protocols.heterogeneous import HeterogeneousRandomizer

ENTRY = registry.ProtocolEntry("heterogeneous", "users in groups with different randomizers",
                               "accountant.cli.faces.heterogeneous:SPEC", ("dp", "rdp", "pure"))


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    # until the registry row is added by the lead: the same row, for this test only
    if all(e.name != "heterogeneous" for e in registry.PROTOCOLS):
        monkeypatch.setattr(registry, "PROTOCOLS", registry.PROTOCOLS + (ENTRY,))


def run(capsys, argv):
    code = main(argv + ["--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


GROUPS = {"groups": [
    {"count": 300, "randomizer": "k-rr", "epsilon0": 1.0, "k": 3},
    {"count": 100, "randomizer": "k-rr", "epsilon0": 2.0, "k": 3, "count_max": 500},
    {"count": 100, "rows": [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]],
     "name": "3-RR by hand"},
]}


@pytest.fixture
def groups_file(tmp_path):
    path = tmp_path / "groups.json"
    path.write_text(json.dumps(GROUPS))
    return path


def test_dp_matches_the_library(capsys, groups_file):
    code, out, _ = run(capsys, ["dp", "heterogeneous", "--groups", str(groups_file),
                                "--colluders", "10", "--at-delta", "1e-6"])
    assert code == 0 and out["protocol"] == "heterogeneous"
    mech = HeterogeneousRandomizer(groups=read_groups(str(groups_file)), colluders=10)
    lib = mech.epsilon_for_delta(1e-6)
    assert out["epsilon"]["value"] == pytest.approx(lib.upper.value, rel=1e-12)
    assert out["epsilon"]["kind"] == "upper" and out["epsilon"]["scope"] == "mechanism"
    assert out["epsilon_lower"]["value"] == pytest.approx(lib.lower.value, rel=1e-12)
    assert out["params"]["colluders"] == 10 and out["params"]["n"] == 500
    assert "colluders c = 10" in out["epsilon"]["method"]
    assert out["params"]["groups"][1]["count_max"] == 500


def test_rdp_and_pure(capsys, groups_file):
    code, out, _ = run(capsys, ["rdp", "heterogeneous", "--groups", str(groups_file),
                                "--orders", "2,8"])
    assert code == 0
    code, pure, _ = run(capsys, ["pure", "heterogeneous", "--groups", str(groups_file)])
    assert code == 0 and json.dumps(pure).count("max_divergence") >= 1


@pytest.mark.parametrize(("text", "match"), [
    ("not json", "is not valid JSON"),
    ('{"rows": []}', "needs a \\\"groups\\\" key"),
    ('[{"count": 3, "randomizer": "k-rr", "epsilon0": 1.0}]', "groups\\[0\\]"),
])
def test_bad_files_are_one_line_errors(tmp_path, capsys, text, match):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ParameterError, match=match):
        read_groups(str(path))
    code, _, err = run(capsys, ["dp", "heterogeneous", "--groups", str(path),
                                "--at-delta", "1e-6"])
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_missing_file_and_bad_colluders(tmp_path, capsys, groups_file):
    code, _, err = run(capsys, ["dp", "heterogeneous", "--groups", str(tmp_path / "none.json"),
                                "--at-delta", "1e-6"])
    assert code == 2 and "cannot be read" in err
    code, _, err = run(capsys, ["dp", "heterogeneous", "--groups", str(groups_file),
                                "--colluders", "500", "--at-delta", "1e-6"])
    assert code == 2 and "colluders=500" in err
