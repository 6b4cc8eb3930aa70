"""Hockey-stick divergence delta(epsilon) and its exact inversion epsilon(delta).

docs/divergences.md#hockey-stick-divergence to docs/divergences.md#exact-inversion. For P, Q on a
grid with privacy loss L = log(P/Q),

    H_{e^eps}(P||Q) = sum_x [P(x) - e^eps Q(x)]_+ = E_P[(1 - e^(eps - L))_+]
                    = max_j (A_j - e^eps B_j),

where A_j, B_j are the P- and Q-masses of the j outcomes of largest loss (j = 0 holds the
infinite-loss atoms). Hence epsilon(delta) = max(0, max_j log((A_j - delta)/B_j)) over j
with A_j > delta: an exact inversion by one sort and two cumulative sums, no bisection.

Soundness (float backend): the upper bound evaluates the same formulas on a pessimistic
pair, P's log-values raised by their error bound and losses raised by theirs, which
dominates every pair consistent with the error model; cumulative sums are rounded in the
safe direction; the residual mass `tail_p` is added to delta (subadditivity, see
`accountant.view`). Lower bounds use the opposite shifts and need an exact grid.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
from flint import fmpq

from accountant.distributions import DEFAULT_DPS
from accountant.divergence.common import (
    ULP_SLACK,
    add_values,
    arr,
    as_direction,
    backend_note,
    budget,
    exact_key,
    exp_down,
    exp_up,
    object_bracket,
    object_result,
    over_directions,
)
from accountant.divergence.objects import (
    Certified,
    delta_enclosure,
    epsilon_enclosure,
    rational_pair,
    start_precision,
)
from accountant.domains import DELTA, EPSILON, Interval, checked
from accountant.errors import ParameterError
from accountant.numeric.logspace import log1mexp, logsumexp
from accountant.numeric.mp import to_fmpq, to_mpf
from accountant.numeric.rounding import UNIT_ROUNDOFF, sum_relative_error
from accountant.result import Direction, Kind, Result
from accountant.view import ViewPair

__all__ = ["delta_for_epsilon", "epsilon_for_delta", "delta_bracket", "epsilon_bracket"]

_METHOD = "divergence.hockey_stick"
_EXP_EPSILON = Interval("exp_epsilon", 1, math.inf, closed="left")


# ------------------------------------------------------------------ float backend
def _pessimistic(view: ViewPair, upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """log P and loss shifted to the side that makes H larger (upper) or smaller."""
    n = view.size
    lerr = arr(view.log_error, n) + ULP_SLACK
    # loss margin also covers rounding of eps - L (relative u of the larger magnitude)
    loss = view.float_loss
    finite = np.isfinite(loss)
    lmargin = arr(view.loss_error, n) + 4 * UNIT_ROUNDOFF * np.abs(np.where(finite, loss, 0.0))
    if upper:
        return view.p + lerr, np.where(finite, loss + lmargin, loss)
    return view.p - lerr, np.where(finite, loss - lmargin, loss)


def _log_delta_float(lp: np.ndarray, loss: np.ndarray, epsilon: float, side: int) -> float:
    """log sum_x p (1 - e^(eps - L))_+ on the grid; side +1/-1 rounds up/down, 0 nominal."""
    atoms = np.isposinf(loss) & np.isfinite(lp)
    live = (loss > epsilon) & ~atoms & np.isfinite(lp)
    terms = np.concatenate([lp[atoms], lp[live] + log1mexp(epsilon - loss[live])])
    if terms.size == 0:
        return -math.inf
    out = logsumexp(terms)
    if side == 0:
        return out
    # logsumexp = m + log(sum exp(x - m)): the subtractions and the final addition round
    # relative to |x - m| and |out|; the sum itself as in `sum_relative_error`.
    spread = float(np.max(np.abs(terms - np.max(terms))))
    rel = sum_relative_error(terms.size) + ULP_SLACK * (1.0 + abs(out) + spread)
    return out + side * math.log1p(rel) if side > 0 else out + math.log1p(-rel)


def _delta_float(view: ViewPair, epsilon: float) -> tuple[Any, Any, Any]:
    """(lower or None, nominal, upper) of H_{e^eps}(P||Q) on a float view."""
    lp_u, loss_u = _pessimistic(view, True)
    upper = add_values(exp_up(_log_delta_float(lp_u, loss_u, epsilon, +1)),
                       _up_tail(view.tail_p))
    nominal = exp_up(_log_delta_float(view.p, view.float_loss, epsilon, 0)) * (1 - ULP_SLACK)
    lp_l, loss_l = _pessimistic(view, False)
    lower = exp_down(_log_delta_float(lp_l, loss_l, epsilon, -1))
    if not view.grid_exact:
        lower = max(0.0, float(lower) - _deficit_allowance(view, epsilon))
    return lower, nominal, upper


def _deficit_allowance(view: ViewPair, epsilon: float) -> float:
    """e^eps tail_q, rounded up: what Q's grid deficit can take off the hockey-stick.

    With grid values that are only lower bounds (p~ <= p, q~ <= q, Q's deficits summing
    to at most tail_q): H(P||Q) >= sum_grid [p~ - e^eps (q~ + m_q)]_+
    >= H_grid - e^eps tail_q.
    """
    return math.exp(min(epsilon, 700.0)) * float(view.tail_q) * (1 + 1e-12)


def _up_tail(t: Any) -> Any:
    return float(t) * (1 + 1e-12) if not isinstance(t, mpmath.mpf) else t


def _log_cumsum(x: np.ndarray, need_above: float) -> np.ndarray:
    """log(cumsum(exp(x))), accurate wherever the partial sum exceeds exp(need_above).

    Linear-space cumsum after scaling by the maximum (10x faster than logaddexp.accumulate)
    when every partial sum that matters is far above the underflow threshold; the terms
    that underflow then weigh < N e^-145 relative to those sums. Otherwise log space.
    """
    m = float(np.max(x))
    if need_above > m - 600.0:
        with np.errstate(divide="ignore"):
            return m + np.log(np.cumsum(np.exp(x - m)))
    return np.logaddexp.accumulate(x)


def _finite_abs(x: np.ndarray) -> np.ndarray:
    return np.abs(np.where(np.isfinite(x), x, 0.0))


def _sorted_losses(lp: np.ndarray, loss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Finite outcomes of positive loss, sorted by decreasing loss (no sort if they already
    are, as for monotone likelihood ratios)."""
    keep = np.isfinite(loss) & (loss > 0)
    lps, ls = lp[keep], loss[keep]
    if ls.size > 1 and not np.all(ls[1:] <= ls[:-1]):
        order = np.argsort(-ls, kind="stable")
        lps, ls = lps[order], ls[order]
    return lps, ls


def _epsilon_sorted(lps: np.ndarray, ls: np.ndarray, log_a0: float, log_target: float,
                    side: int) -> float:
    """max(0, max_j log((A_j - delta)/B_j)) over outcomes sorted by decreasing loss."""
    if lps.size == 0:
        return 0.0
    log_a = _log_cumsum(lps, log_target)
    if log_a0 > -math.inf:
        log_a = np.logaddexp(log_a, log_a0)
    live = log_a > log_target
    if not np.any(live):
        return 0.0
    lqs = lps - ls
    log_b = _log_cumsum(lqs, math.inf)
    if float(np.min(log_b[live])) < float(np.max(lqs)) - 600.0:
        log_b = np.logaddexp.accumulate(lqs)  # some B_j that matter would underflow
    if side != 0:
        # Each cumulative step rounds relative to the magnitude of its operands (a few u of
        # |log value|), and errors of j steps add up: round A up and B down (upper side).
        steps = np.arange(1, lps.size + 1) + 2
        # partial sums that underflowed (-inf) stay -inf: give them a finite magnitude
        mag = 1.0 + np.maximum(_finite_abs(log_a), _finite_abs(log_b)) + np.abs(ls)
        slack = np.log1p(steps * ULP_SLACK * mag)
        log_a, log_b = log_a + side * slack, log_b - side * slack
        live = log_a > log_target
        if not np.any(live):
            return 0.0
    cand = log_a[live] + log1mexp(log_target - log_a[live]) - log_b[live]
    eps = max(0.0, float(np.max(cand)))
    if side > 0:
        return eps * (1 + ULP_SLACK) + 4 * UNIT_ROUNDOFF
    return eps * (1 - ULP_SLACK) if side < 0 else eps


def _epsilon_float(view: ViewPair, delta: Any, side: int) -> float:
    """epsilon(delta) for P||Q by the sorted-loss inversion, on a pessimistic pair.

    side +1: the least eps with H_upper(eps) <= delta - tail_p (a sound upper bound);
    side -1: the least eps with H_lower(eps) <= delta (a lower bound; for grids of lower-bound
        values, delta is raised by e^E tail_q with E the upper end, see `_deficit_allowance`);
    side 0: the plain float evaluation (for the error budget).
    """
    if side == 0:
        lp, loss = view.p, view.float_loss
    else:
        lp, loss = _pessimistic(view, side > 0)
    # delta may be an mpf below float range (1e-400): work with its logarithm
    target = to_mpf(delta) - (to_mpf(view.tail_p) * (1 + 1e-12) if side > 0 else 0)
    if side < 0 and not view.grid_exact:
        # only epsilon <= the upper end E matters, and there H >= H_grid - e^E tail_q
        upper_end = _epsilon_float(view, delta, +1)
        if not math.isfinite(upper_end):
            upper_end = float(np.max(np.where(np.isfinite(view.float_loss), view.float_loss, 0.0)))
        target = target + _deficit_allowance(view, upper_end)
    if target <= 0:
        return math.inf
    ok = np.isfinite(lp)
    lp, loss = lp[ok], loss[ok]
    atoms = np.isposinf(loss)
    log_a0 = logsumexp(lp[atoms]) if np.any(atoms) else -math.inf
    log_target = float(mpmath.log(target))
    # the infinite-loss mass against delta, rounded in the safe direction: for the upper
    # end, +inf as soon as the mass may exceed delta; for the lower end only when it must
    slack = (ULP_SLACK * max(1.0, abs(log_a0), abs(log_target))
             + math.log1p(sum_relative_error(int(np.count_nonzero(atoms)))))
    if log_a0 + (slack if side > 0 else -slack if side < 0 else 0.0) > log_target:
        return math.inf
    lps, ls = _sorted_losses(lp, loss)
    return _epsilon_sorted(lps, ls, log_a0, log_target, side)


# ------------------------------------------------------------------ mp / exact backends
def _objects_exact(view: ViewPair) -> bool:
    """An mp/exact value can be EXACT only if the grid holds all of P's mass with true
    values (no residual, not a truncated convolution's lower-bound values)."""
    return view.tail_p == 0 and view.grid_exact


def _gamma(epsilon: float | None, exp_epsilon: Any) -> fmpq | None:
    """e^epsilon as a rational when it is one: exp_epsilon given as a rational (or a float,
    an exact dyadic), or epsilon = 0; None when it is irrational (epsilon > 0 a float)."""
    if exp_epsilon is not None:
        return to_fmpq(exp_epsilon)
    return fmpq(1) if epsilon == 0 else None


def _delta_certified(v: ViewPair, epsilon: float, gamma: fmpq | None,
                     dps: int) -> Certified:
    return delta_enclosure(rational_pair(v), gamma, epsilon, start_precision(dps))


def _epsilon_certified(v: ViewPair, delta: Any, dps: int) -> Certified:
    return epsilon_enclosure(rational_pair(v), to_fmpq(delta), start_precision(dps))


# ------------------------------------------------------------------ public API
def delta_for_epsilon(view: ViewPair, epsilon: float | None = None, *,
                      exp_epsilon: Any = None, direction: Direction | str = Direction.MAX,
                      dps: int = DEFAULT_DPS) -> Result:
    """delta(epsilon) = H_{e^epsilon}, for P||Q, Q||P or the maximum of both.

    Args:
        view: the pair of views.
        epsilon: epsilon >= 0. Alternatively give exp_epsilon = e^epsilon >= 1; with the
            exact backend a rational e^epsilon (epsilon = 0, or a Fraction exp_epsilon)
            gives an exact Fraction delta.
        exp_epsilon: e^epsilon >= 1 (float, Fraction or mpf, each taken at its exact
            rational value), instead of `epsilon`.
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits: the first ball precision of the exact/mp backends (raised
            until the value is certified, see docs/soundness.md#exactness).

    Returns:
        Result(quantity="delta", at=epsilon). Float views: UPPER, with the residual mass and
        the float error bound folded into error_budget, capped at 1. Exact/mp views
        (docs/soundness.md#exactness): EXACT when the grid holds all of P's mass with true
        values and the certified enclosure is tight (a Fraction with radius 0 at a rational
        e^epsilon on an exact view; else an mpf with its certified `radius` and the ball
        `precision`), otherwise UPPER (the enclosure's upper end, its width in
        error_budget). For "max", the larger direction, EXACT only if both directions
        are.

    Raises:
        ParameterError: both or neither of epsilon and exp_epsilon given, epsilon < 0 (or
            NaN), exp_epsilon < 1, or an unknown direction.
    """
    direction = as_direction(direction)
    if (epsilon is None) == (exp_epsilon is None):
        raise ParameterError("give exactly one of epsilon and exp_epsilon")
    if epsilon is not None:
        EPSILON.check(epsilon)
        at = float(epsilon)
    else:
        _EXP_EPSILON.check(exp_epsilon)
        at = float(mpmath.log(to_mpf(exp_epsilon)))
    gamma = _gamma(epsilon, exp_epsilon)

    def one(v: ViewPair, d: Direction) -> Result:
        if v.backend == "float":
            _, nominal, upper = _delta_float(v, at)
            return Result(quantity="delta", value=_clip1(upper), kind=Kind.UPPER, direction=d,
                          method=f"{_METHOD}.delta_for_epsilon ({backend_note(v)})",
                          error_budget=budget(upper, nominal), at=at)
        cert = _delta_certified(v, at, gamma, dps)
        return object_result(cert, quantity="delta", view=v, direction=d,
                             method=f"{_METHOD}.delta_for_epsilon",
                             exact_ok=_objects_exact(v), at=at)

    return over_directions(view, direction, one)


def _clip1(x: Any) -> Any:
    return min(x, 1.0) if not isinstance(x, mpmath.mpf) else x


def epsilon_for_delta(view: ViewPair, delta: Any, *, direction: Direction | str = Direction.MAX,
                      dps: int = DEFAULT_DPS) -> Result:
    """epsilon(delta) = inf{eps >= 0 : H_{e^eps} <= delta}, by the exact inversion of
    docs/divergences.md#exact-inversion.

    Returns +inf when the infinite-loss mass (or the certified residual mass) exceeds
    delta. Float results are UPPER bounds (the end known to satisfy the target).

    Args:
        view: the pair of views.
        delta: target delta in (0, 1): a float (subnormals included), an mpf below the
            float range, or a Fraction; taken at its exact rational value.
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits: the first ball precision of the exact/mp backends.

    Returns:
        Result(quantity="epsilon", at=float(delta)). Float views: UPPER, with the float
        error bound in error_budget. Exact/mp views: epsilon is the log of a rational
        max_j (A_j - delta)/B_j, taken in ball arithmetic: EXACT (an mpf with its certified
        `radius` and `precision`) when the grid holds all of P's mass with true values and
        the enclosure is tight, else UPPER (delta reduced by tail_p; the enclosure's width
        in error_budget).

    Raises:
        ParameterError: delta outside (0, 1), or an unknown direction.
    """
    direction = as_direction(direction)
    DELTA.check(delta)

    def one(v: ViewPair, d: Direction) -> Result:
        if v.backend == "float":
            upper = _epsilon_float(v, delta, +1)
            nominal = _epsilon_float(v, delta, 0)
            return Result(quantity="epsilon", value=upper, kind=Kind.UPPER, direction=d,
                          method=f"{_METHOD}.epsilon_for_delta ({backend_note(v)})",
                          error_budget=budget(upper, nominal), at=float(delta))
        return object_result(_epsilon_certified(v, delta, dps), quantity="epsilon", view=v,
                             direction=d, method=f"{_METHOD}.epsilon_for_delta",
                             exact_ok=_objects_exact(v), at=float(delta))

    return over_directions(view, direction, one)


def _sides(view: ViewPair, direction: Direction) -> list[ViewPair]:
    """The orientations a direction asks for (both, for the maximum)."""
    if direction is Direction.P_Q:
        return [view]
    if direction is Direction.Q_P:
        return [view.swapped()]
    return [view, view.swapped()]


def _bracket(quantity: str, lower: Any, upper: Any, direction: Direction, at: Any,
             name: str) -> tuple[Result, Result]:
    def make(value: Any, kind: Kind) -> Result:
        return Result(quantity=quantity, value=value, kind=kind, direction=direction,
                      at=float(at), method=f"{_METHOD}.{name}")

    return make(lower, Kind.LOWER), make(upper, Kind.UPPER)


def _max_ends(ends: list[tuple[Result, Result]]) -> tuple[Result, Result]:
    """The larger lower end and the larger upper end over the orders asked for."""
    lower = max((e[0] for e in ends), key=lambda r: exact_key(r.value))
    upper = max((e[1] for e in ends), key=lambda r: exact_key(r.value))
    return lower, upper


@checked(epsilon=EPSILON)
def delta_bracket(view: ViewPair, epsilon: float, *,
                  direction: Direction | str = Direction.MAX,
                  dps: int = DEFAULT_DPS) -> tuple[Result, Result]:
    """(lower, upper) Results for delta(epsilon) (float views; on grids of lower-bound values
    the lower end subtracts e^eps tail_q, see `_deficit_allowance`).

    Args:
        view: the pair of views (any backend).
        epsilon: epsilon >= 0.
        direction: "P||Q", "Q||P" or "max" (each end the larger over both orders).
        dps: decimal digits: the first ball precision of the exact/mp backends.

    Returns:
        (LOWER, UPPER) Results on delta, method "divergence.hockey_stick.delta_bracket"; for
        the mp/exact backends, the EXACT `delta_for_epsilon` Result twice when it is exact,
        else the two ends of the certified enclosure (the lower end is the grid sum, less
        e^eps tail_q on grids of lower-bound values, with the values' relative error taken
        on the safe side).

    Raises:
        ParameterError: epsilon < 0 (or NaN), or an unknown direction.
    """
    direction = as_direction(direction)
    if view.backend != "float":
        r = delta_for_epsilon(view, epsilon, direction=direction, dps=dps)
        if r.kind is Kind.EXACT:
            return r, r
        gamma = _gamma(float(epsilon), None)
        ends = [object_bracket(_delta_certified(v, float(epsilon), gamma, dps),
                               quantity="delta", view=v, direction=direction,
                               method=f"{_METHOD}.delta_bracket", at=float(epsilon))
                for v in _sides(view, direction)]
        return _max_ends(ends)
    vals = [_delta_float(v, float(epsilon)) for v in _sides(view, direction)]
    lower = max((v[0] for v in vals), key=to_mpf)
    upper = max((v[2] for v in vals), key=to_mpf)
    return _bracket("delta", lower, _clip1(upper), direction, epsilon, "delta_bracket")


@checked(delta=DELTA)
def epsilon_bracket(view: ViewPair, delta: float, *,
                    direction: Direction | str = Direction.MAX,
                    dps: int = DEFAULT_DPS) -> tuple[Result, Result]:
    """(lower, upper) Results for epsilon(delta) (float views; any grid, see
    `_epsilon_float`; delta may be an mpf below float range).

    Args:
        view: the pair of views (any backend).
        delta: target delta in (0, 1).
        direction: "P||Q", "Q||P" or "max" (each end the larger over both orders).
        dps: decimal digits: the first ball precision of the exact/mp backends.

    Returns:
        (LOWER, UPPER) Results on epsilon, method "divergence.hockey_stick.epsilon_bracket";
        for the mp/exact backends, the EXACT `epsilon_for_delta` Result twice when it is
        exact, else the two ends of the certified enclosure (the lower end inverts the grid
        without its residual; 0 on grids of lower-bound values).

    Raises:
        ParameterError: delta outside (0, 1), or an unknown direction.
    """
    direction = as_direction(direction)
    if view.backend != "float":
        r = epsilon_for_delta(view, delta, direction=direction, dps=dps)
        if r.kind is Kind.EXACT:
            return r, r
        ends = [object_bracket(_epsilon_certified(v, delta, dps), quantity="epsilon", view=v,
                               direction=direction, method=f"{_METHOD}.epsilon_bracket",
                               at=float(delta))
                for v in _sides(view, direction)]
        return _max_ends(ends)
    sides = _sides(view, direction)
    lower = max(_epsilon_float(v, delta, -1) for v in sides)
    upper = max(_epsilon_float(v, delta, +1) for v in sides)
    return _bracket("epsilon", lower, upper, direction, delta, "epsilon_bracket")
