"""The protocol contract: what every protocol family answers, in one shape.

Each protocol package exposes a frozen dataclass subclassing `Mechanism`, built from the
protocol's parameters. A family declares each parameter once, as a field made by `param`
(its domain from `accountant.domains` and its help line): the record is validated once, on
construction, and everything else follows from the declaration — `params()` (the JSON
"params"), the command line's flags, help and ranges (`accountant.cli.faces.declared`), and
the property tests' strategies (`verify.strategies`). The maths beneath take the validated
record and never validate again (docs/architecture.md#families-one-declaration-each).
Composition, audit, calibration, the figures and the command line use protocols through this
interface only (the CLI finds the class through its registry table), never by scanning
modules or reading signatures.

Every privacy number comes back as a `Bracket` (lower and upper `Result`s, either None
where unknown) whose kinds are honest: an upper end holds for the mechanism, i.e. for every
neighbouring pair, unless its method says otherwise; one pair's value is a lower end
(docs/soundness.md#result-kinds).
"""

from __future__ import annotations

import abc
import functools
import math
import numbers
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Generic, TypeVar

from accountant.domains import ALPHA, DELTA, EPSILON, SAMPLING_RATE, Interval
from accountant.errors import AccountantError, ParameterError
from accountant.pairs.clones import ClonePair
from accountant.pairs.product import ProductPair
from accountant.pairs.subsampled_count import COUNT_RELATIONS
from accountant.result import Bracket, Direction, Kind, Result
from accountant.view import ViewPair

__all__ = ["Mechanism", "DominatingPair", "Declared", "param", "declared", "families", "forget",
           "brackets_by_order", "certified_max_divergence"]


@dataclass(frozen=True, slots=True)
class Declared:
    """One declared parameter of a family.

    Attributes:
        name: the field's name (the JSON key and, with dashes, the command-line flag).
        domain: its Interval (validated once, on construction).
        help: one line for --help.
        optional: None is allowed (the family's default case, e.g. the worst case over data).
    """

    name: str
    domain: Interval
    help: str
    optional: bool


def param(domain: Interval, help: str, *, optional: bool = False) -> Any:
    """Declare a family's parameter: a dataclass field carrying its domain and help line.

    Args:
        domain: the parameter's Interval (its name is the one error messages use).
        help: the command line's help line for the flag.
        optional: whether None is allowed (then None is the default).

    Returns:
        A `dataclasses.field` (default None when optional).
    """
    meta = {"declared": (domain, help, optional)}
    return field(default=None, metadata=meta) if optional else field(metadata=meta)


def declared(cls: type) -> tuple[Declared, ...]:
    """A family's declared parameters, in field order.

    Args:
        cls: a `Mechanism` subclass (a dataclass).

    Returns:
        One `Declared` per field made by `param` (empty for a family built from a record).
    """
    return tuple(Declared(f.name, *f.metadata["declared"]) for f in fields(cls)
                 if "declared" in f.metadata)


# name -> family class, for every Mechanism subclass that declares its parameters: defining
# a family is what makes it known (the CLI's registry adds the ones it has not imported yet)
_FAMILIES: dict[str, type[Mechanism]] = {}


def families() -> dict[str, type[Mechanism]]:
    """The declared families defined so far in this process, by command-line name.

    Returns:
        A copy of the name -> class table (built-in families appear once imported).
    """
    return dict(_FAMILIES)


def forget(name: str) -> None:
    """Drop a family from the table (a test's or a session's own family, once done with).

    Args:
        name: the family's command-line name (unknown names are ignored).
    """
    _FAMILIES.pop(name, None)


P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class DominatingPair(Generic[P]):
    """A pair of which every neighbouring pair's view is a post-processing.

    Attributes:
        pair: the pair object (a `ViewPair`, or a pair family's own record such as
            `accountant.pairs.ClonePair` or `k_rr.BlanketCountPair`).
        name: what it is, e.g. "clones pair (Feldman-McMillan-Talwar 2021)".
        proof: where the argument is written (a docs/ section).
        composable: the pair the PLD engine composes: `pair` itself when it is a ViewPair, a
            ClonePair or a ProductPair (of independent coordinates), else one that reveals
            more and so dominates it too (k-RR's N-revealing pair is composed as the k-RR
            blanket ClonePair), or None.
    """

    pair: P
    name: str
    proof: str
    composable: ViewPair | ClonePair | ProductPair | None = None

    def __post_init__(self) -> None:
        if self.composable is None and isinstance(self.pair, ViewPair | ClonePair | ProductPair):
            object.__setattr__(self, "composable", self.pair)


class Mechanism(abc.ABC):
    """A shuffled protocol with fixed parameters (the contract; module docstring).

    Subclasses are frozen dataclasses; `name` is the protocol's command-line name.
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""  # one line for --help (a registry row may give its own)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every family's answers pass one gate: its ends become mechanism statements (the
        # Bracket refuses crossed ends on construction), and `renyi` takes one order or many.
        super().__init_subclass__(**kwargs)
        # (dataclass(slots=True) builds the class twice: wrap each function once)
        # The gate also validates the call's own argument (delta, epsilon, the orders), so
        # the families' methods take checked values and never validate again.
        for name in ("epsilon_for_delta", "delta_for_epsilon", "max_divergence", "renyi"):
            fn = cls.__dict__.get(name)
            if fn is not None and fn not in _STAMPED:
                wrapped = (_stamp_orders(fn) if name == "renyi"
                           else _stamp_one(fn, _ARGUMENT_DOMAIN.get(name)))
                _STAMPED.add(wrapped)
                setattr(cls, name, wrapped)
        if "name" in cls.__dict__:
            _FAMILIES[cls.name] = cls  # (the slots rebuild replaces the first class)

    def __post_init__(self) -> None:
        # the one validation of the declared parameters; integer domains give ints, real
        # ones floats, so the maths beneath take plain checked numbers
        for d in declared(type(self)):
            value = getattr(self, d.name)
            if value is None and d.optional:
                continue
            d.domain.check(value)
            object.__setattr__(self, d.name, int(value) if d.domain.integer else float(value))
        self.check_relations()

    def one_pair(self) -> bool:
        """Whether the answers are one neighbouring pair's values (e.g. a dataset's count of
        ones was given): they then stay PAIR statements; otherwise the gate stamps them as
        mechanism statements.

        Returns:
            False here; families with a dataset parameter say when it is set.
        """
        return False

    def check_relations(self) -> None:  # noqa: B027 - an optional hook, not abstract
        """Conditions tying declared parameters together (e.g. ones <= n - 1); none here.

        Raises:
            ParameterError: a condition fails (naming the parameters and the condition).
        """

    def params(self) -> dict[str, Any]:
        """The parameters as a JSON object (the CLI's "params").

        Returns:
            The declared parameters by name (an optional one only when set); families built
            from a parameter record override this.
        """
        return {d.name: getattr(self, d.name) for d in declared(type(self))
                if getattr(self, d.name) is not None}

    def view_pair(self) -> ViewPair | None:
        """The exact view pair of the mechanism's default neighbouring case (the special
        pair, or the case its parameters name), or None when the protocol has no single
        finite view pair to offer (e.g. a class of randomizers).

        Returns:
            A ViewPair, or None (this default implementation returns None).
        """
        return None

    def lower_view_pair(self) -> ViewPair | ProductPair | None:
        """A pair whose divergences are LOWER bounds on the mechanism's in both orders, for
        one round and for any number of rounds composed (one real neighbouring pair's view,
        or a post-processing of it), or None. The accountant composes it, by the optimistic
        PLD, as the lower end of plain (substitute) rounds of the mechanism.

        Returns:
            A float ViewPair (or a product of them) whose grid is exact, or None; this
            default is `view_pair()`
            (the special pair's exact view); families whose exact view is not materialised
            offer a post-processing of it here (e.g. count-min's loss bins).
        """
        return self.view_pair()

    def subsampled_view_pair(self, rate: float,
                             relation: str = "substitute") -> ViewPair | None:
        """One real neighbouring pair's view of a Poisson-subsampled round (each user takes
        part with probability `rate`), reduced by post-processing to a count, or None: the
        arguments checked, then `subsampled_pair`.

        Its divergences are LOWER bounds on the subsampled mechanism's (one pair of the
        maximum over pairs; docs/conversions.md#a-certified-lower-end-for-subsampled-rounds),
        never upper bounds; the accountant composes it as the lower end of subsampled and
        add/remove rounds.

        Args:
            rate: the participation probability q, in (0, 1].
            relation: "substitute" (the differing user's data changes, its coin is shared)
                or "add-remove" (the differing user is present or absent).

        Returns:
            A float ViewPair whose grid is exact, or None when the family has none.

        Raises:
            ParameterError: rate outside (0, 1] or an unknown relation.
        """
        SAMPLING_RATE.named("rate").check(rate)
        if relation not in COUNT_RELATIONS:
            raise ParameterError(f"relation={relation!r} is outside {set(COUNT_RELATIONS)}")
        return self.subsampled_pair(float(rate), relation)

    def subsampled_pair(self, rate: float, relation: str) -> ViewPair | None:
        """`subsampled_view_pair` on checked arguments (what a family implements; the
        accountant calls it with its events' checked rates).

        Args:
            rate: the participation probability q, in (0, 1] (checked).
            relation: "substitute" or "add-remove" (checked).

        Returns:
            A float ViewPair whose grid is exact, or None (this default implementation
            returns None).
        """
        return None

    def dominating_pair(self) -> DominatingPair | None:
        """A pair that dominates every neighbouring pair, or None (see `no_pair_reason`).

        Returns:
            A DominatingPair, or None (this default implementation returns None).
        """
        return None

    no_pair_reason: ClassVar[str] = "no dominating pair is implemented for this protocol"

    def local_guarantee(self) -> tuple[float, float] | None:
        """(epsilon0, delta0) of the local randomizer, when every view post-processes
        independent reports of which the differing user's is one: the shuffled view of ANY
        number of users is then (epsilon0, delta0)-DP under substitution. A Poisson-sampled
        round needs that (the users taking part are a random subset; a protocol's own bound
        at n, e.g. GKM's, may grow as n shrinks).

        Returns:
            The pair (upper ends), or None (this default: no local guarantee is declared).
        """
        return None

    def report_noise(self) -> tuple[str, float] | None:
        """The differing user's local report as x + noise, x in {0, 1}, when every shuffled
        view of a round post-processes that report with the other users' independent ones:
        the report pair then dominates every neighbouring pair at every n, and mixed with
        "no message" at 1 - q a Poisson-sampled round under substitution
        (`composition.report`, `composition.participation`). For families with neither a
        clones pair nor a local (epsilon0, delta0) guarantee (the Gaussian randomizers).

        Returns:
            (noise, sigma) with noise "gaussian" or "discrete-gaussian", or None (this
            default).
        """
        return None

    def participants_round(self, users: int) -> Mechanism | None:
        """The round that `users` of this round's users run when the others stay out, when
        each user's messages depend on its own data and coins only (not on n): a
        Poisson-sampled round (substitute) given the others' participants K is then this
        round at K + 1 users when user 1 takes part, and identical under both datasets when
        it does not (`composition.accountant`'s per-round class of sampled rounds).

        Args:
            users: the participants, an integer >= 2 (checked by the family built).

        Returns:
            The family at `users` users with the same per-user randomizer, or None (this
            default: a family whose randomizer depends on n, e.g. GKM's noise shares).
        """
        return None

    def subsampling_pair(self) -> DominatingPair | None:
        """A clones-family pair dominating every neighbouring pair of the round, for the
        rounds whose set of users varies (Poisson sampling, add/remove): the dominating
        pair when it is one (default), else a family's own (a randomizer matrix: the
        clones pair of its epsilon0 class).

        Returns:
            A DominatingPair whose `composable` is a `ClonePair`, or None.
        """
        dominating = self.dominating_pair()
        if dominating is not None and isinstance(dominating.composable, ClonePair):
            return dominating
        return None

    @abc.abstractmethod
    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta) of the mechanism, maximum over both orders.

        Args:
            delta: target delta, in (0, 1).

        Returns:
            A Bracket of Results on "epsilon" (direction MAX); its upper end, when set, holds
            for every neighbouring pair unless its method says otherwise.

        Raises:
            ParameterError: delta outside (0, 1) (implementations validate).
        """

    @abc.abstractmethod
    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon) of the mechanism, maximum over both orders.

        Args:
            epsilon: epsilon >= 0.

        Returns:
            A Bracket of Results on "delta" (direction MAX).

        Raises:
            ParameterError: epsilon < 0 or NaN (implementations validate).
        """

    @abc.abstractmethod
    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences at real orders > 1 (math.inf: the max-divergence).

        Args:
            orders: Renyi orders, each in (1, inf]; a single order (a number) is accepted too.

        Returns:
            One Bracket per order, in the order given (the `max_divergence` Bracket at inf);
            for a single number, that one Bracket.

        Raises:
            ParameterError: an order outside (1, inf] (implementations validate).
        """

    def epsilon_upper(self, delta: float) -> Result | None:
        """The upper end of `epsilon_for_delta` only (what a per-round (eps, delta) class
        reads). A family whose lower ends cost far more than its upper end answers without
        computing them.

        Args:
            delta: target delta, in (0, 1).

        Returns:
            The upper end (scope MECHANISM unless `one_pair()`), or None.

        Raises:
            ParameterError: delta outside (0, 1).
        """
        return self.epsilon_for_delta(delta).upper

    def renyi_upper(self, orders: Sequence[float]) -> list[Result | None]:
        """The upper ends of `renyi` at each order, the same Results (what a composition of
        Renyi curves reads). A family whose lower ends cost far more than its upper ends
        answers without computing them.

        Args:
            orders: Renyi orders, each in (1, inf].

        Returns:
            One upper end per order, in the order given.

        Raises:
            ParameterError: an order outside (1, inf].
        """
        return [b.upper for b in self.renyi(orders)]

    @abc.abstractmethod
    def max_divergence(self) -> Bracket:
        """The pure-DP epsilon (max-divergence over both orders).

        Returns:
            A Bracket of Results on the max-divergence (an EXACT Result as both ends when known).
        """


_STAMPED: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()


_ARGUMENT_DOMAIN = {"epsilon_for_delta": DELTA, "delta_for_epsilon": EPSILON}


# delta(eps) beyond this eps is read from the max-divergence (below, the families answer)
_BEYOND_EXP = 700.0


def _stamp_one(fn: Callable[..., Bracket], domain: Interval | None) -> Callable[..., Bracket]:
    @functools.wraps(fn)
    def stamped(self: Mechanism, *args: Any, **kwargs: Any) -> Bracket:
        if domain is not None:
            domain.check(args[0] if args else kwargs[domain.name])
        out = None
        if domain is EPSILON:
            out = _beyond_max_divergence(self, args[0] if args else kwargs[domain.name])
        if out is None:
            out = fn(self, *args, **kwargs)
        if domain is DELTA:
            out = _within_max_divergence(self, out, args[0] if args else kwargs["delta"])
        return out if self.one_pair() else out.for_mechanism()
    return stamped


def certified_max_divergence(mech: Mechanism) -> Result | None:
    """The mechanism's certified max-divergence upper end when it is finite, else None (a
    family without one, or +inf).

    Args:
        mech: the mechanism.

    Returns:
        The upper end (EXACT or UPPER, finite), or None.
    """
    try:
        top = mech.max_divergence().upper
    except AccountantError:     # a family without one
        return None
    if top is None or top.kind not in (Kind.EXACT, Kind.UPPER) or not top.is_finite:
        return None
    return top


def _within_max_divergence(mech: Mechanism, out: Bracket, delta: float) -> Bracket:
    """eps(delta) is at most the max-divergence at every delta: an infinite upper end (a
    family's (eps, delta) bound that gives up at tiny delta: a randomizer matrix's blanket
    bound read +inf at delta <= 1e-20, where its epsilon0 = log 5 holds) is replaced by
    the certified max-divergence."""
    if out.upper is None or out.upper.is_finite:
        return out
    top = certified_max_divergence(mech)
    if top is None:             # a family without one keeps its answer
        return out
    cap = Result(quantity="epsilon", value=top.upper_end(), kind=Kind.UPPER,
                 direction=Direction.MAX,
                 method=f"eps(delta) <= the max-divergence {top.upper_end():.6g} "
                        f"({top.method})", source=top.source, at=float(delta))
    return replace(out, upper=cap)


def _beyond_max_divergence(mech: Mechanism, epsilon: float) -> Bracket | None:
    """delta(eps) = 0 exactly for eps at least the max-divergence: asked beyond e^eps's
    float range (eps > 700, above every declared epsilon0), a mechanism whose certified
    max-divergence is below eps answers that, not its family's formulas (which overflowed:
    BinaryRR, k-RR and LDP at eps = 710 raised a bare OverflowError)."""
    if not epsilon > _BEYOND_EXP:
        return None
    top = certified_max_divergence(mech)
    if top is None or not float(epsilon) >= top.upper_end():
        return None             # (a family without one answers itself)
    zero = Result(quantity="delta", value=0.0, kind=Kind.EXACT, direction=Direction.MAX,
                  method=f"delta(eps) = 0 for eps >= the max-divergence "
                         f"{top.upper_end():.6g} ({top.method})",
                  source=top.source, at=float(epsilon))
    return Bracket(lower=zero, upper=zero)


def _stamp_orders(fn: Callable[..., list[Bracket]]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def stamped(self: Mechanism, orders: Any, *args: Any, **kwargs: Any) -> Any:
        one = isinstance(orders, numbers.Real)  # one order (numpy scalars included)
        orders = [orders] if one else list(orders)
        for alpha in orders:
            ALPHA.check(alpha)
        out = fn(self, orders, *args, **kwargs)
        out = out if self.one_pair() else [b.for_mechanism() for b in out]
        return out[0] if one else out
    return stamped


def brackets_by_order(orders: Sequence[float],
                      curve: Callable[[list[float]], list[tuple[Any, Any]]],
                      max_divergence: Callable[[], Bracket]) -> list[Bracket]:
    """One Bracket per order from a many-orders routine and the max-divergence.

    Args:
        orders: Renyi orders, each in (1, inf]; inf stands for the max-divergence.
        curve: finite orders -> (lower, upper) Results in the same order (one call).
        max_divergence: the Bracket for order inf.

    Returns:
        One Bracket(lower, upper) per order, in the order given.
    """
    finite = [a for a in orders if a != math.inf]
    ends = iter(curve(finite) if finite else [])
    out = []
    for alpha in orders:
        if alpha == math.inf:
            out.append(max_divergence())
        else:
            low, up = next(ends)
            out.append(Bracket(lower=low, upper=up))
    return out
