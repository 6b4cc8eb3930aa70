"""The subsampled pairs' losses and their error bounds, against 50-digit mpmath.

The loss of an outcome depends on the clone-count law pi = Bin(m, p1) only through
rho = pi(c-1)/pi(c) = c (1 - p1)/((m - c + 1) p1), which `_log_rho` takes in closed form:
the difference of two log-PMFs carried both their error bounds (16 u m each for p1's error),
3.6e-7 per round at m = 1e8, which raised every loss of n = 1e8 users by that (11 % of the
epsilon of 1000 rounds). The token binomial's log-PMF is summed out from each row's centre
(`half_binomial_rows`). Each stated bound is checked to hold, and to be small."""

import math

import mpmath
import numpy as np
import pytest

from accountant.composition import pld
from accountant.composition.subsampled import (
    SubsampledPair,
    _block_chunk,
    _log_rho,
    _token_terms,
)
from accountant.numeric.special import binomial_logpmf, half_binomial_rows, log_pmf_error
from accountant.pairs.clones import blanket_k_rr, fmt_clones


@pytest.fixture(autouse=True)
def _digits():
    # 50 digits here only: a module-level setting leaks into other tests of the worker
    with mpmath.workdps(50):
        yield


def _mp_log_half_binomial(c: int, a: int) -> mpmath.mpf:
    return mpmath.log(mpmath.binomial(c, a)) - c * mpmath.log(2)


@pytest.mark.parametrize("c", [0, 1, 2, 3, 4, 7, 50, 1001, 50_000, 1_234_567])
def testhalf_binomial_rows_hold_their_bound(c):
    half = 60
    values, errors = half_binomial_rows(np.array([float(c)]), half)
    a0 = c // 2
    checked = 0
    for j in range(-half, half + 1):
        a = a0 + j
        value, bound = values[0, j + half], errors[0, j + half]
        if not 0 <= a <= c:
            assert not np.isfinite(value)      # masked by the caller
            continue
        truth = _mp_log_half_binomial(c, a)
        assert abs(mpmath.mpf(float(value)) - truth) <= bound, (c, a, value, bound)
        # the bound is no idle margin: within 1e-11 over 60 steps out
        assert bound < 1e-11
        checked += 1
    assert checked == min(c + 1, 2 * half + 1) or c > 2 * half


def testhalf_binomial_rows_agree_with_loader_at_large_counts():
    c = np.array([2e5, 2e5 + 1, 7e6])
    values, errors = half_binomial_rows(c, 2000)
    a = np.floor(c / 2)[:, None] + np.arange(-2000, 2001)[None, :]
    loader = binomial_logpmf(a, np.broadcast_to(c[:, None], a.shape), 0.5)
    assert np.all(np.abs(values - loader) <= errors + log_pmf_error(loader))
    assert float(np.max(errors)) < 1e-10


@pytest.mark.parametrize("m, p1", [(1e8, 4.98e-4), (1e6, 0.01), (50.0, 0.3), (9.0, 0.5)])
def test_log_rho_closed_form_holds_its_bound(m, p1):
    mid = int(m * p1)
    k = np.unique(np.clip(np.array([0, 1, 2, mid - 3, mid, mid + 5, int(m), int(m) + 1],
                                   dtype=float), 0, m + 1))
    lpi, lpi1 = binomial_logpmf(k, m, p1), binomial_logpmf(k - 1, m, p1)
    e_pi = log_pmf_error(lpi) + log_pmf_error(lpi1) + 16 * 2**-53 * (k + m)
    log_rho, err = _log_rho(k, m, p1, lpi, lpi1, e_pi)
    mp_p1 = mpmath.mpf(p1)
    for kk, value, bound in zip(k, log_rho, err, strict=True):
        kk = int(kk)
        if kk == 0:
            assert value == -math.inf          # pi(-1) = 0
            continue
        if kk > m:
            assert value == math.inf           # pi(k) = 0, pi(k-1) > 0
            continue
        truth = (mpmath.log(kk) - mpmath.log(int(m) - kk + 1) + mpmath.log(1 - mp_p1)
                 - mpmath.log(mp_p1))
        assert abs(mpmath.mpf(float(value)) - truth) <= bound
        assert bound < 1e-12                   # not the 16 u m of the log-PMFs' difference


def _mp_loss(pair, q: float, m: float, p1: float, c: int, a: int) -> mpmath.mpf:
    b = c - a
    q_, p1_ = mpmath.mpf(q), mpmath.mpf(p1)
    rho = mpmath.mpf(c) * (1 - p1_) / ((int(m) - c + 1) * p1_)
    w, w1 = mpmath.mpf(pair.w), mpmath.mpf(pair.w_prime)
    f_p = 2 * (w * a + w1 * b) / c
    f_q = 2 * (w1 * a + w * b) / c
    return mpmath.log((1 - q_) + q_ * rho * f_p) - mpmath.log((1 - q_) + q_ * rho * f_q)


@pytest.mark.parametrize("pair, q, m", [
    (fmt_clones(n=10**8, epsilon0=3.0), 0.01, 99_000_000.0),
    (fmt_clones(n=2000, epsilon0=1.0), 0.3, 1500.0),
    (blanket_k_rr(n=10**6, epsilon0=2.0, k=5), 0.5, 600_000.0),
])
def test_substitute_losses_hold_their_margins(pair, q, m):
    keep = 1 - q + q * pair.clone_probability
    p1 = q * pair.clone_probability / keep
    mid = m * p1
    c = np.arange(max(1.0, math.floor(mid - 3 * math.sqrt(mid))), math.floor(mid) + 3)
    terms = _token_terms(c, 25, pair.w, pair.w_prime)
    loss, margin, _, _, starts = _block_chunk(terms, 0, terms.rows, m, p1, q)
    # the losses increase along each row (what runs of neighbours rely on)
    for r0, r1 in zip(starts[:-1], starts[1:], strict=True):
        assert np.all(np.diff(loss[r0:r1]) >= 0)
    # the outcomes in order: row by row, a = floor(c/2) - 25 .. + 25 where 0 <= a <= c
    outcomes = [(int(cc), int(cc // 2 + j)) for cc in c for j in range(-25, 26)
                if 0 <= cc // 2 + j <= cc]
    assert len(outcomes) == loss.size
    picks = np.linspace(0, loss.size - 1, 40).astype(int)
    for i in picks:
        cc, a = outcomes[i]
        truth = _mp_loss(pair, q, m, p1, cc, a)
        assert abs(mpmath.mpf(float(loss[i])) - truth) <= margin[i], (cc, a)
    # a few ulps of the logs, where the log-PMFs' difference gave 16 u m
    assert float(np.max(margin)) < 1e-12


def test_both_directions_are_built_once_and_kept():
    source = SubsampledPair(fmt_clones(n=10**5, epsilon0=3.0), 0.01)
    upper = source._substitute_atoms(True, 1e-12, 16)
    assert set(source._atoms) == {(True, 1e-12, 16), (False, 1e-12, 16)}
    lower = source._substitute_atoms(False, 1e-12, 16)
    assert source._substitute_atoms(True, 1e-12, 16) is upper
    assert source._atoms[(False, 1e-12, 16)] is lower
    # each direction its own M per block (first or last): different block weights
    assert upper[1][0][5] != lower[1][0][5]


@pytest.mark.slow
def test_large_n_dominating_pair_gap_is_the_grid():
    """n = 1e8 users, q = 0.01, T = 1e3: the dominating pair's own bracket was 14 % wide
    (the losses raised by 3.6e-7 each); the grid's coupling alone leaves about 2 %."""
    source = SubsampledPair(fmt_clones(n=10**8, epsilon0=3.0), 0.01)
    out = pld.compose_views([(source, 1000)], delta=1e-5)
    assert out.relative_gap < 0.03
    assert out.upper.value < 0.00586


def test_a_probe_without_a_lower_end_jumps_by_the_coupling_shift(monkeypatch):
    """The epsilon(delta) probes start at 0.05; one with no lower end at all used to go
    down by 4 each time (0.05, 0.0125, 3e-3, 1e-3: 2.5 s of binning each at n = 1e8);
    the coupling's shift at delta says how far (here 0.05, 3.7e-3, 1e-3)."""
    import accountant.composition.pld.compose as compose
    seen: list[float] = []
    inner = compose._compose_side

    def spy(mechanisms, width, *args, **kwargs):
        seen.append(width)
        return inner(mechanisms, width, *args, **kwargs)

    monkeypatch.setattr(compose, "_compose_side", spy)
    source = SubsampledPair(fmt_clones(n=10**5, epsilon0=3.0), 0.01)
    out = pld.compose_views([(source, 1000)], delta=1e-5)
    probes = sorted({w for w in seen if w >= 1e-3}, reverse=True)
    assert probes[0] == 0.05 and probes[-1] == 1e-3
    assert len(probes) == 3 and 1e-3 < probes[1] < 0.0125
    assert out.relative_gap <= 0.008
