"""Shuffled k-RR (docs/single-message.md#k-ary-randomized-response,
docs/single-message.md#blanket-pairs-for-k-rr): the 2-D special pair against an independent mpmath
multinomial sum, reduction to binary RR at k = 2, ordering in k, blanket >= special."""

from __future__ import annotations

import math

import mpmath
import pytest

from accountant.errors import ParameterError
from accountant.protocols import binary_rr, k_rr
from accountant.result import Kind


def mp_special_pair(n: int, epsilon0: float, k: int, dps: int = 50):
    """(P, Q) on (a, b): Q = Mult(n; (e, 1, k-2)/(e+k-1)), P = Q L
    (docs/single-message.md#k-ary-randomized-response)."""
    with mpmath.workdps(dps):
        e = mpmath.exp(mpmath.mpf(epsilon0))
        d = e + k - 1
        pa, pb, pr = e / d, 1 / d, mpmath.mpf(k - 2) / d
        P, Q = [], []
        for a in range(n + 1):
            for b in range(n - a + 1):
                r = n - a - b
                if k == 2 and r:
                    continue
                q = (mpmath.factorial(n) / (mpmath.factorial(a) * mpmath.factorial(b)
                                            * mpmath.factorial(r)) * pa ** a * pb ** b
                     * (pr ** r if r else 1))
                Q.append(q)
                P.append(q * (a / e + b * e + r) / n)
        return P, Q


def mp_epsilon(P, Q, delta):
    with mpmath.workdps(50):
        pts = sorted(((mpmath.log(a / b), a, b) for a, b in zip(P, Q, strict=True)),
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


@pytest.mark.parametrize(("n", "epsilon0", "k"), [(12, 1.0, 3), (30, 2.0, 4), (25, 0.5, 7)])
def test_special_pair_matches_independent_multinomial_sum(n, epsilon0, k):
    P, Q = mp_special_pair(n, epsilon0, k)
    delta = 1e-3
    truth = max(mp_epsilon(P, Q, delta), mp_epsilon(Q, P, delta))
    res = k_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, k=k, delta=delta)
    lo, hi = float(res.lower.value), float(res.special.value)
    assert lo <= truth <= hi
    assert hi == pytest.approx(float(truth), rel=1e-9)


def test_k_equal_2_reduces_to_binary_rr():
    a = k_rr.epsilon_for_delta(n=2000, epsilon0=1.0, k=2, delta=1e-6)
    b = binary_rr.epsilon_for_delta(n=2000, epsilon0=1.0, delta=1e-6, ones=0)
    assert float(a.special.value) == pytest.approx(float(b.upper.value),
                                                              rel=1e-9)


@pytest.mark.parametrize(("n", "epsilon0"), [(300, 0.5), (1000, 1.0), (3000, 4.0)])
def test_special_pairs_decrease_in_k_and_stay_below_binary_rr(n, epsilon0):
    values = [float(k_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, k=k,
                                           delta=1e-6).special.value)
              for k in (2, 3, 5, 10)]
    assert all(x > y for x, y in zip(values, values[1:], strict=False))
    r2 = [float(k_rr.renyi_divergence(n=n, epsilon0=epsilon0, k=k, alpha=6)
                .special.value) for k in (2, 3, 5)]
    assert r2[0] > r2[1] > r2[2]


@pytest.mark.parametrize("k", [2, 3, 8])
def test_blanket_upper_bound_dominates_the_special_pair(k):
    res = k_rr.epsilon_for_delta(n=1000, epsilon0=1.0, k=k, delta=1e-6)
    assert res.upper.kind is Kind.UPPER and res.lower.kind is Kind.LOWER
    assert float(res.lower.value) <= float(res.upper.value)
    d = k_rr.delta_for_epsilon(n=1000, epsilon0=1.0, k=k, epsilon=0.1)
    assert float(d.lower.value) <= float(d.upper.value)
    r = k_rr.renyi_divergence(n=1000, epsilon0=1.0, k=k, alpha=3.5)
    assert float(r.lower.value) <= float(r.upper.value)


def test_blanket_alone_for_huge_n_and_max_divergence():
    res = k_rr.epsilon_for_delta(n=10**8, epsilon0=1.0, k=4, delta=1e-6)
    assert res.lower is None and res.upper.kind is Kind.UPPER
    r = k_rr.max_divergence(n=10, epsilon0=0.3, k=5)
    assert r.kind is Kind.EXACT and r.value == 0.3 and r.order == math.inf


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"n": 10, "epsilon0": 1.0, "k": 1}, "k=1"),
    ({"n": 1, "epsilon0": 1.0, "k": 3}, "n=1"),
    ({"n": 10, "epsilon0": -2.0, "k": 3}, "epsilon0=-2.0"),
    ({"n": 10**7, "epsilon0": 1.0, "k": 3}, "blanket_pair"),
])
def test_invalid_parameters_name_the_parameter(kwargs, needle):
    with pytest.raises(ParameterError, match=needle):
        k_rr.special_pair(**kwargs)
