"""Benchmark: the certified blanket bound of any randomizer matrix (issue 12).

Prints, at delta = 1e-6, epsilon of the general blanket bound next to the specialised
certified values of the library for the same randomizer (k-RR: `protocols.k_rr`, whose
upper end is the same pair computed in closed form; binary RR: `protocols.binary_rr`'s
mechanism bracket), and the time of other named matrices. Wang et al.'s code is not run
here (issue 12's speed comparison is not done).

Run: python benchmarks/bench_randomizer.py [--repeats R] [--large]
"""

from __future__ import annotations

import argparse

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


if __name__ == "__main__":
    main()
