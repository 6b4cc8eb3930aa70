"""Pointer chasing, multi-party pointer jumping and Table 2 of Balcer-Cheu 2020 (Defs. 3.5,
3.6, Theorem 1.2), by reduction to support identification (`support`).

- PC(k, l): samples are uniform over the two items (1, a) and (2, b), a and b permutations of
  [l]; the answer is the k-th integer of a_1, b_{a_1}, a_{b_{a_1}}, ... (`pointer_chase`).
  Once the support {(1, a), (2, b)} is identified the answer is computed, so the solver's
  success probability is at least that of support identification with h = 2, and the least
  n is that of h = 2 whatever k and l are: the domain {1, 2} x Perm(l) has 2 l! values but
  values outside the support read exactly 0 in hist (Theorem 3.1(iii)).
- MPJ(s, h): samples are uniform over h labelings (one per tree level); the support has h
  items, so the least n is that of support identification with h, whatever s is.
- Table 2's central row: the reduction run with a central stability-based histogram
  (`central_support_success`): each value present in the data gets its count plus
  Laplace(2/epsilon) noise and is released when that exceeds tau = 1 + (2/epsilon) ln(2/delta);
  absent values are never released. A replace-one change moves two counts by one (Laplace
  with L1 sensitivity 2: epsilon-DP on the common values) and can create a value of count 1,
  released with probability (1/2) e^(-(tau - 1) epsilon/2) = delta/4 (so (epsilon, delta)-DP
  by the usual stability argument; docs/balcer-cheu-2020.md#table-2). The released set is the
  estimate of the support; its success probability is exact by the same Poissonization.
- Table 2's local row is a lower bound without constants (Omega(l/e^epsilon) for PC at k = 2,
  Omega(h^3/(epsilon^2 log h)) for MPJ with s = h^4): `figures` draws it with constant 1 as a
  reference shape, never as a number of this library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from accountant.domains import EPSILON, Interval
from accountant.errors import ParameterError
from accountant.protocols.balcer_cheu.support import multinomial_product

__all__ = ["central_support_success", "least_n_central", "pointer_chase"]

_DELTA = Interval("delta", 0.0, 1.0, closed="neither")
_H = Interval("h", 1, math.inf, closed="left")
_TARGET = Interval("target", 0.0, 1.0, closed="neither")
_MAX_N = 10**7


def pointer_chase(a: Sequence[int], b: Sequence[int], k: int) -> int:
    """The k-th integer of the sequence a_1, b_{a_1}, a_{b_{a_1}}, ... (Definition 3.5).

    Args:
        a: a permutation of 1..l, as a sequence (a[0] is a_1).
        b: a permutation of 1..l.
        k: the position wanted, an integer >= 1.

    Returns:
        The k-th integer (in 1..l).

    Raises:
        ParameterError: a or b not a permutation of 1..l of the same l, or k < 1.
    """
    ell = len(a)
    for name, perm in (("a", a), ("b", b)):
        if sorted(perm) != list(range(1, ell + 1)):
            raise ParameterError(f"{name}={list(perm)!r} is not a permutation of 1..{ell}")
    if not isinstance(k, int) or k < 1:
        raise ParameterError(f"k={k!r} is outside the integers >= 1")
    value = a[0]
    for step in range(2, k + 1):  # odd steps read a, even steps read b
        value = (b if step % 2 == 0 else a)[value - 1]
    return int(value)


def central_support_success(*, epsilon: float, delta: float, h: int, n: int) -> float:
    """P[the central stability histogram releases exactly the support], n uniform samples
    from h values.

    Args:
        epsilon: > 0.
        delta: in (0, 1).
        h: support size, >= 1.
        n: number of samples, 1..1e7.

    Returns:
        The success probability (float, absolute error ~1e-12).

    Raises:
        ParameterError: an argument outside its domain.
    """
    EPSILON.check(epsilon)
    _DELTA.check(delta)
    _H.check(h)
    if not isinstance(n, int) or not 1 <= n <= _MAX_N:
        raise ParameterError(f"n={n!r} is outside the integers in [1, {_MAX_N}]")
    tau = 1 + 2 * math.log(2 / delta) / epsilon
    m = np.arange(n + 1, dtype=float)
    # P[m + Lap(2/eps) > tau]
    # exponents clipped at 0: np.where evaluates both branches, and the unused one would
    # overflow
    gap = np.abs(m - tau) * epsilon / 2
    above = np.where(m > tau, 1.0 - 0.5 * np.exp(-gap), 0.5 * np.exp(-gap))
    above[0] = 0.0  # an absent value is never released
    return multinomial_product(above, n=n, h=int(h))


def least_n_central(*, epsilon: float, delta: float, h: int, target: float = 0.99) -> int:
    """The least n at which `central_support_success` >= target (doubling, then bisection;
    the success probability increases in n, each count's release probability being
    increasing in it; the tests check the returned n against n - 1).

    Args:
        epsilon: > 0.
        delta: in (0, 1).
        h: support size, >= 1.
        target: in (0, 1), 99/100 by default.

    Returns:
        The least n.

    Raises:
        ParameterError: an argument outside its domain, or no n <= 1e7 reaches the target.
    """
    _TARGET.check(target)

    def ok(n: int) -> bool:
        return central_support_success(epsilon=epsilon, delta=delta, h=h, n=n) >= target

    low, high = 0, max(1, int(h))
    while not ok(high):
        low, high = high, 2 * high
        if high > _MAX_N:
            raise ParameterError(f"target={target!r} is not reached by any n <= {_MAX_N}")
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if ok(mid) else (mid, high)
    return high
