"""Empirical lower bounds on epsilon: a distinguishing test between the simulated views of two
neighbouring datasets, with Clopper-Pearson intervals on its error rates.

For any region S of the view space and any (epsilon, delta)-DP mechanism M with
neighbouring datasets D1, D0 (in either order),

    P[M(D1) in S] <= e^epsilon P[M(D0) in S] + delta,

so with the test "say D1 when the view is in S", false-positive rate FPR = P[M(D0) in S] and
false-negative rate FNR = 1 - P[M(D1) in S]:

    epsilon >= log((1 - delta - FNR) / FPR).

Replacing FPR and FNR by Clopper-Pearson upper bounds (each at level (1 - confidence)/2,
computed on samples that played no part in choosing S) gives a lower bound on epsilon that
holds with probability >= `confidence`. The region is chosen on a separate training half:
every threshold of every supplied statistic, both sides (T >= t and T <= t) and both orders
of the datasets, keeping the one with the largest training estimate. A threshold on the
privacy-loss statistic is the likelihood-ratio (Neyman-Pearson) test.

Protocol attacks simulate the special neighbouring pair (all other users equal) with the
literal samplers of `verify.samplers` and compare with the library's certified upper bound,
which the lower bound must never exceed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats

from verify.samplers import balcer_cheu as bc_sampler
from verify.samplers import binary_rr as binary_rr_sampler
from verify.samplers import gkm as gkm_sampler
from verify.samplers import k_rr as k_rr_sampler

__all__ = [
    "AttackResult",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "binary_rr_attack",
    "k_rr_attack",
    "zsum_attack",
    "gkm_attack",
]


@dataclass(frozen=True)
class AttackResult:
    """A certified-with-confidence lower bound on epsilon at delta.

    Attributes:
        epsilon: the lower bound (0 when the test distinguishes nothing).
        delta: the delta it refers to.
        confidence: probability (over the test samples) that the bound holds.
        statistic: name of the statistic the region thresholds.
        region: "T >= t" or "T <= t", with t.
        order: "D1 vs D0" (S is evidence for D1) or "D0 vs D1".
        fpr, fnr: point estimates on the test samples.
        fpr_upper, fnr_upper: Clopper-Pearson upper bounds (level (1 - confidence)/2 each).
        trials: test samples per dataset.
    """

    epsilon: float
    delta: float
    confidence: float
    statistic: str
    region: str
    order: str
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    trials: int


def clopper_pearson_upper(k: int, n: int, alpha: float) -> float:
    """One-sided Clopper-Pearson upper bound on a binomial proportion.

    Args:
        k: successes observed, 0 <= k <= n.
        n: trials, >= 1.
        alpha: error probability in (0, 1): the bound is >= the true proportion with
            probability >= 1 - alpha.

    Returns:
        The upper confidence bound (1.0 when k = n).

    Raises:
        ValueError: arguments outside their domains.
    """
    if not (isinstance(n, int | np.integer) and n >= 1 and 0 <= k <= n):
        raise ValueError(f"need integers 0 <= k <= n, n >= 1; got k={k!r}, n={n!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} is outside (0, 1)")
    if k == n:
        return 1.0
    return float(stats.beta.ppf(1 - alpha, k + 1, n - k))


def _candidates(train0: np.ndarray, train1: np.ndarray,
                delta: float) -> tuple[float, float, int, str]:
    """Best (estimate, threshold, side, order) on the training halves."""
    values = np.unique(np.concatenate([train0, train1]))
    s0, s1 = np.sort(train0), np.sort(train1)
    n0, n1 = s0.size, s1.size
    # mass at or above each value, and at or below it
    ge0 = (n0 - np.searchsorted(s0, values, side="left")) / n0
    ge1 = (n1 - np.searchsorted(s1, values, side="left")) / n1
    le0 = np.searchsorted(s0, values, side="right") / n0
    le1 = np.searchsorted(s1, values, side="right") / n1
    best = (-math.inf, float(values[0]), 1, "D1 vs D0")
    floor0, floor1 = 1.0 / n0, 1.0 / n1  # keeps a never-seen region from looking infinite
    for side, a0, a1 in ((1, ge0, ge1), (-1, le0, le1)):
        for order, pos, neg, floor in (("D1 vs D0", a1, a0, floor0),
                                       ("D0 vs D1", a0, a1, floor1)):
            with np.errstate(divide="ignore", invalid="ignore"):
                est = np.log(np.maximum(pos - delta, 0.0) / np.maximum(neg, floor))
            i = int(np.argmax(est))
            if est[i] > best[0]:
                best = (float(est[i]), float(values[i]), side, order)
    return best


def epsilon_lower_bound(samples: Mapping[str, tuple[np.ndarray, np.ndarray]], *, delta: float,
                        confidence: float = 0.999, train_fraction: float = 0.5) -> AttackResult:
    """The best threshold test on one of several statistics, certified on held-out samples.

    Args:
        samples: statistic name -> (values under D0, values under D1), i.i.d. samples of
            the statistic on the two neighbouring datasets (each statistic computed from
            the same runs or from independent ones; the bound holds either way, because
            only the chosen one is evaluated on the held-out part).
        delta: delta in [0, 1).
        confidence: in (0, 1), probability that the returned bound holds.
        train_fraction: share of the samples used to choose the region, in (0, 1).

    Returns:
        An AttackResult; its `epsilon` is a lower bound on the epsilon at `delta` of every
        mechanism producing these views, with probability >= confidence.

    Raises:
        ValueError: empty samples or arguments outside their domains.
    """
    if not samples:
        raise ValueError("samples must name at least one statistic")
    if not 0 <= delta < 1:
        raise ValueError(f"delta={delta!r} is outside [0, 1)")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence!r} is outside (0, 1)")
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction={train_fraction!r} is outside (0, 1)")
    best = None
    for name, (x0, x1) in samples.items():
        x0, x1 = np.asarray(x0, dtype=float), np.asarray(x1, dtype=float)
        m0, m1 = int(x0.size * train_fraction), int(x1.size * train_fraction)
        if min(m0, m1, x0.size - m0, x1.size - m1) < 1:
            raise ValueError(f"statistic {name!r}: too few samples to split")
        cand = _candidates(x0[:m0], x1[:m1], delta)
        if best is None or cand[0] > best[0]:
            best = (*cand, name, x0[m0:], x1[m1:])
    assert best is not None
    _, t, side, order, name, test0, test1 = best
    pos, neg = (test1, test0) if order == "D1 vs D0" else (test0, test1)
    in_pos = pos >= t if side > 0 else pos <= t
    in_neg = neg >= t if side > 0 else neg <= t
    k_fn, k_fp = int(np.count_nonzero(~in_pos)), int(np.count_nonzero(in_neg))
    alpha = (1 - confidence) / 2
    fnr_u = clopper_pearson_upper(k_fn, pos.size, alpha)
    fpr_u = clopper_pearson_upper(k_fp, neg.size, alpha)
    num = 1 - delta - fnr_u
    eps = math.log(num / fpr_u) if num > 0 and fpr_u > 0 else 0.0
    return AttackResult(epsilon=max(eps, 0.0), delta=delta, confidence=confidence,
                        statistic=name, region=f"T {'>=' if side > 0 else '<='} {t:g}",
                        order=order, fpr=k_fp / neg.size, fnr=k_fn / pos.size,
                        fpr_upper=fpr_u, fnr_upper=fnr_u, trials=min(pos.size, neg.size))


# ------------------------------------------------------------------ protocols
def binary_rr_attack(*, n: int, epsilon0: float, delta: float, trials: int,
                     rng: np.random.Generator, ones: int = 0,
                     confidence: float = 0.999) -> AttackResult:
    """Distinguish D0 (`ones` of the other n-1 users hold 1, the differing user 0) from D1
    (the differing user holds 1) on literal runs of shuffled binary RR (count of 1s).

    Args:
        n: users, >= 2.
        epsilon0: the local epsilon0.
        delta: delta of the bound.
        trials: runs per dataset (half train, half test).
        rng: the random source.
        ones: the other users holding 1 (0 is the special pair).
        confidence: as in `epsilon_lower_bound`.

    Returns:
        The AttackResult.
    """
    base = [1] * ones + [0] * (n - 1 - ones)
    c0 = binary_rr_sampler.sample_counts([*base, 0], epsilon0=epsilon0, trials=trials, rng=rng)
    c1 = binary_rr_sampler.sample_counts([*base, 1], epsilon0=epsilon0, trials=trials, rng=rng)
    return epsilon_lower_bound({"count of 1s": (c0, c1)}, delta=delta, confidence=confidence)


def k_rr_attack(*, n: int, epsilon0: float, k: int, delta: float, trials: int,
                rng: np.random.Generator, confidence: float = 0.999) -> AttackResult:
    """Distinguish D0 (all n users hold symbol 0) from D1 (one holds symbol 1) on literal
    runs of shuffled k-RR, by the likelihood-ratio statistic of the histogram.

    With a and b the counts of symbols 0 and 1, the likelihood ratio of the view is
    (a e^-eps0 + b e^eps0 + n - a - b)/n (the differing user's report is x' w.p. e^eps0/den
    rather than 1/den), monotone in T = a (e^-eps0 - 1) + b (e^eps0 - 1); the count b is
    offered too.

    Args:
        n: users, >= 2.
        epsilon0: the local epsilon0.
        k: alphabet size, >= 2.
        delta: delta of the bound.
        trials: runs per dataset.
        rng: the random source.
        confidence: as in `epsilon_lower_bound`.

    Returns:
        The AttackResult.
    """
    d0 = [0] * n
    d1 = [0] * (n - 1) + [1]
    h0 = k_rr_sampler.sample_histograms(d0, epsilon0=epsilon0, k=k, trials=trials, rng=rng)
    h1 = k_rr_sampler.sample_histograms(d1, epsilon0=epsilon0, k=k, trials=trials, rng=rng)

    def lr(h: np.ndarray) -> np.ndarray:
        return h[:, 0] * math.expm1(-epsilon0) + h[:, 1] * math.expm1(epsilon0)

    return epsilon_lower_bound({"likelihood ratio": (lr(h0), lr(h1)),
                                "count of symbol 1": (h0[:, 1], h1[:, 1])},
                               delta=delta, confidence=confidence)


def zsum_attack(*, n: int, p: float, delta: float, trials: int, rng: np.random.Generator,
                ones: int = 0, confidence: float = 0.999) -> AttackResult:
    """Distinguish `ones` from `ones + 1` users holding 1 in Balcer-Cheu zsum, on the
    number of messages the analyzer sees (`verify.samplers.balcer_cheu.zsum_fast`, the
    same law as the literal runs).

    Args:
        n: users.
        p: zsum's noise parameter.
        delta: delta of the bound.
        trials: runs per dataset.
        rng: the random source.
        ones: users holding 1 in D0.
        confidence: as in `epsilon_lower_bound`.

    Returns:
        The AttackResult.
    """
    c0, _ = bc_sampler.zsum_fast(ones=ones, n=n, p=p, trials=trials, rng=rng)
    c1, _ = bc_sampler.zsum_fast(ones=ones + 1, n=n, p=p, trials=trials, rng=rng)
    return epsilon_lower_bound({"message count": (c0, c1)}, delta=delta, confidence=confidence)


def gkm_attack(*, n: int, epsilon_prime: float, q: float, s: int, lam: float, delta: float,
               trials: int, rng: np.random.Generator, ones: int = 0,
               confidence: float = 0.999) -> AttackResult:
    """Distinguish D0 (`ones` of the other users hold 1, the differing user 0) from D1 in
    GKM counting, on the message counts (V+, V-) of `verify.samplers.gkm.sample_views`:
    statistics V+ - V- (the analyzer's output) and V+.

    Args:
        n, epsilon_prime, q, s, lam: the protocol's parameters (see
            `accountant.protocols.gkm.gkm_parameters`).
        delta: delta of the bound.
        trials: runs per dataset.
        rng: the random source.
        ones: the other users holding 1.
        confidence: as in `epsilon_lower_bound`.

    Returns:
        The AttackResult.
    """
    base = np.array([1] * ones + [0] * (n - 1 - ones), dtype=np.int64)
    kw = {"epsilon_prime": epsilon_prime, "q": q, "s": s, "lam": lam, "trials": trials,
          "rng": rng}
    p0, m0 = gkm_sampler.sample_views(np.append(base, 0), **kw)
    p1, m1 = gkm_sampler.sample_views(np.append(base, 1), **kw)
    return epsilon_lower_bound({"V+ - V-": (p0 - m0, p1 - m1), "V+": (p0, p1)}, delta=delta,
                               confidence=confidence)
