"""Regression tests for the composition items of issue 16 (each value reproduced with the
package before the fix; the reference values are computed here independently)."""

import math

import mpmath
import pytest

from accountant.cli.compose import compose
from accountant.composition import conversion, kov
from accountant.composition.rdp import RdpCurve


def _alpha2_feasible_epsilon(log_q: float, tau: float, delta: float) -> mpmath.mpf:
    """A feasible binary pair for D_2 <= tau at q = e^log_q, checked in 60-digit mpmath:
    its epsilon(delta) = log((p - delta)/q) is a lower bound on the optimal conversion."""
    with mpmath.workdps(60):
        q = mpmath.exp(log_q)
        # p^2/q + (1-p)^2/(1-q) <= e^tau, solved for p (the larger root), shaved a little
        a, b, c = 1 / q + 1 / (1 - q), -2 / (1 - q), 1 / (1 - q) - mpmath.exp(tau)
        p = (-b + mpmath.sqrt(b * b - 4 * a * c)) / (2 * a) * (1 - mpmath.mpf(10) ** -30)
        assert p ** 2 / q + (1 - p) ** 2 / (1 - q) <= mpmath.exp(tau)
        return mpmath.log((p - delta) / q) if p > delta else mpmath.mpf("-inf")


def test_optimal_conversion_searches_below_e_minus_700():
    # issue 16: returned 655.64 while a feasible pair reaches 699.38
    curve = RdpCurve(orders=(2.0,), values=(10.0,))
    got = conversion.epsilon_optimal(curve, delta=1e-300).value
    best_feasible = max(_alpha2_feasible_epsilon(lq, 10.0, mpmath.mpf("1e-300"))
                        for lq in range(-1400, -1300, 2))
    assert best_feasible > 699.3
    assert got >= best_feasible
    assert got <= conversion.epsilon_cks(curve, delta=1e-300).value


def test_compose_rdp_of_pure_dp_is_not_below_kov():
    # issue 16: --method rdp reported 699.9999997 where KOV (exact) gives 999.999999
    body = compose(["eps-delta --epsilon 10 --delta 0"], rounds=100, delta=1e-6,
                   method="rdp")
    truth = kov.epsilon_kov(epsilon=10.0, delta=0.0, rounds=100, delta_total=1e-6).value
    assert float(truth) == pytest.approx(999.999999, abs=1e-6)
    assert body["epsilon"]["value"] >= truth
    for entry in body["methods"]:
        assert entry["value"] >= truth


@pytest.mark.parametrize("fn", [conversion.delta_mironov, conversion.delta_cks,
                                conversion.delta_optimal])
def test_delta_conversions_do_not_overflow_or_underflow(fn):
    # issue 16: OverflowError when log delta > 709
    assert fn(RdpCurve(orders=(2.0,), values=(800.0,)), epsilon=0.5).value == 1.0
    # a true delta below the float range is reported as the smallest positive float, never 0
    tiny = fn(RdpCurve(orders=(2.0,), values=(1.0,)), epsilon=900.0).value
    assert 0 < tiny <= 1e-300


def test_drv_slack_is_exact():
    # issue 16: 2e-11 below its own formula (k delta subtracted in float)
    e, d, k, dt = 0.007488888661423543, 0.0001149939057592565, 3, 0.0003449817472667589
    got = kov.epsilon_drv(epsilon=e, delta=d, rounds=k, delta_total=dt).value
    with mpmath.workdps(60):
        E, slack = mpmath.mpf(e), mpmath.mpf(dt) - k * mpmath.mpf(d)
        formula = mpmath.sqrt(2 * k * mpmath.log(1 / slack)) * E + k * E * mpmath.expm1(E)
    assert got >= formula
    assert got <= formula * (1 + 1e-14)


def test_drv_delta_is_at_least_its_formula():
    e, d, k, et = 0.01, 1e-7, 50, 0.9
    got = kov.delta_drv(epsilon=e, delta=d, rounds=k, epsilon_total=et).value
    with mpmath.workdps(60):
        E = mpmath.mpf(e)
        room = mpmath.mpf(et) - k * E * mpmath.expm1(E)
        formula = k * mpmath.mpf(d) + mpmath.exp(-(room / E) ** 2 / (2 * k))
    assert formula <= got <= formula * (1 + 1e-12)
    assert math.isfinite(got)
