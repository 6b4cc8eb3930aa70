"""Property tests (hypothesis): identities and monotonicity that every divergence must obey.

Pairs are random rational PMFs on a few outcomes, so that the exact backend makes most
assertions exact (no tolerance to hide behind); Renyi orders use the mp backend.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from accountant import (
    Direction,
    ViewPair,
    delta_for_epsilon,
    epsilon_for_delta,
    max_divergence,
    renyi_divergence,
)
from accountant.domains import ALPHA, EPSILON
from accountant.pairs import binomial_shift_pair

TINY = mpmath.mpf(10) ** -35


def _rational_pmf(weights: list[int]) -> list[Fraction]:
    total = sum(weights)
    return [Fraction(w, total) for w in weights]


@st.composite
def rational_pairs(draw, min_size=2, max_size=7, positive=True):
    size = draw(st.integers(min_size, max_size))
    low = 1 if positive else 0
    p = draw(st.lists(st.integers(low, 50), min_size=size, max_size=size))
    q = draw(st.lists(st.integers(1, 50), min_size=size, max_size=size))
    assume(sum(p) > 0)
    return _rational_pmf(p), _rational_pmf(q)


def _exact(pair) -> ViewPair:
    return ViewPair.from_arrays(*pair, backend="exact")


def _mp(pair) -> ViewPair:
    return ViewPair.from_arrays(pair[0], pair[1], backend="mp", tolerance=1e-40)


gammas = st.fractions(min_value=1, max_value=20, max_denominator=50)
directions = st.sampled_from(list(Direction))


@given(rational_pairs(positive=False), gammas, gammas, directions)
def test_delta_is_nonincreasing_in_epsilon(pair, g1, g2, direction):
    v = _exact(pair)
    lo, hi = sorted((g1, g2))
    assert (delta_for_epsilon(v, exp_epsilon=hi, direction=direction).value
            <= delta_for_epsilon(v, exp_epsilon=lo, direction=direction).value)


@given(rational_pairs(positive=False), gammas, gammas, st.fractions(0, 1, max_denominator=20),
       st.sampled_from([Direction.P_Q, Direction.Q_P]))
def test_delta_is_convex_in_exp_epsilon(pair, g1, g2, t, direction):
    v = _exact(pair)
    mid = t * g1 + (1 - t) * g2

    def h(g):
        return delta_for_epsilon(v, exp_epsilon=g, direction=direction).value

    assert h(mid) <= t * h(g1) + (1 - t) * h(g2)


@given(rational_pairs(), ALPHA.strategy(max_value=40.0), ALPHA.strategy(max_value=40.0),
       directions)
def test_renyi_is_nondecreasing_in_alpha(pair, a1, a2, direction):
    v = _mp(pair)
    lo, hi = sorted((a1, a2))
    with mpmath.workdps(50):
        assert (renyi_divergence(v, lo, direction=direction).value
                <= renyi_divergence(v, hi, direction=direction).value + TINY)
        assert (renyi_divergence(v, hi, direction=direction).value
                <= max_divergence(v, direction=direction).value + TINY)


@given(rational_pairs(min_size=3), st.data(), gammas, st.integers(2, 6), directions)
def test_merging_outcomes_never_increases_a_divergence(pair, data, gamma, alpha, direction):
    v = _exact(pair)
    groups = np.array(data.draw(st.lists(st.integers(0, 2), min_size=v.size, max_size=v.size)))
    w = v.merged(groups)
    assert (delta_for_epsilon(w, exp_epsilon=gamma, direction=direction).value
            <= delta_for_epsilon(v, exp_epsilon=gamma, direction=direction).value)
    with mpmath.workdps(50):
        assert (renyi_divergence(w, alpha, direction=direction).value
                <= renyi_divergence(v, alpha, direction=direction).value + TINY)
        assert (max_divergence(w, direction=direction).value
                <= max_divergence(v, direction=direction).value + TINY)


@given(rational_pairs(positive=False), gammas, directions)
def test_epsilon_of_delta_of_epsilon_returns_epsilon(pair, gamma, direction):
    v = _exact(pair)
    delta = delta_for_epsilon(v, exp_epsilon=gamma, direction=direction).value
    # Where delta(eps) equals the infinite-loss mass the curve is flat and the inverse
    # returns the left end of the flat part; exclude that (and delta = 0 or 1).
    atoms = max(sum(p for p, q in zip(v.p, v.q, strict=True) if q == 0),
                sum(q for p, q in zip(v.p, v.q, strict=True) if p == 0))
    assume(0 < delta < 1 and delta > atoms and gamma > 1)
    with mpmath.workdps(50):
        eps = epsilon_for_delta(v, delta, direction=direction).value
        assert abs(eps - mpmath.log(mpmath.mpf(gamma.numerator) / gamma.denominator)) < TINY


@given(st.integers(2, 3000), st.floats(0.05, 0.95), EPSILON.strategy(max_value=2.0))
def test_epsilon_of_delta_of_epsilon_float_shift_pair(n, p, epsilon):
    v = binomial_shift_pair(n, p)
    delta = float(delta_for_epsilon(v, epsilon))
    assume(1e-300 < delta < 0.5 and epsilon > 1e-6)
    assume(delta > 2 * max(math.exp(n * math.log1p(-p)), math.exp(n * math.log(p))))
    back = float(epsilon_for_delta(v, delta))
    # delta was rounded up, so the inverse may come back a hair below epsilon
    assert abs(back - epsilon) <= 1e-9 * max(1.0, epsilon)


@given(rational_pairs(max_size=4), rational_pairs(max_size=4), ALPHA.strategy(max_value=30.0))
def test_products_add_renyi_divergences(pair1, pair2, alpha):
    v1, v2 = _mp(pair1), _mp(pair2)
    with mpmath.workdps(50):
        total = renyi_divergence(v1.product(v2), alpha, direction="P||Q").value
        parts = (renyi_divergence(v1, alpha, direction="P||Q").value
                 + renyi_divergence(v2, alpha, direction="P||Q").value)
        assert abs(total - parts) < mpmath.mpf(10) ** -30 * max(1, parts)
        tmax = max_divergence(v1.product(v2), direction="P||Q").value
        pmax = (max_divergence(v1, direction="P||Q").value
                + max_divergence(v2, direction="P||Q").value)
        assert abs(tmax - pmax) < mpmath.mpf(10) ** -30 * max(1, pmax)


@given(rational_pairs(max_size=4), rational_pairs(max_size=4), ALPHA.strategy(max_value=30.0))
def test_products_add_renyi_divergences_float(pair1, pair2, alpha):
    f1 = ViewPair.from_arrays([float(x) for x in pair1[0]], [float(x) for x in pair1[1]])
    f2 = ViewPair.from_arrays([float(x) for x in pair2[0]], [float(x) for x in pair2[1]])
    total = float(renyi_divergence(f1.product(f2), alpha, direction="P||Q"))
    parts = (float(renyi_divergence(f1, alpha, direction="P||Q"))
             + float(renyi_divergence(f2, alpha, direction="P||Q")))
    assert abs(total - parts) <= 1e-9 * max(1.0, parts)
