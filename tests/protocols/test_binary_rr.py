"""Shuffled binary RR (docs/single-message.md#binary-randomized-response): exact views against an
independent mpmath computation,
identities (mirror symmetry, E_Q L = 1), worst case over counts by brute force, bounds."""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accountant.divergence import delta_for_epsilon as view_delta
from accountant.divergence import epsilon_for_delta as view_epsilon
from accountant.divergence import renyi_divergence as view_renyi
from accountant.domains import EPSILON0
from accountant.errors import ParameterError
from accountant.numeric.summation import cascade_sum
from accountant.protocols import binary_rr
from accountant.result import Kind


# ------------------------------------------------------------------ independent oracle
def mp_special_pair(n: int, epsilon0: float, dps: int = 60):
    """(P, Q) of the special pair by the ratio recurrence of
    docs/soundness.md#precision-and-cancellation, at dps digits:
    Q = Bin(n, p), P(k) = Q(k) (k e^eps0 + (n-k) e^-eps0)/n."""
    with mpmath.workdps(dps):
        e = mpmath.exp(mpmath.mpf(epsilon0))
        p = 1 / (e + 1)
        q = [(1 - p) ** n]
        for k in range(n):
            q.append(q[-1] * (n - k) / (k + 1) * p / (1 - p))
        P = [q[k] * (k * e + (n - k) / e) / n for k in range(n + 1)]
        return P, q


def mp_epsilon(P, Q, delta, dps: int = 60):
    """epsilon(delta) of P||Q by docs/divergences.md#exact-inversion (sorted losses), in mpmath."""
    with mpmath.workdps(dps):
        pts = sorted(((mpmath.log(a / b), a, b) for a, b in zip(P, Q, strict=True) if a > 0),
                     key=lambda t: -t[0])
        A = B = mpmath.mpf(0)
        best = mpmath.mpf(0)
        for loss, a, b in pts:
            if loss <= 0:
                break
            A, B = A + a, B + b
            if A > delta:
                best = max(best, mpmath.log((A - delta) / B))
        return best


def mp_delta(P, Q, epsilon, dps: int = 60):
    with mpmath.workdps(dps):
        g = mpmath.exp(mpmath.mpf(epsilon))
        return mpmath.fsum(max(a - g * b, 0) for a, b in zip(P, Q, strict=True))


def mp_renyi(P, Q, alpha, dps: int = 60):
    with mpmath.workdps(dps):
        a = mpmath.mpf(alpha)
        s = mpmath.fsum(x ** a * y ** (1 - a) for x, y in zip(P, Q, strict=True))
        return mpmath.log(s) / (a - 1)


CASES = [(2, 0.5), (7, 2.0), (60, 0.1), (200, 1.0), (500, 4.0), (1000, 8.0)]


@pytest.mark.parametrize(("n", "epsilon0"), CASES, ids=lambda v: str(v))
def test_special_pair_epsilon_matches_mpmath_both_orders(n, epsilon0):
    P, Q = mp_special_pair(n, epsilon0)
    delta = 1e-6
    truth = max(mp_epsilon(P, Q, delta), mp_epsilon(Q, P, delta))
    res = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta, ones=0)
    lo, hi = res.lower, res.upper
    assert lo.kind is Kind.LOWER and hi.kind is Kind.UPPER
    assert float(lo.value) <= truth <= float(hi.value)
    assert float(hi.value) == pytest.approx(float(truth), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(("n", "epsilon0"), CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("alpha", [1.5, 2, 7.25, 64])
def test_special_pair_renyi_matches_mpmath(n, epsilon0, alpha):
    P, Q = mp_special_pair(n, epsilon0)
    truth = max(mp_renyi(P, Q, alpha), mp_renyi(Q, P, alpha))
    res = binary_rr.renyi_divergence(n=n, epsilon0=epsilon0, alpha=alpha, ones=0)
    assert float(res.lower.value) <= truth <= float(res.upper.value)
    assert float(res.upper.value) == pytest.approx(float(truth), rel=1e-9)


def test_reverse_order_is_the_larger_one_for_the_special_pair():
    # docs/single-message.md#binary-randomized-response: D_a(M(D')||M(D)) (all zeros first) exceeds
    # the forward order
    P, Q = mp_special_pair(300, 1.0)
    view = binary_rr.view_pair(n=300, epsilon0=1.0, ones=0)
    fwd = view_renyi(view, 8, direction="P||Q")
    rev = view_renyi(view, 8, direction="Q||P")
    assert float(rev.value) > float(fwd.value)
    assert float(fwd.value) == pytest.approx(float(mp_renyi(P, Q, 8)), rel=1e-9)


@pytest.mark.parametrize(("n", "ones"), [(9, 3), (40, 17), (25, 0), (25, 24)])
def test_general_count_float_view_agrees_with_mp_backend(n, ones):
    f = binary_rr.view_pair(n=n, epsilon0=1.3, ones=ones)
    m = binary_rr.view_pair(n=n, epsilon0=1.3, ones=ones, backend="mp", tail=None)
    for eps in (0.05, 0.4):
        exact = view_delta(m, eps)
        up = view_delta(f, eps)
        assert float(exact.value) <= float(up.value)
        assert float(up.value) == pytest.approx(float(exact.value), rel=1e-8, abs=1e-14)


@pytest.mark.parametrize("ones", [0, 4, 11])
def test_mirror_symmetry_ones_and_n_minus_1_minus_ones(ones):
    # relabelling 0 <-> 1 maps the pair with `ones` to the pair with n-1-ones, P and Q
    # swapped, so P||Q of one is Q||P of the other
    n = 30
    a = binary_rr.view_pair(n=n, epsilon0=0.7, ones=ones)
    b = binary_rr.view_pair(n=n, epsilon0=0.7, ones=n - 1 - ones)
    x = view_epsilon(a, 1e-4, direction="P||Q")
    y = view_epsilon(b, 1e-4, direction="Q||P")
    assert float(x.value) == pytest.approx(float(y.value), rel=1e-9)


def test_special_loss_has_mean_zero_likelihood_ratio_under_q():
    # E_Q[L] = 1 (L is a likelihood ratio): a check of the closed-form loss
    view = binary_rr.view_pair(n=10**5, epsilon0=1.0, ones=0)
    s = mpmath.fsum(mpmath.exp(mpmath.mpf(q) + mpmath.mpf(l))
                    for q, l in zip(view.q, view.loss, strict=True))
    assert abs(s - 1) < 1e-10


@pytest.mark.parametrize(("n", "epsilon0"), [(2, 0.5), (3, 1.0), (8, 2.0), (21, 0.3)])
def test_worst_case_equals_brute_force_maximum_over_counts(n, epsilon0):
    delta = 1e-4
    brute = max(float(view_epsilon(binary_rr.view_pair(n=n, epsilon0=epsilon0, ones=m,
                                                       backend="mp", tail=None),
                                   delta).value) for m in range(n))
    res = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta)
    assert float(res.lower.value) <= brute * (1 + 1e-12)
    assert brute <= float(res.upper.value) * (1 + 1e-12)
    assert float(res.upper.value) == pytest.approx(brute, rel=1e-8)


def test_worst_case_delta_is_max_over_counts():
    n, eps = 15, 0.3
    brute = max(float(view_delta(binary_rr.view_pair(n=n, epsilon0=1.0, ones=m,
                                                     backend="mp", tail=None), eps).value)
                for m in range(n))
    res = binary_rr.delta_for_epsilon(n=n, epsilon0=1.0, epsilon=eps)
    assert float(res.lower.value) <= brute <= float(res.upper.value)


def test_worst_case_renyi_is_max_over_counts():
    n, alpha = 12, 5.5
    brute = max(float(view_renyi(binary_rr.view_pair(n=n, epsilon0=1.0, ones=m,
                                                     backend="mp", tail=None), alpha).value)
                for m in range(n))
    res = binary_rr.renyi_divergence(n=n, epsilon0=1.0, alpha=alpha)
    assert float(res.lower.value) <= brute * (1 + 1e-12)
    assert brute <= float(res.upper.value) * (1 + 1e-12)


@given(n=st.integers(min_value=2, max_value=40),
       epsilon0=EPSILON0.strategy(min_value=0.05, max_value=5.0))
def test_blanket_upper_bound_dominates_the_exact_worst_case(n, epsilon0):
    from accountant.pairs import clones as clone_pair

    delta = 1e-5
    exact = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta)
    blanket = clone_pair.epsilon_for_delta(clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0,
                                                                   k=2), delta=delta)
    assert float(exact.lower.value) <= float(blanket.upper.value)


def test_beyond_the_exact_limit_special_pair_and_blanket_are_both_reported():
    res = binary_rr.epsilon_for_delta(n=10**6, epsilon0=1.0, delta=1e-6)
    assert res.upper.kind is Kind.UPPER and res.lower.kind is Kind.LOWER
    assert float(res.lower.value) < float(res.special.value) \
        < float(res.upper.value)
    assert "blanket" in res.upper.method


def test_max_divergence_is_epsilon0_and_matches_the_view():
    r = binary_rr.max_divergence(n=50, epsilon0=1.7)
    assert r.kind is Kind.EXACT and r.value == 1.7
    from accountant.divergence import max_divergence

    for ones in (0, 20):
        v = binary_rr.view_pair(n=50, epsilon0=1.7, ones=ones, backend="mp", tail=None)
        assert float(max_divergence(v).value) == pytest.approx(1.7, rel=1e-12)


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"n": 1, "epsilon0": 1.0}, "n=1"),
    ({"n": 10, "epsilon0": 0.0}, "epsilon0=0.0"),
    ({"n": 10, "epsilon0": math.nan}, "epsilon0=nan"),
    ({"n": 10, "epsilon0": 1.0, "ones": 10}, "ones=10 is outside integers in [0, 9]"),
    ({"n": 10, "epsilon0": 1.0, "ones": -1}, "ones=-1"),
    ({"n": 10.5, "epsilon0": 1.0}, "n=10.5"),
])
def test_invalid_parameters_raise_with_the_name_value_and_range(kwargs, needle):
    with pytest.raises(ParameterError, match=re_escape(needle)):
        binary_rr.view_pair(**kwargs)


def re_escape(s: str) -> str:
    import re

    return re.escape(s)


def test_invalid_delta_and_alpha_are_rejected():
    with pytest.raises(ParameterError, match="delta"):
        binary_rr.epsilon_for_delta(n=10, epsilon0=1.0, delta=0.0)
    with pytest.raises(ParameterError, match="alpha"):
        binary_rr.renyi_divergence(n=10, epsilon0=1.0, alpha=1.0)


def test_special_pair_renyi_many_orders_matches_mpmath_and_single_order_calls():
    n, epsilon0 = 400, 2.0
    P, Q = mp_special_pair(n, epsilon0)
    orders = [1.01, 2, 3.5, 32, 256]
    rows = binary_rr.special_pair_renyi(n=n, epsilon0=epsilon0, alphas=orders)
    for alpha, (low, up) in zip(orders, rows, strict=True):
        truth = max(mp_renyi(P, Q, alpha), mp_renyi(Q, P, alpha))
        assert float(low.value) <= truth <= float(up.value)
        assert float(up.value) == pytest.approx(float(truth), rel=1e-9)


def test_cascade_sum_is_accurate_under_cancellation():
    import numpy as np

    x = np.array([1e16, 1.0, -1e16, 3.0, 1e-300] * 1001)
    assert cascade_sum(x) == pytest.approx(4.0 * 1001, rel=1e-15)


def test_tiny_delta_worst_case_stays_fast_and_bracketed_by_the_pure_bound():
    # at delta = 1e-40 the scan's window residual must shrink with delta (else every
    # count would be re-examined); epsilon(delta) never exceeds epsilon0
    res = binary_rr.epsilon_for_delta(n=300, epsilon0=1.0, delta=1e-40)
    assert "the special pair)" in res.upper.method
    P, Q = mp_special_pair(300, 1.0)
    truth = max(mp_epsilon(P, Q, mpmath.mpf("1e-40")), mp_epsilon(Q, P, mpmath.mpf("1e-40")))
    assert float(res.lower.value) <= truth <= float(res.upper.value) <= 1.0
    top = binary_rr.epsilon_for_delta(n=500, epsilon0=1.0, delta=1e-300)
    assert float(top.upper.value) <= 1.0


def test_renyi_curve_worst_case_matches_brute_force_over_counts():
    n, orders = 14, [1.5, 4.0, 30.0]
    rows = binary_rr.renyi_curve(n=n, epsilon0=1.2, alphas=orders)
    for alpha, (low, up) in zip(orders, rows, strict=True):
        brute = max(float(view_renyi(binary_rr.view_pair(n=n, epsilon0=1.2, ones=m,
                                                         backend="mp", tail=None),
                                     alpha).value) for m in range(n))
        assert float(low.value) <= brute * (1 + 1e-12)
        assert brute <= float(up.value)
        assert float(up.value) == pytest.approx(brute, rel=1e-8)


@pytest.mark.parametrize("epsilon0", [4.0, 8.0])
def test_worst_case_renyi_at_high_order_and_large_eps0_is_finite_and_exact(epsilon0):
    # (alpha - 1) * eps0 ~ 2000 overflowed the linear-space moment to inf; log space fixes it
    n, orders = 12, [64.0, 256.0]
    rows = binary_rr.renyi_curve(n=n, epsilon0=epsilon0, alphas=orders)
    for alpha, (low, up) in zip(orders, rows, strict=True):
        brute = max(float(view_renyi(binary_rr.view_pair(n=n, epsilon0=epsilon0, ones=m,
                                                         backend="mp", tail=None),
                                     alpha).value) for m in range(n))
        assert float(low.value) <= brute * (1 + 1e-12)
        assert brute <= float(up.value) <= epsilon0
        assert float(up.value) == pytest.approx(brute, rel=1e-8)


def test_renyi_curve_beyond_the_limit_brackets_with_the_blanket():
    rows = binary_rr.renyi_curve(n=10**6, epsilon0=1.0, alphas=[2.0, 64.0])
    for low, up in rows:
        assert low.kind is Kind.LOWER and up.kind is Kind.UPPER
        assert float(low.value) < float(up.value)
        assert "blanket" in up.method
