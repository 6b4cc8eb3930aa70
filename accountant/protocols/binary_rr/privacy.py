"""Shuffled binary randomized response: the protocol front
(docs/single-message.md#binary-randomized-response).

The view pair of one count `ones` (how many of the other n-1 users hold a 1) and its
notation are in `binary_rr.view`; relabelling 0 <-> 1 maps the pair with `ones` to the pair
with n-1-ones, P and Q swapped, so the maximum over both orders only needs ones <= (n-1)/2.

This module is the protocol's front: the view pair (`binary_rr.view`), the all-counts pass
(`binary_rr.worst`) and the Renyi divergences (`binary_rr.renyi`) are re-exported here.

Mechanism level (ones=None): the worst case over all n counts, computed exactly (every
count's pair evaluated, certified; delta and epsilon through `binary_rr.worst`) for
n <= `EXACT_WORST_CASE_LIMIT` (Renyi: `RENYI_WORST_CASE_LIMIT`); beyond, the special
pair (a LOWER bound on the mechanism) and the blanket pair of
docs/single-message.md#blanket-pairs-for-k-rr (a certified UPPER
bound over all datasets) are both reported. docs/single-message.md#binary-randomized-response calls
the special pair the numerical
worst case; over every count it is not always (n = 80, eps0 = 1 and n = 1e5, eps0 = 1 at
delta = 1e-6: one or eight users holding the other bit give a slightly larger epsilon), so
the output names the count attaining the maximum.
"""

from __future__ import annotations

from accountant.divergence import (
    delta_bracket,
    epsilon_bracket,
)
from accountant.domains import DELTA, EPSILON, EPSILON0, N_PAIR, checked
from accountant.pairs import clones as clone_pair
from accountant.protocols.binary_rr.view import (
    DEFAULT_TAIL,
    METHOD,
    ONES,
    SOURCE,
    as_checked,
    view_pair,
)
from accountant.protocols.binary_rr.worst import worst_case_pairs
from accountant.result import Bracket, Direction, Kind, Result

__all__ = [
    "delta_for_epsilon",
    "epsilon_for_delta",
    "special_epsilon_bracket",
    "EXACT_WORST_CASE_LIMIT",
    "WORST_CASE_DELTA_FLOOR",
]

# Largest n for which ones=None maximises delta / epsilon over every count's pair
# (binary_rr.worst: about 1 s per delta evaluation at n = 1e5).
EXACT_WORST_CASE_LIMIT = 100_000
# Below this delta the all-counts pass (linear-space sums) cannot resolve a count's delta
# next to the float range's floor; the mechanism value falls back to the blanket bound.
WORST_CASE_DELTA_FLOOR = 1e-200


# ---------------------------------------------------------------- mechanism-level values

def _tail_for(delta: float) -> float:
    """The special pair's window tail at a target delta: 1e-12 delta, at most DEFAULT_TAIL;
    never below the least subnormal (delta * 1e-12 underflows to 0 for delta < 5e-312; the
    outside mass is certified and added whatever the window, so a wider target only costs
    tightness)."""
    return max(min(DEFAULT_TAIL, delta * 1e-12), 5e-324)

@checked(n=N_PAIR, epsilon0=EPSILON0, delta=DELTA)
def special_epsilon_bracket(n: int, epsilon0: float, delta: float) -> tuple[Result, Result]:
    """Certified (lower, upper) epsilon(delta) of the special pair (ones = 0), both orders.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizer's epsilon0, > 0.
        delta: target delta, in (0, 1).

    Returns:
        (LOWER, UPPER) Results from `divergence.epsilon_bracket` on the float special pair
        with window tail `_tail_for(delta)`; method
        "divergence.hockey_stick.epsilon_bracket", no source. The special pair's value is a
        lower bound on the mechanism's.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    view = view_pair.unchecked(n=int(n), epsilon0=float(epsilon0), ones=0,
                               tail=_tail_for(delta))
    return epsilon_bracket.unchecked(view, delta)


@checked(n=N_PAIR, epsilon0=EPSILON0, delta=DELTA, ones=ONES)
def epsilon_for_delta(*, n: int, epsilon0: float, delta: float,
                      ones: int | None = None) -> Bracket:
    """epsilon(delta), maximum over both orders, for one count or the whole mechanism.

    Args:
        n: number of users, >= 2.
        epsilon0: the local randomizer's epsilon0 > 0.
        delta: in (0, 1).
        ones: how many of the other n-1 users hold a 1; None for the worst case.

    Returns:
        A certified numerical Bracket. ones=None: n <= EXACT_WORST_CASE_LIMIT evaluates every
        count's pair (the bracket is then of the mechanism's exact value, `special` the
        special pair's upper end for reference); beyond, `lower` is the special pair (a
        lower bound on the mechanism) and `upper` the blanket pair's certified upper bound
        over all datasets (docs/single-message.md). The blanket route is also taken for
        n <= EXACT_WORST_CASE_LIMIT when delta < WORST_CASE_DELTA_FLOOR or when the
        all-counts search does not settle in 8 rounds. UPPER ends are capped at epsilon0.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, ones = as_checked(n, epsilon0, ones)
    out = _epsilon_for_delta(n, epsilon0, delta, ones)

    # every pair is epsilon0-DP (max-divergence epsilon0), so epsilon(delta) <= epsilon0
    def cap(r: Result | None) -> Result | None:
        if r is None or r.kind is not Kind.UPPER:
            return r
        return r.with_(value=min(float(r.value), epsilon0))

    return Bracket(lower=cap(out.lower), upper=cap(out.upper), special=cap(out.special))


def _epsilon_for_delta(n: int, epsilon0: float, delta: float,
                       ones: int | None) -> Bracket:
    if ones is not None:
        view = view_pair.unchecked(n=n, epsilon0=epsilon0, ones=ones,
                         tail=_tail_for(delta))
        lo, hi = epsilon_bracket.unchecked(view, delta)
        m = f"{METHOD}.epsilon_for_delta(ones={ones})"
        return Bracket(lower=lo.with_(method=m, source=SOURCE),
                       upper=hi.with_(method=m, source=SOURCE))
    lo, hi = special_epsilon_bracket.unchecked(n, epsilon0, delta)
    worst = _worst_case_epsilon(n, epsilon0, delta, (lo, hi)) \
        if n <= EXACT_WORST_CASE_LIMIT else None
    if worst is not None:
        worst_lo, worst_hi, at = worst
        m = f"{METHOD}.epsilon_for_delta(worst case over all {n} counts, attained at "
        m += "ones=0 or n-1, the special pair)" if at == 0 else f"ones={at} or n-1-{at})"
        return Bracket(lower=worst_lo.with_(method=m, source=SOURCE),
                       upper=worst_hi.with_(method=m, source=SOURCE),
                       special=hi.with_(method=f"{METHOD}.epsilon_for_delta(special pair, "
                                        "numerical upper end)", source=SOURCE))
    blanket = clone_pair.blanket_k_rr.unchecked(n=n, epsilon0=epsilon0, k=2)
    up = clone_pair.epsilon_for_delta.unchecked(blanket, delta=delta)
    return Bracket(lower=lo.with_(method=f"{METHOD}.epsilon_for_delta(special pair: a "
                                  "lower bound on the mechanism)", source=SOURCE),
                   upper=up.upper,
                   special=hi.with_(method=f"{METHOD}.epsilon_for_delta(special pair, "
                                    "numerical upper end)", source=SOURCE))


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
        rows = worst_case_pairs.unchecked(n=n, epsilon0=epsilon0, epsilon=float(best_hi),
                                          tail=tail)
        offenders = sorted((r for r in rows if r[2] > delta and r[0] not in done),
                           key=lambda r: -r[2])
        if not offenders:
            return best_lo, best_hi, worst
        for ones, _, _ in offenders[:8]:
            done.add(ones)
            view = view_pair.unchecked(n=n, epsilon0=epsilon0, ones=ones,
                                       tail=_tail_for(delta))
            lo, hi = epsilon_bracket.unchecked(view, delta)
            if float(hi) > float(best_hi):
                best_hi, worst = hi, ones
            if float(lo) > float(best_lo):
                best_lo = lo
    return None


@checked(n=N_PAIR, epsilon0=EPSILON0, epsilon=EPSILON, ones=ONES)
def delta_for_epsilon(*, n: int, epsilon0: float, epsilon: float,
                      ones: int | None = None) -> Bracket:
    """delta(epsilon), maximum over both orders, as a certified Bracket.

    ones=None as in `epsilon_for_delta`: exact maximum over counts for n <=
    EXACT_WORST_CASE_LIMIT, else the special pair (lower, with its upper end as `special`)
    and the blanket pair (upper).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizer's epsilon0, > 0.
        epsilon: epsilon >= 0.
        ones: how many of the other n-1 users hold a 1 (0..n-1); None for the mechanism.

    Returns:
        Bracket of LOWER and UPPER Results on "delta" (direction MAX, source the binary RR
        docs section): for one count, `divergence.delta_bracket` of its pair; for the
        mechanism at n <= EXACT_WORST_CASE_LIMIT, the maxima over `worst_case_pairs` (capped
        at 1; `method` names the count attaining the upper end); beyond, as above.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, ones = as_checked(n, epsilon0, ones)
    if ones is not None or n > EXACT_WORST_CASE_LIMIT:
        view = view_pair.unchecked(n=n, epsilon0=epsilon0, ones=0 if ones is None else ones)
        lo, hi = delta_bracket.unchecked(view, epsilon)
        m = f"{METHOD}.delta_for_epsilon(ones={0 if ones is None else ones})"
        lower, upper = lo.with_(method=m, source=SOURCE), hi.with_(method=m, source=SOURCE)
        if ones is not None:
            return Bracket(lower=lower, upper=upper)
        blanket = clone_pair.blanket_k_rr.unchecked(n=n, epsilon0=epsilon0, k=2)
        return Bracket(lower=lower, special=upper,
                       upper=clone_pair.delta_for_epsilon.unchecked(blanket,
                                                                    epsilon=epsilon).upper)
    rows = worst_case_pairs.unchecked(n=n, epsilon0=epsilon0, epsilon=epsilon)
    top_lo = max(r[1] for r in rows)
    top_hi = max(r[2] for r in rows)
    arg = max(rows, key=lambda r: r[2])[0]
    m = f"{METHOD}.delta_for_epsilon(worst case over all {n} counts, attained at ones={arg})"
    mk = lambda v, kind: Result(quantity="delta", value=min(v, 1.0), kind=kind,  # noqa: E731
                                direction=Direction.MAX, method=m, source=SOURCE, at=epsilon)
    return Bracket(lower=mk(top_lo, Kind.LOWER), upper=mk(top_hi, Kind.UPPER))
