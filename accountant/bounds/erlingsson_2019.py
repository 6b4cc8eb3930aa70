"""The RDP comparison curve of Erlingsson et al. 2019, as quoted by Girgis et al. 2021 eq. (10).

Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta, "Amplification by Shuffling:
From Local to Central Differential Privacy via Anonymity", SODA 2019, a remark obtained by
converting their (eps, delta) bound to RDP; restated as eq. (10) of Girgis et al. (CCS 2021).
LOW-CONFIDENCE RECONSTRUCTION (docs/girgis-2021.md#equation-10): both the constant and the exponent
of
e^(4 eps0) were rebuilt from proof text, and the paper's restrictions (eps0 of order 1/2,
n large) are not stated precisely. Use it as a comparison curve only, never as a guarantee.
"""

from __future__ import annotations

import math

import mpmath

from accountant.domains import EPSILON0, N_USERS, Interval
from accountant.numeric import rounding
from accountant.result import Direction, Kind, Result, Source

__all__ = ["CITATION", "rdp_upper_eq10"]

CITATION = "Erlingsson et al., SODA 2019, via Girgis et al., CCS 2021"
_ORDER = Interval("alpha", 1.0, math.inf, closed="neither")


def rdp_upper_eq10(*, alpha: float, epsilon0: float, n: int) -> Result:
    """eps(alpha) <= 2 alpha e^(4 eps0) (e^eps0 - 1)^2 / n (reconstruction, low confidence).

    Girgis et al. 2021, eq. (10), restating [EFM+19] (docs/girgis-2021.md#equation-10). Tagged
    UPPER because that
    is what the source claims; `method` carries "reconstruction" so that nobody mistakes it
    for a certified bound.

    Args:
        alpha: Renyi order, a finite real > 1.
        epsilon0: local randomizer's pure-DP parameter, > 0.
        n: number of users, an integer >= 1.

    Returns:
        Result(quantity="renyi", kind=UPPER, direction=MAX, order=alpha), value rounded up,
        source "Girgis et al. eq. (10)".

    Raises:
        ParameterError: alpha <= 1 or infinite, epsilon0 <= 0, n < 1.
    """
    _ORDER.check(alpha)
    EPSILON0.check(epsilon0)
    N_USERS.check(n)
    with mpmath.workdps(50):
        eps0 = mpmath.mpf(epsilon0)
        value = 2 * mpmath.mpf(alpha) * mpmath.exp(4 * eps0) * mpmath.expm1(eps0) ** 2 / n
        return Result(quantity="renyi", value=rounding.up(value), kind=Kind.UPPER,
                      direction=Direction.MAX,
                      method="bounds.erlingsson_2019.rdp_upper_eq10 "
                             "(low-confidence reconstruction, comparison only)",
                      source=Source(citation=CITATION, locator="Girgis et al. eq. (10)"),
                      order=alpha)
