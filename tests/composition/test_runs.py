"""Runs of neighbouring atoms on coarse grids (`composition.pld.runs`): each run brackets
its atoms' losses within width^2/8, carries their summed mass within its stated error, and
the measures built from runs keep both ends certified: an add/remove subsampled round,
composed twice, read against the exact hockey-stick of its atoms."""

import math

import numpy as np
import pytest

from accountant.composition import pld
from accountant.composition.add_remove_atoms import add_remove_atoms
from accountant.composition.pld.runs import runs_of
from accountant.composition.subsampled import SubsampledPair
from accountant.pairs.clones import fmt_clones


@pytest.mark.parametrize("width", [1e-3, 0.03, 0.3])
def test_runs_bracket_their_atoms_in_rows_of_any_order(width):
    rng = np.random.default_rng(7)
    sizes = rng.integers(0, 300, 40)            # empty rows included
    starts = np.concatenate([[0], np.cumsum(sizes)])
    loss = rng.normal(0, 1e-3, starts[-1]).cumsum() * rng.choice([-1, 1])
    log_mass = rng.normal(-12, 2, starts[-1])
    runs = runs_of(loss, log_mass, starts, width)
    d = np.abs(np.diff(loss))
    last = starts[1:-1] - 1
    d[last[(last >= 0) & (last < d.size)]] = 0
    g = int(width * width / 8 / d.max())
    if g <= 1:
        assert runs.length == 1 and runs.least is loss
        return
    assert runs.length == min(g, sizes.max())
    # run ids: row offset + position // g
    row = np.searchsorted(starts, np.arange(loss.size), side="right") - 1
    per_row = (sizes + g - 1) // g
    run = (np.cumsum(per_row) - per_row)[row] + (np.arange(loss.size) - starts[row]) // g
    assert run[-1] + 1 == runs.least.size
    assert np.all(runs.least[run] <= loss) and np.all(loss <= runs.greatest[run])
    assert np.all(runs.greatest - runs.least <= width * width / 8)
    exact = np.array([math.fsum(np.exp(log_mass[run == i])) for i in range(run[-1] + 1)])
    here = 4 * 2.0**-53 * float(np.max(np.abs(runs.log_mass)))
    assert np.all(np.abs(runs.log_mass - np.log(exact)) <= runs.extra + here)


def _two_fold_delta(loss, mass, inf_mass, eps):
    """H(e^eps) of the two-fold product of atoms (loss, P-mass) plus a P-mass at +inf:
    sum_ij p_i p_j (1 - e^(eps - l_i - l_j))_+, by suffix sums over the sorted losses."""
    order = np.argsort(loss)
    l, p = loss[order], mass[order]
    tail_p = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0]])
    tail_q = np.concatenate([np.cumsum((p * np.exp(-l))[::-1])[::-1], [0.0]])
    j = np.searchsorted(l, eps - l, side="right")
    finite = float(np.sum(p * (tail_p[j] - np.exp(eps - l) * tail_q[j])))
    return finite + 1 - (1 - inf_mass) ** 2


@pytest.mark.parametrize("runs", [4, 32])
def test_two_rounds_of_runs_stay_certified_at_both_ends(runs):
    """n = 1e5 + 1, eps0 = 0.2, q = 0.5: 3.4e6 atoms, neighbours 2.3e-5 apart; on grids
    where runs of 4 and 32 form, the composed upper measure's two readings against the
    exact two-fold hockey-stick of the atoms (truth 1.88e-3 at eps = 0)."""
    n, eps0, q, tail = 100_001, 0.2, 0.5, 1e-12
    atoms = add_remove_atoms(n - 1, q, eps0, tail)
    width = math.sqrt(8 * runs * atoms.step) * 1.01
    source = SubsampledPair(fmt_clones(n=n, epsilon0=eps0), q, "add-remove")
    up = pld.compose_measures([(source, 2)], width, connect=True, tail=tail)
    assert len(up) == 2
    loss = atoms.gain
    mass = np.exp(atoms.log_without + atoms.gain)     # order 0: with || without
    for eps in (0.0, 0.01, 0.02):
        truth = _two_fold_delta(loss, mass, atoms.inf_with, eps)
        upper = pld.delta_of(up[0], eps)
        lower = pld.lower_delta_of(up[0], eps)
        # the atoms' own float error is about 1e-9 relative; the windows cut 1e-12
        assert lower <= truth * (1 + 1e-7) + 1e-11 <= upper * (1 + 2e-7) + 1e-11, eps


@pytest.mark.parametrize("relation", ["substitute", "add-remove"])
def test_runs_only_raise_the_upper_measure(relation, monkeypatch):
    """On a probe's grid (0.05), the upper measure from runs is at least the one from
    every atom (a run's mass sits at its greatest loss) and at most width^2/8 e^width
    above it (each atom raised by at most width^2/8, where the connect-the-dots
    interpolant of (1 - e^(eps - l))_+ has slope <= e^width); under add/remove, both
    readings against the exact one-round delta of the atoms."""
    import accountant.composition.add_remove_atoms as ar
    import accountant.composition.subsampled as sub
    pair, q, tail, width = fmt_clones(n=10**6, epsilon0=1.0), 0.2, 1e-12, 0.05
    with_runs = SubsampledPair(pair, q, relation).loss_pmfs(width, True, tail, connect=True)

    def no_runs(loss, log_mass, starts, width, step=None):
        return runs_of(loss, log_mass, starts, 1e-300, step)

    monkeypatch.setattr(sub, "runs_of", no_runs)
    monkeypatch.setattr(ar, "runs_of", no_runs)
    plain = SubsampledPair(pair, q, relation).loss_pmfs(width, True, tail, connect=True)
    atoms = add_remove_atoms(pair.others, q, 1.0, tail)
    assert width * width / 8 > 30 * atoms.step          # runs of 30 and more
    raise_ = width * width / 8 * math.exp(width) * 1.01
    for a, b in zip(with_runs, plain, strict=True):
        assert a.drift > b.drift
        for eps in (0.0, 0.02, 0.05):
            assert 0 <= pld.delta_of(a, eps) - pld.delta_of(b, eps) * (1 - 1e-9) <= raise_
    if relation == "add-remove":
        for order, a in enumerate(with_runs):
            loss = atoms.gain if order == 0 else -atoms.gain
            mass = np.exp(atoms.log_without + (atoms.gain if order == 0 else 0.0))
            for eps in (0.0, 0.02, 0.05):
                truth = float(np.sum(mass * np.maximum(0.0, -np.expm1(eps - loss))))
                assert pld.lower_delta_of(a, eps) <= truth * (1 + 1e-7)
                assert pld.delta_of(a, eps) >= truth * (1 - 1e-7)
