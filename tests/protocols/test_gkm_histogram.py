"""Corollary 4's histogram error (accountant.protocols.gkm.histogram) against a brute-force
double sum over both buckets' errors, and its behaviour in n and B."""

import math

import numpy as np
import pytest
from scipy import stats

from accountant.errors import ParameterError
from accountant.protocols import gkm
from accountant.protocols.gkm import histogram


def _brute(counts, epsilon):
    """E max(|Z1 - D1|, |Z2 - D2|) by summing the joint PMF over |z| <= 300."""
    p = gkm.theorem6_parameters(n=sum(counts), epsilon=epsilon / 2, rho=0.5,
                                corrected_q=True)
    r = math.exp(-p.epsilon_prime)
    z = np.arange(-300, 301)
    zpmf = (1 - r) / (1 + r) * r ** np.abs(z)
    laws = []
    for c in counts:
        d = np.arange(c + 1)
        w = stats.binom.pmf(d, c, p.q)
        e = np.zeros(z.size + c)  # error values z - d from -300 - c .. 300
        for di, wi in zip(d, w, strict=True):
            e[c - di: c - di + z.size] += wi * zpmf
        laws.append((np.arange(-300 - c, 301), e))
    (v1, p1), (v2, p2) = laws
    return float(np.sum(np.outer(p1, p2) * np.maximum.outer(np.abs(v1), np.abs(v2))))


@pytest.mark.parametrize("counts", [(3, 0), (2, 2), (7, 1)])
def test_matches_the_brute_force_double_sum(counts):
    lo, hi = histogram.expected_linf_error(counts=counts, epsilon=1.0)
    assert lo <= hi < lo + 1e-9
    assert _brute(counts, 1.0) == pytest.approx(lo, rel=1e-9)


def test_error_grows_with_b_and_not_with_n():
    by_b = [histogram.expected_linf_error(counts=(100,) + (0,) * (b - 1), epsilon=1.0)[1]
            for b in (2, 16, 256)]
    assert by_b[0] < by_b[1] < by_b[2]
    by_n = [histogram.expected_linf_error(counts=(n, 0, 0, 0), epsilon=1.0)[1]
            for n in (10**2, 10**6)]
    assert by_n[1] == pytest.approx(by_n[0], rel=1e-3)


def test_messages_add_up_over_buckets():
    p = gkm.theorem6_parameters(n=1000, epsilon=0.5, rho=0.5, corrected_q=True)
    assert histogram.messages_per_user(n=1000, B=4, epsilon=1.0) == pytest.approx(
        gkm.expected_messages(p, x=1) + 3 * gkm.expected_messages(p, x=0), rel=1e-15)


@pytest.mark.parametrize("counts", [(), (1,), (3, -1)])
def test_bad_counts(counts):
    with pytest.raises(ParameterError, match="counts="):
        histogram.expected_linf_error(counts=counts, epsilon=1.0)
