"""Privacy amplification by subsampling for RDP curves, integer orders
(docs/conversions.md#subsampling).

- `poisson_subsampled`: Zhu and Wang, "Poisson Subsampled Renyi Differential Privacy",
  ICML 2019, Theorem 6 (docs/conversions.md#poisson-subsampling). The theorem is stated for
  add/remove neighbours and needs
  the base mechanism's add/remove RDP. Girgis et al. 2021 (Fig. 5) feed it the replace-one
  RDP of the shuffle model; that combination is their heuristic pipeline, not a theorem, and
  every curve built here says so in its `method`.
- `without_replacement`: Wang, Balle, Kasiviswanathan, "Subsampled Renyi Differential
  Privacy and Analytical Moments Accountant", AISTATS 2019, Theorem 9
  (docs/conversions.md#sampling-without-replacement; replace-one
  neighbours, sampling m of n, g = m/n; medium-high confidence in the exact form).

Both need eps(l) for every integer l = 2..alpha; orders the base curve does not store are
read through `RdpCurve.value_at` (a sound chord bound).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from accountant.composition.rdp import RdpCurve
from accountant.domains import PROBABILITY, checked
from accountant.errors import ParameterError
from accountant.numeric import rounding
from accountant.numeric.logspace import logsumexp
from accountant.result import Kind, Source

__all__ = ["poisson_subsampled", "without_replacement", "POISSON_CAVEAT"]

POISSON_CAVEAT = ("[add/remove theorem applied to a replace-one curve: the heuristic pipeline "
                  "of Girgis et al. 2021 Fig. 5, not a proved bound; "
                  "docs/conversions.md#poisson-subsampling]")
_RATE = PROBABILITY.named("sampling_rate")
_U = rounding.UNIT_ROUNDOFF


def _integer_orders(curve: RdpCurve, max_order: int | None) -> list[int]:
    if not curve.covers(2.0):
        raise ParameterError(f"subsampling needs the base curve at alpha=2; its orders start "
                             f"at {curve.orders[0]}")
    top = max(a for a in curve.orders if math.isfinite(a)) if curve.finite_orders else 2.0
    if curve.orders[-1] == math.inf:
        top = max(top, 2.0)
    top_int = int(math.floor(top))
    if max_order is not None:
        top_int = min(top_int, int(max_order))
    return list(range(2, top_int + 1))


def _log_binom(a: int, l_: np.ndarray) -> np.ndarray:
    return gammaln(a + 1) - gammaln(l_ + 1) - gammaln(a - l_ + 1)


def _finish(value_log: float, alpha: int, scale: float) -> float:
    """log-sum / (alpha - 1), clamped at 0, rounded up with slack for the log-space sum."""
    raw = value_log / (alpha - 1)
    slack = (64 * _U * (scale + alpha)) / (alpha - 1)
    return max(0.0, rounding.up(raw + slack))


@checked(sampling_rate=_RATE)
def poisson_subsampled(curve: RdpCurve, *, sampling_rate: float,
                       max_order: int | None = None,
                       base_relation: str = "replace-one") -> RdpCurve:
    """RDP of the Poisson-subsampled mechanism by [ZW19] Thm 6, integer orders 2..max.

    eps'(a) <= 1/(a-1) log{ (1-g)^(a-1) (a g - g + 1) + C(a,2) g^2 (1-g)^(a-2) e^(eps(2))
                           + 3 sum_{l=3}^{a} C(a,l) (1-g)^(a-l) g^l e^((l-1) eps(l)) }.

    Args:
        curve: the base mechanism's RDP curve.
        sampling_rate: g in [0, 1].
        max_order: largest integer order (default: the curve's largest finite order).
        base_relation: the neighbouring relation `curve` holds for. "add-remove" is the
            theorem's hypothesis (the result is UPPER unless the curve is HEURISTIC);
            "replace-one" (the default, how the shuffle bounds are stated) is Girgis et
            al.'s Fig. 5 pipeline, not a theorem: the result is HEURISTIC.

    Returns:
        An integer-order RdpCurve.

    Raises:
        ParameterError: for a rate outside [0, 1], an unknown relation, or a curve that
            does not reach alpha = 2.
    """
    if base_relation not in ("replace-one", "add-remove"):
        raise ParameterError(f"base_relation={base_relation!r} is outside "
                             "{'replace-one', 'add-remove'}")
    g = float(sampling_rate)
    orders = _integer_orders(curve, max_order)
    if g == 0:
        values = [0.0] * len(orders)
    elif g == 1:
        values = [curve.value_at(float(a)) for a in orders]
    else:
        log_g, log_1g = math.log(g), math.log1p(-g)
        eps = {a: curve.value_at(float(a)) for a in orders}
        values = []
        for a in orders:
            terms = [(a - 1) * log_1g + math.log1p((a - 1) * g),
                     float(_log_binom(a, np.array(2.0))) + 2 * log_g + (a - 2) * log_1g
                     + eps[2]]
            if a >= 3:
                ls = np.arange(3, a + 1)
                e_l = np.array([eps[int(x)] for x in ls])
                terms.extend((math.log(3.0) + _log_binom(a, ls.astype(float)) + ls * log_g
                              + (a - ls) * log_1g + (ls - 1) * e_l).tolist())
            terms_arr = np.array(terms)
            if np.any(np.isposinf(terms_arr)):
                values.append(math.inf)
                continue
            values.append(_finish(logsumexp(terms_arr), a, float(np.max(np.abs(terms_arr)))))
    heuristic = base_relation == "replace-one" or curve.kind is Kind.HEURISTIC
    return RdpCurve(orders=tuple(float(a) for a in orders), values=tuple(values),
                    kind=Kind.HEURISTIC if heuristic else Kind.UPPER,
                    direction=curve.direction,
                    method=f"composition.subsampling.poisson_subsampled(sampling_rate={g}) "
                           f"of [{curve.method}]" + (f" {POISSON_CAVEAT}" if heuristic else ""),
                    source=Source(citation="Zhu and Wang, ICML 2019", locator="Theorem 6"))


@checked(sampling_rate=_RATE)
def without_replacement(curve: RdpCurve, *, sampling_rate: float,
                        max_order: int | None = None) -> RdpCurve:
    """RDP of sampling m of n without replacement (g = m/n) by [WBK19] Thm 9, replace-one.

    eps'(a) <= 1/(a-1) log(1 + g^2 C(a,2) min{4(e^eps(2) - 1), e^eps(2) min{2, (e^eps(inf)-1)^2}}
                          + sum_{j=3}^{a} g^j C(a,j) e^((j-1) eps(j)) min{2, (e^eps(inf)-1)^j}),
    with eps(inf) the curve's stored pure-DP value (inf when absent: min{2, .} = 2).
    """
    g = float(sampling_rate)
    orders = _integer_orders(curve, max_order)
    pure = curve.pure_epsilon
    # log (e^eps_inf - 1), +inf when eps_inf is inf
    log_em1 = math.log(math.expm1(pure)) if 0 < pure < 700 else (
        -math.inf if pure == 0 else math.inf)
    values = []
    if g == 0:
        values = [0.0] * len(orders)
    for a in orders if g > 0 else []:
        e2 = curve.value_at(2.0)
        if math.isinf(e2):
            values.append(math.inf)
            continue
        log_g = math.log(g)
        first = min(math.log(4.0) + math.log(math.expm1(e2)) if e2 > 0 else -math.inf,
                    e2 + min(math.log(2.0), 2 * log_em1))
        terms = [2 * log_g + float(_log_binom(a, np.array(2.0))) + first]
        infinite = False
        for j in range(3, a + 1):
            ej = curve.value_at(float(j))
            if math.isinf(ej):
                infinite = True
                break
            terms.append(j * log_g + float(_log_binom(a, np.array(float(j))))
                         + (j - 1) * ej + min(math.log(2.0), j * log_em1))
        if infinite:
            values.append(math.inf)
            continue
        terms_arr = np.array(terms)
        log_s = logsumexp(terms_arr)
        total = math.log1p(math.exp(log_s)) if log_s < 700 else log_s + math.log1p(
            math.exp(-log_s))
        values.append(_finish(total, a, float(np.max(np.abs(terms_arr[np.isfinite(
            terms_arr)]))) if np.any(np.isfinite(terms_arr)) else 0.0))
    return RdpCurve(orders=tuple(float(a) for a in orders), values=tuple(values),
                    kind=Kind.HEURISTIC if curve.kind is Kind.HEURISTIC else Kind.UPPER,
                    direction=curve.direction,
                    method=f"composition.subsampling.without_replacement(sampling_rate={g}) "
                           f"of [{curve.method}]",
                    source=Source(citation="Wang, Balle, Kasiviswanathan, AISTATS 2019",
                                  locator="Theorem 9"))
