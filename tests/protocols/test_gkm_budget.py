"""GKM's work budgets: the ray scans' cost estimate, refusals that name what to do, the
one-user pair where the worst case over counts is beyond them, and the accountant composing
a GKM round whose 2-D views do not fit (no numpy MemoryError, no hours of scanning;
Theorem 6's lam puts the far region in the millions of points)."""

import itertools
import json

import numpy as np
import pytest

from accountant.cli import main
from accountant.composition.accountant import Accountant
from accountant.divergence import epsilon_for_delta
from accountant.errors import ParameterError
from accountant.protocols import gkm
from accountant.protocols.gkm import GKMCount
from accountant.protocols.gkm import view as gkm_view
from accountant.result import Direction

SMALL = gkm.gkm_parameters(n=6, epsilon=2.0, epsilon_prime=1.2, q=0.2, s=3, lam=4.0,
                           strict=False)


def _distinct_offsets(n, ones, q, s):
    """The (law, diagonal, offset) triples `pure_epsilon_rays` visits, counted from the
    laws themselves (the scan's own loop, without the scan)."""
    laws = [gkm_view.mixture_law(m1=m1, m0=m0, epsilon_prime=0.5, q=q, s=s)
            for m1, m0 in ((ones + 1, n - 1 - ones), (ones, n - ones))]
    k_star = max(law.max_k1 for law in laws)
    return sum(np.unique(law.beta + np.maximum(law.alpha - law.beta - d, 0)).size
               for d in range(k_star + 1) for law in laws)


@pytest.mark.parametrize("n,ones,q", [(1, 0, 0.3), (2, 1, 0.3), (7, 0, 0.1), (7, 3, 0.1),
                                      (7, 6, 0.1), (12, 5, 0.01), (9, 4, 0.0), (3, 2, 0.0)])
def test_offset_count_is_exact_when_copies_separate_the_counts(n, ones, q):
    # s > n: s t + e (e <= n) never collides, so the closed form counts exactly
    assert gkm_view.rays_offsets(n=n, ones=ones, q=q) == _distinct_offsets(n, ones, q, n + 1)


def test_offset_count_bounds_colliding_offsets():
    for n, s in itertools.product((3, 5, 8), (1, 2)):
        for ones in range(n):
            est = gkm_view.rays_offsets(n=n, ones=ones, q=0.2)
            true = _distinct_offsets(n, ones, 0.2, s)
            assert est >= true
    # the estimate is strict for some colliding case (s = 1 merges s t + e's)
    assert gkm_view.rays_offsets(n=5, ones=2, q=0.3) > _distinct_offsets(5, 2, 0.3, 1)


def test_both_orders_from_one_scan_per_count_equal_the_one_order_calls():
    both, pq, qp = gkm.pure_epsilon_both(SMALL)
    per_count = [(gkm.max_divergence(SMALL, ones=k, direction="P||Q"),
                  gkm.max_divergence(SMALL, ones=k, direction="Q||P")) for k in range(SMALL.n)]
    assert pq.value == max(a.value for a, _ in per_count)
    assert qp.value == max(b.value for _, b in per_count)
    assert both.value == max(pq.value, qp.value)
    assert both.direction is Direction.MAX
    worst, k = gkm.worst_case_max_divergence(SMALL, direction="Q||P")
    assert worst.value == qp.value == per_count[k][1].value


def test_theorem6_worst_case_falls_back_to_the_one_user_pair():
    p = gkm.theorem6_parameters(n=100, epsilon=1.0, rho=0.5)
    # the worst case over counts is beyond the scans' budget: the one-user pair, which
    # dominates every count (docs/gkm.md#a-dominating-pair), bounds it, and says so
    both, pq, qp = gkm.pure_epsilon_bound(p)
    assert "one-user pair" in both.method and both.value == max(pq.value, qp.value)
    assert both.value <= p.epsilon  # Lemma 8's claim holds for the dominating pair itself
    with pytest.raises(ParameterError, match=r"ones=K.*smaller lam"):
        gkm.pure_epsilon_both(p)  # the exact scans still refuse, naming what to do
    with pytest.raises(ParameterError, match="100 count"):
        gkm.worst_case_max_divergence(p)
    # one count of n = 100 is still beyond the budget (~200 offsets x 7.9e6 points)
    with pytest.raises(ParameterError, match=r"1 count\(s\)") as info:
        gkm.max_divergence(p, ones=0)
    assert "ones=K" not in str(info.value)


def test_the_fallback_bounds_the_exact_worst_case(monkeypatch):
    from accountant.protocols.gkm import protocol

    exact, _, _ = gkm.pure_epsilon_bound(SMALL)
    monkeypatch.setattr(gkm_view, "MAX_RAYS_WORK", 0.0)
    fallback, _, _ = gkm.pure_epsilon_bound(SMALL)
    assert "one-user pair" in fallback.method and "one-user" not in exact.method
    # data processing: the one-user pair's value is at least every count's
    assert fallback.value >= exact.value - 1e-9
    assert protocol.exact_over_counts(SMALL) is False


def test_budget_admits_what_it_estimates_below_the_limit():
    p = gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.5)
    b0, _ = gkm_view.box_size(n=p.n, epsilon_prime=p.epsilon_prime, s=p.s, lam=p.lam,
                              tail=1.0)
    one = b0 * gkm_view.rays_offsets(n=p.n, ones=0, q=p.q)
    assert one <= gkm_view.MAX_RAYS_WORK
    gkm.check_rays_budget(p, range(0, 1))  # no raise
    total = sum(b0 * gkm_view.rays_offsets(n=p.n, ones=k, q=p.q) for k in range(p.n))
    assert total > gkm_view.MAX_RAYS_WORK
    with pytest.raises(ParameterError):
        gkm.check_rays_budget(p, range(p.n))


def test_a_box_beyond_its_side_limit_is_refused_before_allocation():
    p = gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.5)
    with pytest.raises(ParameterError, match=f"> {gkm_view.MAX_BOX_SIDE}"):
        gkm.view_pair(p, ones=0)
    # the lower view is on its rays, which need no box: two rays of the far length
    lower = GKMCount(p).lower_view_pair()
    assert "rays" in lower.description["protocol"]
    assert set(np.unique(lower.coords[0])) == {0, 1}
    # within the box limit it has the exact view's values
    small = GKMCount(SMALL, ones=1)
    assert float(epsilon_for_delta(small.lower_view_pair(), 1e-4)) == pytest.approx(
        float(epsilon_for_delta(gkm.view_pair(SMALL, ones=1), 1e-4)), rel=1e-8)


def test_accountant_composes_a_round_whose_views_do_not_fit():
    # Theorem 6's lam (6.7e5) put the 2-D box in the millions: the round once composed to
    # [?, inf]; the one-user pair on its rays composes by PLD, the ones = 0 rays give a
    # lower end
    p = gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.5)
    r = Accountant().compose(GKMCount(p), 10).report(delta=1e-6)
    low, up = r.bracket.lower.value, r.bracket.upper.value
    assert 0 < low <= up <= 10 * p.epsilon  # 10 rounds of an epsilon-DP protocol
    assert up - low <= 0.01 * up


def test_cli_pure_answers_from_the_one_user_pair(capsys):
    status = main(["pure", "gkm-count", "--n", "100", "--epsilon", "1", "--rho", "0.5",
                   "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert "one-user pair" in out["max_divergence"]["method"]
    assert out["max_divergence"]["value"] <= 1.0


def test_one_count_call_without_a_count_is_refused_by_name():
    with pytest.raises(ParameterError, match="ones=None"):
        gkm.max_divergence(SMALL, ones=None)


def test_view_work_counts_mixture_components_and_refuses_by_name(monkeypatch):
    # n = 100, epsilon' = 0.5, q = 0.1 (Condition 7's s = 8): each view adds one g-block
    # per mixture component (about 3,000 a view), which the point budget alone missed:
    # the worst case ran for over 10 minutes; now refused at once, naming --ones
    from accountant.protocols.gkm import protocol

    params = gkm.gkm_parameters(n=100, epsilon=1.0, epsilon_prime=0.5, q=0.1, s=None,
                                lam=None, strict=True)
    with pytest.raises(ParameterError, match=r"block-points .*--ones K"):
        protocol.check_box_budget(params, None)
    # the estimate is the exact sum where every count is probed (n = 6: 6 counts <= 9)
    exact = sum(protocol._components(SMALL, k) for k in range(SMALL.n))
    _, a = gkm_view.box_size(n=SMALL.n, epsilon_prime=SMALL.epsilon_prime, s=SMALL.s,
                             lam=SMALL.lam)
    monkeypatch.setattr(protocol, "_VIEW_WORK", exact * a * a * (1 - 1e-9))
    with pytest.raises(ParameterError, match="block-points"):
        protocol.check_box_budget(SMALL, None)
    monkeypatch.setattr(protocol, "_VIEW_WORK", exact * a * a * (1 + 1e-9))
    protocol.check_box_budget(SMALL, None)
    # and each law's components are what its view blocks over
    law = gkm_view.mixture_law(m1=3, m0=2, epsilon_prime=SMALL.epsilon_prime, q=SMALL.q,
                               s=SMALL.s)
    assert protocol._components(SMALL, 2) >= law.alpha.size > 1
