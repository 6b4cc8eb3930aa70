"""Neighbouring atoms taken as one on a coarse grid (docs/conversions.md#runs-of-atoms).

A source whose atoms come in rows along which the loss moves by small steps (the outcomes
of a subsampled round: millions of atoms, neighbours a few 1e-5 apart) bins every atom on
every grid it is asked for, although a grid of width 0.05 cannot tell most of them apart.
A run of G neighbours of one row, with losses in [least, greatest], is replaced by one atom
carrying the run's P-mass at `least` with margin `greatest - least`: connect-the-dots
raises it to `greatest` (>= each true loss: an upper measure), and the raise enters the
coupling's drift (`measure.connected_pmf`), so the lower reading stays a lower bound. With
G = width^2 / (8 step) the raise is at most the grid's own drift, width^2/8 a round.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accountant.numeric import rounding

__all__ = ["Runs", "runs_of"]

_U = rounding.UNIT_ROUNDOFF
# the largest loss spread of a run, in squared grid widths: the grid's own drift per
# round (Hoeffding's width^2/8), so runs at most double the measure's second-order error
# (width/16 made a single round's delta(0) 5x larger on a 0.05 grid)
_SPREAD = 1 / 8


@dataclass(frozen=True, slots=True)
class Runs:
    """Atoms in runs: each run's least and greatest loss, log P-mass, and the bound on
    those log masses' error added by the summing (beyond the atoms' own)."""

    least: np.ndarray
    greatest: np.ndarray
    log_mass: np.ndarray
    extra: float
    length: int


def runs_of(loss: np.ndarray, log_mass: np.ndarray, starts: np.ndarray, width: float,
            step: float | None = None) -> Runs:
    """Runs of G = floor(width^2/8 / step) neighbours within each row (G = 1: the atoms).

    Args:
        loss: finite losses, rows contiguous.
        log_mass: their log P-masses (finite or -inf).
        starts: each row's first atom, then loss.size.
        width: the grid width.
        step: the largest |loss difference| of neighbours within a row (computed if None).

    Returns:
        `Runs`; their masses summed in linear space, each log within `extra` of the log of
        the exact sum of the atoms' (computed) masses.
    """
    if loss.size < 2:
        return Runs(loss, loss, log_mass, 0.0, 1)
    if step is None:
        step = _largest_step(loss, starts)
    g = int(width * width * _SPREAD / step) if step > 0 else loss.size
    if g <= 1:
        return Runs(loss, loss, log_mass, 0.0, 1)
    lens = np.diff(starts)
    groups = (lens + g - 1) // g
    row = np.repeat(np.arange(lens.size), groups)
    j = np.arange(int(groups.sum())) - np.repeat(np.cumsum(groups) - groups, groups)
    # j g < the row's length for j < ceil(length / g): every run starts inside its row,
    # and a row with no atoms has no runs
    first = (starts[:-1][row] + j * g).astype(np.int64)
    least = np.minimum.reduceat(loss, first)
    greatest = np.maximum.reduceat(loss, first)
    # each exp and the log of the sum round by u |log|, the sum of G terms by G u
    top = float(np.max(np.abs(log_mass[np.isfinite(log_mass)]), initial=0.0))
    with np.errstate(divide="ignore"):
        log_sum = np.log(np.add.reduceat(np.exp(log_mass), first))
    length = int(min(g, lens.max()))
    extra = rounding.up((length + 2) * _U * (1 + 1e-9) + 4 * _U * (top + 1))
    return Runs(least, greatest, log_sum, extra, length)


def _largest_step(loss: np.ndarray, starts: np.ndarray) -> float:
    """max |loss[i+1] - loss[i]| over neighbours of one row."""
    d = np.abs(np.diff(loss))
    inner = np.ones(d.size, dtype=bool)
    ends = starts[1:-1] - 1                     # the last atom of each row but the last
    inner[ends[(ends >= 0) & (ends < d.size)]] = False
    return float(np.max(d[inner], initial=0.0))
