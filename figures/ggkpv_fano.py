"""The GGKPV slides' Fano step with uniform inputs: closed forms of I(X; R(X)) for k-RR and
Hadamard response, the convexity bound I(V; R(X)) <= alpha I(X; R(X)), and the mixing weight
below which the slides' one-user form I(V; R(X)) <= alpha^4 e^eps_L (constant 1) fails.

Setting (`accountant.protocols.ggkpv.fano`): V ~ Unif([B]); X = V with probability alpha,
else Unif([B]); one user reports R(X). At alpha = 1, X = V is uniform and

- k-RR (p = e^eps/(e^eps + B - 1) on the diagonal, q = 1/(e^eps + B - 1) elsewhere): the
  output is uniform, so I(X; R(X)) = ln B + p ln p + (B - 1) q ln q (`krr_information`);
- Hadamard response over K = B + 1 columns (rows 1..B of Sylvester's matrix, p =
  e^eps/(1 + e^eps)): H(R(X) | X) = ln(K/2) + h(p) (h the binary entropy); column 0 lies in
  every C_x, so the output law is 2p/K on it and (K - 2p)/(K (K - 1)) on each other column
  (column j != 0 is in C_x for K/2 - 1 of the B rows), and I = H(R(X)) - H(R(X) | X)
  (`hadamard_information`).

Convexity: the channel V -> R(X) is alpha R + (1 - alpha) (every row the output law rbar),
and mutual information is convex in the channel for a fixed input law, with the constant
channel at 0, so I(V; R(X)) <= alpha I(X; R(X)) for every R.

The slides bound I(V; R(X)) by O~(alpha^4 n e^eps_L) and add that this is false for general
R. For one user (n = 1) the comparison is I(V; R(X)) against alpha^4 e^eps_L (n users'
information is at most n times one user's, so n does not simply cancel and only n = 1 is
claimed here): `crossover_alpha` is the
alpha below which the exact I exceeds alpha^4 e^eps_L (I ~ alpha^2 chi^2/2 as alpha -> 0,
so such an alpha exists for every R whose rows differ; with a hidden constant C it moves to
about alpha*/sqrt(C)): k-RR and Hadamard response are counterexamples to the form without
the accuracy assumption. The slides state no counterexample of their own.
"""

from __future__ import annotations

import math

import numpy as np

from accountant.errors import ParameterError
from accountant.protocols.ggkpv import fano

__all__ = ["krr_information", "hadamard_information", "crossover_alpha"]


def _xlogx(x: float) -> float:
    return 0.0 if x == 0 else x * math.log(x)


def krr_information(B: int, epsilon: float) -> float:
    """I(X; R(X)) in nats for k-RR over B symbols with X uniform (closed form)."""
    den = math.exp(epsilon) + B - 1
    p, q = math.exp(epsilon) / den, 1.0 / den
    return math.log(B) + _xlogx(p) + (B - 1) * _xlogx(q)


def hadamard_information(B: int, epsilon: float) -> float:
    """I(X; R(X)) in nats for local Hadamard response over B symbols (B + 1 a power of 2)
    with X uniform (closed form, module docstring)."""
    K = B + 1
    if B < 3 or K & (K - 1):
        raise ParameterError(f"B={B} must be 3, 7, 15, ...: B + 1 a power of 2")
    p = 1.0 / (1.0 + math.exp(-epsilon))
    h = -_xlogx(p) - _xlogx(1.0 - p)
    first, other = 2.0 * p / K, (K - 2.0 * p) / (K * (K - 1))
    return -_xlogx(first) - (K - 1) * _xlogx(other) - (math.log(K / 2) + h)


def crossover_alpha(matrix: np.ndarray, epsilon: float, *, steps: int = 40) -> float:
    """The alpha where the exact I(V; R(X)) (`fano.mutual_information`) equals
    alpha^4 e^epsilon, by bisection in log alpha on [1e-6, 1]: below it the one-user,
    constant-1 form of the slides' bound fails.

    Args:
        matrix: the randomizer R (rows: inputs).
        epsilon: its eps_L.
        steps: bisection steps (the bracket shrinks by 2^-steps in log alpha).

    Returns:
        The crossing alpha (the lower end of the final bracket: there I > alpha^4 e^eps).

    Raises:
        ParameterError: I <= alpha^4 e^eps already at alpha = 1e-6 (no crossing found), or
            I > alpha^4 e^eps at alpha = 1 (the form fails everywhere).
    """
    def excess(a: float) -> float:
        return fano.mutual_information(matrix, a) - a**4 * math.exp(epsilon)

    lo, hi = 1e-6, 1.0
    if excess(lo) <= 0:
        raise ParameterError("no crossing above alpha = 1e-6")
    if excess(hi) > 0:
        raise ParameterError("I(V; R(X)) > alpha^4 e^eps for every alpha in (0, 1]")
    for _ in range(steps):
        mid = math.sqrt(lo * hi)
        if excess(mid) > 0:
            lo = mid
        else:
            hi = mid
    return lo
