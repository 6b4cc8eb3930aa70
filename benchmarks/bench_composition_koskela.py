"""Koskela, Heikkila, Honkela's anchor (issue 11): n = 1e5 users, Poisson rate 0.01,
eps0 = 3, delta = 1e-5, substitute relation, T = 10 .. 1e4 rounds, through the certified
PLD of the subsampled FMT clones pair (docs/conversions.md#poisson-subsampling-of-a-shuffled-round).

Run: python benchmarks/bench_composition_koskela.py [--rounds 10 100 1000 10000]
Prints T, the certified upper epsilon, the pair's own lower end, the quoted value and seconds.
"""

from __future__ import annotations

import sys
import time

from accountant.composition import pld
from accountant.composition.subsampled import SubsampledPair
from accountant.pairs import clones

QUOTED = {10: 0.00511, 100: 0.0512, 1000: 0.512, 10000: 5.114}


def main() -> None:
    """Print one line per number of rounds."""
    given = sys.argv[1:]
    rounds_list = [int(a) for a in given if a != "--rounds"] or [10, 100, 1000]
    source = SubsampledPair(clones.fmt_clones(n=100_000, epsilon0=3.0), 0.01, "substitute")
    print("T, upper, pair_lower, quoted (Koskela et al.), seconds")
    for rounds in rounds_list:
        start = time.perf_counter()
        out = pld.compose_views([(source, rounds)], delta=1e-5)
        lower = out.lower.value if out.lower is not None else float("nan")
        print(f"{rounds}, {out.upper.value:.5g}, {lower:.5g}, {QUOTED.get(rounds)}, "
              f"{time.perf_counter() - start:.1f}")


if __name__ == "__main__":
    main()
