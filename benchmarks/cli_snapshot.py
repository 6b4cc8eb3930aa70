"""Record or compare the command line's JSON output for a fixed list of commands.

Used around refactors that must not change numbers: run `record` before, `compare` after.
`compare` sorts each command into byte-identical, identical as a JSON object (key order
aside), identical once the free-text "method"/"source"/"claim" strings (which name modules
and documentation sections) are masked, or different; it exits 1 if any is different.

    python benchmarks/cli_snapshot.py record snapshot.json
    python benchmarks/cli_snapshot.py compare snapshot.json

The list holds README's command-line examples (with --json) and at least one call of every
subcommand and protocol. Commands run as separate processes, two at a time.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

COMMANDS = [
    # README's examples
    "dp binary-rr --n 1000000 --epsilon0 1 --at-delta 1e-6",
    "rdp ldp --n 10000 --epsilon0 1 --orders 2,8,32,inf",
    "pure gkm-count --n 10 --epsilon 1 --epsilon-prime 0.5 --q 0.1 --s 8 --lam 60",
    "bound girgis-thm1 --n 10000 --epsilon0 1 --orders 2,8,32",
    "audit bc-zsum",
    "calibrate bc-zsum --n 100000 --target-epsilon 1 --target-delta 1e-6",
    "compose --mechanism 'ldp --n 10000 --epsilon0 1' --rounds 1000 --at-delta 1e-6",
    "simulate bc-zsum --n 10000 --epsilon 1 --delta 1e-6 --trials 1000 --seed 1",
    # one or more calls of every subcommand and protocol
    "dp binary-rr --n 1000 --epsilon0 1 --at-epsilon 0.5",
    "dp binary-rr --n 2000 --epsilon0 2 --ones 3 --at-delta 1e-6",
    "dp k-rr --n 10000 --epsilon0 1 --k 10 --at-delta 1e-6",
    "dp ldp --n 1000000 --epsilon0 4 --at-delta 1e-6",
    "dp bc-zsum --n 100000 --epsilon 1 --delta 1e-6 --at-delta 1e-6",
    "dp bc-hist --n 100000 --epsilon 1 --delta 1e-6 --d 10 --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --epsilon-prime 0.5 --q 0.1 --s 8 --lam 60"
    " --at-delta 1e-6",
    "rdp binary-rr --n 10000 --epsilon0 1 --orders 2,8,32,inf",
    "rdp k-rr --n 10000 --epsilon0 1 --k 4 --orders 2,8",
    "pure gkmp20-count --n 10 --epsilon-prime 0.5 --lam 20",
    "pure binary-rr --n 100 --epsilon0 1",
    "audit bc-hist",
    "audit gkm-count --n 10 --epsilon 1 --epsilon-prime 0.5 --q 0.1 --s 8 --lam 60",
    "calibrate bc-hist --n 100000 --d 10 --target-epsilon 1 --target-delta 1e-6",
    "bound girgis-thm2 --n 10000 --epsilon0 1 --orders 2,8.5,32",
    "bound fmt --n 100000 --epsilon0 1 --at-delta 1e-6",
    "bound bc20-zsum --n 100000 --epsilon 1 --delta 1e-6",
    "bound girgis-refined --n 1000 --epsilon0 1 --orders 2,8",
    "bound bbgn --n 100000 --epsilon0 1 --k 4 --at-delta 1e-6",
    "compose --mechanism 'binary-rr --n 10000 --epsilon0 1' --rounds 10 --at-delta 1e-6",
    "compose --mechanism 'eps-delta --epsilon 0.1 --delta 1e-7' --rounds 100 --at-delta 1e-5",
    "compose --mechanism 'ldp --n 100000 --epsilon0 1' --rounds 100 --sampling-rate 0.01"
    " --at-delta 1e-6",
    "compose --mechanism 'k-rr --n 10000 --epsilon0 1 --k 3' --rounds 10 --at-delta 1e-6"
    " --method all",
    "simulate gkm-count --n 10 --epsilon 1 --epsilon-prime 0.5 --q 0.1 --s 8 --lam 60"
    " --trials 200 --seed 2",
    "simulate bc-hist --n 1000 --epsilon 1 --delta 1e-3 --d 4 --trials 200 --seed 3",
]


def run(command: str) -> dict:
    argv = ["shuffle-accountant", *shlex.split(command), "--json"]
    proc = subprocess.run(argv, capture_output=True, text=True)
    return {"command": command, "returncode": proc.returncode, "stdout": proc.stdout,
            "stderr_first_line": (proc.stderr.splitlines() or [""])[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["record", "compare"])
    parser.add_argument("path")
    args = parser.parse_args()
    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = list(pool.map(run, COMMANDS))
    if args.mode == "record":
        with open(args.path, "w") as fh:
            json.dump(outputs, fh, indent=1)
        failed = [o["command"] for o in outputs if o["returncode"] != 0]
        print(f"recorded {len(outputs)} commands; non-zero exit: {failed or 'none'}")
        return 0
    with open(args.path) as fh:
        before = {o["command"]: o for o in json.load(fh)}
    counts = {"bytes": 0, "json": 0, "masked": 0, "different": 0}
    for now in outputs:
        old = before.get(now["command"])
        if old is None:
            print(f"NEW   {now['command']}")
            continue
        level = _compare(old, now)
        counts[level] += 1
        if level != "bytes":
            print(f"{level.upper():<9} {now['command']}")
        if level == "different":
            print(f"  before: {old['stdout'][:300]!r}\n  after:  {now['stdout'][:300]!r}"
                  f"\n  stderr: {now['stderr_first_line']}")
    print(f"{len(outputs)} commands: {counts['bytes']} byte-identical, {counts['json']} the "
          f"same JSON in another key order, {counts['masked']} the same once method/source "
          f"text is masked, {counts['different']} different")
    return 1 if counts["different"] else 0


_TEXT_KEYS = ("method", "source", "claim", "name")
_NEW_KEYS = ("version",)  # keys added on purpose (the library version, 0.2.0)


def _masked(x: object) -> object:
    if isinstance(x, dict):
        return {k: ("<text>" if k in _TEXT_KEYS and isinstance(v, str) else _masked(v))
                for k, v in x.items() if k not in _NEW_KEYS}
    if isinstance(x, list):
        return [_masked(v) for v in x]
    return x


def _compare(old: dict, now: dict) -> str:
    if old["returncode"] != now["returncode"]:
        return "different"
    if old["stdout"] == now["stdout"]:
        return "bytes"
    try:
        a, b = json.loads(old["stdout"]), json.loads(now["stdout"])
    except json.JSONDecodeError:
        return "different"
    if a == b:
        return "json"
    return "masked" if _masked(a) == _masked(b) else "different"


if __name__ == "__main__":
    sys.exit(main())
