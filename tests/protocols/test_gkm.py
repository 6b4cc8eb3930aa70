"""GKM counting: Condition 7, Theorem 6, Lemma 8 on exact views, GKMP20, utility, CLI.

Hand derivations used below (docs/gkm.md#condition-7, docs/gkm.md#utility-and-cost):
- epsilon = 1, epsilon' = 0.5, q = 0.1: s >= 2 log(1/((e - 1) 0.1)) / 0.5 = 4 log(5.8198)
  = 7.0447, so s = 8; lam >= e^0.5 / (1 - e^-0.25) * 8 = 1.64872 / 0.221199 * 8 = 59.6285.
- Theorem 6 at epsilon = 1, rho = 0.5, n = 10: epsilon' = 1 - 0.005 = 0.995;
  Var(DLap(1)) = 2 e^-1 / (1 - e^-1)^2 = 1.841347, q = 0.05 * 1.841347 / 10 = 0.009206735.
"""

import json
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accountant.cli import main
from accountant.divergence import delta_for_epsilon, epsilon_for_delta, renyi_divergence
from accountant.domains import EPSILON0
from accountant.errors import ParameterError, RegimeError
from accountant.protocols import gkm
from accountant.protocols.gkm import gkmp20
from accountant.protocols.gkm import view as gkm_view
from accountant.result import Kind

MINIMAL_N10 = dict(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1)


# ------------------------------------------------------------------ Condition 7
def test_minimal_s_and_lam_match_the_hand_derivation():
    p = gkm.gkm_parameters(**MINIMAL_N10)
    assert p.s == 8
    assert p.lam == pytest.approx(1.6487212707 / 0.2211992169 * 8, rel=1e-9)


def test_condition7_names_each_failing_inequality():
    with pytest.raises(RegimeError, match=r"s >= 2 log.*7\.04.*got s=7"):
        gkm.gkm_parameters(**MINIMAL_N10, s=7, lam=100.0)
    with pytest.raises(RegimeError, match=r"lam >= .*59\.62.*got lam=59\.0"):
        gkm.gkm_parameters(**MINIMAL_N10, s=8, lam=59.0)
    with pytest.raises(RegimeError, match="epsilon_prime < epsilon"):
        gkm.check_condition7(epsilon=1.0, epsilon_prime=1.0, q=0.1, s=8, lam=100.0)


@given(epsilon=EPSILON0.strategy(min_value=0.05, max_value=5.0),
       fraction=st.floats(min_value=0.05, max_value=0.95),
       q=st.floats(min_value=1e-4, max_value=0.9))
def test_minimal_values_satisfy_condition7_and_one_less_does_not(epsilon, fraction, q):
    epsilon_prime = epsilon * fraction
    s = gkm.minimal_s(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q)
    lam = gkm.minimal_lam(epsilon=epsilon, epsilon_prime=epsilon_prime, s=s)
    assert gkm.condition7_failures(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q, s=s,
                                   lam=lam) == []
    assert gkm.condition7_failures(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q, s=s,
                                   lam=lam * (1 - 1e-9))
    if s > 1:
        assert gkm.condition7_failures(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q,
                                       s=s - 1, lam=lam)


@pytest.mark.parametrize("kwargs, name", [
    (dict(n=0, epsilon=1.0, epsilon_prime=0.5, q=0.1), "n=0"),
    (dict(n=10, epsilon=-1.0, epsilon_prime=0.5, q=0.1), "epsilon=-1.0"),
    (dict(n=10, epsilon=1.0, epsilon_prime=0.5, q=1.0), "q=1.0"),
    (dict(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.0), "q=0.0"),
    (dict(n=10, epsilon=1.0, epsilon_prime=-0.5, q=0.1), "epsilon_prime=-0.5"),
    (dict(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1, s=0), "s=0"),
    (dict(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1, s=8, lam=math.nan), "lam=nan"),
])
def test_bad_input_raises_parameter_error_naming_it(kwargs, name):
    with pytest.raises(ParameterError, match=name.replace("(", r"\(")):
        gkm.gkm_parameters(**kwargs)


def test_theorem6_parameters_match_the_hand_derivation():
    p = gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.5)
    assert p.epsilon_prime == pytest.approx(0.995, rel=1e-15)
    assert p.q == pytest.approx(0.05 * 1.8413472 / 10, rel=1e-7)
    assert gkm.condition7_failures(epsilon=1.0, epsilon_prime=p.epsilon_prime, q=p.q,
                                   s=p.s, lam=p.lam) == []
    c = gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.5, corrected_q=True)
    assert c.q == pytest.approx(0.05 / 10, rel=1e-15)
    with pytest.raises(ParameterError, match="rho=0.7"):
        gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.7)
    with pytest.raises(RegimeError, match="q = 0.1 rho"):
        gkm.theorem6_parameters(n=1, epsilon=0.01, rho=0.5)


# ------------------------------------------------------------------ Lemma 8, (a)
@pytest.mark.parametrize("params", [
    gkm.gkm_parameters(**MINIMAL_N10),
    gkm.gkm_parameters(n=12, epsilon=1.5, epsilon_prime=0.9, q=0.3),
    gkm.gkm_parameters(n=4, epsilon=2.0, epsilon_prime=1.0, q=0.05),
], ids=["n10-eps1", "n12-eps1.5", "n4-eps2"])
def test_lemma8_max_divergence_is_at_most_epsilon_for_every_dataset(params):
    for ones in range(params.n):
        view = gkm.view_pair(params, ones=ones)
        for direction in ("P||Q", "Q||P"):
            r = gkm_view.pure_epsilon(view, direction=direction)
            assert r.kind is Kind.UPPER
            assert r.value <= params.epsilon, (ones, direction)


def test_x1_is_1_direction_is_bounded_by_epsilon_prime():
    # docs/gkm.md#lemma-8: X||X' needs only the noise coordinate, so d_inf <= epsilon' (< epsilon);
    # the bound is approached far out (lower bound within 1e-4 of it).
    params = gkm.gkm_parameters(**MINIMAL_N10)
    upper = gkm.max_divergence(params, ones=4, direction="P||Q")
    view = gkm.view_pair(params, ones=4)
    assert upper.value <= params.epsilon_prime + upper.error_budget
    assert gkm_view.pure_epsilon_lower(view).value >= params.epsilon_prime - 1e-4


def test_lemma10_flood_inequality_holds_at_minimal_parameters():
    # (e^eps - 1) q f(i + s) + e^(eps - eps') f(i - 1) >= f(i), f = Poi(lam), in mpmath.
    p = gkm.gkm_parameters(**MINIMAL_N10)
    with mpmath.workdps(40):
        lam = mpmath.mpf(p.lam)

        def f(i):
            return mpmath.mpf(0) if i < 0 else mpmath.exp(-lam) * lam ** i / mpmath.factorial(i)
        for i in range(0, 400):
            lhs = (mpmath.expm1(p.epsilon) * p.q * f(i + p.s)
                   + mpmath.exp(p.epsilon - p.epsilon_prime) * f(i - 1))
            assert lhs >= f(i), i


# ------------------------------------------------------------------ (c) violation
def test_violating_condition7_can_exceed_epsilon():
    with pytest.raises(RegimeError):
        gkm.gkm_parameters(**MINIMAL_N10, s=1, lam=1.0)
    params = gkm.gkm_parameters(**MINIMAL_N10, s=1, lam=1.0, strict=False)
    view = gkm.view_pair(params, ones=9)
    lower = gkm_view.pure_epsilon_lower(view)
    assert lower.kind is Kind.LOWER and lower.value > 2.0 > params.epsilon


def test_violating_only_the_lam_inequality_exceeds_epsilon():
    # s = 8 satisfies Condition 7's s-inequality; lam = 2 < 59.6 breaks the lam one.
    params = gkm.gkm_parameters(**MINIMAL_N10, s=8, lam=2.0, strict=False)
    failures = gkm.condition7_failures(epsilon=1.0, epsilon_prime=0.5, q=0.1, s=8, lam=2.0)
    assert len(failures) == 1 and failures[0].startswith("lam >=")
    lower = gkm_view.pure_epsilon_lower(gkm.view_pair(params, ones=9))
    assert lower.value > 4.0


def test_condition7_is_sufficient_but_far_from_necessary():
    # s = 2, lam = 4 violate both inequalities (need s >= 8, lam >= 59.6), yet the exact
    # worst case over all datasets is below epsilon = 1 (about 0.764).
    params = gkm.gkm_parameters(**MINIMAL_N10, s=2, lam=4.0, strict=False)
    assert len(gkm.condition7_failures(epsilon=1.0, epsilon_prime=0.5, q=0.1, s=2,
                                       lam=4.0)) == 2
    worst, _ = gkm.worst_case_max_divergence(params)
    assert worst.kind is Kind.UPPER and worst.value < 0.8


def test_q_zero_gives_infinite_max_divergence():
    view = gkm_view.view_pair(n=10, ones=0, epsilon_prime=0.5, q=0.0, s=8, lam=59.63)
    r = gkm_view.pure_epsilon(view)
    assert r.kind is Kind.EXACT and r.value == math.inf


# ------------------------------------------------------------------ (b) GKMP20
def test_gkmp20_has_infinite_max_divergence_but_finite_epsilon_delta():
    params = gkmp20.gkmp20_parameters(n=10, epsilon_prime=0.5, lam=30.0)
    view = gkmp20.view_pair(params, ones=0)
    pure = gkm_view.pure_epsilon(view)
    assert pure.value == math.inf and pure.kind is Kind.EXACT
    assert gkm_view.pure_epsilon(view, direction="P||Q").value < 1.0
    eps = epsilon_for_delta(view, 1e-3)
    assert eps.kind is Kind.UPPER and math.isfinite(eps.value) and eps.value < 3.0
    delta = delta_for_epsilon(view, epsilon=1.0)
    # the atom V+ = #other ones (Q only) alone forces delta >= P_Q(V+ = 0) = (1-r) e^-lam
    atom = -math.expm1(-0.5) * math.exp(-30.0)
    assert atom <= delta.value < 1e-2


# ------------------------------------------------------------------ (eps, delta), Renyi
def test_epsilon_delta_and_renyi_of_the_views_are_consistent_with_pure_dp():
    params = gkm.gkm_parameters(**MINIMAL_N10)
    view = gkm.view_pair(params, ones=3)
    pure = gkm_view.pure_epsilon(view)
    d2, d8 = renyi_divergence(view, 2.0), renyi_divergence(view, 8.0)
    assert 0 < d2.value <= d8.value <= pure.value
    # pure epsilon-DP: delta at epsilon = d_inf is only the certified outside mass
    assert delta_for_epsilon(view, epsilon=pure.value).value <= 1e-15
    eps = epsilon_for_delta(view, 1e-6)
    assert 0 < eps.value <= pure.value


# ------------------------------------------------------------------ utility and cost
def test_dlap_variance_matches_a_direct_sum():
    for a in (0.1, 1.0, 3.0):
        with mpmath.workdps(30):
            r = mpmath.exp(-a)
            norm = (1 - r) / (1 + r)
            direct = 2 * mpmath.nsum(lambda x, r=r, norm=norm: norm * r ** x * x ** 2,
                                     [1, mpmath.inf])
        assert gkm.dlap_variance(a) == pytest.approx(float(direct), rel=1e-12)


def test_mse_exact_matches_enumeration_over_dropped_ones():
    p = gkm.gkm_parameters(**MINIMAL_N10)
    ones = 7
    e_d2 = sum(math.comb(ones, d) * p.q ** d * (1 - p.q) ** (ones - d) * d * d
               for d in range(ones + 1))
    assert gkm.mse_exact(p, ones=ones) == pytest.approx(
        gkm.dlap_variance(p.epsilon_prime) + e_d2, rel=1e-13)
    assert gkm.mse_upper_lemma11(p) >= gkm.mse_exact(p, ones=ones)


def test_expected_messages_from_the_component_means():
    p = gkm.gkm_parameters(**MINIMAL_N10)
    r = math.exp(-p.epsilon_prime)
    nb_mean = (1 / p.n) * r / (1 - r)  # NB(1/n, 1-r) mean, docs/README.md#distributions
    for x in (0, 1):
        direct = (1 - p.q) * (2 * p.s + x) + 2 * nb_mean + 2 * p.lam / p.n
        assert gkm.expected_messages(p, x=x) == pytest.approx(direct, rel=1e-13)


@pytest.mark.parametrize("epsilon", [0.1, 0.05])
@pytest.mark.parametrize("n", [10**4, 10**6])
def test_theorem6_q_breaks_the_mse_claim_and_the_corrected_q_restores_it(epsilon, n):
    paper = gkm.theorem6_parameters(n=n, epsilon=epsilon, rho=0.5)
    fixed = gkm.theorem6_parameters(n=n, epsilon=epsilon, rho=0.5, corrected_q=True)
    claim = 1.5 * gkm.dlap_variance(epsilon)
    assert gkm.mse_exact(paper, ones=n) > claim
    assert gkm.mse_exact(fixed, ones=n) <= claim


def test_theorem6_q_is_fine_at_epsilon_one():
    p = gkm.theorem6_parameters(n=10**4, epsilon=1.0, rho=0.5)
    assert gkm.mse_exact(p, ones=p.n) <= 1.5 * gkm.dlap_variance(1.0)


# ------------------------------------------------------------------ CLI
def _run(capsys, argv):
    status = main(argv + ["--json"])
    captured = capsys.readouterr()
    return status, (json.loads(captured.out) if captured.out else None), captured.err


def test_cli_pure_and_audit(capsys):
    flags = ["gkm-count", "--n", "10", "--epsilon", "1", "--epsilon-prime", "0.5",
             "--q", "0.1"]
    status, out, _ = _run(capsys, ["pure"] + flags + ["--ones", "2"])
    assert status == 0 and out["max_divergence"]["kind"] == "upper"
    assert out["max_divergence"]["value"] <= 1.0
    status, out, _ = _run(capsys, ["audit"] + flags + ["--ones", "2"])
    # the claimed epsilon 1 against a certified upper end <= 1 (the pure call above)
    claimed, upper = out["claimed"]["value"], out["computed"]["value"]
    assert out["verdict"] == ("loose" if claimed >= 2 * upper else "holds")
    status, out, _ = _run(capsys, ["audit"] + flags + ["--ones", "9", "--s", "1", "--lam",
                                                       "1", "--no-check"])
    assert out["verdict"] == "violated"


def test_cli_gkmp20_dp_and_pure(capsys):
    flags = ["gkmp20-count", "--n", "10", "--epsilon-prime", "0.5", "--lam", "30",
             "--ones", "0"]
    status, out, _ = _run(capsys, ["pure"] + flags)
    assert out["max_divergence"]["value"] == "inf"
    status, out, _ = _run(capsys, ["dp"] + flags + ["--at-delta", "1e-3"])
    assert status == 0 and out["epsilon"]["value"] < 3.0


def test_cli_rdp_orders_are_monotone_up_to_the_max_divergence(capsys):
    status, out, _ = _run(capsys, ["rdp", "gkm-count", "--n", "10", "--epsilon", "1",
                                   "--epsilon-prime", "0.5", "--q", "0.1", "--ones", "3",
                                   "--orders", "2,8,inf"])
    values = [r["value"] for r in out["renyi"]]
    assert status == 0 and values[0] <= values[1] <= values[2] <= 1.0


def test_cli_errors_exit_2_with_one_line(capsys):
    status, _, err = _run(capsys, ["pure", "gkm-count", "--n", "10", "--epsilon", "1",
                                   "--epsilon-prime", "0.5", "--q", "0.1", "--s", "2"])
    assert status == 2 and "Condition 7" in err and err.count("\n") == 1
    status, _, err = _run(capsys, ["pure", "gkm-count", "--n", "10", "--epsilon", "1",
                                   "--epsilon-prime", "0.5", "--q", "1.5"])
    assert status == 2 and "q=1.5" in err


def test_cli_simulate_reports_exact_values(capsys):
    status, out, _ = _run(capsys, ["simulate", "gkm-count", "--n", "10", "--epsilon", "1",
                                   "--epsilon-prime", "0.5", "--q", "0.1", "--trials", "2000",
                                   "--seed", "3"])
    sim = out["simulation"]
    assert sim["mse"]["exact"] == pytest.approx(
        gkm.mse_exact(gkm.gkm_parameters(**MINIMAL_N10), ones=10))
    assert np.isfinite(sim["messages_per_user"]["z"])
