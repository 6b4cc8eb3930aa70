"""The GGKPV literal samplers (verify/samplers/ggkpv.py): Hadamard sets, unbiasedness of
every estimator by seeded simulation, the vectorised oracle against a naive loop, and the
single-message baselines' epsilon0 calibration against the certified shuffle bounds."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from accountant.protocols import k_rr, ldp
from verify.crosscheck import goodness_of_fit, two_sample_test
from verify.samplers import ggkpv as g

B = 15
N = 300
DATA = np.where(np.arange(N) < N // 2, 1, 2 + np.arange(N) % (B - 1))  # value B+1 never


def _unbiased(estimates: np.ndarray, f: np.ndarray) -> tuple[float, float]:
    """(pooled |z| of the mean error over all B queries, max per-query |z|)."""
    err = estimates - f[None, :]
    t = err.shape[0]
    pooled = err.mean(axis=1)
    if np.max(np.abs(pooled)) <= 1e-9 * N:  # k-RR: the estimates always sum to n exactly
        z_pooled = 0.0
    else:
        z_pooled = abs(pooled.mean()) / (pooled.std(ddof=1) / math.sqrt(t))
    z_each = np.abs(err.mean(axis=0)) / (err.std(axis=0, ddof=1) / math.sqrt(t))
    return float(z_pooled), float(np.max(z_each))


def _run(trials: int, one: Callable[[np.random.Generator], np.ndarray],
         seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([one(rng) for _ in range(trials)])


def test_padding_and_hadamard_sets() -> None:
    assert [g.padded_size(b) for b in (1, 2, 3, 4, 7, 8, 63)] == [2, 4, 4, 8, 8, 16, 64]
    assert [g.default_tau(n) for n in (1, 2, 3, 4, 5, 2000)] == [1, 1, 2, 2, 3, 11]
    K = 16
    rows = np.arange(1, K)
    member = g.in_positive_set(rows[:, None], np.arange(K)[None, :])
    assert np.all(member.sum(axis=1) == K // 2)
    both = member[:, None, :] & member[None, :, :]
    off = ~np.eye(K - 1, dtype=bool)
    assert np.all(both.sum(axis=2)[off] == K // 4)  # per-coordinate overlap 1/4


@pytest.mark.parametrize("x", [1, 6, 13])
def test_sample_positive_and_negative_are_uniform(x: int) -> None:
    K = 16
    rng = np.random.default_rng(x)
    pos = g.sample_positive(x, K, rng, size=(40_000,))
    neg = g.sample_negative(x, K, rng, size=(40_000,))
    assert np.all(g.in_positive_set(x, pos)) and not np.any(g.in_positive_set(x, neg))
    cx = np.flatnonzero(g.in_positive_set(x, np.arange(K)))
    law = np.zeros(K)
    law[cx] = 2.0 / K
    assert goodness_of_fit(pos, law).passed
    assert goodness_of_fit(neg, (2.0 / K) - law).passed
    # a law that is off by 10% on two cells is rejected at this sample size
    bad = law.copy()
    bad[cx[0]] *= 1.1
    bad[cx[1]] *= 0.9
    assert not goodness_of_fit(pos, bad).passed


def test_local_hadamard_unbiased() -> None:
    f = g.true_frequencies(DATA, B)
    est = _run(400, lambda r: g.local_hadamard_estimate(
        g.local_hadamard_randomizer(DATA, epsilon=1.0, B=B, rng=r), epsilon=1.0, B=B), 1)
    z_pooled, z_max = _unbiased(est, f)
    assert z_pooled <= 3.0 and z_max <= 4.0  # 4.0: Bonferroni over B = 15 queries


def test_multi_message_unbiased_and_biased_variant_is_caught() -> None:
    f = g.true_frequencies(DATA, B)
    tau, rho = 2, 3  # pi = 1/4: a wrong correction would show at once

    def one(r: np.random.Generator) -> np.ndarray:
        return g.shuffled_hadamard_messages(DATA, B=B, tau=tau, rho=rho, rng=r)

    msgs = _run(300, one, 2)
    est = np.stack([g.shuffled_hadamard_estimate(m, n=N, B=B, rho=rho) for m in msgs])
    z_pooled, z_max = _unbiased(est, f)
    assert z_pooled <= 3.0 and z_max <= 4.0
    # negative control: forgetting the 1/(1 - pi) factor biases every estimate
    pi = 2.0 ** -tau
    biased = est * (1 - pi)
    assert _unbiased(biased, f)[1] > 4.0


def test_multi_message_default_tau_unbiased() -> None:
    f = g.true_frequencies(DATA, B)
    tau, rho = g.default_tau(N), 2
    est = _run(200, lambda r: g.shuffled_hadamard_estimate(
        g.shuffled_hadamard_messages(DATA, B=B, tau=tau, rho=rho, rng=r), n=N, B=B, rho=rho),
        3)
    z_pooled, z_max = _unbiased(est, f)
    assert z_pooled <= 3.0 and z_max <= 4.0


def test_vectorised_oracle_matches_naive_loop() -> None:
    rng = np.random.default_rng(4)
    msgs = g.shuffled_hadamard_messages(DATA, B=B, tau=5, rho=2, rng=rng)
    K = g.padded_size(B)
    naive = []
    for x in range(1, B + 1):
        cx = {j for j in range(K) if bin(x & j).count("1") % 2 == 0}
        naive.append(sum(all(int(j) in cx for j in row) for row in msgs))
    pi = 2.0 ** -5
    want = (np.asarray(naive, dtype=float) - N * 3 * pi) / (1 - pi)
    assert np.array_equal(g.shuffled_hadamard_estimate(msgs, n=N, B=B, rho=2), want)


def test_literal_randomizer_and_shuffle_agree_with_vectorised_path() -> None:
    """Counts N_1 from per-user literal messages vs the vectorised shuffled path."""
    xs = DATA[:40]
    rng = np.random.default_rng(5)
    tau, rho = 3, 2

    def literal(r: np.random.Generator) -> int:
        msgs = [m for x in xs for m in g.multi_message_randomizer(int(x), B=B, tau=tau,
                                                                  rho=rho, rng=r)]
        return int(sum(all(g.in_positive_set(1, np.asarray(m))) for m in msgs))

    lit = np.array([literal(rng) for _ in range(1500)])
    fast = np.array([
        int(np.sum(np.all(g.in_positive_set(1, g.shuffled_hadamard_messages(
            xs, B=B, tau=tau, rho=rho, rng=rng)), axis=1))) for _ in range(1500)])
    assert two_sample_test(lit, fast).passed
    # the shuffle is real: the first tuple is the first user's signal only by chance
    first_in = np.mean([np.all(g.in_positive_set(1, g.shuffled_hadamard_messages(
        np.ones(40, dtype=int), B=B, tau=tau, rho=rho, rng=rng)[0])) for _ in range(600)])
    expected = (1 + rho * 2.0 ** -tau) / (1 + rho)
    assert abs(first_in - expected) < 4 * math.sqrt(expected * (1 - expected) / 600)


def test_single_message_baselines_unbiased() -> None:
    f = g.true_frequencies(DATA, B)
    est = _run(400, lambda r: g.krr_estimate(
        g.krr_randomizer(DATA, epsilon0=2.0, B=B, rng=r), epsilon0=2.0, B=B), 6)
    z_pooled, z_max = _unbiased(est, f)
    assert z_pooled <= 3.0 and z_max <= 4.0
    est = _run(400, lambda r: g.unary_estimate(
        g.unary_randomizer(DATA, epsilon0=2.0, B=B, rng=r), epsilon0=2.0), 7)
    z_pooled, z_max = _unbiased(est, f)
    assert z_pooled <= 3.0 and z_max <= 4.0


def test_krr_randomizer_law() -> None:
    rng = np.random.default_rng(8)
    y = g.krr_randomizer(np.full(30_000, 3), epsilon0=1.0, B=5, rng=rng)
    p = math.e / (math.e + 4)
    law = np.array([(1 - p) / 4] * 5)
    law[2] = p
    assert goodness_of_fit(y, law, labels=np.arange(1, 6)).passed


@pytest.mark.parametrize("protocol", ["k-rr", "unary"])
def test_calibrated_epsilon0_is_certified_and_largest(protocol: str) -> None:
    n, epsilon, delta = 300, 1.0, 1e-6
    eps0, r = g.calibrated_epsilon0(protocol, n=n, B=B, epsilon=epsilon, delta=delta,
                                    rel_tol=1e-2)
    assert float(r) <= epsilon and r.kind.value == "upper"
    if protocol == "k-rr":
        again = k_rr.KRR(n=n, epsilon0=eps0, k=B).epsilon_for_delta(delta).upper
        above = k_rr.KRR(n=n, epsilon0=eps0 * 1.03, k=B).epsilon_for_delta(delta).upper
    else:
        again = ldp.LDP(n=n, epsilon0=eps0).epsilon_for_delta(delta).upper
        above = ldp.LDP(n=n, epsilon0=eps0 * 1.03).epsilon_for_delta(delta).upper
    assert float(again) <= epsilon < float(above)
    assert eps0 > epsilon  # amplification by shuffling buys a larger local epsilon0


def test_simulate_summary_reports_unbiased_errors() -> None:
    s = g.simulate_summary(n=500, B=15, rho=4, trials=20, seed=1)
    assert s["messages_per_user"] == 5 and s["tau"] == 9 and s["K"] == 16
    assert abs(s["mean_signed_error"]) <= 3 * s["mean_signed_error_se"]
    assert 0 < s["max_count_error_mean"] <= s["max_count_error_max"]
