"""[GGKPV]'s shuffled multi-message Hadamard response: the certified accountant of the
full view (docs/ggkpv.md#certified-accountant-of-the-full-view).

Ghazi, Golowich, Kumar, Pagh, Velingker, "On the Power of Multiple Anonymous Messages",
EUROCRYPT 2021. Each of n users sends a signal tuple of tau indices i.i.d. uniform on
C_x (the +1 columns of Hadamard row x, K columns) and rho noise tuples uniform on
[K]^tau; everything is shuffled. Neighbours replace one user's value x by x' != x.

Reduction (docs/ggkpv.md#certified-accountant-of-the-full-view): giving the adversary
every other user's signal tuple is harmless to the bound (the real view is a function of
that richer view), and what remains, user 1's signal among M = n rho uniform noise
tuples, has the likelihood ratio A/A' with A, A' the numbers of tuples inside C_x^tau
and C_x'^tau. Because Hadamard rows overlap in exactly a quarter of the columns, a uniform
tuple's two memberships are independent Bernoulli(pi), pi = 2^-tau, so (A, A') is
sufficient and its law is exactly the product pair

    P = (1 + Bin(M, pi)) x Bin(M + 1, pi),    Q = Bin(M + 1, pi) x (1 + Bin(M, pi)),

with loss log(a / a'). With M = n rho it dominates every neighbouring pair (upper ends).
With M = n rho + n - 1 it is the law of the (A, A') counts of the real view when every
other user holds a value x'' with x XOR x' XOR x'' != 0 (possible when K >= 8), a
post-processing of one neighbouring pair's real view, so its values are lower ends on the
mechanism. Renyi divergences (alpha > 1) and the max-divergence are +inf: the event "no
tuple inside C_x'^tau" has positive probability under x and none under x' (when no
other user holds x').

The slides' count-level argument (docs/ggkpv.md#shuffled-multi-message-hadamard-response)
corresponds to the pair (1 + Bin(M, pi)) x Bin(M, pi) against its swap; it is computed
only as a comparison labelled "heuristic" and is never a bound of this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from accountant import divergence
from accountant.distributions import binomial_window
from accountant.domains import DELTA, EPSILON, N_USERS, Interval
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.pairs import binomial_shift_pair
from accountant.pmf import PMF
from accountant.result import Bracket, Kind, Result, Source
from accountant.view import ViewPair

__all__ = [
    "CITATION",
    "GGKPVParameters",
    "INFINITE_DIVERGENCE_REASON",
    "ggkpv_parameters",
    "slides_rho",
    "max_rho",
    "MAX_VIEW_POINTS",
    "check_view_size",
    "event_pair",
    "count_pair",
    "labelled_view",
    "background_view",
    "heuristic_view",
    "epsilon_bracket",
    "delta_bracket",
    "heuristic_epsilon",
    "renyi_bracket",
    "max_divergence_bracket",
]

CITATION = ("Ghazi, Golowich, Kumar, Pagh, Velingker, EUROCRYPT 2021 (talk slides); "
            "full-view analysis of this library")
_NAME = "protocols.ggkpv"
_DOC = "docs/ggkpv.md#certified-accountant-of-the-full-view"
INFINITE_DIVERGENCE_REASON = (
    "the event 'no tuple inside C_x'^tau' has positive probability when the user holds x "
    "and probability 0 when it holds x' (its own signal lies there), for any dataset in "
    f"which no other user holds x' ({_DOC})")
_B = Interval("B", 2, math.inf, closed="left", integer=True)
_RHO = Interval("rho", 1, math.inf, closed="left", integer=True)
_TAU = Interval("tau", 1, 52, closed="both", integer=True)
_RELATIVE_TAIL = 1e-14
_FLOOR_TAIL = 1e-300


def _source(locator: str = _DOC) -> Source:
    return Source(citation=CITATION, locator=locator)


@dataclass(frozen=True, slots=True, kw_only=True)
class GGKPVParameters:
    """One shuffled multi-message Hadamard response instance.

    Attributes:
        n: number of users.
        B: domain size (values 1..B), >= 2 so that neighbours exist.
        rho: noise tuples per user.
        tau: indices per tuple (default ceil(log2 n), at least 1).
        epsilon, delta: the target that set rho by the slides' rule, when it did (else None).
    """

    n: int
    B: int
    rho: int
    tau: int
    epsilon: float | None = None
    delta: float | None = None

    @property
    def K(self) -> int:
        """Padded domain: the least power of two >= B + 1."""
        return 1 << self.B.bit_length()

    @property
    def pi(self) -> float:
        """2^-tau: the probability that a uniform tuple lies inside C_x^tau (exact)."""
        return math.ldexp(1.0, -self.tau)

    @property
    def noise_tuples(self) -> int:
        """n rho: the background of the dominating pair."""
        return self.n * self.rho

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n, "B": self.B, "K": self.K, "tau": self.tau,
                               "rho": self.rho}
        if self.epsilon is not None:
            out["rho_rule"] = {"epsilon": self.epsilon, "delta": self.delta,
                               "rule": "ceil(log(1/delta)/epsilon^2) (slides, constant 1)"}
        return out


def slides_rho(epsilon: float, delta: float) -> float:
    """log(1/delta)/epsilon^2: the slides' noise level rho = Theta(log(1/delta)/eps^2)
    with constant 1 (the constant is left open by the slides).

    Args:
        epsilon: target epsilon > 0.
        delta: target delta in (0, 1).

    Returns:
        The real number log(1/delta)/epsilon^2 (+inf when it exceeds the float range).

    Raises:
        ParameterError: epsilon or delta outside its domain, or epsilon = 0.
    """
    EPSILON.check(epsilon)
    DELTA.check(delta)
    if epsilon == 0:
        raise ParameterError("epsilon=0 gives rho = inf; give epsilon > 0")
    # divide twice: epsilon ** 2 underflows to 0 below 1e-162 (ZeroDivisionError) and
    # overflows above 1e154 (OverflowError); the quotient goes to +inf or 0 instead, and
    # -log(delta) stays finite for subnormal delta, where 1/delta is +inf
    return -math.log(delta) / epsilon / epsilon


def ggkpv_parameters(*, n: int, B: int, rho: int | None = None, epsilon: float | None = None,
                     delta: float | None = None, tau: int | None = None) -> GGKPVParameters:
    """Validated parameters: rho given, or set from (epsilon, delta) by the slides' rule
    rho = ceil(log(1/delta)/epsilon^2).

    Args:
        n: number of users, >= 1.
        B: domain size, >= 2.
        rho: noise tuples per user, >= 1 (or None with epsilon and delta).
        epsilon, delta: target setting rho (instead of rho).
        tau: indices per tuple (default max(1, ceil(log2 n))), 1..52.

    Returns:
        The parameters.

    Raises:
        ParameterError: missing or conflicting arguments, or values outside their domains
            (rho, given or set by the rule, above `max_rho(n)`; epsilon, delta whose rule
            gives more, e.g. epsilon=1e-300).
    """
    N_USERS.check(n)
    _B.check(B)
    n, B = int(n), int(B)
    tau = max(1, (n - 1).bit_length()) if tau is None else tau
    _TAU.check(tau)
    top = max_rho(n)
    if rho is not None:
        if epsilon is not None or delta is not None:
            raise ParameterError("give either rho, or epsilon and delta (which set rho), "
                                 "not both")
        _RHO.check(rho)
        if rho > top:
            raise ParameterError(f"rho={rho!r} is outside [1, {top}] at n={n} (the views "
                                 f"count n*rho + n tuples exactly in float: at most 2^53)")
        return GGKPVParameters(n=n, B=B, rho=int(rho), tau=int(tau))
    if epsilon is None or delta is None:
        raise ParameterError("ggkpv needs rho, or both epsilon and delta (the slides' rule)")
    rule = slides_rho(epsilon, delta)
    if not rule <= top:  # +inf included
        raise ParameterError(
            f"epsilon={epsilon!r}, delta={delta!r} set rho = ceil(log(1/delta)/epsilon^2) = "
            f"{rule:.4g}, outside [1, {top}] at n={n} (the views count n*rho + n tuples "
            "exactly in float: at most 2^53); give a larger epsilon or delta, or rho")
    r = max(1, math.ceil(rule))
    return GGKPVParameters(n=n, B=B, rho=r, tau=int(tau), epsilon=float(epsilon),
                           delta=float(delta))


def max_rho(n: int) -> int:
    """The largest rho `ggkpv_parameters` accepts with n users: n rho + n <= 2^53.

    The views count the n rho noise tuples (and the n - 1 other signals) as binomial
    trials and use (M + 1) 2^-tau as an exact float, which needs M + 1 <= 2^53.

    Args:
        n: number of users, >= 1.

    Returns:
        floor(2^53 / n) - 1 (at least 1 for every n <= 2^52).
    """
    return (1 << 53) // int(n) - 1


# ------------------------------------------------------------------ the pairs
# The 2-D count pairs hold (grid side)^2 points in several float arrays: 2^23 points take
# about 10 s and 1 GB per pair on one core (n=100, rho=10^4: 4.3e6 points, 6 s for `dp`;
# rho=10^5: 4.3e7 points, 115 s and 5.4 GB). Larger grids are refused, not attempted.
MAX_VIEW_POINTS = 1 << 23


def _window(M: int, pi: float, tail: float | None) -> tuple[int, int, float, float]:
    """(lo, hi, cut of Bin(M + 1, pi), cut of Bin(M, pi)) of one coordinate's grid."""
    if tail is None:
        return 0, M + 1, 0.0, 0.0
    lo_q, hi_q, cut_q = binomial_window(M + 1, pi, tail)
    lo_p, hi_p, cut_p = binomial_window(M, pi, tail)
    return min(lo_q, lo_p + 1), max(hi_q, hi_p + 1), cut_q, cut_p


def _grid_points(M: int, pi: float, tail: float | None) -> int:
    lo, hi, _, _ = _window(M, pi, tail)
    return (hi - lo + 1) ** 2


def check_view_size(params: GGKPVParameters, tail: float | None = 1e-30) -> None:
    """Refuse parameters whose count pairs would exceed MAX_VIEW_POINTS grid points.

    The largest pair is the real-view counts' (M = n rho + n - 1 background tuples); its
    grid side grows like sqrt(M 2^-tau log(1/tail)).

    Args:
        params: the protocol's parameters.
        tail: the certified mass cut from each binomial (None: the whole support).

    Raises:
        ParameterError: the grid would exceed MAX_VIEW_POINTS; the message names rho, the
            grid size and the largest rho within the limit at this n, tau and tail.
    """
    M = params.noise_tuples + params.n - 1
    points = _grid_points(M, params.pi, tail)
    if points <= MAX_VIEW_POINTS:
        return
    lo, hi = 0, params.rho  # the largest rho within the limit lies in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _grid_points(params.n * mid + params.n - 1, params.pi, tail) <= MAX_VIEW_POINTS:
            lo = mid
        else:
            hi = mid
    within = f"rho <= {lo}" if lo >= 1 else "no rho"
    raise ParameterError(
        f"rho={params.rho} is too large for the certified views at n={params.n}, "
        f"tau={params.tau}, tail={tail!r}: the count pair's grid would have {points:.3g} "
        f"points, above the limit 2^23 (about 10 s and 1 GB per pair); {within} fits "
        f"({_NAME}.views.MAX_VIEW_POINTS; a larger tau also shrinks the grid)")


def _one_coordinate(M: int, pi: float, tail: float | None) -> ViewPair:
    """(1 + Bin(M, pi), Bin(M + 1, pi)) on one grid, loss log(a / ((M + 1) pi)) in closed
    form (Bin(M, pi)(a - 1) = Bin(M + 1, pi)(a) a / ((M + 1) pi))."""
    lo, hi, cut_q, cut_p = _window(M, pi, tail)
    if (hi - lo + 1) ** 2 > MAX_VIEW_POINTS:
        raise ParameterError(
            f"M={M} background tuples at pi={pi!r}, tail={tail!r} give a count pair of "
            f"{(hi - lo + 1) ** 2:.3g} grid points, above the limit 2^23 ({_NAME}.views."
            "MAX_VIEW_POINTS: about 10 s and 1 GB per pair); give a smaller M or larger tail")
    a = np.arange(lo, hi + 1)
    lp = binomial_logpmf(a - 1, M, pi)
    lq = binomial_logpmf(a, M + 1, pi)
    err = np.maximum(log_pmf_error(lp), log_pmf_error(lq))
    P = PMF("float", (lo,), lp, cut_p, err, True)
    Q = PMF("float", (lo,), lq, cut_q, err, True)
    mean = (M + 1) * pi  # exact: pi is a power of two, M + 1 < 2^53

    def loss(coords: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        k = coords[0].astype(float)
        with np.errstate(divide="ignore"):
            v = np.log(k / mean)  # one division and one log: <= 2 ulps relative
        v = np.where(k <= 0, -np.inf, v)
        e = 4 * UNIT_ROUNDOFF * (1.0 + np.abs(np.where(np.isfinite(v), v, 0.0)))
        return v, np.where(np.isfinite(v), e, 0.0)

    # Residual (outside the grid): points a >= 1 have |loss| <= max(|log mean|, log(1/pi));
    # the point a = 0 (P = 0 < Q) has infinite loss, so a bound exists only if 0 is inside.
    bound = (max(abs(math.log(mean)), -math.log(pi)) * (1 + 1e-12) + 1e-12 if lo == 0
             else math.inf)
    return ViewPair.from_pmfs(P, Q, loss=loss, residual_loss_bound=bound)


def count_pair(M: int, tau: int, *, tail: float | None = 1e-30,
               description: dict[str, Any] | None = None) -> ViewPair:
    """The pair P = (1 + Bin(M, pi)) x Bin(M + 1, pi), Q = its coordinate swap, pi = 2^-tau
    (docs/ggkpv.md#certified-accountant-of-the-full-view), float backend.

    Args:
        M: number of background tuples (uniform on [K]^tau, or equivalent), >= 0.
        tau: indices per tuple.
        tail: certified mass cut from each binomial (None: the whole support, O(M^2)).
        description: recorded on the pair.

    Returns:
        The 2-D ViewPair on (A, A'), loss log(A/A') in closed form.

    Raises:
        ParameterError: M not an integer >= 0, tau outside 1..52, or a grid of more than
            MAX_VIEW_POINTS points.
    """
    if int(M) != M or M < 0:
        raise ParameterError(f"M={M!r} is not an integer >= 0")
    _TAU.check(tau)
    one = _one_coordinate(int(M), math.ldexp(1.0, -int(tau)), tail)
    view = one.product(one.swapped())
    object.__setattr__(view, "description", dict(description or {}) | {"M": int(M),
                                                                         "tau": int(tau)})
    return view


def labelled_view(params: GGKPVParameters, *, tail: float | None = 1e-30) -> ViewPair:
    """The dominating pair: M = n rho noise tuples, every other signal tuple revealed.

    Args:
        params: the protocol's parameters.
        tail: certified mass cut from each binomial (None: the whole support).

    Returns:
        `count_pair(n rho, tau)`, described.

    Raises:
        ParameterError: the grid would exceed MAX_VIEW_POINTS (`check_view_size`).
    """
    check_view_size(params, tail)
    return count_pair(params.noise_tuples, params.tau, tail=tail, description={
        "protocol": "ggkpv-hadamard", "pair": "labelled signals (dominating)",
        **params.to_json()})


def background_view(params: GGKPVParameters, *, tail: float | None = 1e-30) -> ViewPair | None:
    """The (A, A') counts of one neighbouring pair's real view (lower ends), or None.

    Users 2..n hold x'' with x XOR x' XOR x'' != 0 (x = 1, x' = 2, x'' = 4 needs K >= 8),
    so each of their signal tuples is, for the two memberships, like a uniform tuple:
    M = n rho + n - 1. Returns None when K < 8 (B <= 3).

    Args:
        params: the protocol's parameters.
        tail: certified mass cut from each binomial (None: the whole support).

    Returns:
        `count_pair(n rho + n - 1, tau)`, described, or None when K < 8.

    Raises:
        ParameterError: the grid would exceed MAX_VIEW_POINTS (`check_view_size`).
    """
    if params.K < 8:
        return None
    check_view_size(params, tail)
    return count_pair(params.noise_tuples + params.n - 1, params.tau, tail=tail,
                      description={"protocol": "ggkpv-hadamard",
                                   "pair": "real-view counts, others hold x''",
                                   **params.to_json()})


def heuristic_view(params: GGKPVParameters, *, tail: float | None = 1e-30) -> ViewPair:
    """The slides' count-level pair (1 + Bin(n rho, pi)) x Bin(n rho, pi) against its swap:
    a heuristic, not a bound (docs/ggkpv.md#the-slides-count-level-heuristic).

    Args:
        params: the protocol's parameters.
        tail: certified mass cut from each binomial (None: the whole support).

    Returns:
        The 2-D heuristic pair.

    Raises:
        ParameterError: the grid would exceed MAX_VIEW_POINTS (`check_view_size`).
    """
    check_view_size(params, tail)
    one = binomial_shift_pair(params.noise_tuples, params.pi, tail=tail)  # Bin vs 1 + Bin
    return one.swapped().product(one)


# ------------------------------------------------------------------ privacy numbers
def _tail_for(delta: Any) -> float:
    return max(min(1e-30, float(delta) * _RELATIVE_TAIL), _FLOOR_TAIL)


def _named(r: Result, what: str, kind: Kind | None = None, note: str = "") -> Result:
    return r.with_(kind=kind or r.kind, method=f"{_NAME}.{what} <- {r.method}{note}",
                   source=_source())


def epsilon_bracket(params: GGKPVParameters, delta: float) -> Bracket:
    """epsilon(delta) of the mechanism: upper end from the dominating (labelled-signals)
    pair, lower end from the real-view counts of one neighbouring pair (K >= 8).

    Args:
        params: the protocol's parameters.
        delta: in (0, 1).

    Returns:
        Bracket(lower, upper, pair_lower = the dominating pair's own lower end).
    """
    DELTA.check(delta)
    t = _tail_for(delta)
    p_lo, p_up = divergence.epsilon_bracket(labelled_view(params, tail=t), delta)
    bg = background_view(params, tail=t)
    lower = None
    if bg is not None:
        lower = _named(divergence.epsilon_bracket(bg, delta)[0],
                       "epsilon_bracket[real-view counts]")
    return Bracket(lower=lower, upper=_named(p_up, "epsilon_bracket[labelled signals]"),
                   pair_lower=_named(p_lo, "epsilon_bracket[labelled signals]"),
                   pair_name="labelled")


def delta_bracket(params: GGKPVParameters, epsilon: float) -> Bracket:
    """delta(epsilon) of the mechanism (as `epsilon_bracket`); the tail is refined once so
    that it is at most 1e-12 of the answer."""
    EPSILON.check(epsilon)

    def pair(t: float) -> tuple[Result, Result]:
        return divergence.delta_bracket(labelled_view(params, tail=t), epsilon)

    t = 1e-30
    p_lo, p_up = pair(t)
    if 0 < float(p_up) < 1e12 * t:
        t = max(float(p_up) * 1e-12, _FLOOR_TAIL)
        p_lo, p_up = pair(t)
    bg = background_view(params, tail=t)
    lower = None
    if bg is not None:
        lower = _named(divergence.delta_bracket(bg, epsilon)[0], "delta_bracket[real-view counts]")
    return Bracket(lower=lower, upper=_named(p_up, "delta_bracket[labelled signals]"),
                   pair_lower=_named(p_lo, "delta_bracket[labelled signals]"),
                   pair_name="labelled")


def heuristic_epsilon(params: GGKPVParameters, delta: float) -> Result:
    """epsilon(delta) of the slides' count-level pair: a comparison, NOT a bound on the
    mechanism (its method says "heuristic"; docs/ggkpv.md#the-slides-count-level-heuristic).

    Args:
        params: the protocol's parameters.
        delta: in (0, 1).

    Returns:
        The certified upper end of the heuristic pair's own epsilon(delta).
    """
    DELTA.check(delta)
    r = divergence.epsilon_bracket(heuristic_view(params, tail=_tail_for(delta)), delta)[1]
    return _named(r, "heuristic_epsilon", note=(
        " [heuristic: the slides' count-level pair (1+Bin(n rho, pi)) x Bin(n rho, pi), "
        "not a bound on the mechanism]"))


def event_pair(params: GGKPVParameters) -> ViewPair:
    """The events "A' = 0" and "A = 0" of the dominating pair, as a 3-point pair.

    f(A, A') = 0 if A' = 0, 1 if A = 0 (and A' > 0), 2 otherwise, is a post-processing
    of the labelled-signals pair. Under P = (1 + Bin(M, pi)) x Bin(M + 1, pi), A >= 1, so
    f = 0, 1, 2 with probabilities c, 0, 1 - c, c = (1 - pi)^(M + 1) > 0; under Q (the
    swap) with 0, c, 1 - c. The zeros are exact (not underflow), so the divergence
    functions give +inf EXACT in both directions for every M, however far c lies below
    the float range (it is kept as log c = (M + 1) log1p(-pi)), where the binomial
    windows of `count_pair` would cut the point A' = 0 away.

    Args:
        params: the protocol's parameters.

    Returns:
        The 1-D float ViewPair on {0, 1, 2}.
    """
    log_c = (params.noise_tuples + 1) * math.log1p(-params.pi)
    log_rest = math.log(-math.expm1(log_c))  # 1 - c > 0: pi > 0 and M + 1 >= 1
    err = 8 * UNIT_ROUNDOFF * (1.0 + abs(log_c))  # two roundings, relative to |log c|
    P = PMF("float", (0,), np.array([log_c, -np.inf, log_rest]), 0.0, err, True)
    Q = PMF("float", (0,), np.array([-np.inf, log_c, log_rest]), 0.0, err, True)
    return ViewPair.from_pmfs(P, Q, description={
        "protocol": "ggkpv-hadamard", "pair": "events A' = 0, A = 0 of the labelled pair",
        **params.to_json()})


def _infinite(r: Result, what: str) -> Bracket:
    if r.kind is not Kind.EXACT or math.isfinite(float(r)):
        # the event pair's zeros are exact, so this is a bug of the divergence functions
        raise PrecisionError(f"{_NAME}.{what}: expected an exact +inf from {r.method} on "
                             f"the event pair, got {r.kind} {float(r)!r}")
    out = _named(r, what, note=f" [{INFINITE_DIVERGENCE_REASON}]")
    return Bracket(lower=out, upper=out)


def renyi_bracket(params: GGKPVParameters, alpha: float) -> Bracket:
    """The Renyi divergence of order alpha > 1: +inf, exactly (INFINITE_DIVERGENCE_REASON).

    The library's divergence functions give +inf (support mismatch) on `event_pair`, a
    post-processing of the dominating pair, so the pair's own value is +inf too (data
    processing); that the mechanism's own value is +inf as well is the event argument of
    docs/ggkpv.md#certified-accountant-of-the-full-view. Cheap for every rho.

    Args:
        params: the protocol's parameters.
        alpha: Renyi order, in (1, inf].

    Returns:
        Bracket(lower = upper = +inf, EXACT).

    Raises:
        ParameterError: alpha outside (1, inf].
    """
    return _infinite(divergence.renyi_divergence(event_pair(params), alpha),
                     f"renyi_bracket(order={alpha})")


def max_divergence_bracket(params: GGKPVParameters) -> Bracket:
    """The max-divergence: +inf, exactly (see `renyi_bracket`).

    Args:
        params: the protocol's parameters.

    Returns:
        Bracket(lower = upper = +inf, EXACT).
    """
    return _infinite(divergence.max_divergence(event_pair(params)), "max_divergence_bracket")
