"""Two k-RR grids are built by vectorised `binomial_logpmf` evaluations over a chunk of rows
(issue 22: k-RR calibrations at n up to 1e6): the blanket count pair's slice masses over N
and the special pair's log Bin(n - a, 1/(k - 1))(b) over a. Each must equal, entry for entry,
the one-call-per-row construction it replaced, reimplemented here."""

import math

import numpy as np
import pytest

from accountant.numeric.special import binomial_logpmf
from accountant.numeric.tails import binomial_log_window
from accountant.protocols.k_rr import blanket, privacy


def _per_n_reference(pair, others, log_tail):
    """The grid's (lo, width, log_pi, dropped), one N at a time."""
    q = 2.0 / pair.k
    rows = []
    for big_n in others:
        if q >= 1.0:
            rows.append((int(big_n), np.array([0.0, -np.inf]), 0.0))
            continue
        lo, hi, log_cut = binomial_log_window(int(big_n), q, log_tail)
        log_pi = binomial_logpmf(np.arange(lo, hi + 2), int(big_n), q)
        cut = math.exp(log_cut) if log_cut > -745 else 0.0
        edge = pair.w_other * math.exp(log_pi[0] + 1e-12) if lo > 0 else 0.0
        rows.append((lo, log_pi, (cut + edge) * (1 + 1e-12)))
    width = np.array([r[1].size - 1 for r in rows])
    log_pi = np.full((len(rows), int(width.max()) + 1), -np.inf)
    for i, r in enumerate(rows):
        log_pi[i, :r[1].size] = r[1]
    return (np.array([r[0] for r in rows]), width, log_pi, np.array([r[2] for r in rows]))


@pytest.mark.parametrize("n, epsilon0, k", [
    (1000, 3.0, 16), (10**4, 5.0, 64), (10**6, 9.0, 4), (50, 1.0, 2), (10**5, 7.0, 3),
    (200, 12.0, 1024)])
def test_grid_equals_the_per_n_construction(n, epsilon0, k):
    pair = blanket.blanket_count_pair(n=n, epsilon0=epsilon0, k=k)
    *_, grid = blanket._layout(pair, 1e-30, 64)
    lo, width, log_pi, dropped = _per_n_reference(pair, grid.others, math.log(1e-30))
    assert np.array_equal(grid.lo, lo) and np.array_equal(grid.width, width)
    assert np.array_equal(grid.log_pi, log_pi)  # the same operations elementwise
    # math.exp and np.exp may differ in the last ulp; the 1e-12 slack covers far more
    assert np.allclose(grid.dropped, dropped, rtol=1e-15, atol=0)


def test_grid_chunks_agree_with_one_call(monkeypatch):
    pair = blanket.blanket_count_pair(n=10**4, epsilon0=5.0, k=64)
    *_, whole = blanket._layout(pair, 1e-30, 64)
    monkeypatch.setattr(blanket, "_CHUNK_CELLS", 1)  # one row per binomial_logpmf call
    *_, chunked = blanket._layout(pair, 1e-30, 64)
    assert np.array_equal(whole.log_pi, chunked.log_pi)
    assert np.array_equal(whole.slice_mass, chunked.slice_mass)


@pytest.mark.parametrize("n, epsilon0, k", [
    (4000, 4.0, 127), (1000, 3.0, 16), (10**4, 5.0, 64), (300, 12.0, 1024), (2000, 0.5, 3)])
def test_special_pair_rows_equal_one_call_per_a(n, epsilon0, k, monkeypatch):
    view = privacy.special_pair(n=n, epsilon0=epsilon0, k=k)
    a, b = view.coords
    # the pair's Q log-masses are log Bin(n, pi_a)(a) + log Bin(n - a, 1/(k-1))(b): recompute
    # the second term one a at a time and compare the differences row by row
    pb = 1.0 / (k - 1)
    for ai in np.unique(a)[:: max(1, np.unique(a).size // 25)]:
        rows = a == ai
        ref = binomial_logpmf(b[rows], int(n - ai), pb)
        part = view.q[rows] - view.q[rows][0] + ref[0]
        assert np.allclose(part, ref, rtol=0, atol=1e-9)
    monkeypatch.setattr(privacy, "_GRID_CELLS", 1)  # one row per call: the same arrays
    again = privacy.special_pair(n=n, epsilon0=epsilon0, k=k)
    assert np.array_equal(view.q, again.q) and np.array_equal(view.p, again.p)
    assert view.tail_q == again.tail_q
