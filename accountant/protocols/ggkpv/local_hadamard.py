"""Local (single-message, not shuffled) Hadamard response and its error (the GGKPV slides,
"Hadamard response [Kairouz et al. '16; Nguyen et al. '16; Acharya et al. '18]":
"gets error O(sqrt(n log B)/eps) in local model"; docs/ggkpv.md#local-hadamard-response).

A user with x in [B] reports a uniform column of C_x = {k : H[x][k] = +1} with probability
e^eps / (1 + e^eps), else a uniform column of its complement; a report of any other value
falls in C_x with probability 1/2. The estimator f^_x = c (#{i : y_i in C_x} - n/2),
c = 2 (e^eps + 1)/(e^eps - 1), is unbiased, and its error is c times a centred sum of n
independent indicators:

- `variance`: Var f^_x = c^2 (f_x p (1 - p) + (n - f_x)/4), p = e^eps/(1 + e^eps), exact;
- `expected_max_error_upper`: each centred sum is sub-Gaussian with variance proxy n/4
  (Hoeffding's lemma), so the maximal inequality for the 2B variables +-error_x gives
  E max_x |f^_x - f_x| <= c sqrt(n/4) sqrt(2 ln(2B)) for every dataset: a certified upper
  bound whose ratio to sqrt(n ln B)/eps, (c eps/2) sqrt(2 ln(2B)/ln B), is bounded (c eps
  decreases from 4 at eps -> 0 and is 2 eps coth(eps/2)), which is the slides' O(.).

Example (c = 2/tanh(1/2) = 4.3279, sqrt(n/4) = 50, sqrt(2 ln 126) = 3.1102):
    >>> round(expected_max_error_upper(n=10**4, B=63, epsilon=1.0), 2)
    673.01
"""

from __future__ import annotations

import math

from accountant.domains import COUNT, EPSILON, N_USERS, Interval
from accountant.errors import ParameterError

__all__ = ["estimator_scale", "variance", "expected_max_error_upper"]

DOMAIN = Interval("B", 2, 1e12, closed="both", integer=True)


def estimator_scale(epsilon: float) -> float:
    """c = 2 (e^eps + 1)/(e^eps - 1), the estimator's factor.

    Args:
        epsilon: the local randomizer's epsilon, > 0.

    Returns:
        c (rounded to nearest; 2 / tanh(eps/2)).

    Raises:
        ParameterError: epsilon <= 0 or not finite.
    """
    EPSILON.check(epsilon)
    if not 0 < epsilon < math.inf:
        raise ParameterError(f"epsilon={epsilon!r} is outside (0, inf)")
    return 2.0 / math.tanh(epsilon / 2.0)


def variance(*, n: int, epsilon: float, count: int) -> float:
    """Exact Var f^_x for a value held by `count` of the n users.

    Args:
        n: number of users, >= 1.
        epsilon: the local epsilon, > 0.
        count: users holding x, 0..n.

    Returns:
        c^2 (count p (1 - p) + (n - count)/4).

    Raises:
        ParameterError: an argument outside its domain.
    """
    N_USERS.check(n)
    COUNT.named("count").check(count)
    if count > n:
        raise ParameterError(f"count={count} is outside [0, n] = [0, {n}]")
    c = estimator_scale(epsilon)
    p = 1.0 / (1.0 + math.exp(-epsilon))
    return c * c * (count * p * (1.0 - p) + (n - count) / 4.0)


def expected_max_error_upper(*, n: int, B: int, epsilon: float) -> float:
    """Certified upper bound on E max_x |f^_x - f_x| over the B values, every dataset.

    Args:
        n: number of users, >= 1.
        B: domain size, >= 2.
        epsilon: the local epsilon, > 0.

    Returns:
        c sqrt(n/4) sqrt(2 ln(2B)), raised by a relative 1e-15 against rounding.

    Raises:
        ParameterError: an argument outside its domain.
    """
    N_USERS.check(n)
    DOMAIN.check(B)
    c = estimator_scale(epsilon)
    return c * math.sqrt(n / 4.0) * math.sqrt(2.0 * math.log(2.0 * B)) * (1 + 1e-15)
