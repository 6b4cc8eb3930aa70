"""The audit records of Girgis et al., CCS 2021 (docs/girgis-2021.md): `audit(quick, record)`
yields one `AuditEntry` per checkable claim (see `figures.audit_report`)."""

# The snippets are shown to users as one-line commands: a lambda is the way to name a function
# there, and the imports stay in the order the commands show them.
# ruff: noqa: E731, I001

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from figures.audit_report import (
    LOOSE_FACTOR,
    AuditEntry,
    CliCommand,
    Record,
    Snippet,
    upper_verdict,
)

__all__ = [
    "audit", "girgis_lemma7", "girgis_thm5", "girgis_bracket", "girgis_remark4",
    "girgis_cor1_condition", "girgis_cor1", "girgis_cor2", "girgis_jensen", "girgis_pure",
    "girgis_eq10_gap", "girgis_fig3", "girgis_fig4",
]


# ------------------------------------------------- snippets (rules: figures.audit_papers)
def girgis_lemma7() -> tuple[Any, ...]:
    import math
    from accountant.view import ViewPair
    from accountant.divergence import renyi_divergence
    e = math.exp(1.5)
    v = ViewPair.from_arrays([e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)])
    return (math.expm1(float(renyi_divergence(v, 2.0))), (e - 1) ** 2 / e)


def girgis_thm5() -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    return (float(g.rdp_upper_thm5(alpha=2, epsilon0=1.0, m=100)),
            float(g.rdp_lower_thm3(alpha=2, epsilon0=1.0, n=100)))


def girgis_bracket(alpha: int, epsilon0: float, n: int,
                   claimed: Callable[..., Any]) -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    kw = dict(alpha=alpha, epsilon0=epsilon0, n=n)
    return (float(g.rdp_upper_refined(**kw)), max(float(g.rdp_lower_thm3(**kw)),
            float(g.rdp_lower_reverse(**kw))), float(claimed(**kw)))


def girgis_remark4(panels: tuple[tuple[int, float], ...],
                   orders: tuple[int, ...]) -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    pts = [(a, e0, n) for n, e0 in panels for a in orders]
    bad = [a for a, e0, n in pts if float(g.rdp_upper_thm2(alpha=a, epsilon0=e0, n=n)) <
           float(g.rdp_upper_thm1(alpha=a, epsilon0=e0, n=n))]
    return (len(bad), len(pts), sum(a >= 16 for a in bad), min(bad, default=0),
            max(bad, default=0))


def girgis_cor1_condition() -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    kw = dict(alpha=2, epsilon0=1e-4, n=152)
    import math
    t1, t5 = float(g.rdp_upper_thm1(**kw)), float(g.rdp_upper_thm5(alpha=2, epsilon0=1e-4,
        m=(152 - 1) // (2 * math.exp(1e-4)) + 1))
    return (math.expm1(t1) - math.expm1(t5), math.expm1(t5), 2 ** 4 * math.exp(5e-4), 152 / 9)


def girgis_cor1() -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    kw = dict(alpha=8, epsilon0=1.0, n=10**6)
    return (float(g.rdp_upper_refined(**kw)), float(g.rdp_upper_cor1(**kw)))


def girgis_cor2() -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    pts = [(a, e0, n) for a in (2, 3, 5, 8, 16) for e0 in (0.1, 1.0, 3.0) for n in (100, 10**4)]
    return (min(float(g.rdp_lower_thm3(alpha=a, epsilon0=e0, n=n)) /
                float(g.rdp_lower_cor2(alpha=a, epsilon0=e0, n=n)) - 1 for a, e0, n in pts),)


def girgis_jensen() -> tuple[Any, ...]:
    import math
    n, e0 = 100, 1.0
    p = 1 / (math.exp(e0) + 1)
    return (-n * p * (1 - p) * (1 - 2 * p), n * p * (1 - p) * (1 - 2 * p))


def girgis_pure() -> tuple[Any, ...]:
    from accountant.protocols.binary_rr import BinaryRR
    return (float(BinaryRR(n=1000, epsilon0=1.0).max_divergence().lower), 1.0)


def girgis_eq10_gap() -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    from accountant.bounds import erlingsson_2019 as e
    r = lambda e0: float(e.rdp_upper_eq10(alpha=8, epsilon0=e0,
        n=10**6)) / float(g.rdp_upper_thm1(alpha=8, epsilon0=e0, n=10**6))
    return (r(0.5), r(1.0), r(2.0))


def girgis_fig3() -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g, feldman_2020 as f
    from accountant.composition import epsilon_cks
    from accountant.protocols.ldp import LDP
    from figures.girgis_pipelines import closed_form_curve, ORDERS
    rdp = lambda e0: float(epsilon_cks(closed_form_curve(g.rdp_upper_thm1, n=10**4,
                                                         epsilon0=e0, orders=ORDERS), delta=1e-5))
    num = lambda e0: float(LDP(n=10**4, epsilon0=e0).epsilon_for_delta(1e-5).upper)
    cf = lambda e0: float(f.epsilon_upper(epsilon0=e0, n=10**4, delta=1e-5))
    return (rdp(0.25), num(0.25), cf(0.25), rdp(3.0), num(3.0), cf(3.0))


def girgis_fig4() -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    from accountant.composition import epsilon_cks, epsilon_kov
    from accountant.protocols.ldp import LDP
    from figures.girgis_pipelines import closed_form_curve, QUICK_ORDERS
    rdp = lambda T: float(epsilon_cks(closed_form_curve(g.rdp_upper_thm1, n=10**6, epsilon0=2.0,
        orders=QUICK_ORDERS).times(T), delta=1e-5))
    e1 = lambda T: float(LDP(n=10**6, epsilon0=2.0).epsilon_for_delta(0.5e-5 / T).upper)
    kov = lambda T: float(epsilon_kov(epsilon=e1(T), delta=0.5e-5 / T, rounds=T,
                                      delta_total=1e-5))
    return (kov(1), rdp(1), kov(1000), rdp(1000))


# ------------------------------------------------------------------------ records
def audit(quick: bool, record: Record) -> Iterator[AuditEntry]:
    from accountant.bounds import girgis_2021 as g
    from figures import fig_girgis_2021_2 as fig2

    yield record(
        "Lemma 7", "the largest chi-square between outputs of an eps0-LDP randomizer is "
        "(e^eps0 - 1)^2 / e^eps0, attained by binary RR (eps0 = 1.5)",
        Snippet(girgis_lemma7),
        [("chi-square of binary RR = exp(D_2) - 1", "upper"), ("(e - 1)^2 / e", "claimed")],
        lambda v: ("holds" if abs(v[0] - v[1]) <= 1e-9 * v[1] else "violated",
                   v[0] / v[1], "attained: equal to 1e-9 relative"))
    yield record(
        "Theorem 5", "at lambda = 2 the special-pair bound is exact for binary RR "
        "(eps0 = 1, m = 100)", Snippet(girgis_thm5),
        [("Theorem 5 at lambda=2", "upper"), ("binary RR special pair, exact (Thm 3)", "lower")],
        lambda v: ("holds" if abs(v[0] - v[1]) <= 1e-9 * v[1] else "violated", v[0] / v[1],
                   "the two agree to 1e-9 relative"))
    points = [(8, 1.0, 10**4), (32, 0.5, 10**6)] if quick else [
        (a, e0, n) for n in (10**3, 10**4, 10**6) for e0 in (0.5, 2.0) for a in (2, 8, 32)]
    for claimed, locator in ((g.rdp_upper_thm1, "Theorem 1"), (g.rdp_upper_thm2, "Theorem 2")):
        for a, e0, n in points:
            yield record(
                locator, f"eps({a}) <= {locator}'s closed form (n={n:g}, eps0={e0:g})",
                Snippet(girgis_bracket, {"alpha": a, "epsilon0": e0, "n": n,
                                              "claimed": claimed}),
                [("refined Theorem 4 RDP (exact expectation)", "upper"),
                 ("binary RR special pair, both orders", "lower"),
                 (f"{locator} (claimed)", "claimed")],
                lambda v: (*upper_verdict(v[2], v[1], v[0]),
                           "factor = claim / refined upper bound; claim / lower bound = "
                           f"{v[2] / v[1]:.3g}"))
    grid_panels, grid_orders = ((fig2.QUICK_PANELS, fig2.QUICK_ORDERS) if quick
                                else (fig2.PANELS, fig2.ORDERS))
    yield record(
        "Remark 4 (Fig. 2)", "Theorem 1 is tighter than Theorem 2 in all ranges of interest",
        Snippet(girgis_remark4, {"panels": tuple(grid_panels),
                                      "orders": tuple(grid_orders)}),
        [("grid points of Fig. 2 where Theorem 2 < Theorem 1", "exact count"),
         ("grid points", "count"), ("of those, at orders >= 16", "exact count"),
         ("smallest such order", "exact"), ("largest such order", "exact")],
        lambda v: ("violated" if v[0] > 0 else "holds", None,
                   f"contradicted at {int(v[0])} of {int(v[1])} points of "
                   f"{'the quick' if quick else 'the'} Fig. 2 grid (figures/"
                   f"fig_girgis_2021_2.py), {int(v[2])} of them at orders >= 16 (orders "
                   f"{int(v[3])} to {int(v[4])})"))
    for a, e0, n in ((16, 4.0, 100), (32, 2.0, 1000)):
        fwd = float(g.rdp_lower_thm3(alpha=a, epsilon0=e0, n=n))
        rev = float(g.rdp_lower_reverse(alpha=a, epsilon0=e0, n=n))
        yield record(
            "Theorem 3", f"eps({a}) >= Theorem 3's forward-order value (n={n}, eps0={e0:g})",
            CliCommand(("bound", "girgis-reverse", "--n", str(n), "--epsilon0", f"{e0:g}",
                        "--orders", str(a), "--json"), (rev, fwd)),
            [("reverse order of the same special pair", "lower (exact)"),
             ("Theorem 3, forward order", "lower (exact)")],
            ("loose" if rev / fwd >= LOOSE_FACTOR else "holds", rev / fwd,
             "Theorem 3 uses the weaker order: the reverse order is a larger exact lower "
             "bound (docs/errata.md, Girgis 1); factor = reverse / forward"))
    yield record(
        "Corollary 1 (condition)", "lambda^4 e^(5 eps0) < n/9 suffices for S3 + E <= T2 "
        "(lambda=2, eps0=1e-4, n=152)", Snippet(girgis_cor1_condition),
        [("E = exponential term of Theorem 1", "upper"), ("T2 (S3 = 0 at lambda = 2)", "upper"),
         ("lambda^4 e^(5 eps0)", "exact"), ("n/9", "exact")],
        lambda v: ("violated" if v[2] < v[3] and v[0] > v[1] else "holds", v[0] / v[1],
                   "the condition is met yet E > T2 (docs/errata.md, Girgis 3); factor = E / "
                   "T2; rdp_upper_cor1 refuses these parameters"))
    yield record(
        "Corollary 1", "eps(8) <= log(1 + 2 T2)/(lambda-1) where S3 + E <= T2 "
        "(n=1e6, eps0=1)", Snippet(girgis_cor1),
        [("refined Theorem 4 RDP", "upper"), ("Corollary 1 (claimed)", "claimed")],
        lambda v: (*upper_verdict(v[1], None, v[0]), "checked where S3 + E <= T2 holds"))
    yield record(
        "Corollary 2", "dropping the j >= 3 terms of Theorem 3 lowers it (so Cor. 2 is a "
        "lower bound)", Snippet(girgis_cor2),
        [("min over 30 points of Thm 3 / Cor 2 - 1", "relative difference")],
        lambda v: ("holds" if v[0] >= -1e-9 else "violated", None,
                   "the conclusion holds (both are rounded down by about 1e-10 relative, so "
                   "equality shows as ~-1e-10 at lambda = 2); the proof's Jensen step does "
                   "not (next record)"))
    yield record(
        "Corollary 2 (proof)", "Jensen: E[X^j] >= (E X)^j = 0 for every j >= 3, X centred",
        Snippet(girgis_jensen),
        [("E[X^3] for X = -(k - np), k ~ Bin(100, 1/(e+1)): a centred X with E X^3 < 0",
          "exact (closed form)"),
         ("E[(k - np)^3], the moment the proof needs", "exact (closed form)")],
        lambda v: ("violated" if v[0] < 0 else "holds", None,
                   "x^j is not convex for odd j, so Jensen does not apply; the needed moment "
                   "is >= 0 anyway because p < 1/2 (docs/errata.md, Girgis 2)"))
    yield record(
        "Fig. 2 (text)", "the pure DP of the shuffle model is bounded below by eps0 (curves "
        "saturate near eps0 as lambda grows; n=1000, eps0=1)", Snippet(girgis_pure),
        [("max-divergence of shuffled binary RR", "lower (exact)"), ("eps0", "claimed")],
        lambda v: ("holds" if v[0] >= v[1] - 1e-12 else "violated", None, ""))
    yield record(
        "Fig. 2 (text)", "the gap between Theorem 1 and eq. (10) [EFM+19] grows with eps0 "
        "(n=1e6, lambda=8)", Snippet(girgis_eq10_gap),
        [("eq. (10) / Theorem 1 at eps0=0.5", "ratio of upper bounds"),
         ("same at eps0=1", "ratio of upper bounds"), ("same at eps0=2", "ratio of upper bounds")],
        lambda v: ("holds" if v[0] < v[1] < v[2] else "violated", None,
                   "eq. (10) is a low-confidence reconstruction (docs/girgis-2021.md)"))
    yield record(
        "Fig. 3 (text)", "one round: Theorem 1 -> Lemma 1 beats [FMT20] at small eps0 and "
        "loses at large eps0 (n=1e4, delta=1e-5)", Snippet(girgis_fig3),
        [("Thm 1 -> Lemma 1, eps0=0.25", "upper"), ("numerical FMT (clones pair), eps0=0.25",
                                                   "upper"),
         ("FMT closed form, eps0=0.25", "upper"), ("Thm 1 -> Lemma 1, eps0=3", "upper"),
         ("numerical FMT (clones pair), eps0=3", "upper"), ("FMT closed form, eps0=3", "upper")],
        lambda v: ("holds" if v[0] < v[1] and v[3] > v[4] else "violated", v[0] / v[1],
                   "against FMT evaluated numerically (the paper's footnote: FMT's own code) "
                   "the RDP route loses here and at every eps0 in 0.1..3 we tried, n=1e4 and "
                   "1e6 (factor = RDP / numerical FMT at eps0=0.25); only against FMT's closed "
                   "form does it win at small eps0"))
    yield record(
        "Fig. 4 (text)", "[FMT20] + [KOV15] beats the RDP route for few rounds and large eps0, "
        "not for many rounds (n=1e6, eps0=2, delta=1e-5)", Snippet(girgis_fig4),
        [("numerical FMT + KOV, T=1", "upper"), ("Thm 1 RDP -> Lemma 1, T=1", "upper"),
         ("numerical FMT + KOV, T=1000", "upper"), ("Thm 1 RDP -> Lemma 1, T=1000", "upper")],
        lambda v: ("holds" if v[0] < v[1] and v[3] < v[2] else "violated", None,
                   "with FMT's numerical bound (as the paper used), not its closed form "
                   "(0.0593 at T=1); per-round delta = delta/(2T)"))
    yield record(
        "Figs. 4(a), 5(a) (text)",
        "the RDP route saves a factor (value lost in the seed text) at given T, eps0, n", None, (),
        ("not applicable", None, "the factors and their parameters did not survive in the seed "
         "text; Fig. 5's pipeline applies [ZW19] add/remove subsampling to replace-one RDP, a "
         "heuristic (docs/errata.md, Girgis 6)"))
    yield record(
        "Section 4 (lower curves)", "the plotted lower bounds (Theorem 3 pushed through "
        "Lemma 1)", None, (),
        ("not applicable", None, "Lemma 1 turns RDP upper bounds into epsilon upper bounds; "
         "applied to a lower bound it bounds nothing (docs/errata.md, Girgis 5)"))
