"""Renyi divergences of shuffled binary randomized response
(docs/single-message.md#binary-randomized-response).

The special pair's orders in one certified pass (`special_pair_renyi`), one count's pair
through the generic view code, and the mechanism's worst case over every count for
n <= RENYI_WORST_CASE_LIMIT (beyond it, the blanket pair of
docs/single-message.md#blanket-pairs-for-k-rr as the certified upper
bound). The max-divergence is epsilon0 for every pair.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from accountant.divergence import renyi_bracket
from accountant.divergence.common import as_direction
from accountant.domains import ALPHA, EPSILON0, N_PAIR, checked, finite_orders
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.numeric.summation import cascade_sum
from accountant.numeric.tails import binomial_log_window
from accountant.pairs import clones as clone_pair
from accountant.protocols.binary_rr.view import (
    METHOD,
    ONES,
    SOURCE,
    as_checked,
    flip_probability,
    pair_linear_log,
    special_loss,
    view_pair,
)
from accountant.result import Bracket, Direction, Kind, Result

# Largest n for which ones=None maximises Renyi divergences over every count's pair (one
# direct convolution per count; one scan serves every order: about 6 s at n = 1e4).
RENYI_WORST_CASE_LIMIT = 10_000

__all__ = ["renyi_divergence", "special_pair_renyi", "renyi_curve", "max_divergence",
           "RENYI_WORST_CASE_LIMIT"]


@checked(n=N_PAIR, epsilon0=EPSILON0, alpha=ALPHA, ones=ONES)
def renyi_divergence(*, n: int, epsilon0: float, alpha: float, ones: int | None = None,
                     direction: Direction | str = Direction.MAX) -> Bracket:
    """Renyi divergence of order alpha (real > 1 or inf) of one count's pair or the mechanism.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizer's epsilon0, > 0.
        alpha: Renyi order in (1, inf]; inf gives `max_divergence` as both ends.
        ones: how many of the other n-1 users hold a 1 (0..n-1); None for the mechanism.
        direction: "P||Q", "Q||P" or "max". With "max" and ones in (None, 0) the special
            pair's certified bracket (`special_pair_renyi`) is used, otherwise the generic
            `divergence.renyi_bracket`; the all-counts maximum for ones=None always covers
            both orders.

    Returns:
        Bracket. For a given `ones`, `upper` is the certified upper end (float) of the
        pair's exact value and `lower` a lower end. ones=None: the special pair (the
        reverse order is the larger, docs/single-message.md); n <= RENYI_WORST_CASE_LIMIT
        maximises over every count, beyond it `upper` is the blanket pair's certified
        upper bound over all datasets, `lower` the special pair and `special` its upper end.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, ones = as_checked(n, epsilon0, ones)
    if alpha == math.inf:
        r = max_divergence.unchecked(n=n, epsilon0=epsilon0, ones=ones)
        return Bracket(lower=r, upper=r)
    m = f"{METHOD}.renyi_divergence(ones={0 if ones is None else ones})"
    if ones in (None, 0) and as_direction(direction) is Direction.MAX:
        low, up = special_pair_renyi.unchecked(n=n, epsilon0=epsilon0, alphas=[alpha])[0]
        up = up.with_(kind=Kind.UPPER)
    else:
        view = view_pair.unchecked(n=n, epsilon0=epsilon0, ones=0 if ones is None else ones)
        low, up = renyi_bracket.unchecked(view, alpha, direction=direction)
    upper, lower = up.with_(method=m, source=SOURCE), low.with_(method=m, source=SOURCE)
    if ones is not None:
        return Bracket(lower=lower, upper=upper)
    if n <= RENYI_WORST_CASE_LIMIT:
        best = _worst_case_renyi(n, epsilon0, alpha, up)
        return Bracket(lower=lower, upper=best.with_(
            method=f"{METHOD}.renyi_divergence(worst case over all {n} counts)", source=SOURCE))
    blanket = clone_pair.blanket_k_rr.unchecked(n=n, epsilon0=epsilon0, k=2)
    return Bracket(lower=lower, special=upper,
                   upper=clone_pair.renyi_divergence.unchecked(blanket, alpha=alpha).upper)


@checked(n=N_PAIR, epsilon0=EPSILON0, alphas=finite_orders)
def special_pair_renyi(*, n: int, epsilon0: float,
                       alphas: Sequence[float]) -> list[tuple[Result, Result]]:
    """(lower, upper) of the special pair's Renyi divergence at many orders at once.

    Maximum over both orders: E_Q[L^alpha] (P||Q) and E_Q[L^(1-alpha)] (Q||P), Q =
    Bin(n, p), computed as log1p(sum_window Q expm1(beta loss) + residual)
    (docs/soundness.md#precision-and-cancellation:
    the moment is 1 + tiny) with exact summation (fsum) and the closed-form loss. The
    window's outside Q-mass m_out (Chernoff-certified, chosen below e^-(alpha eps0 + 60))
    changes the moment by at most +m_out e^(alpha eps0) or -m_out. The values bracket the
    special pair's exact divergences (a LOWER bound on the mechanism: see
    `renyi_divergence`).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizer's epsilon0, > 0.
        alphas: Renyi orders, each a finite real > 1.

    Returns:
        One (LOWER, UPPER) pair of Results per order, in the order given: quantity "renyi",
        direction MAX, order alpha, error_budget = upper - lower.

    Raises:
        ParameterError: n or epsilon0 outside its domain, or an order outside (1, inf) (inf
            included: use `max_divergence`).
    """
    n, epsilon0 = int(n), float(epsilon0)
    alphas = [float(a) for a in alphas]
    p = flip_probability(epsilon0)
    log_tail = -(max(alphas, default=2.0) * epsilon0 + 60.0)
    lo_k, hi_k, log_out = binomial_log_window(n, p, log_tail)
    k = np.arange(lo_k, hi_k + 1)
    lq = binomial_logpmf(k, n, p)
    q = np.exp(lq)
    q_rel = np.expm1(log_pmf_error(lq))
    loss, loss_err = special_loss(k, n=n, epsilon0=epsilon0)
    results = []
    method = f"{METHOD}.special_pair_renyi (float, certified bracket)"
    for a in alphas:
        a1 = a - 1.0
        ups, lows = [], []
        for beta in (a, 1.0 - a):  # P||Q and Q||P
            x = beta * loss
            if float(np.max(x)) > 300.0:
                # the moment is far from 1: plain log-space sum, relative error suffices
                t = lq + x
                mx = float(np.max(t))
                log_m = math.log(float(np.sum(np.exp(t - mx)))) + mx
                e_log = float(np.max(np.abs(beta) * loss_err + log_pmf_error(lq))) \
                    + (k.size + 8) * 2 * UNIT_ROUNDOFF
                up_log = float(np.logaddexp(log_m + e_log, log_out + abs(beta) * epsilon0))
                ups.append(up_log / a1)
                lows.append((log_m - e_log) / a1)
                continue
            term = q * np.expm1(x)
            s_nom = cascade_sum(term)
            # |error| per term: Q's relative error times |expm1|, plus e^x times the
            # error of x (|beta| loss_err + 4 ulps of x) and the ulps of expm1 and product
            cascade = 4 * UNIT_ROUNDOFF * abs(s_nom) + 2 * k.size * UNIT_ROUNDOFF ** 2 \
                * float(np.sum(np.abs(term)))
            err = cascade + float(np.sum(q_rel * np.abs(term) + q * np.exp(x) * np.expm1(
                np.abs(beta) * loss_err + 4 * UNIT_ROUNDOFF * np.abs(x))
                + 4 * UNIT_ROUNDOFF * np.abs(term))) * (1 + 1e-6) + 1e-300
            res_up = math.exp(log_out + abs(beta) * epsilon0) if log_out > -745 else 0.0
            res_dn = math.exp(log_out) if log_out > -745 else 0.0
            up_m = s_nom + err + res_up
            lo_m = s_nom - err - res_dn
            ups.append(math.log1p(up_m) / a1)
            lows.append(math.log1p(max(lo_m, -1 + 1e-300)) / a1)
        up = max(ups) * (1 + 8 * UNIT_ROUNDOFF) + 1e-300
        low = max(max(lows) * (1 - 8 * UNIT_ROUNDOFF), 0.0)
        mk = lambda v, kind, a=a, up=up, low=low: Result(  # noqa: E731
            quantity="renyi", value=v, kind=kind, direction=Direction.MAX, method=method,
            source=SOURCE, order=a, error_budget=max(up - low, 0.0))
        results.append((mk(low, Kind.LOWER), mk(up, Kind.UPPER)))
    return results


def _worst_case_renyi(n: int, epsilon0: float, alpha: float, special: Result) -> Result:
    best = _worst_case_renyi_many(n, epsilon0, np.array([float(alpha)]))[0]
    return special if best <= float(special) else special.with_(
        value=float(best), error_budget=special.error_budget)


def _worst_case_renyi_many(n: int, epsilon0: float, alphas: np.ndarray) -> np.ndarray:
    """Certified upper ends of max over counts 1..(n-1)//2 and both orders of D_alpha
    (the special pair, count 0, is handled by `special_pair_renyi`).

    Term P (P/Q)^(alpha-1) from linear P, Q of relative error rel: relative error <=
    (2 alpha - 1) rel plus a few ulps of the exponent; the window's outside mass (<=
    resid for both laws) adds at most resid e^((alpha-1) eps0).
    """
    p = flip_probability(epsilon0)
    a1 = alphas[:, None] - 1.0
    best = np.zeros(alphas.size)
    log_tail = -(float(np.max(alphas)) * epsilon0 + 60.0)
    for ones in range(1, (n - 1) // 2 + 1):
        P, Q, rel, log_resid = pair_linear_log(n, p, ones, log_tail)
        keep = (P > 0) & (Q > 0)
        P, Q = P[keep], Q[keep]
        lr = np.log(P) - np.log(Q)
        for a, sign in ((P, 1.0), (Q, -1.0)):
            # log-space moment: (alpha - 1) eps0 reaches ~1000 at alpha = 256, eps0 = 4
            x = np.log(a)[None, :] + a1 * (sign * lr)[None, :]
            top = np.max(x, axis=1)
            log_moment = top + np.log(np.sum(np.exp(x - top[:, None]), axis=1))
            slack = ((2 * alphas + 1) * rel + 8 * UNIT_ROUNDOFF * (1 + np.max(np.abs(x), axis=1))
                     + 4 * a.size * UNIT_ROUNDOFF)
            log_upper = np.logaddexp(log_moment + np.log1p(slack),
                                     log_resid + a1[:, 0] * epsilon0)
            best = np.maximum(best, log_upper / a1[:, 0] * (1 + 4 * UNIT_ROUNDOFF))
    # every pair is epsilon0-DP: D_alpha <= D_inf <= epsilon0
    return np.minimum(best, epsilon0)


@checked(n=N_PAIR, epsilon0=EPSILON0, alphas=finite_orders, ones=ONES)
def renyi_curve(*, n: int, epsilon0: float, alphas: Sequence[float],
                ones: int | None = None) -> list[tuple[Result, Result]]:
    """(lower, upper) Renyi divergences at many real orders > 1, maximum over both orders.

    ones=0 or n-1: the special pair's certified bracket (`special_pair_renyi`); another
    count: that pair's float evaluation (per order, via the generic divergence code);
    ones=None (the mechanism): lower = the special pair; upper = the maximum over every
    count for n <= RENYI_WORST_CASE_LIMIT (one scan for all orders), beyond it the blanket
    pair's certified upper bound over all datasets (docs/single-message.md#blanket-pairs-for-k-rr).
    For composition.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizer's epsilon0, > 0.
        alphas: Renyi orders, each a finite real > 1.
        ones: how many of the other n-1 users hold a 1 (0..n-1); None for the mechanism.

    Returns:
        One (LOWER, UPPER) pair of Results per order, in the order given (quantity "renyi",
        direction MAX).

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, ones = as_checked(n, epsilon0, ones)
    al = np.array([float(a) for a in alphas])
    if ones not in (None, 0, n - 1):
        rows = []
        for a in al:
            r = renyi_divergence.unchecked(n=n, epsilon0=epsilon0, alpha=float(a), ones=ones)
            rows.append((r.require_lower(), r.require_upper()))
        return rows
    special = special_pair_renyi.unchecked(n=n, epsilon0=epsilon0, alphas=list(al))
    if ones is not None:
        return special
    if n <= RENYI_WORST_CASE_LIMIT:
        scan = _worst_case_renyi_many(n, epsilon0, al)
        m = f"{METHOD}.renyi_curve(worst case over all {n} counts)"
        out = []
        for (low, up), v in zip(special, scan, strict=True):
            top = max(float(up.value), float(v))
            out.append((low.with_(method=m), up.with_(
                value=top, method=m, error_budget=max(top - float(low.value), 0.0))))
        return out
    blanket = clone_pair.renyi_curve.unchecked(
        clone_pair.blanket_k_rr.unchecked(n=n, epsilon0=epsilon0, k=2), alphas=list(al))
    m = f"{METHOD}.renyi_curve(special pair: lower bound on the mechanism)"
    return [(low.with_(method=m), up) for (low, _), (_, up) in zip(special, blanket,
                                                                  strict=True)]


@checked(n=N_PAIR, epsilon0=EPSILON0, ones=ONES)
def max_divergence(*, n: int, epsilon0: float, ones: int | None = None) -> Result:
    """Pure-DP epsilon: exactly epsilon0 for every pair (both orders), any n >= 2.

    The likelihood ratio (1-p) r + p over p r + (1-p) with r = O(k-1)/O(k) lies in
    [e^-eps0, e^eps0] and reaches e^eps0 at k = n (r = inf), where O(n-1) > 0 always.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizer's epsilon0, > 0.
        ones: how many of the other n-1 users hold a 1 (validated; the value does not
            depend on it).

    Returns:
        Result(quantity="max_divergence", value=epsilon0, kind=EXACT, direction=MAX,
        order=inf).

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, ones = as_checked(n, epsilon0, ones)
    return Result(quantity="max_divergence", value=epsilon0, kind=Kind.EXACT,
                  direction=Direction.MAX, order=math.inf, source=SOURCE,
                  method=f"{METHOD}.max_divergence (closed form: ratio e^eps0 at k = n)")
