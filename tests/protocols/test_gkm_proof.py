"""GKM's proof, step by step (accountant.protocols.gkm.proof, docs/gkm.md#the-proof-step-by-step).

Reference values:
- Theorem 6's first variance step at eps = 1, rho = 0.5 (eps' = 0.995), by hand with mpmath
  at 40 digits: Var(DLap(0.995))/Var(DLap(1)) = e^0.005 ((1 - e^-1)/(1 - e^-0.995))^2
  = 1.0109018641589908, the step's right side 1 + (e^0.005 - 1)(1 + e^-0.995)/(1 - e^-0.995)
  = 1.0108932615023592, the second step 1 + 6 (0.005)/0.995 = 1.0301507537688442.
- Lemma 9: Geo(1 - r) has f(i-1)/f(i) = 1/r = e^eps' for i >= 1, so every ratio is 1.
"""

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountant.errors import ParameterError
from accountant.protocols import gkm
from accountant.protocols.gkm import proof


def test_theorem6_first_step_is_false_at_eps1_rho_half_but_the_bound_holds():
    c = proof.theorem6_variance_chain(epsilon=1.0, rho=0.5)
    assert c.ratio == pytest.approx(1.0109018641589908, rel=1e-15)
    assert c.step1 == pytest.approx(1.0108932615023592, rel=1e-15)
    assert c.step2 == pytest.approx(1.0301507537688442, rel=1e-15)
    assert not c.step1_holds and c.ratio > c.step1
    assert c.step2_holds and c.final_holds and c.ratio <= c.step2 <= c.final


def test_theorem6_first_step_matches_a_float_evaluation_of_the_exact_ratio():
    # independent float evaluation of the same closed forms, away from the 50-digit code
    e, ep = 0.5, 0.5 - 0.01 * 0.3 * 0.5
    ratio = math.exp(e - ep) * (-math.expm1(-e) / -math.expm1(-ep)) ** 2
    step1 = 1 + math.expm1(e - ep) * (1 + math.exp(-ep)) / -math.expm1(-ep)
    c = proof.theorem6_variance_chain(epsilon=e, rho=0.3)
    assert c.ratio == pytest.approx(ratio, rel=1e-12)
    assert c.step1 == pytest.approx(step1, rel=1e-12)
    assert c.step1_holds == (ratio <= step1)


@given(epsilon=st.floats(0.01, 3.0), rho=st.floats(0.01, 0.5))
@settings(max_examples=40, deadline=None)
def test_theorem6_final_bound_holds_and_bounds_the_ratio(epsilon, rho):
    c = proof.theorem6_variance_chain(epsilon=epsilon, rho=rho)
    assert 1 < c.ratio <= c.final
    assert c.step1 <= c.step2  # the second step is valid where the first is not


def test_lemma5_ratio_never_exceeds_one_and_is_attained():
    for dimension in (1, 2, 3):
        worst = proof.lemma5_worst_ratio(seed=11, trials=200, dimension=dimension)
        assert isinstance(worst, Fraction) and worst <= 1


def test_lemma5_convolution_is_exact_and_keeps_mass():
    rng = random.Random(3)
    a = {(rng.randrange(4),): Fraction(1, 2), (7,): Fraction(1, 2)}
    b = {(0,): Fraction(1, 3), (2,): Fraction(2, 3)}
    c = proof.convolve(a, b)
    assert sum(c.values()) == 1
    assert proof.max_ratio(a, {(7,): Fraction(1)}) == math.inf


def test_lemma5_max_ratio_sees_a_growth_when_the_noise_is_not_common():
    # the check is not vacuous: convolving only the second law with noise can raise d_inf
    d1 = {(0,): Fraction(1, 2), (1,): Fraction(1, 2)}
    d2 = {(0,): Fraction(1, 2), (1,): Fraction(1, 2)}
    noise = {(0,): Fraction(9, 10), (1,): Fraction(1, 10)}
    assert proof.max_ratio(d1, d2) == 1
    assert proof.max_ratio(proof.convolve(d1, {(0,): Fraction(1)}),
                           proof.convolve(d2, noise)) > 1


@pytest.mark.parametrize("epsilon_prime", [0.005, 0.5, 3.0])
def test_lemma9_is_an_equality(epsilon_prime):
    assert proof.lemma9_worst_ratio(epsilon_prime=epsilon_prime, top=200) == pytest.approx(
        1.0, abs=1e-14)


def test_lemma10_holds_at_condition7_minimal_parameters_and_fails_without_them():
    p = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1)
    least, _ = proof.lemma10_least_ratio(epsilon=1.0, epsilon_prime=0.5, q=0.1, s=p.s,
                                         lam=p.lam)
    assert least >= 1
    bad, where = proof.lemma10_least_ratio(epsilon=1.0, epsilon_prime=0.5, q=0.1, s=1,
                                           lam=1.0)
    # at i = 0: (e - 1) 0.1 f(1)/f(0) = 0.1718..., the flood term vanishes (f(-1) = 0)
    assert where == 0 and bad == pytest.approx(math.expm1(1.0) * 0.1 * 1.0, rel=1e-12)


def test_lemma10_ratio_matches_a_direct_poisson_evaluation():
    p = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1)
    least, i = proof.lemma10_least_ratio(epsilon=1.0, epsilon_prime=0.5, q=0.1, s=p.s,
                                         lam=p.lam)

    def f(k):
        return 0.0 if k < 0 else math.exp(k * math.log(p.lam) - p.lam - math.lgamma(k + 1))

    direct = (math.expm1(1.0) * 0.1 * f(i + p.s) + math.exp(0.5) * f(i - 1)) / f(i)
    assert least == pytest.approx(direct, rel=1e-9)
    assert all((math.expm1(1.0) * 0.1 * f(k + p.s) + math.exp(0.5) * f(k - 1)) / f(k)
               >= least * (1 - 1e-9) for k in range(0, 200))


def test_lemma10_holds_at_theorem6_constants():
    p = gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.5, corrected_q=True)
    least, _ = proof.lemma10_least_ratio(epsilon=p.epsilon, epsilon_prime=p.epsilon_prime,
                                         q=p.q, s=p.s, lam=p.lam)
    assert 1 + proof.LEMMA10_FLOAT_ERROR < least < 1.01


def test_lemma8_reverse_step_bounds_the_exact_view_and_is_below_epsilon():
    p = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1)
    step = proof.lemma8_reverse_step(epsilon_prime=0.5, q=0.1, s=p.s, lam=p.lam)
    exact, _ = gkm.worst_case_max_divergence(p, direction="Q||P")
    assert exact.value <= step <= 1.0  # Lemma 5, then Lemmas 9 and 10


def test_lemma8_reverse_step_exceeds_epsilon_when_condition7_fails():
    # s = 1, lam = 1, i = 1: (q f(1) + (1-q) f(0)) / (q f(1)) = 1 + 0.9/0.1 = 10 (f(0) = f(1))
    assert proof.lemma8_reverse_step(epsilon_prime=0.5, q=0.1, s=1, lam=1.0) == pytest.approx(
        math.log(10), rel=1e-12)


@pytest.mark.parametrize("call", [
    lambda: proof.lemma10_least_ratio(epsilon=1.0, epsilon_prime=1.0, q=0.1, s=1, lam=1.0),
    lambda: proof.lemma10_least_ratio(epsilon=1.0, epsilon_prime=0.5, q=1.5, s=1, lam=1.0),
    lambda: proof.lemma10_least_ratio(epsilon=1.0, epsilon_prime=0.5, q=0.1, s=1, lam=3e7),
    lambda: proof.lemma5_worst_ratio(seed=1, trials=0),
    lambda: proof.theorem6_variance_chain(epsilon=1.0, rho=0.7),
    lambda: proof.lemma9_worst_ratio(epsilon_prime=-1.0),
])
def test_bad_input_raises_parameter_error(call):
    with pytest.raises(ParameterError):
        call()
