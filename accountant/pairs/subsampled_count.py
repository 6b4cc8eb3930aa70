"""One real neighbouring pair of a Poisson-subsampled shuffled round, reduced to one count
(docs/conversions.md#a-certified-lower-end-for-subsampled-rounds).

A single-message local randomizer R, n users, each taking part independently with
probability q (the substitute relation shares the differing user's participation coin
between the two datasets). Fix an output y* and inputs x, x' with
R(y*|x) = high >= R(y*|x') = low (the pair attaining epsilon0 has x maximising and x'
minimising R(y*|.)). The dataset: the n - 1 other users hold x'; the differing user holds x
(P) or x' (Q, substitute) or is absent (Q, add/remove). The adversary counts the
messages equal to y* in the shuffled multiset (a post-processing of the view, so every
divergence of the count is at most the view's). Each other user sends y* with probability
b = q low, independently, and the differing user with probability a = q high (P) or
c = q low (Q, substitute) or c = 0 (Q, add/remove):

    P = Bern(a) * Bin(n-1, b),        Q = Bern(c) * Bin(n-1, b),

i.e. with B = Bin(n-1, b) and rho(k) = B(k-1)/B(k) = k (1-b)/((n-k) b):
P(k) = B(k) ((1-a) + a rho(k)), Q(k) = B(k) ((1-c) + c rho(k)), and the privacy loss
L(k) = log((1-a) + a rho(k)) - log((1-c) + c rho(k)) in closed form (B cancels). The value
of this pair is a LOWER bound on the mechanism's (which is a maximum over pairs), never an
upper bound. With q = 1 and the substitute relation it is the count of y* under the
special pair (binary RR: exactly `binary_rr.view_pair(ones=0)`).

Error model: the probabilities are floats within a relative 4u of the true ones (u the unit
roundoff); a, 1-a, b, 1-b, c, 1-c are formed with a relative error below EPSILON_PARAM and
propagated into the log-values and the loss (both stated as absolute error bounds). The
grid is the certified window of B (outside mass <= tail) plus one point, so the grid values
are the true probabilities (`grid_exact`) and the pair can give optimistic (lower) PLDs.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from accountant.distributions import binomial_window
from accountant.domains import N_PAIR, PROBABILITY, SAMPLING_RATE, checked
from accountant.errors import ParameterError
from accountant.numeric import rounding
from accountant.numeric.logspace import finite_abs
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.pmf import PMF
from accountant.view import ViewPair

__all__ = ["subsampled_count_pair", "COUNT_RELATIONS", "DEFAULT_TAIL", "EPSILON_PARAM"]

COUNT_RELATIONS = ("substitute", "add-remove")
DEFAULT_TAIL = 1e-250
_U = rounding.UNIT_ROUNDOFF
# relative error of a, 1-a, b, 1-b, c, 1-c (inputs within 4u, a few roundings)
EPSILON_PARAM = 16 * _U


def _probabilities(high: Any, low: Any, rate: Any, high_c: Any,
                   low_c: Any) -> tuple[float, float, float, float]:
    """(a, 1-a, b, 1-b) as floats, exactly rounded when every input is rational."""
    if all(isinstance(v, Fraction | int) for v in (high, low, rate, high_c, low_c)):
        r = Fraction(rate)
        return (float(r * high), float((1 - r) + r * high_c), float(r * low),
                float((1 - r) + r * low_c))
    q, hi_, lo_ = float(rate), float(high), float(low)
    return (q * hi_, (1.0 - q) + q * float(high_c), q * lo_, (1.0 - q) + q * float(low_c))


@checked(n=N_PAIR, high=PROBABILITY.named("high"), low=PROBABILITY.named("low"),
         rate=SAMPLING_RATE.named("rate"))
def subsampled_count_pair(*, n: int, high: Any, low: Any, rate: Any,
                          relation: str = "substitute", high_complement: Any = None,
                          low_complement: Any = None, tail: float = DEFAULT_TAIL,
                          description: dict[str, Any] | None = None,
                          parameter_error: float = 0.0) -> ViewPair:
    """The count of y* under one neighbouring pair of a Poisson-subsampled round (module
    docstring): P = Bern(q high) * Bin(n-1, q low) against Q = Bern(q low) * Bin(n-1, q low)
    (substitute) or Q = Bin(n-1, q low) (add/remove).

    Args:
        n: number of users of the dataset with the differing user, an integer >= 2.
        high: R(y*|x), in (0, 1] (a float within 4u of the truth, or a Fraction).
        low: R(y*|x'), in [0, high).
        rate: the participation probability q, in (0, 1].
        relation: "substitute" or "add-remove".
        high_complement: 1 - high, given when it is known more accurately than the rounded
            difference (e.g. a small flip probability); None: 1 - high.
        low_complement: 1 - low, likewise.
        tail: certified mass of Bin(n-1, q low) allowed outside the window, in (0, 1).
        description: extra entries for the pair's description.
        parameter_error: a relative error of high, low and of the complements given, when
            larger than a float's (a distribution function's stated error: the threshold
            pair of a continuous randomizer); it enters every mass's log error bound as the
            16u of rounded inputs does.

    Returns:
        A float `ViewPair` on the count of y* (P: the differing user holds x; Q: it holds x'
        or is absent), grid exact, tails <= tail, closed-form loss; residual_loss_bound the
        largest |L| over all counts (inf for add/remove, where Q has no mass at n).

    Raises:
        ParameterError: an argument outside its domain, low >= high, or an unknown relation.
    """
    if not high > low:
        raise ParameterError(f"high={high!r} must exceed low={low!r} (the pair attaining "
                             "epsilon0 > 0)")
    if relation not in COUNT_RELATIONS:
        raise ParameterError(f"relation={relation!r} is outside {set(COUNT_RELATIONS)}")
    n = int(n)
    high_c = 1 - high if high_complement is None else high_complement
    low_c = 1 - low if low_complement is None else low_complement
    a, a_c, b, b_c = _probabilities(high, low, rate, high_c, low_c)
    c, c_c = (b, b_c) if relation == "substitute" else (0.0, 1.0)
    m = n - 1 if b > 0 else 0  # b = 0: the others never send y*
    lo, hi, cut = binomial_window(m, b, tail)
    ks = np.arange(lo, hi + 2, dtype=float)
    ext = binomial_logpmf(np.arange(lo - 1, hi + 2, dtype=float), float(m), b)
    lb_k, lb_k1 = ext[1:], ext[:-1]           # log B(k), log B(k-1)
    eps = EPSILON_PARAM + 2 * float(parameter_error)
    with np.errstate(divide="ignore"):
        la, la_c, lc, lc_c = (math.log(v) if v > 0 else -math.inf for v in (a, a_c, c, c_c))
        lp = np.logaddexp(la_c + lb_k, la + lb_k1)
        lq = np.logaddexp(lc_c + lb_k, lc + lb_k1)
    ratio_b = b / b_c if b_c > 0 else 0.0
    param = eps * (ks + (m - ks + 1) * ratio_b) + 2 * eps  # B's parameters and the weights
    base = np.maximum(log_pmf_error(lb_k), log_pmf_error(lb_k1))
    err_p = base + param + 4 * _U * (1 + finite_abs(lp))
    err_q = base + param + 4 * _U * (1 + finite_abs(lq))
    err = np.maximum(err_p, err_q)

    def loss(coords: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        k = np.asarray(coords[0], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            if b > 0:
                l_rho = np.log(k) + math.log(b_c) - np.log(m - k + 1) - math.log(b)
            else:
                l_rho = np.where(k > 0, np.inf, -np.inf)
            w_p = np.logaddexp(la_c, la + l_rho)
            w_q = np.logaddexp(lc_c, lc + l_rho)
            value = w_p - w_q
        top = k >= m + 1            # rho = inf: only the differing user's y* term remains
        value = np.where(top, la - lc, value)
        value = np.where(k <= 0, la_c - lc_c, value)
        e = (12 * eps + 32 * _U * (4 + finite_abs(l_rho) + 2 * math.log(m + 2.0) + finite_abs(w_p)
                                   + finite_abs(w_q) + finite_abs(value)))
        return value, np.where(np.isfinite(value), e, 0.0)

    if c > 0:
        bound = max(abs(la_c - lc_c), abs(la - lc))
        residual = rounding.up(bound + 12 * eps + 64 * _U * (1 + bound))
    else:
        residual = math.inf
    desc = {"pair": "subsampled special-pair count of y* (one neighbouring pair: a lower "
                    "bound on the mechanism)", "n": n, "sampling_rate": float(rate),
            "relation": relation, "R(y*|x)": float(high), "R(y*|x')": float(low),
            "P": "differing user holds x",
            "Q": "differing user holds x'" if relation == "substitute"
            else "differing user absent"} | dict(description or {})
    P = PMF("float", (lo,), lp, cut, err, True)
    Q = PMF("float", (lo,), lq, cut, err, True)
    return ViewPair.from_pmfs(P, Q, loss=loss, residual_loss_bound=residual,
                              description=desc)
