"""Benchmark (issue 21, scale targets): composition at T = 1e4, 1e5, 1e6 rounds, in one run.

Each case runs in a fresh process (so that its peak RSS is its own) and prints its CPU
seconds (`time.process_time`, every thread of the process, imports excluded), its peak RSS
and its bracket:

1. Shuffle rounds: `Subsampled(LDP(n=1e5, epsilon0=3), 0.01)` (any 3-LDP randomizer,
   Poisson rate 0.01, substitute), delta = 1e-5, `Accountant.get_epsilon` with every route
   (the default call). The bracket width that the 1 % target is about is the dominating
   pair's own (upper end against `pair_lower`: how tight the numerics are); the
   mechanism's lower end (one real pair's count, binary RR) is printed beside it.
   At T = 1e4 also dp_accounting's own self-composition of our exported per-round PLD
   (`interop.to_dp_accounting_pld` of `Accountant.loss_pmfs(1e-4, connect=True)`, then its
   `self_compose` and `get_epsilon_for_delta`, in the same fresh-process set-up) and the
   ratio of the two CPU times.
2. An (epsilon, delta) mechanism, `EpsilonDelta(0.01, 1e-12)`, under KOV (`method="kov"`,
   the exact optimum: above 2,000 rounds a certified float window, an EXACT ball).

Targets (issue 21): shuffle rounds at T = 1e5 and 1e6 with brackets <= 1 % wide, peak RSS
<= 1 GiB and <= 60 s CPU each; T = 1e4 no slower than dp_accounting's self-composition.

Run: python benchmarks/bench_composition_scale.py [--quick]   (--quick: T = 1e4 only)
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import sys
import time
from typing import Any

DELTA = 1e-5
GIB = 2**30


def _measure(job: str, rounds: int, queue: Any) -> None:
    """Run one case in this (fresh) process and put its numbers on `queue`."""
    from accountant.composition import Accountant, EpsilonDelta, Subsampled
    from accountant.protocols.ldp import LDP

    mech = Subsampled(LDP(n=100_000, epsilon0=3.0), 0.01)
    out: dict[str, Any] = {}
    t0 = time.process_time()
    if job == "shuffle":
        bracket = Accountant().compose(mech, rounds).get_epsilon(DELTA)
        out["upper"] = float(bracket.upper)
        out["lower"] = float(bracket.lower) if bracket.lower is not None else None
        out["pair_lower"] = (float(bracket.pair_lower) if bracket.pair_lower is not None
                             else None)
    elif job == "pld":
        bracket = Accountant().compose(mech, rounds).get_epsilon(DELTA, method="pld")
        out["upper"] = float(bracket.upper)
    elif job == "dp_accounting":
        import dp_accounting  # noqa: F401  (its import is not part of either timing)

        from accountant.composition.interop import to_dp_accounting_pld

        t0 = time.process_time()
        exported = to_dp_accounting_pld(Accountant().compose(mech, 1).loss_pmfs(
            1e-4, connect=True))
        out["export"] = time.process_time() - t0   # our per-round PLD, exported
        t0 = time.process_time()
        out["upper"] = float(exported.self_compose(rounds).get_epsilon_for_delta(DELTA))
    else:
        bracket = Accountant().compose(EpsilonDelta(0.01, 1e-12), rounds).get_epsilon(
            DELTA, method="kov")
        out["upper"] = float(bracket.upper)
        out["lower"] = float(bracket.lower) if bracket.lower is not None else None
    out["cpu"] = time.process_time() - t0
    out["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GIB
    queue.put(out)


def run(job: str, rounds: int) -> dict[str, Any]:
    """One case in a fresh (spawned) process: its CPU seconds, peak RSS and numbers."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_measure, args=(job, rounds, queue))
    proc.start()
    out = queue.get()
    proc.join()
    return dict(out)


def width(upper: float, lower: float | None) -> float:
    """Relative width (upper - lower)/upper, inf without a lower end."""
    if lower is None or not upper > 0:
        return float("inf")
    return (upper - lower) / upper


def main() -> int:
    quick = "--quick" in sys.argv
    counts = (10_000,) if quick else (10_000, 100_000, 1_000_000)
    ok = True
    print("1. LDP(n=1e5, eps0=3) rounds, q = 0.01, substitute, delta = 1e-5, get_epsilon "
          "(all routes)")
    print(f"{'T':>9} {'CPU s':>7} {'peak GiB':>9} {'pair bracket':>24} {'width':>7} "
          f"{'mechanism lower':>16}")
    for rounds in counts:
        r = run("shuffle", rounds)
        gap = width(r["upper"], r["pair_lower"])
        pair_lower = r["pair_lower"] if r["pair_lower"] is not None else float("nan")
        lower = r["lower"] if r["lower"] is not None else float("nan")
        print(f"{rounds:>9} {r['cpu']:>7.2f} {r['rss']:>9.3f} "
              f"[{pair_lower:.5f}, {r['upper']:.5f}] {100 * gap:>6.2f}% {lower:>16.5f}")
        if rounds == 10_000:
            d = run("dp_accounting", rounds)
            p = run("pld", rounds)
            ratio = r["cpu"] / d["cpu"]
            print(f"{'':>9} dp_accounting's self-composition of our exported per-round PLD "
                  f"(1e-4 grid): {d['cpu']:.3f} s CPU (+ {d['export']:.2f} s to build and "
                  f"export the round), epsilon {d['upper']:.5f}; ours (all routes) / theirs "
                  f"{ratio:.1f}; ours, pld route only {p['cpu']:.2f} s (upper "
                  f"{p['upper']:.5f}), / theirs with the export "
                  f"{p['cpu'] / (d['cpu'] + d['export']):.2f}")
            ok &= ratio <= 1.0
        else:
            ok &= r["cpu"] <= 60 and r["rss"] <= 1.0 and gap <= 0.01
    print("2. EpsilonDelta(0.01, 1e-12) under KOV (method='kov'), delta' = 1e-5")
    print(f"{'T':>9} {'CPU s':>7} {'peak GiB':>9} {'bracket':>40} {'width':>9}")
    for rounds in counts:
        r = run("kov", rounds)
        lower = r["lower"] if r["lower"] is not None else float("nan")
        print(f"{rounds:>9} {r['cpu']:>7.3f} {r['rss']:>9.3f} "
              f"[{lower:.15g}, {r['upper']:.15g}] {width(r['upper'], r['lower']):>9.1e}")
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
