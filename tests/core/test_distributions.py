"""Distributions: masses sum to one, certified windows really hold all but `tail`, and the
three backends agree."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.stats import binom

from accountant import (
    PMF,
    binomial,
    convolve,
    geometric,
    mixture,
    negative_binomial,
    poisson,
    poisson_binomial,
    product,
    shift,
)
from accountant.numeric.mp import to_mpf


@pytest.mark.parametrize(("n", "p", "tail"), [(200, 0.3, 1e-12), (5000, 0.01, 1e-30),
                                               (10**6, 0.27, 1e-40), (40, 0.5, 1e-3)])
def test_binomial_window_tail_is_certified(n, p, tail):
    win = binomial(n, p, tail=tail)
    assert win.tail <= tail
    lo, hi = win.offset[0], win.offset[0] + win.shape[0] - 1
    # the mass outside the window, from scipy's incomplete-beta CDF (independent of the
    # Chernoff certificate being tested)
    outside = (binom.cdf(lo - 1, n, p) if lo > 0 else 0.0) + (binom.sf(hi, n, p) if hi < n
                                                              else 0.0)
    assert outside <= win.tail
    assert win.tail <= tail


@pytest.mark.parametrize(("law", "kwargs"), [
    (poisson, {"mu": 37.5}), (negative_binomial, {"r": 0.3, "p": 0.2}),
    (geometric, {"p": 0.05})])
def test_window_mass_plus_tail_covers_one(law, kwargs):
    pmf = law(**kwargs, tail=1e-20)
    m = pmf.mass()
    assert 1 - 1e-12 <= m + pmf.tail
    assert m <= 1 + 1e-12
    mp = law(**kwargs, tail=1e-20, backend="mp")
    with mpmath.workdps(50):
        assert abs(mp.mass() + mp.tail - 1) <= 1e-20 + mpmath.mpf(10) ** -40


def test_exact_geometric_tail_is_exact():
    g = geometric(Fraction(1, 3), tail=1e-6, backend="exact")
    assert g.mass() + g.tail == 1


def test_exact_binomial_sums_to_one():
    assert binomial(17, Fraction(2, 7), backend="exact").mass() == 1


def test_convolution_of_binomials_is_binomial_in_all_backends():
    a, b = binomial(30, Fraction(1, 4), backend="exact"), binomial(20, Fraction(1, 4),
                                                                    backend="exact")
    assert list(convolve(a, b).values) == list(binomial(50, Fraction(1, 4),
                                                        backend="exact").values)
    fa, fb = binomial(300, 0.25), binomial(200, 0.25)
    np.testing.assert_allclose(convolve(fa, fb).values, binomial(500, 0.25).values,
                               rtol=1e-11, atol=1e-11)


def test_poisson_binomial_matches_hand_values():
    # Bern(1/2) * Bern(1/3): P(0) = 1/2*2/3 = 1/3, P(1) = 1/2*2/3 + 1/2*1/3 = 1/2, P(2) = 1/6
    pb = poisson_binomial([Fraction(1, 2), Fraction(1, 3)], backend="exact")
    assert list(pb.values) == [Fraction(1, 3), Fraction(1, 2), Fraction(1, 6)]


def test_mixture_and_shift():
    # 1/4 * Bern(1) + 3/4 * (1 + Bern(0)) = point mass at 1
    a = binomial(1, Fraction(1), backend="exact")
    b = shift(binomial(1, Fraction(0), backend="exact"), 1)
    m = mixture([(Fraction(1, 4), a), (Fraction(3, 4), b)])
    assert m.offset == (0,) and list(m.values) == [0, 1, 0]


def test_product_is_the_outer_product():
    a = binomial(2, Fraction(1, 2), backend="exact")
    pr = product(a, a)
    assert pr.shape == (3, 3) and pr.values[1, 2] == Fraction(1, 2) * Fraction(1, 4)


def test_mp_backend_keeps_its_precision():
    b = binomial(10, Fraction(1, 3), backend="mp", dps=50)
    with mpmath.workdps(50):
        assert abs(b.values[3] - to_mpf(Fraction(120 * 2**7, 3**10))) < mpmath.mpf(10) ** -45


def test_from_values_validates_and_keeps_offset():
    pmf = PMF.from_values([0.25, 0.75], offset=3)
    assert pmf.support().tolist() == [3, 4]
