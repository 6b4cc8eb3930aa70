"""Shuffled k-RR: the blanket pair that reveals only the blanket size N (k >= 3 upper bound).

Tighter than the docs/single-message.md#blanket-pairs-for-k-rr pair (`clone_pair.blanket_k_rr`),
which also reveals whether the
differing user's report fell outside {x, x'}: at n = 1e6, eps0 = 1, k = 10, delta = 1e-6 it
gives epsilon 0.00186 instead of 0.00585. For k = 2 the two pairs coincide.

Derivation (blanket decomposition, after Balle-Bell-Gascon-Nissim, CRYPTO 2019). k-RR is
R(y) = (1-g) point(y) + g Unif[k] with g = k/(e^eps0+k-1). Reveal to the adversary the set U
of other users who took the uniform branch; N = |U| ~ Bin(n-1, g) under both hypotheses.
Given U, the other users' reports are known (their data is known in the worst case), so the
rest of the histogram is H = the histogram of N iid Unif[k] draws plus the differing user's
report: x w.p. w = e^eps0/(e^eps0+k-1), x' w.p. w' = 1/(e^eps0+k-1), uniform over the other
k-2 symbols w.p. w'' = (k-2)/(e^eps0+k-1) (x and x' swapped for the neighbour). Given H's
counts (a, b) on (x, x'), the other N+1-a-b symbols are iid uniform over the k-2 others under
BOTH hypotheses, so (N, a, b) is sufficient and, for every dataset,

    delta(eps) <= E_N[H_gamma(P_N || Q_N)],  gamma = e^eps,
    (A, B) ~ Mult(N; 1/k, 1/k, 1-2/k),   P_N = w (A+1, B) + w' (A, B+1) + w'' (A, B),
                                         Q_N = w' (A+1, B) + w (A, B+1) + w'' (A, B).

The pair is symmetric (swap a and b), so both orders of the divergence are equal.

Monotone in N: pair_{N+1} is pair_N plus an independent e_1 (w.p. 1/k), e_2 (w.p. 1/k) or 0,
a post-processing, so H_N is nonincreasing in N. N-blocks then bound E_N[H_N] from both sides
as in `clone_pair` (block mass x value at the block's start = upper, x value at its end =
lower; N-mass outside a Chernoff window is added to the upper end, H_N <= 1).

Per N. With pi = Bin(N, q), q = 2/k, slice the outcome by s = a + b; A | s ~ Bin(s, 1/2). On
outcome (a, b) with r = N+1-a-b, P/Q = (e a + b + r)/(a + e b + r) (e = e^eps0), so on slice s
the optimal test is a >= t_s = floor(x*_s) + 1 with

    x*_s = (gamma s + (gamma-1)(N+1)/(e-1)) / (1 + gamma),

and with m = s-1, S_m(t) = P(Bin(m, 1/2) >= t), B_m = Bin(m, 1/2) pmf, the slice's value is

    H_s = [(w - gamma w') pi(m) - (gamma-1) w'' pi(m+1)/2] B_m(t_s - 1)
          - (gamma-1) [(w + w') pi(m) + w'' pi(m+1)] S_m(t_s)

(from sum_{a>=t} P(s,a) = w pi(m) S_m(t-1) + w' pi(m) S_m(t) + w'' pi(s) S_s(t) and
S_s(t) = S_m(t) + B_m(t-1)/2; S enters with a minus sign only).

Numerics. x*_s rises by gamma/(1+gamma) < 1 per unit s, so t_s steps by 0 or 1 and the path
(m, t_s - 1) is walked by exact ratios: B_{m+1}(tau) = B_m(tau) (m+1)/(2(m+1-tau)),
B_{m+1}(tau+1) = B_m(tau) (m+1)/(2(tau+1)), re-anchored on a certified log-PMF every 32
steps; S along the path by S_{m+1}(t) = S_m(t) + B_m(t-1)/2 and S_{m+1}(t+1) = S_m(t) -
B_m(t)/2, started at the path's first slice by K certified terms plus a remainder in
[0, B_m(t+K)/(1-r)] (as clone_pair). Every rounding is bounded and folded in (a log of a
ratio of exact integers within 8u(1+|log|), running sums by the recursive-summation bound,
log-PMFs by numeric.special's error model): the upper end uses the smallest S consistent
with the bounds, the lower end the largest. On slice s, P - gamma Q = C (e-1)(1+gamma)
(a - x*_s) and P >= C (e-1) a, so a float threshold can only miss a near-tie a (|a - x*_s|
<= 16u (x*_s + 1), float x* and the rounded w's), which changes H_s by at most 34u
(1+gamma) P(s, a) <= 34u (1+gamma) P(slice s): added for every slice with a near-tie.

Renyi divergences of this pair are not implemented (k_rr uses the
docs/single-message.md#blanket-pairs-for-k-rr pair for those).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accountant.domains import ALPHABET, DELTA, EPSILON, EPSILON0, N_PAIR, checked
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.numeric.tails import binomial_log_window
from accountant.pairs import clones as clone_pair
from accountant.result import Bracket, Direction, Kind, Result, Source

__all__ = [
    "BlanketCountPair",
    "blanket_count_pair",
    "delta_given_others",
    "delta_for_epsilon",
    "epsilon_for_delta",
]

_U = UNIT_ROUNDOFF
_ANCHOR = 32  # path steps between certified log-PMF anchors
_CHUNK_CELLS = 2_000_000  # (N, slice) cells evaluated at once
_SOURCE = Source(citation="Balle, Bell, Gascon, Nissim, CRYPTO 2019 (blanket idea)",
                 locator="blanket pair revealing only the blanket size N "
                         "(accountant.protocols.k_rr.blanket docstring)")


@dataclass(frozen=True, slots=True, kw_only=True)
class BlanketCountPair:
    """The pair of the module docstring.

    Attributes:
        n, epsilon0, k: the protocol's parameters.
        blanket_probability: g = k/(e^eps0+k-1), N ~ Bin(n-1, g).
        w, w_prime, w_other: the differing user's probabilities of x, x' and the rest.
        exp_epsilon0: e^eps0 (the likelihood-ratio bound).
    """

    n: int
    epsilon0: float
    k: int
    blanket_probability: float
    w: float
    w_prime: float
    w_other: float
    exp_epsilon0: float
    source: Source = _SOURCE
    description: dict[str, Any] = field(default_factory=dict)


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET)
def blanket_count_pair(*, n: int, epsilon0: float, k: int) -> BlanketCountPair:
    """The N-revealing blanket pair of shuffled k-RR: an UPPER bound over all datasets.

    Args:
        n: number of users, an integer >= 2 (N ~ Bin(n - 1, g)).
        epsilon0: k-RR's pure-DP parameter, in (0, 700].
        k: alphabet size, an integer >= 2.

    Returns:
        The BlanketCountPair with g = k/(e^eps0 + k - 1), w = e^eps0/(e^eps0 + k - 1),
        w' = 1/(e^eps0 + k - 1), w'' = (k - 2)/(e^eps0 + k - 1).

    Raises:
        ParameterError: n not an integer >= 2, epsilon0 not in (0, 700], k not an integer
            >= 2.
    """
    n, epsilon0, k = int(n), float(epsilon0), int(k)
    if epsilon0 > 700:
        raise ParameterError(f"epsilon0={epsilon0!r} is outside (0, 700] for the blanket "
                             "count pair (e^eps0 must be a finite float)")
    e = math.exp(epsilon0)
    den = e + k - 1
    return BlanketCountPair(n=n, epsilon0=epsilon0, k=k, blanket_probability=k / den,
                            w=e / den, w_prime=1.0 / den, w_other=(k - 2) / den,
                            exp_epsilon0=e,
                            description={"pair": "k-RR blanket (N revealed)", "n": n,
                                         "epsilon0": epsilon0, "k": k})


# ------------------------------------------------------------------ many N at once
@dataclass(frozen=True, slots=True)
class _Grid:
    """Slices of several N (one row each): m = lo + column over the certified window of
    pi = Bin(N, 2/k), log pi(m) for m = lo..hi+1 (-inf padded), and an upper bound on the
    P-mass of the slices outside the window."""

    others: np.ndarray
    lo: np.ndarray
    width: np.ndarray
    log_pi: np.ndarray
    dropped: np.ndarray
    slice_mass: np.ndarray  # P-mass (w+w') pi(m) + w'' pi(m+1) of slice s = m+1


def _grid(pair: BlanketCountPair, others: np.ndarray, log_tail: float) -> _Grid:

    q = 2.0 / pair.k
    big = np.asarray(others, dtype=np.int64)
    if q >= 1.0:  # k = 2: s = N + 1 always
        lo = big.copy()
        width = np.ones(big.size, dtype=np.int64)
        log_pi = np.tile(np.array([0.0, -np.inf]), (big.size, 1))
        dropped = np.zeros(big.size)
    else:
        windows = [binomial_log_window(int(b), q, log_tail) for b in big]
        lo = np.array([w[0] for w in windows], dtype=np.int64)
        width = np.array([w[1] for w in windows], dtype=np.int64) + 1 - lo  # hi + 1 - lo
        # log pi(m) for m = lo..hi+1 of every N in one vectorised evaluation (the same
        # operations elementwise as one call per N), -inf beyond each row's hi + 1
        cols = np.arange(int(width.max()) + 1)
        log_pi = np.empty((big.size, cols.size))
        step = max(1, _CHUNK_CELLS // cols.size)  # rows per call: temporaries near 16 MB
        for i in range(0, big.size, step):
            log_pi[i:i + step] = binomial_logpmf(lo[i:i + step, None] + cols[None, :],
                                                 big[i:i + step, None].astype(float), q)
        log_pi[cols[None, :] > width[:, None]] = -np.inf
        # slices s = 1..lo carry (w+w') pi(s-1) + w'' pi(s): the cut mass plus
        # w'' pi(lo) (slice s = 0 has P = Q)
        log_cut = np.array([w[2] for w in windows])
        with np.errstate(under="ignore"):
            cut = np.where(log_cut > -745, np.exp(np.maximum(log_cut, -745.0)), 0.0)
            edge = np.where(lo > 0, pair.w_other * np.exp(log_pi[:, 0] + 1e-12), 0.0)
        dropped = (cut + edge) * (1 + 1e-12)
    pi = np.exp(log_pi)
    return _Grid(others=big, lo=lo, width=width, log_pi=log_pi, dropped=dropped,
                 slice_mass=((pair.w + pair.w_prime) * pi[:, :-1] + pair.w_other * pi[:, 1:])
                 * (1 + clone_pair.PMF_RELATIVE_ERROR))


def _h_many(pair: BlanketCountPair, gamma: float,
            g: _Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(certified lower, certified upper, nominal d/dgamma) of H_gamma(P_N || Q_N) for
    each row of the grid, in chunks of rows that keep the 2-D temporaries near 16 MB."""
    step = max(1, _CHUNK_CELLS // g.log_pi.shape[1])
    parts = [_h_rows(pair, gamma, _Grid(others=g.others[i:i + step], lo=g.lo[i:i + step],
                                        width=g.width[i:i + step],
                                        log_pi=g.log_pi[i:i + step],
                                        dropped=g.dropped[i:i + step],
                                        slice_mass=g.slice_mass[i:i + step]))
             for i in range(0, g.others.size, step)]
    low, up, slope = (np.concatenate([p[j] for p in parts]) for j in range(3))
    return low, up, slope


def _h_rows(pair: BlanketCountPair, gamma: float,
            g: _Grid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_h_many on one chunk. Row i's path starts at its first slice with an outcome in the
    test (x*_s < s; x*_s - s decreases in s) and runs to the window's end."""
    w, w1, w2, e = pair.w, pair.w_prime, pair.w_other, pair.exp_epsilon0
    rows, cols = g.log_pi.shape[0], g.log_pi.shape[1] - 1
    if gamma >= e:
        return np.zeros(rows), np.minimum(g.dropped, 1.0), np.zeros(rows)
    c0 = ((gamma - 1.0) * (g.others + 1.0) / math.expm1(pair.epsilon0))[:, None]
    col = np.arange(cols)[None, :]

    def threshold(m: np.ndarray) -> np.ndarray:  # t_s - 1 at s = m + 1
        return np.floor((gamma * (m + 1.0) + c0) / (1.0 + gamma))

    m_all = (g.lo[:, None] + col).astype(float)
    in_window = col < g.width[:, None]
    valid: np.ndarray = np.asarray((threshold(m_all) <= m_all) & in_window)
    # near-ties: the float threshold may be off by one there (module docstring)
    x_all = (gamma * (m_all + 1.0) + c0) / (1.0 + gamma)
    near = in_window & (np.abs(x_all - np.round(x_all)) <= 16 * _U * (x_all + 1.0))
    tie_mass = np.sum(np.where(near, g.slice_mass, 0.0), axis=1)
    extra = g.dropped + 34 * _U * (1 + gamma) * tie_mass * 1.01 + 1e-300
    has: np.ndarray = np.asarray(valid.any(axis=1))
    j0 = np.where(has, np.argmax(valid, axis=1), 0)
    src = j0[:, None] + col
    live = (src < g.width[:, None]) & has[:, None]
    mp = (g.lo[:, None] + np.minimum(src, g.width[:, None] - 1)).astype(float)
    tp = np.minimum(threshold(mp), mp)  # min: a float near-tie at x* ~ s only
    d = np.diff(tp, axis=1)
    both = live[:, 1:]
    if both.any() and (d[both].min() < 0 or d[both].max() > 1):
        raise PrecisionError(f"k_rr_blanket: thresholds jump by {d[both].max():g} at "
                             f"gamma={gamma!r} (float x* too coarse; eps0 too large)")
    d = np.where(both, d, 0.0)
    log_b, log_b_err = _path_log_pmf(mp, tp, d, live)
    b = np.where(live, np.exp(log_b), 0.0)
    rel_b = np.expm1(log_b_err) + 2 * _U
    # S_m(t_s) along each path, started by certified terms at its first slice
    s0_lo, s0_hi = _tail_start(mp[:, 0], tp[:, 0] + 1.0, log_b[:, 0], log_b_err[:, 0],
                               has)
    inc = np.where(d == 0, 0.5 * b[:, :-1],
                   -b[:, :-1] * (mp[:, :-1] - tp[:, :-1]) / (2.0 * (tp[:, :-1] + 1.0)))
    inc = np.where(both, inc, 0.0)
    zero = np.zeros((rows, 1))
    abs_inc = np.concatenate([zero, np.cumsum(np.abs(inc), axis=1)], axis=1)
    inc_err = np.concatenate([zero, np.cumsum(np.abs(inc) * (rel_b[:, :-1] + 4 * _U),
                                              axis=1)], axis=1)
    s_comp = s0_lo[:, None] + np.concatenate([zero, np.cumsum(inc, axis=1)], axis=1)
    s_err = inc_err + (col + 2.0) * _U * 1.01 * (s0_lo[:, None] + abs_inc)
    s_low = np.maximum(s_comp - s_err, 0.0)
    s_high = s_comp + s_err + (s0_hi - s0_lo)[:, None]
    # per-slice closed form
    idx = np.minimum(src, cols)
    lp_m = np.where(live, np.take_along_axis(g.log_pi, idx, axis=1), -np.inf)
    lp_s = np.where(live, np.take_along_axis(g.log_pi, np.minimum(idx + 1, cols), axis=1),
                    -np.inf)
    pi_m, pi_s = np.exp(lp_m), np.exp(lp_s)
    rel_pi = np.expm1(np.maximum(log_pmf_error(np.maximum(lp_m, -745.0)),
                                 log_pmf_error(np.maximum(lp_s, -745.0)))) + 4 * _U
    coef_a = (w - gamma * w1) * pi_m - (gamma - 1.0) * w2 * pi_s / 2.0
    mag_a = (w + gamma * w1) * pi_m + (gamma - 1.0) * w2 * pi_s / 2.0
    coef_s = (gamma - 1.0) * ((w + w1) * pi_m + w2 * pi_s)
    rel = rel_b + rel_pi + 8 * _U
    first = coef_a * b
    upper = first + mag_a * b * rel - coef_s * (1 - rel_pi - 8 * _U) * s_low
    lower = first - mag_a * b * rel - coef_s * (1 + rel_pi + 8 * _U) * s_high
    slope = -np.sum(w1 * pi_m * (b + s_comp) + w * pi_m * s_comp + w2 * pi_s
                    * (s_comp + b / 2.0), axis=1)
    sum_rel = (math.log2(cols + 1) + 4) * _U
    up = np.sum(np.maximum(upper, 0.0), axis=1) * (1 + sum_rel) + extra
    low = np.sum(np.maximum(lower, 0.0), axis=1) * (1 - sum_rel)
    return low, np.minimum(up, 1.0), slope


def _path_log_pmf(mp: np.ndarray, tp: np.ndarray, d: np.ndarray,
                  live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log B_m(tau) along each row's path and an absolute error bound: exact ratio steps,
    re-anchored on `clone_pair`'s certified Bin(m, 1/2) log-PMF every _ANCHOR columns."""
    rows, size = mp.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(d == 0, (mp[:, :-1] + 1.0) / (2.0 * (mp[:, :-1] + 1.0
                                                              - tp[:, :-1])),
                         (mp[:, :-1] + 1.0) / (2.0 * (tp[:, :-1] + 1.0)))
        steps = np.concatenate([np.zeros((rows, 1)),
                                np.where(live[:, 1:], np.log(ratio), 0.0)], axis=1)
    steps[:, ::_ANCHOR] = 0.0
    blocks = -(-size // _ANCHOR)
    pad = np.zeros((rows, blocks * _ANCHOR - size))
    grid = np.concatenate([steps, pad], axis=1).reshape(rows, blocks, _ANCHOR)
    cum = np.cumsum(grid, axis=2).reshape(rows, -1)[:, :size]
    cum_abs = np.cumsum(np.abs(grid), axis=2).reshape(rows, -1)[:, :size]
    anchors = clone_pair.half_logpmf(tp[:, ::_ANCHOR].ravel(),
                                      mp[:, ::_ANCHOR].ravel()).reshape(rows, -1)
    base = np.repeat(anchors, _ANCHOR, axis=1)[:, :size]
    log_b = base + cum
    pos = (np.arange(size) % _ANCHOR).astype(float)[None, :]
    err = (np.repeat(log_pmf_error(anchors), _ANCHOR, axis=1)[:, :size]
           + 8 * _U * (pos + 1) * (1 + cum_abs) + 4 * _U * np.abs(log_b))
    return log_b, err


def _tail_start(m: np.ndarray, t: np.ndarray, log_b: np.ndarray, log_err: np.ndarray,
                has: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Certified [lower, upper] of S_m(t) = P(Bin(m, 1/2) >= t) per row, t >= (m+1)/2,
    given log B_m(t-1) (= log_b, within log_err): K terms by exact ratios and a remainder
    in [0, B_m(t+K)/(1-r)], r = (m-t-K)/(t+K+1) < 1."""
    on = has & (t <= m)
    mm, tt = np.where(on, m, 1.0), np.where(on, t, 1.0)
    head = np.log((mm - tt + 1.0) / tt)  # B_m(t) / B_m(t-1)
    log_bt = log_b + head
    err0 = log_err + 8 * _U * (1 + np.abs(head) + np.abs(log_bt))
    terms = np.minimum(mm - tt + 1.0, np.ceil(8 * np.sqrt(mm + 1.0)) + 64).astype(np.int64)
    kmax = int(terms.max())
    j = np.arange(kmax)[None, :]
    xs = tt[:, None] + j[:, :-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = np.where(j[:, :-1] < terms[:, None] - 1,
                         np.log((mm[:, None] - xs) / (xs + 1.0)), 0.0)  # <= 0
    cum = np.concatenate([np.zeros((m.size, 1)), np.cumsum(steps, axis=1)], axis=1)
    inside = j < terms[:, None]
    cum_err = np.max(np.where(inside, (j + 1) * 8 * _U * (1 + np.abs(cum)), 0.0), axis=1)
    rel = np.expm1(cum_err + err0) + (terms + 4) * _U
    partial = np.sum(np.where(inside, np.exp(cum + log_bt[:, None]), 0.0), axis=1)
    nxt = tt + terms
    last = np.take_along_axis(cum, (terms - 1)[:, None], axis=1)[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_next = last + np.log(np.maximum(mm - nxt + 1.0, 0.0) / nxt) + log_bt
        rem = np.where(nxt <= mm, np.exp(log_next) / (1.0 - (mm - nxt) / (nxt + 1.0)), 0.0)
    rem = rem * (1 + rel) * (1 + 8 * _U)
    lower = np.where(on, partial * (1 - rel), 0.0)
    upper = np.where(on, partial * (1 + rel) + rem, 0.0)
    return lower, upper


def delta_given_others(pair: BlanketCountPair, *, epsilon: float, others: Any,
                       tail: float = 1e-30) -> tuple[np.ndarray, np.ndarray]:
    """Certified (lower, upper) of H_{e^epsilon}(P_N || Q_N) for each N in `others`.

    Args:
        pair: the blanket count pair.
        epsilon: epsilon >= 0.
        others: blanket sizes N, integers >= 0 (scalar or array).
        tail: slice mass left outside each N's certified window (added to the upper end).

    Returns:
        (lower, upper): float arrays, one entry per N (in the order given).

    Raises:
        ParameterError: epsilon < 0 (or NaN), or a negative N.
        PrecisionError: the float thresholds x*_s are too coarse to walk the slice path
            (thresholds jumping by more than 1; very large epsilon0).
    """
    EPSILON.check(epsilon)
    nn = np.atleast_1d(np.asarray(others, dtype=np.int64))
    if nn.min() < 0:
        raise ParameterError(f"others={int(nn.min())} is outside integers in [0, inf)")
    low, up, _ = _h_many(pair, math.exp(epsilon), _grid(pair, nn, math.log(tail)))
    return low, up


# ------------------------------------------------------------------ mixture over N
def _layout(pair: BlanketCountPair, tail: float, blocks: int) -> tuple[Any, ...]:
    starts, ends, masses, log_cut = clone_pair.count_blocks(
        pair.n - 1, pair.blanket_probability, tail, blocks)
    points = np.append(starts, ends[-1])
    return starts, ends, masses, log_cut, _grid(pair, points, math.log(tail))


def _delta_pair(pair: BlanketCountPair, gamma: float,
                layout: tuple[Any, ...]) -> tuple[float, float, float]:
    """(certified lower, certified upper, nominal slope in gamma) of E_N[H_N]."""
    starts, ends, masses, log_cut, grid = layout
    low, up, slope = _h_many(pair, gamma, grid)
    cut = math.exp(log_cut) if log_cut > -745 else 0.0
    shrink = 1 / (1 + clone_pair.PMF_RELATIVE_ERROR + 4 * _U * (ends - starts + 1))
    # H_N is nonincreasing in N: block i's lower end may use the next block's start
    # (its own start when the block is a single N)
    low_end = np.where(ends == starts, low[:-1], low[1:])
    lower = math.fsum(masses * shrink * low_end) * (1 - 1e-12)
    upper = math.fsum(masses * up[:-1]) * (1 + 1e-12) + cut * (1 + 1e-12)
    return lower, min(upper, 1.0), math.fsum(masses * slope[:-1])


@checked(epsilon=EPSILON)
def delta_for_epsilon(pair: BlanketCountPair, *, epsilon: float, tail: float = 1e-30,
                      blocks: int = 64) -> Bracket:
    """Certified bracket of the pair's H_{e^epsilon} (both orders equal).

    Args:
        pair: the blanket count pair.
        epsilon: epsilon >= 0.
        tail: N-mass (and per-N slice mass) left outside the certified windows, added to the
            upper end.
        blocks: the block budget of `pairs.clones.count_blocks` over N.

    Returns:
        Bracket(lower, upper) of the pair's value; the upper end bounds every
        neighbouring pair of shuffled k-RR. Both ends: quantity "delta", direction MAX,
        at=epsilon, error_budget = upper - lower; the upper end is capped at 1.

    Raises:
        ParameterError: epsilon < 0 (or NaN).
        PrecisionError: as `delta_given_others`.
    """
    lo, hi, _ = _delta_pair(pair, math.exp(epsilon), _layout(pair, tail, blocks))
    m = "protocols.k_rr.blanket.delta_for_epsilon(blanket pair, N revealed)"
    mk = lambda v, kind: Result(quantity="delta", value=v, kind=kind,  # noqa: E731
                                direction=Direction.MAX, method=m, source=pair.source,
                                at=float(epsilon), error_budget=max(hi - lo, 0.0))
    return Bracket(lower=mk(lo, Kind.LOWER), upper=mk(hi, Kind.UPPER))


@checked(delta=DELTA)
def epsilon_for_delta(pair: BlanketCountPair, *, delta: float, blocks: int = 64,
                      relative_tolerance: float = 1e-6) -> Bracket:
    """Certified bracket of the pair's epsilon(delta), Bracket(lower, upper), by the
    safeguarded Newton search of `clones.epsilon_for_delta` (the upper end's certified
    upper delta is <= delta; the lower end's certified lower delta exceeds it).

    Args:
        pair: the blanket count pair.
        delta: target delta, in (0, 1).
        blocks: the block budget of `pairs.clones.count_blocks` over N.
        relative_tolerance: relative width at which the search stops.

    Returns:
        Bracket of LOWER and UPPER Results on "epsilon", direction MAX, at=delta,
        error_budget = upper - lower.

    Raises:
        ParameterError: delta outside (0, 1).
        PrecisionError: as `delta_given_others`.
    """
    tail = max(min(delta * 1e-9, 1e-30), 1e-300)
    layout = _layout(pair, tail, blocks)
    cache: dict[float, tuple[float, float, float]] = {}

    def f(e: float) -> tuple[float, float, float]:
        if e not in cache:
            cache[e] = _delta_pair(pair, math.exp(e), layout)
        return cache[e]

    up, low = clone_pair.bracket_crossing(f, delta, pair.epsilon0, relative_tolerance)
    m = "protocols.k_rr.blanket.epsilon_for_delta(blanket pair, N revealed)"
    mk = lambda v, kind: Result(quantity="epsilon", value=v, kind=kind,  # noqa: E731
                                direction=Direction.MAX, method=m, source=pair.source,
                                at=float(delta), error_budget=max(up - low, 0.0))
    return Bracket(lower=mk(low, Kind.LOWER), upper=mk(up, Kind.UPPER))
