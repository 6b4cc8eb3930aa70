"""The substitute subsampled pair of fewer other users (`SubsampledPair.others_used`): beyond
`_MAX_CLONE_MEAN` expected clone tokens the pair of N' < N others is composed, a dominating
pair by post-processing (the N - N' extra users are absent or clones independently of the
differing user). Checked by brute force on tiny cases with the threshold lowered, by the
exact divergence ordering of the two pairs' measures, and on the accountant's label."""

import itertools

import pytest

import accountant.composition.subsampled as subsampled
from accountant.composition import pld
from accountant.composition.subsampled import SubsampledPair
from accountant.protocols.binary_rr import BinaryRR
from accountant.protocols.ldp import LDP
from tests.composition.test_subsampled_bruteforce import _delta, _round_view


@pytest.mark.parametrize("n, rounds, q", list(itertools.product((4, 6), (1, 2), (0.3, 0.8))))
def test_fewer_others_still_bound_every_dataset_pair(monkeypatch, n, rounds, q):
    epsilon0 = 1.0
    pair = BinaryRR(n=n, epsilon0=epsilon0).dominating_pair().pair
    rate = q * pair.clone_probability
    # keep 2 of the n - 1 others
    monkeypatch.setattr(subsampled, "_MAX_CLONE_MEAN", 2.5 * rate)
    source = SubsampledPair(pair, q, "substitute")
    assert source.others_used == 2 < pair.others
    assert source.description["others_used"] == 2
    for epsilon in (0.1, 0.5, 1.0):
        worst = 0.0
        for ones in range(n):
            a = _round_view(ones, n - 1 - ones, 1, q, epsilon0)
            b = _round_view(ones, n - 1 - ones, 0, q, epsilon0)
            worst = max(worst, _delta(a, b, rounds, epsilon), _delta(b, a, rounds, epsilon))
        upper = pld.compose_views([(source, rounds)], epsilon=epsilon,
                                  discretization=1e-3).upper.value
        assert worst <= upper * (1 + 1e-12), (epsilon, worst, upper)


def test_the_pair_of_fewer_others_has_the_larger_divergences():
    """The optimistic (lower) measure of N' others stays at or above the upper measure's
    reading of N others minus its ledger at every epsilon: the N'-pair dominates."""
    width, tail = 1e-4, 1e-15
    full = SubsampledPair(pair=LDP(n=2001, epsilon0=3.0).subsampling_pair().composable,
                          sampling_rate=0.2)
    fewer = SubsampledPair(pair=LDP(n=201, epsilon0=3.0).subsampling_pair().composable,
                           sampling_rate=0.2)
    up_full, = full.loss_pmfs(width, True, tail, connect=True)
    low_fewer, = fewer.loss_pmfs(width, False, tail, connect=True)
    for epsilon in (0.0, 0.05, 0.1, 0.2, 0.4):
        assert pld.delta_of(up_full, epsilon) <= pld.lower_delta_of(low_fewer, epsilon)


def test_the_threshold_leaves_moderate_rounds_whole():
    # n = 1e8, q = 0.01, epsilon0 = 3: 5e4 expected clone tokens, at the limit
    pair = LDP(n=10**8, epsilon0=3.0).subsampling_pair().composable
    assert SubsampledPair(pair, 0.01).others_used == pair.others
    assert "others_used" not in SubsampledPair(pair, 0.01).description
    big = LDP(n=10**9, epsilon0=3.0).subsampling_pair().composable
    reduced = SubsampledPair(big, 0.01).others_used
    assert reduced < big.others
    assert reduced * 0.01 * big.clone_probability == pytest.approx(
        subsampled._MAX_CLONE_MEAN, rel=1e-6)
    # add/remove keeps every user while its atoms fit (n = 1e6), fewer beyond (n = 1e9:
    # 5e8 atoms)
    mid = LDP(n=10**6, epsilon0=3.0).subsampling_pair().composable
    assert SubsampledPair(mid, 0.01, "add-remove").others_used == mid.others
    assert SubsampledPair(big, 0.01, "add-remove").others_used < big.others
