"""Exact 2-D view (V+, V-) of the Ghazi-Kumar-Manurangsi counting protocol (docs/gkm.md#exact-view).

Ghazi, Kumar, Manurangsi, "Pure-DP Aggregation in the Shuffle Model: Error-Optimal and
Communication-Efficient" (Algorithms 1-2, Lemma 8). A dataset with m1 ones and m0 zeros
gives, with r = e^(-epsilon'),

    K1 ~ Bin(m1, 1-q), K0 ~ Bin(m0, 1-q), T = K0 + K1,
    V+ = s T + K1 + N+ + F,   V- = s T + N- + F,   N+-, ~ Geo(1-r), F ~ Poi(lam),

so P(V+=a, V-=b) = sum_j w_j g(a - alpha_j, b - beta_j) over the shifts
(alpha_j, beta_j) = (s t + k1, s t) with weight w_j = Bin(m1,1-q)(k1) Bin(m0,1-q)(t-k1), and

    g(u, v) = (1-r)^2 r^(u+v) e^(lam (r^-2 - 1)) G(min(u, v)),
    G(M) = P[Poi(lam / r^2) <= M] = Q(M + 1, lam / r^2)  (0 for M < 0).

Factoring r^(a+b) out of every term,

    P(a, b) = C r^(a+b) h(a, b),   h(a, b) = sum_j c_j G(min(a - alpha_j, b - beta_j)),
    c_j = w_j r^-(alpha_j + beta_j),  C = (1-r)^2 e^(lam (r^-2 - 1)),

and the privacy loss of two datasets is log h_X - log h_X' in closed form: the common
factor C r^(a+b) cancels exactly, which keeps the loss accurate to ~1e-11 absolute.

G is the Poisson CDF; we evaluate log G by a cumulative log-sum of accurate Poisson
log-PMFs (`special.poisson_logpmf`), whose error is provable (each step adds a few ulps),
rather than by `scipy.special.gammaincc`, whose error is not documented and which
underflows for M << lam / r^2; the tests check the two agree (and mpmath's gammainc).

Infinite support, certified (proof of docs/gkm.md#exact-view's "constant along rays"). Let k* be the
largest k1 of any shift of either dataset and choose B0, then a box [0, A)^2 with
A >= B0 + k*. Any point outside the box lies in one of three regions:

1. min(a, b) >= B0: every argument of G is >= B0 - max alpha_j =: M0, so each G lies in
   [G(M0), 1], h_X / h_X' lies within a factor G(M0) of S_X / S_X' (S = sum_j c_j), and
   the loss lies in [log(S_X/S_X') + log G(M0), log(S_X/S_X') - log G(M0)];
2. b < B0 <= A <= a: then a - b >= A - B0 + 1 > k1_j = alpha_j - beta_j for every shift,
   so min(a - alpha_j, b - beta_j) = b - beta_j and h(a, b) = h(A-1, b): the loss equals
   its value on the box's last column;
3. a < B0 <= A <= b: then b - beta_j > a - alpha_j, min = a - alpha_j, h(a, b) = h(a, A-1):
   the loss equals its value on the box's last row.

So the supremum of the loss outside the box (each order) is the maximum of the region-1
bound and the box's edge values, which is what `outside_loss_sup` records; the mass outside
the box is at most P[V+ >= A] + P[V- >= A] <= 2 P[N + F >= A - (s+1) n], bounded by a
Chernoff bound on the Geo + Poi sum (`sum_tail_bound`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from accountant.errors import ParameterError
from accountant.numeric.logspace import logsumexp
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error, poisson_logpmf
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = [
    "GkmLaw",
    "log_poisson_cdf",
    "sum_tail_bound",
    "view_pair",
    "box_size",
    "MAX_FAR_REGION",
    "MAX_BOX_SIDE",
    "MAX_RAYS_WORK",
    "rays_offsets",
    "pure_epsilon",
    "pure_epsilon_lower",
    "pure_epsilon_rays",
    "pure_epsilon_rays_counts",
    "mixture_law",
    "DEFAULT_TAIL",
    "SOURCE",
]

SOURCE = Source(citation="Ghazi, Kumar, Manurangsi, Pure-DP Aggregation in the Shuffle Model",
                locator="Algorithms 1-2, Lemma 8; exact view of docs/gkm.md#exact-view")

# Per elementary float operation (logaddexp, add), in units of the value's magnitude.
_STEP = 4 * UNIT_ROUNDOFF
# Default certified bound on the view's mass outside the box.
DEFAULT_TAIL = 1e-20


@dataclass(frozen=True, slots=True, kw_only=True)
class GkmLaw:
    """The distribution of (V+, V-) for one dataset, as a mixture of shifted g's.

    Attributes:
        m1, m0: numbers of ones and zeros in the dataset.
        alpha, beta: shift of each mixture component (s t + k1, s t).
        log_c: log c_j = log w_j + (alpha_j + beta_j) epsilon' (see module docstring).
        log_c_error: absolute error bound of every log_c entry.
    """

    m1: int
    m0: int
    alpha: np.ndarray
    beta: np.ndarray
    log_c: np.ndarray
    log_c_error: float

    @property
    def max_k1(self) -> int:
        return int(np.max(self.alpha - self.beta))

    @property
    def log_total(self) -> float:
        """log S = log sum_j c_j (the limit of log h far outside the box)."""
        return logsumexp(self.log_c)


def _binomial_log_weights(m: int, p_active: float) -> np.ndarray:
    """log Bin(m, p_active)(k), k = 0..m; an exact point mass when p_active = 1 (q = 0)."""
    k = np.arange(m + 1)
    if m == 0:  # special.binomial_logpmf needs n >= 1 (log n)
        return np.zeros(1)
    if p_active == 1.0:
        return np.where(k == m, 0.0, -np.inf)
    return binomial_logpmf(k, m, p_active)


def mixture_law(*, m1: int, m0: int, epsilon_prime: float, q: float, s: int) -> GkmLaw:
    """The shifts and log-weights of the view of a dataset with m1 ones and m0 zeros.

    Args:
        m1: number of ones in the dataset, >= 0.
        m0: number of zeros, >= 0.
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in [0, 1) (q = 0: GKMP20).
        s: copies of +1 and -1, >= 0.

    Returns:
        GkmLaw with one component per (k1, t) of positive weight and a bound on the error
        of every log c_j. Inputs are not validated.
    """
    lw1 = _binomial_log_weights(m1, 1.0 - q)
    lw0 = _binomial_log_weights(m0, 1.0 - q)
    # combine (k1, k0) into (k1, t): components with equal t and k1 have equal shifts.
    table = np.add.outer(lw1, lw0)  # [k1, k0]
    k1 = np.repeat(np.arange(m1 + 1), m0 + 1)
    t = k1 + np.tile(np.arange(m0 + 1), m1 + 1)
    lw = table.ravel()
    keep = np.isfinite(lw)
    k1, t, lw = k1[keep], t[keep], lw[keep]
    alpha = s * t + k1
    beta = s * t
    sigma = (alpha + beta).astype(float)
    log_c = lw + sigma * epsilon_prime
    err_w = float(np.max(log_pmf_error(lw))) * 2 + 2 * _STEP * (float(np.max(np.abs(lw))) + 1)
    err_c = err_w + _STEP * float(np.max(np.abs(log_c)) + np.max(sigma * epsilon_prime))
    return GkmLaw(m1=m1, m0=m0, alpha=alpha.astype(np.int64), beta=beta.astype(np.int64),
                  log_c=log_c, log_c_error=err_c)


def log_poisson_cdf(mu: float, m_max: int) -> tuple[np.ndarray, np.ndarray]:
    """log P[Poi(mu) <= M] for M = 0..m_max, with an absolute error bound per entry.

    Equals log Q(M + 1, mu) (regularized upper incomplete gamma). Two regimes:

    - M <= mu: log G(M) = log Poi(mu)(M) + log R(M) with R(M) = sum_{j<=M} Poi(j)/Poi(M),
      by the recurrence R(M) = 1 + R(M-1) M / mu (all terms positive; 3 roundings per
      step, and an earlier relative error is damped by R(M-1) M/mu / R(M) = 1 - 1/R(M)).
      This avoids the cumulative log-sum, whose per-step error u |log G| would add up to
      ~mu^2 u when G is astronomically small (mu ~ 1e6: ~1e-3 in total);
    - M > mu: cumulative log-sum of accurate log-PMFs from log G(floor(mu)); there
      |log G| < 1, so each step adds at most 4u (|value| + 2), and an earlier error
      carries over with factor <= 1 (d logaddexp / d x <= 1).

    The log-PMFs' own error model (`special.log_pmf_error`) is added, and |M - mu| u for
    the rounding of mu itself (mu = lam e^(2 eps') is computed).

    Args:
        mu: the Poisson mean, > 0.
        m_max: the last M, >= 0.

    Returns:
        (log_cdf, error): float arrays of length m_max + 1, log_cdf capped at 0.
    """
    k = np.arange(m_max + 1)
    lp = poisson_logpmf(k, mu)
    pmf_err = log_pmf_error(lp)
    split = min(m_max, int(math.floor(mu)))
    ratio = np.empty(split + 1)
    rel = np.empty(split + 1)
    r_prev, e_prev = 1.0, 0.0
    ratio[0], rel[0] = 1.0, 0.0
    three_u = 3 * UNIT_ROUNDOFF
    for m in range(1, split + 1):  # sequential recurrence; ~1 s for mu = 5e6
        r_now = 1.0 + r_prev * m / mu
        e_prev = e_prev * (1.0 - 1.0 / r_now) + three_u
        ratio[m], rel[m] = r_now, e_prev
        r_prev = r_now
    cdf = np.empty(m_max + 1)
    err = np.empty(m_max + 1)
    cdf[:split + 1] = lp[:split + 1] + np.log(ratio)
    err[:split + 1] = (pmf_err[:split + 1] + 1.01 * rel + _STEP * np.abs(cdf[:split + 1]))
    if split < m_max:
        tail = np.logaddexp.accumulate(np.concatenate([[cdf[split]], lp[split + 1:]]))
        cdf[split:] = tail
        err[split:] = (max(float(err[split]), float(np.max(pmf_err[split:])))
                       + np.cumsum(_STEP * (np.abs(tail) + 2.0)))
    cdf = np.minimum(cdf, 0.0)  # a probability; rounding may overshoot 0 by an ulp
    err = err + _STEP * (np.abs(k - mu) + 1.0)
    return cdf, err


def _log_sum_geo_poisson_mgf(theta: float, r: float, lam: float) -> float:
    """log E exp(theta (N + F)), N ~ Geo(1-r), F ~ Poi(lam), for 0 <= theta < -log r."""
    return math.log1p(-r) - math.log1p(-r * math.exp(theta)) + lam * math.expm1(theta)


def sum_tail_bound(c: float, *, r: float, lam: float) -> float:
    """Chernoff upper bound on P[N + F >= c], N ~ Geo(1-r), F ~ Poi(lam) independent.

    P[X >= c] <= exp(-theta c) E e^(theta X) for every admissible theta, so any theta
    (here the best of a fine grid) gives a valid bound; the result is rounded up.

    Args:
        c: the threshold; c <= 0 gives 1.
        r: e^-epsilon', in (0, 1).
        lam: the Poisson mean, >= 0.

    Returns:
        The bound as a float in (0, 1].
    """
    if c <= 0:
        return 1.0
    top = -math.log(r)
    best = 0.0  # theta = 0 gives the trivial bound 1
    for frac in np.linspace(0.0005, 0.9995, 2000):
        theta = float(frac) * top
        best = min(best, _log_sum_geo_poisson_mgf(theta, r, lam) - theta * c)
    return min(1.0, math.exp(best + 1e-12 * (abs(best) + 1)))


# the largest far-region threshold B0 computed: the ray scan holds arrays of B0 floats
MAX_FAR_REGION = 5e7
# the largest side of the 2-D box `view_pair` materialises (a few float arrays of side^2)
MAX_BOX_SIDE = 6000
# the most array elements the ray scans of one call may touch: ~4e-8 s each on a 2-core
# machine (np.logaddexp on slices), so about 20 s
MAX_RAYS_WORK = 5e8


def box_size(*, n: int, epsilon_prime: float, s: int, lam: float,
             tail: float = DEFAULT_TAIL) -> tuple[int, int]:
    """(B0, A): the far-region threshold B0 and the box side A (see module docstring).

    B0 puts the Poisson CDF argument 15 standard deviations (+ 30) above lam / r^2, so
    that -log G(B0 - (s+1) n) is negligible; A >= B0 + n + 1 makes the edge argument hold
    and keeps 2 P[N + F >= A - (s+1) n] <= tail.

    Args:
        n: number of users.
        epsilon_prime: the noise parameter, > 0.
        s: copies of +1 and -1, >= 0.
        lam: the flood parameter, > 0.
        tail: the allowed mass outside the box.

    Returns:
        (B0, A) as ints; A grows from B0 + n + 1 in steps of max(8, A // 8) until the tail
        bound holds.

    Raises:
        ParameterError: B0 would exceed MAX_FAR_REGION (every use scans or boxes 0..B0).
    """
    r = math.exp(-epsilon_prime)
    mu = lam / (r * r)
    shift = (s + 1) * n
    far = shift + mu + 15 * math.sqrt(mu) + 30  # a float: inf when lam / r^2 overflows
    if not far <= MAX_FAR_REGION:
        raise ParameterError(f"the GKM views need a far region B0 = (s+1) n + lam "
                             f"e^(2 epsilon') + 15 sd + 30 = {far:.4g} > {MAX_FAR_REGION:.0e} "
                             f"points (n={n}, s={s}, lam={lam!r}, epsilon_prime="
                             f"{epsilon_prime!r}); use smaller lam, s or n")
    b0 = shift + math.ceil(mu + 15 * math.sqrt(mu) + 30)
    a = b0 + n + 1
    while 2 * sum_tail_bound(a - shift, r=r, lam=lam) > tail:
        a += max(8, a // 8)
    return b0, a


def _log_h(law: GkmLaw, log_g_min: np.ndarray, size: int) -> np.ndarray:
    """log h(a, b) on [0, size)^2 (-inf outside the support)."""
    out = np.full((size, size), -np.inf)
    for a0, b0, lc in zip(law.alpha, law.beta, law.log_c, strict=True):
        if a0 >= size or b0 >= size:
            continue
        block = out[a0:, b0:]
        np.logaddexp(block, lc + log_g_min[:size - a0, :size - b0], out=block)
    return out


def view_pair(*, n: int, ones: int, epsilon_prime: float, q: float, s: int, lam: float,
              tail: float = DEFAULT_TAIL, box: int | None = None,
              description: dict[str, Any] | None = None) -> ViewPair:
    """The pair P = view of X (x1 = 1), Q = view of X' (x1 = 0), float log-space.

    `ones` is the number of ones among the other n - 1 users (the same in X and X').
    The grid is the box [0, A)^2 of `box_size` (or `box`, which must be >= B0 + n + 1);
    tail_p, tail_q bound the mass outside; residual_loss_bound is the supremum of |loss|
    outside the box (module docstring); description["outside_loss_sup"] keeps the two
    one-sided suprema, which `pure_epsilon` uses. Parameters are not re-validated here
    (callers in `gkm`/`gkmp20` do it); q = 0 and s = 0 are allowed (the GKMP20 protocol).

    Args:
        n: number of users, >= 1.
        ones: ones among the other n - 1 users, in 0..n-1.
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in [0, 1).
        s: copies of +1 and -1, >= 0.
        lam: the flood parameter, > 0.
        tail: the certified mass allowed outside the box.
        box: the box side; None for the A of `box_size`.
        description: extra entries merged into the pair's description.

    Returns:
        A float ViewPair with the closed-form loss, grid_exact True, coords (V+, V-), points
        where both laws vanish dropped.

    Raises:
        ParameterError: ones outside 0..n-1, box < B0 + n + 1, or a box side above
            MAX_BOX_SIDE.
    """
    if not 0 <= ones <= n - 1:
        raise ParameterError(f"ones={ones} is outside [0, n-1] = [0, {n - 1}]")
    r = math.exp(-epsilon_prime)
    mu = lam * math.exp(2 * epsilon_prime)
    b0, a_min = box_size(n=n, epsilon_prime=epsilon_prime, s=s, lam=lam, tail=tail)
    if box is not None and box < b0 + n + 1:
        raise ParameterError(f"box={box} is too small: the certified treatment of the "
                             f"outside needs box >= B0 + n + 1 = {b0 + n + 1}")
    size = a_min if box is None else int(box)
    if size > MAX_BOX_SIDE:
        raise ParameterError(f"the exact 2-D view needs a box of side {size} > "
                             f"{MAX_BOX_SIDE} (lam={lam:.6g}, s={s}, n={n}); use smaller "
                             "lam, s or n")
    law_p = mixture_law(m1=ones + 1, m0=n - 1 - ones, epsilon_prime=epsilon_prime, q=q, s=s)
    law_q = mixture_law(m1=ones, m0=n - ones, epsilon_prime=epsilon_prime, q=q, s=s)
    log_g, g_err = log_poisson_cdf(mu, size)
    idx = np.minimum.outer(np.arange(size), np.arange(size))
    log_g_min = log_g[idx]
    lh_p = _log_h(law_p, log_g_min, size)
    lh_q = _log_h(law_q, log_g_min, size)
    del log_g_min, idx
    j_steps = max(law_p.alpha.size, law_q.alpha.size) + 1
    mag = max(float(np.max(np.abs(lh_p[np.isfinite(lh_p)]))),
              float(np.max(np.abs(lh_q[np.isfinite(lh_q)]))))
    err_h = (max(law_p.log_c_error, law_q.log_c_error) + float(np.max(g_err))
             + j_steps * _STEP * (mag + 2))
    # log C r^(a+b): common to P and Q, cancels in the loss.
    log_const = 2 * math.log1p(-r) + lam * math.expm1(2 * epsilon_prime)
    ab = np.add.outer(np.arange(size), np.arange(size)).astype(float)
    log_scale = log_const - epsilon_prime * ab
    log_p = lh_p + log_scale
    log_q = lh_q + log_scale
    log_error = err_h + _STEP * (abs(log_const) + epsilon_prime * 2 * size + mag + 2)
    with np.errstate(invalid="ignore"):
        loss = lh_p - lh_q
    loss = np.where(np.isneginf(lh_q) & np.isfinite(lh_p), np.inf, loss)
    loss = np.where(np.isneginf(lh_p) & np.isfinite(lh_q), -np.inf, loss)
    loss_error = 2 * err_h + _STEP * (2 * mag + 2)

    # outside the box (module docstring, regions 1-3)
    m0_arg = b0 - int(max(np.max(law_p.alpha), np.max(law_q.alpha)))
    log_g_low = float(log_g[m0_arg] - g_err[m0_arg]) if m0_arg >= 0 else -math.inf
    far = law_p.log_total - law_q.log_total
    # log S of each law: its log c_j errors plus the rounding of a logsumexp of J terms
    far_err = (law_p.log_c_error + law_q.log_c_error + 1e-12 * abs(far)
               + (law_p.alpha.size + law_q.alpha.size + 4) * _STEP
               * (abs(law_p.log_total) + abs(law_q.log_total) + 2))
    far_pq = far - log_g_low + far_err
    far_qp = -far - log_g_low + far_err
    edges = np.concatenate([loss[size - 1, :b0], loss[:b0, size - 1]])
    edges = edges[~np.isnan(edges)]
    sup_pq = max(far_pq, float(np.max(edges)) + loss_error)
    sup_qp = max(far_qp, float(np.max(-edges)) + loss_error)

    tail_bound = 2 * sum_tail_bound(size - (s + 1) * n, r=r, lam=lam)
    both_empty = np.isneginf(log_p) & np.isneginf(log_q)
    keep = ~both_empty.ravel()
    coords = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    desc = {"protocol": "GKM counting view (V+, V-)", "n": n, "ones_among_others": ones,
            "epsilon_prime": epsilon_prime, "q": q, "s": s, "lam": lam, "box": size,
            "far_threshold": b0, "outside_loss_sup": {"P||Q": sup_pq, "Q||P": sup_qp},
            "P": "x1 = 1", "Q": "x1 = 0"} | dict(description or {})
    return ViewPair(backend="float", p=log_p.ravel()[keep], q=log_q.ravel()[keep],
                    tail_p=tail_bound, tail_q=tail_bound,
                    residual_loss_bound=max(sup_pq, sup_qp), loss=loss.ravel()[keep],
                    log_error=log_error, loss_error=loss_error, grid_exact=True,
                    coords=tuple(c.ravel()[keep] for c in coords), description=desc)


def pure_epsilon(view: ViewPair, *, direction: Direction | str = Direction.MAX) -> Result:
    """Certified upper bound on the max-divergence of a GKM view, per order or both.

    Grid: max of loss + its error bound; outside the box: the one-sided supremum recorded
    by `view_pair` (module docstring). +inf (EXACT) when some grid point has Q = 0 < P.

    Args:
        view: a pair made by `view_pair` (its description must hold "outside_loss_sup").
        direction: "P||Q", "Q||P" or "max".

    Returns:
        Result(quantity="max_divergence", order=inf): UPPER, or EXACT +inf on a support
        mismatch; for "max", EXACT only if both orders are or the larger is an exact +inf.

    Raises:
        ValueError: an unknown direction (Direction(...) is called directly).
        KeyError: the view has no "outside_loss_sup" (not made by `view_pair`).
    """
    direction = Direction(direction)
    sup_out = view.description["outside_loss_sup"]

    def one(loss: np.ndarray, outside: float, d: Direction) -> Result:
        method = "protocols.gkm.view.pure_epsilon (float64 log-space, box + certified outside)"
        if np.any(np.isposinf(loss)):
            return Result(quantity="max_divergence", value=math.inf, kind=Kind.EXACT,
                          direction=d, method=method + " [support mismatch]", source=SOURCE,
                          order=math.inf)
        finite = loss[np.isfinite(loss)]
        nominal = float(np.max(finite)) if finite.size else 0.0
        upper = max(nominal + float(view.loss_error), outside, 0.0)
        return Result(quantity="max_divergence", value=upper, kind=Kind.UPPER, direction=d,
                      method=method, source=SOURCE, order=math.inf,
                      error_budget=max(upper - max(nominal, 0.0), 0.0))

    pq = one(view.float_loss, sup_out["P||Q"], Direction.P_Q)
    qp = one(-view.float_loss, sup_out["Q||P"], Direction.Q_P)
    if direction is Direction.P_Q:
        return pq
    if direction is Direction.Q_P:
        return qp
    top = pq if pq.value >= qp.value else qp
    # an exact +inf in either order makes the maximum exactly +inf
    exact = pq.kind is qp.kind is Kind.EXACT or (top.kind is Kind.EXACT and top.value == math.inf)
    kind = Kind.EXACT if exact else Kind.UPPER
    return top.with_(direction=Direction.MAX, kind=kind,
                     error_budget=0.0 if kind is Kind.EXACT else top.error_budget,
                     method=f"{top.method} [max over P||Q={float(pq):.6g}, "
                            f"Q||P={float(qp):.6g}]")


def pure_epsilon_lower(view: ViewPair) -> Result:
    """Certified lower bound on the max-divergence (both orders): the largest grid loss
    minus its error bound (the grid values are exact probabilities up to float error).

    Args:
        view: a float GKM view (any float ViewPair with a loss).

    Returns:
        Result(quantity="max_divergence", kind=LOWER, direction=MAX, order=inf), at least 0;
        EXACT +inf when some grid loss is infinite in either order.
    """
    loss = view.float_loss
    if np.any(np.isinf(loss)):
        return Result(quantity="max_divergence", value=math.inf, kind=Kind.EXACT,
                      direction=Direction.MAX, order=math.inf, source=SOURCE,
                      method="protocols.gkm.view.pure_epsilon_lower [support mismatch]")
    value = max(float(np.max(np.abs(loss))) - float(view.loss_error), 0.0)
    return Result(quantity="max_divergence", value=value, kind=Kind.LOWER,
                  direction=Direction.MAX, order=math.inf, source=SOURCE,
                  error_budget=float(view.loss_error),
                  method="protocols.gkm.view.pure_epsilon_lower (largest grid loss)")


def rays_offsets(*, n: int, ones: int, q: float) -> int:
    """At most how many (law, diagonal, offset) triples `pure_epsilon_rays` visits for one
    count of ones; each costs one pass over B0 array elements.

    A law with m1 ones and m0 zeros has on diagonal d at most the distinct pairs
    (t, max(k1 - d, 0)) of its components: min(d, m1) + m0 + 1 + max(m1 - d, 0) (m0 + 1)
    (one when q = 0: a single component), summed here in closed form over d = 0..k*,
    k* = ones + 1 >= m1.

    Args:
        n: number of users.
        ones: ones among the other n - 1 users.
        q: the drop probability (one component per law when 0).

    Returns:
        The count (it includes offsets whose weight underflows).
    """
    k = ones + 1
    total = 0
    for m1, m0 in ((ones + 1, n - 1 - ones), (ones, n - ones)):
        if q == 0.0:
            total += k + 1
            continue
        tri = m1 * (m1 + 1) // 2
        total += tri + (k - m1) * m1 + (k + 1) * (m0 + 1) + (m0 + 1) * tri
    return total


def pure_epsilon_rays(*, n: int, ones: int, epsilon_prime: float, q: float, s: int,
                      lam: float) -> tuple[Result, Result]:
    """(P||Q, Q||P) certified max-divergence over the whole quadrant in O(k* B0 J) work.

    The loss depends on (a, b) only through the smaller coordinate m = min(a, b) and the
    clipped difference d = min(max(a - b, 0), k*) (module docstring, regions 2-3): with
    a = m + d, min(a - alpha_j, b - beta_j) = m - beta_j - max(k1_j - d, 0), and for
    a <= b it is m - alpha_j (the d = 0 formula). So the supremum over Z_{>=0}^2 is the
    maximum over d = 0..k* and m = 0..B0-1 of these 1-D losses, and, for m >= B0, the
    region-1 bound. No box and no 2-D array: this scales to much larger lam than
    `view_pair` (used by `gkm.max_divergence`; tests compare the two).

    Args:
        n: number of users, >= 1.
        ones: ones among the other n - 1 users, in 0..n-1 (not validated here).
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in [0, 1).
        s: copies of +1 and -1, >= 0.
        lam: the flood parameter, > 0.

    Returns:
        (P||Q, Q||P) Results on "max_divergence" (order inf): UPPER, at least 0, or EXACT
        +inf where the support differs.
    """
    return pure_epsilon_rays_counts(n=n, counts=[ones], epsilon_prime=epsilon_prime, q=q,
                                    s=s, lam=lam)[0]


def pure_epsilon_rays_counts(*, n: int, counts: Sequence[int], epsilon_prime: float,
                             q: float, s: int, lam: float) -> list[tuple[Result, Result]]:
    """`pure_epsilon_rays` for several counts of ones, sharing the Poisson CDF table
    (B0 entries, the same for every count).

    Args:
        n: number of users, >= 1.
        counts: the counts of ones among the other n - 1 users (not validated here).
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in [0, 1).
        s: copies of +1 and -1, >= 0.
        lam: the flood parameter, > 0.

    Returns:
        One (P||Q, Q||P) pair per count, in order.
    """
    b0, _ = box_size(n=n, epsilon_prime=epsilon_prime, s=s, lam=lam, tail=1.0)
    mu = lam * math.exp(2 * epsilon_prime)
    log_g, g_err = log_poisson_cdf(mu, b0)
    return [_rays(n=n, ones=k, epsilon_prime=epsilon_prime, q=q, s=s, b0=b0, log_g=log_g,
                  g_err=g_err) for k in counts]


def _rays(*, n: int, ones: int, epsilon_prime: float, q: float, s: int, b0: int,
          log_g: np.ndarray, g_err: np.ndarray) -> tuple[Result, Result]:
    """`pure_epsilon_rays` for one count, given B0 and the CDF table with its errors."""
    law_p = mixture_law(m1=ones + 1, m0=n - 1 - ones, epsilon_prime=epsilon_prime, q=q, s=s)
    law_q = mixture_law(m1=ones, m0=n - ones, epsilon_prime=epsilon_prime, q=q, s=s)
    k_star = max(law_p.max_k1, law_q.max_k1)
    sup_pq, sup_qp = -math.inf, -math.inf
    nom_pq, nom_qp = -math.inf, -math.inf
    err = 0.0
    for d in range(k_star + 1):
        logs = []
        for law in (law_p, law_q):
            acc = np.full(b0, -np.inf)
            offsets = law.beta + np.maximum(law.alpha - law.beta - d, 0)
            # components with equal offsets on this diagonal share G: add their c_j first
            # (a scalar log-sum per offset; the error model counts all J terms anyway)
            for off in np.unique(offsets):
                if off >= b0:
                    continue
                lc = logsumexp(law.log_c[offsets == off])
                np.logaddexp(acc[off:], lc + log_g[:b0 - off], out=acc[off:])
            logs.append(acc)
        lp, lq = logs
        mag = max(float(np.max(np.abs(x[np.isfinite(x)]))) for x in logs)
        j = max(law_p.alpha.size, law_q.alpha.size) + 1
        err_h = (max(law_p.log_c_error, law_q.log_c_error) + float(np.max(g_err))
                 + j * _STEP * (mag + 2))
        err = max(err, 2 * err_h + _STEP * (2 * mag + 2))
        with np.errstate(invalid="ignore"):
            loss = lp - lq
        p_only = np.isfinite(lp) & np.isneginf(lq)
        q_only = np.isneginf(lp) & np.isfinite(lq)
        if np.any(p_only):
            nom_pq = math.inf
        if np.any(q_only):
            nom_qp = math.inf
        both = np.isfinite(lp) & np.isfinite(lq)
        if np.any(both):
            nom_pq = max(nom_pq, float(np.max(loss[both])))
            nom_qp = max(nom_qp, float(np.max(-loss[both])))
    m0_arg = b0 - int(max(np.max(law_p.alpha), np.max(law_q.alpha)))
    log_g_low = float(log_g[m0_arg] - g_err[m0_arg]) if m0_arg >= 0 else -math.inf
    far = law_p.log_total - law_q.log_total
    # log S of each law: its log c_j errors plus the rounding of a logsumexp of J terms
    far_err = (law_p.log_c_error + law_q.log_c_error + 1e-12 * abs(far)
               + (law_p.alpha.size + law_q.alpha.size + 4) * _STEP
               * (abs(law_p.log_total) + abs(law_q.log_total) + 2))
    sup_pq = max(nom_pq + err, far - log_g_low + far_err)
    sup_qp = max(nom_qp + err, -far - log_g_low + far_err)
    method = "protocols.gkm.view.pure_epsilon_rays (float64 log-space, 1-D rays + far bound)"
    out = []
    for value, nominal, direction in ((sup_pq, nom_pq, Direction.P_Q),
                                      (sup_qp, nom_qp, Direction.Q_P)):
        if nominal == math.inf:
            out.append(Result(quantity="max_divergence", value=math.inf, kind=Kind.EXACT,
                              direction=direction, method=method + " [support mismatch]",
                              source=SOURCE, order=math.inf))
        else:
            value = max(value, 0.0)
            out.append(Result(quantity="max_divergence", value=value, kind=Kind.UPPER,
                              direction=direction, method=method, source=SOURCE,
                              order=math.inf, error_budget=max(value - max(nominal, 0.0), 0.0)))
    return out[0], out[1]
