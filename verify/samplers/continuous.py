"""Literal shuffled noise-adding randomizers: x + noise per user -> uniform shuffle.

Each user holding x in {0, 1} reports x + N(0, sigma^2) (Gaussian) or x + Laplace(b); the
shuffler permutes all n reports uniformly at random; the analyzer sees the shuffled list.
This module never looks at the library's code.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["randomizer", "shuffler", "run", "count_above"]


def randomizer(data: Sequence[int], *, noise: str, scale: float, trials: int,
               rng: np.random.Generator) -> np.ndarray:
    """Every user's report in each trial: its input plus fresh noise.

    Args:
        data: the users' inputs (0 or 1).
        noise: "gaussian" (scale = sigma) or "laplace" (scale = b).
        scale: the noise scale, > 0.
        trials: independent runs.
        rng: the random source.

    Returns:
        Array (trials, n) of reports in the users' order.

    Raises:
        ValueError: an input outside {0, 1}, an unknown noise or a scale <= 0.
    """
    x = np.asarray(data, dtype=float)
    if x.ndim != 1 or np.any((x != 0) & (x != 1)):
        raise ValueError("data must be a 1-D sequence of bits (0 or 1)")
    if not scale > 0:
        raise ValueError(f"scale={scale!r} is outside (0, inf)")
    if noise == "gaussian":
        z = rng.normal(0.0, scale, size=(trials, x.size))
    elif noise == "laplace":
        z = rng.laplace(0.0, scale, size=(trials, x.size))
    else:
        raise ValueError(f"noise={noise!r} is outside {{'gaussian', 'laplace'}}")
    return x[None, :] + z


def shuffler(reports: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random permutation of each trial's reports.

    Args:
        reports: array (trials, n).
        rng: the random source.

    Returns:
        The reports, each row permuted.
    """
    return rng.permuted(reports, axis=1)


def run(data: Sequence[int], *, noise: str, scale: float, trials: int,
        rng: np.random.Generator) -> np.ndarray:
    """randomizer -> shuffler, `trials` times.

    Args:
        data: the users' inputs.
        noise: "gaussian" or "laplace".
        scale: the noise scale.
        trials: independent runs.
        rng: the random source.

    Returns:
        Array (trials, n) of shuffled reports.
    """
    return shuffler(randomizer(data, noise=noise, scale=scale, trials=trials, rng=rng),
                    rng=rng)


def count_above(views: np.ndarray, t: float) -> np.ndarray:
    """The analyzer's statistic: how many shuffled reports exceed t, per trial.

    Args:
        views: array (trials, n) of shuffled reports.
        t: the threshold.

    Returns:
        Integer counts, one per trial.
    """
    return np.sum(views > t, axis=1)
