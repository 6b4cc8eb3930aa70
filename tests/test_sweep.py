"""`shuffle-accountant sweep`: grids, the table, resuming, and the executors (pool, Dask)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from accountant.cli.main import main
from accountant.cli.sweep import (
    COLUMNS,
    ProcessPool,
    evaluate_point,
    expand_values,
    make_points,
    output_rows,
    parse_grid,
    read_rows,
    run_sweep,
)
from accountant.errors import ParameterError

# 20 x 10 = 200 points of a closed form (about 0.5 ms each)
QUESTION = ["bound", "girgis-thm1", "--orders", "2"]
GRID = ["n=100:100000:log:20", "epsilon0=0.1:4:log:10"]


class Inline:
    """The executor interface run in this process, counting what it computes."""

    description = "inline"

    def __init__(self, stop_after: int | None = None) -> None:
        self.computed: list[Sequence[str]] = []
        self.stop_after = stop_after

    def map_unordered(self, fn: Callable[[Any], Any],
                      items: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        for item in items:
            if self.stop_after is not None and len(self.computed) == self.stop_after:
                raise KeyboardInterrupt
            self.computed.append(item)
            yield item, fn(item)

    def close(self) -> None:
        pass


def _table(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _without_seconds(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


# --------------------------------------------------------------------------- grids

def test_values_lists_and_ranges() -> None:
    assert expand_values("n", "1000, 10000,100000") == ["1000", "10000", "100000"]
    assert expand_values("e", "0.5:8:log:5") == ["0.5", "1", "2", "4", "8"]
    assert expand_values("e", "0.0:1:lin:5") == ["0", "0.25", "0.5", "0.75", "1"]
    # integer ends give integers (for n, k, rounds, ...), repeats dropped
    assert expand_values("n", "0:1:lin:5") == ["0", "1"]
    assert expand_values("n", "1:4:lin:7") == ["1", "2", "3", "4"]
    assert expand_values("n", "10:1000:log:3") == ["10", "100", "1000"]


@pytest.mark.parametrize("text", ["", "1,,2", "1:2", "1:2:cubic:3", "0:1:log:3", "1:2:lin:0",
                                  "a:2:lin:3", "1:inf:lin:3"])
def test_bad_values_are_refused(text: str) -> None:
    with pytest.raises(ParameterError):
        expand_values("x", text)


def test_grid_is_the_cartesian_product() -> None:
    names, points = parse_grid(["n=1,2,3", "epsilon0=0.5,1"])
    assert names == ["n", "epsilon0"]
    assert points == [("1", "0.5"), ("1", "1"), ("2", "0.5"), ("2", "1"), ("3", "0.5"),
                      ("3", "1")]
    for bad in (["n"], ["n=1", "n=2"], ["9x=1"]):
        with pytest.raises(ParameterError):
            parse_grid(bad)


def test_points_flags_and_placeholders() -> None:
    (p,) = make_points(["dp", "ldp", "--at-delta", "1e-6"], ["n", "epsilon_0"], [("10", "1")])
    assert p.argv == ("dp", "ldp", "--at-delta", "1e-6", "--n", "10", "--epsilon-0", "1")
    (q,) = make_points(["compose", "--mechanism", "ldp --n {n} --epsilon0 1", "--at-delta",
                        "1e-6"], ["n", "rounds"], [("100", "5")])
    assert q.argv == ("compose", "--mechanism", "ldp --n 100 --epsilon0 1", "--at-delta",
                      "1e-6", "--rounds", "5")
    # an empty cell (from --rows) leaves the flag out
    (r,) = make_points(["dp", "bc-zsum", "--n", "5"], ["p", "epsilon"], [("0.9", "")])
    assert r.argv[-2:] == ("--p", "0.9")
    with pytest.raises(ParameterError, match="both in the question and in the grid"):
        make_points(["dp", "ldp", "--n", "5"], ["n"], [("10",)])
    with pytest.raises(ParameterError, match="must start with"):
        make_points(["simulate", "bc-zsum"], ["n"], [("10",)])


def test_rows_file(tmp_path: Path) -> None:
    f = tmp_path / "points.csv"
    f.write_text("n,p\n100,0.9\n\n1000,0.99\n")
    assert read_rows(f) == (["n", "p"], [("100", "0.9"), ("1000", "0.99")])
    f.write_text("n,p\n100\n")
    with pytest.raises(ParameterError, match="line 2"):
        read_rows(f)


def test_output_rows_pairs_lower_ends_by_order() -> None:
    out = {"params": {"n": 5},
           "renyi": [{"order": 2.0, "value": 0.3, "kind": "upper", "method": "m"},
                     {"order": "inf", "value": 1.0, "kind": "exact", "method": "m"}],
           "renyi_lower": [{"order": 2.0, "value": 0.1, "kind": "lower", "method": "l"}]}
    rows = output_rows("rdp", ["rdp", "ldp"], out)
    assert [(r["order"], r["value"], r["lower"], r["upper"]) for r in rows] == [
        (2.0, 0.3, 0.1, 0.3), (float("inf"), 1.0, 1.0, 1.0)]
    # the echo of the given delta (no method) is not a row
    dp = {"epsilon": {"value": 0.2, "kind": "upper", "method": "m"},
          "epsilon_lower": {"value": 0.1, "kind": "lower", "method": "l"},
          "delta": {"value": 1e-6, "kind": "exact"}}
    assert [(r["quantity"], r["lower"], r["upper"]) for r in output_rows("dp", [], dp)] == [
        ("epsilon", 0.1, 0.2)]


def test_a_point_is_the_commands_own_answer(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["dp", "bc-zsum", "--n", "1000", "--p", "0.9", "--at-delta", "1e-6"]
    assert main([*argv, "--json"]) == 0
    single = json.loads(capsys.readouterr().out)
    result = evaluate_point(argv)
    assert result["error"] is None
    (row,) = result["rows"]
    assert row["quantity"] == "epsilon"
    assert row["value"] == single["epsilon"]["value"]
    assert row["kind"] == single["epsilon"]["kind"] == "upper"
    # a failing point is an error row, not an exception
    bad = evaluate_point(["dp", "bc-zsum", "--n", "100", "--epsilon", "0.5", "--delta", "1e-6",
                          "--at-delta", "1e-6"])
    assert bad["rows"] == [] and bad["error"].startswith("RegimeError")


# --------------------------------------------------------------------------- the table

@pytest.fixture(scope="module")
def full_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 200-point grid on a local pool of 2 processes."""
    out = tmp_path_factory.mktemp("sweep") / "full.csv"
    pool = ProcessPool(2)
    try:
        summary = run_sweep(QUESTION, out, grid=GRID, executor=pool, progress=False)
    finally:
        pool.close()
    assert summary["points"] == summary["computed"] == 200 and summary["errors"] == 0
    return out


def test_200_points_make_a_complete_table(full_table: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    rows = _table(full_table)
    names, points = parse_grid(GRID)
    assert list(rows[0]) == [*names, *COLUMNS]
    assert len(rows) == 200
    # every point once, in grid order, each with a number and no error
    assert [(r["n"], r["epsilon0"]) for r in rows] == points
    assert all(r["error"] == "" and float(r["value"]) > 0 and r["kind"] == "upper"
               and r["order"] == "2.0" for r in rows)
    # spot checks against the single command
    for r in (rows[0], rows[117], rows[-1]):
        assert main(["bound", "girgis-thm1", "--n", r["n"], "--epsilon0", r["epsilon0"],
                     "--orders", "2", "--json"]) == 0
        single = json.loads(capsys.readouterr().out)
        assert float(r["value"]) == single["renyi"][0]["value"]


def test_resume_from_a_partial_table_computes_only_the_missing_points(
        full_table: Path, tmp_path: Path) -> None:
    text = full_table.read_text().splitlines(keepends=True)
    out = tmp_path / "partial.csv"
    # header + 100 finished points (in scrambled order) + a line torn by the interruption
    kept = text[1:101][::-1]
    out.write_text(text[0] + "".join(kept) + text[150][:40])
    inline = Inline()
    summary = run_sweep(QUESTION, out, grid=GRID, executor=inline, progress=False)
    assert summary["computed"] == 100 and summary["skipped"] == 100
    done = {tuple(r.split(",")[:2]) for r in text[1:101]}
    assert len(inline.computed) == 100
    assert all((argv[argv.index("--n") + 1], argv[argv.index("--epsilon0") + 1]) not in done
               for argv in inline.computed)
    assert _without_seconds(_table(out)) == _without_seconds(_table(full_table))
    # a third run has nothing left to do
    again = Inline()
    assert run_sweep(QUESTION, out, grid=GRID, executor=again, progress=False)["computed"] == 0
    assert again.computed == []


def test_interrupted_executor_then_rerun(full_table: Path, tmp_path: Path) -> None:
    out = tmp_path / "interrupted.csv"
    with pytest.raises(KeyboardInterrupt):
        run_sweep(QUESTION, out, grid=GRID, executor=Inline(stop_after=73), progress=False)
    assert len(_table(out)) == 73
    rest = Inline()
    assert run_sweep(QUESTION, out, grid=GRID, executor=rest, progress=False)["computed"] == 127
    assert len(rest.computed) == 127
    assert _without_seconds(_table(out)) == _without_seconds(_table(full_table))


def test_retry_errors_and_foreign_header(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    question = ["dp", "bc-zsum", "--n", "100", "--at-delta", "1e-6"]
    grid = ["epsilon=1", "delta=1e-6,0.9"]
    first = run_sweep(question, out, grid=grid, executor=Inline(), progress=False)
    assert first["errors"] == 1  # n = 100 is below the paper's regime at delta = 1e-6
    again = Inline()
    run_sweep(question, out, grid=grid, executor=again, progress=False, retry_errors=True)
    assert len(again.computed) == 1 and "1e-6" in again.computed[0]
    assert len(_table(out)) == 2
    with pytest.raises(ParameterError, match="columns"):
        run_sweep(question, out, grid=["epsilon=1"], executor=Inline(), progress=False)


def test_cli_sweep_and_its_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.csv"
    argv = ["sweep", "dp", "bc-zsum", "--grid", "p=0.9,0.99", "--n", "1000", "--at-delta",
            "1e-6", "--out", str(out), "--workers", "1", "--no-progress", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["command"] == "sweep" and summary["computed"] == 2
    assert [r["p"] for r in _table(out)] == ["0.9", "0.99"]
    # a point outside a flag's domain stops the sweep before anything runs (exit 2)
    bad = tmp_path / "bad.csv"
    assert main(["sweep", "dp", "bc-zsum", "--grid", "p=0.9,1.5", "--n", "1000", "--at-delta",
                 "1e-6", "--out", str(bad), "--no-progress"]) == 2
    assert "p=1.5 is outside" in capsys.readouterr().err and not bad.exists()
    assert main(["sweep", "dp", "ldp", "--n", "10", "--epsilon0", "1", "--at-delta", "1e-6",
                 "--out", str(bad)]) == 2
    assert "--grid" in capsys.readouterr().err


def test_parquet_by_extension(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet output needs pyarrow")
    out = tmp_path / "t.parquet"
    run_sweep(QUESTION, out, grid=["n=100,1000", "epsilon0=1"], executor=Inline(),
              progress=False)
    table = pq.read_table(out).to_pylist()
    assert [r["n"] for r in table] == ["100", "1000"] and all(r["value"] > 0 for r in table)
    assert not (tmp_path / "t.parquet.partial.csv").exists()
    # resumed: the finished points are read back from the Parquet file
    more = Inline()
    run_sweep(QUESTION, out, grid=["n=100,1000,10000", "epsilon0=1"], executor=more,
              progress=False)
    assert len(more.computed) == 1 and len(pq.read_table(out)) == 3


def test_sigint_then_rerun(tmp_path: Path) -> None:
    """A real interruption: Ctrl-C (SIGINT to the process group) halfway through a sweep on
    the process pool; the rerun computes only the points the first run did not write.

    A fast machine can finish a small sweep between two polls of its file (the signal then
    meets a finished process, exit 0): the grid then grows fourfold, up to 2,560 points.
    A test run started in the background of a non-interactive shell (`cmd &`) inherits
    SIGINT ignored, and so did the sweep: it ran all 2,560 points through the signal (exit
    0, three times in CI runs started that way). Python leaves an inherited SIG_IGN alone,
    so the test gives the sweep the default disposition, as a terminal would."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_then_rerun(tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt_then_rerun(tmp_path: Path) -> None:
    err = b""
    for size in (40, 160, 640):
        out = tmp_path / f"ldp{size}.csv"
        total = 4 * size
        argv = [sys.executable, "-m", "accountant.cli", "sweep", "dp", "ldp", "--grid",
                f"n=200:200000:log:{size}", "--grid", "epsilon0=0.5,1,2,4", "--at-delta",
                "1e-6", "--out", str(out), "--workers", "2", "--no-progress", "--json"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and len(out.read_text().splitlines()) > 8:
                break
            time.sleep(0.02)
        if proc.poll() is not None:  # finished before the signal: a bigger grid
            proc.communicate()
            continue
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 0 and len(_table(out)) == total:
            continue  # it finished as the signal arrived
        break
    assert proc.returncode == 130, err
    assert b"run the same command again" in err
    done = len(_table(out))
    assert 8 <= done < total
    rerun = subprocess.run(argv, capture_output=True, timeout=300, check=True)
    summary = json.loads(rerun.stdout)
    assert summary["computed"] == total - done and summary["skipped"] == done
    rows = _table(out)
    assert len(rows) == total and len({r["command"] for r in rows}) == total
    assert all(r["error"] == "" for r in rows)


def test_dask_local_cluster_gives_the_pools_table(full_table: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip(
        "dask.distributed", reason="dask.distributed is not installed (the `dask` extra)")
    out = tmp_path / "dask.csv"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        code = main(["sweep", *QUESTION, *(w for g in GRID for w in ("--grid", g)),
                     "--out", str(out), "--scheduler", cluster.scheduler_address,
                     "--no-progress", "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["computed"] == 200 and summary["executor"].startswith("dask cluster")
    assert "(2 workers)" in summary["executor"]
    assert _without_seconds(_table(out)) == _without_seconds(_table(full_table))
