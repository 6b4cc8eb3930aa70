"""The (epsilon0, delta0)-LDP class, shuffled: the reduction's upper end, the reveal member's
lower end, and exhaustive exact views of concrete members at n <= 6 between them
(docs/approximate-ldp.md)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from accountant.errors import ParameterError
from accountant.numeric.rounding import down, up
from accountant.protocols import ldp
from accountant.protocols.approximate_ldp import (
    ApproximateLDP,
    delta0_term,
    delta_lower,
    delta_upper,
    epsilon_lower,
    epsilon_upper,
    local_delta_upper,
    reveal_randomizer,
)
from accountant.protocols.contract import families
from accountant.protocols.randomizer import Randomizer, exact_worst_case
from accountant.result import Kind, Scope

EPSILONS = [0.0, 0.1, 0.3, 0.7, 1.2]


def hockey_stick(a: list[Fraction], b: list[Fraction], gamma: Fraction) -> Fraction:
    """sum_y (a(y) - gamma b(y))_+, exactly."""
    return sum((max(x - gamma * y, Fraction(0)) for x, y in zip(a, b, strict=True)),
               Fraction(0))


def class_delta0(matrix: Randomizer, gamma: Fraction) -> Fraction:
    """The smallest delta0 for which `matrix` is (log gamma, delta0)-LDP, exactly."""
    rows = [list(r) for r in matrix.rows]
    return max(hockey_stick(a, b, gamma) for a in rows for b in rows if a is not b)


def epsilon0_bounds(gamma: Fraction) -> tuple[float, float]:
    """Floats below and above log(gamma) (one ulp of slack on each side of math.log)."""
    e = math.log(gamma)
    return math.nextafter(down(e), 0.0), math.nextafter(up(e), math.inf)


def gamma_below(epsilon: float) -> Fraction:
    """A rational e^epsilon from below (so exact deltas there are >= the true ones)."""
    return max(Fraction(math.exp(epsilon)) * (1 - Fraction(1, 10**12)), Fraction(1))


def exact_worst(matrix: Randomizer, n: int) -> list[Fraction]:
    cases = exact_worst_case(matrix, n, exp_epsilon=[gamma_below(e) for e in EPSILONS])
    return [c.delta for c in cases]


def random_member(seed: int) -> tuple[Randomizer, Fraction, Fraction]:
    """A random (epsilon0, delta0)-LDP matrix: a random pure part A (entries 10..20, 3
    inputs, 4 outputs) mixed with weight t with arbitrary rows E (zeros included), gamma0 =
    1 + 3/4 (A's largest ratio - 1), delta0 measured exactly at gamma0. Returns (matrix,
    gamma0, delta0)."""
    rng = random.Random(seed)
    k, m = 3, 4
    a = [[Fraction(rng.randint(10, 20)) for _ in range(m)] for _ in range(k)]
    a = [[v / sum(row) for v in row] for row in a]
    e = [[Fraction(rng.choice([0, 0, 1, 5])) for _ in range(m)] for _ in range(k)]
    e = [[v / sum(row) for v in row] if sum(row) else [Fraction(1)] + [Fraction(0)] * (m - 1)
         for row in e]
    t = Fraction(rng.choice([1, 3, 10]), 100)
    rows = [[(1 - t) * x + t * y for x, y in zip(ra, re, strict=True)]
            for ra, re in zip(a, e, strict=True)]
    # three quarters of A's largest ratio above 1: a delta0 > 0 is then needed
    gamma0 = 1 + (max(ra[j] / rb[j] for ra in a for rb in a for j in range(m)) - 1) * 3 / 4
    matrix = Randomizer.from_rows(rows, name=f"random mixture seed={seed}")
    return matrix, gamma0, class_delta0(matrix, gamma0)


# ------------------------------------------------------------------ the reveal member
@pytest.mark.parametrize("gamma0", [Fraction(2), Fraction(3), Fraction(11, 2)])
@pytest.mark.parametrize("delta0", [Fraction(1, 100), Fraction(1, 7)])
def test_reveal_member_is_exactly_epsilon0_delta0_ldp(gamma0, delta0):
    rows = [list(r) for r in reveal_randomizer(gamma0, delta0).rows]
    assert hockey_stick(rows[0], rows[1], gamma0) == delta0
    assert hockey_stick(rows[1], rows[0], gamma0) == delta0
    # and not (epsilon0, delta)-LDP for any smaller delta, nor (epsilon, delta0) below epsilon0
    assert hockey_stick(rows[0], rows[1], gamma0 * Fraction(99, 100)) > delta0


def binomial(m: int, p: Fraction) -> list[Fraction]:
    return [math.comb(m, s) * p**s * (1 - p) ** (m - s) for s in range(m + 1)]


def rr_pair(m: int, p: Fraction) -> tuple[list[Fraction], list[Fraction]]:
    """Binary RR's special pair at m users: (differing user holds 1, holds 0), others 0."""
    base = binomial(m - 1, p)
    one = [(base[s - 1] * (1 - p) if s else 0) + (base[s] * p if s < m else 0)
           for s in range(m + 1)]
    zero = binomial(m, p)
    return one, zero


@pytest.mark.parametrize("n", [2, 3, 5])
def test_reveal_special_pair_decomposes_over_the_revealers(n):
    # H(V1||V0) = delta0 + sum_j pi_j (m/n) H_{(n/m) gamma}(B_1^(m)||B_0^(m)), exactly
    gamma0, delta0, gamma = Fraction(3), Fraction(1, 10), Fraction(3, 2)
    matrix = reveal_randomizer(gamma0, delta0)
    from accountant.protocols.randomizer import exact_view_pair
    view = exact_view_pair(matrix, n, [1] + [0] * (n - 1), [0] * n, backend="exact")
    direct = hockey_stick(list(view.p), list(view.q), gamma)
    p = 1 / (gamma0 + 1)
    pi = binomial(n, delta0)
    total = delta0 + sum(pi[j] * Fraction(n - j, n) * hockey_stick(
        *rr_pair(n - j, p), gamma * Fraction(n, n - j)) for j in range(n))
    total += pi[n] * 0  # j = n: V1 has no outcome without a bottom_1 (m = 0)
    assert direct == total


# ------------------------------------------------------------------ brute force, n <= 6
def sandwich(matrix: Randomizer, gamma0: Fraction, delta0: Fraction, n: int, *,
             member_of_lower: bool) -> list[float]:
    e_down, e_up = epsilon0_bounds(gamma0)
    worst = exact_worst(matrix, n)
    gaps = []
    for epsilon, exact in zip(EPSILONS, worst, strict=True):
        upper = delta_upper(n=n, epsilon0=e_up, delta0=float(delta0), epsilon=epsilon)
        assert Fraction(upper.value) >= exact, (n, epsilon, upper, exact)
        if member_of_lower:
            lower = delta_lower(n=n, epsilon0=e_down, delta0=float(delta0), epsilon=epsilon)
            assert Fraction(lower.value) <= exact, (n, epsilon, lower, exact)
        gaps.append(float(upper.value) / float(exact) if exact else math.inf)
    return gaps


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("gamma0,delta0", [(Fraction(3), Fraction(1, 128)),
                                           (Fraction(2), Fraction(1, 1024)),
                                           (Fraction(6), Fraction(1, 16))])
def test_reveal_member_between_lower_and_upper(n, gamma0, delta0):
    # delta0 a dyadic rational: the float the library is given is the member's delta0
    sandwich(reveal_randomizer(gamma0, delta0), gamma0, delta0, n, member_of_lower=True)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_random_members_below_upper(n, seed):
    matrix, gamma0, delta0 = random_member(seed)
    assert 0 < delta0 < 1
    sandwich(matrix, gamma0, delta0, n, member_of_lower=False)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6, 30))
def test_random_members_below_upper_at_n_5_and_6(seed):
    matrix, gamma0, delta0 = random_member(seed)
    for n in (5, 6):
        sandwich(matrix, gamma0, delta0, n, member_of_lower=False)


@pytest.mark.slow
@pytest.mark.parametrize("gamma0,delta0", [(Fraction(3), Fraction(1, 128)),
                                           (Fraction(9), Fraction(1, 1024))])
def test_reveal_member_between_lower_and_upper_at_n_6(gamma0, delta0):
    sandwich(reveal_randomizer(gamma0, delta0), gamma0, delta0, 6, member_of_lower=True)


# ------------------------------------------------------------------ bound relations
@pytest.mark.parametrize("n,epsilon0,delta0", [(10**4, 1.0, 1e-12), (10**6, 2.0, 1e-14),
                                               (100, 3.0, 1e-9)])
def test_reduction_is_the_clones_bound_plus_the_term(n, epsilon0, delta0):
    for epsilon in (0.05, 0.2):
        up_end = delta_upper(n=n, epsilon0=epsilon0, delta0=delta0, epsilon=epsilon)
        clones = ldp.delta_for_epsilon(n=n, epsilon0=epsilon0, epsilon=epsilon).upper
        term = delta0_term(n=n, epsilon0=epsilon0, delta0=delta0, epsilon=epsilon)
        local = local_delta_upper(epsilon0=epsilon0, delta0=delta0, epsilon=epsilon)
        assert up_end.value == pytest.approx(min(clones.value + term, local), rel=1e-12)
        assert up_end.value >= min(clones.value + term, local)
        assert up_end.value >= delta_lower(n=n, epsilon0=epsilon0, delta0=delta0,
                                           epsilon=epsilon).value


def test_term_matches_its_closed_form():
    # delta0 (1 + 1.5 (n-1) e^-eps0 (1 + e^eps)) at n = 3, eps0 = log 2, eps = log 3: 1e-6 *
    # (1 + 1.5 * 2 * 0.5 * 4) = 7e-6
    term = delta0_term(n=3, epsilon0=math.log(2), delta0=1e-6, epsilon=math.log(3))
    assert term == pytest.approx(7e-6, rel=1e-14) and term >= 7e-6 * (1 - 1e-15)


def test_epsilon_upper_certifies_its_own_delta():
    n, epsilon0, delta0, delta = 10**4, 1.0, 1e-12, 1e-6
    eps = epsilon_upper(n=n, epsilon0=epsilon0, delta0=delta0, delta=delta)
    assert "clones" in eps.method
    assert eps.value >= ldp.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta).upper.value
    # the bound at the returned epsilon is within the target (clones' certified delta there)
    assert delta_upper(n=n, epsilon0=epsilon0, delta0=delta0,
                       epsilon=eps.value).value <= delta * (1 + 1e-6)
    assert epsilon_lower(n=n, epsilon0=epsilon0, delta0=delta0, delta=delta).value <= eps.value


def test_below_delta0_no_epsilon_exists():
    m = ApproximateLDP(n=100, epsilon0=1.0, delta0=1e-4)
    b = m.epsilon_for_delta(1e-5)
    assert b.lower.value == math.inf and b.upper.value == math.inf
    assert m.delta_for_epsilon(50.0).lower.value >= 1e-4


def test_max_divergence_and_renyi_are_infinite():
    m = ApproximateLDP(n=10, epsilon0=1.0, delta0=1e-6)
    assert m.max_divergence().upper.value == math.inf
    assert m.max_divergence().lower.kind is Kind.EXACT
    assert [b.lower.value for b in m.renyi([2.0, 10.0, math.inf])] == [math.inf] * 3
    assert m.dominating_pair() is None and m.view_pair() is None


def test_family_declared_and_mechanism_scoped():
    assert families()["approximate-ldp"] is ApproximateLDP
    m = ApproximateLDP(n=1000, epsilon0=2.0, delta0=1e-12)
    assert m.params() == {"n": 1000, "epsilon0": 2.0, "delta0": 1e-12}
    b = m.delta_for_epsilon(0.1)
    assert b.upper.scope is Scope.MECHANISM and b.lower.scope is Scope.MECHANISM


@pytest.mark.parametrize("kwargs,name", [({"delta0": 0.0}, "delta0"),
                                         ({"delta0": 1.0}, "delta0"),
                                         ({"epsilon0": -1.0}, "epsilon0"), ({"n": 1}, "n")])
def test_bad_input_names_the_parameter(kwargs, name):
    args = {"n": 10, "epsilon0": 1.0, "delta0": 1e-6} | kwargs
    with pytest.raises(ParameterError, match=rf"^{name}="):
        ApproximateLDP(**args)


# ------------------------------------------------------------------ the proof's Lemma 1
def clip_into_band(a: list[Fraction], b: list[Fraction], gamma: Fraction) -> list[Fraction]:
    """Lemma 1's construction (docs/approximate-ldp.md#the-reduction), exactly: clip a into
    [b / gamma, gamma b], then restore mass 1 by moving toward the band's far edge."""
    f = [min(max(x, y / gamma), gamma * y) for x, y in zip(a, b, strict=True)]
    gap = 1 - sum(f)
    out = []
    for x, y in zip(f, b, strict=True):
        room = gamma * y - x if gap > 0 else x - y / gamma
        move = min(room, abs(gap))
        out.append(x + move if gap > 0 else x - move)
        gap = gap - move if gap > 0 else gap + move
    assert gap == 0
    return out


@pytest.mark.parametrize("seed", range(12))
def test_lemma_1_clipping_stays_within_delta0(seed):
    matrix, gamma0, delta0 = random_member(seed)
    rows = [list(r) for r in matrix.rows]
    for a in rows:
        for b in rows:
            if a is b:
                continue
            clipped = clip_into_band(a, b, gamma0)
            assert sum(clipped) == 1
            assert all(y / gamma0 <= x <= gamma0 * y for x, y in zip(clipped, b, strict=True))
            moved = sum(abs(x - y) for x, y in zip(a, clipped, strict=True)) / 2
            raised = sum(max(x - y, Fraction(0)) for x, y in zip(clipped, a, strict=True))
            assert moved <= delta0 and raised <= delta0
