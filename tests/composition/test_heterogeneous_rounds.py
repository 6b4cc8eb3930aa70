"""Rounds that differ (issue 21, item 5): one ledger of shuffled binary RR rounds whose n,
epsilon0 and Poisson rate change from round to round, checked by brute force. Every round's
other users are chosen independently (the adversary may pick each round's dataset), so the
worst composed delta is the maximum, over every choice of the other users' bits in every
round, of the exact product's hockey-stick; the accountant's certified upper end must lie
above it and its lower end below it."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from accountant.composition.accountant import Accountant, Subsampled
from accountant.protocols.binary_rr import BinaryRR

# (n, epsilon0, rate): three different rounds (rate 1 under substitution only: under
# add/remove a full-participation round reveals presence through its message count)
ROUNDS = {"substitute": ((3, 1.0, 0.4), (4, 0.5, 1.0), (2, 1.5, 0.7)),
          "add-remove": ((3, 1.0, 0.4), (4, 0.5, 0.9), (2, 1.5, 0.7))}


def _round_view(others: tuple[int, ...], user: int | None, rate: float,
                epsilon0: float) -> np.ndarray:
    """P(#messages = m, #ones = o) of one round (each user present with probability `rate`,
    then binary RR), enumerated here without the library; `user` None: absent from the
    dataset. Padded to a fixed (5, 5) grid so every round's pairs share one layout."""
    keep = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    dist = np.zeros((5, 5))
    dist[0, 0] = 1.0
    for bit in [*others, *([] if user is None else [user])]:
        one = keep if bit == 1 else 1 - keep
        new = (1 - rate) * dist
        new[1:, 1:] += rate * one * dist[:-1, :-1]
        new[1:, :] += rate * (1 - one) * dist[:-1, :]
        dist = new
    return dist.ravel()


def _pairs(n: int, epsilon0: float, rate: float, relation: str) -> list[tuple[np.ndarray, ...]]:
    """Every neighbouring pair of one round (both orders), up to the others' bit count."""
    out = []
    for ones in range(n):
        others = (1,) * ones + (0,) * (n - 1 - ones)
        if relation == "substitute":
            a, b = _round_view(others, 1, rate, epsilon0), _round_view(others, 0, rate, epsilon0)
            out += [(a, b), (b, a)]
        else:
            absent = _round_view(others, None, rate, epsilon0)
            for bit in (0, 1):
                present = _round_view(others, bit, rate, epsilon0)
                out += [(present, absent), (absent, present)]
    return out


def _worst_delta(relation: str, epsilon: float) -> float:
    """max over each round's pair (same order across rounds is not required: the adversary
    fixes the datasets, and the differing user is in both or neither at every round) of the
    product's hockey-stick at epsilon."""
    per_round = [_pairs(n, e0, q, relation) for n, e0, q in ROUNDS[relation]]
    worst = 0.0
    for choice in itertools.product(*(range(len(p)) for p in per_round)):
        p, q = np.ones(1), np.ones(1)
        for pairs, i in zip(per_round, choice, strict=True):
            p = np.multiply.outer(p, pairs[i][0]).ravel()
            q = np.multiply.outer(q, pairs[i][1]).ravel()
        worst = max(worst, math.fsum(np.maximum(p - math.exp(epsilon) * q, 0.0)))
    return worst


@pytest.mark.parametrize("relation", ["substitute", "add-remove"])
def test_a_ledger_of_different_rounds_brackets_the_brute_force(relation):
    acc = Accountant(relation)
    for n, epsilon0, rate in ROUNDS[relation]:
        mech = BinaryRR(n=n, epsilon0=epsilon0)
        acc.compose(mech if rate == 1.0 and relation == "substitute" else Subsampled(mech, rate))
    for epsilon in (0.3, 1.0, 2.0):
        worst = _worst_delta(relation, epsilon)
        b = acc.get_delta(epsilon)
        # the brute force sums in float: a relative 1e-12 covers its rounding
        assert worst <= float(b.upper) * (1 + 1e-12), (epsilon, worst, b)
        if b.lower is not None:
            assert float(b.lower) <= worst * (1 + 1e-12) + 1e-15, (epsilon, worst, b)
        assert 0 < worst < 1
