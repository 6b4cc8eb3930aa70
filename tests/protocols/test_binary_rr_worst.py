"""The all-counts pass of shuffled binary RR (protocols.binary_rr.worst) and the mechanism-level
epsilon(delta) built on it, against independent mpmath sums over every outcome."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from accountant.pairs import clones
from accountant.protocols import binary_rr
from accountant.protocols.binary_rr import view as binary_rr_view
from accountant.protocols.binary_rr import worst as binary_rr_worst
from accountant.protocols.binary_rr.worst import order_deltas

DPS = 50


def mp_order_delta(n: int, epsilon0: float, epsilon: float, ones: int) -> mpmath.mpf:
    """H_{e^eps}(P || Q) for the pair with `ones` other users holding 1
    (docs/single-message.md#binary-randomized-response), summed
    over every outcome at 50 digits: an independent reference (no windows, no blocks)."""
    with mpmath.workdps(DPS):
        p = 1 / (mpmath.e ** mpmath.mpf(epsilon0) + 1)
        a = [mpmath.binomial(ones, i) * (1 - p) ** i * p ** (ones - i) for i in range(ones + 1)]
        rest = n - 1 - ones
        b = [mpmath.binomial(rest, i) * p ** i * (1 - p) ** (rest - i) for i in range(rest + 1)]
        o = [mpmath.mpf(0)] * n
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                o[i + j] += x * y
        gamma = mpmath.e ** mpmath.mpf(epsilon)
        total = mpmath.mpf(0)
        for t in range(n + 1):
            o1 = o[t - 1] if t >= 1 else 0
            o0 = o[t] if t < n else 0
            d = ((1 - p) * o1 + p * o0) - gamma * (p * o1 + (1 - p) * o0)
            if d > 0:
                total += d
        return total


@pytest.mark.parametrize("n, epsilon0, epsilon, tail", [
    (9, 2.0, 1.0, 1e-16), (60, 0.1, 0.01, 1e-16), (150, 8.0, 3.0, 1e-40),
    (200, 4.0, 0.5, 1e-16), (300, 1.0, 0.2, 1e-30), (300, 1.0, 0.9, 1e-16)])
def test_every_count_is_certified_and_brackets_the_mpmath_value(n, epsilon0, epsilon, tail):
    p = binary_rr.flip_probability(epsilon0)
    lower, upper, ok = order_deltas(n, p, math.exp(epsilon), math.log(tail))
    assert ok.all()
    # both ends of the count range, the middle, and a block boundary (256)
    for m in sorted({0, 1, n // 2, n - 2, n - 1} | ({255, 256} if n > 257 else set())):
        truth = mp_order_delta(n, epsilon0, epsilon, m)
        assert lower[m] <= truth <= upper[m], (m, lower[m], truth, upper[m])
        if truth > 1e3 * tail:  # resolvable above the windows' residual: tight
            assert upper[m] - lower[m] <= 1e-8 * truth


@pytest.mark.parametrize("n, epsilon0, epsilon", [(700, 1.0, 0.2), (1500, 4.0, 0.5),
                                                   (1200, 0.5, 0.1)])
def test_fast_pass_agrees_with_one_direct_convolution_per_count(n, epsilon0, epsilon):
    fast = binary_rr.worst_case_pairs(n=n, epsilon0=epsilon0, epsilon=epsilon, tail=1e-30)
    direct = binary_rr_worst.worst_case_pairs_direct(n=n, epsilon0=epsilon0, epsilon=epsilon,
                                                tail=1e-30)
    for (m, lo, hi), (m2, lo2, hi2) in zip(fast, direct, strict=True):
        assert m == m2
        assert lo <= hi2 and lo2 <= hi, (m, lo, hi, lo2, hi2)  # the two brackets intersect
        if hi2 > 1e-25:
            assert hi - lo <= 1e-8 * hi


def test_direct_lower_end_subtracts_the_truncated_mass():
    # regression: truncating Q's window made P - gamma Q look positive at the window's edge,
    # so the lower end was 2.8e-37 where the truth is 9.2e-117 (count 0, order P || Q)
    p = binary_rr.flip_probability(1.0)
    lo, hi = binary_rr_view.order_delta_direct(300, p, 0, math.exp(0.9), 1e-16)
    truth = mp_order_delta(300, 1.0, 0.9, 0)
    assert lo <= truth <= hi
    assert float(truth) == pytest.approx(9.2284488e-117, rel=1e-7)


@pytest.mark.parametrize("n, epsilon0, at", [(80, 1.0, 1), (120, 2.0, 1)])
def test_the_special_pair_is_not_always_the_worst_count(n, epsilon0, at):
    # docs/single-message.md#binary-randomized-response reports the special pair as the numerical
    # worst case; over every count it is
    # not always: one user holding the other bit gives a larger epsilon(1e-6) here
    delta = 1e-6
    res = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta)
    special_hi = float(res.special.value)
    worst_hi = float(res.upper.value)
    assert f"ones={at} " in res.upper.method
    assert float(res.lower.value) > special_hi
    # independent: count `at` (either order) still exceeds delta at the special pair's epsilon
    at_special = max(mp_order_delta(n, epsilon0, special_hi, at),
                     mp_order_delta(n, epsilon0, special_hi, n - 1 - at))
    assert at_special > delta
    # and no count exceeds delta at the reported worst case
    worst = max(mp_order_delta(n, epsilon0, worst_hi, m) for m in range(n))
    assert worst <= delta
    assert worst_hi - float(res.lower.value) <= 1e-8 * worst_hi


def test_n_2e4_is_exact_and_at_least_the_special_pair():
    res = binary_rr.epsilon_for_delta(n=20_000, epsilon0=1.0, delta=1e-6)
    lo, hi = float(res.lower.value), float(res.upper.value)
    assert "worst case over all 20000 counts" in res.upper.method
    assert float(res.special.value) <= hi
    assert hi - lo <= 1e-7 * hi
    # the blanket pair (docs/single-message.md#blanket-pairs-for-k-rr) bounds every dataset from
    # above
    blanket = clones.epsilon_for_delta(
        clones.blanket_k_rr(n=20_000, epsilon0=1.0, k=2), delta=1e-6)
    assert hi <= float(blanket.upper.value)


def test_delta_for_epsilon_worst_case_is_the_max_over_both_orders():
    n, epsilon0, epsilon = 40, 1.5, 0.4
    res = binary_rr.delta_for_epsilon(n=n, epsilon0=epsilon0, epsilon=epsilon)
    truth = max(mp_order_delta(n, epsilon0, epsilon, m) for m in range(n))
    assert float(res.lower.value) <= truth <= float(res.upper.value)
    assert float(res.upper.value) - float(res.lower.value) <= 1e-9 * truth


def test_below_the_delta_floor_the_blanket_bound_is_reported():
    res = binary_rr.epsilon_for_delta(n=500, epsilon0=1.0, delta=1e-300)
    assert "worst case" not in res.upper.method
    assert float(res.lower.value) <= float(res.upper.value) <= 1.0


@pytest.mark.slow
@pytest.mark.parametrize("epsilon0", [0.5, 1.0, 4.0, 8.0])
def test_exact_worst_case_at_n_1e5(epsilon0):
    res = binary_rr.epsilon_for_delta(n=10**5, epsilon0=epsilon0, delta=1e-6)
    lo, hi = float(res.lower.value), float(res.upper.value)
    assert "worst case over all 100000 counts" in res.upper.method
    assert float(res.special.value) <= hi and hi - lo <= 1e-7 * hi
    blanket = clones.epsilon_for_delta(
        clones.blanket_k_rr(n=10**5, epsilon0=epsilon0, k=2), delta=1e-6)
    assert hi <= float(blanket.upper.value)


def test_order_deltas_cover_every_count_once():
    # blocks of 256 with a shorter last block: every count gets its own row
    p = binary_rr.flip_probability(1.0)
    lower, upper, ok = order_deltas(600, p, math.exp(0.3), math.log(1e-20))
    assert lower.shape == upper.shape == ok.shape == (600,)
    assert np.all(lower <= upper)
    # the last (short) block's final count against the independent sum
    truth = mp_order_delta(600, 1.0, 0.3, 599)
    assert lower[599] <= truth <= upper[599]
    # the two orders differ (relabelling maps one to the other, it is not a symmetry)
    assert not np.allclose(upper, upper[::-1], rtol=1e-3, atol=0.0)
