"""Literal shuffled k-ary randomized response: randomizer -> uniform shuffle -> histogram.

Each user holding x in {0, ..., k-1} reports x with probability e^eps0/(e^eps0 + k - 1) and
each other symbol with probability 1/(e^eps0 + k - 1)
(docs/single-message.md#k-ary-randomized-response); the shuffler permutes all reports; the
analyzer sees the histogram of the k symbols. This module never looks at the library's PMFs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["keep_probability", "randomizer", "shuffler", "histogram", "run", "sample_histograms"]


def keep_probability(epsilon0: float, k: int) -> float:
    """e^eps0/(e^eps0 + k - 1), the probability that a user reports its own symbol.

    Args:
        epsilon0: the local epsilon0 > 0.
        k: alphabet size >= 2.

    Returns:
        The probability.

    Raises:
        ValueError: epsilon0 or k is outside its domain.
    """
    if not (math.isfinite(epsilon0) and epsilon0 > 0):
        raise ValueError(f"epsilon0={epsilon0!r} is outside (0, inf)")
    if int(k) != k or k < 2:
        raise ValueError(f"k={k!r} is outside integers in [2, inf)")
    return 1.0 / (1.0 + (k - 1) * math.exp(-epsilon0))


def _symbols(data: Sequence[int], k: int) -> np.ndarray:
    x = np.asarray(data, dtype=np.int64)
    if x.ndim != 1 or np.any((x < 0) | (x >= k)):
        raise ValueError(f"data must be a 1-D sequence of symbols in 0..{k - 1}")
    return x


def _reports(x: np.ndarray, shape: tuple[int, ...], epsilon0: float, k: int,
             rng: np.random.Generator) -> np.ndarray:
    keep = rng.random(shape) < keep_probability(epsilon0, k)
    # another symbol, uniform among the k - 1 others: x + 1 + U{0..k-2} mod k
    other = (x + 1 + rng.integers(0, k - 1, size=shape)) % k
    return np.where(keep, x, other)


def randomizer(data: Sequence[int], *, epsilon0: float, k: int,
               rng: np.random.Generator) -> np.ndarray:
    """Every user's report (k-RR with parameter epsilon0).

    Args:
        data: the users' symbols in 0..k-1.
        epsilon0: the local epsilon0.
        k: alphabet size.
        rng: the random source.

    Returns:
        The reports, in the users' order.
    """
    x = _symbols(data, k)
    return _reports(x, x.shape, epsilon0, k, rng)


def shuffler(reports: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation of the reports (along the last axis).

    Args:
        reports: one report list, or a 2-D array of runs (one per row).
        rng: the random source.

    Returns:
        The shuffled reports.
    """
    return rng.permuted(reports, axis=-1)


def histogram(shuffled: np.ndarray, k: int) -> np.ndarray:
    """The count of each symbol (last axis of length k).

    Args:
        shuffled: shuffled reports (1-D or 2-D).
        k: alphabet size.

    Returns:
        Counts, shape shuffled.shape[:-1] + (k,).
    """
    return np.stack([np.count_nonzero(shuffled == s, axis=-1) for s in range(k)], axis=-1)


def run(data: Sequence[int], *, epsilon0: float, k: int, rng: np.random.Generator) -> np.ndarray:
    """One literal run: randomize, shuffle, histogram.

    Args:
        data: the users' symbols.
        epsilon0: the local epsilon0.
        k: alphabet size.
        rng: the random source.

    Returns:
        The histogram of the shuffled reports (length k).
    """
    return histogram(shuffler(randomizer(data, epsilon0=epsilon0, k=k, rng=rng), rng=rng), k)


def sample_histograms(data: Sequence[int], *, epsilon0: float, k: int, trials: int,
                      rng: np.random.Generator, chunk: int = 4_000_000) -> np.ndarray:
    """`trials` independent literal runs, vectorized over rows.

    Args:
        data: the users' symbols.
        epsilon0: the local epsilon0.
        k: alphabet size.
        trials: number of runs, >= 1.
        rng: the random source.
        chunk: entries (runs x users) per vectorized block.

    Returns:
        int64 array of shape (trials, k).

    Raises:
        ValueError: trials < 1 or invalid data.
    """
    x = _symbols(data, k)
    if trials < 1:
        raise ValueError(f"trials={trials!r} is outside integers in [1, inf)")
    per = max(1, chunk // max(x.size, 1))
    out = []
    for start in range(0, trials, per):
        rows = min(per, trials - start)
        reports = _reports(x[None, :], (rows, x.size), epsilon0, k, rng)
        out.append(histogram(shuffler(reports, rng=rng), k))
    return np.concatenate(out).astype(np.int64)
