"""`dp ldp` against Wang et al.'s `amplificationUB` (VLDB 2024), as whole processes.

Wang, Peng, Xu, Yang, Lin, Sun, Yu, "Privacy Amplification via Shuffling: Unified,
Simplified, and Tightened", VLDB 2024: their reference code computes a numerical upper
bound for general epsilon0-LDP randomizers (p = q = e^eps0, beta = (e^eps0-1)/(e^eps0+1),
T = 20 iterations). Their code is never part of this repository: point the environment
variable WANG_AMPLIFICATION to their `unifiedamplification.py` (from the public repository
wangsw/PrivacyAmplification). Without it, only our side is timed.

    WANG_AMPLIFICATION=/path/to/unifiedamplification.py python benchmarks/bench_vs_wang.py

Each command runs as a separate process (interpreter start-up and imports included), the
two alternating, `RUNS` times; the script prints median wall times, the ratio of medians
and both epsilon values. Target (issue 12): ours at least 20x faster at n = 1e7 and 1e8.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

RUNS = 5
CASES = [(10**7, 4.0, 1e-6), (10**8, 4.0, 1e-6)]

_THEIRS = """
import math, sys
sys.path.insert(0, {folder!r})
from unifiedamplification import amplificationUB
e = {epsilon0!r}
p = math.exp(e)
print(amplificationUB(p, (p - 1) / (p + 1), p, p, {n}, {delta!r}, 20))
"""


def _timed(argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - start, out


def main() -> int:
    path = os.environ.get("WANG_AMPLIFICATION")
    if not path:
        print("WANG_AMPLIFICATION is not set: timing our side only (see the docstring)")
    for n, epsilon0, delta in CASES:
        ours_argv = ["shuffle-accountant", "dp", "ldp", "--n", str(n), "--epsilon0",
                     str(epsilon0), "--at-delta", str(delta), "--json"]
        theirs_argv = None if not path else [sys.executable, "-c", _THEIRS.format(
            folder=os.path.dirname(os.path.abspath(path)), epsilon0=epsilon0, n=n, delta=delta)]
        ours, theirs = [], []
        value_ours = value_theirs = None
        for _ in range(RUNS):
            t, out = _timed(ours_argv)
            ours.append(t)
            value_ours = json.loads(out)["epsilon"]["value"]
            if theirs_argv:
                t, out = _timed(theirs_argv)
                theirs.append(t)
                value_theirs = float(out.split()[-1])
        line = (f"n={n:.0e} eps0={epsilon0} delta={delta:g}: ours {statistics.median(ours):.2f} s"
                f" (epsilon {value_ours:.6g}, certified upper)")
        if theirs:
            ratio = statistics.median(theirs) / statistics.median(ours)
            line += (f"; theirs {statistics.median(theirs):.2f} s (epsilon {value_theirs:.6g});"
                     f" ratio {ratio:.1f}x ({'meets' if ratio >= 20 else 'misses'} 20x)")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
