"""The worst case over the other users' count of ones, on the views' rays, and the one-user
pair that dominates every count (docs/gkm.md#a-dominating-pair).

A neighbouring pair of GKM views differs in user 1's bit; the other users' messages
Z = (s T + K1, s T) are independent of user 1's and have the same law under both datasets,
and the noise totals (N+, N-, F) have the same law at every n. So each count's pair is the
one-user pair (n = 1: user 1's messages and the protocol's noise) followed by the common
channel "add Z": by data processing ([GKM] Lemma 5 for d_inf; every f-divergence, hence
every hockey-stick and Renyi divergence) the one-user pair dominates every neighbouring
pair, at every n. For GKMP20 (q = 0, s = 0) Z = (ones, 0) is a constant: every count's pair
IS the one-user pair shifted, so its values are the mechanism's exactly.

For GKM (q > 0) the worst case over counts is computed on each count's ray view
(`rays.ray_view_pair`) when its atoms fit the budget of the quantity asked; beyond, the
upper end is the one-user pair's value (labelled so) and the lower end one count's (ones
= 0, the worst count in every case the tests computed; beyond `LOWER_VIEW_WORK`, the sign
of its analyzer's output, `difference.difference_view`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from accountant.divergence import (
    delta_bracket,
    delta_for_epsilon,
    epsilon_bracket,
    epsilon_for_delta,
    renyi_bracket,
    renyi_divergence,
)
from accountant.errors import ParameterError
from accountant.protocols.gkm import rays as gkm_rays
from accountant.protocols.gkm import view as gkm_view
from accountant.protocols.gkm.difference import difference_view
from accountant.protocols.gkm.protocol import (
    GkmParameters,
    exact_over_counts,
    ones_range,
    pure_epsilon_both,
    rays_fit,
)
from accountant.result import Direction, Result
from accountant.view import ViewPair

__all__ = ["dominating_view", "pure_epsilon_bound", "view_work", "LOWER_VIEW_WORK",
           "ray_view", "atom_count", "epsilon_for_delta_worst", "delta_for_epsilon_worst",
           "renyi_worst",
           "ONE_VIEW_ATOMS", "ONE_VIEW_WORK", "HOCKEY_ATOMS", "RENYI_ATOM_ORDERS"]

# the most atoms one ray view materialises (about 6 float arrays of them: ~1 GB)
ONE_VIEW_ATOMS = 2e7
# the most array entries the log-sum passes of one count's view may touch (n = 1e4,
# eps' = 0.5, q = 0.2, s = 5: 6e8 in 6 s)
ONE_VIEW_WORK = 1e9
# the most atoms, over every count's view, of a worst case of epsilon(delta) or delta(eps)
# (about 100 ns an atom: 2 s)
HOCKEY_ATOMS = 2e7
# the most array entries the log-sum passes of one lower-end view may touch (Psi's n passes
# and the rays' over L entries, about 15 ns each: 3 s); beyond, a composition has no lower
# end (Theorem 6's lam, n = 100: 5.6e8)
LOWER_VIEW_WORK = 2e8
# the most atoms x finite orders of a worst case of Renyi divergences (both directions,
# about 70 ns each: 1.5 s; the accountant's Renyi route asks 14 orders)
RENYI_ATOM_ORDERS = 2e7

_DOMINATING = ("[the one-user pair, which dominates every count's pair at every n "
               "(docs/gkm.md#a-dominating-pair)")
_SHIFTED = ("[GKMP20: every count's pair is the one-user pair shifted by (ones, 0); "
            "docs/gkm.md#a-dominating-pair]")
_WORST = " [worst case over the count of ones among the other users: ones={}]"


@functools.lru_cache(maxsize=2)
def _table(params: GkmParameters) -> gkm_rays.RayTable:
    """The parameters' ray table at their n (the CDF table, one pass of mu's length: 1 s at
    Theorem 6's lam). The one-user pair reads it too: its B0 and L only need to be at least
    its own, and the tail at n users bounds the tail at one."""
    return gkm_rays.RayTable.build(n=params.n, epsilon_prime=params.epsilon_prime, q=params.q,
                                   s=params.s, lam=params.lam)


def _one_user(table: gkm_rays.RayTable) -> ViewPair:
    psi = table.psi()
    first, second = next(psi), next(psi)
    return gkm_rays.ray_atoms(replace(table, n=1), ones=0, psi_p=first, psi_q=second)


def atom_count(params: GkmParameters, counts: Sequence[int]) -> float:
    """The atoms of the ray views of `counts`: (ones + 2) L each.

    Args:
        params: the protocol instance.
        counts: counts of ones among the other users.

    Returns:
        The total, as a float.
    """
    return float(_table(params).length) * float(sum(k + 2 for k in counts))


def view_work(params: GkmParameters, ones: int) -> float:
    """The array entries the log-sum passes of one count's ray view touch: Psi's
    n - ones + 1 passes and about 3 (ones + 2) per law over the rays, each over L entries.

    Args:
        params: the protocol instance.
        ones: the count of ones among the other users.

    Returns:
        The estimate, as a float.
    """
    return float(_table(params).length) * (params.n - ones + 1 + 6 * (ones + 2))


@functools.lru_cache(maxsize=4)  # asked by the PLD, Renyi and lower routes of one ledger
def dominating_view(params: GkmParameters) -> ViewPair:
    """The one-user pair (x1 = 1 vs x1 = 0, no other users, the protocol's noise) on its rays.

    Args:
        params: the protocol instance.

    Returns:
        A float ViewPair (`rays.ray_view_pair` at n = 1, ones = 0).

    Raises:
        ParameterError: its rays would exceed ONE_VIEW_ATOMS (or the far region its limit).
    """
    atoms = 2.0 * _table(params).length
    if atoms > ONE_VIEW_ATOMS:
        raise ParameterError(f"the one-user pair's rays need {atoms:.3g} atoms > "
                             f"{ONE_VIEW_ATOMS:.0e} (lam={params.lam:.6g}, "
                             f"epsilon_prime={params.epsilon_prime!r}); use smaller lam")
    view = _one_user(_table(params))
    return replace(view, description=dict(view.description) | {
        "choice": params.choice, "users": params.n,
        "pair": "one user's messages with the protocol's noise"})


@functools.lru_cache(maxsize=2)  # the lower end's count, asked by several routes
def ray_view(params: GkmParameters, *, ones: int) -> ViewPair:
    """One count's pair on its rays (the same divergences as `protocol.view_pair`).

    Args:
        params: the protocol instance.
        ones: ones among the other n - 1 users, an integer in 0..n-1.

    Returns:
        A float ViewPair (`rays.ray_view_pair`).

    Raises:
        ParameterError: ones outside 0..n-1, more than ONE_VIEW_ATOMS atoms or
            ONE_VIEW_WORK entries of work.
    """
    [k] = ones_range(params, ones)
    atoms = atom_count(params, [k])
    if atoms > ONE_VIEW_ATOMS:
        raise ParameterError(f"the view at ones={k} needs {atoms:.3g} atoms on its rays > "
                             f"{ONE_VIEW_ATOMS:.0e} (n={params.n}, s={params.s}, "
                             f"lam={params.lam:.6g}); use smaller lam, s or n")
    work = view_work(params, k)
    if work > ONE_VIEW_WORK:
        raise ParameterError(f"the view at ones={k} needs {work:.3g} log-sum passes' entries "
                             f"> {ONE_VIEW_WORK:.0e} (about 10 s; n={params.n}, s={params.s}, "
                             f"lam={params.lam:.6g}); use smaller lam, s or n")
    [(view, _)] = _ray_views(params, [k])
    return view


def _ray_views(params: GkmParameters, counts: Sequence[int]) -> Iterator[tuple[ViewPair, int]]:
    """Each count's ray view, sharing the CDF table and the Psi recurrence (counts taken
    from the most ones down, so that Psi's m0 = n - 1 - ones only grows)."""
    n = params.n
    table = _table(params)
    psi = table.psi()
    kept: dict[int, tuple] = {}
    following = 0
    for k in sorted(counts, reverse=True):
        while following <= n - k:
            kept[following] = next(psi)
            following += 1
            for m0 in [m for m in kept if m < n - 1 - k]:
                del kept[m0]  # keep two arrays of L, not n
        view = gkm_rays.ray_atoms(table, ones=k, psi_p=kept[n - 1 - k], psi_q=kept[n - k])
        yield replace(view, description=dict(view.description) | {"choice": params.choice}), k


Ends = Callable[[ViewPair], list[Result]]
Lows = list[Result | None]


def _evaluate(params: GkmParameters, ones: int | None, upper: Ends, both: Ends | None,
              per_atom: float, budget: float) -> tuple[list[Result], Lows]:
    """(upper ends, lower ends) of a quantity: one count's when given; GKMP20's one-user
    pair; the maximum over the counts' ray views within `budget` (atoms x per_atom); else
    the one-user pair (upper) and the ones = 0 view (lower). `both` gives (lower, upper)
    pairs flattened [l0, u0, l1, u1, ...]; None: no lower ends wanted."""
    if ones is not None:
        return _ends(ray_view(params, ones=ones), upper, both)
    if exact_over_counts(params):
        ups, shifted = _ends(dominating_view(params), upper, both)
        return _tagged(ups, " " + _SHIFTED), _tagged_lows(shifted, " " + _SHIFTED)
    counts = ones_range(params, None)
    atoms = atom_count(params, counts)
    if atoms * per_atom <= budget:
        found = [(upper(v), k) for v, k in _ray_views(params, counts)]
        ups, worst_counts = [], []
        for i in range(len(found[0][0])):
            r, k = max(((rs[i], k) for rs, k in found), key=lambda rk: rk[0].value)
            ups.append(r.with_(method=r.method + _WORST.format(k)))
            worst_counts.append(k)
        lows: Lows = [None] * len(ups)
        if both is not None:
            for k in sorted(set(worst_counts)):
                _, at_k = _ends(ray_view(params, ones=k), upper, both)
                for i, kk in enumerate(worst_counts):
                    if kk == k:
                        lows[i] = at_k[i]
        return ups, lows
    why = (f" over the {params.n} counts: their ray views hold {atoms:.3g} atoms, beyond "
           f"this quantity's budget; an upper end for every count]")
    ups, none = _ends(dominating_view(params), upper, None)
    if both is not None and view_work(params, 0) <= LOWER_VIEW_WORK:
        _, at_0 = _ends(ray_view(params, ones=0), upper, both)
        none = _tagged_lows(at_0, " [one count: ones=0]")
    elif both is not None:
        # beyond: the sign of the analyzer's output, two atoms of the same pair
        _, at_d = _ends(difference_view(params), upper, both)
        none = _tagged_lows(at_d, " [one count, ones=0: the analyzer's output's sign]")
    return _tagged(ups, " " + _DOMINATING + why), none


def _tagged(rs: list[Result], note: str) -> list[Result]:
    return [r.with_(method=r.method + note) for r in rs]


def _tagged_lows(rs: Lows, note: str) -> Lows:
    return [None if r is None else r.with_(method=r.method + note) for r in rs]


def _ends(view: ViewPair, upper: Ends, both: Ends | None) -> tuple[list[Result], Lows]:
    if both is None:
        ups = upper(view)
        return ups, [None] * len(ups)
    flat = both(view)
    return flat[1::2], list(flat[0::2])


def epsilon_for_delta_worst(params: GkmParameters, *, delta: float, ones: int | None = None,
                            lower: bool = False) -> tuple[Result, Result | None]:
    """Certified epsilon(delta), worst case over counts unless `ones` (module docstring).

    Args:
        params: the protocol instance.
        delta: target delta, in (0, 1) (checked by the callers).
        ones: one count only; None for the mechanism.
        lower: also compute a lower end (one pair's).

    Returns:
        (upper, lower or None): Results on epsilon, direction MAX; the upper end's method
        says which count, or that it is the one-user pair's.

    Raises:
        ParameterError: ones outside 0..n-1, or a view beyond ONE_VIEW_ATOMS.
    """
    ups, lows = _evaluate(params, ones, lambda v: [epsilon_for_delta(v, delta)],
                          (lambda v: list(epsilon_bracket(v, delta))) if lower else None,
                          1.0, HOCKEY_ATOMS)
    return ups[0], lows[0]


def delta_for_epsilon_worst(params: GkmParameters, *, epsilon: float, ones: int | None = None,
                            lower: bool = False) -> tuple[Result, Result | None]:
    """Certified delta(epsilon), worst case over counts unless `ones` (module docstring).

    Args:
        params: the protocol instance.
        epsilon: epsilon >= 0 (checked by the callers).
        ones: one count only; None for the mechanism.
        lower: also compute a lower end (one pair's).

    Returns:
        (upper, lower or None): Results on delta, direction MAX.

    Raises:
        ParameterError: ones outside 0..n-1, or a view beyond ONE_VIEW_ATOMS.
    """
    ups, lows = _evaluate(params, ones, lambda v: [delta_for_epsilon(v, epsilon=epsilon)],
                          (lambda v: list(delta_bracket(v, epsilon))) if lower else None,
                          1.0, HOCKEY_ATOMS)
    return ups[0], lows[0]


def _renyi_one(view: ViewPair, alpha: float) -> Result:
    return (gkm_view.pure_epsilon(view) if alpha == math.inf
            else renyi_divergence(view, alpha))


def _renyi_both(view: ViewPair, alpha: float) -> list[Result]:
    if alpha == math.inf:
        return [gkm_view.pure_epsilon_lower(view), gkm_view.pure_epsilon(view)]
    return list(renyi_bracket(view, alpha))


def renyi_worst(params: GkmParameters, *, orders: Sequence[float], ones: int | None = None,
                lower: bool = False) -> list[tuple[Result, Result | None]]:
    """Certified Renyi divergences at `orders` (inf: the max-divergence on the rays plus
    the far bound), worst case over counts unless `ones` (module docstring).

    Args:
        params: the protocol instance.
        orders: Renyi orders, each in (1, inf] (checked by the callers).
        ones: one count only; None for the mechanism.
        lower: also compute lower ends (one pair's).

    Returns:
        One (upper, lower or None) per order, in the order given.

    Raises:
        ParameterError: ones outside 0..n-1, or a view beyond ONE_VIEW_ATOMS.
    """
    orders = list(orders)
    finite = sum(1 for a in orders if a != math.inf)
    ups, lows = _evaluate(
        params, ones, lambda v: [_renyi_one(v, a) for a in orders],
        (lambda v: [r for a in orders for r in _renyi_both(v, a)]) if lower else None,
        max(finite, 1), RENYI_ATOM_ORDERS)
    return list(zip(ups, lows, strict=True))


def pure_epsilon_bound(params: GkmParameters, *,
                       ones: int | None = None) -> tuple[Result, Result, Result]:
    """(both orders, x1 = 1 vs 0, x1 = 0 vs 1) certified max-divergences: the exact scans of
    `protocol.pure_epsilon_both` (worst case over counts unless `ones`), or, for GKMP20 and
    where the worst case's scans exceed their budget, the one-user pair's (module docstring).

    Args:
        params: the protocol instance.
        ones: one count only; None for the mechanism.

    Returns:
        (both, P||Q, Q||P) Results on the max-divergence; the methods say which pair.

    Raises:
        ParameterError: ones outside 0..n-1, or one count's scan beyond its budget.
    """
    if ones is not None or not (exact_over_counts(params)
                                or not rays_fit(params, ones_range(params, None))):
        return pure_epsilon_both(params, ones=ones)
    try:
        view = dominating_view(params)
        pq, qp = (gkm_view.pure_epsilon(view, direction=d)
                  for d in (Direction.P_Q, Direction.Q_P))
    except ParameterError:  # beyond the atoms of a view: the streaming scan at n = 1
        pq, qp = gkm_view.pure_epsilon_rays(n=1, ones=0, epsilon_prime=params.epsilon_prime,
                                            q=params.q, s=params.s, lam=params.lam)
    note = (" " + _SHIFTED if exact_over_counts(params) else
            " " + _DOMINATING + f"; the {params.n} counts' scans exceed their budget]")
    pq, qp = (r.with_(method=r.method + note) for r in (pq, qp))
    top = pq if pq.value >= qp.value else qp
    return top.with_(direction=Direction.MAX), pq, qp
