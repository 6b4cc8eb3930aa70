"""Benchmark (issue 3, part B): Girgis et al. 2021 bounds and the exact special-pair RDP.

Measures, as medians of repeated runs:
- the exact Renyi divergence of shuffled binary RR's special pair in both orders
  (`rdp_lower_thm3`, `rdp_lower_reverse`, float backend) at n = 1e6 for 64 orders 2..256
  (issue target for exact binary-RR RDP: 64 orders at n = 1e6 in <= 1 s);
- the closed forms (Theorem 1 via Remark 2, Theorem 2) for the same 64 orders;
- the Theorem 4 refinement (docs/girgis-2021.md#theorem-4-and-the-refined-bound) for the same 64
orders, at n = 1e6 and 1e8.
Run: python benchmarks/bench_girgis_bounds.py [--quick]
"""

from __future__ import annotations

import sys

import numpy as np
from timing import timed as _timed

from accountant.bounds import girgis_2021 as g


def timed(fn, repeat: int) -> float:
    return _timed(fn, repeat)[0]


ORDERS = [float(a) for a in np.unique(np.round(np.geomspace(2, 256, 64), 2))]


def main() -> None:
    repeat = 1 if "--quick" in sys.argv else 5
    print(f"{len(ORDERS)} orders from {ORDERS[0]} to {ORDERS[-1]}; medians of {repeat} runs")
    for n in (10**6, 10**8):
        for epsilon0 in (0.5, 1.0, 4.0, 8.0):
            kw = {"epsilon0": epsilon0, "n": n}
            both = timed(lambda kw=kw: [(g.rdp_lower_thm3(alpha=a, **kw),
                                         g.rdp_lower_reverse(alpha=a, **kw))
                                        for a in ORDERS], repeat)
            closed = timed(lambda kw=kw: [(g.rdp_upper_remark2(alpha=a, **kw),
                                           g.rdp_upper_thm2(alpha=a, **kw))
                                          for a in ORDERS], repeat)
            refined = timed(lambda kw=kw: [g.rdp_upper_refined(alpha=a, **kw)
                                           for a in ORDERS], max(1, repeat // 2))
            print(f"n={n:.0e} eps0={epsilon0}: special pair both orders {both:.3f} s, "
                  f"Thm 1 (Remark 2) + Thm 2 {closed:.3f} s, refined {refined:.3f} s")

if __name__ == "__main__":
    main()
