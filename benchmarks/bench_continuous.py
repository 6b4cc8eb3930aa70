"""Benchmark: shuffled Gaussian local randomizers on inputs {0, 1} (issue 24, item 1).

For sigma in {1, 3, 10} and n = 1e3 ... 1e6 at delta = 1e-6 it prints the mechanism's
certified bracket of epsilon (lower: the special pair's certified value, or the threshold
count's when larger; upper: the certified blanket), its relative width, the width it tends
to (the ratio of the two GDP limits' epsilons below, minus 1: the blanket pair's excess
over the special pair, sqrt(kappa/chi^2) in mu), the time of `epsilon_for_delta`, and the
asymptotic band: epsilon of mu-GDP at mu = sqrt(kappa/n) (the blanket pair's limit, kappa
the shuffle index) and at mu = sqrt(chi^2/n) (the special pair's limit), with the ratio of
each certified end to its limit. Targets of issue 24: bracket <= 1 % wide at n = 1e6 in
<= 10 s; the width is not reached (the worst-case dataset is not proven to be the special
pair, so the upper end stays the blanket's), the time is.

Run: python benchmarks/bench_continuous.py [--repeats R] [--quick]
"""

from __future__ import annotations

import argparse
import math

from scipy.optimize import brentq
from scipy.stats import norm
from timing import timed

from accountant.protocols.continuous import GaussianRandomizer

DELTA = 1e-6


def gdp_epsilon(mu: float, delta: float = DELTA) -> float:
    """epsilon(delta) of mu-GDP (Dong, Roth, Su 2022, Cor. 2.13), an asymptotic reference."""
    def f(e: float) -> float:
        return float(norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2)
                     - delta)
    return brentq(f, 0.0, 20 * mu + 10, xtol=1e-14)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="n = 1e3 and 1e6 only")
    args = ap.parse_args()
    ns = [10 ** 3, 10 ** 6] if args.quick else [10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6]
    print(f"{'sigma':>5} {'n':>8} {'lower':>11} {'upper':>11} {'width':>7} {'limit':>7} "
          f"{'sec':>6} {'gdp(kappa)':>11} {'gdp(chi2)':>11} {'up/gdp':>7} {'low/gdp':>7}")
    met_width, met_time = True, True
    for sigma in (1.0, 3.0, 10.0):
        for n in ns:
            mech = GaussianRandomizer(n=n, sigma=sigma)
            sec, b = timed(lambda m=mech: m.epsilon_for_delta(DELTA), args.repeats)
            low, up = float(b.lower.value), float(b.upper.value)
            law = mech.law()
            g_kappa = gdp_epsilon(math.sqrt(law.shuffle_index() / n))
            g_chi = gdp_epsilon(math.sqrt(law.chi_square() / n))
            width = up / low - 1
            limit = g_kappa / g_chi - 1
            print(f"{sigma:5g} {n:8.0e} {low:11.5g} {up:11.5g} {width:7.1%} {limit:7.1%} "
                  f"{sec:6.2f} {g_kappa:11.5g} {g_chi:11.5g} {up / g_kappa:7.3f} "
                  f"{low / g_chi:7.3f}", flush=True)
            if n == 10 ** 6:
                met_width &= width <= 0.01
                met_time &= sec <= 10
    print(f"target bracket <= 1 % at n = 1e6: {'met' if met_width else 'NOT met'} "
          "(the lower end is the special pair's value; the upper end is the blanket pair's, "
          "which lies above it by about the 'limit' column: no proof that the special pair "
          "is the worst dataset)")
    print(f"target <= 10 s at n = 1e6: {'met' if met_time else 'NOT met'}")


if __name__ == "__main__":
    main()
