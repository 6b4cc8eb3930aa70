"""Certified composition through privacy-loss distributions (PLD), our own engine
(docs/conversions.md#certified-pld-engine).

For a product of independent pairs the privacy loss adds, so the distribution of the total
loss under P is the convolution of the per-pair ones, and
H_{e^eps} = E_P[(1 - e^(eps - L))_+] with a +inf atom kept apart
(docs/divergences.md#products). Every step below keeps the value on its side of the truth:

- **Discretisation.** A `LossPmf` is a nonnegative measure on the grid {k Delta} plus a
  +inf atom. Pessimistic (upper): each loss is raised by its error bound and rounded up to
  the grid, each mass raised by its error bound, every mass that is not on the grid (window
  tails, a view's residual) goes to +inf. Optimistic (lower): losses lowered and rounded
  down, masses lowered, the rest dropped. (1 - e^(eps - s))_+ is nonnegative and
  nondecreasing in s, and convolution is monotone on nonnegative measures, so the
  pessimistic composition's H is at least the truth, the optimistic one's at most.
- **FFT error.** Each convolution is a zero-padded linear convolution by numpy's real FFT of
  a power-of-two length L (no periodisation: nothing wraps around). Its round-off is
  bounded in the 2-norm by Higham's FFT bound (Accuracy and Stability of Numerical
  Algorithms, 2nd ed., Thm 24.2) propagated through the product (`fft_error_bound`) and
  turned into an l1 bound by Cauchy-Schwarz; negative entries are clipped to 0 (which
  cannot move an entry further from a nonnegative truth).
- **Error ledger.** `LossPmf.error` bounds the l1 distance between the stored arrays (and
  atom) and the exact measure they stand for. Composition is bilinear, so
  E(a*b) <= E_a |b|_1 + (|a|_1 + E_a) E_b + FFT error + rounding of the atom. Since
  0 <= (1 - e^(eps - s))_+ <= 1, a ledger E moves H by at most E: it is added to upper
  values and subtracted from lower ones.
- **Truncation.** Between convolutions, tails whose stored mass is below a threshold are
  moved in the safe direction (pessimistic: right tail to +inf, left tail up to the first
  kept loss; optimistic: right tail down to the last kept loss, left tail dropped).
  Connect-the-dots measures drop them into the ledger instead, and their self-compositions
  also cut each partial power to a Chernoff window of the exact power (`square_compose`):
  the FFT's round-off noise never lets stored-mass truncation reach a tiny threshold.

Pairs: any float `ViewPair` (both orders are composed and the maximum reported), and the
mixture-over-C pairs of `accountant.pairs.clones` (FMT's clones pair, the k-RR blanket pair),
which are symmetric and built in O(outcomes) with numpy from certified log-PMFs.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, NamedTuple, TypeAlias

import numpy as np
from scipy.signal import lfilter

from accountant.composition.rdp import ROUNDS
from accountant.divergence.common import ULP_SLACK, arr
from accountant.domains import DELTA, EPSILON, POSITIVE, checked
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric import rounding
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.numeric.tails import binomial_log_window
from accountant.pairs.clones import ClonePair
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = ["LossPmf", "OutcomeLimitError", "PldComposition", "compose_views", "from_view",
           "from_clone_pair", "connected_pmf", "split_pmf", "lower_delta_of", "lower_epsilon_of",
           "coupling_shift",
           "connects", "power_compose",
           "convolve", "self_compose", "compose_measures", "check_items", "delta_of", "epsilon_of",
           "fft_error_bound", "grid_index", "pmf_from_entries", "truncate", "truncation_tail",
           "DEFAULT_DISCRETIZATION", "LossPmfSource", "PairSource"]

DEFAULT_DISCRETIZATION = 1e-4
_U = rounding.UNIT_ROUNDOFF
_MAX_BUCKETS = 8_000_000
_CHUNK = 2_000_000
_SOURCE = Source(citation="shuffle-accountant certified PLD engine",
                 locator="pessimistic/optimistic discretisation, FFT with a bounded round-off; "
                         "docs/conversions.md#certified-pld-engine")


# ------------------------------------------------------------------ the measure
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
    if span > _MAX_BUCKETS:
        raise PrecisionError(f"PLD discretization={width:g} needs {span} buckets for one "
                             f"pair (limit {_MAX_BUCKETS}); use a coarser discretization")
    out = np.zeros(span)
    counts = np.zeros(span)
    for start in range(0, index.size, _CHUNK):
        sl = slice(start, start + _CHUNK)
        idx = (index[sl] - lo).astype(np.int64)
        out += np.bincount(idx, weights=mass[sl], minlength=span)
        counts += np.bincount(idx, minlength=span)
    # a bin is a sum of `count` nonnegative terms, added in order (plus one addition per
    # chunk): relative error <= (count + chunks) u, with a factor 2 of margin
    chunks = index.size // _CHUNK + 1
    relative = 2 * (float(counts.max()) + chunks) * _U
    # a rounded-down (optimistic) measure couples with the truth with shifts <= 0: no
    # drift, no spread; a rounded-up one has no lower reading (spread inf)
    return LossPmf(width, lo, out, infinity, 0.0, pessimistic, relative,
                   spread=math.inf if pessimistic else 0.0)


def grid_index(loss: np.ndarray, margin: np.ndarray, width: float,
                pessimistic: bool) -> np.ndarray:
    """ceil((loss + margin)/width) (pessimistic) or floor((loss - margin)/width), with the
    division's rounding covered: index * width is >= (<=) the true loss."""
    slack = margin + 4 * _U * np.abs(loss) + 1e-300
    if pessimistic:
        z = (loss + slack) / width
        return np.ceil(z + 4 * _U * np.abs(z))
    z = (loss - slack) / width
    return np.floor(z - 4 * _U * np.abs(z))


def connected_pmf(loss: np.ndarray, margin: np.ndarray, log_mass: np.ndarray,
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


def from_view(view: ViewPair, width: float, pessimistic: bool,
              connect: bool = False) -> LossPmf:
    """The discretised PLD of P||Q of a float `ViewPair`, with its certificates.

    Args:
        view: the pair (float backend), oriented P||Q.
        width: grid width Delta.
        pessimistic: True for the upper measure, False for the lower one.
        connect: the connect-the-dots measure (`connected_pmf`) when the view's grid is
            exact (else the rounded one).

    Returns:
        The `LossPmf`.

    Raises:
        ParameterError: a non-float view, or an optimistic measure of a view whose grid is
            not exact (its values are lower bounds of unknown quality: no lower exists).
        PrecisionError: the grid would need more than 8e6 buckets.
    """
    if view.backend != "float":
        raise ParameterError("PLD composition needs float views (backend='float')")
    if not pessimistic and not view.grid_exact:
        raise ParameterError("an optimistic PLD needs a view whose grid is exact")
    n = view.size
    lp, loss = view.p, view.float_loss
    lerr = arr(view.log_error, n) + ULP_SLACK
    margin = arr(view.loss_error, n) + 4 * _U * np.abs(np.where(np.isfinite(loss), loss, 0.0))
    live = np.isfinite(lp)
    atoms = live & np.isposinf(loss)
    finite = live & np.isfinite(loss)
    if connect and view.grid_exact:
        infinity = float(np.sum(np.exp(lp[atoms])))
        inf_rel = float(np.expm1(np.max(lerr[atoms], initial=0.0))) + 2 * \
            rounding.sum_relative_error(int(atoms.sum()) + 1)
        pmf = connected_pmf(loss[finite], margin[finite], lp[finite], lerr[finite], width,
                            infinity, moved=float(view.tail_p), pessimistic=pessimistic)
        return replace(pmf, relative=rounding.up(max(pmf.relative, inf_rel)))
    sign = 1.0 if pessimistic else -1.0
    mass = np.exp(lp[finite] + sign * lerr[finite]) * (1 + sign * 2 * _U)
    index = grid_index(loss[finite], margin[finite], width, pessimistic)
    infinity = float(np.sum(np.exp(lp[atoms] + sign * lerr[atoms])))
    infinity *= (1 + sign * 2 * rounding.sum_relative_error(int(atoms.sum()) + 1))
    if pessimistic:
        infinity = rounding.up(infinity + float(view.tail_p))
    return pmf_from_entries(index, mass, width, max(0.0, infinity), pessimistic)


# the most (c, x) outcomes `from_clone_pair` materialises (about 16 bytes each, twice)
_MAX_OUTCOMES = 1e8
# the most times `compose_views` coarsens a grid that needs too many buckets (4^12 = 1.7e7
# times its start: any span of losses fits well before)
_MAX_COARSENINGS = 12


class OutcomeLimitError(PrecisionError):
    """A pair has more outcomes than the PLD route enumerates, whatever the grid width:
    coarsening cannot help (the accountant's other routes answer)."""


def from_clone_pair(pair: ClonePair, width: float, pessimistic: bool,
                    tail: float = 1e-15, connect: bool = False) -> LossPmf:
    """The discretised PLD of a mixture-over-C pair (clones or k-RR blanket), in
    O(outcomes) with numpy.

    Outcome (c, x), c ~ Bin(N, q), x = 0..c+1, m = c + 1: P-mass
    pi(c) Bin(m, 1/2)(x) 2 (w x + w' (m-x))/m, loss log((e a + b)/(a + e b)) with
    a = x, b = m - x, e = e^eps0 (docs/clones-and-blankets.md#clones-pair); the w* block has
    loss 0 and mass w*. The pair is symmetric, so P||Q and Q||P have the same PLD.

    Args:
        pair: the pair.
        width: grid width Delta.
        pessimistic: upper (True) or lower (False) measure.
        tail: mass allowed outside the (c, x) window (sent to +inf when pessimistic):
            at most tail/2 outside the c window (Chernoff, doubled), tail/2 outside the x
            windows (Hoeffding).
        connect: the connect-the-dots measure (`connected_pmf`).

    Returns:
        The `LossPmf`.

    Raises:
        PrecisionError: the grid would need more than 8e6 buckets.
        OutcomeLimitError: more than 1e8 (c, x) outcomes, at any width.
    """
    POSITIVE.named("tail").check(tail)
    parts: list[LossPmf] = []
    N, q, e0 = pair.others, pair.clone_probability, pair.epsilon0
    lo, hi, log_out = binomial_log_window(N, q, math.log(tail / 4))
    c = np.arange(lo, hi + 1, dtype=float)
    log_pi = binomial_logpmf(c, float(N), q)
    # q is e^-eps0 (or 2/(e^eps0+k-1)) rounded: a relative error <= 8u in q and in 1-q
    # (q = 1, epsilon0 = 0: every user is a clone and only c = N has mass; 0 * inf is 0 there)
    odds = q / (1 - q) if q < 1 else 0.0
    err_pi = log_pmf_error(log_pi) + 8 * _U * (c + (N - c) * odds) + ULP_SLACK
    m_all = c + 1
    log8 = math.log(8.0 / tail)
    half_width = int(math.ceil(math.sqrt(float(m_all.max()) * log8 / 2.0))) + 1
    # every (c, x) outcome is materialised before binning: at n = 1e9 users and epsilon0
    # near 1e-4 that is about 1e9 of them (tens of GiB); refuse, so the accountant's other
    # routes answer (the rows' losses are then nearly equal, where the RDP route is tight)
    if c.size * (2.0 * half_width + 1) > _MAX_OUTCOMES:
        raise OutcomeLimitError(
            f"the clones pair's PLD would enumerate {c.size * (2 * half_width + 1):.3g} "
            f"outcomes (n - 1 = {N}, epsilon0 = {e0:.6g}), above {_MAX_OUTCOMES:.0e}")
    offsets = np.arange(-half_width, half_width + 1, dtype=float)
    sign = 1.0 if pessimistic else -1.0
    log_w, log_w1 = math.log(pair.w), math.log(pair.w_prime)
    rows_per_chunk = max(1, _CHUNK // offsets.size)
    indices, masses = [], []
    for start in range(0, c.size, rows_per_chunk):
        cs = c[start:start + rows_per_chunk]
        ms = cs + 1
        x = np.floor(ms / 2)[:, None] + offsets[None, :]
        mm = np.broadcast_to(ms[:, None], x.shape)
        ok = (x >= 0) & (x <= mm)
        xs, mv = x[ok], mm[ok]
        row = np.broadcast_to(np.arange(cs.size)[:, None], x.shape)[ok] + start
        log_b = _half_binomial_logpmf(xs, mv)
        with np.errstate(divide="ignore"):
            la, lb = np.log(xs), np.log(mv - xs)
        # log(2 (w a + w' b)/m); w, w' carry <= 4u relative each, the logs a few u
        log_f = math.log(2.0) + np.logaddexp(log_w + la, log_w1 + lb) - np.log(mv)
        log_mass = log_pi[row] + log_b + log_f
        err = err_pi[row] + log_pmf_error(log_b) + 16 * _U * (1 + np.abs(log_f))
        loss = np.logaddexp(e0 + la, lb) - np.logaddexp(la, e0 + lb)
        margin = 16 * _U * (e0 + np.log(mv + 1) + 2)
        if connect:
            # split and binned chunk by chunk: materialising every outcome first took
            # 11.6 GiB at n = 1e6, epsilon0 = 0.44 (4.4e7 outcomes) and an OOM kill above
            parts.append(connected_pmf(loss, margin, log_mass, err + 4 * _U, width,
                                       pessimistic=pessimistic))
            continue
        masses.append(np.exp(log_mass + sign * err) * (1 + sign * 4 * _U))
        indices.append(grid_index(loss, margin, width, pessimistic))
    outside = rounding.up(2 * math.exp(log_out) + tail / 2) if log_out > -745 else \
        rounding.up(tail / 2)
    if connect:
        # the w* block: loss 0, mass w* within 8u
        if pair.w_star > 0:
            parts.append(connected_pmf(np.zeros(1), np.zeros(1),
                                       np.array([math.log(pair.w_star)]),
                                       np.array([8 * _U]), width, pessimistic=pessimistic))
        return _sum_connected(parts, outside if pessimistic else 0.0)
    index = np.concatenate(indices + [np.array([0.0])])
    star = pair.w_star * (1 + sign * 8 * _U)
    mass = np.concatenate(masses + [np.array([max(0.0, star)])])
    infinity = outside if pessimistic else 0.0
    return pmf_from_entries(index, mass, width, infinity, pessimistic)


def _sum_connected(parts: list[LossPmf], moved: float) -> LossPmf:
    """The connect-the-dots measure of the union of the atoms of `parts` (each from
    `connected_pmf` on the same grid, no infinity, nothing moved), plus `moved` mass sent to
    +inf in the safe direction: as one `connected_pmf` call on all atoms would give it.

    Each bucket of the sum is a sum over the parts of values with relative error <=
    their `relative`: adding the J parts' values adds <= (J - 1) u, doubled for margin.
    The coupling bounds are per atom: the largest drift, the common spread Delta^2."""
    width = parts[0].width
    lo = min(p.offset for p in parts)
    hi = max(p.offset + p.mass.size for p in parts)
    if hi - lo > _MAX_BUCKETS:
        raise PrecisionError(f"PLD discretization={width:g} needs {hi - lo} buckets for one "
                             f"pair (limit {_MAX_BUCKETS}); use a coarser discretization")
    out = np.zeros(hi - lo)
    for p in parts:
        out[p.offset - lo:p.offset - lo + p.mass.size] += p.mass
    relative = rounding.up(max(p.relative for p in parts) + 2 * len(parts) * _U)
    infinity = rounding.up(moved)
    return LossPmf(width, lo, out, infinity, 0.0, parts[0].pessimistic, relative,
                   moved=rounding.up(moved + 2 * _U * infinity),
                   drift=max(p.drift for p in parts),
                   spread=max(p.spread for p in parts))


def _half_binomial_logpmf(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """log Bin(m, 1/2)(x) for arrays x and m (m varies): one `binomial_logpmf` call per
    distinct m (same error model, `log_pmf_error`)."""
    out = np.empty(x.shape)
    order = np.argsort(m, kind="stable")
    ms = m[order]
    cuts = np.flatnonzero(np.diff(ms)) + 1
    for part in np.split(order, cuts):
        out[part] = binomial_logpmf(x[part], float(m[part[0]]), 0.5)
    return out


# ------------------------------------------------------------------ convolution
def fft_error_bound(length: int, norms_a: tuple[float, float],
                    norms_b: tuple[float, float]) -> float:
    """Bound on ||computed - exact||_2 of the linear convolution a * b by
    irfft(rfft(a, L) rfft(b, L), L), L a power of two.

    Higham (2nd ed., Thm 24.2): a computed radix-2 FFT of x has 2-norm error at most
    log2(L) eta / (1 - log2(L) eta) * ||F x||_2 with eta = mu + gamma_4 (sqrt 2 + mu), mu the
    twiddle factors' error (we take mu = u). With ||F x||_2 = sqrt(L) ||x||_2,
    ||F x||_inf <= ||x||_1, a complex product's error <= sqrt(2) gamma_2 and the inverse's
    1/L (exact for a power of two), the convolution's 2-norm error is at most
    (3 e_L + 4u) max(|a|_2 |b|_1, |a|_1 |b|_2) to first order, e_L = the FFT's relative
    bound; a factor 1.01 covers the second-order terms.

    Args:
        length: the FFT length L (a power of two).
        norms_a, norms_b: (l1 norm, l2 norm) of each input.

    Returns:
        The 2-norm bound.
    """
    scale = max(norms_a[1] * norms_b[0], norms_a[0] * norms_b[1])
    return 1.01 * (3 * _fft_relative(length) + 4 * _U) * scale


def _sumsq(x: np.ndarray) -> float:
    """sum x_i^2 without BLAS: OpenBLAS's threaded dot spent 0.1 s of a second core's CPU
    spinning in a 0.28 s call (sigma = 1, q = 0.01, T = 1e4) for no wall-clock gain. The
    callers multiply the norm by 1.001, far above this sum's rounding."""
    return float(np.einsum("i,i->", x, x))


def _fft_relative(length: int) -> float:
    """Higham's relative 2-norm bound e_L of a computed radix-2 FFT of length L
    (`fft_error_bound`)."""
    stages = max(1, int(math.ceil(math.log2(length))))
    gamma4 = 4 * _U / (1 - 4 * _U)
    eta = _U + gamma4 * (math.sqrt(2) + _U)
    return stages * eta / (1 - stages * eta)


_DIRECT_WORK = 30_000_000


def convolve(a: LossPmf, b: LossPmf) -> LossPmf:
    """The composition of two measures (convolution, +inf absorbing), with its ledger.

    Inputs that are not both dense connect-the-dots measures are convolved directly when
    size(a) x size(b) <= 3e7 (numpy's convolution) or nonzeros(a) x nonzeros(b) <= 3e7 (a
    loop over the sparser input's nonzeros): each output is a sum of at most min(sizes),
    resp. min(nonzeros), nonnegative products, a relative error (kept in `relative`, which
    keeps tiny tails accurate). Others go through the FFT, whose round-off
    (`fft_error_bound`) enters the absolute ledger.

    Raises:
        ParameterError: grids of different widths or directions.
    """
    if a.width != b.width or a.pessimistic != b.pessimistic:
        raise ParameterError("composed PLDs need the same grid width and direction")
    size = a.mass.size + b.mass.size - 1
    # connect-the-dots measures are dense on their grid (the FFT is far cheaper than a
    # loop over nonzeros) and are used where an absolute round-off is affordable;
    # rounded measures of few atoms stay sparse and keep a relative error
    dense = (0 < a.spread < math.inf or 0 < b.spread < math.inf) and \
        min(a.mass.size, b.mass.size) > 64
    direct = full = False
    if not dense:
        full = a.mass.size * b.mass.size <= _DIRECT_WORK
        if not full:
            nz_a, nz_b = np.flatnonzero(a.mass), np.flatnonzero(b.mass)
            direct = nz_a.size * nz_b.size <= _DIRECT_WORK
    if full:
        # numpy's direct convolution (a C loop; 20x faster than a Python loop over the
        # nonzeros at 5,500 entries each, the T = 1e4 shuffle round's lower pair): each
        # output is a sum of at most min(sizes) nonnegative products, in some order
        terms = max(1, min(a.mass.size, b.mass.size))
        out = np.convolve(a.mass, b.mass)
        op_rel = 2 * (terms + 1) * _U
        fft_l1 = 0.0
    elif direct:
        terms = max(1, min(nz_a.size, nz_b.size))
        out = np.zeros(size)
        small, large = (nz_a, nz_b) if nz_a.size <= nz_b.size else (nz_b, nz_a)
        ms, ml = (a.mass, b.mass) if nz_a.size <= nz_b.size else (b.mass, a.mass)
        for i in small:  # sparse inputs: one shifted, scaled copy per small nonzero
            out[i + large] += ms[i] * ml[large]
        op_rel = 2 * (terms + 1) * _U
        fft_l1 = 0.0
    else:
        length = 1 << (size - 1).bit_length()
        # numpy's pocketfft at a power-of-two length; a squaring transforms its input once
        spectrum = np.fft.rfft(a.mass, length)
        if b is a:
            spectrum *= spectrum
        else:
            spectrum *= np.fft.rfft(b.mass, length)
        out = np.fft.irfft(spectrum, length)[:size]
        norms_a = (float(np.sum(a.mass)) * 1.001,
                   math.sqrt(_sumsq(a.mass)) * 1.001)
        norms_b = norms_a if b is a else (float(np.sum(b.mass)) * 1.001,
                                          math.sqrt(_sumsq(b.mass)) * 1.001)
        fft_l1 = math.sqrt(size) * fft_error_bound(length, norms_a, norms_b)
        np.maximum(out, 0.0, out=out)
        op_rel = 0.0
    fa = float(np.sum(a.mass))
    fb = fa if b is a else float(np.sum(b.mass))
    infinity = a.infinity * (fb + b.infinity) + fa * b.infinity
    # the atom's sums: relative error of the pairwise sums plus a few products
    op_rel = max(op_rel, 2 * rounding.sum_relative_error(max(a.mass.size, b.mass.size))
                 + 8 * _U)
    ta, tb = a.total, b.total
    nu_a = (ta + a.error) / (1 - a.relative)  # bound on |nu_a|_1
    error = (a.error * tb + (1 + a.relative) * nu_a * b.error) * (1 + op_rel) + fft_l1
    relative = (1 + a.relative) * (1 + b.relative) * (1 + op_rel) - 1
    # a move in one factor changes H of the product by at most the move times the other
    # factor's total mass (H of a product is the other factor's average of shifted H's)
    nu_b = (tb + b.error) / (1 - b.relative)
    moved = (a.moved * nu_b + nu_a * b.moved) * (1 + 4 * _U)
    return LossPmf(a.width, a.offset + b.offset, out, rounding.up(infinity),
                   rounding.up(error), a.pessimistic, rounding.up(relative * (1 + 4 * _U)),
                   moved=rounding.up(moved), drift=rounding.up(a.drift + b.drift),
                   spread=rounding.up(a.spread + b.spread))


def truncate(pmf: LossPmf, tail: float) -> LossPmf:
    """Move tails of stored mass <= tail each in the safe direction (module docstring); a
    connect-the-dots upper measure (read from both sides) drops them into its ledger."""
    probs = pmf.mass
    if probs.size <= 2 or tail <= 0:
        return pmf
    left = np.cumsum(probs)
    right = np.cumsum(probs[::-1])
    first = int(np.searchsorted(left, tail, side="right"))
    last = probs.size - 1 - int(np.searchsorted(right, tail, side="right"))
    if first >= last:
        return pmf
    kept = probs[first:last + 1].copy()
    left_mass = float(left[first - 1]) if first > 0 else 0.0
    right_mass = float(right[probs.size - 2 - last]) if last + 1 < probs.size else 0.0
    if (pmf.pessimistic and math.isfinite(pmf.spread)) or pmf.tilt is not None:
        # a measure read from both sides (connect-the-dots), or a tilted one (upper or
        # lower: a move would spend its total ledger, about 1, on `moved` and lose the
        # positional one; a lower end of 0 at delta 1e-8 for shuffle rounds that the
        # untilted measure put at 1.258): the tails are dropped and their
        # stored mass enters the absolute ledger. With s = nu (1 + theta) + e, the dropped
        # entries' new errors -nu (1 + theta) sum to at most their stored mass plus their old
        # errors, which the ledger already holds; both readings pay the stored tail once.
        # (Moving them instead costs the lower reading the exact tail mass, bounded only by
        # the stored mass plus the WHOLE ledger, at every truncation: 8e-7 of moved mass at
        # T = 1e4, delta = 1e-5, a 1 % lower end; issue 21.)
        if left_mass == 0 and right_mass == 0:
            return replace(pmf, offset=pmf.offset + first, mass=kept)
        dropped = (left_mass + right_mass) * (1 + 2 * rounding.sum_relative_error(probs.size))
        return replace(pmf, offset=pmf.offset + first, mass=kept,
                       error=rounding.up((pmf.error + dropped) * (1 + 2 * _U)),
                       tilt=_tilt_plus(pmf.tilt, dropped))
    infinity = pmf.infinity
    if pmf.pessimistic:
        kept[0] += left_mass
        infinity = rounding.up(infinity + right_mass)
    else:
        kept[-1] += right_mass
    # the two partial sums are within sum_relative_error of the moved entries; the one
    # addition into the kept end entry multiplies that entry (true part and error part) by
    # 1 + theta, |theta| <= u: one u more in the relative ledger (a measure with relative = 0
    # had no slack for it; found by the mutation run)
    moved = (left_mass + right_mass) * rounding.sum_relative_error(probs.size) * 2
    return replace(pmf, offset=pmf.offset + first, mass=kept, infinity=infinity,
                   # the exact measure's moved part: <= (stored moved + ledger) / (1 - rel)
                   moved=rounding.up(pmf.moved + (left_mass + right_mass + pmf.error)
                                     / (1 - pmf.relative)
                                     * (1 + 2 * rounding.sum_relative_error(probs.size)
                                        + 8 * _U)),
                   relative=rounding.up(pmf.relative + _U * (1 + pmf.relative)),
                   error=rounding.up((pmf.error + moved + 4 * _U * (left_mass + right_mass))
                                     * (1 + _U)), tilt=None)


_MAX_POWER_LENGTH = 1 << 24
# the share of delta the one-FFT power route's round-off bound may take: at 2e-3 the
# remove side of sigma = 1, q = 0.01, T = 1e4 (bound 1.24e-8 at delta 1e-5) takes one FFT
# (0.016 s) instead of squaring (0.17 s); its upper end moved by 0.006 % (6.18793 ->
# 6.18814 against dp_accounting's 6.18774)
_POWER_SHARE = 2e-3
# the most cells the rounded fallback of `compose_views` is tried on (a few seconds), and
# the most a refinement may ask for
_FALLBACK_CELLS = 2_000_000
_REFINE_CELLS = 1_000_000
_MIN_WIDTH = 1e-6


def _logsumexp(x: np.ndarray) -> float:
    top = float(np.max(x))
    return top + math.log(float(np.sum(np.exp(x - top))))


def _index_moments(mass: np.ndarray) -> tuple[float, float] | None:
    """(mean, variance) of the grid index under the normalised measure (a float guide for
    where tilts and targets go, not part of any bound); None for no mass."""
    total = float(np.sum(mass))
    if total <= 0:
        return None
    index = np.arange(mass.size, dtype=float)
    mean = float(np.dot(mass, index)) / total
    return mean, max(float(np.dot(mass, (index - mean) ** 2)) / total, 0.0)


def _lams(mass: np.ndarray, rounds: int, count: int) -> np.ndarray:
    """A geometric grid of tilts lam > 0 (per grid index) for Chernoff bounds of the
    `rounds`-fold index sum: from far below 1 / (support sqrt(T)) to 50 over the smaller of
    the support and the standard deviation (a measure concentrated on a few cells of a wide
    support needs a steep tilt: the Q||P order of sigma = 0.5, q = 0.001 spans 5e4 cells
    with a deviation of 10, and a grid ending at 50 / support found no bound below e^-10
    for its epsilon at delta 1e-10; its reading stayed untilted and +inf)."""
    span = max(float(mass.size), 1.0)
    moments = _index_moments(mass)
    deviation = span if moments is None else math.sqrt(moments[1])
    return np.geomspace(1e-3 / (span * math.sqrt(rounds)),
                        50.0 / max(min(span, deviation), 1.0), count)


def _log_mgfs(log_m: np.ndarray, index: np.ndarray, lams: np.ndarray) -> np.ndarray:
    """log M(lam) = log sum_i m_i e^(lam i) for each lam, from the live entries' log m_i
    and indices (logsumexp: no overflow at large lam i)."""
    return np.array([_logsumexp(log_m + lam * index) for lam in lams])


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
    # the +inf atom: (s + inf)^T - s^T, with s the finite mass
    s_fin = max(float(np.sum(pmf.mass)), 1e-300)
    if pmf.infinity > 0:
        infinity += math.exp(rounds * math.log(s_fin)) * math.expm1(
            rounds * math.log1p(pmf.infinity / s_fin))
        rel_in = max(rel_in, 8 * _U + 4 * rounds * _U * (abs(math.log(s_fin)) + 1))
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
    # a move there would be in tilted units
    power = LossPmf(pmf.width, 0, start, 0.0, 0.0, pmf.pessimistic or tilted is not None,
                    r_tilt, spread=pmf.spread)
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
    lam, log_m = tilted[0], tilted[1]
    t_log = rounds * log_m
    # the first index whose factor M^T e^(-lam k) is at most 1
    k_c = max(result.offset, math.ceil(t_log / lam) + 1)
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
    bulk = math.exp(rounds * math.log(s_total)) * (1 + relative) if skip > 0 else 0.0
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
        mean, var = _index_moments(mass) or (0.0, 0.0)   # live mass: never None here
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
    safe direction, counted in `moved`). Optimistic: the mirror. Round-off: Higham's bound
    for the forward FFT, amplified T rho^(T-1) by the power (|y^T - z^T| <= T rho^(T-1)
    |y - z|, rho bounding both moduli), 6 T u relative for the chain of squarings, and the
    inverse FFT's own bound; the l1 error is sqrt(L) times the 2-norm one. None as well
    when that round-off and the wrapped tail exceed `budget`.
    """
    mass = pmf.mass
    total = float(np.sum(mass))
    if rounds < 2 or mass.size < 2 or total <= 0 or tail <= 0:
        return None
    lo, hi = _chernoff_window(mass, rounds, tail)
    length = 1 << (max(hi - lo + 1, mass.size) - 1).bit_length()
    if length > _MAX_POWER_LENGTH:
        return None
    padded = np.zeros(length)
    padded[:mass.size] = mass
    spectrum = np.fft.rfft(padded)
    result = np.ones_like(spectrum)
    base, k = spectrum, int(rounds)
    while True:
        if k & 1:
            result *= base
        k >>= 1
        if not k:
            break
        base = base * base
    out = np.fft.irfft(result, length)
    np.maximum(out, 0.0, out=out)
    out = np.roll(out, -(lo % length))
    # round-off (2-norms, then l1 by Cauchy-Schwarz)
    e_l = _fft_relative(length)
    norm2 = math.sqrt(_sumsq(mass)) * 1.001
    forward = e_l * math.sqrt(length) * norm2
    rho = total * (1 + 2 * rounding.sum_relative_error(mass.size)) + forward
    if rounds * math.log(rho) > math.log(2.0):
        return None
    rho_t = math.exp(rounds * math.log(rho))
    power = rounds * rho_t / rho * forward + 6 * rounds * _U * rho_t * math.sqrt(length)
    two_norm = power / math.sqrt(length) + 1.01 * e_l * (rho_t + power / math.sqrt(length))
    fft_l1 = 1.05 * math.sqrt(length) * two_norm
    if fft_l1 + tail > budget:
        return None
    # each end's mass outside the window (<= tail, Chernoff) wraps around: pessimistic,
    # the right one also goes to +inf
    return _lifted(pmf, rounds, out, lo, fft_l1 + tail, 0.0, moved=2 * tail,
                   infinity=tail if pmf.pessimistic else 0.0)


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
    dense measure when its added round-off stays within `budget`, else by repeated
    squaring, each step cut to its Chernoff window (`square_compose`) and truncated by
    stored mass.

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


# ------------------------------------------------------------------ reading values
def _h_sum(pmf: LossPmf, epsilon: float) -> tuple[float, float]:
    """(computed H(eps) of the stored measure, bound on its rounding error)."""
    size = pmf.mass.size
    # only the atoms above eps count: start a bucket below the first of them, so that a
    # reading far in the tail costs its few atoms, not the grid (the bisections of a
    # lower reading at delta 1e-10, T = 1e4 passed 60 times over 4.4e7 cells, 40 s)
    z = epsilon / pmf.width
    start = min(max(int(math.floor(z)) - pmf.offset - 1, 0), size) if math.isfinite(z) \
        else (size if z > 0 else 0)
    losses = (np.arange(start, size) + pmf.offset) * pmf.width
    live = losses > epsilon
    terms = -np.expm1(epsilon - losses[live]) * pmf.mass[start:][live]
    h = float(np.sum(terms)) + pmf.infinity
    finite = float(np.sum(pmf.mass[start:][live]))
    # |loss| is largest at an end of the grid
    ends = (np.array([0, size - 1]) + pmf.offset) * pmf.width
    top = float(np.max(np.abs(ends))) if size else 0.0
    err = (h * (rounding.sum_relative_error(int(live.sum()) + 1) + 8 * _U)
           + 4 * _U * (abs(epsilon) + top + 1) * finite)
    return h, err


def delta_of(pmf: LossPmf, epsilon: float) -> float:
    """A bound on the true H(e^eps): upper for a pessimistic measure (computed value plus
    rounding plus ledger), lower for an optimistic one (minus both, at least 0)."""
    h, err = _h_sum(pmf, epsilon)
    ledger = pmf.error_above(epsilon)
    if pmf.pessimistic:
        return min(1.0, rounding.up((h + err + ledger) / (1 - pmf.relative)
                                    * (1 + 4 * _U)))
    return max(0.0, rounding.down((h - err - ledger) / (1 + pmf.relative)
                                  * (1 - 4 * _U)))


def epsilon_of(pmf: LossPmf, delta: float) -> float:
    """A bound on the true eps(delta) = inf{eps >= 0: H(e^eps) <= delta}.

    Pessimistic: an eps whose certified `delta_of` is <= delta (so the truth is <= eps);
    +inf when even the +inf atom and ledger exceed delta. Optimistic: an eps whose certified
    lower `delta_of` exceeds delta (so the truth is >= eps), or 0.
    """
    losses = (np.arange(pmf.mass.size) + pmf.offset) * pmf.width
    top = float(losses[-1]) if losses.size else 0.0
    if pmf.pessimistic:
        if delta_of(pmf, max(top, 0.0)) > delta:
            return math.inf
        # (a guess: the certified check follows)
        target = delta * (1 - 1e-9) * (1 - pmf.relative) - pmf.base_error
        guess = _inversion(losses, pmf.mass, pmf.infinity, max(target, 0.0))
        good = max(top, 0.0)
        if math.isfinite(guess) and delta_of(pmf, guess) <= delta:
            good = guess
        # the certified check failed at the guess: bisect between it and a known-good eps
        lo = guess if math.isfinite(guess) else 0.0
        if good != guess:
            good = _bisect(lambda e: delta_of(pmf, e) <= delta, good, lo)
        return rounding.up(good)
    # a tilted measure's lower H is 0 below its kept tail (the total ledger is about 1):
    # search from there (bisection keeps only points where the check holds)
    start = 0.0 if pmf.tilt is None else max(0.0, (pmf.tilt[3] + 2) * pmf.width)
    if delta_of(pmf, start) <= delta:
        return 0.0
    guess = _inversion(losses, pmf.mass, pmf.infinity,
                       delta * (1 + 1e-9) * (1 + pmf.relative) + pmf.base_error)
    guess = guess if math.isfinite(guess) else max(top, 0.0)
    if delta_of(pmf, guess) > delta:
        good = guess
    else:
        good = _bisect(lambda e: delta_of(pmf, e) > delta, start, guess)
    return rounding.down(good)


# eta candidates (fractions of the value) for the coupling's failure probability
_ETAS = (0.3, 0.1, 0.03, 1e-2, 1e-3, 1e-5)


def coupling_shift(pmf: LossPmf, eta: float) -> float:
    """tau with P[sum of rounding shifts > tau] <= eta for a connect-the-dots measure:
    drift + sqrt(spread log(1/eta) / 2) (Hoeffding, given the true losses)."""
    return rounding.up((pmf.drift + math.sqrt(pmf.spread * -math.log(eta) / 2))
                       * (1 + 8 * _U))


def _from_below(pmf: LossPmf) -> LossPmf:
    """The stored measure read from below: an upper one with its safe-direction moves
    taken back; a lower one as it is."""
    if not math.isfinite(pmf.spread):
        raise ParameterError("a lower reading needs a connect-the-dots or rounded-down "
                             "measure (pld.connected_pmf)")
    if not pmf.pessimistic:
        return pmf
    undo = pmf.moved * (1 + pmf.relative) * (1 + 2 * _U)
    return replace(pmf, pessimistic=False, error=rounding.up(pmf.error + undo),
                   tilt=_tilt_plus(pmf.tilt, undo))


def _tilt_plus(tilt: tuple[float, float, float, int] | None,
               extra: float) -> tuple[float, float, float, int] | None:
    """`tilt` with `extra` more absolute error anywhere."""
    if tilt is None:
        return None
    lam, log_c, base, j_c = tilt
    return lam, log_c, rounding.up((base + extra) * (1 + 2 * _U)), j_c


def _etas(pmf: LossPmf, scale: float) -> tuple[float, ...]:
    # no coupling randomness (rounded-down rounds only): eta = 0; else eta > 0 only (a
    # product that underflows to 0 would read the measure with no shift at all)
    if pmf.spread == 0:
        return (0.0,)
    return tuple(eta for eta in (scale * r for r in _ETAS) if eta > 0)


def lower_delta_of(pmf: LossPmf, epsilon: float) -> float:
    """A certified LOWER bound on the true H(e^eps) from a connect-the-dots (or rounded-
    down) measure: H(eps) >= H'(eps + tau) - eta, H' the composed grid measure,
    tau = `coupling_shift` (docs/conversions.md#connect-the-dots); the best of a few eta."""
    low = _from_below(pmf)
    h0 = delta_of(low, epsilon)
    best = 0.0
    for eta in _etas(pmf, h0):
        if h0 <= 0:
            break
        at = rounding.up(epsilon + coupling_shift(pmf, eta)) if eta > 0 else epsilon
        best = max(best, rounding.down(delta_of(low, at) - eta))
    return best


def lower_epsilon_of(pmf: LossPmf, delta: float) -> float:
    """A certified LOWER bound on the true eps(delta) from a connect-the-dots (or rounded-
    down) measure: an eps' whose lower H exceeds delta + eta, less tau, or 0."""
    low = _from_below(pmf)
    best = 0.0
    for eta in _etas(pmf, delta):
        e = epsilon_of(low, min(delta + eta, 1.0))
        if e > 0:
            shift = coupling_shift(pmf, eta) if eta > 0 else 0.0
            best = max(best, rounding.down(e - shift))
    return best


def _bisect(holds: Callable[[float], bool], good: float, bad: float) -> float:
    """Bisection between a point where `holds` is true (`good`) and one where it is false,
    to 1e-12 relative (60 steps at most); returns the last point where it held."""
    for _ in range(60):
        mid = 0.5 * (good + bad)
        if holds(mid):
            good = mid
        else:
            bad = mid
        if abs(good - bad) <= 1e-12 * max(1.0, good, bad):
            break
    return good


def _inversion(losses: np.ndarray, probs: np.ndarray, infinity: float, delta: float) -> float:
    """inf{eps >= 0 : H(eps) <= delta} of a measure on the uniform grid `losses`, computed
    (not certified): docs/divergences.md#exact-inversion on the atoms.

    With the positive losses in decreasing order l_0 > l_1 > ..., H on [l_n, l_(n-1)) is
    A_n - e^(eps - l_n) y_n, A_n the mass above l_n (+inf included) and
    y_n = sum_(j<n) p_j e^(l_n - l_j), a first-order recursion with factor e^-width
    (`lfilter`, one pass): every exponent is <= 0. Summing p e^-l directly underflowed
    above a loss of 745 and read such measures as eps = 0 (a lower end of 744 at
    sigma = 0.3, q = 0.1, T = 1e4 against a truth near 3594; issue 21). The recursion is
    kept for the next call on the same arrays (`_profile`): a lower reading inverts one
    measure at six deltas, and the recursion over 5e5 cells was 40 % of a T = 1e4 call.
    """
    if infinity > delta:
        return math.inf
    prof = _profile(losses, probs, infinity)
    if prof is None:
        return 0.0
    ls, ps, y, above, a = prof
    over = np.flatnonzero(a - y > delta)
    if over.size:
        n = int(over[0])
        if n == 0:                             # H(l_0) is the +inf atom: rounding only
            return max(0.0, float(ls[0]))
        base, a_n, y_n, top = float(ls[n]), float(a[n]), float(y[n]), float(ls[n - 1])
    else:                                      # on [0, l_last): every atom is above eps
        base, a_n = float(ls[-1]), infinity + float(above[-1])
        y_n, top = float(y[-1] + ps[-1]), float(ls[-1])
        if a_n <= delta:
            return 0.0
    if y_n <= 0:
        return max(0.0, top)
    return max(0.0, min(top, base + math.log((a_n - delta) / y_n)))


_PROFILES: list[tuple[tuple[int, int, float, float, float], np.ndarray, Any]] = []


def _profile(losses: np.ndarray, probs: np.ndarray, infinity: float) -> Any:
    """(positive losses decreasing, their masses, y, cumulative masses, A) of `_inversion`,
    or None without a positive loss; the last two are kept (`compose_views` clears them),
    keyed by the identity of the mass array (held in the entry, so the identity cannot be
    reused while it is kept) and the grid. Only a guess depends on it: every `epsilon_of`
    checks its answer with the certified `delta_of`."""
    key = (id(probs), probs.size, float(losses[0]) if losses.size else 0.0,
           float(losses[-1]) if losses.size else 0.0, infinity)
    for k, held, prof in _PROFILES:
        if k == key and held is probs:
            return prof
    positive = losses > 0
    ls, ps = losses[positive][::-1], probs[positive][::-1]
    if ls.size == 0:
        prof = None
    else:
        # the step of the grid (a guess needs no more than its computed value)
        r = math.exp(-(float(ls[0] - ls[1]) if ls.size > 1 else 1.0))
        y = lfilter([0.0, r], [1.0, -r], ps)
        above = np.cumsum(ps)
        a = infinity + np.concatenate(([0.0], above[:-1]))    # mass strictly above l_n
        prof = (ls, ps, y, above, a)
    _PROFILES.insert(0, (key, probs, prof))
    del _PROFILES[2:]
    return prof


# ------------------------------------------------------------------ public composition
class LossPmfSource(ABC):
    """A pair that discretises its own privacy-loss measures for the PLD engine (e.g.
    `composition.subsampled.SubsampledPair`, `composition.noise.NoisePair`): the engine
    composes it like a ViewPair or a ClonePair, recognised by this type."""

    __slots__ = ()

    @property
    @abstractmethod
    def description(self) -> Mapping[str, Any]:
        """What the pair is (protocol, parameters), for labels."""

    @abstractmethod
    def loss_pmfs(self, width: float, pessimistic: bool, tail: float,
                  connect: bool = False) -> list[LossPmf]:
        """The discretised PLDs: one for a symmetric pair, else [P||Q, Q||P].

        Args:
            width: grid width Delta.
            pessimistic: upper (True) or lower (False) measures.
            tail: mass allowed outside the windows (moved in the safe direction).
            connect: connect-the-dots measures (`connected_pmf`, `split_pmf`) where the
                source has them (`connects`), else rounded ones.

        Returns:
            One or two `LossPmf`s.
        """

    @property
    def connects(self) -> bool:
        """Whether `loss_pmfs(..., connect=True)` gives connect-the-dots measures, whose
        lower reading needs no fine grid (`lower_epsilon_of`)."""
        return False

    @property
    def self_coupled(self) -> bool:
        """Whether the connect-the-dots upper measure is that of the pair itself, so that
        it also gives the lower end (no second composition)."""
        return False


# what the PLD engine composes: a float ViewPair, a ClonePair or a LossPmfSource
PairSource: TypeAlias = ViewPair | ClonePair | LossPmfSource


@dataclass(frozen=True, slots=True)
class PldComposition:
    """Pessimistic (UPPER) and optimistic (LOWER) values of one composition.

    Attributes:
        upper: Result from the pessimistic measure (certified, see module docstring).
        lower: Result from the optimistic measure (LOWER), or None when some view's grid
            is not exact.
        discretization: the grid width Delta finally used.
        relative_gap: (upper - lower) / upper.
        error: the pessimistic ledger (FFT round-off, binning) added to the upper delta.
    """

    upper: Result
    lower: Result | None
    discretization: float
    relative_gap: float
    error: float = 0.0


def _pmfs(source: PairSource, width: float, pessimistic: bool,
          tail: float, connect: bool = False) -> list[LossPmf]:
    """[P||Q, Q||P] measures of a source (one entry for symmetric pairs)."""
    if isinstance(source, ClonePair):
        return [from_clone_pair(source, width, pessimistic, tail, connect=connect)]
    if isinstance(source, LossPmfSource):  # e.g. composition.subsampled.SubsampledPair
        return list(source.loss_pmfs(width, pessimistic, tail, connect=connect))
    if isinstance(source, ViewPair):
        return [from_view(source, width, pessimistic, connect),
                from_view(source.swapped(), width, pessimistic, connect)]
    raise ParameterError(f"{source!r} is neither a ViewPair nor a ClonePair")


def connects(source: PairSource, itself: bool = False) -> bool:
    """Whether the source has connect-the-dots measures (`connected_pmf`); `itself`: and
    its upper one also gives the lower end (`LossPmfSource.self_coupled`)."""
    if isinstance(source, ClonePair):
        return True
    if isinstance(source, ViewPair):
        return source.grid_exact
    if not isinstance(source, LossPmfSource):
        return False
    return source.self_coupled if itself else source.connects


# the tail losses to tilt towards, one per order (`_tail_target`)
_Targets = tuple[float | None, ...]


def _compose_side(mechanisms: list[tuple[PairSource, int]], width: float,
                  pessimistic: bool, tail: float, connect: bool = False,
                  budget: float = 0.0, at: _Targets | None = None) -> list[LossPmf]:
    """The composed measures of both orders (symmetric sources serve both); `budget`: the
    absolute error each self-composition may add by the power route (`self_compose`);
    `at`: the tail loss to tilt each order towards (one item only: a convolution of two
    tilted measures keeps only the total ledger)."""
    measures = [(_pmfs(source, width, pessimistic, tail, connect), rounds)
                for source, rounds in mechanisms]
    at = at if len(measures) == 1 else None
    # symmetric sources give one measure serving both orders: compose one side only
    sides = (0, 1) if any(len(pm) > 1 for pm, _ in measures) else (0,)
    totals: list[LossPmf | None] = [None] * len(sides)
    for pm, rounds in measures:
        for side in sides:
            one = self_compose.unchecked(truncate(pm[min(side, len(pm) - 1)], tail), rounds,
                                         tail, budget,
                                         None if at is None else at[min(side, len(at) - 1)])
            total = totals[side]
            totals[side] = one if total is None else truncate(convolve(total, one), tail)
    return [t for t in totals if t is not None]


def check_items(mechanisms: Sequence[tuple[PairSource, int]]) -> None:
    """Validate (pair, rounds) items for `compose_views` and `compose_pld`.

    Args:
        mechanisms: the items.

    Raises:
        ParameterError: no item, a source of another type, or rounds outside [1, 1e12].
    """
    if not mechanisms:
        raise ParameterError("PLD composition needs at least one (pair, rounds) item")
    for source, rounds in mechanisms:
        if not isinstance(source, ViewPair | ClonePair | LossPmfSource):
            raise ParameterError(f"{source!r} is neither a ViewPair, a ClonePair nor a "
                                 "pair with loss_pmfs()")
        ROUNDS.check(rounds)


def _items(mechanisms: Sequence[tuple[PairSource, int]]) -> list[tuple[PairSource, int]]:
    return [(source, int(rounds)) for source, rounds in mechanisms]


@checked(mechanisms=check_items, width=POSITIVE.named("discretization"))
def compose_measures(mechanisms: Sequence[tuple[PairSource, int]], width: float, *,
                     pessimistic: bool = True, tail: float = 1e-15,
                     connect: bool = False) -> list[LossPmf]:
    """The composed measures of (pair, rounds) items at one grid width, one per order
    (one when every pair is symmetric), each with its error ledger.

    Args:
        mechanisms: (pair, rounds) items as for `compose_views`.
        width: grid width Delta.
        pessimistic: upper (True) or lower (False) measures.
        tail: truncation threshold per step.
        connect: connect-the-dots measures where the sources have them (read the lower
            end with `lower_delta_of` / `lower_epsilon_of`).

    Returns:
        The `LossPmf`s (read them with `delta_of` / `epsilon_of`).

    Raises:
        ParameterError: bad items or width.
    """
    return _compose_side(_items(mechanisms), width, pessimistic, tail, connect)


class _Evaluation(NamedTuple):
    """`_evaluate`'s answer: the ends, the upper measures' ledger, what a lower reading
    subtracts at any width, and the largest composed measure's cells (a cost estimate)."""

    upper: float
    lower: float | None
    error: float
    floor: float
    cells: int


def _evaluate(mechanisms: list[tuple[PairSource, int]], width: float,
              read: Callable[[LossPmf], float], read_lower: Callable[[LossPmf], float],
              want_lower: bool, coupled: bool, tail: float,
              connect: bool = True,
              budget: float = 0.0, at: _Targets | None = None) -> _Evaluation:
    """(upper, lower or None, error ledger) of the composition, the upper measures read by
    `read` (epsilon_of at delta, or delta_of at epsilon), the lower ones by `read_lower`.
    The upper measures are connect-the-dots where the sources allow it; `coupled`: every
    source's upper measure also gives the lower end (`connects`), else a second
    composition of lower measures (connect-the-dots of a dominated exact pair, or rounded
    down) gives it. `connect=False`: rounded-up and rounded-down measures only."""
    low: list[LossPmf] = []
    coupled = coupled and connect
    if want_lower and not coupled:
        # the two directions are independent: the lower one runs in a second thread
        # (numpy's FFT releases the GIL; the machine has two cores)
        with ThreadPoolExecutor(max_workers=1) as pool:
            job = pool.submit(_compose_side, mechanisms, width, False, tail, connect, budget,
                              at)
            pess = _compose_side(mechanisms, width, True, tail, connect, budget, at)
            low = job.result()
    else:
        pess = _compose_side(mechanisms, width, True, tail, connect, budget, at)
    upper = max(read(p) for p in pess)
    lower = None
    if want_lower and coupled and all(math.isfinite(p.spread) for p in pess):
        lower = min(max(read_lower(p) for p in pess), upper)
    elif want_lower:
        low = low or _compose_side(mechanisms, width, False, tail, connect, budget, at)
        lower = min(max(read_lower(p) for p in low), upper)
    # what a lower reading subtracts at any width: the ledger and the moves it takes back
    floor = max(p.error + (p.moved if math.isfinite(p.spread) else 0.0) for p in pess)
    # the ledger where the upper end is read (a tilted measure's total one is about 1)
    err = max(p.error_above(upper) if math.isfinite(upper) else p.error for p in pess)
    return _Evaluation(upper, lower, err, floor, max(p.mass.size for p in pess))


def _width_for_gap(mechanisms: list[tuple[PairSource, int]], delta: float | None,
                   epsilon: float | None, relative_gap: float,
                   tail: float, at: _Targets | None = None) -> tuple[float, float] | None:
    """(the starting grid width of `compose_views` for connect-the-dots sources, the
    probe's lower end), from cheap probes on coarse grids; None when the probes give no
    finite, positive value. Only a starting point: `compose_views` still checks the gap and
    refines.

    The probe starts at 0.05 and is refined (down to 1e-3) until its own bracket is within
    a factor 2: a large value is located on a grid whose cells cover its loss range
    cheaply (the fixed 1e-3 probe at sigma = 0.3, q = 0.5, T = 1e4 spanned 6e6 cells, and
    the fixed 2e-4 start of a delta reading took 39 s at sigma = 0.41, T = 47; issue 21).

    epsilon(delta): the width whose coupling shift is 0.6 relative_gap of the estimate
    (connect-the-dots is second order: the probe's upper end is already close), at most
    2e-4 unless the upper end's drift stays within 1e-4 of the value there.
    delta(epsilon): the gap (the coupling's shift, first order) scales with the width, so
    the probe's gap is scaled to 0.6 relative_gap (the upper end's own excess is second
    order). Its
    truncation threshold follows the probes' lower ends (`truncation_tail` at that delta):
    below the FFT's round-off floor (the 1e-20 of a reading without delta) no tail is ever
    cut and each squaring doubles the measure (sigma = 1, q = 0.01, T = 1e3: 5.6e6 cells at
    a 1e-3 grid, and more than 250 s at 2e-4)."""
    def read(pess: list[LossPmf], lows: list[LossPmf]) -> tuple[float, float]:
        if delta is not None:
            return (max(epsilon_of(p, delta) for p in pess),
                    max(lower_epsilon_of(p, delta) for p in lows))
        assert epsilon is not None
        return (max(delta_of(p, epsilon) for p in pess),
                max(lower_delta_of(p, epsilon) for p in lows))

    probe = 0.05
    budget = _POWER_SHARE * delta if delta is not None else 0.0
    if delta is None:
        # a threshold the FFT's round-off floor does not defeat, until a probe's lower end
        # says where delta is
        tail = truncation_tail(mechanisms, 1e-6)
    while True:
        try:
            pess = _compose_side(mechanisms, probe, True, tail, connect=True, budget=budget,
                                 at=at)
            lows = pess
            if not all(math.isfinite(p.spread) for p in pess):
                # an upper measure that is not the pair's own (the substitute subsampled
                # round): the lower end, and its coupling's spread, come from the lower
                # measures (without them the probe was lost and a T = 1e4 shuffle
                # composition ran a 2e-4 pass for a 6 % bracket before its 2e-5 grid)
                lows = _compose_side(mechanisms, probe, False, tail, connect=True,
                                     budget=budget, at=at)
        except (PrecisionError, MemoryError):
            return None
        if not all(math.isfinite(p.spread) for p in lows):
            return None
        up, low = read(pess, lows)
        if probe <= 1e-3 or (math.isfinite(up) and up > 0 and low >= 0.5 * up):
            break
        if delta is None and low > 0:
            tail = truncation_tail(mechanisms, low)
        # the coupling's shift, hence the gap, scales with the width
        ratio = 0.25 * up / (up - low) if math.isfinite(up) and up > low else 0.0
        probe = max(1e-3, min(0.25, ratio) * probe)
    if not (math.isfinite(up) and up > 0):
        return None
    if delta is None and low <= 0:
        # a delta reading whose probes certify no lower end (delta within the ledger): their
        # gap says nothing, so the default start; the threshold at 1e-4 of 1e-3 of the
        # probe's upper end, at least of 1e-8, cannot move the upper end by more than the
        # round-off ledger it already carries, while the 1e-20 of no delta was below the
        # FFT's floor (sigma = 1, q = 0.001, T = 1e3 at eps = 1: 60 s for 2.3e-9)
        return 2e-4, max(1e-3 * up, 1e-8)
    if delta is None:
        gap = (up - low) / up
        if gap <= 0:
            return probe, low
        width = probe * 0.6 * relative_gap / gap
        # the upper end may sit up to about the coupling's shift above the truth (first
        # order at atoms near eps): coarser than 2e-4 only while that is 0.1 % of delta
        cap = max(2e-4, probe * 1e-3 / gap)
        return max(_MIN_WIDTH, min(width, probe, cap)), low
    spread = max(p.spread for p in lows) / (probe * probe)   # sum of (range/width)^2
    drift = max(p.drift for p in lows) / (probe * probe)     # about sum of 1/8 per round
    target = 0.6 * relative_gap * up
    shift = math.sqrt(spread * math.log(10 / delta) / 2)      # coupling shift / width
    # the upper end sits about the coupling's mean shift (drift, second order) above the
    # truth, and at atoms near eps up to about its whole shift (first order: one run of
    # randomized response read 1.61196 against log 5 = 1.60944 on a 3e-3 grid): a grid
    # coarser than 2e-4 only where the drift stays within 1e-4 and the shift within 1e-3
    # of the value. A large epsilon (small noise, large q: 3594 at sigma = 0.3, q = 0.1,
    # T = 1e4) asks for no fine grid, while 2e-4 over its loss range took 11e6 cells and
    # 30 s (issue 21)
    cap = 2e-4
    if drift > 0:
        cap = max(cap, min(math.sqrt(1e-4 * up / drift), 1e-3 * up / shift))
    return min(cap, max(_MIN_WIDTH, target / shift)), low


# epsilon(delta) readings at delta at most this tilt their squarings (`square_compose`)
_TILT_BELOW = 1e-7


def _tail_target(mechanisms: list[tuple[PairSource, int]], delta: float | None,
                 tail: float) -> _Targets | None:
    """The losses to tilt the squarings of an epsilon(delta) reading towards, one per order:
    0.95 of a float guess of that order's epsilon, for one connect-the-dots item at
    delta <= 1e-7, where the FFT's absolute round-off (1e-9 and more of the mass at
    T = 1e4) would exceed delta; else None. Only targets: every reading is certified
    whatever they are.

    Each order has its own: the answer is the larger order's epsilon, and the other order
    must still be read there through a ledger below delta (sigma = 0.3, q = 0.001, T = 1e4
    at 1e-10: one target of 64.7 lay beyond the Q||P order's losses, which stayed untilted
    with a ledger of 1.2e-7 and read +inf). The guesses invert a composition on a grid of
    0.05, then on finer grids until the measures' coupling shift at delta (how far above
    the truth the grid can put a guess, first order in the width) is within 5 % of the
    largest guess: the width follows that shift, not a fixed list (sigma = 2, q = 0.001,
    T = 1e4: 2.79 on 0.05 against an epsilon of 0.30; the fixed 0.01 and 2e-3 grids kept it
    there, and the reading tilted at 2.65 certified 1.15 and a lower end of 0). Each probe
    is tilted towards the last guesses; one whose stored bulk a tilt dropped (a guess far
    too high) is retried untilted."""
    if delta is None or delta > _TILT_BELOW or len(mechanisms) != 1 \
            or not connects(mechanisms[0][0]):
        return None

    cells = 0

    def guess_at(width: float, at: _Targets | None) -> tuple[list[float], list[float]]:
        nonlocal cells
        pess = _compose_side(mechanisms, width, True, tail, connect=True, at=at)
        cells = max(p.mass.size for p in pess)
        guesses = []
        for p in pess:
            losses = (np.arange(p.mass.size) + p.offset) * p.width
            # the stored measure's own value, less the ledger where it is read
            guesses.append(_inversion(losses, p.mass, p.infinity, delta))
        _PROFILES.clear()
        # an upper measure with no coupling of its own (spread inf): the shift of a
        # connect-the-dots measure of its grid, 2 width^2 per round (else the first,
        # coarse guess was kept: 3.16 against 1.53 for shuffle rounds at delta 1e-10)
        shifts = [coupling_shift(p if math.isfinite(p.spread) else
                                 replace(p, spread=2 * total * width * width), delta)
                  for p in pess]
        return guesses, shifts

    def usable(guesses: list[float]) -> bool:
        return all(math.isfinite(g) for g in guesses) and max(guesses) > 0

    at: _Targets | None = None
    width = 0.05
    total = sum(rounds for _, rounds in mechanisms)
    for _ in range(6):
        try:
            guesses, shifts = guess_at(width, at)
            if at is not None and not all(math.isfinite(g) and g > 0 for g in guesses):
                # an order whose guess lay in the bulk its tilt dropped: that order's
                # guess from the untilted probe
                plain, _ = guess_at(width, None)
                guesses = [g if math.isfinite(g) and g > 0 else h
                           for g, h in zip(guesses, plain, strict=True)]
        except (PrecisionError, MemoryError):
            return at
        if not usable(guesses):
            return at
        # aim below each guess by its shift (the truth lies about there or above): a
        # target above an order's losses cannot be tilted to, and that order's reading
        # then carries the whole FFT ledger (the Q||P order of sigma = 0.3, q = 0.001,
        # T = 1e3 guessed 1.30 on 0.01, with losses up to 0.96 on the final grid: +inf)
        at = tuple(0.95 * max(g - h, 0.5 * g) if g > 0 else None
                   for g, h in zip(guesses, shifts, strict=True))
        top, shift = max(guesses), max(shifts)
        if shift <= 0.05 * top or not math.isfinite(shift):
            break
        # the shift scales with the width; a probe stays within 1e6 cells and 1e-6 wide
        # (at delta 5e-324 the shift's log(1/delta) asked for 2e-8 and 24 GiB)
        finer = width * max(0.05, min(0.5, 0.9 * 0.05 * top / shift))
        if finer < _MIN_WIDTH or cells * width / finer > _REFINE_CELLS:
            break
        width = finer
    return at


def truncation_tail(mechanisms: Sequence[tuple[PairSource, int]],
                    delta: float | None = None) -> float:
    """The per-step truncation threshold of `compose_views`: the moved tails add up to at
    most 1e-4 of delta (1e-20 when delta is not given).

    A tail cut at squaring level j of a T-fold self-composition is convolved into 2^(J - j)
    copies of itself, so one item's cuts add up to about 2 T tail (in the upper measure's
    +inf atom, and in the `moved` ledger that its lower reading takes back), plus one tail
    per other step. Dividing by the steps alone put 1.2e-5 on +inf at T = 1e6,
    delta = 1e-5 (a 1.6 % bracket whatever the grid width).

    Args:
        mechanisms: (pair, rounds) items.
        delta: the delta of an epsilon(delta) reading, or None.

    Returns:
        The threshold, in [1e-300, 1e-12].
    """
    steps = sum(2 * max(1, int(r).bit_length()) + 1 for _, r in mechanisms)
    amplification = steps + sum(2 * int(r) for _, r in mechanisms)
    budget = 1e-4 * delta if delta is not None else 1e-20
    return max(min(budget / (4 * amplification), 1e-12), 1e-300)


@checked(mechanisms=check_items, delta=DELTA, epsilon=EPSILON,
         discretization=POSITIVE.named("discretization"))
def compose_views(mechanisms: Sequence[tuple[PairSource, int]], *, delta: float | None = None,
                  epsilon: float | None = None, discretization: float | None = None,
                  relative_gap: float = 0.008, max_refinements: int = 3) -> PldComposition:
    """epsilon(delta) or delta(epsilon) of the composition of `rounds` copies of each pair.

    Args:
        mechanisms: (pair, rounds) items: a float `ViewPair` (one mechanism's neighbouring
            pair or dominating pair, both orders composed) or a `ClonePair` (symmetric),
            composed `rounds` times, all of them together.
        delta, epsilon: exactly one: the point at which to report the other coordinate.
        discretization: loss grid width Delta. None: start at 1e-3/total rounds (at least
            1e-6) and refine (at most `max_refinements` times) until
            upper - lower <= relative_gap * upper.
        relative_gap: target of the automatic refinement.
        max_refinements: most refinements.

    Returns:
        PldComposition with the certified UPPER and LOWER Results.

    Raises:
        ParameterError: bad items or parameters.
        PrecisionError: the given discretization needs too many buckets.
    """
    mechanisms = _items(mechanisms)
    read: Callable[[LossPmf], float]
    read_lower: Callable[[LossPmf], float]
    if delta is not None and epsilon is None:
        read, at = partial(epsilon_of, delta=delta), float(delta)
        read_lower = partial(lower_epsilon_of, delta=delta)
    elif epsilon is not None and delta is None:
        read, at = partial(delta_of, epsilon=epsilon), float(epsilon)
        read_lower = partial(lower_delta_of, epsilon=epsilon)
    else:
        raise ParameterError("give exactly one of delta and epsilon")
    want_lower = all(not isinstance(s, ViewPair) or s.grid_exact for s, _ in mechanisms)
    coupled = all(connects(s, itself=True) for s, _ in mechanisms)
    coarse = all(connects(s) for s, _ in mechanisms)
    total_rounds = sum(r for _, r in mechanisms)
    tail = truncation_tail(mechanisms, delta)
    # the power route of a self-composition may add this much absolute error (eps readings;
    # delta readings once a probe has located delta, below)
    power_budget = _POWER_SHARE * delta if delta is not None else 0.0
    # rounded measures: the gap is about T width, so the width shrinks with T
    rounded_width = discretization or max(1e-3 / total_rounds, 1e-6)
    if coarse:
        # connect-the-dots: the upper end is second order in the width; the lower end's
        # coupling shift is about width sqrt(T log(1/eta)/2): coarse probes measure the
        # gap (`_width_for_gap`; else a first pass at 2e-4), from which the refinement
        # below picks the final width
        width = discretization or 2e-4
        target = _tail_target(mechanisms, delta, tail)
        if discretization is None and want_lower:
            start = _width_for_gap(mechanisms, delta, epsilon, relative_gap, tail, target)
            if start is not None:
                width = start[0]
                if delta is None and start[1] > 0:
                    # a delta reading: truncate at 1e-4 of the probes' certified lower end,
                    # and let the power route add 2e-3 of it (squaring at sigma = 0.5,
                    # q = 0.001, T = 1e4, eps = 1 took 36 s on the 1.1e-5 grid it needs)
                    tail = truncation_tail(mechanisms, start[1])
                    power_budget = _POWER_SHARE * start[1]
    else:
        target = None
        width = rounded_width
        if discretization is None and total_rounds >= 1000 and want_lower:
            # long compositions: a first pass on a 4x coarser grid (about 4x cheaper) only
            # measures the gap, from which the refinement below picks the final width
            width *= 4
    for coarsened in range(_MAX_COARSENINGS + 1):
        try:
            upper, lower, err, floor, cells = _evaluate(mechanisms, width, read, read_lower,
                                                        want_lower, coupled, tail,
                                                        budget=power_budget, at=target)
            break
        except OutcomeLimitError:
            raise
        except PrecisionError:
            # too many buckets: a coarser grid has fewer (an outcome limit does not move
            # with the width, and once looped here forever: n = 1e6 Laplace, 2026-11-27)
            if discretization is not None or coarsened == _MAX_COARSENINGS:
                raise
            width *= 4
    refinements = 0
    up_width = width   # the grid of the upper end kept
    while (discretization is None and lower is not None and refinements < max_refinements
           and math.isfinite(upper) and upper - lower > relative_gap * upper):
        # never below 1e-6 (the rounded scheme's floor): a tiny epsilon asks for a grid
        # whose pieces and FFTs would not fit in memory
        grid_part, goal = upper - lower, 0.8 * relative_gap * upper
        if delta is None:
            # a delta reading's ends each carry the round-off ledger, which a finer grid
            # only grows: refine for the rest of the gap, and not at all once the ledger
            # alone fills the target (sigma = 0.3, q = 0.1, T = 1e4, eps = 3590: 3e-8 of
            # 1.1e-5 each side; refining to 7e-5 took 108 s for a 1.15 % bracket)
            grid_part, goal = grid_part - 2 * err, goal - 2 * err
            # (and a delta within a few ledgers of 0: sigma = 1, q = 0.001, one round at
            # eps = 1, delta 2e-16, refined to a 1e-6 grid for 14 s and a lower end of 0)
            if goal <= 0.25 * grid_part or upper <= 4 * floor:
                break
        if delta is not None and lower <= 0 and err >= 0.5 * delta:
            # the ledger where the upper end is read is half of delta already, and a lower
            # reading (below it) subtracts at least as much: no grid certifies a lower end
            # (delta 1e-300: a refinement to 1e-6 took 5 s for another lower end of 0)
            break
        new_width = max(width * goal / grid_part, _MIN_WIDTH)
        if new_width >= width or (target is not None
                                  and cells * width / new_width > _REFINE_CELLS):
            # a tilted reading's gap is mostly the lower end's moved mass, not the grid: no
            # grid of more than 1e6 cells (sigma = 1, q = 0.001, T = 1e4 at delta 1e-10
            # went from 2.8e5 cells to 2.3e6 in 47 s for a 1 % higher lower end; the
            # shuffle rounds at T = 1e6, delta 1e-5 need 4e6 for their 0.7 %)
            break
        try:
            u2, l2, e2, floor, cells = _evaluate(mechanisms, new_width, read, read_lower,
                                                 True, coupled, tail, budget=power_budget,
                                                 at=target)
        except (PrecisionError, MemoryError):
            break
        # both grids' ends are certified: keep the better of each (a finer grid's tilt can
        # miss, sigma = 0.5, q = 0.001, T = 1e4 at delta 1e-10 read +inf at 8.7e-6)
        if u2 <= upper:
            upper, err, up_width = u2, e2, new_width
        lower = lower if l2 is None else max(lower, l2)
        width = new_width
        refinements += 1
        if upper - lower > 0.7 * grid_part:
            # the gap did not follow the grid: something else holds it (at delta 1e-10,
            # T = 1e4 the lower reading's 3e-10 of moved mass; the grid went from 9e-5 to
            # 1e-6 in 160 s for a lower end 0.8 % higher)
            break
    scale = delta if delta is not None else upper
    # rounded measures are first order: their ends sit about T width / 2 from the truth,
    # so once that exceeds the bracket they can improve neither end (at T = 1e6 the 1e-6
    # grid took 64 s and 5.9 GiB to report 14.23 against 13.66)
    hopeless = (lower is not None and math.isfinite(upper)
                and 0.5 * total_rounds * rounded_width >= upper - lower)
    # and only where they stay small: a composition spanning millions of cells at the
    # rounded width is dense there too, so its FFT's round-off is no smaller (sigma = 1,
    # q = 0.01, T = 1e3 at delta 1e-8: 8e6 cells, 60 s, for the same bracket)
    hopeless = hopeless or cells * width / rounded_width > _FALLBACK_CELLS
    if 0 < scale and err > 1e-2 * scale and not hopeless:
        # the FFT's absolute round-off is not small against a tiny delta: connect-the-dots
        # fills the grid where rounded measures of few atoms stay sparse (direct, relative
        # error only); both are certified, so keep the better end of each
        try:
            u2, l2, e2, _, _ = _evaluate(mechanisms, rounded_width, read, read_lower,
                                         want_lower, False, tail, connect=False)
        except (PrecisionError, MemoryError):
            u2, l2, e2 = math.inf, None, math.inf
        if u2 < upper:
            upper, err, up_width = u2, e2, rounded_width
        if l2 is not None and (lower is None or l2 > lower):
            lower = l2
    _PROFILES.clear()   # they hold the largest arrays of the call
    quantity = "epsilon" if delta is not None else "delta"
    label = "+".join(f"{r}x[{_label(s)}]" for s, r in mechanisms)
    method = f"composition.pld.compose_views({label}, discretization={up_width:.3g})"
    up = Result(quantity=quantity, value=rounding.up(upper), kind=Kind.UPPER,
                direction=Direction.MAX, method=method + " pessimistic", source=_SOURCE,
                at=at)
    low = None if lower is None else Result(
        quantity=quantity, value=lower, kind=Kind.LOWER, direction=Direction.MAX,
        method=method + " optimistic", source=_SOURCE, at=at)
    if lower is None:
        gap = math.inf
    elif upper > 0 and math.isfinite(upper):
        gap = (upper - lower) / upper
    else:
        gap = 0.0 if upper == lower else math.inf
    return PldComposition(upper=up, lower=low, discretization=up_width, relative_gap=gap,
                          error=err)


def _label(source: PairSource) -> str:
    d = dict(source.description)
    return ", ".join(f"{k}={v}" for k, v in d.items() if not isinstance(v, dict | list)) \
        or "view"
