"""The composition counts' declared domain: a count is multiplied into floats (T mu^2, T
times an RDP curve), so it has a maximum; 10**400 raised a bare OverflowError."""

from __future__ import annotations

import pytest

from accountant.composition import Accountant, GaussianNoise
from accountant.errors import ParameterError


@pytest.mark.parametrize("count", [10**400, 10**12 + 1, 0, -1])
def test_count_outside_the_domain_is_a_parameter_error(count):
    with pytest.raises(ParameterError, match=r"rounds=.* is outside integers in \[1, 1e12\]"):
        Accountant().compose(GaussianNoise(1.0), count)


def test_count_at_the_maximum_is_accepted():
    b = Accountant().compose(GaussianNoise(1.0), 10**12).get_epsilon(1e-6, method="analytic")
    assert float(b.upper) > 1e3  # 1e12 Gaussian rounds of sigma 1: no privacy left
