"""Heterogeneous users (docs/heterogeneous.md): the clones pair with a Poisson-binomial count
against exhaustive exact enumeration at n <= 8, the homogeneous families, colluders, and
bad input."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from accountant.divergence import delta_bracket
from accountant.errors import ParameterError
from accountant.pairs import clones
from accountant.pairs import heterogeneous_clones as hc
from accountant.protocols.heterogeneous import (
    HeterogeneousRandomizer,
    binary_rr_group,
    cross_clone_probability,
    exact_worst_case,
    k_rr_group,
    matrix_group,
)
from accountant.protocols.heterogeneous.views import count_pair, histogram_law, histogram_pair
from accountant.protocols.k_rr import KRR
from accountant.protocols.ldp import LDP
from accountant.protocols.randomizer import Randomizer, RandomizerMechanism
from accountant.result import Kind, Scope

GAMMAS = (Fraction(1), Fraction(5, 4), Fraction(3, 2), Fraction(2))
ORDERS = (2.0, 5.0)


def _random_matrix(rng: random.Random, k: int, m: int) -> Randomizer:
    """A rational matrix with entries proportional to integers 1..9 (seeded)."""
    rows = []
    for _ in range(k):
        r = [Fraction(rng.randint(1, 9)) for _ in range(m)]
        rows.append([v / sum(r) for v in r])
    return Randomizer.from_rows(rows)


def _cases() -> dict[str, tuple]:
    rng = random.Random(20260127)
    out = {
        "binary-rr-1-and-2": (binary_rr_group(3, 1.0), binary_rr_group(3, 2.0)),
        "3rr-1-and-2.5": (k_rr_group(2, 1.0, 3), k_rr_group(3, 2.5, 3)),
        # a group that never sends output 2 while the other does: no cross clones there
        "zero-column": (matrix_group(3, [[Fraction(1, 2), Fraction(1, 2), 0],
                                         [Fraction(1, 4), Fraction(3, 4), 0]]),
                        matrix_group(3, [[Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)],
                                         [Fraction(1, 6), Fraction(1, 2), Fraction(1, 3)]])),
        "three-groups-3x3": tuple(matrix_group(c, _random_matrix(rng, 3, 3)) for c in (2, 2, 1)),
    }
    for t in range(4):
        out[f"random-2x3-{t}"] = (matrix_group(rng.randint(1, 4), _random_matrix(rng, 2, 3)),
                                 matrix_group(rng.randint(1, 4), _random_matrix(rng, 2, 3)))
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def exact() -> dict[str, object]:
    return {}


def _worst(name: str, cache: dict[str, object]):
    if name not in cache:
        cache[name] = exact_worst_case(CASES[name], exp_epsilons=GAMMAS, alphas=ORDERS)
    return cache[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_delta_bracket_holds_the_exact_worst_case(name, exact):
    worst = _worst(name, exact)
    mech = HeterogeneousRandomizer(groups=CASES[name])
    for g in GAMMAS:
        b = mech.delta_for_epsilon(math.log(g))
        assert b.upper.scope is Scope.MECHANISM
        # the exact rational worst case over every neighbouring pair, both orders
        assert b.lower.value <= worst.deltas[g] <= b.upper.value, (float(g), b)


@pytest.mark.parametrize("name", sorted(CASES))
def test_renyi_bracket_holds_the_exact_worst_case(name, exact):
    worst = _worst(name, exact)
    brackets = HeterogeneousRandomizer(groups=CASES[name]).renyi(list(ORDERS))
    for a, b in zip(ORDERS, brackets, strict=True):
        # the enumeration's Renyi values are 40-digit mpmath, rounded to float
        assert b.lower.value <= worst.renyi[a] * (1 + 1e-12) + 1e-15
        assert worst.renyi[a] <= b.upper.value * (1 + 1e-12), (a, b)


def test_epsilon_upper_end_meets_delta_at_the_exact_worst_case(exact):
    # epsilon(delta)'s upper end is certified: the exact worst delta there is <= delta
    name = "random-2x3-0"
    mech = HeterogeneousRandomizer(groups=CASES[name])
    b = mech.epsilon_for_delta(0.05)
    g = Fraction(math.exp(b.upper.value))
    worst = exact_worst_case(CASES[name], exp_epsilons=[g])
    assert worst.deltas[g] <= 0.05


def test_cross_clone_probability_of_k_rr_is_two_over_e_plus_one():
    # k-RR: the smallest entry 1/(e+k-1) against the largest column pair (e+1)/(e+k-1)
    g = k_rr_group(5, 1.5, 4)
    e = g.matrix.rows[0][0] / g.matrix.rows[0][1]  # e^eps0 as the exact rational used
    assert cross_clone_probability(g, g) == 2 / (e + 1)


@pytest.mark.parametrize("seed", range(6))
def test_cross_condition_holds_at_p_and_fails_above(seed):
    rng = random.Random(seed)
    h, g = (matrix_group(1, _random_matrix(rng, 3, 4)) for _ in range(2))
    p = cross_clone_probability(h, g)
    slack = []
    for x0 in range(3):
        for x1 in range(3):
            if x0 == x1:
                continue
            for z in range(3):
                for y in range(4):
                    m = (g.matrix.rows[x0][y] + g.matrix.rows[x1][y]) / 2
                    assert h.matrix.rows[z][y] >= p * m  # L_j is a law
                    if m > 0:
                        slack.append(h.matrix.rows[z][y] / m)
    assert min(slack) == p or p == 1  # the largest valid p, not a smaller one


def test_ldp_matrix_clone_probability_is_at_least_fmt():
    rng = random.Random(7)
    for _ in range(10):
        g = matrix_group(1, _random_matrix(rng, 3, 3))
        assert cross_clone_probability(g, g) >= Fraction(math.exp(-g.matrix.epsilon0))


@pytest.mark.parametrize(("n", "epsilon0"), [(100, 1.0), (10_000, 2.0)])
def test_one_binary_rr_group_gives_the_binary_rr_blanket_pair(n, epsilon0):
    # same pair as KRR(k=2): C ~ Bin(n-1, 2/(e+1)), w = e/(e+1); the matrix's epsilon0 is
    # rounded up, so ours may be an ulp larger, never smaller
    ours = HeterogeneousRandomizer(groups=(binary_rr_group(n, epsilon0),))
    theirs = KRR(n=n, epsilon0=epsilon0, k=2)
    a, b = ours.epsilon_for_delta(1e-6).upper.value, theirs.epsilon_for_delta(1e-6).upper.value
    assert b <= a <= b * (1 + 1e-12)
    d1, d2 = ours.delta_for_epsilon(0.2).upper.value, theirs.delta_for_epsilon(0.2).upper.value
    assert d2 <= d1 <= d2 * (1 + 1e-9)


def test_split_group_gives_identical_numbers():
    one = HeterogeneousRandomizer(groups=(k_rr_group(700, 1.0, 3),))
    two = HeterogeneousRandomizer(groups=(k_rr_group(300, 1.0, 3), k_rr_group(400, 1.0, 3)))
    assert one.epsilon_for_delta(1e-6).upper.value == two.epsilon_for_delta(1e-6).upper.value
    assert one.renyi([4.0])[0].upper.value == two.renyi([4.0])[0].upper.value


def test_never_looser_than_the_ldp_class():
    groups = (k_rr_group(500, 1.0, 3), k_rr_group(500, 2.0, 3))
    ours = HeterogeneousRandomizer(groups=groups).epsilon_for_delta(1e-6)
    # every user is 2-LDP: FMT's clones pair of that class dominates too, and our clone
    # probabilities are >= e^-2 with w at epsilon0 <= 2
    assert ours.upper.value <= LDP(n=1000, epsilon0=2.0).epsilon_for_delta(1e-6).upper.value


def test_single_matrix_group_stays_above_the_randomizer_lower_end():
    rows = [[0.55, 0.15, 0.15, 0.15], [0.15, 0.55, 0.15, 0.15], [0.15, 0.15, 0.40, 0.30]]
    ours = HeterogeneousRandomizer(groups=(matrix_group(30, rows),)).delta_for_epsilon(0.3)
    theirs = RandomizerMechanism(matrix=Randomizer.from_rows(rows), n=30).delta_for_epsilon(0.3)
    # both certify the same mechanism: each upper end above the other's lower end
    assert theirs.lower.value <= ours.upper.value and ours.lower.value <= theirs.upper.value


def test_poisson_binomial_path_agrees_with_the_binomial_one():
    # p and p (1 - 1e-15): the general path (blocks over a convolved count) must bracket the
    # binomial code's value of (almost) the same pair
    same = hc.heterogeneous_clones(counts=[300, 200], clone_probabilities=[0.3, 0.3],
                                   epsilon0=1.0)
    near = hc.heterogeneous_clones(counts=[300, 200], clone_probabilities=[0.3, 0.3 * (1 - 1e-15)],
                                   epsilon0=1.0)
    assert hc.binomial_pair(same) is not None and hc.binomial_pair(near) is None
    a = hc.delta_for_epsilon(same, epsilon=0.2)
    b = hc.delta_for_epsilon(near, epsilon=0.2)
    assert b.lower.value <= a.upper.value * (1 + 1e-9) and a.lower.value <= b.upper.value
    assert b.upper.value - b.lower.value <= 1e-3 * b.upper.value


def test_smaller_clone_probability_gives_larger_delta():
    lo = hc.heterogeneous_clones(counts=[400, 400], clone_probabilities=[0.2, 0.5], epsilon0=1.0)
    hi = hc.heterogeneous_clones(counts=[400, 400], clone_probabilities=[0.2, 0.6], epsilon0=1.0)
    # one class's p raised: C grows stochastically, every H_c is nonincreasing in c
    assert hc.delta_for_epsilon(hi, epsilon=0.1).upper.value < \
        hc.delta_for_epsilon(lo, epsilon=0.1).lower.value


def test_renyi_dominating_pair_is_at_the_smallest_probability():
    pair = hc.heterogeneous_clones(counts=[10, 20], clone_probabilities=[0.4, 0.7],
                                   epsilon0=1.0)
    dom = hc.renyi_dominating_pair(pair)
    assert isinstance(dom, clones.ClonePair) and dom.clone_probability == 0.4
    assert dom.others == 30


def test_colluders_give_the_honest_users_view(exact):
    groups = (binary_rr_group(3, 1.0), binary_rr_group(4, 2.0))
    with_colluders = HeterogeneousRandomizer(groups=groups, colluders=2)
    # worst case over which 2 users collude: every split of the 2 among the groups
    for split in ((2, 0), (1, 1), (0, 2)):
        honest = (binary_rr_group(3 - split[0], 1.0), binary_rr_group(4 - split[1], 2.0))
        worst = exact_worst_case(honest, exp_epsilons=[Fraction(3, 2)])
        assert worst.deltas[Fraction(3, 2)] <= \
            with_colluders.delta_for_epsilon(math.log(1.5)).upper.value
    assert "colluders c = 2" in with_colluders.delta_for_epsilon(0.4).upper.method


def test_revealed_colluder_messages_do_not_change_the_divergence():
    # joint law (honest histogram, colluders' histogram) = product: the same delta exactly
    g = (binary_rr_group(1, 1.0), binary_rr_group(1, 2.0))
    hist_p, law_p = histogram_law(g, [[0], [1]])
    _, law_q = histogram_law(g, [[1], [1]])
    _, colluder = histogram_law((binary_rr_group(1, 2.0), binary_rr_group(1, 0.5)), [[0], [1]])
    gamma = Fraction(5, 4)
    honest = sum(max(p - gamma * q, 0) for p, q in zip(law_p, law_q, strict=True))
    joint = sum(max(p * c - gamma * q * c, 0) for p, q in zip(law_p, law_q, strict=True)
                for c in colluder)
    assert joint == honest and honest > 0
    assert hist_p.shape == (3, 2)


def test_count_range_is_answered_at_the_fewest_users():
    fixed = HeterogeneousRandomizer(groups=(binary_rr_group(40, 1.0), k_rr_group(0, 1.0, 2)))
    ranged = HeterogeneousRandomizer(groups=({"count": 40, "count_max": 90,
                                              "randomizer": "binary-rr", "epsilon0": 1.0},))
    assert ranged.epsilon_for_delta(1e-6).upper.value == \
        fixed.epsilon_for_delta(1e-6).upper.value
    assert "ranges" in ranged.params()["counts"]


def test_dominating_pair_composes_above_every_group():
    mech = HeterogeneousRandomizer(groups=(binary_rr_group(300, 1.0), binary_rr_group(200, 2.0)))
    dom = mech.dominating_pair()
    assert isinstance(dom.composable, clones.ClonePair)
    composed = clones.delta_for_epsilon(dom.composable, epsilon=0.3).upper.value
    assert composed >= mech.delta_for_epsilon(0.3).upper.value
    from accountant.composition import Accountant
    out = Accountant().compose(mech, count=10).get_epsilon(1e-5)
    assert out.upper.kind is Kind.UPPER and out.upper.value > 0


def test_max_divergence_is_the_largest_epsilon0():
    b = HeterogeneousRandomizer(groups=(binary_rr_group(5, 1.0), binary_rr_group(5, 2.0))) \
        .max_divergence()
    assert b.lower.value <= 2.0 <= b.upper.value <= 2.0 + 1e-15


@pytest.mark.parametrize("side", ["x", "x_prime"])
def test_histogram_lower_pair_is_the_exact_view_of_its_datasets(side):
    # group 1 (epsilon0 = 2) differs with (x, x') = (0, 1); the others all hold x or all x'
    groups = (binary_rr_group(2, 1.0), k_rr_group(0, 1.0, 2), binary_rr_group(2, 2.0))
    view = histogram_pair(groups, differing=2, honest=(2, 0, 2), others_hold=side)
    z = 0 if side == "x" else 1
    _, lp = histogram_law(groups, [[z, z], [], [0, z]])
    _, lq = histogram_law(groups, [[z, z], [], [1, z]])
    gamma = Fraction(3, 2)
    exact_delta = sum(max(p - gamma * q, 0) for p, q in zip(lp, lq, strict=True))
    lo, hi = delta_bracket(view, math.log(1.5), direction="P||Q")
    assert lo.value <= exact_delta * (1 + 1e-12) and exact_delta <= hi.value * (1 + 1e-12)


def test_count_lower_pair_is_the_exact_view_for_two_outputs():
    # with two outputs the count of y IS the histogram
    groups = (binary_rr_group(2, 1.0), binary_rr_group(2, 2.0))
    view = count_pair(groups, differing=1, honest=(2, 2))
    _, lp = histogram_law(groups, [[1, 1], [0, 1]])
    _, lq = histogram_law(groups, [[1, 1], [1, 1]])
    gamma = Fraction(3, 2)
    exact_delta = sum(max(p - gamma * q, 0) for p, q in zip(lp, lq, strict=True))
    lo, hi = delta_bracket(view, math.log(1.5), direction="P||Q")
    assert lo.value <= exact_delta * (1 + 1e-12) and exact_delta <= hi.value * (1 + 1e-12)


def test_lower_end_uses_the_histogram_view_when_small_and_the_count_beyond():
    small = HeterogeneousRandomizer(groups=(k_rr_group(5, 1.0, 3), k_rr_group(5, 2.0, 3)))
    assert small.view_pair().description["pair"] == "histogram view"
    large = HeterogeneousRandomizer(groups=(k_rr_group(500, 1.0, 3), k_rr_group(500, 2.0, 3)))
    assert large.view_pair().description["pair"] == "count of one output"


@pytest.mark.parametrize(("groups", "match"), [
    ((), "non-empty"),
    (({"count": 3},), "rows"),
    (({"count": -1, "randomizer": "binary-rr", "epsilon0": 1.0},), "count=-1"),
    (({"count": 3, "count_max": 2, "randomizer": "binary-rr", "epsilon0": 1.0},), "count_max=2"),
    (({"count": 3, "randomizer": "laplace", "epsilon0": 1.0},), "randomizer='laplace'"),
    (({"count": 3, "randomizer": "k-rr", "epsilon0": 1.0},), "needs \"k\""),
    (({"count": 3, "randomizer": "binary-rr", "epsilon0": -1.0},), "epsilon0=-1.0"),
    (({"count": 3, "randomizer": "binary-rr", "epsilon0": 1.0, "colour": 1},), "colour"),
    (({"count": 3, "rows": [[1, 0], [0, 1]]},), "epsilon0=inf"),
    (({"count": 3, "randomizer": "binary-rr", "epsilon0": 1.0},
      {"count": 3, "randomizer": "k-rr", "epsilon0": 1.0, "k": 3}), "outside 2 x 2"),
    (({"count": 0, "randomizer": "binary-rr", "epsilon0": 1.0},), "n=0"),
])
def test_bad_groups_are_parameter_errors(groups, match):
    with pytest.raises(ParameterError, match=match):
        HeterogeneousRandomizer(groups=groups)


def test_colluders_must_leave_an_honest_user():
    with pytest.raises(ParameterError, match=r"colluders=4 is outside \[0, 3\]"):
        HeterogeneousRandomizer(groups=(binary_rr_group(4, 1.0),), colluders=4)
    with pytest.raises(ParameterError, match="colluders"):
        HeterogeneousRandomizer(groups=(binary_rr_group(4, 1.0),), colluders=-1)


def test_one_honest_user_is_its_own_ldp_guarantee():
    mech = HeterogeneousRandomizer(groups=(binary_rr_group(3, 1.0),), colluders=2)
    # a single binary RR report: delta(eps) = (e^eps0 - e^eps)/(e^eps0 + 1) exactly
    b = mech.delta_for_epsilon(0.5)
    truth = (math.e - math.exp(0.5)) / (math.e + 1)
    assert b.lower.value <= truth * (1 + 1e-12) and truth <= b.upper.value * (1 + 1e-12)
    assert np.isclose(b.upper.value, truth, rtol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_enumeration_of_one_group_is_the_randomizer_familys_exact_worst_case(seed):
    # the oracle checked against an independent one: for one group, the randomizer
    # package's exhaustive worst case (its own user-by-user histogram laws)
    from accountant.protocols.randomizer import exact_worst_case as homogeneous_worst_case
    matrix = _random_matrix(random.Random(seed), 3, 3)
    ours = exact_worst_case((matrix_group(4, matrix),), exp_epsilons=GAMMAS)
    theirs = homogeneous_worst_case(matrix, 4, exp_epsilon=list(GAMMAS))
    assert [ours.deltas[g] for g in GAMMAS] == [w.delta for w in theirs]


def test_enumeration_of_two_groups_with_one_matrix_is_one_group():
    matrix = _random_matrix(random.Random(5), 2, 3)
    split = exact_worst_case((matrix_group(2, matrix), matrix_group(3, matrix)),
                             exp_epsilons=GAMMAS)
    whole = exact_worst_case((matrix_group(5, matrix),), exp_epsilons=GAMMAS)
    assert split.deltas == whole.deltas


def test_an_empty_class_does_not_lower_the_renyi_clone_probability():
    pair = hc.heterogeneous_clones(counts=[10, 0, 20], clone_probabilities=[0.4, 0.01, 0.7],
                                   epsilon0=1.0)
    assert hc.renyi_dominating_pair(pair).clone_probability == 0.4
