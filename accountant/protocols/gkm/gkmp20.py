"""The earlier counting protocol of Ghazi, Kumar, Manurangsi, Pagh (ICML 2020): `gkmp20-count`.

Ghazi, Kumar, Manurangsi, Pagh, "Private Counting from Anonymous Messages: Near-Optimal
Accuracy with Vanishing Communication Overhead", ICML 2020, as described in Ghazi, Kumar,
Manurangsi, "Pure-DP Aggregation in the Shuffle Model", Sec. 1.2 and Sec. 3.1
(docs/gkm.md#why-gkmp20-is-not-pure-dp):
a user with x = 1 sends one +1 (deterministic input step, nothing for x = 0), plus
Geo(1 - e^-epsilon')-divided noise and Poi(lam)-divided flood messages, exactly as in the
GKM protocol. Its view is the GKM view with q = 0 and s = 0 (V+ = m1 + N+ + F,
V- = N- + F), built by `gkm_view.view_pair`.

Its max-divergence is +inf (X' with x1 = 0 puts mass on V+ = #other ones, which X cannot
reach), while its (epsilon, delta) is finite.
"""

from __future__ import annotations

import math
from typing import Any

from accountant.audit import audit_claim
from accountant.protocols.gkm import counts
from accountant.protocols.gkm import protocol as gkm
from accountant.protocols.gkm import view as gkm_view
from accountant.result import Source

__all__ = ["gkmp20_parameters", "view_pair", "audit_not_pure", "CITATION"]

CITATION = "Ghazi, Kumar, Manurangsi, Pagh, ICML 2020 (as described by Ghazi, Kumar, Manurangsi)"


def gkmp20_parameters(*, n: int, epsilon_prime: float, lam: float) -> gkm.GkmParameters:
    """Parameters of the GKMP20 protocol (q = 0, s = 0).

    Args:
        n: number of users, an integer >= 1.
        epsilon_prime: the noise parameter, > 0.
        lam: the flood parameter, > 0.

    Returns:
        GkmParameters with epsilon None, q = 0, s = 0 and choice "gkmp20".

    Raises:
        ParameterError: n < 1, epsilon_prime outside [gkm.MIN_EPSILON_PRIME,
            gkm.MAX_EPSILON_PRIME] or lam <= 0.
    """
    gkm.N_USERS.check(n)
    gkm.check_epsilon_prime(epsilon_prime)
    gkm.LAM.check(lam)
    return gkm.GkmParameters(n=int(n), epsilon=None, epsilon_prime=float(epsilon_prime),
                             q=0.0, s=0, lam=float(lam), choice="gkmp20")


def view_pair(params: gkm.GkmParameters, *, ones: int) -> Any:
    """The exact view pair (x1 = 1 vs x1 = 0) of the GKMP20 protocol.

    Args:
        params: GKMP20 parameters (`gkmp20_parameters`).
        ones: ones among the other n - 1 users, an integer in 0..n-1.

    Returns:
        The float ViewPair of `gkm.view_pair`.

    Raises:
        ParameterError: ones outside 0..n-1.
    """
    return gkm.view_pair(params, ones=ones)


def audit_not_pure(params: gkm.GkmParameters, *, ones: int | None = None) -> dict[str, Any]:
    """GKM's claim (Sec. 1.2; docs/gkm.md) that GKMP20 is not epsilon-DP for any finite
    epsilon: claimed max-divergence +inf against the computed one.

    `audit_claim` compares computed <= claimed; for a claim of +inf the claim is confirmed
    only if the certified lower bound is +inf too, so the verdict is decided here.

    Args:
        params: GKMP20 parameters.
        ones: one count only; None for all counts 0..n-1.

    Returns:
        The audit record's JSON object with the verdict and looseness set accordingly:
        "holds" (looseness 1.0) when the largest certified lower end is +inf, "violated"
        (looseness 0.0) when the upper end is finite, "undecided" otherwise.

    Raises:
        ParameterError: ones outside 0..n-1, or a view beyond its atom budget
            (`counts.ONE_VIEW_ATOMS`).
    """
    # every count's pair is the one-user pair shifted by (ones, 0) (docs/gkm.md#a-dominating-
    # pair): one view on its rays stands for all of them, at any n
    v = counts.dominating_view(params) if ones is None else counts.ray_view(params, ones=ones)
    lowers = [gkm_view.pure_epsilon_lower(v)]
    upper = gkm_view.pure_epsilon(v)
    record = audit_claim(
        claim="not epsilon-DP for any finite epsilon (max-divergence = +inf)",
        source=Source(citation="Ghazi, Kumar, Manurangsi, Pure-DP Aggregation in the "
                      "Shuffle Model", locator="Sec. 1.2 (Technical Overview)"),
        quantity="max_divergence", claimed=math.inf,
        computed_upper=upper,
        computed_lower=max(lowers, key=lambda r: r.value), params=params.to_json())
    out = record.to_json()
    lower_inf = record.computed_lower is not None and math.isinf(float(record.computed_lower))
    upper_finite = math.isfinite(float(upper))
    # holds only on a certified +inf; violated only on a certified finite value; a finite
    # lower end with an infinite upper end decides nothing
    out["verdict"] = "holds" if lower_inf else ("violated" if upper_finite else "undecided")
    out["looseness"] = 1.0 if out["verdict"] == "holds" else 0.0
    return out
