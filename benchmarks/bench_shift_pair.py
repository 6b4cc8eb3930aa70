"""Benchmark (foundation issue): epsilon(delta = 1e-6) for Bin(n, p) vs 1 + Bin(n, p) with
n (1 - p) = 700, bulk only, for n up to 1e9; target < 50 ms each (view built + inverted).

Also checks, at n = 1e6, that the bulk answer equals the full O(n) sum within the effect of
its certified tail: the certified brackets [lower, upper] of the bulk and of the full
computation must intersect once the bulk bracket is widened by the residual mass divided
by the slope of delta at that epsilon (the full sum's bracket is wider: its float error
bound grows with the 1e6 cumulative-sum steps). Run: python benchmarks/bench_shift_pair.py
"""

from __future__ import annotations

import sys

from timing import timed

from accountant import delta_for_epsilon, epsilon_bracket, epsilon_for_delta
from accountant.pairs import binomial_shift_pair

DELTA = 1e-6
TAIL = 1e-30
TARGET_SECONDS = 0.050


def main() -> int:
    ok = True
    print(f"{'n':>12} {'grid':>6} {'epsilon (upper)':>18} {'median ms':>10}")
    for exponent in range(3, 10):
        n = 10**exponent
        p = 1 - 700 / n

        def run(n=n, p=p):
            view = binomial_shift_pair(n, p, tail=TAIL)
            return view.size, epsilon_for_delta(view, DELTA)

        seconds, (size, result) = timed(run)
        ok &= seconds < TARGET_SECONDS
        print(f"{n:>12.0e} {size:>6} {float(result):>18.12f} {seconds * 1e3:>10.2f}")

    n = 10**6
    p = 1 - 700 / n
    bulk_view = binomial_shift_pair(n, p, tail=TAIL)
    bulk_lo, bulk_hi = epsilon_bracket(bulk_view, DELTA)
    full_seconds, (full_lo, full_hi) = timed(
        lambda: epsilon_bracket(binomial_shift_pair(n, p), DELTA), repeat=3)
    eps = float(bulk_hi)
    h = 1e-6
    slope = (float(delta_for_epsilon(bulk_view, eps)) - float(delta_for_epsilon(bulk_view,
                                                                                   eps + h))) / h
    allowed = 2 * (bulk_view.tail_p + bulk_view.tail_q) / slope
    agree = (float(bulk_lo) - allowed <= float(full_hi)
             and float(full_lo) <= float(bulk_hi) + allowed)
    ok &= agree
    print(f"\nn = 1e6, epsilon at delta = 1e-6:\n  full O(n) sum  [{float(full_lo):.15f}, "
          f"{float(full_hi):.15f}] ({full_seconds * 1e3:.0f} ms)\n  bulk only      "
          f"[{float(bulk_lo):.15f}, {float(bulk_hi):.15f}]  (tail effect <= {allowed:.1e})\n"
          f"  {'brackets intersect: OK' if agree else 'MISMATCH'}")
    print("all targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
