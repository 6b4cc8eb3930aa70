"""GKM counting with a Bernoulli flood (Sec. 5): the ray computation against a brute-force
triple sum of the exact view, and the instances the audit reports."""

import math

import numpy as np
import pytest
from scipy import stats

from accountant.errors import ParameterError
from accountant.protocols.gkm import bernoulli_flood as bf
from accountant.result import Kind


def _brute_view(n, m1, epsilon_prime, q, s, flood, size):
    """P(V+ = a, V- = b) on [0, size)^2 by the defining triple sum (no rays, no min)."""
    r = math.exp(-epsilon_prime)
    geo = np.array([(1 - r) * r ** k for k in range(size)])
    out = np.zeros((size, size))
    for k1 in range(m1 + 1):
        for k0 in range(n - m1 + 1):
            w = stats.binom.pmf(k1, m1, 1 - q) * stats.binom.pmf(k0, n - m1, 1 - q)
            t = k1 + k0
            for f in range(n + 1):
                pf = stats.binom.pmf(f, n, flood)
                a0, b0 = s * t + k1 + f, s * t + f
                if a0 >= size or b0 >= size:
                    continue
                out[a0:, b0:] += w * pf * np.outer(geo[:size - a0], geo[:size - b0])
    return out


@pytest.mark.parametrize("ones", [0, 1])
def test_rays_match_the_brute_force_view(ones):
    n, eps_p, q, s, b = 3, 0.7, 0.2, 2, 0.6
    size = 40  # loss constant once min(a, b) >= n + (s+1) n + 2 = 14
    p = _brute_view(n, ones + 1, eps_p, q, s, b, size)
    qv = _brute_view(n, ones, eps_p, q, s, b, size)
    loss = np.log(p) - np.log(qv)
    pq, qp = bf.max_divergence(n=n, ones=ones, epsilon_prime=eps_p, q=q, s=s, flood=b)
    assert pq.kind is Kind.UPPER
    assert float(np.max(loss)) == pytest.approx(pq.value - bf.FLOAT_MARGIN, abs=1e-8)
    assert float(np.max(-loss)) == pytest.approx(qp.value - bf.FLOAT_MARGIN, abs=1e-8)


def test_a_bernoulli_flood_gives_pure_dp_with_enough_users_but_not_with_ten():
    assert bf.worst_case(n=20, epsilon_prime=0.5, q=0.1, s=8, flood=0.5) < 1.0
    assert all(bf.worst_case(n=10, epsilon_prime=0.5, q=0.1, s=8, flood=b) > 1.0
               for b in (0.1, 0.3, 0.5, 0.7, 0.9, 1.0))


def test_the_order_x1_one_against_zero_is_below_epsilon_prime():
    # the noise coordinate alone bounds it (proof of Lemma 8), whatever the flood
    pq, _ = bf.max_divergence(n=10, ones=3, epsilon_prime=0.5, q=0.1, s=8, flood=0.2)
    assert pq.value <= 0.5 + bf.FLOAT_MARGIN


def test_without_drops_the_supports_differ():
    # q = 0: every user sends its s + x copies, so V+ - V- >= ones + 1 - N- under x1 = 1:
    # (V+, V-) = (s n, s n + 5) has mass under x1 = 0 (ones = 0) and none under x1 = 1
    pq, qp = bf.max_divergence(n=3, ones=0, epsilon_prime=0.5, q=0.0, s=2, flood=0.5)
    assert qp.value == math.inf and qp.kind is Kind.EXACT and pq.value < math.inf


@pytest.mark.parametrize("kwargs", [dict(flood=0.0), dict(flood=1.5), dict(ones=10),
                                    dict(q=1.5), dict(s=0)])
def test_bad_input(kwargs):
    args = dict(n=10, ones=0, epsilon_prime=0.5, q=0.1, s=8, flood=0.5) | kwargs
    with pytest.raises(ParameterError):
        bf.max_divergence(**args)
