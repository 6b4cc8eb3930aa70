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
    "girgis_eq10_gap", "girgis_fig3", "girgis_fig4", "girgis_thm4", "girgis_lemma8",
    "girgis_lemma3", "girgis_lemma5", "girgis_cor3", "girgis_lemma9", "girgis_lemma6",
    "girgis_thm6", "girgis_remark3", "girgis_remark5", "girgis_remark7", "girgis_cor1_displayed",
    "girgis_footnote4", "girgis_fig5",
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


def girgis_thm4(seed: int, n: int, alpha: float) -> tuple[Any, ...]:
    from figures import girgis_checks as gc
    c = gc.theorem4_check(gc.random_randomizer(inputs=3, outputs=3, seed=seed), n=n,
                          alpha=alpha)
    return (c.worst, c.worst_bound, c.tightest, c.violations, c.pairs)


def girgis_lemma8(seed: int, alpha: float) -> tuple[Any, ...]:
    from figures import girgis_checks as gc
    return (gc.lemma8_largest_increase(gc.random_randomizer(inputs=3, outputs=3, seed=seed),
                                       max_users=30, alpha=alpha),)


def girgis_lemma3() -> tuple[Any, ...]:
    from figures import girgis_checks as gc
    return (gc.lemma3_mixture_gap(gc.random_randomizer(inputs=3, outputs=3, seed=5),
                                  others=(0, 1, 2, 2, 1, 0), x=2, base=0),)


def girgis_lemma5() -> tuple[Any, ...]:
    from accountant.divergence import renyi_divergence
    from accountant.protocols.randomizer import exact_view_pair
    from figures import girgis_checks as gc
    r = gc.random_randomizer(inputs=4, outputs=3, seed=7)
    d = lambda others: gc.bracket(renyi_divergence(exact_view_pair(r, len(others) + 1,
        [*others, 0], [*others, 1]), 4.0, direction='P||Q'))
    return (d([2, 3, 1])[1], d([3, 1])[0], d([1])[0])


def girgis_cor3() -> tuple[Any, ...]:
    from accountant.divergence import renyi_divergence
    from accountant.protocols.randomizer import exact_view_pair
    from figures import girgis_checks as gc
    r = gc.random_randomizer(inputs=4, outputs=3, seed=11)
    left = gc.bracket(renyi_divergence(exact_view_pair(r, 6, [1, 1, 2, 3, 2, 0],
        [1, 1, 2, 3, 2, 1]), 4.0, direction='P||Q'))
    return (left[1], gc.special_pair_renyi(r, x=0, base=1, users=3, alpha=4.0)[0])


def girgis_lemma9() -> tuple[Any, ...]:
    import numpy as np
    rng = np.random.default_rng(3)
    p1, q1, p2, q2 = (v / v.sum() for v in rng.uniform(0.05, 1.0, (4, 5)))
    h = lambda p, q: float(np.sum(p ** 3.5 * q ** -2.5))
    return (h(0.3 * p1 + 0.7 * p2, 0.3 * q1 + 0.7 * q2), 0.3 * h(p1, q1) + 0.7 * h(p2, q2))


def girgis_lemma6(epsilon0: float) -> tuple[Any, ...]:
    from accountant.protocols.randomizer import binary_rr
    from figures import girgis_checks as gc
    ms = [gc.special_pair_moments(binary_rr(epsilon0), x=1, base=0, users=m,
                                  orders=(3, 4, 5, 6, 8, 10)) for m in (1, 2, 5, 20, 100)]
    return (max(r.absolute[j] / r.lemma6_bound[j] for r in ms for j in r.absolute),
            max(abs(r.mean) for r in ms),
            max(abs(r.variance / r.chi_square_over_m - 1) for r in ms))


def girgis_thm6(epsilon0: float) -> tuple[Any, ...]:
    import math
    from accountant.protocols.randomizer import binary_rr
    from figures import girgis_checks as gc
    ms = [gc.special_pair_moments(binary_rr(epsilon0), x=1, base=0, users=m,
          real_orders=(1.01, 1.25, 1.5, 2.0, 3.3, 8.0, 32.0)) for m in (1, 3, 10, 100, 1000)]
    return (max(math.log(r.moment[a]) / math.log(r.theorem6_bound[a]) for r in ms
                for a in r.moment),)


def girgis_remark3(panels: tuple[tuple[int, float], ...],
                   orders: tuple[int, ...]) -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    import math
    r = [float(g.rdp_upper_thm1(alpha=a, epsilon0=e0, n=n)) /
         float(g.rdp_upper_remark3(alpha=a, epsilon0=e0, n=n)) for n, e0 in panels for a in orders]
    lead = lambda gamma: math.expm1(float(g.rdp_upper_thm1(alpha=2, epsilon0=1.0, n=10**9,
                                                           gamma=gamma)))
    return (lead(0.5) / lead(0.01), sum(x > 1 + 1e-12 for x in r), len(r), max(r))


def girgis_remark5(panels: tuple[tuple[int, float], ...],
                   orders: tuple[int, ...]) -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g, erlingsson_2019 as e
    pts = [dict(alpha=a, epsilon0=e0, n=n) for n, e0 in panels for a in orders]
    return (sum(float(g.rdp_upper_thm1(**k)) < float(e.rdp_upper_eq10(**k)) for k in pts),
            sum(float(g.rdp_upper_thm2(**k)) < float(e.rdp_upper_eq10(**k)) for k in pts),
            len(pts), min(float(e.rdp_upper_eq10(**k)) / float(g.rdp_upper_thm1(**k))
                          for k in pts))


def girgis_remark7(epsilon0: float) -> tuple[Any, ...]:
    import math
    from accountant.bounds import girgis_2021 as g
    kw = dict(alpha=2, epsilon0=epsilon0, n=10**8)
    low = math.expm1(float(g.rdp_lower_thm3(**kw)))
    cor1 = 4 * math.expm1(epsilon0) ** 2 / 10**8
    return (cor1 / low, math.expm1(float(g.rdp_upper_thm1(**kw))) / low,
            math.expm1(float(g.rdp_upper_refined(**kw))) / low, math.exp(epsilon0))


def girgis_cor1_displayed(points: tuple[tuple[int, float, int], ...]) -> tuple[Any, ...]:
    import math
    from accountant.bounds import girgis_2021 as g
    shown = lambda a, e0, n: math.log1p(4 * math.comb(a, 2) * math.expm1(e0) ** 2 / n) / (a - 1)
    ok = [(a, e0, n) for a, e0, n in points if a ** 4 * math.exp(5 * e0) < n / 9]
    return (max(float(g.rdp_upper_refined(alpha=a, epsilon0=e0, n=n)) / shown(a, e0, n)
                for a, e0, n in ok),
            max(float(g.rdp_lower_reverse(alpha=a, epsilon0=e0, n=n)) / shown(a, e0, n)
                for a, e0, n in ok), len(ok))


def girgis_footnote4(points: tuple[tuple[int, float, int], ...]) -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    from accountant.composition import epsilon_cks, epsilon_optimal
    from figures.girgis_pipelines import closed_form_curve, ORDERS
    c = lambda n, e0, T: closed_form_curve(g.rdp_upper_thm1, n=n, epsilon0=e0,
                                           orders=ORDERS).times(T)
    r = lambda n, e0, T: (float(epsilon_cks(c(n, e0, T), delta=1e-5, real_orders=False)) /
                          float(epsilon_optimal(c(n, e0, T), delta=1e-5)))
    return (max(r(n, e0, T) for n, e0, T in points),)


def girgis_fig5(n: int, epsilon0: float, rate: float, rounds: tuple[int, ...],
                orders: tuple[int, ...]) -> tuple[Any, ...]:
    from accountant.bounds import girgis_2021 as g
    from accountant.composition import epsilon_cks, poisson_subsampled
    from figures import fig_girgis_2021_5 as f5
    from figures.girgis_pipelines import closed_form_curve
    route = poisson_subsampled(closed_form_curve(g.rdp_upper_thm1, n=n, epsilon0=epsilon0,
                               orders=orders), sampling_rate=rate, max_order=max(orders))
    one_round = f5.one_round_measures(n=n, epsilon0=epsilon0, rate=rate)[0]
    return (*(v for t in rounds for v in (
        float(epsilon_cks(route.times(t), delta=1e-5, real_orders=False)),
        f5.certified_upper(one_round, t),
        f5.certified_lower(n=n, epsilon0=epsilon0, rate=rate, rounds=t))),)


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
    yield from _reduction_records(quick, record)
    yield from _remark_records(quick, record)
    yield from _fig5_records(quick, record)


def _fig5_records(quick: bool, record: Record) -> Iterator[AuditEntry]:
    """Fig. 5's RDP route against the library's certified bracket for the subsampled rounds
    (the figure's own functions: the upper end is its certified_upper curve)."""
    from figures import fig_girgis_2021_5 as f5
    from figures import girgis_pipelines as gp

    n, e0, rate = (1000, 2.0, 0.1) if quick else (10**4, 2.0, 0.01)
    rounds = (100,) if quick else (1, 100, 10000)
    orders = gp.QUICK_ORDERS if quick else gp.ORDERS

    def verdict(v: tuple[Any, ...]) -> tuple[Any, ...]:
        # the worst T decides: a violation anywhere, else the smallest looseness factor
        triples = [v[i:i + 3] for i in range(0, len(v), 3)]
        worst = min((upper_verdict(r, low, up) for r, up, low in triples),
                    key=lambda x: (x[0] != "violated", x[1] or 0.0))
        route = ", ".join(f"x{r / up:.3g} (T={t})" for t, (r, up, _) in
                          zip(rounds, triples, strict=True) if up > 0)
        width = ", ".join(f"x{up / low:.3g} (T={t})" for t, (_, up, low) in
                          zip(rounds, triples, strict=True) if low > 0)
        return (*worst,
                f"the paper's route over the library's certified upper end: {route}; the "
                f"certified bracket's upper over lower end: {width or 'lower end 0'}; ZW19 is "
                "an add/remove theorem applied to replace-one RDP, so the route is not a "
                "proved bound: it is checked here against the certified bracket (figure "
                "girgis-fig5 draws the route and both ends; the upper end is the subsampled "
                f"clones pair's pessimistic PLD on a {f5.UPPER_WIDTH:g} grid, the lower end "
                "binary RR's special pair, optimistic PLD)")
    yield record(
        "Fig. 5 (curves)", "Theorem 1 + [ZW19] subsampling, composed and converted by Lemma 1, "
        f"bounds epsilon of T Poisson-subsampled shuffle rounds (n={n:g} per batch, eps0={e0:g}, "
        f"g={rate:g}, T in {rounds}, delta=1e-5)",
        Snippet(girgis_fig5, {"n": n, "epsilon0": e0, "rate": rate, "rounds": rounds,
                              "orders": tuple(orders)}),
        [item for t in rounds for item in (
            (f"Thm 1 + ZW19 -> Lemma 1 (the paper's heuristic route), T={t}", "claimed"),
            (f"certified upper, every eps0-LDP randomizer (subsampled clones pair, PLD), T={t}",
             "upper"),
            (f"certified lower (binary RR special pair, subsampled, PLD), T={t}", "lower"))],
        verdict)


def _reduction_records(quick: bool, record: Record) -> Iterator[AuditEntry]:
    """Section 5-6 statements checked exactly on concrete randomizers (figures.girgis_checks);
    tests/property/test_girgis_reduction.py draws many more instances."""
    cases = [(1, 8, 4.0)] if quick else [(s, n, a) for s in (1, 2) for n, a in
                                          ((12, 2.0), (20, 8.0))]
    for seed, n, alpha in cases:
        yield record(
            "Theorem 4, eq. (14)", f"D_lambda(M(D)||M(D')) <= 1/(lambda-1) log E_m exp((lambda-1) "
            f"D_lambda(special pair of m+1 users)), m ~ Bin(n-1, e^-eps0), at every neighbouring "
            f"pair (random 3x3 randomizer, seed {seed}, n={n}, lambda={alpha:g})",
            Snippet(girgis_thm4, {"seed": seed, "n": n, "alpha": alpha}),
            [("largest exact D_lambda over all pairs", "upper (exact view, float)"),
             ("Theorem 4's right side, largest over differing inputs", "upper"),
             ("largest D_lambda / right side over the pairs", "ratio"),
             ("pairs where the certified D_lambda exceeds the right side", "exact count"),
             ("ordered neighbouring pairs checked", "count")],
            lambda v: ("violated" if v[3] else upper_verdict(1.0, None, v[2])[0], 1 / v[2],
                       f"exhaustive over all {int(v[4])} ordered pairs (both orders); factor = "
                       "right side / D_lambda at the tightest pair"))
    for seed, alpha in ((1, 4.0),) if quick else ((1, 2.0), (2, 8.0), (3, 32.0)):
        yield record(
            "Lemma 8, eq. (41)", "the special pair's D_lambda is non-increasing in the number "
            f"of users m (random 3x3 randomizer, seed {seed}, m = 1..30, lambda={alpha:g})",
            Snippet(girgis_lemma8, {"seed": seed, "alpha": alpha}),
            [("largest D_lambda(m+1) - D_lambda(m), every ordered input pair", "upper")],
            lambda v: ("holds" if v[0] <= 0 else "violated", None,
                       "certified: lower end at m+1 minus upper end at m"))
    yield record(
        "Lemma 3, eqs. (23)-(24)", "the shuffled view is the Bin-weighted mixture over subsets J "
        "of the special views in which J reports by R(d'_n) (seed 5, n=7)", Snippet(girgis_lemma3),
        [("max |view - mixture| over histograms", "exact up to float rounding")],
        lambda v: ("holds" if v[0] <= 1e-12 else "violated", None,
                   "an identity: only float rounding separates the two"))
    yield record(
        "Lemma 5, eq. (26)", "removing a user common to both datasets never lowers D_lambda "
        "(random 4x3 randomizer, seed 7, lambda=4: 4, 3, 2 users)", Snippet(girgis_lemma5),
        [("D_4 with 4 users", "upper"), ("after removing one common user", "lower"),
         ("after removing two", "lower")],
        lambda v: ("holds" if v[0] <= v[1] <= v[2] * (1 + 1e-12) + 1e-15 else "violated", None,
                   "certified ends compared; the property test draws many more"))
    yield record(
        "Corollary 3, eq. (27)", "the residual users R~_i can be dropped: the pair with them is "
        "at most the special pair of m+1 users (seed 11, m=2, lambda=4)", Snippet(girgis_cor3),
        [("D_4 with the residual users", "upper"), ("special pair of 3 users", "lower")],
        lambda v: (*upper_verdict(v[1], None, v[0]), "factor = special pair / with residuals"))
    yield record(
        "Lemma 9, eq. (66)", "the Hellinger integral sum p^a q^(1-a) is jointly convex for a > 1 "
        "(a = 3.5, one random mixture; Lemma 4 is its consequence)", Snippet(girgis_lemma9),
        [("integral of the mixture", "exact (float)"), ("mixture of the integrals", "exact")],
        lambda v: ("holds" if v[0] <= v[1] * (1 + 1e-12) else "violated", None,
                   "tests/property/test_girgis_reduction.py checks Lemmas 4 and 9 on many draws"))
    for e0 in (1.0,) if quick else (0.1, 1.0, 3.0):
        yield record(
            "Lemma 6, eqs. (34)-(35)", "E X = 0, E X^2 = chi^2/m and E|X|^j <= j Gamma(j/2) "
            f"(2 v^2/m)^(j/2) for X = L - 1 (binary RR, the largest chi^2, eps0={e0:g}, "
            "m = 1..100, j = 3..10)", Snippet(girgis_lemma6, {"epsilon0": e0}),
            [("largest exact E|X|^j / bound", "ratio (exact moments)"),
             ("largest |E X|", "exact (float)"), ("largest |E X^2 / (chi^2/m) - 1|", "exact")],
            lambda v: ("violated" if v[0] > 1 or v[1] > 1e-12 or v[2] > 1e-9
                       else upper_verdict(1.0, None, v[0])[0], 1 / v[0],
                       "factor = bound / exact moment at the tightest (m, j)"))
        yield record(
            "Theorem 6, eq. (44)", f"E[L^lambda] <= exp(lambda^2 (e^eps0-1)^2/(m e^eps0)) for real "
            f"lambda > 1 (binary RR, eps0={e0:g}, m = 1..1000, lambda = 1.01..32)",
            Snippet(girgis_thm6, {"epsilon0": e0}),
            [("largest log E[L^lambda] / log bound", "ratio (exact moments)")],
            lambda v: (*upper_verdict(1.0, None, v[0]),
                       "compared in the exponent (Theorem 6 bounds (lambda-1) D_lambda); factor "
                       "= log bound / log exact moment at the tightest (m, lambda)"))


def _remark_records(quick: bool, record: Record) -> Iterator[AuditEntry]:
    """Remarks 3, 5, 7, footnote 4 and Corollary 1's displayed form, on the Fig. 2-4 grids."""
    from figures import fig_girgis_2021_2 as fig2

    panels, orders = ((fig2.QUICK_PANELS, fig2.QUICK_ORDERS) if quick
                      else (fig2.PANELS, fig2.ORDERS))
    grid = {"panels": tuple(panels), "orders": tuple(orders)}
    yield record(
        "Remark 3", "choosing the Chernoff split gamma -> 0 instead of 1/2 saves asymptotically a "
        "factor 2 in the leading term of Theorem 1", Snippet(girgis_remark3, grid),
        [("leading term at gamma=1/2 over gamma=0.01 (lambda=2, eps0=1, n=1e9)", "ratio"),
         ("Fig. 2 grid points where a gamma grid beats gamma=1/2", "exact count"),
         ("grid points", "count"), ("largest Thm 1 / best-gamma Thm 1 on the grid", "ratio")],
        lambda v: ("holds" if 1.9 <= v[0] <= 2 else "violated", v[0],
                   f"factor = measured saving (2(1-gamma) exactly); on the Fig. 2 grid the best "
                   f"gamma improves Theorem 1 at {int(v[1])} of {int(v[2])} points, by up to "
                   f"x{v[3]:.3g} (the exponential term shrinks too); the paper's alternative gamma "
                   "did not survive in the seed text, so its 'not good' comparison is not redone"))
    yield record(
        "Remark 5, eq. (10)", "both Theorem 1 and Theorem 2 outperform eq. (10) [EFM+19] in all "
        "cases (the Fig. 2 grid)", Snippet(girgis_remark5, grid),
        [("points where Thm 1 < eq. (10)", "exact count"),
         ("points where Thm 2 < eq. (10)", "exact count"), ("grid points", "count"),
         ("smallest eq. (10) / Thm 1", "ratio")],
        lambda v: ("holds" if v[0] == v[1] == v[2] else "violated", v[3],
                   "eq. (10) is a low-confidence reconstruction (docs/girgis-2021.md); factor = "
                   "smallest eq. (10) / Theorem 1"))
    for e0 in (0.1,) if quick else (0.01, 0.1, 1.0):
        yield record(
            "Remark 7", "at large n Cor 1 and Cor 2 are a factor apart that (with Remark 3's "
            "saving) tends to 1 as eps0 -> 0 (lambda=2, n=1e8, eps0=" + f"{e0:g})",
            Snippet(girgis_remark7, {"epsilon0": e0}),
            [("Cor 1 displayed / Thm 3, leading terms", "ratio"),
             ("Thm 1 / Thm 3, leading terms", "ratio"),
             ("refined Thm 4 / Thm 3, leading terms", "ratio"), ("e^eps0", "exact")],
            lambda v: ("holds" if v[2] <= v[3] * (1 + 1e-6) else "violated", v[2],
                       f"the factor itself was lost in the seed text; measured: Cor 1 x{v[0]:.4g} "
                       f"(4 e^eps0 = {4 * v[3]:.4g}), Thm 1 x{v[1]:.4g} (2 e^eps0), exact "
                       f"Theorem 4 x{v[2]:.4g} (e^eps0 -> 1)"))
    points = (((2, 0.5, 10**4), (4, 0.5, 10**6)) if quick else tuple(
        (a, e0, n) for a in (2, 3, 4, 8) for e0 in (0.1, 0.5, 1.0) for n in (10**3, 10**4, 10**6)))
    yield record(
        "Corollary 1, eq. (7) (displayed form)", "eps(lambda) <= 1/(lambda-1) log(1 + 4 C(lambda,2)"
        " (e^eps0-1)^2/n) where lambda^4 e^(5 eps0) < n/9", Snippet(girgis_cor1_displayed,
                                                                    {"points": points}),
        [("largest refined Thm 4 / displayed form", "ratio (upper)"),
         ("largest reverse-order lower / displayed form", "ratio (lower)"),
         ("points meeting the condition", "count")],
        lambda v: (*upper_verdict(1.0, v[1], v[0]), f"over {int(v[2])} points; factor = displayed "
                   "/ refined upper at the tightest point; the form is our reconstruction "
                   "(medium confidence, docs/girgis-2021.md#corollary-1)"))
    conversions = (((10**4, 0.25, 1), (10**6, 2.0, 1000)) if quick else
                   ((10**4, 0.25, 1), (10**4, 1.0, 1), (10**4, 3.0, 1), (10**6, 2.0, 1),
                    (10**6, 2.0, 1000)))
    yield record(
        "footnote 4 (Lemma 1)", "the optimal RDP -> DP conversion [ALC+21] does not give better "
        "epsilon than Lemma 1 on the Fig. 3-4 curves (Thm 1, delta=1e-5)",
        Snippet(girgis_footnote4, {"points": conversions}),
        [("largest Lemma 1 eps / optimal-conversion eps", "ratio")],
        lambda v: ("holds" if v[0] <= 1.01 else "violated", v[0],
                   f"(n, eps0, T) in {conversions}, on the "
                   "figures' integer orders (figures/girgis_pipelines.py ORDERS; on a coarse "
                   "grid the optimal conversion gains more); 'better' read as > 1 % smaller"))
