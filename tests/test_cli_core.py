"""The command line's own contract (CLI.md): errors exit 2 with one stderr line; reproduce
writes an index of what it produced."""

import json
import subprocess
import sys

import pytest

from accountant.cli import main


def test_unknown_figure_name_exits_2_with_one_line(capsys, tmp_path):
    code = main(["reproduce", "--only", "no-such-figure", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "no-such-figure names no figure" in err[0]


def test_argparse_errors_exit_2(capsys):
    assert main(["no-such-command"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_reproduce_json_lists_the_files_of_each_figure(tmp_path, capsys, monkeypatch):
    from figures import reproduce as rep
    from figures.common import FigureSpec, write_csv

    def run(out, quick):
        return [write_csv(out / "toy.csv", ["x"], [[1.0 if quick else 2.0]])]

    monkeypatch.setattr(rep, "discover", lambda: [FigureSpec("toy", "none", "a toy", run)])
    assert main(["reproduce", "--out", str(tmp_path), "--quick", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    toy = next(f for f in body["figures"] if f["name"] == "toy")
    assert toy["status"] == "ok" and toy["files"] == [str(tmp_path / "toy.csv")]
    # the audit report is written beside the figures, as a figure of its own
    assert any(f["name"] == "audit" and f["files"] == [str(tmp_path / "audit.md")]
               for f in body["figures"])
    assert (tmp_path / "toy.csv").read_text().splitlines() == ["x", "1.0"]
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["quick"] is True


def test_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "accountant.cli", "--help"],
                         capture_output=True, text=True, check=True)
    assert "reproduce" in out.stdout


def test_pair_values_say_what_they_bound(capsys):
    """epsilon_special is one neighbouring pair's value and epsilon_<pair>_lower the bounding
    pair's own lower end: their JSON says so, so that neither reads as a mechanism bound."""
    assert main(["dp", "k-rr", "--n", "500", "--epsilon0", "1", "--k", "4", "--at-delta",
                 "1e-6", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert "lower bound on the mechanism" in body["epsilon_special"]["note"]
    assert "not a bound on the mechanism" in body["epsilon_blanket_lower"]["note"]
    assert body["epsilon"]["scope"] == "mechanism" and body["epsilon"]["kind"] == "upper"
    assert body["epsilon_special"]["scope"] == "pair"


def test_table_rounds_each_end_toward_its_safe_side(capsys):
    """The table prints six digits: a lower end of 39.9999999999998 printed as "40" (to
    nearest) read like the upper end; lower ends now round down, upper ends up."""
    from accountant.cli.main import _fmt

    assert main(["rdp", "ldp", "--n", "12", "--epsilon0", "40", "--orders", "2"]) == 0
    out = capsys.readouterr().out
    assert "value=39.9999, kind=lower" in out and "value=40, kind=upper" in out
    assert _fmt(1.2345678e-7, "upper") == "1.23457e-07"
    assert _fmt(1.2345678e-7, "lower") == "1.23456e-07"
    assert _fmt(1.2345678e-7, "exact") == "1.23457e-07"


@pytest.mark.parametrize("argv", [
    ["dp", "ldp", "--n", "1000", "--epsilon", "1", "--at-delta", "1e-6"],
    ["dp", "k-rr", "--n", "1000", "--epsilon0", "1", "--k", "3", "--at-del", "1e-6"],
    ["compose", "--mechanism", "ldp --n 100 --epsilon 1", "--rounds", "3", "--at-delta", "1e-5"],
    ["compose", "--mechanism", "ldp --n 100 --epsilon0 1", "--round", "3", "--at-delta", "1e-5"],
])
def test_abbreviated_flags_are_refused(argv, capsys):
    """`--epsilon` was silently read as `--epsilon0` (argparse's prefix matching): a flag is
    taken only as spelled, anywhere on the command line."""
    assert main(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_compose_samples_without_replacement(capsys):
    # --sample-size M --dataset-size N: the Gaussian's fixed-size batches under
    # substitution, composed through Poisson's add/remove pair at half the noise multiplier
    # (accountant.composition.interop.SampledWithoutReplacement)
    from accountant.composition import Accountant, GaussianNoise, Subsampled

    code = main(["compose", "--mechanism", "gaussian --noise-multiplier 2", "--rounds", "50",
                 "--sample-size", "100", "--dataset-size", "10000", "--at-delta", "1e-5",
                 "--json"])
    body = json.loads(capsys.readouterr().out)
    assert code == 0 and body["params"]["sample_size"] == 100
    ref = Accountant("add-remove").compose(Subsampled(GaussianNoise(1.0), 0.01), 50)
    b = ref.get_epsilon(1e-5)
    assert body["epsilon"]["value"] == b.upper.value
    assert body["epsilon_lower"]["value"] == b.lower.value
    for extra in (["--sample-size", "100"],
                  ["--sample-size", "100", "--dataset-size", "10000", "--sampling-rate", "0.1"],
                  ["--sample-size", "100", "--dataset-size", "10000", "--relation",
                   "add-remove"]):
        assert main(["compose", "--mechanism", "gaussian --noise-multiplier 2", "--rounds",
                     "5", "--at-delta", "1e-5", *extra]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_library_warning_is_one_line_on_stderr():
    """A "valid but loose" warning reaches the console as one line naming its category,
    not Python's source location and a line of library code (calibrate compose at delta
    1e-300, where two rounds have no certified epsilon next to the calibrated sigma)."""
    out = subprocess.run(
        [sys.executable, "-m", "accountant.cli", "calibrate", "compose", "--mechanism",
         "gaussian --noise-multiplier ?", "--rounds", "2", "--sampling-rate", "0.1",
         "--target-epsilon", "1", "--target-delta", "1e-300", "--json"],
        capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.strip().splitlines()
    assert lines and lines[0].startswith(
        "shuffle-accountant: warning (LooseBoundWarning): no route certifies")
    assert not any("accountant/" in line for line in lines)
    body = json.loads(out.stdout)
    assert body["epsilon"]["value"] <= 1.0
