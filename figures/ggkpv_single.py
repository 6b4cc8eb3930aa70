"""Single-message frequency estimation at a certified (epsilon, delta): the k-RR and unary
encoding (RAPPOR) branches of the GGKPV slides' bound min{O~(n^(1/4)), O~(sqrt B)}.

Each protocol is run at the largest local epsilon0 (found to a relative `rel_tol`) whose
certified shuffled delta(epsilon) is at most delta, a direct certificate of
(epsilon, delta)-DP:

- k-RR over B symbols (B >= 3): the upper end of the blanket pair revealing only the blanket
  count (`accountant.protocols.k_rr.blanket`, the pair `KRR(...).epsilon_for_delta` uses for
  its upper end); B = 2: the binary blanket clone pair (`pairs.clones.blanket_k_rr`);
- unary encoding (symmetric RAPPOR, an epsilon0-LDP randomizer): the clones pair
  (`pairs.clones.fmt_clones`, the upper end of `LDP(...)`).

Why not `verify.samplers.ggkpv.calibrated_epsilon0`: it inverts epsilon(delta) (a Newton
search of about 19 hockey-stick evaluations) and, for k-RR at n <= 200,000, also builds the
special pair (a lower end the calibration never reads) at every step: about a minute per
calibration at these n. Asking "is the certified delta(epsilon) <= delta?" is one
evaluation, and the search starts from the amplification rule's guess e^epsilon0 ~
n epsilon^2 / (8 ln(1/delta)) instead of epsilon0 = 1. Both certify the same thing: the
returned epsilon0 is one at which the certified upper end was computed and met the target.
Calibrations are cached per process (`functools.lru_cache`), so the audit's records and any
figure asking for the same (n, B, epsilon, delta) share them.

Errors (exact closed forms of the unbiased estimators):

- k-RR, p = e^eps0/(e^eps0 + B - 1), q = 1/(e^eps0 + B - 1): Var f^_j = (f_j p(1 - p) +
  (n - f_j) q(1 - q))/(p - q)^2, linear in f_j, so its maximum over datasets is at f_j = n or
  0: `krr_worst_sd` = sqrt(n max(p(1 - p), q(1 - q)))/(p - q). With the certified eps0 it
  grows like sqrt(B) for B << e^eps0 (the heavy value's reports leak to the B - 1 others);
- unary encoding, keep probability 1/(1 + e^(-eps0/2)): per-value sd sqrt(n/(4 cosh^2(eps0/4)))
  / tanh(eps0/4), the same for every value and dataset (`unary_sd`).

The slides' error is the maximum over the B values; the per-value sd differs from it by a
factor about sqrt(2 ln 2B) (a logarithm, hidden in O~).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from accountant.errors import ParameterError
from accountant.pairs import clones
from accountant.protocols.k_rr import blanket

__all__ = ["epsilon0_guess", "krr_delta_upper", "unary_delta_upper", "largest_epsilon0",
           "krr_epsilon0", "unary_epsilon0", "krr_worst_sd", "unary_sd", "fitted_exponent",
           "single_message_rows"]


def epsilon0_guess(n: int, epsilon: float, delta: float) -> float:
    """The amplification rule's starting point, e^eps0 ~ n eps^2 / (8 ln(1/delta)) (>= 0.5).

    Only where the search starts; nothing is certified by it."""
    return max(0.5, math.log(max(n * epsilon**2 / (8.0 * math.log(1.0 / delta)), 1.0)))


def krr_delta_upper(n: int, B: int, epsilon0: float, epsilon: float) -> float:
    """Certified upper end of shuffled k-RR's delta(epsilon) over every dataset and both
    orders (blanket count pair for B >= 3, the binary blanket clone pair at B = 2)."""
    if B == 2:
        binary = clones.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)
        return float(clones.delta_for_epsilon(binary, epsilon=epsilon).require_upper())
    pair = blanket.blanket_count_pair(n=n, epsilon0=epsilon0, k=B)
    return float(blanket.delta_for_epsilon(pair, epsilon=epsilon).require_upper())


def unary_delta_upper(n: int, epsilon0: float, epsilon: float) -> float:
    """Certified upper end of delta(epsilon) for any shuffled epsilon0-LDP randomizer (the
    clones pair), unary encoding among them."""
    pair = clones.fmt_clones(n=n, epsilon0=epsilon0)
    return float(clones.delta_for_epsilon(pair, epsilon=epsilon).require_upper())


def largest_epsilon0(meets: Callable[[float], bool], guess: float, *, rel_tol: float = 1e-2,
                     step: float = 0.5, floor: float = 1e-3,
                     cap: float = 60.0) -> float:
    """The largest epsilon0 (to rel_tol) at which `meets` was evaluated and returned True.

    Brackets from `guess` by additive steps (doubling each time), then bisects. The answer
    is always a point where `meets` held: sound whether or not `meets` is monotone.

    Args:
        meets: epsilon0 -> whether the certified check passes.
        guess: where to start (> 0).
        rel_tol: relative width of the final bracket.
        step: first additive step of the bracketing.
        floor: smallest epsilon0 tried.
        cap: largest epsilon0 tried; returned if it still meets the target.

    Returns:
        The epsilon0.

    Raises:
        ParameterError: no epsilon0 >= floor meets the target.
    """
    x = min(max(guess, floor), cap)
    lo: float | None = None
    hi: float | None = None
    if meets(x):
        lo = x
        while hi is None:
            if lo >= cap:
                return lo
            x = min(lo + step, cap)
            if meets(x):
                lo = x
            else:
                hi = x
            step *= 2
    else:
        hi = x
        while lo is None:
            x = max(hi - step, hi / 2, floor)
            if meets(x):
                lo = x
            elif x <= floor:
                raise ParameterError(f"no epsilon0 >= {floor:g} meets the target")
            else:
                hi = x
            step *= 2
    while hi - lo > rel_tol * lo:
        mid = 0.5 * (lo + hi)
        if meets(mid):
            lo = mid
        else:
            hi = mid
    return lo


@functools.lru_cache(maxsize=256)
def krr_epsilon0(n: int, B: int, epsilon: float, delta: float,
                 rel_tol: float = 1e-2) -> tuple[float, float]:
    """The largest epsilon0 (to rel_tol) whose certified shuffled k-RR delta(epsilon) <=
    delta, cached.

    Args:
        n: users (>= 2).
        B: symbols (>= 2).
        epsilon, delta: the target.
        rel_tol: relative width of the final bisection bracket.

    Returns:
        (epsilon0, the certified upper end of delta(epsilon) at epsilon0, <= delta).
    """
    found: dict[float, float] = {}

    def meets(e0: float) -> bool:
        found[e0] = krr_delta_upper(n, B, e0, epsilon)
        return found[e0] <= delta
    e0 = largest_epsilon0(meets, epsilon0_guess(n, epsilon, delta), rel_tol=rel_tol)
    return e0, found[e0]


@functools.lru_cache(maxsize=256)
def unary_epsilon0(n: int, epsilon: float, delta: float,
                   rel_tol: float = 1e-2) -> tuple[float, float]:
    """As `krr_epsilon0`, for unary encoding (the clones pair of an epsilon0-LDP randomizer).

    Returns:
        (epsilon0, the certified upper end of delta(epsilon) at epsilon0, <= delta).
    """
    found: dict[float, float] = {}

    def meets(e0: float) -> bool:
        found[e0] = unary_delta_upper(n, e0, epsilon)
        return found[e0] <= delta
    e0 = largest_epsilon0(meets, epsilon0_guess(n, epsilon, delta), rel_tol=rel_tol)
    return e0, found[e0]


def krr_worst_sd(n: int, B: int, epsilon0: float) -> float:
    """Exact worst-case (over datasets and values) sd of k-RR's unbiased count estimate:
    sqrt(n max(p(1 - p), q(1 - q)))/(p - q)."""
    t = math.exp(-epsilon0)  # p = 1/(1 + (B - 1) t), q = t p: no overflow at large eps0
    p = 1.0 / (1.0 + (B - 1) * t)
    q = t * p
    return math.sqrt(n * max(p * (1 - p), q * (1 - q))) / (p - q)


def unary_sd(n: int, epsilon0: float) -> float:
    """Exact per-value sd of unary encoding's unbiased estimate (every value, every dataset):
    sqrt(n/(4 cosh^2(eps0/4)))/tanh(eps0/4)."""
    return math.sqrt(n / (4 * math.cosh(epsilon0 / 4) ** 2)) / math.tanh(epsilon0 / 4)


def fitted_exponent(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of log y on log x (two points: the secant's slope)."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    den = sum((a - mx) ** 2 for a in lx)
    if den == 0:
        raise ParameterError("fitted_exponent needs two distinct x")
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / den


def single_message_rows(ns: Sequence[int], Bs: Sequence[int], *, epsilon: float = 1.0,
                        delta_power: float = 2.0) -> list[dict[str, Any]]:
    """One row per (n, B) at (epsilon, n^-delta_power): both protocols' certified epsilon0,
    their exact per-value sds (k-RR worst case over datasets) and min(n^(1/4), sqrt(B)).

    Returns:
        Rows with keys n, B, delta, krr_epsilon0, krr_delta, krr_sd, unary_epsilon0,
        unary_delta, unary_sd, best_sd, slides_rate.
    """
    rows = []
    for n in ns:
        delta = float(n) ** -delta_power
        u0, ud = unary_epsilon0(n, epsilon, delta)
        for B in Bs:
            k0, kd = krr_epsilon0(n, B, epsilon, delta)
            ks, us = krr_worst_sd(n, B, k0), unary_sd(n, u0)
            rows.append({"n": n, "B": B, "delta": delta, "krr_epsilon0": k0, "krr_delta": kd,
                         "krr_sd": ks, "unary_epsilon0": u0, "unary_delta": ud,
                         "unary_sd": us, "best_sd": min(ks, us),
                         "slides_rate": min(n ** 0.25, math.sqrt(B))})
    return rows
