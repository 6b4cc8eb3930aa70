"""How protocol and bound modules plug into the command line (CLI.md), without editing cli.py.

A protocol module in `accountant.protocols` exposes `CLI_SPEC = ProtocolSpec(...)` (modules
named in `HANDLER_MODULES` may add handlers to it); a bound
module in `accountant.bounds` exposes `CLI_BOUNDS = [BoundSpec(...), ...]`; a module named
in `COMMAND_MODULES` exposes `register(subparsers)` for a top-level command (compose,
reproduce). `accountant.cli` discovers them all at start-up.

A handler takes the parsed arguments and returns the command-specific part of the JSON
object of CLI.md (e.g. {"params": ..., "epsilon": ..., "delta": ...}); the CLI adds
"command" and "protocol", prints JSON or a table, and turns AccountantError into exit 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ProtocolSpec", "BoundSpec", "Handler", "COMMAND_MODULES", "HANDLER_MODULES",
           "PROTOCOL_COMMANDS"]

Handler = Callable[[argparse.Namespace], dict[str, Any]]

# Subcommands that take a PROTOCOL argument, with the flags the CLI itself adds to each.
PROTOCOL_COMMANDS = ("dp", "rdp", "pure", "audit", "calibrate", "simulate")

# Modules that add top-level commands; a missing module simply leaves its command out.
COMMAND_MODULES = ("accountant.composition.cli", "figures.reproduce")

# Modules outside `accountant` that add handlers to protocols (`CLI_HANDLERS`, a dict
# {(command, protocol name): handler}): `simulate` needs verify's samplers, and accountant
# never imports verify; the CLI looks these up by name, as it does COMMAND_MODULES.
HANDLER_MODULES = ("verify.cli_handlers",)


@dataclass(frozen=True)
class ProtocolSpec:
    """A protocol's command-line face.

    Attributes:
        name: the CLI name, e.g. "binary-rr".
        summary: one line for --help.
        add_arguments: adds the protocol's own flags (CLI.md table) to a subparser.
        handlers: command name ("dp", "rdp", ...) -> handler.
    """

    name: str
    summary: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    handlers: dict[str, Handler] = field(default_factory=dict)


@dataclass(frozen=True)
class BoundSpec:
    """A closed-form bound's command-line face (`shuffle-accountant bound NAME`)."""

    name: str
    summary: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    handler: Handler
