"""Command-line faces of Balcer-Cheu zsum (`bc-zsum`) and hist (`bc-hist`) (CLI.md).

Commands: dp, rdp, pure, audit, calibrate, simulate.
- Flags: `--n --epsilon --delta` (p set as in Fig. 1) or `--n --p`; bc-hist adds `--d`.
- `audit` without --n/--epsilon/--delta (or with --table) prints the whole audit table of
  the issue (epsilon in {0.25, 0.5, 1}, delta in {1e-6, 1e-9}, n in {1e4, 1e6}) under
  "rows", with a "summary" of verdicts and looseness factors; with them, one record.
- `calibrate` needs only --n (and --d): the target is --target-epsilon/--target-delta.
- `simulate` (and the simulated error that `calibrate` adds) lives in
  `verify/cli_handlers.py`: the samplers are verify's, and accountant never imports verify.
"""

from __future__ import annotations

import argparse
from typing import Any

from accountant.cli.spec import ProtocolSpec
from accountant.cli.types import ONES, UNIT_EPSILON, UNIT_OPEN, USERS, integer, real
from accountant.domains import DELTA, Interval
from accountant.errors import ParameterError
from accountant.protocols.balcer_cheu import (
    BalcerCheuHist,
    BalcerCheuParameters,
    BalcerCheuZsum,
    accuracy_summary,
    audit_hist,
    audit_table,
    audit_zsum,
    calibrate,
    hist_epsilon_pld,
    hist_parameters,
    zsum_parameters,
)
from accountant.protocols.contract import Mechanism

__all__ = ["ZSUM", "HIST", "parameters_from_args"]


_DOMAIN_SIZE = Interval("d", 2, 1e6, closed="both", integer=True)
_LITERAL = Interval("literal-trials", 0, 1e6, closed="both", integer=True)


def _add_common(p: argparse.ArgumentParser, hist: bool) -> None:
    p.add_argument("--n", type=integer(USERS), help="number of users")
    p.add_argument("--epsilon", type=real(UNIT_EPSILON),
                   help="paper target epsilon in [1e-150, 1] (sets p, Fig. 1)")
    p.add_argument("--delta", type=real(DELTA),
                   help="paper target delta in (0, 1) (sets p, Fig. 1)")
    p.add_argument("--p", type=real(UNIT_OPEN),
                   help="the randomizer's Bernoulli parameter (instead of --epsilon --delta)")
    if hist:
        p.add_argument("--d", type=integer(_DOMAIN_SIZE), help="histogram domain size (>= 2)")


def _add_audit(p: argparse.ArgumentParser) -> None:
    p.add_argument("--table", action="store_true",
                   help="the whole audit table (the default without --n)")


def _add_simulate(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ones", type=integer(ONES), default=None,
                   help="users holding 1 (zsum) / value 1 (hist); default n//2")
    p.add_argument("--literal-trials", type=integer(_LITERAL), default=200,
                   help="runs of the literal (message-list) protocol")


def parameters_from_args(args: argparse.Namespace, hist: bool) -> BalcerCheuParameters:
    """The instance named by the flags: --n with --epsilon --delta (Fig. 1's p) or --p.

    Raises:
        ParameterError: --n missing, or --p given together with --epsilon/--delta, or
            neither (one line naming the flags).
    """
    if args.n is None:
        raise ParameterError("--n is required (number of users)")
    given_target = args.epsilon is not None or args.delta is not None
    if args.p is not None and given_target:
        raise ParameterError("give either --p or --epsilon and --delta (which set p as in "
                             f"Fig. 1), not both; got p={args.p}, epsilon={args.epsilon}, "
                             f"delta={args.delta}")
    if args.p is None and (args.epsilon is None or args.delta is None):
        raise ParameterError("give --epsilon and --delta (which set p as in Fig. 1), or --p")
    if hist:
        if args.d is None:
            raise ParameterError("--d is required for bc-hist (domain size >= 2)")
        return hist_parameters(n=args.n, d=args.d, epsilon=args.epsilon, delta=args.delta,
                               p=args.p)
    return zsum_parameters(n=args.n, epsilon=args.epsilon, delta=args.delta, p=args.p)


def _mechanism(params: BalcerCheuParameters, hist: bool, backend: str = "float") -> Mechanism:
    if hist and backend != "float":
        raise ParameterError(f"backend={backend!r} is not available for bc-hist "
                             "(2-D grid); valid: float")
    return BalcerCheuHist(params) if hist else BalcerCheuZsum(params, backend=backend)


def _dp(hist: bool) -> Any:
    def handle(args: argparse.Namespace) -> dict[str, Any]:
        params = parameters_from_args(args, hist)
        out: dict[str, Any] = {"params": params.to_json()}
        mechanism = _mechanism(params, hist, args.backend)
        if args.at_delta is not None:
            out["epsilon"] = mechanism.epsilon_for_delta(args.at_delta).require_upper().to_json()
            out["delta"] = {"value": args.at_delta, "kind": "exact"}
            if hist:
                out["epsilon_cross_check"] = hist_epsilon_pld(params, args.at_delta).to_json()
        else:
            out["delta"] = mechanism.delta_for_epsilon(args.at_epsilon).require_upper().to_json()
            out["epsilon"] = {"value": args.at_epsilon, "kind": "exact"}
        if params.epsilon is not None and params.delta is not None:
            factor = 2 if hist else 1
            out["paper_guarantee"] = {
                "epsilon": factor * params.epsilon, "delta": factor * params.delta,
                "source": "Theorem 3.2(i)" if hist else "Theorem 3.1(i)"}
        return out
    return handle


def _rdp(hist: bool) -> Any:
    def handle(args: argparse.Namespace) -> dict[str, Any]:
        params = parameters_from_args(args, hist)
        brackets = _mechanism(params, hist).renyi(args.orders)
        return {"params": params.to_json(),
                "renyi": [b.require_upper().to_json() | {"order": a}
                          for a, b in zip(args.orders, brackets, strict=True)]}
    return handle


def _pure(hist: bool) -> Any:
    def handle(args: argparse.Namespace) -> dict[str, Any]:
        params = parameters_from_args(args, hist)
        pure = _mechanism(params, hist).max_divergence().require_upper()
        return {"params": params.to_json(), "max_divergence": pure.to_json()}
    return handle


def _audit(hist: bool) -> Any:
    def handle(args: argparse.Namespace) -> dict[str, Any]:
        if args.p is not None:
            raise ParameterError(f"audit checks the paper's claim at --epsilon --delta (which "
                                 f"set p as in Fig. 1); do not give --p (got p={args.p})")
        instance = [f"--{k}" for k in ("n", "epsilon", "delta")
                    if getattr(args, k) is not None]
        if getattr(args, "table", False) and instance:
            raise ParameterError(f"--table prints the whole audit table; do not give "
                                 f"{', '.join(instance)} with it")
        if args.n is None and instance:
            raise ParameterError(f"audit of one instance needs --n with {', '.join(instance)} "
                                 "(or no flags for the whole table)")
        if getattr(args, "table", False) or args.n is None:
            rows = audit_table("hist" if hist else "zsum", d=args.d or 2 if hist else 2)
            decided = [r for r in rows if r["verdict"] != "not applicable"]
            return {"rows": rows, "summary": {
                "rows": len(rows), "holds": sum(r["verdict"] == "holds" for r in rows),
                "loose": sum(r["verdict"] == "loose" for r in rows),
                "not_applicable": len(rows) - len(decided),
                "looseness_min": min((r["looseness"] for r in decided), default=None),
                "looseness_max": max((r["looseness"] for r in decided), default=None)}}
        if args.epsilon is None or args.delta is None:
            raise ParameterError("audit needs --epsilon and --delta (the paper's claim), or "
                                 "no flags for the whole table")
        if hist:
            return audit_hist(epsilon=args.epsilon, delta=args.delta, n=args.n,
                              d=args.d or 2).to_json()
        return audit_zsum(epsilon=args.epsilon, delta=args.delta, n=args.n).to_json()
    return handle


def _calibrate(hist: bool) -> Any:
    def handle(args: argparse.Namespace) -> dict[str, Any]:
        if args.n is None:
            raise ParameterError("--n is required (number of users)")
        if hist and args.d is None:
            raise ParameterError("--d is required for bc-hist (domain size >= 2)")
        given = [f"--{k}" for k in ("p", "epsilon", "delta") if getattr(args, k) is not None]
        if given:
            raise ParameterError(f"calibrate chooses p for --target-epsilon/--target-delta; "
                                 f"do not give {', '.join(given)}")
        c = calibrate(protocol="hist" if hist else "zsum", n=args.n,
                      target_epsilon=args.target_epsilon, target_delta=args.target_delta,
                      d=args.d if hist else None)
        out = c.to_json()
        halve = 2.0 if hist else 1.0  # the paper's (eps, delta) behind paper_p
        acc = accuracy_summary(c.params, paper=c.paper_p, beta=0.01,
                               epsilon=args.target_epsilon / halve,
                               delta=args.target_delta / halve)
        acc["exact_error_kind"] = "one value's |output - count/n| (zsum analyzer)"
        out["accuracy"] = acc
        return out
    return handle


def _spec(hist: bool) -> ProtocolSpec:
    return ProtocolSpec(
        name="bc-hist" if hist else "bc-zsum",
        summary=("Balcer-Cheu histogram (Fig. 2)" if hist
                 else "Balcer-Cheu zero-sum binary counting (Fig. 1)"),
        add_arguments=lambda p: _add_common(p, hist),
        command_arguments={"audit": _add_audit, "simulate": _add_simulate},
        handlers={"dp": _dp(hist), "rdp": _rdp(hist), "pure": _pure(hist),
                  "audit": _audit(hist), "calibrate": _calibrate(hist)},
        mechanism=lambda args: _mechanism(parameters_from_args(args, hist), hist))


ZSUM = _spec(False)
HIST = _spec(True)
