"""`shuffle-accountant compose`: a thin face over `accountant.composition.accountant`
(docs/cli.md).

    shuffle-accountant compose --mechanism SPEC [--rounds T] [--mechanism SPEC [--rounds T]]
        [--sampling-rate Q] [--relation substitute|add-remove] (--at-delta D | --at-epsilon E)
        [--method analytic|pld|rdp|kov|all]

Each --mechanism takes the --rounds that follows it; one --rounds alone applies to every
mechanism. A SPEC is one string:
- a protocol of the registry table with its flags, e.g. "binary-rr --n 10000 --epsilon0 1",
  built through its face into the protocol's contract `Mechanism` (composed through its
  dominating pair: values for every dataset). With `--ones` (a flag that names one
  neighbouring pair) the pair's exact view is composed instead (the output's "scope" says
  the values are that pair's);
- "eps-delta --epsilon E --delta D": a generic (epsilon, delta)-DP mechanism (KOV pair);
- "gaussian --noise-multiplier S", "laplace --noise-multiplier B": dp_accounting's Gaussian
  and Laplace events (noise over sensitivity);
- "girgis-thm1 --n N --epsilon0 E": the RDP curve of Girgis et al. 2021 Thm 1 (integer orders);
- "rdp-curve:FILE": a JSON RDP curve (`RdpCurve.from_json`).

--sampling-rate subsamples every mechanism. The JSON lists every route's value under
"methods" and the bracket's certified upper end under "epsilon" / "delta" (lower end under
"epsilon_lower" / "delta_lower").
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from accountant.bounds import girgis_2021
from accountant.cli import types
from accountant.cli.registry import protocol_entries, protocol_spec
from accountant.cli.types import AT_DELTA, AT_EPSILON, TARGET_EPSILON, USERS, integer, real
from accountant.cli.types import EPSILON0 as EPSILON0_CLI
from accountant.composition import calibration, subsampling
from accountant.composition.accountant import (
    ROUTES,
    Accountant,
    EpsilonDelta,
    GaussianNoise,
    LaplaceNoise,
    SampledWithoutReplacement,
    Subsampled,
)
from accountant.composition.rdp import RdpCurve
from accountant.composition.subsampled import RELATIONS
from accountant.domains import EPSILON, PROBABILITY, Interval
from accountant.errors import ParameterError
from accountant.result import Result
from accountant.view import ViewPair

__all__ = ["register", "register_calibrate", "parse_spec", "compose", "calibrate_compose",
           "METHODS"]

# the accountant's routes, from its one list, and "all" (the tightest of those that apply)
METHODS = (*ROUTES, "all")
_GIRGIS_ORDERS = tuple(float(a) for a in range(2, 65))


class _SpecParser(argparse.ArgumentParser):
    """Raises ParameterError (exit 2, one line) instead of printing usage and exiting; flags
    only as spelled (no abbreviations, as on the command line itself)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        types.reject_repeats(self, sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ParameterError(f"--mechanism {self.prog!r}: {message}")


def _float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def parse_spec(spec: str) -> tuple[Any, str | None]:
    """Parse one --mechanism string (module docstring).

    Args:
        spec: the string.

    Returns:
        (event for `Accountant.compose`, None or the neighbouring pair the values are for).

    Raises:
        ParameterError: an empty, unknown or malformed spec.
    """
    spec = spec.strip()
    if spec.startswith("rdp-curve:"):
        return RdpCurve.from_json(spec[len("rdp-curve:"):]), None
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
        return EpsilonDelta(args.epsilon, args.delta), None
    if name in ("gaussian", "laplace"):
        p = _SpecParser(prog=name, add_help=False)
        p.add_argument("--noise-multiplier", type=_float, required=True)
        args = p.parse_args(flags)
        cls = GaussianNoise if name == "gaussian" else LaplaceNoise
        return cls(args.noise_multiplier), None
    if name == "girgis-thm1":
        p = _SpecParser(prog=name, add_help=False)
        p.add_argument("--n", type=integer(USERS), required=True)
        p.add_argument("--epsilon0", type=real(EPSILON0_CLI), required=True)
        args = p.parse_args(flags)
        curve = RdpCurve.from_function(
            lambda a: girgis_2021.rdp_upper_thm1(alpha=int(a), epsilon0=args.epsilon0,
                                                 n=args.n),
            _GIRGIS_ORDERS, method=f"bounds.girgis_2021.rdp_upper_thm1(n={args.n}, "
                                   f"epsilon0={args.epsilon0})")
        return curve, None
    return _protocol_event(name, flags)


def _protocol_event(name: str, flags: list[str]) -> tuple[Any, str | None]:
    """A protocol from the registry table, built through its face into a contract
    `Mechanism`; with parameters that name one neighbouring pair (binary-rr --ones), that
    pair's exact view (pair scope).

    Raises:
        ParameterError: unknown protocol, bad flags, or a protocol without a mechanism.
    """
    entry = next((e for e in protocol_entries() if e.name == name), None)
    if entry is None:
        names = ", ".join(e.name for e in protocol_entries())
        raise ParameterError(f"--mechanism protocol={name!r} is unknown (expected one of "
                             f"{names}, eps-delta, gaussian, laplace, girgis-thm1 or "
                             "rdp-curve:FILE)")
    face = protocol_spec(name)
    if face.mechanism is None:
        raise ParameterError(f"--mechanism protocol={name!r} has no mechanism to compose")
    p = _SpecParser(prog=name, add_help=False)
    face.add_arguments(p)
    mechanism = face.mechanism(p.parse_args(flags))
    # the view only where a dataset was given (k-RR's special pair at n = 1e5, k = 4: 1.6e7
    # atoms, 15 s, built here for nothing before)
    view = mechanism.view_pair() if mechanism.one_pair() else None
    if view is not None:
        pair = ", ".join(f"{k}={v}" for k, v in dict(view.description).items()
                         if not isinstance(v, dict | list))
        return view, pair
    return mechanism, None


def _rounds_per_spec(specs: Sequence[str], rounds: int | Sequence[int]) -> list[int]:
    """One --rounds for all, or one per --mechanism (in order)."""
    given = [rounds] if isinstance(rounds, int) else list(rounds)
    if len(given) == 1:
        given = given * len(specs)
    if len(given) != len(specs):
        raise ParameterError(f"--rounds is given {len(given)} times for {len(specs)} "
                             "--mechanism; give one --rounds for all, or one after each "
                             "--mechanism")
    return [int(r) if isinstance(r, int | float) and float(r).is_integer() else r
            for r in given]


def compose(specs: list[str], *, rounds: int | Sequence[int], delta: float | None = None,
            epsilon: float | None = None, sampling_rate: float | None = None,
            method: str = "all", discretization: float | None = None,
            relation: str = "substitute",
            batch: tuple[int, int] | None = None) -> dict[str, Any]:
    """The compose command's JSON body (without "command"): the `Accountant`'s report.

    Args:
        specs: --mechanism strings.
        rounds: rounds of every mechanism, or one count per spec.
        delta, epsilon: exactly one: where to read the other coordinate.
        sampling_rate: Poisson subsampling rate of users per round, or None.
        method: "analytic", "pld", "rdp", "kov" or "all".
        discretization: PLD grid width (None: automatic).
        relation: neighbouring relation: "substitute" or "add-remove".
        batch: (sample size, dataset size) of sampling without replacement (Gaussian
            mechanisms, substitution), or None.

    Returns:
        The JSON body: every route's entry, the bracket's certified upper end and lower
        end, the scope, and a caveat when heuristic values are listed.

    Raises:
        ParameterError: a bad parameter or spec, or method "analytic" with a mechanism
            it does not compose (anything but unsampled Gaussian events, or one Laplace run).
    """
    if relation not in RELATIONS:
        raise ParameterError(f"relation={relation!r} is outside {{{', '.join(RELATIONS)}}}")
    if method not in METHODS:
        raise ParameterError(f"method={method!r} is outside {{{', '.join(METHODS)}}}")
    if (delta is None) == (epsilon is None):
        raise ParameterError("give exactly one of --at-delta and --at-epsilon")
    # delta, epsilon, the rate and the rounds are checked once, where they enter the
    # library: Accountant.report, Subsampled and Accountant.compose
    counts = _rounds_per_spec(specs, rounds)
    if batch is not None and sampling_rate is not None:
        raise ParameterError("--sample-size/--dataset-size (sampling without replacement) "
                             "and --sampling-rate (Poisson) exclude each other")
    accountant, pairs = _ledger(specs, counts, sampling_rate, relation, batch)
    report = accountant.report(delta=delta, epsilon=epsilon, method=method,
                               discretization=discretization)
    if method == "analytic" and not any("result" in e for e in report.entries):
        # asked for a route that does not apply: a contradictory flag set, not an answer
        # of epsilon = inf
        why = "; ".join(str(e.get("skipped", "no value")) for e in report.entries)
        raise ParameterError(f"--method analytic does not apply to these --mechanism "
                             f"specs ({why}); use --method pld, rdp, kov or all")
    quantity = report.quantity
    body: dict[str, Any] = {
        "params": {"mechanisms": list(specs),
                   "rounds": counts[0] if len(set(counts)) == 1 else counts,
                   "sampling_rate": sampling_rate, "relation": relation, "method": method,
                   **({"sample_size": batch[0], "dataset_size": batch[1]} if batch else {})},
        "methods": [_entry_json(e) for e in report.entries],
    }
    body.update(report.bracket.json_items(quantity))
    other = "delta" if quantity == "epsilon" else "epsilon"
    body[other] = {"value": report.at, "kind": "exact"}
    if pairs:
        # Upper bounds here hold for the named neighbouring pair only; they are lower
        # bounds on the mechanism unless that pair is the worst case.
        body["scope"] = {"guarantee": "pair", "pairs": pairs,
                         "note": "values are exact/upper bounds for these neighbouring pairs "
                                 "and lower bounds for the mechanism; drop --ones for a "
                                 "certified bound over every dataset"}
    else:
        body["scope"] = {"guarantee": "mechanism"}
    if report.heuristic:
        body["caveat"] = subsampling.POISSON_CAVEAT
    return body


def _ledger(specs: Sequence[str], counts: Sequence[int], sampling_rate: float | None,
            relation: str,
            batch: tuple[int, int] | None = None) -> tuple[Accountant, list[str]]:
    """The ledger of the --mechanism specs, and the neighbouring pairs named by --ones."""
    accountant = Accountant(neighboring=relation)
    pairs = []
    for spec, count in zip(specs, counts, strict=True):
        try:
            event, pair = parse_spec(spec)
        except ParameterError as exc:  # name the flag and the spec the error is about
            text = str(exc)
            raise ParameterError(text if text.startswith("--mechanism") else
                                 f"--mechanism {spec!r}: {text}") from None
        if pair is not None:
            pairs.append(f"{spec!r}: {pair}")
        if sampling_rate is not None:
            if isinstance(event, ViewPair):
                raise ParameterError(f"--mechanism {spec!r} names one neighbouring pair, "
                                     "which cannot be subsampled; drop --ones")
            event = Subsampled(event, sampling_rate)
        if batch is not None:
            if not isinstance(event, GaussianNoise):
                raise ParameterError(f"--mechanism {spec!r}: sampling without replacement "
                                     "(--sample-size) is supported for gaussian only")
            event = SampledWithoutReplacement(event, *batch)
        accountant.compose(event, count)
    return accountant, pairs


# ------------------------------------------------------------------ calibrate compose
# the parameters `calibrate compose` solves for: (epsilon grows with it, integer, default
# search interval); any other flag given as ? is refused
_FREE: dict[str, tuple[bool, bool, tuple[float, float]]] = {
    "--noise-multiplier": (False, False, (0.1, 1000.0)),  # below 0.1: minutes per point
    "--epsilon0": (True, False, (1e-3, 50.0)),
    "--epsilon": (True, False, (1e-6, 50.0)),
    "--n": (False, True, (2.0, 1e9)),
    # (1e6 rounds of a view cost minutes and GiBs in the PLD route today: issue 21)
    "--rounds": (True, True, (1.0, 1e5)),
    "--sampling-rate": (True, False, (1e-6, 1.0)),
    # the noise randomizers' sigma and Laplace scale (within every such family's domain)
    "--sigma": (False, False, (0.1, 100.0)),
    "--scale": (False, False, (0.02, 1e4)),
}
FREE = "?"
# the integer parameters' ranges on the command line (compose's --rounds, a pair's --n)
_INTEGER_RANGE = {"--rounds": (1.0, 1e9), "--n": (2.0, 1e10)}


def calibrate_compose(specs: list[str], *, rounds: Sequence[str], sampling_rate: str | None,
                      relation: str, target_epsilon: float, target_delta: float,
                      search: tuple[float, float] | None = None) -> dict[str, Any]:
    """`calibrate compose`: the one parameter written as `?` (a --mechanism flag, --rounds or
    --sampling-rate) nearest the boundary of the target whose certified epsilon(delta) is
    <= target_epsilon (`composition.calibrate`, bisection on certified brackets).

    Args:
        specs: --mechanism strings; exactly one `?` among them and the other two flags.
        rounds: --rounds values as given (integers or `?`).
        sampling_rate: --sampling-rate as given, or None.
        relation: the neighbouring relation.
        target_epsilon, target_delta: the target.
        search: the search interval, or None for the parameter's default (`_FREE`).

    Returns:
        The JSON body: the calibrated parameter, its certified bracket, and the parameter
        nearest it at which the target is certainly missed.

    Raises:
        ParameterError: no `?`, several, or one on a flag that cannot be calibrated.
        RegimeError: even the safest end of the search interval misses the target.
    """
    tokens = [(i, shlex.split(spec)) for i, spec in enumerate(specs)]
    places = [(i, j) for i, words in tokens for j, w in enumerate(words) if w == FREE]
    where = (["--rounds"] * sum(r == FREE for r in rounds)
             + (["--sampling-rate"] if sampling_rate == FREE else []))
    if len(places) + len(where) != 1:
        raise ParameterError(f"write exactly one parameter as {FREE!r} (a --mechanism flag, "
                             f"--rounds or --sampling-rate); found {len(places) + len(where)}")
    flag = where[0] if where else tokens[places[0][0]][1][places[0][1] - 1]
    if flag not in _FREE:
        raise ParameterError(f"{flag} {FREE}: cannot be calibrated (one of "
                             f"{', '.join(_FREE)})")
    increasing, integer_valued, default = _FREE[flag]
    lo, hi = search if search is not None else default
    if flag in _INTEGER_RANGE:
        least, most = _INTEGER_RANGE[flag]
        if not least <= lo < hi <= most:
            # (an interval reaching below 1 once failed as "rounds=0 is outside [1, 1e12]")
            raise ParameterError(f"--search {lo:g},{hi:g}: {flag} {FREE} searches integers "
                                 f"in [{least:g}, {most:g}]")
    if flag == "--sampling-rate":
        hi = min(hi, 1.0)

    def text(value: float) -> str:
        return str(int(round(value))) if integer_valued else repr(float(value))

    def build(value: float) -> Accountant:
        new_specs = list(specs)
        if places:
            i, j = places[0]
            words = list(tokens[i][1])
            words[j] = text(value)
            new_specs[i] = shlex.join(words)
        counts = [int(round(value)) if r == FREE else int(r) for r in rounds]
        counts = _rounds_per_spec(new_specs, counts)
        rate = (value if sampling_rate == FREE else
                None if sampling_rate is None else float(sampling_rate))
        return _ledger(new_specs, counts, rate, relation)[0]

    found = calibration.calibrate(build, lo=lo, hi=hi, target_epsilon=target_epsilon,
                                  delta=target_delta, increasing=increasing,
                                  integer=integer_valued)
    body: dict[str, Any] = {
        "params": {"mechanisms": list(specs), "rounds": list(rounds),
                   "sampling_rate": sampling_rate, "relation": relation,
                   "target_epsilon": target_epsilon, "target_delta": target_delta,
                   "search": [lo, hi]},
        "calibrated": {"flag": flag, "value": float(found.value),
                       "kind": "calibrated",
                       "note": "the certified epsilon(delta) here is <= the target"},
        "missed": {"value": found.missed, "kind": "calibrated",
                   "note": "the nearest value tried whose certified lower end exceeds the "
                           "target (None: none was)"},
        "evaluations": found.evaluations,
    }
    body.update(found.bracket.json_items("epsilon"))
    body["scope"] = {"guarantee": "mechanism"}
    return body


def _search(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO,HI, got {text!r}") from None
    if not (0 < lo < hi < math.inf):
        raise argparse.ArgumentTypeError(f"--search {text!r}: need 0 < LO < HI < inf")
    return lo, hi


def _rounds_or_free(text: str) -> str:
    if text == FREE:
        return text
    integer(_ROUNDS)(text)
    return text


def _rate_or_free(text: str) -> str:
    if text == FREE:
        return text
    real(_RATE)(text)
    return text


def _calibrate_handler(args: argparse.Namespace) -> dict[str, Any]:
    return calibrate_compose(args.mechanism, rounds=args.rounds,
                             sampling_rate=args.sampling_rate, relation=args.relation,
                             target_epsilon=args.target_epsilon,
                             target_delta=args.target_delta, search=args.search)


def register_calibrate(p: argparse.ArgumentParser) -> None:
    """The flags of `calibrate compose` (added under `calibrate` by `accountant.cli`)."""
    p.add_argument("--mechanism", action="append", required=True,
                   help="as for compose; one flag may be written ? (e.g. \"gaussian "
                        "--noise-multiplier ?\", \"ldp --n 100000 --epsilon0 ?\", "
                        "\"gaussian-randomizer --n 10000 --sigma ?\")")
    p.add_argument("--rounds", type=_rounds_or_free, action="append", required=True,
                   help="as for compose, or ? to find the most rounds within the target")
    p.add_argument("--sampling-rate", type=_rate_or_free, default=None,
                   help="as for compose, or ? to find the largest rate within the target")
    p.add_argument("--relation", choices=list(RELATIONS), default="substitute",
                   help="neighbouring relation (default substitute)")
    p.add_argument("--target-epsilon", type=real(TARGET_EPSILON), required=True,
                   help="the epsilon to meet, in [1e-150, 700)")
    p.add_argument("--target-delta", type=real(AT_DELTA.named("target-delta")),
                   required=True, help="the delta to meet, in (0, 1)")
    p.add_argument("--search", type=_search, default=None,
                   help="LO,HI: the interval searched (default by parameter: noise "
                        "multiplier 0.1,1000; epsilon0 0.001,50; n 2,1e9; rounds 1,1e5; "
                        "sampling rate 1e-6,1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_calibrate_handler)


def _entry_json(entry: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in entry.items() if k not in ("result", "pair_lower_result")}
    if "result" in entry:
        r: Result = entry["result"]
        out.update(r.to_json())
        out["name"] = out.pop("method")
        out["method"] = entry["method"]
    return out


def _handler(args: argparse.Namespace) -> dict[str, Any]:
    if args.discretization is not None and args.method not in ("pld", "all"):
        raise ParameterError(f"--discretization sets the PLD grid; it does not apply to "
                             f"--method {args.method} (use --method pld or all)")
    if (args.sample_size is None) != (args.dataset_size is None):
        raise ParameterError("--sample-size and --dataset-size go together (sampling "
                             "without replacement of sample-size of dataset-size records)")
    batch = None if args.sample_size is None else (args.sample_size, args.dataset_size)
    return compose(args.mechanism, rounds=args.rounds, delta=args.at_delta,
                   epsilon=args.at_epsilon, sampling_rate=args.sampling_rate,
                   method=args.method, discretization=args.discretization,
                   relation=args.relation, batch=batch)


_ROUNDS = Interval("rounds", 1, 1e9, closed="both", integer=True)
_RATE = Interval("sampling-rate", 0.0, 1.0, closed="right")
_GRID = Interval("discretization", 0.0, 1.0, closed="right")
_BATCH = Interval("records", 1, 1e12, closed="both", integer=True)


def register(subparsers: Any) -> None:
    """Add the `compose` command (discovered by `accountant.cli`)."""
    p = subparsers.add_parser("compose", help="compose mechanisms (RDP, PLD, KOV)")
    p.add_argument("--mechanism", action="append", required=True,
                   help='a protocol with flags ("binary-rr --n 10000 --epsilon0 1"), '
                        '"eps-delta --epsilon E --delta D", "gaussian --noise-multiplier S", '
                        '"laplace --noise-multiplier B", "girgis-thm1 --n N --epsilon0 E" '
                        'or rdp-curve:FILE; repeatable')
    p.add_argument("--rounds", type=integer(_ROUNDS), action="append", required=True,
                   help="how many times the preceding --mechanism runs (an integer >= 1); "
                        "one --rounds alone applies to every --mechanism")
    p.add_argument("--sampling-rate", type=real(_RATE), default=None,
                   help="Poisson subsampling rate of users per round, in (0, 1] (certified "
                        "through a dominating pair's PLD or each round's (epsilon, delta) "
                        "class, docs/conversions.md; the RDP entries are heuristic)")
    p.add_argument("--sample-size", type=integer(_BATCH.named("sample-size")), default=None,
                   help="sampling without replacement: records per round (with "
                        "--dataset-size; gaussian mechanisms, --relation substitute)")
    p.add_argument("--dataset-size", type=integer(_BATCH.named("dataset-size")),
                   default=None, help="sampling without replacement: records in the dataset")
    p.add_argument("--relation", choices=list(RELATIONS), default="substitute",
                   help="neighbouring relation (default substitute)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--at-delta", type=real(AT_DELTA),
                   help="report epsilon at this delta, in (0, 1)")
    g.add_argument("--at-epsilon", type=real(AT_EPSILON),
                   help="report delta at this epsilon, in [0, 700)")
    p.add_argument("--method", choices=list(METHODS), default="all",
                   help="accounting route(s): analytic (Gaussian, one Laplace run, one run of a "
                        "protocol), PLD convolution, RDP curves, KOV (eps-delta events, "
                        "and members of a certified (eps, delta) class) (default all)")
    p.add_argument("--discretization", type=real(_GRID), default=None,
                   help="PLD loss grid width in (0, 1] (default: refined until the pessimistic "
                        "and optimistic values are within 0.8%%)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_handler)
