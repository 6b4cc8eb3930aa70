"""Benchmark (issue 5): composition of shuffled binary randomized response (eps0 = 1).

1. RDP path, T = 1e4 rounds, once the curve exists: T-fold composition plus the three
   RDP -> DP conversions (Mironov, CKS, optimal) at delta = 1e-6; target <= 50 ms.
2. PLD path, T = 1e4 rounds at n = 1e6, default settings (discretization refined until the
   pessimistic and optimistic values are within 0.8%): target <= 10 s.
Also prints the one-off cost of building each curve (84 orders). Medians of repeated runs.
Run: python benchmarks/bench_composition.py [--quick]
"""

from __future__ import annotations

import sys

from timing import timed

from accountant.composition import compose_views, epsilon_best
from accountant.composition.rdp import RdpCurve
from accountant.protocols import binary_rr

DELTA = 1e-6
ROUNDS = 10_000
RDP_TARGET = 0.050
PLD_TARGET = 10.0


def main() -> int:
    quick = "--quick" in sys.argv
    ok = True
    print("RDP path (T = 1e4, delta = 1e-6)")
    print(f"{'n':>9} {'curve s':>8} {'median ms':>10} {'epsilon':>10}  winner")
    for n in (10_000, 1_000_000):
        view = binary_rr.view_pair(n=n, epsilon0=1.0)
        build, curve = timed(lambda view=view: RdpCurve.from_view(view), 1)
        took, (best, _) = timed(lambda curve=curve: epsilon_best(curve.times(ROUNDS),
                                                                 delta=DELTA), 9)
        winner = best.method.split(" of ")[0].rsplit(".", 1)[-1]
        print(f"{n:>9} {build:>8.2f} {1000 * took:>10.1f} {best.value:>10.5f}  {winner} "
              f"(alpha={best.order:.4g})")
        ok &= took <= RDP_TARGET
    print("PLD path (n = 1e6, T = 1e4, delta = 1e-6, default discretization)")
    view = binary_rr.view_pair(n=1_000_000, epsilon0=1.0)
    took, out = timed(lambda: compose_views([(view, ROUNDS)], delta=DELTA),
                      1 if quick else 3)
    print(f"  median {took:.2f} s: epsilon in [{out.lower.value:.6f}, {out.upper.value:.6f}]"
          f" (gap {100 * out.relative_gap:.2f}%, discretization {out.discretization:.3g})")
    ok &= took <= PLD_TARGET
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
