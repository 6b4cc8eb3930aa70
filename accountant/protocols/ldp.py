"""Any epsilon0-LDP randomizer, shuffled: the clones pair (upper) and binary RR (lower).

MATH.md 7.1 (Feldman, McMillan, Talwar, "Hiding among the clones", FOCS 2021): for every
epsilon0-LDP randomizer and every neighbouring pair, the shuffled view is a
post-processing of the clones pair (`clone_pair.fmt_clones`), so every divergence of that
pair (delta(epsilon), epsilon(delta), Renyi of any real order > 1, max) is a certified
UPPER bound for the whole class. Binary randomized response is in the class, so the
exact value of its special pair (MATH 5.2) is a LOWER bound on the worst case over the
class; both are reported, so users see how tight the upper bound is.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from accountant.domains import ALPHA, DELTA, EPSILON, EPSILON0, N_PAIR
from accountant.protocols import binary_rr, clone_pair
from accountant.protocols.registry import ProtocolSpec
from accountant.result import Direction, Kind, Result, Source

__all__ = [
    "clones_pair",
    "epsilon_for_delta",
    "delta_for_epsilon",
    "renyi_divergence",
    "renyi_curve",
    "max_divergence",
    "CLI_SPEC",
]

_METHOD = "protocols.ldp"


def _check(n: Any, epsilon0: Any) -> tuple[int, float]:
    N_PAIR.check(n)
    EPSILON0.check(epsilon0)
    return int(n), float(epsilon0)


def clones_pair(*, n: int, epsilon0: float) -> clone_pair.ClonePair:
    """FMT20's clones pair for n users and epsilon0 (MATH 7.1)."""
    n, epsilon0 = _check(n, epsilon0)
    return clone_pair.fmt_clones(n=n, epsilon0=epsilon0)


def _lower_note(r: Result) -> Result:
    return r.with_(kind=Kind.LOWER, method=f"{_METHOD}: binary RR special pair "
                   f"(exact pair value, a lower bound on the class) via {r.method}",
                   source=Source(citation="MATH.md", locator="sec. 5.2 (binary RR in the class)"))


def epsilon_for_delta(*, n: int, epsilon0: float, delta: float) -> dict[str, Result]:
    """{"epsilon": clones UPPER, "epsilon_lower": binary RR special pair LOWER,
    "epsilon_clones_lower": the clones value's numerical lower end}."""
    n, epsilon0 = _check(n, epsilon0)
    DELTA.check(delta)
    out = clone_pair.epsilon_for_delta(clones_pair(n=n, epsilon0=epsilon0), delta=delta)
    lo, _ = binary_rr._special_epsilon(n, epsilon0, delta)
    return {"epsilon": out["epsilon"], "epsilon_lower": _lower_note(lo),
            "epsilon_clones_lower": out["epsilon_lower"]}


def delta_for_epsilon(*, n: int, epsilon0: float, epsilon: float) -> dict[str, Result]:
    """{"delta": clones UPPER, "delta_lower": binary RR special pair LOWER}."""
    n, epsilon0 = _check(n, epsilon0)
    EPSILON.check(epsilon)
    out = clone_pair.delta_for_epsilon(clones_pair(n=n, epsilon0=epsilon0), epsilon=epsilon)
    special = binary_rr.delta_for_epsilon(n=n, epsilon0=epsilon0, epsilon=epsilon, ones=0)
    return {"delta": out["delta"], "delta_lower": _lower_note(special["delta_lower"]),
            "delta_clones_lower": out["delta_lower"]}


def renyi_divergence(*, n: int, epsilon0: float, alpha: float) -> dict[str, Result]:
    """{"renyi": clones UPPER, "renyi_lower": binary RR special pair LOWER} at order alpha
    (real > 1, or inf for the max-divergence)."""
    n, epsilon0 = _check(n, epsilon0)
    ALPHA.check(alpha)
    if alpha == math.inf:
        r = max_divergence(n=n, epsilon0=epsilon0)
        return {"renyi": r, "renyi_lower": r}
    out = clone_pair.renyi_divergence(clones_pair(n=n, epsilon0=epsilon0), alpha=alpha)
    special = binary_rr.renyi_divergence(n=n, epsilon0=epsilon0, alpha=alpha, ones=0)
    return {"renyi": out["renyi"], "renyi_lower": _lower_note(special["renyi_lower"]),
            "renyi_clones_lower": out["renyi_lower"]}


def renyi_curve(*, n: int, epsilon0: float,
                alphas: list[float]) -> list[tuple[Result, Result]]:
    """(lower, upper) at many real orders > 1 in one pass: upper = the clones pair's
    certified upper end (valid for every epsilon0-LDP randomizer), lower = the binary-RR
    special pair's certified lower end (a randomizer of the class). For composition."""
    n, epsilon0 = _check(n, epsilon0)
    uppers = clone_pair.renyi_curve(clones_pair(n=n, epsilon0=epsilon0), alphas=alphas)
    lowers = binary_rr.special_pair_renyi(n=n, epsilon0=epsilon0, alphas=alphas)
    return [(_lower_note(low), up) for (low, _), (_, up) in zip(lowers, uppers, strict=True)]


def max_divergence(*, n: int, epsilon0: float) -> Result:
    """Pure epsilon of the class: exactly epsilon0 (the shuffled output post-processes n
    independent reports, one of which changes; binary RR attains it)."""
    _check(n, epsilon0)
    return Result(quantity="max_divergence", value=float(epsilon0), kind=Kind.EXACT,
                  direction=Direction.MAX, order=math.inf,
                  method=f"{_METHOD}.max_divergence (LDP post-processing; attained by "
                  "binary RR)", source=Source(citation="MATH.md", locator="sec. 5.2, 7.1"))


# ---------------------------------------------------------------- CLI
def _add_arguments(p: argparse.ArgumentParser) -> None:
    from accountant.cli import positive_int

    p.add_argument("--n", type=positive_int, required=True, help="number of users (>= 2)")
    p.add_argument("--epsilon0", type=float, required=True, help="local epsilon0 > 0")


def _params(args: argparse.Namespace) -> dict[str, Any]:
    return {"n": args.n, "epsilon0": args.epsilon0}


def _dp(args: argparse.Namespace) -> dict[str, Any]:
    if args.at_delta is not None:
        res = epsilon_for_delta(n=args.n, epsilon0=args.epsilon0, delta=args.at_delta)
        return {"params": _params(args) | {"delta": args.at_delta},
                **{key: r.to_json() for key, r in res.items()},
                "delta": {"value": args.at_delta, "kind": "exact"}}
    res = delta_for_epsilon(n=args.n, epsilon0=args.epsilon0, epsilon=args.at_epsilon)
    return {"params": _params(args) | {"epsilon": args.at_epsilon},
            **{key: r.to_json() for key, r in res.items()},
            "epsilon": {"value": args.at_epsilon, "kind": "exact"}}


def _rdp(args: argparse.Namespace) -> dict[str, Any]:
    for a in args.orders:
        ALPHA.check(a)
    finite = [a for a in args.orders if a != math.inf]
    curve = iter(renyi_curve(n=args.n, epsilon0=args.epsilon0, alphas=finite)
                 if finite else [])
    rows, lower = [], []
    for alpha in args.orders:
        if alpha == math.inf:
            low = up = max_divergence(n=args.n, epsilon0=args.epsilon0)
        else:
            low, up = next(curve)
        rows.append(up.to_json() | {"order": alpha})
        lower.append(low.to_json() | {"order": alpha})
    return {"params": _params(args), "renyi": rows, "renyi_lower": lower}


def _pure(args: argparse.Namespace) -> dict[str, Any]:
    return {"params": _params(args),
            "max_divergence": max_divergence(n=args.n, epsilon0=args.epsilon0).to_json()}


CLI_SPEC = ProtocolSpec(name="ldp", summary="any epsilon0-LDP randomizer (clones pair upper, "
                        "binary RR lower)", add_arguments=_add_arguments,
                        handlers={"dp": _dp, "rdp": _rdp, "pure": _pure})
