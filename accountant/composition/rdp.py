"""`RdpCurve`: Renyi-DP guarantees at a set of orders, and their composition.

A mechanism is (alpha, tau)-RDP when D_alpha <= tau for every neighbouring pair, in both
orders (docs/conversions.md#rdp-to-epsilon-delta). An `RdpCurve` holds such bounds at finitely many
orders:

- from a protocol's view pair (`from_view`: exact divergences of that pair, maximised over
  both orders; the curve is EXACT for that pair, and a mechanism-level guarantee only if the
  pair is the worst case, see docs/single-message.md#exactness-map "exactness map");
- from a certified upper bound (`from_view` of a clones/blanket pair, or `from_function` of
  a closed form such as Girgis et al. 2021, Theorem 1);
- from pure DP (`from_pure_dp`, docs/conversions.md#pure-dp-to-rdp).

Composition adds values order by order ([Mir17] Prop. 1, docs/conversions.md#rdp-composition).
Values are stored as
floats rounded up, so every value is an upper bound on the quantity it describes.

Between stored orders, `value_at` uses the chord of (alpha - 1) * D_alpha, which is convex in
alpha (van Erven and Harremoes 2014, Thm 11): the chord of upper bounds of a convex function
lies above the function, so the interpolated value is again an upper bound.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from accountant.divergence import renyi_divergence
from accountant.domains import ALPHA, EPSILON, Interval, checked
from accountant.errors import ParameterError
from accountant.numeric import rounding
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = ["RdpCurve", "DEFAULT_ORDERS", "ROUNDS"]

# Real orders in (1, 256]: dense near 1 (large compositions and small delta favour them)
# integers up to 64 (subsampling needs integer orders 2..alpha) and inf (pure DP).
DEFAULT_ORDERS: tuple[float, ...] = tuple(sorted(
    {1.0 + x for x in (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9)}
    | {1.0 + 0.25 * i for i in range(4, 12)}
    | {float(a) for a in range(4, 65)}
    | {80.0, 96.0, 128.0, 192.0, 256.0, math.inf}))

# counts are multiplied into floats (T mu^2, T times an RDP curve): beyond 1e12 the
# products lose the float error model, and 10**400 raised OverflowError
ROUNDS = Interval("rounds", 1, 1e12, closed="both", integer=True,
                  note="counts are multiplied into floats")


@dataclass(frozen=True, slots=True, kw_only=True)
class RdpCurve:
    """Upper bounds tau(alpha) on D_alpha at finitely many orders.

    Attributes:
        orders: strictly increasing Renyi orders > 1 (math.inf allowed, last).
        values: tau at each order, floats rounded up, >= 0 (inf allowed).
        kind: EXACT when the values are the exact divergences of one pair (then rounded up
            to float), UPPER when they are upper bounds, HEURISTIC when they come from a
            pipeline that is not a theorem (the ZW19 subsampling of a replace-one curve).
            Conversions return UPPER, or HEURISTIC for a heuristic curve.
        direction: MAX (both orders of the pair) unless built otherwise.
        method: how the curve was obtained (carried into every Result derived from it).
        source: paper and statement, for closed forms.
    """

    orders: tuple[float, ...]
    values: tuple[float, ...]
    kind: Kind = Kind.UPPER
    direction: Direction = Direction.MAX
    method: str = "composition.rdp"
    source: Source | None = None

    def __post_init__(self) -> None:
        orders = tuple(float(a) for a in self.orders)
        values = tuple(float(v) for v in self.values)
        if not orders:
            raise ParameterError("an RdpCurve needs at least one order")
        if len(orders) != len(values):
            raise ParameterError(f"an RdpCurve got {len(orders)} orders but "
                                 f"{len(values)} values")
        for a in orders:
            ALPHA.check(a)
        if any(b <= a for a, b in zip(orders, orders[1:], strict=False)):
            raise ParameterError(f"orders={list(orders)} must be strictly increasing")
        for v in values:
            if v != v or v < 0:
                raise ParameterError(f"Renyi value={v!r} is outside [0, inf]")
        if self.kind is Kind.LOWER:
            raise ParameterError("an RdpCurve holds exact values or upper bounds; a lower "
                                 "bound cannot be converted into a privacy guarantee")
        object.__setattr__(self, "orders", orders)
        object.__setattr__(self, "values", values)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_results(cls, results: Sequence[Result], *, method: str | None = None) -> RdpCurve:
        """A curve from "renyi"/"max_divergence" Results (EXACT or UPPER), rounded up."""
        if not results:
            raise ParameterError("from_results needs at least one Result")
        at: list[tuple[float, Result]] = []
        for r in results:
            if r.quantity not in ("renyi", "max_divergence") or r.order is None:
                raise ParameterError(f"a {r.quantity} Result is not a Renyi value")
            if r.kind is Kind.LOWER:
                raise ParameterError(f"{r.method} is a lower bound; it cannot enter a curve")
            at.append((float(r.order), r))
        at.sort(key=lambda t: t[0])  # stable, like sorting the Results by order
        ordered = [r for _, r in at]
        kind = Kind.EXACT if all(r.kind is Kind.EXACT for r in ordered) else Kind.UPPER
        directions = {r.direction for r in ordered}
        return cls(orders=tuple(order for order, _ in at),
                   values=tuple(max(0.0, r.upper_end()) for r in ordered), kind=kind,
                   direction=directions.pop() if len(directions) == 1 else Direction.MAX,
                   method=method or ordered[0].method.split(" [")[0],
                   source=ordered[0].source)

    @classmethod
    def from_view(cls, view: ViewPair, orders: Iterable[float] = DEFAULT_ORDERS, *,
                  direction: Direction | str = Direction.MAX) -> RdpCurve:
        """D_alpha of a view pair at each order (`accountant.divergence.renyi_divergence`)."""

        results = [renyi_divergence(view, a, direction=direction) for a in orders]
        desc = dict(view.description)
        label = ", ".join(f"{k}={v}" for k, v in desc.items() if not isinstance(v, dict | list))
        return cls.from_results(results, method=f"divergence.renyi_divergence of view "
                                                f"[{label}]" if label else None)

    @classmethod
    def from_function(cls, function: Callable[[float], Result | float],
                      orders: Iterable[float], *, kind: Kind = Kind.UPPER,
                      method: str, source: Source | None = None) -> RdpCurve:
        """A curve from a closed form alpha -> Result (or float upper bound).

        Result-valued functions carry their own kinds; a float-valued function's values are
        taken as `kind` (UPPER unless the caller knows they are exact).
        """
        values: list[float] = []
        kinds: list[Kind] = []
        orders = tuple(orders)
        for a in orders:
            r = function(a)
            if isinstance(r, Result):
                if r.kind is Kind.LOWER:
                    raise ParameterError(f"{r.method} is a lower bound at alpha={a}")
                values.append(max(0.0, r.upper_end()))  # radius included
                kinds.append(r.kind)
            else:
                values.append(max(0.0, float(r)))
                kinds.append(kind)
        total = Kind.EXACT if all(k is Kind.EXACT for k in kinds) else Kind.UPPER
        return cls(orders=orders, values=tuple(values), kind=total, method=method,
                   source=source)

    @classmethod
    def from_pure_dp(cls, epsilon: float, orders: Iterable[float] = DEFAULT_ORDERS) -> RdpCurve:
        """The RDP curve implied by epsilon-DP (docs/conversions.md#pure-dp-to-rdp), exact for
        binary RR.

        D_alpha <= log((e^(alpha eps) + e^((1-alpha) eps)) / (1 + e^eps)) / (alpha - 1),
        evaluated in log space, rounded up; alpha = inf gives epsilon.
        """
        EPSILON.check(epsilon)
        values = []
        for a in orders:
            ALPHA.check(a)
            values.append(_pure_dp_renyi(float(epsilon), float(a)))
        return cls(orders=tuple(orders), values=tuple(values), kind=Kind.UPPER,
                   method=f"composition.rdp.from_pure_dp(epsilon={epsilon})",
                   source=Source(citation="Mironov 2017; Bun and Steinke 2016",
                                 locator="docs/conversions.md#pure-dp-to-rdp (exact for binary "
                                         "randomized "
                                         "response)"))

    @classmethod
    def from_json(cls, data: dict[str, Any] | str | Path) -> RdpCurve:
        """Read {"orders": [...], "values": [...], "kind": "upper"|"exact", "method": ...}.

        A str or Path is a file name; "inf" is accepted for orders and values.
        """
        if isinstance(data, str | Path):
            path = Path(data)
            try:
                data = json.loads(path.read_text())
            except FileNotFoundError:
                raise ParameterError(f"rdp-curve file={str(path)!r} does not exist") from None
            except json.JSONDecodeError as exc:
                raise ParameterError(f"rdp-curve file={str(path)!r} is not JSON: {exc}") \
                    from None
        if not isinstance(data, dict) or "orders" not in data or "values" not in data:
            raise ParameterError("an RDP curve needs the keys 'orders' and 'values'")
        kind = Kind(data.get("kind", "upper"))
        num = [_number(x, "orders") for x in data["orders"]]
        val = [_number(x, "values") for x in data["values"]]
        return cls(orders=tuple(num), values=tuple(val), kind=kind,
                   method=str(data.get("method", "rdp-curve file")))

    def to_json(self) -> dict[str, Any]:
        """The JSON object read by `from_json` (inf written as "inf")."""
        enc = lambda x: "inf" if math.isinf(x) else x  # noqa: E731
        out: dict[str, Any] = {"orders": [enc(a) for a in self.orders],
                               "values": [enc(v) for v in self.values],
                               "kind": self.kind.value, "method": self.method}
        if self.source is not None:
            out["source"] = str(self.source)
        return out

    # ------------------------------------------------------------------ composition
    def compose(self, *others: RdpCurve) -> RdpCurve:
        """Adaptive composition: the sum per order (docs/conversions.md#rdp-composition, [Mir17]
        Prop. 1).

        Orders that are not common to every curve are filled by `value_at` (a sound upper
        bound) when they lie inside every curve's range, and dropped otherwise.
        """
        curves = (self, *others)
        orders = sorted({a for c in curves for a in c.orders})
        keep = [a for a in orders if all(c.covers(a) for c in curves)]
        if not keep:
            raise ParameterError("the curves have no Renyi order in common")
        values = []
        for a in keep:
            total = 0.0
            for c in curves:
                # one ulp up: the correctly rounded sum may lie half an ulp below the exact
                # sum (a float's directed rounding is the identity)
                total = math.nextafter(math.fsum([total, c.value_at(a)]), math.inf) \
                    if math.isfinite(total) else total
                if not math.isfinite(c.value_at(a)):
                    total = math.inf
            values.append(total)
        if any(c.kind is Kind.HEURISTIC for c in curves):
            kind = Kind.HEURISTIC
        elif len(curves) > 1 or any(c.kind is Kind.UPPER for c in curves):
            kind = Kind.UPPER
        else:
            kind = self.kind
        return RdpCurve(orders=tuple(keep), values=tuple(values), kind=kind,
                        method=" + ".join(sorted({c.method for c in curves})))

    @checked(rounds=ROUNDS)
    def times(self, rounds: int) -> RdpCurve:
        """T-fold homogeneous composition: T * tau(alpha), rounded up."""
        rounds = int(rounds)
        if rounds == 1:
            return self
        values = tuple(_mul_up(v, rounds) for v in self.values)
        kind = Kind.HEURISTIC if self.kind is Kind.HEURISTIC else Kind.UPPER
        return RdpCurve(orders=self.orders, values=values, kind=kind,
                        direction=self.direction, method=f"{rounds} x ({self.method})",
                        source=self.source)

    # ------------------------------------------------------------------ evaluation
    @property
    def pure_epsilon(self) -> float:
        """D_inf if the curve holds it, else inf."""
        return self.values[-1] if self.orders[-1] == math.inf else math.inf

    @property
    def finite_orders(self) -> tuple[float, ...]:
        return tuple(a for a in self.orders if math.isfinite(a))

    def covers(self, alpha: float) -> bool:
        """True when `value_at(alpha)` is defined (alpha inside the stored range)."""
        return self.orders[0] <= alpha <= self.orders[-1]

    def value_at(self, alpha: float) -> float:
        """An upper bound on D_alpha for alpha between the stored orders.

        At a stored order: the stored value. Between two finite orders a < alpha < b: the
        chord of (alpha - 1) tau, valid by convexity (module docstring). Between the last
        finite order and inf: D_inf (monotonicity of D_alpha in alpha).
        """
        ALPHA.check(alpha)
        if not self.covers(alpha):
            raise ParameterError(f"alpha={alpha} is outside this curve's orders "
                                 f"[{self.orders[0]}, {self.orders[-1]}]")
        i = int(np.searchsorted(self.orders, alpha))
        if self.orders[i] == alpha:
            return self.values[i]
        a, b = self.orders[i - 1], self.orders[i]
        va, vb = self.values[i - 1], self.values[i]
        if math.isinf(b) or math.isinf(vb) or math.isinf(va):
            return vb
        t = (alpha - a) / (b - a)
        chord = ((1 - t) * (a - 1) * va + t * (b - 1) * vb) / (alpha - 1)
        # a few ulps of slack for the four roundings above; never above the monotone bound
        return min(vb, rounding.up(chord * (1 + 8 * rounding.UNIT_ROUNDOFF)))

    def values_at(self, alphas: np.ndarray) -> np.ndarray:
        """`value_at` for many orders at once (same bound, vectorised; orders must be
        covered)."""
        alphas = np.asarray(alphas, dtype=float)
        stored = np.array(self.orders)
        values = np.array(self.values)
        if (alphas.size == 0 or not np.all(np.isfinite(values))
                or not np.all(np.isfinite(alphas))):
            return np.array([self.value_at(float(a)) for a in alphas])
        if np.any(alphas < stored[0]) or np.any(alphas > stored[-1]):
            raise ParameterError(f"some orders are outside this curve's orders "
                                 f"[{stored[0]}, {stored[-1]}]")
        finite = np.isfinite(stored)
        a_f, v_f = stored[finite], values[finite]
        inside = alphas <= a_f[-1]
        out = np.full(alphas.shape, self.pure_epsilon)
        x = alphas[inside]
        chord = np.interp(x, a_f, (a_f - 1) * v_f) / (x - 1)
        chord = np.nextafter(chord * (1 + 8 * rounding.UNIT_ROUNDOFF), np.inf)
        nxt = v_f[np.minimum(np.searchsorted(a_f, x), a_f.size - 1)]
        exact_hit = np.isin(x, a_f)
        out[inside] = np.where(exact_hit, v_f[np.minimum(np.searchsorted(a_f, x),
                                                         a_f.size - 1)],
                               np.minimum(nxt, chord))
        return out

    def result_at(self, alpha: float) -> Result:
        """`value_at` as a Result (UPPER unless it is a stored value of an EXACT curve;
        HEURISTIC for a heuristic curve)."""
        value = self.value_at(alpha)
        exact = self.kind is Kind.EXACT and alpha in self.orders
        kind = Kind.HEURISTIC if self.kind is Kind.HEURISTIC else (
            Kind.EXACT if exact else Kind.UPPER)
        return Result(quantity="renyi" if math.isfinite(alpha) else "max_divergence",
                      value=value, kind=kind,
                      direction=self.direction, method=self.method, source=self.source,
                      order=float(alpha))


def _pure_dp_renyi(epsilon: float, alpha: float) -> float:
    if math.isinf(alpha):
        return epsilon
    if epsilon == 0:
        return 0.0
    a1 = alpha - 1.0
    # log((e^(a e) + e^(-(a-1) e)) / (1 + e^e))
    #   = log(sigmoid(e)) + (a-1) e + log1p(e^(-(2a-1) e))   (verify/symbolic.py checks it),
    # computed as logaddexp minus log1p(e^e)
    num = np.logaddexp(alpha * epsilon, -a1 * epsilon)
    den = np.logaddexp(0.0, epsilon)
    raw = float(num - den) / a1
    # three roundings of terms of size <= alpha*eps; absolute slack on the difference
    slack = 8 * rounding.UNIT_ROUNDOFF * (alpha * epsilon + 1) / a1
    return min(max(0.0, rounding.up(raw + slack)), epsilon, rounding.up(
        alpha * epsilon * epsilon / 2 * (1 + 4 * rounding.UNIT_ROUNDOFF)))


def _mul_up(value: float, rounds: int) -> float:
    if math.isinf(value):
        return value
    product = value * rounds
    return math.nextafter(product, math.inf) if product > 0 else product


def _number(x: Any, name: str) -> float:
    if isinstance(x, str) and x.strip().lower() in ("inf", "infinity"):
        return math.inf
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise ParameterError(f"{name} entry={x!r} is not a number")
    return float(x)
