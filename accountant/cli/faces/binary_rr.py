"""`binary-rr`: shuffled binary randomized response."""

from __future__ import annotations

import argparse

from accountant.cli.faces.common import contract_handlers
from accountant.cli.registry import ProtocolSpec
from accountant.cli.types import EPSILON0, ONES, USERS_PAIR, integer, real
from accountant.protocols.binary_rr import BinaryRR

__all__ = ["SPEC"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS_PAIR), required=True, help="number of users (>= 2)")
    p.add_argument("--epsilon0", type=real(EPSILON0), required=True,
                   help="local epsilon0 > 0")
    p.add_argument("--ones", type=integer(ONES), default=None,
                   help="how many of the other n-1 users hold a 1 (default: worst case)")


def _mechanism(args: argparse.Namespace) -> BinaryRR:
    return BinaryRR(n=args.n, epsilon0=args.epsilon0, ones=args.ones)


SPEC = ProtocolSpec(name="binary-rr", summary="shuffled binary randomized response",
                    add_arguments=_add_arguments,
                    handlers=contract_handlers(_mechanism), mechanism=_mechanism)
