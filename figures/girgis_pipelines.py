"""The (epsilon, delta) pipelines of Girgis et al. 2021, Section 4
(docs/girgis-2021.md#section-4-pipelines), shared by the
scripts of Figs. 3-5.

- RDP curves of the closed forms at integer orders (`closed_form_curve`), composed by
  addition (docs/conversions.md#rdp-composition) and converted by Lemma 1 = [CKS20]
  (docs/conversions.md#canonne-kamath-steinke-conversion) minimised over the
  integer orders, as the paper does.
- The paper's "lower bound" pipeline (`lower_pipeline_epsilon`): the Theorem 3 lower bound on
  the RDP, composed and pushed through the same Lemma 1 conversion. Lemma 1 maps RDP UPPER
  bounds to epsilon upper bounds; applied to a lower bound it yields no bound at all. We plot
  it because the paper does, and label it "paper pipeline, not a bound" everywhere.
- The approximate-DP baseline: [FMT20] closed form per round, optionally Poisson subsampled
  by the approximate-DP amplification lemma ([LQS12]: (eps, delta) -> (log(1 + g(e^eps - 1)),
  g delta)), composed by the exact optimal composition of [KOV15]
  (docs/conversions.md#optimal-composition). That
  amplification lemma is the one for Poisson sampling with add/remove neighbours; like the
  paper, we apply it to the replace-one guarantee of a shuffle round, so this baseline
  carries the same neighbouring-relation caveat as the [ZW19] pipeline
  (docs/conversions.md#poisson-subsampling).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from accountant.bounds import feldman_2020, girgis_2021
from accountant.composition import RdpCurve, epsilon_kov
from accountant.errors import RegimeError
from accountant.result import Source

__all__ = ["ORDERS", "QUICK_ORDERS", "closed_form_curve", "lower_pipeline_epsilon",
           "lqs12_subsample", "fmt_kov_epsilon", "cks_epsilon_of_values"]

# Integer orders (the paper minimises Lemma 1 over integer lambda): dense where small T and
# large n put the optimum, sparse beyond (larger orders only matter for tiny tau).
ORDERS: tuple[int, ...] = (*range(2, 17), 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 128, 160,
                           192, 256, 384, 512, 768, 1024)
QUICK_ORDERS: tuple[int, ...] = (*range(2, 9), 12, 16, 24, 32, 48, 64, 96, 128, 256)

# Per-round delta0 = fraction * delta / rounds for the FMT + KOV baseline; the minimum over
# these splits is reported (each split is a valid bound on its own).
DELTA_SPLITS: tuple[float, ...] = (0.1, 0.5)


def closed_form_curve(bound: Callable[..., object], *, n: int, epsilon0: float,
                      orders: Sequence[int]) -> RdpCurve:
    """An RdpCurve of a closed-form upper bound alpha -> Result at integer orders."""
    return RdpCurve.from_function(
        lambda a: bound(alpha=int(a), epsilon0=epsilon0, n=n), [float(a) for a in orders],
        method=f"{bound.__module__}.{bound.__name__}(n={n}, epsilon0={epsilon0})")


def cks_epsilon_of_values(orders: Sequence[float], taus: Sequence[float], *,
                          delta: float) -> float:
    """min over the orders of Lemma 1 / [CKS20]
    (docs/conversions.md#canonne-kamath-steinke-conversion), clamped at 0, plain floats:
    eps = tau + log((a-1)/a) - (log delta + log a)/(a-1)."""
    a = np.asarray(orders, dtype=float)
    t = np.asarray(taus, dtype=float)
    eps = t + np.log1p(-1 / a) - (math.log(delta) + np.log(a)) / (a - 1)
    return max(0.0, float(np.min(eps)))


def lower_pipeline_epsilon(*, n: int, epsilon0: float, delta: float, rounds: int,
                           orders: Sequence[int]) -> float:
    """The paper's plotted "lower bound" curve: rounds * Theorem 3 through Lemma 1.

    NOT a bound on epsilon (Lemma 1 needs an RDP upper bound); see the module docstring.
    """
    taus = [rounds * float(girgis_2021.rdp_lower_thm3(alpha=a, epsilon0=epsilon0, n=n))
            for a in orders]
    return cks_epsilon_of_values(orders, taus, delta=delta)


def lqs12_subsample(*, epsilon: float, delta: float, rate: float) -> tuple[float, float]:
    """Approximate-DP amplification by Poisson subsampling with probability `rate`:
    (eps, delta) -> (log(1 + rate (e^eps - 1)), rate delta) (Li, Qardaji, Su 2012)."""
    return math.log1p(rate * math.expm1(epsilon)), rate * delta


LQS12 = Source(citation="Li, Qardaji, Su, ASIACCS 2012", locator="subsampling amplification")


def fmt_kov_epsilon(*, n: int, epsilon0: float, delta: float, rounds: int,
                    rate: float | None = None) -> float:
    """[FMT20] closed form per round (at delta0 = split * delta / (rounds * rate)), optionally
    [LQS12]-subsampled, then [KOV15] exact composition at total delta; min over splits.

    Returns nan when FMT's regime condition fails for every split (the paper's baseline is
    then undefined; we do not extrapolate it)."""
    best = math.nan
    for split in DELTA_SPLITS:
        # per-round delta after subsampling is rate * delta0; spend split * delta over T rounds
        delta0 = min(split * delta / (rounds * (rate or 1.0)), 0.5)
        try:
            eps = float(feldman_2020.epsilon_upper(epsilon0=epsilon0, n=n, delta=delta0))
        except RegimeError:
            continue
        d = delta0
        if rate is not None:
            eps, d = lqs12_subsample(epsilon=eps, delta=delta0, rate=rate)
        total = float(epsilon_kov(epsilon=eps, delta=d, rounds=rounds,
                                  delta_total=delta))
        best = total if math.isnan(best) else min(best, total)
    return best
