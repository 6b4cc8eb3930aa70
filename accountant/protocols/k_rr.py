"""Shuffled k-ary randomized response: the special pair (exact) and the blanket pair (upper).

MATH.md 5.3, 5.4. Each user reports its symbol with probability e^eps0/(e^eps0+k-1) and
each other symbol with probability 1/(e^eps0+k-1).

- Special pair (5.3): every other user holds x; the differing user holds x (Q) or x'
  (P). The view reduces to (a, b) = (h_x, h_x'), Q = Mult(n; (e^eps0, 1, k-2)/(e^eps0+k-1))
  and P = Q * L with L = (a e^-eps0 + b e^eps0 + (n-a-b))/n. Its divergences are EXACT
  for that pair, hence LOWER bounds on the mechanism.
- Blanket pairs: certified UPPER bounds over every neighbouring pair of k-RR. DP values
  (`epsilon_for_delta`, `delta_for_epsilon`) use `k_rr_blanket` (reveals only the blanket
  size N; far tighter for k >= 3, equal to 5.4 at k = 2, where 5.4's code is used); Renyi
  values use the MATH 5.4 pair (`clone_pair.blanket_k_rr`, which also reveals whether the
  differing user's report left {x, x'}), as k_rr_blanket has no Renyi evaluation yet.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from accountant.divergence import delta_bracket, epsilon_bracket
from accountant.divergence import renyi_divergence as _renyi
from accountant.domains import ALPHA, DELTA, EPSILON, EPSILON0, N_PAIR, N_USERS
from accountant.errors import ParameterError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import bd0, binomial_logpmf, log_pmf_error, two_product
from accountant.protocols import clone_pair, k_rr_blanket
from accountant.protocols.registry import ProtocolSpec
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = [
    "special_pair",
    "special_loss",
    "blanket_pair",
    "epsilon_for_delta",
    "delta_for_epsilon",
    "renyi_divergence",
    "max_divergence",
    "SPECIAL_PAIR_LIMIT",
    "CLI_SPEC",
]

# Largest n for which the special pair's 2-D grid (~ (16 sd)^2 points) is built.
SPECIAL_PAIR_LIMIT = 200_000
_SOURCE = Source(citation="MATH.md (shuffled k-RR)", locator="sec. 5.3 special pair")
_METHOD = "protocols.k_rr"


def _check(n: Any, epsilon0: Any, k: Any) -> tuple[int, float, int]:
    N_PAIR.check(n)
    EPSILON0.check(epsilon0)
    N_USERS.named("k").check(k)
    if int(k) < 2:
        raise ParameterError(f"k={k!r} is outside integers in [2, inf) (k-RR needs k >= 2)")
    return int(n), float(epsilon0), int(k)


def special_loss(a: np.ndarray, b: np.ndarray, *, n: int, epsilon0: float,
                 k: int) -> tuple[np.ndarray, np.ndarray]:
    """(log L(a, b), absolute error bound), L - 1 = ((a - n pi_a)(e^-eps0 - 1)
    + (b - n pi_b)(e^eps0 - 1))/n (E_Q L = 1), with n pi split exactly; log1p keeps the
    loss accurate to a few ulps of itself; below L = 1/2 the positive sum is used."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    e = math.exp(epsilon0)
    den = e + k - 1
    ha, la = two_product(np.array(float(n)), e / den)
    hb, lb = two_product(np.array(float(n)), 1.0 / den)
    ca = (a - ha) - la
    cb = (b - hb) - lb
    x = (ca * math.expm1(-epsilon0) + cb * math.expm1(epsilon0)) / n
    direct = (a / e + b * e + (n - a - b)) / n
    small = x > -0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where(small, np.log1p(np.where(small, x, 0.0)),
                        np.log(np.where(small, 1.0, direct)))
    # the two centred products may cancel: bound by the magnitudes of the summands
    mag = (np.abs(ca) * -math.expm1(-epsilon0) + np.abs(cb) * math.expm1(epsilon0)) / n
    err = np.where(small, 16 * UNIT_ROUNDOFF * (np.abs(loss) + 2 * mag),
                   16 * UNIT_ROUNDOFF * (1.0 + np.abs(loss)))
    return loss, err


def special_pair(*, n: int, epsilon0: float, k: int, tail: float = 1e-30) -> ViewPair:
    """The special pair on (a, b) (float backend), P = differing user holds x', Q = x.

    The grid is a window a in [a_lo, a_hi] (Bin(n, pi_a)) times b in [b_lo, b_hi]; the
    mass outside is certified by Chernoff bounds at the window edges, for each a, and
    summed; every likelihood ratio lies in [e^-eps0, e^eps0] (residual loss bound eps0).
    """
    n, epsilon0, k = _check(n, epsilon0, k)
    if n > SPECIAL_PAIR_LIMIT:
        raise ParameterError(f"n={n} is outside [2, {SPECIAL_PAIR_LIMIT}] for the k-RR "
                             "special pair (its 2-D grid grows like n); use blanket_pair")
    e = math.exp(epsilon0)
    den = e + k - 1
    pa, pb = e / den, 1.0 / den
    pb_given = pb / (1 - pa) if k > 2 else 1.0
    a_logs, a_tail, a_lo = _window(n, pa, tail / 2)
    a_vals = np.arange(a_lo, a_lo + a_logs.size)
    if k == 2:
        b_lo_all, b_hi_all = int(n - a_vals[-1]), int(n - a_vals[0])
    else:
        m_lo, m_hi = int(n - a_vals[-1]), int(n - a_vals[0])
        _, _, lo1 = _window(m_lo, pb_given, tail / 4)
        l2, _, lo2 = _window(m_hi, pb_given, tail / 4)
        b_lo_all, b_hi_all = min(lo1, lo2), lo2 + l2.size - 1
    b_vals = np.arange(b_lo_all, b_hi_all + 1)
    A, B = np.meshgrid(a_vals, b_vals, indexing="ij")
    m = n - A
    if k == 2:
        lq_b = np.where(B == m, 0.0, -np.inf)
        b_tail = np.zeros(a_vals.size)
    else:
        lq_b = np.full(A.shape, -np.inf)
        b_tail = np.empty(a_vals.size)
        for i, mi in enumerate(n - a_vals):
            lq_b[i] = binomial_logpmf(b_vals, int(mi), pb_given)
            b_tail[i] = _outside(int(mi), pb_given, int(b_lo_all), int(b_hi_all))
    lq = a_logs[:, None] + lq_b
    keep = np.isfinite(lq)
    loss, loss_err = special_loss(A[keep], B[keep], n=n, epsilon0=epsilon0, k=k)
    lq_f = lq[keep]
    lerr = log_pmf_error(lq_f) * 2
    resid = a_tail + float(np.sum(np.exp(a_logs) * b_tail)) * (1 + 1e-9)
    # P = Q L <= e^eps0 Q pointwise, so P's outside mass is at most e^eps0 times Q's
    return ViewPair(backend="float", p=lq_f + loss, q=lq_f, tail_p=resid * e * (1 + 1e-12),
                    tail_q=resid * (1 + 1e-12),
                    residual_loss_bound=epsilon0, loss=loss, log_error=lerr + loss_err,
                    loss_error=loss_err, grid_exact=True, coords=(A[keep], B[keep]),
                    description={"protocol": "k-rr", "pair": "special", "n": n,
                                 "epsilon0": epsilon0, "k": k})


def _window(m: int, prob: float, tail: float) -> tuple[np.ndarray, float, int]:
    from accountant.protocols.binary_rr import _fast_window

    return _fast_window(m, prob, tail)


def _outside(m: int, prob: float, lo: int, hi: int) -> float:
    """Certified Bin(m, prob) mass outside [lo, hi] (Chernoff at the edges)."""
    mean = m * prob
    out = 0.0
    if lo > 0 and lo - 1 < mean:
        out += _chernoff(m, prob, lo - 1)
    elif lo > 0:
        return 1.0
    if hi < m and hi + 1 > mean:
        out += _chernoff(m, prob, hi + 1)
    elif hi < m:
        return 1.0
    return min(out, 1.0)


def _chernoff(m: int, prob: float, x: int) -> float:
    f = float(bd0(np.array(float(x)), m * prob) + bd0(np.array(float(m - x)), m * (1 - prob)))
    return math.exp(-f * (1 - 1e-10) + 1e-12)


def blanket_pair(*, n: int, epsilon0: float, k: int) -> clone_pair.ClonePair:
    """The blanket pair of MATH 5.4: a certified upper bound over all neighbouring pairs
    (used here for Renyi values; `k_rr_blanket.blanket_count_pair` is tighter for DP)."""
    n, epsilon0, k = _check(n, epsilon0, k)
    return clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=k)


def _upper_pair(n: int, epsilon0: float, k: int) -> tuple[Any, Any]:
    """(module, pair) of the DP upper bound: the MATH 5.4 pair at k = 2 (it reveals nothing
    more there), the pair revealing only N (`k_rr_blanket`) for k >= 3."""
    if k == 2:
        return clone_pair, blanket_pair(n=n, epsilon0=epsilon0, k=k)
    return k_rr_blanket, k_rr_blanket.blanket_count_pair(n=n, epsilon0=epsilon0, k=k)


def epsilon_for_delta(*, n: int, epsilon0: float, k: int, delta: float) -> dict[str, Result]:
    """{"epsilon": blanket UPPER over all datasets, "epsilon_blanket_lower": that blanket
    pair's certified lower end, "epsilon_lower": special pair LOWER on the mechanism}.

    The blanket pair is `k_rr_blanket` for k >= 3 (MATH 5.4 at k = 2, the same pair). The
    special pair's values are omitted when n > SPECIAL_PAIR_LIMIT.
    """
    n, epsilon0, k = _check(n, epsilon0, k)
    DELTA.check(delta)
    module, pair = _upper_pair(n, epsilon0, k)
    out = dict(module.epsilon_for_delta(pair, delta=delta))
    out["epsilon_blanket_lower"] = out.pop("epsilon_lower")
    if n <= SPECIAL_PAIR_LIMIT:
        lo, hi = epsilon_bracket(special_pair(n=n, epsilon0=epsilon0, k=k,
                                              tail=min(1e-30, delta * 1e-12)), delta)
        m = f"{_METHOD}.epsilon_for_delta(special pair: lower bound on the mechanism)"
        out["epsilon_lower"] = lo.with_(method=m, source=_SOURCE)
        out["epsilon_special"] = hi.with_(method=m, source=_SOURCE)
    return out


def delta_for_epsilon(*, n: int, epsilon0: float, k: int, epsilon: float) -> dict[str, Result]:
    """{"delta": blanket UPPER (as epsilon_for_delta), "delta_blanket_lower",
    "delta_lower": special pair LOWER (n <= limit)}."""
    n, epsilon0, k = _check(n, epsilon0, k)
    EPSILON.check(epsilon)
    module, pair = _upper_pair(n, epsilon0, k)
    out = dict(module.delta_for_epsilon(pair, epsilon=epsilon))
    out["delta_blanket_lower"] = out.pop("delta_lower")
    if n <= SPECIAL_PAIR_LIMIT:
        lo, hi = delta_bracket(special_pair(n=n, epsilon0=epsilon0, k=k), epsilon)
        m = f"{_METHOD}.delta_for_epsilon(special pair: lower bound on the mechanism)"
        out["delta_lower"] = lo.with_(method=m, source=_SOURCE)
        out["delta_special"] = hi.with_(method=m, source=_SOURCE)
    return out


def renyi_divergence(*, n: int, epsilon0: float, k: int, alpha: float) -> dict[str, Result]:
    """{"renyi": blanket UPPER, "renyi_lower": special pair LOWER (n <= limit)}."""
    n, epsilon0, k = _check(n, epsilon0, k)
    ALPHA.check(alpha)
    if alpha == math.inf:
        r = max_divergence(n=n, epsilon0=epsilon0, k=k)
        return {"renyi": r, "renyi_lower": r}
    out = dict(clone_pair.renyi_divergence(blanket_pair(n=n, epsilon0=epsilon0, k=k),
                                           alpha=alpha))
    out["renyi_blanket_lower"] = out.pop("renyi_lower")
    if n <= SPECIAL_PAIR_LIMIT:
        up = _renyi(special_pair(n=n, epsilon0=epsilon0, k=k), alpha)
        low = max(float(up.value) - 2 * up.error_budget, 0.0)
        m = f"{_METHOD}.renyi_divergence(special pair: lower bound on the mechanism)"
        out["renyi_lower"] = Result(quantity="renyi", value=low, kind=Kind.LOWER,
                                    direction=Direction.MAX, method=m, source=_SOURCE,
                                    order=float(alpha), error_budget=up.error_budget)
        out["renyi_special"] = up.with_(method=m, source=_SOURCE)
    return out


def max_divergence(*, n: int, epsilon0: float, k: int) -> Result:
    """Pure-DP epsilon of shuffled k-RR: exactly epsilon0 (any n >= 2, k >= 2).

    Upper: every view is a post-processing of n independent reports, one of which changes,
    and k-RR is epsilon0-LDP. Attained: in the special pair, b = n (every report equals x')
    has L = e^eps0.
    """
    _check(n, epsilon0, k)
    return Result(quantity="max_divergence", value=float(epsilon0), kind=Kind.EXACT,
                  direction=Direction.MAX, order=math.inf, source=_SOURCE,
                  method=f"{_METHOD}.max_divergence (LDP bound, attained at b = n)")


# ---------------------------------------------------------------- CLI
def _add_arguments(p: argparse.ArgumentParser) -> None:
    from accountant.cli import positive_int

    p.add_argument("--n", type=positive_int, required=True, help="number of users (>= 2)")
    p.add_argument("--epsilon0", type=float, required=True, help="local epsilon0 > 0")
    p.add_argument("--k", type=positive_int, required=True, help="alphabet size (>= 2)")


def _params(args: argparse.Namespace) -> dict[str, Any]:
    return {"n": args.n, "epsilon0": args.epsilon0, "k": args.k}


def _dp(args: argparse.Namespace) -> dict[str, Any]:
    if args.at_delta is not None:
        res = epsilon_for_delta(n=args.n, epsilon0=args.epsilon0, k=args.k,
                                delta=args.at_delta)
        return {"params": _params(args) | {"delta": args.at_delta},
                **{key: r.to_json() for key, r in res.items()},
                "delta": {"value": args.at_delta, "kind": "exact"}}
    res = delta_for_epsilon(n=args.n, epsilon0=args.epsilon0, k=args.k,
                            epsilon=args.at_epsilon)
    return {"params": _params(args) | {"epsilon": args.at_epsilon},
            **{key: r.to_json() for key, r in res.items()},
            "epsilon": {"value": args.at_epsilon, "kind": "exact"}}


def _rdp(args: argparse.Namespace) -> dict[str, Any]:
    rows: dict[str, list[Any]] = {}
    for alpha in args.orders:
        res = renyi_divergence(n=args.n, epsilon0=args.epsilon0, k=args.k, alpha=alpha)
        for key, r in res.items():
            rows.setdefault(key, []).append(r.to_json() | {"order": alpha})
    return {"params": _params(args), **rows}


def _pure(args: argparse.Namespace) -> dict[str, Any]:
    r = max_divergence(n=args.n, epsilon0=args.epsilon0, k=args.k)
    return {"params": _params(args), "max_divergence": r.to_json()}


CLI_SPEC = ProtocolSpec(name="k-rr", summary="shuffled k-ary randomized response",
                        add_arguments=_add_arguments,
                        handlers={"dp": _dp, "rdp": _rdp, "pure": _pure})
