"""Interoperation with Google's dp_accounting (an optional extra: `pip install
shuffle-accountant[interop]`), through its public API only (docs/conversions.md#interop).

- `translate_dp_event`: dp_accounting's Gaussian / Laplace events, possibly wrapped in
  `PoissonSampledDpEvent`, `SelfComposedDpEvent` or `ComposedDpEvent`, as this library's
  event records (the accountant composes them with its own certified engine);
- `rdp_epsilon_via_dp_accounting`: a composed `RdpCurve` handed to
  `dp_accounting.rdp.compute_epsilon` (what an `RdpAccountant` holding the same curve
  would report);
- `to_dp_accounting_pld`: pessimistic `LossPmf`s as a dp_accounting
  `PrivacyLossDistribution` (`create_from_rounded_probability`), with the error ledger folded
  in so that its deltas stay upper bounds of the measure's.

dp_accounting is imported inside the functions that need it, never at module import.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from accountant.composition.noise import NOISE_MULTIPLIER
from accountant.composition.pld import LossPmf
from accountant.composition.rdp import RdpCurve
from accountant.domains import DELTA, SAMPLING_RATE
from accountant.errors import ParameterError
from accountant.numeric import rounding

__all__ = ["GaussianNoise", "LaplaceNoise", "Subsampled", "EpsilonDelta", "require_dp_accounting",
           "is_dp_event", "translate_dp_event", "rdp_epsilon_via_dp_accounting",
           "to_dp_accounting_pld", "INSTALL_HINT"]

INSTALL_HINT = "pip install shuffle-accountant[interop]"


# ------------------------------------------------------------------ event records
@dataclass(frozen=True, slots=True)
class EpsilonDelta:
    """A generic (epsilon, delta)-DP mechanism (delta = 0: pure epsilon-DP).

    Attributes:
        epsilon: epsilon >= 0 (finite).
        delta: delta in [0, 1).
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        if not (isinstance(self.epsilon, int | float) and 0 <= self.epsilon < math.inf):
            raise ParameterError(f"epsilon={self.epsilon!r} is outside [0, inf)")
        if not (isinstance(self.delta, int | float) and 0 <= self.delta < 1):
            raise ParameterError(f"delta={self.delta!r} is outside [0, 1)")


# the noise scale over the sensitivity, declared once for both noise events (and NoisePair)
_NOISE_MULTIPLIER = NOISE_MULTIPLIER


@dataclass(frozen=True, slots=True)
class GaussianNoise:
    """The Gaussian mechanism with standard deviation noise_multiplier x sensitivity
    (dp_accounting's `GaussianDpEvent`).

    Attributes:
        noise_multiplier: sigma over the sensitivity, in [0.01, inf) (`NOISE_MULTIPLIER`).
    """

    noise_multiplier: float

    def __post_init__(self) -> None:
        _NOISE_MULTIPLIER.check(self.noise_multiplier)


@dataclass(frozen=True, slots=True)
class LaplaceNoise:
    """The Laplace mechanism with parameter noise_multiplier x sensitivity (dp_accounting's
    `LaplaceDpEvent`).

    Attributes:
        noise_multiplier: b over the sensitivity, in [0.01, inf) (`NOISE_MULTIPLIER`).
    """

    noise_multiplier: float

    def __post_init__(self) -> None:
        _NOISE_MULTIPLIER.check(self.noise_multiplier)


@dataclass(frozen=True, slots=True)
class Subsampled:
    """An event run on a Poisson sample of the users (each independently with probability
    `rate`), e.g. `Subsampled(BinaryRR(n=10**5, epsilon0=1.0), 0.01)`.

    Attributes:
        event: a protocol `Mechanism`, a `GaussianNoise` / `LaplaceNoise`, an `EpsilonDelta`
            or an `RdpCurve` (not another `Subsampled`).
        rate: the sampling rate q in (0, 1].
    """

    event: Any
    rate: float

    def __post_init__(self) -> None:
        if isinstance(self.event, Subsampled):
            raise ParameterError("Subsampled(Subsampled(...)) is not supported; multiply "
                                 "the rates")
        SAMPLING_RATE.named("rate").check(self.rate)


# ------------------------------------------------------------------ dp_accounting
def require_dp_accounting() -> ModuleType:
    """Import dp_accounting.

    Returns:
        The module.

    Raises:
        ParameterError: it is not installed (the message names the extra to install).
    """
    try:
        import dp_accounting
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ParameterError(f"this needs dp_accounting: {INSTALL_HINT}") from exc
    return dp_accounting


def is_dp_event(event: Any) -> bool:
    """Whether `event` is one of dp_accounting's event objects (tested without importing it).

    Args:
        event: any object.

    Returns:
        True for instances of classes defined in dp_accounting.
    """
    return type(event).__module__.split(".")[0] == "dp_accounting"


def translate_dp_event(event: Any, count: int = 1) -> list[tuple[Any, int]]:
    """dp_accounting events as this library's event records.

    Supported: `GaussianDpEvent`, `LaplaceDpEvent`, `PoissonSampledDpEvent` of either,
    `SelfComposedDpEvent`, `ComposedDpEvent` and `NoOpDpEvent`.

    Args:
        event: a dp_accounting `DpEvent`.
        count: how many times it runs.

    Returns:
        (event record, count) items.

    Raises:
        ParameterError: an unsupported event, or dp_accounting is missing.
    """
    dpa = require_dp_accounting()
    if isinstance(event, dpa.NoOpDpEvent):
        return []
    if isinstance(event, dpa.SelfComposedDpEvent):
        return translate_dp_event(event.event, count * int(event.count))
    if isinstance(event, dpa.ComposedDpEvent):
        return [item for e in event.events for item in translate_dp_event(e, count)]
    if isinstance(event, dpa.GaussianDpEvent):
        return [(GaussianNoise(float(event.noise_multiplier)), count)]
    if isinstance(event, dpa.LaplaceDpEvent):
        return [(LaplaceNoise(float(event.noise_multiplier)), count)]
    if isinstance(event, dpa.PoissonSampledDpEvent):
        inner = translate_dp_event(event.event, 1)
        if len(inner) != 1 or not isinstance(inner[0][0], GaussianNoise | LaplaceNoise):
            raise ParameterError("PoissonSampledDpEvent is supported around a Gaussian or "
                                 "Laplace event only")
        rate = float(event.sampling_probability)
        if rate == 0:
            return []
        return [(Subsampled(inner[0][0], rate), count * inner[0][1])]
    raise ParameterError(f"dp_accounting event {type(event).__name__} is not supported "
                         "(Gaussian, Laplace, PoissonSampled, SelfComposed, Composed, NoOp)")


def rdp_epsilon_via_dp_accounting(curve: RdpCurve, delta: float) -> tuple[float, float]:
    """Hand a composed RDP curve to dp_accounting's public conversion
    `dp_accounting.rdp.compute_epsilon(orders, rdp, delta)` (its RdpAccountant's own
    conversion), on the curve's finite orders.

    This is dp_accounting's number for the same curve (a float computation, not certified);
    the library's `conversion.epsilon_best` is the certified one.

    Args:
        curve: an RDP curve (e.g. `Accountant.rdp_curve()`).
        delta: target delta in (0, 1).

    Returns:
        (epsilon, order) as dp_accounting reports them.

    Raises:
        ParameterError: a heuristic curve, or dp_accounting is missing.
    """
    DELTA.check(delta)
    if curve.kind.value == "heuristic":
        raise ParameterError("a heuristic RDP curve is not a guarantee; not exported")
    dpa = require_dp_accounting()
    orders = [a for a in curve.orders if math.isfinite(a)]
    values = [curve.value_at(a) for a in orders]
    eps, order = dpa.rdp.compute_epsilon(orders, values, delta)
    return float(eps), float(order)


def to_dp_accounting_pld(pmfs: list[LossPmf]) -> Any:
    """Pessimistic measures as a dp_accounting `PrivacyLossDistribution`
    (`PrivacyLossDistribution.create_from_rounded_probability`).

    The ledger is folded in: masses are divided by (1 - relative) and the absolute error
    plus the masses' rounding is added to the infinity mass, so every
    `get_delta_for_epsilon` of the exported object (and of its compositions, up to
    dp_accounting's own FFT) is at least the certified value of the measure it came from.

    Args:
        pmfs: one symmetric measure, or [remove, add] (P = the dataset with the user first),
            all pessimistic on the same grid (e.g. `Accountant.loss_pmfs(...)`).

    Returns:
        A `dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution`.

    Raises:
        ParameterError: optimistic measures, mixed grids, or dp_accounting is missing.
    """
    if not pmfs or len(pmfs) > 2 or any(not p.pessimistic for p in pmfs):
        raise ParameterError("export one or two pessimistic measures")
    if len({p.width for p in pmfs}) != 1:
        raise ParameterError("the measures must share one grid width")
    dpa = require_dp_accounting()
    parts = [_rounded(p) for p in pmfs]
    width = pmfs[0].width
    cls = dpa.pld.privacy_loss_distribution.PrivacyLossDistribution
    if len(parts) == 1:
        return cls.create_from_rounded_probability(parts[0][0], parts[0][1], width,
                                                   pessimistic_estimate=True)
    return cls.create_from_rounded_probability(
        parts[0][0], parts[0][1], width, pessimistic_estimate=True,
        rounded_probability_mass_function_add=parts[1][0], infinity_mass_add=parts[1][1],
        symmetric=False)


def _rounded(pmf: LossPmf) -> tuple[dict[int, float], float]:
    scale = 1.0 / (1.0 - pmf.relative) * (1 + 4 * rounding.UNIT_ROUNDOFF)
    nz = np.flatnonzero(pmf.mass)
    masses = pmf.mass[nz] * scale
    table = {int(i) + pmf.offset: float(m) for i, m in zip(nz, masses, strict=True)}
    slack = float(np.sum(masses)) * rounding.sum_relative_error(nz.size + 1) * 2
    infinity = rounding.up(pmf.infinity * scale + pmf.error * scale + slack)
    return table, min(infinity, 1.0)
