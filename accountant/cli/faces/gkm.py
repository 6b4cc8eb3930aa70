"""`gkm-count` and `gkmp20-count`: Ghazi-Kumar-Manurangsi counting and GKMP20."""

from __future__ import annotations

import argparse
from typing import Any

from accountant.cli.faces.common import dp_body, rdp_body
from accountant.cli.spec import ProtocolSpec
from accountant.cli.types import EPSILON, ONES, UNIT_OPEN, USERS, integer, real
from accountant.domains import Interval
from accountant.errors import ParameterError
from accountant.protocols import gkm
from accountant.protocols.gkm import GKMCount, GKMP20Count, GkmParameters

__all__ = ["GKM", "GKMP20", "parameters_from_args", "gkmp20_parameters_from_args"]


_RHO = Interval("rho", 0.0, 0.5, closed="right")
# the protocol's float model bounds the noise parameter (gkm.check_epsilon_prime says why)
_EPSILON_PRIME = Interval("epsilon-prime", gkm.MIN_EPSILON_PRIME, gkm.MAX_EPSILON_PRIME,
                          closed="both", note="e^-epsilon' must be in (0, 1) in float64")
_COPIES = Interval("s", 1, 1e6, closed="both", integer=True)
_LAM = Interval("lam", 0.0, 1e7, closed="neither")


def _add_gkm(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS), required=True, help="number of users")
    p.add_argument("--epsilon", type=real(EPSILON), required=True,
                   help="pure-DP target (Condition 7 / Theorem 6)")
    p.add_argument("--rho", type=real(_RHO), help="Theorem 6's accuracy slack in (0, 1/2]")
    p.add_argument("--corrected-q", action="store_true",
                   help="with --rho: q = 0.1 rho min(1, Var)/n (docs/gkm.md)")
    p.add_argument("--epsilon-prime", type=real(_EPSILON_PRIME),
                   help="noise parameter epsilon' (0 < epsilon' < epsilon)")
    p.add_argument("--q", type=real(UNIT_OPEN.named("q")), help="drop probability q in (0, 1)")
    p.add_argument("--s", type=integer(_COPIES), help="copies s (default: Condition 7's least)")
    p.add_argument("--lam", type=real(_LAM), help="flood lam (default: Condition 7's least)")
    p.add_argument("--ones", type=integer(ONES), help="ones among the other n-1 users "
                   "(default: worst case over all counts; simulate: all n users hold 1)")
    p.add_argument("--no-check", action="store_true",
                   help="do not require Condition 7 (study violating parameters)")


def _add_gkmp20(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS), required=True, help="number of users")
    p.add_argument("--epsilon-prime", type=real(_EPSILON_PRIME), required=True,
                   help="noise parameter epsilon' > 0")
    p.add_argument("--lam", type=real(_LAM), required=True, help="flood parameter lam > 0")
    p.add_argument("--ones", type=integer(ONES), help="ones among the other n-1 users "
                   "(default: worst case over all counts)")


def parameters_from_args(args: argparse.Namespace) -> GkmParameters:
    """GKM parameters from --rho (Theorem 6) or --epsilon-prime --q [--s --lam]."""
    if args.rho is not None:
        if any(getattr(args, k) is not None for k in ("epsilon_prime", "q", "s", "lam")):
            raise ParameterError("give either --rho (Theorem 6) or --epsilon-prime --q "
                                 "[--s --lam], not both")
        if args.no_check:
            raise ParameterError("--no-check applies to given parameters; Theorem 6's "
                                 "(--rho) always satisfy Condition 7")
        return gkm.theorem6_parameters(n=args.n, epsilon=args.epsilon, rho=args.rho,
                                       corrected_q=args.corrected_q)
    if args.corrected_q:
        raise ParameterError("--corrected-q changes Theorem 6's q: it needs --rho")
    if args.epsilon_prime is None or args.q is None:
        raise ParameterError("gkm-count needs --rho, or --epsilon-prime and --q")
    return gkm.gkm_parameters(n=args.n, epsilon=args.epsilon, epsilon_prime=args.epsilon_prime,
                              q=args.q, s=args.s, lam=args.lam, strict=not args.no_check)


def gkmp20_parameters_from_args(args: argparse.Namespace) -> GkmParameters:
    """GKMP20 parameters (q = 0, s = 0) from --n --epsilon-prime --lam."""
    return gkm.gkmp20.gkmp20_parameters(n=args.n, epsilon_prime=args.epsilon_prime,
                                        lam=args.lam)


def _mechanism_of(parse: Any, mechanism_class: type[GKMCount]) -> Any:
    """The flags -> the family's contract Mechanism (what `compose --mechanism` composes)."""
    def mechanism(args: argparse.Namespace) -> GKMCount:
        return mechanism_class(parse(args), ones=args.ones)
    return mechanism


def _faces(parse: Any, mechanism_class: type[GKMCount]) -> dict[str, Any]:
    mechanism = _mechanism_of(parse, mechanism_class)

    def pure(args: argparse.Namespace) -> dict[str, Any]:
        params = parse(args)
        both, pq, qp = gkm.pure_epsilon_bound(params, ones=args.ones)
        return {"params": params.to_json() | ({"ones": args.ones} if args.ones is not None
                                              else {}),
                "max_divergence": both.to_json(),
                "max_divergence_x1_is_1_vs_0": pq.to_json(),
                "max_divergence_x1_is_0_vs_1": qp.to_json()}

    def dp(args: argparse.Namespace) -> dict[str, Any]:
        # both ends: the worst case's lower end, or one count's where the upper end is the
        # one-user pair's (docs/gkm.md#a-dominating-pair)
        return dp_body(mechanism(args), args)

    def rdp(args: argparse.Namespace) -> dict[str, Any]:
        return rdp_body(mechanism(args), args)

    return {"pure": pure, "dp": dp, "rdp": rdp}


def _gkm_audit(args: argparse.Namespace) -> dict[str, Any]:
    params = parameters_from_args(args)
    out = gkm.audit_lemma8(params, ones=args.ones).to_json()
    mse = gkm.audit_theorem6_mse(params)
    if mse is not None:
        out["mse_audit"] = mse
    return out


def _gkmp20_audit(args: argparse.Namespace) -> dict[str, Any]:
    return gkm.gkmp20.audit_not_pure(gkmp20_parameters_from_args(args), ones=args.ones)


GKM = ProtocolSpec(
    name="gkm-count",
    summary="Ghazi-Kumar-Manurangsi pure-DP binary counting (correlated noise)",
    add_arguments=_add_gkm,
    handlers=_faces(parameters_from_args, GKMCount) | {"audit": _gkm_audit},
    mechanism=_mechanism_of(parameters_from_args, GKMCount))

GKMP20 = ProtocolSpec(
    name="gkmp20-count",
    summary="GKMP20 counting: deterministic input step (not pure-DP; finite (eps, delta))",
    add_arguments=_add_gkmp20,
    handlers=_faces(gkmp20_parameters_from_args, GKMP20Count) | {"audit": _gkmp20_audit},
    mechanism=_mechanism_of(gkmp20_parameters_from_args, GKMP20Count))
