"""Values far below float range (delta ~ 1e-400) stay visible: carried in log space and
reported as mpf, never as 0, and they agree with the mp backend."""

import math

import mpmath
import pytest

from accountant import delta_for_epsilon, epsilon_for_delta
from accountant.numeric.mp import to_mpf
from accountant.pairs import binomial_shift_pair


@pytest.fixture(scope="module")
def views():
    # Bin(1400, 1/2) vs 1 + Bin: the losses log((n-k+1)/k) exceed eps = 4.5 only for
    # k <= 15, where B(k) ~ C(1400, k) 2^-1400 ~ 1e-390: delta(4.5) is about 1e-390.
    return binomial_shift_pair(1400, 0.5), binomial_shift_pair(1400, 0.5, backend="mp")


def test_delta_below_float_range_is_reported_not_zero(views):
    f, m = views
    got = delta_for_epsilon(f, 4.5)
    ref = delta_for_epsilon(m, 4.5)
    assert isinstance(got.value, mpmath.mpf)
    assert 0 < to_mpf(ref.value) < mpmath.mpf(10) ** -300
    assert to_mpf(got.value) >= to_mpf(ref.value)
    assert to_mpf(got.value) <= to_mpf(ref.value) * (1 + 1e-9)
    assert float(got) > 0 or got.to_json()["log10_value"] < -300


def test_epsilon_at_delta_1e_minus_400_matches_mp(views):
    f, m = views
    with mpmath.workdps(50):
        delta = mpmath.mpf(10) ** -400
        ref = epsilon_for_delta(m, delta)
    got = epsilon_for_delta(f, delta)  # an mpf argument below float range
    assert math.isfinite(float(got))
    assert float(ref.value) <= float(got) <= float(ref.value) * (1 + 1e-9)
    ref300 = epsilon_for_delta(m, 1e-300)
    assert float(ref.value) > float(ref300.value)  # smaller delta needs a larger epsilon
