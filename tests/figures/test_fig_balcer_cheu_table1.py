"""Table 1's added rows are the estimators they claim to be: local Hadamard response is
unbiased with the exact variance of accountant.protocols.ggkpv.local_hadamard, and the
central stability histogram never releases an absent value and releases a count-1 value with
probability delta/4."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accountant.protocols.ggkpv import local_hadamard as lh
from figures import fig_balcer_cheu_table1 as table1


def test_local_hadamard_is_unbiased_with_the_exact_variance():
    counts = np.array([700, 200, 100, 0, 0])
    n, trials = int(counts.sum()), 400
    est = table1.local_hadamard(counts, 1.0, trials, np.random.default_rng(3))
    for x, c in enumerate(counts):
        sd = math.sqrt(lh.variance(n=n, epsilon=1.0, count=int(c))) / n
        # 5 standard errors: false-alarm rate below 1e-5 per value
        assert abs(est[:, x].mean() - c / n) <= 5 * sd / math.sqrt(trials)
        assert 0.7 * sd <= est[:, x].std(ddof=1) <= 1.3 * sd


def test_central_stability_releases_a_count_one_value_with_probability_delta_over_4():
    counts = np.array([0, 1, 10**4])
    delta, trials = 0.5, 20000
    est = table1.central_stability(counts, 1.0, delta, trials, np.random.default_rng(4))
    assert np.all(est[:, 0] == 0)
    released = float(np.mean(est[:, 1] > 0))
    sd = math.sqrt(delta / 4 * (1 - delta / 4) / trials)
    assert abs(released - delta / 4) <= 5 * sd


def test_rr_epsilon0_is_the_largest_certified_one():
    from accountant import LDP
    e0 = table1.rr_epsilon0(n=10**4, epsilon=0.5, delta=5e-7)
    assert float(LDP(n=10**4, epsilon0=e0).epsilon_for_delta(5e-7).upper) <= 0.5
    assert float(LDP(n=10**4, epsilon0=e0 + 2e-4).epsilon_for_delta(5e-7).upper) > 0.5


def test_shuffled_rr_is_unbiased():
    counts = np.array([600, 300, 100])
    n, trials, e0 = 1000, 2000, 2.0
    est = table1.shuffled_rr(counts, e0, trials, np.random.default_rng(5))
    e = math.exp(e0)
    keep, flip = e / (1 + e), 1 / (1 + e)
    for x, c in enumerate(counts):
        var = (c * keep * (1 - keep) + (n - c) * flip * (1 - flip)) / (n * (keep - flip)) ** 2
        assert abs(est[:, x].mean() - c / n) <= 5 * math.sqrt(var / trials)


# ------------------------------------------------------------------ the two [13] rows
def _literal_hadamard_counts(counts, rho, tau, rng):
    from verify.samplers import ggkpv as g
    B = counts.size
    xs = np.repeat(np.arange(1, B + 1), counts)
    m = g.shuffled_hadamard_messages(xs, B=B, tau=tau, rho=rho, rng=rng)
    est = g.shuffled_hadamard_estimate(m, n=xs.size, B=B, rho=rho)
    pi = 2.0 ** -tau
    return np.rint(est * (1 - pi) + xs.size * (1 + rho) * pi).astype(np.int64)


def _same_law(a, b, min_cell=20):
    """p-value of a chi-square homogeneity test of two samples of hashable outcomes
    (outcomes seen fewer than min_cell times in both pooled into one cell)."""
    from collections import Counter

    from scipy import stats
    ca, cb = Counter(a), Counter(b)
    keys = [k for k in set(ca) | set(cb) if ca[k] + cb[k] >= min_cell]
    table = np.array([[ca[k] for k in keys] + [len(a) - sum(ca[k] for k in keys)],
                      [cb[k] for k in keys] + [len(b) - sum(cb[k] for k in keys)]])
    table = table[:, table.sum(axis=0) > 0]
    return stats.chi2_contingency(table).pvalue, len(keys)


def test_corank_law_matches_enumeration():
    import itertools
    for dim, m in ((2, 1), (2, 3), (3, 2), (3, 4)):
        law = np.zeros(dim + 1)
        for vs in itertools.product(range(2 ** dim), repeat=m):
            span = {0}
            for v in vs:
                span |= {s ^ v for s in span}
            law[dim - (len(span).bit_length() - 1)] += 1
        assert np.allclose(table1.corank_law(dim, m), law / 2 ** (dim * m), rtol=1e-15)


def test_hadamard_shortcut_has_the_literal_protocols_joint_law():
    # small cases where spans are often deficient (co-rank 2 and 3 in K = 8), so the
    # shortcut's subspace draws are exercised; joint laws of (N_1, N_2, N_3) and
    # (N_3, N_5, N_6): triples x, x', x XOR x', whose memberships are dependent
    for counts, tau, rho, seed in ((np.array([2, 1, 1]), 2, 1, 1),
                                   (np.array([1, 0, 1, 0, 1, 0, 0]), 2, 1, 2),
                                   (np.array([1, 1, 0, 0, 0, 0, 1]), 1, 1, 3)):
        r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed + 100)
        trials = 6000
        lit = np.array([_literal_hadamard_counts(counts, rho, tau, r1) for _ in range(trials)])
        fast = np.array([table1.hadamard_tuple_counts(counts, rho=rho, tau=tau, rng=r2)
                         [1:counts.size + 1] for _ in range(trials)])
        for triple in ((0, 1, 2), (2, 4, 5))[:1 if counts.size == 3 else 2]:
            p, cells = _same_law([tuple(r) for r in lit[:, triple]],
                                 [tuple(r) for r in fast[:, triple]])
            assert cells >= 10
            assert p > 1e-4, (counts, tau, rho, triple, p)


def test_hadamard_estimates_are_unbiased_at_the_figures_tau():
    counts = table1.dataset(4096, 16)
    est = table1.hadamard_frequencies(counts, rho=3, trials=300, rng=np.random.default_rng(9))
    f = counts / counts.sum()
    se = est.std(axis=0, ddof=1) / math.sqrt(est.shape[0])
    assert np.all(np.abs(est.mean(axis=0) - f) <= 5 * se)


def test_countmin_shortcut_has_the_literal_protocols_law():
    from verify.samplers import ggkpv_countmin as cm
    counts, w, rows, rho = np.array([2, 1, 0, 1]), 3, 2, 1
    xs = np.repeat(np.arange(1, counts.size + 1), counts)
    r1, r2 = np.random.default_rng(11), np.random.default_rng(12)
    trials = 6000
    lit = []
    for _ in range(trials):
        table = cm.hash_table(B=counts.size, w=w, d=rows, rng=r1)
        msgs = cm.shuffled_countmin_messages(xs, table=table, w=w, rho=rho, rng=r1)
        sketch = cm.countmin_counts(msgs, w=w, d=rows)
        lit.append(tuple(np.round(cm.countmin_estimate(sketch, table=table, n=xs.size,
                                                        rho=rho), 6)))
    fast = table1.countmin_frequencies(counts, rows=rows, w=w, rho=rho, trials=trials, rng=r2)
    p, cells = _same_law(lit, [tuple(np.round(r * xs.size, 6)) for r in fast])
    assert cells >= 10
    assert p > 1e-4


def test_ggkpv_cache_is_the_least_certified_rho_at_both_ends_of_d():
    # the cache re-derived: calibrate at the smallest and largest d of the figure (the
    # Hadamard pair does not depend on d; count-min's rows do)
    from accountant.protocols import ggkpv
    n, eps, delta = table1.N, table1.EPSILON, table1.DELTA
    for d in (min(table1.DS), max(table1.DS)):
        c = ggkpv.calibrate(n=n, B=d, target_epsilon=eps, target_delta=delta)
        assert c.rho == table1.HADAMARD_RHO[(n, eps, delta)]
    c = ggkpv.calibrate_countmin(n=n, B=2, w=table1.W, d=1, target_epsilon=eps,
                                 target_delta=delta)
    assert c.rho == table1.COUNTMIN_RHO[(n, eps, delta, table1.W, 1)]


@pytest.mark.slow
def test_ggkpv_countmin_cache_at_every_row_count():
    from accountant.protocols import ggkpv
    n, eps, delta = table1.N, table1.EPSILON, table1.DELTA
    for d in table1.DS:
        rows = table1.sketch_rows(d)
        c = ggkpv.calibrate_countmin(n=n, B=d, w=table1.W, d=rows, target_epsilon=eps,
                                     target_delta=delta)
        assert c.rho == table1.COUNTMIN_RHO[(n, eps, delta, table1.W, rows)]


def test_ggkpv_settings_recertify_the_cache_or_calibrate():
    s = table1.ggkpv_settings((2, 32), n=table1.N, epsilon=table1.EPSILON,
                              delta=table1.DELTA, check_least=True)
    for setting in s.values():
        assert not setting.calibrated_here
        assert setting.epsilon_upper <= table1.EPSILON < setting.previous_upper
    # outside the cache: calibrated on the spot, and the least (rho - 1 misses)
    fresh = table1.ggkpv_settings((2,), n=2000, epsilon=1.0, delta=1e-6, check_least=True)
    for setting in fresh.values():
        assert setting.calibrated_here
        assert setting.epsilon_upper <= 1.0 < setting.previous_upper


@pytest.fixture(scope="module")
def quick_rows():
    return table1.compute(table1.QUICK_DS, trials=5, check_least=False)


def test_ggkpv_rows_certified_and_between_central_and_local(quick_rows):
    by = {(r["model"], r["d"]): r for r in quick_rows}
    for d in table1.QUICK_DS:
        had, cm = by[(table1.MODELS[6], d)], by[(table1.MODELS[7], d)]
        for r in (had, cm):
            # certified privacy at the target, messages as the protocol sends them
            assert r["certified_epsilon_upper"] <= r["epsilon"]
            assert not r["rho_calibrated_here"]
            # multi-message shuffling beats the local protocols at every d (Table 1: 1/n
            # against 1/sqrt(n) rates), but not the central DLap histogram with its exact
            # counts; 3 sd of slack on the means
            for other, below in ((table1.MODELS[3], True), (table1.MODELS[2], False)):
                o = by[(other, d)]
                slack = 3 * (r["max_error_sd"] + o["max_error_sd"]) / math.sqrt(r["trials"])
                if below:
                    assert r["max_error_mean"] < o["max_error_mean"] + slack
                else:
                    assert r["max_error_mean"] > o["max_error_mean"] - slack
        assert had["messages_per_user"] == 1 + had["rho"]
        assert cm["messages_per_user"] == table1.sketch_rows(d) * (1 + cm["rho"])
    assert len({by[(table1.MODELS[6], d)]["messages_per_user"] for d in table1.QUICK_DS}) == 1


def test_ggkpv_findings_quote_the_rows(quick_rows):
    text = table1.findings(quick_rows)
    had = sorted((r for r in quick_rows if r["model"] == table1.MODELS[6]),
                 key=lambda r: r["d"])
    assert (f"from {had[0]['max_error_mean']:.3g} at d={had[0]['d']:g} to "
            f"{had[-1]['max_error_mean']:.3g} at d={had[-1]['d']:g}") in text
    assert f"sends {had[0]['messages_per_user']:.4g} messages per user" in text
    assert "not re-checked in this (quick) run" in text
    # a row calibrated in the run changes the sentence
    rows = [dict(r, rho_calibrated_here=True) if r["model"] == table1.MODELS[7]
            and r["d"] == 32 else r for r in quick_rows]
    assert "calibrated in this run at d = 32" in table1.findings(rows)


def test_table1_audit_record_covers_the_six_rows():
    from functools import partial

    from figures import audit_report
    from figures.audit_papers import balcer_cheu
    entry = next(e for e in balcer_cheu.audit(True, partial(audit_report._record, "bc"))
                 if e.locator.startswith("Table 1"))
    assert entry.locator == "Table 1 (all six rows)"
    v = [c["value"] for c in entry.computed]
    assert entry.verdict == "holds"
    # the reason is generated from the values it states
    assert f"sends {v[9]:g} messages at both d at certified epsilon {v[10]:.4g}" in entry.reason
    assert f"x{v[7]:.3g} ([13] Hadamard)" in entry.reason
    assert v[10] <= 1.0 and v[14] <= 1.0
