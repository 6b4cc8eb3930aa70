"""An independent high-precision oracle for the soundness regressions: plain mpmath sums
over every outcome, written apart from the library (it imports nothing from `accountant`)."""

from __future__ import annotations

import mpmath


def binomial_pmf(n: int, p: mpmath.mpf) -> list[mpmath.mpf]:
    """Bin(n, p) on 0..n by binomial coefficients, at the caller's precision."""
    q = 1 - p
    return [mpmath.binomial(n, k) * p ** k * q ** (n - k) for k in range(n + 1)]


def convolve(a: list[mpmath.mpf], b: list[mpmath.mpf]) -> list[mpmath.mpf]:
    out = [mpmath.mpf(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x == 0:
            continue
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def binary_rr_pair(n: int, epsilon0: float, ones: int) -> tuple[list, list]:
    """(P, Q) on the count of 1s: the differing user holds 1 (P) or 0 (Q), `ones` of the
    other n-1 users hold 1; each user flips with p = 1/(e^eps0 + 1)."""
    p = 1 / (mpmath.exp(mpmath.mpf(epsilon0)) + 1)
    others = convolve(binomial_pmf(ones, 1 - p), binomial_pmf(n - 1 - ones, p))
    shifted = [mpmath.mpf(0)] + others
    plain = others + [mpmath.mpf(0)]
    P = [(1 - p) * a + p * b for a, b in zip(shifted, plain, strict=True)]
    Q = [p * a + (1 - p) * b for a, b in zip(shifted, plain, strict=True)]
    return P, Q


def hockey_stick(P: list, Q: list, epsilon: float) -> mpmath.mpf:
    """max over both orders of sum [P - e^eps Q]_+."""
    g = mpmath.exp(mpmath.mpf(epsilon))
    return max(sum(max(a - g * b, 0) for a, b in zip(P, Q, strict=True)),
               sum(max(b - g * a, 0) for a, b in zip(P, Q, strict=True)))


def epsilon_for_delta(P: list, Q: list, delta: float) -> mpmath.mpf:
    """inf{eps >= 0: max-order hockey-stick <= delta}, by bisection on the exact sums."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(60)
    for _ in range(200):
        mid = (lo + hi) / 2
        if hockey_stick(P, Q, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def renyi(P: list, Q: list, alpha: float) -> mpmath.mpf:
    """D_alpha(P||Q) by the full sum; +inf where P > 0 = Q."""
    a = mpmath.mpf(alpha)
    if any(p > 0 and q == 0 for p, q in zip(P, Q, strict=True)):
        return mpmath.inf
    s = mpmath.fsum(p ** a * q ** (1 - a) for p, q in zip(P, Q, strict=True) if p > 0)
    return mpmath.log(s) / (a - 1)


def poisson_pmf(mu: float, k_max: int) -> list[mpmath.mpf]:
    m = mpmath.mpf(mu)
    return [mpmath.exp(-m) * m ** k / mpmath.factorial(k) for k in range(k_max + 1)]
