"""An independent high-precision oracle for the library's privacy numbers.

Plain mpmath (and exact integer arithmetic), written apart from the library: this module
imports nothing from `accountant`, so a bug there cannot hide in the reference values. Every
function works at the caller's mpmath precision (use `digits(60)`), except the binomial
tail sums, which are exact rational-to-fixed-point sums with a certified truncation.

Conventions: a PMF is a list of nonnegative reals (floats are taken as the exact binary
numbers they are); `direction` is "P||Q", "Q||P" or "max" (the larger of the two orders).
The hockey-stick divergence is H_g(P||Q) = sum_x [P(x) - g Q(x)]_+ with g = e^epsilon, and
epsilon(delta) = inf{epsilon >= 0 : H_{e^epsilon} <= delta} (+inf when no epsilon works).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import mpmath

__all__ = [
    "aligned",
    "digits",
    "binomial_pmf",
    "convolve",
    "poisson_pmf",
    "hockey_stick",
    "hockey_stick_scale",
    "epsilon_for_delta",
    "epsilon_is_upper",
    "epsilon_is_lower",
    "renyi",
    "kl",
    "max_divergence",
    "binary_rr_pair",
    "binary_rr_pairs",
    "k_rr_special_pair",
    "binomial_shift_delta",
    "kov_delta",
    "kov_epsilon",
    "histogram_law",
    "shuffled_pair",
    "neighbouring_datasets",
    "matrix_pairs",
    "k_rr_rows",
    "k_rr_pairs",
    "subsampled_rows",
    "add_remove_pairs",
    "iid_product",
    "product",
    "gkm_box_pair",
    "ldp_delta_ceiling",
    "no_report_pair",
]

Number = Any  # float, int, Fraction or mpmath.mpf
DIRECTIONS = ("P||Q", "Q||P", "max")


@contextlib.contextmanager
def digits(dps: int) -> Iterator[None]:
    """Context manager: run the oracle at `dps` decimal digits.

    Args:
        dps: decimal digits of mpmath's working precision.
    """
    with mpmath.workdps(dps):
        yield


def _mpf(x: Number) -> mpmath.mpf:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _orders(P: Sequence[Number], Q: Sequence[Number],
            direction: str) -> list[tuple[list[mpmath.mpf], list[mpmath.mpf]]]:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction={direction!r} is not one of {DIRECTIONS}")
    if len(P) != len(Q):
        raise ValueError("P and Q must have the same length")
    p, q = [_mpf(x) for x in P], [_mpf(x) for x in Q]
    return {"P||Q": [(p, q)], "Q||P": [(q, p)], "max": [(p, q), (q, p)]}[direction]


# ------------------------------------------------------------------ laws
def binomial_pmf(n: int, p: Number) -> list[mpmath.mpf]:
    """Bin(n, p) on 0..n by binomial coefficients, at the caller's precision.

    Args:
        n: number of trials, >= 0.
        p: success probability in [0, 1].

    Returns:
        The n + 1 probabilities.
    """
    p = _mpf(p)
    q = 1 - p
    return [mpmath.binomial(n, k) * p ** k * q ** (n - k) for k in range(n + 1)]


def convolve(a: Sequence[mpmath.mpf], b: Sequence[mpmath.mpf]) -> list[mpmath.mpf]:
    """The law of the sum of independent variables with PMFs a and b on 0, 1, 2, ...

    Args:
        a, b: PMFs on consecutive integers from 0.

    Returns:
        Their convolution (length len(a) + len(b) - 1).
    """
    out = [mpmath.mpf(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x == 0:
            continue
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def poisson_pmf(mu: Number, k_max: int) -> list[mpmath.mpf]:
    """Poi(mu) on 0..k_max (not normalised: the mass above k_max is left out).

    Args:
        mu: the mean, > 0.
        k_max: the largest outcome listed.

    Returns:
        The k_max + 1 probabilities.
    """
    m = _mpf(mu)
    return [mpmath.exp(-m) * m ** k / mpmath.factorial(k) for k in range(k_max + 1)]


# ------------------------------------------------------------------ divergences of PMFs
def hockey_stick(P: Sequence[Number], Q: Sequence[Number], epsilon: Number,
                 direction: str = "max") -> mpmath.mpf:
    """H_{e^eps}: sum_x [P(x) - e^eps Q(x)]_+ for the given order(s).

    Args:
        P, Q: PMFs on the same outcomes.
        epsilon: epsilon >= 0 (float or mpf, taken exactly).
        direction: "P||Q", "Q||P" or "max".

    Returns:
        The hockey-stick divergence (the larger of both orders for "max").
    """
    g = mpmath.exp(_mpf(epsilon))
    tie = _tie()
    return max(mpmath.fsum(a - g * b for a, b in zip(p, q, strict=True)
                           if a - g * b > tie * (a + g * b))
               for p, q in _orders(P, Q, direction))


def _tie() -> mpmath.mpf:
    """Relative difference below which P(x) and e^eps Q(x) count as equal.

    Likelihood ratios that equal e^eps exactly in exact arithmetic (binary RR's ratio
    e^eps0 at k = n, KOV's losses) come out of the working precision a few ulps either
    side; such a term is 0 in truth, and at delta = 1e-300 a rounding residue of 1e-64
    would decide the comparison. Terms within 2^-(prec-20) relative are dropped: the value
    is then low by at most that fraction of the P-mass near ties, far below what any
    float computation resolves.
    """
    return mpmath.mpf(2) ** (20 - mpmath.mp.prec)


def hockey_stick_scale(P: Sequence[Number], Q: Sequence[Number], epsilon: Number,
                       direction: str = "max") -> mpmath.mpf:
    """The P-mass of the outcomes counted by `hockey_stick` (largest over the orders): the
    scale against which a working-precision (EXACT) evaluation may err.

    Args:
        P, Q, epsilon, direction: as in `hockey_stick`.

    Returns:
        sum_{x: P(x) > e^eps Q(x)} P(x), maximised over the orders asked for.
    """
    g = mpmath.exp(_mpf(epsilon))
    return max(mpmath.fsum(a for a, b in zip(p, q, strict=True) if a > g * b)
               for p, q in _orders(P, Q, direction))


def _epsilon_one(p: list[mpmath.mpf], q: list[mpmath.mpf], delta: mpmath.mpf) -> mpmath.mpf:
    """epsilon(delta) of one order by walking the loss breakpoints from the top.

    On each interval between consecutive distinct losses l_{j+1} <= eps < l_j, H is
    A - e^eps B with A, B the P- and Q-masses of the outcomes of loss > eps; H is
    continuous and nonincreasing, so the crossing lies in the first interval (from the
    top) whose lower end has H > delta.
    """
    atoms = mpmath.fsum(a for a, b in zip(p, q, strict=True) if a > 0 and b == 0)
    if atoms > delta:
        return mpmath.inf
    finite = sorted(((mpmath.log(a / b), a, b) for a, b in zip(p, q, strict=True)
                     if a > 0 and b > 0 and a > b), key=lambda t: -t[0])
    A, B = atoms, mpmath.mpf(0)
    i = 0
    while i < len(finite):
        level = finite[i][0]
        while i < len(finite) and finite[i][0] == level:
            A, B = A + finite[i][1], B + finite[i][2]
            i += 1
        below = finite[i][0] if i < len(finite) else mpmath.mpf(0)  # next breakpoint
        if A - mpmath.exp(below) * B > delta:  # H(below) > delta: crossing in [below, level)
            return max(mpmath.log((A - delta) / B), mpmath.mpf(0))
    return mpmath.mpf(0)


def epsilon_for_delta(P: Sequence[Number], Q: Sequence[Number], delta: Number,
                      direction: str = "max") -> mpmath.mpf:
    """inf{eps >= 0 : H_{e^eps} <= delta} for the given order(s).

    Args:
        P, Q: PMFs on the same outcomes.
        delta: delta in (0, 1).
        direction: "P||Q", "Q||P" or "max".

    Returns:
        epsilon(delta), +inf when the infinite-loss mass exceeds delta.
    """
    d = _mpf(delta)
    return max(_epsilon_one(p, q, d) for p, q in _orders(P, Q, direction))


def epsilon_is_upper(H: Callable[[Number], mpmath.mpf], value: Number, delta: Number) -> bool:
    """Whether `value` >= epsilon(delta) for a nonincreasing continuous H (eps -> delta).

    Since H is continuous and nonincreasing, value >= inf{eps : H(eps) <= delta} holds
    exactly when H(value) <= delta; +inf is always an upper end.

    Args:
        H: the hockey-stick curve eps -> H_{e^eps} (or a maximum of such curves).
        value: the claimed upper end of epsilon(delta).
        delta: delta.

    Returns:
        True when the claim holds.
    """
    if mpmath.isinf(_mpf(value)):
        return value > 0
    return H(max(_mpf(value), mpmath.mpf(0))) <= _mpf(delta)


def epsilon_is_lower(H: Callable[[Number], mpmath.mpf], value: Number, delta: Number) -> bool:
    """Whether `value` <= epsilon(delta): true when value <= 0 or H(value) >= delta.

    Args:
        H: the hockey-stick curve, as in `epsilon_is_upper`.
        value: the claimed lower end.
        delta: delta.

    Returns:
        True when the claim holds (for strictly decreasing H where H > 0; where H is flat
        at an atom mass equal to delta the test accepts, erring towards no alarm).
    """
    v = _mpf(value)
    if v <= 0:
        return True
    if mpmath.isinf(v):
        return H(mpmath.mpf(10) ** 6) > _mpf(delta)
    return H(v) >= _mpf(delta)


def renyi(P: Sequence[Number], Q: Sequence[Number], alpha: Number,
          direction: str = "P||Q") -> mpmath.mpf:
    """D_alpha = log(sum P^alpha Q^(1-alpha)) / (alpha - 1), +inf where P > 0 = Q.

    Args:
        P, Q: PMFs on the same outcomes (each summing to 1).
        alpha: real order > 1.
        direction: "P||Q" (the default, unlike `hockey_stick`), "Q||P" or "max".

    Returns:
        The Renyi divergence (largest over the orders asked for).
    """
    a = _mpf(alpha)
    out = []
    for p, q in _orders(P, Q, direction):
        if any(x > 0 and y == 0 for x, y in zip(p, q, strict=True)):
            return mpmath.inf
        s = mpmath.fsum(x ** a * y ** (1 - a) for x, y in zip(p, q, strict=True) if x > 0)
        out.append(mpmath.log(s) / (a - 1))
    return max(out)


def kl(P: Sequence[Number], Q: Sequence[Number], direction: str = "max") -> mpmath.mpf:
    """KL = sum P log(P/Q), +inf where P > 0 = Q.

    Args:
        P, Q: PMFs on the same outcomes.
        direction: "P||Q", "Q||P" or "max".

    Returns:
        The Kullback-Leibler divergence (largest over the orders asked for).
    """
    out = []
    for p, q in _orders(P, Q, direction):
        if any(x > 0 and y == 0 for x, y in zip(p, q, strict=True)):
            return mpmath.inf
        out.append(mpmath.fsum(x * mpmath.log(x / y) for x, y in zip(p, q, strict=True)
                               if x > 0))
    return max(out)


def max_divergence(P: Sequence[Number], Q: Sequence[Number],
                   direction: str = "max") -> mpmath.mpf:
    """D_inf = max(0, log max_{P(x) > 0} P(x)/Q(x)), +inf where P > 0 = Q.

    Args:
        P, Q: PMFs on the same outcomes.
        direction: "P||Q", "Q||P" or "max".

    Returns:
        The max-divergence (largest over the orders asked for).
    """
    out = [mpmath.mpf(0)]
    for p, q in _orders(P, Q, direction):
        for x, y in zip(p, q, strict=True):
            if x > 0:
                out.append(mpmath.inf if y == 0 else mpmath.log(x / y))
    return max(out)


# ------------------------------------------------------------------ protocols
def flip(epsilon0: Number) -> mpmath.mpf:
    """Binary RR's flip probability 1/(e^eps0 + 1), at working precision.

    Args:
        epsilon0: the local epsilon0 > 0.

    Returns:
        The flip probability.
    """
    return 1 / (mpmath.exp(_mpf(epsilon0)) + 1)


def binary_rr_pair(n: int, epsilon0: Number, ones: int) -> tuple[list, list]:
    """Shuffled binary RR's view pair on the count of reported 1s.

    The differing user holds 1 (P) or 0 (Q); `ones` of the other n-1 users hold 1; every
    user reports its bit flipped with probability p = 1/(e^eps0 + 1).

    Args:
        n: users, >= 2.
        epsilon0: the local epsilon0.
        ones: the other users holding 1, in 0..n-1.

    Returns:
        (P, Q) on 0..n.
    """
    p = flip(epsilon0)
    others = convolve(binomial_pmf(ones, 1 - p), binomial_pmf(n - 1 - ones, p))
    shifted = [mpmath.mpf(0)] + others
    plain = others + [mpmath.mpf(0)]
    P = [(1 - p) * a + p * b for a, b in zip(shifted, plain, strict=True)]
    Q = [p * a + (1 - p) * b for a, b in zip(shifted, plain, strict=True)]
    return P, Q


def binary_rr_pairs(n: int, epsilon0: Number) -> list[tuple[list, list]]:
    """Every count's pair of `binary_rr_pair` (ones = 0..n-1): the mechanism's value of a
    divergence is the maximum over these.

    Args:
        n: users, >= 2.
        epsilon0: the local epsilon0.

    Returns:
        The n pairs, indexed by `ones`.
    """
    return [binary_rr_pair(n, epsilon0, ones) for ones in range(n)]


def k_rr_special_pair(n: int, epsilon0: Number, k: int) -> tuple[list, list]:
    """Shuffled k-RR's special pair on (a, b) = (#reports of x, #reports of x').

    All other n-1 users hold x; the differing user holds x' (P) or x (Q). A user reports
    its own symbol with probability e^eps0/(e^eps0 + k - 1), each other symbol with
    1/(e^eps0 + k - 1). Computed by the law of the n-1 others (a multinomial) and the
    differing user's three possible reports.

    Args:
        n: users, >= 2.
        epsilon0: the local epsilon0.
        k: alphabet size, >= 2.

    Returns:
        (P, Q) on the (a, b) with a + b <= n (b = n - a only, when k = 2), in one order.
    """
    e = mpmath.exp(_mpf(epsilon0))
    den = e + k - 1
    keep, other, rest = e / den, 1 / den, (k - 2) / den

    def others(a: int, b: int) -> mpmath.mpf:  # n-1 users holding x: a of x, b of x'
        m = n - 1
        if a < 0 or b < 0 or a + b > m or (k == 2 and a + b != m):
            return mpmath.mpf(0)
        c = m - a - b
        coef = mpmath.factorial(m) / (mpmath.factorial(a) * mpmath.factorial(b)
                                      * mpmath.factorial(c))
        return coef * keep ** a * other ** b * (rest ** c if c else 1)

    cells = [(a, b) for a in range(n + 1) for b in range(n + 1 - a)
             if k > 2 or a + b == n]
    P, Q = [], []
    for a, b in cells:
        # the differing user's report: x, x', or one of the k-2 others
        P.append(other * others(a - 1, b) + keep * others(a, b - 1) + rest * others(a, b))
        Q.append(keep * others(a - 1, b) + other * others(a, b - 1) + rest * others(a, b))
    return P, Q


# ------------------------------------------------------------------ binomial shift pair
_FIXED_BITS = 320
_STOP_BITS = 150


def _tail_ratio_sum(n: int, p: Fraction, k: int, upward: bool) -> mpmath.mpf:
    """sum_{j >= 0} B(k -+ j) / B(k) for B = Bin(n, p), exactly up to 2^-150 relative.

    Exact integer fixed-point arithmetic with the rational p; meant for summing a tail
    away from the mode, where the ratio of consecutive terms is < 1 and decreasing, so the
    remainder after a term t with ratio r is at most t r/(1 - r). Summing towards the mode
    works too (it is only slower).
    """
    a, D = p.numerator, p.denominator
    b = D - a
    one = 1 << _FIXED_BITS
    t, total, j = one, 0, k
    while t:
        total += t
        if upward:
            if j >= n:
                break
            num, den = (n - j) * a, (j + 1) * b
            j += 1
        else:
            if j <= 0:
                break
            num, den = j * b, (n - j + 1) * a
            j -= 1
        t = t * num // den
        if num < den and t * den << _STOP_BITS < total * (den - num):
            total += t * den // (den - num)  # the remainder's bound, counted in full
            break
    return mpmath.mpf(total) / one


def _log_binomial(n: int, p: Fraction, k: int) -> mpmath.mpf:
    pm = _mpf(p)
    return (mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
            + k * mpmath.log(pm) + (n - k) * mpmath.log1p(-pm))


def _cdf(n: int, p: Fraction, k: int) -> mpmath.mpf:
    """P(X <= k), X ~ Bin(n, p), by the tail on the far side of the mean."""
    if k < 0:
        return mpmath.mpf(0)
    if k >= n:
        return mpmath.mpf(1)
    if k <= n * p:
        return mpmath.exp(_log_binomial(n, p, k)) * _tail_ratio_sum(n, p, k, upward=False)
    return 1 - mpmath.exp(_log_binomial(n, p, k + 1)) * _tail_ratio_sum(n, p, k + 1,
                                                                        upward=True)


def _survival(n: int, p: Fraction, k: int) -> mpmath.mpf:
    """P(X >= k), X ~ Bin(n, p)."""
    if k <= 0:
        return mpmath.mpf(1)
    if k > n:
        return mpmath.mpf(0)
    if k >= n * p:
        return mpmath.exp(_log_binomial(n, p, k)) * _tail_ratio_sum(n, p, k, upward=True)
    return 1 - _cdf(n, p, k - 1)


def _shift_threshold(n: int, p: Fraction, g: mpmath.mpf, forward: bool) -> int:
    """forward: the largest k in 0..n with B(k) > g B(k-1); else the least k in 1..n+1
    with B(k-1) > g B(k) (the boundary outcomes 0 and n+1 always count)."""
    pm, qm = _mpf(p), 1 - _mpf(p)
    # B(k)/B(k-1) = (n-k+1) p / (k q): > g iff k < (n+1) p / (p + g q)
    if forward:
        x = (n + 1) * pm / (pm + g * qm)
        k = int(mpmath.ceil(x)) - 1
        while k + 1 <= n and (n - k) * pm > g * (k + 1) * qm:
            k += 1
        while k >= 1 and not ((n - k + 1) * pm > g * k * qm):
            k -= 1
        return max(k, 0)
    # B(k-1)/B(k) = k q / ((n-k+1) p) > g iff k > (n+1) g p / (q + g p)
    x = (n + 1) * g * pm / (qm + g * pm)
    k = int(mpmath.floor(x)) + 1
    while k - 1 >= 1 and (k - 1) * qm > g * (n - k + 2) * pm:
        k -= 1
    while k <= n and not (k * qm > g * (n - k + 1) * pm):
        k += 1
    return min(k, n + 1)


def binomial_shift_delta(n: int, p: Number, epsilon: Number,
                         direction: str = "max") -> mpmath.mpf:
    """H_{e^eps} of P = Bin(n, p) against Q = 1 + Bin(n, p), for n up to 1e9.

    P||Q: the outcomes k <= m with B(k) > g B(k-1), H = F(m) - g F(m-1); Q||P: the
    outcomes k >= m with B(k-1) > g B(k), H = S(m-1) - g S(m); F and S are the binomial
    CDF and survival function, each summed exactly on the far side of the mean. Use at
    least 60 digits for large n.

    Args:
        n: trials, >= 1.
        p: success probability in (0, 1), a float or Fraction (taken exactly).
        epsilon: epsilon >= 0.
        direction: "P||Q", "Q||P" or "max".

    Returns:
        The hockey-stick divergence.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction={direction!r} is not one of {DIRECTIONS}")
    pf = Fraction(p)
    g = mpmath.exp(_mpf(epsilon))
    out = []
    if direction in ("P||Q", "max"):
        m = _shift_threshold(n, pf, g, forward=True)
        out.append(_cdf(n, pf, m) - g * _cdf(n, pf, m - 1))
    if direction in ("Q||P", "max"):
        m = _shift_threshold(n, pf, g, forward=False)
        out.append(_survival(n, pf, m - 1) - g * _survival(n, pf, m))
    return max(max(out), mpmath.mpf(0))


# ------------------------------------------------------------------ KOV composition
def kov_delta(epsilon: Number, delta: Number, rounds: int, epsilon_total: Number) -> mpmath.mpf:
    """delta'(eps') of the k-fold composition of (eps, delta)-DP mechanisms (KOV15 Thm 3.3).

    The k-fold product of the four-outcome pair: an infinite-loss mass 1 - (1-delta)^k,
    plus (1-delta)^k times the hockey-stick of k-fold binary RR with parameter eps,
    sum_l C(k,l) [e^((k-l) eps) - e^eps' e^(l eps)]_+ / (1 + e^eps)^k, summed term by
    term in log space (no subtraction of nearly equal numbers).

    Args:
        epsilon: each mechanism's epsilon >= 0.
        delta: each mechanism's delta in [0, 1).
        rounds: k >= 1.
        epsilon_total: eps' >= 0.

    Returns:
        delta'(eps').
    """
    e, et = _mpf(epsilon), _mpf(epsilon_total)
    log_norm = -rounds * mpmath.log1p(mpmath.exp(e))
    terms = []
    for l_ in range(rounds + 1):
        loss = (rounds - 2 * l_) * e
        if loss <= et:
            break
        log_c = (mpmath.loggamma(rounds + 1) - mpmath.loggamma(l_ + 1)
                 - mpmath.loggamma(rounds - l_ + 1))
        terms.append(mpmath.exp(log_c + (rounds - l_) * e + log_norm)
                     * -mpmath.expm1(et - loss))
    rr = mpmath.fsum(terms)
    log_keep = rounds * mpmath.log1p(-_mpf(delta))
    return -mpmath.expm1(log_keep) + mpmath.exp(log_keep) * rr


def kov_epsilon(epsilon: Number, delta: Number, rounds: int,
                delta_total: Number) -> mpmath.mpf:
    """eps'(delta') of the k-fold composition, by bisection on `kov_delta` (which is
    continuous and nonincreasing in eps'), to the working precision.

    Args:
        epsilon, delta, rounds: as in `kov_delta`.
        delta_total: delta' in (0, 1).

    Returns:
        eps'(delta'); +inf when 1 - (1-delta)^k > delta'.
    """
    target = _mpf(delta_total)
    atom = -mpmath.expm1(rounds * mpmath.log1p(-_mpf(delta)))
    if atom > target:
        return mpmath.inf
    lo, hi = mpmath.mpf(0), rounds * _mpf(epsilon)  # beyond k eps only the atom remains
    if kov_delta(epsilon, delta, rounds, lo) <= target:
        return mpmath.mpf(0)
    steps = int(mpmath.mp.prec) + 20
    for _ in range(steps):
        mid = (lo + hi) / 2
        if kov_delta(epsilon, delta, rounds, mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


# ------------------------------------------------------------------ shuffled matrix randomizers
def histogram_law(rows: Sequence[Sequence[Number]], dataset: Sequence[int],
                  drop: int | None = None) -> dict[tuple[int, ...], mpmath.mpf]:
    """The law of the shuffled view of `dataset`: the histogram of the n users' outputs.

    Each user holding input x sends output y with probability rows[x][y], independently;
    the shuffler keeps only the multiset, i.e. the count of every output. Built by adding
    one user at a time (exact convolution of categorical laws, at working precision).

    Args:
        rows: the randomizer R(y|x) = rows[x][y] (each row summing to 1; floats, Fractions
            or mpf, taken exactly).
        dataset: the users' inputs.
        drop: an output index that the analyzer does not see (e.g. "absent" under
            subsampling), or None.

    Returns:
        {histogram (counts per visible output): probability}.
    """
    m = len(rows[0])
    mp_rows = [[_mpf(v) for v in row] for row in rows]
    law: dict[tuple[int, ...], mpmath.mpf] = {(0,) * m: mpmath.mpf(1)}
    for x in dataset:
        nxt: dict[tuple[int, ...], mpmath.mpf] = {}
        for hist, pr in law.items():
            for y, r in enumerate(mp_rows[x]):
                if r == 0:
                    continue
                h = hist[:y] + (hist[y] + 1,) + hist[y + 1:]
                nxt[h] = nxt.get(h, mpmath.mpf(0)) + pr * r
        law = nxt
    if drop is None:
        return law
    out: dict[tuple[int, ...], mpmath.mpf] = {}
    for hist, pr in law.items():
        h = hist[:drop] + hist[drop + 1:]
        out[h] = out.get(h, mpmath.mpf(0)) + pr
    return out


def aligned(a: dict, b: dict) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """Two laws given as {outcome: mass} dicts as two aligned lists over the union of their
    outcomes (0 where a law has none).

    Args:
        a: the first law.
        b: the second law.

    Returns:
        (masses of a, masses of b), in the sorted order of the outcomes.
    """
    keys = sorted(set(a) | set(b))
    zero = mpmath.mpf(0)
    return [a.get(k, zero) for k in keys], [b.get(k, zero) for k in keys]


def shuffled_pair(rows: Sequence[Sequence[Number]], first: Sequence[int],
                  second: Sequence[int], drop: int | None = None) -> tuple[list, list]:
    """(P, Q): the shuffled views of two datasets on the union of their histograms.

    Args:
        rows: the randomizer, as in `histogram_law`.
        first, second: the two datasets (they may differ in size: add/remove).
        drop: an unseen output, as in `histogram_law`.

    Returns:
        Two aligned lists of probabilities.
    """
    return aligned(histogram_law(rows, first, drop), histogram_law(rows, second, drop))


def neighbouring_datasets(inputs: int, n: int, *, symbols: int | None = None
                          ) -> Iterator[tuple[list[int], list[int]]]:
    """Every neighbouring pair (substitute relation) of n users over `inputs` inputs, up to
    the order of the users: the differing user holds x (first) or x' != x (second); the
    other n - 1 users hold any multiset.

    Args:
        inputs: the number of inputs k.
        n: users, >= 2.
        symbols: when the randomizer is symmetric in its inputs (k-RR), the other users
            need only the inputs 0..symbols-1 (the rest are relabellings) and only x = 0,
            x' = 1 (read the pairs in both orders); None: every pair.

    Yields:
        (first, second) datasets, the differing user first.
    """
    import itertools

    pool = range(inputs if symbols is None else min(symbols, inputs))
    for others in itertools.combinations_with_replacement(pool, n - 1):
        if symbols is not None:
            # symmetric inputs: the differing user holds 0 or 1 (the other order is the
            # swapped pair, which "max" directions cover), and the symbols 2, 3, ... are
            # relabellings of each other: keep their counts non-increasing
            counts = [others.count(s) for s in range(2, len(pool))]
            if any(a < b for a, b in zip(counts, counts[1:], strict=False)):
                continue
            yield [0, *others], [1, *others]
            continue
        for x in range(inputs):
            for x1 in range(inputs):
                if x != x1:
                    yield [x, *others], [x1, *others]


def matrix_pairs(rows: Sequence[Sequence[Number]], n: int) -> list[tuple[list, list]]:
    """The view pairs of every neighbouring pair of datasets of a shuffled randomizer: the
    mechanism's value of any divergence is the maximum over them (both orders are listed).

    Args:
        rows: the randomizer (k inputs).
        n: users, >= 2 (keep C(n + m - 1, m - 1) k^(n+1) small).

    Returns:
        The list of (P, Q).
    """
    return [shuffled_pair(rows, a, b) for a, b in neighbouring_datasets(len(rows), n)]


def k_rr_rows(epsilon0: Number, k: int, used: int) -> list[list[mpmath.mpf]]:
    """k-RR's rows for the inputs 0..used-1, its outputs lumped to those inputs' symbols and
    one "any other symbol" output (when k > used).

    The symbols nobody holds are exchangeable under every dataset on 0..used-1: given their
    total, their counts have the same law under both datasets, so the lumped histogram is a
    sufficient statistic and the divergences are those of the full view.

    Args:
        epsilon0: the local epsilon0.
        k: the alphabet size, >= 2.
        used: how many symbols the datasets use, 2..k.

    Returns:
        `used` rows of used (+ 1) probabilities.
    """
    e = mpmath.exp(_mpf(epsilon0))
    den = e + k - 1
    rows = []
    for x in range(used):
        row = [e / den if y == x else 1 / den for y in range(used)]
        if k > used:
            row.append(mpmath.mpf(k - used) / den)
        rows.append(row)
    return rows


def k_rr_pairs(n: int, epsilon0: Number, k: int) -> list[tuple[list, list]]:
    """Every neighbouring pair's view of shuffled k-RR, up to relabelling the symbols: the
    differing user holds 0 or 1, the n - 1 others any multiset of the symbols 0..n (more
    distinct symbols are relabellings). Outputs lumped as in `k_rr_rows`.

    Args:
        n: users, >= 2.
        epsilon0: the local epsilon0.
        k: the alphabet size, >= 2.

    Returns:
        The list of (P, Q): read each in both orders (direction "max").
    """
    used = min(k, n + 1)
    rows = k_rr_rows(epsilon0, k, used)
    out = []
    for a, b in neighbouring_datasets(used, n, symbols=used):
        out.append(shuffled_pair(rows, a, b))
    return out


def subsampled_rows(rows: Sequence[Sequence[Number]], rate: Number) -> list[list[mpmath.mpf]]:
    """Poisson subsampling as a randomizer: each user takes part with probability `rate` and
    then applies `rows`; a last output "absent" has probability 1 - rate. Under the
    substitute relation n is fixed, so the count of absent users is visible anyway.

    Args:
        rows: the randomizer.
        rate: the participation probability q.

    Returns:
        The rows with one more output (absent).
    """
    q = _mpf(rate)
    return [[q * _mpf(v) for v in row] + [1 - q] for row in rows]


def add_remove_pairs(rows: Sequence[Sequence[Number]], n: int,
                     rate: Number) -> list[tuple[list, list]]:
    """Every add/remove neighbouring pair of a Poisson-subsampled shuffled randomizer: the
    differing user holds x (present) or is absent; the other n - 1 users hold any multiset.
    The analyzer sees the messages' histogram only (absent users send nothing).

    Args:
        rows: the randomizer (k inputs).
        n: users including the differing one, >= 2.
        rate: participation probability.

    Returns:
        The list of (P, Q) and (Q, P).
    """
    import itertools

    sub = subsampled_rows(rows, rate)
    absent = len(sub[0]) - 1
    out = []
    for others in itertools.combinations_with_replacement(range(len(rows)), n - 1):
        for x in range(len(rows)):
            P, Q = shuffled_pair(sub, [x, *others], list(others), drop=absent)
            out += [(P, Q), (Q, P)]
    return out


def iid_product(P: Sequence[Number], Q: Sequence[Number], rounds: int
                ) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """The `rounds`-fold product of a pair, lumped to the multiset of outcomes (a sufficient
    statistic of i.i.d. draws: lossless for every divergence).

    Args:
        P, Q: the pair.
        rounds: T >= 1.

    Returns:
        (P^T, Q^T) on the multisets of T outcomes.
    """
    import itertools

    p, q = [_mpf(x) for x in P], [_mpf(x) for x in Q]
    outP, outQ = [], []
    for combo in itertools.combinations_with_replacement(range(len(p)), rounds):
        counts: dict[int, int] = {}
        for i in combo:
            counts[i] = counts.get(i, 0) + 1
        coef = mpmath.factorial(rounds)
        a, b = coef, coef
        for i, c in counts.items():
            f = mpmath.factorial(c)
            a, b = a * p[i] ** c / f, b * q[i] ** c / f
        outP.append(a)
        outQ.append(b)
    return outP, outQ


def product(pairs: Sequence[tuple[Sequence[Number], Sequence[Number]]]
            ) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    """The product of several pairs (independent rounds): P1 x P2 x ..., Q1 x Q2 x ...

    Args:
        pairs: the (P, Q) of each round.

    Returns:
        The product pair (outcomes in lexicographic order).
    """
    P, Q = [mpmath.mpf(1)], [mpmath.mpf(1)]
    for a, b in pairs:
        P = [x * _mpf(y) for x in P for y in a]
        Q = [x * _mpf(y) for x in Q for y in b]
    return P, Q


def ldp_delta_ceiling(epsilon0: Number, epsilon: Number) -> mpmath.mpf:
    """An upper bound on delta(epsilon) of any pair whose likelihood ratios are at most
    e^epsilon0 (every view of an epsilon0-LDP randomizer, shuffled or not):
    sum [P - g Q]_+ <= sum_{P > gQ} P (1 - e^(epsilon - epsilon0)) <= 1 - e^(epsilon-epsilon0).

    Args:
        epsilon0: the local epsilon0.
        epsilon: epsilon >= 0.

    Returns:
        max(0, 1 - e^(epsilon - epsilon0)).
    """
    return max(mpmath.mpf(0), -mpmath.expm1(_mpf(epsilon) - _mpf(epsilon0)))


def no_report_pair(n: int, high: Number, low: Number, high_complement: Number | None = None,
                   low_complement: Number | None = None) -> tuple[list, list]:
    """A two-point post-processing of one neighbouring pair of any shuffled single-message
    randomizer, for any n: whether some user sent the output y.

    The n - 1 other users hold x' and send y with probability `low` each; the differing user
    holds x (P, sends y with probability `high`) or x' (Q, probability `low`). The event
    "nobody sent y" has P-mass (1 - high)(1 - low)^(n-1) and Q-mass (1 - low)^n. Every
    divergence of this pair is at most the full view's (data processing), so at any n it
    gives lower bounds on the mechanism's value. Both masses and their complements are
    formed without cancellation (log1p, expm1), so a `low` of 1e-320 or a `high` within
    1e-17 of 1 keep their relative accuracy; pass the complements 1 - high and 1 - low when
    they are known in closed form.

    Args:
        n: users, >= 2.
        high, low: R(y|x) and R(y|x').
        high_complement, low_complement: 1 - high and 1 - low, if known (else computed).

    Returns:
        (P, Q) on the two outcomes (nobody sent y, someone did).
    """
    def log_complement(v: Number, complement: Number | None) -> mpmath.mpf:
        # log(1 - v): from v when v is small (log1p keeps it), from 1 - v when v is near 1
        v = _mpf(v)
        if complement is None or v < 0.5:
            return mpmath.log1p(-v)
        return mpmath.log(_mpf(complement))

    log_hc = log_complement(high, high_complement)
    log_lc = log_complement(low, low_complement)
    log_pa = log_hc + (n - 1) * log_lc
    log_qa = n * log_lc
    pa, qa = mpmath.exp(log_pa), mpmath.exp(log_qa)
    return [pa, -mpmath.expm1(log_pa)], [qa, -mpmath.expm1(log_qa)]


# ------------------------------------------------------------------ GKM counting
def gkm_box_pair(*, n: int, ones: int, epsilon_prime: Number, q: Number, s: int,
                 lam: Number, box: int) -> tuple[list, list, mpmath.mpf]:
    """The GKM counting protocol's view pair on the box [0, box)^2, by its definition.

    A dataset with m1 ones and m0 zeros: K1 ~ Bin(m1, 1-q), K0 ~ Bin(m0, 1-q),
    T = K0 + K1, V+ = s T + K1 + N+ + F, V- = s T + N- + F with N+, N- ~ Geo(1 - r) on
    0, 1, ... (r = e^-epsilon_prime) and F ~ Poi(lam), all independent. The differing user
    holds 1 (P: m1 = ones + 1) or 0 (Q: m1 = ones); the other n - 1 users hold `ones` ones.
    Every divergence summed over the box is a lower bound on the full view's (the terms
    left out are >= 0); the mass outside the box is returned for information.

    Args:
        n, ones: users and the others' ones.
        epsilon_prime, q, s, lam: the protocol's parameters (q = 0, s = 0: GKMP20).
        box: the box's side.

    Returns:
        (P, Q, outside): P and Q over the box's cells, and the larger outside mass.
    """
    r = mpmath.exp(-_mpf(epsilon_prime))
    lam_m = _mpf(lam)
    geo = [(1 - r) * r ** j for j in range(box)]
    poi = [mpmath.exp(-lam_m) * lam_m ** f / mpmath.factorial(f) for f in range(box)]

    def law(m1: int, m0: int) -> list[list[mpmath.mpf]]:
        keep = 1 - _mpf(q)
        b1 = binomial_pmf(m1, keep) if m1 else [mpmath.mpf(1)]
        b0 = binomial_pmf(m0, keep) if m0 else [mpmath.mpf(1)]
        shifts: dict[tuple[int, int], mpmath.mpf] = {}
        for k1, w1 in enumerate(b1):
            for k0, w0 in enumerate(b0):
                t = k0 + k1
                key = (s * t + k1, s * t)
                shifts[key] = shifts.get(key, mpmath.mpf(0)) + w1 * w0
        # (N+ + F, N- + F): g(u, v) = sum_f Poi(f) Geo(u - f) Geo(v - f)
        g = [[mpmath.fsum(poi[f] * geo[u - f] * geo[v - f] for f in range(min(u, v) + 1))
              for v in range(box)] for u in range(box)]
        out = [[mpmath.mpf(0)] * box for _ in range(box)]
        for (da, db), w in shifts.items():
            if w == 0:
                continue
            for a in range(da, box):
                for b in range(db, box):
                    out[a][b] += w * g[a - da][b - db]
        return out

    lp = law(ones + 1, n - 1 - ones)
    lq = law(ones, n - ones)
    P = [x for row in lp for x in row]
    Q = [x for row in lq for x in row]
    return P, Q, max(1 - mpmath.fsum(P), 1 - mpmath.fsum(Q))


def _self_check() -> None:  # pragma: no cover - a quick manual check of the tail sums
    with digits(60):
        n, p = 40, Fraction(3, 10)
        pmf = binomial_pmf(n, _mpf(p))
        for k in range(n + 1):
            assert abs(_cdf(n, p, k) - mpmath.fsum(pmf[: k + 1])) < mpmath.mpf(10) ** -40
        assert math.isfinite(float(binomial_shift_delta(10 ** 9, 0.5, 0.01)))
