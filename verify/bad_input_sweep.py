"""Bad-input sweep of the command line: every subcommand's every flag, fed bad and extreme
values, plus contradictory flag sets and degenerate matrix files.

    python -m verify.bad_input_sweep [--jobs 2] [--timeout 30] [--exec] [--only WORDS]
        [--show KIND] [--json]

Each case runs in its own process with a timeout: by default a child forked from this
process (the CLI already imported, so a case costs its own computation only); with
--exec, a fresh `python -m accountant.cli` (slower; what a user runs). A case is

- `exit2-one-line`: exit status 2, one stderr line naming the flag (the contract);
- `exit2-unnamed`: exit status 2, one line that does not name the flag under test;
- `exit2-multi-line`: exit status 2, several stderr lines;
- `exit0-clean`: exit status 0, no NaN in stdout, nothing but progress on stderr, for a
  value that may be valid (0, 1e-300, 1e300, inf for some flags);
- `exit0-nonsense`: exit status 0 on a value no flag accepts (text, empty, NaN, -inf, a
  non-integer count) or on a contradictory flag set;
- `exit0-loose`: exit status 0 with the library's own "valid but loose" warning
  (`LooseBoundWarning`, one line from the console script) and nothing else on stderr;
- `nan-output`, `warning`: exit 0 with NaN in stdout / any other warning on stderr;
- `traceback`, `hang` (over --timeout seconds), `other-exit` (any other status).

Prints the counts (and, with --show KIND, the cases of that kind). Exit status 0 when
every case is exit2-one-line, exit0-clean or exit0-loose, 1 otherwise.
"""

from __future__ import annotations

import getopt
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Case", "Outcome", "cases", "classify", "run_cases", "main", "CONTRADICTORY",
           "NONSENSE", "NONSENSE_MATRICES", "matrix_files"]

# A valid protocol argv per protocol (alternatives: each flag is tested inside the first
# alternative that holds it, so that only the flag under test is bad).
PROTOCOL_BASES: dict[str, list[str]] = {
    "bc-zsum": ["--n 10000 --epsilon 1 --delta 1e-6", "--n 10000 --p 0.9"],
    "bc-hist": ["--n 10000 --epsilon 1 --delta 1e-6 --d 3", "--n 10000 --p 0.9 --d 3"],
    "binary-rr": ["--n 100 --epsilon0 1 --ones 1"],
    "k-rr": ["--n 100 --epsilon0 1 --k 3"],
    "ldp": ["--n 100 --epsilon0 1"],
    "gkm-count": ["--n 10 --epsilon 1 --epsilon-prime 0.5 --q 0.1 --s 8 --lam 60 --ones 1",
                  "--n 10 --epsilon 1 --rho 0.5"],
    "gkmp20-count": ["--n 10 --epsilon-prime 0.5 --lam 60 --ones 1"],
    "ggkpv-hadamard": ["--n 100 --B 7 --rho 2 --tau 7", "--n 100 --B 7 --epsilon 1 --delta 1e-6"],
    "ggkpv-countmin": ["--n 100 --B 7 --w 4 --d 2 --rho 2"],
    "randomizer": ["--matrix {good} --n 100"],
    "approximate-ldp": ["--n 100 --epsilon0 1 --delta0 1e-6"],
    "heterogeneous": ["--groups {tmp}/groups.json", "--groups {tmp}/groups.json --colluders 1"],
    "gaussian-randomizer": ["--n 100 --sigma 1"],
    "laplace-randomizer": ["--n 100 --scale 1"],
    "discrete-gaussian-randomizer": ["--n 100 --sigma 1"],
    "discrete-laplace-randomizer": ["--n 100 --scale 1"],
}
CALIBRATE_BASES = {
    "bc-zsum": ["--n 10000"], "bc-hist": ["--n 10000 --d 3"],
    "ggkpv-hadamard": ["--n 100 --B 7 --tau 7"], "ggkpv-countmin": ["--n 100 --B 7 --w 4 --d 2"],
    "compose": ["--mechanism 'gaussian --noise-multiplier ?' --rounds 10 --sampling-rate 0.1",
                "--mechanism 'gaussian --noise-multiplier 20' --rounds ? --search 1,100"],
}
AUDIT_BASES = {"bc-zsum": ["--n 10000 --epsilon 1 --delta 1e-6"],
               "bc-hist": ["--n 10000 --epsilon 1 --delta 1e-6 --d 3"]}
COMMAND_EXTRA = {
    "dp": ["--at-delta 1e-6", "--at-epsilon 0.5"], "rdp": ["--orders 2,4"], "pure": [""],
    "audit": [""], "calibrate": ["--target-epsilon 1 --target-delta 1e-6"],
    "simulate": ["--trials 10 --seed 1"],
}
OTHER_BASES = {
    ("compose",): ["--mechanism 'binary-rr --n 100 --epsilon0 1' --rounds 10 --at-delta 1e-6"
                   " --sampling-rate 0.1 --discretization 0.01",
                   "--mechanism 'binary-rr --n 100 --epsilon0 1' --rounds 10 --at-epsilon 1"],
    ("reproduce",): ["--list --out {tmp}/reproduce --only girgis-fig2"],
    ("selfcheck",): ["--seconds 0.5 --seed 1"],
    ("sweep",): ["dp ldp --epsilon0 1 --grid n=100,200 --at-delta 1e-6 --out {tmp}/sweep.csv"
                 " --workers 1 --no-progress"],
}
BOUND_BASES = {
    "bc20-zsum": ["--n 10000 --epsilon 1 --delta 1e-6 --beta 0.01"],
    "bc20-smoothness": ["--n 1000 --gamma 0.3 --a 0.5 --k 1"],
    "fmt": ["--n 10000 --epsilon0 1 --at-delta 1e-6"],
    "bbgn": ["--n 10000 --epsilon0 1 --at-delta 1e-6 --k 3"],
}
RDP_BOUND_BASE = ["--n 10000 --epsilon0 1 --orders 2,4"]

# Values fed to every numeric flag. NONSENSE: no flag may accept them (exit 0 is a failure).
NUMERIC = ["abc", "", "-1", "0", "1e-300", "1e300", "inf", "-inf", "nan", "[1]"]
INTEGER_EXTRA = ["2.5"]
NONSENSE = {"abc", "", "nan", "-inf", "[1]", "2.5"}
ORDERS = ["2,,4", "2,abc", "0.5", "1", "1e-300", "-1", "nan", "", "1e300", "inf", "2,nan"]
STRINGS: dict[str, list[str]] = {
    "--mechanism": ["", "abc", "binary-rr --n 0 --epsilon0 1", "binary-rr --n 100",
                    "eps-delta --epsilon nan --delta 0.1", "eps-delta --epsilon 1 --delta 1",
                    "eps-delta --epsilon inf --delta 1e-300", "gaussian --noise-multiplier 0",
                    "gaussian --noise-multiplier 1e-300", "gaussian --noise-multiplier nan",
                    "laplace --noise-multiplier -1", "laplace --noise-multiplier 1e300",
                    "girgis-thm1 --n 0 --epsilon0 1", "girgis-thm1 --n 100 --epsilon0 nan",
                    "girgis-thm1 --n 100 --epsilon0 1e300", "rdp-curve:/nonexistent.json",
                    "ldp --n 100 --epsilon0 1e-300", "k-rr --n 100 --epsilon0 1 --k 1e300"],
    "--out": ["", "{good}/x.csv", "{tmp}"],
    "--matrix": [],
    "--only": ["", "abc"],
    "--grid": ["", "abc", "n=", "n=abc", "n=1:2:log:0", "n=0:10:log:3", "epsilon0=nan",
               "n=1e300"],
    "--rows": ["", "/nonexistent.csv"],
    # a matrix file is no groups file; the degenerate groups files are written beside it
    "--groups": ["", "/nonexistent.json", "{good}", *(f"{{tmp}}/groups-{label}.json"
                                                      for label in ("empty", "zero-count",
                                                                    "negative-count",
                                                                    "bad-randomizer",
                                                                    "bad-rows", "nan"))],
    "--scheduler": ["abc"],
}


# string values some reading accepts (a valid spec with extreme numbers): exit 0 allowed
MAYBE_VALID = {"laplace --noise-multiplier 1e300", "ldp --n 100 --epsilon0 1e-300",
               "eps-delta --epsilon inf --delta 1e-300"}


def matrix_files(tmp: Path) -> dict[str, str]:
    """Write the sweep's matrix files under `tmp`: one good, the rest degenerate.

    Args:
        tmp: a scratch directory.

    Returns:
        {label: path}; `NONSENSE_MATRICES` lists the labels that are no randomizer at all.
    """
    rows: dict[str, object] = {
        "good": [[0.55, 0.15, 0.15, 0.15], [0.15, 0.55, 0.15, 0.15]],
        "tiny-entry": [[1 - 1e-300, 1e-300], [0.5, 0.5]],
        "tiny-entries": [[1e-300, 1 - 1e-300], [1 - 1e-300, 1e-300]],
        "subnormal": [[5e-324, 1.0], [0.5, 0.5]],
        "tiny-and-half": [[1e-300, 1.0], [1.0, 1e-300]],
        "zero-rows": [],
        "empty-row": [[], []],
        "one-by-one": [[1.0]],
        "one-row": [[0.5, 0.5]],
        "one-column": [[1.0], [1.0]],
        "not-stochastic": [[0.5, 0.6], [0.5, 0.5]],
        "sums-below-one": [[0.4, 0.4], [0.5, 0.5]],
        "negative": [[1.5, -0.5], [0.5, 0.5]],
        "nan": [[float("nan"), 1.0], [0.5, 0.5]],
        "inf": [[float("inf"), 0.0], [0.5, 0.5]],
        "ragged": [[0.5, 0.5], [1.0]],
        "strings": [["a", "b"], [0.5, 0.5]],
        "identity": [[1.0, 0.0], [0.0, 1.0]],
        "disjoint-support": [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]],
        "all-equal": [[0.5, 0.5], [0.5, 0.5]],
        "huge-ratio": [[1e-200, 1 - 1e-200], [1 - 1e-200, 1e-200]],
        "not-a-list": {"rows": 3},
        "no-rows-key": {"name": "x"},
        "number": 1.5,
    }
    out = {}
    for name, data in rows.items():
        path = tmp / f"{name}.json"
        # json.dumps writes NaN/Infinity for float nan/inf (what a careless tool produces)
        path.write_text(json.dumps(data))
        out[name] = str(path)
    # the heterogeneous family's groups files (read by --groups, not --matrix)
    rr = [[0.75, 0.25], [0.25, 0.75]]
    groups: dict[str, object] = {
        "groups": [{"count": 50, "rows": rr},
                   {"count": 50, "randomizer": "k-rr", "epsilon0": 2.0, "k": 2}],
        "groups-empty": [],
        "groups-zero-count": [{"count": 0, "rows": rr}],
        "groups-negative-count": [{"count": -3, "rows": rr}],
        "groups-bad-randomizer": [{"count": 10, "randomizer": "abc", "epsilon0": 1.0}],
        "groups-bad-rows": [{"count": 10, "rows": [[0.5, 0.6], [0.5, 0.5]]}],
        "groups-nan": [{"count": 10, "randomizer": "k-rr", "epsilon0": float("nan"),
                        "k": 2}],
    }
    for name, data in groups.items():
        (tmp / f"{name}.json").write_text(json.dumps(data))
    (tmp / "garbage.csv").write_text("0.5, x\n0.5 0.5\n")
    out["garbage-csv"] = str(tmp / "garbage.csv")
    (tmp / "empty.csv").write_text("")
    out["empty-csv"] = str(tmp / "empty.csv")
    (tmp / "bad.json").write_text("[[0.5, 0.5],")
    out["bad-json"] = str(tmp / "bad.json")
    out["missing"] = str(tmp / "missing.json")
    out["directory"] = str(tmp)
    return out


# Contradictory or incomplete flag sets: each must exit 2 with one line (words after the
# command; {good} is a valid matrix file).
CONTRADICTORY: list[str] = [
    "dp bc-zsum --n 10000 --epsilon 1 --delta 1e-6 --p 0.9 --at-delta 1e-6",
    "dp bc-zsum --n 10000 --epsilon 1 --at-delta 1e-6",
    "dp bc-zsum --epsilon 1 --delta 1e-6 --at-delta 1e-6",
    "dp bc-hist --n 10000 --p 0.9 --at-delta 1e-6",
    "dp bc-zsum --n 10000 --p 0.9 --at-delta 1e-6 --at-epsilon 1",
    "dp gkm-count --n 10 --epsilon 1 --rho 0.5 --epsilon-prime 0.5 --q 0.1 --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --epsilon-prime 0.5 --q 0.1 --corrected-q --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --rho 0.5 --no-check --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 0.5 --epsilon-prime 1 --q 0.1 --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --epsilon-prime 0.5 --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --q 0.1 --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --rho 0.5 --s 8 --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --rho 0.5 --ones 10 --at-delta 1e-6",
    "dp gkmp20-count --n 10 --epsilon-prime 0.5 --lam 60 --ones 10 --at-delta 1e-6",
    "dp binary-rr --n 100 --epsilon0 1 --ones 100 --at-delta 1e-6",
    "dp ggkpv-hadamard --n 100 --B 7 --rho 2 --epsilon 1 --delta 1e-6 --at-delta 1e-6",
    "dp ggkpv-hadamard --n 100 --B 7 --epsilon 1 --at-delta 1e-6",
    "dp ggkpv-hadamard --n 100 --B 7 --at-delta 1e-6",
    "dp ggkpv-hadamard --B 7 --rho 2 --at-delta 1e-6",
    "dp ggkpv-countmin --n 100 --B 7 --w 4 --at-delta 1e-6",
    "dp bc-hist --n 10000 --p 0.9 --d 3 --backend mp --at-delta 1e-6",
    "dp gkm-count --n 10 --epsilon 1 --rho 0.5 --backend mp --at-delta 1e-6",
    "dp ldp --n 100 --epsilon0 1",
    "dp ldp --n 100 --epsilon0 1 --backend mp --at-delta 1e-6",
    "dp randomizer --matrix {good} --n 100 --backend mp --at-epsilon 1",
    "dp ggkpv-countmin --n 100 --B 7 --w 4 --d 2 --rho 2 --backend mp --at-delta 1e-6",
    "calibrate ggkpv-hadamard --n 100 --B 7 --rho 2 --target-epsilon 1 --target-delta 1e-6",
    "calibrate ggkpv-countmin --n 100 --B 7 --w 4 --d 2 --rho 2 --target-epsilon 1 "
    "--target-delta 1e-6",
    "calibrate bc-zsum --n 10000 --p 0.9 --target-epsilon 1 --target-delta 1e-6",
    "calibrate bc-zsum --n 10000 --epsilon 1 --delta 1e-6 --target-epsilon 1 "
    "--target-delta 1e-6",
    "calibrate bc-hist --n 10000 --target-epsilon 1 --target-delta 1e-6",
    "calibrate ggkpv-hadamard --n 100 --B 7 --epsilon 1 --delta 1e-6 --target-epsilon 1 "
    "--target-delta 1e-6",
    "audit bc-zsum --n 10000 --p 0.9",
    "audit bc-zsum --n 10000 --epsilon 1",
    "audit bc-zsum --n 10000 --epsilon 1 --delta 1e-6 --table --p 0.9",
    "audit bc-hist --n 10000 --epsilon 1 --delta 1e-6 --p 0.9",
    "audit bc-zsum --epsilon 1 --delta 1e-6",
    "simulate bc-zsum --n 10000 --p 0.9 --ones 10001 --trials 10 --seed 1",
    "simulate gkm-count --n 10 --epsilon 1 --rho 0.5 --ones 11 --trials 10 --seed 1",
    "rdp ldp --n 100 --epsilon0 1 --orders 2,,4",
    "rdp bc-zsum --n 10000 --p 0.9 --epsilon 1 --orders 2",
    "compose --mechanism 'ldp --n 100 --epsilon0 1' --rounds 10 --rounds 20 --rounds 30 "
    "--at-delta 1e-6",
    "compose --mechanism 'ldp --n 100 --epsilon0 1' --mechanism 'ldp --n 100 --epsilon0 1' "
    "--rounds 10 --rounds 20 --rounds 30 --at-delta 1e-6",
    "compose --mechanism 'binary-rr --n 100 --epsilon0 1 --ones 3' --rounds 10 --at-delta 1e-6"
    " --sampling-rate 0.1 --relation add-remove",
    "compose --mechanism 'ldp --n 100 --epsilon0 1' --rounds 10 --method analytic "
    "--at-delta 1e-6",
    "compose --mechanism 'gaussian --noise-multiplier 1' --rounds 10 --discretization 0.01 "
    "--method rdp --at-delta 1e-6",
    "compose --mechanism 'ldp --n 100 --epsilon0 1 --at-delta 1e-6' --rounds 10 "
    "--at-delta 1e-6",
    "bound girgis-cor1 --n 10 --epsilon0 5 --orders 2",
    "sweep dp ldp --grid n=100 --at-delta 1e-6",
    "sweep dp ldp --grid n=100 --grid n=200 --at-delta 1e-6 --out {tmp}/c.csv --no-progress",
    "sweep dp ldp --grid n=100 --rows {good} --at-delta 1e-6 --out {tmp}/d.csv --no-progress",
    "sweep dp ldp --grid n=100 --at-delta 1e-6 --out {tmp}/e.csv --workers 2 "
    "--scheduler tcp://127.0.0.1:1",
    "reproduce --only abc --list",
]


@dataclass(frozen=True)
class Case:
    """One command line of the sweep.

    Attributes:
        argv: the words after `shuffle-accountant`.
        flag: the flag under test ("" for a contradictory set).
        value: the value under test (or the set's label).
        nonsense: no valid reading exists: exit status 0 is a failure.
    """

    argv: tuple[str, ...]
    flag: str
    value: str
    nonsense: bool


@dataclass(frozen=True)
class Outcome:
    """What one case did: its kind (module docstring), status, stderr and seconds."""

    kind: str
    status: int | None
    stderr: str
    stdout: str
    seconds: float


def _split(text: str) -> list[str]:
    import shlex
    return shlex.split(text)


def _leaf_bases(words: tuple[str, ...], tmp: str, good: str) -> list[list[str]]:
    """Valid argv alternatives of one leaf (without the leaf's words)."""
    fmt = {"tmp": tmp, "good": good}
    if len(words) == 2 and words[0] in COMMAND_EXTRA:
        command, name = words
        if command == "audit" and name not in PROTOCOL_BASES:
            return [_split(f"--quick --out {tmp}/audit-{name}.md")]
        if command == "calibrate":
            protocol = CALIBRATE_BASES[name]
        elif command == "audit" and name in AUDIT_BASES:
            protocol = AUDIT_BASES[name]
        else:
            protocol = PROTOCOL_BASES[name]
        extra = list(COMMAND_EXTRA[command])
        if command == "simulate" and name.startswith("bc-"):
            extra = [e + " --literal-trials 10" for e in extra]
        return [_split(p.format(**fmt)) + _split(e) for p in protocol for e in extra]
    if words[0] == "bound":
        return [_split(b) for b in BOUND_BASES.get(words[1], RDP_BOUND_BASE)]
    return [_split(b.format(**fmt)) for b in OTHER_BASES[words]]


def _with(base: list[str], flag: str, value: str) -> list[str]:
    """`base` with `flag` set to `value` (attached with '=' so '-1' stays a value)."""
    out, skip = [], False
    for word in base:
        if skip:
            skip = False
            continue
        if word == flag:
            skip = True
            continue
        out.append(word)
    # a flag of a mutually exclusive pair replaces its partner
    partners = {"--at-delta": "--at-epsilon", "--at-epsilon": "--at-delta"}
    if flag in partners and partners[flag] in out:
        i = out.index(partners[flag])
        del out[i:i + 2]
    return out + [f"{flag}={value}"]


def cases(tmp: Path) -> Iterator[Case]:
    """Every case of the sweep (matrix files are written under `tmp`).

    Args:
        tmp: a scratch directory.

    Yields:
        The cases: every value of every flag of every leaf, the matrix files under
        every randomizer command, and the contradictory sets.
    """
    from accountant.cli.main import build_parser, leaf_parsers

    matrices = matrix_files(tmp)
    good = matrices["good"]
    for words, parser in leaf_parsers(build_parser()):
        bases = _leaf_bases(words, str(tmp), good)
        for action in parser._actions:
            if not action.option_strings or action.dest == "help" or action.nargs == 0:
                continue
            flag = action.option_strings[0]
            base = next((b for b in bases if flag in b), bases[0])
            name = getattr(action.type, "__name__", "")
            if flag == "--matrix":
                for label, path in matrices.items():
                    if label != "good":
                        yield Case(tuple(words) + tuple(_with(base, flag, path)), flag,
                                   f"matrix:{label}", label in NONSENSE_MATRICES)
                continue
            if action.choices is not None:
                values = ["abc", ""]
            elif flag in STRINGS:
                values = STRINGS[flag]
            elif name in ("orders", "order"):
                values = ORDERS
            elif action.type is None:
                continue
            else:
                values = NUMERIC + (INTEGER_EXTRA if _is_integer(action) else [])
            for value in values:
                value = value.format(tmp=tmp, good=good) if flag in STRINGS else value
                nonsense = value in NONSENSE or (action.choices is not None)
                if flag == "--orders":
                    nonsense = value not in ("1e300", "inf")
                if flag in STRINGS:
                    nonsense = value not in MAYBE_VALID
                    if flag == "--out" and words[0] == "reproduce" and value == str(tmp):
                        nonsense = False  # reproduce's --out is a directory: an existing one
                yield Case(tuple(words) + tuple(_with(base, flag, value)), flag, value,
                           nonsense)
    for line in CONTRADICTORY:
        yield Case(tuple(_split(line.format(tmp=tmp, good=good))), "", line, True)


# matrices that are not a valid randomizer at all (the tiny-entry ones are valid)
NONSENSE_MATRICES = {"zero-rows", "empty-row", "one-row", "not-stochastic", "sums-below-one",
                      "negative", "nan", "inf", "ragged", "strings", "not-a-list",
                      "no-rows-key", "number", "garbage-csv", "empty-csv", "bad-json",
                      "missing", "directory", "one-by-one"}


def _is_integer(action: Any) -> bool:
    """Whether an argparse action's type is an integer type (it refuses 2.5 as such)."""
    try:
        action.type("2.5")
    except Exception as exc:  # noqa: BLE001 - argparse.ArgumentTypeError or the type's own
        return "integer" in str(exc)
    return False


def classify(case: Case, status: int | None, stdout: str, stderr: str) -> str:
    """The kind of one outcome (module docstring).

    Args:
        case: the case.
        status: the exit status, or None after a timeout.
        stdout: the process's standard output.
        stderr: its standard error.

    Returns:
        One of the kinds listed in the module docstring.
    """
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    if status is None:
        return "hang"
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    if status == 2:
        # the CLI's "still running, N s elapsed" notes (after 10 s, so on a loaded machine)
        # are progress, not error lines
        lines = [ln for ln in lines if not re.search(r": still running, \d+ s elapsed$", ln)]
        if len(lines) != 1:
            return "exit2-multi-line"
        line = lines[0].replace("_", "-").lower()
        if case.flag and not _names(line, case.flag):
            return "exit2-unnamed"
        return "exit2-one-line"
    if status == 0:
        warned = [ln for ln in lines if "Warning" in ln]
        if warned and all("LooseBoundWarning" in ln for ln in warned):
            # the contract's warning for a valid input whose answer is loose (calibrating
            # at delta 1e-300); in a forked child it keeps Python's two-line format
            return "exit0-loose"
        if warned:
            return "warning"
        if "nan" in stdout.lower().replace("nanos", "").split("version")[0] and \
                _has_nan(stdout):
            return "nan-output"
        return "exit0-nonsense" if case.nonsense else "exit0-clean"
    return "other-exit"


# the outcomes the command line's contract allows
ACCEPTED = ("exit2-one-line", "exit0-clean", "exit0-loose")


def _names(line: str, flag: str) -> bool:
    name = flag.lstrip("-").lower()
    return name in line or name.split("-")[-1] in line or name.split("-")[0] in line


def _has_nan(stdout: str) -> bool:
    import re
    return re.search(r"(?<![a-z])nan(?![a-z])", stdout.lower()) is not None


def _child(argv: list[str], out_fd: int, err_fd: int) -> None:
    """In a forked child: run the CLI on `argv` as the console script would."""
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    # fresh streams on the new descriptors: the parent's may be a capture object (pytest)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    import traceback
    import warnings

    warnings.resetwarnings()
    warnings.simplefilter("default")
    from accountant.cli.main import main as cli_main
    try:
        code = cli_main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - report it as the interpreter would
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(int(code or 0))


class _Running:
    """A started case: its process (or forked pid), output files and start time."""

    def __init__(self, case: Case, *, fresh: bool) -> None:
        self.case = case
        self.out = tempfile.TemporaryFile()
        self.err = tempfile.TemporaryFile()
        self.start = time.monotonic()
        self.proc: subprocess.Popen[bytes] | None = None
        if fresh:
            self.proc = subprocess.Popen([sys.executable, "-m", "accountant.cli", *case.argv],
                                         stdout=self.out, stderr=self.err,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
            self.pid = self.proc.pid
        else:
            self.pid = os.fork()
            if self.pid == 0:  # pragma: no cover - the child never returns
                os.setsid()
                _child(list(case.argv), self.out.fileno(), self.err.fileno())

    def poll(self, timeout: float) -> Outcome | None:
        """The outcome once the process ended (killed after `timeout` s), else None."""
        status: int | None
        done, raw = os.waitpid(self.pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(raw)
        elif time.monotonic() - self.start > timeout:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            status = None
        else:
            return None
        if self.proc is not None:
            self.proc.returncode = status if status is not None else -9
        self.out.seek(0)
        self.err.seek(0)
        stdout = self.out.read().decode("utf-8", "replace")
        stderr = self.err.read().decode("utf-8", "replace")
        self.out.close()
        self.err.close()
        return Outcome(classify(self.case, status, stdout, stderr), status, stderr, stdout,
                       time.monotonic() - self.start)


def run_cases(todo: list[Case], *, jobs: int = 2, timeout: float = 30.0,
              fresh: bool = False) -> list[Outcome]:
    """Run the cases, `jobs` processes at a time, each in its own process.

    Forked children are started from this (single-threaded) process, so no lock can be
    held by another thread at the fork.

    Args:
        todo: the cases.
        jobs: processes at once.
        timeout: seconds before a process is killed (a hang).
        fresh: a new interpreter (`python -m accountant.cli`) per case instead of a fork.

    Returns:
        The outcomes, in the order of `todo`.
    """
    outcomes: list[Outcome | None] = [None] * len(todo)
    running: dict[int, _Running] = {}
    nxt = 0
    while nxt < len(todo) or running:
        while nxt < len(todo) and len(running) < jobs:
            running[nxt] = _Running(todo[nxt], fresh=fresh)
            nxt += 1
        for index, job in list(running.items()):
            outcome = job.poll(timeout)
            if outcome is not None:
                outcomes[index] = outcome
                del running[index]
        select.select([], [], [], 0.005)
    return [o for o in outcomes if o is not None]


class _Options:
    """The options as attributes (jobs, timeout, exec, only, show, json)."""

    def __init__(self, opts: dict[str, Any]) -> None:
        self.__dict__.update(opts)


def main(argv: list[str] | None = None) -> int:
    """Run the sweep and print the counts.

    Args:
        argv: command-line words (module docstring).

    Returns:
        0 when every case is exit2-one-line, exit0-clean or exit0-loose, else 1.
    """
    # getopt, not argparse: this module is a script of verify/, whose layer keeps argparse
    # to the CLI files (tests/test_layers.py)
    try:
        pairs, rest = getopt.getopt(list(sys.argv[1:] if argv is None else argv), "",
                                    ["jobs=", "timeout=", "exec", "only=", "show=", "json",
                                     "help"])
    except getopt.GetoptError as exc:
        sys.stderr.write(f"bad_input_sweep: {exc}\n")
        return 2
    if rest or ("--help", "") in pairs:
        sys.stdout.write(__doc__ or "")
        return 0 if not rest else 2
    opts: dict[str, Any] = {"jobs": 2, "timeout": 30.0, "exec": False, "only": "",
                            "show": [], "json": False}
    for key, value in pairs:
        name = key.lstrip("-")
        if name == "show":
            opts["show"].append(value)
        elif name in ("exec", "json"):
            opts[name] = True
        else:
            opts[name] = {"jobs": int, "timeout": float, "only": str}[name](value)
    args = _Options(opts)
    with tempfile.TemporaryDirectory() as tmp:
        todo = [c for c in cases(Path(tmp)) if args.only in " ".join(c.argv)]
        start = time.perf_counter()
        outcomes = run_cases(todo, jobs=args.jobs, timeout=args.timeout, fresh=args.exec)
        seconds = time.perf_counter() - start
    counts = Counter(o.kind for o in outcomes)
    summary = {"cases": len(todo), **dict(sorted(counts.items())),
               "seconds": round(seconds, 1),
               "slowest": max((round(o.seconds, 1) for o in outcomes), default=0.0)}
    for kind in args.show:
        for case, o in zip(todo, outcomes, strict=True):
            if o.kind == kind or kind == "all":
                tail = (o.stderr.strip().splitlines() or [""])[-1][:300]
                print(f"[{o.kind}] {' '.join(case.argv)}\n    -> {o.status}: {tail}")
    print(json.dumps(summary) if args.json else
          "\n".join(f"{k:>18}: {v}" for k, v in summary.items()))
    bad = sum(v for k, v in counts.items() if k not in ACCEPTED)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
