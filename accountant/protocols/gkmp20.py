"""The earlier counting protocol of Ghazi, Kumar, Manurangsi, Pagh (ICML 2020): `gkmp20-count`.

Ghazi, Kumar, Manurangsi, Pagh, "Private Counting from Anonymous Messages: Near-Optimal
Accuracy with Vanishing Communication Overhead", ICML 2020, as described in Ghazi, Kumar,
Manurangsi, "Pure-DP Aggregation in the Shuffle Model", Sec. 1.2 and Sec. 3.1 (MATH.md 9.6):
a user with x = 1 sends one +1 (deterministic input step, nothing for x = 0), plus
Geo(1 - e^-epsilon')-divided noise and Poi(lam)-divided flood messages, exactly as in the
GKM protocol. Its view is the GKM view with q = 0 and s = 0 (V+ = m1 + N+ + F,
V- = N- + F), built by `gkm_view.view_pair`.

Its max-divergence is +inf (X' with x1 = 0 puts mass on V+ = #other ones, which X cannot
reach), while its (epsilon, delta) is finite.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from accountant.audit import audit_claim
from accountant.cli import positive_int
from accountant.protocols import gkm, gkm_view
from accountant.protocols.registry import ProtocolSpec
from accountant.result import Source

__all__ = ["gkmp20_parameters", "view_pair", "CLI_SPEC"]

CITATION = "Ghazi, Kumar, Manurangsi, Pagh, ICML 2020 (as described by Ghazi, Kumar, Manurangsi)"


def gkmp20_parameters(*, n: int, epsilon_prime: float, lam: float) -> gkm.GkmParameters:
    """Parameters of the GKMP20 protocol (q = 0, s = 0).

    Raises:
        ParameterError: n < 1, epsilon_prime <= 0 or lam <= 0.
    """
    gkm.N_USERS.check(n)
    gkm.EPSILON_PRIME.check(epsilon_prime)
    gkm.LAM.check(lam)
    return gkm.GkmParameters(n=int(n), epsilon=None, epsilon_prime=float(epsilon_prime),
                             q=0.0, s=0, lam=float(lam), choice="gkmp20")


def view_pair(params: gkm.GkmParameters, *, ones: int) -> Any:
    """The exact view pair (x1 = 1 vs x1 = 0) of the GKMP20 protocol."""
    return gkm.view_pair(params, ones=ones)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=positive_int, required=True, help="number of users")
    p.add_argument("--epsilon-prime", type=float, required=True, help="noise parameter")
    p.add_argument("--lam", type=float, required=True, help="flood parameter lam")
    p.add_argument("--ones", type=int, help="ones among the other n-1 users "
                   "(default: worst case over all counts)")


def parameters_from_args(args: argparse.Namespace) -> gkm.GkmParameters:
    return gkmp20_parameters(n=args.n, epsilon_prime=args.epsilon_prime, lam=args.lam)


def handle_pure(args: argparse.Namespace) -> dict:
    return gkm.handle_pure(args, parameters_from_args(args))


def handle_dp(args: argparse.Namespace) -> dict:
    return gkm.handle_dp(args, parameters_from_args(args))


def handle_rdp(args: argparse.Namespace) -> dict:
    return gkm.handle_rdp(args, parameters_from_args(args))


def handle_audit(args: argparse.Namespace) -> dict:
    """GKM's claim (Sec. 1.2, MATH.md 9.6) that GKMP20 is not epsilon-DP for any finite
    epsilon: claimed max-divergence +inf against the computed one."""
    params = parameters_from_args(args)
    gkm.check_box_budget(params, args.ones)
    lowers, uppers = [], []
    for k in gkm.ones_range(params, args.ones):
        v = view_pair(params, ones=k)
        lowers.append(gkm_view.pure_epsilon_lower(v))
        uppers.append(gkm_view.pure_epsilon(v))
    record = audit_claim(
        claim="not epsilon-DP for any finite epsilon (max-divergence = +inf)",
        source=Source(citation="Ghazi, Kumar, Manurangsi, Pure-DP Aggregation in the "
                      "Shuffle Model", locator="Sec. 1.2 (Technical Overview)"),
        quantity="max_divergence", claimed=math.inf,
        computed_upper=max(uppers, key=lambda r: r.value),
        computed_lower=max(lowers, key=lambda r: r.value), params=params.to_json())
    out = record.to_json()
    # the verdict of audit_claim compares "computed <= claimed"; for a claim of +inf the
    # claim is confirmed only if the certified lower bound is +inf too.
    out["verdict"] = "holds" if record.computed_lower is not None and math.isinf(
        float(record.computed_lower)) else "violated"
    out["looseness"] = 1.0 if out["verdict"] == "holds" else 0.0
    return out


CLI_SPEC = ProtocolSpec(
    name="gkmp20-count",
    summary="GKMP20 counting: deterministic input step (not pure-DP; finite (eps, delta))",
    add_arguments=add_arguments,
    handlers={"pure": handle_pure, "dp": handle_dp, "rdp": handle_rdp,
              "audit": handle_audit},
)
