"""The one timing helper of the benchmark scripts: median wall time of repeated runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def timed(fn: Callable[[], Any], repeat: int = 7) -> tuple[float, Any]:
    """(median seconds over `repeat` calls, the last call's result)."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out
