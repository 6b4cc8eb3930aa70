"""RDP -> (epsilon, delta) conversions (accountant/composition/conversion.py), pinned where
mutation testing found gaps (docs/soundness.md#mutation-testing).

Oracles: the theorems' closed forms (Mironov 2017 Prop. 3; CKS 2020 Prop. 12), minimised over
the stored orders and evaluated in mpmath at 50 digits; the definition of rounding up / down
to a float; the optimal conversion's defining supremum, evaluated by mpmath at 40 digits
(the worst pair is binary: p_max(q) by bisection, the maximum over q by golden section).
"""

import math

import mpmath
import pytest

from accountant.composition import conversion
from accountant.composition.rdp import RdpCurve
from accountant.result import Kind

_ORDERS = (1.5, 2.0, 3.0, 5.0, 8.0, 16.0, 32.0)


def _curve(scale=0.05, pure=None, kind=Kind.UPPER):
    orders = list(_ORDERS)
    values = [scale * a for a in orders]          # a Gaussian-like curve: tau = scale alpha
    if pure is not None:
        orders.append(math.inf)
        values.append(pure)
    return RdpCurve(orders=tuple(orders), values=tuple(values), kind=kind)


def _mp(x):
    return mpmath.mpf(x)


def _mironov_eps(a, t, delta):
    return _mp(t) + mpmath.log(1 / _mp(delta)) / (_mp(a) - 1)


def _cks_eps(a, t, delta):
    a, t = _mp(a), _mp(t)
    return t + mpmath.log1p(-1 / a) - (mpmath.log(_mp(delta)) + mpmath.log(a)) / (a - 1)


def _mironov_log_delta(a, t, eps):
    return (_mp(a) - 1) * (_mp(t) - _mp(eps))


def _cks_log_delta(a, t, eps):
    a = _mp(a)
    return (a - 1) * (_mp(t) - _mp(eps)) - mpmath.log(a) + (a - 1) * mpmath.log1p(-1 / a)


_EPS_FORMS = {"mironov": (conversion.epsilon_mironov, _mironov_eps),
              "cks": (conversion.epsilon_cks, _cks_eps)}
_DELTA_FORMS = {"mironov": (conversion.delta_mironov, _mironov_log_delta),
                "cks": (conversion.delta_cks, _cks_log_delta)}


@pytest.mark.parametrize("name", list(_EPS_FORMS))
@pytest.mark.parametrize("scale, delta", [(0.05, 1e-6), (0.5, 1e-3), (0.002, 1e-10),
                                          (3.0, 0.5)])
def test_closed_form_epsilon_is_the_minimum_over_the_stored_orders(name, scale, delta):
    """At the stored orders (real_orders=False) the value is the theorem's minimum, rounded
    up: >= the exact minimum, and within 1e-12 of it; `order` names the minimising order."""
    fn, form = _EPS_FORMS[name]
    curve = _curve(scale)
    with mpmath.workdps(50):
        exact = [form(a, t, delta) for a, t in zip(curve.orders, curve.values, strict=True)]
        best = min(exact)
        res = fn(curve, delta=delta, real_orders=False)
        assert res.kind is Kind.UPPER and res.quantity == "epsilon" and res.at == delta
        assert _mp(res.value) >= max(best, 0)
        assert res.value <= float(max(best, 0)) * (1 + 1e-12) + 1e-15
        assert res.order == curve.orders[exact.index(best)]


@pytest.mark.parametrize("name", list(_DELTA_FORMS))
@pytest.mark.parametrize("scale, epsilon", [(0.05, 1.0), (0.5, 4.0), (0.002, 0.1),
                                            (0.05, 30.0), (0.2, 0.0)])
def test_closed_form_delta_is_the_minimum_over_the_stored_orders(name, scale, epsilon):
    fn, form = _DELTA_FORMS[name]
    curve = _curve(scale)
    with mpmath.workdps(50):
        logs = [form(a, t, epsilon) for a, t in zip(curve.orders, curve.values, strict=True)]
        best = min(logs)
        exact = min(mpmath.exp(best), 1)
        res = fn(curve, epsilon=epsilon, real_orders=False)
        assert res.kind is Kind.UPPER and res.quantity == "delta" and res.at == epsilon
        assert _mp(res.value) >= exact
        assert res.value <= float(exact) * (1 + 1e-12) + 1e-300
        if best < 0:
            assert res.order == curve.orders[logs.index(best)]


@pytest.mark.parametrize("name", ["mironov", "cks"])
def test_real_orders_never_lose_to_the_stored_orders(name):
    """The dense grid between stored orders only adds candidates (value_at is an upper
    bound on D_alpha there): the real-order value is at most the stored-order one, and
    still at least the exact minimum over the stored orders' chords' lower envelope (0)."""
    fn = _EPS_FORMS[name][0]
    curve = _curve(0.05)
    a = fn(curve, delta=1e-6, real_orders=True).value
    b = fn(curve, delta=1e-6, real_orders=False).value
    assert 0 < a <= b


def test_pure_dp_order_wins_when_smaller():
    """A stored alpha = inf gives (D_inf, 0)-DP: epsilon = D_inf at any delta when smaller,
    delta = 0 at epsilon >= D_inf."""
    curve = _curve(0.5, pure=0.7)
    for fn in (conversion.epsilon_mironov, conversion.epsilon_cks, conversion.epsilon_optimal):
        res = fn(curve, delta=1e-9)
        assert res.value == 0.7 and res.order == math.inf
    for fn in (conversion.delta_mironov, conversion.delta_cks, conversion.delta_optimal):
        assert fn(curve, epsilon=0.7).value == 0.0
        assert fn(curve, epsilon=0.69).value > 0.0
    # a pure order that is worse than the closed form does not win
    loose = _curve(0.001, pure=50.0)
    assert conversion.epsilon_mironov(loose, delta=1e-6).value < 50.0


def test_a_heuristic_curve_gives_heuristic_results():
    curve = _curve(0.05, kind=Kind.HEURISTIC)
    assert conversion.epsilon_mironov(curve, delta=1e-6).kind is Kind.HEURISTIC
    assert conversion.delta_cks(curve, epsilon=1.0).kind is Kind.HEURISTIC
    assert conversion.epsilon_mironov(_curve(0.05), delta=1e-6).kind is Kind.UPPER


# ---------------------------------------------------------------- _exp_up, _mpf_up/down


@pytest.mark.parametrize("x", [-1e-300, -1e-20, -0.5, -1.0, -30.0, -699.0, -700.5, -708.0,
                               -740.0, -745.0, -744.4, -800.0, -5000.0])
def test_exp_up_is_the_least_float_at_or_above(x):
    """min(1, e^x) rounded up: never below e^x (60 digits), never 0, and within 8 float
    steps of it (the documented slack is a relative 4u, or 2^-60 in mpmath)."""
    got = conversion._exp_up(x)
    with mpmath.workdps(60):
        exact = mpmath.exp(_mp(x))
        assert got > 0
        assert _mp(got) >= exact
        below = got
        for _ in range(8):
            below = math.nextafter(below, 0.0)
        assert _mp(below) < exact


@pytest.mark.parametrize("x", [0.0, 1e-300, 3.0, 1e308, math.inf])
def test_exp_up_caps_at_one(x):
    assert conversion._exp_up(x) == 1.0


def test_exp_up_rejects_nan():
    with pytest.raises(ValueError):
        conversion._exp_up(math.nan)


@pytest.mark.parametrize("text", ["1/3", "-1/3", "0.1", "2", "1e-320/3", "-7/5"])
def test_mpf_up_and_down_are_the_nearest_floats_on_each_side(text):
    with mpmath.workprec(200):
        num, _, den = text.partition("/")
        x = _mp(num) / (_mp(den) if den else 1)
        up, down = conversion._mpf_up(x), conversion._mpf_down(x)
        assert _mp(up) >= x and _mp(math.nextafter(up, -math.inf)) < x
        assert _mp(down) <= x and _mp(math.nextafter(down, math.inf)) > x
        if x == _mp(float(x)):
            assert up == down == float(x)


def test_cks_single_order_helpers_match_the_theorem():
    """The per-order CKS helpers of the optimal conversion: >= the closed form, within
    1e-12 (they bound the optimal conversion from above at that order)."""
    with mpmath.workdps(50):
        for a, t in [(2.0, 0.1), (8.0, 0.4), (1.5, 0.01), (64.0, 3.0)]:
            for delta in (1e-9, 1e-3):
                exact = max(_cks_eps(a, t, delta), 0)
                got = conversion._cks_epsilon_one(a, t, delta)
                assert _mp(got) >= exact and got <= float(exact) * (1 + 1e-12) + 1e-15
            for eps in (0.0, 0.5, 3.0):
                exact = min(mpmath.exp(_cks_log_delta(a, t, eps)), 1)
                got = conversion._cks_delta_one(a, t, eps)
                assert _mp(got) >= exact and got <= float(exact) * (1 + 1e-12) + 1e-300


def test_a_curve_of_only_the_pure_order():
    """Only alpha = inf stored: epsilon = D_inf; delta = 0 at epsilon >= D_inf and the
    trivial 1 below it (no finite order to convert)."""
    curve = RdpCurve(orders=(math.inf,), values=(2.0,))
    for fn in (conversion.delta_mironov, conversion.delta_cks):
        low = fn(curve, epsilon=1.0)
        assert low.value == 1.0 and low.quantity == "delta" and low.kind is Kind.UPPER
        assert low.at == 1.0
        assert fn(curve, epsilon=2.0).value == 0.0
    for fn in (conversion.epsilon_mironov, conversion.epsilon_cks):
        assert fn(curve, delta=1e-6).value == 2.0


@pytest.mark.parametrize("name", list(_EPS_FORMS))
def test_closed_form_epsilon_at_a_tiny_delta(name):
    """delta = 1e-300 at orders near 1: log(1/delta)/(alpha - 1) ~ 1400 dominates, and the
    rounding allowance must scale with it."""
    fn, form = _EPS_FORMS[name]
    curve = RdpCurve(orders=(1.01, 1.02, 1.5), values=(0.001, 0.002, 0.05))
    with mpmath.workdps(50):
        exact = min(form(a, t, 1e-300) for a, t in zip(curve.orders, curve.values,
                                                        strict=True))
        res = fn(curve, delta=1e-300, real_orders=False)
        assert _mp(res.value) >= exact
        assert res.value <= float(exact) * (1 + 1e-12)
