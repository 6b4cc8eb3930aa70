"""The privacy-blanket closed form of Balle, Bell, Gascon, Nissim for shuffled k-ary RR.

Balle, Bell, Gascon, Nissim, "The Privacy Blanket of the Shuffle Model", CRYPTO 2019
(arXiv:1903.02837), the k-ary randomized-response corollary, as restated in
docs/clones-and-blankets.md#blanket-closed-form-for-k-rr
(medium confidence; the theorem's number in the paper is not verified here). The exact
blanket pairs (`accountant.protocols.k_rr`: `k_rr_blanket` for DP,
docs/single-message.md#blanket-pairs-for-k-rr for Renyi) are
far tighter; prefer them.
"""

from __future__ import annotations

import mpmath

from accountant.domains import DELTA, EPSILON0, N_USERS, Interval
from accountant.errors import ParameterError, RegimeError
from accountant.numeric import rounding
from accountant.result import Direction, Kind, Result, Source

__all__ = ["CITATION", "epsilon_upper"]

CITATION = "Balle, Bell, Gascon, Nissim, CRYPTO 2019 (arXiv:1903.02837)"
_K = Interval("k", 2, float("inf"), closed="left", integer=True)
_DIGITS = 50


def epsilon_upper(*, epsilon0: float, n: int, delta: float, k: int) -> Result:
    """Upper bound on epsilon at delta of shuffled k-RR with n users (privacy blanket).

    BBGN 2019 (docs/clones-and-blankets.md#blanket-closed-form-for-k-rr): with blanket probability
    g = k/(e^eps0 + k - 1), the protocol is
    (eps, delta)-DP for eps = max{ sqrt(14 k log(2/delta)/((n-1) g)), 27 k/((n-1) g) },
    provided eps <= 1 (the theorem's own condition) and g <= 1 (true for k >= 2).

    Args:
        epsilon0: k-RR's pure-DP parameter, > 0.
        n: number of users, an integer >= 2.
        delta: target delta, in (0, 1).
        k: alphabet size, an integer >= 2.

    Returns:
        Result(quantity="epsilon", kind=UPPER, direction=MAX, at=delta).

    Raises:
        ParameterError: epsilon0 <= 0, n < 2, delta outside (0, 1), k not an integer >= 2.
        RegimeError: the resulting eps exceeds 1; the message gives it.
    """
    EPSILON0.check(epsilon0)
    N_USERS.check(n)
    DELTA.check(delta)
    _K.check(k)
    if n < 2:
        raise ParameterError(f"n={n} is outside integers in [2, inf) (the blanket needs "
                             f"other users)")
    with mpmath.workdps(_DIGITS):
        g = k / (mpmath.exp(mpmath.mpf(epsilon0)) + k - 1)
        first = mpmath.sqrt(14 * k * mpmath.log(2 / mpmath.mpf(delta)) / ((n - 1) * g))
        second = 27 * mpmath.mpf(k) / ((n - 1) * g)
        value = max(first, second)
        if value > 1:
            raise RegimeError(
                f"bounds.balle_2019.epsilon_upper needs eps = max(sqrt(14 k log(2/delta)/"
                f"((n-1) g)), 27 k/((n-1) g)) <= 1 with g = k/(e^epsilon0+k-1) ({CITATION}; "
                f"docs/clones-and-blankets.md#blanket-closed-form-for-k-rr); got "
                f"epsilon0={epsilon0}, n={n}, delta={delta}, k={k}: "
                f"g={mpmath.nstr(g, 6)}, eps={mpmath.nstr(value, 6)} > 1")
        return Result(quantity="epsilon", value=rounding.up(value), kind=Kind.UPPER,
                      direction=Direction.MAX, method="bounds.balle_2019.epsilon_upper",
                      source=Source(citation=CITATION,
                                    locator="k-ary randomized response corollary "
                                            "(privacy blanket)"), at=delta)
