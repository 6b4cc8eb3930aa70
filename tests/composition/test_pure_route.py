"""The KOV route on members of certified (eps, delta) classes (docs/conversions.md#members-
of-a-dp-class-in-the-kov-route): an event that is (eps_i, delta_i)-DP under the ledger's
relation (a certified max-divergence gives (eps_i, 0); a local randomizer's guarantee holds
for any number of users, so for sampled rounds too) is a member of that class, so KOV's
exact value for the class (identical classes) or basic composition bounds the composition
from above at every delta, 5e-324 included, and delta = 0 exactly from eps = sum eps_i on.

Each check relates the route's number to an independent one: KOV's closed form, an exact
enumeration of one neighbouring pair's composed views (a lower bound on the mechanism, so
below any upper end), random mixtures for the sampling lemma, or the sum of the local
epsilon0s."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from accountant.composition import kov
from accountant.composition.accountant import (
    Accountant,
    EpsilonDelta,
    GaussianNoise,
    LaplaceNoise,
    Subsampled,
)
from accountant.composition.interop import RandomizedResponse
from accountant.protocols import heterogeneous, randomizer
from accountant.protocols.approximate_ldp import ApproximateLDP
from accountant.protocols.binary_rr import BinaryRR
from accountant.protocols.continuous.mechanism import (
    DiscreteLaplaceRandomizer,
    GaussianRandomizer,
    LaplaceRandomizer,
)
from accountant.protocols.contract import Mechanism, families
from accountant.protocols.k_rr import KRR
from accountant.protocols.ldp import LDP
from accountant.result import Kind


def _entry(report, method):
    return next(e for e in report.entries if e.get("method") == method)


def _exact_delta(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """sum (P - e^eps Q)_+ of two float laws on one support."""
    return float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())


def _rr_count(n_ones: int, n: int, epsilon0: float, flip_user: int | None) -> np.ndarray:
    """Law of the number of ones among n binary-RR reports: `n_ones` users hold 1, the others
    0; `flip_user` in {0, 1} is one more user's bit (None: no such user)."""
    keep = math.exp(epsilon0) / (1 + math.exp(epsilon0))
    dist = np.array([1.0])
    bits = [1] * n_ones + [0] * (n - n_ones) + ([] if flip_user is None else [flip_user])
    for bit in bits:
        one = keep if bit else 1 - keep
        dist = np.convolve(dist, [1 - one, one])
    return dist


@pytest.mark.parametrize("delta", [1e-6, 1e-30, 5e-324])
@pytest.mark.parametrize("rounds", [1, 2, 7])
def test_identical_pure_events_read_kovs_value_as_an_upper_end(delta, rounds):
    """LDP(n, eps0) x T: the kov entry is KOV's exact (eps0, 0) value, as an UPPER end (the
    class bounds the mechanism; it is not the mechanism's value), at most T eps0."""
    eps0 = 1.3
    report = Accountant().compose(LDP(n=50, epsilon0=eps0), rounds).report(
        delta=delta, method="kov")
    entry = _entry(report, "kov")["result"]
    ref = kov.epsilon_kov(epsilon=eps0, delta=0.0, rounds=rounds, delta_total=delta)
    assert entry.kind is Kind.UPPER
    assert entry.value == pytest.approx(ref.upper_end(), rel=1e-12)
    assert entry.value >= ref.upper_end()
    assert entry.value <= rounds * eps0 * (1 + 1e-12)
    assert report.bracket.lower is None  # a class's value is no lower end for a member


def test_kov_upper_end_holds_against_one_pairs_exact_composition():
    """Binary RR (n = 3, eps0 = 1) x 3 rounds: one neighbouring pair's exact composed
    delta(eps), enumerated here, stays at or below the route's certified delta(eps)."""
    eps0, n, rounds = 1.0, 3, 3
    p = _rr_count(0, n - 1, eps0, 1)
    q = _rr_count(0, n - 1, eps0, 0)
    pt, qt = p, q
    for _ in range(rounds - 1):
        pt, qt = np.outer(pt, p).ravel(), np.outer(qt, q).ravel()
    acc = Accountant().compose(BinaryRR(n=n, epsilon0=eps0), rounds)
    for eps in (0.0, 0.5, 1.0, 2.0, 2.9):
        up = _entry(acc.report(epsilon=eps, method="kov"), "kov")["result"]
        assert _exact_delta(pt, qt, eps) <= up.upper_end() + 1e-15
        assert _exact_delta(qt, pt, eps) <= up.upper_end() + 1e-15


@pytest.mark.parametrize("epsilon", [4.0, 4.5, 50.0, 800.0])
def test_delta_is_exactly_zero_beyond_the_sum_of_max_divergences(epsilon):
    """T eps0 <= eps: delta = 0 exactly, and the costly routes are skipped."""
    acc = Accountant().compose(Subsampled(LDP(n=1000, epsilon0=1.0), 0.5), 2) \
        .compose(KRR(n=100, epsilon0=0.5, k=3), 4)
    report = acc.report(epsilon=epsilon)
    assert report.bracket.upper.value == 0.0 and report.bracket.upper.kind is Kind.EXACT
    assert report.bracket.lower.value == 0.0
    assert all("skipped" in _entry(report, r) for r in ("pld", "rdp"))


def test_below_the_sum_basic_composition_says_nothing_about_delta():
    acc = Accountant().compose(LDP(n=1000, epsilon0=1.0), 2).compose(
        KRR(n=100, epsilon0=0.5, k=3), 4)
    entry = _entry(acc.report(epsilon=3.9, method="kov"), "kov.basic")
    assert "skipped" in entry and "4" in entry["skipped"]


@pytest.mark.parametrize("delta", [1e-3, 1e-12, 5e-324])
def test_heterogeneous_pure_events_compose_to_the_sum(delta):
    """Different eps_i: basic composition, the exact sum rounded up (at every delta)."""
    acc = Accountant().compose(LDP(n=1000, epsilon0=0.1), 3).compose(
        LaplaceNoise(4.0), 5).compose(EpsilonDelta(0.3), 2)
    result = _entry(acc.report(delta=delta, method="kov"), "kov.basic")["result"]
    exact = 3 * Fraction(0.1) + 5 * Fraction(2 / 4.0) + 2 * Fraction(0.3)
    assert result.kind is Kind.UPPER
    assert Fraction(result.value) >= exact
    assert result.value == pytest.approx(float(exact), rel=1e-13)


def test_basic_composition_needs_delta_at_least_the_sum_of_deltas():
    acc = Accountant().compose(EpsilonDelta(1.0, 1e-6), 3).compose(EpsilonDelta(2.0), 1)
    assert "skipped" in _entry(acc.report(delta=2e-6, method="kov"), "kov.basic")
    ok = _entry(acc.report(delta=3e-6, method="kov"), "kov.basic")["result"]
    assert ok.value == 5.0
    # and delta(eps) from the sum on is the sum of deltas (rounded up)
    d = _entry(acc.report(epsilon=5.0, method="kov"), "kov.basic")["result"]
    assert d.kind is Kind.UPPER and Fraction(d.value) >= 3 * Fraction(1e-6)
    assert d.value == pytest.approx(3e-6, rel=1e-15)


def test_a_sampled_substitute_randomizer_is_finite_at_the_smallest_delta():
    """Was [3.2, inf] (an adversarial probe): each Poisson-sampled substitute round of a
    local randomizer is within its epsilon0 (a mixture of pairs within it), so two rounds
    are within 2 eps0 at every delta."""
    matrix = randomizer.Randomizer.from_rows([[0.8, 0.2], [0.2, 0.8]])
    mech = randomizer.RandomizerMechanism(matrix=matrix, n=3)
    bracket = Accountant().compose(Subsampled(mech, 0.5), 2).get_epsilon(5e-324)
    assert bracket.upper.value <= 2 * math.log(4) * (1 + 1e-12)
    assert bracket.lower is None or bracket.lower.value <= bracket.upper.value


def test_a_sampled_round_is_within_eps0_by_exact_enumeration():
    """Poisson-sampled shuffled binary RR (n = 3, q = 0.5, substitute): for every dataset
    of the other two users, the exact law of the count of ones (absent users send nothing)
    has max-divergence at most eps0 (the route's per-round value)."""
    eps0, q = 1.0, 0.5
    pure, zero = Accountant().compose(Subsampled(BinaryRR(n=3, epsilon0=eps0), q))._ledger[0] \
        .dp_class()
    assert (pure, zero) == (eps0, 0.0)
    worst = 0.0
    for others in itertools.product((0, 1), repeat=2):
        laws = []
        for bit in (0, 1):
            law = np.zeros((4, 4))   # (messages, ones)
            for present in itertools.product((0, 1), repeat=3):
                weight = math.prod(q if x else 1 - q for x in present)
                bits = [b for b, x in zip((*others, bit), present, strict=True) if x]
                ones = sum(bits)
                count = _rr_count(ones, len(bits), eps0, None)
                law[len(bits), :len(count)] += weight * count
            laws.append(law.ravel())
        p, r = laws
        both = (p > 0) & (r > 0)
        worst = max(worst, float(np.max(np.abs(np.log(p[both] / r[both])))))
    assert worst <= pure * (1 + 1e-12)
    assert worst > 0.5 * pure  # the enumeration is not vacuous


def test_add_remove_shuffle_rounds_have_no_pure_value():
    acc = Accountant("add-remove").compose(Subsampled(LDP(n=100, epsilon0=1.0), 0.1), 3)
    entry = _entry(acc.report(delta=1e-6, method="kov"), "kov")
    assert "message count reveals presence" in entry["skipped"]


def test_gaussian_events_keep_kov_out():
    acc = Accountant().compose(LDP(n=100, epsilon0=1.0), 3).compose(GaussianNoise(2.0), 3)
    entry = _entry(acc.report(delta=1e-6, method="kov"), "kov")
    assert "gaussian" in entry["skipped"]


@pytest.mark.parametrize("rate", [0.01, 0.5, 1.0])
def test_sampled_laplace_under_add_remove_is_amplified(rate):
    """Laplace(b) sampled at q, add/remove: log(1 + q(e^(1/b) - 1)) per round."""
    acc = Accountant("add-remove").compose(Subsampled(LaplaceNoise(2.0), rate), 5)
    pure, _ = acc._ledger[0].dp_class()
    exact = math.log1p(rate * math.expm1(0.5))
    assert exact <= pure <= exact * (1 + 1e-14)
    bracket = acc.get_delta(5 * pure * (1 + 1e-12))  # (5 * pure rounds either way)
    assert bracket.upper.value == 0.0


def test_randomized_response_events_carry_their_epsilon():
    """k-ary randomized response with noise p: eps = log(1 + k(1 - p)/p)."""
    acc = Accountant().compose(RandomizedResponse(0.5, 4), 3)
    pure, _ = acc._ledger[0].dp_class()
    exact = math.log(1 + 4 * 0.5 / 0.5)
    assert exact <= pure <= exact * (1 + 1e-12)


def _local_examples(n: int) -> list:
    matrix = randomizer.Randomizer.from_rows([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]])
    return [LDP(n=n, epsilon0=2.0), KRR(n=n, epsilon0=2.0, k=4), BinaryRR(n=n, epsilon0=2.0),
            randomizer.RandomizerMechanism(matrix=matrix, n=n),
            LaplaceRandomizer(n=n, scale=0.7), DiscreteLaplaceRandomizer(n=n, scale=0.7)]


def _declares(cls) -> bool:
    return cls.local_guarantee is not Mechanism.local_guarantee


def test_every_local_family_is_checked_here():
    heterogeneous.HeterogeneousRandomizer  # noqa: B018 - registered by the import
    names = {type(m).name for m in _local_examples(2)}
    assert names | {"heterogeneous", "approximate-ldp"} \
        == {n for n, c in families().items() if _declares(c)} - {
            "gaussian-randomizer", "discrete-gaussian-randomizer"}
    # the noise families without a finite epsilon0 declare none in fact
    assert GaussianRandomizer(n=10, sigma=1.0).local_guarantee() is None


@pytest.mark.parametrize("index", range(6))
def test_local_guarantees_bound_the_max_divergence_at_every_n(index):
    """What a local guarantee promises: the shuffled view of any number of users is within
    it (here the certified max-divergence at 2 and at 10^4 users), and it is the local
    epsilon0 itself (attained by the pair of two users)."""
    big, small = _local_examples(10**4)[index], _local_examples(2)[index]
    eps0, delta0 = big.local_guarantee()
    assert delta0 == 0 and math.isfinite(eps0)
    for mech in (big, small):
        assert mech.max_divergence().upper.upper_end() <= eps0
    assert small.max_divergence().lower.lower_end() >= eps0 * (1 - 1e-9)


def test_a_sampled_class_mixes_to_q_delta():
    """The lemma behind sampled substitute rounds (`_sampled_class`): with a common part A
    (the differing user sits out) and an (eps, delta)-DP pair (B, B'), the mixtures
    (1 - q) A + q B and (1 - q) A + q B' are (eps, q delta)-DP. Random laws on 6 outcomes,
    delta read exactly from B, B'; both orders."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        a, b, b2 = (rng.dirichlet(np.ones(6) * 0.5) for _ in range(3))
        eps, q = float(rng.uniform(0, 2)), float(rng.uniform(0.01, 1))
        for x, y in ((b, b2), (b2, b)):
            delta = _exact_delta(x, y, eps)
            mixed = _exact_delta((1 - q) * a + q * x, (1 - q) * a + q * y, eps)
            assert mixed <= q * delta + 1e-15


def test_approximate_ldp_rounds_compose_by_their_local_class():
    """(epsilon0, delta0)-LDP rounds had no certified composition (inf): each round is a
    member of the (epsilon0, delta0) class, sampled ones of (epsilon0, q delta0)."""
    mech = ApproximateLDP(n=1000, epsilon0=1.0, delta0=1e-8)
    b = Accountant().compose(mech, 10).get_epsilon(1e-6)
    ref = kov.epsilon_kov(epsilon=1.0, delta=1e-8, rounds=10, delta_total=1e-6)
    assert b.upper.kind is Kind.UPPER
    assert b.upper.value == pytest.approx(ref.upper_end(), rel=1e-12)
    sampled = Accountant().compose(Subsampled(mech, 0.1), 10).compose(LDP(n=50, epsilon0=0.5))
    report = sampled.report(delta=1e-6, method="kov")
    result = _entry(report, "kov.basic")["result"]
    assert result.value == pytest.approx(10.5, rel=1e-14) and result.value >= 10.5
    # basic composition asks for delta >= 10 * 0.1 * 1e-8
    assert "skipped" in _entry(sampled.report(delta=9e-9, method="kov"), "kov.basic")


def test_sampled_substitute_eps_delta_is_a_member_of_eps_q_delta():
    acc = Accountant().compose(Subsampled(EpsilonDelta(1.0, 1e-6), 0.01), 5)
    assert acc._ledger[0].dp_class() == (1.0, pytest.approx(1e-8, rel=1e-15))
    b = acc.get_epsilon(1e-6)
    ref = kov.epsilon_kov(epsilon=1.0, delta=1e-8, rounds=5, delta_total=1e-6)
    assert b.upper.value == pytest.approx(ref.upper_end(), rel=1e-12)


def test_a_class_without_a_pair_composes_by_pld_beside_other_events():
    """approximate-ldp (no dominating pair) beside LDP rounds: the PLD route composes the
    local class's KOV pair (sampled: (epsilon0, q delta0)) with LDP's clones pairs, at most
    basic composition and at least what KOV says of the approximate rounds alone."""
    mech = ApproximateLDP(n=1000, epsilon0=1.0, delta0=1e-9)
    for event in (mech, Subsampled(mech, 0.2)):
        acc = Accountant().compose(event, 20).compose(LDP(n=1000, epsilon0=1.0), 5)
        report = acc.report(delta=1e-5)
        pld_up = _entry(report, "pld.pessimistic")["result"].value
        basic = _entry(report, "kov.basic")["result"].value
        delta0 = 1e-9 if event is mech else 2e-10
        alone = kov.epsilon_kov(epsilon=1.0, delta=delta0, rounds=20, delta_total=1e-5)
        assert alone.lower_end() <= pld_up <= basic


def test_kov_beyond_its_domain_falls_back_to_basic_composition():
    """Two entries of 1e12 rounds each (KOV counts stop at 1e12), and 3000 rounds of
    eps = 800 (KOV's float window stops at 700, its mpmath sum would run 3000 terms)."""
    acc = Accountant().compose(EpsilonDelta(1e-9), 10**12).compose(EpsilonDelta(1e-9), 10**12)
    result = _entry(acc.report(delta=1e-6, method="kov"), "kov.basic")["result"]
    assert result.value == pytest.approx(2000.0, rel=1e-12) and result.value >= 2000.0
    wide = Accountant().compose(EpsilonDelta(800.0), 3000)
    assert _entry(wide.report(delta=1e-6, method="kov"), "kov.basic")["result"].value \
        == 2.4e6
