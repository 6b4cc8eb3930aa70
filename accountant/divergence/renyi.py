"""Renyi divergences of every order, the max-divergence and KL
(docs/divergences.md#renyi-divergence).

For alpha in (1, inf):  D_alpha(P||Q) = log(S) / (alpha - 1),  S = E_P[e^((alpha-1) L)].
Float evaluation uses S - 1 = sum_grid p expm1((alpha-1) L) - m + S_residual, where m is
the residual mass of P: it avoids the cancellation of log(1 + tiny)
(docs/soundness.md#precision-and-cancellation) and gives
certified bounds, S - 1 <= X + tail_p e^((alpha-1) B) and S - 1 >= X - tail_p (B is the
view's residual loss bound), X being the signed grid sum with its error bound.

Any outcome with P > 0 = Q makes every order +inf (support mismatch); outcomes with
P = 0 contribute nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from accountant.distributions import DEFAULT_DPS
from accountant.divergence.common import (
    ULP_SLACK,
    arr,
    as_direction,
    backend_note,
    object_result,
    over_directions,
)
from accountant.divergence.objects import (
    kl_enclosure,
    max_divergence_enclosure,
    rational_pair,
    renyi_enclosure,
    start_precision,
)
from accountant.domains import ALPHA, checked
from accountant.errors import ParameterError
from accountant.numeric.logspace import logsumexp
from accountant.numeric.mp import to_mpf
from accountant.numeric.rounding import UNIT_ROUNDOFF, sum_relative_error
from accountant.numeric.summation import cascade_sum
from accountant.result import Direction, Kind, Result
from accountant.view import ViewPair

__all__ = ["renyi_divergence", "renyi_bracket", "renyi_divergences", "max_divergence",
           "kl_divergence"]

_METHOD = "divergence.renyi"


def _mismatch_kind(view: ViewPair) -> Kind:
    """+inf from a point with P > 0 = Q is exact only on a grid of true values; on a grid
    of lower-bound values Q may be positive there, and +inf is merely an upper bound."""
    return Kind.EXACT if view.grid_exact else Kind.UPPER


def _has_infinite_loss(view: ViewPair) -> bool:
    if view.backend == "float":
        return bool(np.any(np.isposinf(view.float_loss) & np.isfinite(view.p)))
    return any(pi > 0 and qi == 0 for pi, qi in zip(view.p, view.q, strict=True))


def _result(value: Any, kind: Kind, d: Direction, alpha: float, method: str,
            error_budget: float = 0.0, quantity: str = "renyi") -> Result:
    return Result(quantity=quantity, value=value, kind=kind, direction=d, method=method,
                  error_budget=error_budget if kind is not Kind.EXACT else 0.0, order=alpha)


def _renyi_float(v: ViewPair, alpha: float) -> tuple[float, float]:
    """(nominal, upper) of D_alpha(P||Q) for a float view without infinite loss."""
    a1 = alpha - 1.0
    n = v.size
    ok = np.isfinite(v.p) & ~np.isneginf(v.float_loss)
    lp, loss = v.p[ok], v.float_loss[ok]
    lerr = arr(v.log_error, n)[ok] + ULP_SLACK
    lossr = arr(v.loss_error, n)[ok] + 4 * UNIT_ROUNDOFF * np.abs(loss)
    log_resid = _log_residual_term(v, a1)
    resid = _residual_term(v, a1)
    expo = a1 * loss
    if lp.size and float(np.max(expo + a1 * lossr)) < 600.0 and log_resid < 600.0:
        p = np.exp(lp)
        terms = p * np.expm1(expo)
        # compensated (cascade) sum: within 2u |x| + 2 N u^2 sum|terms| of the exact sum,
        # 5x faster than math.fsum (38 % of a GKM composition: every count's view, 15 orders)
        x = cascade_sum(terms)
        abs_terms = np.abs(terms)
        # per-term error: relative error of p (e^lerr - 1), derivative in L, rounding.
        err = float(np.sum(abs_terms * np.expm1(lerr)
                           + p * np.exp(expo) * np.expm1(a1 * lossr) * (1 + np.expm1(lerr))
                           + abs_terms * 4 * UNIT_ROUNDOFF))
        err += 2 * UNIT_ROUNDOFF * abs(x) + 2 * terms.size * UNIT_ROUNDOFF ** 2 * float(
            np.sum(abs_terms))
        err *= 1 + 1e-9
        upper_x = x + err + resid
        nominal = math.log1p(max(x, -1 + 1e-300)) / a1
        upper = math.log1p(upper_x) / a1 if upper_x > -1 else 0.0
    else:  # large orders: log-space sum, no cancellation concern since S >> 1
        log_s = logsumexp(lp + expo)
        nominal = log_s / a1
        log_su = (logsumexp(lp + lerr + expo + a1 * lossr)
                  + math.log1p(sum_relative_error(lp.size) + ULP_SLACK))
        log_su = float(np.logaddexp(log_su, log_resid))
        upper = log_su / a1
    upper = max(upper, 0.0) * (1 + ULP_SLACK) + 2 * UNIT_ROUNDOFF
    return max(nominal, 0.0), upper


def _renyi_float_lower(v: ViewPair, alpha: float) -> float:
    """Certified lower end of D_alpha(P||Q) from the grid of a float view.

    The moment E_P[e^((alpha-1) L)] is at least its sum over the grid (the truncated
    outcomes only add), and that sum is at least x + 1 - tail_p with
    x = sum_grid P expm1((alpha-1) L); every term is lowered by its error bound. On a grid
    of lower-bound values (a truncated convolution) the true Q at a grid point is at most
    the grid value plus tail_q, and the term decreases in Q, so the loss is lowered to
    log P - log(Q + tail_q) first.
    """
    a1 = alpha - 1.0
    n = v.size
    ok = np.isfinite(v.p) & ~np.isneginf(v.float_loss)
    lp, loss = v.p[ok], v.float_loss[ok]
    if not lp.size:
        return 0.0
    if not v.grid_exact and v.tail_q > 0:
        loss = lp - np.logaddexp(lp - loss, math.log(float(v.tail_q)) + ULP_SLACK)
    lerr = arr(v.log_error, n)[ok] + ULP_SLACK
    lossr = arr(v.loss_error, n)[ok] + 4 * UNIT_ROUNDOFF * np.abs(loss)
    expo = a1 * loss
    if float(np.max(expo + a1 * lossr)) < 600.0:
        p = np.exp(lp)
        terms = p * np.expm1(expo)
        abs_terms = np.abs(terms)
        err = float(np.sum(abs_terms * np.expm1(lerr)
                           + p * np.exp(expo) * np.expm1(a1 * lossr) * (1 + np.expm1(lerr))
                           + abs_terms * 4 * UNIT_ROUNDOFF)) * (1 + 1e-9)
        x = cascade_sum(terms)  # within 2u |x| + 2 N u^2 sum|terms| (see _renyi_float)
        err += 2 * UNIT_ROUNDOFF * abs(x) + 2 * terms.size * UNIT_ROUNDOFF ** 2 * float(
            np.sum(abs_terms))
        x_low = x - err - float(v.tail_p) * (1 + 1e-12)
        lower = math.log1p(x_low) / a1 if x_low > -1 else 0.0
    else:
        log_s = (logsumexp(lp - lerr + expo - a1 * lossr)
                 - math.log1p(sum_relative_error(lp.size) + ULP_SLACK))
        lower = log_s / a1
    return max(lower * (1 - ULP_SLACK) - 2 * UNIT_ROUNDOFF, 0.0)


def _log_residual_term(v: ViewPair, a1: float) -> float:
    """Upper bound on the log of E over the residual of e^((alpha-1) L):
    log(tail_p) + (alpha-1) B, kept in log space (it exceeds the float range at high
    orders; capping the exponent there made the upper bound optimistic)."""
    t = float(v.tail_p)
    if t == 0:
        return -math.inf
    if not math.isfinite(v.residual_loss_bound):
        return math.inf
    return (math.log(t) + a1 * v.residual_loss_bound) * (1 + ULP_SLACK) + 1e-12


def _residual_term(v: ViewPair, a1: float) -> float:
    """`_log_residual_term` exponentiated (inf beyond the float range)."""
    log_r = _log_residual_term(v, a1)
    return math.exp(log_r) if log_r < 700.0 else math.inf


def _start(dps: int) -> int:
    return start_precision(dps)


@checked(alpha=ALPHA)
def renyi_divergence(view: ViewPair, alpha: float, *,
                     direction: Direction | str = Direction.MAX,
                     dps: int = DEFAULT_DPS) -> Result:
    """D_alpha for real alpha > 1 (alpha = inf gives the max-divergence).

    Raises ParameterError for alpha <= 1 (use `kl_divergence` for the limit alpha -> 1).
    Returns +inf (EXACT) on support mismatch. Float results are UPPER bounds; with a
    residual of unknown loss bound the upper bound is +inf.

    Args:
        view: the pair of views.
        alpha: Renyi order, a real in (1, inf]; inf is delegated to `max_divergence`.
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits: the first ball precision of the mp/exact backends (integer
            orders sum the moment exactly in rationals; the logarithm is a ball).

    Returns:
        Result(quantity="renyi", order=alpha): UPPER for float views (error_budget = upper -
        nominal); for mp/exact, EXACT (an mpf with its certified `radius` and `precision`,
        docs/soundness.md#exactness) when the grid holds all of P's mass with true values
        and the enclosure is tight, else UPPER (the residual term tail_p e^((alpha-1) B)
        added to the moment). A
        support mismatch gives +inf, EXACT in that direction (for "max" with a mismatch in
        one direction only, the maximum is labelled UPPER, value +inf).

    Raises:
        ParameterError: alpha outside (1, inf] (or NaN), or an unknown direction.
    """
    direction = as_direction(direction)
    if alpha == math.inf:
        return max_divergence(view, direction=direction, dps=dps)

    def one(v: ViewPair, d: Direction) -> Result:
        method = f"{_METHOD}.renyi_divergence ({backend_note(v)})"
        if _has_infinite_loss(v):
            return _result(math.inf, _mismatch_kind(v), d, alpha,
                           method + " [support mismatch]")
        if v.backend == "float":
            nominal, upper = _renyi_float(v, float(alpha))
            return _result(upper, Kind.UPPER, d, alpha, method, max(0.0, upper - nominal))
        cert = renyi_enclosure(rational_pair(v), alpha, _start(dps))
        return object_result(cert, quantity="renyi", view=v, direction=d,
                             method=f"{_METHOD}.renyi_divergence",
                             exact_ok=v.tail_p == 0 and v.grid_exact, order=alpha)

    return over_directions(view, direction, one)


@checked(alpha=ALPHA)
def renyi_bracket(view: ViewPair, alpha: float, *,
                  direction: Direction | str = Direction.MAX,
                  dps: int = DEFAULT_DPS) -> tuple[Result, Result]:
    """(lower, upper) Results for D_alpha, alpha > 1 real.

    The upper end is `renyi_divergence`. The lower end is certified from the grid: the
    truncated outcomes can only add to the moment, so the grid's own sum, with every term
    lowered by its error bound, bounds it below; on a grid of lower-bound values (a
    truncated convolution) Q is raised by tail_q first. For the maximum over both orders,
    the larger lower end.

    Args:
        view: the pair of views.
        alpha: Renyi order, a finite real > 1.
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits: the first ball precision of the mp/exact backends (their lower
            end is the certified enclosure's).

    Returns:
        (LOWER, UPPER) Results on quantity "renyi" at order alpha; the EXACT upper Result
        twice when `renyi_divergence` is exact.

    Raises:
        ParameterError: alpha is not a real order > 1 (use `max_divergence` for inf), or an
            unknown direction.
    """
    direction = as_direction(direction)
    if alpha == math.inf:
        raise ParameterError("alpha=inf: use max_divergence")
    upper = renyi_divergence.unchecked(view, alpha, direction=direction, dps=dps)
    if upper.kind is Kind.EXACT:
        return upper, upper

    def one(v: ViewPair) -> Any:
        if _has_infinite_loss(v) and v.grid_exact:
            return math.inf
        if v.backend == "float":
            return _renyi_float_lower(v, float(alpha))
        cert = renyi_enclosure(rational_pair(v), alpha, _start(dps))
        return cert.lower_value(True)

    sides = [view] if direction is Direction.P_Q else (
        [view.swapped()] if direction is Direction.Q_P else [view, view.swapped()])
    low = max((one(v) for v in sides), key=to_mpf)
    lower = Result(quantity="renyi", value=low, kind=Kind.LOWER, direction=direction,
                   method=f"{_METHOD}.renyi_bracket ({backend_note(view)}, grid sum)",
                   order=float(alpha))
    return lower, upper


def renyi_divergences(view: ViewPair, alphas: list[float], *,
                      direction: Direction | str = Direction.MAX,
                      dps: int = DEFAULT_DPS) -> list[Result]:
    """`renyi_divergence` at several orders (one Result each, in the order given).

    Args:
        view: the pair of views.
        alphas: Renyi orders, each in (1, inf].
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits for the mp/exact backends.

    Returns:
        A list of Results, as `renyi_divergence` returns them.

    Raises:
        ParameterError: as `renyi_divergence`, for the first bad order.
    """
    return [renyi_divergence(view, a, direction=direction, dps=dps) for a in alphas]


def max_divergence(view: ViewPair, *, direction: Direction | str = Direction.MAX,
                   dps: int = DEFAULT_DPS) -> Result:
    """D_inf(P||Q) = log max_{P(x) > 0} P(x)/Q(x): the pure-DP epsilon of the pair.

    Args:
        view: the pair of views.
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits for the mp/exact backends.

    Returns:
        Result(quantity="max_divergence", order=inf), never below 0: +inf (EXACT) on support
        mismatch; float views: UPPER, the largest loss plus its error bound (and the residual
        loss bound B when tail_p > 0); mp/exact: log of the rational max P/Q in a ball,
        EXACT (with `radius`) when tail_p = 0, the grid is exact and the enclosure tight,
        else UPPER (max with B when tail_p > 0).

    Raises:
        ParameterError: an unknown direction.
    """
    direction = as_direction(direction)

    def one(v: ViewPair, d: Direction) -> Result:
        method = f"divergence.max_divergence ({backend_note(v)})"
        if _has_infinite_loss(v):
            return _result(math.inf, _mismatch_kind(v), d, math.inf,
                           method + " [support mismatch]",
                           quantity="max_divergence")
        resid = v.residual_loss_bound if v.tail_p > 0 else -math.inf
        if v.backend == "float":
            ok = np.isfinite(v.p) & ~np.isneginf(v.float_loss)
            loss = v.float_loss[ok]
            err = arr(v.loss_error, v.size)[ok] + 4 * UNIT_ROUNDOFF * np.abs(loss)
            grid = float(np.max(loss + err)) if loss.size else -math.inf
            value = max(grid, resid, 0.0)
            nominal = max(float(np.max(loss)) if loss.size else 0.0, 0.0)
            return _result(value, Kind.UPPER, d, math.inf, method, max(0.0, value - nominal),
                           quantity="max_divergence")
        cert = max_divergence_enclosure(rational_pair(v), _start(dps))
        return object_result(cert, quantity="max_divergence", view=v, direction=d,
                             method="divergence.max_divergence",
                             exact_ok=v.tail_p == 0 and v.grid_exact, order=math.inf)

    return over_directions(view, direction, one)


def kl_divergence(view: ViewPair, *, direction: Direction | str = Direction.MAX,
                  dps: int = DEFAULT_DPS) -> Result:
    """KL(P||Q) = E_P[L], the limit alpha -> 1 of D_alpha.

    Args:
        view: the pair of views.
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits for the mp/exact backends.

    Returns:
        Result(quantity="kl", order=1.0): +inf (EXACT) on support mismatch; float views:
        UPPER (grid sum plus its error bound plus tail_p B, at least 0); mp/exact: a ball
        sum, UPPER (plus tail_p B) when tail_p > 0 or the grid holds lower-bound values, else
        EXACT with its `radius` when the enclosure is tight (UPPER otherwise).

    Raises:
        ParameterError: an unknown direction.
    """
    direction = as_direction(direction)

    def one(v: ViewPair, d: Direction) -> Result:
        method = f"divergence.kl_divergence ({backend_note(v)})"
        if _has_infinite_loss(v):
            return _result(math.inf, _mismatch_kind(v), d, 1.0,
                           method + " [support mismatch]",
                           quantity="kl")
        resid = float(v.tail_p) * v.residual_loss_bound if v.tail_p > 0 else 0.0
        if v.backend == "float":
            ok = np.isfinite(v.p) & ~np.isneginf(v.float_loss)
            p, loss = np.exp(v.p[ok]), v.float_loss[ok]
            terms = p * loss
            err = float(np.sum(np.abs(terms) * np.expm1(arr(v.log_error, v.size)[ok]
                                                        + ULP_SLACK)
                               + p * (arr(v.loss_error, v.size)[ok] + 4 * UNIT_ROUNDOFF
                                      * np.abs(loss))))
            nominal = math.fsum(terms)
            upper = max(nominal + err * (1 + 1e-9) + resid, 0.0)
            return _result(upper, Kind.UPPER, d, 1.0, method, max(0.0, upper - nominal),
                           quantity="kl")
        cert = kl_enclosure(rational_pair(v), _start(dps))
        return object_result(cert, quantity="kl", view=v, direction=d,
                             method="divergence.kl_divergence",
                             exact_ok=v.tail_p == 0 and v.grid_exact, order=1.0)

    return over_directions(view, direction, one)
