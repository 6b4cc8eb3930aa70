"""`shuffle-accountant`: the command line of CLI.md.

Protocols, bounds and extra commands are discovered from their modules (see
`accountant.protocols.registry`), so adding a protocol never edits this file.
Every subcommand takes --json (one JSON object on stdout); errors exit with status 2 and
one line on stderr naming the parameter, its value and the valid range.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any

from accountant.errors import AccountantError
from accountant.protocols.registry import (
    COMMAND_MODULES,
    HANDLER_MODULES,
    PROTOCOL_COMMANDS,
    BoundSpec,
    ProtocolSpec,
)
from accountant.result import Result

__all__ = ["main", "build_parser", "result_json", "float_list", "positive_int"]

_COMMAND_HELP = {
    "dp": "(epsilon, delta) of the protocol's shuffled view",
    "rdp": "Renyi divergences of the shuffled view at given orders",
    "pure": "max-divergence (pure epsilon) of the shuffled view",
    "audit": "the paper's privacy claim against the computed values",
    "calibrate": "the least noise that meets a target (epsilon, delta)",
    "simulate": "run the literal protocol and compare with the theory",
}


class _Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and one line on stderr (CLI.md)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"shuffle-accountant: {message}\n")
        raise SystemExit(2)


def float_list(text: str) -> list[float]:
    """'2,4,8.5,inf' -> [2.0, 4.0, 8.5, inf] (for --orders)."""
    try:
        return [math.inf if t.strip().lower() in ("inf", "infinity") else float(t)
                for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") \
            from None


def positive_int(text: str) -> int:
    """An integer flag that also accepts 1e6-style spellings."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not x.is_integer():
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(x)


def result_json(r: Result) -> dict[str, Any]:
    """The CLI.md object of one Result."""
    return r.to_json()


def _discover(package: str, attribute: str) -> list[Any]:
    pkg = importlib.import_module(package)
    found = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "registry":
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        value = getattr(module, attribute, None)
        if value is not None:
            found.extend(value if isinstance(value, list | tuple) else [value])
    return found


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


def _optional_module(name: str) -> Any:
    """Import a plug-in module by name, or None when it is not installed."""
    try:
        found = importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        found = False
    return importlib.import_module(name) if found else None


def _extra_handlers() -> dict[tuple[str, str], Any]:
    """Handlers that other packages add to protocols (see HANDLER_MODULES)."""
    out: dict[tuple[str, str], Any] = {}
    for name in HANDLER_MODULES:
        module = _optional_module(name)
        if module is not None:
            out.update(module.CLI_HANDLERS)
    return out


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every discovered protocol, bound and command."""
    parser = _Parser(prog="shuffle-accountant",
                     description="Exact and certified privacy accounting for the shuffle model.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    protocols: list[ProtocolSpec] = _discover("accountant.protocols", "CLI_SPEC")
    extra = _extra_handlers()
    for command in PROTOCOL_COMMANDS:
        members = [s for s in protocols if command in s.handlers or (command, s.name) in extra]
        if not members:
            continue
        cp = sub.add_parser(command, help=_COMMAND_HELP[command])
        psub = cp.add_subparsers(dest="protocol", required=True, parser_class=_Parser)
        for spec in members:
            pp = psub.add_parser(spec.name, help=spec.summary)
            spec.add_arguments(pp)
            _common_flags(pp, command)
            pp.set_defaults(handler=extra.get((command, spec.name)) or spec.handlers[command])
    bounds: list[BoundSpec] = _discover("accountant.bounds", "CLI_BOUNDS")
    if bounds:
        bp = sub.add_parser("bound", help="a paper's closed-form bound")
        bsub = bp.add_subparsers(dest="bound", required=True, parser_class=_Parser)
        for b in bounds:
            p = bsub.add_parser(b.name, help=b.summary)
            b.add_arguments(p)
            p.add_argument("--json", action="store_true", help="print one JSON object")
            p.set_defaults(handler=b.handler)
    for name in COMMAND_MODULES:
        module = _optional_module(name)
        if module is not None:
            module.register(sub)
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
    parser = build_parser()
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
