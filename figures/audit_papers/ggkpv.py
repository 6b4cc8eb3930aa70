"""The audit records of the GGKPV slides (docs/ggkpv.md): `audit(quick, record)` yields one
`AuditEntry` per checkable claim (see `figures.audit_report`)."""

# The snippets are shown to users as one-line commands: a lambda is the way to name a function
# there, and the imports stay in the order the commands show them.
# ruff: noqa: E731, I001

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from figures.audit_report import LOOSE_FACTOR, AuditEntry, Record, Snippet

__all__ = ["audit", "ggkpv_slides_rho", "ggkpv_calibrated_rho"]


# ------------------------------------------------- snippets (rules: figures.audit_papers)
def ggkpv_slides_rho() -> tuple[Any, ...]:
    import math
    from accountant.protocols import ggkpv
    r = math.ceil(ggkpv.slides_rho(1.0, 1e-6))
    return (float(ggkpv.epsilon_bracket(ggkpv.ggkpv_parameters(n=2000, B=63, rho=r),
                                        1e-6).lower), r)


def ggkpv_calibrated_rho() -> tuple[Any, ...]:
    from accountant.protocols import ggkpv
    c = ggkpv.calibrate(n=2000, B=63, target_epsilon=1.0, target_delta=1e-6)
    return (c.rho, ggkpv.slides_rho(1.0, 1e-6))


# ------------------------------------------------------------------------ records
def audit(quick: bool, record: Record) -> Iterator[AuditEntry]:
    yield record(
        "Hadamard response (slides)", "rho = log(1/delta)/eps^2 noise messages per user "
        "give (eps, delta)-DP (eps=1, delta=1e-6, n=2000, B=63)", Snippet(ggkpv_slides_rho),
        [("epsilon at delta, certified lower end", "lower"), ("rho used", "slides' rule")],
        lambda v: ("violated" if v[0] > 1.0 else "holds", v[0],
                   "the slides' constant 1 is too small (constant about 2.5-4.6, "
                   "docs/ggkpv.md#calibration); factor = computed eps / target"))
    if not quick:
        yield record(
            "Hadamard response (slides)", "rho = Theta(log(1/delta)/eps^2): the least "
            "certified rho against the slides' rule (n=2000, B=63, eps=1, delta=1e-6)",
            Snippet(ggkpv_calibrated_rho),
            [("least certified rho", "upper"), ("log(1/delta)/eps^2", "slides' rule")],
            lambda v: ("loose" if v[0] / v[1] >= LOOSE_FACTOR else "holds", v[0] / v[1],
                       "the Theta hides a constant; with constant 1 the rule is not private"))
    for locator, claim in (
            ("[CSUZZ19] (slides)", "an (eps, delta)-DP single-message shuffled protocol gives an "
             "(eps + log n, delta)-DP local one"),
            ("local lower bound (slides)", "LDP frequency error Omega~(1/(sqrt(n) e^(eps/4)))"),
            ("single-message lower bound (slides)", "single-message (1, o(1/n))-DP error "
             ">= min(Omega~(n^(1/4)), Omega~(sqrt(B)))"),
            ("multi-message upper bounds (slides)", "count-min and Hadamard response: error, "
             "communication O~(1)")):
        yield record(locator, claim, None, (), (
            "not applicable", None, "asymptotic statement without constants; the measured "
            "comparison is the figure ggkpv (reproduce --only ggkpv)"))
