"""Any epsilon0-LDP randomizer, shuffled: the clones pair (upper) and binary RR (lower).

docs/clones-and-blankets.md#clones-pair (Feldman, McMillan, Talwar, "Hiding among the clones", FOCS
2021): for every
epsilon0-LDP randomizer and every neighbouring pair, the shuffled view is a
post-processing of the clones pair (`clone_pair.fmt_clones`), so every divergence of that
pair (delta(epsilon), epsilon(delta), Renyi of any real order > 1, max) is a certified
UPPER bound for the whole class. Binary randomized response is in the class, so the
exact value of its special pair (docs/single-message.md#binary-randomized-response) is a LOWER
bound on the worst case over the
class; both are reported, so users see how tight the upper bound is.
"""

from __future__ import annotations

import math

from accountant.domains import ALPHA, DELTA, EPSILON, EPSILON0, N_PAIR, checked, finite_orders
from accountant.pairs import clones as clone_pair
from accountant.protocols import binary_rr
from accountant.result import Bracket, Direction, Kind, Result, Source

__all__ = [
    "clones_pair",
    "epsilon_for_delta",
    "delta_for_epsilon",
    "renyi_divergence",
    "renyi_curve",
    "max_divergence",
]

_METHOD = "protocols.ldp"


@checked(n=N_PAIR, epsilon0=EPSILON0)
def clones_pair(*, n: int, epsilon0: float) -> clone_pair.ClonePair:
    """FMT20's clones pair for n users and epsilon0 (docs/clones-and-blankets.md#clones-pair).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' pure-DP parameter, > 0.

    Returns:
        The ClonePair of `pairs.clones.fmt_clones`.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    return clone_pair.fmt_clones.unchecked(n=n, epsilon0=epsilon0)


def _class_bracket(clones: Bracket, special_lower: Result) -> Bracket:
    """The class's Bracket: the clones pair's upper end (its own lower end as `pair_lower`),
    binary RR's special-pair lower end as the lower end."""
    return Bracket(lower=_lower_note(special_lower), upper=clones.upper,
                   pair_lower=clones.lower, pair_name="clones")


def _lower_note(r: Result) -> Result:
    return r.with_(kind=Kind.LOWER, method=f"{_METHOD}: binary RR special pair "
                   f"(exact pair value, a lower bound on the class) via {r.method}",
                   source=Source(citation="binary RR in the class",
                                 locator="docs/single-message.md#binary-randomized-response"))


@checked(n=N_PAIR, epsilon0=EPSILON0, delta=DELTA)
def epsilon_for_delta(*, n: int, epsilon0: float, delta: float) -> Bracket:
    """epsilon(delta) over every epsilon0-LDP randomizer: `upper` the clones pair's certified
    value (`pair_lower` its lower end), `lower` binary RR's special pair (in the class).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' pure-DP parameter, > 0.
        delta: target delta, in (0, 1).

    Returns:
        Bracket(lower, upper, pair_lower, pair_name="clones") of Results on "epsilon"
        (direction MAX); `lower` is relabelled LOWER with a binary-RR source.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0 = int(n), float(epsilon0)
    out = clone_pair.epsilon_for_delta.unchecked(clones_pair.unchecked(n=n, epsilon0=epsilon0),
                                                 delta=delta)
    lo, _ = binary_rr.special_epsilon_bracket.unchecked(n, epsilon0, delta)
    return _class_bracket(out, lo)


@checked(n=N_PAIR, epsilon0=EPSILON0, epsilon=EPSILON)
def delta_for_epsilon(*, n: int, epsilon0: float, epsilon: float) -> Bracket:
    """delta(epsilon), the Bracket of `epsilon_for_delta`'s shape.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' pure-DP parameter, > 0.
        epsilon: epsilon >= 0.

    Returns:
        Bracket(lower, upper, pair_lower, pair_name="clones") of Results on "delta".

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0 = int(n), float(epsilon0)
    out = clone_pair.delta_for_epsilon.unchecked(clones_pair.unchecked(n=n, epsilon0=epsilon0),
                                                 epsilon=epsilon)
    special = binary_rr.delta_for_epsilon.unchecked(n=n, epsilon0=epsilon0, epsilon=epsilon, ones=0)
    return _class_bracket(out, special.require_lower())


@checked(n=N_PAIR, epsilon0=EPSILON0, alpha=ALPHA)
def renyi_divergence(*, n: int, epsilon0: float, alpha: float) -> Bracket:
    """Renyi divergence at order alpha (real > 1, or inf for the max-divergence): `upper`
    the clones pair's, `lower` binary RR's special pair.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' pure-DP parameter, > 0.
        alpha: Renyi order in (1, inf]; inf gives `max_divergence` as both ends.

    Returns:
        Bracket(lower, upper, pair_lower, pair_name="clones") of Results on "renyi".

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0 = int(n), float(epsilon0)
    if alpha == math.inf:
        r = max_divergence.unchecked(n=n, epsilon0=epsilon0)
        return Bracket(lower=r, upper=r)
    out = clone_pair.renyi_divergence.unchecked(clones_pair.unchecked(n=n, epsilon0=epsilon0),
                                                alpha=alpha)
    special = binary_rr.renyi_divergence.unchecked(n=n, epsilon0=epsilon0, alpha=alpha, ones=0)
    return _class_bracket(out, special.require_lower())


@checked(n=N_PAIR, epsilon0=EPSILON0, alphas=finite_orders)
def renyi_curve(*, n: int, epsilon0: float,
                alphas: list[float]) -> list[tuple[Result, Result]]:
    """(lower, upper) at many real orders > 1 in one pass: upper = the clones pair's
    certified upper end (valid for every epsilon0-LDP randomizer), lower = the binary-RR
    special pair's certified lower end (a randomizer of the class). For composition.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' pure-DP parameter, > 0.
        alphas: Renyi orders, each a finite real > 1.

    Returns:
        One (LOWER, UPPER) pair of Results per order, in the order given.

    Raises:
        ParameterError: an argument is outside its domain (an infinite order included).
    """
    n, epsilon0 = int(n), float(epsilon0)
    uppers = clone_pair.renyi_curve.unchecked(clones_pair.unchecked(n=n, epsilon0=epsilon0),
                                              alphas=alphas)
    lowers = binary_rr.special_pair_renyi.unchecked(n=n, epsilon0=epsilon0, alphas=alphas)
    return [(_lower_note(low), up) for (low, _), (_, up) in zip(lowers, uppers, strict=True)]


@checked(n=N_PAIR, epsilon0=EPSILON0)
def max_divergence(*, n: int, epsilon0: float) -> Result:
    """Pure epsilon of the class: exactly epsilon0 (the shuffled output post-processes n
    independent reports, one of which changes; binary RR attains it).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' pure-DP parameter, > 0.

    Returns:
        Result(quantity="max_divergence", value=epsilon0, kind=EXACT, direction=MAX,
        order=inf).

    Raises:
        ParameterError: an argument is outside its domain.
    """
    return Result(quantity="max_divergence", value=float(epsilon0), kind=Kind.EXACT,
                  direction=Direction.MAX, order=math.inf,
                  method=f"{_METHOD}.max_divergence (LDP post-processing; attained by "
                  "binary RR)", source=Source(
                      citation="LDP post-processing; binary RR attains it",
                      locator="docs/clones-and-blankets.md#clones-pair"))
