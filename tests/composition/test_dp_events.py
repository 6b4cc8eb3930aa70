"""dp_accounting's events in the accountant: whose neighbouring relation, randomized
response, sampling without replacement, zCDP (docs/conversions.md#relations-whose-convention).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.stats import norm

from accountant import LDP
from accountant.composition import Accountant
from accountant.composition.interop import (
    GaussianNoise,
    RandomizedResponse,
    SampledWithoutReplacement,
    Subsampled,
    zcdp_curve,
)
from accountant.errors import ParameterError

dpa = pytest.importorskip("dp_accounting")

DPSGD = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.0)), 1000)


def test_a_dp_accounting_event_is_accounted_under_its_own_convention() -> None:
    # dp_accounting 0.6.0 PLDAccountant (default ADD_OR_REMOVE_ONE): 1.8282436, its own
    # pessimistic discretisation: an uncertified upper estimate, so at or above our
    # certified lower end and close to our upper end on either side (ours is now the
    # lower of the two, 1.8282422: the power route's round-off is bounded per coefficient)
    acc = Accountant().compose(DPSGD)
    assert acc.neighboring == "add-remove"
    b = acc.get_epsilon(1e-5)
    assert b.lower.value <= 1.8282436 and abs(b.upper.value / 1.8282436 - 1) <= 1e-3
    theirs = dpa.pld.PLDAccountant()
    theirs.compose(DPSGD)
    assert b.lower.value <= theirs.get_epsilon(1e-5)
    assert abs(b.upper.value / theirs.get_epsilon(1e-5) - 1) <= 1e-3


def test_substitution_when_asked_moves_the_sum_twice_as_far() -> None:
    # the same event under REPLACE_ONE: dp_accounting's PLD replace-one Gaussian has
    # sensitivity 2, as ours; 2.84 is quoted in docs/conversions.md
    sub = Accountant(dpa.NeighboringRelation.REPLACE_ONE).compose(DPSGD).get_epsilon(1e-5)
    assert sub.lower.value <= 2.84 <= sub.upper.value
    theirs = dpa.pld.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    theirs.compose(DPSGD)
    assert sub.lower.value <= theirs.get_epsilon(1e-5) <= sub.upper.value


def test_a_ledger_mixing_conventions_is_refused_in_one_line() -> None:
    with pytest.raises(ParameterError, match="by default, but this ledger uses 'substitute'"):
        Accountant().compose(LDP(n=1000, epsilon0=1.0)).compose(DPSGD)
    with pytest.raises(ParameterError, match="by default, but this ledger uses 'add-remove'"):
        Accountant().compose(DPSGD).compose(LDP(n=1000, epsilon0=1.0))
    # a relation the user chose takes every event
    acc = Accountant("substitute").compose(LDP(n=1000, epsilon0=1.0)).compose(DPSGD)
    assert len(acc.ledger) == 2 and acc.neighboring == "substitute"


def test_a_refused_event_settles_no_relation() -> None:
    acc = Accountant()
    with pytest.raises(ParameterError):
        acc.compose(Subsampled(object(), 0.5))
    assert acc.neighboring == "substitute" and not acc.ledger
    acc.compose(DPSGD)  # still free to take add/remove
    assert acc.neighboring == "add-remove"


# ------------------------------------------------------------------ randomized response
def _rr_exact_delta(p: float, k: int, rounds: int, epsilon: float) -> mpmath.mpf:
    """delta(epsilon) of `rounds` runs of randomized response, from the trinomial law of the
    counts (a, b) of outputs equal to input i and to input j: loss (a - b) log(e0)."""
    with mpmath.workdps(60):
        pf = mpmath.mpf(p)
        keep, other = 1 - pf + pf / k, pf / k
        rest = 1 - keep - other
        ratio = keep / other
        total = mpmath.mpf(0)
        for a in range(rounds + 1):
            for b in range(rounds - a + 1):
                c = rounds - a - b
                loss = (a - b) * mpmath.log(ratio)
                if loss <= epsilon:
                    continue
                prob = (mpmath.factorial(rounds) / (mpmath.factorial(a) * mpmath.factorial(b)
                        * mpmath.factorial(c)) * keep ** a * other ** b * rest ** c)
                total += prob * (1 - mpmath.exp(epsilon - loss))
        return total


@pytest.mark.parametrize(("p", "k", "rounds", "epsilon"),
                         [(0.5, 4, 100, 60.0), (0.5, 2, 30, 3.0), (0.9, 1000, 50, 10.0),
                          (0.1, 3, 20, 40.0)])
def test_randomized_response_brackets_the_exact_composition(p: float, k: int, rounds: int,
                                                            epsilon: float) -> None:
    exact = float(_rr_exact_delta(p, k, rounds, epsilon))
    acc = Accountant().compose(dpa.RandomizedResponseDpEvent(p, k), rounds)
    assert acc.neighboring == "substitute"  # its only relation
    b = acc.get_delta(epsilon)
    assert b.lower.value <= exact <= b.upper.value
    assert b.upper.value <= exact * 1.05 + 1e-12


def test_randomized_response_single_run_is_pure_dp_at_its_epsilon0() -> None:
    # one run of 4-ary RR with p = 1/2: P = (5/8, 1/8, 2/8), Q = (1/8, 5/8, 2/8), so
    # delta(eps) = 5/8 - e^eps/8 and epsilon(delta) = log(5 - 8 delta), just below
    # eps0 = log(1 + k(1 - p)/p) = log 5; dp_accounting rounds its pessimistic PLD up to
    # 1.60948 at count 1. (This test once asserted log 5 <= the upper end, which held only
    # while the upper end was the PLD's; KOV's for the class of log-5-DP mechanisms,
    # log(5 - 6 delta), is below log 5 and above the truth.)
    p, k, delta = 0.5, 4, 1e-5
    truth = math.log(5 - 8 * delta)
    b = Accountant().compose(RandomizedResponse(p, k)).get_epsilon(delta)
    assert b.lower.value <= truth <= b.upper.value
    assert b.upper.value <= math.log(5 - 6 * delta) * (1 + 1e-12)
    theirs = dpa.pld.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    theirs.compose(dpa.RandomizedResponseDpEvent(p, k), 1)
    assert b.lower.value <= theirs.get_epsilon(delta) <= math.log(5) * 1.001


def test_dp_accounting_pld_accountant_ignores_the_count_of_randomized_response() -> None:
    # a peer's error kept as a test (docs/conversions.md): dp_accounting 0.6.0's
    # PLDAccountant composes a RandomizedResponseDpEvent once whatever its count
    ours = Accountant().compose(dpa.RandomizedResponseDpEvent(0.5, 4), 100).get_epsilon(1e-5)
    theirs = dpa.pld.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)
    theirs.compose(dpa.RandomizedResponseDpEvent(0.5, 4), 100)
    if theirs.get_epsilon(1e-5) >= ours.lower.value:  # pragma: no cover - fixed upstream
        pytest.skip("dp_accounting now composes the count; update docs/conversions.md")
    assert theirs.get_epsilon(1e-5) < 2 < 123 < ours.lower.value


def test_randomized_response_domain() -> None:
    with pytest.raises(ParameterError, match="noise_parameter=0"):
        RandomizedResponse(0.0, 4)
    with pytest.raises(ParameterError, match="num_buckets=1"):
        RandomizedResponse(0.5, 1)
    with pytest.raises(ParameterError, match="defined under neighboring='substitute' only"):
        Accountant("add-remove").compose(dpa.RandomizedResponseDpEvent(0.5, 4))
    # nothing released: one bucket, or every output uniform
    assert not Accountant().compose(dpa.RandomizedResponseDpEvent(1.0, 4)).ledger
    assert not Accountant().compose(dpa.RandomizedResponseDpEvent(0.3, 1)).ledger


# ------------------------------------------------------------------ without replacement
def _hockey(p: np.ndarray, q: np.ndarray, eps: float, dx: float) -> float:
    return float(np.maximum(p - math.exp(eps) * q, 0).sum() * dx)


@pytest.mark.parametrize("sigma", [0.7, 2.0])
@pytest.mark.parametrize("gamma", [0.05, 0.5])
def test_no_configuration_of_the_three_centres_beats_the_without_replacement_pair(
        sigma: float, gamma: float) -> None:
    # the claim behind SampledWithoutReplacement: with the other records fixed, the centres
    # a (target not sampled), b, b' (sampled, either value) lie in one unit ball; every such
    # configuration's hockey-stick is at most the pair's (both orders). Collinear and
    # planar configurations (Gaussians reduce to the plane of the three centres).
    x = np.linspace(-12 * sigma - 3, 12 * sigma + 3, 6001)
    dx = float(x[1] - x[0])
    gx, gy = np.meshgrid(x[::10], x[::10])
    d2 = float(x[10] - x[0]) ** 2

    def mix1(a: float, b: float) -> np.ndarray:
        return (1 - gamma) * norm.pdf(x, a, sigma) + gamma * norm.pdf(x, b, sigma)

    rng = np.random.default_rng(7)
    pair = (mix1(0.0, 2.0), norm.pdf(x, 0.0, sigma))
    for eps in (0.0, 0.3, 1.0):
        bound = max(_hockey(*pair, eps, dx), _hockey(pair[1], pair[0], eps, dx))
        for a, b, bp in [(-1, 1, -1), (0, 1, -1), (1, -1, 1)] + [
                tuple(rng.uniform(-1, 1, 3)) for _ in range(40)]:
            assert _hockey(mix1(a, b), mix1(a, bp), eps, dx) <= bound * (1 + 1e-5) + 1e-12
        for _ in range(6):
            r = np.sqrt(rng.uniform(0, 1, 3))
            t = rng.uniform(0, 2 * np.pi, 3)
            c = np.stack([r * np.cos(t), r * np.sin(t)], axis=1)

            def pdf(cx: float, cy: float) -> np.ndarray:
                return np.exp(-((gx - cx) ** 2 + (gy - cy) ** 2) / (2 * sigma ** 2)) / (
                    2 * np.pi * sigma ** 2)

            P = (1 - gamma) * pdf(*c[0]) + gamma * pdf(*c[1])
            Q = (1 - gamma) * pdf(*c[0]) + gamma * pdf(*c[2])
            planar = float(np.maximum(P - math.exp(eps) * Q, 0).sum() * d2)
            assert planar <= bound * (1 + 1e-3) + 1e-6


def test_without_replacement_is_poisson_add_remove_at_half_the_noise() -> None:
    ev = dpa.SelfComposedDpEvent(
        dpa.SampledWithoutReplacementDpEvent(10_000, 100, dpa.GaussianDpEvent(2.0)), 500)
    acc = Accountant().compose(ev)
    assert acc.neighboring == "substitute"
    ours = acc.get_epsilon(1e-5)
    poisson = Accountant("add-remove").compose(Subsampled(GaussianNoise(1.0), 0.01), 500)
    ref = poisson.get_epsilon(1e-5)
    assert ours.upper.value == pytest.approx(ref.upper.value, rel=1e-12)
    assert ours.lower.value == pytest.approx(ref.lower.value, rel=1e-12)


def test_without_replacement_domain() -> None:
    with pytest.raises(ParameterError, match="defined under neighboring='substitute' only"):
        Accountant("add-remove").compose(
            dpa.SampledWithoutReplacementDpEvent(100, 10, dpa.GaussianDpEvent(1.0)))
    with pytest.raises(ParameterError, match="sample_size=11"):
        SampledWithoutReplacement(GaussianNoise(1.0), 11, 10)
    with pytest.raises(ParameterError, match="noise_multiplier=0.015"):
        SampledWithoutReplacement(GaussianNoise(0.015), 1, 10)
    with pytest.raises(ParameterError, match="Gaussian event only"):
        Accountant().compose(dpa.SampledWithoutReplacementDpEvent(
            100, 10, dpa.LaplaceDpEvent(1.0)))


# ------------------------------------------------------------------ zCDP
def test_zcdp_event_is_its_rdp_curve() -> None:
    rho = 0.02
    curve = zcdp_curve(rho)
    for a, v in zip(curve.orders, curve.values, strict=True):
        if math.isfinite(a):
            assert rho * a <= v <= rho * a * (1 + 1e-15)
    b = Accountant().compose(dpa.ZCDpEvent(rho), 10).get_epsilon(1e-6)
    # Bun-Steinke Prop. 1.3: rho-zCDP gives (rho + 2 sqrt(rho log(1/delta)), delta)
    classic = 10 * rho + 2 * math.sqrt(10 * rho * math.log(1e6))
    assert b.upper.value <= classic
    with pytest.raises(ParameterError, match="rho=-1"):
        zcdp_curve(-1.0)
