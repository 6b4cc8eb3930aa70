"""Literal heterogeneous shuffling: each user's own randomizer -> uniform shuffle -> histogram.

Users come in groups; user j of group h holding x reports y with probability R_h(y|x) (the
group's matrix, rows = inputs); the shuffler permutes all reports uniformly; the analyzer
sees the histogram of the outputs. Colluders' reports are returned apart (the analyzer
knows them). This module never looks at the library's PMFs; it reads each matrix as floats.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["randomizer", "shuffler", "histogram", "run"]


def _matrix(rows: Sequence[Sequence[float]]) -> np.ndarray:
    r = np.asarray(rows, dtype=float)
    if r.ndim != 2 or np.any(r < 0) or np.any(np.abs(r.sum(axis=1) - 1.0) > 1e-9):
        raise ValueError("a matrix must be 2-D, nonnegative, with rows summing to 1")
    return r


def randomizer(matrices: Sequence[Sequence[Sequence[float]]], inputs: Sequence[Sequence[int]],
               *, rng: np.random.Generator) -> list[np.ndarray]:
    """Every user's report: group h's users apply matrices[h] to their inputs.

    Args:
        matrices: one row-stochastic matrix per group (inputs x outputs).
        inputs: per group, its users' inputs (integers in 0..k-1).
        rng: the random generator.

    Returns:
        Per group, an int array of its users' reports.

    Raises:
        ValueError: a malformed matrix, mismatched lengths or an input out of range.
    """
    if len(matrices) != len(inputs):
        raise ValueError("one list of inputs per group is needed")
    out = []
    for rows, xs in zip(matrices, inputs, strict=True):
        r = _matrix(rows)
        x = np.asarray(xs, dtype=np.int64).reshape(-1)
        if np.any((x < 0) | (x >= r.shape[0])):
            raise ValueError(f"inputs must lie in 0..{r.shape[0] - 1}")
        # inverse CDF per user: the first y whose cumulative probability exceeds u
        cdf = np.cumsum(r, axis=1)
        u = rng.random(x.size)
        y = np.sum(u[:, None] >= cdf[x], axis=1)
        out.append(np.minimum(y, r.shape[1] - 1))
    return out


def shuffler(reports: Sequence[np.ndarray], *, rng: np.random.Generator) -> np.ndarray:
    """All reports in a uniformly random order (who sent what is lost).

    Args:
        reports: per group, its users' reports.
        rng: the random generator.

    Returns:
        The permuted reports.
    """
    flat = np.concatenate([np.asarray(r, dtype=np.int64) for r in reports]) if reports \
        else np.zeros(0, dtype=np.int64)
    return rng.permutation(flat)


def histogram(shuffled: np.ndarray, outputs: int) -> np.ndarray:
    """The analyzer's view: how many reports of each output.

    Args:
        shuffled: the shuffled reports.
        outputs: the output alphabet's size.

    Returns:
        An int array of length `outputs`.
    """
    return np.bincount(shuffled, minlength=outputs)


def run(matrices: Sequence[Sequence[Sequence[float]]], inputs: Sequence[Sequence[int]], *,
        trials: int, rng: np.random.Generator,
        colluders: Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sampled views of `trials` independent runs.

    Args:
        matrices: one matrix per group.
        inputs: per group, its users' inputs.
        trials: the number of runs.
        rng: the random generator.
        colluders: per group, how many of its first users collude (their reports are
            returned apart, not shuffled with the honest ones); None: nobody.

    Returns:
        (honest histograms (trials x outputs), colluders' reports (trials x colluders)).
    """
    m = _matrix(matrices[0]).shape[1]
    take = list(colluders) if colluders is not None else [0] * len(matrices)
    hist = np.empty((trials, m), dtype=np.int64)
    known = np.empty((trials, sum(take)), dtype=np.int64)
    for t in range(trials):
        reports = randomizer(matrices, inputs, rng=rng)
        known[t] = np.concatenate([r[:c] for r, c in zip(reports, take, strict=True)]) \
            if sum(take) else np.zeros(0, dtype=np.int64)
        honest = [r[c:] for r, c in zip(reports, take, strict=True)]
        hist[t] = histogram(shuffler(honest, rng=rng), m)
    return hist, known
