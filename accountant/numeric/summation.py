"""Compensated summation of float arrays at numpy speed."""

from __future__ import annotations

import numpy as np

__all__ = ["cascade_sum", "cascade_sum_rows"]


def cascade_sum(x: np.ndarray) -> float:
    """sum(x) by a pairwise tree of error-free two-sums (Knuth's TwoSum), vectorized.

    The rounding errors of every level are collected and added back, so the result is
    within ~2u |sum| + 2 N u^2 sum|x| of the exact sum (Ogita, Rump, Oishi, "Accurate sum
    and dot product", SIAM J. Sci. Comput. 2005: cascaded summation), at numpy speed
    (math.fsum is ~100x slower on wide-ranging terms).

    Args:
        x: float terms (any sign; converted to a float64 array and flattened as a 1-D sum).

    Returns:
        The compensated sum as a float; 0.0 for an empty input.
    """
    x = np.asarray(x, dtype=float).ravel()  # a 2-D array summed to 0.0 before
    errors = 0.0
    while x.size > 1:
        if x.size % 2:
            x = np.append(x, 0.0)
        a, b = x[0::2], x[1::2]
        s = a + b
        bb = s - a
        errors += float(np.sum((a - (s - bb)) + (b - bb)))
        x = s
    return float(x[0]) + errors if x.size else 0.0


def cascade_sum_rows(x: np.ndarray) -> np.ndarray:
    """`cascade_sum` of each row of a 2-D array, all rows at once (the same tree and
    error-free two-sums per row, so the same bound per row; one Python loop per level
    instead of one call per row: 5,264 rows of a clones Renyi curve took 1.2 s).

    Args:
        x: float terms, shape (rows, n).

    Returns:
        The compensated row sums, shape (rows,); zeros for n = 0.

    Raises:
        ValueError: `x` is not 2-D (an internal caller's mistake, not user input).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"cascade_sum_rows needs a 2-D array, got shape {x.shape}")
    errors = np.zeros(x.shape[0])
    if x.shape[1] == 0:
        return errors
    while x.shape[1] > 1:
        if x.shape[1] % 2:
            x = np.concatenate([x, np.zeros((x.shape[0], 1))], axis=1)
        a, b = x[:, 0::2], x[:, 1::2]
        s = a + b
        bb = s - a
        errors += np.sum((a - (s - bb)) + (b - bb), axis=1)
        x = s
    return x[:, 0] + errors
