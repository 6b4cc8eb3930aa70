"""`ldp`: any epsilon0-LDP randomizer, shuffled."""

from __future__ import annotations

import argparse
from typing import Any

from accountant.cli.faces.common import dp_body, pure_body, rdp_body
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


def _dp(args: argparse.Namespace) -> dict[str, Any]:
    return dp_body(_mechanism(args), args)


def _rdp(args: argparse.Namespace) -> dict[str, Any]:
    return rdp_body(_mechanism(args), args)


def _pure(args: argparse.Namespace) -> dict[str, Any]:
    return pure_body(_mechanism(args))


SPEC = ProtocolSpec(name="ldp", summary="any epsilon0-LDP randomizer (clones pair upper, "
                    "binary RR lower)",
                    add_arguments=_add_arguments,
                    handlers={"dp": _dp, "rdp": _rdp, "pure": _pure}, mechanism=_mechanism)
