"""The GKM and GGKPV audit records (figures/audit_papers/gkm.py, ggkpv.py): verdicts of the
issue-22 items, reasons generated from the values they describe, commands that reproduce."""

import math

import pytest

from figures import audit_report as ar


@pytest.fixture(scope="module")
def records():
    return ar.collect("gkm", quick=True) + ar.collect("ggkpv", quick=True)


def _find(records, locator, part=""):
    return next(r for r in records if r.locator == locator and part in r.claim)


def test_theorem6_proof_first_step_is_violated_with_the_measured_numbers(records):
    r = _find(records, "Theorem 6 (proof, first step)")
    ratio, step1 = r.computed[0]["value"], r.computed[1]["value"]
    assert r.verdict == "violated" and ratio > step1
    assert f"{ratio:.8g}" in r.reason and f"{step1:.8g}" in r.reason
    assert r.computed[0]["value"] <= r.computed[3]["value"]  # the final bound holds


@pytest.mark.parametrize("locator", ["Lemma 5", "Lemma 9", "Lemma 10",
                                     "Lemma 8 (proof, order X'||X)", "Theorem 2"])
def test_lemmas_and_theorem2_hold(records, locator):
    assert _find(records, locator).verdict == "holds"


def test_lemma8_reverse_step_orders_the_numbers_as_lemma5_says(records):
    r = _find(records, "Lemma 8 (proof, order X'||X)")
    step, exact = r.computed[0]["value"], r.computed[1]["value"]
    assert exact <= step <= 1.0
    assert f"{exact:.6g}" in r.reason and f"{step:.6g}" in r.reason


def test_sec12_values_are_computed_not_derived_from_the_verdict(records):
    inf_rec = _find(records, "Sec. 1.2", "any finite")
    assert math.isinf(inf_rec.computed[0]["value"]) and inf_rec.verdict == "holds"
    mass = _find(records, "Sec. 1.2", "V+ = 0")
    zero_all, zero_one, closed = (c["value"] for c in mass.computed)
    assert zero_one == 0 and zero_all == pytest.approx(closed, rel=1e-9) and zero_all > 0


def test_lemma11_compares_an_independent_pmf_sum_with_the_bound(records):
    r = _find(records, "Lemma 11")
    summed, bound = r.computed[0]["value"], r.computed[1]["value"]
    assert r.verdict == "holds" and summed == pytest.approx(bound, rel=1e-12)


def test_lemma12_reason_states_the_computed_gap(records):
    r = _find(records, "Lemma 12")
    exact, printed, lam_n = (c["value"] for c in r.computed)
    assert f"{exact - printed:.4g}" in r.reason and f"{lam_n:.4g}" in r.reason


def test_theorem6_mse_reason_quotes_both_choices_of_q(records):
    for r in (x for x in records if x.locator == "Theorem 6 (MSE)"):
        assert f"{r.computed[0]['value']:.5g}" in r.reason
        assert f"{r.computed[2]['value']:.5g}" in r.reason
        assert r.computed[2]["value"] <= r.computed[1]["value"]  # corrected q restores it


def test_ggkpv_csuzz19_is_computed_and_holds(records):
    r = _find(records, "[CSUZZ19] (slides)")
    assert r.verdict == "holds" and r.computed[0]["value"] <= 1e-6
    assert f"{r.computed[1]['value']:.4g}" in r.reason


def test_ggkpv_slides_rho_reason_is_generated(records):
    r = _find(records, "Hadamard response (slides)", "give (eps, delta)-DP")
    assert r.verdict == "violated" and f"{r.computed[0]['value']:.4g}" in r.reason
    assert "2.5-4.6" not in r.reason
    cal = _find(records, "Hadamard response (slides, Theta constant)")
    assert f"{cal.computed[0]['value'] / cal.computed[1]['value']:.3g}" in cal.reason


def test_local_hadamard_ratio_is_bounded(records):
    r = _find(records, "Hadamard response (slides, local)")
    assert r.verdict == "holds" and r.computed[0]["value"] < 4.5


@pytest.mark.parametrize("locator, part", [
    ("Theorem 6 (proof, first step)", ""), ("Lemma 10", ""), ("Sec. 1.2", "V+ = 0"),
    ("[CSUZZ19] (slides)", ""), ("Lemma 11", "")])
def test_shown_command_prints_the_record_values(records, locator, part):
    r = _find(records, locator, part)
    printed = [float(x) for x in ar.reproduce_command(r.to_json(), timeout=300).split()]
    assert printed == [c["value"] for c in r.computed], r.command


def test_unary_sweep_exponent_is_about_a_quarter():
    # the full audit's RAPPOR-branch record: exact sd at the largest certified eps0
    from figures.audit_papers.ggkpv import ggkpv_unary_sweep
    exponent, sd_small, sd_large, eps0 = ggkpv_unary_sweep()
    assert 0.2 < exponent < 0.3 and sd_small < sd_large
    assert exponent == pytest.approx(math.log(sd_large / sd_small) / math.log(1000), rel=1e-12)


def test_hadamard_rates_record_is_computed_from_calibrated_rho(records):
    r = _find(records, "multi-message upper bounds (slides, Hadamard response)")
    lo, hi = r.computed[0]["value"], r.computed[1]["value"]
    assert r.verdict == "holds" and lo <= hi < 1.1 * lo
    assert f"[{lo:.4g}, {hi:.4g}]" in r.reason
    cmd = [float(x) for x in ar.reproduce_command(r.to_json(), timeout=300).split()]
    assert cmd == [c["value"] for c in r.computed]
