"""figures/ggkpv_single.py: the fast certified calibration of k-RR and unary encoding at
(1, 1/n^2) is certified by the library's mechanisms and tight to its tolerance; the closed-form
sds agree with the separation experiment's independent variances; the audit's RR-branch and
single-message comparison records recompute their numbers and their verdicts can fail."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accountant.protocols import k_rr, ldp
from figures import ggkpv_single as s
from figures.audit_papers import ggkpv as audit_ggkpv
from verify.ggkpv_separation import estimator_variances
from verify.samplers import ggkpv as g


@pytest.mark.parametrize("n, B", [(1000, 16), (10**4, 64), (5000, 2)])
def test_krr_epsilon0_is_certified_by_the_mechanism_and_tight(n, B):
    delta = 1.0 / n**2
    e0, d_up = s.krr_epsilon0(n, B, 1.0, delta)
    # the library's mechanism (blanket pair upper end, special pair lower end) agrees
    bracket = k_rr.KRR(n=n, epsilon0=e0, k=B).delta_for_epsilon(1.0)
    assert float(bracket.upper) == pytest.approx(d_up, rel=1e-12) and d_up <= delta
    # tight to rel_tol: 2% more is no longer certified
    assert s.krr_delta_upper(n, B, e0 * 1.02, 1.0) > delta


def test_unary_epsilon0_is_certified_and_tight():
    n = 10**4
    e0, d_up = s.unary_epsilon0(n, 1.0, 1e-8)
    assert float(ldp.LDP(n=n, epsilon0=e0).delta_for_epsilon(1.0).upper) <= 1e-8
    assert d_up <= 1e-8 < s.unary_delta_upper(n, e0 * 1.02, 1.0)


def test_agrees_with_the_inverting_calibration():
    # verify.samplers.ggkpv inverts epsilon(delta) instead: the same largest eps0 to ~2%
    e_fast, _ = s.krr_epsilon0(1000, 16, 1.0, 1e-6)
    e_slow, r = g.calibrated_epsilon0("k-rr", n=1000, B=16, epsilon=1.0, delta=1e-6,
                                      rel_tol=1e-2)
    assert float(r) <= 1.0 and e_fast == pytest.approx(e_slow, rel=0.025)


@pytest.mark.parametrize("B, e0", [(4, 9.0), (64, 5.3), (1024, 2.0), (2, 0.7)])
def test_krr_worst_sd_is_the_maximum_of_the_exact_variances(B, e0):
    n = 5000
    worst = max(float(np.max(estimator_variances("k-rr", np.array([f] + [0] * (B - 1)),
                                                 n=n, B=B, parameter=e0)))
                for f in (0, n // 3, n))
    assert s.krr_worst_sd(n, B, e0) == pytest.approx(math.sqrt(worst), rel=1e-12)


def test_unary_sd_matches_the_exact_variance():
    n, e0 = 10**4, 4.4
    var = estimator_variances("unary encoding", np.zeros(8), n=n, B=8, parameter=e0)[0]
    assert s.unary_sd(n, e0) == pytest.approx(math.sqrt(var), rel=1e-12)


def test_largest_epsilon0_search():
    calls = []

    def meets(e):
        calls.append(e)
        return e <= 3.7
    for guess in (0.5, 3.0, 3.7, 9.0, 50.0):
        calls.clear()
        e = s.largest_epsilon0(meets, guess, rel_tol=1e-3)
        assert 3.7 * (1 - 2e-3) <= e <= 3.7 and e in calls
    # a non-monotone check: the answer is still a point where it held
    e = s.largest_epsilon0(lambda x: x < 1 or 2 < x < 2.2, 2.1, rel_tol=1e-3)
    assert e < 1 or 2 < e < 2.2


def test_fitted_exponent():
    assert s.fitted_exponent([4, 16, 64], [3 * 4**0.5, 3 * 16**0.5, 3 * 64**0.5]) == (
        pytest.approx(0.5, rel=1e-12))


# ------------------------------------------------------------------ the audit records
@pytest.fixture(scope="module")
def rr_record():
    from figures import audit_report as ar
    return next(e for e in ar.collect("ggkpv", quick=True)
                if e.locator == "single-message upper bound (slides, RR branch)")


def test_rr_record_recomputes_its_numbers(rr_record):
    rows = s.single_message_rows((10**4,), (4, 16, 64))
    sds = [r["krr_sd"] for r in rows]
    v = [c["value"] for c in rr_record.computed]
    assert v[0] == pytest.approx(s.fitted_exponent((4, 16, 64), sds), rel=1e-12)
    assert v[1] == pytest.approx(0.5 + math.log(3) / math.log(16), rel=1e-12)
    assert v[2:4] == [sds[0], sds[-1]] and v[6] <= 1.0
    assert 0.45 < v[0] < 0.55  # sqrt(B) at n = 1e4 (e^eps0 ~ 200 >> B)
    assert rr_record.verdict == audit_ggkpv.upper_verdict(v[1], None, v[0])[0] == "holds"
    assert f"B^{v[0]:.3f}" in rr_record.reason


def test_rr_record_command_prints_its_values(rr_record):
    from figures import audit_report as ar
    printed = [float(x) for x in ar.reproduce_command(rr_record.to_json(), timeout=300).split()]
    assert printed == [c["value"] for c in rr_record.computed]


@pytest.mark.parametrize("power, verdict", [(0.9, "undecided"), (0.5, "holds"),
                                             (0.2, "loose")])
def test_rr_verdict_can_fail(power, verdict):
    # the record's rule on sds growing like B^power over its quick grid (B = 4, 16, 64):
    # faster than sqrt(B) times one log is not confirmed, much slower is flagged as loose
    Bs = (4, 16, 64)
    exponent = s.fitted_exponent(Bs, [7.0 * B**power * math.log(B) ** 0.1 for B in Bs])
    claimed = 0.5 + math.log(math.log(64) / math.log(4)) / math.log(16)
    assert audit_ggkpv.upper_verdict(claimed, None, exponent)[0] == verdict


def test_single_message_comparison_numbers():
    ns, bs = (10**3, 10**4), (4, 64)
    v = audit_ggkpv.ggkpv_single_message_comparison(ns, bs)
    rows = s.single_message_rows(ns, bs)
    ratios = [min(r["krr_sd"], r["unary_sd"]) / min(r["n"] ** 0.25, math.sqrt(r["B"]))
              for r in rows]
    assert v[0] == pytest.approx(min(ratios)) and v[1] == pytest.approx(max(ratios))
    assert v[4] == sum(r["krr_sd"] < r["unary_sd"] for r in rows) and v[5] == 4
    assert v[6] <= 1.0
