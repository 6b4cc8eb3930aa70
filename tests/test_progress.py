"""Long work says what it is doing: through a pipe (the CLI's "still running" lines,
reproduce's per-figure lines) and in Python (the accountant's progress callback)."""

from __future__ import annotations

import importlib
import time

from accountant.composition import Accountant, GaussianNoise, Subsampled
from figures.reproduce import reproduce

# the module (the package `accountant.cli` exports the function `main` under the same name)
cli_main = importlib.import_module("accountant.cli.main")


def test_a_long_command_prints_plain_lines_through_a_pipe(capsys, monkeypatch) -> None:
    # pytest's captured stderr is not a terminal: the pipe path
    monkeypatch.setattr(cli_main, "PIPE_FIRST", 0.05)
    monkeypatch.setattr(cli_main, "PIPE_EVERY", 0.1)
    with cli_main._elapsed("compose demo", show=True):
        time.sleep(0.4)
    lines = capsys.readouterr().err.splitlines()
    assert 2 <= len(lines) <= 5
    assert all(line.startswith("compose demo: still running, ") for line in lines)
    with cli_main._elapsed("quick", show=True):
        pass
    assert capsys.readouterr().err == ""  # a quick command prints nothing


def test_reproduce_says_each_figure_before_and_after(tmp_path, capsys) -> None:
    reproduce(tmp_path, quick=True, only=["gkm"], progress=True)
    first = capsys.readouterr().err.splitlines()
    assert first[0] == "gkm: started" and first[-1].startswith("gkm: ok in ")
    # the second run into the same directory quotes the first run's time
    reproduce(tmp_path, quick=True, only=["gkm"], progress=True)
    again = capsys.readouterr().err.splitlines()
    assert again[0].startswith("gkm: started (last run here: ") and again[0].endswith(" s)")


def test_the_accountant_reports_each_route_to_a_callback() -> None:
    seen: list[str] = []
    acc = Accountant("add-remove").compose(Subsampled(GaussianNoise(2.0), 0.05), 20)
    b = acc.get_epsilon(1e-5, progress=seen.append)
    assert b.upper.value == acc.get_epsilon(1e-5).upper.value
    starts = [s for s in seen if s.endswith(": started")]
    assert [s.split(":")[0] for s in starts] == ["analytic", "kov", "pld"]  # rdp skipped
    assert all(any(d.startswith(s.split(":")[0] + ": done in ") for d in seen) for s in starts)
