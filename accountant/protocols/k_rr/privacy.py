"""Shuffled k-ary randomized response: the special pair (exact) and the blanket pair (upper).

docs/single-message.md#k-ary-randomized-response, docs/single-message.md#blanket-pairs-for-k-rr.
Each user reports its symbol with probability e^eps0/(e^eps0+k-1) and
each other symbol with probability 1/(e^eps0+k-1).

- Special pair (5.3): every other user holds x; the differing user holds x (Q) or x'
  (P). The view reduces to (a, b) = (h_x, h_x'), Q = Mult(n; (e^eps0, 1, k-2)/(e^eps0+k-1))
  and P = Q * L with L = (a e^-eps0 + b e^eps0 + (n-a-b))/n. Its divergences are EXACT
  for that pair, hence LOWER bounds on the mechanism.
- Blanket pairs: certified UPPER bounds over every neighbouring pair of k-RR. DP values
  (`epsilon_for_delta`, `delta_for_epsilon`) use `k_rr_blanket` (reveals only the blanket
  size N; far tighter for k >= 3, equal to 5.4 at k = 2, where 5.4's code is used); Renyi
  values use the docs/single-message.md#blanket-pairs-for-k-rr pair (`clone_pair.blanket_k_rr`,
  which also reveals whether the
  differing user's report left {x, x'}), as k_rr_blanket has no Renyi evaluation yet.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from accountant.divergence import delta_bracket, epsilon_bracket, renyi_bracket
from accountant.domains import (
    ALPHA,
    ALPHABET,
    DELTA,
    EPSILON,
    EPSILON0,
    N_PAIR,
    checked,
    orders,
)
from accountant.errors import ParameterError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error, two_product
from accountant.numeric.tails import binomial_fast_window, binomial_outside
from accountant.pairs import clones as clone_pair
from accountant.pairs.subsampled_count import subsampled_count_pair
from accountant.protocols.contract import brackets_by_order
from accountant.protocols.k_rr import blanket as k_rr_blanket
from accountant.result import Bracket, Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = [
    "special_pair",
    "special_loss",
    "blanket_pair",
    "epsilon_for_delta",
    "delta_for_epsilon",
    "renyi_divergence",
    "max_divergence",
    "SPECIAL_PAIR_LIMIT",
]

# Largest n for which the special pair's 2-D grid (~ (16 sd)^2 points) is built.
SPECIAL_PAIR_LIMIT = 200_000
# the most cells of the special pair's 2-D grid read for one answer (about 8 s to build;
# beyond, its one-count post-processing `count_pair`)
SPECIAL_CELLS = 8_000_000
_GRID_CELLS = 2_000_000  # (a, b) cells of one vectorised log-PMF evaluation
_SOURCE = Source(citation="shuffled k-RR special pair",
                 locator="docs/single-message.md#k-ary-randomized-response")
_METHOD = "protocols.k_rr"


def as_checked(n: Any, epsilon0: Any, k: Any) -> tuple[int, float, int]:
    """n, epsilon0 and k as plain numbers, their domains checked where they entered."""
    return int(n), float(epsilon0), int(k)


def special_loss(a: np.ndarray, b: np.ndarray, *, n: int, epsilon0: float,
                 k: int) -> tuple[np.ndarray, np.ndarray]:
    """(log L(a, b), absolute error bound), L - 1 = ((a - n pi_a)(e^-eps0 - 1)
    + (b - n pi_b)(e^eps0 - 1))/n (E_Q L = 1), with n pi split exactly; log1p keeps the
    loss accurate to a few ulps of itself; below L = 1/2 the positive sum is used.

    Args:
        a: counts of x among the n reports (integer-valued array).
        b: counts of x' among the n reports, broadcast against `a`.
        n: number of users, >= 2.
        epsilon0: k-RR's pure-DP parameter, > 0.
        k: alphabet size, >= 2.

    Returns:
        (loss, error): float arrays, loss = log P/Q with P the differing user holding x'.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    e = math.exp(epsilon0)
    den = e + k - 1
    ha, la = two_product(np.array(float(n)), e / den)
    hb, lb = two_product(np.array(float(n)), 1.0 / den)
    ca = (a - ha) - la
    cb = (b - hb) - lb
    x = (ca * math.expm1(-epsilon0) + cb * math.expm1(epsilon0)) / n
    direct = (a / e + b * e + (n - a - b)) / n
    small = x > -0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(small, np.log1p(np.where(small, x, 0.0)),
                        np.log(np.where(small, 1.0, direct)))
    # the two centred products may cancel: bound by the magnitudes of the summands
    mag = (np.abs(ca) * -math.expm1(-epsilon0) + np.abs(cb) * math.expm1(epsilon0)) / n
    # plus the rounding of e/den and 1/den themselves (u relative each): it moves n pi_a and
    # n pi_b by at most n u pi, i.e. x by at most u (pi_a + pi_b e^eps0) <= 2u, absolutely.
    # An absolute error dx in x moves log1p(x) by dx/(1+x): for a large ratio (x ~ e^eps0)
    # the bound without that division was e^eps0 u, and the lower end fell to 0 at eps0=40
    with np.errstate(invalid="ignore"):
        err = np.where(small, 16 * UNIT_ROUNDOFF * (np.abs(loss) + 2 * (mag + 1.0)
                                                    / np.where(small, 1.0 + x, 1.0)),
                       16 * UNIT_ROUNDOFF * (1.0 + np.abs(loss)))
    return loss, err


def _windows(n: int, epsilon0: float, k: int,
             tail: float) -> tuple[np.ndarray, float, int, int, int, float]:
    """(log-PMF of a on its window, the mass outside it, its first a, the first and last b,
    P[report is x' | not x]) of the special pair's grid (`special_pair`)."""
    e = math.exp(epsilon0)
    den = e + k - 1
    # a ~ Bin(n, e/den); the log-PMF forms 1 - prob inside, so it is given whichever of
    # e/den and (k-1)/den is below 1/2 (each accurate to an ulp): for large eps0, 1 - e/den
    # has no correct digit (the special pair's P summed to 1.29 at eps0 = 36.3); for large
    # k, 1 - (k-1)/den loses 11 (its lower end of delta rose above the truth)
    if e <= k - 1:
        a_logs, a_tail, a_lo = binomial_fast_window(n, e / den, tail / 2)
    else:
        c_logs, a_tail, c_lo = binomial_fast_window(n, (k - 1) / den, tail / 2)
        a_logs = c_logs[::-1].copy()
        a_lo = n - (c_lo + c_logs.size - 1)
    # given a report is not x, it is x' with probability 1/(k-1) (exact ratio, not pb/(1-pa))
    pb_given = 1.0 / (k - 1) if k > 2 else 1.0
    a_vals = np.arange(a_lo, a_lo + a_logs.size)
    if k == 2:
        b_lo_all, b_hi_all = int(n - a_vals[-1]), int(n - a_vals[0])
    else:
        m_lo, m_hi = int(n - a_vals[-1]), int(n - a_vals[0])
        _, _, lo1 = binomial_fast_window(m_lo, pb_given, tail / 4)
        l2, _, lo2 = binomial_fast_window(m_hi, pb_given, tail / 4)
        b_lo_all, b_hi_all = min(lo1, lo2), lo2 + l2.size - 1
    return a_logs, a_tail, a_lo, b_lo_all, b_hi_all, pb_given


def special_cells(n: int, epsilon0: float, k: int, tail: float = 1e-30) -> int:
    """The (a, b) cells of the special pair's grid, without building it (1.6e7 at n = 1e5,
    epsilon0 = 2, k = 4: 15 s and several GiB to build)."""
    a_logs, _, _, b_lo, b_hi, _ = _windows(n, epsilon0, k, tail)
    return int(a_logs.size) * (b_hi - b_lo + 1)


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET)
def special_pair(*, n: int, epsilon0: float, k: int, tail: float = 1e-30) -> ViewPair:
    """The special pair on (a, b) (float backend), P = differing user holds x', Q = x.

    The grid is a window a in [a_lo, a_hi] (Bin(n, pi_a)) times b in [b_lo, b_hi]; the
    mass outside is certified by Chernoff bounds at the window edges, for each a, and
    summed; every likelihood ratio lies in [e^-eps0, e^eps0] (residual loss bound eps0).

    Args:
        n: number of users, an integer in [2, SPECIAL_PAIR_LIMIT].
        epsilon0: k-RR's pure-DP parameter, > 0.
        k: alphabet size, an integer >= 2.
        tail: target mass left outside the 2-D window, in (0, 1) (not validated).

    Returns:
        A float ViewPair with the closed-form loss `special_loss`, tail_q the certified
        outside mass of Q and tail_p e^eps0 times it, residual_loss_bound epsilon0,
        grid_exact True, coords (a, b).

    Raises:
        ParameterError: n not an integer >= 2 or above SPECIAL_PAIR_LIMIT, epsilon0 not > 0,
            k not an integer >= 2.
    """
    n, epsilon0, k = as_checked(n, epsilon0, k)
    if n > SPECIAL_PAIR_LIMIT:
        raise ParameterError(f"n={n} is outside [2, {SPECIAL_PAIR_LIMIT}] for the k-RR "
                             "special pair (its 2-D grid grows like n); use blanket_pair")
    e = math.exp(epsilon0)
    a_logs, a_tail, a_lo, b_lo_all, b_hi_all, pb_given = _windows(n, epsilon0, k, tail)
    a_vals = np.arange(a_lo, a_lo + a_logs.size)
    b_vals = np.arange(b_lo_all, b_hi_all + 1)
    A, B = np.meshgrid(a_vals, b_vals, indexing="ij")
    m = n - A
    if k == 2:
        lq_b = np.where(B == m, 0.0, -np.inf)
        b_tail = np.zeros(a_vals.size)
    else:
        # log Bin(n - a, 1/(k-1))(b) for every a at once (the same operations elementwise
        # as one call per a), in chunks of rows that keep the temporaries near 16 MB
        ms = n - a_vals
        lq_b = np.empty(A.shape)
        rows = max(1, _GRID_CELLS // b_vals.size)
        for i in range(0, ms.size, rows):
            lq_b[i:i + rows] = binomial_logpmf(b_vals[None, :],
                                               ms[i:i + rows, None].astype(float), pb_given)
        b_tail = np.array([binomial_outside(int(mi), pb_given, int(b_lo_all), int(b_hi_all))
                           for mi in ms])
    lq = a_logs[:, None] + lq_b
    keep = np.isfinite(lq)
    loss, loss_err = special_loss(A[keep], B[keep], n=n, epsilon0=epsilon0, k=k)
    lq_f = lq[keep]
    lerr = log_pmf_error(lq_f) * 2
    resid = a_tail + float(np.sum(np.exp(a_logs) * b_tail)) * (1 + 1e-9)
    # P = Q L <= e^eps0 Q pointwise, so P's outside mass is at most e^eps0 times Q's
    return ViewPair(backend="float", p=lq_f + loss, q=lq_f, tail_p=resid * e * (1 + 1e-12),
                    tail_q=resid * (1 + 1e-12),
                    residual_loss_bound=epsilon0, loss=loss, log_error=lerr + loss_err,
                    loss_error=loss_err, grid_exact=True, coords=(A[keep], B[keep]),
                    description={"protocol": "k-rr", "pair": "special", "n": n,
                                 "epsilon0": epsilon0, "k": k})


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET)
def blanket_pair(*, n: int, epsilon0: float, k: int) -> clone_pair.ClonePair:
    """The blanket pair of docs/single-message.md#blanket-pairs-for-k-rr: a certified upper bound
    over all neighbouring pairs
    (used here for Renyi values; `k_rr_blanket.blanket_count_pair` is tighter for DP).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: k-RR's pure-DP parameter, > 0.
        k: alphabet size, an integer >= 2.

    Returns:
        The ClonePair of `pairs.clones.blanket_k_rr`.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, k = as_checked(n, epsilon0, k)
    return clone_pair.blanket_k_rr.unchecked(n=n, epsilon0=epsilon0, k=k)


def _upper_pair(n: int, epsilon0: float, k: int) -> tuple[Any, Any]:
    """(module, pair) of the DP upper bound: the docs/single-message.md#blanket-pairs-for-k-rr pair
    at k = 2 (it reveals nothing
    more there), the pair revealing only N (`k_rr_blanket`) for k >= 3."""
    if k == 2:
        return clone_pair, blanket_pair.unchecked(n=n, epsilon0=epsilon0, k=k)
    return k_rr_blanket, k_rr_blanket.blanket_count_pair.unchecked(n=n, epsilon0=epsilon0, k=k)


def count_pair(n: int, epsilon0: float, k: int, rate: float, relation: str) -> ViewPair:
    """The count of y* = x under one neighbouring pair of a Poisson-subsampled round: the
    other users hold x' != x, the differing user x (P) or x' / absent (Q); R(x|x) =
    e^eps0/(e^eps0+k-1), R(x|x') = 1/(e^eps0+k-1). At rate 1 with the substitute
    relation, a post-processing of the special pair (relabel x <-> x'), so its values are
    lower bounds on the mechanism too, from a 1-D grid."""
    t = math.exp(-epsilon0)            # e^-eps0: no overflow for large eps0
    den = 1.0 + (k - 1) * t
    high, low = 1.0 / den, t / den
    return subsampled_count_pair.unchecked(
        n=n, high=high, low=low, rate=rate, relation=relation,
        high_complement=(k - 1) * t / den, low_complement=(1.0 + (k - 2) * t) / den,
        description={"protocol": "k-rr", "epsilon0": epsilon0, "k": k})


def _with_special_pair(up: Bracket, what: str, n: int, epsilon0: float, k: int,
                       ends: Callable[[ViewPair], tuple[Result, Result]],
                       tail: float = 1e-30, built: list[ViewPair] | None = None) -> Bracket:
    """The blanket pair's ends `up` (upper, and its own lower end as `pair_lower`) with the
    special pair's (lower, value) beside them, when the special pair is built (n <=
    SPECIAL_PAIR_LIMIT): its value is a lower bound on the mechanism. Where its 2-D grid
    would exceed SPECIAL_CELLS (k >= 3), its one-count post-processing (`count_pair`) is
    read instead, a lower bound too (n = 2e5, k = 4: 3.2e7 cells, 61 s and 4.4 GiB for one
    epsilon). `built`: holds the pair once built, for the next call."""
    lower = special = None
    if n <= SPECIAL_PAIR_LIMIT:
        if built is None or not built:
            view = (count_pair(n, epsilon0, k, 1.0, "substitute")
                    if k >= 3 and special_cells(n, epsilon0, k, tail) > SPECIAL_CELLS
                    else special_pair.unchecked(n=n, epsilon0=epsilon0, k=k, tail=tail))
            if built is not None:
                built.append(view)
        else:
            view = built[0]
        lo, hi = ends(view)
        label = "special pair" if dict(view.description).get("pair") == "special" else \
            "the special pair's count of x, a post-processing of it"
        m = f"{_METHOD}.{what}({label}: lower bound on the mechanism)"
        lower, special = lo.with_(method=m, source=_SOURCE), hi.with_(method=m, source=_SOURCE)
    return Bracket(lower=lower, upper=up.upper, pair_lower=up.lower, pair_name="blanket",
                   special=special)


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET, delta=DELTA)
def epsilon_for_delta(*, n: int, epsilon0: float, k: int, delta: float) -> Bracket:
    """epsilon(delta) of shuffled k-RR over every dataset, maximum over both orders.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: k-RR's pure-DP parameter, > 0 (at most 700 for k >= 3).
        k: alphabet size, an integer >= 2.
        delta: target delta, in (0, 1).

    Returns:
        Bracket: `upper` the blanket pair's certified value (the pair revealing only the
        number of blanket users, `blanket`, for k >= 3; the docs/single-message.md pair at
        k = 2, the same pair there), `pair_lower` that pair's certified lower end,
        `lower` the special pair's lower end (a lower bound on the mechanism) and
        `special` its upper end; the special pair is omitted when n > SPECIAL_PAIR_LIMIT.

    Raises:
        ParameterError: an argument is outside its domain.
        PrecisionError: the N-revealing pair's thresholds cannot be walked in float (k >= 3,
            see `blanket.delta_given_others`).
    """
    n, epsilon0, k = as_checked(n, epsilon0, k)
    module, pair = _upper_pair(n, epsilon0, k)
    up = module.epsilon_for_delta.unchecked(pair, delta=delta)
    return _with_special_pair(up, "epsilon_for_delta", n, epsilon0, k,
                              lambda view: epsilon_bracket.unchecked(view, delta),
                              tail=max(min(1e-30, delta * 1e-12), 5e-324))


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET, epsilon=EPSILON)
def delta_for_epsilon(*, n: int, epsilon0: float, k: int, epsilon: float) -> Bracket:
    """delta(epsilon), the Bracket of `epsilon_for_delta`'s shape.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: k-RR's pure-DP parameter, > 0 (at most 700 for k >= 3).
        k: alphabet size, an integer >= 2.
        epsilon: epsilon >= 0.

    Returns:
        Bracket(lower, upper, pair_lower, pair_name="blanket", special) of Results on
        "delta", as in `epsilon_for_delta`.

    Raises:
        ParameterError: an argument is outside its domain.
        PrecisionError: as in `epsilon_for_delta`.
    """
    n, epsilon0, k = as_checked(n, epsilon0, k)
    module, pair = _upper_pair(n, epsilon0, k)
    up = module.delta_for_epsilon.unchecked(pair, epsilon=epsilon)
    return _with_special_pair(up, "delta_for_epsilon", n, epsilon0, k,
                              lambda view: delta_bracket.unchecked(view, epsilon))


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET, alpha=ALPHA)
def renyi_divergence(*, n: int, epsilon0: float, k: int, alpha: float) -> Bracket:
    """Renyi divergence at order alpha (real > 1, or inf): `upper` from the blanket pair of
    docs/single-message.md (`pair_lower` its lower end), `lower`/`special` from the special
    pair (n <= SPECIAL_PAIR_LIMIT).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: k-RR's pure-DP parameter, > 0.
        k: alphabet size, an integer >= 2.
        alpha: Renyi order in (1, inf]; inf gives `max_divergence` as both ends.

    Returns:
        Bracket(lower, upper, pair_lower, pair_name="blanket", special) of Results on
        "renyi" (lower and special None when n > SPECIAL_PAIR_LIMIT).

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, k = as_checked(n, epsilon0, k)
    if alpha == math.inf:
        r = max_divergence.unchecked(n=n, epsilon0=epsilon0, k=k)
        return Bracket(lower=r, upper=r)
    up = clone_pair.renyi_divergence.unchecked(
        blanket_pair.unchecked(n=n, epsilon0=epsilon0, k=k), alpha=alpha)
    return _with_special_pair(up, "renyi_divergence", n, epsilon0, k,
                              lambda view: renyi_bracket.unchecked(view, alpha))


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET, alphas=orders)
def renyi_divergences(*, n: int, epsilon0: float, k: int, alphas: Sequence[float],
                      special: bool = True) -> list[Bracket]:
    """`renyi_divergence` at each order, the special pair built once for all of them (at
    n = 1e5, k = 4 it has 1.6e7 atoms and takes 14 s: the accountant's 15 orders built it
    15 times, minutes for one mixed ledger).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: k-RR's pure-DP parameter, > 0.
        k: alphabet size, an integer >= 2.
        alphas: Renyi orders, each in (1, inf].
        special: False: no special pair, so no `lower` or `special` (the upper ends alone,
            as beyond SPECIAL_PAIR_LIMIT).

    Returns:
        One Bracket per order, as `renyi_divergence` gives it.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, k = as_checked(n, epsilon0, k)
    view: list[ViewPair] = []

    def ends_at(alpha: float) -> Callable[[ViewPair], tuple[Result, Result]]:
        def ends(built: ViewPair) -> tuple[Result, Result]:
            return renyi_bracket.unchecked(built, alpha)
        return ends

    def exact_max() -> Bracket:
        r = max_divergence.unchecked(n=n, epsilon0=epsilon0, k=k)
        return Bracket(lower=r, upper=r)

    # the blanket pair's curve at every finite order in one pass over its count window (one
    # call per order evaluated the window's binomial terms 15 times: n = 1e10, k = 3, 27 s)
    blanket = brackets_by_order(alphas, lambda finite: clone_pair.renyi_curve.unchecked(
        blanket_pair.unchecked(n=n, epsilon0=epsilon0, k=k), alphas=finite), exact_max)
    out = []
    for alpha, up in zip(alphas, blanket, strict=True):
        if alpha == math.inf:
            out.append(up)
            continue
        if not special:
            out.append(Bracket(upper=up.upper, pair_lower=up.lower, pair_name="blanket"))
            continue
        out.append(_with_special_pair(up, "renyi_divergence", n, epsilon0, k, ends_at(alpha),
                                      built=view))
    return out


@checked(n=N_PAIR, epsilon0=EPSILON0, k=ALPHABET)
def max_divergence(*, n: int, epsilon0: float, k: int) -> Result:
    """Pure-DP epsilon of shuffled k-RR: exactly epsilon0 (any n >= 2, k >= 2).

    Upper: every view is a post-processing of n independent reports, one of which changes,
    and k-RR is epsilon0-LDP. Attained: in the special pair, b = n (every report equals x')
    has L = e^eps0.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: k-RR's pure-DP parameter, > 0.
        k: alphabet size, an integer >= 2.

    Returns:
        Result(quantity="max_divergence", value=epsilon0, kind=EXACT, direction=MAX,
        order=inf).

    Raises:
        ParameterError: an argument is outside its domain.
    """
    return Result(quantity="max_divergence", value=float(epsilon0), kind=Kind.EXACT,
                  direction=Direction.MAX, order=math.inf, source=_SOURCE,
                  method=f"{_METHOD}.max_divergence (LDP bound, attained at b = n)")
