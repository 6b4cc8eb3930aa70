"""The discretised privacy-loss measure of the certified PLD engine
(docs/conversions.md#certified-pld-engine).

A `LossPmf` is a nonnegative measure on the grid {k Delta} plus a +inf atom, with an error
ledger. Pessimistic (upper): each loss is raised by its error bound and rounded up to the
grid, each mass raised by its error bound, every mass that is not on the grid (window tails,
a view's residual) goes to +inf. Optimistic (lower): losses lowered and rounded down, masses
lowered, the rest dropped. (1 - e^(eps - s))_+ is nonnegative and nondecreasing in s, and
convolution is monotone on nonnegative measures, so the pessimistic composition's H is at
least the truth, the optimistic one's at most. Connect-the-dots measures (`connected_pmf`)
split each atom between its two grid neighbours instead: an upper measure tight to second
order in the width, which also gives a lower end through a coupling.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from accountant.errors import PrecisionError
from accountant.numeric import rounding

_U = rounding.UNIT_ROUNDOFF


MAX_BUCKETS = 8_000_000
CHUNK = 2_000_000


@dataclass(frozen=True, slots=True)
class LossPmf:
    """A privacy-loss measure under P on the grid {(offset + i) width} plus a +inf atom.

    Attributes:
        width: the grid width Delta > 0.
        offset: grid index of mass[0].
        mass: nonnegative masses.
        infinity: mass of the +inf loss.
        error: the absolute part E of the ledger: with nu the exact measure the arrays
            stand for (a pessimistic or optimistic discretisation of the true PLD), every
            stored entry is nu_i (1 + theta_i) + e_i with |theta_i| <= relative and
            sum |e_i| <= error (the +inf atom included).
        pessimistic: True for an upper (losses rounded up), False for a lower measure.
        relative: the relative part of the ledger (sums of nonnegative terms: binning,
            direct convolution).
        moved: a bound on how much the moves in the safe direction (tails sent to +inf or
            up to the first kept loss, a view's residual) changed H; a pessimistic measure
            needs no account of them, a lower reading of it subtracts this.
        drift: for a connect-the-dots measure (`connected_pmf`), a bound on the summed mean
            shift E[L' - L] of the grid loss L' over the true loss L, over all rounds.
        spread: the summed squared ranges of L' - L given the true loss, over all rounds;
            +inf for a measure that is not connect-the-dots (no lower reading).
        tilt: None, or (lam, log_c, base, j_c): where the absolute errors lie
            (`square_compose` with a target loss): for every grid index j0 >= j_c, the
            entries at indices >= j0 have sum |e_i| <= base + exp(log_c - lam j0). A
            reading of H(eps) involves only the atoms above eps (`error_above`).
    """

    width: float
    offset: int
    mass: np.ndarray
    infinity: float
    error: float
    pessimistic: bool
    relative: float = 0.0
    moved: float = 0.0
    drift: float = 0.0
    spread: float = math.inf
    tilt: tuple[float, float, float, int] | None = None

    @property
    def base_error(self) -> float:
        """The absolute ledger outside the positional part (`tilt`): `error` untilted."""
        return self.error if self.tilt is None else min(self.error, self.tilt[2])

    def error_above(self, epsilon: float) -> float:
        """A bound on sum |e_i| over the entries with loss > eps (the +inf atom's error is
        relative): `error`, or less where `tilt` says so."""
        if self.tilt is None or not math.isfinite(epsilon):
            return self.error
        lam, log_c, base, j_c = self.tilt
        # one cell below the first loss above eps: more entries, a larger bound
        j0 = math.floor(epsilon / self.width) - 1
        if j0 < j_c:
            return self.error
        exponent = log_c - lam * j0
        exponent += 1e-12 + 8 * _U * (abs(log_c) + abs(lam * j0))   # its own rounding
        part = math.exp(exponent) if exponent < 700 else math.inf
        return min(self.error, rounding.up((base + part) * (1 + 4 * _U)))

    @property
    def total(self) -> float:
        """|mass|_1 + infinity, rounded up (a bound for the error ledger)."""
        s = float(np.sum(self.mass))
        return rounding.up((s * (1 + rounding.sum_relative_error(self.mass.size))
                            + self.infinity) * (1 + 2 * _U))


def pmf_from_entries(index: np.ndarray, mass: np.ndarray, width: float, infinity: float,
                  pessimistic: bool) -> LossPmf:
    """Bin (grid index, mass) entries; the bincount's rounding goes to the error ledger."""
    if index.size == 0:
        return LossPmf(width, 0, np.zeros(1), infinity, 0.0, pessimistic,
                       spread=math.inf if pessimistic else 0.0)
    lo, hi = int(index.min()), int(index.max())
    span = hi - lo + 1
    if span > MAX_BUCKETS:
        raise PrecisionError(f"PLD discretization={width:g} needs {span} buckets for one "
                             f"pair (limit {MAX_BUCKETS}); use a coarser discretization")
    out = np.zeros(span)
    counts = np.zeros(span)
    for start in range(0, index.size, CHUNK):
        sl = slice(start, start + CHUNK)
        idx = (index[sl] - lo).astype(np.int64)
        out += np.bincount(idx, weights=mass[sl], minlength=span)
        counts += np.bincount(idx, minlength=span)
    # a bin is a sum of `count` nonnegative terms, added in order (plus one addition per
    # chunk): relative error <= (count + chunks) u, with a factor 2 of margin
    chunks = index.size // CHUNK + 1
    relative = 2 * (float(counts.max()) + chunks) * _U
    # a rounded-down (optimistic) measure couples with the truth with shifts <= 0: no
    # drift, no spread; a rounded-up one has no lower reading (spread inf)
    return LossPmf(width, lo, out, infinity, 0.0, pessimistic, relative,
                   spread=math.inf if pessimistic else 0.0)


def grid_index(loss: np.ndarray, margin: np.ndarray | float, width: float,
                pessimistic: bool) -> np.ndarray:
    """ceil((loss + margin)/width) (pessimistic) or floor((loss - margin)/width), with the
    division's rounding covered: index * width is >= (<=) the true loss."""
    slack = margin + 4 * _U * np.abs(loss) + 1e-300
    if pessimistic:
        z = (loss + slack) / width
        return np.ceil(z + 4 * _U * np.abs(z))
    z = (loss - slack) / width
    return np.floor(z - 4 * _U * np.abs(z))


def connected_pmf(loss: np.ndarray, margin: np.ndarray | float, log_mass: np.ndarray,
                  log_error: np.ndarray | float, width: float, infinity: float = 0.0,
                  moved: float = 0.0, pessimistic: bool = True) -> LossPmf:
    """The connect-the-dots discretisation of atoms (docs/conversions.md#connect-the-dots).

    An atom of P-mass p at loss l between grid points a = k Delta <= l < b = a + Delta is
    split into p f at b and p (1 - f) at a with f = (1 - e^(a-l))/(1 - e^-Delta): the two
    points keep the atom's Q-mass p e^-l. In y = e^-loss the split is a mean-preserving
    spread, and H_{e^eps} = E_P[(1 - e^eps y)_+] is convex in y, so the measure's H is
    >= the truth at every eps, and products keep that order: an UPPER measure, tight to
    second order in Delta (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, PETS 2022).

    Read as a coupling it also gives a LOWER end: the grid loss L' of an atom at l has
    E[L'] - l in [0, Delta^2/8] (Hoeffding's lemma) and range Delta given l, so over the
    rounds sum(L' - L) exceeds drift + t with probability <= exp(-2 t^2 / spread)
    (`lower_delta_of`, `lower_epsilon_of`).

    Each loss is first raised by its margin and the division's rounding (as `grid_index`),
    so the split point l* = (k + frac) Delta is >= the true loss; the raise enters `drift`.

    Args:
        loss: finite computed losses.
        margin: bounds on |computed - true| loss (array or scalar).
        log_mass: computed log P-masses.
        log_error: bounds on |computed - true| log mass (array or scalar).
        width: grid width Delta.
        infinity: P-mass of the +inf loss (true infinite losses, central value).
        moved: mass sent to +inf in the safe direction (added to `infinity` and `moved`);
            ignored when not `pessimistic` (mass of unknown loss is dropped).
        pessimistic: True: an upper measure that a lower reading may also use (moves
            undone); False: a measure only read from below (`lower_delta_of`), whose
            truncations move mass in the lower's safe direction.

    Returns:
        A `LossPmf` with finite `drift` and `spread`.
    """
    if not pessimistic:
        moved = 0.0
    loss = np.asarray(loss, dtype=float)
    slack = np.asarray(margin, dtype=float) + 4 * _U * np.abs(loss) + 1e-300
    z = (loss + slack) / width
    z = z + 6 * _U * np.abs(z)
    k = np.floor(z)
    frac = z - k                               # exact: k <= z < k + 1
    t = frac * width
    # f and 1 - f each from expm1, without cancellation; relative error <= 16u each
    low = np.expm1(-width)
    f_b = np.expm1(-t) / low
    f_a = np.exp(-t) * np.expm1(t - width) / low
    mass = np.exp(log_mass)
    error = float(np.max(np.asarray(log_error, dtype=float), initial=0.0))
    split_rel = float(np.expm1(error + 32 * _U)) + 32 * _U
    index = np.concatenate([k, k + 1])
    masses = np.concatenate([mass * f_a, mass * f_b])
    base = pmf_from_entries(index, masses, width, 0.0, pessimistic)
    relative = rounding.up((1 + base.relative) * (1 + split_rel) - 1)
    raise_ = 2 * slack + 16 * _U * (np.abs(z) * width + np.abs(loss))
    live = mass > 0
    drift = float(np.max(raise_[live], initial=0.0)) + width * width / 8
    infinity = rounding.up(infinity + moved)
    return replace(base, infinity=infinity, relative=relative,
                   moved=rounding.up(moved + 2 * _U * infinity),
                   drift=rounding.up(drift * (1 + 4 * _U)),
                   spread=rounding.up(width * width * (1 + 4 * _U)))


def split_pmf(index: np.ndarray, mass: np.ndarray, width: float, pessimistic: bool,
              infinity: float, moved: float, drift: float, spread: float,
              relative: float = 0.0) -> LossPmf:
    """A connect-the-dots measure from entries a source has already split (continuous
    laws, `composition.noise`): binned like `pmf_from_entries`, with the source's coupling
    bounds (`drift`, `spread` per round), its safe-direction `moved` mass and the
    `relative` error of its entries against the exact split."""
    base = pmf_from_entries(index, mass, width, infinity, pessimistic)
    return replace(base, moved=rounding.up(moved) if pessimistic else 0.0,
                   drift=rounding.up(drift), spread=rounding.up(spread),
                   relative=rounding.up((1 + base.relative) * (1 + relative) - 1))


def tilt_plus(tilt: tuple[float, float, float, int] | None,
               extra: float) -> tuple[float, float, float, int] | None:
    """`tilt` with `extra` more absolute error anywhere."""
    if tilt is None:
        return None
    lam, log_c, base, j_c = tilt
    return lam, log_c, rounding.up((base + extra) * (1 + 2 * _U)), j_c
