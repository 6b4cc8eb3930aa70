"""Clones pairs whose clone count is a Poisson-binomial: users with different randomizers.

docs/heterogeneous.md#the-decomposition. For a differing user with randomizer R_i and inputs
(x0, x1), another user j with randomizer R_j is a clone with probability p_j when
R_j(z)(y) >= (p_j / 2)(R_i(x0)(y) + R_i(x1)(y)) for every input z and output y (the cross
condition). The outcome (X, C) is then distributed as in `pairs.clones` (A | C ~ Bin(C, 1/2),
X = A + Delta, Delta ~ Bern(w) under P and Bern(w') under Q, w = e^eps/(e^eps + 1)), except
that C = sum_j Bern(p_j) is a Poisson-binomial. Users come in classes of equal p_j, so C is a
sum of a few binomials: `clone_count_law` convolves their certified windows directly (every
value keeps a small relative error, `pmf.convolve`).

Every divergence decomposes over the observed c, and H_c is nonincreasing in c (one more
clone is a post-processing, docs/clones-and-blankets.md#clones-pair), so blocks of
consecutive c bound the mixture from both sides: the block's mass (rounded up) times H at
its start above, the block's mass (rounded down) times H at its end below; the count's mass
outside its window is added above at H <= 1.

When every clone probability is the same float, C is a binomial and the pair IS a
`pairs.clones.ClonePair`: `binomial_pair` returns it and every function here answers with
the library's binomial-clones code, so equal groups give exactly the homogeneous numbers.
Renyi divergences use `renyi_dominating_pair`, the binomial pair at the smallest clone
probability: C is stochastically larger than Bin(N, p_min) and every Renyi moment E_c is
nonincreasing in c, so the mixture over C is at most the one over Bin(N, p_min).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accountant.distributions import binomial, point_mass
from accountant.domains import DELTA, EPSILON, checked, finite_orders
from accountant.errors import ParameterError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.pairs import clones
from accountant.pmf import PMF, convolve
from accountant.result import Bracket, Direction, Kind, Result, Source

__all__ = [
    "HeterogeneousClonePair",
    "SOURCE",
    "heterogeneous_clones",
    "binomial_pair",
    "renyi_dominating_pair",
    "clone_count_law",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "renyi_upper",
]

SOURCE = Source(citation="Feldman, McMillan, Talwar, FOCS 2021 (clones reduction), with "
                          "per-user clone probabilities",
                 locator="docs/heterogeneous.md#the-decomposition")
# blocks of consecutive clone counts per standard deviation of C: the bracket's relative
# width is about 1/BLOCKS_PER_SD of H's relative change over one standard deviation
BLOCKS_PER_SD = 64


@dataclass(frozen=True, slots=True, kw_only=True)
class HeterogeneousClonePair:
    """A clones pair whose clone count is a sum of independent binomials.

    Attributes:
        counts: the number of other users in each class of equal clone probability.
        clone_probabilities: each class's clone probability p, in [0, 1] (rounded down:
            a smaller p only makes the pair larger, docs/heterogeneous.md#the-decomposition,
            step 4).
        w, w_prime: the differing user's probabilities, w = e^eps/(e^eps+1), w' = 1 - w.
        epsilon0: log(w / w'), the differing user's ratio bound (rounded up).
        source: where the pair comes from.
        description: protocol and parameters.
    """

    counts: tuple[int, ...]
    clone_probabilities: tuple[float, ...]
    w: float
    w_prime: float
    epsilon0: float
    source: Source = SOURCE
    description: Mapping[str, Any] = field(default_factory=dict)

    @property
    def others(self) -> int:
        """N, the number of other users (every class)."""
        return int(sum(self.counts))


def heterogeneous_clones(*, counts: Any, clone_probabilities: Any, epsilon0: float,
                         description: Mapping[str, Any] | None = None
                         ) -> HeterogeneousClonePair:
    """The pair for classes of other users with their clone probabilities.

    Args:
        counts: the number of other users of each class, integers >= 0.
        clone_probabilities: each class's clone probability, floats in [0, 1].
        epsilon0: the differing user's ratio bound eps, in (0, 700] (w = e^eps/(e^eps+1)).
        description: protocol and parameters (copied).

    Returns:
        The HeterogeneousClonePair (classes with no user or p = 0 dropped: they never clone).

    Raises:
        ParameterError: mismatched lengths, a count < 0, a probability outside [0, 1], or
            epsilon0 outside (0, 700].
    """
    counts, probs = list(counts), [float(p) for p in clone_probabilities]
    if len(counts) != len(probs):
        raise ParameterError(f"counts has {len(counts)} classes, outside [{len(probs)}, "
                             f"{len(probs)}] (one per clone probability)")
    for i, (m, p) in enumerate(zip(counts, probs, strict=True)):
        if isinstance(m, bool) or int(m) != m or m < 0:
            raise ParameterError(f"counts[{i}]={m!r} is outside integers in [0, inf)")
        if not 0.0 <= p <= 1.0:
            raise ParameterError(f"clone_probabilities[{i}]={p!r} is outside [0, 1]")
    if not 0.0 < float(epsilon0) <= 700.0:
        raise ParameterError(f"epsilon0={epsilon0!r} is outside (0, 700]")
    base = clones.fmt_clones.unchecked(n=2, epsilon0=float(epsilon0))
    keep = [(int(m), p) for m, p in zip(counts, probs, strict=True)]
    return HeterogeneousClonePair(
        counts=tuple(m for m, _ in keep), clone_probabilities=tuple(p for _, p in keep),
        w=base.w, w_prime=base.w_prime, epsilon0=float(epsilon0),
        description=dict(description or {}))


def _live(pair: HeterogeneousClonePair) -> list[tuple[int, float]]:
    """The classes that can clone (a user and p > 0)."""
    return [(m, p) for m, p in zip(pair.counts, pair.clone_probabilities, strict=True)
            if m > 0 and p > 0]


def _as_clone_pair(pair: HeterogeneousClonePair, q: float, name: str) -> clones.ClonePair:
    return clones.ClonePair(others=pair.others, clone_probability=q, w=pair.w,
                            w_prime=pair.w_prime, w_star=0.0, epsilon0=pair.epsilon0,
                            source=pair.source,
                            description={**pair.description, "pair": name})


def binomial_pair(pair: HeterogeneousClonePair) -> clones.ClonePair | None:
    """The pair as a binomial `ClonePair` when its count is a binomial, else None.

    Args:
        pair: the heterogeneous pair.

    Returns:
        ClonePair(others=N, clone_probability=p) when every user that can clone has the same
        float p and no other user exists with p = 0 (then C ~ Bin(N, p) exactly), or when
        N = 0; None otherwise.
    """
    live = _live(pair)
    if pair.others == 0:
        return _as_clone_pair(pair, 1.0, "heterogeneous clones (no other user)")
    if live and len({p for _, p in live}) == 1 and sum(m for m, _ in live) == pair.others:
        return _as_clone_pair(pair, live[0][1], "heterogeneous clones (equal p)")
    return None


def renyi_dominating_pair(pair: HeterogeneousClonePair) -> clones.ClonePair:
    """The binomial clones pair at the smallest clone probability (it dominates the pair).

    Args:
        pair: the heterogeneous pair.

    Returns:
        ClonePair(others=N, clone_probability=min p): C ~ Bin(N, min p) is stochastically
        smaller than the true count and every divergence of the per-count pairs is
        nonincreasing in c, so its divergences bound the pair's from above. The pair
        itself when it is binomial (`binomial_pair`). With min p = 0 the clone count is
        0: the pair's divergences are the differing user's alone (eps-LDP).
    """
    same = binomial_pair(pair)
    if same is not None:
        return same
    # classes without a user do not count (a dropped group must not loosen the bound)
    q = min((p for m, p in zip(pair.counts, pair.clone_probabilities, strict=True) if m > 0),
            default=1.0)
    if q <= 0.0:
        # C = 0 for every user: a binomial with N = 0 trials has the same law
        return clones.ClonePair(others=0, clone_probability=1.0, w=pair.w,
                                w_prime=pair.w_prime, w_star=0.0, epsilon0=pair.epsilon0,
                                source=pair.source,
                                description={**pair.description, "pair": "no clones"})
    return _as_clone_pair(pair, q, "heterogeneous clones (smallest p: Renyi dominating)")


def clone_count_law(pair: HeterogeneousClonePair, tail: float = 1e-40) -> PMF:
    """The law of C = sum of Bin(m_h, p_h), on a certified window.

    Args:
        pair: the heterogeneous pair.
        tail: the mass each binomial may leave outside its window, in (0, 1).

    Returns:
        A float PMF (log-probabilities with their error bounds, `pmf.convolve` direct
        convolution) whose `tail` bounds the mass outside its grid; the point mass at 0 when
        no user can clone.
    """
    law = point_mass(0, backend="float")
    for m, p in _live(pair):
        law = convolve(law, binomial(m, p, tail=tail))
    return law


@dataclass(frozen=True, slots=True)
class _Blocks:
    """Blocks of consecutive counts with their masses rounded up and down."""

    starts: np.ndarray
    ends: np.ndarray
    mass_up: np.ndarray
    mass_down: np.ndarray
    outside: float


def _blocks(pair: HeterogeneousClonePair, tail: float) -> _Blocks:
    law = clone_count_law(pair, tail)
    lo = law.offset[0]
    logv = np.asarray(law.values, dtype=float)
    err = np.broadcast_to(np.asarray(law.log_error, dtype=float), logv.shape)
    var = sum(m * p * (1 - p) for m, p in _live(pair))
    width = max(1, int(math.sqrt(var) / BLOCKS_PER_SD))
    idx = np.arange(0, logv.size, width)
    with np.errstate(under="ignore"):
        up = np.add.reduceat(np.exp(logv + err), idx)
        down = np.add.reduceat(np.exp(logv - err), idx)
    # each block's sum: at most `width` roundings of positive terms, plus exp's own
    grow = (width + 4) * 2 * UNIT_ROUNDOFF
    starts = lo + idx
    ends = np.minimum(starts + width - 1, lo + logv.size - 1)
    return _Blocks(starts=starts.astype(np.int64), ends=ends.astype(np.int64),
                   mass_up=up * (1 + grow), mass_down=down * (1 - grow),
                   outside=float(law.tail) * (1 + 4 * UNIT_ROUNDOFF))


def _delta_ends(pair: HeterogeneousClonePair, gamma: float, blocks: _Blocks
                ) -> tuple[float, float]:
    base = _as_clone_pair(pair, 0.5, "heterogeneous clones")
    _, hi = clones.hockey_stick_terms(base, blocks.starts, gamma)
    lo, _ = clones.hockey_stick_terms(base, blocks.ends, gamma)
    upper = math.fsum(blocks.mass_up * hi) * (1 + 1e-12) + blocks.outside
    lower = math.fsum(blocks.mass_down * lo) * (1 - 1e-12)
    return max(lower, 0.0), min(upper, 1.0)


def _mk(quantity: str, pair: HeterogeneousClonePair, lo: float, hi: float, what: str,
        **at: Any) -> Bracket:
    m = f"pairs.heterogeneous_clones.{what}"
    mk = lambda v, kind: Result(quantity=quantity, value=v, kind=kind,  # noqa: E731
                                direction=Direction.MAX, method=m, source=pair.source,
                                error_budget=max(hi - lo, 0.0), **at)
    return Bracket(lower=mk(lo, Kind.LOWER), upper=mk(hi, Kind.UPPER))


@checked(epsilon=EPSILON)
def delta_for_epsilon(pair: HeterogeneousClonePair, *, epsilon: float,
                      tail: float = 1e-40) -> Bracket:
    """Certified bracket of H_{e^epsilon} of the pair (both orders are equal).

    Args:
        pair: the heterogeneous pair.
        epsilon: epsilon >= 0.
        tail: each binomial's mass left outside its window (added to the upper end).

    Returns:
        Bracket(lower, upper) of the pair's exact value (quantity "delta", direction MAX,
        at=epsilon); `pairs.clones.delta_for_epsilon` itself when the count is binomial.

    Raises:
        ParameterError: epsilon < 0 (or NaN).
    """
    same = binomial_pair(pair)
    if same is not None:
        return clones.delta_for_epsilon.unchecked(same, epsilon=epsilon)
    lo, hi = _delta_ends(pair, math.exp(epsilon), _blocks(pair, tail))
    return _mk("delta", pair, lo, hi, "delta_for_epsilon", at=float(epsilon))


@checked(delta=DELTA)
def epsilon_for_delta(pair: HeterogeneousClonePair, *, delta: float,
                      relative_tolerance: float = 1e-6) -> Bracket:
    """Certified bracket of the pair's epsilon(delta).

    The upper end is an epsilon whose certified upper delta is <= delta; the lower end one
    whose certified lower delta exceeds delta (`pairs.clones.bracket_crossing` on [0,
    epsilon0], where the pair's delta is 0).

    Args:
        pair: the heterogeneous pair.
        delta: target delta in (0, 1).
        relative_tolerance: the search's relative width.

    Returns:
        Bracket of LOWER and UPPER Results on "epsilon" (direction MAX, at=delta);
        `pairs.clones.epsilon_for_delta` itself when the count is binomial.

    Raises:
        ParameterError: delta outside (0, 1).
    """
    same = binomial_pair(pair)
    if same is not None:
        return clones.epsilon_for_delta.unchecked(same, delta=delta,
                                                  relative_tolerance=relative_tolerance)
    blocks = _blocks(pair, max(min(delta * 1e-9, 1e-30), 5e-324))
    cache: dict[float, tuple[float, float]] = {}

    def ends(e: float) -> tuple[float, float]:
        if e not in cache:
            cache[e] = _delta_ends(pair, math.exp(e), blocks)
        return cache[e]

    def f(e: float) -> tuple[float, float, float]:
        # the slope only steers the search (Newton); a forward difference in gamma
        lo, hi = ends(e)
        step = 1e-6 * max(e, 1e-3)
        slope = (ends(e + step)[1] - hi) / (math.exp(e + step) - math.exp(e))
        return lo, hi, min(slope, 0.0)

    up, low = clones.bracket_crossing(f, delta, pair.epsilon0, relative_tolerance,
                                      lower=lambda e: ends(e)[0])
    return _mk("epsilon", pair, low, up, "epsilon_for_delta", at=float(delta))


@checked(alphas=finite_orders)
def renyi_upper(pair: HeterogeneousClonePair, *, alphas: list[float]) -> list[Result]:
    """Certified upper ends of the pair's Renyi divergence at many orders: those of
    `renyi_dominating_pair` (no lower end is offered: the binomial pair's own lower end is
    not one of this pair unless the count is binomial).

    Args:
        pair: the heterogeneous pair.
        alphas: Renyi orders, each a finite real > 1.

    Returns:
        One UPPER Result per order ("renyi", direction MAX), in the order given.

    Raises:
        ParameterError: an order outside (1, inf).
    """
    dominating = renyi_dominating_pair(pair)
    out = clones.renyi_curve.unchecked(dominating, alphas=alphas)
    return [up.with_(method=f"pairs.heterogeneous_clones.renyi_upper ({up.method})")
            for _, up in out]
