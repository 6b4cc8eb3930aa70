"""The direct convolution of measures that are not both dense connect-the-dots ones
(`pld.convolve`): numpy's C convolution when size(a) x size(b) <= 3e7 (it replaced a Python
loop over nonzeros, issue 21), against the exact convolution in rationals."""

from fractions import Fraction

import numpy as np
import pytest

from accountant.composition import pld


def _pmf(mass, pessimistic=False):
    return pld.LossPmf(1e-3, -7, np.asarray(mass, dtype=float), 0.0, 0.0, pessimistic,
                       spread=0.0 if not pessimistic else np.inf)


@pytest.mark.parametrize("seed", range(4))
def test_numpy_path_is_within_its_relative_ledger_of_the_exact_convolution(seed):
    """Random masses over 12 orders of magnitude, with zeros, sizes 300 and 170: every
    output within `relative` of the exact value (a relative error: tiny entries too)."""
    rng = np.random.default_rng(seed)
    a = 10.0 ** rng.uniform(-12, 0, 300) * (rng.random(300) < 0.8)
    b = 10.0 ** rng.uniform(-12, 0, 170) * (rng.random(170) < 0.8)
    out = pld.convolve(_pmf(a), _pmf(b))
    assert out.mass.size == a.size + b.size - 1 and out.offset == -14
    fa, fb = [Fraction(x) for x in a], [Fraction(x) for x in b]
    exact = [Fraction(0)] * out.mass.size
    for i, x in enumerate(fa):
        if x:
            for j, y in enumerate(fb):
                exact[i + j] += x * y
    for got, want in zip(out.mass, exact, strict=True):
        assert abs(Fraction(got) - want) <= Fraction(out.relative) * want
    assert out.error == 0
