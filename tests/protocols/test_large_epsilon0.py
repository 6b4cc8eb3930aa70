"""Large epsilon0 and tiny delta: the reproducers of the whole-domain soundness issue.

Above epsilon0 ~ 37.5 the float w = e^eps0/(e^eps0+1) of the clones/blanket pairs rounds to
1, and e^eps0/(e^eps0+k-1) of the k-RR special pair to within an ulp of 1: the Renyi upper
ends collapsed to 8.6e-12 (truth ~ epsilon0) and a special pair summed to 1.29. Every truth
here comes from `verify.oracle` at 100 digits (it imports nothing of the library)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from accountant import KRR, LDP, BinaryRR, Bracket, Kind, Result
from accountant.composition import Accountant
from accountant.errors import PrecisionError
from accountant.protocols.k_rr.privacy import special_pair
from accountant.protocols.randomizer.matrix import Randomizer
from accountant.protocols.randomizer.mechanism import RandomizerMechanism
from accountant.result import Direction, Scope
from verify import oracle

ORDERS = [1.001, 1.01, 2.0, 6.0, 50.0]


def _special_truth(n: int, epsilon0: float, k: int, alpha: float) -> float:
    with oracle.digits(100):
        p, q = oracle.k_rr_special_pair(n, epsilon0, k)
        return oracle.renyi(p, q, alpha, "max")


@pytest.mark.parametrize("n, epsilon0, k", [
    (4, 38.0, 2), (12, 40.0, 2), (5, 36.3, 2), (10, 40.0, 3), (6, 45.0, 4), (3, 50.0, 2),
    (10, 20.0, 2), (10, 1.0, 3)])
def test_k_rr_renyi_brackets_the_special_pair_at_large_epsilon0(n, epsilon0, k):
    """The upper end (blanket pair) is at least the special pair's value, which is a lower
    bound on the mechanism; the lower end (special pair) is at most it; both <= eps0."""
    for alpha, b in zip(ORDERS, KRR(n=n, epsilon0=epsilon0, k=k).renyi(ORDERS), strict=True):
        truth = _special_truth(n, epsilon0, k, alpha)
        assert float(b.lower) <= truth <= float(b.upper) <= epsilon0, (alpha, truth, b)


@pytest.mark.parametrize("n, epsilon0", [(12, 40.0), (4, 38.0), (2, 60.0), (30, 37.6)])
def test_ldp_renyi_upper_at_least_binary_rr(n, epsilon0):
    """Binary RR is an epsilon0-LDP randomizer: its special pair's value lower-bounds the
    class's, so the clones upper end must reach it (it was 8.6e-12 at epsilon0 = 40)."""
    orders = [2.0, 6.0]
    for alpha, b in zip(orders, LDP(n=n, epsilon0=epsilon0).renyi(orders), strict=True):
        truth = _special_truth(n, epsilon0, 2, alpha)
        assert float(b.lower) <= truth <= float(b.upper) <= epsilon0


def test_k_rr_lower_end_never_above_epsilon0():
    """KRR(n=1000, epsilon0=36.3).renyi(1.001).lower was 37.017 > epsilon0 (every Renyi
    divergence of the shuffled view is at most epsilon0): its special pair summed to 1.29."""
    b = KRR(n=1000, epsilon0=36.3, k=2).renyi(1.001)
    assert b.lower.value <= 36.3
    for k in (2, 3, 7):
        v = special_pair(n=1000, epsilon0=36.3, k=k)
        total = math.fsum(np.exp(v.p)) + v.tail_p
        assert abs(math.fsum(np.exp(v.q)) - 1) < 1e-12 and abs(total - 1) < 1e-12


def test_randomizer_matrix_renyi_at_a_near_zero_entry():
    """Rows [[1, 6.55e-41], [0.0717, 0.9283]], n = 4, order 2: the upper end was 8.6e-12;
    the truth is 92.154 (max over datasets; the oracle's value of the pair where the other
    three users hold input 1)."""
    rows = [[1.0, 6.55e-41], [0.0717, 0.9283]]
    b = RandomizerMechanism(Randomizer.from_rows(rows), 4).renyi(2.0)
    with oracle.digits(100):
        # every other user holds input 1; the differing user input 0 (P) or 1 (Q); the view
        # is the count of output 0
        # index = count of output 0: the others' Bin(3, R(0|1)) plus the differing user's
        others = oracle.binomial_pmf(3, rows[1][0])
        p = oracle.convolve(others, [rows[0][1], rows[0][0]])
        q = oracle.convolve(others, [rows[1][1], rows[1][0]])
        truth = oracle.renyi(p, q, 2.0, "max")
    assert 92.15 < truth <= float(b.upper)
    assert float(b.lower) <= float(b.upper)


def test_compose_large_epsilon0_upper_is_not_below_the_composed_special_pair():
    """compose ldp n=2 eps0=40, 10 rounds, delta=1e-6 gave 4.3e-7 tagged upper. With n = 2 the
    special pair puts mass ~1 on a loss of 40 - log 2 in each round, so epsilon(1e-6) of ten
    rounds exceeds 10 (40 - log 2) - 1."""
    b = Accountant().compose(LDP(n=2, epsilon0=40.0), count=10).get_epsilon(1e-6)
    assert float(b.upper) >= 10 * (40 - math.log(2)) - 1
    assert b.upper.scope is Scope.MECHANISM


@pytest.mark.parametrize("make", [
    lambda: KRR(n=100, epsilon0=1.0, k=2), lambda: KRR(n=100, epsilon0=1.0, k=4),
    lambda: BinaryRR(n=100, epsilon0=1.0), lambda: LDP(n=100, epsilon0=1.0)])
@pytest.mark.parametrize("delta", [1e-300, 5e-324])
def test_epsilon_at_subnormal_delta(make, delta):
    """delta = 5e-324 raised 'math domain error' (a window tail of delta * 1e-12 = 0)."""
    b = make().epsilon_for_delta(delta)
    assert b.upper.kind is Kind.UPPER and float(b.upper) <= 1.0
    assert b.lower is None or float(b.lower) <= float(b.upper)


def _r(value: float, kind: Kind) -> Result:
    return Result(quantity="epsilon", value=value, kind=kind, direction=Direction.MAX,
                  method="test")


def test_bracket_refuses_crossed_ends_and_scopes_pair_numbers():
    with pytest.raises(PrecisionError, match="cross"):
        Bracket(lower=_r(2.0, Kind.LOWER), upper=_r(1.0, Kind.UPPER))
    b = Bracket(lower=_r(1.0, Kind.LOWER), upper=_r(1.0, Kind.UPPER),
                special=_r(1.5, Kind.UPPER).with_(scope=Scope.MECHANISM))
    assert b.special.scope is Scope.PAIR  # one pair's number is never a mechanism bound
    m = b.for_mechanism()
    assert m.lower.scope is m.upper.scope is Scope.MECHANISM and m.special.scope is Scope.PAIR
    assert _r(1.0, Kind.HEURISTIC).scope is Scope.HEURISTIC
    with pytest.raises(ValueError):
        _r(1.0, Kind.UPPER).with_(scope=Scope.HEURISTIC)


def test_mechanism_answers_are_mechanism_scoped_and_take_a_scalar_order():
    m = KRR(n=50, epsilon0=1.0, k=3)
    one, many = m.renyi(2.0), m.renyi([2.0, math.inf])
    assert isinstance(one, Bracket) and isinstance(many, list) and len(many) == 2
    assert float(one.upper) == float(many[0].upper)
    for b in (one, *many, m.epsilon_for_delta(1e-6), m.delta_for_epsilon(0.5),
              m.max_divergence()):
        assert b.upper.scope is Scope.MECHANISM
        assert b.special is None or b.special.scope is Scope.PAIR


def test_subnormal_delta_window_stays_in_the_bulk():
    """A window tail of 1e-312 made 2/tail overflow and the window cover all 73,355,002
    counts (55 s for one epsilon): the certified window is a few thousand points."""
    from accountant.protocols.binary_rr.view import view_pair

    v = view_pair(n=73355001, epsilon0=8.2, ones=0, tail=1e-312)
    assert v.size < 20_000 and v.tail_q <= 1e-312


def test_clones_epsilon_below_delta_1e300_is_not_trivial_and_is_monotone():
    """A flat 1e-300 allowance per term put a floor under the clones pair's delta, and every
    delta below it gave the trivial eps0. Now: below eps0, above binary RR's special-pair
    lower end (a member of the class), and nonincreasing in delta."""
    eps = []
    for delta in (1e-250, 1e-300, 1e-310):
        b = LDP(n=10**6, epsilon0=1.0).epsilon_for_delta(delta)
        assert float(b.lower) <= float(b.upper) < 1.0
        eps.append(float(b.upper))
    assert eps == sorted(eps)


@pytest.mark.parametrize("n, epsilon0, k, epsilon, truth", [
    # verify.oracle, every neighbouring pair of k-RR at n = 2 (unused symbols lumped), 80 digits
    (2, 1.0, 10**6, 0.0, "1.71827715769575293881428946540333610942259762066183409487e-6"),
    (2, 0.5, 300000, 0.0, "2.16239235170218104414865682913978648723263747530154028397e-6"),
    (2, 1.0, 10**6, 0.9, "7.0315924019781470041e-13")])
def test_k_rr_special_pair_at_large_k(n, epsilon0, k, epsilon, truth):
    """The reflection that fixed large epsilon0 broke large k: 1 - (k-1)/den lost 11 digits
    and the lower end of delta rose 1.5e-12 relative above the truth (the ends crossed at
    k = 300000). The binomial now gets whichever probability is below 1/2."""
    import mpmath

    b = KRR(n=n, epsilon0=epsilon0, k=k).delta_for_epsilon(epsilon)
    assert b.lower.value <= mpmath.mpf(truth) <= b.upper.value


def test_matrix_entry_below_the_float_range_is_refused():
    """An exact entry 1e-330 was read as 0 by the float engines: epsilon(1e-6) came out inf
    where the truth is 759.16 (found by the property suite)."""
    from fractions import Fraction

    from accountant.errors import ParameterError

    tiny = Fraction(1, 10**330)
    with pytest.raises(ParameterError, match=r"matrix\[0\]\[0\]=~1e-330"):
        Randomizer.from_rows([[tiny, 1 - tiny], [Fraction(1, 2), Fraction(1, 2)]])
    Randomizer.from_rows([[Fraction(0), Fraction(1)], [Fraction(1, 2), Fraction(1, 2)]])


def _no_report_truth(n: int, epsilon0: float, k: int, alpha: float) -> float:
    """A lower bound on the mechanism at any n: 'did some user send y = x' of the pair
    where the others hold x' (verify.oracle.no_report_pair), both orders, 60 digits."""
    import mpmath

    with oracle.digits(60):
        e = mpmath.e ** mpmath.mpf(epsilon0)
        den = e + k - 1
        p, q = oracle.no_report_pair(n, e / den, 1 / den, (k - 1) / den, (e + k - 2) / den)
        return oracle.renyi(p, q, alpha, "max")


@pytest.mark.parametrize("make, n, epsilon0, k", [
    (lambda: KRR(n=10**9, epsilon0=10.0, k=2), 10**9, 10.0, 2),
    (lambda: BinaryRR(n=10**9, epsilon0=10.0), 10**9, 10.0, 2),
    (lambda: LDP(n=10**6, epsilon0=5.0), 10**6, 5.0, 2),
    (lambda: KRR(n=10**9, epsilon0=1.0, k=100), 10**9, 1.0, 100),
    (lambda: KRR(n=10**6, epsilon0=3.0, k=10), 10**6, 3.0, 10)])
def test_renyi_upper_at_order_1e4_covers_a_real_pair(make, n, epsilon0, k):
    """At order 1e4 the count blocks far below the mean (linear mass underflowed to 0) hold
    the moment: they were dropped (upper 0.22 where a real pair gives 5.46; the ends crossed
    for BinaryRR and LDP), and the blanket pairs' log moments left out the w* block (a
    negative upper end at k = 100). Found by the property suite."""
    b = make().renyi(10000.0)
    truth = _no_report_truth(n, epsilon0, k, 10000.0)
    assert 0 <= truth <= float(b.upper) <= epsilon0
    assert b.lower is None or float(b.lower) <= float(b.upper)


@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("epsilon0", [360.0, 500.0, 699.5])
def test_binary_rr_worst_case_at_epsilon0_above_355(n, epsilon0):
    """The all-counts pass formed e^(eps + eps0) and overflowed for eps0 above ~355 (found by
    the declared-family draws, tests/protocols/test_example_family.py): epsilon(delta) now
    brackets the worst count's exact value (mpmath at 1000 digits over every count), and
    delta(epsilon) too."""
    m = BinaryRR(n=n, epsilon0=epsilon0)
    b = m.epsilon_for_delta(1e-3)
    d = m.delta_for_epsilon(epsilon0 / 2)
    with oracle.digits(1000):
        pairs = oracle.binary_rr_pairs(n, epsilon0)
        eps = max(oracle.epsilon_for_delta(p, q, mpmath.mpf("1e-3")) for p, q in pairs)
        dlt = max(oracle.hockey_stick(p, q, epsilon0 / 2) for p, q in pairs)
        assert b.lower.lower_end() <= eps <= b.upper.upper_end()
        assert d.lower.lower_end() <= dlt <= d.upper.upper_end()
