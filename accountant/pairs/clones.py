"""Clone/blanket pairs: mixtures over an observed count C, with per-C closed forms.

docs/clones-and-blankets.md#clones-pair (Feldman-McMillan-Talwar, "Hiding among the clones", FOCS
2021) and 5.4 (the
blanket pair of k-RR, after Balle-Bell-Gascon-Nissim, CRYPTO 2019). Both pairs have the
form: C ~ Bin(N, q) is part of the outcome (N = n-1 other users, q the clone/blanket
probability), A | C ~ Bin(C, 1/2), and the differing user adds one to the first
coordinate with probability w (P) or w' (Q), one to the second with probability w' (P)
or w (Q), and lands in a block identical under P and Q with probability w* = 1-w-w'.
With X = first coordinate and B_c = Bin(c, 1/2):

    P_c(x) = w B_c(x-1) + w' B_c(x),   Q_c(x) = w' B_c(x-1) + w B_c(x),   x = 0..c+1.

Every divergence decomposes exactly over c. P_c/Q_c increases in x (B_c(x-1)/B_c(x) =
x/(c+1-x)), so the optimal test is the threshold x >= t with t = floor(x*) + 1,
x* = (gamma w - w')(c+1) / ((w-w')(1+gamma)), and

    H_c(gamma) = (w - gamma w') B_c(t-1) - (gamma-1)(w+w') S_c(t),   S_c(t) = P(B_c >= t).

Certified coarsening in c: the pair at c+1 is the pair at c with an independent
Bernoulli(1/2) added to X (one more clone), a post-processing, so H_c and the Renyi moments
are nonincreasing in c (data processing). On a block [a, b] of c, the block's C-mass times
the value at a bounds from above, times the value at b from below. The two ends form a
numerical bracket [lower, upper] of the pair's exact value; C-mass outside a certified
window is added to upper bounds (H_c <= 1) and dropped from lower ones.

S_c(t) is a sum of K binomial terms, B_c(t) (log-space) times running products of the
ratios r(x) = (c-x)/(x+1), plus a remainder in [0, B_c(t+K)/(1-r)], r = r(t+K) (the ratio
of consecutive binomial terms decreases); S enters H with a minus sign, so the upper end
of H uses remainder 0 and the lower end the remainder bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accountant.domains import (
    ALPHA,
    ALPHABET,
    DELTA,
    EPSILON,
    EPSILON0,
    N_PAIR,
    checked,
    finite_orders,
)
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric.logspace import logsumexp
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import (
    LOG_PMF_ABS_ERROR,
    LOG_PMF_REL_ERROR,
    bd0,
    binomial_logpmf,
    stirlerr,
)
from accountant.numeric.summation import cascade_sum_rows
from accountant.numeric.tails import binomial_log_window
from accountant.result import Bracket, Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = [
    "PMF_RELATIVE_ERROR",
    "half_logpmf",
    "bracket_crossing",
    "ClonePair",
    "count_blocks",
    "fmt_clones",
    "blanket_k_rr",
    "hockey_stick_terms",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "renyi_divergence",
    "renyi_curve",
    "view_pair",
]

_LOG_2PI = math.log(2.0 * math.pi)
# Relative error of exp(log B) with the log-PMF error model at |log B| <= 750, plus slack.
PMF_RELATIVE_ERROR = math.expm1(LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR * 750.0) + 64 * UNIT_ROUNDOFF


@dataclass(frozen=True, slots=True, kw_only=True)
class ClonePair:
    """A mixture-over-C pair (see the module docstring).

    Attributes:
        others: N = n - 1, the number of other users.
        clone_probability: q, the probability that another user is a clone/blanket draw
            landing on {x, x'}.
        w, w_prime, w_star: the differing user's probabilities (w > w').
        epsilon0: log(w / w'), the bound on every outcome's privacy loss.
        source: where the pair comes from.
        description: protocol and parameters.
    """

    others: int
    clone_probability: float
    w: float
    w_prime: float
    w_star: float
    epsilon0: float
    source: Source
    description: Mapping[str, Any] = field(default_factory=dict)


@checked(n=N_PAIR, epsilon0=EPSILON0)
def fmt_clones(*, n: int, epsilon0: float) -> ClonePair:
    """FMT20's clones pair (docs/clones-and-blankets.md#clones-pair): q = e^-eps0, w =
    e^eps0/(e^eps0+1), w* = 0.

    Valid for every epsilon0-LDP randomizer and every neighbouring pair (an UPPER bound).

    Args:
        n: number of users, an integer >= 2 (others = n - 1).
        epsilon0: the local randomizer's pure-DP parameter, > 0.

    Returns:
        The ClonePair with clone_probability e^-eps0, w' = 1/(e^eps0 + 1) (e^-eps0 beyond
        eps0 = 700), w = 1 - w', w* = 0, and its Source.

    Raises:
        ParameterError: n is not an integer >= 2, or epsilon0 is not > 0.
    """
    n, epsilon0 = int(n), float(epsilon0)
    w_prime = 1.0 / (math.exp(epsilon0) + 1.0) if epsilon0 < 700 else math.exp(-epsilon0)
    return ClonePair(others=n - 1, clone_probability=math.exp(-epsilon0), w=1.0 - w_prime,
                     w_prime=w_prime, w_star=0.0, epsilon0=epsilon0,
                     source=Source(citation="Feldman, McMillan, Talwar, FOCS 2021",
                                   locator="clones reduction "
                                           "(docs/clones-and-blankets.md#clones-pair)"),
                     description={"pair": "FMT clones", "n": n, "epsilon0": epsilon0})


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET)
def blanket_k_rr(*, n: int, epsilon0: float, k: int) -> ClonePair:
    """The blanket pair of shuffled k-RR (docs/single-message.md#blanket-pairs-for-k-rr): q =
    2/(e^eps0+k-1), an UPPER bound
    on every neighbouring pair of k-RR; for k = 2 it also bounds binary RR.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: k-RR's pure-DP parameter, > 0.
        k: alphabet size, an integer >= 2.

    Returns:
        The ClonePair with clone_probability 2/(e^eps0 + k - 1), w = e^eps0/(e^eps0 + k - 1),
        w' = 1/(e^eps0 + k - 1), w* = (k - 2)/(e^eps0 + k - 1).

    Raises:
        ParameterError: n is not an integer >= 2, epsilon0 is not > 0, or k is not an
            integer >= 2.
    """
    n, epsilon0, k = int(n), float(epsilon0), int(k)
    e = math.exp(epsilon0)
    denom = e + k - 1
    return ClonePair(others=n - 1, clone_probability=2.0 / denom, w=e / denom,
                     w_prime=1.0 / denom, w_star=(k - 2) / denom, epsilon0=epsilon0,
                     source=Source(citation="Balle, Bell, Gascon, Nissim, CRYPTO 2019 "
                                   "(blanket idea)", locator="exact blanket pair "
                                       "(docs/single-message.md#blanket-pairs-for-k-rr)"),
                     description={"pair": "k-RR blanket", "n": n, "epsilon0": epsilon0,
                                  "k": k})


# ------------------------------------------------------------------ per-c closed forms
def half_logpmf(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """log Bin(c, 1/2)(x), vectorized over c and x (Loader's form as in numeric.special,
    with the same error model: c/2 and x - c/2 are exact in float).

    Args:
        x: points (integer-valued floats or ints).
        c: numbers of trials, broadcast against x.

    Returns:
        The log-PMF values, -inf outside 0..c.
    """
    x, c = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(c, dtype=float))
    out = np.full(x.shape, -np.inf)
    inside = (x >= 0) & (x <= c)
    edge = inside & ((x == 0) | (x == c))
    out[edge] = -c[edge] * math.log(2.0)
    mid = inside & ~edge
    xm, cm = x[mid], c[mid]
    half = cm / 2.0
    d = xm - half
    lc = (stirlerr(cm) - stirlerr(xm) - stirlerr(cm - xm) - bd0(xm, half, d)
          - bd0(cm - xm, half, -d))
    out[mid] = lc - 0.5 * (_LOG_2PI + np.log(xm) + np.log(cm - xm) - np.log(cm))
    return out


def hockey_stick_terms(pair: ClonePair, cs: np.ndarray, gamma: float,
                       terms: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Certified (lower, upper) of H_gamma(P_c||Q_c) for each c in cs (equal to the
    reverse order by the symmetry x -> c+1-x).

    Args:
        pair: the clone/blanket pair.
        cs: clone counts c, integers in 0..pair.others.
        gamma: e^epsilon, >= 1.
        terms: number of terms of the series for S_c(t) before the remainder bound; None
            picks one from the spread of the thresholds (at most 100000). Fewer terms only
            widen the lower end.

    Returns:
        (lower, upper): float arrays of the shape of `cs`, lower >= 0, upper clipped to
        [0, 1]; both 0 where gamma w' >= w plus the rounding allowance 4u (w + gamma w')
        (the pair's H is 0 there).
    """
    lower, upper, _ = _terms(pair, np.asarray(cs, dtype=np.int64), gamma, terms)
    return lower, upper


def _terms(pair: ClonePair, cs: np.ndarray, gamma: float,
           terms: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """hockey_stick_terms plus the nominal slope dH_c/dgamma = -Q_c(X >= t)."""
    w, w1 = pair.w, pair.w_prime
    lower = np.zeros(cs.shape)
    upper = np.zeros(cs.shape)
    # w - gamma w' cancels near gamma = w/w' = e^eps0: the rounding of w, w', gamma and of
    # the subtraction, up to 4u (w + gamma w') absolutely, is added to the bound below (it
    # was not, and upper ends near epsilon = epsilon0 fell up to 6e-9 relative short)
    a_err = 4 * UNIT_ROUNDOFF * (w + gamma * w1)
    if gamma * w1 >= w + a_err:
        return lower, upper, np.zeros(cs.shape)
    cf = cs.astype(float)
    if w > w1:
        # (w - w') may be tiny (eps0 ~ 1e-15): the quotient then overflows to +inf, which
        # is the threshold it stands for (beyond every count)
        with np.errstate(over="ignore"):
            xstar = (gamma * w - w1) * (cf + 1.0) / ((w - w1) * (1.0 + gamma))
    else:
        # w = w' in float (eps0 below ~1e-16): no outcome has P_c > gamma Q_c, the
        # threshold lies beyond every count (it was 0/0 or x/0, then a NaN cast to int)
        xstar = np.full(cf.shape, np.inf)
    # the threshold is clipped to the counts' range before the cast to int, which is
    # undefined for inf and beyond 2^63
    t = np.clip(np.floor(np.minimum(xstar, cf)).astype(np.int64) + 1, 1, cs + 1)
    a_coef = w - gamma * w1
    b_coef = (gamma - 1.0) * (w + w1)
    log_b_prev = half_logpmf(t - 1, cs)
    log_b_t = half_logpmf(t, cs)
    if terms is None:
        # terms decay like exp(-2 z j / sqrt(c)) past a threshold z standard deviations
        # above c/2; 24 / z sqrt(c) terms leave a remainder ~ e^-48 relative, which only
        # loosens the lower end (never the upper one)
        sq = np.sqrt(cf + 1.0)
        z = float(np.min((2 * xstar - cf) / sq))
        terms = int(min(64 + min(3.0, 24.0 / max(z, 1e-3)) * math.sqrt(float(np.max(cs))
                                                                          + 1.0), 100_000))
    # S_c(t) = B(t) sum_{j<K} p_j + remainder, p_j = prod_{i<j} r(t+i), r(x) = (c-x)/(x+1)
    # < 1 for x >= t (t > c/2 when gamma >= 1): one division and one product per term, no
    # log or exp. c - x and x + 1 are integers below 2^53 (exact in float), so each ratio
    # is within u relative and each product adds one more rounding: p_j is within
    # gamma_2j = 2ju / (1 - 2ju) relative, plus at most j 2^-1074 absolute once it
    # underflows (r <= 1 never amplifies that), and since p_0 = 1 the sum is within
    # gamma_2K + K^2 2^-1074 < gamma_2K + u relative (the summation's own error is in
    # `rel` below).
    terms = max(int(terms), 1)
    tf = t.astype(float)
    j = np.arange(terms, dtype=float)
    sums, p_k = np.empty(cs.size), np.empty(cs.size)
    # a few rows at a time, so that the two work arrays stay in cache (same arithmetic)
    rows = max(1, 32768 // terms)
    ratios, den = np.empty((min(rows, cs.size), terms)), np.empty((min(rows, cs.size), terms))
    for lo in range(0, cs.size, rows):
        part = slice(lo, min(lo + rows, cs.size))
        r, d = ratios[:part.stop - lo], den[:part.stop - lo]
        np.subtract.outer(cf[part] - tf[part], j, out=r)  # c - x for x = t + j, j < K
        if float(np.min(r[:, -1])) < 0:
            np.maximum(r, 0.0, out=r)  # past c: B is 0
        np.add.outer(tf[part] + 1.0, j, out=d)
        np.divide(r, d, out=r)  # r(t + j)
        np.cumprod(r, axis=1, out=r)  # column j: p_{j+1}
        sums[part] = np.sum(r[:, :-1], axis=1)
        p_k[part] = r[:, -1]
    rel_sum = 2.0 * (terms + 1) * UNIT_ROUNDOFF / (1.0 - 2.0 * (terms + 1) * UNIT_ROUNDOFF) \
        + UNIT_ROUNDOFF
    b_t = np.exp(log_b_t)
    partial = (1.0 + sums) * b_t
    # remainder sum_{x >= t+K} B(x) <= B(t+K) / (1 - r(t+K)) (the ratios decrease); p_K is
    # rounded up by its error bound, and 1 - r(t+K) down by the rounding of r and of the
    # subtraction (3u, taken as 4u)
    p_last = p_k * (1.0 + rel_sum) + terms * 2.0 ** -1074
    nxt = tf + terms
    ratio = np.maximum(cf - nxt, 0.0) / (nxt + 1.0)
    room = 1.0 - ratio - 4 * UNIT_ROUNDOFF
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        remainder = np.where(room > 0, p_last * b_t / np.where(room > 0, room, 1.0), np.inf)
    remainder = np.where(cf >= nxt, remainder, 0.0)  # past c every term is 0
    remainder = remainder * (1 + PMF_RELATIVE_ERROR + 8 * UNIT_ROUNDOFF)
    first = a_coef * np.exp(log_b_prev)
    rel = PMF_RELATIVE_ERROR + rel_sum + (terms + 4) * 2 * UNIT_ROUNDOFF
    second = b_coef * partial
    # below the normal range relative errors fail: exp(log B) may flush to 0 (B < 2^-1074)
    # and each subnormal operation errs by up to 2^-1075 absolutely; the coefficients carry
    # that into the terms (a flat 1e-300 here put a floor under delta, and epsilon(delta)
    # fell back to eps0 for every delta below ~1e-300)
    underflow = 2.0 ** -1074 * (abs(a_coef) + b_coef * (terms + 2) + 4 * terms + 16)
    err = (rel * (np.abs(first) + second) * 1.01
           + a_err * np.exp(log_b_prev) * (1 + PMF_RELATIVE_ERROR) + underflow)
    upper = first - second + err
    lower = first - second - b_coef * remainder - err
    slope = -(w1 * np.exp(log_b_prev) + (w + w1) * partial)
    return np.maximum(lower, 0.0), np.clip(upper, 0.0, 1.0), slope


def _c_blocks(pair: ClonePair, tail: float, blocks: int,
              log_tail: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                     float]:
    """count_blocks for the pair's C ~ Bin(others, clone_probability)."""
    return count_blocks(pair.others, pair.clone_probability, tail, blocks, log_tail)


def count_blocks(n_other: int, q: float, tail: float, blocks: int,
                 log_tail: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                         float]:
    """Block starts, ends and masses (rounded up) of a count C ~ Bin(n_other, q) over a
    certified window, and log of the mass outside it (below e^log_tail if given, else
    below tail). Shared with `k_rr_blanket`, whose count is the blanket size N.

    Blocks are narrow where C has most mass: in standardized units s the width grows like
    exp(s^2/4), so that mass x width (the block's share of the bracket) is spread evenly;
    `blocks` is about how many blocks the window gets at E[C] = 4e5, more for smaller
    E[C] (bracket ~ 1/sqrt(E[C]) per block) and fewer for larger.

    Args:
        n_other: the number of trials of C, >= 0.
        q: the success probability of C, in (0, 1] (q >= 1: one block at n_other).
        tail: target mass outside the window, in (0, 1) (used when log_tail is None).
        blocks: the block budget described above (at least 8 and at most 50 blocks x budget
            are made).
        log_tail: target log of the outside mass, for targets below the float range.

    Returns:
        (starts, ends, masses, log_cut): int64 arrays of the inclusive block ends, covering
        the window contiguously; each block's Bin(n_other, q) mass rounded up (by the
        log-PMF error model and the block size); log_cut the certified log of the mass
        outside the window (-inf when there is none). Inputs are not validated.
    """

    if q >= 1.0:
        return np.array([n_other]), np.array([n_other]), np.array([1.0]), -math.inf
    lo, hi, log_cut = binomial_log_window(n_other, q, math.log(tail) if log_tail is None
                                  else log_tail)
    mean, sd = n_other * q, math.sqrt(max(n_other * q * (1 - q), 1e-300))
    blocks = max(8, min(50 * blocks, math.ceil(blocks * math.sqrt(4e5 / max(mean, 1.0)))))
    s_lo, s_hi = (lo - mean) / sd, (hi + 1 - mean) / sd
    total = _block_integral(s_lo, s_hi)
    h0 = total / max(blocks, 1)
    # walk out from the mean in both directions; each step uses the width at its inner
    # end, so no block is wider than the rule allows
    cuts = {lo, hi + 1}
    if hi - lo + 1 <= 2 * blocks:  # few values: every c is its own block (exact)
        cuts.update(range(lo, hi + 1))
    for sign in (1.0, -1.0):
        s_cur = 0.0
        while True:
            edge = int(math.floor(mean + s_cur * sd))
            if edge <= lo or edge > hi:
                break
            cuts.add(edge)
            s_cur += sign * h0 * math.exp(min(s_cur * s_cur / 4.0, 50.0))
    edges = sorted(cuts)
    starts = np.array(edges[:-1], dtype=np.int64)
    ends = np.array(edges[1:], dtype=np.int64) - 1
    lp = binomial_logpmf(np.arange(starts[0], ends[-1] + 1), n_other, q)
    mx = float(np.max(lp))
    lin = np.exp(lp - mx)
    masses = np.add.reduceat(lin, starts - starts[0]) * math.exp(mx)
    size = int(np.max(ends - starts + 1))
    masses *= 1 + PMF_RELATIVE_ERROR + size * 2 * UNIT_ROUNDOFF  # rounded up; lower ends scale back
    return starts, ends, masses, log_cut


def count_block_log_masses(n_other: int, q: float, starts: np.ndarray,
                           ends: np.ndarray) -> np.ndarray:
    """log of each block's Bin(n_other, q) mass, rounded up, without leaving log space.

    The linear masses of `count_blocks` underflow to 0 for blocks below ~e^-745, which
    is harmless for delta but not for Renyi moments at high orders, where such a block's
    moment e^((alpha-1) eps0) can outweigh its tiny mass (KRR(n=1e9, eps0=10) at order 1e4:
    the dropped blocks held the whole moment and the upper end was 0.22 where the truth is
    5.46).

    Args:
        n_other: the number of trials of C, >= 0.
        q: the success probability of C, in (0, 1).
        starts, ends: the blocks of `count_blocks` (contiguous, inclusive ends).

    Returns:
        A float array: log of each block's mass, raised by the log-PMF error model and the
        summation's rounding.
    """
    lp = binomial_logpmf(np.arange(starts[0], ends[-1] + 1), n_other, q)
    idx = starts - starts[0]
    top = np.maximum.reduceat(lp, idx)
    owner = np.repeat(np.arange(starts.size), ends - starts + 1)
    sums = np.add.reduceat(np.exp(lp - top[owner]), idx)
    size = int(np.max(ends - starts + 1))
    return top + np.log(sums) + math.log1p(PMF_RELATIVE_ERROR + (size + 4) * 2 * UNIT_ROUNDOFF)


def _block_integral(a: float, b: float) -> float:
    """Integral of exp(-s^2/4) over [a, b] (the number of unit-h0 blocks in [a, b])."""
    return math.sqrt(math.pi) * (math.erf(b / 2.0) - math.erf(a / 2.0))


def _delta_pair(pair: ClonePair, gamma: float, tail: float, blocks: int,
                layout: tuple[Any, ...] | None = None) -> tuple[float, float, float]:
    """(certified lower, certified upper, nominal d upper/d gamma) of H_gamma."""
    layout = layout or _c_blocks(pair, tail, blocks)
    upper, slope = _delta_upper(pair, gamma, layout)
    return _delta_lower(pair, gamma, layout), upper, slope


def _delta_upper(pair: ClonePair, gamma: float,
                 layout: tuple[Any, ...]) -> tuple[float, float]:
    """(certified upper, nominal d upper/d gamma) of H_gamma: each block at its start."""
    starts, _, masses, log_cut = layout
    cut = math.exp(log_cut) if log_cut > -745 else 0.0
    _, h_hi_start, slope_start = _terms(pair, starts, gamma, None)
    upper = math.fsum(masses * h_hi_start) * (1 + 1e-12) + cut * (1 + 1e-12)
    return min(upper, 1.0), math.fsum(masses * slope_start)


def _delta_lower(pair: ClonePair, gamma: float, layout: tuple[Any, ...]) -> float:
    """Certified lower end of H_gamma: each block at its end, its mass scaled back."""
    starts, ends, masses, _ = layout
    h_lo_end, _, _ = _terms(pair, ends, gamma, None)
    shrink = 1 / (1 + PMF_RELATIVE_ERROR + 4 * UNIT_ROUNDOFF * (ends - starts + 1))
    return math.fsum(masses * shrink * h_lo_end) * (1 - 1e-12)


def _crossing_estimate(pair: ClonePair, delta: float,
                       layout: tuple[Any, ...]) -> float | None:
    """A nominal (uncertified) epsilon(delta) of the pair, a starting point for the
    certified search: Newton on log delta(epsilon) with the C-mixture taken at about 16
    points, the mass-weighted centres of runs of consecutive blocks of `layout` (H_c is
    smooth in c). None when the estimate is not positive at epsilon = 0 or the iteration
    does not settle."""
    starts, ends, block_masses, _ = layout
    groups = np.arange(0, starts.size, max(1, starts.size // 16))
    masses = np.add.reduceat(block_masses, groups)
    keep = masses > 0
    centres = np.add.reduceat(block_masses * (starts + ends) / 2.0, groups)[keep] / masses[keep]
    masses, mids = masses[keep], np.rint(centres).astype(np.int64)
    log_delta = math.log(delta)

    def g(e: float) -> tuple[float, float]:
        _, hi, slope = _terms(pair, mids, math.exp(e), None)
        value = float(np.dot(masses, hi))
        if value <= 0:
            return -math.inf, 0.0
        return math.log(value) - log_delta, float(np.dot(masses, slope)) * math.exp(e) / value

    a, b, x = 0.0, pair.epsilon0, 0.0
    gx, dx = g(x)
    if not gx > 0:
        return None
    steps = [math.inf, math.inf]
    for _ in range(60):
        if gx > 0:
            a = x
        else:
            b = x
        x_new = x - gx / dx if dx < 0 and math.isfinite(gx) else math.nan
        if not a < x_new < b or abs(x_new - x) > 0.5 * steps[-2]:
            x_new = 0.5 * (a + b)
        if abs(x_new - x) <= 1e-10 * x_new:
            return x_new
        steps = [steps[-1], abs(x_new - x)]
        x = x_new
        gx, dx = g(x)
    return None


@checked(epsilon=EPSILON)
def delta_for_epsilon(pair: ClonePair, *, epsilon: float, tail: float = 1e-30,
                      blocks: int = 160) -> Bracket:
    """Certified bracket of H_{e^epsilon} of the pair (both orders are equal).

    Args:
        pair: the clone/blanket pair.
        epsilon: epsilon >= 0.
        tail: C-mass left outside the certified window (added to the upper end), in (0, 1)
            (not validated).
        blocks: the block budget of `count_blocks` (more blocks, narrower bracket).

    Returns:
        Bracket(lower, upper) of the pair's exact value. As a bound on a mechanism, the
        upper end is the certified upper bound the pair provides. Both ends have
        quantity "delta", direction MAX, the pair's source, at=epsilon and
        error_budget = upper - lower; the upper end is capped at 1.

    Raises:
        ParameterError: epsilon < 0 (or NaN).
    """
    lo, hi, _ = _delta_pair(pair, math.exp(epsilon), tail, blocks)
    m = f"pairs.clones.delta_for_epsilon({pair.description.get('pair')})"
    mk = lambda v, kind: Result(quantity="delta", value=v, kind=kind,  # noqa: E731
                                direction=Direction.MAX, method=m, source=pair.source,
                                at=float(epsilon), error_budget=max(hi - lo, 0.0))
    return Bracket(lower=mk(lo, Kind.LOWER), upper=mk(hi, Kind.UPPER))


@checked(delta=DELTA)
def epsilon_for_delta(pair: ClonePair, *, delta: float, blocks: int = 160,
                      relative_tolerance: float = 1e-6) -> Bracket:
    """Certified bracket of the pair's epsilon(delta): Bracket(lower, upper).

    The upper end is an epsilon whose certified upper delta is <= delta (so the pair, and
    every mechanism it dominates, is (epsilon, delta)-DP there); the lower end an epsilon
    whose certified lower delta exceeds delta (so the pair's exact epsilon(delta) is
    larger). Found by `bracket_crossing` (safeguarded Newton on log delta(epsilon) over
    [0, epsilon0], where delta(epsilon0) = 0 for these pairs) to `relative_tolerance`,
    started from a nominal estimate on a coarse layout; the search reads only the upper
    curve (block starts), the lower end only the lower curve (block ends).

    Args:
        pair: the clone/blanket pair.
        delta: target delta in (0, 1).
        blocks: the block budget of `count_blocks`.
        relative_tolerance: stop when the search bracket [a, b] has b - a <= this times b.

    Returns:
        Bracket of LOWER and UPPER Results on "epsilon", direction MAX, at=delta,
        error_budget = upper - lower; (0, 0) when the certified delta at epsilon = 0 is
        already <= delta. The window's C-tail is min(delta 1e-9, 1e-30), at least 5e-324.

    Raises:
        ParameterError: delta outside (0, 1).
    """
    tail = max(min(delta * 1e-9, 1e-30), 5e-324)  # subnormal: see _c_blocks
    layout = _c_blocks(pair, tail, blocks)
    cache: dict[float, tuple[float, float, float]] = {}
    lower_cache: dict[float, float] = {}

    def f(e: float) -> tuple[float, float, float]:
        if e not in cache:  # the lower end is `lower`'s (NaN here: never read)
            cache[e] = (math.nan, *_delta_upper(pair, math.exp(e), layout))
        return cache[e]

    def lower(e: float) -> float:
        if e not in lower_cache:
            lower_cache[e] = _delta_lower(pair, math.exp(e), layout)
        return lower_cache[e]

    up, low = bracket_crossing(f, delta, pair.epsilon0, relative_tolerance,
                               start=_crossing_estimate(pair, delta, layout), lower=lower)
    m = f"pairs.clones.epsilon_for_delta({pair.description.get('pair')})"
    mk = lambda v, kind: Result(quantity="epsilon", value=v, kind=kind,  # noqa: E731
                                direction=Direction.MAX, method=m, source=pair.source,
                                at=float(delta), error_budget=max(up - low, 0.0))
    return Bracket(lower=mk(low, Kind.LOWER), upper=mk(up, Kind.UPPER))


def bracket_crossing(f: Any, delta: float, epsilon0: float, rtol: float, *,
                     start: float | None = None, lower: Any = None) -> tuple[float, float]:
    """The certified bracket of epsilon(delta) of a pair with a nonincreasing delta curve.

    Safeguarded Newton on g(e) = log upper(e) - log delta, bracketed by a (g > 0) and b
    (g <= 0): bisection whenever Newton leaves the bracket or its step is not below half
    the step before last. Once the Newton root r is within 2h of one end (h = rtol r / 3),
    the next point is r - h, or r plus twice the Newton step (at most h, at least h/1000),
    on the other side of the root if r is accurate enough, so that one more evaluation
    closes the bracket.

    Args:
        f: e -> (certified lower, certified upper, slope in gamma) of delta(e).
        delta: the target, in (0, 1).
        epsilon0: where delta(epsilon0) = 0 (the right end of the search).
        rtol: the relative width at which the search stops.
        start: a first point to evaluate (e.g. a nominal estimate of the root); it only
            saves evaluations, the result is certified either way.
        lower: e -> certified lower of delta(e), when it is cheaper apart; f's lower item
            is then never read.

    Returns:
        (upper, lower): f(upper)[1] <= delta and f(lower)[0] > delta (lower = 0 if none).
    """
    low_of = lower if lower is not None else (lambda e: f(e)[0])
    log_delta = math.log(delta)

    def g(e: float) -> tuple[float, float]:
        _, up, slope = f(e)
        if up <= 0:
            return -math.inf, 0.0
        return math.log(up) - log_delta, slope * math.exp(e) / up  # d/de log up

    a, b = 0.0, epsilon0
    x = start if start is not None and 0.0 < start < epsilon0 else 0.0
    gx, dx = g(x)
    # the sides are decided on f itself (log may round an upper end an ulp above delta to
    # g = 0): b always has f(b)[1] <= delta. a = 0 is taken as f(0)[1] > delta and only
    # checked when the search needs it: when no point above delta has been seen by the
    # first bisection or by the end.
    a_seen = f(x)[1] > delta
    if a_seen:
        a = x
    elif x == 0:
        return 0.0, 0.0
    else:
        b = x
    steps = [math.inf, math.inf]  # the last two step lengths
    for _ in range(200):
        if b - a <= rtol * b:
            break
        r = x - gx / dx if dx < 0 and math.isfinite(gx) else math.nan
        if not a < r <= b or abs(r - x) > 0.5 * steps[-2]:  # (r = b: g(b) = 0 exactly)
            if not a_seen:
                if f(0.0)[1] <= delta:
                    return 0.0, 0.0
                a_seen = True
            x_new = 0.5 * (a + b)  # Newton leaves the bracket or does not converge
        else:
            # past the root by twice the Newton step (the root's error is of the order of
            # its square), at most h: the upper end b stays close to the root
            h = rtol * r / 3
            x_new = (r + min(h, max(2 * abs(r - x), h / 1000)) if r - a <= 2 * h
                     else (r - h if b - r <= 2 * h else r))
            if not a < x_new < b:
                x_new = r
        steps = [steps[-1], abs(x_new - x)]
        x = x_new
        gx, dx = g(x)
        if f(x)[1] > delta:
            a, a_seen = max(a, x), True
        else:
            b = min(b, x)
    if not a_seen and f(0.0)[1] <= delta:
        return 0.0, 0.0
    # lower end: one Newton step on the lower curve from b, then back off until certified
    lo_b = low_of(b)
    _, db = g(b)
    low = a
    if lo_b > 0 and db < 0:
        low = max(min(b - (math.log(lo_b) - log_delta) / db, b) * (1 - rtol / 4), 0.0)
    step = max(rtol * b, 1e-300)
    while low > 0 and low_of(low) <= delta:
        low = max(low - step, 0.0)
        step *= 2.0
    return b, low


# ------------------------------------------------------------------ Renyi
# how much grouping a Renyi curve's count blocks may widen each order's bracket (relative)
_ONE_BLOCK_RTOL = 1e-4


def _renyi_excess_terms(pair: ClonePair, cs: np.ndarray,
                        alphas: np.ndarray) -> tuple[np.ndarray, ...]:
    """(lower, upper) of E_c(alpha) = sum_x P_c^alpha Q_c^(1-alpha) - 1, shape
    (len(alphas), len(cs)), and (log lower, log upper) of the moment 1 + E_c for orders
    where it is huge (NaN elsewhere, and E_c NaN there); the pair is symmetric, so this
    is both orders.

    With D = Bin(c+1, 1/2) and u = x/(c+1): Q_c = 2 D (w' u + w(1-u)), P_c = 2 D (w u +
    w'(1-u)), and the w* block has P = Q. E_c = sum_x Q_c expm1(alpha l(x)) + (outside),
    l = log1p((w-w')(2u-1)/(w' u + w(1-u))) (docs/soundness.md#precision-and-cancellation: the
    moment is 1 + tiny). The
    x-window's outside Q-mass q_out (Chernoff-certified below e^-(alpha eps0 + 60))
    changes E_c by at most +q_out e^(alpha eps0) or -q_out.
    """

    w, w1 = pair.w, pair.w_prime
    a_col = alphas[:, None]
    log_tail = -(float(np.max(alphas)) * pair.epsilon0 + 60.0)
    lower = np.empty((alphas.size, cs.size))
    upper = np.empty((alphas.size, cs.size))
    log_lo = np.full((alphas.size, cs.size), np.nan)
    log_up = np.full((alphas.size, cs.size), np.nan)
    for j, c in enumerate(np.asarray(cs, dtype=np.int64)):
        m = int(c) + 1
        lo, hi, log_out = binomial_log_window(m, 0.5, log_tail)
        x = np.arange(lo, hi + 1, dtype=float)
        ld = half_logpmf(x, np.full(x.shape, float(m)))
        den = (w1 * x + w * (m - x)) / m
        q = 2.0 * np.exp(ld) * den
        q_rel = np.expm1(LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR * np.abs(ld)) \
            + 8 * UNIT_ROUNDOFF
        # l = log(P/Q) = log1p(y), y = (w-w')(2x-m)/(m den); near y = -1 (x near 0 at large
        # eps0, where w rounds to 1) log1p(y) loses every digit and hit log(0) = -inf, which
        # later turned the upper end into NaN and then into 0: there the ratio of the two
        # positive sums is used instead (each a few ulps of itself)
        y = (w - w1) * (2.0 * x - m) / (m * den)
        far = y < -0.5
        num = (w * x + w1 * (m - x)) / m
        with np.errstate(divide="ignore"):
            loss = np.where(far, np.log(np.where(far, num, 1.0)) - np.log(den),
                            np.log1p(np.where(far, 0.0, y)))
        if not np.all(np.isfinite(loss)):
            raise PrecisionError(f"clone pair {pair.description}: a privacy loss is not "
                                 "finite in float")
        xl = a_col * loss[None, :]
        big = np.max(xl, axis=1) > 300.0  # moment far from 1: log-space rows
        xs = np.minimum(xl, 300.0)
        term = q[None, :] * np.expm1(xs)
        err = np.sum(q_rel[None, :] * np.abs(term) + q[None, :] * np.exp(xs) * np.expm1(
            16 * UNIT_ROUNDOFF * np.abs(xs) + 4 * UNIT_ROUNDOFF) + 4 * UNIT_ROUNDOFF
            * np.abs(term), axis=1) * (1 + 1e-6)
        sums = cascade_sum_rows(term)
        err = err + 4 * UNIT_ROUNDOFF * np.abs(sums) + 2 * x.size * UNIT_ROUNDOFF ** 2 \
            * np.sum(np.abs(term), axis=1) + 1e-300
        q_out = 2.0 * math.exp(log_out) if log_out > -700 else 0.0
        log_res = log_out + math.log(2.0) + alphas * pair.epsilon0
        res_up = np.exp(np.minimum(log_res, 700.0))
        lower[:, j] = np.where(big, np.nan, sums - err - q_out)
        upper[:, j] = np.where(big, np.nan, sums + err + res_up)
        # log-space rows: log M_c = logsumexp(log q + alpha l), relative errors only
        for i in np.flatnonzero(big):
            with np.errstate(divide="ignore"):
                t = np.log(q) + xl[i]
            mx = float(np.max(t))
            log_m = math.log(float(np.sum(np.exp(t - mx)))) + mx
            e_log = float(np.max(np.log1p(q_rel) + 16 * UNIT_ROUNDOFF * np.abs(xl[i]))) \
                + (x.size + 8) * 2 * UNIT_ROUNDOFF
            # the w* block (P = Q there, mass w*) adds w* to the moment: the linear rows
            # count it as 0 excess, but a log moment must include it (without it the blanket
            # pairs' moments came out below 1, and the upper end negative)
            lo_m, up_m = log_m - e_log, log_m + e_log
            if pair.w_star > 0:
                lo_m = float(np.logaddexp(lo_m, math.log(pair.w_star) - 4 * UNIT_ROUNDOFF))
                up_m = float(np.logaddexp(up_m, math.log(pair.w_star) + 4 * UNIT_ROUNDOFF))
            log_lo[i, j] = lo_m
            log_up[i, j] = float(np.logaddexp(up_m, log_res[i]))
    return lower, upper, log_lo, log_up


def _window_excess(pair: ClonePair, points: np.ndarray,
                   alphas: np.ndarray) -> tuple[np.ndarray, ...]:
    """`_renyi_excess_terms` for every block point, read from as few points as keep each
    order's bracket within `_ONE_BLOCK_RTOL` of its value of the full evaluation's.

    E_c is nonincreasing in c, so the upper terms at a count bound those of every larger
    count and the lower terms at a count those of every smaller one: blocks grouped between
    evaluated points take the upper terms of their group's first point and the lower terms
    of its last. At large counts the window is narrow relative to c and E_c hardly moves
    across it (binary RR, n = 1e10, eps0 = 0.05: 13 points, 0.8 s each, whose two ends are
    5e-5 apart beyond their own brackets): the ends are evaluated first, and the window is
    cut into as many groups as that spread over the tolerance asks for.
    """
    size = points.size
    if size <= 2:
        return _renyi_excess_terms(pair, points, alphas)
    ends = _renyi_excess_terms(pair, points[[0, -1]], alphas)
    lo, hi, log_lo, log_up = ends

    def spread(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        # what one group adds beyond each end's own (float) bracket, relative
        own = np.maximum(hi[:, 0] - lo[:, 0], hi[:, 1] - lo[:, 1])
        return np.asarray((hi[:, 0] - lo[:, 1] - own) / np.abs(hi[:, 0]))

    with np.errstate(invalid="ignore", divide="ignore"):
        linear, logs = spread(lo, hi), spread(log_lo, log_up)
    # a row is either linear (finite terms) or log-space (NaN linear terms) at both ends
    both_linear = np.isfinite(hi).all(axis=1) & np.isfinite(lo).all(axis=1)
    both_log = np.isfinite(log_up).all(axis=1) & np.isfinite(log_lo).all(axis=1)
    rel = np.where(both_linear, linear, np.where(both_log, logs, np.inf))
    worst = float(np.max(np.maximum(rel, 0.0)))
    groups = max(math.ceil(worst / _ONE_BLOCK_RTOL), 1) \
        if math.isfinite(worst) and _ONE_BLOCK_RTOL > 0 else size
    if groups + 1 >= size:
        return _renyi_excess_terms(pair, points, alphas)
    chosen = np.unique(np.round(np.linspace(0, size - 1, groups + 1)).astype(int))
    inner = _renyi_excess_terms(pair, points[chosen[1:-1]], alphas) if chosen.size > 2 \
        else tuple(np.empty((alphas.size, 0)) for _ in ends)
    cols = [np.concatenate([e[:, :1], m, e[:, 1:]], axis=1)
            for e, m in zip(ends, inner, strict=True)]
    at = np.arange(size)
    first = np.searchsorted(chosen, at, side="right") - 1   # chosen[first] <= j
    last = np.searchsorted(chosen, at, side="left")          # chosen[last] >= j
    return cols[0][:, last], cols[1][:, first], cols[2][:, last], cols[3][:, first]


@checked(alphas=finite_orders)
def renyi_curve(pair: ClonePair, *, alphas: list[float], blocks: int = 64,
                tail: float = 1e-40) -> list[tuple[Result, Result]]:
    """(lower, upper) Results of the pair's Renyi divergence at many real orders > 1.

    E_c(alpha) is nonincreasing in c (data processing), so C-blocks bound it from both
    sides as for the hockey-stick; C-mass outside the certified window adds at most
    expm1((alpha-1) eps0) (the largest moment any eps0-bounded ratio allows).

    Args:
        pair: the clone/blanket pair.
        alphas: Renyi orders, each a finite real > 1.
        blocks: the block budget of `count_blocks`.
        tail: C-mass left outside the window, in (0, 1) (lowered further to
            e^-(max(alphas) eps0 + 60) when that is smaller).

    Returns:
        One (LOWER, UPPER) pair of Results per order, in the order given: quantity "renyi",
        direction MAX, the order in `order`, error_budget = upper - lower; the upper end is
        capped at epsilon0 (D_alpha <= D_inf).

    Raises:
        ParameterError: an order outside (1, inf] or equal to inf (use `renyi_divergence`).
    """
    al = np.array([float(a) for a in alphas])
    starts, ends, masses, log_cut = _c_blocks(
        pair, tail, blocks, log_tail=min(math.log(tail),
                                         -(float(np.max(al)) * pair.epsilon0 + 60.0)))
    # E_c is nonincreasing in c, so block i's lower end may use the next block's start
    # (<= its own end): one evaluation per block plus the last end
    points = np.append(starts, ends[-1])
    lo_pts, hi_pts, log_lo_pts, log_up_pts = _window_excess(pair, points, al)
    hi_start, lo_end = hi_pts[:, :-1], lo_pts[:, 1:]
    shrink = 1 / (1 + PMF_RELATIVE_ERROR + 4 * UNIT_ROUNDOFF * (ends - starts + 1))
    m = f"pairs.clones.renyi_divergence({pair.description.get('pair')})"
    under = masses == 0  # blocks whose linear mass underflowed: only their logs are kept
    needs_logs = under.any() or bool(np.isnan(hi_start).any() or np.isnan(lo_end).any())
    # a second pass over the window, only when a block underflowed or a moment is huge
    # (without it, +inf log masses: never read, and an upper end built from one would be
    # trivial, never optimistic)
    log_mass = (count_block_log_masses(pair.others, pair.clone_probability, starts, ends)
                if pair.clone_probability < 1 else np.zeros(1)) if needs_logs \
        else np.full(masses.shape, np.inf)
    out = []
    for i, a in enumerate(al):
        a1 = a - 1.0
        if np.isnan(hi_start[i]).any() or np.isnan(lo_end[i]).any():
            # huge moments: combine log M_c over blocks in log space (the C-tail adds at
            # most its mass times e^((alpha-1) eps0))
            # a block with neither a linear nor a log value is unknown: +inf moment above
            # (the upper end becomes the trivial eps0), nothing below; never 0 above
            with np.errstate(invalid="ignore"):
                lu = np.where(np.isnan(log_up_pts[i, :-1]), np.log1p(np.where(
                    np.isnan(hi_start[i]), np.inf, hi_start[i])), log_up_pts[i, :-1])
                ll = np.where(np.isnan(log_lo_pts[i, 1:]), np.log1p(np.maximum(np.where(
                    np.isnan(lo_end[i]), 0.0, lo_end[i]), 0.0)), log_lo_pts[i, 1:])
            with np.errstate(divide="ignore"):
                log_mass_lo = np.log(masses * shrink)  # an underflowed block only lowers it
            top = float(np.logaddexp(logsumexp(log_mass + lu), log_cut + a1
                                     * pair.epsilon0)) + 1e-12
            bottom = logsumexp(log_mass_lo + ll) - 1e-12
            up = min(top / a1 * (1 + 1e-14), pair.epsilon0)
            low = min(max(bottom / a1 * (1 - 1e-14), 0.0), up)
        else:
            up_ex = float(np.sum(masses * hi_start[i])) * (1 + 1e-12) \
                + math.exp(min(log_cut + a1 * pair.epsilon0, 700.0))
            if under.any():  # moments here are below e^300: mass x moment stays in range
                up_ex += float(np.sum(np.exp(log_mass[under] + np.log(np.maximum(
                    hi_start[i][under], 1e-300))))) * (1 + 1e-12)
            lo_ex = float(np.sum(masses * shrink * np.maximum(lo_end[i], 0.0))) \
                * (1 - 1e-12)
            up = math.log1p(up_ex) / a1 * (1 + 1e-14) + 1e-300 if math.isfinite(up_ex) \
                else pair.epsilon0
            up = min(up, pair.epsilon0)  # D_alpha <= D_inf = eps0 for every order
            low = min(max(math.log1p(lo_ex) / a1 * (1 - 1e-14), 0.0), up)
        up, low = float(up), float(low)
        mk = lambda v, kind, a=a, up=up, low=low: Result(  # noqa: E731
            quantity="renyi", value=v, kind=kind, direction=Direction.MAX, method=m,
            source=pair.source, order=float(a), error_budget=max(up - low, 0.0))
        out.append((mk(low, Kind.LOWER), mk(up, Kind.UPPER)))
    return out


@checked(alpha=ALPHA)
def renyi_divergence(pair: ClonePair, *, alpha: float, blocks: int = 64,
                     tail: float = 1e-40) -> Bracket:
    """Certified bracket of the pair's Renyi divergence (both orders equal), alpha > 1
    real; alpha = inf gives the max-divergence epsilon0 = log(w/w') (attained at x = c+1).

    Args:
        pair: the clone/blanket pair.
        alpha: Renyi order in (1, inf].
        blocks: the block budget of `count_blocks`.
        tail: C-mass left outside the window (see `renyi_curve`).

    Returns:
        Bracket(lower, upper) of the pair's value: from `renyi_curve` for finite alpha; for
        alpha = inf one EXACT Result epsilon0 as both ends.

    Raises:
        ParameterError: alpha outside (1, inf].
    """
    if alpha == math.inf:
        m = f"pairs.clones.renyi_divergence({pair.description.get('pair')})"
        r = Result(quantity="renyi", value=pair.epsilon0, kind=Kind.EXACT,
                   direction=Direction.MAX, method=m, source=pair.source, order=math.inf)
        return Bracket(lower=r, upper=r)
    low, up = renyi_curve.unchecked(pair, alphas=[alpha], blocks=blocks, tail=tail)[0]
    return Bracket(lower=low, upper=up)


# ------------------------------------------------------------------ explicit view (tests)
def view_pair(pair: ClonePair, *, backend: str = "mp", dps: int = 50) -> Any:
    """The pair as an explicit `ViewPair` on (c, x) (and the w* block), for small n.

    O(n^2) outcomes: meant for tests against the generic divergence code.

    Args:
        pair: a pair made by `fmt_clones` or `blanket_k_rr` (the FMT or k-RR form is chosen
            by whether `pair.description` has a "k"; the probabilities are recomputed at
            dps + 10 digits from epsilon0 and k).
        backend: "float" gives a float view (log-values with log_error 1e-13); any other
            value, "exact" included, gives an "mp" view (the name is not validated).
        dps: decimal digits of the mp computation.

    Returns:
        A ViewPair with no tails, residual_loss_bound epsilon0 and the pair's description.

    Raises:
        ParameterError: more than 401 users (pair.others > 400).
    """
    import mpmath


    if pair.others > 400:
        raise ParameterError(f"n={pair.others + 1} is outside [2, 401] for an explicit "
                             "clone view (O(n^2) outcomes)")
    with mpmath.workdps(dps + 10):
        e0 = mpmath.mpf(pair.epsilon0)
        k = pair.description.get("k")
        if k is None:  # FMT clones
            q = mpmath.exp(-e0)
            w1 = 1 / (mpmath.exp(e0) + 1)
            w, ws = 1 - w1, mpmath.mpf(0)
        else:
            den = mpmath.exp(e0) + k - 1
            q, w, w1, ws = 2 / den, mpmath.exp(e0) / den, 1 / den, (k - 2) / den
        N = pair.others
        ps, qs = [], []
        for c in range(N + 1):
            pc = mpmath.binomial(N, c) * q ** c * (1 - q) ** (N - c)
            b = [mpmath.binomial(c, x) / mpmath.mpf(2) ** c for x in range(c + 1)] + [0]
            for x in range(c + 2):
                prev = b[x - 1] if x >= 1 else 0
                ps.append(pc * (w * prev + w1 * b[x]))
                qs.append(pc * (w1 * prev + w * b[x]))
            if ws > 0:
                for x in range(c + 1):
                    ps.append(pc * ws * b[x])
                    qs.append(pc * ws * b[x])
        p_arr = np.array([+v for v in ps], dtype=object)
        q_arr = np.array([+v for v in qs], dtype=object)
    if backend == "float":
        p_arr = np.array([float(mpmath.log(v)) if v > 0 else -np.inf for v in p_arr])
        q_arr = np.array([float(mpmath.log(v)) if v > 0 else -np.inf for v in q_arr])
        return ViewPair(backend="float", p=p_arr, q=q_arr, residual_loss_bound=pair.epsilon0,
                        log_error=1e-13, description=dict(pair.description))
    return ViewPair(backend="mp", p=p_arr, q=q_arr, residual_loss_bound=pair.epsilon0,
                    description=dict(pair.description))
