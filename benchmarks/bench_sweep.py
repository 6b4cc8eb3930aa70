"""Benchmark: `shuffle-accountant sweep` throughput from 1 to 2 workers (issue 15, "sweep").

The question `dp ldp --at-delta 1e-6` (certified clones-pair epsilon, 0.2-1.5 s a point) over
n = 3000..30000 (log, 4 values) x epsilon0 in {0.5, 1, 2, 4}: 16 points, run on the local
process pool with 1 and 2 workers and, when dask.distributed is installed, on a
`LocalCluster` with 1 and 2 worker processes. Every run writes a fresh table; the tables of
all runs must agree (seconds aside). Prints points per second and the speed-up; the target
is >= 1.5x from 1 to 2 workers on a 2-core machine (the work is CPU-bound and independent).

Run: python benchmarks/bench_sweep.py [--points-n K] [--no-dask]
"""

from __future__ import annotations

import argparse
import csv
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from accountant.cli.sweep import DaskCluster, Executor, ProcessPool, run_sweep

QUESTION = ["dp", "ldp", "--at-delta", "1e-6"]
TARGET_SPEEDUP = 1.5


def _run(make: Callable[[], Executor], grid: list[str], out: Path) -> tuple[float, list]:
    """Seconds for the whole sweep (executor start included) and its rows without timings."""
    start = time.perf_counter()
    executor = make()
    try:
        summary = run_sweep(QUESTION, out, grid=grid, executor=executor, progress=False)
    finally:
        executor.close()
    seconds = time.perf_counter() - start
    assert summary["errors"] == 0, summary
    with open(out, newline="") as fh:
        rows = [{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(fh)]
    return seconds, rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points-n", type=int, default=4, help="values of n (times 4 epsilon0)")
    ap.add_argument("--no-dask", action="store_true", help="only the local process pool")
    args = ap.parse_args()
    grid = [f"n=3000:30000:log:{args.points_n}", "epsilon0=0.5,1,2,4"]
    points = 4 * args.points_n
    runs: list[tuple[str, Callable[[], Executor]]] = [
        ("process pool, 1 worker", lambda: ProcessPool(1)),
        ("process pool, 2 workers", lambda: ProcessPool(2)),
    ]
    clusters = []
    if not args.no_dask:
        try:
            from dask.distributed import LocalCluster
        except ImportError:
            print("dask.distributed not installed: the Dask rows are skipped")
        else:
            for workers in (1, 2):
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
                clusters.append(cluster)
                runs.append((f"dask LocalCluster, {workers} worker{'s' * (workers > 1)}",
                             lambda c=cluster: DaskCluster(c.scheduler_address)))
    load = os.getloadavg()[0]
    print(f"sweep {' '.join(QUESTION)} over {points} points ({' x '.join(grid)}); "
          f"{os.cpu_count()} CPUs, load average {load:.2f} before the runs")
    if load > 0.5:
        print("  (other processes are running: 2 workers cannot get 2 free cores; the "
              "speed-up below understates what 2 free cores give)")
    results: dict[str, float] = {}
    reference = None
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, make) in enumerate(runs):
            seconds, rows = _run(make, grid, Path(tmp) / f"run{i}.csv")
            if reference is None:
                reference = rows
            assert rows == reference, f"{name}: the table differs from the first run's"
            results[name] = seconds
            print(f"  {name:<28} {seconds:6.2f} s  {points / seconds:5.2f} points/s")
    for cluster in clusters:
        cluster.close()
    for kind in ("process pool", "dask LocalCluster"):
        one = results.get(f"{kind}, 1 worker")
        two = results.get(f"{kind}, 2 workers")
        if one and two:
            speedup = one / two
            print(f"{kind}: speed-up 1 -> 2 workers {speedup:.2f}x (target >= {TARGET_SPEEDUP}x "
                  f"{'met' if speedup >= TARGET_SPEEDUP else 'NOT met'}); tables identical")


if __name__ == "__main__":
    main()
