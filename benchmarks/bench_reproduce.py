"""Benchmark: `shuffle-accountant reproduce` wall time, quick and full.

Target: `reproduce --quick` <= 180 s on the project's 2-core machine (CI budget); the full run
has no target and is reported for information. Each figure's own time comes from index.json.
Medians over repeated runs (quick: 3, full: 1 unless --full-repeat). Run:

    python benchmarks/bench_reproduce.py [--full] [--full-repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from figures.reproduce import reproduce

QUICK_TARGET = 180.0


def run(quick: bool, repeat: int) -> None:
    walls, per_figure = [], {}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            index = reproduce(Path(tmp), quick=quick)
            walls.append(time.perf_counter() - t0)
            for e in index["figures"]:
                per_figure.setdefault(e["name"], []).append(e.get("seconds", float("nan")))
                if e["status"] != "ok":
                    print(f"  FAILED {e['name']}: {e['error']}")
    label = "quick" if quick else "full"
    median = statistics.median(walls)
    verdict = (f" (target <= {QUICK_TARGET:.0f} s: {'met' if median <= QUICK_TARGET else 'MISSED'})"
               if quick else "")
    print(f"reproduce --{label}: median {median:.1f} s over {repeat} run(s){verdict}")
    for name, secs in sorted(per_figure.items()):
        print(f"  {name:14s} {statistics.median(secs):7.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also time the full run")
    ap.add_argument("--full-repeat", type=int, default=1)
    args = ap.parse_args()
    run(quick=True, repeat=3)
    if args.full:
        run(quick=False, repeat=args.full_repeat)


if __name__ == "__main__":
    main()
