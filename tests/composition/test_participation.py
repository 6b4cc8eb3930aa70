"""Poisson-sampled rounds of the Gaussian randomizers through the report pair mixed with
"no message" (`composition.participation`, docs/continuous-randomizers.md#sampled-rounds):
checked against the shuffled view of every dataset, enumerated here independently of the
library (discrete Gaussian, n <= 3, T <= 2), and against the Gaussian hockey-stick in closed
form (one round: the mixture's delta is q times the report pair's)."""

import itertools
import math

import mpmath
import numpy as np
import pytest

from accountant.composition import Accountant, Subsampled, pld
from accountant.composition.noise import NoisePair
from accountant.composition.participation import ParticipationPair
from accountant.composition.report import report_pair
from accountant.errors import ParameterError, RegimeError
from accountant.protocols.continuous.mechanism import (
    DiscreteGaussianRandomizer,
    GaussianRandomizer,
)


def _dgauss(sigma: float, x: int, ks: np.ndarray) -> np.ndarray:
    w = np.exp(-((ks - x) ** 2) / (2 * sigma * sigma))
    z = math.fsum(np.exp(-(np.arange(-200, 201) ** 2) / (2 * sigma * sigma)))
    return w / z


def _shuffled_view(bits: list[int], q: float, sigma: float, ks: np.ndarray) -> dict:
    """P(view) of users with `bits`, each taking part with probability q and reporting
    bit + discrete Gaussian noise; the view is the sorted tuple of reports (the multiset)."""
    laws = [_dgauss(sigma, b, ks) for b in bits]
    out: dict[tuple, float] = {}
    for taking in itertools.product((0, 1), repeat=len(bits)):
        w = math.prod(q if t else 1 - q for t in taking)
        users = [law for law, t in zip(laws, taking, strict=True) if t]
        for idx in itertools.product(range(ks.size), repeat=len(users)):
            key = tuple(sorted(int(ks[i]) for i in idx))
            mass = w * math.prod(law[i] for law, i in zip(users, idx, strict=True))
            out[key] = out.get(key, 0.0) + mass
    return out


def _delta(p: dict, q: dict, rounds: int, epsilon: float) -> float:
    keys = sorted(set(p) | set(q))
    a = np.array([p.get(k, 0.0) for k in keys])
    b = np.array([q.get(k, 0.0) for k in keys])
    pa, pb = a, b
    for _ in range(rounds - 1):
        pa, pb = np.multiply.outer(pa, a).ravel(), np.multiply.outer(pb, b).ravel()
    return max(math.fsum(np.maximum(pa - math.exp(epsilon) * pb, 0.0)),
               math.fsum(np.maximum(pb - math.exp(epsilon) * pa, 0.0)))


@pytest.mark.parametrize("n, rounds, q, sigma", [
    (2, 1, 0.3, 0.5), (2, 2, 0.3, 0.5), (2, 2, 0.7, 1.0), (3, 1, 0.5, 0.6), (2, 1, 1.0, 0.5)])
def test_every_dataset_is_below_the_certified_upper(n, rounds, q, sigma):
    # reports outside |k| <= 5 sigma + 4 carry < 1e-12 of the mass: the enumerated deltas
    # are within that of the truth (below it), far under the gaps checked
    ks = np.arange(-math.ceil(5 * sigma) - 4, math.ceil(5 * sigma) + 6)
    mech = DiscreteGaussianRandomizer(n=n, sigma=sigma)
    acc = Accountant().compose(Subsampled(mech, q) if q < 1 else mech, rounds)
    for epsilon in (0.1, 0.7, 2.0):
        worst = 0.0
        for others in itertools.product((0, 1), repeat=n - 1):
            p = _shuffled_view([1, *others], q, sigma, ks)
            r = _shuffled_view([0, *others], q, sigma, ks)
            worst = max(worst, _delta(p, r, rounds, epsilon))
        both = acc.get_delta(epsilon, method="pld")
        upper = both.upper.value
        assert worst <= upper * (1 + 1e-12), (epsilon, worst, upper)
        # the lower end: the count above a threshold of the others-hold-0 dataset's view
        assert both.lower is not None and both.lower.value <= worst * (1 + 1e-9) + 1e-15
        assert both.lower.value > 0 or epsilon > 1  # (one count sees no loss that large)
        # not vacuous: the one-user pair is the n = 1 view, the others' reports blur it
        assert upper <= 5 * worst + 1e-3, (epsilon, worst, upper)


def _gauss_delta(mu: float, epsilon: float) -> mpmath.mpf:
    with mpmath.workdps(40):
        mu, e = mpmath.mpf(mu), mpmath.mpf(epsilon)
        return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


@pytest.mark.parametrize("sigma, q", [(0.1, 0.01), (0.5, 0.3), (1.0, 0.01), (3.0, 0.9),
                                      (1.0, 1.0)])
def test_one_round_is_q_times_the_report_pair(sigma, q):
    # one round: H_(e^eps)((1-q) 0 + q P || (1-q) 0 + q Q) = q H_(e^eps)(P || Q) for eps >= 0
    source = ParticipationPair(NoisePair("gaussian", sigma), q)
    for epsilon in (0.0, 0.3, 2.0):
        truth = q * _gauss_delta(1 / sigma, epsilon)
        got = pld.compose_views([(source, 1)], epsilon=epsilon, discretization=1e-3)
        assert got.lower.value <= truth <= got.upper.value, (epsilon, got, truth)
        assert got.upper.value <= truth * 1.01 + 1e-12


def test_the_discrete_report_pair_is_the_discrete_gaussian():
    # its grid values against the enumerated law, and its loss in closed form
    view = report_pair(*DiscreteGaussianRandomizer(n=2, sigma=0.7).report_noise())
    k = view.coords[0]
    np.testing.assert_allclose(np.exp(view.p), _dgauss(0.7, 1, k.astype(float)), rtol=1e-12,
                               atol=1e-300)
    np.testing.assert_allclose(np.exp(view.q), _dgauss(0.7, 0, k.astype(float)), rtol=1e-12,
                               atol=1e-300)
    np.testing.assert_allclose(view.loss, (2 * k - 1) / (2 * 0.49), rtol=1e-13)
    assert view.tail_p <= 1e-300 and view.grid_exact


@pytest.mark.parametrize("sigma", [0.1, 0.7, 3.0, 50.0, 100.0])
def test_the_discrete_report_pairs_window_holds_the_laws(sigma):
    # the grid's masses sum to 1 (the stated tails, 1e-300, are all that is left out), at
    # every sigma of the family's domain [0.1, 100]
    view = report_pair("discrete-gaussian", sigma)
    for law in (view.p, view.q):
        assert math.fsum(np.exp(law)) == pytest.approx(1.0, abs=1e-12)
    assert view.tail_p <= 1e-300 and view.tail_q <= 1e-300
    # the widest loss is (2 top + 1) / (2 sigma^2), top = 40 sigma + 40
    top = math.ceil(40 * sigma) + 40
    assert np.max(np.abs(view.loss)) == pytest.approx((2 * top + 1) / (2 * sigma ** 2))


@pytest.mark.parametrize("cls", [GaussianRandomizer, DiscreteGaussianRandomizer])
def test_sampled_rounds_compose_and_shrink_with_q(cls):
    mech = cls(n=1000, sigma=1.0)
    values = [Accountant().compose(Subsampled(mech, q), 100).get_epsilon(1e-5).upper.value
              for q in (0.01, 0.1, 0.5)]
    assert values[0] < values[1] < values[2] < math.inf
    # the unsampled report pair (100 Gaussian shifts: mu = 10) bounds them all
    unsampled = pld.compose_views([(NoisePair("gaussian", 1.0), 100)], delta=1e-5).upper
    assert values[2] < unsampled.value


def test_the_rate_is_validated():
    with pytest.raises(ParameterError, match="sampling_rate"):
        ParticipationPair(NoisePair("gaussian", 1.0), 0.0)
    with pytest.raises(ParameterError, match="sampling_rate"):
        ParticipationPair(NoisePair("gaussian", 1.0), 1.5)


@pytest.mark.parametrize("rounds", [1, 2])
def test_a_report_pair_with_one_sided_outcomes(rounds):
    # P puts 0.1 where Q has nothing (an infinite loss): the mixture keeps q of it there;
    # 0.6 of both laws sits at loss 0, where the mixture's own atom joins it
    from accountant.view import ViewPair

    p, r = np.array([0.4, 0.3, 0.2, 0.1]), np.array([0.4, 0.4, 0.2, 0.0])
    q = 0.3
    source = ParticipationPair(ViewPair.from_arrays(p, r), q)
    mixed_p = np.concatenate([[1 - q], q * p])  # "no message" first
    mixed_r = np.concatenate([[1 - q], q * r])
    for epsilon in (0.0, 0.05, 0.5, 5.0):
        truth = _delta(dict(enumerate(mixed_p)), dict(enumerate(mixed_r)), rounds, epsilon)
        got = pld.compose_views([(source, rounds)], epsilon=epsilon, discretization=1e-3)
        assert got.lower.value <= truth * (1 + 1e-12) and truth <= got.upper.value
    # far out only the infinite atoms remain: 1 - (1 - 0.3 * 0.1)^T of them
    far = pld.compose_views([(source, rounds)], epsilon=30.0, discretization=1e-3)
    assert far.upper.value >= 1 - (1 - q * 0.1) ** rounds


def test_only_the_gaussian_families_declare_a_report():
    from accountant.protocols.continuous.mechanism import LaplaceRandomizer

    assert GaussianRandomizer(n=5, sigma=2.0).report_noise() == ("gaussian", 2.0)
    assert DiscreteGaussianRandomizer(n=5, sigma=2.0).report_noise() == ("discrete-gaussian",
                                                                         2.0)
    assert LaplaceRandomizer(n=5, scale=2.0).report_noise() is None  # the clones pair
    with pytest.raises(ParameterError, match="noise='laplace'"):
        report_pair("laplace", 1.0)


def _histogram_view(bits: list[int], q: float, sigma: float, ks: np.ndarray) -> dict:
    """P(histogram of the participants' reports over ks), users independent."""
    dist: dict[tuple, float] = {(0,) * ks.size: 1.0}
    for b in bits:
        law = _dgauss(sigma, b, ks.astype(float))
        new: dict[tuple, float] = {}
        for h, w in dist.items():
            new[h] = new.get(h, 0.0) + (1 - q) * w
            for i in range(ks.size):
                g = h[:i] + (h[i] + 1,) + h[i + 1:]
                new[g] = new.get(g, 0.0) + q * w * law[i]
        dist = new
    return dist


@pytest.mark.parametrize("cls", [DiscreteGaussianRandomizer, GaussianRandomizer])
def test_a_sampled_round_is_in_its_class(cls):
    # KOV's per-round class of a sampled round: (the round's epsilon at the fewest likely
    # participants, delta1); the discrete Gaussian's shuffled view (a histogram) of every
    # dataset, enumerated, has delta(eps1) <= delta1 in both orders (reports beyond
    # |noise| <= 2 carry < 1e-20 each at sigma 0.3: the enumeration is that close). The
    # continuous family's class is checked for its shape only (no enumeration).
    n, q, sigma, delta1 = 6, 0.9, 0.3, 0.05
    entry = Accountant().compose(Subsampled(cls(n=n, sigma=sigma), q), 10).ledger[0]
    assert entry.per_round_kov and entry.class_at is not None
    eps1, d1 = entry.class_at(delta1)
    assert 0 < eps1 < math.inf and d1 <= delta1
    if cls is GaussianRandomizer:
        return
    ks = np.arange(-2, 4)
    views = []
    for ones in range(n):
        others = [1] * ones + [0] * (n - 1 - ones)
        views.append((_histogram_view([1, *others], q, sigma, ks),
                      _histogram_view([0, *others], q, sigma, ks)))
        assert _delta(*views[-1], 1, eps1) <= d1, ones
    # and it is close: at 0.9 eps1 some dataset's delta exceeds delta1 (the truth at
    # delta1 is 5.458 against eps1 = 5.509 here)
    assert max(_delta(p, r, 1, 0.9 * eps1) for p, r in views) > d1


def test_too_few_likely_participants_give_no_class():
    # n = 1000, q = 0.01: the window of the others' participants starts at 0 or 1, so no
    # round of two users bounds them all: no class, the report pair's PLD answers alone
    entry = Accountant().compose(Subsampled(GaussianRandomizer(n=3, sigma=1.0), 0.01),
                                 10).ledger[0]
    with pytest.raises(RegimeError, match="no round of two users"):
        entry.class_at(1e-6)
    report = Accountant().compose(Subsampled(GaussianRandomizer(n=3, sigma=1.0), 0.01),
                                  10).report(delta=1e-6)
    assert "[pld]" in report.bracket.upper.method
