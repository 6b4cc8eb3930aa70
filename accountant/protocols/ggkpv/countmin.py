"""[GGKPV]'s count-min sketch with public coins: the certified accountant of the full view
(docs/ggkpv.md#count-min-variant).

Protocol (docs/ggkpv.md#count-min-variant; the literal sampler is
verify/samplers/ggkpv_countmin.py): d hash functions h_1..h_d: [B] -> [w] are drawn from
public coins (fully random: every h_j(x) independent and uniform on [w]) and shown to
everyone, the adversary included. A user holding x sends, for each row j, the signal message
(j, h_j(x)) and rho noise messages (j, uniform on [w]); all n d (1 + rho) messages are
shuffled. Neighbours replace user 1's value x by x' != x.

Reduction. Given the hash functions and the other users' values, the other signals are
fixed, so the view is (a bijective image of) user 1's d signal messages among N = n rho
uniform noise messages per row; rows are independent. In a row with a = h_j(x) and
b = h_j(x') the likelihood ratio of the row's histogram is y_a / y_b, so (y_a, y_b) is
sufficient; with s = y_a + y_b - 1 (the same law Bin(N, 2/w) under both neighbours) and
u = y_a the row pair is

    P(s, u) = Bin(N, 2/w)(s) Bin(s, 1/2)(u - 1),   Q(s, u) = Bin(N, 2/w)(s) Bin(s, 1/2)(u),

with loss log(u / (s + 1 - u)) (`row_pair`). A row with a = b contributes nothing. For a
hash draw separating x and x' in k rows the view pair is the k-fold product; the worst case
over draws and (x, x') is k = d (upper ends; they hold for every draw), and for the fully
random family the mechanism's own pair is the mixture over k ~ Bin(d, 1 - 1/w) (lower ends).

Evaluation. The k-fold product of 2-D row pairs is too large to enumerate, so the row's
privacy-loss distribution under P is put on the lattice step Z (`LossLattice`), each loss
rounded up (upper ends) or down (lower ends), and convolved k times. delta(eps) =
E_P[(1 - e^(eps - L))_+] is non-decreasing in L, so rounding every row's loss up can only
raise the composed delta and rounding down only lower it; P-masses are rounded the same
way. The composed lattice is a 1-D `ViewPair` (loss = lattice value, Q := P e^-loss) whose
P||Q hockey-stick the library's `divergence` module evaluates and inverts. Every pair here
is swap-symmetric (swapping the two cells maps P to Q), so P||Q equals Q||P and the values
are reported as the maximum over both orders.

Composition. The rounded lattices bound P||Q only, so the accountant composes another
form of the same d-row pair (`dominating_view`, docs/ggkpv.md#composing-count-min-rounds):
each row's outcomes are split between two lattice points keeping their P- and Q-masses
(connect-the-dots; merging them back is a post-processing), and the d rows convolved. That
is a genuine pair dominating the mechanism in both orders: `dominating_pair()`. The lower end
of composed rounds is `lower_view_pair()` (`mixture_lower_view`): a post-processing of the
mechanism's own pair, whose optimistic PLD the accountant composes.

Renyi divergences (alpha > 1) and the max-divergence are +inf: the event "a row separates x
and x' and its cell h_j(x') is empty" has positive probability under x (when no other user
holds x') and none under x'.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from accountant import divergence
from accountant.distributions import binomial_window
from accountant.domains import DELTA, EPSILON, N_USERS, Interval
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric.rounding import UNIT_ROUNDOFF, sum_relative_error
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.pmf import PMF
from accountant.protocols.contract import DominatingPair, Mechanism
from accountant.protocols.ggkpv.calibration import least_rho
from accountant.result import Bracket, Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = [
    "COUNTMIN_INFINITE_REASON",
    "CountMinCalibration",
    "CountMinParameters",
    "CountMinSketch",
    "LossLattice",
    "STEP",
    "SplitLattice",
    "calibrate_countmin",
    "compose_lattices",
    "compose_split",
    "countmin_delta_bracket",
    "countmin_epsilon_bracket",
    "countmin_max_divergence_bracket",
    "countmin_parameters",
    "countmin_renyi_bracket",
    "dominating_view",
    "lattice_step",
    "lattice_view",
    "mixture_lower_view",
    "mixture_view",
    "row_lattice",
    "row_pair",
    "separating_lattice",
    "split_lattice",
    "split_view",
]

_NAME = "protocols.ggkpv.countmin"
_DOC = "docs/ggkpv.md#count-min-variant"
_CITATION = ("Ghazi, Golowich, Kumar, Pagh, Velingker, EUROCRYPT 2021 (talk slides); "
             "count-min full-view analysis of this library")
COUNTMIN_INFINITE_REASON = (
    "the event 'a row separates x and x' and its cell h_j(x') is empty' has positive "
    "probability when user 1 holds x and no other user holds x', and probability 0 when it "
    f"holds x' (its own signal lies there) ({_DOC})")
_B = Interval("B", 2, math.inf, closed="left", integer=True)
_W = Interval("w", 2, 2**40, closed="both", integer=True)
_D = Interval("d", 1, 64, closed="both", integer=True)
_RHO = Interval("rho", 1, math.inf, closed="left", integer=True)
STEP = 2.0 ** -12  # lattice step of the losses: a power of two, so k * STEP is exact
_RELATIVE_TAIL = 1e-14
_FLOOR_TAIL = 1e-300
_UNDERFLOW_LOG = -700.0
_TINY = 2.3e-308  # > the absolute error of one float product below the normal range
_ROW_POINTS_MAX = 5_000_000
_BINS = 8192
_U = UNIT_ROUNDOFF


def _source() -> Source:
    return Source(citation=_CITATION, locator=_DOC)


@dataclass(frozen=True, slots=True, kw_only=True)
class CountMinParameters:
    """One count-min (public coins) instance.

    Attributes:
        n: number of users.
        B: domain size (values 1..B), >= 2 so that neighbours exist.
        w: width: each hash function maps [B] to [w], w >= 2.
        d: depth: number of hash functions (rows), 1..64.
        rho: noise messages per user and row, >= 1.
    """

    n: int
    B: int
    w: int
    d: int
    rho: int

    @property
    def noise_messages(self) -> int:
        """N = n rho: noise messages per row (the background of the pair)."""
        return self.n * self.rho

    @property
    def noise_per_cell(self) -> float:
        """n rho / w: the mean number of noise messages per cell."""
        return self.n * self.rho / self.w

    def to_json(self) -> dict[str, Any]:
        """The parameters as a JSON object.

        Returns:
            n, B, w, d, rho, the messages per user d (1 + rho) and the noise per cell.
        """
        return {"n": self.n, "B": self.B, "w": self.w, "d": self.d, "rho": self.rho,
                "messages_per_user": self.d * (1 + self.rho),
                "noise_per_cell": self.noise_per_cell, "hash_family": "fully random (public)"}


def countmin_parameters(*, n: int, B: int, w: int, d: int, rho: int) -> CountMinParameters:
    """Validated count-min parameters.

    Args:
        n: number of users, >= 1.
        B: domain size, >= 2.
        w: width (cells per row), 2..2^40.
        d: depth (rows), 1..64.
        rho: noise messages per user and row, >= 1.

    Returns:
        The parameters.

    Raises:
        ParameterError: a value outside its domain (raised by the domains' checks).
    """
    N_USERS.check(n)
    _B.check(B)
    _W.check(w)
    _D.check(d)
    _RHO.check(rho)
    return CountMinParameters(n=int(n), B=int(B), w=int(w), d=int(d), rho=int(rho))


# ------------------------------------------------------------------ the row pair
def _cell_probability(w: int) -> tuple[float, float, float]:
    """(p, p_lo, p_hi): the float nearest 2/w and floats bracketing the true 2/w."""
    p = 2.0 / w
    if w & (w - 1) == 0:  # a power of two: exact
        return p, p, p
    return p, math.nextafter(p, 0.0), math.nextafter(p, 1.0)


def _s_window(N: int, w: int, tail: float) -> tuple[int, int, float]:
    """A window of s ~ Bin(N, 2/w) (the true 2/w, not its float) and the mass outside it.

    P(X < lo) decreases and P(X > hi) increases in p, so the lower end computed at p_lo and
    the upper end at p_hi hold for every p in [p_lo, p_hi], which contains 2/w.
    """
    _, p_lo, p_hi = _cell_probability(w)
    if p_lo == p_hi:
        return binomial_window(N, p_lo, tail)
    lo_a, _, cut_a = binomial_window(N, p_lo, tail)
    _, hi_b, cut_b = binomial_window(N, p_hi, tail)
    return lo_a, hi_b, cut_a + cut_b


def row_pair(N: int, w: int, *, tail: float | None = 1e-30) -> ViewPair:
    """The pair of one row that separates x and x' (docs/ggkpv.md#count-min-variant).

    Outcome (s, u): s = y_a + y_b - 1 and u = y_a, with y_a, y_b the counts of the row's
    cells a = h_j(x) and b = h_j(x'). P(s, u) = Bin(N, 2/w)(s) Bin(s, 1/2)(u - 1) and
    Q(s, u) = Bin(N, 2/w)(s) Bin(s, 1/2)(u); loss log(u / (s + 1 - u)) in closed form.

    Args:
        N: noise messages in the row (n rho), >= 0.
        w: width, >= 2.
        tail: the cut allowed to each window (s: Chernoff windows of `binomial_window`; u
            given s: Hoeffding's bound), so each law's residual is at most 3 tail; None keeps
            the whole support (O(N^2) points).

    Returns:
        The 2-D float ViewPair (residual_loss_bound inf: the residual holds +inf losses).

    Raises:
        ParameterError: N not an integer >= 0, w outside 2..2^40, or a grid of more than
            5e6 points (a noise per cell far beyond what privacy needs).
    """
    if int(N) != N or N < 0:
        raise ParameterError(f"N={N!r} is not an integer >= 0")
    _W.check(w)
    N, w = int(N), int(w)
    p, p_lo, _ = _cell_probability(w)
    if tail is None:
        s_lo, s_hi, cut_s = 0, N, 0.0
    else:
        s_lo, s_hi, cut_s = _s_window(N, w, tail)
    s = np.arange(s_lo, s_hi + 1)
    if tail is None:
        j_lo, j_hi, cut_u = np.zeros_like(s), s.copy(), 0.0
    else:
        # Hoeffding: P(|Bin(s, 1/2) - s/2| >= t) <= 2 exp(-2 t^2 / s) = tail at t below
        t = np.sqrt(s * ((math.log(2.0) - math.log(tail)) / 2.0)) * (1 + 1e-9) + 1.0
        j_lo = np.maximum(0, np.floor(s / 2.0 - t)).astype(np.int64)
        j_hi = np.minimum(s, np.ceil(s / 2.0 + t)).astype(np.int64)
        cut_u = tail
    u0, u1 = int(np.min(j_lo)), int(np.max(j_hi)) + 1
    if s.size * (u1 - u0 + 1) > _ROW_POINTS_MAX:
        raise ParameterError(f"the row pair at N={N}, w={w} needs more than "
                             f"{_ROW_POINTS_MAX} points; the noise per cell is far beyond "
                             "what privacy needs")
    shape = (s.size, u1 - u0 + 1)
    lp = np.full(shape, -np.inf)
    lq = np.full(shape, -np.inf)
    err = np.zeros(shape)
    ls = binomial_logpmf(s, N, p)
    # the float p differs from 2/w by at most one ulp (relative 2u with margin):
    # |d/dp log Bin(N, p)(s)| <= s/p + (N - s)/(1 - p)
    p_err = (0.0 if p == p_lo else
             4 * _U * (s + (N - s) * p / (1.0 - p)) if p < 1.0 else 0.0)
    err_s = log_pmf_error(ls) + p_err
    for i, si in enumerate(s):
        u = np.arange(j_lo[i], j_hi[i] + 2)  # the band: Q's u = j, P's u = j + 1
        lb = binomial_logpmf(np.arange(j_lo[i] - 1, j_hi[i] + 2), float(si), 0.5)
        lb_p, lb_q = lb[:-1], lb[1:]  # Bin(s, 1/2)(u - 1), Bin(s, 1/2)(u)
        cols = u - u0
        lp[i, cols] = ls[i] + lb_p
        lq[i, cols] = ls[i] + lb_q
        err[i, cols] = (err_s[i] + np.maximum(log_pmf_error(lb_p), log_pmf_error(lb_q))
                        + 2 * _U * (abs(ls[i]) + np.maximum(np.abs(np.nan_to_num(
                            lb_p, neginf=0.0)), np.abs(np.nan_to_num(lb_q, neginf=0.0)))))
    P = PMF("float", (s_lo, u0), lp, cut_s + cut_u, err, True)
    Q = PMF("float", (s_lo, u0), lq, cut_s + cut_u, err, True)

    def loss(coords: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        ss, uu = coords[0].astype(float), coords[1].astype(float)
        vv = ss + 1.0 - uu
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.log(uu / vv)  # one division and one log: <= 2 ulps relative
        v = np.where(uu <= 0, -np.inf, np.where(vv <= 0, np.inf, v))
        e = 4 * _U * (1.0 + np.abs(np.where(np.isfinite(v), v, 0.0)))
        return v, np.where(np.isfinite(v), e, 0.0)

    return ViewPair.from_pmfs(P, Q, loss=loss, residual_loss_bound=math.inf,
                              description={"protocol": "ggkpv-countmin",
                                           "pair": "one separating row", "N": N, "w": w})


# ------------------------------------------------------------------ loss lattices
@dataclass(frozen=True, slots=True)
class LossLattice:
    """A privacy-loss distribution under P on the lattice STEP * Z, rounded to one side.

    Attributes:
        offset: lattice index of masses[0] (loss offset * STEP).
        masses: P-masses per lattice point, linear floats (upper or lower bounds).
        infinite: P-mass of the loss +inf (upper or lower bound).
        tail: upper side: bound on the P-mass not represented; lower side: 0 (mass may
            have been dropped, which only lowers a lower bound).
        upper: True for the rounded-up side, False for the rounded-down side.
        rows: number of row pairs composed.
    """

    offset: int
    masses: np.ndarray
    infinite: float
    tail: float
    upper: bool
    rows: int = 1


def _directed(x: float | np.ndarray, rel: float, upper: bool) -> Any:
    return x * (1.0 + rel) if upper else np.maximum(x * (1.0 - rel), 0.0)


def _cap(lat: LossLattice, cap: float) -> LossLattice:
    """Trim the lattice's ends holding P-mass <= cap each, soundly for its side.

    Upper side: the top end's mass moves to +inf, the bottom end's to the lowest kept point
    (losses only rise). Lower side: the top end's mass moves to the highest kept point, the
    bottom end is dropped (losses only fall, mass only shrinks).
    """
    m = lat.masses
    if m.size <= 2 or cap <= 0:
        return lat
    c_top = np.cumsum(m[::-1])[::-1]  # c_top[i] = sum m[i:]
    c_bot = np.cumsum(m)  # c_bot[i] = sum m[:i + 1]
    hi = int(np.searchsorted(-c_top, -cap, side="left"))  # first i with c_top[i] <= cap
    hi = min(max(hi - 1, 0), m.size - 1)  # keep m[:hi + 1]; mass above is <= cap
    lo = int(np.searchsorted(c_bot, cap, side="right"))  # first i with c_bot[i] > cap
    lo = max(min(lo, hi), 0)  # keep m[lo:]; mass below is <= cap
    if lo == 0 and hi == m.size - 1:
        return lat
    rel = sum_relative_error(m.size) + 4 * _U
    top = float(np.sum(m[hi + 1:]))
    bot = float(np.sum(m[:lo]))
    kept = m[lo:hi + 1].copy()
    inf = lat.infinite
    if lat.upper:
        inf = inf + top * (1 + rel)
        kept[0] += bot * (1 + rel)
        kept[0] *= 1 + 2 * _U
        inf *= 1 + 2 * _U
    else:
        kept[-1] = (kept[-1] + top * (1 - rel)) * (1 - 2 * _U)
    return replace(lat, offset=lat.offset + lo, masses=kept, infinite=inf)


def row_lattice(view: ViewPair, *, upper: bool, step: float = STEP,
                cap: float = 0.0) -> LossLattice:
    """The P-law of a float pair's loss on the lattice step * Z, rounded up or down.

    Upper side: every point's loss is raised by its error bound and rounded up to the
    lattice, its P-mass raised by its log error; the residual (tail_p) is carried, and
    points whose mass may underflow are moved to the residual with a bound. Lower side:
    losses lowered and rounded down, masses lowered, the residual dropped.

    Args:
        view: a float pair (tail_p certified, closed-form loss).
        upper: which side.
        step: the lattice step, a power of two.
        cap: each end of the lattice holding P-mass <= cap is trimmed (`_cap`).

    Returns:
        The `LossLattice`.

    Raises:
        ParameterError: a non-float view, or a step that is not a power of two.
    """
    if view.backend != "float":
        raise ParameterError("row_lattice needs a float view")
    if not (step > 0 and math.frexp(step)[0] == 0.5):
        raise ParameterError(f"step={step!r} is not a power of two")
    n = view.size
    lerr = np.broadcast_to(np.asarray(view.log_error, dtype=float), (n,))
    lse = np.broadcast_to(np.asarray(view.loss_error, dtype=float), (n,))
    loss = view.float_loss
    finite_loss = np.isfinite(loss)
    margin = lse + 4 * _U * np.abs(np.where(finite_loss, loss, 0.0))
    sign = 1.0 if upper else -1.0
    lp = view.p + sign * (lerr + 4 * _U * (1.0 + np.abs(np.where(np.isfinite(view.p),
                                                                   view.p, 0.0))))
    live = np.isfinite(lp)
    tail = float(view.tail_p) if upper else 0.0
    low = live & (lp < _UNDERFLOW_LOG)
    if upper and np.any(low):
        tail += float(np.count_nonzero(low)) * math.exp(_UNDERFLOW_LOG)
    live &= ~low
    mass = _directed(np.exp(lp[live]), 4 * _U, upper)
    lv = loss[live]
    atoms = np.isposinf(lv)
    rel = sum_relative_error(max(1, int(np.count_nonzero(atoms)))) + 4 * _U
    infinite = float(_directed(float(np.sum(mass[atoms])), rel, upper))
    fin = np.isfinite(lv)  # -inf losses have P = 0 and are not live
    shifted = lv[fin] + sign * margin[live][fin]
    k = (np.ceil(shifted / step) if upper else np.floor(shifted / step)).astype(np.int64)
    if k.size == 0:
        return LossLattice(0, np.zeros(1), infinite, tail, upper)
    k0 = int(np.min(k))
    idx = k - k0
    masses = np.bincount(idx, weights=mass[fin])
    counts = np.bincount(idx)
    # bincount adds sequentially: relative error <= (count - 1) u per bin
    masses = _directed(masses, 2 * (float(np.max(counts)) + 2) * _U, upper)
    return _cap(LossLattice(k0, masses, infinite, tail * (1 + 1e-12), upper), cap)


def compose_lattices(a: LossLattice, b: LossLattice, *, cap: float = 0.0) -> LossLattice:
    """The lattice of the product pair (independent rows: losses add).

    Args:
        a: a lattice.
        b: another lattice of the same side.
        cap: trim each end holding P-mass <= cap (`_cap`).

    Returns:
        The composed lattice: masses by direct convolution (nonnegative terms, relative
        error <= (min length + 2) u per point, underflow bounded absolutely and added to the
        tail on the upper side), infinite mass a.inf (b.total) + a.finite b.inf, tails added.

    Raises:
        ParameterError: the two lattices are of different sides.
    """
    if a.upper != b.upper:
        raise ParameterError("cannot compose an upper with a lower lattice")
    up = a.upper
    conv = np.convolve(a.masses, b.masses)
    rel = 2 * (min(a.masses.size, b.masses.size) + 2) * _U
    masses = _directed(conv, rel, up)
    srel = sum_relative_error(max(a.masses.size, b.masses.size)) + 4 * _U
    fa = float(_directed(float(np.sum(a.masses)), srel, up))
    fb = float(_directed(float(np.sum(b.masses)), srel, up))
    infinite = float(_directed(a.infinite * (fb + b.infinite) + fa * b.infinite, 8 * _U, up))
    tail = 0.0
    if up:
        tail = (a.tail + b.tail + a.masses.size * b.masses.size * _TINY) * (1 + 4 * _U)
    out = LossLattice(a.offset + b.offset, masses, infinite, tail, up, a.rows + b.rows)
    return _cap(out, cap)


def lattice_view(lat: LossLattice, *, step: float = STEP, log_weight: float = 0.0,
                 description: dict[str, Any] | None = None) -> ViewPair:
    """The lattice as a 1-D float pair: P = its masses, loss = lattice value, Q = P e^-loss.

    Only the P||Q hockey-stick of this pair is meaningful (Q is not normalised): it bounds
    the true P||Q value from above (upper side; tail_p = the lattice's tail, tail_q = 1 as
    Q's residual is not tracked, grid_exact False) or from below (lower side; no residual,
    grid_exact True).

    Args:
        lat: the lattice.
        step: its step.
        log_weight: added to every log P (a mixture weight, already rounded to the side).
        description: recorded on the pair.

    Returns:
        The ViewPair (coords: the lattice index, with the +inf atom at the last index + 1).
    """
    k = np.arange(lat.offset, lat.offset + lat.masses.size, dtype=np.int64)
    nz = lat.masses > 0
    k, m = k[nz], lat.masses[nz]
    with np.errstate(divide="ignore"):
        p = np.log(m) + log_weight
    loss = k.astype(float) * step  # exact: step is a power of two, |k| < 2^52
    if lat.infinite > 0:
        p = np.append(p, math.log(lat.infinite) + log_weight)
        loss = np.append(loss, np.inf)
        k = np.append(k, (int(k[-1]) + 1) if k.size else 0)
    q = np.where(np.isposinf(loss), -np.inf, p - np.where(np.isfinite(loss), loss, 0.0))
    log_error = 4 * _U * (1.0 + np.abs(p))
    return ViewPair(backend="float", p=p, q=q, tail_p=lat.tail,
                    tail_q=1.0 if lat.upper else 0.0, residual_loss_bound=math.inf,
                    loss=loss, log_error=log_error, loss_error=0.0, grid_exact=not lat.upper,
                    coords=(k,), description=dict(description or {}) | {
                        "lattice": "upper (losses rounded up)" if lat.upper
                        else "lower (losses rounded down)", "rows": lat.rows,
                        "meaningful": "P||Q only"})


def _powers(row: LossLattice, d: int, cap: float) -> list[LossLattice]:
    """[row, row*row, ..., row^d] (k-fold compositions)."""
    out = [row]
    for _ in range(d - 1):
        out.append(compose_lattices(out[-1], row, cap=cap))
    return out


@functools.lru_cache(maxsize=4)
def _row_cached(N: int, w: int, tail: float) -> ViewPair:
    return row_pair(N, w, tail=tail)


def lattice_step(params: CountMinParameters, *, tail: float = 1e-30) -> float:
    """The lattice step used for these parameters: the finest power of two >= STEP at which
    the row's trimmed loss lattice has at most 8192 points (the k-fold convolutions cost
    the square of that; the rounding costs at most d steps in epsilon).

    Args:
        params: the parameters (N = n rho, w).
        tail: window cut of the row pair and trimmed mass.

    Returns:
        The step, a power of two in [STEP, 1].
    """
    row = _row_cached(params.noise_messages, params.w, float(tail))
    step = STEP
    while step < 1.0:
        if row_lattice(row, upper=True, step=step, cap=tail).masses.size <= _BINS:
            break
        step *= 2.0
    return step


def separating_lattice(params: CountMinParameters, *, upper: bool, tail: float = 1e-30,
                       step: float | None = None) -> list[LossLattice]:
    """The k-row lattices, k = 1..d, of the pair separating x and x' in k rows.

    Args:
        params: the parameters (N = n rho, w, d).
        upper: which side.
        tail: window cut of the row pair, and the mass each trim may move.
        step: lattice step (default `lattice_step(params, tail=tail)`).

    Returns:
        d lattices; the last (k = d) is the worst case over hash draws.
    """
    row = _row_cached(params.noise_messages, params.w, float(tail))
    step = lattice_step(params, tail=tail) if step is None else step
    return _powers(row_lattice(row, upper=upper, step=step, cap=tail), params.d, tail)


def _log_weights_lower(d: int, w: int) -> list[float]:
    """log P(k rows separate), k = 0..d, for the fully random family (k ~ Bin(d, 1 - 1/w)),
    rounded down."""
    out = []
    for k in range(d + 1):
        v = (math.log(math.comb(d, k)) + k * math.log1p(-1.0 / w) - (d - k) * math.log(w))
        out.append(v - 1e-13 * (1.0 + abs(v)))
    return out


def mixture_view(params: CountMinParameters, lowers: Sequence[LossLattice], *,
                 step: float = STEP) -> ViewPair:
    """The lower-side pair of the mechanism itself: the mixture over k ~ Bin(d, 1 - 1/w)
    separating rows (fully random hash functions, public), from the k-row lower lattices.

    The k = 0 component (loss 0) is left out: it adds nothing to delta(eps) for eps >= 0,
    and dropping P-mass only lowers a lower end.

    Args:
        params: the parameters.
        lowers: the lower lattices for k = 1..d (`separating_lattice(upper=False)`).
        step: lattice step.

    Returns:
        A 1-D float ViewPair (grid_exact, no residual; P||Q meaningful).

    Raises:
        ParameterError: not d lower lattices.
    """
    if len(lowers) != params.d or any(lat.upper for lat in lowers):
        raise ParameterError("mixture_view needs the d lower lattices")
    weights = _log_weights_lower(params.d, params.w)
    views = [lattice_view(lat, step=step, log_weight=weights[k])
             for k, lat in enumerate(lowers, start=1)]
    rows = np.concatenate([np.full(v.size, k, dtype=np.int64)
                           for k, v in enumerate(views, start=1)])
    return ViewPair(backend="float", p=np.concatenate([v.p for v in views]),
                    q=np.concatenate([v.q for v in views]), tail_p=0.0, tail_q=0.0,
                    residual_loss_bound=math.inf,
                    loss=np.concatenate([v.float_loss for v in views]),
                    log_error=np.concatenate([np.broadcast_to(v.log_error, (v.size,))
                                              for v in views]),
                    loss_error=0.0, grid_exact=True,
                    coords=(rows, np.concatenate([v.coords[0] for v in views])),
                    description={"protocol": "ggkpv-countmin",
                                 "pair": "mixture over separating rows (lower)",
                                 **params.to_json()})


# ------------------------------------------------------------------ privacy numbers
def _tail_for(delta: float) -> float:
    return max(min(1e-30, float(delta) * _RELATIVE_TAIL), _FLOOR_TAIL)


def _named(r: Result, what: str, note: str = "") -> Result:
    return r.with_(direction=Direction.MAX, method=(
        f"{_NAME}.{what} <- {r.method} [P||Q on a swap-symmetric pair = max of both orders]"
        f"{note}"), source=_source())


def _upper_view(params: CountMinParameters, tail: float,
                step: float | None = None) -> ViewPair:
    step = lattice_step(params, tail=tail) if step is None else step
    lat = separating_lattice(params, upper=True, tail=tail, step=step)[-1]
    return lattice_view(lat, step=step, description={"protocol": "ggkpv-countmin",
                                          "pair": "all d rows separate (upper)",
                                          **params.to_json()})


def _lower_views(params: CountMinParameters, tail: float,
                 step: float | None = None) -> tuple[ViewPair, ViewPair]:
    step = lattice_step(params, tail=tail) if step is None else step
    lowers = separating_lattice(params, upper=False, tail=tail, step=step)
    return lattice_view(lowers[-1], step=step), mixture_view(params, lowers, step=step)


def countmin_epsilon_bracket(params: CountMinParameters, delta: float) -> Bracket:
    """epsilon(delta) of the count-min mechanism.

    Upper end: the pair separating x and x' in all d rows (every hash draw, every pair of
    neighbours), rounded up. Lower end: the mechanism's own pair (fully random public hash
    functions: a mixture over Bin(d, 1 - 1/w) separating rows), rounded down. pair_lower:
    the all-rows pair rounded down.

    Args:
        params: the parameters.
        delta: in (0, 1).

    Returns:
        Bracket(lower, upper, pair_lower, pair_name="separating").

    Raises:
        ParameterError: delta outside (0, 1) (raised by the domain check).
    """
    DELTA.check(delta)
    t = _tail_for(delta)
    up = divergence.epsilon_bracket(_upper_view(params, t), delta, direction="P||Q")[1]
    pair_view, mix = _lower_views(params, t)
    p_lo = divergence.epsilon_bracket(pair_view, delta, direction="P||Q")[0]
    lo = divergence.epsilon_bracket(mix, delta, direction="P||Q")[0]
    return Bracket(lower=_named(lo, "epsilon_bracket[mixture over hash draws, rounded down]"),
                   upper=_named(up, "epsilon_bracket[all rows separate, rounded up]"),
                   pair_lower=_named(p_lo, "epsilon_bracket[all rows separate, rounded down]"),
                   pair_name="separating")


def countmin_delta_bracket(params: CountMinParameters, epsilon: float) -> Bracket:
    """delta(epsilon) of the count-min mechanism (ends as `countmin_epsilon_bracket`); the
    window cut is refined once so that it is at most 1e-12 of the answer.

    Args:
        params: the parameters.
        epsilon: >= 0.

    Returns:
        Bracket(lower, upper, pair_lower, pair_name="separating").

    Raises:
        ParameterError: epsilon < 0 or NaN (raised by the domain check).
    """
    EPSILON.check(epsilon)
    t = 1e-30
    up = divergence.delta_bracket(_upper_view(params, t), epsilon, direction="P||Q")[1]
    if 0 < float(up) < 1e12 * t:
        t = max(float(up) * 1e-12, _FLOOR_TAIL)
        up = divergence.delta_bracket(_upper_view(params, t), epsilon, direction="P||Q")[1]
    pair_view, mix = _lower_views(params, t)
    p_lo = divergence.delta_bracket(pair_view, epsilon, direction="P||Q")[0]
    lo = divergence.delta_bracket(mix, epsilon, direction="P||Q")[0]
    return Bracket(lower=_named(lo, "delta_bracket[mixture over hash draws, rounded down]"),
                   upper=_named(up, "delta_bracket[all rows separate, rounded up]"),
                   pair_lower=_named(p_lo, "delta_bracket[all rows separate, rounded down]"),
                   pair_name="separating")


def _event_pair(params: CountMinParameters) -> ViewPair:
    """The event 'row 1 separates x, x' and its cell h_1(x') is empty' (others hold x):
    probability (1 - 1/w)^(N + 1) under x, 0 under x' (a post-processing of the view)."""
    log_pe = (params.noise_messages + 1) * math.log1p(-1.0 / params.w)
    return ViewPair.from_arrays([log_pe, math.log(-math.expm1(log_pe))], [-math.inf, 0.0],
                                log=True, description={"pair": "empty-cell event"})


def _infinite(r: Result, what: str) -> Bracket:
    if r.kind is not Kind.EXACT or math.isfinite(float(r)):
        # the event pair's zero is exact, so this would be a bug of the divergence functions
        raise PrecisionError(f"{_NAME}.{what}: expected an exact +inf from {r.method} on "
                             f"the event pair, got {r.kind} {float(r)!r}")
    out = r.with_(direction=Direction.MAX, method=f"{_NAME}.{what} <- {r.method} "
                  f"[P||Q is +inf, hence so is the maximum over both orders; "
                  f"{COUNTMIN_INFINITE_REASON}]", source=_source())
    return Bracket(lower=out, upper=out)


def countmin_renyi_bracket(params: CountMinParameters, alpha: float) -> Bracket:
    """The Renyi divergence of order alpha > 1: +inf, exactly (COUNTMIN_INFINITE_REASON),
    computed by the library on the event pair, a post-processing of one neighbouring pair.

    Args:
        params: the parameters.
        alpha: order in (1, inf].

    Returns:
        Bracket with both ends the EXACT +inf Result.
    """
    return _infinite(divergence.renyi_divergence(_event_pair(params), alpha,
                                                 direction="P||Q"),
                     f"renyi_bracket(order={alpha})")


def countmin_max_divergence_bracket(params: CountMinParameters) -> Bracket:
    """The max-divergence: +inf, exactly (see `countmin_renyi_bracket`).

    Args:
        params: the parameters.

    Returns:
        Bracket with both ends the EXACT +inf Result.
    """
    return _infinite(divergence.max_divergence(_event_pair(params), direction="P||Q"),
                     "max_divergence_bracket")


# ------------------------------------------------------------------ calibration
@dataclass(frozen=True, slots=True, kw_only=True)
class CountMinCalibration:
    """The result of `calibrate_countmin`.

    Attributes:
        params: the parameters at the calibrated rho.
        target_epsilon, target_delta: the target.
        rho: least rho whose certified upper epsilon(delta) <= target_epsilon.
        epsilon: that certified upper Result at rho.
        rho_insufficient: largest rho whose certified lower end (the mechanism's own pair)
            exceeds the target, or None (none below rho).
    """

    params: CountMinParameters
    target_epsilon: float
    target_delta: float
    rho: int
    epsilon: Result
    rho_insufficient: int | None

    def to_json(self) -> dict[str, Any]:
        """The calibration as a JSON object.

        Returns:
            params, the target, rho, epsilon (the Result's JSON), rho_insufficient, the noise
            per cell n rho / w and the reference d log(1/delta)/epsilon^2 (no theorem).
        """
        return {"params": self.params.to_json(), "target_epsilon": self.target_epsilon,
                "target_delta": self.target_delta, "rho": self.rho,
                "epsilon": self.epsilon.to_json(), "rho_insufficient": self.rho_insufficient,
                "noise_per_cell": self.params.noise_per_cell,
                "reference_noise_per_cell": (self.params.d * math.log(1 / self.target_delta)
                                             / self.target_epsilon ** 2)}


def _upper_epsilon(params: CountMinParameters, delta: float,
                   step: float | None = None) -> Result:
    up = divergence.epsilon_bracket(_upper_view(params, _tail_for(delta), step), delta,
                                    direction="P||Q")[1]
    return _named(up, "epsilon_bracket[all rows separate, rounded up]")


def _lower_epsilon(params: CountMinParameters, delta: float,
                   step: float | None = None) -> float:
    mix = _lower_views(params, _tail_for(delta), step)[1]
    return float(divergence.epsilon_bracket(mix, delta, direction="P||Q")[0])


def calibrate_countmin(*, n: int, B: int, w: int, d: int, target_epsilon: float,
                       target_delta: float) -> CountMinCalibration:
    """The least rho with certified epsilon(target_delta) <= target_epsilon.

    The true epsilon(delta) is non-increasing in rho (the view at rho + 1 is the view at rho
    plus n uniform messages per row, which anyone can add), so doubling then bisection finds
    the least rho meeting the certified upper end.

    Args:
        n: number of users.
        B: domain size (>= 2).
        w: width.
        d: depth.
        target_epsilon: > 0.
        target_delta: in (0, 1).

    Returns:
        A `CountMinCalibration`.

    Raises:
        ParameterError: invalid parameters, target_epsilon = 0, or no rho <= 2^20 meets the
            target.
    """
    EPSILON.check(target_epsilon)
    DELTA.check(target_delta)
    if target_epsilon == 0:
        raise ParameterError("target_epsilon=0 cannot be met (the view's delta(0) > 0)")
    base = countmin_parameters(n=n, B=B, w=w, d=d, rho=1)
    uppers: dict[int, Result] = {}

    def upper_ok(rho: int, coarse: bool = False) -> bool:
        params = replace(base, rho=rho)
        step = lattice_step(params, tail=_tail_for(target_delta)) * (4.0 if coarse else 1.0)
        r = _upper_epsilon(params, target_delta, step)
        if not coarse:
            uppers[rho] = r
        return float(r) <= target_epsilon

    def lower_fails(rho: int, coarse: bool = False) -> bool:
        params = replace(base, rho=rho)
        step = lattice_step(params, tail=_tail_for(target_delta)) * (4.0 if coarse else 1.0)
        return _lower_epsilon(params, target_delta, step) > target_epsilon

    # search on a 4x coarser lattice (looser ends, 16x cheaper convolutions), then settle
    # each end on the fine one: coarse ends are valid too, only less tight
    rho = least_rho(lambda r: upper_ok(r, coarse=True))
    while rho > 1 and upper_ok(rho - 1):
        rho -= 1
    if rho not in uppers and not upper_ok(rho):  # the fine lattice is tighter: unlikely
        rho = least_rho(upper_ok, start=rho)
    insufficient = None
    if rho > 1 and lower_fails(1, coarse=True):
        insufficient = least_rho(lambda r: not lower_fails(r, coarse=True), start=2,
                                 rho_max=rho) - 1
    elif rho > 1 and lower_fails(1):
        insufficient = 1
    while insufficient is not None and insufficient + 1 < rho and lower_fails(
            insufficient + 1):
        insufficient += 1
    return CountMinCalibration(params=replace(base, rho=rho),
                               target_epsilon=float(target_epsilon),
                               target_delta=float(target_delta), rho=rho,
                               epsilon=uppers[rho], rho_insufficient=insufficient)


# ------------------------------------------------------------------ the contract object
@dataclass(frozen=True, slots=True)
class CountMinSketch(Mechanism):
    """[GGKPV]'s count-min sketch with public coins (parameters from `countmin_parameters`).

    Attributes:
        parameters: n, B, w, d, rho.
    """

    parameters: CountMinParameters
    name: ClassVar[str] = "ggkpv-countmin"
    no_pair_reason: ClassVar[str] = ""

    def params(self) -> dict[str, Any]:
        """The parameters as a JSON object.

        Returns:
            `CountMinParameters.to_json()`.
        """
        return self.parameters.to_json()

    def view_pair(self) -> None:
        """None: the exact pair (a d-fold product of 2-D row pairs) is not materialised.

        Returns:
            None.
        """
        return None

    def lower_view_pair(self) -> ViewPair:
        """A post-processing of the mechanism's own pair (`mixture_lower_view`: public
        tables drawn afresh each round, each separating row reduced to its loss bin): its
        divergences, one round or composed, are lower bounds on the mechanism's in both
        orders, so the accountant composes it as the lower end of count-min rounds.

        Returns:
            The 1-D float ViewPair (grid exact).
        """
        return mixture_lower_view(self.parameters)

    def dominating_pair(self) -> DominatingPair:
        """The d-fold product of the row pair, split onto the loss lattice
        (`dominating_view`): a two-sided dominating pair the PLD engine composes.

        Returns:
            DominatingPair(pair=the 1-D ViewPair).
        """
        return DominatingPair(pair=dominating_view(self.parameters),
                              name="d separating rows, connect-the-dots split (two-sided)",
                              proof=f"{_DOC.rsplit('#', 1)[0]}#composing-count-min-rounds")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta) (`countmin_epsilon_bracket`).

        Args:
            delta: in (0, 1).

        Returns:
            The Bracket.
        """
        return countmin_epsilon_bracket(self.parameters, delta)

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon) (`countmin_delta_bracket`).

        Args:
            epsilon: >= 0.

        Returns:
            The Bracket.
        """
        return countmin_delta_bracket(self.parameters, epsilon)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences: +inf at every order (`countmin_renyi_bracket`).

        Args:
            orders: orders in (1, inf].

        Returns:
            One Bracket per order.
        """
        return [countmin_renyi_bracket(self.parameters, a) for a in orders]

    def max_divergence(self) -> Bracket:
        """The max-divergence: +inf (`countmin_max_divergence_bracket`).

        Returns:
            The Bracket.
        """
        return countmin_max_divergence_bracket(self.parameters)


# ------------------------------------------------------------------ two-sided dominating pair
@dataclass(frozen=True, slots=True)
class SplitLattice:
    """A genuine pair (P', Q') on the loss lattice step * Z that dominates a row product in
    both orders: every outcome of loss l, a h <= l <= (a + 2) h, is split between the
    lattice points a and a + 2 keeping its P- and Q-mass (connect-the-dots), so merging
    the points back is a post-processing of (P', Q') that returns the original pair.

    Attributes:
        offset: lattice index of masses[0].
        masses: P'-masses per lattice point (Q' = P' e^(-index step)), central floats.
        relative: bound on the relative error of every entry of `masses`, `plus`, `minus`.
        plus: P-mass of the outcomes with Q = 0 (loss +inf).
        minus: Q-mass of the outcomes with P = 0 (loss -inf).
        tail_p: bound on the P-mass not represented (windows, trimmed ends, underflow).
        tail_q: the same for Q.
        rows: number of row pairs composed.
    """

    offset: int
    masses: np.ndarray
    relative: float
    plus: float
    minus: float
    tail_p: float
    tail_q: float
    rows: int = 1

    def q_masses(self, step: float) -> np.ndarray:
        """Q'-masses per lattice point.

        Args:
            step: the lattice step.

        Returns:
            masses * e^(-index step), central values (relative error `relative` + 4u).
        """
        k = np.arange(self.offset, self.offset + self.masses.size, dtype=float)
        with np.errstate(over="ignore"):
            return self.masses * np.exp(-k * step)


def split_lattice(view: ViewPair, *, step: float) -> SplitLattice:
    """The two-sided connect-the-dots lattice of a float pair (`SplitLattice`).

    An outcome of P-mass p and loss l (computed l~, error e) goes to a = floor(l~/step -
    1/2) and a + 2, so that x = l - a step lies in [step/2 - e, 3 step/2 + e]; a + 2 gets
    P-mass p f and a gets p (1 - f), f = (1 - e^-x)/(1 - e^(-2 step)): both points keep the
    outcome's Q-mass p e^-l. d log f/dx <= 1/x and -d log(1 - f)/dx <= 1/(1 - e^-(2 step -
    x)), both <= 2.1/step there, so the error e moves f and 1 - f by a relative
    2.2 e/step at most (and f stays in (0, 1), so the split is a true one).

    Args:
        view: a float pair (closed-form loss, certified tails).
        step: the lattice step, a power of two.

    Returns:
        The `SplitLattice` (its residuals: the view's tails).

    Raises:
        ParameterError: a non-float view or a step that is not a power of two.
    """
    if view.backend != "float":
        raise ParameterError("split_lattice needs a float view")
    if not (step > 0 and math.frexp(step)[0] == 0.5):
        raise ParameterError(f"step={step!r} is not a power of two")
    n = view.size
    lerr = np.broadcast_to(np.asarray(view.log_error, dtype=float), (n,))
    lse = np.broadcast_to(np.asarray(view.loss_error, dtype=float), (n,))
    loss = view.float_loss
    live = np.isfinite(view.p)
    plus_sel = live & np.isposinf(loss)
    minus_sel = np.isfinite(view.q) & np.isneginf(loss)
    fin = live & np.isfinite(loss)
    p_rel = np.expm1(lerr + 4 * _U)  # exp of a log with error lerr, plus exp's rounding
    plus = float(np.sum(np.exp(view.p[plus_sel])))
    minus = float(np.sum(np.exp(view.q[minus_sel])))
    rel_inf = float(np.max(p_rel[plus_sel | minus_sel], initial=0.0)) + sum_relative_error(
        max(1, int(np.count_nonzero(plus_sel | minus_sel))))
    lv = loss[fin]
    a = np.floor(lv / step - 0.5).astype(np.int64)
    x = lv - a.astype(float) * step  # a * step exact (a power of two times a small int)
    dx = lse[fin] + 4 * _U * (1.0 + np.abs(lv))
    if np.any(dx > step / 8):
        raise PrecisionError("split_lattice: loss errors too large for the lattice step")
    den = -math.expm1(-2.0 * step)
    f = -np.expm1(-x) / den
    g = (np.expm1(-x) - math.expm1(-2.0 * step)) / den
    split_rel = 2.2 * dx / step + 32 * _U
    mass = np.exp(view.p[fin])
    k0 = int(np.min(a)) if a.size else 0
    size = (int(np.max(a)) - k0 + 3) if a.size else 1
    idx = np.concatenate([a - k0, a - k0 + 2])
    masses = np.bincount(idx, weights=np.concatenate([mass * g, mass * f]), minlength=size)
    counts = np.bincount(idx, minlength=size)
    rel_terms = np.concatenate([p_rel[fin] + split_rel, p_rel[fin] + split_rel])
    rel = (float(np.max(rel_terms, initial=0.0)) * (1 + 1e-6)
           + 2 * (float(np.max(counts, initial=0)) + 2) * _U)
    return SplitLattice(k0, masses, max(rel, rel_inf), plus, minus,
                        float(view.tail_p) * (1 + 1e-12), float(view.tail_q) * (1 + 1e-12))


def _trim_split(lat: SplitLattice, cap: float, step: float) -> SplitLattice:
    """Move each end of the lattice holding P- and Q-mass <= cap into the residual (the
    PLD engine treats residual mass as loss +inf in both orders: a sound move)."""
    m = lat.masses
    if m.size <= 2 or cap <= 0:
        return lat
    qm = lat.q_masses(step)
    big = np.maximum(m, np.where(np.isfinite(qm), qm, np.inf)) * (1 + lat.relative)
    top = np.cumsum(big[::-1])[::-1]  # top[i] = sum big[i:]
    bot = np.cumsum(big)
    hi = int(np.searchsorted(-top, -cap, side="left"))  # first i with top[i] <= cap
    hi = min(max(hi - 1, 0), m.size - 1)
    lo = int(np.searchsorted(bot, cap, side="right"))
    lo = max(min(lo, hi), 0)
    if lo == 0 and hi == m.size - 1:
        return lat
    rel = (1 + lat.relative) * (1 + sum_relative_error(m.size) + 8 * _U)
    moved_p = (float(np.sum(m[hi + 1:])) + float(np.sum(m[:lo]))) * rel
    moved_q = (float(np.sum(qm[hi + 1:])) + float(np.sum(qm[:lo]))) * rel
    return replace(lat, offset=lat.offset + lo, masses=m[lo:hi + 1].copy(),
                   tail_p=(lat.tail_p + moved_p) * (1 + 2 * _U),
                   tail_q=(lat.tail_q + moved_q) * (1 + 2 * _U))


def compose_split(a: SplitLattice, b: SplitLattice, *, step: float,
                  cap: float = 0.0) -> SplitLattice:
    """The split lattice of the product of two pairs (independent: losses add).

    Args:
        a: a split lattice.
        b: another, on the same step.
        step: the step.
        cap: trim each end holding mass <= cap into the residual (`_trim_split`).

    Returns:
        The product's lattice: masses by direct convolution (nonnegative terms, relative
        error <= (min length + 2) u beyond the inputs'), +inf mass a.plus (b.P) +
        a.finite b.plus, -inf mass likewise on Q, residuals added, products below the
        normal range bounded absolutely and added to the residuals.
    """
    conv = np.convolve(a.masses, b.masses)
    srel = sum_relative_error(max(a.masses.size, b.masses.size)) + 4 * _U
    rel = ((1 + a.relative) * (1 + b.relative) * (1 + 2 * (min(a.masses.size,
                                                               b.masses.size) + 2) * _U) - 1)
    fa, fb = float(np.sum(a.masses)), float(np.sum(b.masses))
    qa, qb = float(np.sum(a.q_masses(step))), float(np.sum(b.q_masses(step)))
    plus = a.plus * (fb + b.plus) + fa * b.plus
    minus = a.minus * (qb + b.minus) + qa * b.minus
    rel_inf = (1 + a.relative) * (1 + b.relative) * (1 + srel) * (1 + 8 * _U) - 1
    lost = a.masses.size * b.masses.size * _TINY
    out = SplitLattice(a.offset + b.offset, conv, max(rel, rel_inf), plus, minus,
                       (a.tail_p + b.tail_p + lost) * (1 + 4 * _U),
                       (a.tail_q + b.tail_q + lost * math.exp(
                           -min(0.0, (a.offset + b.offset) * step))) * (1 + 4 * _U),
                       a.rows + b.rows)
    return _trim_split(out, cap, step)


def split_view(lat: SplitLattice, *, step: float,
               description: dict[str, Any] | None = None) -> ViewPair:
    """The split lattice as a 1-D float ViewPair: a genuine pair in both orders.

    Args:
        lat: the lattice.
        step: its step.
        description: recorded on the pair.

    Returns:
        The ViewPair: log P' and log Q' = log P' - k step per lattice point, the +inf and
        -inf atoms, tails tail_p and tail_q (residual losses unknown: bound inf), log_error
        from the relative error, grid_exact (values are the pair's own, up to log_error).
    """
    k = np.arange(lat.offset, lat.offset + lat.masses.size, dtype=np.int64)
    nz = lat.masses > 0
    k, m = k[nz], lat.masses[nz]
    p = np.log(m)
    loss = k.astype(float) * step  # exact: a power-of-two step times |k| < 2^52
    q = p - loss
    coords = k
    if lat.plus > 0:
        p, q, loss = np.append(p, math.log(lat.plus)), np.append(q, -np.inf), \
            np.append(loss, np.inf)
        coords = np.append(coords, int(k[-1]) + 1 if k.size else 1)
    if lat.minus > 0:
        p, q, loss = np.append(p, -np.inf), np.append(q, math.log(lat.minus)), \
            np.append(loss, -np.inf)
        coords = np.append(coords, int(k[0]) - 1 if k.size else -1)
    # |log(computed) - log(true)| <= -log(1 - relative), plus the log's and the
    # subtraction's rounding (|log P'| below 800)
    log_error = -math.log1p(-min(lat.relative, 0.5)) + 4 * _U * 801
    return ViewPair(backend="float", p=p, q=q, tail_p=lat.tail_p, tail_q=lat.tail_q,
                    residual_loss_bound=math.inf, loss=loss, log_error=log_error,
                    loss_error=0.0, grid_exact=True, coords=(coords,),
                    description=dict(description or {}) | {"rows": lat.rows,
                                                           "lattice": "connect-the-dots split"})


def dominating_view(params: CountMinParameters, *, tail: float = 1e-30,
                    step: float | None = None) -> ViewPair:
    """A two-sided dominating pair of the count-min mechanism, as a 1-D float ViewPair.

    The d-fold product of the row pair dominates every hash draw's and every neighbouring
    pair's view (docs/ggkpv.md#composing-count-min-rounds); each row is split onto the
    loss lattice (`split_lattice`), which can only make it more informative, and the d
    rows are convolved (`compose_split`), grouping outcomes of equal loss (a lossless
    merge). Both orders are meaningful, so the PLD engine composes it like any view.

    Args:
        params: the parameters.
        tail: window cut of the row pair, and the mass each end trim may move.
        step: lattice step (default: half of `lattice_step(params, tail=tail)`).

    Returns:
        The ViewPair.
    """
    row = _row_cached(params.noise_messages, params.w, float(tail))
    step = lattice_step(params, tail=tail) / 2 if step is None else step
    one = _trim_split(split_lattice(row, step=step), tail, step)
    lat = one
    for _ in range(params.d - 1):
        lat = compose_split(lat, one, step=step, cap=tail)
    return split_view(lat, step=step, description={
        "protocol": "ggkpv-countmin", "pair": "d separating rows, split (two-sided)",
        **params.to_json()})


def mixture_lower_view(params: CountMinParameters, *, tail: float = 1e-30,
                       step: float | None = None) -> ViewPair:
    """A post-processing of the mechanism's own one-round pair (fully random public hash
    functions, drawn afresh each round): its divergences, composed or not, are LOWER
    bounds on the mechanism's, in both orders.

    The deterministic map: keep k (the number of separating rows, Bin(d, 1 - 1/w)); in each
    separating row replace the outcome by its loss bin floor(l~/step) (any deterministic
    function is a post-processing, so the float rounding of l~ is harmless), or by a flag
    for loss +inf (u = s + 1) or -inf (u = 0); report the sum of the bins, or the flag (+inf
    first). The reported outcome's P- and Q-masses are the k-fold convolutions of the
    bins' P- and Q-masses (both computed, so nothing is rounded in the loss).

    Args:
        params: the parameters.
        tail: window cut of the row pair, and the mass each end trim drops (the residual,
            dropped: only lowers the values).
        step: the bin width (default: half of `lattice_step(params, tail=tail)`).

    Returns:
        A 1-D float ViewPair (grid_exact; tails: the windows' residual).
    """
    row = _row_cached(params.noise_messages, params.w, float(tail))
    step = lattice_step(params, tail=tail) / 2 if step is None else step
    n = row.size
    lerr = np.broadcast_to(np.asarray(row.log_error, dtype=float), (n,))
    loss = row.float_loss
    fin = np.isfinite(loss) & np.isfinite(row.p)
    b = np.floor(loss[fin] / step).astype(np.int64)
    b0 = int(np.min(b))
    size = int(np.max(b)) - b0 + 1
    pb = np.bincount(b - b0, weights=np.exp(row.p[fin]), minlength=size)
    qb = np.bincount(b - b0, weights=np.exp(row.q[fin]), minlength=size)
    counts = np.bincount(b - b0, minlength=size)
    rel = (float(np.max(np.expm1(lerr + 4 * _U), initial=0.0))
           + 2 * (float(np.max(counts)) + 2) * _U)
    big = np.maximum(pb, qb)  # drop the row's ends holding at most `tail` of either law
    lo = int(np.searchsorted(np.cumsum(big), tail, side="right"))
    hi = big.size - int(np.searchsorted(np.cumsum(big[::-1]), tail, side="right"))
    if lo < hi:
        pb, qb, counts, b0, size = pb[lo:hi], qb[lo:hi], counts[lo:hi], b0 + lo, hi - lo
    plus = float(np.sum(np.exp(row.p[np.isposinf(loss) & np.isfinite(row.p)])))
    minus = float(np.sum(np.exp(row.q[np.isneginf(loss) & np.isfinite(row.q)])))
    fp, fq = float(np.sum(pb)), float(np.sum(qb))
    weights = _log_weights_lower(params.d, params.w)
    ps, qs, labels, kinds = [], [], [], []
    cp, cq, rel_k, off = np.ones(1), np.ones(1), 0.0, 0
    for k in range(1, params.d + 1):
        cp, cq = np.convolve(cp, pb), np.convolve(cq, qb)
        off += b0
        rel_k = (1 + rel_k) * (1 + rel) * (1 + 2 * (size + 2) * _U) - 1
        # drop each end holding at most `tail` of either law (dropping only lowers values;
        # it keeps the convolutions short)
        big = np.maximum(cp, cq)
        lo = int(np.searchsorted(np.cumsum(big), tail, side="right"))
        hi = big.size - int(np.searchsorted(np.cumsum(big[::-1]), tail, side="right"))
        if lo < hi:
            cp, cq, off = cp[lo:hi], cq[lo:hi], off + lo
        # P(some row +inf) = (fp + plus)^k - fp^k; Q(some row -inf) likewise
        p_plus = sum(math.comb(k, j) * plus ** j * fp ** (k - j) for j in range(1, k + 1))
        q_minus = sum(math.comb(k, j) * minus ** j * fq ** (k - j) for j in range(1, k + 1))
        with np.errstate(divide="ignore"):
            ps += [np.log(cp) + weights[k], [math.log(p_plus) + weights[k] if p_plus > 0
                                             else -math.inf, -math.inf]]
            qs += [np.log(cq) + weights[k], [-math.inf, math.log(q_minus) + weights[k]
                                             if q_minus > 0 else -math.inf]]
        labels += [np.arange(cp.size) + off, [0, 0]]
        kinds += [np.full(cp.size, k), [k, k]]
    # k = 0: no row separates, P = Q
    ps.append([weights[0]])
    qs.append([weights[0]])
    labels.append([0])
    kinds.append([0])
    p = np.concatenate([np.asarray(x, dtype=float) for x in ps])
    q = np.concatenate([np.asarray(x, dtype=float) for x in qs])
    keep = np.isfinite(p) | np.isfinite(q)
    # the mixture weights were rounded down by a relative 1e-13 (1 + |log|): true within
    # 2e-13 (1 + |log|) of the stored value, far below the bound used here
    log_error = (-math.log1p(-min(rel_k + 1e-11, 0.5)) + 4 * _U * 801
                 + 1e-13 * (1 + params.d * math.log(params.w) + 2 * math.log(2) * params.d))
    return ViewPair(backend="float", p=p[keep], q=q[keep],
                    # the windows' residual and the trimmed ends (at most 2 tail per trim)
                    tail_p=params.d * (float(row.tail_p) + 4 * tail),
                    tail_q=params.d * (float(row.tail_q) + 4 * tail),
                    residual_loss_bound=math.inf, log_error=log_error, grid_exact=True,
                    coords=(np.concatenate([np.asarray(x) for x in kinds])[keep],
                            np.concatenate([np.asarray(x) for x in labels])[keep]),
                    description={"protocol": "ggkpv-countmin",
                                 "pair": "mixture over hash draws, loss bins (lower)",
                                 **params.to_json()})
