"""The composition counts' declared domain: a count is multiplied into floats (T mu^2, T
times an RDP curve), so it has a maximum; 10**400 raised a bare OverflowError."""

from __future__ import annotations

import math

import mpmath
import pytest

from accountant import KRR, LDP, BinaryRR
from accountant.composition import Accountant, EpsilonDelta, GaussianNoise, Subsampled
from accountant.errors import ParameterError


@pytest.mark.parametrize("count", [10**400, 10**12 + 1, 0, -1])
def test_count_outside_the_domain_is_a_parameter_error(count):
    with pytest.raises(ParameterError, match=r"rounds=.* is outside integers in \[1, 1e12\]"):
        Accountant().compose(GaussianNoise(1.0), count)


def test_count_at_the_maximum_is_accepted():
    b = Accountant().compose(GaussianNoise(1.0), 10**12).get_epsilon(1e-6, method="analytic")
    assert float(b.upper) > 1e3  # 1e12 Gaussian rounds of sigma 1: no privacy left


# ---- beyond e^eps's float range (found by an adversarial probe of the declared domains)
@pytest.mark.parametrize("sigma", [1e200, 1e300, 1e308])
def test_a_huge_noise_multiplier_answers_epsilon_zero(sigma):
    # mu = 2/sigma squared underflowed to 0 and was refused ("mu=0.0 is outside (0, inf)",
    # a name the user never gave); then the RDP route ran for minutes on curves near
    # 1e-400. delta(0) = Phi(mu/2) - Phi(-mu/2) ~ 0.8 mu <= 1e-5, so epsilon is exactly 0
    b = Accountant().compose(GaussianNoise(sigma), 10).get_epsilon(1e-5)
    assert b.upper.value == 0.0 and b.lower.value == 0.0
    assert "analytic" in b.upper.method


@pytest.mark.parametrize("epsilon", [1e7, 1e300])
def test_gaussian_delta_at_a_huge_epsilon_is_below_every_float(epsilon):
    # mpmath's erfc overflowed near 1e300; delta <= Phi(mu/2 - eps/mu) < 5e-324 here
    b = Accountant().compose(GaussianNoise(1.0), 10).get_delta(epsilon)
    assert b.lower.value == 0.0 and b.upper.value == 5e-324


def test_eps_delta_ledgers_beyond_e_to_the_709():
    # DRV's e^eps term overflowed in the accountant's comparison (a bare OverflowError)
    b = Accountant().compose(EpsilonDelta(710.0, 0.0), 10).get_epsilon(1e-5)
    # KOV's optimal composition (exact), just below basic composition's 7100
    assert 7099.99 < float(b.upper.value) <= 7100.0 and b.upper.kind.value == "exact"
    d = Accountant().compose(EpsilonDelta(1.0, 1e-6), 3).get_delta(1e300)
    # every loss is at most 3 eps0 or +inf: delta = 1 - (1 - 1e-6)^3 exactly
    with mpmath.workdps(50):
        truth = 1 - (1 - mpmath.mpf(1e-6)) ** 3
        assert d.lower.lower_end() <= truth <= d.upper.upper_end() <= truth * (1 + 1e-9)


@pytest.mark.parametrize("mechanism", [BinaryRR(n=100, epsilon0=1.0),
                                       KRR(n=100, epsilon0=1.0, k=3),
                                       LDP(n=100, epsilon0=1.0)])
@pytest.mark.parametrize("epsilon", [710.0, 1e300])
def test_pure_dp_mechanisms_read_delta_zero_beyond_their_max_divergence(mechanism, epsilon):
    # the families' formulas overflowed (math range error) at eps >= 710; above the
    # max-divergence (epsilon0 here) delta is exactly 0
    b = mechanism.delta_for_epsilon(epsilon)
    assert b.upper.value == 0.0 and b.lower.value == 0.0
    assert Accountant().compose(mechanism, 1).get_delta(epsilon).upper.value == 0.0


@pytest.mark.parametrize("event", [Subsampled(GaussianNoise(1.0), 0.1),
                                   Subsampled(LDP(n=1000, epsilon0=1.0), 0.1)])
def test_subsampled_delta_at_a_huge_epsilon_answers_quickly(event):
    # the optimal RDP conversion's root search stepped by 4 towards a root near -1e300 / a
    # and never arrived (minutes); its steps now double, and it is not run once the
    # closed forms are below 1e-300
    b = Accountant().compose(event, 3).get_delta(1e300)
    assert 0 <= b.lower.value <= b.upper.value <= 1e-12


def test_epsilon_at_tiny_delta_is_never_above_the_max_divergence():
    # a randomizer matrix's single round (the probe of 2026-11-27): its blanket bound's
    # upper end was +inf at delta <= 1e-20, above the mechanism's certified
    # max-divergence log 5, while two rounds read the finite 2 log 5 (fewer rounds, worse)
    from accountant.composition import Accountant
    from accountant.protocols.randomizer import Randomizer, RandomizerMechanism

    m = RandomizerMechanism(matrix=Randomizer.from_rows([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]]),
                            n=3)
    top = m.max_divergence().upper.value
    assert abs(top - math.log(5)) < 1e-12
    for delta in (1e-12, 1e-30, 5e-324):
        own = m.epsilon_for_delta(delta)
        assert own.upper.value <= top and own.lower.value <= own.upper.value
        b = Accountant().compose(m, count=1).get_epsilon(delta)
        assert b.lower.value <= b.upper.value <= top
        assert b.upper.value <= Accountant().compose(m, count=2).get_epsilon(delta).upper.value
    # the truth at tiny delta is the max-divergence itself: the lower end is close to it
    assert m.epsilon_for_delta(5e-324).lower.value > 0.999 * top
