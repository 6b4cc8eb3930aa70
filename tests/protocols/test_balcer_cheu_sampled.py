"""Poisson-sampled Balcer-Cheu rounds (substitute): each round's certified (eps1, delta1)
class, from the protocol at the fewest likely participants with the same p
(docs/conversions.md#sampled-rounds-by-their-participants), checked against the shuffled
view of every dataset, enumerated here from the randomizer (each participant sends its
bit(s) and Bernoulli(p) noise messages), independently of the library."""

import itertools
import math

import numpy as np
import pytest

from accountant.composition import Accountant, Subsampled
from accountant.errors import ParameterError
from accountant.protocols import balcer_cheu as bc


def _zsum_view(bits, q, p):
    """P(total messages = v): each user is absent (1 - q) or sends x + Bern(p) ones."""
    dist = np.array([1.0])
    for x in bits:
        step = np.zeros(3)
        step[0] += 1 - q
        step[x] += q * (1 - p)
        step[x + 1] += q * p
        dist = np.convolve(dist, step)
    return dist


def _hist_view(values, q, p, d):
    """P(count vector): a participant sends one message for its value and, on each of the d
    coordinates, one more with probability p."""
    dist = {(0,) * d: 1.0}
    for x in values:
        new: dict[tuple, float] = {}
        for h, w in dist.items():
            new[h] = new.get(h, 0.0) + (1 - q) * w
            for noise in itertools.product((0, 1), repeat=d):
                g = tuple(h[j] + noise[j] + (j == x) for j in range(d))
                mass = q * w * math.prod(p if b else 1 - p for b in noise)
                new[g] = new.get(g, 0.0) + mass
        dist = new
    return dist


def _delta(a, b, epsilon):
    return max(math.fsum(np.maximum(a - math.exp(epsilon) * b, 0.0)),
               math.fsum(np.maximum(b - math.exp(epsilon) * a, 0.0)))


def _class(mech, q, delta1):
    entry = Accountant().compose(Subsampled(mech, q), 10).ledger[0]
    assert entry.per_round_kov and entry.class_at is not None
    return entry.class_at(delta1)


# (few users: the round's epsilon is finite only where p^k and (1-p)^k, k participants, are
# below its delta: the support-edge atoms)
@pytest.mark.parametrize("n, q, p, delta1", [(8, 0.95, 0.5, 0.2), (10, 0.9, 0.6, 0.3),
                                             (8, 0.9, 0.4, 0.3), (12, 0.8, 0.5, 0.2)])
def test_zsum_sampled_round_is_in_its_class(n, q, p, delta1):
    eps1, d1 = _class(bc.BalcerCheuZsum(bc.zsum_parameters(n=n, p=p)), q, delta1)
    assert d1 <= delta1 and eps1 < math.inf
    for ones in range(n):
        others = [1] * ones + [0] * (n - 1 - ones)
        assert _delta(_zsum_view([1, *others], q, p), _zsum_view([0, *others], q, p),
                      eps1) <= d1, ones


@pytest.mark.parametrize("n, q, p, d, delta1", [(6, 0.95, 0.5, 3, 0.3), (7, 0.95, 0.6, 2, 0.3)])
def test_hist_sampled_round_is_in_its_class(n, q, p, d, delta1):
    eps1, d1 = _class(bc.BalcerCheuHist(bc.hist_parameters(n=n, p=p, d=d)), q, delta1)
    assert d1 <= delta1 and eps1 < math.inf
    for others in itertools.combinations_with_replacement(range(d), n - 1):
        a = _hist_view([0, *others], q, p, d)
        b = _hist_view([1, *others], q, p, d)
        keys = sorted(set(a) | set(b))
        va = np.array([a.get(k, 0.0) for k in keys])
        vb = np.array([b.get(k, 0.0) for k in keys])
        assert _delta(va, vb, eps1) <= d1, others


def test_participants_round_keeps_p_and_drops_the_target():
    params = bc.zsum_parameters(n=10_000, epsilon=1.0, delta=1e-6)
    small = bc.BalcerCheuZsum(params).participants_round(60).parameters
    assert (small.n, small.p, small.epsilon, small.delta) == (60, params.p, None, None)
    with pytest.raises(ParameterError, match="users"):
        bc.BalcerCheuZsum(params).participants_round(0)


def test_sampled_rounds_are_finite_where_a_round_of_the_fewest_is():
    # n = 1e4, p = 0.927: with q = 0.01 the fewest likely participants (47) leave the
    # support edge p^k above any delta1 (an infinite class: the upper end stays inf);
    # with q = 0.5 each round is a member of a finite class, so 100 rounds compose
    mech = bc.BalcerCheuZsum(bc.zsum_parameters(n=10_000, epsilon=1.0, delta=1e-6))
    few = Accountant().compose(Subsampled(mech, 0.01), 100).get_epsilon(1e-5)
    assert few.upper.value == math.inf
    half = Accountant().compose(Subsampled(mech, 0.5), 100).get_epsilon(1e-5)
    assert half.upper.value < math.inf and "[kov]" in half.upper.method
    assert "fewest likely participants" in half.upper.method  # says which class


@pytest.mark.parametrize("relation", ["substitute", "add-remove"])
@pytest.mark.parametrize("n, q, p", [(7, 0.3, 0.8), (12, 0.9, 0.5), (5, 1.0, 0.3)])
def test_the_lower_pair_is_the_all_zeros_datasets_view(n, q, p, relation):
    # the count pair's grid values are the enumerated view of the dataset whose other
    # users hold 0 (the differing user holds 1, or 0 / is absent)
    mech = bc.BalcerCheuZsum(bc.zsum_parameters(n=n, p=p))
    view = mech.subsampled_view_pair(q, relation)
    assert view.grid_exact
    k = view.coords[0]
    a = _zsum_view([1] + [0] * (n - 1), q, p)
    b = _zsum_view(([0] if relation == "substitute" else []) + [0] * (n - 1), q, p)
    b = np.concatenate([b, np.zeros(a.size - b.size)])
    np.testing.assert_allclose(np.exp(view.p), a[k], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(np.exp(view.q), b[k], rtol=1e-12, atol=1e-300)


def test_sampled_brackets_have_a_lower_end():
    # n = 1e4, p = 0.927: [0.341, 14.31] at q = 0.5 (the upper end reveals the participants'
    # number, docs); at q = 1 the count pair is the unsampled pair (1.49415 both)
    mech = bc.BalcerCheuZsum(bc.zsum_parameters(n=10_000, epsilon=1.0, delta=1e-6))
    half = Accountant().compose(Subsampled(mech, 0.5), 100).get_epsilon(1e-5)
    assert 0 < half.lower.value < 1.0 < half.upper.value < math.inf
    full = Accountant().compose(Subsampled(mech, 1.0), 100).get_epsilon(1e-5)
    plain = Accountant().compose(mech, 100).get_epsilon(1e-5)
    assert full.lower.value == pytest.approx(plain.lower.value, rel=1e-9)
    assert half.lower.value < full.lower.value
