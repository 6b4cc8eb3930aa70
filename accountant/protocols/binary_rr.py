"""Shuffled binary randomized response: exact views of every neighbouring pair.

MATH.md sec. 5.2. Each of n users reports its bit b, flipped with probability
p = 1/(e^epsilon0 + 1); the shuffler's output is equivalent to the number k of 1s.
Neighbouring datasets differ in one user (P: that user holds 1, Q: it holds 0); the view
depends on the other users only through `ones`, how many of them hold a 1:

    O = Bin(ones, 1-p) * Bin(n-1-ones, p),
    P(k) = (1-p) O(k-1) + p O(k),      Q(k) = p O(k-1) + (1-p) O(k).

For ones = 0 (the special pair of sec. 5.1) Q = Bin(n, p) and the privacy loss has the
closed form L(k) = log((k e^eps0 + (n-k) e^-eps0)/n) = log1p(2 sinh(eps0) (k - n p)/n).
Relabelling 0 <-> 1 maps the pair with `ones` to the pair with n-1-ones, P and Q swapped,
so the maximum over both orders only needs ones <= (n-1)/2.

Mechanism level (ones=None): the worst case over all n counts, computed exactly (every
count's pair evaluated, certified; delta and epsilon through `binary_rr_worst`) for
n <= `EXACT_WORST_CASE_LIMIT` (Renyi: `RENYI_WORST_CASE_LIMIT`); beyond, the special
pair (a LOWER bound on the mechanism; numerically the worst case, MATH 5.2) and the
blanket pair of MATH 5.4 (a certified UPPER bound over all datasets) are both reported.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from accountant.distributions import DEFAULT_DPS, binomial, binomial_window
from accountant.divergence import (
    delta_bracket,
    epsilon_bracket,
)
from accountant.divergence import (
    renyi_divergence as _view_renyi,
)
from accountant.divergence._common import as_direction
from accountant.domains import ALPHA, COUNT, DELTA, EPSILON, EPSILON0, N_PAIR
from accountant.errors import ParameterError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import bd0, binomial_logpmf, log_pmf_error, two_product
from accountant.pmf import PMF, check_backend, convolve, mixture, shift
from accountant.protocols import clone_pair
from accountant.protocols.binary_rr_worst import order_deltas
from accountant.protocols.registry import ProtocolSpec
from accountant.result import Direction, Kind, Result, Source

__all__ = [
    "flip_probability",
    "special_loss",
    "view_pair",
    "worst_case_pairs",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "renyi_divergence",
    "max_divergence",
    "special_pair_renyi",
    "renyi_curve",
    "EXACT_WORST_CASE_LIMIT",
    "RENYI_WORST_CASE_LIMIT",
    "CLI_SPEC",
]

# Largest n for which ones=None maximises delta / epsilon over every count's pair
# (binary_rr_worst: about 1 s per delta evaluation at n = 1e5).
EXACT_WORST_CASE_LIMIT = 100_000
# Largest n for which ones=None maximises Renyi divergences over every count's pair (one
# direct convolution per count, about 10 s per order at n = 1e4).
RENYI_WORST_CASE_LIMIT = 10_000
# Below this delta the all-counts pass (linear-space sums) cannot resolve a count's delta
# next to the float range's floor; the mechanism value falls back to the blanket bound.
WORST_CASE_DELTA_FLOOR = 1e-200
# Certified mass left outside the bulk windows of the float views.
DEFAULT_TAIL = 1e-250
_SOURCE = Source(citation="MATH.md (shuffled randomized response)", locator="sec. 5.2")
_METHOD = "protocols.binary_rr"


def flip_probability(epsilon0: float) -> float:
    """p = 1/(e^epsilon0 + 1), computed without overflow for large epsilon0."""
    return 1.0 / (math.exp(epsilon0) + 1.0) if epsilon0 < 700 else math.exp(-epsilon0)


def _check(n: Any, epsilon0: Any, ones: Any = 0) -> tuple[int, float, int | None]:
    N_PAIR.check(n)
    EPSILON0.check(epsilon0)
    n = int(n)
    if ones is not None:
        COUNT.named("ones").check(ones)
        if int(ones) > n - 1:
            raise ParameterError(f"ones={ones!r} is outside integers in [0, {n - 1}] "
                                 f"(the number of the other n-1={n - 1} users holding a 1)")
        ones = int(ones)
    return n, float(epsilon0), ones


def special_loss(k: np.ndarray, *, n: int, epsilon0: float) -> tuple[np.ndarray, np.ndarray]:
    """(log L(k), absolute error bound) for the special pair (ones = 0), MATH 5.2.

    L(k) - 1 = 2 sinh(epsilon0) (k - n p)/n, with n p split exactly (two_product) so that
    k - n p is accurate to an ulp of itself; log1p then keeps the loss accurate to a few
    ulps of its own size even when it is ~1e-6 (n = 1e8). Where L < 1/2 (large epsilon0,
    k near 0) the sum of positives (k e^eps0 + (n-k) e^-eps0)/n is used instead.
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
        likelihood ratio lies in [e^-eps0, e^eps0]), P||Q = "holds 1 vs holds 0".
    """
    from accountant.view import ViewPair

    check_backend(backend)
    n, epsilon0, ones = _check(n, epsilon0, ones)
    if backend == "exact":
        raise ParameterError("backend='exact' needs a rational flip probability; binary RR's "
                             "p = 1/(e^epsilon0+1) is irrational: use 'mp'")
    desc = {"protocol": "binary-rr", "n": n, "epsilon0": epsilon0, "ones": ones,
            "P": "differing user holds 1", "Q": "differing user holds 0"}
    p = flip_probability(epsilon0)
    if backend == "float" and ones in (0, n - 1):
        lo, hi, cut = (0, n, 0.0) if tail is None else binomial_window(n, p, tail)
        k = np.arange(lo, hi + 1)
        base = binomial(n, p, backend="float", tail=tail)  # Q of the ones=0 pair
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
    ones_part = binomial(ones, 1 - p_arg, tail=part_tail if ones else None, **kw)
    zeros_part = binomial(n - 1 - ones, p_arg, tail=part_tail if n - 1 - ones else None, **kw)
    others = convolve(ones_part, zeros_part)
    P = mixture([(1 - p_arg, shift(others, 1)), (p_arg, others)])
    Q = mixture([(p_arg, shift(others, 1)), (1 - p_arg, others)])
    return ViewPair.from_pmfs(P, Q, residual_loss_bound=epsilon0, description=desc)


def _neg(pair: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    return -pair[0], pair[1]


# ---------------------------------------------------------------- every count's pair, fast
def _fast_window(m: int, prob: float, tail: float) -> tuple[np.ndarray, float, int]:
    """(log Bin(m, prob) on a window, certified mass outside it), without root finding.

    The window is mean +- z sd with z from the Gaussian approximation; its outside mass is
    then certified by the Chernoff bound exp(-f(x)) at the window's edges (f the
    binomial's Chernoff exponent, as in `distributions.binomial_window`), whatever z was.
    """
    if m == 0:
        return np.zeros(1), 0.0, 0
    mean = m * prob
    sd = math.sqrt(m * prob * (1 - prob))
    z = math.sqrt(2 * math.log(2 / tail)) + 3.0
    lo = max(0, int(math.floor(mean - z * sd)) - 1)
    hi = min(m, int(math.ceil(mean + z * sd)) + 1)
    ks = np.arange(lo, hi + 1)
    logs = binomial_logpmf(ks, m, prob)
    out = 0.0
    for edge in ([lo - 1] if lo > 0 else []) + ([hi + 1] if hi < m else []):
        f = float(bd0(np.array(float(edge)), mean) + bd0(np.array(float(m - edge)),
                                                           m * (1 - prob)))
        out += math.exp(-f * (1 - 1e-10) + 1e-12)
    return logs, out, lo


def _pair_linear(n: int, p: float, ones: int, tail: float) -> tuple[np.ndarray, np.ndarray,
                                                                     float, float]:
    """(P, Q, relative error, residual mass) of one count's pair as linear float arrays.

    Both PMFs are sums of positive products of certified binomial values, so every entry
    carries a small *relative* error (bounded as in `accountant.pmf.convolve`).
    """
    P, Q, rel, log_resid = _pair_linear_log(n, p, ones, math.log(tail))
    return P, Q, rel, math.exp(log_resid) * (1 + 1e-12) if log_resid > -745 else 0.0


def _pair_linear_log(n: int, p: float, ones: int,
                     log_tail: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """`_pair_linear` with windows certified below e^log_tail (any size) and the log of
    the residual mass (so that residual x e^(alpha eps0) stays certified at high orders)."""
    parts = []
    log_out = -math.inf
    for m, prob in ((ones, 1 - p), (n - 1 - ones, p)):
        if m == 0:
            parts.append(np.zeros(1))
            continue
        lo, hi, lg = _log_window(m, prob, log_tail - math.log(2.0))
        parts.append(binomial_logpmf(np.arange(lo, hi + 1), m, prob))
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


def _delta_linear(P: np.ndarray, Q: np.ndarray, gamma: float, rel: float,
                  resid: float) -> tuple[float, float]:
    """Certified (lower, upper) of max(H_gamma(P||Q), H_gamma(Q||P)) from linear arrays."""
    out = []
    for a, b in ((P, Q), (Q, P)):
        d = a - gamma * b
        pos = d > 0
        nominal = math.fsum(d[pos])
        err = rel * (float(np.sum(a[pos])) + gamma * float(np.sum(b[pos]))) * 1.01 \
            + 4 * a.size * UNIT_ROUNDOFF * max(nominal, 0.0) + 1e-300
        # the windows' residual can only add to a (upper end) and to b (lower end: the
        # truncated b makes a - gamma b look larger than it is)
        out.append((max(nominal - err - gamma * resid * 1.0000001, 0.0),
                    nominal + err + resid * 1.0000001))
    return max(o[0] for o in out), max(o[1] for o in out)


def worst_case_pairs(*, n: int, epsilon0: float, epsilon: float,
                     tail: float = 1e-30) -> list[tuple[int, float, float]]:
    """(ones, delta lower, delta upper) at epsilon for every ones in 0..(n-1)//2.

    The maximum over both orders is taken per count; counts above (n-1)/2 mirror these.
    All counts at once by `binary_rr_worst.order_deltas` (about 1 s at n = 1e5); a count
    whose threshold window it cannot certify is evaluated directly.
    """
    n, epsilon0, _ = _check(n, epsilon0)
    EPSILON.check(epsilon)
    p = flip_probability(epsilon0)
    gamma = math.exp(epsilon)
    lower, upper, ok = order_deltas(n, p, gamma, math.log(tail), _log_window)
    for m in np.flatnonzero(~ok):
        lower[m], upper[m] = _order_delta_direct(n, p, int(m), gamma, tail)
    half = np.arange(0, (n - 1) // 2 + 1)
    # order (Q || P) at count `ones` is order (P || Q) at count n-1-ones
    lo = np.maximum(lower[half], lower[n - 1 - half])
    hi = np.maximum(upper[half], upper[n - 1 - half])
    return [(int(o), float(a), float(b)) for o, a, b in zip(half, lo, hi, strict=True)]


def _worst_case_pairs_direct(*, n: int, epsilon0: float, epsilon: float,
                             tail: float = 1e-30) -> list[tuple[int, float, float]]:
    """`worst_case_pairs` by one direct convolution per count (cost ~ n^1.5): the
    independent reference the fast path is tested against."""
    n, epsilon0, _ = _check(n, epsilon0)
    p = flip_probability(epsilon0)
    gamma = math.exp(epsilon)
    rows = []
    for ones in range(0, (n - 1) // 2 + 1):
        P, Q, rel, resid = _pair_linear(n, p, ones, tail)
        lo, hi = _delta_linear(P, Q, gamma, rel, resid)
        rows.append((ones, lo, hi))
    return rows


def _order_delta_direct(n: int, p: float, ones: int, gamma: float,
                        tail: float) -> tuple[float, float]:
    """Certified (lower, upper) of H_gamma(P || Q) alone at one count (direct)."""
    P, Q, rel, resid = _pair_linear(n, p, ones, tail)
    d = P - gamma * Q
    pos = d > 0
    nominal = math.fsum(d[pos])
    err = rel * (float(np.sum(P[pos])) + gamma * float(np.sum(Q[pos]))) * 1.01 \
        + 4 * P.size * UNIT_ROUNDOFF * max(nominal, 0.0) + 1e-300
    return (max(nominal - err - gamma * resid * 1.0000001, 0.0),
            nominal + err + resid * 1.0000001)


# ---------------------------------------------------------------- mechanism-level values
def _special_epsilon(n: int, epsilon0: float, delta: float) -> tuple[Result, Result]:
    view = view_pair(n=n, epsilon0=epsilon0, ones=0, tail=min(DEFAULT_TAIL, delta * 1e-12))
    return epsilon_bracket(view, delta)


def epsilon_for_delta(*, n: int, epsilon0: float, delta: float,
                      ones: int | None = None) -> dict[str, Result]:
    """epsilon(delta), maximum over both orders, for one count or the whole mechanism.

    Returns {"epsilon": UPPER Result, "epsilon_lower": LOWER Result} (a certified numerical
    bracket). ones=None: n <= EXACT_WORST_CASE_LIMIT evaluates every count's pair (the
    bracket is then of the mechanism's exact value); beyond, "epsilon_lower" is the special
    pair (a lower bound on the mechanism) and "epsilon" the blanket pair's certified upper
    bound over all datasets (MATH 5.4), with "epsilon_special" the special pair's bracket
    upper end for reference.
    """
    n, epsilon0, ones = _check(n, epsilon0, ones)
    DELTA.check(delta)
    out = _epsilon_for_delta(n, epsilon0, delta, ones)
    # every pair is epsilon0-DP (max-divergence epsilon0), so epsilon(delta) <= epsilon0
    return {key: (r.with_(value=min(float(r.value), epsilon0)) if r.kind is Kind.UPPER
                  else r) for key, r in out.items()}


def _epsilon_for_delta(n: int, epsilon0: float, delta: float,
                       ones: int | None) -> dict[str, Result]:
    if ones is not None:
        view = view_pair(n=n, epsilon0=epsilon0, ones=ones,
                         tail=min(DEFAULT_TAIL, delta * 1e-12))
        lo, hi = epsilon_bracket(view, delta)
        m = f"{_METHOD}.epsilon_for_delta(ones={ones})"
        return {"epsilon": hi.with_(method=m, source=_SOURCE),
                "epsilon_lower": lo.with_(method=m, source=_SOURCE)}
    lo, hi = _special_epsilon(n, epsilon0, delta)
    worst = _worst_case_epsilon(n, epsilon0, delta, (lo, hi)) \
        if n <= EXACT_WORST_CASE_LIMIT else None
    if worst is not None:
        worst_lo, worst_hi, at = worst
        m = f"{_METHOD}.epsilon_for_delta(worst case over all {n} counts, attained at "
        m += "ones=0 or n-1, the special pair)" if at == 0 else f"ones={at} or n-1-{at})"
        return {"epsilon": worst_hi.with_(method=m, source=_SOURCE),
                "epsilon_lower": worst_lo.with_(method=m, source=_SOURCE),
                "epsilon_special": hi.with_(method=f"{_METHOD}.epsilon_for_delta(special "
                                            "pair, numerical upper end)", source=_SOURCE)}
    blanket = clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)
    up = clone_pair.epsilon_for_delta(blanket, delta=delta)
    return {"epsilon": up["epsilon"],
            "epsilon_lower": lo.with_(method=f"{_METHOD}.epsilon_for_delta(special pair: a "
                                      "lower bound on the mechanism)", source=_SOURCE),
            "epsilon_special": hi.with_(method=f"{_METHOD}.epsilon_for_delta(special pair, "
                                        "numerical upper end)", source=_SOURCE)}


def _worst_case_epsilon(n: int, epsilon0: float, delta: float,
                        special: tuple[Result, Result]) -> tuple[Result, Result, int] | None:
    """(lower, upper, count attaining the upper) of the maximum of epsilon(delta) over all
    counts, starting from the special pair's bracket.

    Each round evaluates every count's delta at the current upper end (one fast pass); the
    counts above delta are the only ones whose epsilon can exceed it, and the largest of
    them are evaluated one by one. It stops when no count is above delta, so the upper end
    is certified for every count. None when it does not settle in a few rounds, or when
    delta is too small for the linear-space pass to resolve (below WORST_CASE_DELTA_FLOOR).
    """
    if delta < WORST_CASE_DELTA_FLOOR:
        return None
    best_lo, best_hi = special
    worst = 0
    done = {0}  # counts whose own epsilon bracket is known (count 0: the special pair)
    # the windows' residual is added to every count's delta: keep it far below delta
    tail = max(min(1e-16, delta * 1e-4), 1e-300)
    for _ in range(8):
        rows = worst_case_pairs(n=n, epsilon0=epsilon0, epsilon=float(best_hi), tail=tail)
        offenders = sorted((r for r in rows if r[2] > delta and r[0] not in done),
                           key=lambda r: -r[2])
        if not offenders:
            return best_lo, best_hi, worst
        for ones, _, _ in offenders[:8]:
            done.add(ones)
            view = view_pair(n=n, epsilon0=epsilon0, ones=ones,
                             tail=min(DEFAULT_TAIL, delta * 1e-12))
            lo, hi = epsilon_bracket(view, delta)
            if float(hi) > float(best_hi):
                best_hi, worst = hi, ones
            if float(lo) > float(best_lo):
                best_lo = lo
    return None


def delta_for_epsilon(*, n: int, epsilon0: float, epsilon: float,
                      ones: int | None = None) -> dict[str, Result]:
    """delta(epsilon), maximum over both orders; {"delta": UPPER, "delta_lower": LOWER}.

    ones=None as in `epsilon_for_delta`: exact maximum over counts for n <=
    EXACT_WORST_CASE_LIMIT, else the special pair (lower) and the blanket pair (upper).
    """
    n, epsilon0, ones = _check(n, epsilon0, ones)
    EPSILON.check(epsilon)
    if ones is not None or n > EXACT_WORST_CASE_LIMIT:
        view = view_pair(n=n, epsilon0=epsilon0, ones=0 if ones is None else ones)
        lo, hi = delta_bracket(view, epsilon)
        m = f"{_METHOD}.delta_for_epsilon(ones={0 if ones is None else ones})"
        out = {"delta": hi.with_(method=m, source=_SOURCE),
               "delta_lower": lo.with_(method=m, source=_SOURCE)}
        if ones is None:
            blanket = clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)
            out["delta_special"] = out["delta"]
            out["delta"] = clone_pair.delta_for_epsilon(blanket, epsilon=epsilon)["delta"]
        return out
    rows = worst_case_pairs(n=n, epsilon0=epsilon0, epsilon=epsilon)
    lo = max(r[1] for r in rows)
    hi = max(r[2] for r in rows)
    arg = max(rows, key=lambda r: r[2])[0]
    m = f"{_METHOD}.delta_for_epsilon(worst case over all {n} counts, attained at ones={arg})"
    mk = lambda v, kind: Result(quantity="delta", value=min(v, 1.0), kind=kind,  # noqa: E731
                                direction=Direction.MAX, method=m, source=_SOURCE, at=epsilon)
    return {"delta": mk(hi, Kind.UPPER), "delta_lower": mk(lo, Kind.LOWER)}


def renyi_divergence(*, n: int, epsilon0: float, alpha: float, ones: int | None = None,
                     direction: Direction | str = Direction.MAX) -> dict[str, Result]:
    """Renyi divergence of order alpha (real > 1 or inf) of one count's pair or the mechanism.

    Returns {"renyi": Result, "renyi_lower": Result}. For a given `ones`, "renyi" is the
    certified upper end (float) of the pair's exact value and "renyi_lower" a lower end.
    ones=None: the special pair (the reverse order is the larger, MATH 5.2); n <=
    RENYI_WORST_CASE_LIMIT maximises over every count, beyond it "renyi" is the blanket
    pair's certified upper bound over all datasets and "renyi_lower" the special pair.
    """
    n, epsilon0, ones = _check(n, epsilon0, ones)
    ALPHA.check(alpha)
    if alpha == math.inf:
        r = max_divergence(n=n, epsilon0=epsilon0, ones=ones)
        return {"renyi": r, "renyi_lower": r}
    m = f"{_METHOD}.renyi_divergence(ones={0 if ones is None else ones})"
    if ones in (None, 0) and as_direction(direction) is Direction.MAX:
        low, up = special_pair_renyi(n=n, epsilon0=epsilon0, alphas=[alpha])[0]
        up = up.with_(kind=Kind.UPPER)
    else:
        view = view_pair(n=n, epsilon0=epsilon0, ones=0 if ones is None else ones)
        up = _view_renyi(view, alpha, direction=direction)
        low = _renyi_lower(view, alpha, direction, up)
    out = {"renyi": up.with_(method=m, source=_SOURCE),
           "renyi_lower": low.with_(method=m, source=_SOURCE)}
    if ones is None:
        if n <= RENYI_WORST_CASE_LIMIT:
            best = _worst_case_renyi(n, epsilon0, alpha, up)
            out["renyi"] = best.with_(method=f"{_METHOD}.renyi_divergence(worst case over all "
                                      f"{n} counts)", source=_SOURCE)
        else:
            blanket = clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)
            out["renyi_special"] = out["renyi"]
            out["renyi"] = clone_pair.renyi_divergence(blanket, alpha=alpha)["renyi"]
    return out


def special_pair_renyi(*, n: int, epsilon0: float,
                       alphas: Sequence[float]) -> list[tuple[Result, Result]]:
    """(lower, upper) of the special pair's Renyi divergence at many orders at once.

    Maximum over both orders: E_Q[L^alpha] (P||Q) and E_Q[L^(1-alpha)] (Q||P), Q =
    Bin(n, p), computed as log1p(sum_window Q expm1(beta loss) + residual) (MATH 0.6:
    the moment is 1 + tiny) with exact summation (fsum) and the closed-form loss. The
    window's outside Q-mass m_out (Chernoff-certified, chosen below e^-(alpha eps0 + 60))
    changes the moment by at most +m_out e^(alpha eps0) or -m_out. The values bracket the
    special pair's exact divergences (a LOWER bound on the mechanism: see
    `renyi_divergence`).
    """
    n, epsilon0, _ = _check(n, epsilon0)
    alphas = [float(a) for a in alphas]
    for a in alphas:
        ALPHA.check(a)
        if a == math.inf:
            raise ParameterError("alpha=inf: use max_divergence (the special pair's is "
                                 "epsilon0)")
    p = flip_probability(epsilon0)
    log_tail = -(max(alphas, default=2.0) * epsilon0 + 60.0)
    lo_k, hi_k, log_out = _log_window(n, p, log_tail)
    k = np.arange(lo_k, hi_k + 1)
    lq = binomial_logpmf(k, n, p)
    q = np.exp(lq)
    q_rel = np.expm1(log_pmf_error(lq))
    loss, loss_err = special_loss(k, n=n, epsilon0=epsilon0)
    results = []
    method = f"{_METHOD}.special_pair_renyi (float, certified bracket)"
    for a in alphas:
        a1 = a - 1.0
        ups, lows = [], []
        for beta in (a, 1.0 - a):  # P||Q and Q||P
            x = beta * loss
            if float(np.max(x)) > 300.0:
                # the moment is far from 1: plain log-space sum, relative error suffices
                t = lq + x
                mx = float(np.max(t))
                log_m = math.log(float(np.sum(np.exp(t - mx)))) + mx
                e_log = float(np.max(np.abs(beta) * loss_err + log_pmf_error(lq))) \
                    + (k.size + 8) * 2 * UNIT_ROUNDOFF
                up_log = float(np.logaddexp(log_m + e_log, log_out + abs(beta) * epsilon0))
                ups.append(up_log / a1)
                lows.append((log_m - e_log) / a1)
                continue
            term = q * np.expm1(x)
            s_nom = _cascade_sum(term)
            # |error| per term: Q's relative error times |expm1|, plus e^x times the
            # error of x (|beta| loss_err + 4 ulps of x) and the ulps of expm1 and product
            cascade = 4 * UNIT_ROUNDOFF * abs(s_nom) + 2 * k.size * UNIT_ROUNDOFF ** 2 \
                * float(np.sum(np.abs(term)))
            err = cascade + float(np.sum(q_rel * np.abs(term) + q * np.exp(x) * np.expm1(
                np.abs(beta) * loss_err + 4 * UNIT_ROUNDOFF * np.abs(x))
                + 4 * UNIT_ROUNDOFF * np.abs(term))) * (1 + 1e-6) + 1e-300
            res_up = math.exp(log_out + abs(beta) * epsilon0) if log_out > -745 else 0.0
            res_dn = math.exp(log_out) if log_out > -745 else 0.0
            up_m = s_nom + err + res_up
            lo_m = s_nom - err - res_dn
            ups.append(math.log1p(up_m) / a1)
            lows.append(math.log1p(max(lo_m, -1 + 1e-300)) / a1)
        up = max(ups) * (1 + 8 * UNIT_ROUNDOFF) + 1e-300
        low = max(max(lows) * (1 - 8 * UNIT_ROUNDOFF), 0.0)
        mk = lambda v, kind, a=a, up=up, low=low: Result(  # noqa: E731
            quantity="renyi", value=v, kind=kind, direction=Direction.MAX, method=method,
            source=_SOURCE, order=a, error_budget=max(up - low, 0.0))
        results.append((mk(low, Kind.LOWER), mk(up, Kind.UPPER)))
    return results


def _cascade_sum(x: np.ndarray) -> float:
    """sum(x) by a pairwise tree of error-free two-sums (Knuth's TwoSum), vectorized: the
    rounding errors of every level are collected and added back, so the result is
    within ~2u |sum| + 2 N u^2 sum|x| of the exact sum (Ogita-Rump-Oishi, cascaded
    summation), at numpy speed (math.fsum is ~100x slower on wide-ranging terms)."""
    x = np.asarray(x, dtype=float)
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


def _log_window(n: int, prob: float, log_tail: float) -> tuple[int, int, float]:
    """[lo, hi] with log(outside mass of Bin(n, prob)) <= about log_tail, and that log
    bound certified by the Chernoff exponent at the edges (any log_tail, even below the
    float range)."""
    mean = n * prob
    sd = math.sqrt(n * prob * (1 - prob))
    z = math.sqrt(2 * max(-log_tail, 1.0)) + 3.0
    lo = max(0, int(math.floor(mean - z * sd - (-log_tail) / 3)) - 1)
    hi = min(n, int(math.ceil(mean + z * sd + (-log_tail) / 3)) + 1)
    logs = []
    for edge in ([lo - 1] if lo > 0 else []) + ([hi + 1] if hi < n else []):
        f = float(bd0(np.array(float(edge)), mean) + bd0(np.array(float(n - edge)),
                                                           n * (1 - prob)))
        logs.append(-f * (1 - 1e-10) + 1e-12)
    if not logs:
        return lo, hi, -math.inf
    top = max(logs)
    return lo, hi, top + math.log(sum(math.exp(v - top) for v in logs))


def _renyi_lower(view: Any, alpha: float, direction: Any, up: Result) -> Result:
    """Lower end of the float evaluation: upper value minus twice its error budget, which
    brackets the exact value (the budget bounds |computed - exact| plus the residual)."""
    value = max(float(up.value) - 2 * up.error_budget, 0.0)
    return Result(quantity="renyi", value=value, kind=Kind.LOWER, direction=up.direction,
                  method=up.method, error_budget=up.error_budget, order=alpha)


def _worst_case_renyi(n: int, epsilon0: float, alpha: float, special: Result) -> Result:
    best = _worst_case_renyi_many(n, epsilon0, np.array([float(alpha)]))[0]
    return special if best <= float(special) else special.with_(
        value=float(best), error_budget=special.error_budget)


def _worst_case_renyi_many(n: int, epsilon0: float, alphas: np.ndarray) -> np.ndarray:
    """Certified upper ends of max over counts 1..(n-1)//2 and both orders of D_alpha
    (the special pair, count 0, is handled by `special_pair_renyi`).

    Term P (P/Q)^(alpha-1) from linear P, Q of relative error rel: relative error <=
    (2 alpha - 1) rel plus a few ulps of the exponent; the window's outside mass (<=
    resid for both laws) adds at most resid e^((alpha-1) eps0).
    """
    p = flip_probability(epsilon0)
    a1 = alphas[:, None] - 1.0
    best = np.zeros(alphas.size)
    log_tail = -(float(np.max(alphas)) * epsilon0 + 60.0)
    for ones in range(1, (n - 1) // 2 + 1):
        P, Q, rel, log_resid = _pair_linear_log(n, p, ones, log_tail)
        keep = (P > 0) & (Q > 0)
        P, Q = P[keep], Q[keep]
        lr = np.log(P) - np.log(Q)
        for a, sign in ((P, 1.0), (Q, -1.0)):
            # log-space moment: (alpha - 1) eps0 reaches ~1000 at alpha = 256, eps0 = 4
            x = np.log(a)[None, :] + a1 * (sign * lr)[None, :]
            top = np.max(x, axis=1)
            log_moment = top + np.log(np.sum(np.exp(x - top[:, None]), axis=1))
            slack = ((2 * alphas + 1) * rel + 8 * UNIT_ROUNDOFF * (1 + np.max(np.abs(x), axis=1))
                     + 4 * a.size * UNIT_ROUNDOFF)
            log_upper = np.logaddexp(log_moment + np.log1p(slack),
                                     log_resid + a1[:, 0] * epsilon0)
            best = np.maximum(best, log_upper / a1[:, 0] * (1 + 4 * UNIT_ROUNDOFF))
    # every pair is epsilon0-DP: D_alpha <= D_inf <= epsilon0
    return np.minimum(best, epsilon0)


def renyi_curve(*, n: int, epsilon0: float, alphas: Sequence[float],
                ones: int | None = None) -> list[tuple[Result, Result]]:
    """(lower, upper) Renyi divergences at many real orders > 1, maximum over both orders.

    ones=0 or n-1: the special pair's certified bracket (`special_pair_renyi`); another
    count: that pair's float evaluation (per order, via the generic divergence code);
    ones=None (the mechanism): lower = the special pair; upper = the maximum over every
    count for n <= RENYI_WORST_CASE_LIMIT (one scan for all orders), beyond it the blanket
    pair's certified upper bound over all datasets (MATH 5.4). For composition.
    """
    n, epsilon0, ones = _check(n, epsilon0, ones)
    al = np.array([float(a) for a in alphas])
    if ones not in (None, 0, n - 1):
        rows = []
        for a in al:
            r = renyi_divergence(n=n, epsilon0=epsilon0, alpha=float(a), ones=ones)
            rows.append((r["renyi_lower"], r["renyi"]))
        return rows
    special = special_pair_renyi(n=n, epsilon0=epsilon0, alphas=list(al))
    if ones is not None:
        return special
    if n <= RENYI_WORST_CASE_LIMIT:
        scan = _worst_case_renyi_many(n, epsilon0, al)
        m = f"{_METHOD}.renyi_curve(worst case over all {n} counts)"
        out = []
        for (low, up), v in zip(special, scan, strict=True):
            top = max(float(up.value), float(v))
            out.append((low.with_(method=m), up.with_(
                value=top, method=m, error_budget=max(top - float(low.value), 0.0))))
        return out
    blanket = clone_pair.renyi_curve(clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2),
                                     alphas=list(al))
    m = f"{_METHOD}.renyi_curve(special pair: lower bound on the mechanism)"
    return [(low.with_(method=m), up) for (low, _), (_, up) in zip(special, blanket,
                                                                  strict=True)]


def max_divergence(*, n: int, epsilon0: float, ones: int | None = None) -> Result:
    """Pure-DP epsilon: exactly epsilon0 for every pair (both orders), any n >= 2.

    The likelihood ratio (1-p) r + p over p r + (1-p) with r = O(k-1)/O(k) lies in
    [e^-eps0, e^eps0] and reaches e^eps0 at k = n (r = inf), where O(n-1) > 0 always.
    """
    n, epsilon0, ones = _check(n, epsilon0, ones)
    return Result(quantity="max_divergence", value=epsilon0, kind=Kind.EXACT,
                  direction=Direction.MAX, order=math.inf, source=_SOURCE,
                  method=f"{_METHOD}.max_divergence (closed form: ratio e^eps0 at k = n)")


# ---------------------------------------------------------------- CLI
def _add_arguments(p: argparse.ArgumentParser) -> None:
    from accountant.cli import positive_int

    p.add_argument("--n", type=positive_int, required=True, help="number of users (>= 2)")
    p.add_argument("--epsilon0", type=float, required=True, help="local epsilon0 > 0")
    p.add_argument("--ones", type=positive_int_or_zero, default=None,
                   help="how many of the other n-1 users hold a 1 (default: worst case)")


def positive_int_or_zero(text: str) -> int:
    from accountant.cli import positive_int

    return positive_int(text)


def _params(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"n": args.n, "epsilon0": args.epsilon0}
    if args.ones is not None:
        out["ones"] = args.ones
    return out


def _json(results: dict[str, Result]) -> dict[str, Any]:
    return {k: v.to_json() for k, v in results.items()}


def _dp(args: argparse.Namespace) -> dict[str, Any]:
    if args.at_delta is not None:
        res = epsilon_for_delta(n=args.n, epsilon0=args.epsilon0, delta=args.at_delta,
                                ones=args.ones)
        return {"params": _params(args) | {"delta": args.at_delta}, **_json(res),
                "delta": {"value": args.at_delta, "kind": "exact"}}
    res = delta_for_epsilon(n=args.n, epsilon0=args.epsilon0, epsilon=args.at_epsilon,
                            ones=args.ones)
    return {"params": _params(args) | {"epsilon": args.at_epsilon}, **_json(res),
            "epsilon": {"value": args.at_epsilon, "kind": "exact"}}


def _rdp(args: argparse.Namespace) -> dict[str, Any]:
    finite = [a for a in args.orders if a != math.inf]
    for a in args.orders:
        ALPHA.check(a)
    curve = iter(renyi_curve(n=args.n, epsilon0=args.epsilon0, alphas=finite, ones=args.ones)
                 if finite else [])
    rows, lower = [], []
    for alpha in args.orders:
        if alpha == math.inf:
            low = up = max_divergence(n=args.n, epsilon0=args.epsilon0, ones=args.ones)
        else:
            low, up = next(curve)
        rows.append(up.to_json() | {"order": alpha})
        lower.append(low.to_json() | {"order": alpha})
    return {"params": _params(args), "renyi": rows, "renyi_lower": lower}


def _pure(args: argparse.Namespace) -> dict[str, Any]:
    r = max_divergence(n=args.n, epsilon0=args.epsilon0, ones=args.ones)
    return {"params": _params(args), "max_divergence": r.to_json()}


CLI_SPEC = ProtocolSpec(name="binary-rr", summary="shuffled binary randomized response",
                        add_arguments=_add_arguments,
                        handlers={"dp": _dp, "rdp": _rdp, "pure": _pure})
