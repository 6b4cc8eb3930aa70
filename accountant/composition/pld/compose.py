"""epsilon(delta) or delta(epsilon) of a composition of (pair, rounds) items through the
certified PLD engine: the grid width chosen from cheap coarse probes, tilt targets for tiny
delta, refinement until the bracket is narrow, the rounded fallback where the FFT's
round-off is large against delta (docs/conversions.md#certified-pld-engine).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from typing import NamedTuple

import numpy as np

from accountant.composition.pld.convolution import convolve, truncate
from accountant.composition.pld.measure import LossPmf
from accountant.composition.pld.reading import (
    clear_profiles,
    coupling_shift,
    delta_of,
    epsilon_of,
    float_inversion,
    lower_delta_of,
    lower_epsilon_of,
)
from accountant.composition.pld.saddle import saddle_epsilon
from accountant.composition.pld.self_composition import index_moments, self_compose
from accountant.composition.pld.sources import (
    LossPmfSource,
    OutcomeLimitError,
    PairSource,
    connects,
    pmfs,
)
from accountant.composition.rdp import ROUNDS
from accountant.domains import DELTA, EPSILON, POSITIVE, checked
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric import rounding
from accountant.pairs.clones import ClonePair
from accountant.pairs.product import ProductPair
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

_U = rounding.UNIT_ROUNDOFF

DEFAULT_DISCRETIZATION = 1e-4
# the most times `compose_views` coarsens a grid that needs too many buckets (4^12 = 1.7e7
# times its start: any span of losses fits well before)
_MAX_COARSENINGS = 12
_SOURCE = Source(citation="shuffle-accountant certified PLD engine",
                 locator="pessimistic/optimistic discretisation, FFT with a bounded round-off; "
                         "docs/conversions.md#certified-pld-engine")


# the share of delta the one-FFT power route's round-off bound may take: at 2e-3 the
# remove side of sigma = 1, q = 0.01, T = 1e4 (bound 1.24e-8 at delta 1e-5) takes one FFT
# (0.016 s) instead of squaring (0.17 s); its upper end moved by 0.006 % (6.18793 ->
# 6.18814 against dp_accounting's 6.18774)
_POWER_SHARE = 2e-3
# the most cells the rounded fallback of `compose_views` is tried on (a few seconds), and
# the most a refinement may ask for
_FALLBACK_CELLS = 2_000_000
# the most occupied cells of one round whose rounded measures may still convolve directly
# (`convolution.convolve`: products of at most 3e7 nonzeros)
_DIRECT_OCCUPIED = 5_000
_REFINE_CELLS = 1_000_000
_MIN_WIDTH = 1e-6
_TINY_WIDTH = 1e-12


def _finest(span: float) -> float:
    """The finest grid width a refinement may take for a composed span of losses: 1e-6,
    or finer as long as the span fits in _REFINE_CELLS cells (never below 1e-12, where
    the losses' own float spacing near 1 is not far)."""
    return max(min(_MIN_WIDTH, span / _REFINE_CELLS), _TINY_WIDTH)


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
        cells: the largest composed measure's cells on the last grid.
        tilted: whether the squarings were tilted towards the tail (tiny delta, or very
            many rounds): with `cells`, what another composition on that grid costs.
    """

    upper: Result
    lower: Result | None
    discretization: float
    relative_gap: float
    error: float = 0.0
    cells: int = 0
    tilted: bool = False


# the tail losses to tilt towards, one per order (`_tail_target`)
_Targets = tuple[float | None, ...]


_Key = tuple[float, bool, float, bool, float, _Targets | None]


@dataclass
class _Memo:
    """One `compose_views` call's work that a later step asks for again: composed measures
    by (width, pessimistic, tail, connect, budget, targets) (the probe whose width is
    chosen is not composed again by the first pass: 1e9 k-RR rounds, 2.5e6 cells, 15 s
    each); one-round measures by (item, width, pessimistic, tail, connect) (the tilted and
    the untilted probe of one width built the FMT clones pair of n = 1e5 users twice, 2 s
    each); readings of composed measures (that probe's ends, read again by the first pass:
    4 s at 2.5e6 cells)."""

    composed: dict[_Key, tuple[list[LossPmf], list[tuple[int, int]]]] = field(
        default_factory=dict)
    rounds: dict[tuple[int, float, bool, float, bool], list[LossPmf]] = field(
        default_factory=dict)
    # id of the measure -> (the measure, so the id stays its own, its reading)
    readings: dict[tuple[int, str], tuple[LossPmf, float]] = field(default_factory=dict)
    # until `clear`: afterwards nothing is kept (a refinement's measures, read once, would
    # otherwise stay alive beside the next grid's)
    keeping: bool = True

    def clear(self) -> None:
        self.composed.clear()
        self.rounds.clear()
        self.readings.clear()
        self.keeping = False

    def reader(self, read: Callable[[LossPmf], float], tag: str) -> Callable[[LossPmf], float]:
        """`read`, answered again from here for a measure it has read (until `clear`)."""
        def cached(pmf: LossPmf) -> float:
            key = (id(pmf), tag)
            hit = self.readings.get(key)
            if hit is not None and hit[0] is pmf:
                return hit[1]
            value = read(pmf)
            if self.keeping:
                self.readings[key] = (pmf, value)
            return value
        return cached


def _compose_side(mechanisms: list[tuple[PairSource, int]], width: float,
                  pessimistic: bool, tail: float, connect: bool = False,
                  budget: float = 0.0, at: _Targets | None = None,
                  census: list[tuple[int, int]] | None = None,
                  memo: _Memo | None = None) -> list[LossPmf]:
    """The composed measures of both orders (symmetric sources serve both); `budget`: the
    absolute error each self-composition may add by the power route (`self_compose`);
    `at`: the tail loss to tilt each order towards (one item only: a convolution of two
    tilted measures keeps only the total ledger); `census`: receives (nonzero cells,
    cells) of each one-round measure; `memo`: answers of earlier calls with the same
    arguments (the same items)."""
    key = (width, pessimistic, tail, connect, budget, at)
    if memo is not None and key in memo.composed:
        done, counted = memo.composed[key]
        if census is not None:
            census.extend(counted)
        return done
    counts: list[tuple[int, int]] = []
    out = _composed_side(mechanisms, width, pessimistic, tail, connect, budget, at, counts,
                         None if memo is None else memo.rounds)
    if census is not None:
        census.extend(counts)
    if memo is not None:
        memo.composed[key] = (out, counts)
    return out


def _composed_side(mechanisms: list[tuple[PairSource, int]], width: float,
                   pessimistic: bool, tail: float, connect: bool, budget: float,
                   at: _Targets | None, census: list[tuple[int, int]],
                   built: dict[tuple[int, float, bool, float, bool], list[LossPmf]] | None
                   ) -> list[LossPmf]:
    measures = [(_one_round(built, i, source, width, pessimistic, tail, connect), rounds)
                for i, (source, rounds) in enumerate(mechanisms)]
    census.extend((int(np.count_nonzero(m.mass)), m.mass.size)
                  for pm, _ in measures for m in pm)
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


def _one_round(built: dict[tuple[int, float, bool, float, bool], list[LossPmf]] | None,
               item: int, source: PairSource, width: float, pessimistic: bool, tail: float,
               connect: bool) -> list[LossPmf]:
    """The one-round measures of item `item` (`pmfs`), from `built` when made before."""
    key = (item, width, pessimistic, tail, connect)
    ones = built.get(key) if built is not None else None
    if ones is None:
        ones = pmfs(source, width, pessimistic, tail, connect)
        if built is not None:
            built[key] = ones
    return ones


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
        if not isinstance(source, ViewPair | ClonePair | ProductPair | LossPmfSource):
            raise ParameterError(f"{source!r} is neither a ViewPair, a ClonePair nor a "
                                 "pair with losspmfs()")
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
    occupied: float


def _evaluate(mechanisms: list[tuple[PairSource, int]], width: float,
              read: Callable[[LossPmf], float], read_lower: Callable[[LossPmf], float],
              want_lower: bool, coupled: bool, tail: float,
              connect: bool = True,
              budget: float = 0.0, at: _Targets | None = None,
              memo: _Memo | None = None) -> _Evaluation:
    """(upper, lower or None, error ledger) of the composition, the upper measures read by
    `read` (epsilon_of at delta, or delta_of at epsilon), the lower ones by `read_lower`.
    The upper measures are connect-the-dots where the sources allow it; `coupled`: every
    source's upper measure also gives the lower end (`connects`), else a second
    composition of lower measures (connect-the-dots of a dominated exact pair, or rounded
    down) gives it. `connect=False`: rounded-up and rounded-down measures only."""
    low: list[LossPmf] = []
    census: list[tuple[int, int]] = []
    coupled = coupled and connect
    if want_lower and not coupled:
        # the two directions are independent: the lower one runs in a second thread
        # (numpy's FFT releases the GIL; the machine has two cores)
        with ThreadPoolExecutor(max_workers=1) as pool:
            job = pool.submit(_compose_side, mechanisms, width, False, tail, connect, budget,
                              at)
            pess = _compose_side(mechanisms, width, True, tail, connect, budget, at, census,
                                 memo)
            low = job.result()
    else:
        pess = _compose_side(mechanisms, width, True, tail, connect, budget, at, census,
                             memo)
    upper = max(read(p) for p in pess)
    lower = None
    if want_lower and coupled and all(math.isfinite(p.spread) for p in pess):
        lower = min(max(read_lower(p) for p in pess), upper)
    elif want_lower:
        low = low or _compose_side(mechanisms, width, False, tail, connect, budget, at,
                                   memo=memo)
        lower = min(max(read_lower(p) for p in low), upper)
    # what a lower reading subtracts at any width: the ledger and the moves it takes back
    floor = max(p.error + (p.moved if math.isfinite(p.spread) else 0.0) for p in pess)
    # the ledger where the upper end is read (a tilted measure's total one is about 1)
    err = max(p.error_above(upper) if math.isfinite(upper) else p.error for p in pess)
    return _Evaluation(upper, lower, err, floor, max(p.mass.size for p in pess),
                       _occupied(census, width))


def _occupied(census: list[tuple[int, int]], width: float) -> float:
    """The one-round measures' occupied cells times `width` (divide by another width for
    its cells there): a measure whose cells are mostly occupied (a continuous law) fills a
    finer grid in proportion; a sparse one (a view of few atoms) keeps its count."""
    out = 0.0
    for nonzero, size in census:
        dense = 2 * nonzero >= size
        out = max(out, nonzero * width if dense else nonzero * _MIN_WIDTH)
    return out


def _width_for_gap(mechanisms: list[tuple[PairSource, int]], delta: float | None,
                   epsilon: float | None, relative_gap: float,
                   tail: float, reads: tuple[Callable[[LossPmf], float],
                                             Callable[[LossPmf], float]],
                   at: _Targets | None = None,
                   memo: _Memo | None = None) -> tuple[float, float] | None:
    """(the starting grid width of `compose_views` for connect-the-dots sources, the
    probe's lower end), from cheap probes on coarse grids; None when the probes give no
    finite, positive value. Only a starting point: `compose_views` still checks the gap and
    refines.

    The probe starts at 0.05 and is refined (down to 1e-3) until its own bracket is within
    a factor 2: a large value is located on a grid whose cells cover its loss range
    cheaply (the fixed 1e-3 probe at sigma = 0.3, q = 0.5, T = 1e4 spanned 6e6 cells, and
    the fixed 2e-4 start of a delta reading took 39 s at sigma = 0.41, T = 47; issue 21).

    epsilon(delta): the width whose coupling shift is 0.7 relative_gap of the estimate
    (connect-the-dots is second order: the probe's upper end is already close; the gap
    comes out about 1.15 times the shift: 0.66 % at sigma = 1, q = 0.01, T = 1e4, where
    0.6 gave 0.56 % for 20 % more cells), at most
    2e-4 unless the upper end's drift stays within 1e-4 of the value there.
    delta(epsilon): the gap (the coupling's shift, first order) scales with the width, so
    the probe's gap is scaled to 0.6 relative_gap (the upper end's own excess is second
    order). Its
    truncation threshold follows the probes' lower ends (`truncation_tail` at that delta):
    below the FFT's round-off floor (the 1e-20 of a reading without delta) no tail is ever
    cut and each squaring doubles the measure (sigma = 1, q = 0.01, T = 1e3: 5.6e6 cells at
    a 1e-3 grid, and more than 250 s at 2e-4)."""
    def read(pess: list[LossPmf], lows: list[LossPmf]) -> tuple[float, float]:
        # `compose_views`' own readings (eps at delta or delta at eps, upper and lower),
        # which keep their answers for the first pass
        return max(reads[0](p) for p in pess), max(reads[1](p) for p in lows)

    probe = 0.05
    budget = _POWER_SHARE * delta if delta is not None else 0.0
    if delta is None:
        # a threshold the FFT's round-off floor does not defeat, until a probe's lower end
        # says where delta is
        tail = truncation_tail(mechanisms, 1e-6)
    while True:
        try:
            pess = _compose_side(mechanisms, probe, True, tail, connect=True, budget=budget,
                                 at=at, memo=memo)
            lows = pess
            if not all(math.isfinite(p.spread) for p in pess):
                # an upper measure that is not the pair's own (the substitute subsampled
                # round): the lower end, and its coupling's spread, come from the lower
                # measures (without them the probe was lost and a T = 1e4 shuffle
                # composition ran a 2e-4 pass for a 6 % bracket before its 2e-5 grid)
                lows = _compose_side(mechanisms, probe, False, tail, connect=True,
                                     budget=budget, at=at, memo=memo)
        except (PrecisionError, MemoryError):
            return None
        if not all(math.isfinite(p.spread) for p in lows):
            return None
        up, low = read(pess, lows)
        # no finite upper end at all: the probe's +inf atom and ledger exceed delta, and a
        # finer grid has the same atom and no smaller ledger (the 1e-3 probe of discrete
        # Laplace x 1e4 at delta 5e-324 took 17 s to say so again)
        if probe <= 1e-3 or not math.isfinite(up) or (up > 0 and low >= 0.5 * up):
            break
        if delta is None and low > 0:
            tail = truncation_tail(mechanisms, low)
        # the coupling's shift, hence the gap, scales with the width
        ratio = 0.25 * up / (up - low) if math.isfinite(up) and up > low else 0.0
        if delta is not None and low <= 0 and up > 0:
            # no lower end at all says only "finer": the coupling's shift at delta says how
            # much (a probe at a quarter of the value); n = 1e8 users, T = 1e3 read
            # epsilon 0.006 after probes at 0.05, 0.0125 and 3e-3, each lower end 0 and
            # each 2.5 s of binning 9e6 outcomes, before the 1e-3 one
            shift = math.sqrt(max(p.spread for p in lows) * math.log(10 / delta) / 2)
            ratio = min(ratio, 0.25 * up / shift) if shift > 0 else ratio
        probe = max(1e-3, min(0.25, ratio) * probe)
        if probe < 2e-3:
            # within 2x of the last probe: that one (n = 1e7 users probed 1.14e-3, then
            # 1e-3, each 1.6 s of binning)
            probe = 1e-3
    if not math.isfinite(up):
        # no finite upper end: the probe's +inf atom and ledger exceed delta, and no finer
        # grid has a smaller ledger: the probe's own grid, its composition read again
        # (`memo`); the rounded fallback may still certify one
        return probe, 0.0
    if up <= 0:
        # no value located (delta 5e-324: the probes' ledgers exceed it): the default grid,
        # coarsened so that the probe's composed span fits 1e6 cells (discrete Laplace or
        # randomized response x 1e4 at 5e-324 spanned 3.7e7 cells at 2e-4, minutes of FFTs)
        span = max(p.mass.size for p in pess) * probe
        return max(2e-4, span / _REFINE_CELLS), 0.0
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
    target = 0.7 * relative_gap * up
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
        # that grid over more than 1e6 cells (the squarings' time grows with them): a drift
        # and a shift of up to a quarter of the target gap, within 1e6 cells (1e9 shuffle
        # rounds: 1.1e7 cells and 72 s for a 0.02 % bracket at 1e-3; 14 s for 0.3 % at 5e-3)
        span = max(p.mass.size for p in pess) * probe
        if span / cap > _REFINE_CELLS:
            quarter = 0.25 * relative_gap * up
            cap = max(cap, min(math.sqrt(quarter / drift), quarter / shift,
                               span / _REFINE_CELLS))
    if low <= 0:
        # no probe certified a lower end, so the upper end is the only estimate of the
        # value, and may be far above it: where the losses of a round are much smaller than
        # the probe's width, connect-the-dots adds a variance of about width |loss| a round
        # (n = 1e7 users, q = 0.01, T = 1e3: 0.0405 on 1e-3 for a value of 0.0216; the
        # width planned from it needed a refinement, 2 s of binning at n = 1e8)
        target *= 0.5
    width = min(cap, max(_MIN_WIDTH, target / shift))
    # no coarser than the probe, whose composition (`memo`) the first pass then reads again
    return min(width, probe), low


# epsilon(delta) readings at delta at most this tilt their squarings (`square_compose`)
_TILT_BELOW = 1e-7
# ... and those whose delta is at most this many times the rounds' unit round-off: the
# FFT's absolute round-off grows about linearly with the rounds (1e9 shuffle rounds,
# n = 1000, eps0 = 1: a ledger of 6e-5 on a 0.01 grid, read +inf at delta 1e-5; tilted,
# 7e-9)
_TILT_ROUNDOFFS = 1e4


def _tilts(mechanisms: list[tuple[PairSource, int]], delta: float) -> bool:
    rounds = sum(r for _, r in mechanisms)
    return delta <= _TILT_BELOW or delta <= _TILT_ROUNDOFFS * rounds * _U


# from this many rounds the tilt targets come from the saddle point of one round's measure
# (`saddle.saddle_epsilon`) rather than composed guesses: their cost grows with sqrt(T)
# cells (0.1 s at T = 1e4), and at 1e5 rounds the two agree to 5 digits
_SADDLE_ROUNDS = 100_000


def _loss_variance(pmf: LossPmf) -> float:
    """The variance of the finite losses under the normalised measure (a cell estimate)."""
    moments = index_moments(pmf.mass)
    return 0.0 if moments is None else moments[1] * pmf.width * pmf.width


def _tail_target(mechanisms: list[tuple[PairSource, int]], delta: float | None,
                 tail: float, memo: _Memo | None = None) -> _Targets | None:
    """The losses to tilt the squarings of an epsilon(delta) reading towards, one per order:
    0.95 of a float guess of that order's epsilon, for one connect-the-dots item at
    delta <= 1e-7 or within 1e4 unit round-offs per round (`_tilts`), where the FFT's
    absolute round-off (1e-9 and more of the mass at T = 1e4) would exceed delta; else
    None. Only targets: every reading is certified
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
    too high) is retried untilted. From `_SADDLE_ROUNDS` rounds each guess is the saddle
    point of the one-round measure of that grid instead (no composition: 1e9 rounds of
    k-RR composed 7.6e6 cells for 8 s to guess what the saddle point gives in 0.05 s)."""
    if delta is None or not _tilts(mechanisms, delta) or len(mechanisms) != 1 \
            or not connects(mechanisms[0][0]):
        return None
    read_at: float = delta

    cells = 0

    def guess_at(width: float, at: _Targets | None) -> tuple[list[float], list[float]]:
        nonlocal cells
        # (`memo` keeps the one-round measures, which the probes use again)
        pess = _compose_side(mechanisms, width, True, tail, connect=True, at=at,
                             memo=None if memo is None else _Memo(rounds=memo.rounds))
        cells = max(p.mass.size for p in pess)
        guesses = []
        for p in pess:
            losses = (np.arange(p.mass.size) + p.offset) * p.width
            # the stored measure's own value, less the ledger where it is read
            guesses.append(float_inversion(losses, p.mass, p.infinity, delta))
        clear_profiles()
        # an upper measure with no coupling of its own (spread inf): the shift of a
        # connect-the-dots measure of its grid, 2 width^2 per round (else the first,
        # coarse guess was kept: 3.16 against 1.53 for shuffle rounds at delta 1e-10)
        shifts = [coupling_shift(p if math.isfinite(p.spread) else
                                 replace(p, spread=2 * total * width * width), delta)
                  for p in pess]
        return guesses, shifts

    def saddle_at(width: float) -> tuple[list[float], list[float]] | None:
        # the same guesses without composing: the saddle point of one round's measure
        # (1e9 rounds of k-RR, n = 1000: 164178854 against the composition's 164178866,
        # which took 8 s over 7.6e6 cells); None where it does not apply
        nonlocal cells
        source, rounds = mechanisms[0]
        ones = _one_round(None if memo is None else memo.rounds, 0, source, width, True,
                          tail, True)
        guesses = [saddle_epsilon(p, rounds, read_at) for p in ones]
        if not all(g is not None for g in guesses):
            return None
        # the composed measure's cells, about 20 standard deviations of its losses
        cells = max(int(20 * math.sqrt(rounds * _loss_variance(p)) / width) + 1
                    for p in ones)
        shifts = [coupling_shift(replace(
            p, spread=rounds * (p.spread if math.isfinite(p.spread) else 2 * width * width),
            drift=rounds * p.drift), read_at) for p in ones]
        return [float(g) for g in guesses if g is not None], shifts

    def usable(guesses: list[float]) -> bool:
        return all(math.isfinite(g) for g in guesses) and max(guesses) > 0

    at: _Targets | None = None
    width = 0.05
    total = sum(rounds for _, rounds in mechanisms)
    for _ in range(6):
        try:
            saddle = saddle_at(width) if total >= _SADDLE_ROUNDS else None
            if saddle is not None:
                guesses, shifts = saddle
            else:
                guesses, shifts = guess_at(width, at)
            if saddle is None and at is not None \
                    and not all(math.isfinite(g) and g > 0 for g in guesses):
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


class _Plan(NamedTuple):
    """How `compose_views` starts: the first grid width, the truncation threshold, the power
    route's round-off budget, the tilt targets, and the rounded measures' width."""

    width: float
    tail: float
    budget: float
    target: _Targets | None
    rounded_width: float


class _Ends(NamedTuple):
    """The best certified ends found so far, with the upper end's ledger and grid, and the
    last evaluation's floor, cells and width (what a refinement decides from)."""

    upper: float
    lower: float | None
    error: float
    up_width: float
    floor: float
    cells: int
    width: float
    occupied: float = 0.0


def _plan(mechanisms: list[tuple[PairSource, int]], delta: float | None,
          epsilon: float | None, discretization: float | None, relative_gap: float,
          want_lower: bool, reads: tuple[Callable[[LossPmf], float],
                                         Callable[[LossPmf], float]],
          memo: _Memo | None = None) -> _Plan:
    """The starting point of `compose_views`."""
    total_rounds = sum(r for _, r in mechanisms)
    tail = truncation_tail(mechanisms, delta)
    # the power route of a self-composition may add this much absolute error (eps readings;
    # delta readings once a probe has located delta, below)
    budget = _POWER_SHARE * delta if delta is not None else 0.0
    # rounded measures: the gap is about T width, so the width shrinks with T
    rounded_width = discretization or max(1e-3 / total_rounds, 1e-6)
    if not all(connects(s) for s, _ in mechanisms):
        width = rounded_width
        if discretization is None and total_rounds >= 1000 and want_lower:
            # long compositions: a first pass on a 4x coarser grid (about 4x cheaper) only
            # measures the gap, from which the refinement picks the final width
            width *= 4
        return _Plan(width, tail, budget, None, rounded_width)
    # connect-the-dots: the upper end is second order in the width; the lower end's
    # coupling shift is about width sqrt(T log(1/eta)/2): coarse probes measure the gap
    # (`_width_for_gap`; else a first pass at 2e-4), from which the refinement picks the
    # final width
    width = discretization or 2e-4
    target = _tail_target(mechanisms, delta, tail, memo)
    if discretization is None and want_lower:
        start = _width_for_gap(mechanisms, delta, epsilon, relative_gap, tail, reads, target,
                               memo)
        if start is not None:
            width = start[0]
            if delta is None and start[1] > 0:
                # a delta reading: truncate at 1e-4 of the probes' certified lower end, and
                # let the power route add 2e-3 of it (squaring at sigma = 0.5, q = 0.001,
                # T = 1e4, eps = 1 took 36 s on the 1.1e-5 grid it needs)
                tail = truncation_tail(mechanisms, start[1])
                budget = _POWER_SHARE * start[1]
    return _Plan(width, tail, budget, target, rounded_width)


def _first_ends(mechanisms: list[tuple[PairSource, int]], plan: _Plan,
                read: Callable[[LossPmf], float], read_lower: Callable[[LossPmf], float],
                want_lower: bool, coupled: bool, memo: _Memo, fixed: bool) -> _Ends:
    """The first evaluation, on the planned grid or, when it needs too many buckets, a
    coarser one (`fixed`: a width the caller gave, never coarsened); `memo` holds the
    planning probes' compositions, dropped once read."""
    width = plan.width
    for coarsened in range(_MAX_COARSENINGS + 1):
        try:
            ev = _evaluate(mechanisms, width, read, read_lower, want_lower, coupled,
                           plan.tail, budget=plan.budget, at=plan.target, memo=memo)
            memo.clear()
            return _Ends(ev.upper, ev.lower, ev.error, width, ev.floor, ev.cells, width,
                         ev.occupied)
        except OutcomeLimitError:
            raise
        except PrecisionError:
            # too many buckets: a coarser grid has fewer (an outcome limit does not move
            # with the width, and once looped here forever: n = 1e6 Laplace, 2026-11-27)
            if fixed or coarsened == _MAX_COARSENINGS:
                raise
            width *= 4
    raise AssertionError("unreachable")   # the loop returns or raises


def _refined(mechanisms: list[tuple[PairSource, int]], plan: _Plan, ends: _Ends,
             read: Callable[[LossPmf], float], read_lower: Callable[[LossPmf], float],
             coupled: bool, delta: float | None, relative_gap: float,
             max_refinements: int) -> _Ends:
    """Finer grids until upper - lower <= relative_gap upper, keeping the best certified
    end of each grid; each stop rule below says why a finer grid cannot help."""
    upper, lower, err, up_width = ends.upper, ends.lower, ends.error, ends.up_width
    floor, cells, width, occupied = ends.floor, ends.cells, ends.width, ends.occupied
    refinements = 0
    while (lower is not None and refinements < max_refinements
           and math.isfinite(upper) and upper - lower > relative_gap * upper):
        # never below 1e-6 (the rounded scheme's floor) unless the composed span fits in
        # 1e6 cells there: a tiny epsilon asks for a grid whose pieces and FFTs would not
        # fit in memory, but a tiny span stays small (binary RR, n = 1e10, q = 0.01,
        # eps0 = 0.05, T = 1e4: span 2e-3, a 6.4e-9 grid, bracket 91 % -> 0.7 %)
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
        new_width = max(width * goal / grid_part, _finest(cells * width))
        if new_width >= width or (plan.target is not None
                                  and cells * width / new_width > _REFINE_CELLS):
            # a tilted reading's gap is mostly the lower end's moved mass, not the grid: no
            # grid of more than 1e6 cells (sigma = 1, q = 0.001, T = 1e4 at delta 1e-10
            # went from 2.8e5 cells to 2.3e6 in 47 s for a 1 % higher lower end; the
            # shuffle rounds at T = 1e6, delta 1e-5 need 4e6 for their 0.7 %)
            break
        try:
            ev = _evaluate(mechanisms, new_width, read, read_lower, True, coupled,
                           plan.tail, budget=plan.budget, at=plan.target)
        except (PrecisionError, MemoryError):
            break
        floor, cells, occupied = ev.floor, ev.cells, ev.occupied
        # both grids' ends are certified: keep the better of each (a finer grid's tilt can
        # miss, sigma = 0.5, q = 0.001, T = 1e4 at delta 1e-10 read +inf at 8.7e-6)
        if ev.upper <= upper:
            upper, err, up_width = ev.upper, ev.error, new_width
        lower = lower if ev.lower is None else max(lower, ev.lower)
        width = new_width
        refinements += 1
        if upper - lower > 0.7 * grid_part:
            # the gap did not follow the grid: something else holds it (at delta 1e-10,
            # T = 1e4 the lower reading's 3e-10 of moved mass; the grid went from 9e-5 to
            # 1e-6 in 160 s for a lower end 0.8 % higher)
            break
    return _Ends(upper, lower, err, up_width, floor, cells, width, occupied)


def _with_rounded(mechanisms: list[tuple[PairSource, int]], plan: _Plan, ends: _Ends,
                  read: Callable[[LossPmf], float], read_lower: Callable[[LossPmf], float],
                  want_lower: bool, scale: float) -> _Ends:
    """The ends improved by rounded measures where the FFT's absolute round-off is not small
    against a tiny delta (`scale`: delta, or the upper delta of a delta reading):
    connect-the-dots fills the grid where rounded measures of few atoms stay sparse (direct,
    relative error only); both are certified, so keep the better end of each."""
    total_rounds = sum(r for _, r in mechanisms)
    upper, lower = ends.upper, ends.lower
    # rounded measures are first order: their ends sit about T width / 2 from the truth,
    # so once that exceeds the bracket they can improve neither end (at T = 1e6 the 1e-6
    # grid took 64 s and 5.9 GiB to report 14.23 against 13.66)
    hopeless = (lower is not None and math.isfinite(upper)
                and 0.5 * total_rounds * plan.rounded_width >= upper - lower)
    # and only where they stay small: a composition spanning millions of cells at the
    # rounded width is dense there too, so its FFT's round-off is no smaller (sigma = 1,
    # q = 0.01, T = 1e3 at delta 1e-8: 8e6 cells, 60 s, for the same bracket)
    hopeless = hopeless or ends.cells * ends.width / plan.rounded_width > _FALLBACK_CELLS
    # and only where they can be convolved directly: one round occupying more than 5,000
    # cells at the rounded width makes products of more nonzeros than direct convolution
    # takes, so its rounded composition goes by FFT too, whose absolute round-off the
    # fallback was to avoid (the substitute sampled Gaussian, T = 100 at delta 1e-50: 800
    # cells a round at 2e-4, all occupied, 16,000 at the rounded 1e-5; 35 s for the same
    # bracket). A view of few atoms occupies as many cells at any width.
    hopeless = hopeless or ends.occupied / plan.rounded_width > _DIRECT_OCCUPIED
    if not (0 < scale and ends.error > 1e-2 * scale) or hopeless:
        return ends
    try:
        ev = _evaluate(mechanisms, plan.rounded_width, read, read_lower, want_lower, False,
                       plan.tail, connect=False)
        u2, l2, e2 = ev.upper, ev.lower, ev.error
    except (PrecisionError, MemoryError):
        u2, l2, e2 = math.inf, None, math.inf
    if u2 < upper:
        ends = ends._replace(upper=u2, error=e2, up_width=plan.rounded_width)
    if l2 is not None and (lower is None or l2 > lower):
        ends = ends._replace(lower=l2)
    return ends


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
        discretization: loss grid width Delta. None: start from coarse probes (connect-the-
            dots sources) or 1e-3/total rounds (at least 1e-6), and refine (at most
            `max_refinements` times) until upper - lower <= relative_gap * upper.
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
    want_lower = all(not isinstance(s, ViewPair | ProductPair) or s.grid_exact
                     for s, _ in mechanisms)
    coupled = all(connects(s, itself=True) for s, _ in mechanisms)
    memo = _Memo()
    read, read_lower = memo.reader(read, "upper"), memo.reader(read_lower, "lower")
    plan = _plan(mechanisms, delta, epsilon, discretization, relative_gap, want_lower,
                 (read, read_lower), memo)
    ends = _first_ends(mechanisms, plan, read, read_lower, want_lower, coupled, memo,
                       fixed=discretization is not None)
    if discretization is None:
        ends = _refined(mechanisms, plan, ends, read, read_lower, coupled, delta,
                        relative_gap, max_refinements)
    ends = _with_rounded(mechanisms, plan, ends, read, read_lower, want_lower,
                         delta if delta is not None else ends.upper)
    clear_profiles()   # they hold the largest arrays of the call
    return _composition(mechanisms, ends, "epsilon" if delta is not None else "delta", at,
                        plan.target is not None)


def _composition(mechanisms: list[tuple[PairSource, int]], ends: _Ends, quantity: str,
                 at: float, tilted: bool) -> PldComposition:
    """The typed answer: the UPPER and LOWER Results, labelled with the items and grid."""
    upper, lower = ends.upper, ends.lower
    label = "+".join(f"{r}x[{_label(s)}]" for s, r in mechanisms)
    method = f"composition.pld.compose_views({label}, discretization={ends.up_width:.3g})"
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
    return PldComposition(upper=up, lower=low, discretization=ends.up_width,
                          relative_gap=gap, error=ends.error, cells=ends.cells,
                          tilted=tilted)


def _label(source: PairSource) -> str:
    d = dict(source.description)
    return ", ".join(f"{k}={v}" for k, v in d.items() if not isinstance(v, dict | list)) \
        or "view"
