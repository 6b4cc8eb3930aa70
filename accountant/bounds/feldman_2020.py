"""The closed-form amplification bound of Feldman, McMillan, Talwar ("hiding among the clones").

Feldman, McMillan, Talwar, "Hiding Among the Clones: A Simple and Nearly Optimal Analysis of
Privacy Amplification by Shuffling", FOCS 2021 (arXiv:2012.12803), Theorem 3.1, as restated
in docs/clones-and-blankets.md#clones-pair (medium confidence in the constants). Valid for every
epsilon0-LDP
randomizer and n users. The numeric clones pair (`accountant.protocols.ldp`) is tighter;
this closed form is kept as the paper's published guarantee and as a comparison curve.
"""

from __future__ import annotations

import math

import mpmath

from accountant.domains import DELTA, EPSILON0, N_USERS
from accountant.errors import ParameterError, RegimeError
from accountant.numeric import rounding
from accountant.result import Direction, Kind, Result, Source

__all__ = ["CITATION", "epsilon_upper", "epsilon_upper_reference_code", "max_epsilon0"]

CITATION = "Feldman, McMillan, Talwar, FOCS 2021 (arXiv:2012.12803)"
_DIGITS = 50


def max_epsilon0(*, n: int, delta: float, log_argument: float | None = None) -> float:
    """The regime's largest epsilon0: log(n/(16 log(c/delta))), c = 2 (theorem) by default.

    Args:
        n: number of users (not validated).
        delta: target delta, in (0, 1) (not validated).
        log_argument: c; None means 2 (`epsilon_upper`); the reference-code variant uses 4.

    Returns:
        The limit as a float rounded down (50-digit mpmath); -inf when n/(16 log(c/delta))
        is not positive.
    """
    c = 2.0 if log_argument is None else log_argument
    with mpmath.workdps(_DIGITS):
        ratio = mpmath.mpf(n) / (16 * mpmath.log(mpmath.mpf(c) / mpmath.mpf(delta)))
        return rounding.down(mpmath.log(ratio)) if ratio > 0 else -math.inf


def _check_regime(*, epsilon0: float, n: int, delta: float, c: int, who: str) -> None:
    limit = max_epsilon0(n=n, delta=delta, log_argument=c)
    if not epsilon0 <= limit:
        raise RegimeError(
            f"bounds.feldman_2020.{who} needs epsilon0 <= log(n/(16 log({c}/delta))) "
            f"({CITATION}, Theorem 3.1; docs/clones-and-blankets.md#clones-pair); got "
            f"epsilon0={epsilon0}, n={n}, "
            f"delta={delta} (right side {limit:.6g}, exceeded by {epsilon0 - limit:.4g})")


def _validate(*, epsilon0: float, n: int, delta: float) -> None:
    EPSILON0.check(epsilon0)
    N_USERS.check(n)
    DELTA.check(delta)
    if n < 2:
        raise ParameterError(f"n={n} is outside integers in [2, inf) (shuffling needs 2 users)")


def epsilon_upper(*, epsilon0: float, n: int, delta: float) -> Result:
    """Upper bound on epsilon at delta of n shuffled epsilon0-LDP reports (closed form).

    FMT 2021, Theorem 3.1 (docs/clones-and-blankets.md#clones-pair): for epsilon0 <= log(n/(16
    log(2/delta))),
    eps <= log(1 + (e^eps0-1)/(e^eps0+1) (8 sqrt(e^eps0 log(4/delta))/sqrt(n) + 8 e^eps0/n)).

    Args:
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, an integer >= 2.
        delta: target delta, in (0, 1).

    Returns:
        Result(quantity="epsilon", kind=UPPER, direction=MAX, at=delta).

    Raises:
        ParameterError: epsilon0 <= 0, n < 2, delta outside (0, 1).
        RegimeError: epsilon0 > log(n/(16 log(2/delta))); the message gives both sides.
    """
    _validate(epsilon0=epsilon0, n=n, delta=delta)
    _check_regime(epsilon0=epsilon0, n=n, delta=delta, c=2, who="epsilon_upper")
    with mpmath.workdps(_DIGITS):
        e = mpmath.exp(mpmath.mpf(epsilon0))
        log4 = mpmath.log(4 / mpmath.mpf(delta))
        inner = 8 * mpmath.sqrt(e * log4) / mpmath.sqrt(n) + 8 * e / n
        value = mpmath.log1p(mpmath.tanh(mpmath.mpf(epsilon0) / 2) * inner)
        return Result(quantity="epsilon", value=rounding.up(value), kind=Kind.UPPER,
                      direction=Direction.MAX, method="bounds.feldman_2020.epsilon_upper",
                      source=Source(citation=CITATION, locator="Theorem 3.1"), at=delta)


def epsilon_upper_reference_code(*, epsilon0: float, n: int, delta: float) -> Result:
    """The variant in the authors' public reference code (docs/clones-and-blankets.md#clones-pair).

    eps <= log(1 + (1-e^-eps0)/(1+e^(-eps0-eps1)) (a + c)) with a = 8 sqrt(e^eps0 log(4/delta)/n),
    c = 8 e^eps0/n, eps1 = log(1 + a + c), under epsilon0 <= log(n/(16 log(4/delta))).
    It is slightly larger than `epsilon_upper`. (That code's numerical scan skips small n
    and then reports a far too small epsilon; this closed form has no such scan.)

    Args:
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, an integer >= 2.
        delta: target delta, in (0, 1).

    Returns:
        Result(quantity="epsilon", kind=UPPER, direction=MAX, at=delta), value rounded up,
        source "Theorem 3.1, reference-code variant".

    Raises:
        ParameterError: epsilon0 <= 0, n < 2, delta outside (0, 1).
        RegimeError: epsilon0 > log(n/(16 log(4/delta))).
    """
    _validate(epsilon0=epsilon0, n=n, delta=delta)
    _check_regime(epsilon0=epsilon0, n=n, delta=delta, c=4,
                  who="epsilon_upper_reference_code")
    with mpmath.workdps(_DIGITS):
        eps0 = mpmath.mpf(epsilon0)
        e = mpmath.exp(eps0)
        a = 8 * mpmath.sqrt(e * mpmath.log(4 / mpmath.mpf(delta)) / n)
        c = 8 * e / n
        eps1 = mpmath.log1p(a + c)
        value = mpmath.log1p(-mpmath.expm1(-eps0) / (1 + mpmath.exp(-eps0 - eps1)) * (a + c))
        return Result(quantity="epsilon", value=rounding.up(value), kind=Kind.UPPER,
                      direction=Direction.MAX,
                      method="bounds.feldman_2020.epsilon_upper_reference_code",
                      source=Source(citation=CITATION,
                                    locator="Theorem 3.1, reference-code variant"), at=delta)
