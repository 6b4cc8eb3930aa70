"""Empirical lower bounds (verify/attacks.py) against the library's certified upper bounds.

Each attack simulates the two views of a neighbouring pair with the literal samplers,
chooses the best threshold test on one half and certifies its error rates with
Clopper-Pearson intervals on the other: its epsilon is a lower bound with probability
>= 0.999. So for a fresh random seed, each `never exceeds` assertion fails with probability
<= 1e-3 if the library is sound (the seeds are fixed, so the suite is deterministic); the
`gets close` assertions are power claims for these seeds. The numbers are printed (-s).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from accountant.protocols import binary_rr, k_rr
from accountant.protocols.balcer_cheu import BalcerCheuZsum, zsum_parameters
from accountant.protocols.gkm import GKMCount, gkm_parameters
from verify import attacks, oracle
from verify.samplers import binary_rr as brr_sampler
from verify.samplers import k_rr as krr_sampler

TRIALS = 200_000
CONFIDENCE = 0.999


def _report(name: str, attack: attacks.AttackResult, upper: float, lower: float | None) -> None:
    gap = attack.epsilon / upper if math.isfinite(upper) and upper > 0 else float("nan")
    print(f"\n{name}: empirical lower {attack.epsilon:.4f} (conf {attack.confidence}, "
          f"{attack.statistic} {attack.region}, {attack.order}, FPR<= {attack.fpr_upper:.3g}, "
          f"FNR<= {attack.fnr_upper:.3g}) <= certified upper {upper:.6f}"
          + (f", certified lower {lower:.6f}" if lower is not None else "")
          + f"; empirical/upper = {gap:.3f}")


# ------------------------------------------------------------------ the statistics
def test_clopper_pearson_upper_covers_at_the_stated_rate() -> None:
    """Coverage of the one-sided bound at alpha = 0.05 over 2000 binomial draws (seeded);
    the observed failure rate must be at most 0.05 plus 4 standard errors."""
    rng = np.random.default_rng(3)
    rate, n = 0.02, 300
    ks = rng.binomial(n, rate, size=2000)
    misses = sum(attacks.clopper_pearson_upper(int(k), n, 0.05) < rate for k in ks)
    assert misses / ks.size <= 0.05 + 4 * math.sqrt(0.05 * 0.95 / ks.size)
    assert attacks.clopper_pearson_upper(0, 1000, 0.001) == pytest.approx(
        1 - 0.001 ** (1 / 1000), rel=1e-9)
    assert attacks.clopper_pearson_upper(5, 5, 0.1) == 1.0
    with pytest.raises(ValueError):
        attacks.clopper_pearson_upper(6, 5, 0.1)


def test_attack_exceeds_a_false_claim() -> None:
    """The test has teeth: a randomizer claimed to be 1-DP that is really 3-DP (binary RR
    with epsilon0 = 3, n = 1: no shuffling blanket) is caught."""
    rng = np.random.default_rng(5)
    p = 1 / (math.exp(3.0) + 1)
    x0 = (rng.random(TRIALS) < p).astype(int)
    x1 = (rng.random(TRIALS) >= p).astype(int)
    r = attacks.epsilon_lower_bound({"bit": (x0, x1)}, delta=0.0, confidence=CONFIDENCE)
    assert r.epsilon > 2.8  # well above the false claim of 1
    assert r.epsilon <= 3.0


def test_identical_views_give_no_epsilon() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=20_000), rng.normal(size=20_000)
    r = attacks.epsilon_lower_bound({"x": (a, b)}, delta=1e-3, confidence=CONFIDENCE)
    assert r.epsilon < 0.1


# ------------------------------------------------------------------ the samplers
def _chi_square_pvalue(observed: np.ndarray, expected: np.ndarray) -> float:
    """Chi-square p-value, cells with expected count < 5 pooled into one."""
    keep = expected >= 5
    obs, exp = observed[keep], expected[keep]
    if np.any(~keep):
        obs, exp = np.append(obs, observed[~keep].sum()), np.append(exp, expected[~keep].sum())
    return float(stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)


@pytest.mark.parametrize(("n", "epsilon0", "ones"), [(6, 1.5, 0), (9, 0.7, 4)])
def test_binary_rr_sampler_matches_the_oracle_law(n: int, epsilon0: float, ones: int) -> None:
    """Chi-square of 100,000 literal runs against the oracle's exact law (p > 1e-6 expected
    for a correct sampler: false-failure rate 1e-6)."""
    rng = np.random.default_rng(7)
    data = [1] * ones + [0] * (n - 1 - ones) + [1]
    counts = brr_sampler.sample_counts(data, epsilon0=epsilon0, trials=100_000, rng=rng)
    with oracle.digits(30):
        P, _ = oracle.binary_rr_pair(n, epsilon0, ones)
    expected = np.array([float(x) for x in P]) * counts.size
    observed = np.bincount(counts, minlength=n + 1)
    assert _chi_square_pvalue(observed, expected) > 1e-6
    assert brr_sampler.run(data, epsilon0=epsilon0, rng=rng) in range(n + 1)


def test_k_rr_sampler_matches_the_oracle_law() -> None:
    """Chi-square of the (count of 0, count of 1) cells against the oracle's special pair."""
    rng = np.random.default_rng(8)
    n, epsilon0, k = 5, 1.2, 3
    h = krr_sampler.sample_histograms([0] * (n - 1) + [1], epsilon0=epsilon0, k=k,
                                      trials=100_000, rng=rng)
    assert np.all(h.sum(axis=1) == n)
    with oracle.digits(30):
        P, _ = oracle.k_rr_special_pair(n, epsilon0, k)
    cells = [(a, b) for a in range(n + 1) for b in range(n + 1 - a)]
    index = {c: i for i, c in enumerate(cells)}
    observed = np.bincount([index[(int(a), int(b))] for a, b in h[:, :2]], minlength=len(cells))
    expected = np.array([float(x) for x in P]) * h.shape[0]
    assert _chi_square_pvalue(observed, expected) > 1e-6
    one = krr_sampler.run([0, 1, 2], epsilon0=1.0, k=k, rng=rng)
    assert one.sum() == 3 and one.shape == (k,)


def test_samplers_really_shuffle() -> None:
    """The shuffler is a permutation, and not the identity."""
    rng = np.random.default_rng(9)
    reports = np.arange(50)
    out = brr_sampler.shuffler(reports, rng=rng)
    assert sorted(out) == list(reports) and not np.array_equal(out, reports)
    out = krr_sampler.shuffler(np.tile(reports, (3, 1)), rng=rng)
    assert all(sorted(row) == list(reports) for row in out)


# ------------------------------------------------------------------ lower <= upper
@pytest.mark.parametrize(("n", "epsilon0", "delta"), [(5, 2.0, 1e-2), (10, 3.0, 1e-3),
                                                      (20, 1.0, 1e-2)])
def test_binary_rr_attack_never_exceeds_the_certified_upper(n: int, epsilon0: float,
                                                            delta: float) -> None:
    rng = np.random.default_rng(11 + n)
    a = attacks.binary_rr_attack(n=n, epsilon0=epsilon0, delta=delta, trials=TRIALS, rng=rng,
                                 confidence=CONFIDENCE)
    b = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta)
    _report(f"binary RR n={n} eps0={epsilon0} delta={delta}", a, float(b.upper),
            float(b.lower))
    assert a.epsilon <= float(b.upper)
    assert a.epsilon >= 0.75 * float(b.lower)  # it gets close (power, for this seed)


@pytest.mark.parametrize(("n", "epsilon0", "k", "delta"), [(5, 2.0, 3, 1e-2),
                                                           (10, 3.0, 4, 1e-3)])
def test_k_rr_attack_never_exceeds_the_certified_upper(n: int, epsilon0: float, k: int,
                                                       delta: float) -> None:
    rng = np.random.default_rng(21 + n)
    a = attacks.k_rr_attack(n=n, epsilon0=epsilon0, k=k, delta=delta, trials=TRIALS, rng=rng,
                            confidence=CONFIDENCE)
    b = k_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, k=k, delta=delta)
    _report(f"k-RR n={n} eps0={epsilon0} k={k} delta={delta}", a, float(b.upper),
            float(b.lower))
    assert a.epsilon <= float(b.upper)
    assert a.epsilon >= 0.75 * float(b.lower)


@pytest.mark.parametrize(("n", "p", "delta"), [(200, 0.7, 1e-2), (2000, 0.9, 1e-2)])
def test_zsum_attack_never_exceeds_the_certified_upper(n: int, p: float, delta: float) -> None:
    rng = np.random.default_rng(31)
    a = attacks.zsum_attack(n=n, p=p, delta=delta, trials=TRIALS, rng=rng,
                            confidence=CONFIDENCE)
    upper = float(BalcerCheuZsum(zsum_parameters(n=n, p=p)).epsilon_for_delta(delta).upper)
    _report(f"bc-zsum n={n} p={p} delta={delta}", a, upper, None)
    assert a.epsilon <= upper
    assert a.epsilon >= 0.4 * upper


def test_zsum_attack_sees_the_infinite_loss_atom() -> None:
    """n = 20, p = 0.9: every noise bit on (mass 0.9^20 = 0.12) gives a count impossible under
    D0, so epsilon(0.01) = inf; the attack's bound is large and the library says inf."""
    rng = np.random.default_rng(32)
    a = attacks.zsum_attack(n=20, p=0.9, delta=1e-2, trials=TRIALS, rng=rng,
                            confidence=CONFIDENCE)
    upper = BalcerCheuZsum(zsum_parameters(n=20, p=0.9)).epsilon_for_delta(1e-2).upper
    assert upper.value == math.inf and a.epsilon > 5


def test_gkm_attack_never_exceeds_the_certified_upper() -> None:
    rng = np.random.default_rng(41)
    params = gkm_parameters(n=10, epsilon=2.0, epsilon_prime=1.0, q=0.05)
    a = attacks.gkm_attack(n=10, epsilon_prime=params.epsilon_prime, q=params.q, s=params.s,
                           lam=params.lam, delta=1e-2, trials=100_000, rng=rng,
                           confidence=CONFIDENCE)
    upper = float(GKMCount(params, ones=0).epsilon_for_delta(1e-2).upper)
    _report("gkm-count n=10 eps=2 eps'=1 q=0.05 delta=0.01", a, upper, None)
    assert a.epsilon <= upper
    assert a.epsilon >= 0.5 * upper
    assert a.epsilon <= float(params.epsilon)  # the protocol's pure-DP target


def test_the_bound_is_a_certified_lower_bound_of_the_exact_pair() -> None:
    """Against the oracle's exact epsilon(delta) of the special pair (not the library)."""
    rng = np.random.default_rng(51)
    n, epsilon0, delta = 6, 1.5, 1e-2
    a = attacks.binary_rr_attack(n=n, epsilon0=epsilon0, delta=delta, trials=TRIALS, rng=rng)
    with oracle.digits(40):
        truth = oracle.epsilon_for_delta(*oracle.binary_rr_pair(n, epsilon0, 0), delta)
    assert a.epsilon <= truth
    assert a.epsilon >= float(truth) - 0.15
    assert isinstance(truth, mpmath.mpf)
