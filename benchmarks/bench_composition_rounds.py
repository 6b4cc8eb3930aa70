"""Benchmark (issue 21, "nor for any shuffle round in the CLI's domain"): composed shuffle rounds.

Draws points from the CLI's domain for every protocol family that `compose --mechanism`
takes (n from 2 to 1e10, epsilon0 from 0.05 to 10, Poisson rate none / 0.01 / 0.5, both
relations, T in {1, 100, 1e4}, corners first, unsampled GKM and Gaussian-randomizer rounds
from 2 to 1e10 users, then seeded random draws), and runs
`shuffle-accountant compose ... --at-delta 1e-5` for each in a fresh process under a
wall-clock limit (the whole process: what a user waits for). Prints each point's wall seconds,
exit status and answer, then the slowest points. A point that exits 2 with one line (a
declared limit, refused by name) is counted apart from the timed answers.

Target (issue 21): no composed number of a shuffle round takes more than 10 s (T <= 1e4).

    python benchmarks/bench_composition_rounds.py             # corners + 6 draws a family
    python benchmarks/bench_composition_rounds.py --draws 20  # more random draws
    python benchmarks/bench_composition_rounds.py --family ldp --limit 60
"""

from __future__ import annotations

import math
import random
import shlex
import subprocess
import sys
import time
from collections.abc import Callable

TARGET = 10.0
DELTA = 1e-5
NS = (2, 1000, 10**6, 10**8, 10**10)
EPS0 = (0.05, 1.0, 3.0, 10.0)
RATES = (None, 0.01, 0.5)
ROUNDS = (1, 100, 10_000)
RELATIONS = ("substitute", "add-remove")

def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return float(math.exp(rng.uniform(math.log(low), math.log(high))))


# family -> its flags beyond --n, from (rng, epsilon0); each keeps to the family's domain
FLAGS: dict[str, Callable[[random.Random, float], str]] = {
    "binary-rr": lambda r, e: f"--epsilon0 {e:g}",
    "ldp": lambda r, e: f"--epsilon0 {e:g}",
    "k-rr": lambda r, e: f"--epsilon0 {e:g} --k {r.choice((2, 3, 10, 1000))}",
    "approximate-ldp": lambda r, e: (f"--epsilon0 {e:g} "
                                     f"--delta0 {r.choice((1e-12, 1e-6, 0.01)):g}"),
    "bc-zsum": lambda r, e: f"--epsilon {min(e, 1.0):g} --delta {r.choice((1e-10, 1e-6)):g}",
    "bc-hist": lambda r, e: (f"--epsilon {min(e, 1.0):g} --delta {r.choice((1e-10, 1e-6)):g} "
                             f"--d {r.choice((2, 10, 1000))}"),
    "gkm-count": lambda r, e: (f"--epsilon {min(e, 2.0):g} --epsilon-prime "
                               f"{min(e, 2.0) / 2:g} --q 0.2"),
    "gkmp20-count": lambda r, e: (f"--epsilon-prime {min(e, 1.0):g} "
                                  f"--lam {r.choice((1.0, 10.0, 100.0)):g}"),
    "ggkpv-hadamard": lambda r, e: f"--B {r.choice((2, 16, 1024))} --rho {r.choice((1, 4, 32))}",
    "ggkpv-countmin": lambda r, e: (f"--B {r.choice((2, 1024))} --w {r.choice((2, 64))} "
                                    f"--d {r.choice((1, 4))} --rho {r.choice((1, 8))}"),
    "gaussian-randomizer": lambda r, e: f"--sigma {1 / e:g}",
    "laplace-randomizer": lambda r, e: f"--scale {1 / e:g}",
    "discrete-gaussian-randomizer": lambda r, e: f"--sigma {1 / e:g}",
    "discrete-laplace-randomizer": lambda r, e: f"--scale {1 / e:g}",
}
FAMILIES = tuple(FLAGS)
# unsampled rounds of the protocols whose worst case is a maximum over the others' counts
# (tens to hundreds of users took 10-60 s before the one-user dominating pair),
# and of the Gaussian randomizers (no pair: the local curve and KOV over each round's class)
UNSAMPLED_NS = {"gkm-count": (10, 38, 100, 300, 1000), "gkmp20-count": (38, 362, 3000),
                "gaussian-randomizer": (2, 1000, 10**6, 10**10),
                "discrete-gaussian-randomizer": (2, 1000, 10**6, 10**10)}


def _mechanism(family: str, rng: random.Random, n: int, epsilon0: float) -> str:
    return f"{family} --n {max(n, 2)} {FLAGS[family](rng, epsilon0)}"


def points(family: str, draws: int, seed: int) -> list[tuple[str, int, float | None, str]]:
    """(mechanism, rounds, rate, relation): the corners n x epsilon0 at T = 1e4, q = 0.01,
    substitute, then `draws` seeded draws over every axis."""
    rng = random.Random(f"{seed}-{family}")
    out = [(_mechanism(family, rng, n, e), 10_000, 0.01, "substitute")
           for n in NS for e in (EPS0[0], EPS0[-1])]
    if family in UNSAMPLED_NS:  # where the worst case over counts costs most: no sampling
        out += [(_mechanism(family, rng, n, 1.0), 10_000, None, "substitute")
                for n in UNSAMPLED_NS[family]]
    for _ in range(draws):
        n = round(_log_uniform(rng, 2, 1e10))
        e = _log_uniform(rng, EPS0[0], EPS0[-1])
        out.append((_mechanism(family, rng, n, e), rng.choice(ROUNDS), rng.choice(RATES),
                    rng.choice(RELATIONS)))
    return out


def command(mech: str, rounds: int, rate: float | None, relation: str) -> list[str]:
    argv = ["shuffle-accountant", "compose", "--mechanism", mech, "--rounds", str(rounds),
            "--relation", relation, "--at-delta", f"{DELTA:g}"]
    return argv + (["--sampling-rate", f"{rate:g}"] if rate is not None else [])


def run(argv: list[str], limit: float) -> tuple[float, str, str]:
    """(wall seconds, status, the answer's last line or the error's)."""
    t0 = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        return math.inf, "killed", f"after {limit:g} s"
    wall = time.perf_counter() - t0
    text = (done.stdout if done.returncode == 0 else done.stderr).strip().splitlines()
    line = next((x for x in text if x.strip().startswith("epsilon ")), text[-1] if text else "")
    return wall, f"exit {done.returncode}", line[:110]


def main() -> int:
    args = sys.argv[1:]

    def opt(name: str, default: str) -> str:
        return args[args.index(name) + 1] if name in args else default

    draws, seed, limit = int(opt("--draws", "6")), int(opt("--seed", "0")), float(
        opt("--limit", "60"))
    families = [opt("--family", "")] if "--family" in args else list(FAMILIES)
    rows = []
    for family in families:
        for mech, rounds, rate, relation in points(family, draws, seed):
            argv = command(mech, rounds, rate, relation)
            wall, status, line = run(argv, limit)
            rows.append((wall, status, shlex.join(argv[2:])))
            print(f"{wall:7.2f} s  {status:>7}  {shlex.join(argv[2:])}\n           {line}",
                  flush=True)
    answered = [r for r in rows if r[1] == "exit 0" or r[1] == "killed"]
    refused = [r for r in rows if r[1] == "exit 2"]
    other = [r for r in rows if r[1] not in ("exit 0", "exit 2", "killed")]
    print(f"\n{len(rows)} points: {len(answered)} answered or killed, {len(refused)} refused "
          f"by name (exit 2), {len(other)} other exits")
    print("slowest points:")
    for wall, status, text in sorted(rows, key=lambda x: -x[0])[:10]:
        print(f"   {wall:7.2f} s  {status}  {text}")
    slow = [r for r in answered if not r[0] <= TARGET]
    print(f"{len(slow)} answered points over {TARGET:g} s" if slow else
          f"every answered point within {TARGET:g} s")
    return 1 if slow or other else 0


if __name__ == "__main__":
    raise SystemExit(main())
