"""`Result`: the one return type of every privacy number in the library.

A privacy number is useless without knowing whether it is exact, an upper bound or a lower
bound, for which direction of the neighbouring pair, and how it was obtained. `Result`
carries all of that, and converting it to a float rounds in the safe direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any, TypeAlias

import mpmath

from accountant.errors import PrecisionError
from accountant.numeric import rounding
from accountant.numeric.mp import to_mpf

__all__ = ["Bracket", "Kind", "Direction", "Scope", "Source", "Result", "tightest", "Value"]

Value: TypeAlias = float | Fraction | mpmath.mpf


class Kind(StrEnum):
    """What a value is relative to the true quantity."""

    EXACT = "exact"
    UPPER = "upper"
    LOWER = "lower"
    # A published pipeline that is not a theorem (docs/soundness.md#result-kinds): never a
    # bound, never the winner of `tightest`, never an end of a `Bracket`.
    HEURISTIC = "heuristic"


class Scope(StrEnum):
    """What a value is a statement about (docs/soundness.md#result-kinds).

    MECHANISM: holds for every neighbouring pair of the mechanism (an upper end bounds the
    worst pair; a lower end is attained, or exceeded, by some pair). PAIR: the value, or a
    bound on the value, of one pair of distributions (a ViewPair, a special pair, a bounding
    pair's own numerics); as a statement about a mechanism, one pair's value is only a lower
    bound. HEURISTIC: a published pipeline that is not a proof.
    """

    MECHANISM = "mechanism"
    PAIR = "pair"
    HEURISTIC = "heuristic"


class Direction(StrEnum):
    """Which order of the neighbouring pair a divergence refers to."""

    P_Q = "P||Q"
    Q_P = "Q||P"
    MAX = "max"


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """Where a formula comes from."""

    citation: str
    locator: str

    def __str__(self) -> str:
        return f"{self.citation}, {self.locator}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """A privacy quantity with an honest statement of what it is.

    Attributes:
        quantity: "delta", "epsilon", "renyi", "kl" or "max_divergence".
        value: the number; float, Fraction (exact backend) or mpmath.mpf (values below
            float range, or the mp backend).
        kind: EXACT, UPPER, LOWER or HEURISTIC (a value that is not a bound).
        direction: P||Q, Q||P or MAX (maximum over both orders).
        method: dotted name of the function that produced it, plus backend notes.
        source: paper and statement, for closed forms.
        error_budget: slack already folded into value (added if UPPER, subtracted if LOWER):
            truncated tail mass, floating-point error bounds.
        order: Renyi order for quantity "renyi" (math.inf for max-divergence).
        at: the other coordinate of the point, e.g. the epsilon at which delta was computed.
        scope: what the value is a statement about (`Scope`); PAIR unless the producer says
            MECHANISM (claiming less is the safe default), HEURISTIC for HEURISTIC kinds.
        radius: for an EXACT value computed with ball arithmetic, the certified radius of the
            ball around `value` that holds the truth (0 for exact rationals).
        precision: working precision in bits of such a value (None: exact rational arithmetic,
            or not applicable).
    """

    quantity: str
    value: Value
    kind: Kind
    direction: Direction
    method: str
    source: Source | None = None
    error_budget: float = 0.0
    order: float | None = None
    at: float | None = None
    scope: Scope = Scope.PAIR
    radius: float = 0.0
    precision: int | None = None

    def __post_init__(self) -> None:
        if self.value != self.value:  # NaN is never a result
            raise PrecisionError(f"{self.method} produced NaN for {self.quantity}")
        if not isinstance(self.kind, Kind):
            object.__setattr__(self, "kind", Kind(self.kind))
        if not isinstance(self.scope, Scope):
            object.__setattr__(self, "scope", Scope(self.scope))
        if self.kind is Kind.HEURISTIC:
            object.__setattr__(self, "scope", Scope.HEURISTIC)
        elif self.scope is Scope.HEURISTIC:
            raise ValueError(f"a {self.kind.value} bound cannot have heuristic scope "
                             f"({self.method})")
        if not self.radius >= 0:
            raise ValueError(f"radius={self.radius!r} must be >= 0")
        if self.radius and self.kind in (Kind.UPPER, Kind.LOWER) and self.is_finite:
            # a one-sided bound is a number, not a ball: take the ball's safe end, so that
            # no consumer can read the midpoint of a ball as the bound
            end = self.upper_end() if self.kind is Kind.UPPER else self.lower_end()
            object.__setattr__(self, "value", end)
            object.__setattr__(self, "radius", 0.0)
        if not isinstance(self.direction, Direction):
            object.__setattr__(self, "direction", Direction(self.direction))
        if self.kind is Kind.EXACT and self.error_budget:
            raise ValueError("an exact result cannot spend an error budget")

    def __float__(self) -> float:
        """Round to float in the safe direction: UPPER up, LOWER down, EXACT to nearest."""
        return rounding.to_float(self.value, toward=self.kind.value)

    def __repr__(self) -> str:
        # one line (the fields are all in to_json()): value, kind, scope and the method
        where = f" at {self.at:g}" if self.at is not None else ""
        order = f" order {self.order:g}" if self.order is not None else ""
        return (f"<{self.quantity}{order}{where} = {float(self):.6g} {self.kind.value}, "
                f"{self.scope.value}; {_short(self.method)}>")

    def upper_end(self) -> float:
        """A float at least the true value: the Result rounded up, its radius added.

        Returns:
            For EXACT and UPPER Results, value + radius rounded up to a float.

        Raises:
            ValueError: the Result is LOWER or HEURISTIC (it bounds nothing from above).
        """
        if self.kind not in (Kind.EXACT, Kind.UPPER):
            raise ValueError(f"a {self.kind.value} Result has no upper end ({self.method})")
        return self._end(+1)

    def lower_end(self) -> float:
        """A float at most the true value: the Result rounded down, its radius subtracted.

        Returns:
            For EXACT and LOWER Results, value - radius rounded down to a float.

        Raises:
            ValueError: the Result is UPPER or HEURISTIC (it bounds nothing from below).
        """
        if self.kind not in (Kind.EXACT, Kind.LOWER):
            raise ValueError(f"a {self.kind.value} Result has no lower end ({self.method})")
        return self._end(-1)

    def _end(self, sign: int) -> float:
        if not self.radius or not self.is_finite:
            return rounding.up(self.value) if sign > 0 else rounding.down(self.value)
        end = _exact_rational(self.value) + sign * Fraction(self.radius)
        return rounding.up(end) if sign > 0 else rounding.down(end)

    @property
    def is_finite(self) -> bool:
        return not (isinstance(self.value, float | mpmath.mpf) and mpmath.isinf(self.value))

    def with_(self, **changes: Any) -> Result:
        """A copy with some fields changed.

        Args:
            **changes: field names and their new values (dataclasses.replace; __post_init__ runs
                again, so the same checks apply to the copy).

        Returns:
            A new Result; this one is unchanged (frozen).

        Raises:
            PrecisionError: the new value is NaN.
            ValueError: the copy is EXACT with a nonzero error_budget.
        """
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """The JSON object of CLI.md: value (safely rounded float), kind, direction, method.

        Returns:
            A dict with "value" (float(self): rounded up for UPPER, down for LOWER, to nearest
            otherwise; +-inf written as the strings "inf"/"-inf"), "kind", "direction", "method",
            and when set: "log10_value" (mpf values below 1e-300 in magnitude), "order", "at",
            "source" (str of the Source) and "error_budget" (when nonzero).
        """
        out: dict[str, Any] = {
            "value": _json_number(float(self)),
            "kind": self.kind.value,
            "direction": self.direction.value,
            "method": self.method,
            "scope": self.scope.value,
        }
        if self.radius:
            out["radius"] = self.radius
        if self.precision is not None:
            out["precision_bits"] = self.precision
        if isinstance(self.value, mpmath.mpf) and 0 < abs(self.value) < 1e-300:
            out["log10_value"] = float(mpmath.log10(abs(self.value)))  # of |value|
        if self.order is not None:
            out["order"] = _json_number(self.order)
        if self.at is not None:
            out["at"] = _json_number(self.at)
        if self.source is not None:
            out["source"] = str(self.source)
        if self.error_budget:
            out["error_budget"] = self.error_budget
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Bracket:
    """Lower and upper ends of one privacy quantity of a mechanism (docs/soundness.md).

    Attributes:
        lower: a LOWER (or EXACT) Result on the mechanism's value, or None if unknown.
        upper: an UPPER (or EXACT) Result on the mechanism's value, or None if unknown.
        pair_lower: when `upper` is the value of a bounding pair (clones, blanket), that
            pair's own certified lower end: it says how tight the numerics are, not how
            tight the pair is; it is no lower bound on the mechanism.
        pair_name: the bounding pair's name ("clones", "blanket"), for labels.
        special: the value of the special neighbouring pair (all other users equal): one
            pair's value, a lower bound on the mechanism read at its numerical upper end.
    """

    lower: Result | None = None
    upper: Result | None = None
    pair_lower: Result | None = None
    pair_name: str | None = None
    special: Result | None = None

    def __post_init__(self) -> None:
        for end, r in (("lower", self.lower), ("upper", self.upper)):
            if r is not None and r.kind is Kind.HEURISTIC:
                raise ValueError(f"Bracket.{end} is a heuristic value, not a bound ({r.method})")
        if self.lower is not None and self.lower.kind is Kind.UPPER:
            raise ValueError(f"Bracket.lower is an upper bound ({self.lower.method})")
        if self.upper is not None and self.upper.kind is Kind.LOWER:
            raise ValueError(f"Bracket.upper is a lower bound ({self.upper.method})")
        # one pair's numbers are never mechanism statements, whatever their producer said
        for name in ("pair_lower", "special"):
            r = getattr(self, name)
            if r is not None and r.scope is not Scope.PAIR:
                object.__setattr__(self, name, r.with_(scope=Scope.PAIR))
        if self.lower is not None and self.upper is not None:
            # each end is certified on its own side of the truth, so lower > upper means one
            # of them is wrong: refuse it rather than let a caller pick either
            lo = to_mpf(self.lower.value) - self.lower.radius
            hi = to_mpf(self.upper.value) + self.upper.radius
            if lo > hi:
                raise PrecisionError(
                    f"certified ends cross: lower {float(self.lower)!r} ({self.lower.method}) "
                    f"> upper {float(self.upper)!r} ({self.upper.method}); one of them is "
                    "wrong, please report it")

    def for_mechanism(self) -> Bracket:
        """This bracket with its ends stated for the whole mechanism (Scope.MECHANISM).

        Called by the producers of mechanism brackets (`protocols.contract.Mechanism`,
        the accountant); the ends must then hold for every neighbouring pair (an upper end
        from a dominating pair, a lower end from one real pair).

        Returns:
            A copy whose `lower` and `upper` have scope MECHANISM; `pair_lower` and `special`
            stay PAIR.
        """
        def stamp(r: Result | None) -> Result | None:
            return r if r is None or r.scope is Scope.MECHANISM else r.with_(
                scope=Scope.MECHANISM)

        lower = stamp(self.lower)
        # an EXACT bracket keeps one object for both ends
        upper = lower if self.upper is self.lower else stamp(self.upper)
        return replace(self, lower=lower, upper=upper)

    def require_upper(self) -> Result:
        """The upper end, where the producer always sets one (every `Mechanism` method).

        Returns:
            `upper`, typed as a Result (ValueError when there is none).
        """
        return _required(self.upper, "upper")

    def require_lower(self) -> Result:
        """The lower end, where the producer always sets one.

        Returns:
            `lower`, typed as a Result (ValueError when there is none).
        """
        return _required(self.lower, "lower")

    @classmethod
    def of(cls, result: Result) -> Bracket:
        """The bracket one Result gives: both ends if EXACT, else the end its kind names.

        Args:
            result: an EXACT, UPPER or LOWER Result.

        Returns:
            Bracket(lower=result, upper=result) for EXACT, else one end set.
        """
        return cls(lower=result if result.kind in (Kind.EXACT, Kind.LOWER) else None,
                   upper=result if result.kind in (Kind.EXACT, Kind.UPPER) else None)

    def __float__(self) -> float:
        """The certified upper end as a float (rounded up, radius added); +inf when no upper
        end is known. What drop-in code that expects a number should read.

        Returns:
            `upper.upper_end()`, or inf.
        """
        return float(self.upper.upper_end()) if self.upper is not None else math.inf

    def __repr__(self) -> str:
        # one line: the two ends and where the upper end comes from (to_dict() has the rest)
        first = self.upper or self.lower
        name = first.quantity if first is not None else "?"
        low = f"{float(self.lower):.6g}" if self.lower is not None else "?"
        up = f"{float(self.upper):.6g}" if self.upper is not None else "?"
        scope = first.scope.value if first is not None else ""
        method = _short(self.upper.method) if self.upper is not None else ""
        return f"<Bracket {name} in [{low}, {up}] {scope}; {method}>"

    def to_dict(self) -> dict[str, Any]:
        """The command line's JSON of this bracket (`json_items` under its quantity's name).

        Returns:
            The dict of `json_items(quantity)`; empty when neither end is set.
        """
        first = self.upper or self.lower
        return {} if first is None else self.json_items(first.quantity)

    def json_items(self, quantity: str) -> dict[str, Any]:
        """The CLI's JSON keys: quantity (upper), quantity_lower, quantity_<pair>_lower,
        quantity_special.

        Args:
            quantity: the key stem, e.g. "delta" or "epsilon".

        Returns:
            A dict of the ends that are set, each as its `Result.to_json()`: `quantity` for the
            upper end, `quantity_lower`, `quantity_<pair_name>_lower` (`quantity_pair_lower`
            without a pair name) and `quantity_special`.
        """
        out: dict[str, Any] = {}
        if self.upper is not None:
            out[quantity] = self.upper.to_json()
        if self.lower is not None:
            out[f"{quantity}_lower"] = self.lower.to_json()
        if self.pair_lower is not None:
            out[f"{quantity}_{self.pair_name or 'pair'}_lower"] = self.pair_lower.to_json()
        if self.special is not None:
            # its kind is the special pair's (an upper end of that one pair's value); as a
            # statement about the mechanism the pair's value is a lower bound: say so
            out[f"{quantity}_special"] = self.special.to_json() | {
                "note": "one neighbouring pair (the special pair); its value is a lower "
                        "bound on the mechanism's"}
        if self.pair_lower is not None:
            out[f"{quantity}_{self.pair_name or 'pair'}_lower"]["note"] = (
                "the bounding pair's own value (numerical lower end); not a bound on the "
                "mechanism")
        return out


def _exact_rational(x: Value) -> Fraction:
    """The exact rational value of a finite float, Fraction, int or mpf (no rounding)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, mpmath.mpf):
        # an mpf is (-1)^sign man 2^exp exactly (man_exp's mantissa drops the sign)
        sign, man, exp, _ = x._mpf_
        return (-1) ** sign * Fraction(int(man)) * (Fraction(2) ** int(exp))
    return Fraction(x)


def _json_number(x: float) -> float | str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def tightest(*results: Result) -> Result:
    """The tightest of several bounds on one quantity: min of UPPERs, max of LOWERs.

    EXACT results win outright (the first EXACT one is returned). HEURISTIC results are not
    bounds and never win: they are ignored when bounds are present. Directions are not
    compared: the caller passes results on one direction.

    Args:
        *results: Results on one quantity (and Renyi order), all UPPER or all LOWER
            (EXACT and HEURISTIC ones may be mixed in).

    Returns:
        One of the given Results, unchanged (its `method` names the winner): the EXACT one if
        any, else the UPPER with the least value or the LOWER with the largest (values compared
        as mpf).

    Raises:
        ValueError: when quantities, orders, or kinds (upper vs lower) are mixed, because
            comparing them means nothing, or when every result is HEURISTIC, or when no
            result is given.
    """
    if not results:
        raise ValueError("tightest() needs at least one Result")
    bounds = tuple(r for r in results if r.kind is not Kind.HEURISTIC)
    if not bounds:
        raise ValueError("tightest() got only heuristic values; none of them is a bound")
    results = bounds
    quantities = {(r.quantity, r.order) for r in results}
    if len(quantities) != 1:
        raise ValueError(f"tightest() got different quantities: {sorted(map(str, quantities))}")
    exact = [r for r in results if r.kind is Kind.EXACT]
    if exact:
        return exact[0]
    kinds = {r.kind for r in results}
    if len(kinds) != 1:
        raise ValueError("tightest() cannot combine upper and lower bounds; bracket them instead")
    if kinds == {Kind.UPPER}:
        return min(results, key=lambda r: to_mpf(r.value))
    return max(results, key=lambda r: to_mpf(r.value))


def _required(end: Result | None, which: str) -> Result:
    if end is None:
        raise ValueError(f"this bracket has no {which} end")
    return end


def _short(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."
