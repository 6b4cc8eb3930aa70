"""KOV optimal composition (docs/conversions.md#optimal-composition) against brute-force products
and the binomial formula;
DRV advanced composition (docs/conversions.md#advanced-composition) is never below it."""

import math
from fractions import Fraction

import numpy as np
import pytest

from accountant.composition import kov
from accountant.errors import ParameterError, RegimeError


def _brute_force_delta(epsilon: float, delta: float, k: int, epsilon_total: float) -> float:
    """sum over all 4^k outcomes of [P - e^eps' Q]_+ for the k-fold product of KOV's pair."""
    e = math.exp(epsilon)
    p1 = np.array([delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e), 0.0])
    q1 = p1[::-1].copy()
    p, q = np.ones(1), np.ones(1)
    for _ in range(k):
        p = np.multiply.outer(p, p1).ravel()
        q = np.multiply.outer(q, q1).ravel()
    return float(np.sum(np.maximum(p - math.exp(epsilon_total) * q, 0.0)))


@pytest.mark.parametrize("k", [1, 2, 5, 8])
@pytest.mark.parametrize("epsilon, delta", [(0.5, 0.0), (1.0, 1e-3), (0.1, 0.02)])
def test_delta_equals_brute_force_product(k, epsilon, delta):
    for eps_total in (0.0, 0.3 * k * epsilon, 0.8 * k * epsilon):
        ours = float(kov.delta_kov(epsilon=epsilon, delta=delta, rounds=k,
                                   epsilon_total=eps_total).value)
        assert ours == pytest.approx(_brute_force_delta(epsilon, delta, k, eps_total),
                                     abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("k", [10, 12])
def test_delta_equals_brute_force_product_large_k(k):
    ours = float(kov.delta_kov(epsilon=0.3, delta=1e-4, rounds=k,
                               epsilon_total=1.2).value)
    assert ours == pytest.approx(_brute_force_delta(0.3, 1e-4, k, 1.2), abs=1e-12)


@pytest.mark.parametrize("k", [1, 3, 10, 25])
def test_randomized_response_matches_the_binomial_formula(k):
    """KOV Thm 3.3 with delta = 0 and e^eps = 3: at eps' = (k - 2i) eps,
    delta_i = 4^-k sum_{l<i} C(k,l) (3^(k-l) - 3^(k-2i+l)), evaluated in Fractions."""
    epsilon = math.log(3)
    for i in range(0, k // 2 + 1):
        exact = Fraction(sum(math.comb(k, l_) * (3 ** (k - l_) - 3 ** (k - 2 * i + l_))
                             for l_ in range(i)), 4 ** k)
        ours = kov.delta_kov(epsilon=epsilon, delta=0.0, rounds=k,
                             epsilon_total=(k - 2 * i) * epsilon).value
        # abs: eps' = (k-2i) log 3 is rounded to a float, which moves delta by ~1e-16
        assert float(ours) == pytest.approx(float(exact), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("epsilon, delta, k, target", [(0.5, 0.0, 20, 1e-6),
                                                       (0.1, 1e-9, 500, 1e-5),
                                                       (1.0, 1e-4, 3, 0.01)])
def test_epsilon_inverts_delta(epsilon, delta, k, target):
    eps = kov.epsilon_kov(epsilon=epsilon, delta=delta, rounds=k, delta_total=target)
    assert float(kov.delta_kov(epsilon=epsilon, delta=delta, rounds=k,
                               epsilon_total=float(eps.value)).value) <= target * (1 + 1e-9)
    below = float(eps.value) * (1 - 1e-6)
    if below > 0:
        assert float(kov.delta_kov(epsilon=epsilon, delta=delta, rounds=k,
                                   epsilon_total=below).value) > target


def test_infinite_loss_mass_above_target_gives_infinite_epsilon():
    r = kov.epsilon_kov(epsilon=0.1, delta=1e-3, rounds=10, delta_total=1e-3)
    assert math.isinf(r.value)


@pytest.mark.parametrize("epsilon, delta, k", [(0.1, 1e-8, 100), (0.05, 0.0, 1000),
                                               (0.5, 1e-7, 10)])
def test_advanced_composition_is_never_below_the_optimum(epsilon, delta, k):
    target = 1e-5
    optimal = kov.epsilon_kov(epsilon=epsilon, delta=delta, rounds=k, delta_total=target)
    advanced = kov.epsilon_drv(epsilon=epsilon, delta=delta, rounds=k, delta_total=target)
    assert float(optimal.value) <= advanced.value
    at = float(optimal.value)
    assert float(kov.delta_kov(epsilon=epsilon, delta=delta, rounds=k,
                               epsilon_total=at).value) <= kov.delta_drv(
        epsilon=epsilon, delta=delta, rounds=k, epsilon_total=advanced.value).value * (1 + 1e-9)


def test_drv_without_room_for_delta_raises_regime_error():
    with pytest.raises(RegimeError, match="delta_total"):
        kov.epsilon_drv(epsilon=0.1, delta=1e-6, rounds=10, delta_total=5e-6)


@pytest.mark.parametrize("kwargs, name", [
    (dict(epsilon=-0.1, delta=0.0, rounds=2, epsilon_total=1.0), "epsilon=-0.1"),
    (dict(epsilon=0.1, delta=1.5, rounds=2, epsilon_total=1.0), "delta=1.5"),
    (dict(epsilon=0.1, delta=0.0, rounds=0, epsilon_total=1.0), "rounds=0"),
    (dict(epsilon=0.1, delta=0.0, rounds=2.5, epsilon_total=1.0), "rounds=2.5"),
])
def test_invalid_inputs_name_the_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        kov.delta_kov(**kwargs)


def test_kov_view_pair_has_the_closed_form_losses():
    view = kov.kov_view_pair(epsilon=0.7, delta=1e-3)
    assert list(view.loss) == [math.inf, 0.7, -0.7, -math.inf]
    mass_p, mass_q = view.masses()
    assert mass_p == pytest.approx(1.0, abs=1e-15) and mass_q == pytest.approx(1.0, abs=1e-15)
