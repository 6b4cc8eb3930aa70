"""The certified PLD engine (accountant/composition/pld/): the FFT round-off bound holds
and is not vacuous, the clones pair is formed in O(outcomes) and agrees with its explicit
view, brackets contain exact values, and the issue-16 tiny-delta case is fixed."""

import math

import mpmath
import numpy as np
import pytest

from accountant.composition import pld
from accountant.divergence import epsilon_bracket
from accountant.pairs import clones
from accountant.protocols import binary_rr


def _measure(mass: np.ndarray) -> pld.LossPmf:
    return pld.LossPmf(1e-3, 0, mass, 0.0, 0.0, True)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fft_round_off_stays_inside_its_bound(seed):
    """Exact reference: integer vectors scaled by 2^-33, convolved in int64; the products
    stay below 2^53, so the reference is exact in float."""
    rng = np.random.default_rng(seed)
    size = 7000 + 500 * seed
    ia = rng.integers(0, 2**20, size) * (rng.random(size) < 0.9)
    ib = rng.integers(0, 2**20, size) ** 2 // 2**20  # spread magnitudes
    a, b = ia / 2.0**33, ib / 2.0**33
    exact_int = np.convolve(ia.astype(np.int64), ib.astype(np.int64))
    assert exact_int.max() < 2**53
    exact = exact_int / 2.0**66
    out = pld.convolve(_measure(a), _measure(b))   # 4.9e7 products: the FFT path
    measured_l1 = float(np.sum(np.abs(out.mass - exact)))
    assert 0 < measured_l1 <= out.error
    assert out.error <= 1e4 * measured_l1  # the bound is not vacuous
    assert out.error < 1e-11


def test_direct_convolution_keeps_tiny_masses_relative():
    a = np.zeros(50)
    a[[0, 10, 49]] = [1 - 2e-200, 1e-200, 1e-200]
    out = pld.self_compose(_measure(a), 4)
    assert out.error == 0.0 and out.relative < 1e-12
    # the mass at index 4*49 is (1e-200)^4 = 1e-800 (underflows); at 3*0 + 10: 4e-200
    assert out.mass[10] == pytest.approx(4e-200, rel=1e-13)


def test_clones_pair_matches_its_explicit_view():
    pair = clones.fmt_clones(n=60, epsilon0=1.5)
    explicit = clones.view_pair(pair, backend="float")
    for rounds in (1, 3):
        a = pld.compose_views([(pair, rounds)], delta=1e-6, discretization=1e-4)
        b = pld.compose_views([(explicit, rounds)], delta=1e-6, discretization=1e-4)
        assert a.lower.value <= b.upper.value and b.lower.value <= a.upper.value
        # connect-the-dots: the upper end is within O(width^2) of the truth, the lower end
        # within the coupling shift width sqrt(T log(1/eta)/2), eta >= 1e-9 delta
        shift = 1e-4 * math.sqrt(rounds * math.log(1 / 1e-15) / 2)
        assert a.upper.value - a.lower.value <= shift + rounds * 1e-8


def test_clones_pair_bracket_contains_the_exact_two_fold_value():
    pair = clones.fmt_clones(n=25, epsilon0=1.0)
    view = clones.view_pair(pair, backend="float")
    lo, hi = epsilon_bracket(view.product(view), 1e-4)
    out = pld.compose_views([(pair, 2)], delta=1e-4, discretization=2e-5)
    assert out.lower.value <= lo.value <= hi.value <= out.upper.value


def test_single_round_clones_pld_agrees_with_the_certified_clones_bracket():
    pair = clones.fmt_clones(n=100_000, epsilon0=3.0)
    b = clones.epsilon_for_delta(pair, delta=1e-5)
    out = pld.compose_views([(pair, 1)], delta=1e-5)
    assert out.lower.value <= b.upper.value and b.lower.value <= out.upper.value
    assert out.relative_gap < 0.01


def _exact_rr_n2_product(epsilon0: float, rounds: int, delta: float) -> mpmath.mpf:
    """eps(delta) of the `rounds`-fold product of binary RR with n = 2, ones = 1 (the count
    of ones among the two reports), both orders, exact in 40-digit mpmath (written here,
    independent of the library): P = Bern(p) * Bern(1-p), Q = Bern(p) * Bern(p)."""
    with mpmath.workdps(40):
        p = mpmath.exp(epsilon0) / (1 + mpmath.exp(epsilon0))
        P = [p * (1 - p), p * p + (1 - p) ** 2, p * (1 - p)]
        Q = [(1 - p) ** 2, 2 * p * (1 - p), p * p]
        best = mpmath.mpf(0)
        for A, B in ((P, Q), (Q, P)):
            atoms = []
            for k0 in range(rounds + 1):
                for k1 in range(rounds + 1 - k0):
                    k2 = rounds - k0 - k1
                    c = mpmath.factorial(rounds) / (mpmath.factorial(k0) * mpmath.factorial(k1)
                                                    * mpmath.factorial(k2))
                    pa = c * A[0] ** k0 * A[1] ** k1 * A[2] ** k2
                    pb = c * B[0] ** k0 * B[1] ** k1 * B[2] ** k2
                    atoms.append((mpmath.log(pa / pb), pa, pb))
            atoms.sort(key=lambda t: -t[0])
            a = b = mpmath.mpf(0)
            for loss, pa, pb in atoms:
                if loss <= 0:
                    break
                a, b = a + pa, b + pb
                if a > delta:
                    best = max(best, mpmath.log((a - delta) / b))
        return best


def test_issue16_tiny_delta_lower_is_below_the_truth():
    # issue 16: the dp_accounting-based lower was 11.6755, truth 11.4680
    eps0, delta = 0.19716692082240156, 1.80024602382834e-15
    truth = _exact_rr_n2_product(eps0, 100, mpmath.mpf(delta))
    assert float(truth) == pytest.approx(11.4680, abs=1e-4)
    view = binary_rr.view_pair(n=2, epsilon0=eps0, ones=1)
    out = pld.compose_views([(view, 100)], delta=delta, discretization=1e-4)
    assert out.lower.value <= truth <= out.upper.value
    assert out.upper.value - out.lower.value <= 0.011


def test_dense_clones_pair_at_n_1e6_is_formed_from_a_window():
    pmf = pld.from_clone_pair(clones.fmt_clones(n=10**6, epsilon0=3.0), 1e-4, True, 1e-12)
    assert pmf.mass.size < 20_000
    total = float(np.sum(pmf.mass)) + pmf.infinity
    assert 1.0 <= total <= 1.0 + 1e-9   # masses raised, the window's outside on +inf
    assert pmf.infinity <= 1e-12
    opt = pld.from_clone_pair(clones.fmt_clones(n=10**5, epsilon0=3.0), 1e-4, False, 1e-12)
    assert 1.0 - 1e-9 <= float(np.sum(opt.mass)) <= 1.0
    assert math.isclose(pmf.width, 1e-4)


def _exact_cyclic_power(mass: np.ndarray, rounds: int, length: int, lo: int) -> np.ndarray:
    """The T-fold self-convolution in 80-bit long double (relative error about T n 1e-19,
    far below double round-off), folded modulo the FFT length and rotated to `lo`: what
    the power route computes with no round-off at all."""
    one = mass.astype(np.longdouble)
    out = np.array([1.0], dtype=np.longdouble)
    base, k = one, rounds
    while True:
        if k & 1:
            out = np.convolve(out, base)
        k >>= 1
        if not k:
            break
        base = np.convolve(base, base)
    folded = np.zeros(length, dtype=np.longdouble)
    np.add.at(folded, np.arange(out.size) % length, out)
    return np.roll(folded, -(lo % length))


def _shaped(shape: str, total: float) -> np.ndarray:
    """40 cells whose spectra decay (bell, ramp), stay near 1 everywhere (a spike of 0.9:
    |y_k| >= 0.8) or at two frequencies (period 2), scaled to `total`."""
    cells = np.arange(40, dtype=float)
    mass = {"bell": np.exp(-(cells - 12) ** 2 / 30),
            "spike": np.where(cells == 5, 0.9, 0.1 / 39),
            "period": np.where(cells % 2 == 0, 1.0, 1e-3),
            "ramp": cells + 1.0}[shape]
    return mass / mass.sum() * total


@pytest.mark.parametrize("shape, rounds", [("bell", 8), ("bell", 300), ("spike", 200),
                                           ("period", 50), ("ramp", 120)])
def test_power_route_round_off_stays_inside_its_componentwise_bound(shape, rounds):
    # the power route's l1 round-off bound (componentwise forward error weighted by
    # r_k^(T-1), the squaring chain, the inverse's own bound) against the exact cyclic
    # power: shapes whose spectra decay (bell, ramp), stay near 1 everywhere (a spike of
    # 0.9: |y_k| >= 0.8) or at two frequencies (period 2)
    mass = _shaped(shape, 0.999)
    out, lo, bound = pld.self_composition._power(mass, rounds, 1e-12)
    exact = _exact_cyclic_power(mass, rounds, out.size, lo)
    error = float(np.sum(np.abs(out.astype(np.longdouble) - exact)))
    assert error <= bound
    # and the bound is not vacuous: far below the total mass
    assert bound < 1e-9


def test_power_route_bound_is_far_below_the_normwise_one_at_many_rounds():
    # a spread-out measure at T = 1e4: most coefficients' r_k^(T-1) vanish, so the bound
    # is below the normwise T e_L sqrt(L) |t|_2 by about |t^T|_2 / |t|_2 (4.3x here; the
    # reason a delta of 1e-10 can be read through one FFT of the tilted measure instead
    # of 2 log2(T) squarings)
    cells = np.arange(400, dtype=float)
    mass = np.exp(-(cells - 200) ** 2 / 2e4)
    mass /= mass.sum()
    out, lo, bound = pld.self_composition._power(mass, 10_000, 1e-15)
    e_l = pld.convolution.fft_relative(out.size)
    normwise = 10_000 * e_l * math.sqrt(out.size) * math.sqrt(float(np.sum(mass ** 2)))
    assert bound < normwise / 3


@pytest.mark.parametrize("shape, rounds", [("bell", 8), ("bell", 10**4), ("spike", 10**6),
                                           ("ramp", 10**9), ("period", 10**9)])
def test_power_route_skips_only_what_its_bound_would_refuse(shape, rounds):
    # the route gives up before any FFT when the zero-frequency term of its round-off bound
    # alone exceeds the limit (1e9 rounds tried two FFTs of 2^23 for a bound of 1e-4
    # against a budget of 2e-8): at the bound it computes, it still answers; a thousandth
    # of the zero-frequency term's share refuses at many rounds
    mass = _shaped(shape, 1 - 1e-12)
    power = pld.self_composition._power
    full = power(mass, rounds, 1e-12)
    assert full is not None
    bound = full[2]
    kept = power(mass, rounds, 1e-12, limit=bound)
    assert kept is not None and kept[2] == bound
    e_c = 2 * pld.convolution.fft_relative(full[0].size) * float(np.sum(mass))
    term = 1.05 * rounds * e_c * math.sqrt(2.0)
    assert bound >= 0.99 * term
    assert power(mass, rounds, 1e-12, limit=1e-3 * term) is None
