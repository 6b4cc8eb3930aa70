"""The differing user's local report, x + noise with x = 1 against x = 0, as a pair the PLD
engine composes (docs/continuous-randomizers.md#sampled-rounds), for the families that
declare it (`Mechanism.report_noise`: the (discrete) Gaussian randomizers).

Every shuffled view of these families post-processes that report with the other users'
independent ones, so the report pair dominates every neighbouring pair at every n (data
processing); it carries no shuffle amplification, but it composes by PLD, also mixed with
"no message" for Poisson-sampled rounds (`composition.participation`).

- Gaussian noise: the unit-shift Gaussian pair, `NoisePair("gaussian", sigma)` (its own
  certified discretisation).
- Discrete Gaussian noise: a float `ViewPair` on the integers |k| <= 40 sigma + 40 (+1 for
  the shifted law), log P(k) = -(k - 1)^2 / (2 sigma^2) - log Z, log Q(k) = -k^2 / (2 sigma^2)
  - log Z, and the loss (2k - 1) / (2 sigma^2) in closed form (Z cancels). Z is a sum of
  positive terms (relative error <= terms x u); the mass beyond the window is at most
  2 e^(-M^2 / (2 sigma^2)) / (1 - e^(-M / sigma^2)) < 1e-300 at M = 40 sigma + 40 (Z >= 1),
  the `_TAIL` given to both laws.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from accountant.composition.noise import NoisePair
from accountant.composition.pld import PairSource
from accountant.errors import ParameterError
from accountant.numeric import rounding
from accountant.pmf import PMF
from accountant.view import ViewPair

__all__ = ["report_pair", "REPORT_NOISES"]

_U = rounding.UNIT_ROUNDOFF
# the mass of a discrete Gaussian beyond |k| > 40 sigma + 40, bounded above (module docstring)
_TAIL = 1e-300


REPORT_NOISES = ("gaussian", "discrete-gaussian")


def report_pair(noise: str, sigma: float) -> PairSource:
    """The report pair of x + noise, x = 1 against x = 0.

    Args:
        noise: "gaussian" or "discrete-gaussian".
        sigma: the noise's standard deviation (validated by the family declaring it).

    Returns:
        A `NoisePair` (Gaussian) or a float `ViewPair` (discrete Gaussian).

    Raises:
        ParameterError: an unknown noise.
    """
    if noise == "gaussian":
        return NoisePair("gaussian", float(sigma))
    if noise == "discrete-gaussian":
        return _discrete_gaussian(float(sigma))
    raise ParameterError(f"noise={noise!r} is outside {set(REPORT_NOISES)}")


@functools.lru_cache(maxsize=16)
def _discrete_gaussian(sigma: float) -> ViewPair:
    top = math.ceil(40.0 * sigma) + 40
    ks = np.arange(-top, top + 2, dtype=float)
    two_var = 2.0 * sigma * sigma              # relative error <= 2u
    # Z over the window, terms e^(-k^2 / 2 sigma^2) (each within a few u relative), summed
    # in order: log Z within (terms + 8) u (1 + small)
    terms = np.exp(-ks[:-1] * ks[:-1] / two_var)
    log_z = math.log(math.fsum(terms))
    # (+ _TAIL: the terms beyond the window, relative to Z >= 1)
    z_error = (ks.size + 8) * _U * 2 + 8 * _U * abs(log_z) + _TAIL
    lq = -ks * ks / two_var - log_z
    lp = -(ks - 1.0) ** 2 / two_var - log_z
    # each quadratic term: the square is exact (integers below 2^53), the division and
    # 2 sigma^2 add <= 4u relative of its size, the subtraction one rounding more
    err = z_error + 8 * _U * (np.maximum(ks * ks, (ks - 1.0) ** 2) / two_var + abs(log_z) + 1)

    def loss(coords: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        k = np.asarray(coords[0], dtype=float)
        value = (2.0 * k - 1.0) / two_var
        return value, 8 * _U * (np.abs(value) + 1)

    P = PMF("float", (-top,), lp, _TAIL, err, True)
    Q = PMF("float", (-top,), lq, _TAIL, err, True)
    return ViewPair.from_pmfs(P, Q, loss=loss, description={
        "pair": "discrete Gaussian report, x = 1 against x = 0", "sigma": sigma})
