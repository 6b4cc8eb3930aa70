"""`shuffle-accountant`: the command line.

Protocols, bounds and commands come from the one table in `accountant.cli.registry`; a
face is imported only when its command is used (import cost counts: users run the CLI as
a process). Every subcommand takes --json (one JSON object on stdout); errors exit with
status 2 and one line on stderr naming the parameter, its value and the valid range.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from accountant.cli.registry import (
    BOUND_FACE,
    COMMANDS,
    EXTRA_HANDLERS,
    PROTOCOL_COMMANDS,
    PROTOCOLS,
    BoundSpec,
    load,
    protocol_spec,
)
from accountant.cli.types import float_list, positive_int
from accountant.errors import AccountantError

__all__ = ["main", "build_parser"]

_COMMAND_HELP = {
    "dp": "(epsilon, delta) of the protocol's shuffled view",
    "rdp": "Renyi divergences of the shuffled view at given orders",
    "pure": "max-divergence (pure epsilon) of the shuffled view",
    "audit": "the paper's privacy claim against the computed values",
    "calibrate": "the least noise that meets a target (epsilon, delta)",
    "simulate": "run the literal protocol and compare with the theory",
}


class _Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and one line on stderr."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"shuffle-accountant: {message}\n")
        raise SystemExit(2)


def _common_flags(p: argparse.ArgumentParser, command: str) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object")
    if command == "dp":
        g = p.add_mutually_exclusive_group(required=True)
        g.add_argument("--at-delta", type=float, help="report epsilon at this delta")
        g.add_argument("--at-epsilon", type=float, help="report delta at this epsilon")
        p.add_argument("--backend", choices=["float", "mp"], default="float")
    elif command == "rdp":
        p.add_argument("--orders", type=float_list, required=True,
                       help="comma-separated Renyi orders > 1, e.g. 2,4,8.5,inf")
    elif command == "calibrate":
        p.add_argument("--target-epsilon", type=float, required=True)
        p.add_argument("--target-delta", type=float, required=True)
    elif command == "simulate":
        p.add_argument("--trials", type=positive_int, required=True)
        p.add_argument("--seed", type=int, required=True)


def _selection(argv: Sequence[str]) -> tuple[str | None, str | None]:
    """(command, protocol or bound name) named on the command line, if any."""
    words = [w for w in argv if not w.startswith("-")]
    return (words[0] if words else None), (words[1] if len(words) > 1 else None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the faces that `argv` selects are imported (all when argv is None).

    Args:
        argv: the arguments to be parsed, or None to build every face (for tests and docs).
    """
    chosen, name = _selection(argv) if argv is not None else (None, None)
    every = argv is None
    parser = _Parser(prog="shuffle-accountant",
                     description="Exact and certified privacy accounting for the shuffle model.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in PROTOCOL_COMMANDS:
        cp = sub.add_parser(command, help=_COMMAND_HELP[command])
        psub = cp.add_subparsers(dest="protocol", required=True, parser_class=_Parser)
        for entry in PROTOCOLS:
            if command not in entry.commands:
                continue
            pp = psub.add_parser(entry.name, help=entry.summary)
            if not (every or (command == chosen and entry.name == name)):
                continue
            spec = protocol_spec(entry.name)
            spec.add_arguments(pp)
            _common_flags(pp, command)
            extra = EXTRA_HANDLERS.get((command, entry.name))
            handler = (load(extra)[(command, entry.name)] if extra is not None
                       else spec.handlers[command])
            pp.set_defaults(handler=handler)
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
        else:
            sub.add_parser(command, help=summary)
    return parser


def _print_table(out: dict[str, Any]) -> None:
    """A short human-readable rendering of the JSON object."""
    head = " ".join(str(out[k]) for k in ("command", "protocol", "bound") if k in out)
    print(head)
    for key, value in out.items():
        if key in ("command", "protocol", "bound"):
            continue
        if isinstance(value, dict) and "value" in value:
            extra = f" ({value.get('kind')}, {value.get('direction', '')})".replace(", )", ")")
            print(f"  {key:<16} {_fmt(value['value'])}{extra}")
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            print(f"  {key}:")
            for item in value:
                print("    " + ", ".join(f"{k}={_fmt(v)}" for k, v in item.items()
                                         if k not in ("method", "source")))
        elif isinstance(value, dict):
            print(f"  {key:<16} " + ", ".join(f"{k}={_fmt(v)}" for k, v in value.items()))
        else:
            print(f"  {key:<16} {_fmt(value)}")


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}={_fmt(x)}" for k, x in v.items()) + "}"
    return str(v)


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    return x


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        body = args.handler(args)
    except AccountantError as exc:
        sys.stderr.write(f"shuffle-accountant: {exc}\n")
        return 2
    out = {"command": args.command}
    for key in ("protocol", "bound"):
        if getattr(args, key, None):
            out[key] = getattr(args, key)
    out.update(body)
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(_jsonable(out)) + "\n")
    else:
        _print_table(out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
