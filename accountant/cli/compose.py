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
from accountant.cli.types import positive_int
from accountant.composition import conversion, kov, pld, subsampling
from accountant.composition.rdp import DEFAULT_ORDERS, ROUNDS, RdpCurve
from accountant.domains import DELTA, EPSILON, PROBABILITY
from accountant.errors import AccountantError, ParameterError
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
    """One parsed --mechanism: a view pair, an (epsilon, delta) pair or an RDP curve."""

    spec: str
    view: ViewPair | None = None
    epsilon: float | None = None
    delta: float | None = None
    curve: RdpCurve | None = None
    # None: a guarantee over every dataset; else the neighbouring pair the values are for
    pair_only: str | None = None

    def rdp_curve(self, orders: tuple[float, ...] = DEFAULT_ORDERS) -> RdpCurve | None:
        """The mechanism's RDP curve, or None when it has none ((eps, delta>0)-DP)."""
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
    `Mechanism`: its exact view pair when it has one (values for that neighbouring pair),
    else its certified RDP upper bounds at sparse orders plus the max-divergence."""
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
    if view is not None:
        pair = ", ".join(f"{k}={v}" for k, v in dict(view.description).items()
                         if not isinstance(v, dict | list))
        return ComposeItem(spec=spec, view=view, pair_only=pair)
    orders = _SPARSE_ORDERS + (math.inf,)
    results = [b.upper for b in mechanism.renyi(orders)]
    label = ", ".join(f"{k}={v}" for k, v in mechanism.params().items())
    return ComposeItem(spec=spec, curve=RdpCurve.from_results(
        results, method=f"protocols.{name}.renyi({label}) upper bounds"))


def _rdp_entries(mechanisms: list[ComposeItem], rounds: int, sampling_rate: float | None,
                 delta: float | None, epsilon: float | None) -> list[dict[str, Any]]:
    curves = []
    for m in mechanisms:
        curve = m.rdp_curve()
        if curve is None:
            return [{"method": "rdp", "skipped": f"{m.spec!r} is (epsilon, delta>0)-DP and "
                                                 f"has no finite RDP curve"}]
        if sampling_rate is not None:
            curve = subsampling.poisson_subsampled(curve, sampling_rate=sampling_rate)
        curves.append(curve.times(rounds))
    total = curves[0].compose(*curves[1:]) if len(curves) > 1 else curves[0]
    if delta is not None:
        _, results = conversion.epsilon_best(total, delta=delta)
    else:
        _, results = conversion.delta_best(total, epsilon=epsilon)
    names = ["rdp.mironov", "rdp.cks", "rdp.optimal"]
    return [{"method": name, "result": r} for name, r in zip(names, results, strict=True)]


def _pld_entries(mechanisms: list[ComposeItem], rounds: int, sampling_rate: float | None,
                 delta: float | None, epsilon: float | None,
                 discretization: float | None) -> list[dict[str, Any]]:
    if sampling_rate is not None:
        return [{"method": "pld", "skipped": "subsampled PLD composition is not implemented; "
                                             "use --method rdp"}]
    views = []
    for m in mechanisms:
        v = m.pld_view()
        if v is None:
            return [{"method": "pld", "skipped": f"{m.spec!r} is an RDP curve; PLD needs a "
                                                 f"view pair or (epsilon, delta)"}]
        views.append((v, rounds))
    out = pld.compose_views(views, delta=delta, epsilon=epsilon, discretization=discretization)
    entries = [{"method": "pld.pessimistic", "result": out.upper,
                "discretization": out.discretization, "relative_gap": out.relative_gap}]
    if out.lower is not None:
        entries.append({"method": "pld.optimistic", "result": out.lower})
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
            method: str = "all", discretization: float | None = None) -> dict[str, Any]:
    """The compose command's JSON body (without "command")."""
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
                                discretization)
    if method in ("kov", "all"):
        entries += _kov_entries(mechanisms, rounds, sampling_rate, delta, epsilon)
    sound = [e["result"] for e in entries
             if "result" in e and e["result"].kind in (Kind.EXACT, Kind.UPPER)]
    quantity = "epsilon" if delta is not None else "delta"
    body: dict[str, Any] = {
        "params": {"mechanisms": specs, "rounds": rounds, "sampling_rate": sampling_rate,
                   "method": method},
        "methods": [_entry_json(e) for e in entries],
    }
    if sound:
        exact = [r for r in sound if r.kind is Kind.EXACT]
        best = exact[0] if exact else min(sound, key=lambda r: float(r))
        body[quantity] = best.to_json()
    else:
        body[quantity] = {"value": math.inf if quantity == "epsilon" else 1.0,
                          "kind": "upper", "method": "no applicable method"}
    other = "delta" if quantity == "epsilon" else "epsilon"
    body[other] = {"value": delta if delta is not None else epsilon, "kind": "exact"}
    pairs = [f"{m.spec!r}: {m.pair_only}" for m in mechanisms if m.pair_only]
    if pairs:
        # Upper bounds here hold for the named neighbouring pair; they are mechanism-level
        # guarantees only if that pair is the worst case (for binary-rr: numerical evidence,
        # docs/single-message.md#binary-randomized-response, not a theorem). Say so instead of
        # letting "upper" read as certified.
        body["scope"] = {"guarantee": "pair", "pairs": pairs,
                         "note": "values are exact/upper bounds for these neighbouring pairs "
                                 "and lower bounds for the mechanism; for a certified bound "
                                 "over every dataset use 'ldp --n N --epsilon0 E' (clones pair)"}
    else:
        body["scope"] = {"guarantee": "mechanism"}
    if sampling_rate is not None:
        body["caveat"] = subsampling.POISSON_CAVEAT
    return body


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
                   method=args.method, discretization=args.discretization)


def register(subparsers: Any) -> None:
    """Add the `compose` command (discovered by `accountant.cli`)."""
    p = subparsers.add_parser("compose", help="compose mechanisms (RDP, PLD, KOV)")
    p.add_argument("--mechanism", action="append", required=True,
                   help='a protocol with flags ("binary-rr --n 10000 --epsilon0 1"), '
                        '"eps-delta --epsilon E --delta D", "girgis-thm1 --n N --epsilon0 E" '
                        'or rdp-curve:FILE; repeatable')
    p.add_argument("--rounds", type=positive_int, default=1)
    p.add_argument("--sampling-rate", type=float, default=None,
                   help="Poisson subsampling rate (RDP path; Zhu-Wang 2019, see caveat)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--at-delta", type=float, help="report epsilon at this delta")
    g.add_argument("--at-epsilon", type=float, help="report delta at this epsilon")
    p.add_argument("--method", choices=["rdp", "pld", "kov", "all"], default="all")
    p.add_argument("--discretization", type=float, default=None,
                   help="PLD loss grid width (default: refined until the pessimistic and "
                        "optimistic values are within 0.8%%)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_handler)
