"""delta(epsilon) of shuffled binary RR for every neighbouring pair at once, certified.

docs/single-message.md#binary-randomized-response. With `m` of the other n-1 users holding a 1 and
the differing user
holding 1 (P) or 0 (Q), the number of 1s seen by the analyzer has

    O_m = Bin(m, 1-p) * Bin(n-1-m, p),
    P(t) = (1-p) O_m(t-1) + p O_m(t),    Q(t) = p O_m(t-1) + (1-p) O_m(t).

Relabelling 0 <-> 1 maps order (Q || P) at count m to order (P || Q) at count n-1-m, so
the order (P || Q) over all m in [0, n-1] covers both orders of every pair.

Threshold form. O_m is a sum of independent Bernoullis, hence log-concave, so O_m(t-1)/O_m(t)
increases in t and so does P/Q (as 1-p > p): the optimal test is an upper set {t' >= t}. With
S_m(t) = P(O_m >= t) and gamma = e^epsilon,

    delta_m(gamma) = max_t g_m(t),   g_m(t) = (1-p-gamma p) S_m(t-1) + (p-gamma(1-p)) S_m(t),

and g_m(t) - g_m(t+1) = P(t) - gamma Q(t) changes sign once (from - to +), so g_m is
unimodal: a maximum over a window T whose two end values are certified below an interior
value is the global maximum.

Blocks. For m = m0 + j, j = 0..K-1, O_m = B * k_j with the shared base
B = Bin(m0, 1-p) * Bin(n-m0-K, p) and the small kernel k_j = Bin(j, 1-p) * Bin(K-1-j, p),
so S_m(t) = sum_i k_j(i) S_B(t-i): one matrix product per block for the K counts on the
window T of candidate thresholds (the thresholds move by about 1-2p per count). The cost is
about n/K direct convolutions of the two bulk windows plus n K |T| multiply-adds, instead
of one O(w^2) convolution and an O(w) scan per count.

Certification. Every quantity is a sum of positive terms (relative error bounded as in
`accountant.pmf.convolve`), the base windows' outside mass r is certified by the Chernoff
exponent, and S_true lies in [S (1-eta), S (1+eta) + r]; g's bounds take each S from the
side its coefficient's sign calls for. Counts whose window certificate fails are returned
for the caller to evaluate directly.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from accountant.domains import EPSILON, EPSILON0, N_PAIR, checked
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.numeric.tails import binomial_window_linear
from accountant.protocols.binary_rr.view import (
    delta_linear,
    flip_probability,
    order_delta_direct,
    pair_linear,
)

__all__ = ["order_deltas", "worst_case_pairs", "coefficients", "BLOCK"]

# Counts per block; balances the per-block base convolution against the K^2 |T| product.
BLOCK = 256
# Half-width added around the thresholds interpolated between a block's two end counts.
_MARGIN = 24


@functools.lru_cache(maxsize=8)
def _kernels(size: int, p: float) -> tuple[np.ndarray, float]:
    """Row j = PMF of Bin(j, 1-p) + Bin(size-1-j, p) on 0..size-1, and its relative error.

    Full supports (no cut); entries below the float range underflow to 0, a loss of at most
    size * 1e-300 mass that the caller adds to the residual. Cached (the epsilon search
    runs several passes at the same p); the array is read-only.
    """
    rows = np.zeros((size, size))
    err = 0.0
    for j in range(size):
        a = binomial_logpmf(np.arange(j + 1), j, p, complement=True)  # Bin(j, 1-p)
        b = binomial_logpmf(np.arange(size - j), size - 1 - j, p)
        rows[j] = np.convolve(np.exp(a), np.exp(b))
        err = max(err, float(np.max(log_pmf_error(a))) + float(np.max(log_pmf_error(b))))
    rows.flags.writeable = False
    return rows, math.expm1(err) + (size + 8) * 2 * UNIT_ROUNDOFF


def _survival(pmf: np.ndarray) -> np.ndarray:
    """S[i] = sum_{i' >= i} pmf[i'] (positive terms: relative error <= len * u)."""
    return np.cumsum(pmf[::-1])[::-1]


def _argmax_g(o: np.ndarray, c1: float, c2: float) -> int:
    """Index t (into o's support, t = 0..len) maximising c1 S(t-1) + c2 S(t), nominally."""
    s = np.concatenate([_survival(o), [0.0]])
    s_prev = np.concatenate([[s[0]], s[:-1]])
    return int(np.argmax(c1 * s_prev + c2 * s))


def coefficients(*, epsilon0: float, epsilon: float) -> tuple[float, float, float]:
    """(c1, c2, absolute error bound) of c1 = (1-p) - e^eps p and c2 = p - e^eps (1-p).

    Written as c1 = e^eps expm1(eps0 - eps)/(e^eps0 + 1) and c2 = -expm1(eps + eps0)/
    (e^eps0 + 1) they carry a few ulps of relative error; formed from p and 1-p they cancel
    (at eps0 = 1e-3 and eps = eps0 the difference of two numbers near 1/2 left 5.6e-17
    where the truth is 0, and the worst-case pass reported a positive lower delta).

    Args:
        epsilon0: the local randomizer's epsilon0, > 0 (not validated; p = 1/(e^eps0 + 1)).
        epsilon: epsilon >= 0 (gamma = e^eps; not validated).

    Returns:
        (c1, c2, error): the two coefficients of g_m (module docstring) as floats and the
        absolute error bound 8 u (|c1| + |c2|) that covers both.
    """
    if epsilon + epsilon0 < 700.0:
        e0 = math.exp(epsilon0)
        c1 = math.exp(epsilon) * math.expm1(epsilon0 - epsilon) / (e0 + 1)
        c2 = -math.expm1(epsilon + epsilon0) / (e0 + 1)
    else:
        # the same, divided through by e^eps0 (e^(eps + eps0) overflowed past eps0 ~ 355):
        # c1 = -expm1(eps - eps0)/(1 + e^-eps0), c2 = -(e^eps - e^-eps0)/(1 + e^-eps0);
        # eps + eps0 >= 700 and eps <= 700 keep both terms finite, without cancellation
        t = math.exp(-epsilon0)
        c1 = -math.expm1(epsilon - epsilon0) / (1 + t)
        c2 = -(math.exp(epsilon) - t) / (1 + t)
    return c1, c2, 8 * UNIT_ROUNDOFF * (abs(c1) + abs(c2))


def _coefficients_from_p(p: float, gamma: float) -> tuple[float, float, float]:
    """`coefficients` from p and gamma (for callers without epsilon0): the subtraction's
    error is bounded absolutely, u (1 + gamma) per coefficient and more."""
    c1 = (1 - p) - gamma * p
    c2 = p - gamma * (1 - p)
    return c1, c2, 4 * UNIT_ROUNDOFF * (1 + gamma)


def _block(n: int, p: float, gamma: float, m0: int, size: int, kern: np.ndarray,
           rel_k: float, log_tail: float,
           coef: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower, upper, certified?) of delta_m(gamma), order (P||Q), m = m0..m0+size-1."""
    a, lo_a, out_a, rel_a = binomial_window_linear(m0, p, log_tail - math.log(2),
                                                   complement=True)  # Bin(m0, 1-p)
    b, lo_b, out_b, rel_b = binomial_window_linear(n - m0 - size, p, log_tail - math.log(2))
    base = np.convolve(a, b)
    start = lo_a + lo_b
    s_base = _survival(base)
    eta = (rel_a + rel_b + rel_k + (min(a.size, b.size) + base.size + size + 24)
           * 2 * UNIT_ROUNDOFF) * 1.01
    resid = (math.exp(float(np.logaddexp(out_a, out_b))) + size * 1e-300) * (1 + eta) * 1.01

    c1, c2, c_err = coef  # c2 < 0: p < 1/2 <= gamma (1 - p)
    # nominal thresholds of the block's two end counts bracket the others' (linear drift)
    ends = [start + _argmax_g(np.convolve(base, kern[j]), c1, c2) for j in (0, size - 1)]
    t_lo, t_hi = min(ends) - _MARGIN, max(ends) + _MARGIN
    ts = np.arange(t_lo - 1, t_hi + 1)  # S is needed at T-1 and T
    # H[i, tau] = S_B(ts[tau] - i), constant total below the window and 0 above it
    idx = ts[None, :] - np.arange(size)[:, None] - start
    h = np.where(idx < 0, s_base[0], s_base[np.clip(idx, 0, base.size - 1)])
    h[idx >= base.size] = 0.0
    s = kern @ h
    s1, s2 = s[:, :-1], s[:, 1:]  # windowed S(t-1), S(t) for t in T
    # g_w: g of the truncated (windowed) measures, bounded with relative errors only. It is
    # unimodal too (truncated log-concave sequences convolve to log-concave ones), so the
    # window certificate is free of the truncation residual, which enters once, below.
    up1, dn1 = s1 * (1 + eta), s1 * (1 - eta)
    up2, dn2 = s2 * (1 + eta), s2 * (1 - eta)
    slack = (4 * UNIT_ROUNDOFF * (abs(c1) * up1 + abs(c2) * up2) + c_err * (up1 + up2)
             + 1e-300 * size)
    gw_up = c1 * (up1 if c1 > 0 else dn1) + c2 * dn2 + slack
    gw_dn = c1 * (dn1 if c1 > 0 else up1) + c2 * up2 - slack
    # g_w(tau) < g_w(tau + 1) for some tau in T: P - gamma Q < 0 at tau, so g_w increases up
    # to tau and its maximum lies in T or beyond; below the support of O_w, S_w(t-1) = S_w(t)
    # makes g_w constant
    ok = np.any(gw_up[:, :-1] < gw_dn[:, 1:], axis=1) | (t_lo <= start)
    # beyond T_hi, g_w(t) <= P_w(O >= t) unless g_w is certified to decrease already
    falling = gw_up[:, -1] < gw_dn[:, -2]
    beyond = np.where(falling, 0.0, ((1 - p) * up1[:, -1] + p * up2[:, -1]) * 1.0001)
    # S_true - S_w lies in [0, resid] and is nonincreasing in t: g_true - g_w is in
    # [(min(c1, 0) + c2) resid, max(c1, 0) resid]
    upper = (np.maximum(np.max(gw_up, axis=1), beyond)
             + (max(c1, 0.0) + c_err) * resid * 1.0001)
    lower = np.max(gw_dn, axis=1) + (min(c1, 0.0) + c2 - c_err) * resid * 1.0001
    return np.maximum(lower, 0.0), np.maximum(upper, 0.0), ok


def order_deltas(n: int, p: float, gamma: float, log_tail: float, *,
                 coef: tuple[float, float, float] | None = None,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower, upper, certified?) arrays of delta_m(gamma) in order (P||Q), m = 0..n-1.

    Bulk windows come from the Chernoff-certified `numeric.tails.binomial_log_window`.
    Counts with certified? False must be evaluated by the caller (their bounds here are
    only the window's values).

    Args:
        n: number of users, >= 2 (not validated).
        p: the flip probability, in (0, 1/2).
        gamma: e^epsilon, >= 1.
        log_tail: target log of the mass left outside each base window.
        coef: the test's coefficients from `coefficients(epsilon0=..., epsilon=...)`
            (accurate); None forms them from p and gamma with a wider error bound.

    Returns:
        (lower, upper, ok): float arrays of length n (lower, upper >= 0) and a boolean array.
    """
    lower = np.empty(n)
    upper = np.empty(n)
    ok = np.empty(n, dtype=bool)
    size = min(BLOCK, n)
    kern, rel_k = _kernels(size, p)
    coef = coef if coef is not None else _coefficients_from_p(p, gamma)
    for m0 in range(0, n, size):
        k = min(size, n - m0)
        if k != size:
            kern_k, rel_kk = _kernels(k, p)
        else:
            kern_k, rel_kk = kern, rel_k
        lo, hi, good = _block(n, p, gamma, m0, k, kern_k, rel_kk, log_tail, coef)
        lower[m0:m0 + k], upper[m0:m0 + k], ok[m0:m0 + k] = lo, hi, good
    return lower, upper, ok


@checked(n=N_PAIR, epsilon0=EPSILON0, epsilon=EPSILON)
def worst_case_pairs(*, n: int, epsilon0: float, epsilon: float,
                     tail: float = 1e-30) -> list[tuple[int, float, float]]:
    """(ones, delta lower, delta upper) at epsilon for every ones in 0..(n-1)//2.

    The maximum over both orders is taken per count; counts above (n-1)/2 mirror these.
    All counts at once by `order_deltas` (about 1 s at n = 1e5); a count
    whose threshold window it cannot certify is evaluated directly.

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizer's epsilon0, > 0.
        epsilon: epsilon >= 0.
        tail: mass left outside each binomial window, in (0, 1) (not validated).

    Returns:
        A list of (ones, lower, upper) tuples of (int, float, float), ones = 0..(n-1)//2;
        the delta ends are not capped at 1.

    Raises:
        ParameterError: n, epsilon0 or epsilon outside its domain.
    """
    n, epsilon0 = int(n), float(epsilon0)
    p = flip_probability(epsilon0)
    gamma = math.exp(epsilon)
    lower, upper, ok = order_deltas(n, p, gamma, math.log(tail),
                                    coef=coefficients(epsilon0=epsilon0, epsilon=epsilon))
    for m in np.flatnonzero(~ok):
        lower[m], upper[m] = order_delta_direct(n, p, int(m), gamma, tail)
    half = np.arange(0, (n - 1) // 2 + 1)
    # order (Q || P) at count `ones` is order (P || Q) at count n-1-ones
    lo = np.maximum(lower[half], lower[n - 1 - half])
    hi = np.maximum(upper[half], upper[n - 1 - half])
    return [(int(o), float(a), float(b)) for o, a, b in zip(half, lo, hi, strict=True)]


@checked(n=N_PAIR, epsilon0=EPSILON0, epsilon=EPSILON)
def worst_case_pairs_direct(*, n: int, epsilon0: float, epsilon: float,
                             tail: float = 1e-30) -> list[tuple[int, float, float]]:
    """`worst_case_pairs` by one direct convolution per count (cost ~ n^1.5): the
    independent reference the fast path is tested against."""
    n, epsilon0 = int(n), float(epsilon0)
    p = flip_probability(epsilon0)
    gamma = math.exp(epsilon)
    rows = []
    for ones in range(0, (n - 1) // 2 + 1):
        P, Q, rel, resid = pair_linear(n, p, ones, tail)
        lo, hi = delta_linear(P, Q, gamma, rel, resid)
        rows.append((ones, lo, hi))
    return rows
