"""Poisson-subsampled shuffled binary RR, checked by brute force (issue 11 acceptance):
for n <= 6, T <= 3 and q in {0.3, 1}, the exact composed delta(eps) of every dataset pair
(the view is the number of messages and of ones, enumerated here independently of the
library) stays at or below the certified upper end from the subsampled dominating pair
(docs/conversions.md#poisson-subsampling-of-a-shuffled-round)."""

import itertools
import math

import numpy as np
import pytest

from accountant.composition import pld
from accountant.composition.subsampled import SubsampledPair
from accountant.protocols.binary_rr import BinaryRR


def _round_view(others_ones: int, others_zeros: int, user: int | None, q: float,
                epsilon0: float) -> np.ndarray:
    """P(#messages = m, #ones = o) of one round: each user is absent (1-q) or reports its
    bit through randomized response (truthful with probability e^eps0/(1+e^eps0)); `user`
    is the differing user's bit, None when absent from the dataset."""
    keep = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    n = others_ones + others_zeros + 1
    dist = np.zeros((n + 1, n + 1))
    dist[0, 0] = 1.0
    bits = [1] * others_ones + [0] * others_zeros + ([] if user is None else [user])
    for bit in bits:
        p_one = keep if bit == 1 else 1 - keep
        new = (1 - q) * dist
        new[1:, 1:] += q * p_one * dist[:-1, :-1]
        new[1:, :] += q * (1 - p_one) * dist[:-1, :]
        dist = new
    return dist.ravel()


def _delta(p: np.ndarray, q: np.ndarray, rounds: int, epsilon: float) -> float:
    pt, qt = p, q
    for _ in range(rounds - 1):
        pt, qt = np.multiply.outer(pt, p).ravel(), np.multiply.outer(qt, q).ravel()
    return math.fsum(np.maximum(pt - math.exp(epsilon) * qt, 0.0))


@pytest.mark.parametrize("n, rounds, q, relation", [
    (n, t, q, rel) for n, t, q, rel in itertools.product(
        (3, 6), (1, 3), (0.3, 1.0), ("substitute", "add-remove"))])
def test_exact_subsampled_delta_is_below_the_certified_upper(n, rounds, q, relation):
    epsilon0 = 1.0
    pair = BinaryRR(n=n, epsilon0=epsilon0).dominating_pair().pair
    source = SubsampledPair(pair, q, relation)
    for epsilon in (0.2, 0.8):
        worst = 0.0
        for ones in range(n):
            zeros = n - 1 - ones
            if relation == "substitute":
                views = [(_round_view(ones, zeros, 1, q, epsilon0),
                          _round_view(ones, zeros, 0, q, epsilon0))]
            else:
                absent = _round_view(ones, zeros, None, q, epsilon0)
                views = [(_round_view(ones, zeros, b, q, epsilon0), absent) for b in (0, 1)]
            for a, b in views:
                worst = max(worst, _delta(a, b, rounds, epsilon), _delta(b, a, rounds, epsilon))
        upper = pld.compose_views([(source, rounds)], epsilon=epsilon,
                                  discretization=1e-3).upper.value
        # the brute force sums in float: a relative 1e-12 covers its rounding
        assert worst <= upper * (1 + 1e-12), (epsilon, worst, upper)
        if relation == "add-remove" and q == 1.0:
            assert worst == pytest.approx(1.0) and upper == 1.0  # presence is revealed
        else:
            assert upper < 1.0


def test_full_participation_substitute_is_the_plain_clones_pair():
    pair = BinaryRR(n=400, epsilon0=1.0).dominating_pair().pair
    sub = pld.compose_views([(SubsampledPair(pair, 1.0), 2)], delta=1e-5, discretization=1e-4)
    plain = pld.compose_views([(pair, 2)], delta=1e-5, discretization=1e-4)
    assert sub.lower.value <= plain.upper.value and plain.lower.value <= sub.upper.value
    # 16 blocks of M, each bounded by its first M: at n = 400 about 2% looser
    assert sub.upper.value == pytest.approx(plain.upper.value, rel=2.5e-2)
