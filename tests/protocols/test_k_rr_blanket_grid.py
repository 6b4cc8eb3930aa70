"""The blanket count pair's grid of slice masses is built in one vectorised
`binomial_logpmf` evaluation per chunk of N (issue 22: k-RR calibrations at n up to 1e6).
It must equal, entry for entry, the per-N construction it replaced (one call per N),
reimplemented here from the module docstring."""

import math

import numpy as np
import pytest

from accountant.numeric.special import binomial_logpmf
from accountant.numeric.tails import binomial_log_window
from accountant.protocols.k_rr import blanket


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
