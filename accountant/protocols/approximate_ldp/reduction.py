"""Certified upper ends for every (epsilon0, delta0)-LDP randomizer, shuffled among n users.

This library's lemma (docs/approximate-ldp.md#the-reduction, with its proof): for every
(epsilon0, delta0)-LDP randomizer, every pair of neighbouring datasets and every epsilon >= 0,
the shuffled views P, Q satisfy

    H_{e^eps}(P||Q) <= delta_clones(eps) + delta0 (1 + (3/2) (n-1) e^-epsilon0 (1 + e^eps))

where delta_clones is the hockey-stick divergence of the clones pair at epsilon0
(Feldman-McMillan-Talwar 2021, `ldp.clones_pair`). The local guarantee gives the second
bound (docs/approximate-ldp.md#the-local-bound)

    H_{e^epsilon}(P||Q) <= delta0 + (e^epsilon0 - e^epsilon)_+ / (e^epsilon0 + 1)

and the upper end is the smaller of the two, capped at 1.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from accountant.domains import DELTA, DELTA0, EPSILON, EPSILON0, N_PAIR, checked
from accountant.numeric.rounding import up
from accountant.protocols import ldp
from accountant.result import Direction, Kind, Result, Source

__all__ = ["DELTA0", "delta0_term", "delta_upper", "epsilon_upper", "local_delta_upper"]


_METHOD = "protocols.approximate_ldp"
_SOURCE = Source(citation="this library's lemma (total-variation reduction to the clones "
                          "pair of Feldman, McMillan, Talwar, FOCS 2021)",
                 locator="docs/approximate-ldp.md#the-reduction")
_LOCAL = Source(citation="local guarantee (post-processing of the differing user's report)",
                locator="docs/approximate-ldp.md#the-local-bound")
# working precision (bits) of the closed forms; the result is rounded up afterwards with a
# relative allowance far above mpmath's error at this precision
_PREC = 200
_SLACK = mpmath.mpf(2) ** -150


def _up(x: mpmath.mpf) -> float:
    """The smallest float >= x (1 + 2^-150): covers mpmath's rounding at _PREC bits."""
    return up(x * (1 + _SLACK)) if x > 0 else up(x)


@checked(n=N_PAIR, epsilon0=EPSILON0, delta0=DELTA0, epsilon=EPSILON)
def delta0_term(*, n: int, epsilon0: float, delta0: float, epsilon: float) -> float:
    """The reduction's additive term delta0 (1 + (3/2) (n-1) e^-epsilon0 (1 + e^epsilon)).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' epsilon0, > 0.
        delta0: the local randomizers' delta0, in (0, 1).
        epsilon: epsilon >= 0 (e^epsilon may overflow a float: then +inf).

    Returns:
        A float at least the exact term (rounded up), nondecreasing in epsilon.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    if epsilon > 700.0:
        return math.inf
    with mpmath.workprec(_PREC):
        e = mpmath.mpf(epsilon)
        value = mpmath.mpf(delta0) * (1 + mpmath.mpf(3) / 2 * (int(n) - 1)
                                      * mpmath.exp(-mpmath.mpf(epsilon0)) * (1 + mpmath.exp(e)))
        return _up(value)


@checked(epsilon0=EPSILON0, delta0=DELTA0, epsilon=EPSILON)
def local_delta_upper(*, epsilon0: float, delta0: float, epsilon: float) -> float:
    """delta0 + (e^epsilon0 - e^epsilon)_+ / (e^epsilon0 + 1): the guarantee of one report,
    which the shuffled view post-processes (docs/approximate-ldp.md#the-local-bound).

    Args:
        epsilon0: the local randomizers' epsilon0, > 0.
        delta0: the local randomizers' delta0, in (0, 1).
        epsilon: epsilon >= 0.

    Returns:
        A float at least the exact value (rounded up), capped at 1.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    if epsilon >= epsilon0:
        return float(delta0)
    with mpmath.workprec(_PREC):
        g0, g = mpmath.exp(mpmath.mpf(epsilon0)), mpmath.exp(mpmath.mpf(epsilon))
        return min(_up(mpmath.mpf(delta0) + (g0 - g) / (g0 + 1)), 1.0)


def _result(quantity: str, value: float, at: float, how: str, source: Source,
            error_budget: float = 0.0) -> Result:
    return Result(quantity=quantity, value=value, kind=Kind.UPPER, direction=Direction.MAX,
                  at=float(at), method=f"{_METHOD}.{how}", source=source,
                  error_budget=error_budget)


@checked(n=N_PAIR, epsilon0=EPSILON0, delta0=DELTA0, epsilon=EPSILON)
def delta_upper(*, n: int, epsilon0: float, delta0: float, epsilon: float) -> Result:
    """delta(epsilon) upper end over every (epsilon0, delta0)-LDP randomizer and every
    neighbouring pair, both orders.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' epsilon0, > 0.
        delta0: the local randomizers' delta0, in (0, 1).
        epsilon: epsilon >= 0.

    Returns:
        Result(quantity="delta", kind=UPPER, direction=MAX): the smaller of the reduction
        (clones pair's certified upper end plus `delta0_term`) and `local_delta_upper`,
        at most 1; its method names the route that won.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, delta0, epsilon = int(n), float(epsilon0), float(delta0), float(epsilon)
    local = local_delta_upper.unchecked(epsilon0=epsilon0, delta0=delta0, epsilon=epsilon)
    term = delta0_term.unchecked(n=n, epsilon0=epsilon0, delta0=delta0, epsilon=epsilon)
    if term < local:
        clones = ldp.delta_for_epsilon.unchecked(n=n, epsilon0=epsilon0,
                                                 epsilon=epsilon).upper
        if clones is not None:
            total = up(Fraction(float(clones.value)) + Fraction(term))
            if total < local:
                return _result("delta", min(total, 1.0), epsilon,
                               f"delta_upper (clones pair at epsilon0 {clones.value:.6g} "
                               f"+ delta0 term {term:.6g}; {clones.method})", _SOURCE,
                               clones.error_budget)
    return _result("delta", local, epsilon, "delta_upper (local guarantee)", _LOCAL)


def _local_epsilon(epsilon0: float, delta0: float, delta: float) -> float:
    """The smallest epsilon the local bound certifies at delta (rounded up), or +inf."""
    if delta < delta0:
        return math.inf
    with mpmath.workprec(_PREC):
        g0 = mpmath.exp(mpmath.mpf(epsilon0))
        g = g0 - (mpmath.mpf(delta) - mpmath.mpf(delta0)) * (g0 + 1)
        if g <= 1:
            return 0.0
        return min(_up(mpmath.log(g)), float(epsilon0))


@checked(n=N_PAIR, epsilon0=EPSILON0, delta0=DELTA0, delta=DELTA)
def epsilon_upper(*, n: int, epsilon0: float, delta0: float, delta: float) -> Result:
    """epsilon(delta) upper end over every (epsilon0, delta0)-LDP randomizer: an epsilon at
    which `delta_upper`'s bound is proven <= delta (+inf below delta0: see the docs).

    The reduction's candidates come from a fixed-point search: with E an epsilon, the clones
    pair's certified epsilon(delta - term(E)) = c satisfies, when c <= E, clones(c) <= delta
    - term(E) and term(c) <= term(E) (the term is nondecreasing), so delta(c) <= delta.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' epsilon0, > 0.
        delta0: the local randomizers' delta0, in (0, 1).
        delta: target delta, in (0, 1).

    Returns:
        Result(quantity="epsilon", kind=UPPER, direction=MAX): the smallest certified
        candidate (local bound or reduction), +inf when none (delta < delta0).

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, delta0, delta = int(n), float(epsilon0), float(delta0), float(delta)
    best = _result("epsilon", _local_epsilon(epsilon0, delta0, delta), delta,
                   "epsilon_upper (local guarantee)", _LOCAL)
    guess = min(float(best.value), epsilon0)
    if delta0_term.unchecked(n=n, epsilon0=epsilon0, delta0=delta0, epsilon=guess) >= delta:
        # start where the term spends half of delta: term(E) = delta / 2
        with mpmath.workprec(_PREC):
            x = (mpmath.mpf(delta) / 2 / mpmath.mpf(delta0) - 1) / (
                mpmath.mpf(3) / 2 * (n - 1) * mpmath.exp(-mpmath.mpf(epsilon0))) - 1
            guess = float(mpmath.log(x)) if x > 1 else 0.0
    for _ in range(6):
        term = delta0_term.unchecked(n=n, epsilon0=epsilon0, delta0=delta0, epsilon=guess)
        target = float(Fraction(delta) - Fraction(term))  # round to nearest, then check
        if not Fraction(target) + Fraction(term) <= Fraction(delta):
            target = math.nextafter(target, 0.0)
        if target <= 0:
            break
        clones = ldp.epsilon_for_delta.unchecked(n=n, epsilon0=epsilon0, delta=target).upper
        if clones is None or not float(clones.value) <= guess:
            break
        c = float(clones.value)
        if c < float(best.value):
            best = _result("epsilon", c, delta,
                           f"epsilon_upper (clones pair at epsilon0 at delta - term = "
                           f"{target:.6g}, term {term:.6g} at epsilon <= {guess:.6g}; "
                           f"{clones.method})", _SOURCE, clones.error_budget)
        if c >= guess * (1 - 1e-6):
            break
        guess = c
    return best
