"""`ggkpv-countmin`: [GGKPV]'s count-min sketch with public coins (docs/ggkpv.md#count-min-variant).

Commands: dp, rdp, pure, calibrate. Flags: `--n --B --w --d --rho` (users, domain size,
width, depth, noise messages per user and row); `calibrate` takes `--n --B --w --d` and the
target `--target-epsilon --target-delta` and returns the least rho. The hash functions are
fully random and public; upper ends hold for every hash draw (all rows separate), lower ends
are the mechanism's own pair averaged over the public coins.
"""

from __future__ import annotations

import argparse
from typing import Any

from accountant.cli.faces.common import contract_handlers
from accountant.cli.spec import ProtocolSpec
from accountant.cli.types import USERS_PAIR, integer
from accountant.domains import Interval
from accountant.errors import ParameterError
from accountant.protocols.ggkpv import (
    CountMinParameters,
    CountMinSketch,
    calibrate_countmin,
    countmin_parameters,
)

__all__ = ["SPEC", "parameters_from_args"]

_DOMAIN = Interval("B", 2, 2**40, closed="both", integer=True)
_WIDTH = Interval("w", 2, 2**30, closed="both", integer=True)
_DEPTH = Interval("d", 1, 64, closed="both", integer=True)
_RHO = Interval("rho", 1, 1e6, closed="both", integer=True)


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS_PAIR), help="number of users")
    p.add_argument("--B", type=integer(_DOMAIN), help="domain size (values 1..B, >= 2)")
    p.add_argument("--w", type=integer(_WIDTH),
                   help="width: cells per row, the range of each hash function (>= 2)")
    p.add_argument("--d", type=integer(_DEPTH),
                   help="depth: number of public hash functions (rows), 1..64")
    p.add_argument("--rho", type=integer(_RHO),
                   help="noise messages per user and row (>= 1; not with calibrate)")


def parameters_from_args(args: argparse.Namespace) -> CountMinParameters:
    """The parameters named by the flags.

    Args:
        args: parsed flags (--n, --B, --w, --d, --rho).

    Returns:
        Validated parameters.

    Raises:
        ParameterError: a missing or invalid flag.
    """
    for flag, what in (("n", "number of users"), ("B", "domain size >= 2"),
                       ("w", "width >= 2"), ("d", "depth 1..64"),
                       ("rho", "noise messages per user and row")):
        if getattr(args, flag) is None:
            raise ParameterError(f"--{flag} is required ({what})")
    return countmin_parameters(n=args.n, B=args.B, w=args.w, d=args.d, rho=args.rho)


def _mechanism(args: argparse.Namespace) -> CountMinSketch:
    return CountMinSketch(parameters_from_args(args))


def _calibrate(args: argparse.Namespace) -> dict[str, Any]:
    if args.n is None or args.B is None or args.w is None or args.d is None:
        raise ParameterError("calibrate needs --n, --B, --w and --d (the target is "
                             "--target-epsilon, --target-delta)")
    if args.rho is not None:
        raise ParameterError("calibrate chooses rho; do not give --rho")
    try:
        return calibrate_countmin(n=args.n, B=args.B, w=args.w, d=args.d,
                                  target_epsilon=args.target_epsilon,
                                  target_delta=args.target_delta).to_json()
    except ParameterError as exc:
        # the search's own messages name its internals (N, w): say which target it was
        raise ParameterError(f"calibrate ggkpv-countmin at target-epsilon="
                             f"{args.target_epsilon!r}, target-delta={args.target_delta!r}: "
                             f"{exc}") from None


SPEC = ProtocolSpec(name="ggkpv-countmin",
                    summary="GGKPV count-min sketch with public hash functions (frequencies)",
                    add_arguments=_add_arguments,
                    handlers={**contract_handlers(_mechanism), "calibrate": _calibrate},
                    mechanism=_mechanism)
