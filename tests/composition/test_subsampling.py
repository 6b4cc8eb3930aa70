"""Subsampling (docs/conversions.md#subsampling): Zhu-Wang Thm 6 exact at alpha = 2 for a two-point
mixture, an
independent 40-digit evaluation of both formulas, limits and monotonicity."""

import math

import mpmath
import pytest

from accountant.composition.rdp import RdpCurve
from accountant.composition.subsampling import (
    POISSON_CAVEAT,
    poisson_subsampled,
    without_replacement,
)
from accountant.divergence import renyi_divergence
from accountant.errors import ParameterError
from accountant.view import ViewPair


@pytest.mark.parametrize("rate", [0.01, 0.2, 0.7])
def test_zhu_wang_is_exact_at_order_two_for_the_mixture(rate):
    """D_2((1-g)Q + gP || Q) = log(1 + g^2 (e^(D_2(P||Q)) - 1)), which is the ZW19 bound
    at alpha = 2 (its first two terms sum to 1 + g^2 (e^eps(2) - 1))."""
    p = [0.6, 0.3, 0.1]
    q = [0.2, 0.3, 0.5]
    base = RdpCurve.from_view(ViewPair.from_arrays(p, q), (2.0, 3.0), direction="P||Q")
    mixed = [(1 - rate) * b + rate * a for a, b in zip(p, q, strict=True)]
    exact = renyi_divergence(ViewPair.from_arrays(mixed, q), 2.0, direction="P||Q").value
    bound = poisson_subsampled(base, sampling_rate=rate).values[0]
    assert bound == pytest.approx(exact, rel=1e-10)
    assert bound >= exact * (1 - 1e-12)


def _zw_mp(eps, a, g):
    with mpmath.workdps(40):
        g = mpmath.mpf(g)
        s = (1 - g) ** (a - 1) * (a * g - g + 1) + mpmath.binomial(a, 2) * g ** 2 * (
            1 - g) ** (a - 2) * mpmath.exp(eps[2])
        s += 3 * mpmath.fsum(mpmath.binomial(a, l_) * (1 - g) ** (a - l_) * g ** l_
                             * mpmath.exp((l_ - 1) * eps[l_]) for l_ in range(3, a + 1))
        return float(mpmath.log(s) / (a - 1))


def _wbk_mp(eps, a, g, pure):
    with mpmath.workdps(40):
        g = mpmath.mpf(g)
        em1 = mpmath.expm1(pure)
        s = 1 + g ** 2 * mpmath.binomial(a, 2) * min(4 * mpmath.expm1(eps[2]), mpmath.exp(
            eps[2]) * min(2, em1 ** 2))
        s += mpmath.fsum(g ** j * mpmath.binomial(a, j) * mpmath.exp((j - 1) * eps[j])
                         * min(2, em1 ** j) for j in range(3, a + 1))
        return float(mpmath.log(s) / (a - 1))


@pytest.mark.parametrize("epsilon, rate", [(0.5, 0.01), (2.0, 0.1), (5.0, 0.001)])
def test_both_formulas_match_an_independent_mpmath_evaluation(epsilon, rate):
    orders = tuple(float(a) for a in range(2, 21)) + (math.inf,)
    curve = RdpCurve.from_pure_dp(epsilon, orders)
    eps = {int(a): v for a, v in zip(orders, curve.values, strict=True) if math.isfinite(a)}
    zw = poisson_subsampled(curve, sampling_rate=rate)
    wbk = without_replacement(curve, sampling_rate=rate)
    for a, v in zip(zw.orders, zw.values, strict=True):
        ref = _zw_mp(eps, int(a), rate)
        assert ref <= v <= ref * (1 + 1e-9) + 1e-12
    for a, v in zip(wbk.orders, wbk.values, strict=True):
        ref = _wbk_mp(eps, int(a), rate, epsilon)
        assert ref <= v <= ref * (1 + 1e-9) + 1e-12


def test_limits_and_monotonicity_in_the_rate(rr):
    curve = RdpCurve.from_view(rr(1.0), tuple(float(a) for a in range(2, 17)))
    assert poisson_subsampled(curve, sampling_rate=0.0).values == (0.0,) * 15
    assert poisson_subsampled(curve, sampling_rate=1.0).values == curve.values
    rates = [0.001, 0.01, 0.1, 0.5]
    for f in (poisson_subsampled, without_replacement):
        rows = [f(curve, sampling_rate=g).values for g in rates]
        for lo, hi in zip(rows, rows[1:], strict=False):
            assert all(x <= y for x, y in zip(lo, hi, strict=True))


def test_poisson_curve_carries_the_neighbouring_relation_caveat(rr):
    out = poisson_subsampled(RdpCurve.from_view(rr(1.0), (2.0, 3.0)), sampling_rate=0.1)
    assert POISSON_CAVEAT in out.method and "heuristic" in out.method


def test_non_integer_orders_are_read_through_the_chord_bound(rr):
    sparse = RdpCurve.from_view(rr(1.0), (2.0, 5.0, 9.0))
    dense = RdpCurve.from_view(rr(1.0), tuple(float(a) for a in range(2, 10)))
    a = poisson_subsampled(sparse, sampling_rate=0.05)
    b = poisson_subsampled(dense, sampling_rate=0.05)
    assert a.orders == b.orders
    assert all(x >= y for x, y in zip(a.values, b.values, strict=True))


@pytest.mark.parametrize("rate", [-0.1, 1.5])
def test_rate_outside_unit_interval_raises(rr, rate):
    with pytest.raises(ParameterError, match="sampling_rate"):
        poisson_subsampled(RdpCurve.from_view(rr(1.0), (2.0,)), sampling_rate=rate)
