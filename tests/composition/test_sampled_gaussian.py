"""The certified RDP of the Poisson-subsampled Gaussian (accountant.composition.sampled_gaussian)
against independent computations: the integer-order binomial sum in 80-digit mpmath, the
Renyi divergence of the mixture by quadrature, the closed form at q = 1, dp_accounting, and
the DP-SGD event end to end."""

import math
import time
from fractions import Fraction

import dp_accounting as dpa
import mpmath
import pytest
from dp_accounting.rdp.rdp_privacy_accountant import (
    _compute_rdp_poisson_subsampled_gaussian as dpa_rdp,
)

import accountant.composition.sampled_gaussian as sg
from accountant.composition import Accountant, epsilon_best
from accountant.composition.sampled_gaussian import (
    SAMPLED_GAUSSIAN_ORDERS,
    sampled_gaussian_rdp,
    sampled_gaussian_rdp_ball,
    sampled_gaussian_rdp_curve,
)
from accountant.errors import ParameterError
from accountant.numeric import rounding
from accountant.numeric.mp import arb_to_mpf
from accountant.result import Kind


# ------------------------------------------------------------------ independent references
def _binomial_sum(sigma: float, q: float, alpha: int, dps: int = 80) -> mpmath.mpf:
    """log(A)/(alpha-1) with A = sum_k C(alpha,k) (1-q)^(alpha-k) q^k e^((k^2-k)/(2 sigma^2)),
    summed as written (not as A - 1) at `dps` digits."""
    with mpmath.workdps(dps):
        s2, qm = mpmath.mpf(sigma) ** 2, mpmath.mpf(q)
        total = mpmath.fsum(mpmath.binomial(alpha, k) * (1 - qm) ** (alpha - k) * qm ** k
                            * mpmath.exp(mpmath.mpf(k * k - k) / (2 * s2))
                            for k in range(alpha + 1))
        return mpmath.log(total) / (alpha - 1)


def _mixture_integrals(sigma: float, q: float, alpha: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(A - 1, B - 1) by quadrature of the two Renyi integrals of mu = (1-q) N(0, s^2) +
    q N(1, s^2) against mu0 = N(0, s^2): A = E_mu0[(mu/mu0)^alpha], B = E_mu[(mu0/mu)^alpha]
    = E_mu0[(mu/mu0)^(1-alpha)]; the ratio is 1 + y, y = q expm1((2z-1)/(2 s^2))."""
    with mpmath.workdps(40):
        s, qm, a = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(alpha)

        def ratio_minus_one(z):
            return qm * mpmath.expm1((2 * z - 1) / (2 * s * s))

        def a_part(z):
            return mpmath.npdf(z, 0, s) * mpmath.expm1(a * mpmath.log1p(ratio_minus_one(z)))

        def b_part(z):
            return mpmath.npdf(z, 0, s) * mpmath.expm1((1 - a) * mpmath.log1p(
                ratio_minus_one(z)))

        z0 = s * s * mpmath.log(1 / qm - 1) + mpmath.mpf(0.5)
        points = sorted({-mpmath.inf, -12 * s, mpmath.mpf(0), mpmath.mpf(1), z0, z0 + 12 * s,
                         a / (s ** -2) + 12 * s, mpmath.inf})
        return mpmath.quad(a_part, points), mpmath.quad(b_part, points)


def _quad_rdp(sigma: float, q: float, alpha: float) -> mpmath.mpf:
    a_minus_one, _ = _mixture_integrals(sigma, q, alpha)
    with mpmath.workdps(40):
        return mpmath.log1p(a_minus_one) / (alpha - 1)


# ------------------------------------------------------------------ exact values
@pytest.mark.parametrize("sigma, q", [(1.0, 0.01), (0.5, 0.001), (3.0, 0.3), (0.8, 0.9),
                                      (1.0, 1e-9)])
@pytest.mark.parametrize("alpha", [2, 3, 7, 32, 256])
def test_integer_orders_are_the_binomial_sum_rounded_up(sigma, q, alpha):
    exact = _binomial_sum(sigma, q, alpha)
    value = sampled_gaussian_rdp(sigma, q, float(alpha))
    # an upper bound, and no more than a few ulps above the exact value
    assert mpmath.mpf(value) >= exact
    assert value <= math.nextafter(math.nextafter(float(exact), math.inf), math.inf)


@pytest.mark.parametrize("sigma, q, alpha", [
    (1.0, 0.01, 1.05),     # slowest series: the tail enclosure carries the value
    (5.0, 0.5, 1.2),       # dp_accounting gives up here (no convergence in 1000 steps)
    (0.7, 0.1, 2.5),
    (1.0, 0.01, 7.8),      # the DP-SGD optimum below
    (0.5, 0.001, 10.9),
    (2.0, 0.9, 3.3),
])
def test_fractional_orders_match_quadrature_of_the_mixture(sigma, q, alpha):
    reference = _quad_rdp(sigma, q, alpha)
    ball = sampled_gaussian_rdp_ball(sigma, q, alpha)
    value = sampled_gaussian_rdp(sigma, q, alpha)
    with mpmath.workdps(40):
        mid, rad = arb_to_mpf(ball.mid()), arb_to_mpf(ball.rad())
        # the enclosure holds the quadrature value (to the quadrature's accuracy)
        assert abs(reference - mid) <= rad + 1e-25 * abs(reference)
        assert mpmath.mpf(value) >= reference * (1 - mpmath.mpf(10) ** -25)
    assert value <= float(reference) * (1 + 1e-14)


@pytest.mark.parametrize("sigma, q, alpha", [(1.0, 0.01, 1.05), (5.0, 0.5, 1.2),
                                             (0.7, 0.1, 2.5)])
def test_tail_enclosure_holds_with_few_terms(monkeypatch, sigma, q, alpha):
    """With the series cut right after floor(alpha) + 1 terms and four Euler steps, the
    enclosure is wide, and must still hold the quadrature value: the tail is enclosed, not
    estimated."""
    monkeypatch.setattr(sg, "_FIRST_TAIL", 0)
    monkeypatch.setattr(sg, "_FIRST_EULER", 0)
    monkeypatch.setattr(sg, "MAX_PREC", 128)
    ball = sg.sampled_gaussian_rdp_ball(sigma, q, alpha)
    reference = _quad_rdp(sigma, q, alpha)
    with mpmath.workdps(40):
        mid, rad = arb_to_mpf(ball.mid()), arb_to_mpf(ball.rad())
        assert rad > 1e-9 * abs(reference)           # the cut is felt ...
        assert abs(reference - mid) <= rad           # ... and enclosed


@pytest.mark.parametrize("sigma, q, alpha", [(1.0, 0.01, 1.5), (0.5, 0.2, 3.0),
                                             (2.0, 0.9, 12.5), (1.0, 0.5, 40.0)])
def test_the_a_direction_dominates_both_directions(sigma, q, alpha):
    """[MTZ19] Sec. 3 (A_alpha >= B_alpha) at a few points, by quadrature: the curve is the
    max over the add and the remove direction."""
    a_minus_one, b_minus_one = _mixture_integrals(sigma, q, alpha)
    assert b_minus_one < a_minus_one
    with mpmath.workdps(40):
        remove_direction = mpmath.log1p(b_minus_one) / (alpha - 1)
    assert sampled_gaussian_rdp(sigma, q, alpha) >= remove_direction


@pytest.mark.parametrize("sigma", [0.3, 1.0, 7.0])
def test_full_sampling_is_the_gaussian_closed_form(sigma):
    orders = (1.05, 1.5, 2.0, 7.8, 64.0, 1024.0, math.inf)
    curve = sampled_gaussian_rdp_curve(sigma, 1.0, orders)
    for alpha, value in zip(orders[:-1], curve.values[:-1], strict=True):
        exact = Fraction(alpha) / (2 * Fraction(sigma) ** 2)
        assert Fraction(value) >= exact
        assert value <= math.nextafter(rounding.up(exact), math.inf)
    assert curve.values[-1] == math.inf


def test_tiny_rates_stay_nonnegative_upper_bounds():
    # A - 1 ~ C(alpha, 2) q^2 (e^(1/sigma^2) - 1) far below the float range
    for alpha in (1.5, 3.0):
        ball = sampled_gaussian_rdp_ball(1.0, 1e-300, alpha)
        with mpmath.workdps(30):
            lead = alpha / 2 * mpmath.mpf(1e-300) ** 2 * mpmath.expm1(1)
            assert abs(arb_to_mpf(ball.mid()) / lead - 1) < 1e-10
        assert sampled_gaussian_rdp(1.0, 1e-300, alpha) == 5e-324  # the least float above
    for alpha in (2.0, 5.5):
        value = sampled_gaussian_rdp(1.0, 1e-9, alpha)
        assert 0.0 < value <= alpha / 2 * 1e-18 * math.expm1(1) * (1 + 1e-6)
    exact = _binomial_sum(1.0, 1e-9, 5)
    assert exact <= sampled_gaussian_rdp(1.0, 1e-9, 5.0) <= exact * (1 + 1e-14)


# ------------------------------------------------------------------ shape
@pytest.mark.parametrize("sigma, q", [(1.0, 0.01), (0.6, 0.2), (4.0, 0.001)])
def test_curve_is_nondecreasing_in_the_order(sigma, q):
    curve = sampled_gaussian_rdp_curve(sigma, q)
    assert curve.orders == SAMPLED_GAUSSIAN_ORDERS and curve.kind is Kind.UPPER
    assert all(b >= a for a, b in zip(curve.values, curve.values[1:], strict=False))
    assert all(v > 0 for v in curve.values)


def test_curve_is_nondecreasing_in_the_rate():
    orders = (1.1, 2.0, 4.5, 10.0, 63.0)
    rows = [sampled_gaussian_rdp_curve(1.0, q, orders).values
            for q in (1e-4, 1e-3, 0.01, 0.1, 0.5, 0.99, 1.0)]
    for lower, upper in zip(rows, rows[1:], strict=False):
        assert all(x < y for x, y in zip(lower, upper, strict=True))


# ------------------------------------------------------------------ peers
@pytest.mark.parametrize("sigma, q", [(1.0, 0.01), (0.7, 0.1), (2.0, 0.5), (5.0, 0.001)])
def test_matches_dp_accounting(sigma, q):
    """Integer orders: dp_accounting's binomial sum, to 1e-9. Fractional orders: this
    dp_accounting sums the series' terms' absolute values (an upper bound, up to 7 % above
    the quadrature near alpha = 1), so ours must not exceed it."""
    integers = tuple(float(a) for a in range(2, 65)) + (128.0, 256.0)
    ours = sampled_gaussian_rdp_curve(sigma, q, integers).values
    theirs = dpa_rdp(q, sigma, integers)
    for mine, ref in zip(ours, theirs, strict=True):
        assert abs(mine - ref) <= 1e-9 * ref
    fractional = (1.5, 2.5, 7.8, 10.9)
    ours = sampled_gaussian_rdp_curve(sigma, q, fractional).values
    theirs = dpa_rdp(q, sigma, fractional)
    for mine, ref in zip(ours, theirs, strict=True):
        assert mine <= ref * (1 + 1e-9)


def test_dp_sgd_event_end_to_end():
    """sigma = 1, q = 0.01, 1000 steps, delta = 1e-5 (add-or-remove-one): at most
    dp_accounting's 2.1014, and above the certified PLD lower end of the same event."""
    start = time.perf_counter()
    curve = sampled_gaussian_rdp_curve(1.0, 0.01)
    elapsed = time.perf_counter() - start
    best, _ = epsilon_best(curve.times(1000), delta=1e-5)
    acc = dpa.rdp.RdpAccountant()
    acc.compose(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)
    theirs = acc.get_epsilon(1e-5)
    assert best.value <= 2.1014 and theirs <= 2.1014
    assert best.kind is Kind.UPPER
    bracket = Accountant("add-remove").compose(
        dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000).get_epsilon(
        1e-5, method="pld")
    assert bracket.lower is not None and bracket.lower.value <= best.value
    assert elapsed < 5.0


# ------------------------------------------------------------------ domains
@pytest.mark.parametrize("kwargs, name", [
    ({"noise_multiplier": 0.0}, "noise_multiplier"),
    ({"noise_multiplier": math.inf}, "noise_multiplier"),
    ({"sampling_rate": 0.0}, "sampling_rate"),
    ({"sampling_rate": 1.5}, "sampling_rate"),
    ({"sampling_rate": math.nan}, "sampling_rate"),
    ({"orders": (0.5, 2.0)}, "alpha"),
    ({"orders": (3.0, 2.0)}, "orders"),
    ({"orders": ()}, "orders"),
    ({"orders": 2.0}, "orders"),
])
def test_arguments_outside_their_domains_are_refused(kwargs, name):
    args = {"noise_multiplier": 1.0, "sampling_rate": 0.01, "orders": (2.0,)} | kwargs
    with pytest.raises(ParameterError, match=name):
        sampled_gaussian_rdp_curve(**args)
