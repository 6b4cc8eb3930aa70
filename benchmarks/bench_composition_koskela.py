"""Koskela, Heikkila, Honkela's anchor (issue 11): n = 1e5 users, Poisson rate 0.01,
eps0 = 3, delta = 1e-5, substitute relation, T = 10 .. 1e4 rounds, through the certified
PLD of the subsampled FMT clones pair (docs/conversions.md#poisson-subsampling-of-a-shuffled-round),
and the numbers that explain why the quoted values cannot be eps(1e-5) of this composition
(docs/conversions.md#the-koskela-et-al-anchor).

Run: python benchmarks/bench_composition_koskela.py [--rounds 10 100 1000 10000] [--no-explain]
Prints T, the certified upper epsilon, the pair's own lower end, the quoted value, seconds;
then the checks of the explanation.
"""

from __future__ import annotations

import sys
import time

from accountant.composition import pld
from accountant.composition.accountant import Accountant, Subsampled
from accountant.composition.subsampled import SubsampledPair
from accountant.pairs import clones
from accountant.protocols.ldp import LDP

QUOTED = {10: 0.00511, 100: 0.0512, 1000: 0.512, 10000: 5.114}
N, EPS0, RATE, DELTA = 100_000, 3.0, 0.01, 1e-5


def _explain(pair: clones.ClonePair, sub: SubsampledPair, rounds_list: list[int]) -> None:
    print("\nwhy the quoted values are not eps(1e-5) of T subsampled rounds:")
    slopes = {t: v / t for t, v in QUOTED.items()}
    print(f"  quoted eps / T = {', '.join(f'{s:.4g}' for s in slopes.values())} "
          "(exactly linear: 5.11e-4 per round)")
    one = pld.compose_views([(sub, 1)], delta=DELTA, discretization=1e-6)
    print(f"  T = 1 already has eps(1e-5) in [{one.lower.value:.5g}, {one.upper.value:.5g}] "
          f"> quoted T = 10 value {QUOTED[10]} (composition never lowers eps)")
    for rel in ("add-remove",):
        ten = pld.compose_views([(SubsampledPair(pair, RATE, rel), 10)], delta=DELTA)
        print(f"  {rel}, T = 10: [{ten.lower.value:.5g}, {ten.upper.value:.5g}] > "
              f"{QUOTED[10]} too")
    unit = sub.loss_pmfs(1e-7, True, 1e-15)[0]
    lo, hi = 1e-5, 1.0
    for _ in range(60):   # per-round delta at which eps_1 = 5.114e-4
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if pld.epsilon_of(unit, mid) > 5.114e-4 else (lo, mid)
    print(f"  per-round eps_1(delta_1) = 5.114e-4 needs delta_1 = {hi:.3g}: T x eps_1 is "
          f"(T eps_1, T delta_1)-DP, e.g. delta = {10 * hi:.3g} at T = 10, not 1e-5")
    for t in rounds_list:
        if t * RATE < 1 or t > 1000:
            continue
        full = pld.compose_views([(pair, int(t * RATE))], delta=DELTA)
        print(f"  T = {t}: q T = {int(t * RATE)} unsampled rounds give "
              f"{full.upper.value:.5g} (about the subsampled value: the composed loss has "
              "about the same mean and variance)")
    for t in (10, 1000):
        report = Accountant().compose(Subsampled(LDP(n=N, epsilon0=EPS0), RATE), t).report(
            delta=DELTA, method="rdp")
        values = [float(e["result"]) for e in report.entries if "result" in e]
        print(f"  T = {t}: ZW19 on the replace-one RDP curve (heuristic, Girgis et al.'s "
              f"pipeline): {min(values):.4g}")


def main() -> None:
    """Print one line per number of rounds, then the explanation."""
    given = [a for a in sys.argv[1:] if a not in ("--rounds", "--no-explain")]
    rounds_list = [int(a) for a in given] or [10, 100, 1000, 10000]
    pair = clones.fmt_clones(n=N, epsilon0=EPS0)
    source = SubsampledPair(pair, RATE, "substitute")
    print("T, upper, pair_lower, quoted (Koskela et al.), seconds")
    for rounds in rounds_list:
        start = time.perf_counter()
        out = pld.compose_views([(source, rounds)], delta=DELTA)
        lower = out.lower.value if out.lower is not None else float("nan")
        print(f"{rounds}, {out.upper.value:.5g}, {lower:.5g}, {QUOTED.get(rounds)}, "
              f"{time.perf_counter() - start:.1f}")
    if "--no-explain" not in sys.argv:
        _explain(pair, source, rounds_list)


if __name__ == "__main__":
    main()
