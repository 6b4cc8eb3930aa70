"""The computations behind the audit's records (figures/audit_report.py), one function each.

A record runs its function here and shows the same function as its `python -c` command
(`audit_report.Snippet`): the body's statements joined by "; ", the arguments written in as
literals, and the returned tuple printed. So that the shown command is the computation that
produced the record's values, each function here:

- imports what it uses inside its body (the command starts in an empty interpreter) and uses no
  other outside name than its arguments;
- is a sequence of simple statements (no blocks: they cannot be joined by "; ") ending in
  `return (...)`, a tuple of numbers;
- breaks a long statement only where the command has a space (the line breaks and the
  indentation are read as one space), and uses no double quote, `$`, backquote or backslash.

tests/figures/test_audit_report.py runs every shown command and compares what it prints with the
record's values.
"""
# The bodies are shown to users as one-line commands: a lambda is the way to name a function
# there, and the imports stay in the order the commands show them.
# ruff: noqa: E731, I001

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "bc_accuracy", "bc_all_zero", "bc_messages", "bc_smoothness", "bc_claim_43",
    "bc_claim_44", "girgis_lemma7", "girgis_thm5", "girgis_bracket", "girgis_remark4",
    "girgis_cor1_condition", "girgis_cor1", "girgis_cor2", "girgis_jensen", "girgis_pure",
    "girgis_eq10_gap", "girgis_fig3", "girgis_fig4", "gkm_thm6_mse", "gkm_thm6_privacy",
    "gkm_algorithm2", "gkm_lemma11", "gkm_lemma12", "ggkpv_slides_rho", "ggkpv_calibrated_rho",
]


# ------------------------------------------------------------------------ Balcer-Cheu
def bc_accuracy(beta: float) -> tuple[Any, ...]:
    from accountant.protocols import balcer_cheu as bc
    from accountant.bounds import balcer_cheu_2020 as b
    p = bc.zsum_parameters(n=10000, epsilon=1.0, delta=1e-6)
    return (max(bc.error_quantile(p, ones=k, beta=beta) for k in (0, 5000, 10000)),
            float(b.accuracy_alpha_thm31(epsilon=1.0, delta=1e-6, n=10000, beta=beta)))


def bc_all_zero() -> tuple[Any, ...]:
    from accountant.protocols import balcer_cheu as bc
    p = bc.zsum_parameters(n=10000, epsilon=1.0, delta=1e-6)
    return (bc.error_quantile(p, ones=0, beta=1e-12),)


def bc_messages() -> tuple[Any, ...]:
    import numpy as np
    from verify.samplers import balcer_cheu as s
    r = np.random.default_rng(1)
    return (max(len(s.zsum_randomizer(x, p=0.9, rng=r)) for x in (0, 1) for _ in range(500)),
            max(len(s.hist_randomizer(x, d=4, p=0.9, rng=r)) for x in (1, 4)
                for _ in range(500)))


def bc_smoothness() -> tuple[Any, ...]:
    from accountant.protocols import balcer_cheu as bc
    from accountant.bounds import balcer_cheu_2020 as b
    a = 0.5
    return (float(bc.binomial_smoothness_delta(n=10000, gamma=0.01,
                                               epsilon=b.lemma_a3_epsilon(a=a))),
            float(b.lemma_a3_delta(n=10000, gamma=0.01, a=a)))


def bc_claim_43() -> tuple[Any, ...]:
    from accountant.pmf import PMF
    from accountant.view import ViewPair
    from accountant.divergence import max_divergence
    n = 5
    ones = PMF.from_values([1], offset=n, backend='exact')
    local = ViewPair.from_arrays([1, 0], [0, 1], backend='exact')
    return (float(max_divergence(ViewPair.from_pmfs(ones, ones))),
            float(max_divergence(local)))


def bc_claim_44() -> tuple[Any, ...]:
    from accountant.pmf import PMF, convolve
    from accountant.view import ViewPair
    from accountant.divergence import max_divergence
    r0 = PMF.from_values([1/16, 4/16, 6/16, 4/16, 1/16])
    r1 = PMF.from_values([1/10, 4/10, 0.0, 4/10, 1/10])
    pre = ViewPair.from_pmfs(r0, r1)
    from functools import reduce
    total = lambda pmfs: reduce(convolve, pmfs)
    shuf = lambda n: max(float(max_divergence(ViewPair.from_pmfs(total([r0] + [r0] * m
                         + [r1] * (n - 1 - m)), total([r1] + [r0] * m + [r1] * (n - 1 - m)))))
                         for m in range(n))
    return (float(max_divergence(pre)), shuf(2), shuf(3))


# ----------------------------------------------------------------------------- Girgis
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
    return (sum(float(g.rdp_upper_thm2(alpha=a, epsilon0=e0, n=n)) <
                float(g.rdp_upper_thm1(alpha=a, epsilon0=e0, n=n)) for a, e0, n in pts),
            len(pts))


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


# -------------------------------------------------------------------------------- GKM
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


# ------------------------------------------------------------------------------ GGKPV
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
