"""The substitute subsampled pair binned chunk by chunk (composition.subsampled: each block's
outcomes are split into connect-the-dots measures of at most 2^18 outcomes and summed, so
memory stays O(grid + chunk)): the summed measure keeps the pair's mass, stays below the
rounded-up measure of the same pair (connect-the-dots is the tighter upper bound) and above
its optimistic reading."""

import pytest

from accountant.composition import pld
from accountant.composition.subsampled import SubsampledPair
from accountant.protocols.ldp import LDP

TAIL = 1e-15


def _pair(n: int) -> SubsampledPair:
    return SubsampledPair(pair=LDP(n=n, epsilon0=3.0).subsampling_pair().composable,
                          sampling_rate=0.01)


def _check(pair: SubsampledPair, width: float, epsilons: tuple[float, ...]) -> None:
    connect, = pair.loss_pmfs(width, True, TAIL, connect=True)
    rounded, = pair.loss_pmfs(width, True, TAIL)
    lower, = pair.loss_pmfs(width, False, TAIL, connect=True)
    # a probability measure up to the ledger and the +inf atom (cut mass <= tail-sized)
    total = float(connect.mass.sum()) + connect.infinity
    assert total == pytest.approx(1.0, abs=1e-9)
    # the rounded measure raises each mass by its error bound (16 u n relative and the
    # log-PMF model: 3.5e-8 at n = 1e7), never lowers it
    rounded_total = float(rounded.mass.sum()) + rounded.infinity
    assert total - 1e-12 <= rounded_total <= total * (1 + 1e-6)
    for epsilon in epsilons:   # where delta is above the +inf atom (tail-sized)
        upper = pld.delta_of(connect, epsilon)
        assert upper <= pld.delta_of(rounded, epsilon)
        assert pld.lower_delta_of(lower, epsilon) <= upper


def test_summed_chunks_bound_the_pair_between_its_readings():
    _check(_pair(200_000), 1e-4, (0.0, 0.002, 0.005, 0.01))


@pytest.mark.slow
def test_ten_million_users_are_binned_in_chunks():
    """n = 1e7 (about 40 s): 1.6e7 outcomes per measure, several chunks per block (the
    unchunked arrays held 3.3 GiB)."""
    _check(_pair(10_000_000), 1e-5, (0.0, 0.0005, 0.001, 0.0015))
