"""The saddle-point guess of a long self-composition's epsilon(delta)
(`pld.saddle.saddle_epsilon`, docs/conversions.md#saddle-point-guesses) against the
composed measure's own float inversion, and the tilt targets it gives without composing."""

import math

import numpy as np
import pytest

from accountant.composition import pld
from accountant.composition.pld.measure import LossPmf
from accountant.composition.pld.reading import float_inversion
from accountant.composition.pld.saddle import saddle_epsilon
from accountant.pairs.clones import blanket_k_rr
from accountant.protocols.ldp.privacy import clones_pair


def _composed_guess(source, width, rounds, delta):
    tail = pld.truncation_tail([(source, rounds)], delta)
    one = pld.sources.pmfs(source, width, True, tail, True)
    composed = pld.compose_measures([(source, rounds)], width, tail=tail, connect=True)
    out = []
    for p in composed:
        losses = (np.arange(p.mass.size) + p.offset) * p.width
        out.append(float_inversion(losses, p.mass, p.infinity, delta))
    return one, out


@pytest.mark.parametrize("source, width, rounds, delta", [
    (clones_pair(n=1000, epsilon0=1.0), 0.01, 1_000, 1e-8),
    (clones_pair(n=1000, epsilon0=1.0), 0.01, 100_000, 1e-10),
    (clones_pair(n=200, epsilon0=4.0), 0.05, 10_000, 1e-6),
    (blanket_k_rr(n=1000, epsilon0=5.0, k=10), 0.05, 100_000, 1e-9),
    (blanket_k_rr(n=50, epsilon0=2.0, k=3), 0.02, 1_000, 1e-12),
])
def test_saddle_guess_agrees_with_the_composed_measure(source, width, rounds, delta):
    # the guess of the same one-round measure composed T times: within 1 % at 1e3 rounds,
    # within 0.05 % from 1e4 (the normal tilt's error shrinks like 1/T)
    ones, composed = _composed_guess(source, width, rounds, delta)
    for one, want in zip(ones, composed, strict=True):
        got = saddle_epsilon(one, rounds, delta)
        assert got is not None and want > 0
        assert abs(got - want) <= (1e-2 if rounds < 10_000 else 5e-4) * want


def test_saddle_guess_of_an_infinite_atom_and_of_no_spread():
    # the composed +inf atom alone exceeds delta: inf; one finite loss: no normal tilt
    atoms = LossPmf(0.1, 0, np.array([0.5, 0.0, 0.4999]), 1e-4, 0.0, True, 0.0)
    assert saddle_epsilon(atoms, 1000, 1e-3) == math.inf     # 1 - (1 - 1e-4)^1000 = 0.095
    assert saddle_epsilon(atoms, 10, 1e-1) is not None       # 1e-3 of it: finite
    point = LossPmf(0.1, 3, np.array([1.0]), 0.0, 0.0, True, 0.0)
    assert saddle_epsilon(point, 1000, 1e-6) is None
    # delta above the value at the mean loss: the approximation does not reach it
    assert saddle_epsilon(atoms, 1000, 0.999) is None


def test_saddle_guess_decreases_in_delta_and_grows_with_rounds():
    one = pld.sources.pmfs(clones_pair(n=1000, epsilon0=1.0), 0.01, True, 1e-40, True)[0]
    deltas = [1e-3, 1e-6, 1e-12, 1e-20, 1e-30]
    guesses = [saddle_epsilon(one, 10**6, d) for d in deltas]
    assert all(a < b < math.inf for a, b in zip(guesses, guesses[1:], strict=False))
    by_rounds = [saddle_epsilon(one, t, 1e-10) for t in (10**4, 10**6, 10**9)]
    assert all(a < b < math.inf for a, b in zip(by_rounds, by_rounds[1:], strict=False))
    # below the composed +inf atom (about T times the round's): inf
    assert saddle_epsilon(one, 10**6, 1e-300) == math.inf


def test_tail_targets_of_many_rounds_compose_nothing(monkeypatch):
    # from `_SADDLE_ROUNDS` the targets come from one round's measure: no composition,
    # and within 0.1 % of the targets the composed guesses give
    compose = pld.compose
    items = [(blanket_k_rr(n=1000, epsilon0=5.0, k=10), 10**6)]
    tail = pld.truncation_tail(items, 1e-9)
    monkeypatch.setattr(compose, "_SADDLE_ROUNDS", 10**12)
    by_composition = compose._tail_target(items, 1e-9, tail)

    def refuse(*args, **kwargs):
        raise AssertionError("composed a probe")

    monkeypatch.setattr(compose, "_SADDLE_ROUNDS", 10**5)
    monkeypatch.setattr(compose, "_compose_side", refuse)
    saddle = compose._tail_target(items, 1e-9, tail)
    assert saddle is not None and by_composition is not None
    for a, b in zip(saddle, by_composition, strict=True):
        assert abs(a - b) <= 1e-3 * b
