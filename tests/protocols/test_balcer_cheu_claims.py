"""Balcer-Cheu: the paper's closed forms, Lemma A.3 against exact smoothness, the audit of
Theorems 3.1(i)/3.2(i), and calibration."""

import math

import mpmath
import pytest

from accountant.bounds import balcer_cheu_2020 as paper
from accountant.errors import ParameterError, RegimeError
from accountant.protocols import balcer_cheu as bc
from accountant.protocols.balcer_cheu.audit import AUDIT_GRID, audit_table, audit_zsum
from accountant.protocols.balcer_cheu.calibration import (
    accuracy_summary,
    calibrate,
    error_quantile,
)
from accountant.protocols.balcer_cheu.smoothness import binomial_smoothness_delta
from accountant.result import Kind

# ---------------------------------------------------------------- closed forms


@pytest.mark.parametrize("n,eps,delta,beta", [(10**4, 1.0, 1e-6, 0.1),
                                               (10**6, 0.5, 1e-9, 0.01)])
def test_theorem_31_alpha_dominates_its_proof_form_at_the_paper_p(n, eps, delta, beta):
    """The proof writes alpha = (1-p) + 2 sqrt(p(1-p) log(2/beta)/n) and bounds it by the
    theorem's alpha (p <= 1); so proof form <= theorem form."""
    p = paper.paper_p(epsilon=eps, delta=delta, n=n)
    thm = paper.accuracy_alpha_thm31(epsilon=eps, delta=delta, n=n, beta=beta)
    proof = paper.accuracy_alpha_for_p(p=p, n=n, beta=beta)
    assert thm.kind is Kind.UPPER and proof.value <= thm.value
    # hand evaluation of the theorem's formula
    ld, lb = math.log(2 / delta), math.log(2 / beta)
    assert thm.value == pytest.approx(50 * ld / (eps**2 * n)
                                      + math.sqrt(200 * ld * lb) / (eps * n), rel=1e-15)


def test_accuracy_regimes():
    with pytest.raises(RegimeError, match="beta >= delta\\^25"):
        paper.accuracy_alpha_thm31(epsilon=1.0, delta=0.5, n=10**4, beta=1e-9)
    with pytest.raises(RegimeError, match="beta >= n delta\\^25"):
        paper.simultaneous_alpha_thm32(epsilon=1.0, delta=0.6, n=10**4, beta=1e-3)
    with pytest.raises(RegimeError, match="2 exp"):
        paper.accuracy_alpha_for_p(p=0.999, n=100, beta=0.1)
    with pytest.raises(ParameterError, match="beta"):
        paper.accuracy_alpha_thm31(epsilon=1.0, delta=1e-6, n=10**4, beta=0.0)


def test_simultaneous_alpha_is_theorem_31_at_beta_over_n():
    a = paper.simultaneous_alpha_thm32(epsilon=1.0, delta=1e-6, n=10**4, beta=0.1)
    b = paper.accuracy_alpha_thm31(epsilon=1.0, delta=1e-6, n=10**4, beta=0.1 / 10**4)
    assert a.value == b.value


# ---------------------------------------------------------------- Lemma A.3

def _mp_smoothness(n, g, eps, k):
    """Definition A.1 by enumeration in mpmath (k' != 0), independent of the library."""
    pm = mpmath.mpf(g)
    pmf = [mpmath.binomial(n, y) * pm**y * (1 - pm) ** (n - y) for y in range(n + 1)]
    worst = mpmath.mpf(0)
    for s in [s for s in range(-k, k + 1) if s]:
        tot = mpmath.mpf(0)
        for y in range(n + 1):
            other = pmf[y + s] if 0 <= y + s <= n else 0
            if other == 0 or pmf[y] / other >= mpmath.exp(abs(s) * eps):
                tot += pmf[y]
        worst = max(worst, tot)
    return worst


@pytest.mark.parametrize("n,g,a,k", [(200, 0.3, 0.5, 2), (400, 0.5, 0.3, 1), (150, 0.1, 0.9, 3)])
def test_exact_smoothness_matches_mpmath_enumeration(n, g, a, k):
    eps = paper.lemma_a3_epsilon(a=a)
    r = binomial_smoothness_delta(n=n, gamma=g, epsilon=eps, k=k)
    ref = _mp_smoothness(n, g, eps, k)
    assert r.kind is Kind.UPPER
    assert float(ref) <= r.value <= float(ref) * (1 + 1e-9) + 1e-300


@pytest.mark.parametrize("n,g,a,k", [(10**4, 0.1, 0.2, 1), (10**5, 0.05, 0.1, 3),
                                     (10**5, 0.5, 0.05, 10), (2000, 0.3, 0.5, 2),
                                     (500, 0.5, 0.9, 100)])
def test_lemma_a3_closed_form_dominates_exact_smoothness(n, g, a, k):
    eps = paper.lemma_a3_epsilon(a=a)
    exact = binomial_smoothness_delta(n=n, gamma=g, epsilon=eps, k=k)
    closed = paper.lemma_a3_delta(n=n, gamma=g, a=a, k=k)
    assert exact.value <= closed.value


def test_lemma_a3_regime_and_formula():
    with pytest.raises(RegimeError, match="k <= a\\*gamma\\*n/2"):
        paper.lemma_a3_delta(n=100, gamma=0.1, a=0.1, k=1)
    r = paper.lemma_a3_delta(n=1000, gamma=0.5, a=0.5, k=1)
    x = 0.25 * 0.5 * 1000
    assert r.value == pytest.approx(math.exp(-x / 8) + math.exp(-x / 9), rel=1e-15)
    assert r.at == pytest.approx(math.log(3.0), rel=1e-15)


# ---------------------------------------------------------------- audit

def _in_regime(n, eps, delta):
    return n >= 100 * math.log(2 / delta) / eps**2


def test_audit_zsum_small_n_rows_hold_and_regime_rows_are_not_applicable():
    grid = dict(AUDIT_GRID, n=(10**4,))
    rows = audit_table("zsum", grid=grid)
    assert len(rows) == 6
    for row in rows:
        pr = row["params"]
        if _in_regime(pr["n"], pr["epsilon"], pr["delta"]):
            assert row["looseness"] > 1
            assert row["verdict"] == ("loose" if row["looseness"] >= 2 else "holds")
            assert row["computed"]["value"] <= row["claimed"]["value"]
        else:
            assert row["verdict"] == "not applicable" and "Theorem 3.1" in row["reason"]


def test_audit_record_uses_the_exact_bracket():
    rec = audit_zsum(epsilon=1.0, delta=1e-6, n=10**5)
    exact = bc.zsum_epsilon(bc.zsum_parameters(n=10**5, epsilon=1.0, delta=1e-6), 1e-6)
    assert rec.verdict == ("loose" if rec.looseness >= 2 else "holds")
    assert float(rec.computed_lower) <= exact.value <= float(rec.computed_upper)
    assert rec.looseness == pytest.approx(1.0 / float(rec.computed_upper), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["zsum", "hist"])
def test_full_audit_table_every_applicable_row_holds(protocol):
    rows = audit_table(protocol)
    assert len(rows) == 12
    for row in rows:
        pr = row["params"]
        in_regime = _in_regime(pr["n"], pr["epsilon"], pr["delta"])
        assert (row["verdict"] in ("holds", "loose")) == in_regime


# ---------------------------------------------------------------- calibration

@pytest.mark.parametrize("n,eps,delta", [(10**4, 1.0, 1e-6), (10**6, 0.5, 1e-9),
                                         (10**9, 0.25, 1e-6), (300, 1.0, 1e-3)])
def test_zsum_calibration_meets_target_within_1e6(n, eps, delta):
    c = calibrate(protocol="zsum", n=n, target_epsilon=eps, target_delta=delta)
    # recompute independently of the calibration's own Result
    again = bc.zsum_epsilon(c.params, delta)
    assert float(again) <= eps and eps - float(again) <= 1e-6
    assert not c.at_support_edge
    if c.paper_p is not None:
        assert c.params.p > c.paper_p   # less noise than Fig. 1


def test_hist_calibration_meets_target_within_1e6():
    c = calibrate(protocol="hist", n=10**4, d=5, target_epsilon=1.0, target_delta=1e-6)
    again = bc.hist_epsilon(c.params, 1e-6)
    assert float(again) <= 1.0 and 1.0 - float(again) <= 1e-6


def test_calibration_improves_accuracy_over_the_paper():
    c = calibrate(protocol="zsum", n=10**5, target_epsilon=1.0, target_delta=1e-6)
    acc = accuracy_summary(c.params, paper=c.paper_p, beta=0.01, epsilon=1.0, delta=1e-6)
    assert acc["improvement_factor"] > 1
    assert (acc["calibrated"]["alpha_proof_form"]["value"]
            < acc["paper"]["alpha_proof_form"]["value"]
            <= acc["paper"]["alpha_theorem_3_1"]["value"])


def test_calibration_unattainable_target_raises():
    with pytest.raises(RegimeError, match="p=1/2"):
        calibrate(protocol="zsum", n=10, target_epsilon=0.01, target_delta=1e-9)
    with pytest.raises(ParameterError, match="protocol"):
        calibrate(protocol="nope", n=10, target_epsilon=1.0, target_delta=1e-6)


def test_error_quantile_matches_direct_mpmath_enumeration():
    """(1-beta) quantile of |out - s/n| by enumerating Bin(n, p) in mpmath."""
    n, p, ones, beta = 60, 0.8, 25, 0.05
    params = bc.zsum_parameters(n=n, p=p)
    pm = mpmath.mpf(p)
    pairs = []
    for k in range(n + 1):
        out = (ones + k) / n - p if ones + k > n else 0.0
        pairs.append((abs(out - ones / n), mpmath.binomial(n, k) * pm**k * (1 - pm) ** (n - k)))
    pairs.sort()
    acc = 0
    for e, w in pairs:
        acc += w
        if acc >= 1 - beta:
            ref = e
            break
    assert error_quantile(params, ones=ones, beta=beta) == pytest.approx(ref, abs=1e-12)


def test_hist_calibration_compares_with_the_paper_p_for_half_the_target():
    """Theorem 3.2(i): p(eps, delta) gives hist (2 eps, 2 delta); so the paper's p for a
    hist target (1, 1e-6) is p(0.5, 5e-7)."""
    c = calibrate(protocol="hist", n=10**5, d=3, target_epsilon=1.0, target_delta=1e-6)
    from accountant.bounds.balcer_cheu_2020 import paper_p
    assert c.paper_p == paper_p(epsilon=0.5, delta=5e-7, n=10**5)
    # and the paper's p does meet the hist target (Theorem 3.2(i) holds,
    # docs/balcer-cheu-2020.md#the-hist-protocol)
    at_paper = bc.hist_epsilon(bc.BalcerCheuParameters(n=10**5, p=c.paper_p, d=3), 1e-6)
    assert float(at_paper) <= 1.0 and c.params.p > c.paper_p
