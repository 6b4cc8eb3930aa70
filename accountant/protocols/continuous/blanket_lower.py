"""Certified lower end of the blanket pair's own delta(eps): how tight `blanket` is.

The blanket pair of `blanket` (docs/continuous-randomizers.md#the-blanket-bound): N ~
Bin(n - 1, gamma), gamma = int min(f_0, f_1), omega = min(f_0, f_1)/gamma, and given
c = N + 1 the multiset of one message from f_0 (P) or f_1 (Q) and N draws from omega;
H_g(P_N || Q_N) = E[(Z_1 + ... + Z_c)_+]/c with Z = (f_0 - g f_1)/omega(W), W ~ omega.
This module bounds that pair's value from BELOW (scope PAIR: it says how close the blanket
upper end is to the blanket pair, nothing about the mechanism), in three steps, each of
which can only lower the value:

1. A statistic (data processing). Cut the outputs into the cells of `cells` (the blanket's
   grid; masses in ball arithmetic) and give each cell an integer j, the lattice index of
   its conditional mean of Z (conditional Jensen: replacing Z by E[Z | cell] is the
   divergence of the cell labels, and T = sum_i j(cell_i) a further post-processing).
   Any cells, indices and clipping are valid; these make T close to sufficient. With p_x
   the law of j under f_x and m that of min(f_0, f_1) (total mass gamma):

       P_T = p_0 * (m/gamma)^{*(c-1)},   Q_T = p_1 * (m/gamma)^{*(c-1)},
       H_g(P_T || Q_T) = sum_t ((p_0 - g p_1) * m^{*(c-1)})(t)_+ / gamma^{c-1},

   and gamma is replaced by an upper bound (a smaller value). The pair is symmetric under
   y -> 1 - y, so one order is the value of both.
2. The sum, errors subtracted. One tilted FFT per count (the tilt the saddle point of the
   clipped, unrounded Z under omega, one for all counts). The masses' certified relative
   errors (times about c), the FFT round-off, the complex power, the neglected modes and
   the aliasing (Chernoff) are all subtracted from the tilted value at each t before the
   positive part, as in `special_pair` (docs/continuous-randomizers.md#the-special-pair).
   A P-side mass whose tilt would overflow is dropped (it only lowers p_0 - g p_1).
3. The mixture over N. H is nonincreasing in N, so a count stochastically LARGER than
   Bin(n - 1, gamma) gives less: N ~ Bin(n - 1, q) with q a float >= gamma; each block of
   counts (`pairs.clones.count_blocks`) is taken at its largest N with its mass rounded
   down, the counts outside the window dropped (their values are >= 0).

`epsilon_lower` returns the largest eps found whose certified lower delta is still above
the target: the blanket pair's epsilon(delta) is then above it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from flint import arb, ctx
from scipy.optimize import brentq

from accountant.numeric.logspace import logsumexp
from accountant.numeric.rounding import UNIT_ROUNDOFF, sum_relative_error
from accountant.pairs.clones import PMF_RELATIVE_ERROR, count_blocks
from accountant.protocols.continuous import special_pair
from accountant.protocols.continuous.cells import Cells, cells
from accountant.protocols.continuous.laws import NoiseLaw
from accountant.result import Direction, Kind, Result, Scope, Source

__all__ = ["delta_given_count", "delta_lower", "epsilon_lower", "SOURCE"]

_U = UNIT_ROUNDOFF
_FFT_ETA = 10 * _U  # stated per-stage error of a radix-2 FFT (Higham 2002, Thm 24.2)
_MAX_FFT = 2 ** 21
_REACH_SD = 11.0  # tilted standard deviations of the sum the window covers on each side
SOURCE = Source(citation="Balle, Bell, Gascon, Nissim, CRYPTO 2019 (privacy blanket); "
                         "this library (lattice statistic of the blanket pair)",
                locator="docs/continuous-randomizers.md#the-blanket-pairs-lower-end")


@dataclass(frozen=True, slots=True)
class _Split:
    """The cells of a law split at y = 1/2 (where min(f_0, f_1) switches from f_1 to f_0),
    with certified bounds on gamma."""

    cl: Cells
    left: np.ndarray  # cell lies in y <= 1/2 (integer laws: atoms <= 0), where min = f_1
    boundary: int  # index of the first right cell
    gamma_lo: float
    gamma_hi: float


@functools.lru_cache(maxsize=16)
def _split(law: NoiseLaw) -> _Split:
    cl = cells(law)
    # cell i is (cuts[i-1], cuts[i]]; the last cell (cuts[-1], inf) is a right cell
    mid = 0.0 if law.integer else 0.5
    upper_cut = np.concatenate([cl.cuts, [math.inf]])
    left = upper_cut <= mid
    boundary = int(np.count_nonzero(left))
    if not (np.all(left[:boundary]) and mid in set(cl.cuts.tolist())):
        raise ValueError("cells do not split at the crossing of f_0 and f_1")
    # gamma = the total min-mass, summed over every cell in ball arithmetic
    with ctx.workprec(192):
        total = arb(0)
        for i, (b0, b1) in enumerate(zip(cl.balls0, cl.balls1, strict=True)):
            total += b1 if i < boundary else b0
        lo, hi = float(total.lower()), float(total.upper())
    return _Split(cl=cl, left=left, boundary=boundary,
                  gamma_lo=lo * (1 - 4 * _U), gamma_hi=hi * (1 + 4 * _U))


def _saddle(v: np.ndarray, w: np.ndarray) -> float:
    """theta >= 0 with sum w v e^(theta v) = 0 (0 when the mean is already >= 0; a tilt
    only steers accuracy, any value is valid)."""
    top = float(np.max(v))
    if float(np.sum(w * v)) >= 0 or top <= 0:
        return 0.0

    def f(t: float) -> float:
        return float(np.sum(w * v * np.exp(t * (v - top))))

    b = 1.0 / top
    while f(b) < 0:
        b *= 2.0
        if b > 1e300:
            return b
    return float(brentq(f, 0.0, b, xtol=1e-14 * b, rtol=1e-12, maxiter=300))


@dataclass(frozen=True, slots=True)
class _Lattice:
    """Tilted lattice weights of one law, g and step (module docstring, steps 1-2)."""

    hm: np.ndarray  # tilted m (the blanket messages), sums to 1 up to rounding
    hq: np.ndarray  # tilted p_0 - g p_1 (the differing message)
    hb: np.ndarray  # tilted p_0 + g p_1 (its error scale)
    j_lo: int
    theta: float  # tilt per lattice step
    s: float  # log of the tilt's normaliser
    rho0: float  # relative error of every tilted weight (masses, sums, tilt)
    rho_last: float  # |true hq - hq| <= rho_last hb
    tiny: float  # total true mass of the cells whose float mass is 0 (p_0 + p_1 + m)
    mu_m: float
    var_m: float
    mu_b: float
    var_b: float


def _lattice(law: NoiseLaw, g: float, resolution: float, budget: int,
             c_max: int) -> _Lattice | None:
    """The lattice statistic for g, with `resolution` steps per untilted sd of Z and at
    most `budget` steps (clipped beyond); None when nothing positive can be certified."""
    sp = _split(law)
    cl = sp.cl
    m = np.where(sp.left, cl.p1, cl.p0)
    live = m > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        # Z/gamma = E[(f_0 - g f_1)/min | cell] (the index only; any index is valid)
        r = np.where(live, (cl.p0 - g * cl.p1) / np.where(live, m, 1.0),
                     np.where(sp.left, np.inf, -np.inf))
    if float(np.max(np.where(cl.p0 > 0, r, -np.inf))) <= 0:
        return None  # no cell has Z > 0 with P-mass: the computed value would be 0
    rl = np.clip(r[live], -1e150, 1e150)
    wl = m[live] / float(np.sum(m[live]))
    # the spread of Z without its tails (omega-mass 1e-4 each side): the factor e^-lambda
    # on the far right makes the plain variance meaningless for small sigma
    order = np.argsort(rl)
    cw = np.cumsum(wl[order])
    q_lo = rl[order][min(int(np.searchsorted(cw, 1e-4)), rl.size - 1)]
    q_hi = rl[order][min(int(np.searchsorted(cw, 1.0 - 1e-4)), rl.size - 1)]
    rw = np.clip(rl, q_lo, q_hi)
    mean = float(np.sum(wl * rw))
    sd = math.sqrt(float(np.sum(wl * (rw - mean) ** 2)))
    if not 0 < sd < math.inf:
        return None
    # few messages at a large g: what counts are single messages with Z ~ g (far in the
    # tail), so the lattice must reach a few g before it is clipped
    step = max(sd / resolution, 8.0 * max(g - 1.0, 0.0) * min(c_max, 4) / budget)
    with np.errstate(invalid="ignore", over="ignore"):
        jf = np.floor(np.clip(r / step, -1e15, 1e15) + 0.5)
    j_min, j_max = float(np.min(jf)), float(np.max(jf))
    # at most `budget` steps: the far ends are clipped (a coarser statistic, still valid)
    j_hi = min(j_max, max(j_min + budget, budget // 2))
    j_lo = max(j_min, j_hi - budget)
    j = (np.clip(jf, j_lo, j_hi) - j_lo).astype(np.int64)
    span = int(j_hi - j_lo)
    # runs of cells with one index (Z is monotone in y, so an index is one run on each side
    # of y = 1/2), their masses summed in ball arithmetic
    cut = np.zeros(j.size, dtype=bool)
    cut[0] = True
    cut[1:] = np.diff(j) != 0
    if sp.boundary < j.size:
        cut[sp.boundary] = True
    starts = np.flatnonzero(cut)
    runs = cl.merged(starts)
    jr = j[starts]
    left_run = starts < sp.boundary
    mr = np.where(left_run, runs.p1, runs.p0)
    w_m = np.bincount(jr, weights=mr, minlength=span + 1)
    w_0 = np.bincount(jr, weights=runs.p0, minlength=span + 1)
    w_1 = np.bincount(jr, weights=runs.p1, minlength=span + 1)
    per_bin = int(np.max(np.bincount(jr)))
    js = np.arange(span + 1, dtype=float) + j_lo
    # the tilt: the saddle of the clipped, unrounded Z (so that the tilted sum is centred
    # where P_T/Q_T crosses g even if the rounding to the lattice is biased), per step
    rc = np.clip(rl, (j_lo - 0.5) * step, (j_hi + 0.5) * step)
    theta = _saddle(rc, m[live]) * step
    has = w_m > 0
    s = logsumexp(np.log(w_m[has]) + theta * js[has])
    expo = theta * js - s
    with np.errstate(over="ignore"):
        tilt = np.exp(np.minimum(expo, 700.0))
    if np.any((expo > 700.0) & ((w_m > 0) | (w_1 > 0))):
        return None  # not reached: such a tilted weight would exceed 1
    hm = w_m * tilt
    # P-mass whose tilted weight is far above the blanket's (far up the likelihood ratio,
    # where the tilt overflows or would swamp the FFT's absolute error) is dropped: that
    # only lowers p_0 - g p_1, hence the value
    h0 = np.where(expo <= 700.0, w_0, 0.0) * tilt
    h0 = np.where(h0 <= 1e2, h0, 0.0)
    h1 = w_1 * tilt
    hq = h0 - g * h1
    hb = h0 + g * h1
    rho0 = (runs.rho + (per_bin - 1) * _U * 1.01
            + 4 * _U * (2.0 + float(np.max(np.abs(theta * js))) + abs(s)) + _U)
    rho_true = rho0 / (1 - rho0)
    rho_last = (rho_true * (1 + 2 * rho_true) + 3 * _U) * (1 + 4 * _U)
    tot_m, tot_b = float(np.sum(hm)), float(np.sum(hb))
    off = js - j_lo
    mu_m = float(np.sum(hm * off)) / tot_m
    var_m = float(np.sum(hm * (off - mu_m) ** 2)) / tot_m
    mu_b = float(np.sum(hb * off)) / tot_b if tot_b > 0 else mu_m
    var_b = float(np.sum(hb * (off - mu_b) ** 2)) / tot_b if tot_b > 0 else var_m
    return _Lattice(hm=hm, hq=hq, hb=hb, j_lo=int(j_lo), theta=float(theta), s=float(s),
                    rho0=rho0, rho_last=rho_last, tiny=runs.tiny0 + runs.tiny1,
                    mu_m=mu_m, var_m=var_m, mu_b=mu_b, var_b=var_b)


def _resolution(c_max: int) -> float:
    """Lattice steps per untilted sd of Z: fine for few messages, then such that the FFT
    stays near 2^18-2^19 points (accuracy only: 15 steps at c ~ 6e5 lose ~0.1 % of delta
    to the rounding of the statistic)."""
    top = 256.0 if c_max <= 3 else 64.0
    return float(min(top, max(4.0, 2.0 ** 18 / (2 * _REACH_SD * math.sqrt(c_max)))))


def delta_given_count(law: NoiseLaw, exp_epsilon: float, counts: np.ndarray) -> np.ndarray:
    """Certified lower bounds on H_g(P_N || Q_N) of the blanket pair for c = N + 1 in
    `counts` (gamma the law's true blanket mass).

    Args:
        law: the noise law.
        exp_epsilon: g = e^eps >= 1, a float used exactly (a larger g gives less, so a
            caller rounds e^eps up).
        counts: integers c >= 1.

    Returns:
        One lower bound per count (0.0 where nothing positive is certified).
    """
    counts = np.asarray(counts, dtype=np.int64)
    if not math.isfinite(exp_epsilon):
        return np.zeros(counts.size)  # (the value at eps = inf is 0)
    c_max = int(np.max(counts))
    resolution = _resolution(c_max)
    # (a narrower span for tens to thousands of messages: the window must hold one
    # message's lattice, and the far tails are the threshold statistic's anyway)
    budget = 2 ** 18 if c_max <= 3 else (2 ** 13 if c_max < 10 ** 4 else 2 ** 15)
    while resolution >= 1.0:
        while budget >= 2 ** 12:
            lat = _lattice(law, float(exp_epsilon), resolution, budget, c_max)
            if lat is None:
                return np.zeros(counts.size)
            out = _values(lat, counts, float(exp_epsilon), _split(law))
            if out is not None:
                return out
            budget //= 8
        resolution /= 2.0
        budget = 2 ** 15
    return np.zeros(counts.size)


def _values(lat: _Lattice, counts: np.ndarray, g: float, sp: _Split) -> np.ndarray | None:
    """Step 2 for every count; None when the window would exceed _MAX_FFT points."""
    span = lat.hm.size - 1
    c_max = int(np.max(counts))
    sd_max = math.sqrt((c_max - 1) * lat.var_m + lat.var_b)
    full_max = c_max * span + 1
    # (the window holds one message's whole lattice at least)
    size = 1 << max(4, math.ceil(math.log2(max(2.0 * (_REACH_SD * sd_max + 2.0) + 16,
                                                span + 1.0))))
    if full_max <= size:
        size = 1 << max(4, math.ceil(math.log2(full_max)))
    if size > _MAX_FFT:
        return None
    vec = np.zeros((3, size))
    vec[0, :span + 1], vec[1, :span + 1], vec[2, :span + 1] = lat.hm, lat.hq, lat.hb
    phi_m, phi_q, phi_b = np.fft.rfft(vec, axis=1)
    log2l = math.log2(size)
    sq = math.sqrt(size)
    # componentwise bound on each rfft's error (2-norm model)
    e_m, e_q, e_b = (_FFT_ETA * log2l * sq * math.sqrt(float(np.sum(x * x))) * 1.01 + 1e-300
                     for x in (lat.hm, lat.hq, lat.hb))
    mult = np.full(phi_m.size, 2.0)  # the Hermitian half counts twice, except DC, Nyquist
    mult[0] = mult[-1] = 1.0
    mod = np.abs(phi_m)
    with np.errstate(divide="ignore"):
        log_mod = np.log(mod)
    log_r = np.log(mod + e_m)  # log of a bound on |true phi_m|
    ang = np.angle(phi_m)
    mod_q, mod_b = np.abs(phi_q), np.abs(phi_b)
    chern = _chernoff_table(lat, c_max, size, sd_max)
    tiny_scale = 2 * (1 + g) * lat.tiny * (1 + 1.0 / sp.gamma_lo) + 1e-300
    log_gamma = math.log(sp.gamma_hi)
    out = _threshold(sp, g, counts)
    for idx, c in enumerate(counts.tolist()):
        if c == 1:
            out[idx] = max(out[idx], _single(sp.cl, g))
            continue
        fft = _one_count(lat, int(c), g, size, phi_m, phi_q, phi_b, e_m, e_q, e_b, mult,
                         log_mod, log_r, ang, mod_q, mod_b, chern, tiny_scale, log_gamma)
        out[idx] = max(out[idx], fft)
    return out


def _one_count(lat: _Lattice, c: int, g: float, size: int, phi_m: np.ndarray,
               phi_q: np.ndarray, phi_b: np.ndarray, e_m: float, e_q: float, e_b: float,
               mult: np.ndarray, log_mod: np.ndarray, log_r: np.ndarray, ang: np.ndarray,
               mod_q: np.ndarray, mod_b: np.ndarray, chern: _Chernoff, tiny_scale: float,
               log_gamma: float) -> float:
    span = lat.hm.size - 1
    k = c - 1
    log2l = math.log2(size)
    sq = math.sqrt(size)
    # relative error of the masses carried through c - 1 blanket messages (step 2)
    if not lat.rho0 * c < 1.0:
        return 0.0
    rho_true = lat.rho0 / (1 - lat.rho0)
    beta = math.expm1(k * math.log1p(rho_true)) * (1 + 1e-9)
    kappa = (beta * (1 + lat.rho_last + 8 * _U) + lat.rho_last) * (1 + 1e-9)
    # modes whose true |phi_m|^(c-1) is below e^-700 are left out, their whole size bounded
    # by e^-700 (|phi_x| + e_x) each; for many messages only the lowest modes are live
    live = np.flatnonzero(k * log_r > -700.0)
    lr = log_r[live]
    lm0 = log_mod[live]
    # (c = 1: the power is 1 at every mode, also where phi_m is 0)
    finite = np.isfinite(lm0) | (k == 0)
    lm = np.where(np.isfinite(lm0), lm0, 0.0)
    with np.errstate(under="ignore"):
        mod_p = np.where(finite, np.exp(k * lm), 0.0)
        power = mod_p * np.exp(1j * (k * ang[live]))
    # float error of exp/log/cos/sin of the power relative to |computed phi|^(c-1)
    kap = 8 * _U * (2.0 + k * (3.0 + np.abs(lm) + 2 * math.pi))
    with np.errstate(under="ignore"):
        r_k = np.exp(np.minimum(k * lr, 700.0))  # >= |true phi_m|^(c-1)
        # |computed - true power| <= kap |power| + (c-1) e_m max(|a|, |b|)^(c-2)
        d_power = (np.expm1(kap) * mod_p
                   + k * e_m * np.exp(np.minimum((k - 1) * lr, 700.0)) + 1e-300)
    mult_l = mult[live]
    n_dead = float(np.sum(mult)) - float(np.sum(mult_l))
    zs = np.zeros((2, phi_m.size), dtype=complex)
    bounds = []
    for row, (phi, mod_x, err) in enumerate(((phi_q, mod_q, e_q), (phi_b, mod_b, e_b))):
        z = power * phi[live]
        mx = mod_x[live]
        dz = d_power * (mx + err) + r_k * err + 4 * _U * np.abs(z)
        dead = math.exp(-700.0) * (n_dead * (float(np.max(mod_x)) + err))
        round_off = _FFT_ETA * log2l * math.sqrt(float(np.sum(mult_l * np.abs(z) ** 2))) / sq
        # (a float sum of the nonnegative error terms, rounded up by its own bound)
        bound = ((float(np.sum(mult_l * dz)) + dead) / size + round_off * 1.01) * (
            1 + sum_relative_error(int(live.size)) + 8 * _U)
        zs[row, live] = z
        bounds.append(bound + 1e-300)
    x, y = np.fft.irfft(zs, size, axis=1)
    ex, ey = bounds
    full = c * span + 1
    whole = full <= size
    center = k * lat.mu_m + lat.mu_b
    s_lo = 0 if whole else int(min(max(round(center - size / 2), 0), full - size))
    alias = 0.0 if whole else chern.bound(c, s_lo, size, center)
    if not math.isfinite(alias):
        return 0.0
    i = np.arange(size)
    s_off = s_lo + np.mod(i - s_lo, size)
    slack = ex + alias + kappa * (y + ey)
    # (the float evaluation of x - slack rounded down by its own error bound)
    low = (x - slack) - 4 * _U * (np.abs(x) + slack)
    pos = low > 0
    if not np.any(pos):
        return 0.0
    t = s_off[pos].astype(float) + float(c) * lat.j_lo  # the lattice sum
    cs = c * lat.s
    log_f = cs - lat.theta * t - k * log_gamma
    log_f = log_f - 8 * _U * (abs(cs) + np.abs(lat.theta * t) + k * abs(log_gamma) + 2.0)
    with np.errstate(under="ignore"):
        terms = np.exp(np.minimum(log_f, 700.0)) * low[pos] * (1 - 4 * _U)
    total = float(np.sum(terms)) * (1 - sum_relative_error(int(terms.size)))
    # the cells set to 0: their masses move P_T, Q_T by at most this much in total variation
    tiny = tiny_scale * c * (1 + beta) * 2
    return max(total - tiny, 0.0)


def _single(cl: Cells, g: float) -> float:
    """c = 1 (no blanket message): H_g(f_0 || f_1) >= sum over cells of (P_0 - g P_1)_+,
    summed directly (the FFT's absolute error, relative to g P_1 of the bulk, would swamp
    the far tail that carries the value at a large g)."""
    a = cl.p0 * (1 - cl.rho - 2 * _U)
    b = g * cl.p1 * (1 + cl.rho + 3 * _U)
    d = (a - b) - 2 * _U * (a + b)
    pos = d[d > 0]
    total = float(np.sum(pos)) * (1 - sum_relative_error(int(pos.size)))
    # a cell whose float P_1 is 0 has true P_1 <= tiny1 (one whose P_0 is 0 only gains)
    return max(total - g * cl.tiny1 * (1 + 4 * _U), 0.0)


def _threshold(sp: _Split, g: float, counts: np.ndarray) -> np.ndarray:
    """Another statistic, for few messages at a large g (where the FFT's absolute error,
    relative to g P_1 of the bulk, hides the far tail): T = 1{some message is in A}, A the
    outputs left of a cut. With D = P_0(A) - g P_1(A), w = omega(A), k = c - 1,

        P(T = 1) - g Q(T = 1) = (1 - w)^k D - (g - 1)(1 - (1 - w)^k),

    nondecreasing in D and (where positive) nonincreasing in w: D rounded down, w up; the
    best cut on the left half is taken."""
    cl = sp.cl
    b = sp.boundary
    rel = cl.rho + 4 * _U
    d_cell = cl.p0[:b] * (1 - rel) - g * cl.p1[:b] * (1 + rel)
    d_cell = d_cell - 2 * _U * (cl.p0[:b] + g * cl.p1[:b])
    # prefix sums over cells from the far left (numpy's cumsum is sequential: relative
    # error <= (b - 1) u of the sum of magnitudes), each rounded down by that bound
    seq = 2 * (b + 2) * _U * 1.01
    scale = np.cumsum(cl.p0[:b] + g * cl.p1[:b])
    d = np.cumsum(d_cell) - seq * scale - g * cl.tiny1
    w = (np.cumsum(cl.p1[:b]) * (1 + rel) * (1 + seq) + cl.tiny1) / (
        sp.gamma_lo * (1 - 4 * _U))
    w = np.minimum(w * (1 + 4 * _U), 1.0)
    keep = d > 0
    out = np.zeros(counts.size)
    if not np.any(keep):
        return out
    d, w = d[keep], w[keep]
    log1m = np.log1p(-w)
    for idx, c in enumerate(counts.tolist()):
        k = c - 1
        # (1 - w)^k rounded down, 1 - (1 - w)^k rounded up
        lk = k * log1m * (1 + 8 * _U) - 4 * _U
        stay = np.exp(lk) * (1 - 4 * _U)
        leave = -np.expm1(lk) * (1 + 4 * _U) + 4 * _U * (1 - np.exp(lk)) + 1e-300
        v = stay * d * (1 - 2 * _U) - (g - 1) * leave * (1 + 2 * _U)
        out[idx] = max(float(np.max(v)) * (1 - 4 * _U), 0.0)
    return out


@dataclass(frozen=True, slots=True)
class _Chernoff:
    """log moment generating functions of the tilted m and b at a few tilts, for the mass
    of b * m^{*(c-1)} outside a window (the FFT wraps it onto the window)."""

    lams: np.ndarray
    log_mm: np.ndarray
    log_mb: np.ndarray
    scale_m: np.ndarray
    scale_b: np.ndarray
    top_m: float
    top_b: float

    def bound(self, c: int, s_lo: int, size: int, center: float) -> float:
        total = 0.0
        k = c - 1
        top = k * self.top_m + self.top_b  # the largest offset with mass
        for edge, sign in ((s_lo + size, 1.0), (s_lo, -1.0)):
            if (sign > 0 and edge > top) or (sign < 0 and edge <= 0):
                continue
            if sign * (edge - center) <= 0:
                return math.inf
            pick = (np.sign(self.lams) == sign) & np.isfinite(self.log_mm) & np.isfinite(
                self.log_mb)
            if not np.any(pick):
                return math.inf
            lam = self.lams[pick]
            with np.errstate(over="ignore", invalid="ignore"):
                expo = -lam * edge + k * self.log_mm[pick] + self.log_mb[pick]
                # a generous margin for the float evaluation of every piece
                err = 1e-12 * (np.abs(lam * edge) + k * self.scale_m[pick]
                               + self.scale_b[pick]) + 1e-9
                # a tilt whose terms overflow (inf - inf: NaN) bounds nothing; a NaN here
                # once reached the sum (Laplace property draws), where it would have
                # compared as a small wrapped mass
                exponents = np.where(np.isnan(expo + err), np.inf, expo + err)
            total += math.exp(min(float(np.min(exponents)), 700.0))
        return total * (1 + 1e-9)


def _chernoff_table(lat: _Lattice, c_max: int, size: int, sd_max: float) -> _Chernoff:
    off = np.arange(lat.hm.size, dtype=float)
    km, kb = lat.hm > 0, lat.hb > 0
    lhm, lhb = np.log(lat.hm[km]), np.log(lat.hb[kb])
    om, ob = off[km], off[kb]
    base = (size / 2.0) / max(sd_max * sd_max, 1e-300)
    theta = max(lat.theta, 1e-300)
    cand = np.concatenate([base * np.array([0.125, 0.25, 0.5, 1.0, 2.0]),
                           theta * np.array([0.05, 0.2, 0.5, 0.8, 0.95])])
    cand = cand[(cand > 0) & np.isfinite(cand)]
    lams = np.concatenate([cand, -cand])
    log_mm, log_mb, scale_m, scale_b = (np.empty(lams.size) for _ in range(4))
    for i, lam in enumerate(lams.tolist()):
        with np.errstate(over="ignore", invalid="ignore"):
            log_mm[i] = logsumexp(lhm + lam * om)
            log_mb[i] = logsumexp(lhb + lam * ob)
        scale_m[i] = float(np.max(np.abs(lam * om) + np.abs(lhm))) + abs(log_mm[i])
        scale_b[i] = float(np.max(np.abs(lam * ob) + np.abs(lhb))) + abs(log_mb[i])
    return _Chernoff(lams=lams, log_mm=log_mm, log_mb=log_mb, scale_m=scale_m,
                     scale_b=scale_b, top_m=float(np.max(om)), top_b=float(np.max(ob)))


# ---------------------------------------------------------------------- mixture over N
def _g_up(epsilon: float) -> float:
    # a float >= e^eps: delta is nonincreasing in g, so this errs downward
    return math.exp(epsilon) * (1 + 2 * _U) if epsilon > 0 else 1.0


def _mixture(law: NoiseLaw, n: int, g: float, tail: float, blocks: int) -> float:
    """Step 3: sum over blocks of counts of (mass rounded down) x (value at the block's
    largest N), N ~ Bin(n - 1, q), q >= gamma."""
    sp = _split(law)
    q = min(sp.gamma_hi, 1.0)
    # about `blocks` x 1.5 blocks whatever the mean count (count_blocks adds blocks for
    # small means, each an FFT here)
    mean = (n - 1) * q
    starts, ends, masses, _ = count_blocks(
        n - 1, q, tail, max(1, round(blocks * min(1.0, math.sqrt(mean / 4e5)))))
    # count_blocks rounds each mass up by (1 + e); the true mass is >= raw (1 - e)
    e = PMF_RELATIVE_ERROR + 2 * _U * (ends - starts + 1)
    low_masses = masses * (1 - e) / (1 + e) * (1 - 4 * _U)
    h = delta_given_count(law, g, np.asarray(ends) + 1)
    terms = low_masses * h
    return float(np.sum(terms)) * (1 - sum_relative_error(int(terms.size))) * (1 - 4 * _U)


def delta_lower(law: NoiseLaw, n: int, epsilon: float, *, tail: float = 1e-7,
                blocks: int = 8) -> Result:
    """Certified lower bound on the blanket pair's delta(eps) (both orders: the pair is
    symmetric), the pair whose value `blanket.delta_upper` bounds from above.

    Args:
        law: the noise law.
        n: users, >= 2.
        epsilon: eps >= 0.
        tail: mass of counts left out (accuracy only: their values are dropped).
        blocks: count blocks (accuracy only).

    Returns:
        Result(quantity="delta", kind=LOWER, scope=PAIR, direction=MAX).
    """
    value = _mixture(law, int(n), _g_up(epsilon), tail, blocks)
    return Result(quantity="delta", value=value, kind=Kind.LOWER, direction=Direction.MAX,
                  source=SOURCE, at=float(epsilon), scope=Scope.PAIR,
                  method=f"protocols.continuous.blanket_lower.delta_lower ({law.name} "
                         "blanket pair, lattice statistic)")


def epsilon_lower(law: NoiseLaw, n: int, delta: float, *, below: float | None = None,
                  relative_tolerance: float = 1e-3, tail: float | None = None,
                  blocks: int = 8, epsilon_max: float = 60.0) -> Result:
    """Certified lower bound on the blanket pair's epsilon(delta): the largest eps found
    whose certified lower delta is still above the target (the pair's delta(eps) is then
    above delta, so its epsilon(delta) exceeds eps).

    The search keeps [a, b]: certified value above delta at a (a = 0 if none found) and
    at most delta at b (or b = `below`, an eps where the blanket pair's delta is certified
    at most delta, e.g. `blanket.epsilon_upper`'s value); secant steps on sqrt(-log delta)
    aimed a little to either side, bisection when one end moves twice.

    Args:
        law: the noise law.
        n: users, >= 2.
        delta: target in (0, 1).
        below: an upper end of the blanket pair's epsilon(delta), or None.
        relative_tolerance: final (b - a)/b.
        tail: count mass left out (default delta * 1e-4, accuracy only).
        blocks: count blocks (accuracy only).
        epsilon_max: largest eps tried when `below` is not given.

    Returns:
        Result(quantity="epsilon", kind=LOWER, scope=PAIR, direction=MAX), error_budget
        the final b - a (0.0 with value 0 when no eps > 0 is certified).
    """
    tail = max(delta * 1e-4, 1e-300) if tail is None else tail
    target = math.sqrt(-math.log(delta))
    cache: dict[float, float] = {}

    def value(e: float) -> float:
        if e not in cache:
            cache[e] = _mixture(law, int(n), _g_up(e), tail, blocks)
        return cache[e]

    a, found = 0.0, False
    b = below if below is not None and math.isfinite(below) and below > 0 else None
    if b is None:
        e = 0.01
        while b is None:
            if value(e) > delta:
                a, found = e, True
                if e >= epsilon_max:
                    return _result(law, delta, a, math.inf)
                e = min(4.0 * e, epsilon_max)
            else:
                b = e
    else:
        # the lower end usually sits within a per cent of the upper one
        c = b * (1 - 4e-3)
        if value(c) > delta:
            a, found = c, True
        else:
            b = c
    sides: list[bool] = []
    for _ in range(40):
        if b - a <= relative_tolerance * b:
            break
        est = special_pair.secant_estimate(cache, target)
        if est is None or not a < est < b:
            est = 0.5 * (a + b)
        h = 0.4 * relative_tolerance * b
        c = est + h if abs(est - a) < abs(est - b) else est - h
        c = min(max(c, a + h), b - h)
        if len(sides) >= 2 and sides[-1] == sides[-2]:
            c = 0.5 * (a + b)  # the same end moved twice: the estimate lags, bisect
        above = value(c) > delta
        sides.append(above)
        if above:
            a, found = c, True
        else:
            b = c
    return _result(law, delta, a if found else 0.0, b)


def _result(law: NoiseLaw, delta: float, a: float, b: float) -> Result:
    return Result(quantity="epsilon", value=float(a), kind=Kind.LOWER,
                  direction=Direction.MAX, source=SOURCE, at=float(delta), scope=Scope.PAIR,
                  error_budget=float(b - a) if math.isfinite(b) else 0.0,
                  method=f"protocols.continuous.blanket_lower.epsilon_lower ({law.name} "
                         f"blanket pair, lattice statistic; bracket [{a:.6g}, {b:.6g}])")
