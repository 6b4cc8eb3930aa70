"""Benchmark: certified epsilon(delta = 1e-6) of shuffled k-RR (issue 3, acceptance "k-RR").

The blanket pair revealing only the blanket size N (`k_rr_blanket`, k_rr's upper bound for
k >= 3) at n = 1e6, k in {3, 10, 100}, eps0 in {1, 4}; target: a few seconds each. Prints
the median time, the certified bracket, the docs/single-message.md#blanket-pairs-for-k-rr pair's
upper bound (which also reveals
whether the differing report left {x, x'}) and Wang et al.'s variation-ratio numbers
(VLDB 2024; not a certified bound for k >= 4, see tests/protocols/test_k_rr_blanket.py).

Run: python benchmarks/bench_k_rr.py [--repeats R]
"""

from __future__ import annotations

import argparse

from timing import timed

from accountant.pairs import clones as clone_pair
from accountant.protocols.k_rr import blanket as k_rr_blanket

WANG = {(1.0, 3): 0.00308, (1.0, 10): 0.00186, (1.0, 100): 0.000546,
        (4.0, 3): 0.0340, (4.0, 10): 0.0319, (4.0, 100): 0.0198}
TARGET_SECONDS = 5.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    repeats = ap.parse_args().repeats
    n, worst = 10**6, 0.0
    print(f"certified epsilon at delta=1e-6, n={n:.0e} (median of {repeats} runs)")
    for (eps0, k), wang in WANG.items():
        pair = k_rr_blanket.blanket_count_pair(n=n, epsilon0=eps0, k=k)
        sec, res = timed(lambda pair=pair: k_rr_blanket.epsilon_for_delta(pair, delta=1e-6),
                         repeats)
        worst = max(worst, sec)
        up, lo = float(res.upper.value), float(res.lower.value)
        flagged = clone_pair.epsilon_for_delta(
            clone_pair.blanket_k_rr(n=n, epsilon0=eps0, k=k), delta=1e-6)
        print(f"  eps0={eps0:<4} k={k:<4} eps in [{lo:.6g}, {up:.6g}]  "
              f"docs/single-message.md#blanket-pairs-for-k-rr pair "
              f"{float(flagged['epsilon'].value):.4g}  Wang et al. {wang}  median {sec:.2f} s")
    print(f"slowest {worst:.2f} s: target <= {TARGET_SECONDS} s "
          f"{'met' if worst <= TARGET_SECONDS else 'NOT met'}")


if __name__ == "__main__":
    main()
