"""Real views of heterogeneous users: one concrete pair (the lower end), and, for tiny n, the
exact worst case over every neighbouring pair (the check of the upper end).

The lower end is one neighbouring pair, post-processed to a count: the differing user is in
the group with the largest epsilon0 and holds x or x' (its matrix's max-ratio triple (x, x',
y)), every other honest user holds x', and the analyzer counts the messages equal to y. The
count is a sum of independent binomials (one per group, success R_h(x')(y)) plus the
differing user's Bern(R_g(x)(y)) or Bern(R_g(x')(y)): a post-processing of the real view of
that pair, so each of its divergences is at most that pair's, hence at most the
mechanism's (docs/soundness.md#pair-values-and-mechanism-values).

The exact worst case enumerates, for n <= 8 and small alphabets, every dataset up to the
order of users within a group (the view depends only on each group's input histogram), the
differing user's group and both of its inputs, and builds the histogram law of the shuffled
messages user by user in exact rational arithmetic.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from accountant.distributions import binomial, point_mass
from accountant.errors import ParameterError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.pmf import PMF, convolve, reflect
from accountant.protocols import randomizer
from accountant.protocols.heterogeneous.groups import Group
from accountant.view import ViewPair

__all__ = ["count_pair", "histogram_pair", "ExactWorstCase", "exact_worst_case", "histogram_law",
           "EXACT_LIMIT", "HISTOGRAM_LIMIT"]

# largest number of (dataset, differing choice) x histograms enumerated by exact_worst_case
EXACT_LIMIT = 2_000_000
# largest number of histograms on which `histogram_pair` (the full view) is built
HISTOGRAM_LIMIT = 5_000


def _rounded(p: Fraction) -> tuple[float, float]:
    """(float p, bound on |log Bin(m, p_float)(j) - log Bin(m, p)(j)| per trial), p <= 1/2."""
    pf = float(p)
    if Fraction(pf) == p:
        return pf, 0.0
    # |p_float - p| <= u p: the log changes by <= 1.01 u per success and by
    # <= 1.01 u p / (1 - p) <= 1.01 u per failure (p <= 1/2: 1 - p is not a cancellation)
    return pf, 1.01 * UNIT_ROUNDOFF * 1.01


def _binomial_exactly(m: int, p: Fraction, tail: float) -> PMF:
    """Bin(m, p) on a certified window, the rounding of p to a float in log_error: drawn as
    m - Bin(m, 1 - p) when p > 1/2, so that the float probability never sits next to 1
    (there 1 - p_float would carry no correct digit)."""
    flip = p > Fraction(1, 2)
    pf, per_trial = _rounded(1 - p if flip else p)
    # one trial: both points, however unlikely one of them (the differing user's two laws
    # must share a grid)
    law = binomial(m, pf, tail=tail if m > 1 else None)
    law = replace(law, log_error=np.asarray(law.log_error, dtype=float) + m * per_trial)
    return reflect(law, m) if flip else law


def count_pair(groups: tuple[Group, ...], *, differing: int, honest: Sequence[int],
               tail: float = 1e-40) -> ViewPair:
    """The count-of-y view of one real neighbouring pair (module docstring).

    Args:
        groups: the groups.
        differing: the index of the differing user's group (it has an honest user).
        honest: each group's honest count (the differing user included in its group's).
        tail: each binomial's mass outside its window.

    Returns:
        A float ViewPair (P: the differing user holds x; Q: it holds x') whose divergences
        are lower bounds on the mechanism's; description names the pair.
    """
    g = groups[differing].matrix
    _, x, x1, y = g.max_ratio()
    law = point_mass(0, backend="float")
    for i, (grp, m) in enumerate(zip(groups, honest, strict=True)):
        m_other = m - (1 if i == differing else 0)
        if m_other > 0:
            law = convolve(law, _binomial_exactly(m_other, grp.matrix.rows[x1][y], tail))
    ends = [convolve(law, _binomial_exactly(1, p, tail)) for p in (g.rows[x][y], g.rows[x1][y])]
    desc = {"protocol": "heterogeneous", "pair": "count of one output", "differing_group":
            differing, "x": x, "x_prime": x1, "y": y, "others_hold": x1,
            "honest": list(honest)}
    return ViewPair.from_pmfs(ends[0], ends[1], residual_loss_bound=g.epsilon0,
                              description=desc)


def histogram_pair(groups: tuple[Group, ...], *, differing: int, honest: Sequence[int],
                   others_hold: str = "x") -> ViewPair | None:
    """The full histogram view of one real neighbouring pair (small n), in float log space.

    The differing user (group `differing`) holds x or x' (its matrix's max-ratio triple);
    every other honest user holds x (others_hold="x") or x' ("x_prime").

    Args:
        groups: the groups.
        differing: the differing user's group.
        honest: each group's honest count (the differing user included in its group's).
        others_hold: "x" or "x_prime".

    Returns:
        A float ViewPair on the histograms of the honest messages (each log-probability
        within its stated error), or None beyond HISTOGRAM_LIMIT histograms.
    """
    n, m = sum(honest), groups[0].matrix.outputs
    if math.comb(n + m - 1, m - 1) > HISTOGRAM_LIMIT:
        return None
    g = groups[differing].matrix
    _, x, x1, _ = g.max_ratio()
    z = x if others_hold == "x" else x1
    comps = randomizer.Compositions(n, m)
    law = np.zeros(1)
    t = 0
    big_row = 0.0
    for i, (grp, count) in enumerate(zip(groups, honest, strict=True)):
        with np.errstate(divide="ignore"):
            row = np.log(grp.matrix.array[z])
        big_row = max(big_row, float(np.max(np.abs(row[np.isfinite(row)]))))
        for _ in range(count - (1 if i == differing else 0)):
            law = _log_step(comps, t, law, row)
            t += 1
    with np.errstate(divide="ignore"):
        rows = np.log(g.array[[x, x1]])
    p, q = (_log_step(comps, t, law, r) for r in rows)
    finite = np.concatenate([p[np.isfinite(p)], q[np.isfinite(q)]])
    big = float(np.max(np.abs(finite))) if finite.size else 0.0
    # per user: the float entry (u relative) and its log (2u(1 + |log R|)), one sum and m
    # logaddexps of magnitude <= big (4u(1 + big) each): as the randomizer package's views
    err = 8 * UNIT_ROUNDOFF * n * (m + 2) * (1.0 + max(big, big_row))
    desc = {"protocol": "heterogeneous", "pair": "histogram view", "differing_group":
            differing, "x": x, "x_prime": x1, "others_hold": z, "honest": list(honest)}
    return ViewPair(backend="float", p=p, q=q, log_error=err, residual_loss_bound=0.0,
                    coords=tuple(comps.levels[n][:, y] for y in range(m)), description=desc)


def _log_step(comps: randomizer.Compositions, t: int, law: np.ndarray,
              log_row: np.ndarray) -> np.ndarray:
    """The log-law at level t+1 after one more user with log-probabilities `log_row`."""
    out = np.full(comps.levels[t + 1].shape[0], -np.inf)
    for y, idx in enumerate(comps.up(t)):
        if np.isfinite(log_row[y]):
            out[idx] = np.logaddexp(out[idx], law + log_row[y])
    return out


@dataclass(frozen=True)
class ExactWorstCase:
    """The largest divergences over every neighbouring pair (tiny n).

    Attributes:
        deltas: {e^eps: the largest delta over pairs and both orders} (exact Fractions).
        renyi: {alpha: the largest Renyi divergence over pairs and both orders} (mpmath at
            40 digits, rounded to float).
        pairs: how many (dataset, differing user, input pair) were enumerated.
    """

    deltas: dict[Any, Fraction]
    renyi: dict[float, float]
    pairs: int


def _histogram_laws(groups_rows: list[list[list[int]]], counts: Sequence[int],
                    comps: randomizer.Compositions) -> dict[tuple[Any, ...], np.ndarray]:
    """Exact laws (integer numerators over den^t) of the others' message histogram, for
    every choice of each group's input histogram."""
    k = len(groups_rows[0])
    per_group = [_compositions(c, k) for c in counts]
    out = {}
    for choice in itertools.product(*per_group):
        law = np.array([1], dtype=object)
        t = 0
        for rows, hist in zip(groups_rows, choice, strict=True):
            for x, many in enumerate(hist):
                for _ in range(many):
                    law = _add_user(comps, t, law, rows[x])
                    t += 1
        out[choice] = law
    return out


def _compositions(t: int, k: int) -> list[tuple[int, ...]]:
    """Compositions of t into k nonnegative parts."""
    out = []
    for bars in itertools.combinations(range(t + k - 1), k - 1):
        prev, parts = -1, []
        for b in bars:
            parts.append(b - prev - 1)
            prev = b
        parts.append(t + k - 2 - prev)
        out.append(tuple(parts))
    return out


def _add_user(comps: randomizer.Compositions, t: int, law: np.ndarray,
              weights: Sequence[int]) -> np.ndarray:
    """The law at level t+1 after one more user with integer weights (numerators)."""
    out = np.zeros(comps.levels[t + 1].shape[0], dtype=object)
    out[:] = 0
    for y, idx in enumerate(comps.up(t)):
        if weights[y]:
            np.add.at(out, idx, law * weights[y])
    return out


def histogram_law(groups: tuple[Group, ...],
                  inputs: Sequence[Sequence[int]]) -> tuple[np.ndarray, list[Fraction]]:
    """The exact law of the shuffled histogram of one dataset (tiny n).

    Args:
        groups: the groups (their matrices; the counts are read from `inputs`).
        inputs: per group, its users' inputs.

    Returns:
        (histograms, probabilities): an int array (H x m) of every histogram of the n
        messages and the exact probability of each.

    Raises:
        ParameterError: n outside [1, 8] or an input outside the alphabet.
    """
    n = sum(len(x) for x in inputs)
    if not 1 <= n <= 8:
        raise ParameterError(f"n={n} is outside [1, 8] for an exact heterogeneous law")
    k, m = groups[0].matrix.inputs, groups[0].matrix.outputs
    den = 1
    for g in groups:
        for row in g.matrix.rows:
            for v in row:
                den = den * v.denominator // math.gcd(den, v.denominator)
    comps = randomizer.Compositions(n, m)
    law = np.array([1], dtype=object)
    t = 0
    for g, xs in zip(groups, inputs, strict=True):
        for x in xs:
            if isinstance(x, bool) or not 0 <= int(x) < k:
                raise ParameterError(f"input={x!r} is outside integers in [0, {k - 1}]")
            law = _add_user(comps, t, law, [int(v * den) for v in g.matrix.rows[int(x)]])
            t += 1
    scale = den ** n
    return comps.levels[n], [Fraction(int(v), scale) for v in law]


def exact_worst_case(groups: tuple[Group, ...], *, exp_epsilons: Sequence[Any] = (),
                     alphas: Sequence[float] = ()) -> ExactWorstCase:
    """The exact worst case over every neighbouring pair of the honest users' view.

    Args:
        groups: the groups (their `count`s are the honest users; n = sum of counts <= 8).
        exp_epsilons: values of e^eps >= 1 (taken exactly as rationals).
        alphas: Renyi orders > 1 (finite).

    Returns:
        The ExactWorstCase.

    Raises:
        ParameterError: n outside [1, 8], or too large an enumeration (EXACT_LIMIT).
    """
    counts = [g.count for g in groups]
    n = sum(counts)
    if not 1 <= n <= 8:
        raise ParameterError(f"n={n} is outside [1, 8] for the exact heterogeneous worst case")
    k, m = groups[0].matrix.inputs, groups[0].matrix.outputs
    if math.comb(n + m - 1, m - 1) * math.comb(n + k - 2, k - 1) ** len(groups) > EXACT_LIMIT:
        raise ParameterError("the exact heterogeneous worst case is too large "
                             f"(n={n}, k={k}, m={m}, {len(groups)} groups)")
    den = 1
    for g in groups:
        for row in g.matrix.rows:
            for v in row:
                den = den * v.denominator // math.gcd(den, v.denominator)
    rows = [[[int(v * den) for v in row] for row in g.matrix.rows] for g in groups]
    comps = randomizer.Compositions(n, m)
    gammas = [Fraction(e) for e in exp_epsilons]
    best_delta = {e: Fraction(0) for e in exp_epsilons}
    best_renyi = {float(a): 0.0 for a in alphas}
    pairs = 0
    scale = den ** n
    for gi, g in enumerate(groups):
        if g.count == 0:
            continue
        others = [c - (1 if i == gi else 0) for i, c in enumerate(counts)]
        for law in _histogram_laws(rows, others, comps).values():
            views = [_add_user(comps, n - 1, law, rows[gi][x]) for x in range(k)]
            for x, x1 in itertools.permutations(range(k), 2):
                pairs += 1
                p, q = views[x], views[x1]
                for e, gam in zip(exp_epsilons, gammas, strict=True):
                    diff = p * gam.denominator - q * gam.numerator
                    val = Fraction(sum(v for v in diff if v > 0),
                                   gam.denominator * scale)
                    best_delta[e] = max(best_delta[e], val)
                if alphas:
                    with mpmath.workdps(40):
                        pm = [mpmath.mpf(int(v)) / scale for v in p]
                        qm = [mpmath.mpf(int(v)) / scale for v in q]
                        for a in alphas:
                            s = mpmath.fsum(pi ** a * qi ** (1 - a) for pi, qi in
                                            zip(pm, qm, strict=True) if pi > 0)
                            val_r = float(mpmath.log(s) / (a - 1)) if s > 0 else 0.0
                            best_renyi[float(a)] = max(best_renyi[float(a)], val_r)
    return ExactWorstCase(deltas=best_delta, renyi=best_renyi, pairs=pairs)
