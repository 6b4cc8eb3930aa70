"""`selfcheck`: the command-line face of `verify.selfcheck` (random privacy numbers checked
against the independent mpmath oracle); verify is imported only when the command runs."""

from __future__ import annotations

from typing import Any

from accountant.cli.spec import EXIT_STATUS
from accountant.cli.types import integer, real
from accountant.domains import Interval

__all__ = ["register"]

_SECONDS = Interval("seconds", 0.0, 86400.0, closed="right")
_SEED = Interval("seed", 0, 2 ** 32 - 1, closed="both", integer=True)


def _handle(args: Any) -> dict[str, Any]:
    """The `selfcheck` command: the report of `run` (the command line prints it as JSON
    with --json, else as a table); the process exits with status 1 when a check failed."""
    from verify.selfcheck import run  # (imported when the command runs)

    report = run(seed=args.seed, seconds=args.seconds, symbolic=args.symbolic)
    return report | ({EXIT_STATUS: 1} if report["violations"] else {})


def register(subparsers: Any) -> None:
    """Add the `selfcheck` command to the command line's subparsers.

    Args:
        subparsers: the object returned by `ArgumentParser.add_subparsers`.
    """
    parser = subparsers.add_parser(
        "selfcheck", help="run a sample of the soundness checks on this machine",
        description="Check random privacy numbers against an independent mpmath oracle "
                    "(verify/oracle.py): upper ends never below the truth, lower ends never "
                    "above it, exact values within their precision; first, sympy's proofs of "
                    "the closed-form identities the library relies on (verify/symbolic.py). "
                    "Exit status 1 when any check fails (the report lists the first 20), 0 "
                    "otherwise.")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seed", type=integer(_SEED), default=None,
                        help="random seed, an integer in [0, 4294967295] (default: fresh)")
    parser.add_argument("--seconds", type=real(_SECONDS), default=60.0,
                        help="time budget in seconds, in (0, 86400] (default 60)")
    parser.add_argument("--no-symbolic", dest="symbolic", action="store_false",
                        help="skip the sympy identity checks (about 5 s, run before the "
                             "budget starts)")
    parser.set_defaults(handler=_handle)
