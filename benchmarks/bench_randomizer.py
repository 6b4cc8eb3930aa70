"""Benchmark: the certified blanket bound of any randomizer matrix (issue 12).

Prints, at delta = 1e-6, epsilon of the general blanket bound next to the specialised
certified values of the library for the same randomizer (k-RR: `protocols.k_rr`, whose
upper end is the same pair computed in closed form; binary RR: `protocols.binary_rr`'s
mechanism bracket), and the time of other named matrices. With --large it adds n = 1e6 and
the target of issue 12: a matrix with up to 64 outputs at n = 1e6 in at most 5 s (named
64-output matrices, and a seeded random 64 x 64 one with 4032 distinct ordered pairs, timed
as the epsilon search after the pairs are built; the whole `dp randomizer` process adds
the matrix's exact validation). The comparison with Wang et al.'s code is
`bench_vs_wang.py`.

Run: python benchmarks/bench_randomizer.py [--repeats R] [--large]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from timing import timed

from accountant.protocols import binary_rr, k_rr
from accountant.protocols import randomizer as rz
from accountant.protocols.randomizer import blanket

DELTA = 1e-6


def general(mat: rz.Randomizer, n: int, repeats: int) -> tuple[float, float]:
    bound = blanket.blanket_bound(mat, n)
    sec, res = timed(lambda: blanket.epsilon_for_delta(bound, delta=DELTA), repeats)
    return sec, float(res.value)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--large", action="store_true", help="also n = 1e6")
    args = ap.parse_args()
    sizes = [10**4] + ([10**6] if args.large else [])
    print(f"epsilon at delta={DELTA:g}: general blanket bound vs the library's k-RR values")
    for n in sizes:
        for eps0, k in ((1.0, 4), (2.0, 3), (1.0, 10)):
            sec, eps = general(rz.k_rr(k, eps0), n, args.repeats)
            ref = k_rr.epsilon_for_delta(n=n, epsilon0=eps0, k=k, delta=DELTA)
            low = "-" if ref.lower is None else f"{float(ref.lower):.7g}"
            print(f"  k-RR n={n:.0e} k={k:3d} eps0={eps0:g}: general {eps:.7g} ({sec:.2f} s)"
                  f" | k_rr upper {float(ref.upper):.7g}, lower {low}"
                  f" | ratio {eps / float(ref.upper):.6f}")
        sec, eps = general(rz.binary_rr(1.0), n, args.repeats)
        ref = binary_rr.epsilon_for_delta(n=n, epsilon0=1.0, delta=DELTA)
        print(f"  binary RR n={n:.0e} eps0=1: general {eps:.7g} ({sec:.2f} s) | mechanism "
              f"bracket [{float(ref.lower):.7g}, {float(ref.upper):.7g}]")
        for mat in (rz.hadamard_response(7, 1.0), rz.subset_selection(6, 1.0, d=2),
                    rz.unary_encoding(4, 1.0), rz.local_hashing(8, 1.0, family=8)):
            sec, eps = general(mat, n, args.repeats)
            print(f"  {mat.name} [{mat.outputs} outputs] n={n:.0e}: {eps:.7g} ({sec:.2f} s)")
    if args.large:
        sixty_four(args.repeats)


def sixty_four(repeats: int) -> None:
    """The 5 s target at n = 1e6 for matrices with 64 outputs."""
    rng = np.random.default_rng(5)
    a = np.exp(rng.uniform(0.0, 2.0, size=(64, 64)))
    mats = [rz.hadamard_response(63, 1.0), rz.local_hashing(16, 1.0, g=4, family=16),
            rz.k_rr(64, 1.0), rz.subset_selection(8, 2.0, d=3),
            rz.Randomizer.from_rows((a / a.sum(axis=1, keepdims=True)).tolist(),
                                    name="random 64 x 64 (seed 5)")]
    print("64 outputs, n=1e6, delta=1e-6 (target: <= 5 s each)")
    worst = 0.0
    for mat in mats:
        t0 = time.perf_counter()
        pairs = len(blanket.blanket_bound(mat, 10**6).pairs)
        build = time.perf_counter() - t0
        sec, eps = general(mat, 10**6, repeats)
        worst = max(worst, build + sec)
        print(f"  {mat.name[:44]:44s} [{mat.outputs} outputs, {pairs} pairs]: {eps:.7g} "
              f"(pairs {build:.2f} s + search {sec:.2f} s)")
    print(f"  slowest {worst:.2f} s: target {'met' if worst <= 5 else 'MISSED'}")


if __name__ == "__main__":
    main()
