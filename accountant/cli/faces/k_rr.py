"""`k-rr`: shuffled k-ary randomized response."""

from __future__ import annotations

import argparse

from accountant.cli.faces.common import contract_handlers
from accountant.cli.registry import ProtocolSpec
from accountant.cli.types import ALPHABET, EPSILON0, USERS_PAIR, integer, real
from accountant.protocols.k_rr import KRR

__all__ = ["SPEC"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS_PAIR), required=True, help="number of users (>= 2)")
    p.add_argument("--epsilon0", type=real(EPSILON0), required=True,
                   help="local epsilon0 > 0")
    p.add_argument("--k", type=integer(ALPHABET), required=True, help="alphabet size (>= 2)")


def _mechanism(args: argparse.Namespace) -> KRR:
    return KRR(n=args.n, epsilon0=args.epsilon0, k=args.k)


SPEC = ProtocolSpec(name="k-rr", summary="shuffled k-ary randomized response",
                    add_arguments=_add_arguments,
                    handlers=contract_handlers(_mechanism), mechanism=_mechanism)
