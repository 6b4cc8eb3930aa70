"""Compensated summation of float arrays at numpy speed."""

from __future__ import annotations

import numpy as np

__all__ = ["cascade_sum"]


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
