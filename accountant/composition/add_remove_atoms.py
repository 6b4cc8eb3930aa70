"""The atoms of a Poisson-subsampled shuffled round under add/remove
(docs/conversions.md#poisson-subsampling-of-a-shuffled-round), built by recurrences.

Revealing M (other users not left over) and K | M ~ Bin(M, p'), the view with the
differing user is (M, K + B), B ~ Bern(q), against (M, K) without. At an outcome (m, k),
with rho = Bin(m, p')(k-1)/Bin(m, p')(k) = k (1-p')/((m-k+1) p'):

    without: P(m) Bin(m, p')(k),      with: P(m) Bin(m, p')(k) g,   g = (1-q) + q rho,

so the order with || without has loss log g on the mass "with", the other order -log g on
the mass "without": one array of gains and one of log-masses serve both orders.

Row m's log-PMF is one Loader value (at a common anchor) plus running sums of the steps
log Bin(k)/Bin(k-1) = log((m-k+1)/k) + logit p' = -log rho(k): the same numbers give the
masses and the losses. logit p' = log q - eps0 - log(1-q) exactly (1 - p' = (1-q)/keep),
so neither p' nor 1 - p' is rounded on the way (p' near 1, where 1 - p' has few correct
digits, was outside the closed form before: n = 1e6, eps0 = 0.01, q = 0.9 fell back to
two Loader log-PMFs per outcome, 10 s per build of 1.3e7 outcomes, rebuilt for each grid).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from accountant.composition.pld.runs import Runs, runs_of
from accountant.composition.pld.sources import OutcomeLimitError
from accountant.divergence.common import ULP_SLACK
from accountant.numeric import rounding
from accountant.numeric.logspace import finite_abs
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.numeric.tails import binomial_log_window

__all__ = ["AddRemoveAtoms", "MAX_ATOMS", "add_remove_atoms", "atom_count", "merged"]

_U = rounding.UNIT_ROUNDOFF
# rows of M sharing one K window (the windows of neighbouring m barely differ)
_ROWS_PER_BLOCK = 64
# elements of a block's arrays formed at once
_BLOCK_ELEMENTS = 1 << 20
# the most atoms built (16 bytes each, kept; about 1 GiB with the binning's temporaries)
MAX_ATOMS = 5e7


@dataclass(frozen=True, slots=True)
class AddRemoveAtoms:
    """Both orders' finite atoms of one add/remove round, row by row (rows m contiguous,
    k increasing within a row, so `gain` increases within each row).

    Attributes:
        gain: log((1-q) + q rho) per atom: the loss of with || without, minus that of the
            other order.
        log_without: log P(m) Bin(m, p')(k): the mass of without; with's is this + gain.
        starts: each row's first atom, then the atom count.
        rows_m, rows_k: each row's m and its first atom's k (the atoms of a row are
            k = rows_k, rows_k + 1, ...).
        margin: a bound on |computed - true| gain.
        err: a bound on |computed - true| log mass, both orders.
        step: the largest gain difference of neighbouring atoms of a row.
        inf_with: central P-mass of with || without's +inf loss (k = m + 1; q = 1: all).
        inf_without: the other order's (q = 1 only: without has K = M, with K = M + 1).
        inf_err: a bound on the relative error of both +inf masses.
        log_out_m, log_out_k: logs of the mass outside M's window and (most of any row)
            outside K's.
    """

    gain: np.ndarray
    log_without: np.ndarray
    starts: np.ndarray
    rows_m: np.ndarray
    rows_k: np.ndarray
    margin: float
    err: float
    step: float
    inf_with: float
    inf_without: float
    inf_err: float
    log_out_m: float
    log_out_k: float

    @property
    def size(self) -> int:
        return int(self.gain.size)


def add_remove_atoms(n_other: int, q: float, epsilon0: float, tail: float) -> AddRemoveAtoms:
    """The atoms of the round with `n_other` other users, rate q, eps0-LDP randomizers,
    windows cut at tail/8 each (module docstring)."""
    r = math.exp(-epsilon0)
    keep = 1 - q + q * r                      # not a left-over draw
    lo, hi, log_out_m = binomial_log_window(n_other, keep, math.log(tail / 8), tight=True)
    p1 = min(1.0, q * r / keep)
    p1c = (1 - q) / keep                      # 1 - p', never rounded from p'
    if q < 1:
        # the atoms are kept (16 bytes each) and binned with a few temporaries of that size
        count = atom_count(n_other, q, epsilon0, tail)
        if count > MAX_ATOMS:
            raise OutcomeLimitError(
                f"the add/remove subsampled round would enumerate about {count:.3g} outcomes "
                f"(n - 1 = {n_other}, sampling_rate = {q:g}, epsilon0 = {epsilon0:g}), "
                f"above {MAX_ATOMS:.0e}")
    ms = np.arange(lo, hi + 1, dtype=float)
    log_pm = binomial_logpmf(ms, float(n_other), keep)
    err_m = float(np.max(log_pmf_error(log_pm))) + 16 * _U * n_other + ULP_SLACK
    if q >= 1:
        # p' = 1: K = M without, M + 1 with; disjoint supports, every mass at +inf
        total = float(np.sum(np.exp(log_pm)))
        return AddRemoveAtoms(np.zeros(0), np.zeros(0), np.zeros(ms.size + 1, dtype=np.int64),
                              ms, np.zeros(ms.size), 0.0,
                              err_m, 0.0, total, total, err_m + ms.size * _U,
                              log_out_m, -math.inf)
    log_q, log_1q = math.log(q), math.log1p(-q)
    logit = log_q - epsilon0 - log_1q         # log p'/(1-p'), from exact pieces
    e_logit = 4 * _U * (abs(log_q) + epsilon0 + abs(log_1q) + abs(logit))
    gains: list[np.ndarray] = []
    masses: list[np.ndarray] = []
    row_sizes: list[np.ndarray] = []
    row_k: list[np.ndarray] = []
    inf_with = 0.0
    err = margin = step = 0.0
    log_out_k = -math.inf
    for b0 in range(0, ms.size, _ROWS_PER_BLOCK):
        m_blk = ms[b0:b0 + _ROWS_PER_BLOCK]
        # one K window for the block: the union of its first and last rows' windows. K is
        # stochastically increasing in m, so each row's mass below the union is at most
        # the first row's below its window, above it at most the last row's: <= 2 x max
        ends = [binomial_log_window(int(m), p1c, math.log(tail / 8), complement=True,
                                    tight=True)
                if p1 > 0.5 else binomial_log_window(int(m), p1, math.log(tail / 8), tight=True)
                for m in (m_blk[0], m_blk[-1])]
        klo, khi = min(e[0] for e in ends), max(e[1] for e in ends)
        log_out_k = max(log_out_k, math.log(2) + max(e[2] for e in ends))
        anchor = min(max(int(math.floor((float(m_blk[m_blk.size // 2]) + 1) * p1)), klo),
                     int(m_blk[0]), khi)
        rows = max(1, _BLOCK_ELEMENTS // (khi - klo + 2))
        for s0 in range(0, m_blk.size, rows):
            m = m_blk[s0:s0 + rows, None]
            lpm = log_pm[b0 + s0:b0 + s0 + m.shape[0], None]
            part = _rows(m, lpm, klo, khi + 1, anchor, p1, p1c, logit, e_logit,
                         log_q, log_1q)
            g, lw, sizes, e, mg, st, inf_w = part
            gains.append(g)
            masses.append(lw)
            row_sizes.append(sizes)
            row_k.append(np.full(sizes.size, float(klo)))
            err, margin, step = max(err, e), max(margin, mg), max(step, st)
            inf_with += inf_w
    sizes_all = np.concatenate(row_sizes)
    starts = np.concatenate([[0], np.cumsum(sizes_all)]).astype(np.int64)
    err = rounding.up(err + err_m + 8 * _U)
    return AddRemoveAtoms(np.concatenate(gains), np.concatenate(masses), starts, ms,
                          np.concatenate(row_k), rounding.up(margin), err, step, inf_with, 0.0,
                          rounding.up(float(np.expm1(err)) + (ms.size + 2) * _U),
                          log_out_m, log_out_k)


def atom_count(n_other: int, q: float, epsilon0: float, tail: float) -> int:
    """About how many atoms `add_remove_atoms` builds: M's window times K's at its
    middle (the rows' windows differ little)."""
    r = math.exp(-epsilon0)
    keep = 1 - q + q * r
    if q >= 1:
        return 0
    p1 = min(1.0, q * r / keep)
    lo, hi, _ = binomial_log_window(n_other, keep, math.log(tail / 8), tight=True)
    mid = (lo + hi) // 2
    klo, khi, _ = (binomial_log_window(mid, (1 - q) / keep, math.log(tail / 8),
                                       complement=True, tight=True) if p1 > 0.5 else
                   binomial_log_window(mid, p1, math.log(tail / 8), tight=True))
    return (hi - lo + 1) * (khi - klo + 2)


def _rows(m: np.ndarray, lpm: np.ndarray, klo: int, kend: int, anchor: int, p1: float,
          p1c: float, logit: float, e_logit: float, log_q: float, log_1q: float,
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float, float, float]:
    """Rows m (a column) on k = klo..kend: (gains, log masses, atoms per row, mass error,
    gain margin, largest neighbour step, +inf mass of with) of the atoms where
    Bin(m, p')(k) > 0 (k <= m)."""
    k = np.arange(klo, kend + 1, dtype=float)[None, :]
    a = anchor - klo
    with np.errstate(divide="ignore", invalid="ignore"):
        # up[j]: log Bin(k_j)/Bin(k_j - 1) = log((m - k + 1)/k) + logit; -inf past k = m + 1
        ratio = (m - k + 1) / k
        up = np.where(ratio > 0, np.log(ratio) + logit, -math.inf)
    # |error| of each step: the division and the log (4 u (1 + |log ratio|)), logit's
    # own, and the addition (u |up|)
    finite_up = np.isfinite(up)
    up_abs = np.abs(np.where(finite_up, up, 0.0))
    e_step = 4 * _U * (1 + up_abs + abs(logit)) + e_logit + _U * up_abs
    # the anchor by Loader; p' > 1/2 through its complement (1-q)/keep, never 1 - p'
    at = np.full(m.shape[0], float(anchor))
    centre = (binomial_logpmf(at, m[:, 0], p1c, complement=True) if p1 > 0.5
              else binomial_logpmf(at, m[:, 0], p1))
    e_centre = float(np.max(log_pmf_error(centre))) + 16 * _U * float(anchor + m.max())
    # running sums from the anchor outwards (sequential: each partial sum adds u |S|)
    lb = np.empty(up.shape)
    lb[:, a] = centre
    with np.errstate(invalid="ignore"):
        lb[:, a + 1:] = centre[:, None] + np.cumsum(up[:, a + 1:], axis=1)
        lb[:, :a] = centre[:, None] - np.cumsum(up[:, a:0:-1], axis=1)[:, ::-1]
    finite = np.isfinite(lb)
    lb_abs = np.abs(np.where(finite, lb, 0.0))
    # every partial sum of a row, in either direction, is within the row's total of step
    # errors and of u |S| (a bound for the row's worst atom)
    e_row = (np.sum(np.where(finite_up, e_step, 0.0), axis=1)
             + _U * np.sum(lb_abs, axis=1) + _U * np.abs(centre)) * (1 + 1e-9)
    err = float(np.max(e_row)) + e_centre
    # log rho(k) = -up[k]: the gain log((1-q) + q rho); rho = 0 at k = 0 (up = log(m+1)/0)
    with np.errstate(invalid="ignore"):
        x = np.where(k == 0, -math.inf, log_q - up)
        gain = np.logaddexp(log_1q, x)
    x_abs = finite_abs(x)
    gain_abs = finite_abs(gain)
    margin = float(np.max(np.where(finite, e_step, 0.0), initial=0.0)) + 32 * _U * (
        float(np.max(np.where(finite, x_abs + gain_abs, 0.0), initial=0.0)) + abs(log_1q) + 1)
    # k = m + 1: without's mass is 0, with's is q Bin(m, p')(m): loss +inf
    edge = np.zeros_like(finite)
    edge[:, 1:] = finite[:, :-1] & ~finite[:, 1:]
    below = np.full(lb.shape, -math.inf)
    below[:, 1:] = lb[:, :-1]
    inf_with = float(np.sum(np.exp((lpm + log_q + below)[edge])))
    diffs = np.diff(np.where(finite, gain, np.nan), axis=1)
    with np.errstate(invalid="ignore"):
        st = float(np.nanmax(diffs)) if np.isfinite(diffs).any() else 0.0
    sizes = np.sum(finite, axis=1)
    return (gain[finite], (lpm + lb)[finite], sizes, err, margin, max(st, 0.0), inf_with)


def merged(atoms: AddRemoveAtoms, width: float, order: int) -> Runs:
    """One order's atoms (0: with || without, loss gain on with's mass; 1: the other,
    loss -gain on without's) in runs for a grid of `width` (`pld.runs.runs_of`); the
    order-0 masses' addition adds its rounding to the runs' `extra`."""
    loss = atoms.gain if order == 0 else -atoms.gain
    if atoms.size == 0:
        return Runs(loss, loss, atoms.log_without, 0.0, 1)
    log_mass = atoms.log_without + atoms.gain if order == 0 else atoms.log_without
    runs = runs_of(loss, log_mass, atoms.starts, width, atoms.step)
    if order == 0:
        top = float(np.max(np.abs(log_mass)))
        runs = replace(runs, extra=rounding.up(runs.extra + 2 * _U * top))
    return runs
