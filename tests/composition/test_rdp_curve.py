"""RdpCurve: validation, the pure-DP curve (docs/conversions.md#pure-dp-to-rdp), additivity
(docs/conversions.md#rdp-composition), chord bounds."""

import json
import math

import mpmath
import pytest

from accountant.composition.rdp import DEFAULT_ORDERS, RdpCurve
from accountant.divergence import renyi_divergence
from accountant.errors import ParameterError
from accountant.result import Kind
from accountant.view import ViewPair


def _rr_renyi_mp(epsilon: float, alpha: float) -> float:
    """Independent 50-digit D_alpha of binary RR (both orders are equal by symmetry)."""
    with mpmath.workdps(50):
        e = mpmath.mpf(epsilon)
        a = mpmath.mpf(alpha)
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        s = p ** a * (1 - p) ** (1 - a) + (1 - p) ** a * p ** (1 - a)
        return float(mpmath.log(s) / (a - 1))


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_pure_dp_curve_is_exact_for_randomized_response(epsilon):
    curve = RdpCurve.from_pure_dp(epsilon, orders=(1.5, 2.0, 7.0, 64.0))
    for alpha, value in zip(curve.orders, curve.values, strict=True):
        exact = _rr_renyi_mp(epsilon, alpha)
        assert exact <= value <= exact * (1 + 1e-12) + 1e-15


def test_curve_from_view_matches_independent_rr_values(rr):
    curve = RdpCurve.from_view(rr(1.0), orders=(1.25, 2.0, 10.0, math.inf))
    assert curve.values[-1] == pytest.approx(1.0, rel=1e-14)
    for alpha, value in zip(curve.orders[:-1], curve.values[:-1], strict=True):
        assert value == pytest.approx(_rr_renyi_mp(1.0, alpha), rel=1e-12)


def test_composition_adds_and_equals_the_product_pair(rr):
    """D_alpha is additive over products (docs/divergences.md#renyi-divergence): the curve of the
    product view equals
    the sum of the curves, up to the float evaluation's error."""
    a, b = rr(0.5), rr(1.5)
    orders = (1.5, 2.0, 4.0, 16.0)
    summed = RdpCurve.from_view(a, orders).compose(RdpCurve.from_view(b, orders))
    direct = RdpCurve.from_view(a.product(b), orders)
    for x, y in zip(summed.values, direct.values, strict=True):
        assert x == pytest.approx(y, rel=1e-11)
    assert summed.kind is Kind.UPPER


def test_times_is_repeated_composition(rr):
    curve = RdpCurve.from_view(rr(0.3), (2.0, 3.0))
    three = curve.compose(curve, curve)
    assert curve.times(3).values == pytest.approx(three.values, rel=1e-14)
    assert all(t >= 3 * v for t, v in zip(curve.times(3).values, curve.values, strict=True))


@pytest.mark.parametrize("alpha", [1.3, 2.5, 5.5, 40.0])
def test_chord_interpolation_is_an_upper_bound(alpha):
    """(alpha-1) D_alpha is convex, so the chord between stored orders lies above it."""
    p = [0.5, 0.3, 0.15, 0.05]
    q = [0.2, 0.3, 0.3, 0.2]
    view = ViewPair.from_arrays(p, q)
    coarse = RdpCurve.from_view(view, (1.1, 2.0, 3.0, 8.0, 64.0))
    truth = renyi_divergence(view, alpha).value
    bound = coarse.value_at(alpha)
    assert truth <= bound
    # and it is a useful bound: not above the next stored order's value
    i = next(i for i, a in enumerate(coarse.orders) if a > alpha)
    assert bound <= coarse.values[i]


def test_json_round_trip(tmp_path, rr):
    curve = RdpCurve.from_view(rr(1.0), DEFAULT_ORDERS)
    path = tmp_path / "curve.json"
    path.write_text(json.dumps(curve.to_json()))
    back = RdpCurve.from_json(str(path))
    assert back.orders == curve.orders and back.values == curve.values
    assert back.kind is curve.kind


@pytest.mark.parametrize("orders, values, match", [
    ((2.0, 1.5), (0.1, 0.2), "strictly increasing"),
    ((1.0, 2.0), (0.1, 0.2), "alpha=1"),
    ((2.0,), (-0.1,), "outside"),
    ((2.0, 3.0), (0.1,), "2 orders but 1 values"),
])
def test_invalid_curves_raise_parameter_error(orders, values, match):
    with pytest.raises(ParameterError, match=match):
        RdpCurve(orders=orders, values=values)


def test_lower_bounds_cannot_form_a_curve():
    with pytest.raises(ParameterError, match="lower bound"):
        RdpCurve(orders=(2.0,), values=(0.1,), kind=Kind.LOWER)


def test_missing_file_is_a_parameter_error(tmp_path):
    with pytest.raises(ParameterError, match="does not exist"):
        RdpCurve.from_json(str(tmp_path / "nope.json"))


def test_value_outside_range_raises():
    curve = RdpCurve(orders=(2.0, 4.0), values=(0.1, 0.3))
    with pytest.raises(ParameterError, match="alpha=8"):
        curve.value_at(8.0)
