"""Balcer-Cheu 2020 Section 4 on concrete randomizers: Claim 4.2's pair has max-divergence
exactly epsilon0 (>= by the claim, <= by post-processing), and the lemma of [8] (Cheu et al.
2019): the randomizer is (eps_S + ln n, delta)-DP when the shuffled protocol is (eps_S, delta)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accountant.errors import ParameterError
from accountant.protocols import binary_rr
from accountant.protocols.balcer_cheu import claim_42_max_divergence, local_epsilon_for_delta
from accountant.protocols.randomizer import Randomizer, k_rr
from accountant.protocols.randomizer import binary_rr as rr_matrix
from accountant.protocols.randomizer import k_rr as k_rr_matrix


@pytest.mark.parametrize("seed", range(6))
def test_claim_42_pair_attains_epsilon0_on_random_matrices(seed):
    rows = np.random.default_rng(seed).dirichlet(np.ones(3), size=3).tolist()
    matrix = Randomizer.from_rows(rows)
    value = float(claim_42_max_divergence(matrix, 3))
    assert matrix.epsilon0_lower - 1e-12 <= value <= matrix.epsilon0 + 1e-12


def test_claim_42_on_k_rr():
    assert float(claim_42_max_divergence(k_rr(4, 2.0), 3)) == pytest.approx(2.0, rel=1e-12)


@pytest.mark.parametrize("epsilon0", [0.5, 2.0, 8.0])
def test_local_epsilon_of_binary_rr_matches_its_closed_form(epsilon0):
    # binary RR: H_{e^eps}(rows) = (e^eps0 - e^eps)/(e^eps0 + 1), inverted at delta
    delta = 1e-6
    e = math.exp(epsilon0)
    closed = math.log(e - delta * (e + 1))
    assert local_epsilon_for_delta(rr_matrix(epsilon0), delta) == pytest.approx(closed,
                                                                             rel=1e-9)


@pytest.mark.parametrize(("epsilon0", "n"), [(1.0, 10), (4.0, 100), (8.0, 10**4), (12.0, 10)])
def test_cheu_lemma_holds_for_binary_rr(epsilon0, n):
    shuffled = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=1e-6)
    local = local_epsilon_for_delta(rr_matrix(epsilon0), 1e-6)
    assert local <= float(shuffled.lower) + math.log(n)


def test_bad_delta_is_named():
    with pytest.raises(ParameterError, match="delta=2"):
        local_epsilon_for_delta(rr_matrix(1.0), 2.0)


@pytest.mark.parametrize(("epsilon0", "n"), [(1.0, 3), (3.0, 4)])
def test_shuffled_bracket_contains_binary_rr_exact_value(epsilon0, n):
    from accountant.protocols.balcer_cheu import shuffled_epsilon_bracket
    lower, upper = shuffled_epsilon_bracket(rr_matrix(epsilon0), n, 1e-3)
    exact = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=1e-3)
    assert lower <= float(exact.upper) and float(exact.lower) <= upper
    assert upper - lower <= epsilon0 / 399 + 1e-12  # one grid step


@pytest.mark.parametrize("seed", range(4))
def test_cheu_lemma_holds_for_random_matrices_at_tiny_n(seed):
    from accountant.protocols.balcer_cheu import shuffled_epsilon_bracket
    rows = np.random.default_rng(seed).dirichlet(np.ones(3), size=3).tolist()
    matrix = Randomizer.from_rows(rows)
    for n in (2, 3):
        lower, _ = shuffled_epsilon_bracket(matrix, n, 1e-3)
        assert local_epsilon_for_delta(matrix, 1e-3) <= lower + math.log(n)


def test_cheu_lemma_holds_for_k_rr():
    from accountant.protocols import k_rr
    shuffled = k_rr.epsilon_for_delta(n=100, epsilon0=4.0, k=4, delta=1e-6)
    local = local_epsilon_for_delta(k_rr_matrix(4, 4.0), 1e-6)
    assert local <= float(shuffled.lower) + math.log(100)
    # the randomizer's epsilon at delta is below epsilon0 and above epsilon0 - 1e-5
    assert 4.0 - 1e-5 < local < 4.0
