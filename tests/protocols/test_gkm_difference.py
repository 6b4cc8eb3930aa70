"""GKM's two-atom lower end, the sign of one real pair's analyzer output
(`gkm.difference.difference_view`): its masses against the output's law enumerated here
(K + N+ - N-, summed over a window), its divergences below the full view's (a
post-processing of it), and the lower ends it gives where the view is beyond its budget."""

import math

import numpy as np
import pytest

from accountant.composition.accountant import Accountant
from accountant.divergence import delta_for_epsilon
from accountant.protocols import gkm
from accountant.protocols.gkm import GKMCount, counts
from accountant.protocols.gkm.difference import difference_view


def _params(n, ep, q, s, lam):
    if q == 0.0:
        return gkm.gkmp20.gkmp20_parameters(n=n, epsilon_prime=ep, lam=lam)
    return gkm.gkm_parameters(n=n, epsilon=ep + 1.0, epsilon_prime=ep, q=q, s=s, lam=lam,
                              strict=False)


@pytest.mark.parametrize("ep,q", [(0.5, 0.2), (1.0, 0.5), (0.05, 0.9), (3.0, 0.0), (0.995, 9e-4)])
def test_the_sign_masses_are_the_output_laws(ep, q):
    # N+, N- ~ Geo(1 - r) on {0, 1, ...}, independent: the law of K + N+ - N- by direct sums
    r = math.exp(-ep)
    top = int(60 / ep) + 60
    geo = (1 - r) * r ** np.arange(top)
    lap = np.convolve(geo, geo[::-1])          # index i: N+ - N- = i - (top - 1)
    k = np.arange(lap.size) - (top - 1)
    q_law = lap
    p_law = (1 - q) * np.interp(k - 1, k, lap, left=0.0, right=0.0) + q * lap
    view = difference_view(_params(4, ep, q, 2, 5.0))
    got_p, got_q = np.exp(view.p), np.exp(view.q)
    want_p = [p_law[k >= 1].sum(), p_law[k <= 0].sum()]
    want_q = [q_law[k >= 1].sum(), q_law[k <= 0].sum()]
    np.testing.assert_allclose(got_p, want_p, rtol=1e-12)
    np.testing.assert_allclose(got_q, want_q, rtol=1e-12)
    np.testing.assert_allclose(view.float_loss, np.log(got_p) - np.log(got_q), rtol=1e-12)


@pytest.mark.parametrize("n,ep,q,s,lam", [(2, 0.5, 0.2, 3, 8.0), (4, 1.0, 0.5, 2, 4.0),
                                          (5, 0.3, 0.9, 1, 1.0), (3, 1.5, 0.0, 0, 2.0)])
def test_the_sign_is_a_post_processing_of_the_view(n, ep, q, s, lam):
    # data processing: each order's delta(eps) of the sign is at most the ones = 0 view's
    p = _params(n, ep, q, s, lam)
    sign = difference_view(p)
    full = counts.ray_view(p, ones=0)
    for pair_s, pair_f in ((sign, full), (sign.swapped(), full.swapped())):
        for eps in (0.0, 0.1, 0.4, 1.0):
            small = delta_for_epsilon(pair_s, eps).value
            assert small <= delta_for_epsilon(pair_f, eps).value * (1 + 1e-9) + 1e-15


def test_theorem6_at_n_100_has_both_ends():
    # the ones = 0 view is beyond LOWER_VIEW_WORK there: the sign gives the lower end, close
    # to the one-user pair's upper end, one round and 1e4 rounds
    mech = GKMCount(gkm.theorem6_parameters(n=100, epsilon=1.0, rho=0.5))
    assert counts.view_work(mech.parameters, 0) > counts.LOWER_VIEW_WORK
    one = mech.epsilon_for_delta(1e-6)
    assert 0.99 < one.lower.value <= one.upper.value < 1.0
    assert "analyzer's output's sign" in one.lower.method
    many = Accountant().compose(mech, 10_000).get_epsilon(1e-6)
    assert 0.99 * many.upper.value < many.lower.value <= many.upper.value
