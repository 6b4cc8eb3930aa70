"""Balcer-Cheu's privacy claims against the exact values (`shuffle-accountant audit`).

Claims audited (Balcer & Cheu, ITC 2020):
- Theorem 3.1(i): zsum with p = 1 - 50 log(2/delta)/(epsilon^2 n) is (epsilon, delta)-DP.
  Computed: the exact epsilon at delta, as a certified bracket
  (docs/balcer-cheu-2020.md#exact-zsum-view).
- Theorem 3.2(i): hist with the same p is (2 epsilon, 2 delta)-DP (basic composition over
  the two changed coordinates). Computed: the exact epsilon of the product pair at
  2 delta (docs/balcer-cheu-2020.md#the-hist-protocol), as a certified bracket.

The verdict comes from `accountant.audit.audit_claim`; `looseness` = claimed / computed.
A grid point outside Theorem 3.1's regime (n < 100 log(2/delta)/epsilon^2, i.e. p < 1/2
or even p < 0) has no claim to audit: its row says "not applicable" with the reason.
"""

from __future__ import annotations

from typing import Any

from accountant.audit import AuditRecord, audit_claim
from accountant.bounds.balcer_cheu_2020 import CITATION
from accountant.errors import RegimeError
from accountant.protocols.balcer_cheu.views import (
    hist_epsilon_bracket,
    hist_parameters,
    zsum_epsilon_bracket,
    zsum_parameters,
)
from accountant.result import Source

__all__ = ["AUDIT_GRID", "audit_zsum", "audit_hist", "audit_table"]

# The audit table: epsilon x delta x n.
AUDIT_GRID: dict[str, tuple[Any, ...]] = {
    "epsilon": (0.25, 0.5, 1.0), "delta": (1e-6, 1e-9), "n": (10**4, 10**6)}


def audit_zsum(*, epsilon: float, delta: float, n: int) -> AuditRecord:
    """Theorem 3.1(i) at (epsilon, delta, n) against zsum's exact epsilon(delta).

    Args:
        epsilon: the paper's target epsilon, in (0, 1].
        delta: the paper's target delta, in (0, 1).
        n: number of users, an integer >= 100 log(2/delta)/epsilon^2 (Theorem 3.1).

    Returns:
        The AuditRecord of `audit.audit_claim`: quantity "epsilon", claimed = epsilon,
        computed bracket `zsum_epsilon_bracket` at delta for the paper's p.

    Raises:
        ParameterError: an argument is outside its domain.
        RegimeError: n is below Theorem 3.1's bound (no claim to audit).
    """
    params = zsum_parameters(n=n, epsilon=epsilon, delta=delta)
    lower, upper = zsum_epsilon_bracket(params, delta)
    return audit_claim(claim=f"(epsilon, delta) = ({epsilon!r}, {delta!r})-DP",
                       source=Source(citation=CITATION, locator="Theorem 3.1(i)"),
                       quantity="epsilon", claimed=float(epsilon), computed_upper=upper,
                       computed_lower=lower, params=params.to_json())


def audit_hist(*, epsilon: float, delta: float, n: int, d: int = 2) -> AuditRecord:
    """Theorem 3.2(i) at (epsilon, delta, n): hist is (2 eps, 2 delta)-DP; computed: the
    exact epsilon of the product pair at 2 delta.

    Args:
        epsilon: the paper's epsilon, in (0, 1].
        delta: the paper's delta, in (0, 1/2) (2 delta must be a valid delta).
        n: number of users, an integer >= 100 log(2/delta)/epsilon^2 (Theorem 3.1).
        d: histogram domain size, an integer >= 2.

    Returns:
        The AuditRecord of `audit.audit_claim`: quantity "epsilon", claimed = 2 epsilon,
        computed bracket `hist_epsilon_bracket` at 2 delta for the paper's p.

    Raises:
        ParameterError: an argument is outside its domain.
        RegimeError: n is below Theorem 3.1's bound.
    """
    params = hist_parameters(n=n, d=d, epsilon=epsilon, delta=delta)
    lower, upper = hist_epsilon_bracket(params, 2 * delta)
    return audit_claim(claim=f"(2 epsilon, 2 delta) = ({2 * epsilon!r}, {2 * delta!r})-DP",
                       source=Source(citation=CITATION, locator="Theorem 3.2(i)"),
                       quantity="epsilon", claimed=2 * float(epsilon), computed_upper=upper,
                       computed_lower=lower, params=params.to_json())


def audit_table(protocol: str, *, grid: dict[str, tuple[Any, ...]] | None = None,
                d: int = 2) -> list[dict[str, Any]]:
    """One JSON row per grid point (epsilon, delta, n): the AuditRecord's JSON, or a
    "not applicable" row naming the violated hypothesis.

    Args:
        protocol: "zsum"; any other value audits hist (it is not validated).
        grid: {"epsilon": (...), "delta": (...), "n": (...)}; None for AUDIT_GRID.
        d: histogram domain size for hist.

    Returns:
        A list of dicts, n outermost, then delta, then epsilon: `AuditRecord.to_json()`,
        or {"params", "verdict": "not applicable", "reason"} where RegimeError was raised.

    Raises:
        ParameterError: a grid value (or d) outside its domain.
    """
    grid = AUDIT_GRID if grid is None else grid
    rows = []
    for n in grid["n"]:
        for delta in grid["delta"]:
            for epsilon in grid["epsilon"]:
                try:
                    record = (audit_zsum(epsilon=epsilon, delta=delta, n=n) if protocol == "zsum"
                              else audit_hist(epsilon=epsilon, delta=delta, n=n, d=d))
                    rows.append(record.to_json())
                except RegimeError as exc:
                    rows.append({"params": {"n": n, "epsilon": epsilon, "delta": delta},
                                 "verdict": "not applicable", "reason": str(exc)})
    return rows
