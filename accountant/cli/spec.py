"""What a command-line face is: the records the registry lists and the faces build (kept
apart from the registry table, so that a face and the registry never import each other)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Handler", "EXIT_STATUS", "ProtocolSpec", "BoundSpec"]

Handler = Callable[[argparse.Namespace], dict[str, Any]]

# A handler's result may carry this key with a nonzero int: the process then exits with it
# (the key is not printed). selfcheck uses it when it finds violations.
EXIT_STATUS = "exit_status"


@dataclass(frozen=True)
class ProtocolSpec:
    """A protocol's command-line face.

    Attributes:
        name: the CLI name, e.g. "binary-rr".
        summary: one line for --help.
        add_arguments: adds the protocol's own flags to a subparser.
        handlers: command name ("dp", "rdp", ...) -> handler.
    """

    name: str
    summary: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    handlers: dict[str, Handler] = field(default_factory=dict)
    # builds the protocol's contract object from parsed flags (used by `compose`)
    mechanism: Callable[[argparse.Namespace], Any] | None = None
    # flags that only some commands take (e.g. simulate's --literal-trials): command -> adder
    command_arguments: dict[str, Callable[[argparse.ArgumentParser], None]] = field(
        default_factory=dict)


@dataclass(frozen=True)
class BoundSpec:
    """A closed-form bound's command-line face (`shuffle-accountant bound NAME`)."""

    name: str
    summary: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    handler: Handler
