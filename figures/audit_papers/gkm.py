"""The audit records of Ghazi-Kumar-Manurangsi (docs/gkm.md): `audit(quick, record)` yields one
`AuditEntry` per checkable claim (see `figures.audit_report`)."""

# The snippets are shown to users as one-line commands: a lambda is the way to name a function
# there, and the imports stay in the order the commands show them.
# ruff: noqa: E731, I001

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from figures.audit_report import AuditEntry, CliCommand, Record, Snippet, upper_verdict

__all__ = [
    "audit", "gkm_thm6_mse", "gkm_thm6_privacy", "gkm_algorithm2", "gkm_lemma11", "gkm_lemma12",
]


# ------------------------------------------------- snippets (rules: figures.audit_papers)
def gkm_thm6_mse(epsilon: float) -> tuple[Any, ...]:
    from accountant.protocols import gkm
    p = gkm.theorem6_parameters(n=10**4, epsilon=epsilon, rho=0.5)
    return (gkm.mse_exact(p, ones=p.n), (1 + 0.5) * gkm.dlap_variance(p.epsilon))


def gkm_thm6_privacy() -> tuple[Any, ...]:
    from accountant.protocols import gkm
    p = gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.5, corrected_q=True)
    return (float(gkm.max_divergence(p, ones=0)),)


def gkm_algorithm2() -> tuple[Any, ...]:
    import numpy as np
    from accountant.protocols import gkm
    from verify.samplers import gkm as s
    p = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1)
    vp, vm = s.sample_views(np.ones(10, dtype=int), epsilon_prime=0.5, q=0.1, s=p.s,
                            lam=p.lam, trials=20000, rng=np.random.default_rng(7))
    return (float(np.mean(vp - vm - 10 * p.s)) - 10, -10 * p.s - 10 * 0.1)


def gkm_lemma11() -> tuple[Any, ...]:
    from accountant.protocols import gkm
    p = gkm.theorem6_parameters(n=10**4, epsilon=1.0, rho=0.5, corrected_q=True)
    return (gkm.mse_exact(p, ones=p.n), gkm.mse_upper_lemma11(p))


def gkm_lemma12() -> tuple[Any, ...]:
    from accountant.protocols import gkm
    p = gkm.theorem6_parameters(n=10**4, epsilon=1.0, rho=0.5, corrected_q=True)
    return (gkm.expected_messages(p, x=1), 2 * p.s + 1 + p.lam / p.n)


# ------------------------------------------------------------------------ records
def audit(quick: bool, record: Record) -> Iterator[AuditEntry]:
    from accountant.protocols import gkm
    from accountant.protocols.gkm import gkmp20

    p = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1)
    rec = gkm.audit_lemma8(p)
    up = float(rec.computed_upper)
    yield record(
        "Lemma 8", "eps-DP under Condition 7 (n=10, eps=1, eps'=0.5, q=0.1, least s, lam)",
        CliCommand(("audit", "gkm-count", "--n", "10", "--epsilon", "1", "--epsilon-prime",
                    "0.5", "--q", "0.1", "--json"), (up,)),
        [("max-divergence, worst over datasets", "upper")],
        (*upper_verdict(1.0, None, up), rec.claim))
    bad = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1, s=1, lam=1.0,
                             strict=False)
    rec = gkm.audit_lemma8(bad)
    yield record(
        "Lemma 8 (Condition 7 violated)", "eps-DP needs Condition 7 (s=1, lam=1: it fails)",
        CliCommand(("audit", "gkm-count", "--n", "10", "--epsilon", "1", "--epsilon-prime",
                    "0.5", "--q", "0.1", "--s", "1", "--lam", "1", "--no-check", "--json"),
                   (float(rec.computed_lower),)),
        [("max-divergence, worst over datasets", "lower")],
        ("not applicable", None,
         "hypothesis fails, so the lemma claims nothing; the protocol is then not 1-DP. "
         + rec.claim))
    for eps in (0.05, 0.1, 1.0):
        yield record(
            "Theorem 6 (MSE)", f"MSE <= (1 + rho) Var(DLap(eps)) with the printed q "
            f"(eps={eps:g}, rho=0.5, n=1e4, all ones)", Snippet(gkm_thm6_mse,
                                                                {"epsilon": eps}),
            [("MSE, all-ones dataset", "exact"), ("(1 + rho) Var(DLap(eps))", "claimed")],
            lambda v: (*upper_verdict(v[1], v[0], v[0]),
                       "printed q = 0.1 rho Var/n makes (q n)^2 too large at small eps; "
                       "q = 0.1 rho min(1, Var)/n restores the claim (docs/errata.md, GKM 2)"))
    if not quick:
        yield record(
            "Theorem 6 (privacy)", "eps-DP at Theorem 6's constants (n=10, eps=1, rho=0.5, "
            "corrected q; the pair with no other ones)", Snippet(gkm_thm6_privacy),
            [("max-divergence of that pair", "upper")],
            lambda v: (*upper_verdict(1.0, None, v[0]),
                       "one neighbouring pair only (~17 s); every count: shuffle-"
                       "accountant audit gkm-count --n 10 --epsilon 1 --rho 0.5 --corrected-q"))
    yield record(
        "Algorithm 2", "the analyzer's output (sum of messages) - n s estimates the count "
        "(n=10, s=8, all ones)", Snippet(gkm_algorithm2),
        [("mean error of the printed analyzer (20000 seeded runs)", "simulated"),
         ("its exact bias -n s - n q", "exact")],
        lambda v: ("violated", abs(v[1]) / 1.0,
                   "the s copies already cancel in V+ - V-; the printed analyzer is biased by "
                   "-n s (docs/errata.md, GKM 1); factor = |bias| in counts"))
    yield record(
        "Lemma 11", "MSE <= Var(DLap(eps')) + q n + q^2 n (n-1) (eps=1, rho=0.5, n=1e4)",
        Snippet(gkm_lemma11),
        [("MSE, all-ones dataset", "exact"), ("Lemma 11's bound", "claimed")],
        lambda v: (*upper_verdict(v[1], v[0], v[0]), "the bound is the exact all-ones MSE"))
    yield record(
        "Lemma 12", "E[#messages] = 2s + 1 + lam/n + O(1/(eps' n)) (eps=1, rho=0.5, n=1e4, "
        "corrected q, x=1)", Snippet(gkm_lemma12),
        [("E[#messages], exact", "exact"), ("2s + 1 + lam/n (printed leading terms)", "claimed")],
        lambda v: ("violated" if v[0] - v[1] > 10 else "holds", v[0] / v[1],
                   "the flood draw is sent as +1 and -1 copies: the term is 2 lam/n; the "
                   f"gap {v[0] - v[1]:.4g} is lam/n (docs/errata.md, GKM 3)"))
    gp = gkmp20.gkmp20_parameters(n=5, epsilon_prime=0.5, lam=5.0)
    rec20 = gkmp20.audit_not_pure(gp)
    yield record(
        "Sec. 1.2", "GKMP20's protocol is not eps-DP for any finite eps (n=5, eps'=0.5, "
        "lam=5)", CliCommand(("audit", "gkmp20-count", "--n", "5", "--epsilon-prime", "0.5",
                              "--lam", "5", "--json"),
                             (math.inf if rec20["verdict"] == "holds" else 0.0,)),
        [("max-divergence", "lower")],
        (rec20["verdict"], None, "all-zero dataset: V+ = 0 has positive probability; with one "
         "1 it has none"))
