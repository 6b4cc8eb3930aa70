"""Benchmark: the continuous randomizers' bracket of epsilon(delta) down to tiny delta
(issue 24, the lower end in the tail).

For sigma in {0.1, 0.3, 0.5, 1, 3}, n in {2, 10, 100, 1e3, 1e5} and
delta in {1e-6, 1e-12, 1e-30, 1e-100, 1e-300} it prints the mechanism's certified bracket
(`epsilon_for_delta`: lower end the largest of the special pair's, the threshold count's and
the tail events'; upper end the blanket's), the ratio upper/lower, which method gave the lower
end, and the seconds of one call (both ends). `--family` picks another noise family (its
scale takes the sigma values), `--markdown` prints a table for docs/continuous-randomizers.md.

Run: python benchmarks/bench_continuous_tails.py [--family gaussian] [--quick] [--markdown]
"""

from __future__ import annotations

import argparse
import math
import warnings

from timing import timed

from accountant.protocols.continuous import (
    DiscreteGaussianRandomizer,
    DiscreteLaplaceRandomizer,
    GaussianRandomizer,
    LaplaceRandomizer,
)

SCALES = (0.1, 0.3, 0.5, 1.0, 3.0)
NS = (2, 10, 100, 10 ** 3, 10 ** 5)
DELTAS = (1e-6, 1e-12, 1e-30, 1e-100, 1e-300)
FAMILIES = {
    "gaussian": lambda n, s: GaussianRandomizer(n=n, sigma=s),
    "laplace": lambda n, s: LaplaceRandomizer(n=n, scale=s),
    "discrete-gaussian": lambda n, s: DiscreteGaussianRandomizer(n=n, sigma=s),
    "discrete-laplace": lambda n, s: DiscreteLaplaceRandomizer(n=n, scale=s),
}


def source(method: str) -> str:
    """Short name of the method that gave the lower end."""
    for key in ("special_pair", "tail_events", "threshold"):
        if key in method:
            return key
    return method.split(" ")[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", choices=sorted(FAMILIES), default="gaussian")
    ap.add_argument("--quick", action="store_true", help="sigma in {0.3, 1}, n in {2, 1e3}")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    scales = (0.3, 1.0) if args.quick else SCALES
    ns = (2, 10 ** 3) if args.quick else NS
    make = FAMILIES[args.family]
    if args.markdown:
        print("| scale | n | delta | lower | upper | upper/lower | lower from | seconds |")
        print("|---|---|---|---|---|---|---|---|")
    else:
        print(f"{'scale':>5} {'n':>6} {'delta':>7} {'lower':>11} {'upper':>11} "
              f"{'up/low':>8} {'from':>13} {'sec':>6}")
    worst = 0.0
    for s in scales:
        for n in ns:
            for delta in DELTAS:
                mech = make(n, s)
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # a leaked warning is a bug: fail loudly
                    sec, b = timed(lambda m=mech, d=delta: m.epsilon_for_delta(d),
                                   args.repeats)
                worst = max(worst, sec)
                low = 0.0 if b.lower is None else float(b.lower.value)
                up = float(b.upper.value)
                ratio = up / low if low > 0 else math.inf
                src = "-" if b.lower is None else source(b.lower.method)
                if args.markdown:
                    print(f"| {s:g} | {n:.0e} | {delta:.0e} | {low:.4g} | {up:.4g} | "
                          f"{ratio:.3g} | {src} | {sec:.1f} |", flush=True)
                else:
                    print(f"{s:5g} {n:6.0e} {delta:7.0e} {low:11.5g} {up:11.5g} "
                          f"{ratio:8.3g} {src:>13} {sec:6.2f}", flush=True)
    print(f"slowest call: {worst:.1f} s (limit 30 s)")


if __name__ == "__main__":
    main()
