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

Soundness of the optimal conversion: the supremum over the binary pairs is found
numerically (a grid in log q, then zoomed grids; p by bisection, keeping the end
that may violate the constraint, which overestimates p). The optimisation could stop short
of the supremum by a relative amount of order 1e-10; a relative margin of 1e-9 is added, so
the value is an upper bound up to that stated numerical tolerance (not interval-certified).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from accountant.composition.rdp import RdpCurve
from accountant.domains import DELTA, EPSILON
from accountant.numeric import rounding
from accountant.result import Kind, Result, Source

__all__ = [
    "epsilon_mironov", "delta_mironov", "epsilon_cks", "delta_cks",
    "epsilon_optimal", "delta_optimal", "epsilon_best", "delta_best",
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
    DELTA.check(delta)
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
    EPSILON.check(epsilon)
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
    if log_value < -740.0:
        return math.ulp(0.0)
    return min(1.0, rounding.up(math.exp(log_value) * (1 + 4 * _U)))


# ------------------------------------------------------------------ Mironov 2017
def epsilon_mironov(curve: RdpCurve, *, delta: float, real_orders: bool = True) -> Result:
    """Upper bound on epsilon at delta by [Mir17] Prop. 3, minimised over real orders."""
    return _closed_form_epsilon(curve, delta, "epsilon_mironov", _MIRONOV,
                                lambda a, t: t + math.log(1 / delta) / (a - 1), real_orders)


def delta_mironov(curve: RdpCurve, *, epsilon: float, real_orders: bool = True) -> Result:
    """Upper bound on delta at epsilon: delta = exp((alpha-1)(tau-eps)), minimised."""
    return _closed_form_delta(curve, epsilon, "delta_mironov", _MIRONOV,
                              lambda a, t: (a - 1) * (t - epsilon), real_orders)


# ------------------------------------------------------------------ CKS / BBG+ 2020
def epsilon_cks(curve: RdpCurve, *, delta: float, real_orders: bool = True) -> Result:
    """Upper bound on epsilon at delta by CKS20 / BBG+20 (Girgis Lemma 1), minimised."""
    return _closed_form_epsilon(
        curve, delta, "epsilon_cks", _CKS,
        lambda a, t: t + np.log1p(-1 / a) - (math.log(delta) + np.log(a)) / (a - 1),
        real_orders)


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
    """log of the largest p in [q, 1] with p^a q^(1-a) + (1-p)^a (1-q)^(1-a) <= e^((a-1)tau).

    Where log q >= -700 this is log(q + d_max(q)) (`_d_max`, accurate for p close to q);
    below, q is not a float and the constraint is solved for log p directly, in log space:
    logaddexp(a lp + (1-a) lq, a log1p(-e^lp) + (1-a) log1p(-e^lq)) <= (a-1) tau is
    increasing in lp on [lq, 0]; 80 bisection steps keep the end that may violate it
    (p overestimated).
    """
    log_q = np.asarray(log_q, dtype=float)
    log_q, alpha_b, tau_b = np.broadcast_arrays(log_q, np.asarray(alpha, dtype=float),
                                                np.asarray(tau, dtype=float))
    out = np.empty(log_q.shape)
    big = log_q >= _LOG_Q_SPLIT
    if np.any(big):
        q = np.exp(log_q[big])
        out[big] = np.log(np.minimum(1.0, q + _d_max(q, alpha_b[big], tau_b[big])))
    small = ~big
    if np.any(small):
        lq, a, t = log_q[small], alpha_b[small], tau_b[small]
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
        out[small] = np.where(full, 0.0, hi)
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


def _optimal_delta_many(alphas: np.ndarray, taus: np.ndarray, epsilon: float) -> np.ndarray:
    """Per order: max over q of d_max(q) - expm1(eps) q, concave in q
    (docs/conversions.md#optimal-conversion)."""
    a_col, t_col = alphas[:, None], taus[:, None]
    gamma1 = math.expm1(min(epsilon, 700.0))

    def g(log_q: np.ndarray) -> np.ndarray:
        q = np.exp(log_q)
        return _d_max(q, a_col, t_col) - gamma1 * q

    grid = np.broadcast_to(np.linspace(-700.0, 0.0, 513), (alphas.size, 513))
    vals = g(grid)
    rows = np.arange(alphas.size)
    i = np.argmax(vals, axis=1)
    best = np.maximum(vals[rows, i], _zoom_max(
        g, grid[rows, np.maximum(i - 1, 0)], grid[rows, np.minimum(i + 1, 512)]))
    # The objective is concave in q: if the grid's best point is its left end (q = e^-700),
    # the supremum may lie further left, where it is at most p_max(e^-700) (p_max increases
    # in q). Also covers epsilon > 700, where gamma1 was capped (a smaller gamma1 only
    # raises the objective).
    left = np.exp(_log_p_max(np.full(alphas.shape, -700.0), alphas, taus))
    best = np.where(i == 0, np.maximum(best, left), best)
    best = np.where(taus == 0, 0.0, best)
    return np.minimum(1.0, np.maximum(0.0, best))


def _optimal_epsilon_one(alpha: float, tau: float, delta: float) -> float:
    return float(_optimal_epsilon_many(np.array([alpha]), np.array([tau]), delta)[0])


def _optimal_delta_one(alpha: float, tau: float, epsilon: float) -> float:
    return float(_optimal_delta_many(np.array([alpha]), np.array([tau]), epsilon)[0])


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


def epsilon_optimal(curve: RdpCurve, *, delta: float) -> Result:
    """Upper bound on epsilon at delta by the optimal single-order conversion
    (docs/conversions.md#optimal-conversion).

    Evaluated at the orders around the CKS optimum (the optimal conversion is never worse
    than CKS at a given order, and CKS locates the useful range of orders). At each order the
    value is min(numerical optimum + margin, CKS): both are upper bounds on the optimum.
    """
    DELTA.check(delta)
    near = _orders_near_cks(curve, lambda a, t: t + np.log1p(-1 / a)
                            - (math.log(delta) + np.log(a)) / (a - 1))
    best, best_order = math.inf, math.inf
    optimum = _optimal_epsilon_many(np.array([a for a, _ in near]),
                                    np.array([t for _, t in near]), delta) if near else []
    for (alpha, tau), raw in zip(near, optimum, strict=True):
        e = rounding.up(float(raw) * (1 + _OPT_MARGIN) + 1e-15)
        # the optimum is <= CKS at the same order; the min keeps the margin from undoing that
        e = min(e, _cks_epsilon_one(alpha, tau, delta))
        if e < best:
            best, best_order = e, alpha
    nominal = best
    if _pure(curve) < best:
        best, best_order, nominal = _pure(curve), math.inf, _pure(curve)
    return _finish(curve, "epsilon", best, best_order, delta, "epsilon_optimal", _OPTIMAL,
                   budget=best - nominal if math.isfinite(best) else 0.0)


def delta_optimal(curve: RdpCurve, *, epsilon: float) -> Result:
    """Upper bound on delta at epsilon by the optimal single-order conversion
    (docs/conversions.md#optimal-conversion)."""
    EPSILON.check(epsilon)
    if _pure(curve) <= epsilon:
        return _finish(curve, "delta", 0.0, math.inf, epsilon, "delta_optimal", _OPTIMAL)
    near = _orders_near_cks(curve, lambda a, t: (a - 1) * (t - epsilon) - np.log(a)
                            + (a - 1) * np.log1p(-1 / a))
    best, best_order = 1.0, math.inf
    optimum = _optimal_delta_many(np.array([a for a, _ in near]),
                                  np.array([t for _, t in near]), epsilon) if near else []
    for (alpha, tau), raw in zip(near, optimum, strict=True):
        d = min(1.0, rounding.up(float(raw) * (1 + _OPT_MARGIN) + math.ulp(0.0)))
        d = min(d, _cks_delta_one(alpha, tau, epsilon))
        if d < best:
            best, best_order = d, alpha
    nominal = best
    return _finish(curve, "delta", best, best_order, epsilon, "delta_optimal", _OPTIMAL,
                   budget=max(0.0, best - nominal))


# ------------------------------------------------------------------ best of all
def epsilon_best(curve: RdpCurve, *, delta: float) -> tuple[Result, list[Result]]:
    """(tightest, all) of the three conversions at delta; the tightest names its theorem."""
    results = [epsilon_mironov(curve, delta=delta), epsilon_cks(curve, delta=delta),
               epsilon_optimal(curve, delta=delta)]
    return min(results, key=lambda r: r.value), results


def delta_best(curve: RdpCurve, *, epsilon: float) -> tuple[Result, list[Result]]:
    """(tightest, all) of the three conversions at epsilon."""
    results = [delta_mironov(curve, epsilon=epsilon), delta_cks(curve, epsilon=epsilon),
               delta_optimal(curve, epsilon=epsilon)]
    return min(results, key=lambda r: r.value), results

