"""Poisson subsampling of users before the shuffle, for dominating pairs
(docs/conversions.md#poisson-subsampling-of-a-shuffled-round).

Each round every user takes part independently with probability q; the participants run the
shuffled protocol. Two neighbouring relations:

- substitute (the differing user's data changes, its participation coin is shared): the
  round is dominated by the mixture (1-q) [loss 0] + q [clones pair with clone probability
  q p0], where p0 is the pair's clone probability (FMT's e^-eps0, the k-RR blanket's
  2/(e^eps0+k-1)): a participating other user is a clone with probability q p0;
- add/remove (the differing user is present or absent): every eps0-LDP randomizer satisfies
  R(y) >= e^-eps0 R(x), so each other user is, independently, absent (1-q), a sample of
  R(x) (q e^-eps0), or a draw of its own left-over law (the rest). Revealing the left-over
  users, the view is a post-processing of (M, K + B) against (M, K), M the number of other
  users not left over (revealed), K | M ~ Bin(M, p'), p' = q e^-eps0/(1-q+q e^-eps0), and
  B ~ Bern(q) the differing user's participation. Both orders are composed.

Both give `LossPmf`s for `accountant.composition.pld` (`loss_pmfs`), built in O(outcomes)
with numpy from certified log-PMFs.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from accountant.composition.add_remove_atoms import (
    MAX_ATOMS,
    AddRemoveAtoms,
    add_remove_atoms,
    atom_count,
    merged,
)
from accountant.composition.pld import (
    LossPmf,
    LossPmfSource,
    connected_pmf,
    grid_index,
    pmf_from_entries,
)
from accountant.composition.pld.runs import runs_of
from accountant.divergence.common import ULP_SLACK
from accountant.domains import PROBABILITY
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric import rounding
from accountant.numeric.logspace import finite_abs
from accountant.numeric.special import binomial_logpmf, half_binomial_rows, log_pmf_error
from accountant.numeric.tails import binomial_log_window
from accountant.pairs.clones import ClonePair

__all__ = ["SubsampledPair", "RELATIONS"]

RELATIONS = ("substitute", "add-remove")
_U = rounding.UNIT_ROUNDOFF
# outcomes (c, a) formed at once: about 30 float arrays of this length are alive per chunk
_CHUNK_OUTCOMES = 1 << 18
# the most outcomes whose atoms a pair keeps between grid widths (4 arrays: 384 MiB a
# direction): n = 1e6 users at q = 0.01 have 6.2e6 and rebuilt them for each of 12 widths
# tried (60 s for one epsilon; kept, 24 s and 0.58 GiB); n = 1e8 has 9.1e6 (71 s rebuilt,
# 27.5 s kept, 0.71 GiB)
_CACHED_OUTCOMES = 12_000_000
# the most expected clone tokens C = M p1 of the substitute measure: its outcomes (c, a)
# grow like 180 C (9.1e6 at C = 5e4: n = 1e8, q = 0.01, epsilon0 = 3); beyond, the pair of
# fewer other users is composed (`SubsampledPair.others_used`)
_MAX_CLONE_MEAN = 5e4
# the most outcomes of all M-blocks together before blocks are merged (`_substitute_atoms`)
_BLOCK_OUTCOMES = 1 << 22
# (loss, its error, log mass in the block, its error, each row's first outcome, the
# block's log weights)
_Chunk = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
               tuple[float, float, float]]
# add/remove atoms binned at once (about 12 float arrays of this length are alive)
_CHUNK_ATOMS = 1 << 21
# held while a pair's substitute atoms are built (`SubsampledPair._substitute_atoms`)
_BUILDING = threading.Lock()
# the widest mixture binned here (pld.pmf_from_entries refuses wider single pairs too)
_MAX_SPAN = 8_000_000


@dataclass(frozen=True, slots=True)
class SubsampledPair(LossPmfSource):
    """A dominating pair of one Poisson-subsampled shuffled round.

    Attributes:
        pair: the protocol's dominating clones-family pair (FMT clones or k-RR blanket).
        sampling_rate: q in (0, 1].
        relation: "substitute" or "add-remove".
    """

    pair: ClonePair
    sampling_rate: float
    relation: str = "substitute"
    # the substitute measure's atoms by (pessimistic, tail, blocks) (`_substitute_atoms`)
    _atoms: dict[tuple[bool, float, int], tuple[float, list[_Chunk]]] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    # the add/remove atoms by tail, both directions' (`_add_remove_atoms`)
    _ar_atoms: dict[float, AddRemoveAtoms] = field(default_factory=dict, init=False, repr=False,
                                             compare=False)
    # `others_used`, once decided (the add/remove one bisects windows: asked for by every
    # description and build)
    _others: list[int] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.pair, ClonePair):
            raise ParameterError(f"{self.pair!r} is not a clones-family pair")
        PROBABILITY.named("sampling_rate").check(self.sampling_rate)
        if self.sampling_rate <= 0:
            raise ParameterError("sampling_rate=0 is outside (0, 1]")
        if self.relation not in RELATIONS:
            raise ParameterError(f"relation={self.relation!r} is outside {set(RELATIONS)}")

    @property
    def description(self) -> dict[str, Any]:
        """The pair's description with the rate and the relation (and the other users
        composed, where fewer than the pair's)."""
        out = {**dict(self.pair.description), "sampling_rate": self.sampling_rate,
               "relation": self.relation}
        if self.others_used < self.pair.others:
            out["others_used"] = self.others_used
        return out

    @property
    def others_used(self) -> int:
        """The other users whose substitute pair is composed: all of them, or as many as
        give `_MAX_CLONE_MEAN` expected clone tokens.

        Fewer others give a dominating pair: the pair with N others is the pair with
        N' < N plus N - N' more users who are, independently of the differing user's
        data, absent or clones, which is a post-processing (add their M and tokens), so
        every divergence of the N-pair is at most the N'-pair's. The bound is looser (by
        about sqrt(N/N')), but its outcomes stay within about 9e6 (n = 1e9, q = 0.01:
        6e7 outcomes rebuilt for each of 14 grid widths, more than 10 minutes for one
        epsilon). The add/remove pair likewise (more users add an independent (M, K) to
        both views): as many as keep its atoms within a quarter of `MAX_ATOMS` (n = 1e9,
        q = 0.9, eps0 = 0.01 would have 6.9e9 of them).

        Returns:
            min(N, floor(_MAX_CLONE_MEAN / (q p0))) for substitute; for add/remove N or
            about N MAX_ATOMS / (4 atoms at N).
        """
        if not self._others:
            self._others.append(self._decide_others())
        return self._others[0]

    def _decide_others(self) -> int:
        n_other = int(self.pair.others)
        q = float(self.sampling_rate)
        if self.relation != "substitute":
            # the add/remove atoms grow like N (both windows like sqrt N): a quarter of
            # the limit at tail 1e-12 leaves room for the smaller tails of other readings
            # (an eighth would cut n = 1e6, q = 0.9, with its 6.9e6 atoms: upper end
            # 0.0257 -> 0.0287)
            count = atom_count(n_other, q, float(self.pair.epsilon0), 1e-12)
            if count <= MAX_ATOMS / 4:
                return n_other
            return max(1, int(0.9 * n_other * MAX_ATOMS / 4 / count))
        rate = q * self.pair.clone_probability
        if n_other * rate <= _MAX_CLONE_MEAN:
            return n_other
        return max(1, int(_MAX_CLONE_MEAN / rate))

    def loss_pmfs(self, width: float, pessimistic: bool, tail: float,
                  connect: bool = False) -> list[LossPmf]:
        """The discretised PLDs: [symmetric] (substitute) or [P||Q, Q||P] (add/remove).

        Args:
            width: grid width.
            pessimistic: upper (True) or lower (False) measure.
            tail: mass allowed outside the windows (to +inf when pessimistic).
            connect: connect-the-dots upper measures (add/remove only: the substitute
                measure bounds blocks of M by their first M, not an exact pair).

        Returns:
            One or two `LossPmf`s.
        """
        if self.relation == "substitute":
            return [self._substitute(width, pessimistic, tail, connect=connect)]
        return self._add_remove(width, pessimistic, tail, connect)

    @property
    def connects(self) -> bool:
        """True: connect-the-dots measures in both directions."""
        return True

    @property
    def self_coupled(self) -> bool:
        """True for add/remove (exact atoms); False for substitute, whose upper measure
        bounds blocks of M by their first M (a dominating pair, not the pair itself)."""
        return self.relation != "substitute"

    def _substitute(self, width: float, pessimistic: bool, tail: float,
                    blocks: int = 16, connect: bool = False) -> LossPmf:
        """The substitute relation's symmetric PLD (module docstring; docs section).

        Given M (other users that are absent or clones; revealed), C ~ Bin(M, p'),
        p' = q p0/(1-q+q p0); on tokens (a, b), c = a + b, with rho = pi(c-1)/pi(c):
        P(a,b) = B_c(a) pi(c) [(1-q) + q rho 2(w a + w' b)/c], Q with w, w' swapped; the
        differing user in the w* block (mass q w*) has loss 0. The pair at M is the pair at
        M' < M plus independent clones (a post-processing), so M-blocks are bounded by the
        pair at their first M (pessimistic) or last M (optimistic). `connect`: the
        connect-the-dots measure (`pld.connected_pmf`) of those block pairs; the upper one
        gets spread inf (its lower reading would bound the dominating pair, not this one).
        """
        q, pair = float(self.sampling_rate), self.pair
        sign = 1.0 if pessimistic else -1.0
        outside, chunks = self._substitute_atoms(pessimistic, tail, blocks)
        parts: list[LossPmf] = []
        indices: list[np.ndarray] = []
        masses: list[np.ndarray] = []
        for loss, margin, log_mass, err, starts, (log_central, central_err, log_w) in chunks:
            if connect:
                runs = runs_of(loss, log_mass, starts, width)
                spread: np.ndarray | float = margin
                wrong: np.ndarray | float = err
                if runs.length > 1:
                    # a coarse grid: runs of neighbours (a planning probe binned 9e6
                    # outcomes, 0.9 s a direction, at n = 1e7, q = 0.5)
                    spread = (float(np.max(margin)) + (runs.greatest - runs.least)
                              * (1 + 4 * _U))
                    wrong = float(np.max(err)) + runs.extra
                if runs.least.size:
                    parts.append(connected_pmf(runs.least, spread,
                                               log_central + runs.log_mass,
                                               wrong + central_err + 8 * _U, width, 0.0,
                                               pessimistic=pessimistic))
                continue
            indices.append(grid_index(loss, margin, width, pessimistic))
            masses.append(np.exp(log_w + log_mass + sign * err) * (1 + sign * 8 * _U))
        if connect:
            if pair.w_star > 0:   # the differing user in the w* block: loss 0
                parts.append(connected_pmf(np.zeros(1), np.zeros(1),
                                           np.array([math.log(q * pair.w_star)]),
                                           np.array([8 * _U]), width, 0.0,
                                           pessimistic=pessimistic))
            pmf = _mixture(parts)
            if not pessimistic:
                return pmf
            # the window's cut mass on +inf, as connected_pmf's `moved` argument does
            moved = rounding.up(outside + tail / 4)
            infinity = rounding.up(pmf.infinity + moved)
            return replace(pmf, infinity=infinity,
                           moved=rounding.up(pmf.moved + moved + 2 * _U * infinity),
                           spread=math.inf)
        indices.append(np.array([0.0]))
        masses.append(np.array([q * pair.w_star * (1 + sign * 8 * _U)]))
        infinity = rounding.up(outside + tail / 4) if pessimistic else 0.0
        return pmf_from_entries(np.concatenate(indices), np.concatenate(masses), width,
                                infinity, pessimistic)

    def _substitute_atoms(self, pessimistic: bool, tail: float,
                          blocks: int) -> tuple[float, Iterable[_Chunk]]:
        """(mass cut by the windows, the outcomes' chunks) of the substitute measure: the
        atoms do not depend on the grid, so a call that tries several widths computes
        them once (kept on the pair while they stay small; 4 of 5 builds of a T = 1e4
        shuffle composition were repeats). Both directions are built together where they
        are kept: they share the terms of (a, c) (half of each build)."""
        # one build at a time: the two directions of one grid are asked for from two
        # threads (`pld.compose`), and the first build serves both
        with _BUILDING:
            key = (pessimistic, tail, blocks)
            hit = self._atoms.get(key)
            if hit is not None:
                return hit
            return self._substitute_build(pessimistic, tail, blocks)

    def _substitute_build(self, pessimistic: bool, tail: float,
                          blocks: int) -> tuple[float, Iterable[_Chunk]]:
        key = (pessimistic, tail, blocks)
        q, pair = float(self.sampling_rate), self.pair
        n_other, p0 = self.others_used, pair.clone_probability
        keep = 1 - q + q * p0
        p1 = min(1.0, q * p0 / keep)
        lo, hi, log_out_m = binomial_log_window(n_other, keep, math.log(tail / 8), tight=True)
        ms = np.arange(lo, hi + 1, dtype=float)
        log_pm = binomial_logpmf(ms, float(n_other), keep)
        err_m = log_pmf_error(log_pm) + 16 * _U * n_other + ULP_SLACK
        # fewer, wider blocks where each holds many outcomes: every block has about the same
        # (c, a) window, and at large n M's window is narrow relative to M, so a block's
        # first M bounds its last closely (n = 1e7, q = 0.01: 8.4e5 outcomes a block, 44 s
        # for one epsilon with 16 blocks; 9 s with 4, the upper end 4e-5 higher)
        clo, chi, _ = binomial_log_window(int(ms[ms.size // 2]), p1, math.log(tail / 8),
                                       tight=True)
        per_block = (chi - clo + 3) * (2 * math.sqrt((chi + 2) * math.log(16 / tail) / 2) + 3)
        used = max(1, min(blocks, int(_BLOCK_OUTCOMES // per_block)))
        edges = np.unique(np.linspace(0, ms.size, min(used, ms.size) + 1).astype(int))
        outside0 = 2 * math.exp(log_out_m) if log_out_m > -745 else 0.0
        layouts = {d: _block_layout(ms, log_pm, err_m, edges, d, p1, tail)
                   for d in (pessimistic, not pessimistic)}
        size = layouts[pessimistic][2]
        # every block's clone counts c share the terms that depend on (a, c) only (the
        # token binomial, the rows' logs): computed once per chunk of c for all blocks of
        # both directions, on the widest window (16 blocks recomputed them: 6 s of each 7 s
        # build at n = 1e7); a wider window only keeps more exact outcomes
        every = [b for d in layouts for b in layouts[d][1]]
        half = max(h for _, h, _, _ in every)
        c_first = int(min(c[0] for c, _, _, _ in every))
        c_last = int(max(c[-1] for c, _, _, _ in every))

        def chunks(directions: tuple[bool, ...]) -> Iterator[tuple[bool, _Chunk]]:
            # rows of c at a time: the outcomes (c, a) grow like n q p0 (1.6e7 arrays of
            # them at n = 1e7 held 3.3 GiB); each chunk is binned on its own
            rows = max(1, _CHUNK_OUTCOMES // (2 * half + 1))
            for start in range(c_first, c_last + 1, rows):
                shared = _token_terms(np.arange(start, min(start + rows, c_last + 1),
                                                dtype=float), half, pair.w, pair.w_prime)
                for d in directions:
                    for c_all, _, m, block in layouts[d][1]:
                        lo_row = max(int(c_all[0]) - start, 0)
                        hi_row = min(int(c_all[-1]) - start + 1, shared.rows)
                        if lo_row < hi_row:
                            yield d, _block_chunk(shared, lo_row, hi_row, m, p1, q) + (block,)

        if size > _CACHED_OUTCOMES:
            return outside0 + layouts[pessimistic][0], (ch for _, ch in chunks((pessimistic,)))
        built: dict[bool, list[_Chunk]] = {True: [], False: []}
        for d, ch in chunks((True, False)):
            built[d].append(ch)
        self._atoms.clear()   # the two directions of one reading's tail
        for d in (True, False):
            self._atoms[(d,) + key[1:]] = (outside0 + layouts[d][0], built[d])
        return self._atoms[key]

    def _add_remove_atoms(self, tail: float) -> AddRemoveAtoms:
        """The add/remove atoms (`add_remove_atoms`), the same for both orders and every
        grid width: built once per tail (16 bytes an atom; n = 1e6, eps0 = 0.01, q = 0.9
        has 1.3e7, which were rebuilt for each of 4 widths, 10 s each)."""
        with _BUILDING:
            hit = self._ar_atoms.get(tail)
            if hit is None:
                hit = add_remove_atoms(self.others_used, float(self.sampling_rate),
                                       float(self.pair.epsilon0), tail)
                self._ar_atoms.clear()
                self._ar_atoms[tail] = hit
            return hit

    def _add_remove(self, width: float, pessimistic: bool, tail: float,
                    connect: bool = False) -> list[LossPmf]:
        sign = 1.0 if pessimistic else -1.0
        atoms = self._add_remove_atoms(tail)
        outside = (2 * math.exp(atoms.log_out_m) + 2 * math.exp(atoms.log_out_k)
                   if pessimistic else 0.0)
        moved = rounding.up(outside + tail / 4)
        result = []
        for order, infinity in enumerate((atoms.inf_with, atoms.inf_without)):
            runs = merged(atoms, width, order)
            least, greatest, log_mass = runs.least, runs.greatest, runs.log_mass
            err = rounding.up(atoms.err + runs.extra)
            parts: list[LossPmf] = []
            for s0 in range(0, least.size, _CHUNK_ATOMS):
                sl = slice(s0, s0 + _CHUNK_ATOMS)
                if connect:
                    # central masses; the upper measure's split also gives the lower end
                    spread = atoms.margin + (greatest[sl] - least[sl]) * (1 + 4 * _U)
                    parts.append(connected_pmf(least[sl], spread, log_mass[sl], err + 4 * _U,
                                               width, pessimistic=pessimistic))
                    continue
                index = (grid_index(greatest[sl], atoms.margin, width, True) if pessimistic
                         else grid_index(least[sl], atoms.margin, width, False))
                moved_mass = np.exp(log_mass[sl] + sign * err) * (1 + sign * 8 * _U)
                parts.append(pmf_from_entries(index, moved_mass, width, 0.0, pessimistic))
            pmf = _mixture(parts) if parts else pmf_from_entries(
                np.zeros(0), np.zeros(0), width, 0.0, pessimistic)
            if connect:
                inf_total = infinity + (moved if pessimistic else 0.0)
                pmf = replace(pmf, infinity=rounding.up(pmf.infinity + inf_total),
                              moved=rounding.up(pmf.moved + (moved if pessimistic else 0.0)
                                                + 2 * _U * inf_total),
                              relative=rounding.up(max(pmf.relative, atoms.inf_err)))
            else:
                central = infinity * (1 + sign * atoms.inf_err)
                pmf = replace(pmf, infinity=max(0.0, rounding.up(
                    pmf.infinity + central + (moved if pessimistic else 0.0))))
            result.append(pmf)
        return result


def _block_layout(ms: np.ndarray, log_pm: np.ndarray, err_m: np.ndarray,
                  edges: np.ndarray, pessimistic: bool, p1: float, tail: float,
                  ) -> tuple[float, list[tuple[np.ndarray, int, float,
                                               tuple[float, float, float]]], int]:
    """The substitute measure's M-blocks in one direction: (the clone windows' cut mass,
    per block (its clone counts c, the token half-width, its M: the first (pessimistic)
    or last, (log central weight, its error, log weight moved by its error)), outcomes)."""
    sign = 1.0 if pessimistic else -1.0
    weights = np.exp(log_pm + sign * err_m)
    outside = 0.0
    layout: list[tuple[np.ndarray, int, float, tuple[float, float, float]]] = []
    size = 0
    for i0, i1 in zip(edges[:-1], edges[1:], strict=True):
        block_w = float(np.sum(weights[i0:i1])) * (1 + sign * 1e-12)
        m = ms[i0] if pessimistic else ms[i1 - 1]
        clo, chi, lout = binomial_log_window(int(m), p1, math.log(tail / 8), tight=True)
        outside += block_w * 2 * math.exp(lout) if lout > -745 else 0.0
        c_all = np.arange(clo, min(chi + 1, int(m)) + 2, dtype=float)
        half = int(math.ceil(math.sqrt(float(c_all.max()) * math.log(16 / tail) / 2))) + 1
        # the block's weight: central (a sum of central masses within err_m, + the sum's
        # rounding) for connect-the-dots, moved by its error for rounded measures
        log_central = math.log(max(float(np.sum(np.exp(log_pm[i0:i1]))), 1e-320))
        central_err = float(np.max(err_m[i0:i1])) + 1e-12
        layout.append((c_all, half, float(m),
                       (log_central, central_err, math.log(max(block_w, 1e-320)))))
        size += c_all.size * (2 * half + 1)
    return outside, layout, size


def _mixture(parts: list[LossPmf]) -> LossPmf:
    """The sum of measures on one grid (the pieces of one pair, binned chunk by chunk).

    Every entry is a float sum of at most len(parts) entries, each nu_i (1 + theta_i) + e_i:
    the relative part becomes (1 + max r_i)(1 + k u) - 1 and the absolute one sum e_i
    (1 + k u), k = len(parts) + 1; atoms, moves add; the coupling bounds of a mixture of
    atoms are the largest of the pieces' (each atom keeps its own split).
    """
    lo = min(p.offset for p in parts)
    hi = max(p.offset + p.mass.size - 1 for p in parts)
    if hi - lo + 1 > _MAX_SPAN:
        raise PrecisionError(f"PLD discretization={parts[0].width:g} needs {hi - lo + 1} "
                             f"buckets for one pair (limit {_MAX_SPAN}); use a coarser "
                             "discretization")
    mass = np.zeros(hi - lo + 1)
    for p in parts:
        mass[p.offset - lo:p.offset - lo + p.mass.size] += p.mass
    k = len(parts) + 1
    rel = max(p.relative for p in parts)
    grow = 1 + k * _U * (1 + 1e-9)
    return LossPmf(parts[0].width, lo, mass,
                   rounding.up(math.fsum(p.infinity for p in parts) * grow),
                   rounding.up(math.fsum(p.error for p in parts) * grow),
                   parts[0].pessimistic, (rel + k * _U * (1 + rel)) * (1 + 4 * _U),
                   moved=rounding.up(math.fsum(p.moved for p in parts) * grow),
                   drift=max(p.drift for p in parts), spread=max(p.spread for p in parts))


@dataclass(frozen=True, slots=True)
class _TokenTerms:
    """The outcomes (a, b = c - a) of a run of clone counts c and their terms that do not
    depend on M: flattened row by row (`starts[r]`: the first outcome of row r)."""

    c: np.ndarray       # the clone counts, one per row
    row: np.ndarray     # each outcome's row
    log_tokens: np.ndarray   # log Bin(c, 1/2)(a)
    fp: np.ndarray      # log 2 (w a + w' b)/c, and with w, w' swapped
    fq: np.ndarray
    f_err: float        # a bound on the error of fp and of fq
    f_bound: float      # a bound on |fp| and |fq|
    err: np.ndarray     # the log mass's error bound (all but pi's): the tokens' and f's
    starts: np.ndarray

    @property
    def rows(self) -> int:
        return int(self.c.size)


def _token_terms(c: np.ndarray, half: int, w: float, w_prime: float) -> _TokenTerms:
    """The outcomes a in floor(c/2) +- half of each count c, where log Bin(c, 1/2)(a) is
    finite, with their M-free terms."""
    log_w, log_w1 = math.log(w), math.log(w_prime)
    lbc_rows, err_rows = half_binomial_rows(c, half)
    a = np.floor(c / 2)[:, None] + np.arange(-half, half + 1)[None, :]
    row = np.broadcast_to(np.arange(c.size)[:, None], a.shape)
    ok = (a >= 0) & (a <= c[:, None]) & np.isfinite(lbc_rows)
    a, row, lbc, e_tokens = a[ok], row[ok], lbc_rows[ok], err_rows[ok]
    cc = c[row]
    with np.errstate(divide="ignore", invalid="ignore"):
        la, lb = np.log(a), np.log(cc - a)
        lc = np.where(cc > 0, np.log(cc), 0.0)
        fp = math.log(2.0) + np.logaddexp(log_w + la, log_w1 + lb) - lc
        fq = math.log(2.0) + np.logaddexp(log_w1 + la, log_w + lb) - lc
    # each operation rounds relative to its operands: the logs of a, b, c (each at most
    # log c) and of w, w', while |fp|, |fq| <= max |log 2w|, |log 2w'| (2(w a + w' b)/c
    # lies between 2w' and 2w): 8 ulps of every magnitude involved, one bound per chunk
    f_bound = max(abs(math.log(2 * w)), abs(math.log(2 * w_prime)))
    f_err = 16 * _U * (2 + abs(log_w) + abs(log_w1) + 4 * math.log(float(c.max()) + 1)
                       + 2 * f_bound)
    err = e_tokens + ULP_SLACK + f_err
    starts = np.searchsorted(row, np.arange(c.size + 1))
    return _TokenTerms(c=c, row=row, log_tokens=lbc, fp=fp, fq=fq, f_err=f_err,
                       f_bound=f_bound, err=err, starts=starts)


def _log_rho(k: np.ndarray, m: float, p1: float, lpi: np.ndarray, lpi1: np.ndarray,
             e_pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log rho, its error bound), rho = pi(k-1)/pi(k) for pi = Bin(m, p1).

    Where 1 <= k <= m and p1 <= 1/2, rho = k (1 - p1)/((m - k + 1) p1) in closed form: a
    few ulps of its logs (and p1's relative error, 16 u, times 1/(1 - p1)), where the
    difference of the two log-PMFs carries both their error bounds (16 u (k + m) each for
    p1's error alone: 3.6e-7 at m = 1e8, which raised every loss of n = 1e8 users by that,
    1000 rounds by 11 % of their epsilon). Elsewhere (k = 0: rho = 0; k > m) the
    difference `lpi1 - lpi` with `e_pi`, the bound on both of their errors (k = 0: exactly
    -inf)."""
    closed = (k >= 1) & (k <= m) & (p1 <= 0.5)
    kk = np.where(closed, k, 1.0)
    rest = np.where(closed, m - k + 1, 1.0)
    log_p, log_1p = (math.log(p1), math.log1p(-p1)) if 0 < p1 <= 0.5 else (0.0, 0.0)
    exact = np.log(kk) - np.log(rest) + (log_1p - log_p)
    e_exact = 16 * _U * (np.abs(np.log(kk)) + np.abs(np.log(rest)) + abs(log_1p) + abs(log_p)
                         + 1 + 1 / (1 - min(p1, 0.5)))
    with np.errstate(invalid="ignore"):
        diff = lpi1 - lpi
    # k = 0: rho = 0 exactly (pi(-1) = 0), with no error
    e_rest = np.where(k == 0, 0.0, e_pi)
    return (np.where(closed, exact, np.where(k == 0, -math.inf, diff)),
            np.where(closed, e_exact, e_rest))


def _block_chunk(t: _TokenTerms, lo_row: int, hi_row: int, m: float, p1: float,
                 q: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                    np.ndarray]:
    """The outcomes of rows lo_row..hi_row-1 of `t` in the block at M = m: (loss, its
    error bound, log P-mass relative to the block's weight, its error bound, each row's
    first outcome), live ones (a row's losses increase with a).

    With rho = pi(c-1)/pi(c), pi = Bin(m, p1): P = B_c(a) [(1-q) pi(c) + q pi(c-1) f_P],
    Q likewise with f_Q (module docstring)."""
    log_q = math.log(q)
    log_1q = math.log1p(-q) if q < 1 else -math.inf
    i0, i1 = int(t.starts[lo_row]), int(t.starts[hi_row])
    c = t.c[lo_row:hi_row]
    row = t.row[i0:i1] - lo_row
    # pi(c) and pi(c-1) depend on the row only: evaluated once per c, then spread
    lpi_c = binomial_logpmf(c, m, p1)
    lpi1_c = binomial_logpmf(c - 1, m, p1)
    e_pi_c = log_pmf_error(lpi_c) + log_pmf_error(lpi1_c) + 16 * _U * (c + m)
    # the loss depends on pi through rho = pi(c-1)/pi(c) only
    log_rho_c, e_rho_c = _log_rho(c, m, p1, lpi_c, lpi1_c, e_pi_c)
    e_pi = e_pi_c[row]
    lpi, lpi1 = lpi_c[row], lpi1_c[row]
    fp, fq = t.fp[i0:i1], t.fq[i0:i1]
    with np.errstate(invalid="ignore"):
        core_p = np.logaddexp(log_1q + lpi, log_q + lpi1 + fp)
    live = np.isfinite(core_p)
    x = log_q + log_rho_c[row][live]
    fp, fq = fp[live], fq[live]
    with np.errstate(invalid="ignore"):
        ratio_p = np.logaddexp(log_1q, x + fp)
        ratio_q = np.logaddexp(log_1q, x + fq)
        # pi(c) = 0 (c > m, a wider block's window): rho = inf, the loss is fp - fq
        loss = np.where(np.isposinf(x), fp - fq, ratio_p - ratio_q)
    # logaddexp moves by at most its inputs' largest error: each side's is rho's and f's;
    # the roundings, relative to |x|, |log(1-q)|, |f| <= f_bound and |ratio| <= their sum
    # (+ log 2), bounded per count c
    log_1q_abs = abs(log_1q) if q < 1 else 0.0
    x_abs = abs(log_q) + finite_abs(log_rho_c)
    margin_c = (2 * (e_rho_c + t.f_err)
                + 32 * _U * (3 * x_abs + 3 * log_1q_abs + 4 * t.f_bound + 3))
    margin = margin_c[row][live]
    err = (e_pi + t.err[i0:i1])[live]
    starts = np.searchsorted(row[live], np.arange(hi_row - lo_row + 1))
    return loss, margin, t.log_tokens[i0:i1][live] + core_p[live], err, starts
