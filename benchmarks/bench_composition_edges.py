"""Benchmark (issue 21, edges): small noise with large sampling rates, in one run.

Sweeps Poisson-subsampled Gaussian rounds, sigma in {0.3, 0.5, 1, 2}, q in {0.001, 0.01,
0.1, 0.5, 1}, T in {1, 10, 1e2, 1e3, 1e4}, both relations (add/remove, substitute), and
reads `Accountant.report(delta=1e-5)` (every route, the default call) at each point. Each
point runs in a fresh process (a slow point cannot slow the next one) under a wall-clock
limit, and prints its wall seconds and the bracket's relative width (upper - lower)/upper.
The worst points (slowest, widest) are listed at the end.

Target (issue 21): no single composed number takes more than 10 s for T <= 1e4 at any noise
multiplier >= 0.3.

    python benchmarks/bench_composition_edges.py            # the full sweep (200 points)
    python benchmarks/bench_composition_edges.py --quick    # T = 1e4 only (40 points)
    python benchmarks/bench_composition_edges.py --peer     # dp_accounting's PLDAccountant
                                                            # beside each point (value, s)
Options: --epsilon E reads delta(E) instead; --delta D reads epsilon at D (default 1e-5;
issue 20's case was delta = 1e-10: sigma = 1, q = 0.01, T = 1e4 took minutes); --limit S
(default 120) per point.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

SIGMAS = (0.3, 0.5, 1.0, 2.0)
RATES = (0.001, 0.01, 0.1, 0.5, 1.0)
ROUNDS = (1, 10, 100, 1000, 10_000)
RELATIONS = ("add-remove", "substitute")
DELTA = 1e-5
TARGET = 10.0

_POINT = r"""
import json, sys, time
from accountant.composition import Accountant, GaussianNoise, Subsampled
sigma, q, rounds, relation, delta, epsilon = json.loads(sys.argv[1])
event = GaussianNoise(sigma) if q == 1 else Subsampled(GaussianNoise(sigma), q)
acc = Accountant(relation).compose(event, rounds)
t0 = time.perf_counter()
at = {"delta": delta} if epsilon is None else {"epsilon": epsilon}
b = acc.report(**at).bracket
out = {"s": time.perf_counter() - t0, "upper": float(b.upper),
       "lower": None if b.lower is None else float(b.lower), "route": b.upper.method[:40]}
print(json.dumps(out))
"""

_PEER = r"""
import json, sys, time
import dp_accounting as dpa
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
sigma, q, rounds, relation, delta, epsilon = json.loads(sys.argv[1])
rel = (dpa.NeighboringRelation.ADD_OR_REMOVE_ONE if relation == "add-remove"
       else dpa.NeighboringRelation.REPLACE_ONE)
event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)),
                                rounds)
t0 = time.perf_counter()
acc = PLDAccountant(rel).compose(event)
v = acc.get_epsilon(delta) if epsilon is None else acc.get_delta(epsilon)
print(json.dumps({"s": time.perf_counter() - t0, "value": float(v)}))
"""


def run(script: str, point: tuple[float, float, int, str, float, float | None],
        limit: float) -> dict[str, object]:
    """One point in a fresh interpreter, killed after `limit` wall seconds."""
    try:
        done = subprocess.run([sys.executable, "-c", script, json.dumps(point)],
                              capture_output=True, text=True, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        return {"s": math.inf, "error": f"killed after {limit:g} s"}
    if done.returncode != 0:
        return {"s": math.nan, "error": done.stderr.strip().splitlines()[-1][:80]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def width(r: dict[str, object]) -> float:
    """Relative bracket width (upper - lower)/upper; inf without a lower end."""
    up, low = r.get("upper"), r.get("lower")
    if not isinstance(up, float) or not isinstance(low, float) or not up > 0:
        return 0.0 if up == 0 and low == 0 else math.inf
    return (up - low) / up


def main() -> int:
    args = sys.argv[1:]
    epsilon = float(args[args.index("--epsilon") + 1]) if "--epsilon" in args else None
    limit = float(args[args.index("--limit") + 1]) if "--limit" in args else 120.0
    delta = float(args[args.index("--delta") + 1]) if "--delta" in args else DELTA
    rounds = (10_000,) if "--quick" in args else ROUNDS
    peer = "--peer" in args
    rows = []
    at = f"delta={delta:g}" if epsilon is None else f"epsilon={epsilon:g}"
    print(f"Gaussian rounds, report({at}), wall s per point (fresh process)")
    print(f"{'relation':>10} {'sigma':>5} {'q':>6} {'T':>6} {'s':>7} {'lower':>12} "
          f"{'upper':>12} {'width':>9}  route" + ("   dp_acc value / s" if peer else ""))
    for relation, sigma, q, t in itertools.product(RELATIONS, SIGMAS, RATES, rounds):
        point = (sigma, q, t, relation, delta, epsilon)
        r = run(_POINT, point, limit)
        w = width(r)
        line = f"{relation:>10} {sigma:>5} {q:>6} {t:>6} {r['s']:>7.2f} "
        if "error" in r:
            line += f" {r['error']}"
        else:
            low = r["lower"] if r["lower"] is not None else math.nan
            line += f"{low:>12.6g} {r['upper']:>12.6g} {w:>9.2e}  {r['route']}"
        if peer:
            p = run(_PEER, point, limit)
            line += (f"   {p['error']}" if "error" in p else
                     f"   {p['value']:.6g} / {p['s']:.2f}")
        print(line, flush=True)
        rows.append((point, r, w))
    print("\nslowest points:")
    for point, r, w in sorted(rows, key=lambda x: -float(x[1]["s"]))[:8]:
        print(f"   {point[3]:>10} sigma={point[0]} q={point[1]} T={point[2]}: "
              f"{r['s']:.2f} s, width {w:.2e}")
    print("widest brackets:")
    for point, r, w in sorted(rows, key=lambda x: -x[2])[:8]:
        print(f"   {point[3]:>10} sigma={point[0]} q={point[1]} T={point[2]}: "
              f"width {w:.2e} ({r.get('lower')}, {r.get('upper')}), {r['s']:.2f} s")
    slow = [x for x in rows if not float(x[1]["s"]) <= TARGET]
    print(f"{len(slow)} of {len(rows)} points over {TARGET:g} s" if slow else
          f"every point within {TARGET:g} s")
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
