"""The blanket pair's own certified lower end (issue 24): `continuous.blanket_lower`.

References, each independent of the cells, the lattice and the FFT:
- the Gaussian blanket pair at n = 2, 3 by quadrature: with omega Z = f_0 - g f_1 and Z
  decreasing in y, E[(S + Z)_+] = S W(a) + G(a), a the point where Z = -S, W the omega-CDF
  and G = F_0 - g F_1 (closed forms in Phi), so E[(Z_1 + Z_2)_+] is one integral (mpmath,
  20 digits) and E[(Z_1 + Z_2 + Z_3)_+] two nested ones (scipy's adaptive quadrature,
  about 1e-10 relative: 2-d mpmath took minutes); mixed over N ~ Bin(n - 1, gamma).
- the certified blanket upper end (`blanket`), which the lower end must never exceed.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.special import ndtr

from accountant.protocols.continuous import (
    DiscreteGaussianLaw,
    DiscreteLaplaceLaw,
    GaussianLaw,
    GaussianRandomizer,
    LaplaceLaw,
    LaplaceRandomizer,
    blanket,
    blanket_lower,
)
from accountant.result import Kind, Scope


# ------------------------------------------------------------------ the reference
def _z_inverse(v, gam, g, s2, log):
    """The y where Z(y) = v (Z decreasing): left branch gamma (e^lambda - g), right
    gamma (1 - g e^-lambda), lambda = (1 - 2y)/(2 sigma^2)."""
    if v >= gam * (1 - g):
        return 0.5 - s2 * log(v / gam + g)
    return 0.5 + s2 * (log(1 - v / gam) - log(g))


def _h12_mpmath(sigma: float, eps: float) -> tuple[mpmath.mpf, mpmath.mpf]:
    """E[(Z_1)_+] and E[(Z_1 + Z_2)_+]/2 of the Gaussian blanket pair, 20 digits."""
    mp = mpmath.mp
    mp.dps = 20
    s, g, half = mpmath.mpf(sigma), mpmath.e ** mpmath.mpf(eps), mpmath.mpf(1) / 2
    gam = 2 * mpmath.ncdf(-1 / (2 * s))
    s2 = s * s

    def z(y):
        lam = (1 - 2 * y) / (2 * s2)
        return gam * (mpmath.e ** lam - g) if y <= half else gam * (1 - g * mpmath.e ** -lam)

    def omega(y):
        return (mpmath.npdf(y, 1, s) if y <= half else mpmath.npdf(y, 0, s)) / gam

    def inner(big_s):  # E[(S + Z)_+] = S W(a) + G(a)
        a = _z_inverse(-big_s, gam, g, s2, mpmath.log)
        w = (mpmath.ncdf((min(a, half) - 1) / s)
             + (mpmath.ncdf(a / s) - mpmath.ncdf(half / s) if a > half else 0)) / gam
        return big_s * w + mpmath.ncdf(a / s) - g * mpmath.ncdf((a - 1) / s)

    lo, hi = half - 40 * s, half + 40 * s
    kink = _z_inverse(gam * (g - 1), gam, g, s2, mpmath.log)  # where a crosses 1/2
    pts = sorted({lo, half, hi, *([kink] if lo < kink < hi else [])})
    two = mpmath.quad(lambda y: omega(y) * inner(z(y)), pts)
    return inner(mpmath.mpf(0)), two / 2


def _h3_scipy(sigma: float, eps: float) -> float:
    """E[(Z_1 + Z_2 + Z_3)_+]/3 of the Gaussian blanket pair, nested adaptive quadrature."""
    s, g = sigma, math.exp(eps)
    gam = float(2 * ndtr(-0.5 / s))
    s2 = s * s

    def z(y):
        lam = (1 - 2 * y) / (2 * s2)
        return gam * (math.exp(lam) - g) if y <= 0.5 else gam * (1 - g * math.exp(-lam))

    def omega(y):
        mu = 1.0 if y <= 0.5 else 0.0
        return math.exp(-(y - mu) ** 2 / (2 * s2)) / (s * math.sqrt(2 * math.pi)) / gam

    def inner(big_s):
        a = _z_inverse(-big_s, gam, g, s2, math.log)
        w = (ndtr((min(a, 0.5) - 1) / s) + (ndtr(a / s) - ndtr(0.5 / s) if a > 0.5 else 0)) / gam
        return big_s * w + ndtr(a / s) - g * ndtr((a - 1) / s)

    lo, hi = 0.5 - 12 * s, 0.5 + 12 * s

    def two(s0):  # E[(s0 + Z_1 + Z_2)_+]
        kink = _z_inverse(gam * (g - 1) - s0, gam, g, s2, math.log)
        pts = sorted({0.5, *([kink] if lo < kink < hi else [])})
        return quad(lambda y: omega(y) * inner(s0 + z(y)), lo, hi, points=pts, epsabs=0,
                    epsrel=1e-11, limit=400)[0]

    return quad(lambda y: omega(y) * two(z(y)), lo, hi, points=[0.5], epsabs=0,
                epsrel=1e-10, limit=400)[0] / 3


def _reference(sigma: float, n: int, eps: float) -> float:
    h1, h2 = _h12_mpmath(sigma, eps)
    hs = [float(h1), float(h2)] + ([_h3_scipy(sigma, eps)] if n >= 3 else [])
    gam = float(2 * ndtr(-0.5 / sigma))
    return sum(math.comb(n - 1, k) * gam ** k * (1 - gam) ** (n - 1 - k) * hs[k]
               for k in range(n))


def test_reference_single_message() -> None:
    """The quadrature's c = 1 term (through W, G and the inverse of Z) against the closed
    form Phi(y*/s) - g Phi((y* - 1)/s), y* = 1/2 - s^2 eps."""
    h1, _ = _h12_mpmath(1.0, 2.0)
    y = 0.5 - 2.0
    assert float(h1) == pytest.approx(float(ndtr(y) - math.exp(2.0) * ndtr(y - 1)), rel=1e-12)


# ------------------------------------------------------------------ small n, exact
@pytest.mark.parametrize(("sigma", "n", "eps"), [(1.0, 2, 2.0), (3.0, 2, 0.5),
                                                 (1.0, 3, 1.5)])
def test_small_n_against_quadrature(sigma: float, n: int, eps: float) -> None:
    ref = _reference(sigma, n, eps)
    law = GaussianLaw(sigma)
    low = blanket_lower.delta_lower(law, n, eps)
    up = blanket.delta_upper(law, n, eps)
    assert low.kind is Kind.LOWER and low.scope is Scope.PAIR
    assert float(low.value) <= ref * (1 + 1e-9)
    assert ref <= float(up.value) * (1 + 1e-9)
    # close to the truth: the statistic at 256 steps per sd loses well under 1 %
    assert float(low.value) >= 0.99 * ref


def test_single_message_closed_form() -> None:
    """c = 1 alone: the blanket pair given N = 0 is (f_0, f_1) itself, whose H_g is
    Phi(y*/s) - g Phi((y* - 1)/s); the lower end must sit just below it."""
    for sigma, eps in ((1.0, 1.0), (0.5, 3.0), (3.0, 0.2)):
        y = 0.5 - sigma ** 2 * eps
        exact = float(ndtr(y / sigma) - math.exp(eps) * ndtr((y - 1) / sigma))
        got = float(blanket_lower.delta_given_count(GaussianLaw(sigma),
                                                    blanket_lower._g_up(eps),
                                                    np.array([1]))[0])
        assert exact * 0.99 <= got <= exact


def test_monotone_in_count_and_g() -> None:
    """The pair's value is nonincreasing in N and in g; the lower ends follow it closely
    enough that the trend shows (a lattice or error slip would break it)."""
    law = GaussianLaw(1.0)
    counts = np.array([10, 100, 1000, 10000])
    vals = blanket_lower.delta_given_count(law, math.exp(0.1), counts)
    assert np.all(np.diff(vals) < 0) and vals[-1] > 0
    by_g = [float(blanket_lower.delta_given_count(law, math.exp(e), np.array([1000]))[0])
            for e in (0.05, 0.1, 0.2)]
    assert by_g[0] > by_g[1] > by_g[2] > 0


# ------------------------------------------------------------------ bound relations
@pytest.mark.parametrize("sigma", [0.3, 1.0, 10.0])
@pytest.mark.parametrize("n", [2, 100])
@pytest.mark.parametrize("delta", [1e-3, 1e-10])
def test_lower_below_upper(sigma: float, n: int, delta: float) -> None:
    law = GaussianLaw(sigma)
    up = blanket.epsilon_upper(law, n, delta)
    e = float(up.value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low = blanket_lower.epsilon_lower(law, n, delta, below=e)
        d_low = blanket_lower.delta_lower(law, n, e)
    assert float(low.value) <= e
    assert float(d_low.value) <= float(blanket.delta_upper(law, n, e).value)
    # at the upper end the pair's delta is at most the target, so the lower end is too
    assert float(d_low.value) <= delta
    assert low.kind is Kind.LOWER and low.scope is Scope.PAIR


@pytest.mark.slow
@pytest.mark.parametrize("sigma", [0.3, 0.5, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("n", [2, 3, 10, 1000, 10 ** 4, 10 ** 6])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-30, 1e-100])
def test_lower_below_upper_grid(sigma: float, n: int, delta: float) -> None:
    law = GaussianLaw(sigma)
    up = float(blanket.epsilon_upper(law, n, delta).value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low = float(blanket_lower.epsilon_lower(law, n, delta,
                                                below=up if math.isfinite(up) else None).value)
        assert low <= up
        if math.isfinite(up):
            assert (float(blanket_lower.delta_lower(law, n, up).value)
                    <= float(blanket.delta_upper(law, n, up).value))


# ------------------------------------------------------------------ the target
@pytest.mark.parametrize("law", [GaussianLaw(1.0), GaussianLaw(3.0), GaussianLaw(10.0),
                                 LaplaceLaw(1.0), LaplaceLaw(3.0), DiscreteGaussianLaw(3.0),
                                 DiscreteLaplaceLaw(3.0)],
                         ids=lambda law: f"{law.name}-{law.scale:g}")
def test_width_at_a_million(law) -> None:
    """n = 1e6, delta = 1e-6: the blanket pair's certified [lower, upper] is <= 1 % wide."""
    n, delta = 10 ** 6, 1e-6
    up = float(blanket.epsilon_upper(law, n, delta).value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low = blanket_lower.epsilon_lower(law, n, delta, below=up)
    assert 0 < float(low.value) <= up <= 1.01 * float(low.value)
    # and the certified lower delta at the lower end is indeed above the target
    assert float(blanket_lower.delta_lower(law, n, float(low.value)).value) > delta


def test_pure_dp_region_is_zero() -> None:
    """Laplace noise is (1/b)-LDP: at eps >= 1/b no message has Z > 0 and the pair's delta
    is 0; the lower end must say 0 there (and stay positive just below)."""
    law = LaplaceLaw(2.0)
    assert float(blanket_lower.delta_lower(law, 50, 0.5).value) == 0.0
    assert float(blanket_lower.delta_lower(law, 50, 0.45).value) > 0.0


@pytest.mark.parametrize("make, within", [
    (lambda: GaussianRandomizer(n=1000, sigma=1.0), 0.06),
    (lambda: GaussianRandomizer(n=10 ** 6, sigma=3.0), 0.01),
    (lambda: GaussianRandomizer(n=2, sigma=0.3), 0.06),
    (lambda: LaplaceRandomizer(n=1000, scale=1.0), 0.06),
], ids=["gaussian-1000", "gaussian-1e6", "gaussian-2", "laplace-1000"])
def test_the_mechanism_bracket_carries_the_blanket_pairs_lower_end(make, within) -> None:
    """When the blanket is the upper end, the bracket's pair_lower is the blanket pair's
    certified lower end: a PAIR statement below the upper end and near it (epsilon within
    1 % at n = 1e6, 6 % at n = 1000: the rest of the bracket is the gap to the worst
    dataset), printed as `<quantity>_blanket_lower`; delta(eps) gets one too."""
    mech = make()
    for b, q in ((mech.epsilon_for_delta(1e-6), "epsilon"),
                 (mech.delta_for_epsilon(0.5), "delta")):
        if b.pair_name != "blanket":
            assert b.pair_lower is None
            continue
        p = b.pair_lower
        if p is None and q == "delta":
            # far in the tail (n = 1e6: delta(0.5) ~ 5e-18) the lattice statistic certifies
            # nothing above 0, and a 0 is not reported
            assert b.upper.value < 1e-12
            continue
        assert p is not None and p.kind is Kind.LOWER and p.scope is Scope.PAIR
        assert 0 < p.value <= b.upper.value
        if q == "epsilon":
            assert b.upper.value <= p.value * (1 + within)
        assert f"{q}_blanket_lower" in b.json_items(q)


@pytest.mark.filterwarnings("error")
def test_a_tilt_that_overflows_bounds_nothing_and_leaks_no_nan() -> None:
    """The wrapped-mass Chernoff bound takes the best of several tilts; a tilt whose terms
    overflow (inf - inf) used to make the whole sum NaN, with a RuntimeWarning (seen in the
    Laplace property draws): it now counts as no bound, and the other tilts answer."""
    chern = blanket_lower._Chernoff(
        lams=np.array([1e308, 0.5, -0.5]), log_mm=np.array([1.0, 0.1, 0.1]),
        log_mb=np.array([1.0, 0.1, 0.1]), scale_m=np.array([1.0, 1.0, 1.0]),
        scale_b=np.array([1.0, 1.0, 1.0]), top_m=1e6, top_b=1e6)
    value = chern.bound(3, 10, 100, 50.0)
    one_tilt = blanket_lower._Chernoff(
        lams=np.array([0.5, -0.5]), log_mm=np.array([0.1, 0.1]),
        log_mb=np.array([0.1, 0.1]), scale_m=np.array([1.0, 1.0]),
        scale_b=np.array([1.0, 1.0]), top_m=1e6, top_b=1e6).bound(3, 10, 100, 50.0)
    assert value == one_tilt and math.isfinite(value) and value > 0
