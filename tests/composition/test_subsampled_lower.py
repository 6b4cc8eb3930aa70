"""The lower end of Poisson-subsampled and add/remove rounds: one real neighbouring pair's
count of y* (`pairs.subsampled_count_pair`, `Mechanism.subsampled_view_pair`;
docs/conversions.md#a-certified-lower-end-for-subsampled-rounds).

Checked: the pair's grid values against an independent enumeration of the count from the
protocol's definition; rate 1 (substitute) against binary RR's special pair; the three
implementations agree where they describe the same randomizer; the accountant reports the
lower end, labelled, and it stays below the certified upper end over a grid of settings,
Koskela et al.'s included. (The brute-force comparison with the exact mechanism value is in
test_subsampled_bruteforce.py.)"""

import math
from fractions import Fraction

import numpy as np
import pytest

from accountant.composition.accountant import Accountant, Subsampled
from accountant.composition.subsampled import RELATIONS
from accountant.divergence import epsilon_bracket
from accountant.errors import ParameterError
from accountant.pairs.subsampled_count import COUNT_RELATIONS, subsampled_count_pair
from accountant.protocols import randomizer
from accountant.protocols.binary_rr import BinaryRR, flip_probability
from accountant.protocols.k_rr import KRR
from accountant.protocols.ldp import LDP
from accountant.protocols.randomizer import RandomizerMechanism
from accountant.result import Kind


def _count_law(others: int, high: float, low: float, q: float, user: str) -> np.ndarray:
    """P(count of y* = k), k = 0..others+1, by sequential convolution over users (each
    absent w.p. 1-q, else sending y* w.p. R(y*|its input)); user in {"x", "x'", "absent"}."""
    dist = np.zeros(others + 2)
    dist[0] = 1.0
    probs = [q * low] * others + ([] if user == "absent" else
                                  [q * (high if user == "x" else low)])
    for s in probs:
        new = (1 - s) * dist
        new[1:] += s * dist[:-1]
        dist = new
    return dist


def test_relations_match_the_accountant():
    assert COUNT_RELATIONS == RELATIONS


@pytest.mark.parametrize("relation", ["substitute", "add-remove"])
@pytest.mark.parametrize("n, q, high, low", [(2, 0.3, 0.7, 0.3), (7, 0.3, 0.9, 0.05),
                                             (40, 1.0, 0.6, 0.2), (25, 0.01, 0.5, 0.0)])
def test_grid_values_are_the_enumerated_count_law(n, q, high, low, relation):
    view = subsampled_count_pair(n=n, high=high, low=low, rate=q, relation=relation,
                                 tail=1e-300)
    P = _count_law(n - 1, high, low, q, "x")
    Q = _count_law(n - 1, high, low, q, "x'" if relation == "substitute" else "absent")
    k = view.coords[0]
    assert view.grid_exact and view.tail_p <= 1e-300 and view.tail_q <= 1e-300
    np.testing.assert_allclose(np.exp(view.p), P[k], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(np.exp(view.q), Q[k], rtol=1e-12, atol=1e-300)
    # the closed-form loss is log P - log Q
    live = (P[k] > 0) & (Q[k] > 0)
    np.testing.assert_allclose(view.loss[live], np.log(P[k][live] / Q[k][live]),
                               rtol=1e-10, atol=1e-13)
    assert np.all(np.isposinf(view.loss[(P[k] > 0) & (Q[k] == 0)]))
    assert np.all(view.loss_error >= 0) and np.all(view.log_error >= 0)


def test_rate_one_substitute_is_binary_rr_special_pair():
    for n, e0 in ((50, 0.5), (1000, 1.0), (10**5, 3.0)):
        mech = BinaryRR(n=n, epsilon0=e0)
        count, special = mech.subsampled_view_pair(1.0), mech.view_pair()
        # the windows differ by a point (Bin(n-1, p) + 1 against Bin(n, p)): compare on both
        common, i, j = np.intersect1d(count.coords[0], special.coords[0], return_indices=True)
        assert common.size >= min(count.size, special.size) - 1
        np.testing.assert_allclose(count.p[i], special.p[j], rtol=1e-12)
        np.testing.assert_allclose(count.loss[i], special.loss[j], rtol=1e-12, atol=1e-15)
        a = epsilon_bracket(count, 1e-6)
        b = epsilon_bracket(special, 1e-6)
        assert float(a[0]) <= float(b[1]) and float(b[0]) <= float(a[1])


def test_implementations_agree():
    n, e0, q = 300, 1.2, 0.2
    for relation in ("substitute", "add-remove"):
        b = BinaryRR(n=n, epsilon0=e0).subsampled_view_pair(q, relation)
        ldp = LDP(n=n, epsilon0=e0).subsampled_view_pair(q, relation)
        k2 = KRR(n=n, epsilon0=e0, k=2).subsampled_view_pair(q, relation)
        mat = RandomizerMechanism(randomizer.binary_rr(e0), n).subsampled_view_pair(
            q, relation)
        for other in (ldp, k2, mat):
            np.testing.assert_allclose(np.exp(other.p), np.exp(b.p), rtol=1e-12)
            np.testing.assert_allclose(np.exp(other.q), np.exp(b.q), rtol=1e-12)
        # 3-RR through KRR and through the exact rational matrix
        k3 = KRR(n=n, epsilon0=math.log(3), k=3).subsampled_view_pair(q, relation)
        m3 = RandomizerMechanism(randomizer.k_rr(3, exp_epsilon0=3), n).subsampled_view_pair(
            q, relation)
        np.testing.assert_allclose(np.exp(m3.p), np.exp(k3.p), rtol=1e-12)
        np.testing.assert_allclose(np.exp(m3.q), np.exp(k3.q), rtol=1e-12)
        assert m3.description["R(y*|x)"] == pytest.approx(0.6)


def test_zero_background_and_bad_arguments():
    # a column with a zero (epsilon0 = inf): the count reveals the differing user
    mech = RandomizerMechanism([[Fraction(1, 2), Fraction(1, 2)], [1, 0]], 10)
    view = mech.subsampled_view_pair(0.5, "substitute")
    assert view.size == 2 and np.isposinf(view.loss).any()
    with pytest.raises(ParameterError):
        subsampled_count_pair(n=10, high=0.3, low=0.3, rate=0.5)
    with pytest.raises(ParameterError):
        subsampled_count_pair(n=10, high=0.6, low=0.3, rate=0.0)
    with pytest.raises(ParameterError):
        subsampled_count_pair(n=10, high=0.6, low=0.3, rate=0.5, relation="replace")


def test_accountant_reports_a_labelled_lower_end():
    for relation, q in (("substitute", 0.05), ("add-remove", 0.05), ("add-remove", 1.0)):
        acc = Accountant(neighboring=relation).compose(
            Subsampled(BinaryRR(n=2000, epsilon0=1.0), q), count=20)
        report = acc.report(delta=1e-6, method="pld")
        lower = report.bracket.lower
        assert lower is not None and lower.kind is Kind.LOWER
        assert "one neighbouring pair" in lower.method and "lower bound" in lower.method
        assert 0 < lower.value <= report.bracket.upper.value
        # the dominating pair's own lower end is still reported apart (not a mechanism bound)
        assert report.bracket.pair_lower is not None
        if q < 1:
            assert report.bracket.pair_lower.value >= lower.value
        else:  # add/remove at rate 1: the message count reveals presence
            assert report.bracket.upper.value == math.inf


# the clones pair subsampled at q = 0.2 with n = 20000 takes 7-35 s to build: slow
GRID = [pytest.param(n, e0, q, t, marks=pytest.mark.slow if (n, q) == (20_000, 0.2) else ())
        for n in (1000, 20_000) for e0 in (0.5, 3.0) for q in (0.01, 0.2) for t in (1, 30)]


@pytest.mark.parametrize("relation", ["substitute", "add-remove"])
@pytest.mark.parametrize("n, e0, q, rounds", GRID)
def test_lower_end_below_upper_end_on_a_grid(n, e0, q, rounds, relation):
    # a fixed grid width keeps the test fast; both ends are certified at any width
    mechs = [LDP(n=n, epsilon0=e0)] + ([KRR(n=n, epsilon0=e0, k=4)] if n == 1000 else [])
    for mech in mechs:
        acc = Accountant(neighboring=relation).compose(Subsampled(mech, q), count=rounds)
        for bracket in (acc.get_epsilon(1e-6, method="pld", discretization=1e-3),
                        acc.get_delta(0.5 * e0 * q, method="pld", discretization=1e-3)):
            assert bracket.lower is not None
            assert 0 <= bracket.lower.value <= bracket.upper.value


# Koskela et al.'s setting: upper ends from docs/conversions.md#the-koskela-et-al-anchor
KOSKELA = [(10, 0.02157), (100, 0.07711), (1000, 0.2713), (10_000, 0.9532)]


@pytest.mark.parametrize("rounds, upper", [pytest.param(
    t, u, marks=pytest.mark.slow if t >= 1000 else ()) for t, u in KOSKELA])
def test_koskela_setting_lower_end(rounds, upper):
    acc = Accountant().compose(Subsampled(LDP(n=100_000, epsilon0=3.0), 0.01), count=rounds)
    bracket = acc.get_epsilon(1e-5)
    assert bracket.upper.value == pytest.approx(upper, rel=2e-3)
    # binary RR's subsampled special-pair count: about 0.48 of the class's upper end
    assert 0.4 * upper < bracket.lower.value < 0.55 * upper
    assert bracket.lower.value <= bracket.upper.value


def test_one_round_lower_matches_the_hockey_stick_of_the_pair():
    # the optimistic PLD of one round against the pair's own certified bracket
    mech = LDP(n=100_000, epsilon0=3.0)
    view = mech.subsampled_view_pair(0.01)
    lo, hi = epsilon_bracket(view, 1e-5)
    lower = Accountant().compose(Subsampled(mech, 0.01)).get_epsilon(1e-5).lower.value
    assert lower <= float(hi) and lower >= 0.98 * float(lo)
    assert flip_probability(3.0) * 0.01 == pytest.approx(view.description["R(y*|x')"] * 0.01)
