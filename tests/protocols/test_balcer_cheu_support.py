"""Support identification with hist (Balcer-Cheu 2020, Def. 3.3, Claim 3.4): the Poissonized
multinomial expectation against enumeration, the success probability against a direct sum
over the counts, the proof's events against the success they are meant to imply, the least n
against its neighbour, and the regime of the proof's call of Theorem 3.1(ii) (the typo)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from accountant.errors import ParameterError, RegimeError
from accountant.protocols.balcer_cheu.support import (
    least_n_for_support,
    multinomial_product,
    support_identification,
)


@pytest.mark.parametrize(("n", "h", "seed"), [(7, 3, 0), (6, 2, 1), (5, 4, 2), (8, 1, 3)])
def test_multinomial_product_matches_enumeration(n, h, seed):
    g = np.random.default_rng(seed).uniform(size=n + 1)
    brute = 0.0
    for counts in itertools.product(range(n + 1), repeat=h):
        if sum(counts) == n:
            ways = math.factorial(n) / math.prod(math.factorial(c) for c in counts)
            brute += ways / h**n * math.prod(g[c] for c in counts)
    assert multinomial_product(g, n=n, h=h) == pytest.approx(brute, rel=1e-10, abs=1e-13)


def test_success_matches_a_direct_sum_over_the_counts_at_h_2():
    eps, delta, n = 1.0, 0.5, 300
    r = support_identification(epsilon=eps, delta=delta, h=2, n=n)
    threshold = (r.t + 1) / n

    def selected(m):  # P[(m + K)/n - p >= threshold, m + K > n], K ~ Bin(n, p)
        ks = np.arange(n + 1)
        hit = (m + ks > n) & ((m + ks) / n - r.p >= threshold - 1e-12)
        return float(stats.binom.pmf(ks, n, r.p)[hit].sum()) if m > 0 else 0.0

    sel = [selected(m) for m in range(n + 1)]
    direct = sum(stats.binom.pmf(m, n, 0.5) * sel[m] * sel[n - m] for m in range(n + 1))
    assert r.success == pytest.approx(direct, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("n", [1500, 2500, 4000])
def test_proof_events_imply_success(n):
    # the proof's union bound: success >= P[E_samp] + P[E_priv] - 1
    r = support_identification(epsilon=1.0, delta=1e-6, h=2, n=n)
    assert r.success >= r.sample_event + r.privacy_event - 1 - 1e-12


@pytest.mark.parametrize("h", [2, 5])
def test_least_n_is_least(h):
    n = least_n_for_support(epsilon=1.0, delta=1e-6, h=h)
    at = support_identification(epsilon=1.0, delta=1e-6, h=h, n=n).success
    before = support_identification(epsilon=1.0, delta=1e-6, h=h, n=n - 1).success
    assert before < 0.99 <= at


def test_proofs_n_succeeds_and_exceeds_the_least_n():
    proof = least_n_for_support(epsilon=1.0, delta=1e-6, h=2, criterion="proof events")
    least = least_n_for_support(epsilon=1.0, delta=1e-6, h=2)
    assert support_identification(epsilon=1.0, delta=1e-6, h=2, n=proof).success >= 0.99
    assert least < proof


def test_sample_complexity_per_h_log_h_does_not_grow():
    # Claim 3.4's rate O(h log h log(1/delta)/eps^2): the constant falls from h = 2 to 8
    constants = [least_n_for_support(epsilon=1.0, delta=1e-6, h=h) / (h * math.log(h))
                 for h in (2, 4, 8)]
    assert constants == sorted(constants, reverse=True)


def test_proofs_delta_condition_is_the_statements_direction():
    # Claim 3.4 states delta < (1/200h)^(1/25); the proof writes ">" (errata). Above the
    # bound, Theorem 3.1(ii) at beta = 1/(200h) is outside its regime beta >= delta^25.
    h = 2
    bound = (1 / (200 * h)) ** (1 / 25)
    with pytest.raises(RegimeError, match="beta >= delta"):
        support_identification(epsilon=1.0, delta=min(1.0, bound * 1.05), h=h, n=400)
    support_identification(epsilon=1.0, delta=bound * 0.95, h=h, n=400)


def test_bad_input_is_named():
    with pytest.raises(ParameterError, match="h=0"):
        support_identification(epsilon=1.0, delta=1e-6, h=0, n=5000)
    with pytest.raises(ParameterError, match="criterion='all'"):
        least_n_for_support(epsilon=1.0, delta=1e-6, h=2, criterion="all")
    with pytest.raises(ParameterError, match="len"):
        multinomial_product(np.ones(3), n=5, h=2)
