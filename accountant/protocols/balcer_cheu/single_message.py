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
  protocol's certified epsilon plus ln n.
"""

from __future__ import annotations

from accountant.divergence import epsilon_for_delta, max_divergence
from accountant.domains import DELTA
from accountant.protocols.randomizer import Randomizer, exact_view_pair
from accountant.result import Result
from accountant.view import ViewPair

__all__ = ["claim_42_max_divergence", "local_epsilon_for_delta"]


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
