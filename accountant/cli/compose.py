"""`shuffle-accountant compose`: compose mechanisms by RDP, PLD and KOV (CLI.md).

    shuffle-accountant compose --mechanism SPEC [--mechanism SPEC ...] --rounds T
        [--sampling-rate Q] (--at-delta D | --at-epsilon E) [--method rdp|pld|kov|all]

A SPEC is one string:
- a protocol of the registry table with its flags, e.g. "binary-rr --n 10000 --epsilon0 1",
  built through its face into the protocol's contract `Mechanism`. Its `view_pair()` (the
  exact view of one neighbouring pair: binary-rr's special pair ones=0 unless `--ones`,
  k-rr's special pair) is composed when it has one: the values are exact for that pair,
  a mechanism guarantee only if it is the worst (the output's "scope" says so). Without
  a view pair ("ldp": any eps0-LDP randomizer) its certified RDP upper bounds are used;
- "eps-delta --epsilon E --delta D": a generic (epsilon, delta)-DP mechanism (KOV pair);
- "girgis-thm1 --n N --epsilon0 E": the RDP curve of Girgis et al. 2021 Thm 1 (integer orders);
- "rdp-curve:FILE": a JSON RDP curve (`RdpCurve.from_json`).

Every mechanism runs `--rounds` times. The JSON lists every method's value under "methods"
and the tightest sound one (EXACT or UPPER) under "epsilon" / "delta".
"""

from __future__ import annotations

import argparse
import math
import shlex
from dataclasses import dataclass
from typing import Any

from accountant.bounds import girgis_2021
from accountant.cli.registry import PROTOCOLS, protocol_spec
from accountant.cli.types import AT_DELTA, AT_EPSILON, integer, positive_int, real
from accountant.composition import conversion, kov, pld, subsampling
from accountant.composition.rdp import DEFAULT_ORDERS, ROUNDS, RdpCurve
from accountant.composition.subsampled import RELATIONS, SubsampledPair
from accountant.domains import DELTA, EPSILON, PROBABILITY, Interval
from accountant.errors import AccountantError, ParameterError
from accountant.pairs import clones
from accountant.pairs.clones import ClonePair
from accountant.protocols.contract import DominatingPair
from accountant.result import Kind, Result
from accountant.view import ViewPair

__all__ = ["register", "ComposeItem", "parse_spec", "compose"]

_GIRGIS_ORDERS = tuple(float(a) for a in range(2, 65))
# Fewer orders for expensive pairs (2-D views, clone mixtures); chords fill in between.
_SPARSE_ORDERS = (1.1, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0)
_LARGE_VIEW = 200_000


class _SpecParser(argparse.ArgumentParser):
    """Raises ParameterError (exit 2, one line) instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ParameterError(f"--mechanism {self.prog!r}: {message}")


@dataclass(frozen=True)
class ComposeItem:
    """One parsed --mechanism.

    Attributes:
        spec: the --mechanism string.
        view: a view pair composed as the mechanism itself: the KOV pair of eps-delta is
            not here (see `epsilon`/`delta`); for a protocol it is one neighbouring pair's
            view (`pair_only` names it), whose composed values bound that pair only.
        epsilon, delta: a generic (epsilon, delta)-DP mechanism.
        curve: an RDP curve that holds for every neighbouring pair (certified uppers, a
            closed form, or a user's file).
        lower_view: a protocol's special pair: its composed optimistic value is a lower
            bound on the mechanism (one pair's value).
        dominating: the protocol's dominating pair (`Mechanism.dominating_pair()`), whose
            composed pessimistic value is an upper bound on the mechanism.
        pair_only: None for a guarantee over every dataset; else the neighbouring pair the
            values are for.
    """

    spec: str
    view: ViewPair | None = None
    epsilon: float | None = None
    delta: float | None = None
    curve: RdpCurve | None = None
    lower_view: ViewPair | None = None
    dominating: DominatingPair | None = None
    pair_only: str | None = None

    def rdp_curve(self, orders: tuple[float, ...] = DEFAULT_ORDERS) -> RdpCurve | None:
        """The mechanism's RDP curve, or None when it has none ((eps, delta>0)-DP).

        Args:
            orders: orders for curves built here (view pairs and pure DP).

        Returns:
            The curve (for a pair-scope item, the pair's curve), or None.
        """
        if self.curve is not None:
            return self.curve
        if self.view is not None:
            if self.view.size > _LARGE_VIEW and orders == DEFAULT_ORDERS:
                orders = _SPARSE_ORDERS + (math.inf,)
            return RdpCurve.from_view(self.view, orders)
        if self.delta == 0:
            return RdpCurve.from_pure_dp(self.epsilon, orders)
        return None

    def pld_view(self) -> ViewPair | None:
        """The view pair the PLD composes as an upper bound (None: no such pair)."""
        if self.view is not None:
            return self.view
        if self.epsilon is not None:
            return kov.kov_view_pair(epsilon=self.epsilon, delta=self.delta)
        return None


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def parse_spec(spec: str) -> ComposeItem:
    """Parse one --mechanism string (module docstring)."""
    spec = spec.strip()
    if spec.startswith("rdp-curve:"):
        return ComposeItem(spec=spec, curve=RdpCurve.from_json(spec[len("rdp-curve:"):]))
    tokens = shlex.split(spec)
    if not tokens:
        raise ParameterError("--mechanism is empty; give a protocol, eps-delta or rdp-curve:FILE")
    name, flags = tokens[0], tokens[1:]
    if name == "eps-delta":
        p = _SpecParser(prog=name, add_help=False)
        p.add_argument("--epsilon", type=_float, required=True)
        p.add_argument("--delta", type=_float, required=True)
        args = p.parse_args(flags)
        EPSILON.check(args.epsilon)
        PROBABILITY.named("delta").check(args.delta)
        if args.delta >= 1:
            raise ParameterError(f"delta={args.delta!r} is outside [0, 1)")
        return ComposeItem(spec=spec, epsilon=args.epsilon, delta=args.delta)
    if name == "girgis-thm1":
        p = _SpecParser(prog=name, add_help=False)
        p.add_argument("--n", type=positive_int, required=True)
        p.add_argument("--epsilon0", type=_float, required=True)
        args = p.parse_args(flags)
        curve = RdpCurve.from_function(
            lambda a: girgis_2021.rdp_upper_thm1(alpha=int(a), epsilon0=args.epsilon0,
                                                 n=args.n),
            _GIRGIS_ORDERS, method=f"bounds.girgis_2021.rdp_upper_thm1(n={args.n}, "
                                   f"epsilon0={args.epsilon0})")
        return ComposeItem(spec=spec, curve=curve)
    return _protocol_mechanism(spec, name, flags)


def _protocol_mechanism(spec: str, name: str, flags: list[str]) -> ComposeItem:
    """A protocol from the registry table, built through its face into a contract
    `Mechanism`.

    A mechanism whose parameters name one neighbouring pair (binary-rr --ones) composes
    that pair's exact view (pair scope). Otherwise the item holds what holds for every
    dataset: the certified RDP upper bounds at sparse orders plus the max-divergence, and
    the dominating pair; the special pair's view is kept for lower ends only.

    Raises:
        ParameterError: unknown protocol, bad flags, or a protocol without a mechanism.
    """
    entry = next((e for e in PROTOCOLS if e.name == name), None)
    if entry is None:
        raise ParameterError(f"--mechanism protocol={name!r} is unknown (expected one of "
                             f"{', '.join(e.name for e in PROTOCOLS)}, eps-delta, "
                             "girgis-thm1 or rdp-curve:FILE)")
    face = protocol_spec(name)
    if face.mechanism is None:
        raise ParameterError(f"--mechanism protocol={name!r} has no mechanism to compose")
    p = _SpecParser(prog=name, add_help=False)
    face.add_arguments(p)
    mechanism = face.mechanism(p.parse_args(flags))
    view = mechanism.view_pair()
    if view is not None and mechanism.params().get("ones") is not None:
        pair = ", ".join(f"{k}={v}" for k, v in dict(view.description).items()
                         if not isinstance(v, dict | list))
        return ComposeItem(spec=spec, view=view, pair_only=pair)
    orders = _SPARSE_ORDERS + (math.inf,)
    results = [b.upper for b in mechanism.renyi(orders)]
    label = ", ".join(f"{k}={v}" for k, v in mechanism.params().items())
    curve = None
    if all(r is not None for r in results):
        curve = RdpCurve.from_results(results, method=f"protocols.{name}.renyi({label}) "
                                                      "upper bounds")
    return ComposeItem(spec=spec, curve=curve, lower_view=view,
                       dominating=mechanism.dominating_pair())


def _rdp_entries(mechanisms: list[ComposeItem], rounds: int, sampling_rate: float | None,
                 delta: float | None, epsilon: float | None) -> list[dict[str, Any]]:
    curves = []
    for m in mechanisms:
        curve = m.rdp_curve()
        if curve is None:
            return [{"method": "rdp", "skipped": f"{m.spec!r} has no certified RDP curve "
                                                 "((epsilon, delta>0)-DP, or its protocol "
                                                 "has no Renyi upper bound)"}]
        if sampling_rate is not None:
            # ZW19 is an add/remove theorem; the curves here are replace-one guarantees, so
            # the result is the heuristic pipeline of Girgis et al. (kind heuristic)
            curve = subsampling.poisson_subsampled(curve, sampling_rate=sampling_rate,
                                                   base_relation="replace-one")
        curves.append(curve.times(rounds))
    total = curves[0].compose(*curves[1:]) if len(curves) > 1 else curves[0]
    if delta is not None:
        _, results = conversion.epsilon_best(total, delta=delta)
    else:
        _, results = conversion.delta_best(total, epsilon=epsilon)
    names = ["rdp.mironov", "rdp.cks", "rdp.optimal"]
    return [{"method": name, "result": r} for name, r in zip(names, results, strict=True)]


def _dominating_source(dominating: DominatingPair) -> Any:
    """A pair the PLD engine composes, dominating every neighbouring pair: the contract's
    pair itself (a ViewPair or a clones-family pair), or for k-RR's N-revealing blanket pair
    the k-RR blanket pair of `accountant.pairs.clones`, which reveals more (docs/
    single-message.md#blanket-pairs-for-k-rr) and so dominates it too."""
    pair = dominating.pair
    if isinstance(pair, ViewPair | ClonePair):
        return pair
    if all(hasattr(pair, a) for a in ("n", "epsilon0", "k", "blanket_probability")):
        return clones.blanket_k_rr(n=pair.n, epsilon0=pair.epsilon0, k=pair.k)
    return None


def _subsampled_pld_entries(mechanisms: list[ComposeItem], rounds: int, rate: float,
                            relation: str, delta: float | None, epsilon: float | None,
                            discretization: float | None) -> list[dict[str, Any]]:
    """Poisson subsampling through the dominating clones-family pair of each protocol
    (`composition.subsampled`, docs/conversions.md#poisson-subsampling-of-a-shuffled-round):
    a certified mechanism upper end; no lower end (the special pair is not subsampled)."""
    sources = []
    for m in mechanisms:
        source = None if m.dominating is None else _dominating_source(m.dominating)
        if not isinstance(source, ClonePair):
            return [{"method": "pld", "skipped": f"{m.spec!r}: subsampled PLD needs a "
                                                 "protocol with a clones or blanket pair"}]
        sources.append((SubsampledPair(source, rate, relation), rounds))
    out = pld.compose_views(sources, delta=delta, epsilon=epsilon,
                            discretization=discretization)
    entry: dict[str, Any] = {"method": "pld.pessimistic", "result": out.upper,
                             "relation": relation, "discretization": out.discretization,
                             "relative_gap": out.relative_gap, "error_ledger": out.error}
    if out.lower is not None:
        entry["pair_lower"] = float(out.lower)
    return [entry]


def _pld_entries(mechanisms: list[ComposeItem], rounds: int, sampling_rate: float | None,
                 delta: float | None, epsilon: float | None,
                 discretization: float | None,
                 relation: str = "substitute") -> list[dict[str, Any]]:
    if sampling_rate is not None:
        return _subsampled_pld_entries(mechanisms, rounds, sampling_rate, relation, delta,
                                       epsilon, discretization)
    uppers: list[Any] = []
    lowers: list[Any] = []
    for m in mechanisms:
        view = m.pld_view()
        if view is not None:
            uppers.append(view)
            lowers.append(view if view.grid_exact else None)
            continue
        uppers.append(None if m.dominating is None else _dominating_source(m.dominating))
        lowers.append(m.lower_view if m.lower_view is not None and m.lower_view.grid_exact
                      else None)
    same = all(u is low for u, low in zip(uppers, lowers, strict=True))
    entries: list[dict[str, Any]] = []
    if all(u is not None for u in uppers):
        out = pld.compose_views([(u, rounds) for u in uppers], delta=delta, epsilon=epsilon,
                                discretization=discretization)
        entry: dict[str, Any] = {"method": "pld.pessimistic", "result": out.upper,
                                 "discretization": out.discretization,
                                 "relative_gap": out.relative_gap,
                                 "error_ledger": out.error}
        if out.lower is not None and not same:
            # the dominating pair's own certified lower end: how tight the numerics are,
            # not a lower bound on the mechanism
            entry["pair_lower"] = float(out.lower)
        entries.append(entry)
        if out.lower is not None and same:
            entries.append({"method": "pld.optimistic", "result": out.lower})
    else:
        entries.append({"method": "pld.pessimistic",
                        "skipped": "no pair dominating every neighbouring pair of "
                                   + ", ".join(repr(m.spec) for m, u in zip(
                                       mechanisms, uppers, strict=True) if u is None)})
    if not same and all(low is not None for low in lowers):
        out = pld.compose_views([(low, rounds) for low in lowers], delta=delta,
                                epsilon=epsilon, discretization=discretization)
        if out.lower is not None:
            # the optimistic value of one neighbouring pair: a lower bound on the mechanism
            entries.append({"method": "pld.special_pair.optimistic", "result": out.lower})
    return entries


def _kov_entries(mechanisms: list[ComposeItem], rounds: int, sampling_rate: float | None,
                 delta: float | None, epsilon: float | None) -> list[dict[str, Any]]:
    pairs = {(m.epsilon, m.delta) for m in mechanisms}
    if sampling_rate is not None or any(m.epsilon is None for m in mechanisms):
        return [{"method": "kov", "skipped": "KOV composes eps-delta mechanisms only, "
                                             "without subsampling"}]
    if len(pairs) > 1:
        return [{"method": "kov", "skipped": "heterogeneous (epsilon, delta): the exact "
                                             "optimum is #P-hard; see the pld entries"}]
    (e, d), = pairs
    k = rounds * len(mechanisms)
    entries = []
    if delta is not None:
        entries.append({"method": "kov", "result": kov.epsilon_kov(
            epsilon=e, delta=d, rounds=k, delta_total=delta)})
        try:
            entries.append({"method": "drv", "result": kov.epsilon_drv(
                epsilon=e, delta=d, rounds=k, delta_total=delta)})
        except AccountantError as exc:
            entries.append({"method": "drv", "skipped": str(exc)})
    else:
        entries.append({"method": "kov", "result": kov.delta_kov(
            epsilon=e, delta=d, rounds=k, epsilon_total=epsilon)})
        entries.append({"method": "drv", "result": kov.delta_drv(
            epsilon=e, delta=d, rounds=k, epsilon_total=epsilon)})
    return entries


def compose(specs: list[str], *, rounds: int, delta: float | None = None,
            epsilon: float | None = None, sampling_rate: float | None = None,
            method: str = "all", discretization: float | None = None,
            relation: str = "substitute") -> dict[str, Any]:
    """The compose command's JSON body (without "command").

    Args:
        specs: --mechanism strings.
        rounds: rounds of each mechanism.
        delta, epsilon: exactly one: where to read the other coordinate.
        sampling_rate: Poisson subsampling rate of users per round, or None.
        method: "rdp", "pld", "kov" or "all".
        discretization: PLD grid width (None: automatic).
        relation: neighbouring relation of subsampling: "substitute" or "add-remove".

    Returns:
        The JSON body: every method's entry, the tightest certified upper end and the
        best lower end, the scope, and a caveat when heuristic values are listed.

    Raises:
        ParameterError: a bad parameter or spec.
    """
    if relation not in RELATIONS:
        raise ParameterError(f"relation={relation!r} is outside {{{', '.join(RELATIONS)}}}")
    if (delta is None) == (epsilon is None):
        raise ParameterError("give exactly one of --at-delta and --at-epsilon")
    if delta is not None:
        DELTA.named("at-delta").check(delta)
    else:
        EPSILON.named("at-epsilon").check(epsilon)
    if sampling_rate is not None:
        PROBABILITY.named("sampling-rate").check(sampling_rate)
    ROUNDS.check(rounds)
    mechanisms = [parse_spec(s) for s in specs]
    entries: list[dict[str, Any]] = []
    if method in ("rdp", "all"):
        entries += _rdp_entries(mechanisms, rounds, sampling_rate, delta, epsilon)
    if method in ("pld", "all"):
        entries += _pld_entries(mechanisms, rounds, sampling_rate, delta, epsilon,
                                discretization, relation)
    if method in ("kov", "all"):
        entries += _kov_entries(mechanisms, rounds, sampling_rate, delta, epsilon)
    quantity = "epsilon" if delta is not None else "delta"
    body: dict[str, Any] = {
        "params": {"mechanisms": specs, "rounds": rounds, "sampling_rate": sampling_rate,
                   "relation": relation if sampling_rate is not None else None,
                   "method": method},
        "methods": [_entry_json(e) for e in entries],
    }
    results = [e["result"] for e in entries if "result" in e]
    body.update(_choose(results, quantity))
    other = "delta" if quantity == "epsilon" else "epsilon"
    body[other] = {"value": delta if delta is not None else epsilon, "kind": "exact"}
    pairs = [f"{m.spec!r}: {m.pair_only}" for m in mechanisms if m.pair_only]
    if pairs:
        # Upper bounds here hold for the named neighbouring pair only; they are lower
        # bounds on the mechanism unless that pair is the worst case.
        body["scope"] = {"guarantee": "pair", "pairs": pairs,
                         "note": "values are exact/upper bounds for these neighbouring pairs "
                                 "and lower bounds for the mechanism; drop --ones for a "
                                 "certified bound over every dataset"}
    else:
        body["scope"] = {"guarantee": "mechanism"}
    if any(r.kind is Kind.HEURISTIC for r in results):
        body["caveat"] = subsampling.POISSON_CAVEAT
    return body


def _choose(results: list[Result], quantity: str) -> dict[str, Any]:
    """The tightest sound upper (under `quantity`) and lower (`quantity_lower`) ends.

    HEURISTIC results never win; with no sound upper the upper end is the trivial one
    (epsilon = inf, delta = 1), which is always true.
    """
    out: dict[str, Any] = {}
    uppers = [r for r in results if r.kind in (Kind.EXACT, Kind.UPPER)]
    lowers = [r for r in results if r.kind in (Kind.EXACT, Kind.LOWER)]
    if uppers:
        exact = [r for r in uppers if r.kind is Kind.EXACT]
        best = exact[0] if exact else min(uppers, key=lambda r: float(r))
        out[quantity] = best.to_json()
    else:
        out[quantity] = {"value": "inf" if quantity == "epsilon" else 1.0, "kind": "upper",
                         "method": "no certified method applies (trivial bound)"}
    if lowers:
        exact = [r for r in lowers if r.kind is Kind.EXACT]
        best = exact[0] if exact else max(lowers, key=lambda r: float(r))
        out[f"{quantity}_lower"] = best.to_json()
    return out


def _entry_json(entry: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in entry.items() if k != "result"}
    if "result" in entry:
        r: Result = entry["result"]
        out.update(r.to_json())
        out["name"] = out.pop("method")
        out["method"] = entry["method"]
    return out


def _handler(args: argparse.Namespace) -> dict[str, Any]:
    return compose(args.mechanism, rounds=args.rounds, delta=args.at_delta,
                   epsilon=args.at_epsilon, sampling_rate=args.sampling_rate,
                   method=args.method, discretization=args.discretization,
                   relation=args.relation)


_ROUNDS = Interval("rounds", 1, 1e9, closed="both", integer=True)
_RATE = Interval("sampling-rate", 0.0, 1.0, closed="right")
_GRID = Interval("discretization", 0.0, 1.0, closed="right")


def register(subparsers: Any) -> None:
    """Add the `compose` command (discovered by `accountant.cli`)."""
    p = subparsers.add_parser("compose", help="compose mechanisms (RDP, PLD, KOV)")
    p.add_argument("--mechanism", action="append", required=True,
                   help='a protocol with flags ("binary-rr --n 10000 --epsilon0 1"), '
                        '"eps-delta --epsilon E --delta D", "girgis-thm1 --n N --epsilon0 E" '
                        'or rdp-curve:FILE; repeatable')
    p.add_argument("--rounds", type=integer(_ROUNDS), required=True,
                   help="how many times every --mechanism runs (an integer >= 1)")
    p.add_argument("--sampling-rate", type=real(_RATE), default=None,
                   help="Poisson subsampling rate of users per round, in (0, 1] (certified "
                        "through the dominating pair's PLD; the RDP entries are heuristic)")
    p.add_argument("--relation", choices=list(RELATIONS), default="substitute",
                   help="neighbouring relation for --sampling-rate (default substitute)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--at-delta", type=real(AT_DELTA),
                   help="report epsilon at this delta, in (0, 1)")
    g.add_argument("--at-epsilon", type=real(AT_EPSILON),
                   help="report delta at this epsilon, in [0, 700)")
    p.add_argument("--method", choices=["rdp", "pld", "kov", "all"], default="all",
                   help="accounting method(s): RDP curves, PLD convolution, KOV (default all)")
    p.add_argument("--discretization", type=real(_GRID), default=None,
                   help="PLD loss grid width in (0, 1] (default: refined until the pessimistic "
                        "and optimistic values are within 0.8%%)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_handler)
