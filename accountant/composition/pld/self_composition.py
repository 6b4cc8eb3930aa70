"""T-fold self-composition of a discretised measure: one FFT and a pointwise power
(`power_compose`), or repeated squaring with each partial power cut to its Chernoff window
(`square_compose`), exponentially tilted towards the loss where a tiny delta is read. The
FFT's round-off noise never lets stored-mass truncation reach a tiny threshold; the cuts'
and tilts' bounds enter the ledger (docs/conversions.md#certified-pld-engine).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from accountant.composition.pld.convolution import (
    convolve,
    fft_relative,
    sum_squares,
    truncate,
)
from accountant.composition.pld.measure import LossPmf
from accountant.composition.rdp import ROUNDS
from accountant.domains import checked
from accountant.numeric import rounding

_U = rounding.UNIT_ROUNDOFF

_MAX_POWER_LENGTH = 1 << 24
def index_moments(mass: np.ndarray) -> tuple[float, float] | None:
    """(mean, variance) of the grid index under the normalised measure (a float guide for
    where tilts and targets go, not part of any bound); None for no mass."""
    total = float(np.sum(mass))
    if total <= 0:
        return None
    index = np.arange(mass.size, dtype=float)
    # einsum, not BLAS's threaded dot (`convolution.sum_squares`)
    mean = float(np.einsum("i,i->", mass, index)) / total
    return mean, max(float(np.einsum("i,i->", mass, (index - mean) ** 2)) / total, 0.0)


def _lams(mass: np.ndarray, rounds: int, count: int) -> np.ndarray:
    """A geometric grid of tilts lam > 0 (per grid index) for Chernoff bounds of the
    `rounds`-fold index sum: from far below 1 / (support sqrt(T)) to 50 over the smaller of
    the support and the standard deviation (a measure concentrated on a few cells of a wide
    support needs a steep tilt: the Q||P order of sigma = 0.5, q = 0.001 spans 5e4 cells
    with a deviation of 10, and a grid ending at 50 / support found no bound below e^-10
    for its epsilon at delta 1e-10; its reading stayed untilted and +inf)."""
    span = max(float(mass.size), 1.0)
    moments = index_moments(mass)
    deviation = span if moments is None else math.sqrt(moments[1])
    return np.geomspace(1e-3 / (span * math.sqrt(rounds)),
                        50.0 / max(min(span, deviation), 1.0), count)


def _log_mgfs(log_m: np.ndarray, index: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """log M(lam) = log sum_i m_i e^(lam i) for each lam, from the live entries' log m_i
    and indices (logsumexp: no overflow at large lam i); a block of lams per array
    operation (one call per lam was a tenth of a T = 1e4 Gaussian composition)."""
    out = np.empty(lams.size)
    step = max(1, _MGF_BLOCK // max(index.size, 1))
    for s in range(0, lams.size, step):
        part = log_m[None, :] + lams[s:s + step, None] * index[None, :]
        top = np.max(part, axis=1)
        out[s:s + step] = top + np.log(np.sum(np.exp(part - top[:, None]), axis=1))
    return out


# the most entries one block of `_log_mgfs` forms (32 MB of floats)
_MGF_BLOCK = 4_000_000


def _chernoff_windows(mass: np.ndarray, rounds: int,
                      tail: float) -> Callable[[int], tuple[int, int]]:
    """r -> (lo, hi) for every r <= `rounds`: the r-fold sum K of grid indices (0-based)
    of the measure `mass` lies below lo or above hi with mass <= tail each:
    mass^r(K > x) <= M(lam)^r e^(-lam x) for every lam > 0, M(lam) = sum_i m_i e^(lam i),
    and the mirror bound for the left; the best of a grid of lam (one evaluation of M for
    all r), rounded outwards with a margin for the float evaluation."""
    index = np.arange(mass.size, dtype=float)
    live = mass > 0
    with np.errstate(divide="ignore"):
        log_m = np.log(mass[live])
    index = index[live]
    lams = _lams(mass, rounds, 32)
    ups, downs = _log_mgfs(log_m, index, lams), _log_mgfs(log_m, index, -lams)
    log_tail = math.log(tail)
    top = mass.size - 1

    def window(r: int) -> tuple[int, int]:
        slack = 1e-9 * (np.abs(ups) + np.abs(downs) + 1) * r
        hi = min(float(r) * top, float(np.min((r * ups - log_tail + slack) / lams)))
        lo = max(0.0, float(np.max((log_tail - r * downs - slack) / lams)))
        return max(0, math.floor(lo) - 2), math.ceil(hi) + 2
    return window


def _chernoff_window(mass: np.ndarray, rounds: int, tail: float) -> tuple[int, int]:
    """(lo, hi) of `_chernoff_windows` for `rounds` rounds."""
    return _chernoff_windows(mass, rounds, tail)(rounds)


def _lifted(pmf: LossPmf, rounds: int, mass: np.ndarray, offset: int, error: float,
            relative: float, moved: float = 0.0, infinity: float = 0.0) -> LossPmf:
    """The `rounds`-fold composition of `pmf` from `mass` (grid offset `offset` from
    T pmf.offset), a computed `rounds`-fold
    composition of its stored finite masses s taken as exact (stored = s^T (1 + theta) + e,
    |theta| <= `relative`, sum |e| <= `error`): the input's own ledger through the T-fold
    product, and its +inf atom. With s = nu (1 + theta_1) + e_1 (pmf's ledger), s^T is
    nu^T (1 + Theta) with |Theta| <= (1 + relative_1)^T - 1, plus terms holding some e_1 of
    l1 norm <= (|s| + 2 E_1)^T - (|s| + E_1)^T (expand the product; |nu (1 + theta_1)| <=
    |s| + E_1)."""
    a_tot, e_in = pmf.total, pmf.error
    err_in = math.exp(rounds * math.log(a_tot + 2 * e_in)) - math.exp(
        rounds * math.log(a_tot + e_in)) if e_in > 0 else 0.0
    rel_in = math.expm1(rounds * math.log1p(pmf.relative)) if pmf.relative > 0 else 0.0
    nu = (a_tot + e_in) / (1 - pmf.relative)
    moved += rounds * pmf.moved * math.exp((rounds - 1) * math.log(max(nu, 1.0)))
    # the +inf atom: (s + inf)^T - s^T, with s the finite mass, as (s + inf)^T (1 - (s /
    # (s + inf))^T): both factors in [0, 1] (s^T e^(T log1p(inf/s)) - s^T overflowed in
    # its second factor, GKMP20's one-sided atoms at T = 1e4)
    s_fin = max(float(np.sum(pmf.mass)), 1e-300)
    if pmf.infinity > 0:
        grow = math.log1p(pmf.infinity / s_fin)
        infinity += math.exp(rounds * (math.log(s_fin) + grow)) * -math.expm1(-rounds * grow)
        rel_in = max(rel_in, 8 * _U + 4 * rounds * _U * (abs(math.log(s_fin)) + grow + 1))
    total_rel = (1 + rel_in) * (1 + relative) - 1
    return LossPmf(pmf.width, rounds * pmf.offset + offset, mass,
                   rounding.up(infinity * (1 + 1e-9)),
                   rounding.up((err_in * (1 + relative) + error) * (1 + 1e-9)),
                   pmf.pessimistic, rounding.up(total_rel * (1 + 1e-9)),
                   moved=rounding.up(moved * (1 + 1e-9)),
                   drift=rounding.up(rounds * pmf.drift * (1 + 4 * _U)),
                   spread=rounding.up(rounds * pmf.spread * (1 + 4 * _U)))


def _window_cut(pmf: LossPmf, lo: int, hi: int, tail: float) -> LossPmf:
    """Drop the stored entries outside the grid indices [lo, hi], where the exact measure
    the arrays stand for has mass <= tail on each side: a dropped entry's new error is
    minus its exact mass times (1 + theta), so each side that drops anything adds at most
    tail (1 + relative) to the ledger, or its stored mass plus the old errors there (the
    rule of `truncate`), whichever is smaller."""
    size = pmf.mass.size
    first = min(max(lo - pmf.offset, 0), size)
    last = max(min(hi - pmf.offset, size - 1), first - 1)
    if first == 0 and last == size - 1:
        return pmf
    if last < first:   # nothing left: keep one zero cell where the window starts
        first, last = 0, -1
    probs = pmf.mass
    bound = tail * (1 + pmf.relative) * (1 + 2 * _U)
    added = 0.0
    for part in (probs[:first], probs[last + 1:]):
        if part.size:
            stored = float(np.sum(part)) * (1 + 2 * rounding.sum_relative_error(part.size))
            added += min(stored, bound)
    kept = probs[first:last + 1].copy() if last >= first else np.zeros(1)
    return replace(pmf, offset=pmf.offset + first, mass=kept,
                   error=rounding.up((pmf.error + added) * (1 + 2 * _U)))


def square_compose(pmf: LossPmf, rounds: int, tail: float,
                   at: float | None = None) -> LossPmf | None:
    """The `rounds`-fold composition by repeated squaring, each partial power cut to its
    Chernoff window; None without a threshold or a nonzero mass.

    The stored finite masses s are composed as if exact (`_lifted` adds their ledger and
    +inf atom at the end), so the r-fold partial powers stand for s^r, whose mass outside
    `_chernoff_windows`(r) is at most `tail` on each side: each cut costs at most tail per
    side (`_window_cut`) whatever the FFT's round-off left there, and is valid for any
    measure (both readings carry the absolute ledger); `truncate` then moves or drops what
    stored mass alone allows, as before. Cutting by stored mass alone never passed the
    round-off floor: the FFT's noise of about 1e-19 a cell summed past a threshold of
    1e-16 within a few thousand cells, so each squaring doubled the support (sigma = 1,
    q = 0.01, T = 1e3, delta = 1e-8: 2e7 cells where the window holds 1.2e5, and minutes
    where this takes a second; the rounded measures of sigma = 2, q = 0.001, T = 1e4 at
    delta 1e-10: more than 60 s; issue 20).

    `at`: a loss far in the right tail where the measure will be read (a connect-the-dots
    measure, upper or lower). The FFT's absolute round-off (about 1e-13 of the mass per
    squaring, doubled by each later one) is then far above a delta of 1e-10. So the chain
    runs on the exponentially tilted measure t_i = s_i e^(lam i) / M(lam) (convolution
    commutes with tilting: s^T_k = M^T e^(-lam k) t^T_k), lam chosen so that M^T e^(-lam k*)
    is smallest at the index k* of `at` (Chernoff), and is tilted back: an error of the
    tilted chain at index k shrinks by M^T e^(-lam k), so the entries above k0 carry at
    most M^T e^(-lam k0) times the tilted ledger, about the tail's own mass times 1e-9
    (`LossPmf.tilt`). Entries where the factor exceeds 1 (the bulk) are dropped: their
    exact mass, at most |s|^T, goes to the total ledger, which only readings below them use.
    """
    if rounds < 2 or tail <= 0 or pmf.mass.size < 2 or float(np.sum(pmf.mass)) <= 0:
        return None
    tilted = None
    # connect-the-dots measures and an upper one that fills its grid (the substitute
    # subsampled round's, spread inf: untilted, its ledger read +inf at delta 1e-10)
    if at is not None and _dense(pmf):
        tilted = _tilted(pmf.mass, rounds, at / pmf.width - rounds * pmf.offset)
    start, r_tilt = (pmf.mass, 0.0) if tilted is None else (tilted[2], tilted[3])
    window = _chernoff_windows(start, rounds, tail)

    def cut(m: LossPmf, r: int) -> LossPmf:
        lo, hi = window(r)
        return truncate(_window_cut(m, lo, hi, tail), tail)

    # a tilted chain drops what it truncates (into its ledger), an upper or a lower one:
    # a move there would be in tilted units, and tilting back does not keep the moved mass.
    # `truncate` drops for an upper measure of finite spread; an upper measure of spread inf
    # (the substitute subsampled round's) once moved its chain's tails, and tilted back they
    # were in no ledger (1.1-1.7x the positional bound; the test composes such a measure)
    spread = pmf.spread if tilted is None or math.isfinite(pmf.spread) else pmf.width ** 2
    power = LossPmf(pmf.width, 0, start, 0.0, 0.0, pmf.pessimistic or tilted is not None,
                    r_tilt, spread=spread)
    result: LossPmf | None = None
    r_power, r_result, k = 1, 0, int(rounds)
    while True:
        if k & 1:
            r_result += r_power
            result = power if result is None else cut(convolve(result, power), r_result)
        k >>= 1
        if not k:
            break
        r_power *= 2
        power = cut(convolve(power, power), r_power)
    assert result is not None
    if tilted is None:
        return _lifted(pmf, rounds, result.mass, result.offset, result.error,
                       result.relative, moved=result.moved, infinity=result.infinity)
    return _untilted(pmf, rounds, result, tilted[0], tilted[1])


def _untilted(pmf: LossPmf, rounds: int, result: LossPmf, lam: float,
              log_m: float) -> LossPmf | None:
    """The `rounds`-fold composition of `pmf` from `result`, a composition of its tilt
    t_i = s_i e^(lam i) / M (M = e^`log_m`) with its ledger in tilted units (grid indices
    from 0 at T pmf.offset): tilted back, the errors above index k shrink by M^T e^(-lam k)
    (`LossPmf.tilt`), the bulk where that factor exceeds 1 is dropped into the total
    ledger, and the input's own ledger is lifted (`_lifted`); None when nothing is left."""
    t_log = rounds * log_m
    # the first index whose factor M^T e^(-lam k) is at most 1
    first_small = math.ceil(t_log / lam) + 1
    k_c = max(result.offset, first_small)
    skip = k_c - result.offset
    if skip >= result.mass.size:
        return None
    ks = np.arange(k_c, result.offset + result.mass.size, dtype=float)
    exponent = t_log - lam * ks       # <= -lam < 0 by the choice of k_c
    kept = result.mass[skip:] * np.exp(exponent)
    # the factor's exponent is a float sum: its error bounds the factor's relative error
    r_back = 8 * _U * (abs(t_log) + lam * float(ks[-1]) + 1) + 2 * _U
    relative = (1 + result.relative) * (1 + r_back) - 1
    chain = result.error * (1 + r_back)
    # dropped bulk: exact mass <= |s|^T (1 + relative); the kept errors <= the tilted ledger
    s_total = float(np.sum(pmf.mass)) * (1 + 2 * rounding.sum_relative_error(pmf.mass.size))
    # (whether the chain kept those entries and they are dropped here, or its windows cut
    # them in tilted units, where the chain's ledger holds them times a factor above 1:
    # a window starting above k_c once left the bulk out of the total ledger, which
    # readings below the positional part use)
    bulk = math.exp(rounds * math.log(s_total)) * (1 + relative) if first_small > 0 else 0.0
    # underflow in the factor and the product: at most two subnormals per entry
    floor = kept.size * 1e-323
    # the input's ledger through the T-fold product, alone: the positional base
    out = _lifted(pmf, rounds, kept, k_c, floor, relative)
    base = out.error
    total = rounding.up((base + (chain + bulk) * (1 + 1e-9)) * (1 + 2 * _U))
    # positional part, in absolute grid indices j = k + T offset: exp(log_c - lam j)
    shift = lam * rounds * pmf.offset
    log_c = t_log + shift + math.log(max(chain, 1e-300))
    log_c += 1e-9 + 16 * _U * (abs(t_log) + abs(shift) + abs(log_c))
    return replace(out, error=total, tilt=(lam, log_c, base, k_c + rounds * pmf.offset))


def _tilted(mass: np.ndarray, rounds: int,
            k_star: float) -> tuple[float, float, np.ndarray, float] | None:
    """(lam, log M(lam), t, relative error of t) of the tilt of `square_compose`, the best
    lam of a grid for the Chernoff bound M^T e^(-lam k*) of the T-fold index sum at k*;
    None when no index of the right tail has a small bound.

    A target is a guess from coarser grids: one beyond the T-fold losses is moved to the
    mean plus 8 deviations (below the top), one in the bulk up to the first index with a
    bound of e^-10 (the Q||P order of sigma = 0.5, q = 0.001, T = 1e3 at delta 1e-10 was
    guessed above its losses, then below its tail, and stayed untilted: +inf). Any lam is
    certified; the target only decides where the ledger is small."""
    index = np.arange(mass.size, dtype=float)
    live = mass > 0
    if k_star <= 0 or not np.any(live):
        return None
    top = rounds * float(np.flatnonzero(live)[-1])
    if k_star >= top:
        mean, var = index_moments(mass) or (0.0, 0.0)   # live mass: never None here
        k_star = min(top - 1, rounds * mean + 8 * math.sqrt(rounds * var))
        if k_star <= 0:
            return None
    with np.errstate(divide="ignore"):
        log_m = np.log(mass)
    span = max(float(mass.size), 1.0)
    lams = _lams(mass, rounds, 48)
    log_mgfs = _log_mgfs(log_m[live], index[live], lams)
    bounds = rounds * log_mgfs - lams * k_star
    best = int(np.argmin(bounds))
    if bounds[best] > -10.0:
        k_min = float(np.min((rounds * log_mgfs + 10.5) / lams))
        if not k_star < k_min < top:
            return None
        bounds = rounds * log_mgfs - lams * k_min
        best = int(np.argmin(bounds))
        if bounds[best] > -10.0:
            return None
    lam, log_mgf = float(lams[best]), float(log_mgfs[best])
    t = np.zeros(mass.size)
    t[live] = np.exp(log_m[live] + lam * index[live] - log_mgf)
    # each t_i: a float exponent of three terms, then exp
    rel = 8 * _U * (float(np.max(np.abs(log_m[live]))) + lam * span + abs(log_mgf) + 1) \
        + 2 * _U
    return lam, log_mgf, t, rel


def power_compose(pmf: LossPmf, rounds: int, tail: float,
                  budget: float = math.inf) -> LossPmf | None:
    """The `rounds`-fold composition by one FFT and a pointwise power (characteristic
    function), with its ledger; None when the window is too long.

    The T-fold sum of the grid indices is cut to a Chernoff window (`_chernoff_window`,
    mass <= tail outside each end) and computed as a cyclic convolution of that length: the
    mass outside wraps around into the window. Pessimistic: the right tail is put on +inf
    and its wrapped copy is an absolute error; the left tail wraps upwards (a move in the
    safe direction, counted in `moved`). Optimistic: the mirror. Round-off: `_power`.
    None as well when that round-off and the wrapped tail exceed `budget`.
    """
    if rounds < 2 or pmf.mass.size < 2 or tail <= 0:
        return None
    chain = _power(pmf.mass, rounds, tail, limit=budget - tail)
    if chain is None or chain[2] + tail > budget:
        return None
    out, lo, fft_l1 = chain
    # each end's mass outside the window (<= tail, Chernoff) wraps around: pessimistic,
    # the right one also goes to +inf
    return _lifted(pmf, rounds, out, lo, fft_l1 + tail, 0.0, moved=2 * tail,
                   infinity=tail if pmf.pessimistic else 0.0)


def tilted_power_compose(pmf: LossPmf, rounds: int, tail: float, at: float,
                         budget: float) -> LossPmf | None:
    """The `rounds`-fold composition by one FFT and a power of the measure's exponential
    tilt towards the loss `at` (`_tilted`), tilted back (`_untilted`); None when no tilt
    applies or the positional ledger where `at` is read exceeds `budget`.

    A tiny delta is read far in the right tail, where the untilted power's absolute
    round-off (about 1e-8 of the mass at T = 1e4) is far above it, and the squarings that
    replaced it cost about 2 log2(T) FFTs per measure (sigma = 1, q = 0.001, T = 1e4 at
    delta 1e-10: 80 FFTs of 2^20, 11 s). In tilted units the chain's errors are absolute:
    the power's round-off, and for each end of the window the exact mass outside it
    (<= tail, Chernoff on the tilt) and its wrapped copy inside: 4 tail. Tilted back, each
    shrinks by the factor at its index, as the squaring chain's do."""
    if rounds < 2 or pmf.mass.size < 2 or tail <= 0 or float(np.sum(pmf.mass)) <= 0:
        return None
    tilted = _tilted(pmf.mass, rounds, at / pmf.width - rounds * pmf.offset)
    if tilted is None:
        return None
    lam, log_m, start, r_tilt = tilted
    # the tilted chain's round-off reaches the reading at `at` times M^T e^(-lam k0)
    # (`LossPmf.error_above`, k0 one cell below `at`), or whole where that exceeds 1
    k0 = math.floor(at / pmf.width) - 1 - rounds * pmf.offset
    factor = math.exp(min(rounds * log_m - lam * k0, 0.0))
    chain = _power(start, rounds, tail, limit=budget / factor if factor > 0 else math.inf)
    if chain is None:
        return None
    out, lo, fft_l1 = chain
    relative = math.expm1(rounds * math.log1p(r_tilt))
    result = LossPmf(pmf.width, lo, out, 0.0, rounding.up(fft_l1 + 4 * tail), True,
                     rounding.up(relative * (1 + 1e-9)))
    composed = _untilted(pmf, rounds, result, lam, log_m)
    if composed is None or composed.error_above(at) > budget:
        return None
    return composed


def _power(mass: np.ndarray, rounds: int, tail: float,
           limit: float = math.inf) -> tuple[np.ndarray, int, float] | None:
    """(the cyclic T-fold self-convolution of `mass` on its Chernoff window, rotated to
    start at the window's first index lo, lo, its l1 round-off bound), or None when the
    window is too long, the mass too large for the bound, or the bound surely above
    `limit` (known before any FFT: its zero-frequency term alone; 1e9 rounds tried two
    FFTs of 2^23 for nothing, 4 s of a 28 s answer).

    Round-off (docs/conversions.md#power-route), with y = F t the exact spectrum of the
    padded input t, z the computed one, w the computed T-th powers, L the length:
    - forward, componentwise: Higham's proof of his Thm 24.2 bounds each factor of the FFT
      elementwise, |dA_k| <= eta |A_k|, and |A_t|...|A_1| is the all-ones matrix, so
      |z_k - y_k| <= e_L |t|_1 = e_c (doubled here for the real FFT's extra stage);
    - power: |z^T - y^T| <= T r^(T-1) |z - y| with r >= max(|z_k|, |y_k|), and the chain
      of complex squarings adds <= 6 T u |z_k|^T;
    - inverse: Higham's bound e_L ||F^-1 w||_2 on its own round-off, and
      ||F^-1 (w - y^T)||_2 = ||w - y^T||_2 / sqrt(L);
    so the l1 error (sqrt(L) times the 2-norm) is at most e_L ||w||_2 + ||b||_2 with
    b_k = 6 T u r_k^T + T e_c r_k^(T-1), every norm over the full spectrum (twice the
    half spectrum's sums). Most coefficients have r_k far below 1: against the normwise
    T e_L sqrt(L) |t|_2 (plus 6 T u sqrt(L)) it replaces, the ratio is about
    |t^T|_2 / |t|_2 (5-8x for a spread measure at T = 1e4; 16x for the tilted Gaussian
    round read at delta 1e-10, whose tilted power then fits the budget)."""
    total = float(np.sum(mass))
    if total <= 0:
        return None
    lo, hi = _chernoff_window(mass, rounds, tail)
    length = 1 << (max(hi - lo + 1, mass.size) - 1).bit_length()
    if length > _MAX_POWER_LENGTH:
        return None
    e_l = fft_relative(length)
    s = total * (1 + 2 * rounding.sum_relative_error(mass.size))    # >= |t|_1
    e_c = 2 * e_l * s
    rho = s + e_c                                                   # >= |y_k|, |z_k|
    if rounds * math.log(rho) > math.log(2.0):
        return None
    # the bound below is at least 1.05 T e_c sqrt(2 r_0^(2(T - 1))), r_0 >= |t|_1 - e_c + e_c
    # at frequency 0 (kept 1 % short of it for the float evaluations)
    r_0 = total * (1 - 2 * rounding.sum_relative_error(mass.size))
    if 0.99 * 1.05 * rounds * e_c * math.sqrt(2.0) * math.exp((rounds - 1) * math.log(r_0)) \
            > limit:
        return None
    padded = np.zeros(length)
    padded[:mass.size] = mass
    spectrum = np.fft.rfft(padded)
    # r_k >= max(|z_k|, |y_k|) (np.abs of a complex: within 2u)
    log_r = np.log(np.minimum(np.abs(spectrum) * (1 + 4 * _U) + e_c, rho))
    result = np.ones_like(spectrum)
    base, k = spectrum, int(rounds)
    while True:
        if k & 1:
            result *= base
        k >>= 1
        if not k:
            break
        base = base * base
    w_norm = math.sqrt(2 * sum_squares(np.abs(result)))
    out = np.fft.irfft(result, length)
    np.maximum(out, 0.0, out=out)
    out = np.roll(out, -(lo % length))
    # full-spectrum sums of r^(2T) and r^(2(T - 1)); the exponents' rounding (<= 4u of
    # 2 T |log r|, far below 1e-6 while T |log r| < 1e8) within the final 1.05
    # (and a subnormal per term for those that underflow to 0)
    sum_t = 2 * float(np.sum(np.exp(2.0 * rounds * log_r))) + length * 1e-300
    sum_t1 = 2 * float(np.sum(np.exp(2.0 * (rounds - 1) * log_r))) + length * 1e-300
    spectrum_error = 6 * rounds * _U * math.sqrt(sum_t) + rounds * e_c * math.sqrt(sum_t1)
    return out, lo, 1.05 * (e_l * w_norm * 1.001 + spectrum_error)


def _dense(pmf: LossPmf) -> bool:
    """Whether the power route suits the measure: connect-the-dots (finite spread) or an
    upper measure that fills its grid anyway (the substitute subsampled round's, whose
    spread is inf because its lower end comes from another measure: 95 % of its cells are
    nonzero, and squaring it took 3.5x the one FFT at T = 1e4). Rounded measures of few
    atoms stay with squaring, whose sparse products keep a relative error."""
    if 0 < pmf.spread < math.inf:
        return True
    return (pmf.pessimistic and pmf.mass.size > 64
            and 2 * int(np.count_nonzero(pmf.mass)) > pmf.mass.size)


@checked(rounds=ROUNDS)
def self_compose(pmf: LossPmf, rounds: int, tail: float = 0.0,
                 budget: float = 0.0, at: float | None = None) -> LossPmf:
    """`rounds`-fold composition: by one FFT and a pointwise power (`power_compose`) for a
    dense measure when its added round-off stays within `budget` (or, with a target `at`,
    that of its exponential tilt where `at` is read: `tilted_power_compose`), else by
    repeated squaring, each step cut to its Chernoff window (`square_compose`) and
    truncated by stored mass.

    Args:
        pmf: one round.
        rounds: T >= 1.
        tail: truncation threshold per step (0: none).
        budget: absolute error the power route may add (0: squaring only).
        at: a loss in the right tail where the result will be read: squaring tilts
            towards it (`square_compose`).

    Returns:
        The composed measure with its ledger.

    Raises:
        ParameterError: rounds outside [1, 1e12].
    """
    if budget > 0 and tail > 0 and rounds >= 8 and _dense(pmf):
        out = power_compose(pmf, rounds, tail, budget)
        if out is None and at is not None:
            out = tilted_power_compose(pmf, rounds, tail, at, budget)
        if out is not None:
            return truncate(out, tail)
    out = square_compose(pmf, rounds, tail, at)
    if out is None and at is not None:
        out = square_compose(pmf, rounds, tail)
    if out is not None:
        return truncate(out, tail)
    # no threshold, one round, or a measure of one cell or none
    result: LossPmf | None = None
    power = pmf
    k = int(rounds)
    while True:
        if k & 1:
            result = power if result is None else truncate(convolve(result, power), tail)
        k >>= 1
        if not k:
            break
        power = truncate(convolve(power, power), tail)
    assert result is not None
    return result
