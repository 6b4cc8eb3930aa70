"""Girgis et al. 2021 bounds: reductions, an independent mpmath oracle, regimes, orderings.

The oracle `forward_reverse_mp` below sums C(n,k) p^k (1-p)^(n-k) L(k)^s over every k with
mpmath.binomial (no recurrence, no window), independently of accountant.bounds.
"""

import math
import warnings

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accountant.bounds import girgis_2021 as g
from accountant.domains import EPSILON0
from accountant.errors import LooseBoundWarning, ParameterError, RegimeError
from accountant.result import Direction, Kind


def log_moment_oracle(n, epsilon0, s, digits=60):
    """log E_{k~Bin(n,1/(e^eps0+1))}[L(k)^s], L(k) = (k e^eps0 + (n-k) e^-eps0)/n
    (docs/single-message.md#binary-randomized-response)."""
    with mpmath.workdps(digits):
        e = mpmath.exp(mpmath.mpf(epsilon0))
        p = 1 / (e + 1)
        total = mpmath.fsum(mpmath.binomial(n, k) * p**k * (1 - p) ** (n - k)
                            * ((k * e + (n - k) / e) / n) ** s for k in range(n + 1))
        return mpmath.log(total)


ORACLE_CASES = [(n, e0, a) for n in (50, 300, 1000) for e0 in (0.1, 1.0, 4.0)
                for a in (2, 3, 7.5, 32)]


@pytest.mark.parametrize("n,epsilon0,alpha", ORACLE_CASES,
                         ids=[f"n={n}-eps0={e}-alpha={a}" for n, e, a in ORACLE_CASES])
def test_thm3_is_the_exact_forward_divergence(n, epsilon0, alpha):
    exact = log_moment_oracle(n, epsilon0, alpha) / (alpha - 1)
    mp = g.rdp_lower_thm3(alpha=alpha, epsilon0=epsilon0, n=n, backend="mp")
    fl = g.rdp_lower_thm3(alpha=alpha, epsilon0=epsilon0, n=n)
    assert mp.kind is Kind.LOWER and fl.kind is Kind.LOWER
    assert mp.value == pytest.approx(float(exact), rel=1e-12, abs=0)
    assert fl.value <= exact and fl.value == pytest.approx(float(exact), rel=1e-9, abs=0)


@pytest.mark.parametrize("n,epsilon0,alpha", ORACLE_CASES,
                         ids=[f"n={n}-eps0={e}-alpha={a}" for n, e, a in ORACLE_CASES])
def test_reverse_order_is_the_exact_reverse_divergence(n, epsilon0, alpha):
    exact = log_moment_oracle(n, epsilon0, 1 - alpha) / (alpha - 1)
    fl = g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n)
    assert fl.value <= exact and fl.value == pytest.approx(float(exact), rel=1e-9, abs=0)
    assert g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n, backend="mp").value \
        == pytest.approx(float(exact), rel=1e-12, abs=0)


@pytest.mark.parametrize("n", [10**5, 10**6, pytest.param(10**7, marks=pytest.mark.slow),
                               pytest.param(10**8, marks=pytest.mark.slow)])
@pytest.mark.parametrize("epsilon0", [0.01, 1.0, 8.0])
def test_float_lower_bounds_match_mp_at_large_n(n, epsilon0):
    # The mp path sums the same window with 60 digits: a check of the float error model
    # where the divergence is as small as 1e-11 (n = 1e7, eps0 = 0.01).
    for alpha in (2, 64.5):
        mp = g.rdp_lower_thm3(alpha=alpha, epsilon0=epsilon0, n=n, backend="mp").value
        fl = g.rdp_lower_thm3(alpha=alpha, epsilon0=epsilon0, n=n).value
        assert fl <= mp * (1 + 1e-15) and fl == pytest.approx(mp, rel=1e-9)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 10**4, 10**6])
@pytest.mark.parametrize("epsilon0", [0.05, 1.0, 6.0])
def test_thm1_at_order_2_reduces_to_chi_over_nbar(n, epsilon0):
    # docs/girgis-2021.md#theorem-5/§6.6: no j >= 3 terms at alpha = 2, so eq. (6) is
    # log(1 + (e-1)^2/(nbar e) + exp(2 eps0 - (n-1)/(8e))), nbar = floor((n-1)/(2e)) + 1.
    with mpmath.workdps(60):
        e = mpmath.exp(mpmath.mpf(epsilon0))
        nbar = int(mpmath.floor((n - 1) / (2 * e))) + 1
        hand = mpmath.log(1 + (e - 1) ** 2 / (nbar * e) + mpmath.exp(2 * mpmath.mpf(epsilon0)
                                                                      - (n - 1) / (8 * e)))
    got = g.rdp_upper_thm1(alpha=2, epsilon0=epsilon0, n=n)
    assert got.kind is Kind.UPPER and got.direction is Direction.MAX
    assert got.value >= hand and got.value == pytest.approx(float(hand), rel=1e-14)
    assert got.source.locator == "Theorem 1, eq. (6)"


@pytest.mark.parametrize("m", [1, 5, 100, 10**5])
@pytest.mark.parametrize("epsilon0", [0.1, 2.0, 7.0])
def test_thm5_is_exact_for_binary_rr_at_order_2(m, epsilon0):
    # docs/girgis-2021.md#theorem-5: E[L^2] = 1 + chi/m for binary RR (Var L = chi/m), so Theorem 5
    # at alpha = 2
    # equals Theorem 3 (the forward special pair) at n = m.
    upper = g.rdp_upper_thm5(alpha=2, epsilon0=epsilon0, m=m).value
    exact = g.rdp_lower_thm3(alpha=2, epsilon0=epsilon0, n=m, backend="mp").value
    assert upper == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("m", [1, 3, 40, 2000])
@pytest.mark.parametrize("alpha", [3, 4, 9, 40])
@pytest.mark.parametrize("epsilon0", [0.1, 1.0, 5.0])
def test_thm5_bounds_the_binary_rr_special_pair(m, alpha, epsilon0):
    upper = g.rdp_upper_thm5(alpha=alpha, epsilon0=epsilon0, m=m).value
    exact = g.rdp_lower_thm3(alpha=alpha, epsilon0=epsilon0, n=m, backend="mp").value
    assert exact <= upper


def test_cor2_below_thm3_below_reverse():
    for n in (2, 30, 5000):
        for epsilon0 in (0.2, 3.0):
            for alpha in (2, 5, 50):
                cor2 = g.rdp_lower_cor2(alpha=alpha, epsilon0=epsilon0, n=n).value
                thm3 = g.rdp_lower_thm3(alpha=alpha, epsilon0=epsilon0, n=n).value
                rev = g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n).value
                assert cor2 <= thm3 * (1 + 1e-9) and thm3 <= rev, (n, epsilon0, alpha)


def test_cor1_where_the_papers_condition_holds_but_the_inequality_fails():
    # alpha = 2, n = 200, eps0 = 3e-5: alpha^4 e^(5 eps0) = 16.002 < n/9 = 22.2 (the paper's
    # sufficient condition holds) but T2 = chi/nbar ~ 9e-12 < E = exp(2 eps0 - 199/(8e)) ~
    # 1.6e-11, so the simplification is not justified (docs/girgis-2021.md#corollary-1).
    alpha, n, epsilon0 = 2, 200, 3e-5
    assert alpha**4 * math.exp(5 * epsilon0) < n / 9
    with pytest.raises(RegimeError) as info:
        g.rdp_upper_cor1(alpha=alpha, epsilon0=epsilon0, n=n)
    message = str(info.value)
    for fragment in ("S3 + E <= T2", "alpha=2", "epsilon0=3e-05", "n=200", "T2=", "E="):
        assert fragment in message
    with pytest.warns(LooseBoundWarning):
        fallback = g.rdp_upper_cor1(alpha=alpha, epsilon0=epsilon0, n=n, strict=False)
    assert fallback.value == g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n).value
    assert "out of regime" in fallback.method


@pytest.mark.parametrize("alpha", [2, 4, 16])
@pytest.mark.parametrize("epsilon0", [0.5, 1.0, 2.0])
def test_cor1_in_regime_lies_between_thm1_and_the_n_minus_1_display(alpha, epsilon0):
    n = 10**7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cor1 = g.rdp_upper_cor1(alpha=alpha, epsilon0=epsilon0, n=n).value
    thm1 = g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n).value
    display = math.log1p(4 * math.comb(alpha, 2) * math.expm1(epsilon0) ** 2 / (n - 1)) \
        / (alpha - 1)
    assert thm1 <= cor1 <= display * (1 + 1e-12)


def test_remark2_equals_thm1_at_integers_and_interpolates_between():
    n, epsilon0 = 5000, 1.0
    for alpha in (2, 3, 10):
        assert g.rdp_upper_remark2(alpha=alpha, epsilon0=epsilon0, n=n).value == \
            g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n).value
    two = g.rdp_upper_thm1(alpha=2, epsilon0=epsilon0, n=n).value
    assert g.rdp_upper_remark2(alpha=1.5, epsilon0=epsilon0, n=n).value == pytest.approx(two)
    v3 = 2 * g.rdp_upper_thm1(alpha=3, epsilon0=epsilon0, n=n).value
    v4 = 3 * g.rdp_upper_thm1(alpha=4, epsilon0=epsilon0, n=n).value
    mid = g.rdp_upper_remark2(alpha=3.25, epsilon0=epsilon0, n=n).value
    assert mid == pytest.approx((0.75 * v3 + 0.25 * v4) / 2.25, rel=1e-12)


def test_remark3_gamma_one_half_is_theorem_1_and_other_gammas_stay_above_the_truth():
    n, epsilon0, alpha = 20000, 1.0, 8
    base = g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n)
    assert g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n, gamma=0.5).value == base.value
    rev = g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n).value
    for gamma in (0.1, 0.3, 0.7, 0.9):
        assert g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n, gamma=gamma).value >= rev


@given(n=st.integers(min_value=1, max_value=10**7),
       epsilon0=EPSILON0.strategy(min_value=0.01, max_value=8.0),
       alpha=st.integers(min_value=2, max_value=64))
def test_thm1_is_monotone_in_n_and_epsilon0(n, epsilon0, alpha):
    here = g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n).value
    assert g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=2 * n).value <= here
    assert g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0 * 1.1, n=n).value >= here


@given(n=st.integers(min_value=1, max_value=10**6),
       epsilon0=EPSILON0.strategy(min_value=0.01, max_value=8.0),
       alpha=st.integers(min_value=2, max_value=64))
def test_refined_between_reverse_and_thm1(n, epsilon0, alpha):
    refined = g.rdp_upper_refined(alpha=alpha, epsilon0=epsilon0, n=n)
    assert refined.kind is Kind.UPPER
    assert g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n).value <= refined.value
    assert refined.value <= g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n).value


def test_refined_at_one_user_is_binary_rr_of_one_user():
    # n = 1, no clones: E[L^alpha] of one binary-RR report is
    # (e^(a eps0) + e^((1-a) eps0))/(1+e^eps0).
    for alpha, epsilon0 in ((2, 1.0), (7, 0.3)):
        hand = math.log((math.exp(alpha * epsilon0) + math.exp((1 - alpha) * epsilon0))
                        / (1 + math.exp(epsilon0))) / (alpha - 1)
        assert g.rdp_upper_refined(alpha=alpha, epsilon0=epsilon0, n=1).value == \
            pytest.approx(hand, rel=1e-13)
        assert g.rdp_lower_thm3(alpha=alpha, epsilon0=epsilon0, n=1, backend="mp").value == \
            pytest.approx(hand, rel=1e-13)


@pytest.mark.parametrize("call,bad", [
    (lambda: g.rdp_upper_thm1(alpha=2.5, epsilon0=1.0, n=10), "alpha=2.5"),
    (lambda: g.rdp_upper_thm1(alpha=1, epsilon0=1.0, n=10), "alpha=1"),
    (lambda: g.rdp_upper_thm1(alpha=2, epsilon0=-1.0, n=10), "epsilon0=-1.0"),
    (lambda: g.rdp_upper_thm1(alpha=2, epsilon0=1.0, n=0), "n=0"),
    (lambda: g.rdp_upper_thm1(alpha=2, epsilon0=1.0, n=10, gamma=1.0), "gamma=1.0"),
    (lambda: g.rdp_upper_thm2(alpha=1.0, epsilon0=1.0, n=10), "alpha=1.0"),
    (lambda: g.rdp_upper_thm2(alpha=math.inf, epsilon0=1.0, n=10), "alpha=inf"),
    (lambda: g.rdp_upper_cor1(alpha=3.5, epsilon0=1.0, n=10), "alpha=3.5"),
    (lambda: g.rdp_upper_thm5(alpha=2, epsilon0=1.0, m=0), "m=0"),
    (lambda: g.rdp_lower_thm3(alpha=0.5, epsilon0=1.0, n=10), "alpha=0.5"),
    (lambda: g.rdp_lower_thm3(alpha=2, epsilon0=1.0, n=10, backend="gpu"), "backend='gpu'"),
    (lambda: g.rdp_lower_cor2(alpha=2, epsilon0=float("nan"), n=10), "epsilon0=nan"),
    (lambda: g.rdp_upper_refined(alpha=2, epsilon0=1.0, n=2.5), "n=2.5"),
])
def test_bad_input_names_the_parameter_and_value(call, bad):
    with pytest.raises(ParameterError, match=bad.replace("(", r"\(")):
        call()


@pytest.mark.parametrize("n,epsilon0,alpha", [(1000, 1.0, 8), (10**6, 4.0, 8), (10**5, 0.5, 64),
                                              (2, 0.1, 2)])
def test_remark3_best_gamma_between_reverse_and_thm1(n, epsilon0, alpha):
    best = g.rdp_upper_remark3(alpha=alpha, epsilon0=epsilon0, n=n)
    assert best.kind is Kind.UPPER and "gamma" in best.source.locator
    assert g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n).value <= best.value
    assert best.value <= g.rdp_upper_thm1(alpha=alpha, epsilon0=epsilon0, n=n).value
    with pytest.raises(ParameterError, match="gamma=0"):
        g.rdp_upper_remark3(alpha=alpha, epsilon0=epsilon0, n=n, gammas=(0.5, 0))


@pytest.mark.parametrize("module", ["bounds.girgis_2021", "bounds.feldman_2020",
                                    "bounds.balle_2019", "bounds.erlingsson_2019",
                                    "cli.faces.bounds"])
def test_all_names_exist(module):
    import importlib

    mod = importlib.import_module(f"accountant.{module}")
    assert mod.__all__ and all(hasattr(mod, name) for name in mod.__all__)
