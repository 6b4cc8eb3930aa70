"""The literal heterogeneous sampler (verify/samplers/heterogeneous.py) against the exact
histogram law of `protocols.heterogeneous.views.histogram_law` and against the lower end's
count view; chi-square tests at false-alarm rate 1e-3 each (seeded: the default run is
deterministic)."""

from __future__ import annotations

import numpy as np
import pytest

from accountant.protocols.heterogeneous import (
    binary_rr_group,
    count_pair,
    k_rr_group,
    matrix_group,
)
from accountant.protocols.heterogeneous.views import histogram_law
from verify.crosscheck import goodness_of_fit
from verify.samplers import heterogeneous as sampler

FALSE_ALARM = 1e-3
HAND = [[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]]


def _groups():
    return (k_rr_group(2, 1.0, 3), k_rr_group(1, 2.5, 3), matrix_group(2, HAND))


def test_sampled_histograms_follow_the_exact_law():
    groups = _groups()
    inputs = [[0, 2], [1], [0, 1]]
    hists, probs = histogram_law(groups, inputs)
    rng = np.random.default_rng(20260127)
    sample, _ = sampler.run([g.matrix.array.tolist() for g in groups], inputs, trials=4000,
                            rng=rng)
    assert goodness_of_fit(sample, np.array([float(p) for p in probs]), labels=hists,
                           false_alarm=FALSE_ALARM).passed


def test_colluders_reports_are_apart_and_honest_histogram_follows_the_honest_law():
    groups = (binary_rr_group(2, 1.0), binary_rr_group(2, 2.0))
    inputs = [[0, 1], [1, 1]]
    rng = np.random.default_rng(7)
    sample, known = sampler.run([g.matrix.array.tolist() for g in groups], inputs,
                                trials=3000, rng=rng, colluders=[1, 0])
    assert known.shape == (3000, 1) and sample.sum(axis=1).max() == 3
    # the honest users: group 0's second user (input 1) and both of group 1
    hists, probs = histogram_law(groups, [[1], [1, 1]])
    assert goodness_of_fit(sample, np.array([float(p) for p in probs]), labels=hists,
                           false_alarm=FALSE_ALARM).passed


def test_lower_end_count_view_is_the_count_of_a_sampled_real_pair():
    groups = (binary_rr_group(6, 1.0), k_rr_group(0, 1.0, 2), binary_rr_group(5, 2.0))
    view = count_pair(groups, differing=2, honest=(6, 0, 5))
    d = view.description
    assert d["differing_group"] == 2  # the group of largest epsilon0
    # P: the differing user (group 2) holds x, every other user holds x'
    inputs = [[d["x_prime"]] * 6, [], [d["x"]] + [d["x_prime"]] * 4]
    rng = np.random.default_rng(11)
    sample, _ = sampler.run([g.matrix.array.tolist() for g in groups], inputs, trials=4000,
                            rng=rng)
    counts = sample[:, d["y"]]
    p = np.exp(np.asarray(view.p, dtype=float))
    labels = np.asarray(view.coords[0]) if view.coords else np.arange(p.size)
    assert goodness_of_fit(counts, p, labels=labels, false_alarm=FALSE_ALARM).passed


def test_sampler_rejects_malformed_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="rows summing to 1"):
        sampler.randomizer([[[0.5, 0.6], [0.5, 0.5]]], [[0]], rng=rng)
    with pytest.raises(ValueError, match="inputs must lie"):
        sampler.randomizer([[[0.5, 0.5], [0.5, 0.5]]], [[2]], rng=rng)


@pytest.mark.slow
def test_sampled_histograms_follow_the_exact_law_at_1e5_trials():
    groups = _groups()
    inputs = [[1, 2], [0], [2, 2]]
    hists, probs = histogram_law(groups, inputs)
    rng = np.random.default_rng(99)
    sample, _ = sampler.run([g.matrix.array.tolist() for g in groups], inputs,
                            trials=100_000, rng=rng)
    assert goodness_of_fit(sample, np.array([float(p) for p in probs]), labels=hists,
                           false_alarm=FALSE_ALARM).passed
