"""Benchmark: shuffled single-message randomizers (issue 3, part A).

Prints medians of repeated runs (seconds) for
  1. the certified upper bound on epsilon at delta = 1e-6 (FMT clones pair for any
     eps0-LDP randomizer, and the blanket pair of binary RR), eps0 in {0.5, 1, 2, 4, 8},
     n in {1e6, 1e8}, with the numerical bracket (upper - lower)/upper;
  2. the exact Renyi divergences of the shuffled binary-RR special pair at n = 1e6 for 64
     orders (1.5 .. 256), with the widest relative bracket;
  3. the binary-RR tightness points of the issue (exact special pair vs blanket upper);
  4. the exact mechanism-level epsilon(1e-6) of binary RR (maximum over every count) at
     n = 1e4 and 1e5, with the count attaining it.

Run: python benchmarks/bench_single_message.py [--repeats R]
"""

from __future__ import annotations

import argparse

import numpy as np
from timing import timed

from accountant.pairs import clones as clone_pair
from accountant.protocols import binary_rr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    repeats = ap.parse_args().repeats
    print("1. certified upper bound on epsilon at delta=1e-6 (median s, relative bracket)")
    for n in (10**6, 10**8):
        for eps0 in (0.5, 1.0, 2.0, 4.0, 8.0):
            for name, make in (("clones", clone_pair.fmt_clones),
                               ("blanket", lambda **kw: clone_pair.blanket_k_rr(k=2, **kw))):
                pair = make(n=n, epsilon0=eps0)
                sec, res = timed(lambda pair=pair: clone_pair.epsilon_for_delta(
                    pair, delta=1e-6), repeats)
                up, lo = float(res.upper.value), float(res.lower.value)
                print(f"  n={n:.0e} eps0={eps0:<4} {name:<8} eps in [{lo:.6g}, {up:.6g}]"
                      f"  rel bracket {(up - lo) / up:.1e}  median {sec:.3f} s")
    print("2. exact Renyi of the binary-RR special pair, n=1e6, 64 orders")
    orders = list(np.linspace(1.5, 256, 64))
    for eps0 in (0.5, 1.0, 4.0, 8.0):
        sec, rows = timed(lambda eps0=eps0: binary_rr.special_pair_renyi(
            n=10**6, epsilon0=eps0, alphas=orders), repeats)
        width = max((float(u.value) - float(lo.value)) / float(u.value) for lo, u in rows)
        print(f"  eps0={eps0:<4} median {sec:.3f} s  widest relative bracket {width:.1e}")
    print("3. binary RR at delta=1e-6: exact special pair vs blanket upper (Wang et al.)")
    for n, eps0, wang in ((10**4, 1.0, 0.0432), (10**6, 1.0, 0.00352), (10**8, 1.0, 0.000260),
                          (10**6, 4.0, 0.0343)):
        sec, res = timed(lambda n=n, eps0=eps0: binary_rr.epsilon_for_delta(
            n=n, epsilon0=eps0, delta=1e-6), 1)
        print(f"  n={n:.0e} eps0={eps0}: lower {float(res['epsilon_lower'].value):.6g}"
              f"  upper {float(res['epsilon'].value):.6g}  (Wang et al. {wang})  {sec:.2f} s"
              f"  [{res['epsilon'].method}]")

    print("4. binary RR, exact worst case over every count, delta=1e-6 (median s)")
    for n in (10**4, 10**5):
        for eps0 in (0.5, 1.0, 4.0, 8.0):
            sec, res = timed(lambda n=n, eps0=eps0: binary_rr.epsilon_for_delta(
                n=n, epsilon0=eps0, delta=1e-6), max(1, repeats // 2))
            up, lo = float(res.upper.value), float(res.lower.value)
            special = float(res.special.value)
            print(f"  n={n:.0e} eps0={eps0:<4} eps in [{lo:.9g}, {up:.9g}] (special pair "
                  f"{special:.9g})  median {sec:.2f} s  [{res['epsilon'].method}]")


if __name__ == "__main__":
    main()
