"""The one timing helper of the benchmark scripts: median wall time of repeated runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], Any], repeat: int = 7,
          clock: Callable[[], float] = time.perf_counter) -> tuple[float, Any]:
    """(median seconds over `repeat` calls, the last call's result); `clock`:
    time.perf_counter (wall) or time.process_time (CPU of this process)."""
    times, out = [], None
    for _ in range(repeat):
        t0 = clock()
        out = fn()
        times.append(clock() - t0)
    return statistics.median(times), out
