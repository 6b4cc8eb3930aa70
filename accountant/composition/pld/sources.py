"""What the PLD engine composes, and the discretised measures of each kind of pair: a
float `ViewPair` (both orders), the mixture-over-C pairs of `accountant.pairs.clones` (FMT's
clones pair, the k-RR blanket pair: symmetric, built in O(outcomes) with numpy from
certified log-PMFs), and any `LossPmfSource` (subsampled and noise pairs).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TypeAlias

import numpy as np

from accountant.composition.pld.convolution import convolve
from accountant.composition.pld.measure import (
    CHUNK,
    MAX_BUCKETS,
    LossPmf,
    connected_pmf,
    grid_index,
    pmf_from_entries,
)
from accountant.divergence.common import ULP_SLACK, arr
from accountant.domains import POSITIVE
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric import rounding
from accountant.numeric.logspace import finite_abs
from accountant.numeric.special import binomial_logpmf, half_binomial_rows, log_pmf_error
from accountant.numeric.tails import binomial_log_window
from accountant.pairs.clones import ClonePair
from accountant.pairs.product import ProductPair
from accountant.view import ViewPair

_U = rounding.UNIT_ROUNDOFF


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
    margin = arr(view.loss_error, n) + 4 * _U * finite_abs(loss)
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
    rows_per_chunk = max(1, CHUNK // offsets.size)
    indices, masses = [], []
    for start in range(0, c.size, rows_per_chunk):
        cs = c[start:start + rows_per_chunk]
        ms = cs + 1
        x = np.floor(ms / 2)[:, None] + offsets[None, :]
        mm = np.broadcast_to(ms[:, None], x.shape)
        ok = (x >= 0) & (x <= mm)
        xs, mv = x[ok], mm[ok]
        row = np.broadcast_to(np.arange(cs.size)[:, None], x.shape)[ok] + start
        # Bin(m, 1/2)(x) of each row stepped out from its centre (the same layout: x =
        # floor(m/2) + offsets); one log-PMF call per row was 1.5 of each 2 s build at
        # n = 1e5, eps0 = 3
        rows_b, rows_e = half_binomial_rows(ms, half_width)
        log_b, err_b = rows_b[ok], rows_e[ok]
        with np.errstate(divide="ignore"):
            la, lb = np.log(xs), np.log(mv - xs)
        # log(2 (w a + w' b)/m); w, w' carry <= 4u relative each, the logs a few u
        log_f = math.log(2.0) + np.logaddexp(log_w + la, log_w1 + lb) - np.log(mv)
        log_mass = log_pi[row] + log_b + log_f
        err = err_pi[row] + err_b + 16 * _U * (1 + np.abs(log_f))
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
    if hi - lo > MAX_BUCKETS:
        raise PrecisionError(f"PLD discretization={width:g} needs {hi - lo} buckets for one "
                             f"pair (limit {MAX_BUCKETS}); use a coarser discretization")
    out = np.zeros(hi - lo)
    for p in parts:
        out[p.offset - lo:p.offset - lo + p.mass.size] += p.mass
    relative = rounding.up(max(p.relative for p in parts) + 2 * len(parts) * _U)
    infinity = rounding.up(moved)
    return LossPmf(width, lo, out, infinity, 0.0, parts[0].pessimistic, relative,
                   moved=rounding.up(moved + 2 * _U * infinity),
                   drift=max(p.drift for p in parts),
                   spread=max(p.spread for p in parts))


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


# what the PLD engine composes: a float ViewPair, a ClonePair, a product of ViewPairs or a
# LossPmfSource
PairSource: TypeAlias = ViewPair | ClonePair | ProductPair | LossPmfSource


def pmfs(source: PairSource, width: float, pessimistic: bool,
          tail: float, connect: bool = False) -> list[LossPmf]:
    """[P||Q, Q||P] measures of a source (one entry for symmetric pairs)."""
    if isinstance(source, ClonePair):
        return [from_clone_pair(source, width, pessimistic, tail, connect=connect)]
    if isinstance(source, LossPmfSource):  # e.g. composition.subsampled.SubsampledPair
        return list(source.loss_pmfs(width, pessimistic, tail, connect=connect))
    if isinstance(source, ViewPair):
        return [from_view(source, width, pessimistic, connect),
                from_view(source.swapped(), width, pessimistic, connect)]
    if isinstance(source, ProductPair):
        # the loss of a product is the sum of its coordinates' (each order alike): the
        # convolution of their measures, with its own ledger, as for two composed rounds
        parts = [pmfs(c, width, pessimistic, tail / len(source.components), connect)
                 for c in source.components]
        out = []
        for order in (0, 1):
            measure = parts[0][order]
            for part in parts[1:]:
                measure = convolve(measure, part[order])
            out.append(measure)
        return out
    raise ParameterError(f"{source!r} is neither a ViewPair nor a ClonePair")


def connects(source: PairSource, itself: bool = False) -> bool:
    """Whether the source has connect-the-dots measures (`connected_pmf`); `itself`: and
    its upper one also gives the lower end (`LossPmfSource.self_coupled`)."""
    if isinstance(source, ClonePair):
        return True
    if isinstance(source, ViewPair | ProductPair):
        return source.grid_exact
    if not isinstance(source, LossPmfSource):
        return False
    return source.self_coupled if itself else source.connects
