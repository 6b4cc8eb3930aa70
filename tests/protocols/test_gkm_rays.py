"""GKM views on their rays (`gkm.rays`) and the one-user dominating pair (`gkm.counts`).

The ray view is a sufficient statistic of the 2-D view: every divergence must equal the
2-D view's (docs/gkm.md#the-view-on-its-rays). The one-user pair must dominate every count's
pair at every n, and equal them for GKMP20 (docs/gkm.md#a-dominating-pair): both checked
exhaustively over the counts at small n, on draws over the parameters' domain.
"""

import math
import random

import numpy as np
import pytest

from accountant.composition.accountant import Accountant
from accountant.divergence import (
    delta_for_epsilon,
    epsilon_bracket,
    epsilon_for_delta,
    renyi_divergence,
)
from accountant.errors import ParameterError
from accountant.protocols import gkm
from accountant.protocols.gkm import GKMCount, GKMP20Count, counts
from accountant.protocols.gkm import view as gkm_view
from accountant.protocols.gkm.rays import ray_view_pair
from accountant.result import Scope


def _draws(seed, k):
    """(n, ones, epsilon', q, s, lam) over the views' domain: q = 0 (GKMP20) and s = 0
    included, ones at both ends."""
    rng = random.Random(seed)
    # (3, 2, 0.05, 0, 0, 100): GKMP20's support mismatch sits among the faint atoms; a first
    # trimming dropped it and reported finite Renyi and max-divergences where they are +inf
    out = [(1, 0, 0.5, 0.2, 5, 37.27), (4, 3, 1.0, 0.0, 0, 10.0), (3, 0, 2.0, 0.9, 1, 0.5),
           (6, 5, 0.1, 0.5, 0, 3.0), (3, 2, 0.05, 0.0, 0, 100.0), (3, 1, 1.0, 0.99, 3, 50.0)]
    for _ in range(k):
        n = rng.randint(1, 8)
        q = rng.choice((0.0, rng.uniform(0.01, 0.9)))
        s = 0 if q == 0.0 else rng.randint(0, 4)
        out.append((n, rng.randint(0, n - 1), math.exp(rng.uniform(math.log(0.1), math.log(2))),
                    q, s, math.exp(rng.uniform(math.log(0.5), math.log(20)))))
    return out


def _values(view):
    pure = gkm_view.pure_epsilon(view).value
    return ([float(epsilon_for_delta(view, d)) for d in (1e-3, 1e-8)]
            + [float(delta_for_epsilon(view, epsilon=e)) for e in (0.1, 1.0)]
            + [float(renyi_divergence(view, a)) for a in (2.0, 9.5)] + [pure])


@pytest.mark.parametrize("n,ones,ep,q,s,lam", _draws(7, 12))
def test_the_ray_view_has_the_2d_views_divergences(n, ones, ep, q, s, lam):
    kw = dict(n=n, ones=ones, epsilon_prime=ep, q=q, s=s, lam=lam)
    box, rays = gkm_view.view_pair(**kw), ray_view_pair(**kw)
    assert rays.size < box.size
    for a, b in zip(_values(box), _values(rays), strict=True):
        if math.isinf(a) or math.isinf(b):
            assert a == b
        else:  # both certified; they differ by their error models and tails (1e-20 each)
            assert b == pytest.approx(a, rel=1e-6, abs=1e-18)
    # and the certified brackets overlap (the box's is the wider: its error model and tail)
    (box_low, box_up), (ray_low, ray_up) = (epsilon_bracket(v, 1e-3) for v in (box, rays))
    assert ray_low.value <= box_up.value and box_low.value <= ray_up.value


@pytest.mark.parametrize("n,ones,ep,q,s,lam", _draws(8, 6))
def test_the_ray_atoms_hold_each_law_up_to_its_tail(n, ones, ep, q, s, lam):
    v = ray_view_pair(n=n, ones=ones, epsilon_prime=ep, q=q, s=s, lam=lam)
    for logs, tail in ((v.p, v.tail_p), (v.q, v.tail_q)):
        total = float(np.exp(np.logaddexp.reduce(logs)))
        assert 1 - tail - 1e-12 <= total <= 1 + 1e-12


def test_faint_atoms_keep_their_loss_in_the_residual_bound():
    kw = dict(n=5, ones=2, epsilon_prime=0.7, q=0.3, s=2, lam=6.0)
    trimmed = ray_view_pair(**kw)
    whole = ray_view_pair(**kw, tail=1e-300)  # nothing faint enough to trim
    assert trimmed.size < whole.size
    # the largest loss sits far out, among the faint atoms (1.4e-9 above the kept ones'):
    # the trimmed view's certified value still covers it
    assert float(np.max(trimmed.float_loss)) < float(np.max(whole.float_loss)) - 1e-10
    sup = float(np.max(whole.float_loss)) - float(whole.loss_error)
    assert gkm_view.pure_epsilon(trimmed).value >= sup
    assert trimmed.residual_loss_bound >= sup


def _params(n, ep, q, s, lam):
    if q == 0.0:
        return gkm.gkmp20.gkmp20_parameters(n=n, epsilon_prime=ep, lam=lam)
    return gkm.gkm_parameters(n=n, epsilon=ep + 1.0, epsilon_prime=ep, q=q, s=s, lam=lam,
                              strict=False)


@pytest.mark.parametrize("n,ep,q,s,lam", [(2, 0.5, 0.2, 3, 8.0), (4, 1.0, 0.5, 2, 4.0),
                                          (5, 0.3, 0.9, 1, 1.0), (3, 1.5, 0.1, 4, 20.0)])
def test_the_one_user_pair_dominates_every_count(n, ep, q, s, lam):
    p = _params(n, ep, q, s, lam)
    one = counts.dominating_view(p)
    top = _values(one)
    for k in range(n):
        for mine, theirs in zip(top, _values(gkm.view_pair(p, ones=k)), strict=True):
            assert mine >= theirs - 1e-9 * max(1.0, abs(theirs))


@pytest.mark.parametrize("n,ep,lam", [(2, 0.5, 8.0), (5, 1.0, 4.0), (7, 0.3, 30.0)])
def test_gkmp20_counts_are_the_one_user_pair_shifted(n, ep, lam):
    p = _params(n, ep, 0.0, 0, lam)
    one = _values(counts.dominating_view(p))
    for k in range(n):
        for mine, theirs in zip(one, _values(gkm.view_pair(p, ones=k)), strict=True):
            assert mine == pytest.approx(theirs, rel=1e-7, abs=1e-18)
    # so the mechanism's worst case is the one-user pair's value, and says why
    bracket = GKMP20Count(p).epsilon_for_delta(1e-3)
    assert "shifted" in bracket.upper.method
    assert float(bracket) == pytest.approx(one[0], rel=1e-12)


def test_shared_recurrence_gives_each_counts_own_view():
    p = _params(6, 0.8, 0.3, 2, 5.0)
    for view, k in counts._ray_views(p, range(p.n)):
        alone = ray_view_pair(n=p.n, ones=k, epsilon_prime=p.epsilon_prime, q=p.q, s=p.s,
                              lam=p.lam)
        assert np.array_equal(view.p, alone.p) and np.array_equal(view.loss, alone.loss)


def test_worst_case_within_budget_is_the_max_over_counts_and_beyond_it_an_upper_end(
        monkeypatch):
    p = _params(6, 0.8, 0.3, 2, 5.0)
    per_count = [float(epsilon_for_delta(gkm.view_pair(p, ones=k), 1e-6)) for k in range(p.n)]
    up, low = counts.epsilon_for_delta_worst(p, delta=1e-6, lower=True)
    assert up.value == pytest.approx(max(per_count), rel=1e-7)
    assert "worst case over the count" in up.method
    assert low.value <= up.value
    monkeypatch.setattr(counts, "HOCKEY_ATOMS", 0.0)
    far_up, far_low = counts.epsilon_for_delta_worst(p, delta=1e-6, lower=True)
    assert "one-user pair" in far_up.method
    assert far_up.value >= up.value - 1e-12  # the dominating pair's value bounds the max
    assert far_low.value == epsilon_bracket(counts.ray_view(p, ones=0), 1e-6)[0].value
    assert far_low.value <= up.value


def test_mechanism_brackets_and_composition():
    p = _params(5, 0.5, 0.2, 3, 8.0)
    m = GKMCount(p)
    orders = [2.0, 8.0, math.inf]
    brackets = m.renyi(orders)
    for b, u in zip(brackets, m.renyi_upper(orders), strict=True):
        assert b.lower.value <= b.upper.value and u.value == b.upper.value
        assert u.scope is b.upper.scope is Scope.MECHANISM
    with pytest.raises(ParameterError):
        m.renyi_upper([0.5])
    pair = m.dominating_pair()
    assert pair is not None and pair.proof == "docs/gkm.md#a-dominating-pair"
    # twenty rounds: the certified upper end bounds every count's own composition
    acc = Accountant().compose(m, 20).get_epsilon(1e-5)
    assert acc.lower.value <= acc.upper.value < math.inf
    for k in range(p.n):
        own = Accountant().compose(counts.ray_view(p, ones=k), 20).get_epsilon(1e-5)
        assert own.lower.value <= acc.upper.value + 1e-9


@pytest.mark.parametrize("tail", [1e-20, 1e-6, 1e-3])
def test_support_mismatch_atoms_stay_on_the_grid_however_faint(tail):
    # GKMP20: V+ = ones is reachable without user 1's +1 only; those atoms are faint at
    # lam = 100 and must not join the residual as if their loss were finite
    v = ray_view_pair(n=3, ones=2, epsilon_prime=0.05, q=0.0, s=0, lam=100.0, tail=tail)
    assert np.any(np.isneginf(v.float_loss) & np.isfinite(v.q))
    assert float(renyi_divergence(v, 2.0)) == math.inf


def test_gkmp20_audit_reads_the_one_user_pair_at_any_n():
    # the claim "not epsilon-DP for any epsilon" holds on a certified +inf; at n = 1000 the
    # audit used to refuse (1000 views of a 2234-wide box)
    for n in (3, 1000):
        p = gkm.gkmp20.gkmp20_parameters(n=n, epsilon_prime=1.0, lam=10.0)
        out = gkm.gkmp20.audit_not_pure(p)
        assert out["verdict"] == "holds"
    # one count's audit agrees with its 2-D view's lower end
    p = gkm.gkmp20.gkmp20_parameters(n=3, epsilon_prime=1.0, lam=10.0)
    assert gkm_view.pure_epsilon_lower(gkm.view_pair(p, ones=1)).value == math.inf
    assert gkm.gkmp20.audit_not_pure(p, ones=1)["verdict"] == "holds"
