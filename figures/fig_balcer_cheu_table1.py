"""Balcer and Cheu, ITC 2020: Table 1's six rows as a measured figure: simultaneous
histogram error against the domain size d at fixed n, epsilon, delta, with the messages each
user sends (local, [8], the two multi-message rows of [13], this paper, central).

Table 1 compares rates (no constants): local Theta(sqrt(log d)/(eps sqrt n)); this paper's
shuffled histogram O(log(1/delta)/(eps^2 n)), free of d; central
Theta(min(log d, log 1/delta)/(eps n)). We measure, for one dataset and seeded trials, the
simultaneous error max_j |estimate_j - f_j| of normalised frequencies f_j:

- local: Hadamard response at epsilon (epsilon-LDP; a user with value v reports a uniform
  column of C_v = {k : H[v][k] = +1} with probability e^eps/(1+e^eps), else one of its
  complement; estimate c (#{reports in C_x} - n/2), c = 2(e^eps+1)/(e^eps-1), as in
  `accountant.protocols.ggkpv.local_hadamard`): the table's Theta(sqrt(log d)) row; and
  k-ary randomized response at epsilon (unbiased estimator), whose error grows like sqrt(d)
  instead, for contrast;
- shuffled [8] (Cheu et al. 2019): every user sends, for each coordinate j, one binary
  randomized-response bit of 1[x = j] (d messages); each coordinate's count is a shuffled
  binary RR, whose epsilon0 is the largest (bisection) at which the clones bound for any
  epsilon0-LDP randomizer (`accountant.LDP`, certified) gives (eps/2, delta/2); the two
  coordinates a replace-one change touches compose to (eps, delta). Unbiased estimator
  (ones_j/n - q)/(p - q);
- shuffled: Balcer-Cheu's hist (`verify.samplers.balcer_cheu.hist_fast`, the vectorised
  literal protocol) with p set by the paper's rule for (epsilon/2, delta/2), so that
  Theorem 3.2(i) gives (epsilon, delta)-DP;
- central: the exact counts plus discrete Laplace noise DLap(epsilon/2) per bin (a replace-one
  change moves two counts by one: epsilon-DP), sampled as a difference of two geometrics (the
  log d regime of the central row), and the stability-based histogram (the log(1/delta)
  regime): counts of present values plus Laplace(2/epsilon), released when above
  tau = 1 + (2/epsilon) ln(2/delta), absent values never (docs/balcer-cheu-2020.md#table-2).

- shuffled [13] (GGKPV, EUROCRYPT 2021; docs/ggkpv.md): the multi-message Hadamard response
  (1 signal tuple of tau = ceil(log2 n) indices uniform on C_x, rho uniform noise tuples)
  and the count-min sketch with public hash functions (w = W cells, ceil(log2 d) rows, rho
  noise messages per row), each with the least rho whose CERTIFIED upper epsilon(delta) of
  the library's full-view accountant (`accountant.protocols.ggkpv`) meets (epsilon, delta)
  (replace-one neighbours, as here). Calibration takes seconds per d (count-min: up to
  12 s at 11 rows), so the least rho is cached in HADAMARD_RHO / COUNTMIN_RHO (from
  `shuffle-accountant calibrate ggkpv-hadamard|ggkpv-countmin`, command beside each cache)
  and the figure re-certifies it: the certified upper end at the cached rho is computed
  every run, the one at rho - 1 (is rho the least?) in full mode; a cached rho that fails,
  or parameters outside the cache, are calibrated on the spot. Neither pair depends on d
  beyond the count-min rows (the Hadamard pair is (n, rho, tau)'s, the count-min pair
  (n rho / w, rows)'s). Errors are simulated exactly but not literally
  (`hadamard_frequencies`, `countmin_frequencies`): the literal samplers
  (`verify.samplers.ggkpv*`) cost O(n rho tau d) per trial;
  tests/figures/test_fig_balcer_cheu_table1.py fits both shortcuts to them.

Messages per user: 1 for the local protocols, 1 + d p in expectation for hist (the noise
bit of each of the d coordinates plus the user's own), d for [8], 1 + rho tuples for [13]'s
Hadamard response and rows (1 + rho) for its count-min, none for the central ones.

hist reports a bin as 0 unless its message count exceeds n, i.e. unless it holds more than
about n(1 - p) users: zero-count bins are exact, and a bin below that size costs at most
its frequency, so the error is at most about 1 - p = 50 log(4/delta)/((eps/2)^2 n) (drawn as
a reference line) whatever d is; where it is below that line depends on the dataset (it is
not flat in d: it follows the bin sizes, see `findings`).
Dataset: half of the users hold value 1, the rest are spread evenly over the other values.
Parameters (ours; the table has no numbers): n = 10^5, epsilon = 1, delta = 1e-6,
d in {2, 8, 32, 128, 512, 2048}, 20 trials; quick: d in {2, 32, 512}, 5 trials.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy.linalg import hadamard

from accountant import LDP
from accountant.protocols import ggkpv
from accountant.protocols.balcer_cheu import hist_parameters
from figures.common import Drawing, FigureFiles, FigureSpec, new_figure, track
from verify.samplers.balcer_cheu import hist_fast
from verify.samplers.ggkpv_countmin import countmin_estimate, hash_table

__all__ = ["FIGURE", "HEADER", "MODELS", "N", "EPSILON", "DELTA", "W", "HADAMARD_RHO",
           "COUNTMIN_RHO", "GGKPVSetting", "central_stability", "compute", "corank_law",
           "countmin_frequencies", "findings", "ggkpv_settings", "hadamard_frequencies",
           "local_hadamard", "rr_epsilon0", "run", "shuffled_rr", "sketch_rows"]

N = 10**5
EPSILON = 1.0
DELTA = 1e-6
DS: tuple[int, ...] = (2, 8, 32, 128, 512, 2048)
QUICK_DS: tuple[int, ...] = (2, 32, 512)
SEED = 2020
MODELS: tuple[str, ...] = ("local k-RR", "shuffled hist (this paper)", "central DLap",
                           "local Hadamard response", "central stability histogram",
                           "shuffled RR per coordinate [8]",
                           "shuffled multi-message Hadamard response [13]",
                           "shuffled count-min sketch [13]")
# the [13] rows' noise and certified privacy (NaN, or False, in the other rows)
GGKPV_COLUMNS = ("rho", "sketch_rows", "sketch_width", "certified_epsilon_upper",
                 "rho_minus_1_epsilon_upper", "rho_calibrated_here")
HEADER = ["model", "d", "n", "epsilon", "delta", "trials", "max_error_mean", "max_error_sd",
          "one_minus_p", "messages_per_user", *GGKPV_COLUMNS]
# count-min's width (ours; a power of two, so the cell probability 2/w is exact): at least
# 8 d cells for every d here, so that hash collisions between values are rare
W = 2**14
# The least certified rho at (n, epsilon, delta) = (1e5, 1, 1e-6), replace-one neighbours:
#   shuffle-accountant calibrate ggkpv-hadamard --n 100000 --B 2048 --target-epsilon 1
#       --target-delta 1e-6                                  -> rho 56 (the same at B = 2)
HADAMARD_RHO: dict[tuple[int, float, float], int] = {(10**5, 1.0, 1e-6): 56}
#   shuffle-accountant calibrate ggkpv-countmin --n 100000 --B 2048 --w 16384 --d ROWS
#       --target-epsilon 1 --target-delta 1e-6               -> rho below, keyed by ROWS
COUNTMIN_RHO: dict[tuple[int, float, float, int, int], int] = {
    (10**5, 1.0, 1e-6, W, rows): rho
    for rows, rho in ((1, 7), (3, 19), (5, 30), (7, 42), (9, 53), (11, 65))}


def dataset(n: int, d: int) -> np.ndarray:
    """Counts per value: n/2 users at value 1, the rest spread evenly over the others.

    Args:
        n: users.
        d: domain size (>= 2).

    Returns:
        Integer counts of length d summing to n.
    """
    counts = np.zeros(d, dtype=np.int64)
    counts[0] = n // 2
    rest = n - counts[0]
    counts[1:] = rest // (d - 1)
    counts[1:1 + rest % (d - 1)] += 1
    return counts


def local_krr(counts: np.ndarray, epsilon: float, trials: int,
              rng: np.random.Generator) -> np.ndarray:
    """Estimated frequencies of k-ary randomized response, one row per trial.

    Args:
        counts: true counts per value.
        epsilon: the local epsilon.
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) unbiased frequency estimates.
    """
    d = counts.size
    n = int(counts.sum())
    e = math.exp(epsilon)
    keep, other = e / (e + d - 1), 1 / (e + d - 1)
    reports = np.zeros((trials, d))
    for j, c in enumerate(counts):
        if c == 0:
            continue
        probs = np.full(d, other)
        probs[j] = keep
        reports += rng.multinomial(int(c), probs / probs.sum(), size=trials)
    return (reports / n - other) / (keep - other)


def central_geometric(counts: np.ndarray, epsilon: float, trials: int,
                      rng: np.random.Generator) -> np.ndarray:
    """Counts plus DLap(epsilon/2) noise per bin, as frequencies.

    Args:
        counts: true counts.
        epsilon: total epsilon (each bin gets rate epsilon/2).
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) frequency estimates.
    """
    p = -math.expm1(-epsilon / 2)
    shape = (trials, counts.size)
    noise = rng.geometric(p, size=shape) - rng.geometric(p, size=shape)
    return (counts[None, :] + noise) / counts.sum()


def local_hadamard(counts: np.ndarray, epsilon: float, trials: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Estimated frequencies of local Hadamard response, one row per trial.

    Args:
        counts: true counts per value.
        epsilon: the local epsilon.
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) unbiased frequency estimates.
    """
    d = counts.size
    n = int(counts.sum())
    size = 1 << d.bit_length()  # a power of two > d: rows 1..d skip the all-ones row 0
    plus = hadamard(size)[1:d + 1] > 0
    inside = np.array([np.flatnonzero(row) for row in plus])   # C_v, size/2 columns each
    outside = np.array([np.flatnonzero(~row) for row in plus])
    values = np.repeat(np.arange(d), counts)
    e = math.exp(epsilon)
    scale = 2 * (e + 1) / (e - 1)
    out = np.empty((trials, d))
    for t in range(trials):
        keep = rng.random(n) < e / (1 + e)
        j = rng.integers(0, size // 2, size=n)
        columns = np.where(keep, inside[values, j], outside[values, j])
        hist = np.bincount(columns, minlength=size)
        out[t] = scale * (plus.astype(np.int64) @ hist - n / 2) / n
    return out


def central_stability(counts: np.ndarray, epsilon: float, delta: float, trials: int,
                      rng: np.random.Generator) -> np.ndarray:
    """Stability-based histogram: present values' counts plus Laplace(2/epsilon), released
    above tau = 1 + (2/epsilon) ln(2/delta); absent and unreleased values read 0.

    Args:
        counts: true counts.
        epsilon, delta: the target.
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) frequency estimates.
    """
    noisy = counts[None, :] + rng.laplace(0.0, 2 / epsilon, size=(trials, counts.size))
    tau = 1 + 2 * math.log(2 / delta) / epsilon
    released = (counts[None, :] > 0) & (noisy > tau)
    return np.where(released, noisy, 0.0) / counts.sum()


def rr_epsilon0(*, n: int, epsilon: float, delta: float) -> float:
    """The largest epsilon0 (to 1e-4, bisection) at which n shuffled epsilon0-LDP reports are
    certified (epsilon, delta)-DP by the clones bound (`accountant.LDP`).

    Args:
        n: users.
        epsilon, delta: the per-coordinate target.

    Returns:
        epsilon0 (its certified epsilon at delta is <= epsilon).
    """
    low, high = 1e-3, 30.0
    while high - low > 1e-4:
        mid = (low + high) / 2
        fits = float(LDP(n=n, epsilon0=mid).epsilon_for_delta(delta).upper) <= epsilon
        low, high = (mid, high) if fits else (low, mid)
    return low


def shuffled_rr(counts: np.ndarray, epsilon0: float, trials: int,
                rng: np.random.Generator) -> np.ndarray:
    """Estimated frequencies of [8]'s protocol: one binary RR bit per user and coordinate.

    Args:
        counts: true counts per value.
        epsilon0: each bit's local epsilon.
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) unbiased frequency estimates.
    """
    n = int(counts.sum())
    e = math.exp(epsilon0)
    keep, flip = e / (1 + e), 1 / (1 + e)
    shape = (trials, counts.size)
    ones = rng.binomial(counts[None, :] * np.ones(shape, dtype=np.int64), keep) + rng.binomial(
        (n - counts)[None, :] * np.ones(shape, dtype=np.int64), flip)
    return (ones / n - flip) / (keep - flip)


def corank_law(dim: int, vectors: int) -> np.ndarray:
    """The law of the co-dimension of the span of i.i.d. uniform vectors of GF(2)^dim.

    The number of dim x m binary matrices of rank r is
    prod_{i<r} (2^dim - 2^i)(2^m - 2^i)/(2^r - 2^i); divided by 2^(dim m), exact rationals
    rounded to floats at the end.

    Args:
        dim: the space's dimension (>= 1).
        vectors: how many vectors (>= 1).

    Returns:
        Probabilities of co-dimension c = dim - rank, for c = 0..dim.
    """
    law = []
    for rank in range(dim + 1):
        count, norm = 1, 1
        for i in range(rank):
            count *= (2**dim - 2**i) * (2**vectors - 2**i)
            norm *= 2**rank - 2**i
        law.append(Fraction(count, norm * 2 ** (dim * vectors)))
    return np.array([float(x) for x in reversed(law)])


def _extend_spans(spans: np.ndarray, extra: int, K: int,
                  rng: np.random.Generator) -> np.ndarray:
    """Each row of `spans` (the 2^j elements of a subspace of GF(2)^log2(K), 0 first) grown
    by `extra` vectors, each uniform outside the current span: uniform among the subspaces
    of the larger dimension that contain the given one (every such subspace has equally
    many ordered extensions). Elements are listed span, span ^ z1, ... (0 stays first)."""
    for _ in range(extra):
        z = rng.integers(0, K, size=spans.shape[0])
        inside = np.any(spans == z[:, None], axis=1)
        while np.any(inside):
            z[inside] = rng.integers(0, K, size=int(np.count_nonzero(inside)))
            inside = np.any(spans == z[:, None], axis=1)
        spans = np.concatenate([spans, spans ^ z[:, None]], axis=1)
    return spans


def hadamard_tuple_counts(counts: np.ndarray, *, rho: int, tau: int,
                          rng: np.random.Generator) -> np.ndarray:
    """One run of [13]'s shuffled multi-message Hadamard response, as the analyzer's counts
    N_x = #{tuples with every index in C_x}, x = 0..K-1 (K = 2^bitlength(d); value j + 1
    holds counts[j] users), drawn exactly from their joint law without forming the tuples.

    Columns and rows are vectors of GF(2)^k, k = log2 K, and C_x = {m : <x, m> = 0}, so a
    tuple lies in C_x^tau iff x is orthogonal to its span S: the tuple is counted for the
    nonzero elements of S-perp. A noise tuple is tau uniform vectors; given the rank of S,
    S is uniform among subspaces of that rank (the uniform law is GL(k, 2)-invariant), so
    S-perp is a uniform subspace of dimension c = k - rank (law: `corank_law(k, tau)`). A
    signal tuple of a user at v is tau uniform vectors of the hyperplane v-perp, so S-perp
    is a uniform subspace containing v, of dimension 1 + c, c ~ corank_law(k - 1, tau).
    tests/figures/test_fig_balcer_cheu_table1.py fits this to the literal sampler.

    Args:
        counts: users per value 1..d.
        rho: noise tuples per user.
        tau: indices per tuple.
        rng: generator.

    Returns:
        Integer counts N_x for x = 0..K-1 (x = 0 is not a value).
    """
    d = counts.size
    K = 1 << d.bit_length()
    k = K.bit_length() - 1
    n = int(counts.sum())
    hits = np.zeros(K, dtype=np.int64)
    noise = rng.multinomial(n * rho, corank_law(k, tau))
    for c in range(1, k + 1):
        if noise[c] == 0:
            continue
        if c == 1:  # S-perp = {0, x}, x uniform nonzero
            hits[1:] += rng.multinomial(noise[c], np.full(K - 1, 1 / (K - 1)))
        else:
            spans = _extend_spans(np.zeros((noise[c], 1), dtype=np.int64), c, K, rng)
            hits += np.bincount(spans[:, 1:].ravel(), minlength=K)
    hits[1:d + 1] += counts  # every signal tuple lies in its own C_v
    extra = rng.multinomial(counts, corank_law(k - 1, tau))  # (d, k)
    for c in range(1, k):
        if not np.any(extra[:, c]):
            continue
        v = np.repeat(np.arange(1, d + 1, dtype=np.int64), extra[:, c])
        spans = _extend_spans(np.stack([np.zeros_like(v), v], axis=1), c, K, rng)
        hits += np.bincount(spans[:, 2:].ravel(), minlength=K)  # v itself counted above
    return hits


def hadamard_frequencies(counts: np.ndarray, *, rho: int, trials: int,
                         rng: np.random.Generator, tau: int | None = None) -> np.ndarray:
    """[13]'s unbiased estimates f^_x = (N_x - n (1 + rho) pi) / ((1 - pi) n),
    pi = 2^-tau, one row per trial (`hadamard_tuple_counts`).

    Args:
        counts: users per value.
        rho: noise tuples per user.
        trials: runs.
        rng: generator.
        tau: indices per tuple (default ceil(log2 n), the protocol's).

    Returns:
        (trials, d) frequency estimates.
    """
    n = int(counts.sum())
    tau = max(1, math.ceil(math.log2(n))) if tau is None else tau
    pi = math.ldexp(1.0, -tau)
    d = counts.size
    out = np.empty((trials, d))
    for t in range(trials):
        hits = hadamard_tuple_counts(counts, rho=rho, tau=tau, rng=rng)[1:d + 1]
        out[t] = (hits - n * (1 + rho) * pi) / ((1 - pi) * n)
    return out


def sketch_rows(d: int) -> int:
    """Count-min rows for domain size d: ceil(log2 d) (at least 1), count-min's depth for
    a union bound over the d queries (our choice; the slides give none)."""
    return max(1, (d - 1).bit_length())


def countmin_frequencies(counts: np.ndarray, *, rows: int, w: int, rho: int, trials: int,
                         rng: np.random.Generator) -> np.ndarray:
    """[13]'s count-min estimates min_j (C_j[h_j(x)] - n rho / w) / n, a fresh public hash
    table per trial (`verify.samplers.ggkpv_countmin.hash_table` / `countmin_estimate`).

    The sketch is drawn from its law rather than from the messages: given the table, row
    j's counts are the users' signals binned by h_j (fixed) plus Mult(n rho, uniform on
    [w]) noise, independent over rows, which is what counting the shuffled messages gives.

    Args:
        counts: users per value 1..d.
        rows: hash functions.
        w: cells per row.
        rho: noise messages per user and row.
        trials: runs.
        rng: generator (table and noise).

    Returns:
        (trials, d) frequency estimates (biased upwards by collisions, as count-min is).
    """
    d = counts.size
    n = int(counts.sum())
    out = np.empty((trials, d))
    offsets = (np.arange(rows, dtype=np.int64) * w)[:, None]
    for t in range(trials):
        table = hash_table(B=d, w=w, d=rows, rng=rng)
        signal = np.bincount((table + offsets).ravel(), weights=np.tile(counts, rows),
                             minlength=rows * w).reshape(rows, w).astype(np.int64)
        sketch = signal + rng.multinomial(n * rho, np.full(w, 1 / w), size=rows)
        out[t] = countmin_estimate(sketch, table=table, n=n, rho=rho) / n
    return out


@dataclass(frozen=True)
class GGKPVSetting:
    """One [13] protocol's noise at one d and its certified privacy.

    Attributes:
        rho: noise per user (per row for count-min).
        epsilon_upper: certified upper epsilon(delta) at rho (<= the target).
        previous_upper: certified upper epsilon(delta) at rho - 1 (> the target: rho is
            the least), or NaN when not computed (quick mode, or rho = 1).
        calibrated_here: True when the cache did not apply or failed and `calibrate` ran.
    """

    rho: int
    epsilon_upper: float
    previous_upper: float
    calibrated_here: bool


def _certify(cached: int | None, upper_at, calibrate, target: float,
             check_least: bool) -> GGKPVSetting:
    """The cached rho re-certified (upper end <= target; with check_least, rho - 1 fails),
    else a fresh calibration (`calibrate() -> (rho, upper)`)."""
    if cached is not None:
        up = upper_at(cached)
        if up <= target:
            prev = upper_at(cached - 1) if check_least and cached > 1 else math.nan
            if not prev <= target:  # NaN (not checked) or > target (rho is the least)
                return GGKPVSetting(cached, up, prev, False)
    rho, up = calibrate()
    prev = upper_at(rho - 1) if check_least and rho > 1 else math.nan
    return GGKPVSetting(rho, up, prev, True)


def ggkpv_settings(ds: tuple[int, ...], *, n: int, epsilon: float, delta: float,
                   check_least: bool = True) -> dict[tuple[str, int], GGKPVSetting]:
    """The least certified rho of [13]'s two protocols at every d, from the cache when it
    holds (module docstring).

    Args:
        ds: domain sizes.
        n, epsilon, delta: the target (replace-one neighbours).
        check_least: also certify that rho - 1 misses the target.

    Returns:
        {("hadamard", d) or ("countmin", d): setting}.
    """
    out: dict[tuple[str, int], GGKPVSetting] = {}

    def hadamard_upper(rho: int) -> float:
        params = ggkpv.ggkpv_parameters(n=n, B=max(ds), rho=rho)
        return float(ggkpv.epsilon_bracket(params, delta).require_upper())

    def hadamard_calibration() -> tuple[int, float]:
        c = ggkpv.calibrate(n=n, B=max(ds), target_epsilon=epsilon, target_delta=delta)
        return c.rho, float(c.epsilon)

    # the Hadamard pair does not depend on d (module docstring): one setting for all
    had = _certify(HADAMARD_RHO.get((n, epsilon, delta)), hadamard_upper,
                   hadamard_calibration, epsilon, check_least)
    for d in ds:
        rows = sketch_rows(d)
        out[("hadamard", d)] = had

        def countmin_upper(rho: int, d: int = d, rows: int = rows) -> float:
            params = ggkpv.countmin_parameters(n=n, B=d, w=W, d=rows, rho=rho)
            return float(ggkpv.countmin_epsilon_bracket(params, delta).require_upper())

        def countmin_calibration(d: int = d, rows: int = rows) -> tuple[int, float]:
            c = ggkpv.calibrate_countmin(n=n, B=d, w=W, d=rows, target_epsilon=epsilon,
                                         target_delta=delta)
            return c.rho, float(c.epsilon)

        out[("countmin", d)] = _certify(COUNTMIN_RHO.get((n, epsilon, delta, W, rows)),
                                        countmin_upper, countmin_calibration, epsilon,
                                        check_least)
    return out


def compute(ds: tuple[int, ...] = DS, *, trials: int = 20, n: int = N,
            epsilon: float = EPSILON, delta: float = DELTA,
            seed: int = SEED, check_least: bool = True) -> list[dict[str, float]]:
    """Mean and sd over trials of the simultaneous error, per model and d.

    Args:
        ds: domain sizes.
        trials: seeded runs per point.
        n, epsilon, delta: the target.
        seed: the generator's seed.
        check_least: certify that [13]'s rho - 1 misses the target (`ggkpv_settings`).

    Returns:
        One row per (model, d) with the HEADER keys.
    """
    rng = np.random.default_rng(seed)
    p = hist_parameters(n=n, d=2, epsilon=epsilon / 2, delta=delta / 2).p
    epsilon0 = rr_epsilon0(n=n, epsilon=epsilon / 2, delta=delta / 2)
    settings = ggkpv_settings(ds, n=n, epsilon=epsilon, delta=delta, check_least=check_least)
    rows = []
    for d in track(ds, "bc-table1 domain sizes"):
        counts = dataset(n, d)
        f = counts / n
        estimates = {
            "local k-RR": local_krr(counts, epsilon, trials, rng),
            "shuffled hist (this paper)": hist_fast(bin_counts=counts, p=p, trials=trials,
                                                    rng=rng)[1],
            "central DLap": central_geometric(counts, epsilon, trials, rng),
            "local Hadamard response": local_hadamard(counts, epsilon, trials, rng),
            "central stability histogram": central_stability(counts, epsilon, delta, trials,
                                                             rng),
            "shuffled RR per coordinate [8]": shuffled_rr(counts, epsilon0, trials, rng)}
        had, cm = settings[("hadamard", d)], settings[("countmin", d)]
        n_rows = sketch_rows(d)
        estimates[MODELS[6]] = hadamard_frequencies(counts, rho=had.rho, trials=trials,
                                                    rng=rng)
        estimates[MODELS[7]] = countmin_frequencies(counts, rows=n_rows, w=W, rho=cm.rho,
                                                    trials=trials, rng=rng)
        messages = {"local k-RR": 1.0, "shuffled hist (this paper)": 1 + d * p,
                    "central DLap": math.nan, "local Hadamard response": 1.0,
                    "central stability histogram": math.nan,
                    "shuffled RR per coordinate [8]": float(d),
                    MODELS[6]: float(1 + had.rho), MODELS[7]: float(n_rows * (1 + cm.rho))}
        nan = math.nan
        ggkpv_columns = {
            MODELS[6]: (had.rho, nan, nan, had.epsilon_upper, had.previous_upper,
                        had.calibrated_here),
            MODELS[7]: (cm.rho, n_rows, W, cm.epsilon_upper, cm.previous_upper,
                        cm.calibrated_here)}
        for model, est in estimates.items():
            err = np.max(np.abs(est - f[None, :]), axis=1)
            extra = dict(zip(GGKPV_COLUMNS, ggkpv_columns.get(model, (nan,) * 5 + (False,)),
                             strict=True))
            rows.append({"model": model, "d": d, "n": n, "epsilon": epsilon, "delta": delta,
                         "trials": trials, "max_error_mean": float(np.mean(err)),
                         "max_error_sd": float(np.std(err, ddof=1)), "one_minus_p": 1 - p,
                         "messages_per_user": messages[model]} | extra)
    return rows


def findings(rows: list[dict[str, float]]) -> str:
    """What the rows show, as sentences whose numbers are read off the rows.

    Args:
        rows: the rows of `compute` (every model at every d).

    Returns:
        The local error at the smallest and largest d (and whether it rises at every step),
        the range of the shuffled error against its threshold 1-p, and at how many d the
        central error is the lowest.
    """
    def curve(model: str) -> list[dict[str, float]]:
        return sorted((r for r in rows if r["model"] == model), key=lambda r: r["d"])

    (local, shuffled, central, hadamard_rows, stability, per_coordinate, multi_hadamard,
     countmin) = (curve(m) for m in MODELS)
    text = ""
    for name, curve_rows in (("Local k-RR", local), ("Local Hadamard response", hadamard_rows),
                             ("[8]'s shuffled RR per coordinate", per_coordinate),
                             ("[13]'s multi-message Hadamard response", multi_hadamard),
                             ("[13]'s count-min", countmin)):
        if not curve_rows:
            continue
        first, last = curve_rows[0], curve_rows[-1]
        rises = all(b["max_error_mean"] > a["max_error_mean"]
                    for a, b in zip(curve_rows, curve_rows[1:], strict=False))
        text += (f"{name}'s error goes from {first['max_error_mean']:.3g} at "
                 f"d={first['d']:g} to {last['max_error_mean']:.3g} at d={last['d']:g} "
                 f"(x{last['max_error_mean'] / first['max_error_mean']:.3g}"
                 f"{', rising at every step' if rises else ', not rising at every step'}). ")
    errors = [r["max_error_mean"] for r in shuffled]
    threshold = shuffled[0]["one_minus_p"]
    worst = max(shuffled, key=lambda r: r["max_error_mean"])
    below = [r for r in shuffled if r["max_error_mean"] < threshold]
    text += (f"The shuffled histogram's error ranges from {min(errors):.3g} to "
             f"{max(errors):.3g} (largest at d={worst['d']:g}); it is below its threshold "
             f"1-p = {threshold:.3g} at {len(below)} of {len(shuffled)} domain sizes. "
             + ("It is not flat in d" if max(errors) >= 2 * min(errors)
                else "It varies by less than a factor 2 over d")
             + ": a bin with fewer than about n(1-p) users reads 0 and costs its frequency, so "
             "the error follows the dataset's bin sizes (here n/(2(d-1)) users per minor "
             "value), bounded by about 1-p whatever d is. ")
    lowest = [c for c, s, loc in zip(central, shuffled, local, strict=True)
              if c["max_error_mean"] < min(s["max_error_mean"], loc["max_error_mean"])]
    text += f"Central DLap is below both at {len(lowest)} of {len(central)} domain sizes"
    if stability:
        errs = [r["max_error_mean"] for r in stability]
        text += (f"; the central stability histogram's error ranges from {min(errs):.3g} to "
                 f"{max(errs):.3g}")
    messages = [r["messages_per_user"] for r in shuffled]
    text += (f". hist sends {min(messages):.4g} to {max(messages):.4g} messages per "
             "user in expectation (1 for the local protocols, d for [8]).")
    return text + ggkpv_findings(multi_hadamard, countmin)


def _span(values: list[float], fmt: str) -> str:
    low, high = min(values), max(values)
    return format(low, fmt) if low == high else f"{low:{fmt}} to {high:{fmt}}"


def ggkpv_findings(multi_hadamard: list[dict[str, float]],
                   countmin: list[dict[str, float]]) -> str:
    """The [13] rows' messages, noise and certified privacy, and how their rho was set, as
    sentences read off the rows ("" without them).

    Args:
        multi_hadamard, countmin: the two models' rows, sorted by d.

    Returns:
        The sentences.
    """
    if not multi_hadamard or not countmin:
        return ""
    both = multi_hadamard + countmin
    text = ""
    for name, sel, unit in (("Hadamard response", multi_hadamard, "tuples"),
                            ("count-min", countmin, "messages per row")):
        text += (f" [13]'s {name} sends {_span([r['messages_per_user'] for r in sel], '.4g')}"
                 f" messages per user (rho = {_span([r['rho'] for r in sel], 'g')} noise "
                 f"{unit}"
                 + (f", {_span([r['sketch_rows'] for r in sel], 'g')} rows of "
                    f"{sel[0]['sketch_width']:g} cells" if name == "count-min" else "")
                 + f"), certified epsilon({sel[0]['delta']:g}) <= "
                 f"{_span([r['certified_epsilon_upper'] for r in sel], '.4g')}.")
    fresh = sorted({r["d"] for r in both if r["rho_calibrated_here"]})
    checked = [r for r in both if not math.isnan(r["rho_minus_1_epsilon_upper"])]
    text += (" Their rho is the least certified one, "
             + ("cached in the figure's module and re-certified in this run"
                if not fresh else f"calibrated in this run at d = "
                f"{', '.join(f'{d:g}' for d in fresh)} (the cache did not apply), elsewhere "
                "cached and re-certified"))
    if checked:
        misses = _span([r["rho_minus_1_epsilon_upper"] for r in checked], ".4g")
        text += (f"; rho - 1 certified to miss the target at {len(checked)} of {len(both)} "
                 f"points (its upper end {misses} > {both[0]['epsilon']:g}).")
    else:
        text += "; that rho - 1 misses the target is not re-checked in this (quick) run."
    return text


def _plot(rows: list[dict[str, float]]) -> Drawing:
    fig, axes = new_figure(2, width=5.6, height=5.4)
    ax, ax_m = axes
    styles = zip(MODELS, ("o", "s", "^", "D", "v", "P", "X", "*"),
                 ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7"), strict=True)
    for model, marker, color in styles:
        sel = [r for r in rows if r["model"] == model]
        ax.errorbar([r["d"] for r in sel], [r["max_error_mean"] for r in sel],
                    yerr=[r["max_error_sd"] for r in sel], marker=marker, color=color,
                    capsize=2, label=model)
        sent = [r for r in sel if not math.isnan(r["messages_per_user"])]
        if sent:  # the central models send nothing (N/A in the table)
            ax_m.plot([r["d"] for r in sent], [r["messages_per_user"] for r in sent],
                      marker=marker, color=color, label=model)
    ax.axhline(rows[0]["one_minus_p"], color="C1", linestyle=":",
               label=f"hist's threshold 1-p = {rows[0]['one_minus_p']:.3g}")
    # an error bar reaching 0 has no end on log axes: the axis starts below the smallest
    # mean and such bars run off its bottom
    ax.set_ylim(bottom=0.3 * min(r["max_error_mean"] for r in rows))
    ax.set_ylabel("simultaneous error max_j |f^_j - f_j| (frequency)")
    ax.set_title(f"n={rows[0]['n']:g}, eps={rows[0]['epsilon']:g}, "
                 f"delta={rows[0]['delta']:g}, {rows[0]['trials']} seeded trials", fontsize=9)
    ax_m.set_ylabel("messages per user")
    ax_m.set_title("messages per user (hist: in expectation; central: none; both local "
                   "protocols: 1)", fontsize=8)
    for a in axes:
        a.set_xscale("log", base=2)
        a.set_yscale("log")
        a.set_xlabel("domain size d")
        a.grid(True, alpha=0.3, which="both")
    return Drawing(fig, axes, "Balcer-Cheu Table 1, measured (error bars: sd over trials). "
                   + findings(rows))


FILES = FigureFiles(
    "balcer_cheu_2020_table1",
    see_png="simultaneous error of the local, shuffled ([8], [13]'s Hadamard response and "
            "count-min, this paper's hist) and central histograms against d; the caption's "
            "numbers (errors at both ends of d, the shuffled error's range against its "
            "threshold 1-p, messages per user, [13]'s noise rho and certified epsilon, how rho "
            "was set) are generated from the CSV",
    see_csv="mean and sd of the simultaneous error per (model, d), messages per user; for "
            "[13]'s rows rho, the sketch's shape and the certified upper epsilon(delta) at rho "
            "and rho - 1; seeded")


def run(out_dir: Path, quick: bool) -> list[Path]:
    """Write balcer_cheu_2020_table1.csv and .png.

    Args:
        out_dir: output directory.
        quick: d in {2, 32, 512} and 5 trials, [13]'s rho - 1 not re-certified; same method.

    Returns:
        The files written.
    """
    rows = compute(QUICK_DS, trials=5, check_least=False) if quick else compute()
    return FILES.write(
        out_dir, _plot(rows), header=HEADER, rows=rows,
        comments=["Balcer-Cheu ITC 2020 Table 1, its six rows measured: simultaneous error "
                  "of normalised frequencies (mean and sd over seeded trials)",
                  "local: k-RR and Hadamard response at epsilon; shuffled: hist_fast with the "
                  "paper's p for (eps/2, delta/2) (Thm 3.2(i): (eps, delta)-DP), and [8]'s "
                  "binary RR bit per coordinate at the largest certified epsilon0; central: "
                  "DLap(eps/2) per bin (eps-DP) and the stability histogram (Laplace(2/eps), "
                  "threshold 1 + (2/eps) ln(2/delta))",
                  "[13] (GGKPV): multi-message Hadamard response (tau = ceil(log2 n)) and "
                  f"count-min with public hashes (w = {W}, ceil(log2 d) rows), each at the "
                  "least rho whose certified upper epsilon(delta) (accountant.protocols.ggkpv, "
                  "replace-one) meets (eps, delta); certified_epsilon_upper [upper] at rho, "
                  "rho_minus_1_epsilon_upper [upper, > eps: rho is the least] (NaN: not "
                  "re-checked, quick mode), rho_calibrated_here: False = rho from the "
                  "module's cache (re-certified in this run), True = calibrated in this run",
                  "the [13] errors are drawn exactly from the protocols' laws without forming "
                  "the messages (hadamard_tuple_counts, countmin_frequencies)",
                  f"dataset: n/2 users at value 1, rest even; seed {SEED}; parameters ours"])


FIGURE = FigureSpec("bc-table1", "Balcer and Cheu, ITC 2020",
                    "Table 1's six rows measured: simultaneous histogram error and messages "
                    "per user vs d for local k-RR and Hadamard response, [8]'s shuffled RR per "
                    "coordinate, [13]'s multi-message Hadamard response and count-min (least "
                    "certified noise), the shuffled histogram and the central discrete Laplace "
                    "and stability histograms at one (eps, delta)", run, FILES.see)
