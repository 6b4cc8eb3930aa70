"""Poisson-subsampled shuffled binary RR, checked by brute force (issue 11 acceptance):
for n <= 6, T <= 3 and q in {0.3, 1}, the exact composed delta(eps) of every dataset pair
(the view is the number of messages and of ones, enumerated here independently of the
library) stays at or below the certified upper end from the subsampled dominating pair
(docs/conversions.md#poisson-subsampling-of-a-shuffled-round), and the lower end (one
neighbouring pair's count, docs/conversions.md#a-certified-lower-end-for-subsampled-rounds)
stays at or below it."""

import itertools
import math

import numpy as np
import pytest

from accountant.composition import pld
from accountant.composition.accountant import Accountant, Subsampled
from accountant.composition.subsampled import SubsampledPair
from accountant.protocols import randomizer
from accountant.protocols.binary_rr import BinaryRR
from accountant.protocols.k_rr import KRR


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
    view = BinaryRR(n=n, epsilon0=epsilon0).subsampled_view_pair(q, relation)
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
        # the lower end: one neighbouring pair's count of 1s, optimistic PLD
        lower = pld.compose_views([(view, rounds)], epsilon=epsilon,
                                  discretization=1e-3).lower.value
        assert lower <= worst + _BRUTE_SLACK, (epsilon, lower, worst)
        assert lower > 0
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


# ------------------------------------------------------------------ 3-ary randomized response
# The same check for shuffled 3-RR through the accountant (issue 11 acceptance): the view of
# one round is the histogram (c_0, c_1, c_2) of the participants' reports, enumerated here
# from the protocol's definition (each user absent with probability 1 - q, else reporting its
# value with probability e^eps0/(e^eps0 + 2) and each other value with 1/(e^eps0 + 2)).
# Datasets: the others' multiset of values (the view depends on nothing else) and every
# pair x != x' (substitute) or x against absent (add-remove), both orders; the same dataset
# in every round. Brute-force sums are floats: each term of the T-fold product carries a
# relative error below 64 u (at most 3 rounds of n <= 6 users' updates, then 3 products),
# and the positive parts sum to at most 1, so an absolute 1e-13 covers the rounding.
_BRUTE_SLACK = 1e-13


def _krr_round_view(others: tuple[int, ...], user: int | None, q: float, epsilon0: float,
                    k: int = 3) -> np.ndarray:
    """P(c_0, ..., c_{k-1}) of one round of shuffled k-RR with Poisson participation.

    Args:
        others: the other users' values in range(k).
        user: the differing user's value, None when it is not in the dataset.
        q: participation probability.
        epsilon0: the local randomizer's epsilon0.
        k: alphabet size.

    Returns:
        The flattened histogram law on {0..n}^k, n = len(others) + 1 (entries whose counts sum
        to more than the participants are 0).
    """
    n = len(others) + 1
    denom = math.exp(epsilon0) + k - 1
    dist = np.zeros((n + 1,) * k)
    dist[(0,) * k] = 1.0
    for value in list(others) + ([] if user is None else [user]):
        new = (1 - q) * dist
        for y in range(k):
            report = (math.exp(epsilon0) if y == value else 1.0) / denom
            src = tuple(slice(0, n) if axis == y else slice(None) for axis in range(k))
            dst = tuple(slice(1, n + 1) if axis == y else slice(None) for axis in range(k))
            new[dst] += q * report * dist[src]
        dist = new
    return dist.ravel()


def _krr_worst_delta(n: int, rounds: int, q: float, relation: str, epsilons: tuple[float, ...],
                     epsilon0: float, k: int = 3) -> list[float]:
    """max over datasets and both orders of the exact T-fold delta(eps), per eps."""
    worst = [0.0] * len(epsilons)
    for others in itertools.combinations_with_replacement(range(k), n - 1):
        if relation == "substitute":
            views = [(_krr_round_view(others, x, q, epsilon0, k),
                      _krr_round_view(others, y, q, epsilon0, k))
                     for x, y in itertools.combinations(range(k), 2)]
        else:
            absent = _krr_round_view(others, None, q, epsilon0, k)
            views = [(_krr_round_view(others, x, q, epsilon0, k), absent) for x in range(k)]
        for a, b in views:
            live = (a > 0) | (b > 0)
            pa, pb = a[live], b[live]
            ta, tb = pa, pb
            for _ in range(rounds - 1):
                ta, tb = np.multiply.outer(ta, pa).ravel(), np.multiply.outer(tb, pb).ravel()
            for i, eps in enumerate(epsilons):
                g = math.exp(eps)
                worst[i] = max(worst[i], math.fsum(np.maximum(ta - g * tb, 0.0)),
                               math.fsum(np.maximum(tb - g * ta, 0.0)))
    return worst


_KRR_EPSILONS = (0.2, 0.8)
_KRR_CASES = [(n, t, q, rel) for n, t, q, rel in itertools.product(
    (3, 5), (1, 2, 3), (0.3, 1.0), ("substitute", "add-remove"))]
_KRR_SLOW = [(6, t, q, rel) for t, q, rel in itertools.product(
    (1, 2, 3), (0.3, 1.0), ("substitute", "add-remove"))]


def _check_krr(n: int, rounds: int, q: float, relation: str, epsilon0: float) -> None:
    mech = KRR(n=n, epsilon0=epsilon0, k=3)
    acc = Accountant(neighboring=relation).compose(Subsampled(mech, q), count=rounds)
    worst = _krr_worst_delta(n, rounds, q, relation, _KRR_EPSILONS, epsilon0)
    for eps, exact in zip(_KRR_EPSILONS, worst, strict=True):
        bracket = acc.get_delta(eps)
        upper = bracket.upper.value
        assert exact <= upper + _BRUTE_SLACK, (eps, exact, upper)
        # a lower end in every case: the special pair (plain round) or the subsampled
        # special-pair count (Mechanism.subsampled_view_pair)
        assert bracket.lower is not None
        assert bracket.lower.value <= exact + _BRUTE_SLACK, (eps, bracket.lower.value, exact)
        assert bracket.lower.value <= upper
        if relation == "add-remove" and q == 1.0:
            assert exact == pytest.approx(1.0) and upper == 1.0  # presence is revealed
        else:
            assert upper < 1.0
        if relation == "substitute" and q == 1.0:
            # the plain round: the special pair gives a lower end (one of the datasets above)
            assert bracket.lower is not None


@pytest.mark.parametrize("n, rounds, q, relation", _KRR_CASES)
def test_exact_subsampled_3rr_delta_is_inside_the_accountant_bracket(n, rounds, q, relation):
    _check_krr(n, rounds, q, relation, epsilon0=1.0)


@pytest.mark.slow
@pytest.mark.parametrize("epsilon0", (1.0, 2.5))
@pytest.mark.parametrize("n, rounds, q, relation", _KRR_SLOW)
def test_exact_subsampled_3rr_delta_n6(n, rounds, q, relation, epsilon0):
    _check_krr(n, rounds, q, relation, epsilon0=epsilon0)


@pytest.mark.parametrize("n", (3, 5))
def test_3rr_enumeration_matches_the_library_exact_worst_case_at_full_participation(n):
    # validates the enumeration above: at q = 1, one round, substitute, it is the worst case
    # over datasets of the plain shuffled 3-RR, which `randomizer.exact_worst_case` computes
    # in integer arithmetic from e^eps0 = 3 (a different code path and representation)
    epsilon0 = math.log(3.0)
    for eps, mine in zip(_KRR_EPSILONS, _krr_worst_delta(n, 1, 1.0, "substitute",
                                                         _KRR_EPSILONS, epsilon0), strict=True):
        exact = randomizer.exact_worst_case(randomizer.k_rr(3, exp_epsilon0=3), n, epsilon=eps)
        assert mine == pytest.approx(float(exact.delta), rel=1e-12, abs=_BRUTE_SLACK)
