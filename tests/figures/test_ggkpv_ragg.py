"""figures/ggkpv_ragg.py: B parallel binary-RR aggregations. The calibrated eps0 is certified
by the library's mechanism, the two-coordinate view of tiny instances (every dataset, both
orders) is within the basic-composition bound, the estimator's exact sd matches the
independent variance formula and the literal protocol, and the audit record recomputes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from accountant.protocols import k_rr
from figures import ggkpv_ragg as ra
from figures import ggkpv_single
from verify.ggkpv_separation import estimator_variances


@pytest.mark.parametrize("n", [1000, 10**5])
def test_calibrated_eps0_is_certified_per_coordinate(n):
    e0, d = ra.ragg_epsilon0(n, 1.0, 1e-6)
    assert d <= 0.5e-6
    assert float(k_rr.KRR(n=n, epsilon0=e0, k=2).delta_for_epsilon(0.5).upper) <= 0.5e-6


def _count_law(probs: list[float]) -> np.ndarray:
    law = np.array([1.0])
    for p in probs:
        law = np.convolve(law, [1 - p, p])
    return law


def test_two_coordinate_view_is_within_basic_composition():
    # exact pair of the labels x = 1 and x' = 2 (label 3 has the same law under both), every
    # dataset of the other users over {1, 2, 3}, both orders
    n, e0, eps = 5, 1.3, 0.4
    a = 1 / (1 + math.exp(-e0))
    worst = 0.0
    for others in itertools.product((1, 2, 3), repeat=n - 1):
        c1 = [a if v == 1 else 1 - a for v in others]
        c2 = [a if v == 2 else 1 - a for v in others]
        p = np.outer(_count_law(c1 + [a]), _count_law(c2 + [1 - a]))
        q = np.outer(_count_law(c1 + [1 - a]), _count_law(c2 + [a]))
        for x, y in ((p, q), (q, p)):
            worst = max(worst, float(np.maximum(x - math.exp(eps) * y, 0).sum()))
    bound = 2 * ggkpv_single.krr_delta_upper(n, 2, e0, eps / 2)
    assert 0 < worst <= bound


@pytest.mark.parametrize("e0", [0.5, 2.2, 8.8])
def test_sd_matches_the_independent_variance(e0):
    n = 10**4
    var = estimator_variances("k-rr", np.array([n // 3, n - n // 3]), n=n, B=2, parameter=e0)
    assert ra.ragg_sd(n, e0) == pytest.approx(math.sqrt(var[0]), rel=1e-12)


def test_literal_protocol_is_unbiased_with_the_exact_sd():
    n, B, e0, trials = 2000, 8, 2.0, 400
    rng = np.random.default_rng(5)
    xs = rng.integers(1, B + 1, size=n)
    truth = np.bincount(xs, minlength=B + 1)[1:]
    err = np.array([ra.estimate(ra.randomizer(xs, B=B, epsilon0=e0, rng=rng), epsilon0=e0)
                    - truth for _ in range(trials)])
    sd = ra.ragg_sd(n, e0)
    assert np.all(np.abs(err.mean(axis=0)) <= 4 * sd / math.sqrt(trials))
    assert err.std() == pytest.approx(sd, rel=0.06)


def test_record_recomputes_its_numbers():
    from figures import audit_report as ar
    from figures.audit_papers import ggkpv as audit_ggkpv
    rec = next(e for e in ar.collect("ggkpv", quick=True)
               if e.locator == "Idea: B parallel aggregations with R_agg (slides)")
    rows = ra.ragg_rows((10**3, 10**4), B=1024)
    v = [c["value"] for c in rec.computed]
    assert v[:2] == [min(r["sd"] for r in rows), max(r["sd"] for r in rows)]
    assert v[4] <= 1 and v[5] == 1024 and v[6] == 1024 * 11
    assert rec.verdict == audit_ggkpv.combine_shape_verdicts(v[2] / v[3])[0] == "holds"
    printed = [float(x) for x in ar.reproduce_command(rec.to_json(), timeout=120).split()]
    assert printed == v
