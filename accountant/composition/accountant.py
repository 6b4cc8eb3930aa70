"""The accountant object: a ledger of events and the certified routes that answer it
(docs/conversions.md#the-accountant).

    acc = Accountant(neighboring="substitute")
    acc.compose(Subsampled(LDP(n=100_000, epsilon0=3.0), 0.01), count=1000)
    acc.compose(GaussianNoise(4.0), count=100)
    acc.get_epsilon(1e-5)          # a Bracket; its upper end is certified

Events: a protocol `Mechanism` (composed through its dominating pair), a `ViewPair` (one
neighbouring pair's view: the numbers are that pair's), an `EpsilonDelta`, a `GaussianNoise`
or `LaplaceNoise`, an `RdpCurve`, a `Subsampled(event, rate)` of any of these but a view, a
`RandomizedResponse`, a `SampledWithoutReplacement(GaussianNoise)`, and dp_accounting's
events (`composition.interop.translate_dp_event` lists them; translated through its public
classes, imported only then).

Relations: without `neighboring=`, the first event's convention fixes the relation
(add/remove for dp_accounting's events, its accountants' default; substitution for this
library's, the shuffle model's), and a later event of the other convention is refused
(docs/conversions.md#relations-whose-convention).

Routes, each used when every entry of the ledger supports it:

- `pld`: the certified PLD engine on each entry's dominating pair (upper end) and, where
  the entries have one, on pairs whose value is a lower bound (lower end): a protocol's
  special pair for a plain round, and for a Poisson-subsampled or add/remove round the
  count of y* under one real neighbouring pair (`Mechanism.subsampled_view_pair`), each
  composed by the optimistic PLD: a lower bound on the mechanism;
- `rdp`: the sum of the entries' RDP curves, converted (Mironov, CKS, optimal); a curve
  built by a pipeline that is not a theorem (ZW19 on a replace-one curve) is heuristic:
  listed, never an end of the bracket;
- `kov`: entries that are (epsilon, delta) classes, or members of one (a certified
  max-divergence, a local randomizer's guarantee; `LedgerEntry.class_factory`): KOV's
  exact optimum for identical classes (an upper end only for members), basic composition
  for different ones;
- `analytic`: Gaussian entries only (no sampling): one Gaussian with mu^2 summed; or a
  single Laplace run (closed form).

The bracket's upper end is the smallest certified upper bound, its lower end the largest
lower bound, each naming its route in its method.
"""

from __future__ import annotations

import enum
import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import mpmath

from accountant.composition import conversion, interop, kov, pld, subsampling
from accountant.composition.interop import (
    DiscreteLaplaceNoise,
    EpsilonDelta,
    GaussianNoise,
    LaplaceNoise,
    RandomizedResponse,
    SampledWithoutReplacement,
    Subsampled,
    event_relations,
    is_dp_event,
    relations_of,
    translate_dp_event,
)
from accountant.composition.noise import (
    NoisePair,
    analytic_source,
    gaussian_delta,
    gaussian_epsilon,
    noise_rdp_curve,
    sensitivity_factor,
)
from accountant.composition.participation import ParticipationPair
from accountant.composition.rdp import DEFAULT_ORDERS, ROUNDS, RdpCurve
from accountant.composition.report import report_pair
from accountant.composition.sampled_gaussian import sampled_gaussian_rdp_curve
from accountant.composition.subsampled import RELATIONS, SubsampledPair
from accountant.distributions import binomial_window
from accountant.divergence import max_divergence
from accountant.domains import DELTA, EPSILON, trusted
from accountant.errors import AccountantError, ParameterError, PrecisionError, RegimeError
from accountant.numeric import rounding
from accountant.pairs.clones import ClonePair
from accountant.pairs.product import ProductPair
from accountant.protocols.contract import DominatingPair, Mechanism, certified_max_divergence
from accountant.result import Bracket, Direction, Kind, Result, Scope, Source
from accountant.view import ViewPair

__all__ = ["Accountant", "LedgerEntry", "Report", "dominating_source", "ROUTES",
           "EpsilonDelta", "GaussianNoise", "LaplaceNoise", "Subsampled", "SPARSE_ORDERS"]

# cheap exact routes first: an exact answer settles the bracket and the late routes are then
# skipped (an (epsilon, delta) ledger of 1e6 runs spent 101 s and 7.5 GiB in the PLD before
# KOV answered exactly in 4 ms)
ROUTES = ("analytic", "kov", "pld", "rdp")
# routes skipped under method="all" once the bracket is this narrow (relative width): their
# upper ends cannot go below the lower end, so they could win by at most that much
SETTLED_WIDTH = 0.01
# (the PLD route too: after an exact analytic answer, a Gaussian ledger of 119 runs at small
# noise spent 21 s in a PLD that could not change the bracket)
_LATE_ROUTES = ("pld", "rdp")
# Fewer orders for expensive pairs (2-D views, clone mixtures); chords fill in between.
SPARSE_ORDERS = (1.1, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0)
_LARGE_VIEW = 200_000
# the most cells of the upper end's last grid, tilted, on which the special pair's lower end
# is still composed (its own tail targets and tilted squarings: 36 s for 1e9 k-RR rounds on
# 2.5e6 cells; untilted, 1e6 shuffle rounds spend 2 s on 1.7e6 cells)
_SPECIAL_CELLS = 1_000_000


def _renyi_uppers(mech: Mechanism) -> tuple[Result | None, ...]:
    """The mechanism's certified Renyi upper ends at SPARSE_ORDERS and inf, kept for the
    same mechanism in later ledgers: a calibration of the rate or the rounds builds one
    ledger per value tried (3.5 s of each 7 s evaluation for ldp, n = 1e4). A mechanism
    with unhashable fields (a randomizer matrix) is not kept."""
    try:
        hash(mech)
    except TypeError:
        return _uppers(mech)
    return _kept_uppers(mech)


def _uppers(mech: Mechanism) -> tuple[Result | None, ...]:
    # upper ends only: k-RR's lower ends (its special pair) took minutes at n = 1e5, k = 4
    return tuple(mech.renyi_upper(SPARSE_ORDERS + (math.inf,)))


_kept_uppers = functools.lru_cache(maxsize=8)(_uppers)


def dominating_source(dominating: DominatingPair[Any] | None
                      ) -> ViewPair | ClonePair | ProductPair | None:
    """A pair the PLD engine composes that dominates every neighbouring pair: the contract's
    `DominatingPair.composable` (typed; no dispatch on attributes).

    Args:
        dominating: `Mechanism.dominating_pair()`.

    Returns:
        A `ViewPair`, a `ClonePair`, a `ProductPair`, or None.
    """
    return None if dominating is None else dominating.composable


@dataclass
class LedgerEntry:
    """One composed event with what each route needs (None where it has nothing).

    Attributes:
        label: a short description.
        count: how many times it runs.
        upper_source: a pair for the PLD engine dominating every neighbouring pair.
        lower_source: a pair whose (optimistic) PLD value is a lower bound on the event's.
        curve_factory: builds the event's RDP curve (UPPER/EXACT, or HEURISTIC), or None.
        eps_delta: (epsilon, delta) for KOV when the event is exactly the class of
            (epsilon, delta)-DP mechanisms.
        class_factory: an (eps, delta) such that one run is (eps, delta)-DP under the
            ledger's relation (a certified max-divergence gives (eps, 0)): the event is a
            member of that class, for KOV and basic composition; or None.
        class_at: delta1 -> an (eps1, delta1) with one run (eps1, delta1)-DP (the event's
            certified epsilon(delta1) upper end), for KOV where `class_factory` has none:
            the route then spends a share of the target delta on the rounds' own; or None.
        gaussian_mu: sensitivity/sigma of an unsampled Gaussian (analytic route).
        laplace_epsilon0: sensitivity/b of an unsampled Laplace event (analytic route when
            it is the only run in the ledger).
        notes: why routes are missing, by route name.
        pair_only: the event is one neighbouring pair's view (values are that pair's).
        event: the composed event record (for `Accountant.to_dp_event`).
        heuristic_curve: the curve is HEURISTIC whatever it turns out to be (ZW19 on a
            replace-one curve): the RDP route then lists values and bounds nothing.
        per_round_kov: KOV also tries `class_at` although `upper_source` is set (a report
            pair, without the shuffle's amplification that the rounds' own bound has).
        class_note: what `class_at`'s epsilon is, for the KOV result's method ("" when it
            is the event's own certified epsilon(delta1)).
    """

    label: str
    count: int
    upper_source: pld.PairSource | None = None
    lower_source: pld.PairSource | None = None
    curve_factory: Callable[[], RdpCurve | None] | None = None
    eps_delta: tuple[float, float] | None = None
    class_factory: Callable[[], tuple[float, float] | None] | None = None
    class_at: Callable[[float], tuple[float, float] | None] | None = None
    gaussian_mu: float | None = None
    laplace_epsilon0: float | None = None
    notes: dict[str, str] = field(default_factory=dict)
    pair_only: bool = False
    event: Any = None  # the composed record (Subsampled wrapper included), for exports
    heuristic_curve: bool = False
    per_round_kov: bool = False
    class_note: str = ""
    _curve: RdpCurve | None = field(default=None, repr=False)
    _curve_done: bool = field(default=False, repr=False)
    _class: tuple[float, float] | None = field(default=None, repr=False)
    _class_done: bool = field(default=False, repr=False)

    def curve(self) -> RdpCurve | None:
        """The event's RDP curve for one run (built once).

        Returns:
            The curve, or None when the event has none.
        """
        if not self._curve_done:
            self._curve = None if self.curve_factory is None else self.curve_factory()
            self._curve_done = True
        return self._curve

    def dp_class(self) -> tuple[float, float] | None:
        """A certified (eps, delta) with one run (eps, delta)-DP under the ledger's relation
        (built once).

        Returns:
            The pair, or None when the event has none with a finite eps and delta < 1.
        """
        if not self._class_done:
            c = None if self.class_factory is None else self.class_factory()
            self._class = c if c is not None and math.isfinite(c[0]) and c[1] < 1 else None
            self._class_done = True
        return self._class


@dataclass(frozen=True)
class Report:
    """Every route's answer and the bracket they give.

    Attributes:
        quantity: "epsilon" or "delta".
        at: the other coordinate.
        bracket: lower and upper ends (`pair_lower`: the dominating pairs' own lower end).
        entries: one dict per route answer: "method" (route name) and "result" (a
            `Result`) or "skipped" (why), plus route details (discretization, ...).
    """

    quantity: str
    at: float
    bracket: Bracket
    entries: tuple[dict[str, Any], ...]

    @property
    def heuristic(self) -> bool:
        """Whether a listed value is heuristic (not a bound)."""
        return any(e["result"].kind is Kind.HEURISTIC for e in self.entries if "result" in e)


# dp_accounting's NeighboringRelation members, by name (no import of dp_accounting needed)
_DP_ACCOUNTING_RELATIONS = {"ADD_OR_REMOVE_ONE": "add-remove", "REPLACE_ONE": "substitute"}
# the shuffle model's relation (the seed papers'), taken by this library's own events
DEFAULT_RELATION = "substitute"
# dp_accounting's accountants' default (ADD_OR_REMOVE_ONE), taken by its events
DP_ACCOUNTING_RELATION = "add-remove"


def _relation(neighboring: Any) -> str:
    """A relation given as text or as dp_accounting's `NeighboringRelation`."""
    if isinstance(neighboring, enum.Enum):  # dp_accounting.NeighboringRelation
        relation = _DP_ACCOUNTING_RELATIONS.get(neighboring.name)
        if relation is None:
            raise ParameterError(f"neighboring={neighboring!r} has no counterpart here; "
                                 "valid: ADD_OR_REMOVE_ONE, REPLACE_ONE")
        return relation
    if neighboring not in RELATIONS:
        raise ParameterError(f"neighboring={neighboring!r} is outside {set(RELATIONS)}")
    return str(neighboring)


class Accountant:
    """A ledger of composed events answered by certified routes (module docstring).

    Args:
        neighboring: "substitute" (one user's data changes; dp_accounting's REPLACE_ONE) or
            "add-remove" (one user is present or absent; ADD_OR_REMOVE_ONE), as text or as
            dp_accounting's `NeighboringRelation`; None (default): the first event's
            convention, "add-remove" for dp_accounting's events (its accountants' default)
            and "substitute" for this library's; a later event whose convention differs is
            then refused rather than accounted under a relation the user did not pick.

    Raises:
        ParameterError: an unknown relation (dp_accounting's REPLACE_SPECIAL included).
    """

    def __init__(self, neighboring: Any = None) -> None:
        self._chosen = neighboring is not None
        self._relation: str | None = None if neighboring is None else _relation(neighboring)
        self._settled_by = ""
        self._ledger: list[LedgerEntry] = []

    @property
    def neighboring(self) -> str:
        """The neighbouring relation: the one given, else the one the first event settled
        ("substitute" while the ledger is empty)."""
        return self._relation or DEFAULT_RELATION

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """The composed entries, in order."""
        return tuple(self._ledger)

    def _settle(self, allowed: frozenset[str], preferred: str, what: str) -> None:
        """Fix the relation at the first event when none was given, and refuse an event
        that needs another one (module docstring, "Relations")."""
        if not allowed:
            raise ParameterError(f"{what} joins events defined under different neighbouring "
                                 "relations (randomized response and sampling without "
                                 "replacement fix the dataset's size: substitution only)")
        if self._relation is None:
            self._relation = preferred if preferred in allowed else min(allowed)
            self._settled_by = what
            return
        origin = ("as given" if self._chosen else
                  f"taken from the first event, {self._settled_by}")
        if self._relation not in allowed:
            raise ParameterError(f"{what} is defined under neighboring="
                                 f"{' or '.join(sorted(allowed))!r} only; this ledger is "
                                 f"accounted under {self._relation!r} ({origin})")
        if not self._chosen and preferred in allowed and preferred != self._relation:
            raise ParameterError(f"{what} is accounted under {preferred!r} by default, but "
                                 f"this ledger uses {self._relation!r} ({origin}); pass "
                                 "Accountant(neighboring=...) to account every event under "
                                 "one relation")

    # ------------------------------------------------------------------ composing
    def compose(self, event: Any, count: int = 1) -> Accountant:
        """Add `count` runs of `event` (module docstring lists the events).

        Args:
            event: the event.
            count: how many times it runs (>= 1).

        Returns:
            self (calls chain).

        Raises:
            ParameterError: an unsupported event or a bad count.
        """
        ROUNDS.check(count)
        count = int(count)
        if is_dp_event(event):
            items = translate_dp_event(event, count)  # translated once
            self._add(items, relations_of(record for record, _ in items),
                      DP_ACCOUNTING_RELATION, f"dp_accounting's {type(event).__name__}")
        else:
            self._add([(event, count)], event_relations(event), DEFAULT_RELATION,
                      type(event).__name__)
        return self

    def _add(self, items: list[tuple[Any, int]], allowed: frozenset[str], preferred: str,
             what: str) -> None:
        """Settle the relation, then append every item's entry, or none of them: a refused
        event (or part of a composed one) leaves the ledger and the relation as they were."""
        state = (self._relation, self._settled_by)
        self._settle(allowed, preferred, what)
        try:
            entries = [replace(self._entry(record, c), event=record) for record, c in items]
        except Exception:
            self._relation, self._settled_by = state
            raise
        self._ledger.extend(entries)

    def _entry(self, event: Any, count: int) -> LedgerEntry:
        rate = None
        if isinstance(event, Subsampled):
            rate = float(event.rate)
            event = event.event
            if rate == 1 and self.neighboring == "substitute":
                rate = None  # the substitute relation at q = 1 is the plain round
        if isinstance(event, Mechanism):
            return self._mechanism(event, count, rate)
        if isinstance(event, ViewPair):
            if rate is not None:
                raise ParameterError("one pair's view cannot be subsampled; compose the "
                                     "protocol's Mechanism instead")
            return _view_entry(event, count)
        if isinstance(event, EpsilonDelta):
            return self._eps_delta(event, count, rate)
        if isinstance(event, GaussianNoise | LaplaceNoise):
            return self._noise(event, count, rate)
        if isinstance(event, RdpCurve):
            return self._rdp(event, count, rate)
        if isinstance(event, RandomizedResponse) and rate is None:
            return _randomized_response_entry(event, count)
        if isinstance(event, DiscreteLaplaceNoise) and rate is None:
            return _discrete_laplace_entry(event, count, self.neighboring)
        if isinstance(event, SampledWithoutReplacement) and rate is None:
            return _without_replacement_entry(event, count)
        raise ParameterError(f"{type(event).__name__} is not an event the accountant "
                             "composes (Mechanism, ViewPair, EpsilonDelta, GaussianNoise, "
                             "LaplaceNoise, RdpCurve, RandomizedResponse, "
                             "DiscreteLaplaceNoise, SampledWithoutReplacement, Subsampled of "
                             "the first six, or a "
                             "dp_accounting event)")

    def _mechanism(self, mech: Mechanism, count: int, rate: float | None) -> LedgerEntry:
        label = f"{mech.name}(" + ", ".join(f"{k}={v}" for k, v in mech.params().items()
                                            if v is not None) + ")"
        dominating = mech.dominating_pair()
        source: pld.PairSource | None = dominating_source(dominating)
        notes: dict[str, str] = {}
        renyi_label = ", ".join(f"{k}={v}" for k, v in mech.params().items())

        def base_curve() -> RdpCurve | None:
            try:
                ends = _renyi_uppers(mech)
            except AccountantError as exc:  # e.g. GKM's 2-D views beyond their budget
                notes["rdp"] = f"{label}: {exc}"
                return None
            results = [r for r in ends if r is not None]
            if len(results) < len(ends):
                return None
            return RdpCurve.from_results(results, method=f"protocols.{mech.name}.renyi("
                                                         f"{renyi_label}) upper bounds")

        if rate is None and self.neighboring == "substitute":
            # the lower end: a real pair's view (or a post-processing of one), `Mechanism.
            # lower_view_pair` (the special pair by default; count-min's loss bins)
            view = mech.lower_view_pair()
            local = mech.local_guarantee()
            if source is None and local is not None:
                # KOV's pair dominates every member of the local (epsilon0, delta0) class
                source = kov.kov_view_pair(epsilon=local[0], delta=local[1])
            report = None
            if source is None and local is None:
                # the differing user's report pair (Gaussian randomizers): no shuffle
                # amplification, but an exact PLD where the Renyi curve converts loosely
                source = report = _report_pair(mech)
                if source is None:
                    notes["pld"] = f"{label}: {mech.no_pair_reason}"
            return LedgerEntry(label, count, upper_source=source,
                               lower_source=view if view is not None and view.grid_exact
                               else None, curve_factory=base_curve, notes=notes,
                               class_factory=lambda: _mechanism_class(mech),
                               class_at=None if mech.one_pair() else
                               functools.partial(_round_class, mech),
                               per_round_kov=report is not None)
        q = 1.0 if rate is None else rate
        label = f"{label} sampled at q={q}" if rate is not None else label
        upper: pld.PairSource | None = None
        round_class: Callable[[float], tuple[float, float] | None] | None = None
        sampled = mech.subsampling_pair()
        local = mech.local_guarantee()
        if sampled is not None and isinstance(sampled.composable, ClonePair):
            # add/remove at q = 1: the message count reveals presence (delta = 1, honestly)
            upper = trusted(SubsampledPair, pair=sampled.composable, sampling_rate=q,
                            relation=self.neighboring)  # q and the relation checked
        elif (report := _report_pair(mech)) is not None:
            if self.neighboring != "substitute":
                raise RegimeError(
                    f"{label}: under add/remove the differing user's report, or its "
                    "absence, reveals whether it is in the dataset (delta >= q at every "
                    "epsilon): compose these rounds under --relation substitute, or their "
                    "certified (epsilon, delta) as an EpsilonDelta event")
            # the report pair mixed with "no message": the shared participation coin
            upper = ParticipationPair(report, q)
        elif local is not None and self.neighboring == "substitute":
            # no clones pair (approximate-ldp): KOV's pair of the sampled round's class
            e1, d1 = _sampled_class(*local, q)
            upper = kov.kov_view_pair(epsilon=e1, delta=d1)
        else:
            notes["pld"] = (f"{label}: subsampled/add-remove PLD needs a protocol with a "
                            "clones or blanket pair")

        if rate is not None and self.neighboring == "substitute" and local is None \
                and not isinstance(upper, SubsampledPair) \
                and mech.participants_round(2) is not None:
            # each round's class from the round at the fewest likely participants
            round_class = functools.partial(_sampled_round_class, mech, q)
        lower = None
        try:
            lower = mech.subsampled_pair(q, self.neighboring)
        except (AccountantError, MemoryError) as exc:
            notes["pld.lower"] = f"{label}: no subsampled neighbouring pair ({exc})"
        if lower is not None and not lower.grid_exact:
            lower = None  # an optimistic PLD needs true grid values

        def heuristic_curve() -> RdpCurve | None:
            base = base_curve()
            if base is None:
                return None
            # ZW19 is an add/remove theorem; protocol curves are replace-one guarantees:
            # Girgis et al.'s Fig. 5 pipeline, labelled heuristic
            return subsampling.poisson_subsampled.unchecked(base, sampling_rate=q,
                                                  base_relation="replace-one")

        member = None
        if self.neighboring == "add-remove":
            notes["kov"] = (f"{label}: under add/remove the message count reveals "
                            "presence (no finite max-divergence)")
        elif local is not None:
            member = _sampled_class(*local, q)
        elif round_class is None:
            notes["kov"] = (f"{label}: {mech.name} declares no local guarantee (its bounds "
                            "are its own at n, not at the fewer users a sampled round has)")
        # lower end: one real neighbouring pair's view (the special pair's count of y* under
        # Poisson participation), whose optimistic PLD is a lower bound on the mechanism
        return LedgerEntry(label, count, upper_source=upper, lower_source=lower,
                           curve_factory=heuristic_curve, heuristic_curve=True, notes=notes,
                           class_factory=(lambda: member) if member is not None
                           or round_class is not None else None,
                           class_at=round_class, per_round_kov=round_class is not None,
                           class_note="" if round_class is None else
                           " as the round at its fewest likely participants (docs/conversions"
                           ".md#sampled-rounds-by-their-participants)")

    def _eps_delta(self, event: EpsilonDelta, count: int, rate: float | None) -> LedgerEntry:
        e, d = float(event.epsilon), float(event.delta)
        label = f"eps-delta(epsilon={e}, delta={d})"
        if rate is None:
            pair = kov.kov_view_pair(epsilon=e, delta=d)
            factory = (lambda: RdpCurve.from_pure_dp(e, DEFAULT_ORDERS)) if d == 0 else None
            return LedgerEntry(label, count, upper_source=pair, lower_source=pair,
                               curve_factory=factory, eps_delta=(e, d),
                               notes={} if d == 0 else {"rdp": f"{label} has no RDP curve"})
        label += f" sampled at q={rate}"
        base = (lambda: RdpCurve.from_pure_dp(e, [float(a) for a in range(2, 65)])) \
            if d == 0 else None
        relation = "add-remove" if self.neighboring == "add-remove" else "replace-one"
        factory = None if base is None else (lambda: subsampling.poisson_subsampled.unchecked(
            base(), sampling_rate=rate, base_relation=relation))
        notes = {} if d == 0 else {"rdp": f"{label} has no RDP curve"}
        upper = None
        if self.neighboring == "add-remove":
            # amplification by Poisson sampling for add/remove: (log(1 + q(e^eps - 1)), q delta)
            e2 = _amplified(e, rate)
            d2 = rounding.up(rate * d)
            upper = kov.kov_view_pair(epsilon=e2, delta=d2)
            member = (e2, d2)
        else:
            # no amplification under substitution (an (epsilon, delta) guarantee says
            # nothing about absent users), but the round is in the class (eps, q delta)
            member = _sampled_class(e, d, rate)
            upper = kov.kov_view_pair(epsilon=member[0], delta=member[1])
        return LedgerEntry(label, count, upper_source=upper, curve_factory=factory,
                           notes=notes, class_factory=lambda: member)

    def _noise(self, event: GaussianNoise | LaplaceNoise, count: int,
               rate: float | None) -> LedgerEntry:
        family = "gaussian" if isinstance(event, GaussianNoise) else "laplace"
        scale = float(event.noise_multiplier)
        pair = NoisePair(family, scale, 1.0 if rate is None else rate, self.neighboring)
        label = f"{family}(noise_multiplier={scale}" + (
            f", sampled at q={rate})" if rate is not None else ")")
        relation = self.neighboring
        inv = sensitivity_factor(relation) / scale
        member = None
        if family == "laplace":
            # Laplace noise is (shift/b)-DP; a sampled round mixes pairs within that (and
            # add/remove amplifies it to log(1 + q(e^eps - 1)))
            e0 = rounding.up(inv * (1 + 2 * rounding.UNIT_ROUNDOFF))
            member = (_amplified(e0, rate) if rate is not None and relation == "add-remove"
                      else e0, 0.0)
        class_factory = None if member is None else (lambda: member)
        if rate is None:
            return LedgerEntry(label, count, upper_source=pair, lower_source=pair,
                               curve_factory=lambda: noise_rdp_curve(family, scale, relation),
                               gaussian_mu=inv if family == "gaussian" else None,
                               laplace_epsilon0=inv if family == "laplace" else None,
                               class_factory=class_factory)
        if family == "gaussian" and relation == "add-remove":
            # the exact sampled-Gaussian curve on fractional orders (MTZ19), not the generic
            # subsampling bound on integer ones (17 % looser on the DP-SGD event)
            return LedgerEntry(label, count, upper_source=pair, lower_source=pair,
                               curve_factory=lambda: sampled_gaussian_rdp_curve.unchecked(
                                   scale, rate))
        base = "add-remove" if relation == "add-remove" else "replace-one"
        return LedgerEntry(label, count, upper_source=pair, lower_source=pair,
                           curve_factory=lambda: subsampling.poisson_subsampled.unchecked(
                               noise_rdp_curve(family, scale, relation,
                                               tuple(float(a) for a in range(2, 65))),
                               sampling_rate=rate, base_relation=base),
                           heuristic_curve=base == "replace-one", class_factory=class_factory)

    def _rdp(self, curve: RdpCurve, count: int, rate: float | None) -> LedgerEntry:
        label = f"rdp-curve({curve.method})"
        notes = {"pld": f"{label}: an RDP curve has no privacy-loss distribution"}
        if rate is None:
            return LedgerEntry(label, count, curve_factory=lambda: curve, notes=notes)
        base = "add-remove" if self.neighboring == "add-remove" else "replace-one"
        return LedgerEntry(f"{label} sampled at q={rate}", count, notes=notes,
                           curve_factory=lambda: subsampling.poisson_subsampled.unchecked(
                               curve, sampling_rate=rate, base_relation=base),
                           heuristic_curve=base == "replace-one")

    # ------------------------------------------------------------------ answering
    def get_epsilon(self, delta: float, *, method: str = "all",
                    discretization: float | None = None,
                    progress: Callable[[str], None] | None = None) -> Bracket:
        """epsilon(delta) of the composition.

        Args:
            delta: in (0, 1).
            method: "all" or one route of `ROUTES`.
            discretization: PLD grid width (None: automatic).
            progress: called with one line as each route starts and ends (e.g. `print`,
                or `tqdm.write`), for ledgers that take more than a few seconds.

        Returns:
            A `Bracket`: certified upper end (its method names the route that won), lower
            end where every entry has one, the dominating pairs' own lower end.
        """
        return self._report(delta, None, method, discretization, progress).bracket

    def get_delta(self, epsilon: float, *, method: str = "all",
                  discretization: float | None = None,
                  progress: Callable[[str], None] | None = None) -> Bracket:
        """delta(epsilon) of the composition.

        Args:
            epsilon: >= 0.
            method: "all" or one route of `ROUTES`.
            discretization: PLD grid width (None: automatic).
            progress: called with one line as each route starts and ends (e.g. `print`,
                or `tqdm.write`), for ledgers that take more than a few seconds.

        Returns:
            A `Bracket` as for `get_epsilon`.
        """
        return self._report(None, epsilon, method, discretization, progress).bracket

    def report(self, *, delta: float | None = None, epsilon: float | None = None,
               method: str = "all", discretization: float | None = None,
               progress: Callable[[str], None] | None = None) -> Report:
        """Every route's answer at one point, and the bracket.

        Args:
            delta, epsilon: exactly one: where to read the other coordinate.
            method: "all" or one route of `ROUTES`.
            discretization: PLD grid width (None: automatic).
            progress: called with one line as each route starts and ends (e.g. `print`,
                or `tqdm.write`), for ledgers that take more than a few seconds.

        Returns:
            The `Report`.

        Raises:
            ParameterError: an empty ledger, a bad point or an unknown method.
        """
        return self._report(delta, epsilon, method, discretization, progress)

    def _report(self, delta: float | None, epsilon: float | None, method: str,
                discretization: float | None,
                progress: Callable[[str], None] | None) -> Report:
        """`report` (and the bracket of get_epsilon, get_delta): with method "all", no route
        whose every value would be heuristic (never a bracket end) is computed."""
        if not self._ledger:
            raise ParameterError("the ledger is empty: compose at least one event")
        if (delta is None) == (epsilon is None):
            raise ParameterError("give exactly one of delta and epsilon")
        if delta is not None:
            DELTA.check(delta)
        else:
            EPSILON.check(epsilon)
        if method != "all" and method not in ROUTES:
            raise ParameterError(f"method={method!r} is outside {{'all', "
                                 f"{', '.join(repr(r) for r in ROUTES)}}}")
        routes: dict[str, _Route] = {"analytic": self._route_analytic, "pld": self._route_pld,
                                     "rdp": self._route_rdp, "kov": self._route_kov}
        entries: list[dict[str, Any]] = []
        quantity = "epsilon" if delta is not None else "delta"
        at = float(delta if delta is not None else _given(epsilon))
        for route in ROUTES:
            if method == "all" and route in _LATE_ROUTES:
                done = {e.get("method") for e in entries}
                if {"analytic.mechanism.upper", "analytic.mechanism.lower"} <= done:
                    # one run with the mechanism's own two ends: these routes discretise
                    # the same or a looser dominating pair (`_own_bracket`), at a cost of
                    # up to minutes at n = 1e6
                    entries.append({"method": route, "skipped": (
                        "one run of a mechanism: its own certified bracket answers "
                        f"(method={route!r} computes this route)")})
                    continue
                if any({f"analytic.{k}.upper", f"analytic.{k}.lower"} <= done
                       for k in ("gaussian", "laplace")):
                    # unsampled Gaussian runs (Balle-Wang) or one Laplace run: the exact
                    # value within its rounding, which no discretisation improves (a noise
                    # multiplier of 1e200 left a lower end of 0, so a 100 % "bracket", and
                    # the RDP route's conversion of curves near 1e-400 ran for minutes)
                    entries.append({"method": route, "skipped": (
                        "the analytic answer is exact up to its rounding "
                        f"(method={route!r} computes this route)")})
                    continue
                if route == "rdp" and any(e.heuristic_curve for e in self._ledger):
                    # a heuristic curve makes every conversion heuristic, never a bracket
                    # end: listed only when asked for (1.3 of the 1.9 s of 1e4 shuffle
                    # rounds, n = 1e5, q = 0.01; 98 % of a sampled GKMP20 round at n = 318,
                    # whose Renyi curve needs every count's 2-D view: 26 s, and over a
                    # minute at n = 362)
                    entries.append({"method": route, "skipped": (
                        "its values would be heuristic (ZW19 on a replace-one curve), never "
                        "a bracket end (method='rdp' lists them)")})
                    continue
                width = _relative_width(entries, quantity, at)
                if width <= SETTLED_WIDTH:
                    # an upper end from this route is >= the truth >= the lower end: it could
                    # lower the upper end by at most the bracket's width
                    entries.append({"method": route, "skipped": (
                        f"the bracket is already {width:.3%} wide: this route could lower "
                        f"its upper end by at most that (method={route!r} computes it)")})
                    continue
            if method in ("all", route):
                t0 = time.perf_counter()
                if progress is not None:
                    progress(f"{route}: started")
                entries += routes[route](delta, epsilon, discretization, method == route)
                if progress is not None:
                    progress(f"{route}: done in {time.perf_counter() - t0:.1f} s")
        bracket = _bracket(entries, quantity, at)
        if not any(e.pair_only for e in self._ledger):
            # every entry is a mechanism (or a class of them): the routes' bounds hold for
            # all pairs (the dominating pairs' own lower ends stay PAIR statements)
            bracket = bracket.for_mechanism()
            for e in entries:
                r = e.get("result")
                if r is not None and r.kind is not Kind.HEURISTIC:
                    e["result"] = r.with_(scope=Scope.MECHANISM)
        return Report(quantity, at, bracket, tuple(entries))

    def _route_analytic(self, delta: float | None, epsilon: float | None,
                        discretization: float | None, asked: bool) -> list[dict[str, Any]]:
        ledger = self._ledger
        if len(ledger) == 1 and ledger[0].count == 1 and ledger[0].laplace_epsilon0:
            return _laplace_exact(ledger[0].laplace_epsilon0, delta, epsilon)
        if (len(ledger) == 1 and ledger[0].count == 1 and not ledger[0].pair_only
                and isinstance(ledger[0].event, Mechanism)
                and self.neighboring == "substitute"):
            own = _own_bracket(ledger[0].event, delta, epsilon)
            if own:
                return own
        runs = [(e.count, e.gaussian_mu) for e in ledger if e.gaussian_mu is not None]
        if len(runs) < len(ledger):
            return [{"method": "analytic", "skipped": "the analytic route composes "
                                                      "unsampled Gaussian events only (or "
                                                      "one Laplace run, or one unsampled "
                                                      "run of a protocol)"}] if asked else []
        # scaled by the largest mu: its square underflows to 0 below 1e-154 (a noise
        # multiplier of 1e200 read as mu = 0 and was refused)
        top = max(gaussian_mu for _, gaussian_mu in runs)
        mu = top * math.sqrt(math.fsum(count * (gaussian_mu / top) ** 2
                                       for count, gaussian_mu in runs))
        mu = rounding.up(mu * (1 + 8 * rounding.UNIT_ROUNDOFF))
        mu_low = rounding.down(mu * (1 - 24 * rounding.UNIT_ROUNDOFF))
        if delta is not None:
            low, up = gaussian_epsilon(mu_low, delta)[0], gaussian_epsilon(mu, delta)[1]
            quantity, at = "epsilon", delta
        else:
            at = _given(epsilon)
            low, up = gaussian_delta(mu_low, at)[0], gaussian_delta(mu, at)[1]
            quantity = "delta"
        name = f"composition.noise.gaussian_{quantity}(mu={mu:.12g})"
        return _pair(quantity, at, low, up, "analytic.gaussian", name, analytic_source())

    def _route_pld(self, delta: float | None, epsilon: float | None,
                   discretization: float | None, asked: bool) -> list[dict[str, Any]]:
        uppers = [e.upper_source for e in self._ledger]
        lowers = [e.lower_source for e in self._ledger]
        same = all(u is low for u, low in zip(uppers, lowers, strict=True))
        known_uppers = [u for u in uppers if u is not None]
        known_lowers = [low for low in lowers if low is not None]
        entries: list[dict[str, Any]] = []
        lower_width, costly = discretization, 0
        if len(known_uppers) == len(uppers):
            try:
                out = self._compose_aligned(known_uppers, delta, epsilon, discretization)
            except (AccountantError, MemoryError) as exc:
                entries.append({"method": "pld", "skipped": str(exc)})
            else:
                # the lower pairs are composed once on the upper end's final grid (no
                # refinement of their own: half the work, a comparable absolute error)
                lower_width = discretization or out.discretization
                costly = out.cells if out.tilted else 0
                entry: dict[str, Any] = {
                    "method": "pld.pessimistic",
                    "result": out.upper.with_(method=f"[pld] {out.upper.method}"),
                    "discretization": out.discretization, "relative_gap": out.relative_gap,
                    "error_ledger": out.error}
                if self.neighboring == "add-remove" or any(
                        isinstance(u, SubsampledPair) for u in uppers):
                    entry["relation"] = self.neighboring
                if out.lower is not None and not same:
                    # the dominating pairs' own certified lower end: how tight the numerics
                    # are, not a lower bound on the mechanism
                    entry["pair_lower"] = float(out.lower)
                    entry["pair_lower_result"] = out.lower
                entries.append(entry)
                if out.lower is not None and same:
                    entries.append({"method": "pld.optimistic", "result": out.lower.with_(
                        method=f"[pld] {out.lower.method}")})
        else:
            entries.append({"method": "pld", "skipped": "; ".join(
                e.notes.get("pld", f"{e.label}: no dominating pair") for e in self._ledger
                if e.upper_source is None)})
        if not same and len(known_lowers) == len(lowers) and costly > _SPECIAL_CELLS:
            # a lower end for the mechanism that costs as much as the upper end again
            entries.append({"method": "pld.special_pair", "skipped": (
                f"the neighbouring pair's tilted composition would span {costly:,} cells "
                f"(more than {_SPECIAL_CELLS:,}): no lower end for the mechanism")})
        elif not same and len(known_lowers) == len(lowers):
            try:
                lower_out = self._compose_aligned(known_lowers, delta, epsilon, lower_width)
            except (AccountantError, MemoryError):
                lower_out = None
            if lower_out is not None and lower_out.lower is not None:
                # the optimistic value of one neighbouring pair: a lower bound on the mechanism
                entries.append({"method": "pld.special_pair.optimistic",
                                "result": lower_out.lower.with_(
                                    method=f"[pld] optimistic PLD of one neighbouring "
                                           f"pair (a lower bound on the mechanism): "
                                           f"{lower_out.lower.method}")})
        return entries

    def _compose_aligned(self, sources: list[pld.PairSource], delta: float | None,
                         epsilon: float | None,
                         discretization: float | None) -> pld.PldComposition:
        """`pld.compose_views` of the ledger, maximised over the alignments of its
        single-pair events.

        A ViewPair event is one neighbouring pair's view, and nothing says which of its two
        laws goes with which side of the other events' pairs: (p, q) and (q, p) are both
        possible. Both orders of the whole composition are always taken, so a lone such
        event beside symmetric pairs needs nothing more; beside an asymmetric pair (an
        add/remove round, another view) each event is also composed swapped, and the
        largest value of every alignment is the answer (up to 2^3 alignments; more events
        than that are refused rather than assumed aligned).
        """
        flip = [i for i, e in enumerate(self._ledger) if e.pair_only]
        symmetric = all(isinstance(src, ClonePair) or (
            isinstance(src, SubsampledPair) and src.relation == "substitute")
            for src, e in zip(sources, self._ledger, strict=True) if not e.pair_only)
        if len(flip) <= 1 and symmetric:
            flip = []
        else:
            flip = flip[1:] if symmetric else flip  # one global swap is the other order
        if len(flip) > 3:
            raise AccountantError(f"{len(flip)} single-pair events of unknown alignment: "
                                  "at most 3 are composed (2^3 alignments)")
        outs = []
        for mask in range(2 ** len(flip)):
            swapped = {i for j, i in enumerate(flip) if mask >> j & 1}
            outs.append(pld.compose_views.unchecked(
                [(_swapped(src) if i in swapped else src, e.count)
                 for i, (src, e) in enumerate(zip(sources, self._ledger, strict=True))],
                delta=delta, epsilon=epsilon, discretization=discretization))
        top = max(outs, key=lambda o: float(o.upper))
        lows = [o.lower for o in outs if o.lower is not None]
        # each alignment's lower end is below its own value, so below the largest value
        return top if len(outs) == 1 else replace(
            top, lower=max(lows, key=float) if lows else None)

    def rdp_curve(self) -> RdpCurve | None:
        """The composed RDP curve of the ledger (each curve times its count, summed).

        Returns:
            The curve (HEURISTIC if any part is), or None when some entry has none.
        """
        curves = []
        for e in self._ledger:
            c = e.curve()
            if c is None:
                return None
            curves.append(c.times.unchecked(e.count))
        if not curves:
            return None
        return curves[0].compose(*curves[1:]) if len(curves) > 1 else curves[0]

    def to_dp_event(self) -> Any:
        """The ledger as one dp_accounting `DpEvent`, where every entry has one: Gaussian and
        Laplace noise, Poisson-sampled noise, randomized response and sampling without
        replacement (SelfComposed for counts, Composed for several entries). A dp_accounting
        accountant must then be built with the same relation (`neighboring`).

        Returns:
            A `DpEvent`.

        Raises:
            ParameterError: an entry dp_accounting has no event for (a shuffled protocol, a
                view, an RDP curve, an (epsilon, delta) record), or dp_accounting is missing.
        """
        events = [interop.dp_event_of(e.event, e.count, e.label) for e in self._ledger]
        if not events:
            raise ParameterError("the ledger is empty: compose at least one event")
        dpa = interop.require_dp_accounting()
        return events[0] if len(events) == 1 else dpa.ComposedDpEvent(events)

    def _route_rdp(self, delta: float | None, epsilon: float | None,
                   discretization: float | None, asked: bool) -> list[dict[str, Any]]:
        missing = [e for e in self._ledger if e.curve() is None]
        if missing:
            return [{"method": "rdp", "skipped": "; ".join(
                e.notes.get("rdp", f"{e.label} has no certified RDP curve") for e in missing)}]
        total = self.rdp_curve()
        assert total is not None
        if delta is not None:
            _, results = conversion.epsilon_best.unchecked(total, delta=delta)
        else:
            _, results = conversion.delta_best.unchecked(total, epsilon=_given(epsilon))
        names = ["rdp.mironov", "rdp.cks", "rdp.optimal"]
        out: list[dict[str, Any]] = [{"method": name, "result": r.with_(method=f"[rdp] {r.method}")}
                                     for name, r in zip(names, results, strict=False)]
        if len(results) < len(names):
            out.append({"method": "rdp.optimal", "skipped": (
                "the closed-form conversions are already below 1e-300")})
        return out

    def _route_kov(self, delta: float | None, epsilon: float | None,
                   discretization: float | None, asked: bool) -> list[dict[str, Any]]:
        # each entry as a class: exactly (epsilon, delta)-DP (an EpsilonDelta), or a member
        # of one (whose KOV value is then an upper end only)
        classes: list[tuple[float, float, int]] = []
        exact = True
        # events with nothing to offer first: no max-divergence is computed in vain (GKM's
        # takes minutes)
        missing = [m for m in self._ledger if m.eps_delta is None and m.class_factory is None]
        for entry in [] if missing else self._ledger:
            if entry.eps_delta is not None:
                classes.append((*entry.eps_delta, entry.count))
                continue
            member = entry.dp_class()
            if member is None and entry.class_at is not None and len(self._ledger) == 1 \
                    and delta is not None and (entry.upper_source is None
                                               or entry.per_round_kov):
                # no class and no PLD pair: the rounds' own certified epsilon(delta1)
                return _kov_per_round(entry, delta)
            if member is None:
                missing.append(entry)
            else:
                classes.append((*member, entry.count))
                exact = False
        if missing:
            return [{"method": "kov", "skipped": (
                "KOV composes (epsilon, delta) events and members of a certified (epsilon, "
                "delta) class: " + "; ".join(
                    m.notes.get("kov", f"{m.label} has no finite certified max-divergence")
                    for m in missing))}]
        if len({(e, d) for e, d, _ in classes}) > 1:
            return _basic_composition(classes, delta, epsilon)
        (e, d, _), k = classes[0], sum(c for _, _, c in classes)
        if (e > _KOV_FLOAT_EPSILON and k > kov.MP_ROUNDS) or k > _KOV_ROUNDS:
            # KOV's float window stops at e^eps's range and its mpmath sum runs over every
            # round (minutes); its counts stop at 1e12 (several entries may sum past it):
            # basic composition answers
            return _basic_composition(classes, delta, epsilon)
        out: list[dict[str, Any]] = []
        if delta is not None:
            out.append({"method": "kov", "result": kov.epsilon_kov.unchecked(
                epsilon=e, delta=d, rounds=k, delta_total=delta)})
            try:
                out.append({"method": "drv", "result": kov.epsilon_drv.unchecked(
                    epsilon=e, delta=d, rounds=k, delta_total=delta)})
            except AccountantError as exc:
                out.append({"method": "drv", "skipped": str(exc)})
        else:
            epsilon_total = _given(epsilon)
            out.append({"method": "kov", "result": kov.delta_kov.unchecked(
                epsilon=e, delta=d, rounds=k, epsilon_total=epsilon_total)})
            out.append({"method": "drv", "result": kov.delta_drv.unchecked(
                epsilon=e, delta=d, rounds=k, epsilon_total=epsilon_total)})
        for item in out:
            if "result" in item:
                r = item["result"]
                if not exact and r.kind is Kind.EXACT:
                    r = _dominated(r, e, d)
                item["result"] = r.with_(method=f"[kov] {r.method}")
        return out

    # ------------------------------------------------------------------ exports
    def loss_pmfs(self, discretization: float, *, pessimistic: bool = True,
                  tail: float = 1e-15, connect: bool = False) -> list[pld.LossPmf]:
        """The composed discretised PLD of the ledger's dominating pairs (both orders, or one
        when every pair is symmetric), with its error ledger: the object to export
        (`interop.to_dp_accounting_pld`) or to read with `pld.delta_of`/`pld.epsilon_of`.

        Args:
            discretization: grid width.
            pessimistic: upper (True) or lower (False) measures.
            tail: truncation threshold per step (moved in the safe direction).
            connect: connect-the-dots measures where the pairs have them (tighter on a
                coarse grid; docs/conversions.md#connect-the-dots).

        Returns:
            One or two `LossPmf`s.

        Raises:
            ParameterError: an entry without a dominating pair.
        """
        missing = [e.label for e in self._ledger if e.upper_source is None]
        if missing or not self._ledger:
            raise ParameterError("no PLD for " + (", ".join(missing) or "an empty ledger"))
        return pld.compose_measures([(e.upper_source, e.count) for e in self._ledger
                                     if e.upper_source is not None],
                                    discretization, pessimistic=pessimistic, tail=tail,
                                    connect=connect)


def _view_entry(view: ViewPair, count: int) -> LedgerEntry:
    label = "view(" + ", ".join(f"{k}={v}" for k, v in dict(view.description).items()
                                if not isinstance(v, dict | list)) + ")"
    orders = DEFAULT_ORDERS
    if view.size > _LARGE_VIEW:
        orders = SPARSE_ORDERS + (math.inf,)
    return LedgerEntry(label, count, upper_source=view,
                       lower_source=view if view.grid_exact else None,
                       curve_factory=lambda: RdpCurve.from_view(view, orders), pair_only=True,
                       class_factory=lambda: _view_class(view))


def _randomized_response_entry(event: RandomizedResponse, count: int) -> LedgerEntry:
    # the exact view of two inputs dominates every substituted pair (RandomizedResponse.view)
    view = event.view()
    label = (f"randomized-response(noise_parameter={event.noise_parameter}, "
             f"num_buckets={event.num_buckets})")
    return LedgerEntry(label, count, upper_source=view, lower_source=view,
                       curve_factory=lambda: RdpCurve.from_view(view, DEFAULT_ORDERS),
                       class_factory=lambda: _view_class(view))


def _discrete_laplace_entry(event: DiscreteLaplaceNoise, count: int,
                            relation: str) -> LedgerEntry:
    # the exact view at the largest shift dominates every neighbouring pair
    # (DiscreteLaplaceNoise.view)
    view = event.view(relation)
    label = (f"discrete-laplace(noise_parameter={event.noise_parameter}, "
             f"sensitivity={event.sensitivity})")
    orders = DEFAULT_ORDERS if view.size <= _LARGE_VIEW else SPARSE_ORDERS + (math.inf,)
    return LedgerEntry(label, count, upper_source=view, lower_source=view,
                       curve_factory=lambda: RdpCurve.from_view(view, orders),
                       class_factory=lambda: _view_class(view))


def _without_replacement_entry(event: SampledWithoutReplacement, count: int) -> LedgerEntry:
    # Poisson's add/remove pair at half the noise multiplier (SampledWithoutReplacement)
    scale, rate = float(event.event.noise_multiplier) / 2, event.rate
    pair = NoisePair("gaussian", scale, rate, "add-remove")
    label = (f"gaussian(noise_multiplier={event.event.noise_multiplier}, sampled without "
             f"replacement: {event.sample_size} of {event.dataset_size})")
    return LedgerEntry(label, count, upper_source=pair, lower_source=pair,
                       curve_factory=lambda: sampled_gaussian_rdp_curve.unchecked(scale, rate))


def _amplified(epsilon: float, rate: float) -> float:
    """log(1 + q(e^eps - 1)) rounded up: an eps-DP event Poisson-sampled at rate q under
    add/remove (both orders)."""
    return rounding.up(math.log1p(rate * math.expm1(epsilon)) * (1 + 8 * rounding.UNIT_ROUNDOFF))


# beyond this per-round eps KOV's float window overflows (kov._FLOAT_EPSILON); beyond
# this many rounds its float error model stops (kov._ROUNDS)
_KOV_FLOAT_EPSILON = 700.0
_KOV_ROUNDS = 10**12


def _dominated(r: Result, epsilon: float, delta: float) -> Result:
    """KOV's exact value for the class of (eps, delta)-DP mechanisms, read for events that
    are only members of it: an upper end (delta = 0 stays exact: nothing is below it)."""
    up = r.upper_end()
    if r.quantity == "delta" and up == 0:
        return r.with_(value=0.0, radius=0.0)
    return Result(quantity=r.quantity, value=up, kind=Kind.UPPER, direction=Direction.MAX,
                  method=f"{r.method}, each event a member of the class of "
                         f"({epsilon:.6g}, {delta:.3g})-DP mechanisms",
                  source=r.source, at=r.at)


def _sampled_class(epsilon: float, delta: float, rate: float) -> tuple[float, float]:
    """A Poisson-sampled round under substitution of an event that is (eps, delta)-DP for
    any number of users: (eps, q delta)-DP. Given who takes part, the two views are equal
    (the differing user sits out) or one substitution apart; so for every set S,
    P(S) - e^eps Q(S) = (1 - q)(1 - e^eps) A(S) + q (B(S) - e^eps B'(S)) <= q delta
    (no amplification of eps is claimed)."""
    return (epsilon, rounding.up(Fraction(rate) * Fraction(delta)))


def _basic_composition(classes: list[tuple[float, float, int]], delta: float | None,
                       epsilon: float | None) -> list[dict[str, Any]]:
    """Basic composition of (eps_i, delta_i) classes: (sum eps_i, sum delta_i)-DP, summed
    in exact rationals and rounded up (heterogeneous classes: KOV's exact optimum is
    #P-hard; the PLD route composes their dominating pairs more tightly where it can)."""
    eps_sum = rounding.up(sum((Fraction(c) * Fraction(e) for e, _, c in classes), Fraction(0)))
    delta_sum = sum((Fraction(c) * Fraction(d) for _, d, c in classes), Fraction(0))
    method = (f"[kov] basic composition of {len(classes)} (epsilon, delta) classes: "
              f"sum of epsilons {eps_sum:.6g}, sum of deltas {float(delta_sum):.3g}")
    if delta is not None:
        if delta_sum > Fraction(delta):
            return [{"method": "kov.basic", "skipped": (
                f"basic composition needs delta >= the sum of deltas {float(delta_sum):.3g}")}]
        return [{"method": "kov.basic", "result": Result(
            quantity="epsilon", value=eps_sum, kind=Kind.UPPER, direction=Direction.MAX,
            method=method, source=_BASIC, at=float(delta))}]
    at = _given(epsilon)
    if Fraction(at) < Fraction(eps_sum):
        return [{"method": "kov.basic", "skipped": (
            f"basic composition says delta = the sum of deltas only from epsilon = the sum "
            f"of epsilons {eps_sum:.6g} on")}]
    value = min(1.0, rounding.up(delta_sum))
    return [{"method": "kov.basic", "result": Result(
        quantity="delta", value=value, kind=Kind.EXACT if value == 0 else Kind.UPPER,
        direction=Direction.MAX, method=method, source=_BASIC, at=float(at))}]


_BASIC = Source(citation="Dwork, Roth, The Algorithmic Foundations of Differential Privacy "
                         "(2014)", locator="Theorem 3.16 (basic composition)")


def _mechanism_class(mech: Mechanism) -> tuple[float, float] | None:
    """(the mechanism's certified max-divergence, 0) when it is finite and a statement
    about every pair, else its local guarantee (e.g. an (epsilon0, delta0)-LDP class)."""
    if mech.one_pair():     # its max-divergence is one pair's (GKM's 12 s for nothing)
        return mech.local_guarantee()
    top = certified_max_divergence(mech)
    if top is not None and top.scope is Scope.MECHANISM:
        return (top.upper_end(), 0.0)
    return mech.local_guarantee()


def _report_pair(mech: Mechanism) -> pld.PairSource | None:
    """The pair of the differing user's report (`Mechanism.report_noise`), or None."""
    noise = mech.report_noise()
    return None if noise is None else report_pair(*noise)


def _round_class(mech: Mechanism, delta1: float) -> tuple[float, float] | None:
    """(the mechanism's certified epsilon(delta1) upper end, delta1): one run is a member of
    that class for every neighbouring pair; None when it has no finite upper end."""
    top = mech.epsilon_upper(delta1)
    if top is None or top.scope is not Scope.MECHANISM or not top.is_finite:
        return None
    return (float(top.upper_end()), delta1)


def _sampled_round_class(mech: Mechanism, rate: float,
                         delta1: float) -> tuple[float, float] | None:
    """(eps1, delta1) with one Poisson-sampled round (substitute) (eps1, delta1)-DP, for a
    family whose users' messages do not depend on n (`Mechanism.participants_round`): given
    the others' participants K and user 1's coin, the round is identical under both datasets
    when user 1 stays out and is the family's round of K + 1 users when it takes part, whose
    delta is at most that at k + 1 users for every K >= k (an extra independent user's
    messages are post-processing). So delta(eps) <= q delta_(k+1)(eps) + q P[K < k], with
    k the window's lower end of Bin(n - 1, q) (docs/conversions.md#sampled-rounds-by-their-
    participants); None when no delta is left or the round at k + 1 users has no finite
    epsilon. Raises RegimeError (read by KOV as a reason) when k + 1 < 2."""
    n = int(mech.params()["n"])
    lo, _, outside = binomial_window(n - 1, rate, min(0.25 * delta1 / rate, 0.5))
    users = lo + 1
    # exact rationals: q (spare + outside) <= delta1 must hold for the class claimed
    spare = min(rounding.down((Fraction(delta1) - Fraction(rate) * Fraction(outside))
                              / Fraction(rate)), 0.5)
    if users < 2:
        raise RegimeError(f"the other participants' certified window, Bin({n - 1}, {rate}) "
                          f"above {outside:.2g}, starts at {lo}: no round of two users or "
                          "more bounds every sampled round")
    if not spare > 0:
        return None
    at = mech.participants_round(users)
    top = None if at is None else at.epsilon_upper(spare)
    if top is None or top.scope is not Scope.MECHANISM or not top.is_finite:
        return None
    return (float(top.upper_end()), delta1)


# the shares of the target delta tried for the rounds' own delta (KOV spends the rest)
_ROUND_DELTA_SHARES = (0.5, 0.9)


def _kov_per_round(entry: LedgerEntry, delta: float) -> list[dict[str, Any]]:
    """KOV over T runs of an event with no class of its own but a certified epsilon(delta1)
    at every delta1: each run is (eps(delta1), delta1)-DP, and KOV composes that class with
    the target delta; delta1 = share * delta / T for a few shares, the smallest value kept
    (each is an upper end: the event is a member of its class)."""
    best: Result | None = None
    tried = []
    # one run: its own epsilon at the whole delta is KOV's value (each share costs an
    # evaluation: the blanket at 2e9 users, 5 s)
    for share in (1,) if entry.count == 1 else _ROUND_DELTA_SHARES:
        delta1 = rounding.down(Fraction(share) * Fraction(delta) / entry.count)
        if not delta1 > 0:
            continue
        try:
            member = entry.class_at(delta1) if entry.class_at is not None else None
        except AccountantError as exc:
            tried.append(f"delta1={delta1:.3g}: {exc}")
            continue
        if member is None or member[0] > _KOV_FLOAT_EPSILON:
            continue
        e1, d1 = member
        r = _dominated(kov.epsilon_kov.unchecked(epsilon=e1, delta=d1, rounds=entry.count,
                                                 delta_total=delta), e1, d1)
        if best is None or r.value < best.value:
            best = r.with_(method=f"[kov] {r.method} (each round's certified epsilon at "
                                  f"delta1 = {d1:.3g} = {share:g} x delta / {entry.count}"
                                  f"{entry.class_note})")
    if best is None:
        return [{"method": "kov", "skipped": (
            f"{entry.label}: no finite certified epsilon(delta1) per round"
            + (f" ({'; '.join(tried)})" if tried else ""))}]
    return [{"method": "kov", "result": best}]


def _view_class(view: ViewPair) -> tuple[float, float] | None:
    """(a view's certified max-divergence over both orders, 0)."""
    try:
        top = max_divergence(view)
    except AccountantError:
        return None
    if top.kind not in (Kind.EXACT, Kind.UPPER) or not top.is_finite:
        return None
    return (top.upper_end(), 0.0)


# a route of `Accountant.report`: (delta, epsilon, discretization, asked) -> entries
_Route = Callable[[float | None, float | None, float | None, bool], list[dict[str, Any]]]


def _given(value: float | None) -> float:
    """The coordinate a report reads at, where delta was not given (`Accountant.report`
    takes exactly one of delta and epsilon)."""
    if value is None:
        raise ParameterError("give exactly one of delta and epsilon")
    return value


def _swapped(source: pld.PairSource) -> pld.PairSource:
    """A single-pair event's view with its two laws exchanged (single-pair events are the
    ViewPair events, `LedgerEntry.pair_only`)."""
    if not isinstance(source, ViewPair):
        raise TypeError(f"{type(source).__name__} is not a single pair's view")
    return source.swapped()


def _pair(quantity: str, at: float, low: float, up: float, route: str, name: str,
          source: Any) -> list[dict[str, Any]]:
    return [{"method": f"{route}.{kind.value}", "result": Result(
        quantity=quantity, value=value, kind=kind, direction=Direction.MAX,
        method=f"[analytic] {name}", source=source, at=at)}
        for kind, value in ((Kind.UPPER, up), (Kind.LOWER, low))]


def _own_bracket(mech: Mechanism, delta: float | None,
                 epsilon: float | None) -> list[dict[str, Any]]:
    """One unsampled run of a mechanism: its own certified epsilon(delta) or delta(eps)
    bracket (the direct hockey-stick computations of its family, with their error ledgers).
    A composition route can only discretise the same or a looser dominating pair: at
    n = 1e6, epsilon0 = 0.44, delta 1e-12 the PLD took 71 s for the upper end LDP's own
    bracket gives in 0.03 s; for the Laplace randomizer (whose PLD goes through the looser
    LDP clones pair) the RDP route answered 0.44 where its own upper end is 0.0026.
    Only ends that are mechanism bounds (UPPER/LOWER, scope mechanism) are taken; a
    family that cannot answer here leaves the other routes to it."""
    try:
        b = mech.epsilon_for_delta(delta) if delta is not None else \
            mech.delta_for_epsilon(_given(epsilon))
    except AccountantError:
        return []
    out: list[dict[str, Any]] = []
    for end in (b.upper, b.lower):
        if (end is not None and end.kind in (Kind.UPPER, Kind.LOWER)
                and end.scope is Scope.MECHANISM):
            out.append({"method": f"analytic.mechanism.{end.kind.value}", "result": end})
    return out if any(e["method"].endswith(".upper") for e in out) else []


def _laplace_exact(eps0: float, delta: float | None,
                   epsilon: float | None) -> list[dict[str, Any]]:
    """One Laplace run with eps0 = s/b: delta(eps) = 1 - e^((eps - eps0)/2) for
    eps < eps0, else 0 (the loss is eps0 w.p. 1/2, and on (-eps0, eps0) has density
    e^(l/2 - eps0/2)/4 under P: docs/conversions.md#gaussian-and-laplace-events); evaluated in
    40-digit arithmetic and rounded outwards."""
    with mpmath.workdps(40):
        e0 = mpmath.mpf(eps0)
        if delta is not None:
            v = max(mpmath.mpf(0), e0 + 2 * mpmath.log1p(-mpmath.mpf(delta)))
            quantity, at = "epsilon", delta
        else:
            at = _given(epsilon)
            v = max(mpmath.mpf(0), -mpmath.expm1((mpmath.mpf(at) - e0) / 2))
            quantity = "delta"
        slack = mpmath.mpf(10) ** -35 * (1 + abs(v))
        low, up = max(0.0, rounding.down(v - slack)), rounding.up(v + slack)
        if delta is None and at >= eps0:
            low = up = 0.0   # exactly: every loss is at most eps0 (a float comparison)
    return _pair(quantity, at, low, up, "analytic.laplace",
                 f"accountant._laplace_exact(epsilon0={eps0!r})", None)


def _relative_width(entries: list[dict[str, Any]], quantity: str, at: float) -> float:
    """(upper - lower)/upper of the bracket the entries give so far (inf without a lower
    end or an upper end)."""
    if not any("result" in e for e in entries):
        return math.inf
    b = _bracket(entries, quantity, at)
    up = float(b.upper) if b.upper is not None else math.inf
    low = float(b.lower) if b.lower is not None else -math.inf
    if up == 0 and b.upper is not None and b.upper.kind is Kind.EXACT:
        return 0.0  # delta = 0 exactly (eps at least the sum of max-divergences)
    if not (math.isfinite(up) and math.isfinite(low)) or up <= 0:
        return math.inf
    return (up - low) / up


def _bracket(entries: list[dict[str, Any]], quantity: str, at: float) -> Bracket:
    """Smallest certified upper end, largest lower end; HEURISTIC values never count.

    Every route's upper end is checked against every route's lower end (and an EXACT
    value against both): a certified upper below a certified lower means a route is wrong,
    and choosing the smaller upper would then report an optimistic number; it raises.
    """
    # an EXACT ball is two bounds, value -+ radius: split it so no end reads its midpoint
    results = [r for e in entries if "result" in e
               for r in ((e["result"],) if not e["result"].radius else (
                   e["result"].with_(kind=Kind.LOWER), e["result"].with_(kind=Kind.UPPER)))]
    uppers = [r for r in results if r.kind in (Kind.EXACT, Kind.UPPER)]
    lowers = [r for r in results if r.kind in (Kind.EXACT, Kind.LOWER)]
    exact = [r for r in results if r.kind is Kind.EXACT]
    if uppers and lowers:
        low, up = max(lowers, key=float), min(uppers, key=float)
        if float(low) > float(up):
            raise PrecisionError(
                f"certified routes disagree: the upper end {float(up)!r} ({up.method}) lies "
                f"below the lower end {float(low)!r} ({low.method}); one route is wrong, "
                "please report it")
    if exact:
        upper = lower = exact[0]
    else:
        upper = min(uppers, key=float) if uppers else Result(
            quantity=quantity, value=math.inf if quantity == "epsilon" else 1.0,
            kind=Kind.UPPER, direction=Direction.MAX,
            method="no certified route applies (trivial bound)", at=at)
        lower = max(lowers, key=float) if lowers else None
        if lower is not None and float(lower) > float(upper):
            raise AccountantError(f"lower end {float(lower)} above upper end {float(upper)}: "
                                  f"{lower.method} vs {upper.method}")
    # the dominating pairs' own lower end says how tight the chosen upper end's numerics
    # are, so it is attached only when that upper end is the PLD route's; beside another
    # route's (tighter) upper end it could lie above it and read as a crossed bracket
    pair_lower = next((e["pair_lower_result"] for e in entries
                       if "pair_lower_result" in e and e.get("result") is upper), None)
    return Bracket(lower=lower, upper=upper,
                   pair_lower=None if pair_lower is None else pair_lower.with_(
                       method=f"[pld, dominating pairs] {pair_lower.method}"),
                   pair_name="dominating" if pair_lower is not None else None)
