"""Girgis et al., CCS 2021, Section 5 and Appendix B (the reduction to special pairs) and
Section 6 (the special pairs' moments), checked exactly on concrete randomizers.

Each test draws small randomizers (seeded, so a failure is reproducible from its seed) and checks
one numbered statement against the library's exact views and Renyi divergences
(`figures.girgis_checks`): Lemma 3 (mixture identity), Lemmas 4 and 9 (joint convexity),
Lemma 5 and Corollary 3 (removing a common user never lowers D_lambda), Lemma 8 (monotone in
m), Theorem 4 (eq. (14) at every neighbouring pair), Lemma 6 (moments of X) and Theorem 6
(eq. (44)). The seed text lost the formulas; docs/girgis-2021.md restates the ones used.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountant.divergence import renyi_divergence
from accountant.protocols.randomizer import Randomizer, binary_rr, exact_view_pair
from accountant.view import ViewPair
from figures import girgis_checks as gc

SEEDS = st.integers(min_value=0, max_value=2**31 - 1)
ORDERS = st.sampled_from([1.5, 2.0, 3.0, 4.0, 8.0])
FAST = settings(max_examples=25, deadline=None)


def _simplex(rng: np.random.Generator, size: int) -> np.ndarray:
    v = rng.uniform(0.05, 1.0, size)
    return v / v.sum()


@FAST
@given(seed=SEEDS, size=st.integers(2, 6), alpha=st.sampled_from([1.5, 2.0, 3.5, 8.0]),
       t=st.floats(0.0, 1.0))
def test_lemma9_hellinger_integral_is_jointly_convex(seed, size, alpha, t):
    # Lemma 9, eq. (66): sum p^a q^(1-a) is jointly convex in (p, q) for a > 1
    rng = np.random.default_rng(seed)
    p1, q1, p2, q2 = (_simplex(rng, size) for _ in range(4))

    def h(p, q):
        return float(np.sum(p ** alpha * q ** (1 - alpha)))
    mixed = h(t * p1 + (1 - t) * p2, t * q1 + (1 - t) * q2)
    assert mixed <= (t * h(p1, q1) + (1 - t) * h(p2, q2)) * (1 + 1e-12)


@FAST
@given(seed=SEEDS, size=st.integers(2, 5), parts=st.integers(2, 4), alpha=ORDERS)
def test_lemma4_exp_renyi_is_jointly_convex(seed, size, parts, alpha):
    # Lemma 4, eq. (25), with the library's D_alpha: exp((a-1) D_a) of a mixture is at most the
    # mixture of exp((a-1) D_a)
    rng = np.random.default_rng(seed)
    weights = _simplex(rng, parts)
    ps = [_simplex(rng, size) for _ in range(parts)]
    qs = [_simplex(rng, size) for _ in range(parts)]

    def e(p, q, end):
        low, high = gc.bracket(renyi_divergence(ViewPair.from_arrays(p, q), alpha,
                                                direction="P||Q"))
        return math.exp((alpha - 1) * (low if end == "low" else high))
    mixed = e(sum(w * p for w, p in zip(weights, ps, strict=True)),
              sum(w * q for w, q in zip(weights, qs, strict=True)), "low")
    assert mixed <= sum(w * e(p, q, "high") for w, p, q in zip(weights, ps, qs, strict=True))


@FAST
@given(seed=SEEDS, others=st.integers(1, 4), outputs=st.integers(2, 3), alpha=ORDERS)
def test_lemma5_removing_a_common_user_never_lowers_renyi(seed, others, outputs, alpha):
    # Lemma 5, eq. (26): any distributions (no LDP needed); the pair differs in the last user
    rng = np.random.default_rng(seed)
    rows = [_simplex(rng, outputs) for _ in range(others + 2)]
    matrix = Randomizer.from_rows([r.tolist() for r in rows])
    ids = list(range(others))
    n = others + 1

    def d(users: list[int]) -> tuple[float, float]:
        if not users:
            return gc.bracket(renyi_divergence(ViewPair.from_arrays(rows[-2], rows[-1]), alpha,
                                               direction="P||Q"))
        view = exact_view_pair(matrix, len(users) + 1, [*users, others], [*users, others + 1])
        return gc.bracket(renyi_divergence(view, alpha, direction="P||Q"))
    with_all = d(ids)
    without_first = d(ids[1:])
    assert n >= 2 and with_all[0] <= without_first[1]


@FAST
@given(seed=SEEDS, size=st.integers(1, 5))
def test_lemma3_view_is_the_mixture_of_special_views(seed, size):
    # Lemma 3, eqs. (23)-(24): exact identity; the only error is float rounding
    matrix = gc.random_randomizer(inputs=3, outputs=3, seed=seed)
    rng = np.random.default_rng(seed + 1)
    others = tuple(int(v) for v in rng.integers(0, 3, size))
    x = int(rng.integers(0, 3))
    base = (x + int(rng.integers(1, 3))) % 3
    assert gc.lemma3_mixture_gap(matrix, others=others, x=x, base=base) <= 1e-12


@FAST
@given(seed=SEEDS, residual=st.integers(1, 3), m=st.integers(0, 3), alpha=ORDERS)
def test_corollary3_residual_users_can_be_dropped(seed, residual, m, alpha):
    # Corollary 3, eq. (27): (q' x m, residual users, p) against (q' x (m+1), residual users)
    # is at most the special pair of m + 1 users
    matrix = gc.random_randomizer(inputs=2 + residual, outputs=3, seed=seed)
    x, base = 0, 1
    others = [base] * m + list(range(2, 2 + residual))
    view = exact_view_pair(matrix, len(others) + 1, [*others, x], [*others, base])
    left = gc.bracket(renyi_divergence(view, alpha, direction="P||Q"))
    right = gc.special_pair_renyi(matrix, x=x, base=base, users=m + 1, alpha=alpha)
    assert left[0] <= right[1]


@FAST
@given(seed=SEEDS, alpha=ORDERS)
def test_lemma8_special_pair_is_nonincreasing_in_m(seed, alpha):
    matrix = gc.random_randomizer(inputs=3, outputs=3, seed=seed)
    assert gc.lemma8_largest_increase(matrix, max_users=12, alpha=alpha) <= 0


@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, n=st.integers(2, 8), alpha=st.sampled_from([2.0, 4.0, 16.0]))
def test_theorem4_holds_at_every_neighbouring_pair(seed, n, alpha):
    matrix = gc.random_randomizer(inputs=3, outputs=3, seed=seed)
    check = gc.theorem4_check(matrix, n=n, alpha=alpha)
    assert check.violations == 0 and check.tightest <= 1
    # the reduction's bound on the mechanism's RDP is above its exact RDP
    assert check.worst <= check.worst_bound


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("alpha", [2.0, 4.0, 16.0])
def test_theorem4_exhaustive_at_n30(seed, alpha):
    check = gc.theorem4_check(gc.random_randomizer(inputs=3, outputs=3, seed=seed), n=30,
                              alpha=alpha)
    assert check.pairs == 2790 and check.violations == 0 and check.tightest <= 1


@FAST
@given(seed=SEEDS, users=st.integers(1, 25))
def test_lemma6_moments_of_x(seed, users):
    matrix = gc.random_randomizer(inputs=2, outputs=3, seed=seed)
    r = gc.special_pair_moments(matrix, x=1, base=0, users=users)
    assert abs(r.mean) <= 1e-12                                               # Lemma 6.1
    assert r.variance == pytest.approx(r.chi_square_over_m, rel=1e-9)         # Lemma 6.2, (34)
    # Lemma 7, eq. (39): chi^2 <= (e^eps0 - 1)^2 / e^eps0
    e0 = matrix.epsilon0
    assert r.chi_square_over_m * users <= math.expm1(e0) ** 2 / math.exp(e0) * (1 + 1e-12)
    for j, value in r.absolute.items():                                       # Lemma 6.3, (35)
        assert value <= r.lemma6_bound[j]


@pytest.mark.parametrize("epsilon0", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("users", [1, 2, 10, 100])
def test_theorem6_on_binary_rr_the_largest_chi_square(epsilon0, users):
    # binary RR attains Lemma 7's largest chi^2, so it is where eq. (44) is closest
    r = gc.special_pair_moments(binary_rr(epsilon0), x=1, base=0, users=users,
                                real_orders=(1.01, 1.5, 2.0, 3.3, 8.0, 32.0))
    for a, value in r.moment.items():
        assert value <= r.theorem6_bound[a]
    # at lambda = 2 the exact moment is 1 + chi^2/m (Lemma 6.2): the bound exp(4 chi/m) is above
    assert r.moment[2.0] == pytest.approx(1 + r.chi_square_over_m, rel=1e-9)
