"""Shuffled binary randomized response: the protocol front (MATH.md sec. 5.2).

The view pair of one count `ones` (how many of the other n-1 users hold a 1) and its
notation are in `binary_rr_view`; relabelling 0 <-> 1 maps the pair with `ones` to the pair
with n-1-ones, P and Q swapped, so the maximum over both orders only needs ones <= (n-1)/2.

This module is the protocol's front: the view pair (`binary_rr_view`), the all-counts pass
(`binary_rr_worst`) and the Renyi divergences (`binary_rr_renyi`) are re-exported here.

Mechanism level (ones=None): the worst case over all n counts, computed exactly (every
count's pair evaluated, certified; delta and epsilon through `binary_rr_worst`) for
n <= `EXACT_WORST_CASE_LIMIT` (Renyi: `RENYI_WORST_CASE_LIMIT`); beyond, the special
pair (a LOWER bound on the mechanism) and the blanket pair of MATH 5.4 (a certified UPPER
bound over all datasets) are both reported. MATH 5.2 calls the special pair the numerical
worst case; over every count it is not always (n = 80, eps0 = 1 and n = 1e5, eps0 = 1 at
delta = 1e-6: one or eight users holding the other bit give a slightly larger epsilon), so
the output names the count attaining the maximum.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from accountant.divergence import (
    delta_bracket,
    epsilon_bracket,
)
from accountant.domains import ALPHA, DELTA, EPSILON
from accountant.protocols import clone_pair
from accountant.protocols.binary_rr_renyi import (  # noqa: F401  (_cascade_sum: clone_pair)
    RENYI_WORST_CASE_LIMIT,
    _cascade_sum,
    max_divergence,
    renyi_curve,
    renyi_divergence,
    special_pair_renyi,
)

# the window helpers are also used by clone_pair, k_rr and k_rr_blanket through this module
from accountant.protocols.binary_rr_view import (  # noqa: F401
    _METHOD,
    _SOURCE,
    DEFAULT_TAIL,
    _check,
    _fast_window,
    _log_window,
    flip_probability,
    special_loss,
    view_pair,
)
from accountant.protocols.binary_rr_worst import worst_case_pairs
from accountant.protocols.registry import ProtocolSpec
from accountant.result import Direction, Kind, Result

__all__ = [
    "flip_probability",
    "special_loss",
    "view_pair",
    "worst_case_pairs",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "renyi_divergence",
    "max_divergence",
    "special_pair_renyi",
    "renyi_curve",
    "EXACT_WORST_CASE_LIMIT",
    "RENYI_WORST_CASE_LIMIT",
    "CLI_SPEC",
]

# Largest n for which ones=None maximises delta / epsilon over every count's pair
# (binary_rr_worst: about 1 s per delta evaluation at n = 1e5).
EXACT_WORST_CASE_LIMIT = 100_000
# Below this delta the all-counts pass (linear-space sums) cannot resolve a count's delta
# next to the float range's floor; the mechanism value falls back to the blanket bound.
WORST_CASE_DELTA_FLOOR = 1e-200


# ---------------------------------------------------------------- mechanism-level values
def _special_epsilon(n: int, epsilon0: float, delta: float) -> tuple[Result, Result]:
    view = view_pair(n=n, epsilon0=epsilon0, ones=0, tail=min(DEFAULT_TAIL, delta * 1e-12))
    return epsilon_bracket(view, delta)


def epsilon_for_delta(*, n: int, epsilon0: float, delta: float,
                      ones: int | None = None) -> dict[str, Result]:
    """epsilon(delta), maximum over both orders, for one count or the whole mechanism.

    Returns {"epsilon": UPPER Result, "epsilon_lower": LOWER Result} (a certified numerical
    bracket). ones=None: n <= EXACT_WORST_CASE_LIMIT evaluates every count's pair (the
    bracket is then of the mechanism's exact value); beyond, "epsilon_lower" is the special
    pair (a lower bound on the mechanism) and "epsilon" the blanket pair's certified upper
    bound over all datasets (MATH 5.4), with "epsilon_special" the special pair's bracket
    upper end for reference.
    """
    n, epsilon0, ones = _check(n, epsilon0, ones)
    DELTA.check(delta)
    out = _epsilon_for_delta(n, epsilon0, delta, ones)
    # every pair is epsilon0-DP (max-divergence epsilon0), so epsilon(delta) <= epsilon0
    return {key: (r.with_(value=min(float(r.value), epsilon0)) if r.kind is Kind.UPPER
                  else r) for key, r in out.items()}


def _epsilon_for_delta(n: int, epsilon0: float, delta: float,
                       ones: int | None) -> dict[str, Result]:
    if ones is not None:
        view = view_pair(n=n, epsilon0=epsilon0, ones=ones,
                         tail=min(DEFAULT_TAIL, delta * 1e-12))
        lo, hi = epsilon_bracket(view, delta)
        m = f"{_METHOD}.epsilon_for_delta(ones={ones})"
        return {"epsilon": hi.with_(method=m, source=_SOURCE),
                "epsilon_lower": lo.with_(method=m, source=_SOURCE)}
    lo, hi = _special_epsilon(n, epsilon0, delta)
    worst = _worst_case_epsilon(n, epsilon0, delta, (lo, hi)) \
        if n <= EXACT_WORST_CASE_LIMIT else None
    if worst is not None:
        worst_lo, worst_hi, at = worst
        m = f"{_METHOD}.epsilon_for_delta(worst case over all {n} counts, attained at "
        m += "ones=0 or n-1, the special pair)" if at == 0 else f"ones={at} or n-1-{at})"
        return {"epsilon": worst_hi.with_(method=m, source=_SOURCE),
                "epsilon_lower": worst_lo.with_(method=m, source=_SOURCE),
                "epsilon_special": hi.with_(method=f"{_METHOD}.epsilon_for_delta(special "
                                            "pair, numerical upper end)", source=_SOURCE)}
    blanket = clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)
    up = clone_pair.epsilon_for_delta(blanket, delta=delta)
    return {"epsilon": up["epsilon"],
            "epsilon_lower": lo.with_(method=f"{_METHOD}.epsilon_for_delta(special pair: a "
                                      "lower bound on the mechanism)", source=_SOURCE),
            "epsilon_special": hi.with_(method=f"{_METHOD}.epsilon_for_delta(special pair, "
                                        "numerical upper end)", source=_SOURCE)}


def _worst_case_epsilon(n: int, epsilon0: float, delta: float,
                        special: tuple[Result, Result]) -> tuple[Result, Result, int] | None:
    """(lower, upper, count attaining the upper) of the maximum of epsilon(delta) over all
    counts, starting from the special pair's bracket.

    Each round evaluates every count's delta at the current upper end (one fast pass); the
    counts above delta are the only ones whose epsilon can exceed it, and the largest of
    them are evaluated one by one. It stops when no count is above delta, so the upper end
    is certified for every count. None when it does not settle in a few rounds, or when
    delta is too small for the linear-space pass to resolve (below WORST_CASE_DELTA_FLOOR).
    """
    if delta < WORST_CASE_DELTA_FLOOR:
        return None
    best_lo, best_hi = special
    worst = 0
    done = {0}  # counts whose own epsilon bracket is known (count 0: the special pair)
    # the windows' residual is added to every count's delta: keep it far below delta
    tail = max(min(1e-16, delta * 1e-4), 1e-300)
    for _ in range(8):
        rows = worst_case_pairs(n=n, epsilon0=epsilon0, epsilon=float(best_hi), tail=tail)
        offenders = sorted((r for r in rows if r[2] > delta and r[0] not in done),
                           key=lambda r: -r[2])
        if not offenders:
            return best_lo, best_hi, worst
        for ones, _, _ in offenders[:8]:
            done.add(ones)
            view = view_pair(n=n, epsilon0=epsilon0, ones=ones,
                             tail=min(DEFAULT_TAIL, delta * 1e-12))
            lo, hi = epsilon_bracket(view, delta)
            if float(hi) > float(best_hi):
                best_hi, worst = hi, ones
            if float(lo) > float(best_lo):
                best_lo = lo
    return None


def delta_for_epsilon(*, n: int, epsilon0: float, epsilon: float,
                      ones: int | None = None) -> dict[str, Result]:
    """delta(epsilon), maximum over both orders; {"delta": UPPER, "delta_lower": LOWER}.

    ones=None as in `epsilon_for_delta`: exact maximum over counts for n <=
    EXACT_WORST_CASE_LIMIT, else the special pair (lower) and the blanket pair (upper).
    """
    n, epsilon0, ones = _check(n, epsilon0, ones)
    EPSILON.check(epsilon)
    if ones is not None or n > EXACT_WORST_CASE_LIMIT:
        view = view_pair(n=n, epsilon0=epsilon0, ones=0 if ones is None else ones)
        lo, hi = delta_bracket(view, epsilon)
        m = f"{_METHOD}.delta_for_epsilon(ones={0 if ones is None else ones})"
        out = {"delta": hi.with_(method=m, source=_SOURCE),
               "delta_lower": lo.with_(method=m, source=_SOURCE)}
        if ones is None:
            blanket = clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)
            out["delta_special"] = out["delta"]
            out["delta"] = clone_pair.delta_for_epsilon(blanket, epsilon=epsilon)["delta"]
        return out
    rows = worst_case_pairs(n=n, epsilon0=epsilon0, epsilon=epsilon)
    lo = max(r[1] for r in rows)
    hi = max(r[2] for r in rows)
    arg = max(rows, key=lambda r: r[2])[0]
    m = f"{_METHOD}.delta_for_epsilon(worst case over all {n} counts, attained at ones={arg})"
    mk = lambda v, kind: Result(quantity="delta", value=min(v, 1.0), kind=kind,  # noqa: E731
                                direction=Direction.MAX, method=m, source=_SOURCE, at=epsilon)
    return {"delta": mk(hi, Kind.UPPER), "delta_lower": mk(lo, Kind.LOWER)}


# ---------------------------------------------------------------- CLI
def _add_arguments(p: argparse.ArgumentParser) -> None:
    from accountant.cli import positive_int

    p.add_argument("--n", type=positive_int, required=True, help="number of users (>= 2)")
    p.add_argument("--epsilon0", type=float, required=True, help="local epsilon0 > 0")
    p.add_argument("--ones", type=positive_int_or_zero, default=None,
                   help="how many of the other n-1 users hold a 1 (default: worst case)")


def positive_int_or_zero(text: str) -> int:
    from accountant.cli import positive_int

    return positive_int(text)


def _params(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"n": args.n, "epsilon0": args.epsilon0}
    if args.ones is not None:
        out["ones"] = args.ones
    return out


def _json(results: dict[str, Result]) -> dict[str, Any]:
    return {k: v.to_json() for k, v in results.items()}


def _dp(args: argparse.Namespace) -> dict[str, Any]:
    if args.at_delta is not None:
        res = epsilon_for_delta(n=args.n, epsilon0=args.epsilon0, delta=args.at_delta,
                                ones=args.ones)
        return {"params": _params(args) | {"delta": args.at_delta}, **_json(res),
                "delta": {"value": args.at_delta, "kind": "exact"}}
    res = delta_for_epsilon(n=args.n, epsilon0=args.epsilon0, epsilon=args.at_epsilon,
                            ones=args.ones)
    return {"params": _params(args) | {"epsilon": args.at_epsilon}, **_json(res),
            "epsilon": {"value": args.at_epsilon, "kind": "exact"}}


def _rdp(args: argparse.Namespace) -> dict[str, Any]:
    finite = [a for a in args.orders if a != math.inf]
    for a in args.orders:
        ALPHA.check(a)
    curve = iter(renyi_curve(n=args.n, epsilon0=args.epsilon0, alphas=finite, ones=args.ones)
                 if finite else [])
    rows, lower = [], []
    for alpha in args.orders:
        if alpha == math.inf:
            low = up = max_divergence(n=args.n, epsilon0=args.epsilon0, ones=args.ones)
        else:
            low, up = next(curve)
        rows.append(up.to_json() | {"order": alpha})
        lower.append(low.to_json() | {"order": alpha})
    return {"params": _params(args), "renyi": rows, "renyi_lower": lower}


def _pure(args: argparse.Namespace) -> dict[str, Any]:
    r = max_divergence(n=args.n, epsilon0=args.epsilon0, ones=args.ones)
    return {"params": _params(args), "max_divergence": r.to_json()}


CLI_SPEC = ProtocolSpec(name="binary-rr", summary="shuffled binary randomized response",
                        add_arguments=_add_arguments,
                        handlers={"dp": _dp, "rdp": _rdp, "pure": _pure})
