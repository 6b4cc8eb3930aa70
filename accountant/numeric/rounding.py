"""Directed rounding: the one place where a value becomes a float in a chosen direction.

An upper bound rounded to nearest can land below the truth; every float we report as an
upper bound goes through `up`, every lower bound through `down`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

__all__ = ["up", "down", "to_float", "sum_relative_error", "UNIT_ROUNDOFF"]

UNIT_ROUNDOFF = 2.0**-53


def up(x: float | Fraction | mpmath.mpf) -> float:
    """The smallest float >= x.

    Args:
        x: a float, int, Fraction or mpmath.mpf (numpy scalars too).

    Returns:
        A float: x itself for a float; for an int, Fraction or mpf (at whatever precision it
        was made), the nearest float moved one ulp up when it fell below x; +-inf stays
        +-inf.
    """
    return _directed(x, +1)


def down(x: float | Fraction | mpmath.mpf) -> float:
    """The largest float <= x.

    Args:
        x: a float, int, Fraction or mpmath.mpf (numpy scalars too).

    Returns:
        A float: x itself for a float; for an int, Fraction or mpf (at whatever precision it
        was made), the nearest float moved one ulp down when it lay above x; +-inf stays
        +-inf.
    """
    return _directed(x, -1)


def _directed(x: float | Fraction | mpmath.mpf, sign: int) -> float:
    if isinstance(x, float | np.floating):
        return float(x)
    if isinstance(x, int | np.integer):  # beyond 2**53 float() rounds to nearest
        x = Fraction(int(x))
    if isinstance(x, Fraction):
        f = float(x)
        if (Fraction(f) < x and sign > 0) or (Fraction(f) > x and sign < 0):
            f = math.nextafter(f, sign * math.inf)
        return f
    if not isinstance(x, mpmath.mpf):
        # a string, an arb ball or any other type would be read at mp.prec by mpf(), i.e.
        # rounded to nearest: no direction could be promised
        raise TypeError(f"directed rounding takes float, int, Fraction or mpf, not "
                        f"{type(x).__name__}")
    if mpmath.isinf(x):
        return float(x)
    f = float(x)  # nearest; at most one ulp off
    if (mpmath.mpf(f) < x and sign > 0) or (mpmath.mpf(f) > x and sign < 0):
        f = math.nextafter(f, sign * math.inf)
    return f


def to_float(x: float | Fraction | mpmath.mpf, *, toward: str) -> float:
    """Round toward "upper" (up), "lower" (down) or "exact" (nearest).

    Args:
        x: a float, Fraction or mpmath.mpf.
        toward: "upper", "lower" or "exact" (a `Kind` works: it is a StrEnum). Any other
            value, "heuristic" included, rounds to nearest like "exact"; it is not rejected.

    Returns:
        up(x) for "upper", down(x) for "lower", float(x) (nearest) otherwise.
    """
    if toward == "upper":
        return up(x)
    if toward == "lower":
        return down(x)
    if isinstance(x, Fraction):
        return float(x)
    return float(x)


def sum_relative_error(n_terms: int) -> float:
    """Bound on the relative error of numpy's pairwise sum of n nonnegative float64 terms.

    numpy sums blocks of up to 128 elements linearly (8 accumulators) and combines blocks
    pairwise, so the error is at most (127 + ceil(log2(n/128)) + 1) u times the exact sum
    (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., sec. 4.2); we use
    a rounded-up version of that with a factor 2 of margin.

    Args:
        n_terms: number of nonnegative float64 terms summed by numpy.sum.

    Returns:
        The relative error bound 2 (128 + max(0, ceil(log2(n_terms / 128))) + 1) u, with u the
        unit roundoff 2**-53; 0.0 for n_terms <= 1.
    """
    if n_terms <= 1:
        return 0.0
    depth = 128 + max(0, math.ceil(math.log2(max(n_terms, 1) / 128.0))) + 1
    return 2.0 * depth * UNIT_ROUNDOFF
