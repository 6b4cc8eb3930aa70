"""Interoperation with Google's dp_accounting (an optional extra: `pip install
shuffle-accountant[interop]`), through its public API only (docs/conversions.md#interop).

- `translate_dp_event`: dp_accounting's Gaussian, Laplace, discrete Laplace,
  randomized-response and zCDP events, possibly wrapped in `PoissonSampledDpEvent`,
  `SampledWithoutReplacementDpEvent`, `SelfComposedDpEvent` or `ComposedDpEvent`, as this
  library's event records (the accountant composes them with its own certified engine), and
  `dp_event_relations`: the neighbouring relations under which such an event is accounted
  (dp_accounting's own convention, add-or-remove-one, where the event allows it);
- `rdp_epsilon_via_dp_accounting`: a composed `RdpCurve` handed to
  `dp_accounting.rdp.compute_epsilon` (what an `RdpAccountant` holding the same curve
  would report);
- `to_dp_accounting_pld`: pessimistic `LossPmf`s as a dp_accounting
  `PrivacyLossDistribution` (`create_from_rounded_probability`), with the error ledger folded
  in so that its deltas stay upper bounds of the measure's.

dp_accounting is imported inside the functions that need it, never at module import.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from types import ModuleType
from typing import Any

import mpmath
import numpy as np

from accountant.composition.noise import NOISE_MULTIPLIER, sensitivity_factor
from accountant.composition.pld import LossPmf
from accountant.composition.rdp import DEFAULT_ORDERS, RdpCurve
from accountant.domains import DELTA, SAMPLING_RATE
from accountant.errors import ParameterError
from accountant.numeric import rounding
from accountant.result import Kind, Source
from accountant.view import ViewPair

__all__ = ["GaussianNoise", "LaplaceNoise", "DiscreteLaplaceNoise", "Subsampled",
           "EpsilonDelta", "require_dp_accounting", "RandomizedResponse",
           "SampledWithoutReplacement", "is_dp_event",
           "translate_dp_event", "dp_event_relations", "event_relations", "relations_of",
           "zcdp_curve",
           "rdp_epsilon_via_dp_accounting", "dp_event_of", "to_autodp_mechanism",
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


@dataclass(frozen=True, slots=True)
class RandomizedResponse:
    """One user's randomized response over `num_buckets` values, unshuffled
    (dp_accounting's `RandomizedResponseDpEvent`): with probability `noise_parameter` a
    uniformly random value, otherwise the true one. Defined under substitution only (an
    absent user sends nothing, which is no outcome of the randomizer).

    Attributes:
        noise_parameter: p in (0, 1] (p = 0 reveals the value: no finite epsilon).
        num_buckets: k >= 2 values.
    """

    noise_parameter: float
    num_buckets: int

    def __post_init__(self) -> None:
        p = self.noise_parameter
        if not (isinstance(p, int | float) and 0 < p <= 1):
            raise ParameterError(f"noise_parameter={p!r} is outside (0, 1] (p = 0 releases "
                                 "the value itself: no finite epsilon)")
        k = self.num_buckets
        if not (isinstance(k, int) and 2 <= k <= 10**12):
            raise ParameterError(f"num_buckets={k!r} is outside integers in [2, 1e12]")

    def view(self) -> ViewPair:
        """The view of two different inputs i != j, with the k - 2 other values merged into
        one outcome (they have the same probability p/k under both, so merging keeps every
        divergence). It dominates every neighbouring pair: all pairs of distinct inputs are
        the same pair up to relabelling the outputs, itself swapped included.

        Returns:
            A float `ViewPair` given by log-probabilities: the logs of the exact rationals
            (p is the float's exact value), rounded to nearest from 40 digits, well inside
            the float backend's stated 4 u max(1, |log p|) per entry.
        """
        p, k = Fraction(self.noise_parameter), self.num_buckets
        keep, other = 1 - p + p / k, p / k
        rest = [other * (k - 2)] if k > 2 else []
        with mpmath.workdps(40):
            logs = [float(mpmath.log(mpmath.mpf(v.numerator) / v.denominator))
                    for v in [keep, other] + rest]
        return ViewPair.from_arrays(logs, [logs[1], logs[0]] + logs[2:], log=True,
                                    description={"protocol": "randomized response",
                                                 "noise_parameter": self.noise_parameter,
                                                 "num_buckets": k})


@dataclass(frozen=True, slots=True)
class DiscreteLaplaceNoise:
    """The discrete Laplace mechanism on an integer sum (dp_accounting's
    `DiscreteLaplaceDpEvent`): the noise has PMF tanh(a/2) exp(-a |z|) on the integers and
    the sum's sensitivity is `sensitivity` under add/remove (twice that under substitution,
    the convention of the other noise records).

    Attributes:
        noise_parameter: a > 0 (finite).
        sensitivity: C, an integer in [1, 100000].
    """

    noise_parameter: float
    sensitivity: int

    def __post_init__(self) -> None:
        a = self.noise_parameter
        if not (isinstance(a, int | float) and 0 < a < math.inf):
            raise ParameterError(f"noise_parameter={a!r} is outside (0, inf) (a = 0 adds no "
                                 "noise: no finite epsilon)")
        c = self.sensitivity
        if not (isinstance(c, int) and 1 <= c <= _MAX_SENSITIVITY):
            raise ParameterError(f"sensitivity={c!r} is outside integers in "
                                 f"[1, {_MAX_SENSITIVITY}]")

    def view(self, relation: str) -> ViewPair:
        """The pair (Z, Z + S), S = C (add/remove) or 2 C (substitute): every neighbouring
        pair of the mechanism is (v + Z, v + s + Z) with integer |s| <= S, and for noise with
        a log-concave PMF the location experiment with the larger shift is the more
        informative one (Lehmann, "Comparing location experiments", Ann. Statist. 1988), so
        each of its divergences is at most the pair's at S (for s < 0 mirror the outputs:
        the noise is symmetric); tests/composition/test_discrete_laplace.py checks it
        exhaustively on small shifts. Outcomes: z <= 0, z = 1..S-1 and
        z >= S, whose masses are tanh(a/2) e^(-a z) per point and the geometric sums
        1/(1 + e^-a) e^(-a k) of the two ends; the pair is its own swap (z -> S - z), so it
        covers both directions.

        Args:
            relation: "add-remove" or "substitute".

        Returns:
            A float `ViewPair` given by log-probabilities, each within 3 u max(1, |log p|) of
            the exact value (the constants rounded to nearest from 40 digits, then one
            product and one sum in float), inside the float backend's stated error.
        """
        shift = self.sensitivity * int(sensitivity_factor(relation))
        a = self.noise_parameter
        with mpmath.workdps(40):
            am = mpmath.mpf(a)
            log_tanh = float(mpmath.log(mpmath.tanh(am / 2)))
            log_end = float(-mpmath.log1p(mpmath.exp(-am)))
        z = np.arange(1, shift, dtype=float)
        log_p = np.concatenate(([log_end], -a * z + log_tanh, [-a * shift + log_end]))
        return ViewPair.from_arrays(log_p, log_p[::-1].copy(), log=True,
                                    description={"protocol": "discrete laplace",
                                                 "noise_parameter": a,
                                                 "sensitivity": self.sensitivity,
                                                 "shift": shift})


_MAX_SENSITIVITY = 100_000


@dataclass(frozen=True, slots=True)
class SampledWithoutReplacement:
    """A Gaussian event run on a uniformly random sample of `sample_size` of the
    `dataset_size` records (dp_accounting's `SampledWithoutReplacementDpEvent`), under
    substitution (the dataset's size is fixed).

    With gamma = sample_size/dataset_size, records clipped to norm 1 and noise of standard
    deviation sigma, the pair ((1 - gamma) N(0, sigma^2) + gamma N(2, sigma^2), N(0, sigma^2))
    and its swap dominate every substituted pair (Zhu, Dong, Wang, AISTATS 2022, sampling
    without replacement under replace-one; docs/conversions.md#sampling-without-replacement):
    Poisson sampling's add/remove pair at half the noise multiplier.

    Attributes:
        event: a `GaussianNoise`.
        sample_size: m, an integer in [1, dataset_size].
        dataset_size: N >= 1.
    """

    event: Any
    sample_size: int
    dataset_size: int

    def __post_init__(self) -> None:
        if not isinstance(self.event, GaussianNoise):
            raise ParameterError("SampledWithoutReplacement is supported around a Gaussian "
                                 f"event only, not {type(self.event).__name__}")
        if self.event.noise_multiplier < 2 * _NOISE_MULTIPLIER.low:
            raise ParameterError(f"noise_multiplier={self.event.noise_multiplier!r} is "
                                 f"outside [{2 * _NOISE_MULTIPLIER.low}, inf) under sampling "
                                 "without replacement (its pair is the Gaussian's at half "
                                 "the noise multiplier)")
        n, m = self.dataset_size, self.sample_size
        if not (isinstance(n, int) and n >= 1):
            raise ParameterError(f"dataset_size={n!r} is outside integers >= 1")
        if not (isinstance(m, int) and 1 <= m <= n):
            raise ParameterError(f"sample_size={m!r} is outside integers in [1, "
                                 f"dataset_size={n}]")

    @property
    def rate(self) -> float:
        """gamma = sample_size/dataset_size (rounded up: a larger rate is less private)."""
        return rounding.up(Fraction(self.sample_size, self.dataset_size))


def zcdp_curve(rho: float) -> RdpCurve:
    """rho-zCDP as its RDP curve: D_alpha <= rho alpha at every order alpha > 1 (the
    definition, Bun and Steinke 2016, Definition 1.1), rounded up.

    Args:
        rho: rho >= 0 (finite).

    Returns:
        The curve on `DEFAULT_ORDERS` (UPPER; inf at alpha = inf unless rho = 0).

    Raises:
        ParameterError: rho outside [0, inf).
    """
    if not (isinstance(rho, int | float) and 0 <= rho < math.inf):
        raise ParameterError(f"rho={rho!r} is outside [0, inf)")
    return RdpCurve.from_function(
        lambda a: 0.0 if rho == 0 else rounding.up(Fraction(rho) * Fraction(a))
        if math.isfinite(a) else math.inf, DEFAULT_ORDERS,
        method=f"zCDP rho={rho}: D_alpha <= rho alpha", source=_BUN_STEINKE)


_BUN_STEINKE = Source(citation="Bun, Steinke, TCC 2016", locator="Definition 1.1 (zCDP)")


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

    Supported: `GaussianDpEvent`, `LaplaceDpEvent`, `DiscreteLaplaceDpEvent`,
    `RandomizedResponseDpEvent`,
    `ZCDpEvent` (as its RDP curve rho alpha), `PoissonSampledDpEvent` of a Gaussian or
    Laplace event, `SampledWithoutReplacementDpEvent` of a Gaussian event, `SelfComposedDpEvent`,
    `ComposedDpEvent` and `NoOpDpEvent`.

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
    if isinstance(event, dpa.dp_event.DiscreteLaplaceDpEvent):
        return [(DiscreteLaplaceNoise(float(event.noise_parameter), int(event.sensitivity)),
                 count)]
    if isinstance(event, dpa.RandomizedResponseDpEvent):
        if int(event.num_buckets) == 1 or float(event.noise_parameter) == 1:
            return []  # one bucket, or every output uniform: nothing is released
        return [(RandomizedResponse(float(event.noise_parameter), int(event.num_buckets)),
                 count)]
    if isinstance(event, dpa.ZCDpEvent):
        return [(zcdp_curve(float(event.rho)), count)]
    if isinstance(event, dpa.PoissonSampledDpEvent):
        inner = translate_dp_event(event.event, 1)
        if len(inner) != 1 or not isinstance(inner[0][0], GaussianNoise | LaplaceNoise):
            raise ParameterError("PoissonSampledDpEvent is supported around a Gaussian or "
                                 "Laplace event only")
        rate = float(event.sampling_probability)
        if rate == 0:
            return []
        return [(Subsampled(inner[0][0], rate), count * inner[0][1])]
    if isinstance(event, dpa.SampledWithoutReplacementDpEvent):
        inner = translate_dp_event(event.event, 1)
        if len(inner) != 1 or not isinstance(inner[0][0], GaussianNoise):
            raise ParameterError("SampledWithoutReplacementDpEvent is supported around a "
                                 "Gaussian event only")
        if int(event.sample_size) == 0:
            return []
        return [(SampledWithoutReplacement(inner[0][0], int(event.sample_size),
                                           int(event.source_dataset_size)),
                 count * inner[0][1])]
    raise ParameterError(f"dp_accounting event {type(event).__name__} is not supported "
                         "(Gaussian, Laplace, DiscreteLaplace, RandomizedResponse, ZCDp, "
                         "PoissonSampled, SampledWithoutReplacement, SelfComposed, Composed, "
                         "NoOp)")


# every relation the accountant knows; records not listed in _ONLY take either
_BOTH = frozenset({"add-remove", "substitute"})
_ONLY: dict[type, frozenset[str]] = {RandomizedResponse: frozenset({"substitute"}),
                                     SampledWithoutReplacement: frozenset({"substitute"})}


def event_relations(event: Any) -> frozenset[str]:
    """The neighbouring relations under which an event record is defined.

    Args:
        event: an event record (`RandomizedResponse` and `SampledWithoutReplacement` fix the
            dataset's size: substitution only; the others take both relations).

    Returns:
        A subset of {"add-remove", "substitute"}.
    """
    return _ONLY.get(type(event), _BOTH)


def dp_event_relations(event: Any) -> frozenset[str]:
    """The relations under which a dp_accounting event (all its parts) is defined.

    Args:
        event: a dp_accounting `DpEvent`.

    Returns:
        The intersection over its translated parts (empty: the parts disagree).

    Raises:
        ParameterError: as `translate_dp_event`.
    """
    return relations_of(record for record, _ in translate_dp_event(event))


def relations_of(records: Iterable[Any]) -> frozenset[str]:
    """The relations under which every one of `records` is defined (`event_relations`)."""
    out = _BOTH
    for record in records:
        out = out & event_relations(record)
    return out


def dp_event_of(event: Any, count: int = 1, label: str = "") -> Any:
    """This library's event record as a dp_accounting `DpEvent` (the inverse of
    `translate_dp_event` where dp_accounting has the event).

    Args:
        event: a `GaussianNoise`, `LaplaceNoise`, `Subsampled` of either, `RandomizedResponse`
            or `SampledWithoutReplacement`.
        count: how many times it runs (>= 1; `SelfComposedDpEvent` above 1).
        label: the entry's description, for the error message.

    Returns:
        A `DpEvent`.

    Raises:
        ParameterError: an event dp_accounting has no counterpart for, or it is missing.
    """
    dpa = require_dp_accounting()
    one: Any
    if isinstance(event, GaussianNoise):
        one = dpa.GaussianDpEvent(event.noise_multiplier)
    elif isinstance(event, LaplaceNoise):
        one = dpa.LaplaceDpEvent(event.noise_multiplier)
    elif isinstance(event, RandomizedResponse):
        one = dpa.RandomizedResponseDpEvent(event.noise_parameter, event.num_buckets)
    elif isinstance(event, DiscreteLaplaceNoise):
        one = dpa.dp_event.DiscreteLaplaceDpEvent(event.noise_parameter, event.sensitivity)
    elif isinstance(event, SampledWithoutReplacement):
        one = dpa.SampledWithoutReplacementDpEvent(
            event.dataset_size, event.sample_size,
            dpa.GaussianDpEvent(event.event.noise_multiplier))
    elif isinstance(event, Subsampled) and isinstance(event.event, GaussianNoise | LaplaceNoise):
        one = dpa.PoissonSampledDpEvent(event.rate, dp_event_of(event.event))
    else:
        raise ParameterError(f"{label or type(event).__name__} has no dp_accounting event "
                             "(shuffled protocols, views, RDP curves and (epsilon, delta) "
                             "records do not); export its PLD with to_dp_accounting_pld")
    return one if count == 1 else dpa.SelfComposedDpEvent(one, count)


def to_autodp_mechanism(curve: RdpCurve, name: str = "shuffle-accountant") -> Any:
    """An RDP curve as an autodp `Mechanism` (its RDP function is `curve.value_at`, an upper
    bound at every order >= the curve's first), so autodp's `Composition` and conversions
    can take it.

    Args:
        curve: a certified curve (not heuristic), e.g. `Accountant.rdp_curve()`.
        name: the mechanism's name in autodp.

    Returns:
        An `autodp.autodp_core.Mechanism`.

    Raises:
        ParameterError: a heuristic curve, or autodp is missing.
    """
    if curve.kind is Kind.HEURISTIC:
        raise ParameterError("a heuristic RDP curve is not a bound: nothing to export")
    try:
        core = importlib.import_module("autodp.autodp_core")
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ParameterError(f"this needs autodp: {INSTALL_HINT}") from exc
    first = curve.orders[0]
    mech = core.Mechanism()
    mech.name, mech.params = name, {"method": curve.method}
    # below the first stored order the first value bounds D_alpha (nondecreasing in alpha)
    mech.propagate_updates(lambda a: curve.value_at(max(float(a), first)), "RDP")
    return mech


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
