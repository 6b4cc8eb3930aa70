"""The command-line face of a declared family, derived from its declaration.

A family that declares its parameters with `contract.param` gets its flags (`--name`, an
integer or real type checking the declared domain), their help lines and ranges, its
"params" JSON and its dp / rdp / pure handlers from this one function; a hand-written face
is only for a truly special flag (a matrix file), which `special` adds beside the declared
ones.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accountant.cli.faces.common import contract_handlers
from accountant.cli.spec import ProtocolSpec
from accountant.cli.types import integer, real
from accountant.protocols.contract import Mechanism, declared

__all__ = ["Special", "declared_spec"]


@dataclass(frozen=True)
class Special:
    """Flags a declaration cannot express (e.g. a file to read), added before the declared
    ones.

    Attributes:
        add_arguments: adds the special flags to the parser.
        values: parsed flags -> the constructor arguments they give (e.g. {"matrix": ...}).
    """

    add_arguments: Callable[[argparse.ArgumentParser], None]
    values: Callable[[argparse.Namespace], dict[str, Any]]


def declared_spec(family: type[Mechanism], summary: str | None = None,
                  special: Special | None = None) -> ProtocolSpec:
    """The ProtocolSpec of a declared family.

    Args:
        family: the Mechanism subclass; its `name` is the command-line name.
        summary: the --help line (default: the family's `summary`, else its docstring's
            first line).
        special: flags beyond the declared parameters, if any.

    Returns:
        A ProtocolSpec whose flags, help, ranges and handlers follow the declaration.
    """
    params = declared(family)

    def add_arguments(p: argparse.ArgumentParser) -> None:
        if special is not None:
            special.add_arguments(p)
        for d in params:
            kind = integer if d.domain.integer else real
            p.add_argument(f"--{d.name.replace('_', '-')}", dest=d.name, type=kind(d.domain),
                           required=not d.optional, default=None, help=d.help)

    def mechanism(args: argparse.Namespace) -> Mechanism:
        values = {d.name: getattr(args, d.name) for d in params}
        if special is not None:
            values |= special.values(args)
        return family(**values)

    doc = (family.__doc__ or "").strip().splitlines()
    return ProtocolSpec(name=family.name,
                        summary=summary or family.summary or (doc[0] if doc else family.name),
                        add_arguments=add_arguments, handlers=contract_handlers(mechanism),
                        mechanism=mechanism)
