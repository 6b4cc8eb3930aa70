"""Bin(0, p) is the point mass at 0: log-PMF 0 there and -inf elsewhere (it raised a
math domain error from log(n) before; binary RR with n = 2 users and one "other" user
holding a 1 builds Bin(0, p) for the remaining users)."""

import math

import numpy as np
import pytest

from accountant.numeric.special import binomial_logpmf


@pytest.mark.parametrize("p", [1e-9, 0.3, 0.5, 1 - 1e-9])
def test_zero_trials_is_a_point_mass_at_zero(p):
    out = binomial_logpmf(np.array([-1.0, 0.0, 1.0, 2.0]), 0, p)
    assert out[1] == 0.0
    assert all(v == -math.inf for v in out[[0, 2, 3]])


def test_one_trial_is_bernoulli():
    out = binomial_logpmf(np.array([0.0, 1.0]), 1, 0.25)
    assert out == pytest.approx([math.log(0.75), math.log(0.25)], rel=1e-15)
