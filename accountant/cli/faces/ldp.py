"""`ldp`: any epsilon0-LDP randomizer, shuffled."""

from __future__ import annotations

import argparse

from accountant.cli.faces.common import contract_handlers
from accountant.cli.registry import ProtocolSpec
from accountant.cli.types import EPSILON0, USERS_PAIR, integer, real
from accountant.protocols.ldp import LDP

__all__ = ["SPEC"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS_PAIR), required=True, help="number of users (>= 2)")
    p.add_argument("--epsilon0", type=real(EPSILON0), required=True,
                   help="local epsilon0 > 0")


def _mechanism(args: argparse.Namespace) -> LDP:
    return LDP(n=args.n, epsilon0=args.epsilon0)


SPEC = ProtocolSpec(name="ldp", summary="any epsilon0-LDP randomizer (clones pair upper, "
                    "binary RR lower)",
                    add_arguments=_add_arguments,
                    handlers=contract_handlers(_mechanism), mechanism=_mechanism)
