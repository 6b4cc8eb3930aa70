"""The Fano step of the GGKPV slides' local lower bound, computed exactly for given local
randomizers (docs/ggkpv.md#the-fano-step).

The slides ("Proof idea of local DP lower bound"): V ~ Unif([B]); X = V with probability
alpha, else Unif([B]); they show I(V; R(X)) <= O~(alpha^4 n e^eps_L), and add that this is
"actually false for general randomizers R" (the proof uses that R gives error <~ alpha).
For one user with randomizer R (rows R(.|x)), P(y | V = v) = alpha R(y|v) + (1 - alpha) rbar(y)
with rbar the row average (also P(y)), so

    I(V; R(X)) = (1/B) sum_v sum_y P(y|v) log(P(y|v) / rbar(y))

exactly (`mutual_information`, 50 digits). Since P(y|v) - rbar(y) = alpha (R(y|v) - rbar(y)),
I = (alpha^2 / 2) chi^2 + O(alpha^3): it falls like alpha^2, not alpha^4, for k-RR and for
Hadamard response (`fitted_exponent`), which is the slides' "false for general R".

Example (binary RR at eps = 1: I = alpha^2 (e-1)^2/(2 (e+1)^2) + O(alpha^3)):
    >>> round(fitted_exponent(k_rr_matrix(B=2, epsilon=1.0), 1e-4, 1e-3), 4)
    2.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mpmath
import numpy as np

from accountant.domains import EPSILON0, Interval
from accountant.errors import ParameterError

__all__ = ["k_rr_matrix", "hadamard_matrix", "mutual_information", "fitted_exponent"]

ALPHA_MIX = Interval("alpha", 0.0, 1.0, closed="right")
DOMAIN = Interval("B", 2, 4096, closed="both", integer=True)


def k_rr_matrix(*, B: int, epsilon: float) -> np.ndarray:
    """k-ary randomized response over B symbols: e^eps/(e^eps + B - 1) on the diagonal.

    Args:
        B: domain size, 2..4096.
        epsilon: its pure-DP parameter, > 0.

    Returns:
        The B x B row-stochastic matrix.

    Raises:
        ParameterError: an argument outside its domain.
    """
    DOMAIN.check(B)
    EPSILON0.named("epsilon").check(epsilon)
    m = np.ones((B, B))
    np.fill_diagonal(m, math.exp(epsilon))
    return m / (math.exp(epsilon) + B - 1)


def hadamard_matrix(*, B: int, epsilon: float) -> np.ndarray:
    """Local Hadamard response over B symbols, B + 1 a power of 2 (rows 1..B of Sylvester's
    matrix): uniform over C_x = {k : H[x][k] = +1} with probability e^eps/(1 + e^eps), else
    uniform over its complement.

    Args:
        B: domain size with B + 1 a power of 2, 3..4095.
        epsilon: its pure-DP parameter, > 0.

    Returns:
        The B x (B + 1) row-stochastic matrix.

    Raises:
        ParameterError: an argument outside its domain, or B + 1 not a power of 2.
    """
    DOMAIN.check(B)
    EPSILON0.named("epsilon").check(epsilon)
    k = B + 1
    if k & (k - 1):
        raise ParameterError(f"B={B} is outside {{3, 7, 15, ...}}: B + 1 must be a power of 2")
    idx = np.arange(k)
    signs = np.array([[1 - 2 * (bin(i & j).count("1") % 2) for j in idx] for i in idx[1:]])
    keep = math.exp(epsilon) / (1 + math.exp(epsilon))
    return np.where(signs == 1, keep, 1 - keep) / (k / 2)


def mutual_information(matrix: Sequence[Sequence[float]] | np.ndarray, alpha: float) -> float:
    """I(V; R(X)) in nats for V ~ Unif([B]), X = V w.p. alpha else Unif([B]), 50 digits.

    Args:
        matrix: R, B rows (inputs) of output probabilities, each row summing to 1.
        alpha: the mixing weight, in (0, 1].

    Returns:
        The mutual information, rounded to float.

    Raises:
        ParameterError: alpha outside (0, 1], or a row that is not a distribution.
    """
    ALPHA_MIX.check(alpha)
    r = np.asarray(matrix, dtype=float)
    if r.ndim != 2 or np.any(r < 0) or not np.allclose(r.sum(axis=1), 1.0, atol=1e-12):
        raise ParameterError("matrix must be a 2-D array of non-negative rows summing to 1")
    with mpmath.workdps(50):
        a = mpmath.mpf(alpha)
        rows = [[mpmath.mpf(float(x)) for x in row] for row in r]
        b = len(rows)
        mean = [mpmath.fsum(row[y] for row in rows) / b for y in range(r.shape[1])]
        total = mpmath.mpf(0)
        for row in rows:
            for y, m in enumerate(mean):
                p = a * row[y] + (1 - a) * m
                if p > 0:
                    total += p * mpmath.log(p / m)
        return float(total / b)


def fitted_exponent(matrix: Sequence[Sequence[float]] | np.ndarray, alpha_low: float,
                    alpha_high: float) -> float:
    """The log-log slope of I(V; R(X)) between two mixing weights.

    Args:
        matrix: the randomizer R.
        alpha_low: the smaller weight, in (0, alpha_high).
        alpha_high: the larger weight, in (alpha_low, 1].

    Returns:
        log(I(alpha_high) / I(alpha_low)) / log(alpha_high / alpha_low).

    Raises:
        ParameterError: the weights out of order or range.
    """
    ALPHA_MIX.check(alpha_low)
    ALPHA_MIX.named("alpha_high").check(alpha_high)
    if not alpha_low < alpha_high:
        raise ParameterError(f"alpha_low={alpha_low!r} must be below alpha_high={alpha_high!r}")
    low = mutual_information(matrix, alpha_low)
    high = mutual_information(matrix, alpha_high)
    return math.log(high / low) / math.log(alpha_high / alpha_low)
