"""Benchmark: the blanket pair's certified bracket for shuffled noise randomizers (issue 24).

For each noise law at n = 1e6, delta = 1e-6 it prints the blanket pair's certified
[lower, upper] of epsilon (upper: `blanket.epsilon_upper`, the mechanism's upper end;
lower: `blanket_lower.epsilon_lower`, the pair's own certified lower end, which says how
tight the upper end's numerics are, not how tight the pair is), its relative width, the
seconds of each end, and the mechanism's bracket for comparison (lower: the special
pair's certified value; its gap to the blanket pair is the pair's looseness, which no
numerics can close). Target of issue 24 for the pair: <= 1 % wide in <= 10 s.

Run: python benchmarks/bench_continuous_blanket.py [--repeats R] [--quick] [--n N]
"""

from __future__ import annotations

import argparse

from timing import timed

from accountant.protocols.continuous import (
    DiscreteGaussianLaw,
    DiscreteLaplaceLaw,
    GaussianLaw,
    LaplaceLaw,
    blanket,
    blanket_lower,
    special_pair,
)

DELTA = 1e-6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="Gaussian sigma = 1, 3, 10 only")
    ap.add_argument("--n", type=int, default=10 ** 6)
    args = ap.parse_args()
    laws = [GaussianLaw(1.0), GaussianLaw(3.0), GaussianLaw(10.0)]
    if not args.quick:
        laws += [LaplaceLaw(1.0), LaplaceLaw(3.0), DiscreteGaussianLaw(3.0),
                 DiscreteLaplaceLaw(3.0)]
    n = args.n
    print(f"n = {n:.0e}, delta = {DELTA:g}")
    print(f"{'law':>22} {'pair lower':>11} {'upper':>11} {'width':>7} {'sec up':>7} "
          f"{'sec low':>7} {'mech lower':>11} {'mech width':>10}")
    met_width = met_time = True
    for law in laws:
        sec_up, up = timed(lambda law=law: blanket.epsilon_upper(law, n, DELTA), args.repeats)
        u = float(up.value)
        sec_low, low = timed(lambda law=law, u=u: blanket_lower.epsilon_lower(
            law, n, DELTA, below=u), args.repeats)
        lo = float(low.value)
        special = special_pair.epsilon_lower(law, n, DELTA, below=u)
        mech = float(special.value) if special is not None else 0.0
        width = u / lo - 1 if lo > 0 else float("inf")
        mech_width = u / mech - 1 if mech > 0 else float("inf")
        name = f"{law.name}({law.scale:g})"
        print(f"{name:>22} {lo:11.6g} {u:11.6g} {width:7.3%} {sec_up:7.2f} {sec_low:7.2f} "
              f"{mech:11.6g} {mech_width:10.1%}", flush=True)
        met_width &= width <= 0.01
        met_time &= sec_low <= 10
    print(f"blanket pair bracket <= 1 %: {'met' if met_width else 'NOT met'}; "
          f"its lower end <= 10 s: {'met' if met_time else 'NOT met'} (the mechanism's "
          "bracket stays as wide as the blanket pair's excess over the special pair)")


if __name__ == "__main__":
    main()
