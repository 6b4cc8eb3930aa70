"""Balcer-Cheu 2020, Section 4 and the lemma of [8] they strengthen, on concrete randomizers.

- Claim 4.2 / Theorem 4.1: if a single-message shuffled protocol is eps-DP, its randomizer
  R is eps-DP. The proof's pair is (x, ..., x) against (x', x, ..., x), with (x, x') the
  inputs at which R's likelihood ratio is largest; the event "every message is y" (y the
  output attaining it) has probability ratio R(y|x)/R(y|x') = e^epsilon0 exactly. So the
  shuffled view's max-divergence at that pair is >= epsilon0, and (post-processing) <= it:
  `claim_42_max_divergence` computes it exactly (rationals) for any matrix at small n.
- The lemma of Cheu, Smith, Ullman, Zeber, Zhilyaev 2019 ([8] in the paper): an (eps, delta)
  single-message shuffled protocol has an (eps + ln n, delta)-DP randomizer.
  `local_epsilon_for_delta` is the randomizer's exact epsilon at delta (the largest over
  ordered input pairs of the rows' hockey-stick inversion), to be compared with the shuffled
  protocol's certified epsilon plus ln n; for any matrix at tiny n,
  `shuffled_epsilon_bracket` gives that epsilon over all datasets in exact arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from accountant.divergence import epsilon_for_delta, max_divergence
from accountant.domains import DELTA
from accountant.errors import ParameterError
from accountant.protocols.randomizer import Randomizer, exact_view_pair, exact_worst_case
from accountant.result import Result
from accountant.view import ViewPair

__all__ = ["claim_42_max_divergence", "local_epsilon_for_delta", "shuffled_epsilon_bracket"]


def claim_42_max_divergence(matrix: Randomizer, n: int) -> Result:
    """Exact max-divergence of n shuffled reports at Claim 4.2's pair of datasets.

    Args:
        matrix: the single-message randomizer.
        n: number of users, >= 2 (the exact view has C(n+m-1, m-1) histograms).

    Returns:
        The EXACT Result of `divergence.max_divergence` on the pair P = n copies of x,
        Q = x' and n - 1 copies of x, where (x, x') attain the matrix's epsilon0.

    Raises:
        ParameterError: n < 2 or too many histograms for an exact view.
    """
    _, x, x_prime, _ = matrix.max_ratio()
    pair = exact_view_pair(matrix, n, [x] * n, [x_prime] + [x] * (n - 1), backend="exact")
    return max_divergence(pair)


def local_epsilon_for_delta(matrix: Randomizer, delta: float) -> float:
    """The randomizer's own epsilon at delta: max over ordered input pairs (x, x') of the
    exact epsilon(delta) of the rows R(.|x) against R(.|x').

    Args:
        matrix: the randomizer.
        delta: in (0, 1).

    Returns:
        The largest epsilon over the pairs, as the upper end of each exact inversion (a
        float; 0 when every pair's hockey-stick at epsilon 0 is already <= delta).

    Raises:
        ParameterError: delta outside (0, 1).
    """
    DELTA.check(delta)
    rows = matrix.rows
    best = 0.0
    for x in range(matrix.inputs):
        for x_prime in range(matrix.inputs):
            if x == x_prime:
                continue
            pair = ViewPair.from_arrays(list(rows[x]), list(rows[x_prime]), backend="exact")
            best = max(best, float(epsilon_for_delta(pair, delta).upper_end()))
    return best


def shuffled_epsilon_bracket(matrix: Randomizer, n: int, delta: float, *,
                             points: int = 400) -> tuple[float, float]:
    """Bracket [lower, upper] of the shuffled protocol's epsilon(delta) over all datasets of
    n users (tiny n), from exact worst-case deltas on a grid of epsilons.

    The worst-case delta(epsilon) over datasets and both orders is computed in rationals at
    e^eps for `points` values of eps evenly spaced in [0, epsilon0] (one pass of
    `randomizer.exact_worst_case`); delta(eps) is nonincreasing, so the largest grid eps with
    delta(eps) > delta is a certified lower end and the next grid point an upper end.

    Args:
        matrix: the randomizer (finite epsilon0).
        n: users, >= 2 and small enough for the exact worst case.
        delta: in (0, 1).
        points: grid size, >= 2.

    Returns:
        (lower, upper) with lower <= epsilon(delta) <= upper (lower 0.0 if even eps = 0
        meets delta).

    Raises:
        ParameterError: delta outside (0, 1), infinite epsilon0, points < 2, or n outside the
            exact worst case's range.
    """
    DELTA.check(delta)
    if not math.isfinite(matrix.epsilon0):
        raise ParameterError(f"epsilon0={matrix.epsilon0} is outside [0, inf) (an "
                             "epsilon0-LDP randomizer is needed)")
    if points < 2:
        raise ParameterError(f"points={points!r} is outside the integers >= 2")
    grid = np.linspace(0.0, matrix.epsilon0, points)
    exps = [Fraction(math.exp(float(e))) for e in grid]
    worst = exact_worst_case(matrix, n, exp_epsilon=exps)
    above = [i for i, w in enumerate(worst) if w.delta > Fraction(delta)]
    if not above:
        return 0.0, 0.0
    i = above[-1]
    # e^eps was rounded to a float: read eps back from the rational actually used, rounded
    # down for the lower end and up for the upper end
    lower = math.nextafter(math.log(exps[i]), 0.0)
    upper = (matrix.epsilon0 if i + 1 == points
             else math.nextafter(math.log(exps[i + 1]), math.inf))
    return max(0.0, lower), upper
