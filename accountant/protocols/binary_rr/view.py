"""Shuffled binary randomized response: the exact view pair of one neighbouring pair.

docs/single-message.md#binary-randomized-response. Each of n users reports its bit b, flipped with
probability
p = 1/(e^epsilon0 + 1); the shuffler's output is equivalent to the number k of 1s.
Neighbouring datasets differ in one user (P: that user holds 1, Q: it holds 0); the view
depends on the other users only through `ones`, how many of them hold a 1:

    O = Bin(ones, 1-p) * Bin(n-1-ones, p),
    P(k) = (1-p) O(k-1) + p O(k),      Q(k) = p O(k-1) + (1-p) O(k).

For ones = 0 (the special pair of sec. 5.1) Q = Bin(n, p) and the privacy loss has the
closed form L(k) = log((k e^eps0 + (n-k) e^-eps0)/n) = log1p(2 sinh(eps0) (k - n p)/n).
Relabelling 0 <-> 1 maps the pair with `ones` to the pair with n-1-ones, P and Q swapped.

Besides the `ViewPair` (any backend), this module has the linear-space pair of one count with
certified relative errors (`pair_linear`), used by the all-counts scans.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from accountant.distributions import DEFAULT_DPS, binomial, binomial_window
from accountant.domains import COUNT, EPSILON0, N_PAIR, checked
from accountant.errors import ParameterError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error, two_product
from accountant.numeric.tails import binomial_log_window
from accountant.pmf import PMF, check_backend, convolve, mixture, reflect, shift
from accountant.result import Source
from accountant.view import ViewPair

# Certified mass left outside the bulk windows of the float views.
DEFAULT_TAIL = 1e-250
SOURCE = Source(citation="shuffled randomized response",
                locator="docs/single-message.md#binary-randomized-response")
METHOD = "protocols.binary_rr"

__all__ = ["flip_probability", "keep_probability", "special_loss", "view_pair", "DEFAULT_TAIL",
           "ONES", "as_checked"]


def flip_probability(epsilon0: float) -> float:
    """p = 1/(e^epsilon0 + 1), computed without overflow for large epsilon0.

    Args:
        epsilon0: the local randomizer's epsilon0, > 0 (not validated).

    Returns:
        p as a float in (0, 1/2); e^-epsilon0 for epsilon0 >= 700.
    """
    return 1.0 / (math.exp(epsilon0) + 1.0) if epsilon0 < 700 else math.exp(-epsilon0)


def keep_probability(epsilon0: float) -> float:
    """1 - p = 1/(1 + e^-epsilon0), the probability of reporting the true bit, computed
    without cancellation.

    Args:
        epsilon0: the local randomizer's epsilon0, > 0 (not validated).

    Returns:
        1 - p as a float in (1/2, 1], within a few ulps of the truth.
    """
    return 1.0 / (1.0 + math.exp(-epsilon0))


# the domains of binary RR's parameters (the family declaration `BinaryRR` uses them too)
ONES = COUNT.named("ones")


def as_checked(n: Any, epsilon0: Any, ones: Any = 0) -> tuple[int, float, int | None]:
    """n, epsilon0 and ones as plain numbers, whose domains were checked where they entered
    (a `checked` function or the `BinaryRR` record); only the relation ones <= n - 1, which
    no single domain states, is checked here.

    Args:
        n: number of users (checked: an integer >= 2).
        epsilon0: the local epsilon0 (checked: in (0, 700)).
        ones: ones among the other n - 1 users (checked: an integer >= 0), or None.

    Returns:
        (int n, float epsilon0, int ones or None).

    Raises:
        ParameterError: ones > n - 1.
    """
    n = int(n)
    if ones is not None:
        if int(ones) > n - 1:
            raise ParameterError(f"ones={ones!r} is outside integers in [0, {n - 1}] "
                                 f"(the number of the other n-1={n - 1} users holding a 1)")
        ones = int(ones)
    return n, float(epsilon0), ones


def special_loss(k: np.ndarray, *, n: int, epsilon0: float) -> tuple[np.ndarray, np.ndarray]:
    """(log L(k), absolute error bound) for the special pair (ones = 0),
    docs/single-message.md#binary-randomized-response.

    L(k) - 1 = 2 sinh(epsilon0) (k - n p)/n, with n p split exactly (two_product) so that
    k - n p is accurate to an ulp of itself; log1p then keeps the loss accurate to a few
    ulps of its own size even when it is ~1e-6 (n = 1e8). Where L < 1/2 (large epsilon0,
    k near 0) the sum of positives (k e^eps0 + (n-k) e^-eps0)/n is used instead.

    Args:
        k: counts of 1s, integer-valued, in 0..n (array or scalar).
        n: number of users, >= 2.
        epsilon0: the local randomizer's epsilon0, > 0.

    Returns:
        (loss, error): float arrays of the shape of `k`, loss = log P(k)/Q(k) with P the
        differing user holding 1; error 16 u |loss| on the log1p branch, 8 u (1 + |loss|)
        on the direct branch (u the unit roundoff).
    """
    k = np.asarray(k, dtype=float)
    p = flip_probability(epsilon0)
    hi, lo = two_product(np.array(float(n)), p)
    centred = (k - hi) - lo
    x = (2.0 * math.sinh(epsilon0)) * centred / n
    direct_arg = (k * math.exp(min(epsilon0, 700.0)) + (n - k) * math.exp(-epsilon0)) / n
    small = x > -0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(small, np.log1p(np.where(small, x, 0.0)),
                        np.log(np.where(small, 1.0, direct_arg)))
    # log1p branch: centred has relative error <= 2u (exact split, one rounding of the
    # subtraction of lo), sinh, product and division add <= 4u, log1p <= 2u of |loss|:
    # 16u relative covers it; direct branch: positive sum, <= 8u relative inside the log.
    err = np.where(small, 16 * UNIT_ROUNDOFF * np.abs(loss), 8 * UNIT_ROUNDOFF
                   * (1.0 + np.abs(loss)))
    return loss, err


@checked(n=N_PAIR, epsilon0=EPSILON0, ones=ONES)
def view_pair(*, n: int, epsilon0: float, ones: int = 0, backend: str = "float",
              tail: float | None = DEFAULT_TAIL, dps: int = DEFAULT_DPS) -> Any:
    """The exact pair of views (P: the differing user holds 1, Q: it holds 0).

    Args:
        n: number of users, >= 2.
        epsilon0: the local randomizer's epsilon0 > 0.
        ones: how many of the other n-1 users hold a 1 (0..n-1).
        backend: "float" (log-space, certified errors), "mp" or "exact" ("exact" needs a
            rational flip probability, so it is only offered through `clone_pair`-style
            callers; here it raises).
        tail: certified mass allowed outside the bulk window (None: whole support).
        dps: digits for the mp backend.

    Returns:
        ViewPair on the number of 1s, with residual loss bound epsilon0 (every outcome's
        likelihood ratio lies in [e^-eps0, e^eps0]), P||Q = "holds 1 vs holds 0". Float
        pairs at ones = 0 or n - 1 carry the closed-form loss `special_loss`; the others
        are built by convolution (tail split between the two binomial parts).

    Raises:
        ParameterError: unknown backend, backend "exact", n not an integer >= 2, epsilon0
            not > 0, ones outside 0..n-1, or tail outside (0, 1).
    """

    check_backend(backend)
    n, epsilon0, _ = as_checked(n, epsilon0, ones)
    ones = int(ones)  # one dataset: never None here (as_checked returns int(ones) then)
    if backend == "exact":
        raise ParameterError("backend='exact' needs a rational flip probability; binary RR's "
                             "p = 1/(e^epsilon0+1) is irrational: use 'mp'")
    desc = {"protocol": "binary-rr", "n": n, "epsilon0": epsilon0, "ones": ones,
            "P": "differing user holds 1", "Q": "differing user holds 0"}
    p = flip_probability(epsilon0)
    if backend == "float" and ones in (0, n - 1):
        lo, hi, cut = (0, n, 0.0) if tail is None else binomial_window(n, p, tail)
        k = np.arange(lo, hi + 1)
        base = binomial.unchecked(n, p, backend="float", tail=tail)  # Q of the ones=0 pair
        loss, loss_err = special_loss(k, n=n, epsilon0=epsilon0)
        lq = base.values
        lp = lq + loss
        err = log_pmf_error(lq) + loss_err
        Q = PMF("float", (lo,), lq, cut, err, True)
        P = PMF("float", (lo,), lp, cut, err, True)
        if ones == 0:
            return ViewPair.from_pmfs(P, Q, loss=lambda c: special_loss(
                c[0], n=n, epsilon0=epsilon0), residual_loss_bound=epsilon0, description=desc)
        # mirror: counts of 1s are n minus counts of 0s, and P, Q swap
        Pm = PMF("float", (n - hi,), lq[::-1], cut, err[::-1], True)
        Qm = PMF("float", (n - hi,), lp[::-1], cut, err[::-1], True)
        return ViewPair.from_pmfs(Pm, Qm, loss=lambda c: _neg(special_loss(
            n - c[0], n=n, epsilon0=epsilon0)), residual_loss_bound=epsilon0,
            description=desc)
    part_tail = None if tail is None else tail / 2
    kw = dict(backend=backend, dps=dps) if backend == "mp" else dict(backend=backend)
    p_arg: Any = p
    if backend == "mp":
        import mpmath

        with mpmath.workdps(dps + 10):
            p_arg = 1 / (mpmath.exp(mpmath.mpf(epsilon0)) + 1)
    # Bin(ones, 1-p) as Bin(ones, p) mirrored: a rounded 1-p would lose p's relative accuracy
    ones_part = reflect(binomial.unchecked(ones, p_arg, tail=part_tail if ones else None,
                                           **kw), (ones,))
    zeros_part = binomial.unchecked(n - 1 - ones, p_arg,
                                    tail=part_tail if n - 1 - ones else None, **kw)
    others = convolve(ones_part, zeros_part)
    P = mixture([(1 - p_arg, shift(others, 1)), (p_arg, others)])
    Q = mixture([(p_arg, shift(others, 1)), (1 - p_arg, others)])
    return ViewPair.from_pmfs(P, Q, residual_loss_bound=epsilon0, description=desc)


def _neg(pair: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return -pair[0], pair[1]


def pair_linear(n: int, p: float, ones: int, tail: float) -> tuple[np.ndarray, np.ndarray,
                                                                     float, float]:
    """(P, Q, relative error, residual mass) of one count's pair as linear float arrays.

    Both PMFs are sums of positive products of certified binomial values, so every entry
    carries a small *relative* error (bounded as in `accountant.pmf.convolve`).
    """
    P, Q, rel, log_resid = pair_linear_log(n, p, ones, math.log(tail))
    return P, Q, rel, math.exp(log_resid) * (1 + 1e-12) if log_resid > -745 else 0.0


def pair_linear_log(n: int, p: float, ones: int,
                     log_tail: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """`pair_linear` with windows certified below e^log_tail (any size) and the log of
    the residual mass (so that residual x e^(alpha eps0) stays certified at high orders)."""
    parts = []
    log_out = -math.inf
    # the ones' part is Bin(ones, 1-p), evaluated as a mirrored Bin(ones, p) (1-p unrounded)
    for m, complement in ((ones, True), (n - 1 - ones, False)):
        if m == 0:
            parts.append(np.zeros(1))
            continue
        lo, hi, lg = binomial_log_window(m, p, log_tail - math.log(2.0), complement=complement)
        parts.append(binomial_logpmf(np.arange(lo, hi + 1), m, p, complement=complement))
        log_out = float(np.logaddexp(log_out, lg))
    la, lb = parts
    ea = np.exp(la)
    eb = np.exp(lb)
    o = np.convolve(ea, eb)
    zero = np.zeros(1)
    o1 = np.concatenate([zero, o])  # O(k-1)
    o0 = np.concatenate([o, zero])  # O(k)
    P = (1 - p) * o1 + p * o0
    Q = p * o1 + (1 - p) * o0
    err_a = float(np.max(log_pmf_error(la)))
    err_b = float(np.max(log_pmf_error(lb)))
    rel = math.expm1(err_a + err_b) + (min(ea.size, eb.size) + 8) * 2 * UNIT_ROUNDOFF
    return P, Q, rel, log_out + 1e-12


def order_delta_linear(a: np.ndarray, b: np.ndarray, gamma: float, rel: float,
                        resid: float) -> tuple[float, float]:
    """Certified (lower, upper) of H_gamma(a || b) from linear arrays of relative error rel
    and window residual resid."""
    d = a - gamma * b
    pos = d > 0
    nominal = math.fsum(d[pos])
    err = rel * (float(np.sum(a[pos])) + gamma * float(np.sum(b[pos]))) * 1.01 \
        + 4 * a.size * UNIT_ROUNDOFF * max(nominal, 0.0) + 1e-300
    # the windows' residual can only add to a (upper end) and to b (lower end: the
    # truncated b makes a - gamma b look larger than it is)
    return (max(nominal - err - gamma * resid * 1.0000001, 0.0),
            nominal + err + resid * 1.0000001)


def delta_linear(P: np.ndarray, Q: np.ndarray, gamma: float, rel: float,
                  resid: float) -> tuple[float, float]:
    """Certified (lower, upper) of max(H_gamma(P||Q), H_gamma(Q||P)) from linear arrays."""
    (lo1, hi1), (lo2, hi2) = (order_delta_linear(P, Q, gamma, rel, resid),
                              order_delta_linear(Q, P, gamma, rel, resid))
    return max(lo1, lo2), max(hi1, hi2)


def order_delta_direct(n: int, p: float, ones: int, gamma: float,
                        tail: float) -> tuple[float, float]:
    """Certified (lower, upper) of H_gamma(P || Q) alone at one count (direct)."""
    P, Q, rel, resid = pair_linear(n, p, ones, tail)
    return order_delta_linear(P, Q, gamma, rel, resid)
