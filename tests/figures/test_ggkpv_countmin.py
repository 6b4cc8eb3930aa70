"""figures/ggkpv_countmin.py: the least certified rho found from a guess is the library
calibration's; the error bound holds for every dataset (exact collision laws of concrete
datasets, the literal sampler) and is exact where it should be; the audit's count-min record
recomputes its numbers and its verdict logic can fail."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from accountant.protocols import ggkpv
from figures import ggkpv_countmin as cm
from figures.audit_papers import ggkpv as audit_ggkpv
from verify.samplers import ggkpv_countmin as sampler


def test_least_rho_is_the_library_calibration():
    # the library's own calibration from rho = 1 (about 7 s) against the guessed search
    c = ggkpv.calibrate_countmin(n=1000, B=64, w=1000, d=6, target_epsilon=1.0,
                                 target_delta=1e-6)
    rho, up, below = cm.least_rho(1000, 64, 1000, 6, 1.0, 1e-6)
    assert rho == c.rho == 217  # docs/ggkpv.md quotes 217 at n = 1e3, B = 64, d = 6
    assert up == pytest.approx(float(c.epsilon), rel=1e-12) and up <= 1.0 < below


@pytest.mark.parametrize("guess", [120, 146, 175])
def test_least_rho_does_not_depend_on_the_guess(guess):
    assert cm.least_rho(1000, 16, 1000, 4, 1.0, 1e-6, guess)[0] == cm.least_rho(
        1000, 16, 1000, 4, 1.0, 1e-6)[0]


def _row_tails(coll: np.ndarray, *, N: int, w: int, s: int, a: int) -> tuple[float, float]:
    """Exact P(coll + Y >= s), P(coll + Y <= a) for a collision law `coll` (pmf on 0..)."""
    y = stats.binom(N, 1.0 / w)
    c = np.arange(coll.size)
    return (float(np.sum(coll * y.sf(s - c - 1))), float(np.sum(coll * y.cdf(a - c))))


def _collision_law(counts: list[int], w: int) -> np.ndarray:
    """Law of sum_i counts[i] Bern(1/w), independent (one other value per entry)."""
    law = np.array([1.0])
    for f in counts:
        nxt = np.zeros(law.size + f)
        nxt[:law.size] += law * (1 - 1 / w)
        nxt[f:f + law.size] += law / w
        law = nxt
    return law


@pytest.mark.parametrize("counts", [
    [1] * 60,            # every other user on its own value: coll ~ Bin(60, 1/w)
    [3] * 20,            # blocks of 3: the near-worst case for the upper tail
    [60],                # one heavy value
    [10, 10, 20, 5, 5, 10],
])
def test_bound_holds_for_concrete_datasets(counts):
    n, w, d, rho = 60, 60, 3, 8
    N, mu = n * rho, n * rho / w
    coll = _collision_law(counts, w)  # the query x has f_x = 0, the others hold `counts`
    for t in (1.0, 4.0, 7.5, 12.0, 20.0):
        up, low = _row_tails(coll, N=N, w=w, s=math.ceil(t + mu), a=math.floor(mu - t))
        exact = up**d + 1 - (1 - low) ** d  # P(|err| >= t) for this query
        bound = cm.error_tail_bound([t], n=n, B=2, w=w, d=d, rho=rho, values=1)[0]
        assert exact <= bound * (1 + 1e-12), (t, exact, bound)


def test_bound_is_nearly_attained_by_blocks():
    # Markov on the collisions is the worst case over collision laws of mean m; blocks of
    # c users (c near the best chord) come within a modest factor of it
    n, w, d, rho, t = 60, 60, 1, 8, 12.0
    N, mu = n * rho, n * rho / w
    worst = max(_row_tails(_collision_law([c] * (n // c), w), N=N, w=w,
                           s=math.ceil(t + mu), a=-1)[0] for c in (5, 10, 15, 20, 30))
    bound = cm.error_tail_bound([t], n=n, B=2, w=w, d=d, rho=rho, values=1)[0]
    lower_tail = 1 - (1 - stats.binom(N, 1 / w).cdf(math.floor(mu - t))) ** d
    assert worst <= bound - lower_tail < 2.0 * worst


def test_bound_is_exact_without_collisions():
    # every user on the query's value: coll = 0, err = min_j Y_j - mu exactly
    n, w, d, rho = 50, 50, 4, 6
    y = stats.binom(n * rho, 1 / w)
    for t in (0.5, 3.0, 6.25, 11.0):
        s, a = math.ceil(t + rho), math.floor(rho - t)
        exact = y.sf(s - 1) ** d + 1 - (1 - y.cdf(a)) ** d
        got = cm.error_tail_bound([t], n=n, B=2, w=w, d=d, rho=rho, values=1,
                                  collision_mean=0.0)[0]
        assert got == pytest.approx(exact, rel=1e-12)


def test_bound_covers_the_literal_sampler():
    # fresh public tables and noise each run, the near-worst dataset (blocks of 3 users)
    n, B, d, rho, trials = 240, 128, 4, 12, 600
    w = n
    xs = np.repeat(np.arange(1, n // 3 + 1), 3)  # 80 values with 3 users each
    rng = np.random.default_rng(2022)
    worst = np.empty(trials)
    for i in range(trials):
        table = sampler.hash_table(B=B, w=w, d=d, rng=rng)
        msgs = sampler.shuffled_countmin_messages(xs, table=table, w=w, rho=rho, rng=rng)
        counts = sampler.countmin_counts(msgs, w=w, d=d)
        est = sampler.countmin_estimate(counts, table=table, n=n, rho=rho)
        truth = np.bincount(xs, minlength=B + 1)[1:]
        worst[i] = np.max(np.abs(est - truth))
    for t in (10.0, 15.0, 20.0):
        bound = cm.error_tail_bound([t], n=n, B=B, w=w, d=d, rho=rho)[0]
        freq = np.mean(worst >= t)
        assert freq <= bound + 3 * math.sqrt(max(bound * (1 - bound), 1e-4) / trials), (t, freq,
                                                                                        bound)
    # and the bound is not vacuous at its own 95% level
    assert np.mean(worst >= cm.error_quantile(0.05, n=n, B=B, w=w, d=d, rho=rho)) <= 0.05


def test_quantile_is_the_least_grid_point_meeting_beta():
    kw = {"n": 1000, "B": 16, "w": 1000, "d": 4, "rho": 146}
    q = cm.error_quantile(0.05, **kw)
    assert cm.error_tail_bound([q], **kw)[0] <= 0.05
    assert cm.error_tail_bound([q - cm.GRID_STEP], **kw)[0] > 0.05


def test_bits_and_depth():
    assert cm.depth(64) == 6 and cm.depth(65) == 7 and cm.depth(2) == 1
    assert cm.bits_per_user(w=1000, d=6, rho=217) == 6 * 218 * (3 + 10)


# ------------------------------------------------------------------ the audit record
@pytest.fixture(scope="module")
def record():
    from figures import audit_report as ar
    return next(e for e in ar.collect("ggkpv", quick=True)
                if e.locator == "multi-message upper bounds (slides, count-min)")


def test_record_recomputes_its_numbers(record):
    ns, bs = (10**3, 10**4), (16, 256)
    rows = cm.countmin_rows(ns, bs)
    v = [c["value"] for c in record.computed]
    errs = [r["error_bound"] for r in rows]
    assert v[0] == min(errs) and v[1] == max(errs)
    assert v[3] == pytest.approx(4 / 3) and v[5] == pytest.approx(2.0)
    assert v[6] == min(r["rho"] for r in rows) and v[8] <= 1.0 < v[9]
    assert f"{v[0]:.4g} to {v[1]:.4g}" in record.reason
    assert record.verdict == audit_ggkpv.combine_shape_verdicts(v[2] / v[3], v[4] / v[5])[0]


def test_record_command_prints_its_values(record):
    from figures import audit_report as ar
    printed = [float(x) for x in ar.reproduce_command(record.to_json(), timeout=300).split()]
    assert printed == [c["value"] for c in record.computed]


@pytest.mark.parametrize("ratios, verdict", [
    ((0.75, 0.89), "holds"), ((0.3, 0.4), "loose"), ((0.9, 1.2), "undecided"),
    ((1.0001,), "undecided"), ((1.0,), "holds")])
def test_shape_verdict_can_fail(ratios, verdict):
    assert audit_ggkpv.combine_shape_verdicts(*ratios)[0] == verdict
