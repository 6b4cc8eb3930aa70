"""The clone pair's Renyi curve from its count window's two ends (`clones._window_excess`).

E_c(alpha) is nonincreasing in the clone count c, so the upper terms at the window's first
count and the lower terms at its last bound every block; at large counts one block costs
two evaluations instead of one per block. These tests pin when it is taken and that its
bracket is the full evaluation's to within the declared widening.
"""

from __future__ import annotations

import numpy as np
import pytest

from accountant.pairs import clones

ORDERS = [1.5, 4.0, 32.0]


def _curve(pair, monkeypatch, *, one_block: bool):
    calls: list[int] = []
    terms = clones._renyi_excess_terms

    def counted(p, cs, alphas):
        calls.append(len(cs))
        return terms(p, cs, alphas)

    monkeypatch.setattr(clones, "_renyi_excess_terms", counted)
    if not one_block:
        monkeypatch.setattr(clones, "_ONE_BLOCK_RTOL", 0.0)
    out = clones.renyi_curve(pair, alphas=ORDERS)
    monkeypatch.undo()
    return out, calls


@pytest.mark.parametrize(("k", "evaluations"), [(2, [2]), (3, [2, 2])])
def test_large_counts_group_blocks_with_the_same_bracket(monkeypatch, k, evaluations):
    # n = 1e10, eps0 = 0.05: 13 block points whose moments differ by 5e-5 (k = 2: one
    # group, the window's two ends) or 2.5e-4 (k = 3: three groups, two more points) beyond
    # their own brackets (binary RR's and 3-RR's blanket pairs: 15 s and 27 s CLI cases)
    pair = clones.blanket_k_rr(n=10**10, epsilon0=0.05, k=k)
    one, calls = _curve(pair, monkeypatch, one_block=True)
    assert calls == evaluations
    full, calls_full = _curve(pair, monkeypatch, one_block=False)
    assert calls_full[-1] > 2
    for (lo1, up1), (lof, upf) in zip(one, full, strict=True):
        # both certified: they overlap, and one block widens by at most its tolerance
        assert lo1.value <= upf.value and lof.value <= up1.value
        assert lo1.value <= lof.value <= upf.value <= up1.value * (1 + 1e-12)
        assert (up1.value - lo1.value) - (upf.value - lof.value) <= 2e-4 * up1.value


@pytest.mark.parametrize(("n", "epsilon0"), [(50, 1.0), (10**6, 1.0), (10**8, 0.05)])
def test_counts_whose_moments_move_keep_every_block(monkeypatch, n, epsilon0):
    # the window's ends differ (relative spread 5e-4 at n = 1e8 and more below): one
    # block would widen the bracket, so every block point is evaluated
    pair = clones.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)
    _, calls = _curve(pair, monkeypatch, one_block=True)
    assert len(calls) == 2 and calls[0] == 2 and calls[1] > 2


def test_one_block_terms_bound_every_block_from_the_right_side():
    # the broadcast columns: upper terms of the first count, lower terms of the last
    pair = clones.blanket_k_rr(n=10**10, epsilon0=0.05, k=2)
    starts, ends, _, _ = clones._c_blocks(pair, 1e-40, 64, log_tail=-70.0)
    points = np.append(starts, ends[-1])[:5]
    al = np.array(ORDERS)
    lo, hi, _, _ = clones._window_excess(pair, points, al)
    lo_all, hi_all, _, _ = clones._renyi_excess_terms(pair, points, al)
    assert len(np.unique(hi[0])) < points.size  # blocks were grouped
    assert np.all(hi >= hi_all - 1e-9 * np.abs(hi_all))
    assert np.all(lo <= lo_all + 1e-9 * np.abs(lo_all))
