"""`shuffle-accountant`: the command line.

Protocols, bounds and commands come from the one table in `accountant.cli.registry`; a
face is imported only when its command is used (import cost counts: users run the CLI as
a process). Every subcommand takes --json (one JSON object on stdout); errors exit with
status 2 and one line on stderr naming the parameter, its value and the valid range.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import math
import os
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from accountant import __version__
from accountant.cli import types
from accountant.cli.registry import (
    AUDIT_PAPERS,
    AUDIT_REPORT,
    BOUND_FACE,
    COMMANDS,
    EXIT_STATUS,
    EXTRA_HANDLERS,
    PROTOCOL_COMMANDS,
    BoundSpec,
    load,
    protocol_entries,
    protocol_spec,
)
from accountant.cli.types import float_list
from accountant.domains import DELTA
from accountant.errors import AccountantError

__all__ = ["main", "build_parser", "leaf_parsers"]

_COMMAND_HELP = {
    "dp": "(epsilon, delta) of the protocol's shuffled view",
    "rdp": "Renyi divergences of the shuffled view at given orders",
    "pure": "max-divergence (pure epsilon) of the shuffled view",
    "audit": "the paper's privacy claim against the computed values",
    "calibrate": "the least noise that meets a target (epsilon, delta)",
    "simulate": "run the literal protocol and compare with the theory",
}


class _Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and one line on stderr, and takes flags only as
    spelled (an abbreviation such as `--epsilon` was silently read as `--epsilon0`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        types.reject_repeats(self, sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"shuffle-accountant: {message}\n")
        raise SystemExit(2)


def _common_flags(p: argparse.ArgumentParser, command: str) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object")
    if command == "dp":
        g = p.add_mutually_exclusive_group(required=True)
        g.add_argument("--at-delta", type=types.real(types.AT_DELTA),
                       help="report epsilon at this delta, in (0, 1)")
        g.add_argument("--at-epsilon", type=types.real(types.AT_EPSILON),
                       help="report delta at this epsilon, in [0, 700)")
        p.add_argument("--backend", choices=["float", "mp"], default="float",
                       help="float: certified log-space float64 (default); mp: mpmath")
    elif command == "rdp":
        p.add_argument("--orders", type=float_list, required=True,
                       help="comma-separated Renyi orders > 1, e.g. 2,4,8.5,inf")
    elif command == "calibrate":
        p.add_argument("--target-epsilon", type=types.real(types.TARGET_EPSILON),
                       required=True, help="the epsilon to meet, in [1e-150, 700)")
        p.add_argument("--target-delta", type=types.real(DELTA.named("target-delta")),
                       required=True, help="the delta to meet, in (0, 1)")
    elif command == "simulate":
        p.add_argument("--trials", type=types.integer(types.TRIALS), required=True,
                       help="independent runs of the protocol")
        p.add_argument("--seed", type=types.integer(types.SEED), required=True,
                       help="seed of the random generator (an integer >= 0)")


def _selection(argv: Sequence[str]) -> tuple[str | None, str | None]:
    """(command, protocol or bound name) named on the command line, if any."""
    words = [w for w in argv if not w.startswith("-")]
    return (words[0] if words else None), (words[1] if len(words) > 1 else None)


# through a pipe: the first "still running" line after PIPE_FIRST s, then every PIPE_EVERY s
PIPE_FIRST, PIPE_EVERY = 10.0, 30.0
# commands that report their own progress (per figure, per grid point)
_OWN_PROGRESS = {"reproduce", "sweep", "selfcheck"}


@contextlib.contextmanager
def _elapsed(label: str, *, show: bool, after: float = 2.0) -> Iterator[None]:
    """Show an elapsed-time line on stderr once a command runs longer than `after` seconds,
    so that long computations do not look hung: a live line on a terminal; through a pipe
    or into a file, a plain line after 10 s and every 30 s after it (few enough for logs).
    stdout (and so --json) is untouched."""
    if not show:
        yield
        return
    stop = threading.Event()
    if not sys.stderr.isatty():
        start = time.monotonic()

        def lines() -> None:
            wait = PIPE_FIRST
            while not stop.wait(wait):
                sys.stderr.write(f"{label}: still running, "
                                 f"{time.monotonic() - start:.0f} s elapsed\n")
                sys.stderr.flush()
                wait = PIPE_EVERY

        with _beside(lines, stop):
            yield
        return

    def run() -> None:
        if stop.wait(after):
            return
        from tqdm import tqdm  # only when shown: no import cost for quick commands

        with tqdm(desc=label, bar_format="{desc}: {elapsed} elapsed", file=sys.stderr,
                  leave=False) as bar:
            while not stop.wait(0.5):
                bar.refresh()

    with _beside(run, stop):
        yield


@contextlib.contextmanager
def _beside(target: Callable[[], None], stop: threading.Event) -> Iterator[None]:
    """Run `target` in a daemon thread while the block runs; then set `stop` and join."""
    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join()


def _attach_negative_words(argv: list[str]) -> list[str]:
    """'--flag -inf' -> '--flag=-inf': argparse reads '-inf' as an option and would answer
    'expected one argument'; attached, the flag's own type names the valid range."""
    out: list[str] = []
    for word in argv:
        if (out and out[-1].startswith("--") and "=" not in out[-1]
                and word.lower() in ("-inf", "-infinity", "-nan")):
            out[-1] = f"{out[-1]}={word}"
        else:
            out.append(word)
    return out


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the faces that `argv` selects are imported (all when argv is None).

    Args:
        argv: the arguments to be parsed, or None to build every face (for tests and docs).
    """
    chosen, name = _selection(argv) if argv is not None else (None, None)
    every = argv is None
    parser = _Parser(prog="shuffle-accountant",
                     description="Exact and certified privacy accounting for the shuffle model.")
    parser.add_argument("--version", action="version",
                        version=f"shuffle-accountant {__version__}",
                        help="print the library's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    # each subparser costs ~0.2 ms: a valid command named gets only its own subparser (no
    # command, or an unknown one: all of them, for --help and the error message's choices)
    known = chosen in (*PROTOCOL_COMMANDS, "bound", *COMMANDS)

    def listed(command: str) -> bool:
        return every or not known or command == chosen

    for command in PROTOCOL_COMMANDS:
        if not listed(command):
            continue
        cp = sub.add_parser(command, help=_COMMAND_HELP[command])
        psub = cp.add_subparsers(dest="protocol", required=True, parser_class=_Parser)
        if not (every or command == chosen):
            continue  # only the command used lists its protocols
        # a valid protocol named: only its subparser (any other name: all, for the choices
        # that the error message and --help list)
        entries = protocol_entries()
        only = name if not every and any(e.name == name and command in e.commands
                                         for e in entries) else None
        for entry in entries:
            if command not in entry.commands or only not in (None, entry.name):
                continue
            pp = psub.add_parser(entry.name, help=entry.summary)
            if not (every or (command == chosen and entry.name == name)):
                continue
            spec = protocol_spec(entry.name)
            spec.add_arguments(pp)
            if command in spec.command_arguments:
                spec.command_arguments[command](pp)
            _common_flags(pp, command)
            extra = EXTRA_HANDLERS.get((command, entry.name))
            handler = (load(extra)[(command, entry.name)] if extra is not None
                       else spec.handlers[command])
            pp.set_defaults(handler=handler)
        if command == "calibrate":
            # a ledger's parameter (issue 21): not a protocol of the registry table
            cpp = psub.add_parser("compose", help="the parameter of a composition (written "
                                                  "?) that meets a target")
            if every or name == "compose":
                importlib.import_module("accountant.cli.compose").register_calibrate(cpp)
        # (looked up only for `audit`: finding the module imports the figures package)
        if (command == "audit" and (every or chosen == "audit")
                and importlib.util.find_spec("figures") is not None):
            for paper, summary in AUDIT_PAPERS.items():
                pp = psub.add_parser(paper, help=summary)
                if every or (chosen == "audit" and name == paper):
                    report = importlib.import_module(AUDIT_REPORT)
                    report.add_arguments(pp)
                    pp.add_argument("--json", action="store_true",
                                    help="print one JSON object")
                    pp.set_defaults(handler=report.handler)
    if listed("bound"):
        bp = sub.add_parser("bound", help="a paper's closed-form bound")
    if every or chosen == "bound":
        bsub = bp.add_subparsers(dest="bound", required=True, parser_class=_Parser)
        bounds: list[BoundSpec] = load(BOUND_FACE)
        for b in bounds:
            p = bsub.add_parser(b.name, help=b.summary)
            b.add_arguments(p)
            p.add_argument("--json", action="store_true", help="print one JSON object")
            p.set_defaults(handler=b.handler)
    for command, (summary, module) in COMMANDS.items():
        if every or chosen == command:
            importlib.import_module(module).register(sub)
        elif listed(command):
            sub.add_parser(command, help=summary)
    return parser


Leaf = tuple[tuple[str, ...], argparse.ArgumentParser]


def leaf_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[Leaf]:
    """Every command's innermost parser with its words, e.g. (("dp", "binary-rr"), parser):
    for documentation and for the tests that feed every flag bad values."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [(path, parser)]
    return [leaf for name, child in subs[0].choices.items()
            for leaf in leaf_parsers(child, path + (name,))]


def _print_table(out: dict[str, Any], width: int = 100) -> None:
    """A short human-readable rendering of the JSON object, wrapped at `width` columns
    (methods and sources are left to --json)."""
    head = " ".join(str(out[k]) for k in ("command", "protocol", "bound") if k in out)
    print(head)

    def emit(text: str, indent: str) -> None:
        print(textwrap.fill(text, width=width, initial_indent=indent,
                            subsequent_indent=indent + "    ", break_on_hyphens=False))

    for key, value in out.items():
        if key in ("command", "protocol", "bound", "version"):
            continue
        if isinstance(value, dict) and "value" in value:
            extra = f" ({value.get('kind')}, {value.get('direction', '')})".replace(", )", ")")
            emit(f"{key:<16} {_fmt(value['value'], value.get('kind'))}{extra}", "  ")
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            print(f"  {key}:")
            for item in value:
                emit(", ".join(f"{k}={_fmt(v, item.get('kind') if k == 'value' else None)}"
                               for k, v in item.items() if k not in ("method", "source")),
                     "    ")
        elif isinstance(value, dict):
            emit(f"{key:<16} " + ", ".join(f"{k}={_fmt(v)}" for k, v in value.items()
                                           if k not in ("method", "source")), "  ")
        else:
            emit(f"{key:<16} {_fmt(value)}", "  ")


def _fmt(v: Any, kind: str | None = None) -> str:
    if isinstance(v, float):
        if kind in ("upper", "lower") and math.isfinite(v) and v != 0:
            # six digits rounded toward the bound's safe side: a lower end of
            # 39.9999999999998 printed as "40" read like the upper end
            d = Decimal(v)
            step = Decimal(1).scaleb(d.adjusted() - 5)
            d = d.quantize(step, rounding=ROUND_CEILING if kind == "upper" else ROUND_FLOOR)
            mant, _, exp = f"{d:.6g}".partition("e")
            mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
            return mant + (f"e{int(exp):+03d}" if exp else "")
        return f"{v:.6g}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_fmt(x)}" for k, x in v.items()
                               if k not in ("method", "source")) + "}"
    return str(v)


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    return x


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: Any = None, line: str | None = None) -> None:
    """One stderr line per warning: `shuffle-accountant: warning (Category): message`."""
    sys.stderr.write(f"shuffle-accountant: warning ({category.__name__}): {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    from_console = argv is None
    argv = _attach_negative_words(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse's exits (errors: 2, --help: 0) become return codes
        return int(exc.code or 0)
    if from_console:
        # the library's own warnings ("valid but loose") read as one line, not as a source
        # location and a line of library code (in-process callers keep their own handler)
        warnings.showwarning = _show_warning
    try:
        with _elapsed(" ".join(w for w in argv if not w.startswith("-"))[:60],
                      show=args.command not in _OWN_PROGRESS):
            body = args.handler(args)
    except AccountantError as exc:
        sys.stderr.write(f"shuffle-accountant: {exc}\n")
        return 2
    except BrokenPipeError:  # a handler that prints its own table, read by `| head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    out = {"command": args.command}
    for key in ("protocol", "bound"):
        if getattr(args, key, None):
            out[key] = getattr(args, key)
    # a handler may ask for a nonzero exit status (e.g. selfcheck with violations: scripts
    # and CI must see the finding without parsing the output)
    status = int(body.pop(EXIT_STATUS, 0))
    out.update(body)
    out["version"] = __version__
    try:
        if getattr(args, "json", False):
            sys.stdout.write(json.dumps(_jsonable(out)) + "\n")
        else:
            _print_table(out)
        sys.stdout.flush()
    except BrokenPipeError:  # `... | head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
