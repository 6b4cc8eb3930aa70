"""Clones (FMT20, docs/clones-and-blankets.md#clones-pair) and blanket
(docs/single-message.md#blanket-pairs-for-k-rr) pairs: per-c closed forms against the
explicit (c, x) view evaluated by the generic divergence code in mpmath, monotonicity in
c, symmetry, and the ordering exact binary RR <= blanket <= clones for n from 2 upward."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accountant.divergence import delta_for_epsilon as view_delta
from accountant.divergence import epsilon_for_delta as view_epsilon
from accountant.divergence import renyi_divergence as view_renyi
from accountant.pairs import clones as clone_pair
from accountant.protocols import binary_rr
from accountant.result import Kind

PAIRS = {
    "fmt": lambda n, e0: clone_pair.fmt_clones(n=n, epsilon0=e0),
    "blanket2": lambda n, e0: clone_pair.blanket_k_rr(n=n, epsilon0=e0, k=2),
    "blanket5": lambda n, e0: clone_pair.blanket_k_rr(n=n, epsilon0=e0, k=5),
}


@pytest.mark.parametrize("name", PAIRS)
@pytest.mark.parametrize(("n", "epsilon0"), [(2, 0.5), (9, 2.0), (40, 1.0)])
def test_delta_bracket_contains_the_explicit_view_value(name, n, epsilon0):
    pair = PAIRS[name](n, epsilon0)
    view = clone_pair.view_pair(pair)
    for eps in (0.0, 0.1, 0.6 * epsilon0):
        truth = float(view_delta(view, eps).value)
        res = clone_pair.delta_for_epsilon(pair, epsilon=eps)
        assert float(res.lower.value) <= truth * (1 + 1e-12) + 1e-300
        assert truth <= float(res.upper.value) * (1 + 1e-12)
        assert float(res.upper.value) == pytest.approx(truth, rel=1e-9)


@pytest.mark.parametrize("name", PAIRS)
@pytest.mark.parametrize(("n", "epsilon0"), [(3, 1.0), (30, 0.5), (120, 3.0)])
def test_epsilon_bracket_contains_the_explicit_view_value(name, n, epsilon0):
    pair = PAIRS[name](n, epsilon0)
    truth = float(view_epsilon(clone_pair.view_pair(pair), 1e-4).value)
    res = clone_pair.epsilon_for_delta(pair, delta=1e-4)
    assert res.upper.kind is Kind.UPPER and res.lower.kind is Kind.LOWER
    assert float(res.lower.value) <= truth <= float(res.upper.value)
    assert float(res.upper.value) == pytest.approx(truth, rel=1e-5)


@pytest.mark.parametrize("name", PAIRS)
@pytest.mark.parametrize("alpha", [1.5, 4, 20.5])
def test_renyi_bracket_contains_the_explicit_view_value(name, alpha):
    pair = PAIRS[name](25, 1.5)
    truth = float(view_renyi(clone_pair.view_pair(pair), alpha).value)
    res = clone_pair.renyi_divergence(pair, alpha=alpha)
    assert float(res.lower.value) <= truth <= float(res.upper.value)
    assert float(res.upper.value) == pytest.approx(truth, rel=1e-6)


def test_pair_is_symmetric_in_its_two_orders():
    view = clone_pair.view_pair(clone_pair.fmt_clones(n=20, epsilon0=1.0))
    a = view_epsilon(view, 1e-3, direction="P||Q")
    b = view_epsilon(view, 1e-3, direction="Q||P")
    assert float(a.value) == pytest.approx(float(b.value), rel=1e-12)


def test_per_c_hockey_stick_is_nonincreasing_in_c():
    # data processing: one more clone adds an independent Bernoulli(1/2) to X
    pair = clone_pair.fmt_clones(n=10**6, epsilon0=1.0)
    cs = np.arange(1, 5000, 7)
    lo, hi = clone_pair.hockey_stick_terms(pair, cs, math.exp(0.05))
    assert np.all(lo <= hi)
    assert np.all(np.diff(lo) <= 1e-15) and np.all(np.diff(hi) <= 1e-15)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 10, 16, 25, 40, 64, 100])
def test_soundness_for_every_small_n_clones_and_blanket_dominate_exact_binary_rr(n):
    # the published clones scan skips small n (eps ~ 5e-7 at n <= 100 where the truth is
    # 0.2-0.5); here every n: exact binary RR worst case <= blanket <= clones
    epsilon0, delta = 0.5, 1e-6
    exact = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta)
    blanket = clone_pair.epsilon_for_delta(clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0,
                                                                   k=2), delta=delta)
    clones = clone_pair.epsilon_for_delta(clone_pair.fmt_clones(n=n, epsilon0=epsilon0),
                                          delta=delta)
    # compare certified ends: the truths satisfy exact <= blanket <= clones
    assert float(exact.lower.value) <= float(blanket.upper.value)
    assert float(blanket.lower.value) <= float(clones.upper.value)
    if n <= 100:
        assert float(exact.lower.value) > 0.19  # nowhere near 5e-7


@pytest.mark.parametrize(("n", "epsilon0"), [(10**4, 1.0), (10**6, 4.0), (10**8, 1.0)])
def test_large_n_bracket_is_tight_and_ordered(n, epsilon0):
    b = clone_pair.epsilon_for_delta(clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2),
                                     delta=1e-6)
    f = clone_pair.epsilon_for_delta(clone_pair.fmt_clones(n=n, epsilon0=epsilon0),
                                     delta=1e-6)
    for r in (b, f):
        lo, hi = float(r.lower.value), float(r.upper.value)
        assert 0 < lo <= hi and (hi - lo) / hi < 1e-4
    assert float(b.upper.value) < float(f.lower.value)


def test_invalid_pairs_are_rejected():
    from accountant.errors import ParameterError

    with pytest.raises(ParameterError, match="k=1"):
        clone_pair.blanket_k_rr(n=10, epsilon0=1.0, k=1)
    with pytest.raises(ParameterError, match="n=1"):
        clone_pair.fmt_clones(n=1, epsilon0=1.0)


def test_renyi_curve_brackets_the_explicit_view_at_high_orders():
    # alpha eps0 = 768: the certified windows must reach far below the float range
    pair = clone_pair.fmt_clones(n=30, epsilon0=3.0)
    view = clone_pair.view_pair(pair)
    orders = [1.25, 16.0, 256.0]
    for alpha, (low, up) in zip(orders, clone_pair.renyi_curve(pair, alphas=orders),
                                strict=True):
        truth = float(view_renyi(view, alpha).value)
        assert float(low.value) <= truth <= float(up.value) <= 3.0
        assert float(up.value) == pytest.approx(truth, rel=1e-6)


def _mp_hockey_stick_c(c: int, gamma: float, w: float, w1: float, dps: int = 40):
    """H_gamma(P_c||Q_c) by direct summation in mpmath: sum over x >= t of
    w B(x-1) + w' B(x) - gamma (w' B(x-1) + w B(x)), B = Bin(c, 1/2), with B built by the
    ratio recurrence from B(t-1) (loggamma), until the terms are below 1e-30 relative."""
    import mpmath

    with mpmath.workdps(dps):
        g, w, w1 = mpmath.mpf(gamma), mpmath.mpf(w), mpmath.mpf(w1)
        ratio = (g * w - w1) / ((w - w1) * (1 + g))
        t = int(mpmath.floor(ratio * (c + 1))) + 1
        b_prev = mpmath.exp(mpmath.loggamma(c + 1) - mpmath.loggamma(t) - mpmath.loggamma(
            c - t + 2) - c * mpmath.log(2))
        total = mpmath.mpf(0)
        x = t
        while x <= c + 1:
            b_x = b_prev * (c - x + 1) / x if x <= c else mpmath.mpf(0)
            term = (w - g * w1) * b_prev + (w1 - g * w) * b_x
            total += term
            if term < total * mpmath.mpf(10) ** -30:
                break
            b_prev = b_x
            x += 1
        return total


@pytest.mark.parametrize(("c", "epsilon"), [(10**4, 0.02), (10**6, 0.004), (4 * 10**7, 0.0006)])
def test_per_c_closed_form_matches_direct_mpmath_sum_at_large_c(c, epsilon):
    # scipy's incomplete beta was off by 1e-7 relative at c = 4e7; this path must not be
    pair = clone_pair.fmt_clones(n=10**8, epsilon0=1.0)
    truth = float(_mp_hockey_stick_c(c, math.exp(epsilon), pair.w, pair.w_prime))
    lo, hi = clone_pair.hockey_stick_terms(pair, np.array([c]), math.exp(epsilon))
    assert lo[0] <= truth <= hi[0]
    assert hi[0] == pytest.approx(truth, rel=1e-9)
