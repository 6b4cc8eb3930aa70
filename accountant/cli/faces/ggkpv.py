"""`ggkpv-hadamard`: [GGKPV]'s shuffled multi-message Hadamard response (docs/ggkpv.md).

Commands: dp, rdp, pure, calibrate (and simulate, whose handler lives in
`verify/cli_handlers.py`). Flags: `--n --B` and the noise as `--rho R`, or as the target
`--epsilon E --delta D` that sets rho = ceil(log(1/delta)/epsilon^2) (the slides' rule with
constant 1); `--tau` overrides ceil(log2 n). `dp --at-delta` adds the slides' count-level
value under "epsilon_heuristic" (labelled heuristic; not a bound). `calibrate` needs only
`--n --B` and the target flags.
"""

from __future__ import annotations

import argparse
from typing import Any

from accountant.cli.faces.common import contract_handlers, dp_body
from accountant.cli.spec import ProtocolSpec
from accountant.cli.types import NOISE_EPSILON, USERS_PAIR, integer, real
from accountant.domains import DELTA, Interval
from accountant.errors import ParameterError
from accountant.protocols.ggkpv import (
    GGKPVHadamard,
    GGKPVParameters,
    calibrate,
    ggkpv_parameters,
    heuristic_epsilon,
)

__all__ = ["SPEC", "parameters_from_args"]


_DOMAIN = Interval("B", 2, 2**20, closed="both", integer=True)
_RHO = Interval("rho", 1, 1e6, closed="both", integer=True)
_TAU = Interval("tau", 1, 52, closed="both", integer=True,
                note="the domain of protocols.ggkpv.ggkpv_parameters")


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS_PAIR), help="number of users")
    p.add_argument("--B", type=integer(_DOMAIN), help="domain size (values 1..B, >= 2)")
    p.add_argument("--rho", type=integer(_RHO), help="noise tuples per user (>= 1)")
    p.add_argument("--epsilon", type=real(NOISE_EPSILON),
                   help="target epsilon setting rho by the slides' rule (with --delta)")
    p.add_argument("--delta", type=real(DELTA),
                   help="target delta setting rho by the slides' rule (with --epsilon)")
    p.add_argument("--tau", type=integer(_TAU), default=None,
                   help="indices per tuple (default ceil(log2 n))")


def parameters_from_args(args: argparse.Namespace) -> GGKPVParameters:
    """The parameters named by the flags.

    Args:
        args: parsed flags (--n, --B, --rho or --epsilon/--delta, --tau).

    Returns:
        Validated parameters.

    Raises:
        ParameterError: a missing or invalid flag.
    """
    if args.n is None:
        raise ParameterError("--n is required (number of users)")
    if args.B is None:
        raise ParameterError("--B is required (domain size >= 2)")
    if args.rho is None and (args.epsilon is None) != (args.delta is None):
        missing = "--delta" if args.delta is None else "--epsilon"
        raise ParameterError(f"{missing} is required with "
                             f"{'--epsilon' if args.delta is None else '--delta'} (they set rho "
                             "by the slides' rule), or give --rho instead")
    params = ggkpv_parameters(n=args.n, B=args.B, rho=args.rho, epsilon=args.epsilon,
                              delta=args.delta, tau=args.tau)
    if args.rho is None and not _RHO.contains(params.rho):
        # the rule's rho is checked like a given --rho: beyond it the views need more memory
        # than a machine has
        raise ParameterError(f"--epsilon {args.epsilon!r} --delta {args.delta!r} set rho = "
                             f"ceil(log(1/delta)/epsilon^2) = {params.rho:.4g}, outside "
                             f"{_RHO.describe()}; give a larger epsilon or --rho")
    return params


def _mechanism(args: argparse.Namespace) -> GGKPVHadamard:
    return GGKPVHadamard(parameters_from_args(args))


def _dp(args: argparse.Namespace) -> dict[str, Any]:
    m = _mechanism(args)
    out = dp_body(m, args)
    if args.at_delta is not None:
        out["epsilon_heuristic"] = heuristic_epsilon(m.parameters, args.at_delta).to_json()
    return out


def _calibrate(args: argparse.Namespace) -> dict[str, Any]:
    if args.n is None or args.B is None:
        raise ParameterError("calibrate needs --n and --B (the target is --target-epsilon, "
                             "--target-delta)")
    given = [f"--{k}" for k in ("rho", "epsilon", "delta") if getattr(args, k) is not None]
    if given:
        raise ParameterError(f"calibrate chooses rho for --target-epsilon/--target-delta; do "
                             f"not give {', '.join(given)}")
    return calibrate(n=args.n, B=args.B, target_epsilon=args.target_epsilon,
                     target_delta=args.target_delta, tau=args.tau).to_json()


SPEC = ProtocolSpec(name="ggkpv-hadamard",
                    summary="GGKPV shuffled multi-message Hadamard response (frequencies)",
                    add_arguments=_add_arguments,
                    handlers={**contract_handlers(_mechanism), "dp": _dp,
                              "calibrate": _calibrate},
                    mechanism=_mechanism)
