"""The substitute subsampled round's atoms are computed once per (direction, tail) and
binned on each grid a call tries (composition.subsampled), and its upper measure, dense
although it has no coupled lower reading, may take the one-FFT power route
(pld.self_compose) and the tilted squaring at tiny delta: a reused build equals a fresh
one, the power route's ledger covers the exact composition of the measure it was given,
and a tiny delta is read through the tilt."""

import math

import numpy as np
import pytest

from accountant.composition import pld
from accountant.composition.subsampled import SubsampledPair
from accountant.protocols.binary_rr import BinaryRR


def _source() -> SubsampledPair:
    return SubsampledPair(BinaryRR(n=400, epsilon0=1.0).dominating_pair().pair, 0.2)


def _same(a: pld.LossPmf, b: pld.LossPmf) -> None:
    assert (a.offset, a.width, a.pessimistic) == (b.offset, b.width, b.pessimistic)
    np.testing.assert_array_equal(a.mass, b.mass)
    assert (a.infinity, a.error, a.relative, a.moved, a.drift, a.spread) == \
        (b.infinity, b.error, b.relative, b.moved, b.drift, b.spread)


def test_a_reused_build_is_the_fresh_one_for_every_grid_direction_and_tail():
    used = _source()
    calls = [(0.05, True, 1e-14, True), (0.05, False, 1e-14, True),
             (3e-3, True, 1e-14, True), (3e-3, False, 1e-14, True),
             (3e-3, True, 1e-14, False), (3e-3, False, 1e-14, False),
             (1e-3, True, 1e-9, True), (1e-3, False, 1e-14, True)]
    for width, pessimistic, tail, connect in calls:
        again, = used.loss_pmfs(width, pessimistic, tail, connect=connect)
        fresh, = _source().loss_pmfs(width, pessimistic, tail, connect=connect)
        _same(again, fresh)
    # the two directions differ (blocks are bounded by their first or last M): a cache
    # keyed without the direction would have served one for the other
    up, = used.loss_pmfs(3e-3, True, 1e-14, connect=True)
    down, = used.loss_pmfs(3e-3, False, 1e-14, connect=True)
    assert pld.delta_of(up, 0.1) > pld.delta_of(down, 0.1)
    assert len(used._atoms) <= 2


def test_the_add_remove_atoms_are_built_once_for_every_grid_and_direction(monkeypatch):
    # (n = 1e6, q = 0.01: 6 s a build, made again for each of the 6 widths of one reading);
    # the reused measures equal fresh ones in every field, both orders
    from accountant.composition import add_remove_atoms

    def source() -> SubsampledPair:
        return SubsampledPair(BinaryRR(n=400, epsilon0=1.0).dominating_pair().pair, 0.2,
                              relation="add-remove")

    used = source()
    windows = []
    inner = add_remove_atoms.binomial_log_window

    def counted(*args, **kwargs):
        windows.append(args)
        return inner(*args, **kwargs)

    calls = [(0.05, True, 1e-14, True), (0.05, False, 1e-14, True),
             (3e-3, True, 1e-14, False), (3e-3, False, 1e-14, False),
             (1e-3, True, 1e-9, True), (1e-3, False, 1e-14, True)]
    for i, (width, pessimistic, tail, connect) in enumerate(calls):
        monkeypatch.setattr(add_remove_atoms, "binomial_log_window", counted)
        again = used.loss_pmfs(width, pessimistic, tail, connect=connect)
        built = len(windows)
        windows.clear()
        monkeypatch.undo()
        fresh = source().loss_pmfs(width, pessimistic, tail, connect=connect)
        assert len(again) == len(fresh) == 2
        for a, b in zip(again, fresh, strict=True):
            _same(a, b)
        # built on the first call and whenever the tail changes, read again otherwise
        assert (built > 0) is (i == 0 or tail != calls[i - 1][2]), (i, built)


def _h_exact(mass: np.ndarray, offset: int, width: float, infinity: float, rounds: int,
             epsilon: float) -> float:
    """H(e^eps) of the rounds-fold composition of the stored measure, by direct
    convolution (nonnegative sums: relative error about 1e-13 here)."""
    out = mass
    for _ in range(rounds - 1):
        out = np.convolve(out, mass)
    losses = (np.arange(out.size) + rounds * offset) * width
    live = losses > epsilon
    finite = float(np.sum(mass))
    return (math.fsum(-np.expm1(epsilon - losses[live]) * out[live])
            + (finite + infinity) ** rounds - finite ** rounds)


@pytest.mark.parametrize("rounds", [8, 30])
def test_the_dense_upper_measure_takes_the_power_route_within_its_ledger(rounds,
                                                                          monkeypatch):
    m, = _source().loss_pmfs(2e-3, True, 1e-14, connect=True)
    assert m.spread == math.inf and pld.self_composition._dense(m)
    taken = []
    power = pld.power_compose
    monkeypatch.setattr(pld.self_composition, "power_compose",
                        lambda *a, **k: taken.append(1) or power(*a, **k))
    budget = 1e-6
    out = pld.self_compose(m, rounds, tail=1e-14, budget=budget)
    assert taken and out.error <= budget
    for epsilon in (0.0, 0.3, 1.0, 2.0):
        exact = _h_exact(m.mass, m.offset, m.width, m.infinity, rounds, epsilon)
        got = pld.delta_of(out, epsilon)
        assert exact * (1 - 1e-12) <= got <= exact + 2 * budget, (epsilon, exact, got)


def test_a_sparse_rounded_measure_keeps_squaring(monkeypatch):
    # a rounded-up measure of few atoms: the power route's absolute round-off would cost
    # its relative accuracy, so squaring stays (and must not be sent to the FFT power)
    m = pld.pmf_from_entries(np.array([0.0, 500.0]), np.array([0.5, 0.5]), 1e-3, 0.0, True)
    assert not pld.self_composition._dense(m)
    monkeypatch.setattr(pld.self_composition, "power_compose",
                        lambda *a, **k: pytest.fail("power route"))
    pld.self_compose(m, 16, tail=1e-14, budget=1e-6)


def test_the_substitute_upper_measure_is_tilted_at_a_tiny_delta():
    # untilted (spread inf was taken for "not connect-the-dots"), the FFT's absolute ledger
    # exceeded delta = 1e-12 and the upper end read +inf; tilted, it is finite and within
    # 1 % of the pair's own certified lower end
    from accountant.composition import Accountant, Subsampled
    from accountant.protocols.ldp import LDP

    bracket = Accountant().compose(Subsampled(LDP(n=10_000, epsilon0=3.0), 0.02),
                                   3000).get_epsilon(1e-12, method="pld")
    upper = bracket.upper.value
    assert math.isfinite(upper) and bracket.pair_lower is not None
    assert bracket.pair_lower.value <= upper <= 1.01 * bracket.pair_lower.value
