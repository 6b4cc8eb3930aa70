"""Compositions of very many rounds (up to the CLI's 1e9): the FFT's absolute round-off
grows with the rounds, so a moderate delta is read through the tilted chain; a planning
probe is not composed twice; the special pair's lower end is skipped where it would cost
as much as the upper end again."""

from __future__ import annotations

import numpy as np
import pytest

from accountant.composition import Accountant, pld
from accountant.composition.pld.measure import LossPmf
from accountant.protocols.k_rr import KRR
from accountant.protocols.ldp.privacy import clones_pair


def test_a_delta_within_the_rounds_round_off_is_read_tilted(monkeypatch):
    # 1e6 rounds at delta 1e-6: 1e4 T u = 1.1e-6 >= delta, so the squarings are tilted
    # towards the tail; both readings are certified, so their brackets must overlap, and
    # the tilted ledger must be far below the untilted one (which grows with T)
    items = [(clones_pair(n=1000, epsilon0=1.0), 10**6)]
    assert pld.compose._tilts(items, 1e-6) and not pld.compose._tilts(items, 1e-5)
    tilted = pld.compose_views(items, delta=1e-6, discretization=0.02)
    monkeypatch.setattr(pld.compose, "_TILT_ROUNDOFFS", 0.0)
    assert not pld.compose._tilts(items, 1e-6)
    plain = pld.compose_views(items, delta=1e-6, discretization=0.02)
    assert tilted.lower is not None and plain.lower is not None
    assert float(tilted.upper) >= float(plain.lower)
    assert float(plain.upper) >= float(tilted.lower)
    assert tilted.error < 1e-3 * 1e-6 < plain.error


def test_no_composition_is_made_twice_in_one_call(monkeypatch):
    # the probe whose width the plan picks is read again by the first pass, not recomposed
    # (1e9 k-RR rounds: 15 s a composition)
    items = [(clones_pair(n=1000, epsilon0=3.0), 10**5)]
    keys, builds = [], []
    inner, build = pld.compose._composed_side, pld.compose.pmfs

    def counted(mechanisms, width, pessimistic, tail, connect, budget, at, census, built):
        keys.append((width, pessimistic, tail, connect, budget, at))
        return inner(mechanisms, width, pessimistic, tail, connect, budget, at, census, built)

    def built(source, width, pessimistic, tail, connect):
        builds.append((width, pessimistic, tail, connect))
        return build(source, width, pessimistic, tail, connect)

    monkeypatch.setattr(pld.compose, "_composed_side", counted)
    monkeypatch.setattr(pld.compose, "pmfs", built)
    out = pld.compose_views(items, delta=1e-5)
    assert len(keys) == len(set(keys)) >= 2
    # nor is one round's measure built twice on one grid (the clones pair at n = 1e5: 2 s a
    # build)
    assert len(builds) == len(set(builds)) >= 2
    # and the answer is a narrow certified bracket
    assert out.lower is not None and out.relative_gap <= 0.008


def test_the_chosen_probe_is_not_read_twice(monkeypatch):
    # here the plan keeps the 0.05 probe's grid: the first pass takes the probe's ends as
    # they were read (1e9 k-RR rounds: 4 s a reading at 2.5e6 cells), the same values
    reads, lows = [], []
    read, read_lower = pld.compose.epsilon_of, pld.compose.lower_epsilon_of

    def upper(pmf, delta):
        reads.append(id(pmf))
        return read(pmf, delta)

    def lower(pmf, delta):
        lows.append(id(pmf))
        return read_lower(pmf, delta)

    monkeypatch.setattr(pld.compose, "epsilon_of", upper)
    monkeypatch.setattr(pld.compose, "lower_epsilon_of", lower)
    items = [(clones_pair(n=100, epsilon0=5.0), 10**4)]
    out = pld.compose_views(items, delta=1e-5)
    assert out.discretization == 0.05
    assert len(reads) == len(set(reads)) == 1 and len(lows) == len(set(lows)) == 1
    monkeypatch.undo()
    again = pld.compose_views(items, delta=1e-5)
    assert (out.upper.value, out.lower.value) == (again.upper.value, again.lower.value)


@pytest.mark.parametrize("limit, skipped", [(0, True), (10**9, False)])
def test_the_special_pair_is_skipped_only_on_a_costly_grid(monkeypatch, limit, skipped):
    from accountant.composition import accountant as acc

    monkeypatch.setattr(acc, "_SPECIAL_CELLS", limit)
    # tilted squarings (delta <= 1e-7) over more cells than the limit: skipped; untilted,
    # never (1e6 shuffle rounds at 1e-5 keep their lower end on 1.7e6 cells)
    ledger = Accountant().compose(KRR(n=50, epsilon0=2.0, k=3), count=20)
    untilted = ledger.report(delta=1e-6)
    assert "pld.special_pair.optimistic" in {e["method"] for e in untilted.entries}
    report = ledger.report(delta=1e-8)
    methods = {e["method"]: e for e in report.entries}
    assert ("pld.special_pair" in methods) is skipped
    assert ("pld.special_pair.optimistic" in methods) is not skipped
    if skipped:
        assert "cells" in methods["pld.special_pair"]["skipped"]
    # the mechanism's lower end comes from the special pair alone
    assert report.bracket.upper is not None
    assert (report.bracket.lower is None) is skipped


@pytest.mark.slow
def test_a_billion_shuffle_rounds_get_a_narrow_certified_bracket():
    # the CLI's largest rounds: read +inf (ledger 8.8e-5 > delta) after 86-194 s before
    # the tilt covered it; now a bracket within 1 % (the RDP route says 1.278e6)
    items = [(clones_pair(n=1000, epsilon0=1.0), 10**9)]
    out = pld.compose_views(items, delta=1e-5)
    assert out.lower is not None and out.relative_gap <= 0.01
    assert 1.1e6 < float(out.lower) <= float(out.upper) < 1.278e6


def test_readings_are_kept_only_until_the_plan_is_read():
    # after the first pass (`_Memo.clear`) a refinement's measures are read once and not
    # kept alive beside the next grid's
    memo = pld.compose._Memo()
    calls = []
    read = memo.reader(lambda p: calls.append(p) or float(p.mass.size), "upper")
    first = LossPmf(0.1, 0, np.ones(3) / 3, 0.0, 0.0, True, 0.0)
    assert read(first) == read(first) == 3.0 and len(calls) == 1
    memo.clear()
    later = LossPmf(0.1, 0, np.ones(5) / 5, 0.0, 0.0, True, 0.0)
    assert read(later) == read(later) == 5.0 and len(calls) == 3
    assert not memo.readings and not memo.composed and not memo.rounds
