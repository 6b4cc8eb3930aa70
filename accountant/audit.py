"""Claimed-versus-computed privacy: the record every protocol's `audit` returns.

A paper claims a guarantee (epsilon, delta); the library computes the true epsilon at the
claimed delta (or delta at the claimed epsilon) as a certified bracket. The verdict:

- `holds`: the computed certified upper bound is <= the claim, and the claim is less than
  LOOSE_FACTOR times it;
- `loose`: it holds, but the claim is at least LOOSE_FACTOR times the certified upper bound
  (the paper's guarantee is much weaker than what the protocol gives);
- `violated`: a computed certified lower bound (or exact value) is > the claim;
- `undecided`: neither is decided: the claim lies inside our [lower, upper] bracket, so the
  computation is too loose to confirm or refute it (tighten the tails or the precision).

These are the verdicts of `shuffle-accountant audit PAPER` too (`figures.audit_report` adds
"not applicable" for claims nothing can be computed for); `upper_verdict` is the one rule.

`looseness` = claimed / computed value (upper bound if available): how many times larger
the paper's number is than what the protocol actually guarantees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from accountant.result import Kind, Result, Source

__all__ = ["AuditRecord", "LOOSE_FACTOR", "audit_claim", "upper_verdict", "VERDICTS"]

VERDICTS = ("holds", "loose", "violated", "undecided")
# a claim this many times (or more) above the certified upper end is "loose", not "holds"
LOOSE_FACTOR = 2.0


def upper_verdict(claimed: float, lower: float | None,
                  upper: float | None) -> tuple[str, float | None]:
    """The verdict of an upper-bound claim against a certified bracket [lower, upper].

    Args:
        claimed: the paper's value (a claimed upper bound on the quantity).
        lower: the certified lower end (None where not computed).
        upper: the certified upper end (None where not computed).

    Returns:
        (verdict, factor): "holds"/"loose" with factor claimed / upper (inf at upper = 0),
        "violated" with factor lower / claimed, or ("undecided", None).
    """
    if upper is not None and upper <= claimed:
        factor = math.inf if upper == 0 else claimed / upper
        return ("loose" if factor >= LOOSE_FACTOR else "holds"), factor
    if lower is not None and lower > claimed:
        return "violated", (math.inf if claimed == 0 else lower / claimed)
    return "undecided", None


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditRecord:
    """One (paper, claim) checked against a computation.

    Attributes:
        claim: what the paper claims, e.g. "(epsilon, delta) = (1, 1e-6)".
        source: the paper and statement.
        quantity: "epsilon" or "delta" (what is compared).
        claimed: the paper's value of that quantity.
        computed_upper, computed_lower: the certified bracket (either may be None).
        verdict: one of VERDICTS (see the module docstring).
        looseness: claimed / computed (inf if the computed value is 0).
        params: the parameters of the audited protocol instance.
    """

    claim: str
    source: Source
    quantity: str
    claimed: float
    computed_upper: Result | None
    computed_lower: Result | None
    verdict: str
    looseness: float
    params: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (the CLI's audit output).

        Returns:
            A dict with "claim", "source" (str), "params", "claimed" ({"quantity", "value",
            "kind": "claimed"}), "computed" (the upper end's `Result.to_json()`, else the lower
            end's), "verdict", "looseness", and "computed_lower" when both ends are set.
        """
        computed = self.computed_upper or self.computed_lower
        out: dict[str, Any] = {
            "claim": self.claim,
            "source": str(self.source),
            "params": self.params,
            "claimed": {"quantity": self.quantity, "value": self.claimed, "kind": "claimed"},
            "computed": computed.to_json() if computed else None,
            "verdict": self.verdict,
            "looseness": self.looseness,
        }
        if self.computed_lower is not None and self.computed_upper is not None:
            out["computed_lower"] = self.computed_lower.to_json()
        return out


def audit_claim(*, claim: str, source: Source, quantity: str, claimed: float,
                computed_upper: Result | None, computed_lower: Result | None,
                params: dict[str, Any]) -> AuditRecord:
    """Build an AuditRecord, deciding the verdict from the certified bracket.

    An EXACT result serves as both ends of the bracket.

    Args:
        claim: the paper's claim as text, e.g. "(epsilon, delta) = (1, 1e-6)".
        source: the paper and statement making the claim.
        quantity: "epsilon" or "delta": the quantity compared.
        claimed: the paper's value of that quantity.
        computed_upper: an UPPER (or EXACT) Result on the protocol's value, or None.
        computed_lower: a LOWER (or EXACT) Result on the protocol's value, or None.
        params: the audited instance's parameters (stored as given).

    Returns:
        An AuditRecord with the verdict of `upper_verdict` ("undecided" also when the
        deciding end is missing), and looseness = claimed / float(upper end, else lower end)
        (inf when that is 0).

    Raises:
        ValueError: computed_upper is neither UPPER nor EXACT, computed_lower is neither
            LOWER nor EXACT, or both are None.
    """
    for r, want in ((computed_upper, (Kind.UPPER, Kind.EXACT)),
                    (computed_lower, (Kind.LOWER, Kind.EXACT))):
        if r is not None and r.kind not in want:
            raise ValueError(f"audit_claim got a {r.kind} result where {want} was needed")
    if computed_upper is None and computed_lower is None:
        raise ValueError("audit_claim needs at least one computed bound")
    if computed_upper is not None and computed_upper.kind is Kind.EXACT:
        computed_lower = computed_lower or computed_upper
    if computed_lower is not None and computed_lower.kind is Kind.EXACT:
        computed_upper = computed_upper or computed_lower
    verdict, _ = upper_verdict(
        claimed, None if computed_lower is None else computed_lower.lower_end(),
        None if computed_upper is None else computed_upper.upper_end())
    ref = computed_upper if computed_upper is not None else computed_lower
    assert ref is not None  # at least one of the two was required above
    value = float(ref)
    looseness = math.inf if value == 0 else claimed / value
    return AuditRecord(claim=claim, source=source, quantity=quantity, claimed=claimed,
                       computed_upper=computed_upper, computed_lower=computed_lower,
                       verdict=verdict, looseness=looseness, params=params)
