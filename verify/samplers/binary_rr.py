"""Literal shuffled binary randomized response: randomizer -> uniform shuffle -> histogram.

Each user holding a bit x reports x with probability e^eps0/(e^eps0 + 1) and 1 - x
otherwise (docs/single-message.md#binary-randomized-response); the shuffler permutes all n
reports uniformly at random; the analyzer sees the shuffled list, whose only information is
its histogram (the number of reported 1s). This module never looks at the library's PMFs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["flip_probability", "randomizer", "shuffler", "histogram", "run", "sample_counts"]


def flip_probability(epsilon0: float) -> float:
    """1/(e^eps0 + 1), the probability that a user reports the other bit.

    Args:
        epsilon0: the local epsilon0 > 0.

    Returns:
        The flip probability.

    Raises:
        ValueError: epsilon0 is not a positive finite number.
    """
    if not (math.isfinite(epsilon0) and epsilon0 > 0):
        raise ValueError(f"epsilon0={epsilon0!r} is outside (0, inf)")
    return 1.0 / (math.exp(epsilon0) + 1.0) if epsilon0 < 700 else 0.0


def _bits(data: Sequence[int]) -> np.ndarray:
    x = np.asarray(data, dtype=np.int64)
    if x.ndim != 1 or np.any((x != 0) & (x != 1)):
        raise ValueError("data must be a 1-D sequence of bits (0 or 1)")
    return x


def randomizer(data: Sequence[int], *, epsilon0: float, rng: np.random.Generator) -> np.ndarray:
    """Every user's report: its bit, flipped with probability 1/(e^eps0 + 1).

    Args:
        data: the users' bits.
        epsilon0: the local epsilon0.
        rng: the random source.

    Returns:
        The reports, in the users' order.
    """
    x = _bits(data)
    flips = rng.random(x.size) < flip_probability(epsilon0)
    return np.where(flips, 1 - x, x)


def shuffler(reports: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation of the reports (along the last axis).

    Args:
        reports: one report list, or a 2-D array of independent runs (one per row).
        rng: the random source.

    Returns:
        The shuffled reports.
    """
    return rng.permuted(reports, axis=-1)


def histogram(shuffled: np.ndarray) -> np.ndarray:
    """The number of reported 1s (per row for a 2-D array): all the shuffled view holds.

    Args:
        shuffled: shuffled reports.

    Returns:
        The count(s) of 1s.
    """
    return np.count_nonzero(shuffled == 1, axis=-1)


def run(data: Sequence[int], *, epsilon0: float, rng: np.random.Generator) -> int:
    """One literal run of the protocol: randomize, shuffle, count.

    Args:
        data: the users' bits.
        epsilon0: the local epsilon0.
        rng: the random source.

    Returns:
        The number of 1s in the shuffled output.
    """
    return int(histogram(shuffler(randomizer(data, epsilon0=epsilon0, rng=rng), rng=rng)))


def sample_counts(data: Sequence[int], *, epsilon0: float, trials: int,
                  rng: np.random.Generator, chunk: int = 4_000_000) -> np.ndarray:
    """`trials` independent literal runs, vectorized over rows (each row is randomized and
    really shuffled).

    Args:
        data: the users' bits.
        epsilon0: the local epsilon0.
        trials: number of runs, >= 1.
        rng: the random source.
        chunk: entries (runs x users) per vectorized block.

    Returns:
        The counts of 1s, int64 array of shape (trials,).

    Raises:
        ValueError: trials < 1 or invalid data.
    """
    x = _bits(data)
    if trials < 1:
        raise ValueError(f"trials={trials!r} is outside integers in [1, inf)")
    p = flip_probability(epsilon0)
    per = max(1, chunk // max(x.size, 1))
    out = []
    for start in range(0, trials, per):
        rows = min(per, trials - start)
        flips = rng.random((rows, x.size)) < p
        reports = np.where(flips, 1 - x[None, :], x[None, :])
        out.append(histogram(shuffler(reports, rng=rng)))
    return np.concatenate(out).astype(np.int64)
