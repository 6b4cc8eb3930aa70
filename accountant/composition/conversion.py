"""RDP -> (epsilon, delta): one function per theorem (docs/conversions.md#rdp-to-epsilon-delta),
and the best of them.

- `epsilon_mironov`, `delta_mironov`: Mironov 2017, Prop. 3 (docs/conversions.md#mironov-2017),
  eps = tau + log(1/delta)/(alpha-1).
- `epsilon_cks`, `delta_cks`: Canonne-Kamath-Steinke 2020 Prop. 12 / Balle et al. 2020
  Thm 21, which is Girgis et al. 2021 Lemma 1
  (docs/conversions.md#canonne-kamath-steinke-conversion),
  eps = tau + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1).
- `epsilon_optimal`, `delta_optimal`: the optimal conversion from one (alpha, tau) of
  Asoodeh, Liao, Calmon, Kosut, Sankar 2021 (docs/conversions.md#optimal-conversion): the worst
  pair is binary, so
  delta(eps) = sup{p - e^eps q : p^a q^(1-a) + (1-p)^a (1-q)^(1-a) <= e^((a-1) tau)}.

Every conversion optimises over real orders (unless `real_orders=False`): at the curve's
stored orders and on a dense grid between them, where `RdpCurve.value_at` gives a sound
chord bound. A stored alpha = inf (pure DP) gives epsilon = D_inf at any delta. Results
are UPPER bounds; `order` holds the winning Renyi order and `method` names the theorem.

Soundness of the optimal conversion: float searches (a grid in log q, then zoomed grids)
only locate the optimum. The reported delta is `certified_delta`'s proven upper bound on the
supremum over the binary pairs: the objective g(q) = p_max(q) - e^eps q is concave, it is
enclosed in mpmath interval arithmetic (outward-rounded exp, log and arithmetic) at q = 0,
q = 1 and a ladder of points around the located optimum, and on every cell between two
points g is at most the extension of a neighbouring chord (concavity); the largest cell
bound, rounded up to a float, is the value. The reported epsilon is a float at which that
certified delta is at most the target. Where the certificate is loose (it never is by more
than a relative 1e-12 in the tests) the value is still an upper bound, only a weaker one.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

import mpmath
import numpy as np

from accountant.composition.rdp import RdpCurve
from accountant.domains import DELTA, EPSILON, checked
from accountant.errors import ParameterError
from accountant.numeric import rounding
from accountant.result import Kind, Result, Source

__all__ = [
    "epsilon_mironov", "delta_mironov", "epsilon_cks", "delta_cks",
    "epsilon_optimal", "delta_optimal", "certified_delta", "epsilon_best", "delta_best",
]

_U = rounding.UNIT_ROUNDOFF
_MIRONOV = Source(citation="Mironov, Renyi Differential Privacy, CSF 2017",
                  locator="Proposition 3 (docs/conversions.md#mironov-2017)")
_CKS = Source(citation="Canonne, Kamath, Steinke, NeurIPS 2020; Balle, Barthe, Gaboardi, "
                       "Hsu, Sato, AISTATS 2020",
              locator="CKS Prop. 12 / BBG+ Thm 21 = Girgis et al. 2021 Lemma 1 "
                      "(docs/conversions.md#canonne-kamath-steinke-conversion)")
_OPTIMAL = Source(citation="Asoodeh, Liao, Calmon, Kosut, Sankar, AISTATS 2021",
                  locator="optimal conversion from one (alpha, tau), binary worst pair "
                          "(docs/conversions.md#optimal-conversion)")
_OPT_MARGIN = 1e-9
_GRID_POINTS = 400


# ------------------------------------------------------------------ order candidates
def _candidates(curve: RdpCurve, real_orders: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(orders, tau) at the stored finite orders and (real_orders) a geometric grid between
    them."""
    finite = [(a, v) for a, v in zip(curve.orders, curve.values, strict=True)
              if math.isfinite(a)]
    if not finite:
        return np.array([]), np.array([])
    lo, hi = finite[0][0], finite[-1][0]
    grid = set(a for a, _ in finite)
    if hi > lo and real_orders:
        grid |= set(np.unique(1.0 + np.geomspace(lo - 1.0, hi - 1.0, _GRID_POINTS)).tolist())
    orders = np.array(sorted(a for a in grid if lo <= a <= hi))
    taus = curve.values_at(orders)
    ok = np.isfinite(taus)
    return orders[ok], taus[ok]


def _finish(curve: RdpCurve, quantity: str, value: float, order: float, at: float,
            name: str, source: Source, budget: float = 0.0) -> Result:
    kind = Kind.HEURISTIC if curve.kind is Kind.HEURISTIC else Kind.UPPER
    return Result(quantity=quantity, value=value, kind=kind, direction=curve.direction,
                  method=f"composition.conversion.{name} of [{curve.method}] at alpha={order:.6g}",
                  source=source, order=float(order), at=float(at), error_budget=budget)


def _pure(curve: RdpCurve) -> float:
    """epsilon from a stored alpha = inf: D_inf <= eps is (eps, 0)-DP."""
    return curve.pure_epsilon


def _closed_form_epsilon(curve: RdpCurve, delta: float, name: str, source: Source,
                         formula: Callable[[np.ndarray, np.ndarray], np.ndarray],
                         real_orders: bool) -> Result:
    orders, taus = _candidates(curve, real_orders)
    best, best_order = math.inf, math.inf
    if orders.size:
        with np.errstate(over="ignore", invalid="ignore"):
            eps = formula(orders, taus)
        i = int(np.argmin(eps))
        # a handful of roundings, each relative to the largest term (tau or log(1/delta)/a1)
        scale = taus[i] + abs(math.log(delta)) / (orders[i] - 1) + 2.0
        best = max(0.0, rounding.up(float(eps[i]) + 16 * _U * scale))
        best_order = float(orders[i])
    if _pure(curve) < best:
        best, best_order = _pure(curve), math.inf
    return _finish(curve, "epsilon", best, best_order, delta, name, source)


def _closed_form_delta(curve: RdpCurve, epsilon: float, name: str, source: Source,
                       log_formula: Callable[[np.ndarray, np.ndarray], np.ndarray],
                       real_orders: bool) -> Result:
    orders, taus = _candidates(curve, real_orders)
    if _pure(curve) <= epsilon:
        return _finish(curve, "delta", 0.0, math.inf, epsilon, name, source)
    if not orders.size:
        return _finish(curve, "delta", 1.0, math.inf, epsilon, name, source)
    with np.errstate(over="ignore", invalid="ignore"):
        log_delta = log_formula(orders, taus)
    i = int(np.argmin(log_delta))
    scale = (orders[i] - 1) * (taus[i] + epsilon) + math.log(orders[i]) + 2.0
    value = _exp_up(float(log_delta[i]) + 16 * _U * scale)
    return _finish(curve, "delta", value, float(orders[i]), epsilon, name, source)


def _exp_up(log_value: float) -> float:
    """min(1, e^log_value) rounded up: 1 for log_value >= 0 (no overflow, whatever its
    size), the smallest subnormal where e^log_value underflows (never 0 for a positive
    value)."""
    if log_value != log_value:
        raise ValueError("log delta is NaN")
    if log_value >= 0:
        return 1.0
    if log_value < -700.0:
        # near and below the subnormal range a float product cannot carry the relative
        # slack (a subnormal has fewer bits than 1 + 4u needs): round the mpf value up
        with mpmath.workprec(80):
            return rounding.up(mpmath.exp(mpmath.mpf(log_value)) * (1 + mpmath.mpf(2) ** -60))
    return min(1.0, rounding.up(math.exp(log_value) * (1 + 4 * _U)))


# ------------------------------------------------------------------ Mironov 2017
@checked(delta=DELTA)
def epsilon_mironov(curve: RdpCurve, *, delta: float, real_orders: bool = True) -> Result:
    """Upper bound on epsilon at delta by [Mir17] Prop. 3, minimised over real orders."""
    return _closed_form_epsilon(curve, delta, "epsilon_mironov", _MIRONOV,
                                lambda a, t: t + math.log(1 / delta) / (a - 1), real_orders)


@checked(epsilon=EPSILON)
def delta_mironov(curve: RdpCurve, *, epsilon: float, real_orders: bool = True) -> Result:
    """Upper bound on delta at epsilon: delta = exp((alpha-1)(tau-eps)), minimised."""
    return _closed_form_delta(curve, epsilon, "delta_mironov", _MIRONOV,
                              lambda a, t: (a - 1) * (t - epsilon), real_orders)


# ------------------------------------------------------------------ CKS / BBG+ 2020
@checked(delta=DELTA)
def epsilon_cks(curve: RdpCurve, *, delta: float, real_orders: bool = True) -> Result:
    """Upper bound on epsilon at delta by CKS20 / BBG+20 (Girgis Lemma 1), minimised."""
    return _closed_form_epsilon(
        curve, delta, "epsilon_cks", _CKS,
        lambda a, t: t + np.log1p(-1 / a) - (math.log(delta) + np.log(a)) / (a - 1),
        real_orders)


@checked(epsilon=EPSILON)
def delta_cks(curve: RdpCurve, *, epsilon: float, real_orders: bool = True) -> Result:
    """delta = exp((alpha-1)(tau-eps)) / alpha * (1 - 1/alpha)^(alpha-1), minimised."""
    return _closed_form_delta(
        curve, epsilon, "delta_cks", _CKS,
        lambda a, t: (a - 1) * (t - epsilon) - np.log(a) + (a - 1) * np.log1p(-1 / a),
        real_orders)


# ------------------------------------------------------------------ Asoodeh et al. 2021
def _d_max(q: np.ndarray, alpha: float | np.ndarray, tau: float | np.ndarray) -> np.ndarray:
    """Largest d = p - q in [0, 1-q] with q(1+d/q)^a + (1-q)(1-d/(1-q))^a <= e^((a-1)tau).

    The left side minus 1 is increasing in d on [0, 1-q]; it is evaluated as
    q expm1(a log1p(d/q)) + (1-q) expm1(a log1p(-d/(1-q))) to avoid cancellation when tau is
    small, in log space when the first term overflows. Bisection keeps the upper end.
    """
    q = np.asarray(q, dtype=float)
    c = (alpha - 1.0) * tau
    target = np.where(c < 700, np.expm1(np.minimum(c, 700)), np.inf)
    q, c, target = np.broadcast_arrays(q, c, target)
    lo = np.zeros_like(q)
    hi = 1.0 - q
    # d = 1 - q (p = 1) is feasible iff q^(1-a) <= e^c, i.e. log q >= -tau
    full = np.log(q) >= -tau
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        for _ in range(64):
            mid = 0.5 * (lo + hi)
            x1 = alpha * np.log1p(mid / q)
            x2 = alpha * np.log1p(-mid / (1.0 - q))
            big = x1 > 600
            small_val = q * np.expm1(np.minimum(x1, 600)) + (1.0 - q) * np.expm1(x2)
            log_f = np.logaddexp(np.log(q) + x1, np.log1p(-q) + x2)
            ok = np.where(big, log_f <= c, small_val <= target)
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
    return np.where(full, 1.0 - q, hi)


_LOG_Q_SPLIT = -700.0


def _log_p_max(log_q: np.ndarray, alpha: float | np.ndarray,
               tau: float | np.ndarray) -> np.ndarray:
    """log of the largest p in [q, 1] with p^a q^(1-a) + (1-p)^a (1-q)^(1-a) <= e^((a-1)tau),
    in floats: a locator for the certified evaluation, not a bound itself.

    The constraint is solved for log p in log space (q need not be a float):
    logaddexp(a lp + (1-a) lq, a log1p(-e^lp) + (1-a) log1p(-e^lq)) <= (a-1) tau is
    increasing in lp on [lq, 0]; 80 bisection steps keep the end that may violate it. Where
    log q >= -700, log(q + d_max(q)) (`_d_max`, accurate for p close to q) is used when
    smaller.
    """
    log_q = np.asarray(log_q, dtype=float)
    log_q, alpha_b, tau_b = np.broadcast_arrays(log_q, np.asarray(alpha, dtype=float),
                                                np.asarray(tau, dtype=float))
    out = np.empty(log_q.shape)
    lq, a, t = log_q, alpha_b, tau_b
    c = (a - 1.0) * t
    lo, hi = lq.copy(), np.zeros_like(lq)
    full = lq >= -t                     # p = 1 feasible
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            left = np.logaddexp(a * mid + (1.0 - a) * lq,
                                a * np.log1p(-np.exp(mid)) + (1.0 - a) * np.log1p(
                                    -np.exp(lq)))
            ok = left <= c
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
    out = np.where(full, 0.0, hi)
    big = log_q >= _LOG_Q_SPLIT
    if np.any(big):
        # d_max resolves p - q (small tau); its bisection is absolute in d, so where p is
        # below ~2^-64 the log-space bisection above is the sharper of the two
        q = np.exp(log_q[big])
        via_d = np.log(np.minimum(1.0, q + _d_max(q, alpha_b[big], tau_b[big])))
        out[big] = np.minimum(out[big], via_d)
    return out


def _zoom_max(f: Callable[[np.ndarray], np.ndarray], a: np.ndarray, b: np.ndarray,
              rounds: int = 7, points: int = 33) -> np.ndarray:
    """Row-wise max of unimodal functions on [a_i, b_i]: repeated vectorised grids, each
    zoomed on the neighbours of the previous best point (16-fold shrink per round)."""
    best = np.full(a.shape, -np.inf)
    rows = np.arange(a.size)
    t = np.linspace(0.0, 1.0, points)
    for _ in range(rounds):
        x = a[:, None] + (b - a)[:, None] * t[None, :]
        v = f(x)
        i = np.argmax(v, axis=1)
        best = np.maximum(best, v[rows, i])
        a, b = x[rows, np.maximum(i - 1, 0)], x[rows, np.minimum(i + 1, points - 1)]
    return best


def _optimal_epsilon_many(alphas: np.ndarray, taus: np.ndarray, delta: float) -> np.ndarray:
    """Per order: max over q of log((q + d_max(q) - delta)/q). Quasi-concave in q (a
    concave function over a linear one has convex superlevel sets), so a grid in log q and
    zoomed grids find it."""
    a_col, t_col = alphas[:, None], taus[:, None]
    # p <= q^(1-1/a) e^(tau (a-1)/a) must exceed delta; below that q nothing is feasible.
    # No floor at e^-700: tiny delta and large tau need q far below the float range, so the
    # search runs in log q (`_log_p_max`).
    log_delta = math.log(delta)
    log_q_min = ((log_delta - taus * (alphas - 1) / alphas) * alphas / (alphas - 1) - 1.0)

    def h(log_q: np.ndarray) -> np.ndarray:
        lp = _log_p_max(log_q, a_col, t_col)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # log(p - delta) - log q, with p - delta = p (1 - e^(log delta - lp))
            gap = np.log1p(-np.exp(np.minimum(log_delta - lp, 0.0)))
            return np.where(lp > log_delta, lp + gap - log_q, -np.inf)

    t = np.linspace(0.0, 1.0, 257)
    grid = log_q_min[:, None] + (0.0 - log_q_min)[:, None] * t[None, :]
    vals = h(grid)
    rows = np.arange(alphas.size)
    i = np.argmax(vals, axis=1)
    best = np.maximum(vals[rows, i], _zoom_max(
        h, grid[rows, np.maximum(i - 1, 0)], grid[rows, np.minimum(i + 1, t.size - 1)]))
    best = np.where(taus == 0, 0.0, best)
    return np.maximum(0.0, np.where(np.isfinite(best), best, 0.0))


# ------------------------------------------------------------------ certified evaluation
# The float search above only locates the optimum. The reported values come from
# `certified_delta`: enclosures of the objective g(q) = p_max(q) - e^eps q at a few points,
# proven in mpmath interval arithmetic (`mpmath.iv`: exp, log, + - * / with outward rounding;
# iv.expm1 and iv.log1p are not used, they truncate series without a remainder), and the
# concavity of g, which bounds g between and beyond the points by chord extensions
# (docs/conversions.md#optimal-conversion).
_PREC = 128          # working bits of the certificate (raised for small (alpha-1) tau)
_LADDER = 3          # points on each side of the located optimum
_TARGET = 1e-12      # relative gap between the certified ends that ends the refinement
_ROUNDS = 10         # most refinements of the ladder


@contextlib.contextmanager
def _iv_prec(bits: int) -> Iterator[None]:
    """mpmath.iv's working precision set to `bits` for the block (restored after)."""
    saved = mpmath.iv.prec
    mpmath.iv.prec = bits
    try:
        yield
    finally:
        mpmath.iv.prec = saved


def _ends(x: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The two ends of an mpmath.iv interval as exact mpfs."""
    lo, hi = x._mpi_
    return mpmath.mp.make_mpf(lo), mpmath.mp.make_mpf(hi)


def _mpf_up(x: mpmath.mpf) -> float:
    """The smallest float >= x (compared exactly, whatever the precision x was made at)."""
    f = float(x)
    if x > f:
        f = math.nextafter(f, math.inf)
    return f


def _mpf_down(x: mpmath.mpf) -> float:
    """The largest float <= x."""
    f = float(x)
    if x < f:
        f = math.nextafter(f, -math.inf)
    return f


def _root_d(q: mpmath.mpf, alpha: mpmath.mpf, c: mpmath.mpf, cm1: mpmath.mpf,
            guess: mpmath.mpf | None) -> mpmath.mpf | None:
    """Approximate d* = p_max(q) - q in mp (located for the certificate, not certified itself),
    or None when p = 1 satisfies the constraint.

    K(u) = log(G(e^u)) - log(expm1(c)), G(d) = q expm1(a log1p(d/q)) +
    (1-q) expm1(a log1p(-d/(1-q))) (the constraint's left side minus 1, positive and
    increasing on (0, 1-q)), is nearly affine in u = log d both where G ~ d^2 and where
    G ~ d^a: safeguarded Newton on a bracket of u.
    """
    mp = mpmath.mp
    one_q = 1 - q
    log_q = mp.log(q)
    if (1 - alpha) * log_q <= c:
        return None

    def k_and_slope(u: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
        d = mp.exp(u)
        if d >= one_q:
            return mp.inf, mp.one
        g = q * mp.expm1(alpha * mp.log1p(d / q)) + one_q * mp.expm1(
            alpha * mp.log1p(-d / one_q))
        if g <= 0:
            return -mp.inf, mp.one
        dg = d * alpha * ((1 + d / q) ** (alpha - 1) - (1 - d / one_q) ** (alpha - 1))
        return mp.log(g) - mp.log(cm1), dg / g

    small = mp.sqrt(2 * q * one_q * cm1 / (alpha * (alpha - 1)))
    large = mp.exp(log_q + (c - log_q) / alpha)
    d0 = guess if guess is not None and 0 < guess < one_q else min(small, large, one_q / 2)
    u = mp.log(d0)
    u_lo, u_hi = u, u
    # steps that double: at eps = 1e300 the root lies near u = -1e300 / a, which steps of 4
    # never reached (get_delta(1e300) of subsampled events ran for minutes)
    step = mp.mpf(4)
    while k_and_slope(u_lo)[0] >= 0:
        u_lo -= step
        step *= 2
    step = mp.mpf(4)
    while k_and_slope(u_hi)[0] < 0:
        u_hi += step
        step *= 2
    tol = mp.mpf(2) ** (32 - mp.prec)  # the certificate brackets at 2^(40 - prec)
    for _ in range(600):
        value, slope = k_and_slope(u)
        if value < 0:
            u_lo = u
        else:
            u_hi = u
        step = u - value / slope if mp.isfinite(value) and slope > 0 else u_lo - 1
        new = step if u_lo < step < u_hi else (u_lo + u_hi) / 2
        if abs(new - u) <= tol * (1 + abs(u)) or u_hi - u_lo <= tol * (1 + abs(u)):
            return mp.exp(new)
        u = new
    return mp.exp(u)


class _Enclosure:
    """p_max(q) and g(q) = p_max(q) - e^eps q enclosed at one point q (an exact mpf)."""

    __slots__ = ("q", "p_lo", "p_hi", "g_lo", "g_hi", "d")

    def __init__(self, q: mpmath.mpf, p_lo: mpmath.mpf, p_hi: mpmath.mpf,
                 gamma: mpmath.ctx_iv.ivmpf, d: mpmath.mpf | None) -> None:
        iv = mpmath.iv
        self.q, self.p_lo, self.p_hi, self.d = q, p_lo, p_hi, d
        g = iv.mpf(p_lo) - gamma * iv.mpf(q)
        self.g_lo = _ends(g)[0]
        self.g_hi = _ends(iv.mpf(p_hi) - gamma * iv.mpf(q))[1]


def _enclose(q: mpmath.mpf, alpha: float, tau: float, gamma: mpmath.ctx_iv.ivmpf,
             guess: mpmath.mpf | None) -> _Enclosure:
    """Certified [p_lo, p_hi] around p_max(q), 0 < q < 1.

    p_lo: a point with p^a q^(1-a) + (1-p)^a (1-q)^(1-a) <= e^((a-1) tau) proven by interval
    evaluation (or p = q, where the left side is 1); p_hi: a point > q where the left side is
    proven to exceed e^((a-1) tau) (the left side increases in p on [q, 1], so p_max < p_hi),
    or 1."""
    iv, mp = mpmath.iv, mpmath.mp
    a_iv, q_iv = iv.mpf(alpha), iv.mpf(q)
    c_iv = (a_iv - 1) * iv.mpf(tau)
    bound = iv.exp(c_iv)
    log_q, log_1q = iv.log(q_iv), iv.log(1 - q_iv)
    if _ends(log_q + iv.mpf(tau))[0] >= 0:  # p = 1: q^(1-a) <= e^((a-1) tau) iff log q >= -tau
        return _Enclosure(q, mp.mpf(1), mp.mpf(1), gamma, None)

    def side(p: mpmath.mpf) -> int:
        """-1 proven feasible, +1 proven infeasible, 0 undecided (p in (q, 1))."""
        p_iv = iv.mpf(p)
        f = (iv.exp(a_iv * iv.log(p_iv) + (1 - a_iv) * log_q)
             + iv.exp(a_iv * iv.log(1 - p_iv) + (1 - a_iv) * log_1q))
        (f_lo, f_hi), (b_lo, b_hi) = _ends(f), _ends(bound)
        if f_hi <= b_lo:
            return -1
        return 1 if f_lo > b_hi else 0

    alpha_mp, c = mp.mpf(alpha), (mp.mpf(alpha) - 1) * mp.mpf(tau)
    d = _root_d(q, alpha_mp, c, mp.expm1(c), guess)
    p_lo, p_hi = q, mp.mpf(1)
    if d is not None:
        for shift in (40, 80, 120):
            width = mp.mpf(2) ** (shift - mp.prec)
            lo, hi = q + d * (1 - width), q + d * (1 + width)
            if p_lo == q and q < lo < 1 and side(lo) < 0:
                p_lo = lo
            if p_hi == 1 and q < hi < 1 and side(hi) > 0:
                p_hi = hi
    return _Enclosure(q, p_lo, p_hi, gamma, d)


def _line_max(z: list[mpmath.mpf], lo: list[mpmath.mpf], hi: list[mpmath.mpf],
              i: int) -> mpmath.mpf:
    """Upper bound on max g over [z_i, z_{i+1}] from concavity (docs section).

    Left chord (z_{i-1}, z_i) extended right: g(x) <= hi_i (1 + t) - lo_{i-1} t,
    t = (x - z_i)/(z_i - z_{i-1}) >= 0; right chord (z_{i+1}, z_{i+2}) extended left likewise.
    max_x min(l, r) <= max_x (lam l + (1 - lam) r) for every lam in [0, 1], and that line's
    maximum over the cell is at an end. All in interval arithmetic; the upper end is kept."""
    iv = mpmath.iv
    ends = (iv.mpf(z[i]), iv.mpf(z[i + 1]))
    lines = []
    if i >= 1:
        span_l = iv.mpf(z[i]) - iv.mpf(z[i - 1])
        lines.append(lambda x: iv.mpf(hi[i]) + (iv.mpf(hi[i]) - iv.mpf(lo[i - 1]))
                     * (x - iv.mpf(z[i])) / span_l)
    if i + 2 < len(z):
        span_r = iv.mpf(z[i + 2]) - iv.mpf(z[i + 1])
        lines.append(lambda x: iv.mpf(hi[i + 1]) + (iv.mpf(hi[i + 1]) - iv.mpf(lo[i + 2]))
                     * (iv.mpf(z[i + 1]) - x) / span_r)
    if len(lines) == 1:
        return max(_ends(lines[0](x))[1] for x in ends)
    left, right = lines
    (l0, l1), (r0, r1) = [left(x) for x in ends], [right(x) for x in ends]
    top = [_ends(v)[1] for v in (l0, l1, r0, r1)]
    best = min(max(top[0], top[1]), max(top[2], top[3]))
    # the flat combination: lam slope_l + (1 - lam) slope_r = 0 (any lam in [0, 1] is sound)
    sl, sr = float(top[1] - top[0]), float(top[3] - top[2])
    if sl > 0 > sr:
        lam = iv.mpf(-sr / (sl - sr))
        combined = [lam * lv + (1 - lam) * rv for lv, rv in ((l0, r0), (l1, r1))]
        best = min(best, max(_ends(v)[1] for v in combined))
    return best


def _float_argmax_delta(alpha: float, tau: float, epsilon: float) -> tuple[float, float]:
    """log q of the float optimum of p_max(q) - e^eps q (located, not certified): the log of
    the objective, lp + log1p(-e^(eps + log q - lp)), is unimodal in log q; positive only
    where log q < (a-1) tau - a eps (p_max(q) <= q^(1-1/a) e^((a-1) tau/a))."""
    top = min(0.0, (alpha - 1) * tau - alpha * epsilon)
    width = 64.0

    def h(log_q: np.ndarray) -> np.ndarray:
        lp = _log_p_max(log_q, alpha, tau)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = np.exp(np.minimum(epsilon + log_q - lp, 0.0))
            return np.where(epsilon + log_q < lp, lp + np.log1p(-ratio), -np.inf)

    for _ in range(12):
        grid = np.linspace(top - width, top, 257)
        vals = h(grid)
        i = int(np.argmax(vals))
        if i > 0 or width > 1e7:
            break
        width *= 8.0
    a = np.array([grid[max(i - 1, 0)]])
    b = np.array([grid[min(i + 1, 256)]])
    rows = np.arange(1)
    t = np.linspace(0.0, 1.0, 33)
    best_x, best_v = grid[i], vals[i]
    for _ in range(8):
        x = a[:, None] + (b - a)[:, None] * t[None, :]
        v = h(x)[0]
        j = int(np.argmax(v))
        if v[j] > best_v:
            best_x, best_v = x[0, j], v[j]
        a, b = x[rows, max(j - 1, 0)], x[rows, min(j + 1, 32)]
    return float(best_x), float(best_v)


def certified_delta(alpha: float, tau: float, epsilon: float,
                    log_q: float | None = None) -> tuple[float, float, float]:
    """Certified bracket of the optimal conversion's delta at one order
    (docs/conversions.md#optimal-conversion).

    sup {p - e^eps q : 0 <= q <= p <= 1, p^a q^(1-a) + (1-p)^a (1-q)^(1-a) <= e^((a-1) tau)}
    is max(0, max_q g(q)) with g(q) = p_max(q) - e^eps q concave on [0, 1], g(0) = 0 and
    g(1) = 1 - e^eps. g is enclosed in interval arithmetic at q = 0, 1 and a ladder of points
    around the located optimum; concavity bounds g on every cell between two points by the
    extensions of the neighbouring chords, so the largest cell bound is a proven upper bound
    and the largest enclosed value a proven lower bound. The ladder is refined (recentred,
    narrowed, more bits) until the two are within a relative 1e-12, at most four times.

    Args:
        alpha: Renyi order, > 1.
        tau: the RDP value at alpha, >= 0 and finite.
        epsilon: epsilon >= 0.
        log_q: where to start the search (log of q); None: located by a float search.

    Returns:
        (lower, upper, log q of the best point): floats rounded outward; upper <= 1.

    Raises:
        ParameterError: alpha <= 1, tau < 0 or not finite, epsilon < 0 or not finite.
    """
    if not (alpha > 1 and math.isfinite(alpha)):
        raise ParameterError(f"alpha={alpha!r} is outside (1, inf)")
    if not (tau >= 0 and math.isfinite(tau)):
        raise ParameterError(f"tau={tau!r} is outside [0, inf)")
    if not (epsilon >= 0 and math.isfinite(epsilon)):
        raise ParameterError(f"epsilon={epsilon!r} is outside [0, inf)")
    if tau == 0:
        return 0.0, 0.0, -math.inf  # only p = q is feasible: p - e^eps q <= 0
    center = _float_argmax_delta(alpha, tau, epsilon)[0] if log_q is None else log_q
    c = (alpha - 1) * tau
    prec = _PREC + (int(-math.log2(c)) + 1 if c < 1 else 0)
    step = 2.0 ** -20
    lower, upper = 0.0, 1.0
    for _ in range(_ROUNDS):
        with mpmath.workprec(prec), _iv_prec(prec):
            gamma = mpmath.iv.exp(mpmath.iv.mpf(epsilon))
            mp_center = mpmath.mpf(center)
            points = [mpmath.exp(mp_center + j * mpmath.mpf(step))
                      for j in range(-_LADDER, _LADDER + 1)]
            points = [q for q in points if 0 < q < 1]
            encl, guess = [], None
            for q in points:
                e = _enclose(q, alpha, tau, gamma, guess)
                guess = e.d
                encl.append(e)
            z = [mpmath.mpf(0)] + points + [mpmath.mpf(1)]
            end = _ends(1 - gamma)
            lo = [mpmath.mpf(0)] + [e.g_lo for e in encl] + [end[0]]
            hi = [mpmath.mpf(0)] + [e.g_hi for e in encl] + [end[1]]
            up = max(_line_max(z, lo, hi, i) for i in range(len(z) - 1))
            best = max(range(len(z)), key=lambda i: lo[i])
            # every round's ends are proven: keep the tightest of all rounds
            lower = max(lower, _mpf_down(lo[best]))
            upper = min(upper, _mpf_up(max(up, 0)))
            if 0 < best < len(z) - 1:
                edge = best in (1, len(z) - 2)
                center = float(mpmath.log(z[best]))
            else:
                edge = True
        if upper <= max(lower * (1 + _TARGET), math.ulp(0.0)):
            break
        # the best point at the ladder's edge: move there and widen; inside: narrow
        step = step * 4 if edge else step / 32
        prec += 16
    return lower, upper, center


def _orders_near_cks(curve: RdpCurve, key: Callable[[np.ndarray, np.ndarray], np.ndarray],
                     width: int = 2) -> list[tuple[float, float]]:
    orders, taus = _candidates(curve)
    if not orders.size:
        return []
    with np.errstate(over="ignore", invalid="ignore"):
        score = key(orders, taus)
    i = int(np.argmin(score))
    lo, hi = max(0, i - width), min(orders.size, i + width + 1)
    return list(zip(orders[lo:hi].tolist(), taus[lo:hi].tolist(), strict=True))


def _cks_epsilon_one(alpha: float, tau: float, delta: float) -> float:
    value = tau + math.log1p(-1 / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)
    scale = tau + abs(math.log(delta)) / (alpha - 1) + 2.0
    return max(0.0, rounding.up(value + 16 * _U * scale))


def _cks_delta_one(alpha: float, tau: float, epsilon: float) -> float:
    log_delta = ((alpha - 1) * (tau - epsilon) - math.log(alpha)
                 + (alpha - 1) * math.log1p(-1 / alpha))
    scale = (alpha - 1) * (tau + epsilon) + math.log(alpha) + 2.0
    return _exp_up(log_delta + 16 * _U * scale)


def _certified_epsilon(alpha: float, tau: float, delta: float, estimate: float) -> float:
    """The smallest float eps >= estimate found (estimate, then widening steps) at which
    `certified_delta` proves delta_opt(eps) <= delta; inf when none is found. Sound because
    delta_opt is the largest delta of any pair with D_alpha <= tau at eps: (eps, delta)-DP."""
    eps = max(0.0, float(estimate))
    margin = 0.0
    log_q = None
    for _ in range(24):
        candidate = rounding.up(eps + margin)
        if not math.isfinite(candidate):
            return math.inf
        _, upper, log_q = certified_delta(alpha, tau, candidate, log_q)
        if upper <= delta:
            return candidate
        # d delta_opt / d eps = -e^eps q* at the optimum: a Newton step, then doublings
        slope = math.exp(min(candidate + log_q, 700.0)) if math.isfinite(log_q) else 0.0
        step = (upper - delta) / slope if slope > 0 else 0.0
        margin = max(2 * margin, 1.5 * step, 4 * math.ulp(max(candidate, 1.0)))
    return math.inf


@checked(delta=DELTA)
def epsilon_optimal(curve: RdpCurve, *, delta: float) -> Result:
    """Certified upper bound on epsilon at delta by the optimal single-order conversion
    (docs/conversions.md#optimal-conversion).

    A float search over the orders around the CKS optimum (the optimal conversion is never
    worse than CKS at a given order, and CKS locates the useful range of orders) picks the
    order and an estimate eps; the reported value is the first float eps' >= eps at which
    `certified_delta` proves delta_opt(eps') <= delta (so the curve's mechanisms are
    (eps', delta)-DP), or the CKS value of those orders when that is smaller.

    Args:
        curve: an RDP curve (UPPER or EXACT values).
        delta: target delta, in (0, 1).

    Returns:
        An UPPER Result (HEURISTIC when the curve is); `error_budget` is the certified value
        minus the float estimate.

    Raises:
        ParameterError: delta outside (0, 1).
    """
    near = _orders_near_cks(curve, lambda a, t: t + np.log1p(-1 / a)
                            - (math.log(delta) + np.log(a)) / (a - 1))
    best, best_order, nominal = math.inf, math.inf, math.inf
    if near:
        estimates = _optimal_epsilon_many(np.array([a for a, _ in near]),
                                          np.array([t for _, t in near]), delta)
        i = int(np.argmin(estimates))
        alpha, tau = near[i]
        best, best_order = _certified_epsilon(alpha, tau, delta, float(estimates[i])), alpha
        nominal = float(estimates[i])
        for a, t in near:  # CKS is a proven bound at every order
            cks = _cks_epsilon_one(a, t, delta)
            if cks < best:
                best, best_order, nominal = cks, a, cks
    if _pure(curve) < best:
        best, best_order, nominal = _pure(curve), math.inf, _pure(curve)
    return _finish(curve, "epsilon", best, best_order, delta, "epsilon_optimal", _OPTIMAL,
                   budget=max(0.0, best - nominal) if math.isfinite(best) else 0.0)


@checked(epsilon=EPSILON)
def delta_optimal(curve: RdpCurve, *, epsilon: float) -> Result:
    """Certified upper bound on delta at epsilon by the optimal single-order conversion
    (docs/conversions.md#optimal-conversion).

    A float search picks the order (around the CKS optimum) with the smallest estimated
    optimum; there `certified_delta` gives a proven upper bound on the supremum over the
    binary pairs; the CKS value of those orders is reported when smaller.

    Args:
        curve: an RDP curve (UPPER or EXACT values).
        epsilon: epsilon >= 0.

    Returns:
        An UPPER Result (HEURISTIC when the curve is); `error_budget` is the certified value
        minus the certificate's proven lower end (how tight the certificate is).

    Raises:
        ParameterError: epsilon negative or not finite.
    """
    if _pure(curve) <= epsilon:
        return _finish(curve, "delta", 0.0, math.inf, epsilon, "delta_optimal", _OPTIMAL)
    near = _orders_near_cks(curve, lambda a, t: (a - 1) * (t - epsilon) - np.log(a)
                            + (a - 1) * np.log1p(-1 / a))
    best, best_order, budget = 1.0, math.inf, 0.0
    if near:
        located = [_float_argmax_delta(a, t, epsilon) for a, t in near]
        i = max(range(len(near)), key=lambda j: -located[j][1])
        alpha, tau = near[i]
        lower, upper, _ = certified_delta(alpha, tau, epsilon, located[i][0])
        if upper < best:
            best, best_order, budget = upper, alpha, upper - lower
        for a, t in near:
            cks = _cks_delta_one(a, t, epsilon)
            if cks < best:
                best, best_order, budget = cks, a, 0.0
    return _finish(curve, "delta", best, best_order, epsilon, "delta_optimal", _OPTIMAL,
                   budget=budget)


# ------------------------------------------------------------------ best of all
@checked(delta=DELTA)
def epsilon_best(curve: RdpCurve, *, delta: float) -> tuple[Result, list[Result]]:
    """(tightest, all) of the three conversions at delta; the tightest names its theorem."""
    return _tightest([f.unchecked(curve, delta=delta)
                      for f in (epsilon_mironov, epsilon_cks, epsilon_optimal)])


# closed forms at or below this delta leave the optimal conversion nothing to show
_OPTIMAL_FLOOR = 1e-300


@checked(epsilon=EPSILON)
def delta_best(curve: RdpCurve, *, epsilon: float) -> tuple[Result, list[Result]]:
    """(tightest, all) of the three conversions at epsilon; the optimal one only while the
    closed forms are above 1e-300 (at eps = 1e300 they are at the smallest float, and the
    optimal conversion's root searches took 48 s to say no more)."""
    results = [f.unchecked(curve, epsilon=epsilon) for f in (delta_mironov, delta_cks)]
    if min(float(r.value) for r in results) > _OPTIMAL_FLOOR:
        results.append(delta_optimal.unchecked(curve, epsilon=epsilon))
    return _tightest(results)


def _tightest(results: list[Result]) -> tuple[Result, list[Result]]:
    return min(results, key=lambda r: r.value), results

