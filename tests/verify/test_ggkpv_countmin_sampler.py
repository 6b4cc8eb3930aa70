"""The literal count-min sampler (public coins): message layout, unbiasedness of the per-row
and mean estimators by simulation over hash draws and noise (mean error within 3 standard
errors), and its row counts against the accountant's exact row pair (goodness of fit)."""

from __future__ import annotations

import numpy as np
import pytest

from accountant.errors import ParameterError
from accountant.protocols.ggkpv import row_pair
from verify.crosscheck import goodness_of_fit
from verify.samplers import ggkpv_countmin as cm


def test_randomizer_layout_and_counts() -> None:
    rng = np.random.default_rng(0)
    table = cm.hash_table(B=5, w=4, d=3, rng=rng)
    assert table.shape == (3, 5) and table.min() >= 0 and table.max() < 4
    one = cm.countmin_randomizer(2, table=table, w=4, rho=2, rng=rng)
    assert one.shape == (9, 2)
    assert one[:3, 1].tolist() == table[:, 1].tolist() and one[:3, 0].tolist() == [0, 1, 2]
    assert np.bincount(one[:, 0]).tolist() == [3, 3, 3]
    xs = [1, 2, 2, 5]
    msgs = cm.shuffled_countmin_messages(xs, table=table, w=4, rho=2, rng=rng)
    counts = cm.countmin_counts(msgs, w=4, d=3)
    assert counts.shape == (3, 4) and counts.sum(axis=1).tolist() == [12, 12, 12]
    with pytest.raises(ParameterError):
        cm.shuffled_countmin_messages([0], table=table, w=4, rho=1, rng=rng)
    with pytest.raises(ParameterError):
        cm.hash_table(B=5, w=1, d=3, rng=rng)


def test_noiseless_countmin_never_underestimates() -> None:
    rng = np.random.default_rng(3)
    xs = rng.integers(1, 21, size=60)
    table = cm.hash_table(B=20, w=8, d=4, rng=rng)
    counts = cm.countmin_counts(cm.shuffled_countmin_messages(xs, table=table, w=8, rho=0,
                                                              rng=rng), w=8, d=4)
    f = np.bincount(xs, minlength=21)[1:]
    est = cm.countmin_estimate(counts, table=table, n=60, rho=0)
    assert np.all(est >= f) and np.any(est == f)


@pytest.mark.parametrize("n, B, w, d, rho", [(40, 6, 4, 3, 2), (25, 10, 3, 2, 5)])
def test_row_and_mean_estimators_are_unbiased(n, B, w, d, rho) -> None:
    rng = np.random.default_rng(2024 + n)
    xs = np.concatenate([np.full(n // 2, 1), rng.integers(1, B + 1, size=n - n // 2)])
    f = np.bincount(xs, minlength=B + 1)[1:]
    trials = 3000
    row_err = np.empty((trials, d, B))
    for t in range(trials):
        table = cm.hash_table(B=B, w=w, d=d, rng=rng)  # fresh public coins every run
        counts = cm.countmin_counts(cm.shuffled_countmin_messages(
            xs, table=table, w=w, rho=rho, rng=rng), w=w, d=d)
        row_err[t] = cm.row_estimates(counts, table=table, n=n, rho=rho) - f
    # overall: one mean error per trial (rows and queries within a trial are dependent)
    per_trial = row_err.mean(axis=(1, 2))
    se = per_trial.std(ddof=1) / np.sqrt(trials)
    assert abs(per_trial.mean()) <= 3 * se
    # every row and every query on its own (d B tests: 4 standard errors)
    e = row_err.mean(axis=0)
    s = row_err.std(axis=0, ddof=1) / np.sqrt(trials)
    assert np.all(np.abs(e) <= 4 * s), (e / s)
    # the mean over rows, per query
    m = row_err.mean(axis=1)
    assert np.all(np.abs(m.mean(axis=0)) <= 4 * m.std(axis=0, ddof=1) / np.sqrt(trials))
    # the test has power: correcting for the noise only (not the collisions) is rejected
    counts_back = (row_err + f) * (1 - 1 / w) + n * (1 + rho) / w  # C_j[h_j(x)]
    wrong = (counts_back - n * rho / w - f).mean(axis=(1, 2))
    assert abs(wrong.mean()) > 10 * wrong.std(ddof=1) / np.sqrt(trials)


def test_estimator_is_biased_for_a_fixed_hash_draw_with_collisions() -> None:
    """The per-row estimator is unbiased over the public coins, not given them: with a
    fixed table in which x collides with a heavy value, the mean error is positive."""
    rng = np.random.default_rng(5)
    table = np.array([[0, 0, 1]])  # h(1) = h(2)
    xs = np.array([2] * 30 + [3] * 10)
    errs = []
    for _ in range(400):
        counts = cm.countmin_counts(cm.shuffled_countmin_messages(
            xs, table=table, w=2, rho=1, rng=rng), w=2, d=1)
        errs.append(cm.row_estimates(counts, table=table, n=40, rho=1, queries=[1])[0, 0])
    assert np.mean(errs) > 20


def test_row_counts_fit_the_exact_row_pair() -> None:
    """One row that separates x (cell 0) and x' (cell 1); the others' signals sit in cell 2
    and are subtracted: (s, u) = (y_0 + y_1 - 1, y_0) follows P under x and Q under x'."""
    n, w, rho = 12, 5, 3
    table = np.array([[0, 1, 2]])
    view = row_pair(n * rho, w, tail=None)
    labels = np.stack(view.coords, axis=1)
    pmf_p, pmf_q = np.exp(view.p), np.exp(view.q)

    def sample(first: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        xs = np.array([first] + [3] * (n - 1))
        out = np.empty((3000, 2), dtype=np.int64)
        for t in range(3000):
            c = cm.countmin_counts(cm.shuffled_countmin_messages(
                xs, table=table, w=w, rho=rho, rng=rng), w=w, d=1)[0]
            out[t] = (c[0] + c[1] - 1, c[0])
        return out

    under_p, under_q = sample(1, 11), sample(2, 12)
    assert goodness_of_fit(under_p, pmf_p, labels=labels).passed
    assert goodness_of_fit(under_q, pmf_q, labels=labels).passed
    assert not goodness_of_fit(under_q, pmf_p, labels=labels).passed  # the test has power
