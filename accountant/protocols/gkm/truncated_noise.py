"""GKM counting with truncated noise and a "symmetrized" input part (Sec. 5 and its footnote 2
of Ghazi-Kumar-Manurangsi; docs/gkm.md#truncated-noise).

Section 5 asks whether replacing D_noise/n = NB(1/n, 1 - e^-eps') by a truncated negative
binomial, "with a 'symmetrized' the input dependent part", violates pure-DP, and says it is
not known. Footnote 2: "w.p. q we output s copies of both +1 and -1 messages, for both
x_i = 0 and x_i = 1 cases. Without this change, the supports of the two cases are not the
same". This module builds the exact shuffled view (V+, V-) of such variants for small n, in
float64 with a certified relative error per point, and its max-divergence and delta(epsilon)
over every neighbouring pair (the view depends only on the number of ones, so
`ones = 0..n-1` other ones cover every pair; both orders).

One user with input x sends y+ + z+ + f copies of +1 and y- + z- + f copies of -1, where

- z+, z- i.i.d. ~ NB(1/n, 1 - e^-eps') conditioned on <= `truncation` (`noise_pmf`);
- f ~ `flood` (any finite pmf: `bernoulli_flood_pmf`, `truncated_poisson_pmf`);
- (y+, y-) ~ the input part of the reading (`input_law`):
  - "footnote" (footnote 2 as written): (s + x, s) w.p. 1 - q, (s, s) w.p. q;
  - "randomized" (the change that does equalize the supports: x = 0 also sends the extra +1
    w.p. q): x = 1 as above, x = 0: (s, s) w.p. 1 - q, (s + 1, s) w.p. q;
  - "original" (Condition 7's input part, for comparison): (s + x, s) w.p. 1 - q, (0, 0) w.p. q.

Exact values for every n >= 1, truncation >= 0, s >= 1, flood and eps' (`closed_form`), proved
in docs/gkm.md#truncated-noise: with bounded noise the difference V+ - V- (a post-processing
of the view; the flood cancels in it) is largest only when every user's input part and noise
are at their largest, so P_X(D = max) / P_X'(D = max) = P(top | x1 = 1) / P(top | x1 = 0) for
the input part's outcome `top` of largest y+ - y-, and likewise at the smallest D. Hence

- "footnote": d_inf(X || X') = +inf (x1 = 0 never sends the extra +1: D = ones + 1 + n T is
  impossible for X'), and d_inf(X' || X) = log(1/q) (the smallest D: q versus 1; and
  P_X >= q P_X' pointwise);
- "randomized": both orders equal |log((1 - q)/q)| (the corners give >=, the post-processing
  of user 1's input part gives <=).

Neither depends on n or the truncation: bounded noise cannot hide the input part at the
corners of the view, so such a protocol is eps-DP only if its input part is, and with q = O(1/n)
(Theorem 6) that is eps >= log(1/q) - log 2 ~ log n. The computed views confirm these values
(the tests also check the view against a brute-force enumeration in exact rationals).

Float error: every array is built by shifts and sums of nonnegative terms, so each entry
carries a relative error bound (`View.rel_error`), propagated through every step; the
supports are computed separately in booleans (exact), so a +inf is never a rounding artefact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from accountant.domains import COUNT, EPSILON, N_USERS, PROBABILITY
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.protocols.gkm.protocol import Q_DROP, S_COPIES, check_epsilon_prime
from accountant.result import Bracket, Direction, Kind, Result, Source

__all__ = ["READINGS", "SOURCE", "GridSummary", "View", "bernoulli_flood_pmf", "closed_form",
           "delta_for_epsilon", "input_law", "instance_grid", "max_divergence", "noise_pmf",
           "support_mismatch_mass", "truncated_poisson_pmf", "user_view", "view_pair",
           "worst_case"]

SOURCE = Source(citation="Ghazi, Kumar, Manurangsi, Pure-DP Aggregation in the Shuffle Model",
                locator="Sec. 5 and footnote 2 (truncated negative-binomial noise, "
                        "symmetrized input part)")
READINGS = ("footnote", "randomized", "original")
_U = UNIT_ROUNDOFF
# largest view side (entries per axis) built; about n (s + 1 + truncation + flood top)
MAX_SIDE = 2000


@dataclass(frozen=True, slots=True)
class View:
    """A finite 2-D law of (V+, V-), entry [a, b] = P(V+ = a, V- = b).

    Attributes:
        pmf: the float probabilities (>= 0).
        support: where the exact law is positive (computed in booleans).
        rel_error: every entry of pmf is within a factor (1 +- rel_error) of the exact value.
    """

    pmf: np.ndarray
    support: np.ndarray
    rel_error: float


def _rel(err_a: float, err_b: float, terms: int) -> float:
    """Relative error of a sum of `terms` nonnegative products of values with relative errors
    err_a and err_b (one rounding per product and per addition)."""
    return (1 + err_a) * (1 + err_b) * (1 + _U) ** (terms + 2) - 1


def _check_pmf(pmf: np.ndarray, name: str) -> np.ndarray:
    p = np.asarray(pmf, dtype=float)
    if p.ndim != 1 or p.size == 0 or np.any(~(p >= 0)) or abs(math.fsum(p) - 1) > 1e-9:
        raise ParameterError(f"{name} must be a 1-D pmf (nonnegative, summing to 1)")
    return p


def noise_pmf(*, n: int, epsilon_prime: float, truncation: int) -> tuple[np.ndarray, float]:
    """NB(1/n, 1 - e^-eps') conditioned on <= truncation: w_k proportional to
    C(k + 1/n - 1, k) e^(-eps' k), k = 0..truncation.

    Args:
        n: number of users (the shape is 1/n).
        epsilon_prime: the noise parameter, > 0.
        truncation: the largest count, >= 0.

    Returns:
        (pmf, relative error bound of every entry).
    """
    N_USERS.check(n)
    check_epsilon_prime(epsilon_prime)
    COUNT.named("truncation").check(truncation)
    k = np.arange(truncation + 1, dtype=float)
    # log C(k + r - 1, k) = sum_{i<k} log((r + i)/(i + 1)), r = 1/n
    steps = np.log((1.0 / n + k[:-1]) / (k[:-1] + 1.0))
    logw = np.concatenate([[0.0], np.cumsum(steps)]) - epsilon_prime * k
    w = np.exp(logw - logw.max())
    pmf = w / math.fsum(w)
    # log terms: each step a division, a log and an add (a few ulps of its size), the exponent
    # a multiply; exp adds one ulp; the normalisation (truncation + 1) adds and one division
    size = float(np.sum(np.abs(steps))) + epsilon_prime * truncation + abs(float(logw.max()))
    err_log = 8 * _U * (size + truncation + 2)
    err = math.expm1(2 * err_log) + (truncation + 4) * _U * 2
    return pmf, err


def bernoulli_flood_pmf(b: float) -> np.ndarray:
    """[1 - b, b]: each user's flood count is Bernoulli(b) (the bounded flood of Sec. 5).

    Args:
        b: the flood probability, in [0, 1].

    Returns:
        The pmf.

    Raises:
        ParameterError: b outside [0, 1].
    """
    PROBABILITY.named("flood").check(b)
    return np.array([1.0 - b, b])


def truncated_poisson_pmf(*, mean: float, truncation: int) -> np.ndarray:
    """Poisson(mean) conditioned on <= truncation (for D_flood/n = Poi(lam/n), mean = lam/n).

    Args:
        mean: the Poisson mean, > 0.
        truncation: the largest count, >= 0.

    Returns:
        The pmf, length truncation + 1.

    Raises:
        ParameterError: an argument outside its domain.
    """
    if not mean > 0 or not math.isfinite(mean):
        raise ParameterError(f"mean={mean} must be a positive number")
    COUNT.named("truncation").check(truncation)
    k = np.arange(truncation + 1)
    logw = k * math.log(mean) - np.array([math.lgamma(i + 1) for i in k])
    w = np.exp(logw - logw.max())
    return w / math.fsum(w)


def input_law(x: int, *, q: float, s: int, reading: str) -> list[tuple[int, int, float]]:
    """The input part's outcomes (y+, y-, probability) for input x in the given reading.

    Args:
        x: the input, 0 or 1.
        q: the input part's probability q.
        s: copies of +1 and -1.
        reading: one of READINGS.

    Returns:
        The outcomes with their probabilities.

    Raises:
        ParameterError: x or reading invalid.
    """
    if x not in (0, 1):
        raise ParameterError(f"x={x} must be 0 or 1")
    if reading == "footnote":
        return [(s + x, s, 1.0 - q), (s, s, q)]
    if reading == "randomized":
        return [(s + 1, s, 1.0 - q), (s, s, q)] if x == 1 else [(s, s, 1.0 - q), (s + 1, s, q)]
    if reading == "original":
        return [(s + x, s, 1.0 - q), (0, 0, q)]
    raise ParameterError(f"reading={reading!r}; valid: {', '.join(READINGS)}")


def _shift_add(terms: list[tuple[int, int, float]], pmf: np.ndarray, support: np.ndarray,
               shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """sum_t w_t * pmf shifted by (da_t, db_t), and the union of the shifted supports."""
    out = np.zeros(shape)
    sup = np.zeros(shape, dtype=bool)
    A, B = pmf.shape
    for da, db, w in terms:
        if w > 0:
            out[da:da + A, db:db + B] += w * pmf
            sup[da:da + A, db:db + B] |= support
    return out, sup


def _add_user(view: View, x: int, *, q: float, s: int, reading: str, noise: np.ndarray,
              noise_err: float, flood: np.ndarray) -> View:
    """The view of the users so far plus one user with input x (exact shifts, certified sums)."""
    T, F = noise.size - 1, flood.size - 1
    law = input_law(x, q=q, s=s, reading=reading)
    top = max(a for a, _, _ in law)
    A, B = view.pmf.shape
    shape = (A + top + T + F, B + s + T + F)
    # input part: at most 2 shifts
    pmf, sup = _shift_add([(a, b, w) for a, b, w in law], view.pmf, view.support,
                          (A + top, B + s))
    err = _rel(view.rel_error, 0.0, len(law))
    # noise on +1, then on -1 (separable), then the flood on both
    pmf, sup = _shift_add([(k, 0, float(w)) for k, w in enumerate(noise)], pmf, sup,
                          (A + top + T, B + s))
    err = _rel(err, noise_err, T + 1)
    pmf, sup = _shift_add([(0, k, float(w)) for k, w in enumerate(noise)], pmf, sup,
                          (A + top + T, B + s + T))
    err = _rel(err, noise_err, T + 1)
    pmf, sup = _shift_add([(f, f, float(w)) for f, w in enumerate(flood)], pmf, sup, shape)
    err = _rel(err, _U, F + 1)  # the flood pmf as given: one rounding
    return View(pmf=pmf, support=sup, rel_error=err)


def _check_q(q: float) -> None:
    Q_DROP.check(q)
    if not 0 < q < 1:
        raise ParameterError(f"q={q} is outside (0, 1)")


def _check(n: int, epsilon_prime: float, q: float, s: int, truncation: int,
           flood: np.ndarray, reading: str) -> np.ndarray:
    N_USERS.check(n)
    check_epsilon_prime(epsilon_prime)
    _check_q(q)
    S_COPIES.check(s)
    COUNT.named("truncation").check(truncation)
    if reading not in READINGS:
        raise ParameterError(f"reading={reading!r}; valid: {', '.join(READINGS)}")
    fl = _check_pmf(flood, "flood")
    side = n * (s + 2 + truncation + fl.size)
    if side > MAX_SIDE:
        raise ParameterError(f"the view would have {side} > {MAX_SIDE} entries per axis; "
                             "take a smaller n, s, truncation or flood")
    return fl


def user_view(*, ones: int, zeros: int, epsilon_prime: float, q: float, s: int,
              truncation: int, flood: np.ndarray, reading: str, n: int) -> View:
    """The view of `ones` users with x = 1 and `zeros` with x = 0 (noise shape 1/n).

    Args:
        ones: number of users with x = 1.
        zeros: number of users with x = 0.
        epsilon_prime: the noise parameter, > 0.
        q: the input part's probability q, in (0, 1).
        s: copies, >= 1.
        truncation: the noise's largest count per user and sign, >= 0.
        flood: each user's flood pmf (index = count).
        reading: one of READINGS.
        n: the protocol's number of users (noise NB(1/n, .)), usually ones + zeros.

    Returns:
        The View.
    """
    fl = _check(n, epsilon_prime, q, s, truncation, flood, reading)
    noise, noise_err = noise_pmf(n=n, epsilon_prime=epsilon_prime, truncation=truncation)
    v = View(pmf=np.ones((1, 1)), support=np.ones((1, 1), dtype=bool), rel_error=0.0)
    for x in [1] * ones + [0] * zeros:
        v = _add_user(v, x, q=q, s=s, reading=reading, noise=noise, noise_err=noise_err,
                      flood=fl)
    return v


def _pad(a: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    out = np.zeros(shape, dtype=a.dtype)
    out[:a.shape[0], :a.shape[1]] = a
    return out


def view_pair(*, n: int, ones: int, epsilon_prime: float, q: float, s: int, truncation: int,
              flood: np.ndarray, reading: str) -> tuple[View, View]:
    """(view of X, view of X'): x1 = 1 in X, x1 = 0 in X', `ones` ones among the other n - 1
    users; both on one common grid.

    Args:
        n: number of users, >= 1 (the noise is NB(1/n, .) per user).
        ones: ones among the other n - 1 users, 0..n-1.
        epsilon_prime: the noise parameter, > 0.
        q: the input part's probability q, in (0, 1).
        s: copies of +1 and -1, >= 1.
        truncation: the noise's largest count per user and sign, >= 0.
        flood: each user's flood pmf (index = count).
        reading: one of READINGS.

    Returns:
        (View of X, View of X').

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: a positive entry underflowed (the certified ratios would be lost).
    """
    COUNT.named("ones").check(ones)
    if ones > n - 1:
        raise ParameterError(f"ones={ones} is outside [0, n-1] = [0, {n - 1}]")
    kw: dict[str, Any] = {"epsilon_prime": epsilon_prime, "q": q, "s": s, "truncation": truncation,
          "flood": flood, "reading": reading, "n": n}
    vp = user_view(ones=ones + 1, zeros=n - 1 - ones, **kw)
    vq = user_view(ones=ones, zeros=n - ones, **kw)
    shape = (max(vp.pmf.shape[0], vq.pmf.shape[0]), max(vp.pmf.shape[1], vq.pmf.shape[1]))
    out = []
    for v in (vp, vq):
        pmf, sup = _pad(v.pmf, shape), _pad(v.support, shape)
        if np.any(sup & ~(pmf > 1e-290)):
            raise PrecisionError("a positive entry of the view underflowed in float64")
        out.append(View(pmf=pmf, support=sup, rel_error=v.rel_error))
    return out[0], out[1]


def _method(reading: str) -> str:
    return f"protocols.gkm.truncated_noise (exact view, reading {reading!r}, float certified)"


def max_divergence(*, n: int, ones: int, epsilon_prime: float, q: float, s: int,
                   truncation: int, flood: np.ndarray,
                   reading: str) -> tuple[Bracket, Bracket]:
    """(X || X', X' || X) max-divergences of `view_pair`.

    Args:
        n: number of users, >= 1 (the noise is NB(1/n, .) per user).
        ones: ones among the other n - 1 users, 0..n-1.
        epsilon_prime: the noise parameter, > 0.
        q: the input part's probability q, in (0, 1).
        s: copies of +1 and -1, >= 1.
        truncation: the noise's largest count per user and sign, >= 0.
        flood: each user's flood pmf (index = count).
        reading: one of READINGS.

    Returns:
        Two Brackets on "max_divergence" (order inf): both ends EXACT +inf where one view has
        a point the other lacks (exact boolean supports), else LOWER and UPPER ends within
        the certified float error of the computed maximum log-ratio.

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: a positive entry of a view underflowed.
    """
    vp, vq = view_pair(n=n, ones=ones, epsilon_prime=epsilon_prime, q=q, s=s,
                       truncation=truncation, flood=flood, reading=reading)
    out = []
    for a, b, direction in ((vp, vq, Direction.P_Q), (vq, vp, Direction.Q_P)):
        m = _method(reading)
        if np.any(a.support & ~b.support):
            r = Result(quantity="max_divergence", value=math.inf, kind=Kind.EXACT,
                       direction=direction, method=m + " [support mismatch]", source=SOURCE,
                       order=math.inf)
            out.append(Bracket(lower=r, upper=r))
            continue
        both = a.support
        value = float(np.max(np.log(a.pmf[both]) - np.log(b.pmf[both])))
        margin = math.log1p(a.rel_error) - math.log1p(-b.rel_error) + 4 * _U * (abs(value) + 1)
        ends = [Result(quantity="max_divergence", value=v, kind=kind, direction=direction,
                       method=m, source=SOURCE, order=math.inf, error_budget=2 * margin)
                for v, kind in ((max(value - margin, 0.0), Kind.LOWER),
                                (value + margin, Kind.UPPER))]
        out.append(Bracket(lower=ends[0], upper=ends[1]))
    return out[0], out[1]


def delta_for_epsilon(*, n: int, ones: int, epsilon: float, epsilon_prime: float, q: float,
                      s: int, truncation: int, flood: np.ndarray,
                      reading: str) -> tuple[Bracket, Bracket]:
    """(X || X', X' || X) hockey-stick divergences sum max(P - e^eps Q, 0) of `view_pair`.

    Args:
        epsilon: epsilon >= 0.
        n: number of users, >= 1 (the noise is NB(1/n, .) per user).
        ones: ones among the other n - 1 users, 0..n-1.
        epsilon_prime: the noise parameter, > 0.
        q: the input part's probability q, in (0, 1).
        s: copies of +1 and -1, >= 1.
        truncation: the noise's largest count per user and sign, >= 0.
        flood: each user's flood pmf (index = count).
        reading: one of READINGS.

    Returns:
        Two Brackets on "delta" at=epsilon: LOWER and UPPER ends from the entries' certified
        relative errors (the sums are of nonnegative terms, rounded outward).

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: a positive entry of a view underflowed.
    """
    EPSILON.check(epsilon)
    vp, vq = view_pair(n=n, ones=ones, epsilon_prime=epsilon_prime, q=q, s=s,
                       truncation=truncation, flood=flood, reading=reading)
    e = math.exp(epsilon)
    out = []
    for a, b, direction in ((vp, vq, Direction.P_Q), (vq, vp, Direction.Q_P)):
        hi = np.maximum(a.pmf * (1 + a.rel_error) - e * b.pmf * (1 - b.rel_error), 0.0)
        lo = np.maximum(a.pmf * (1 - a.rel_error) - e * b.pmf * (1 + b.rel_error), 0.0)
        grow = (1 + _U) ** (4 + a.pmf.size // 2 ** 20)  # fsum is exact; the terms' roundings
        up = min(math.fsum(hi.ravel()) * grow, 1.0)
        low = math.fsum(lo.ravel()) / grow
        ends = [Result(quantity="delta", value=v, kind=kind, direction=direction,
                       method=_method(reading), source=SOURCE, at=float(epsilon),
                       error_budget=up - low)
                for v, kind in ((low, Kind.LOWER), (up, Kind.UPPER))]
        out.append(Bracket(lower=ends[0], upper=ends[1]))
    return out[0], out[1]


def worst_case(*, n: int, epsilon_prime: float, q: float, s: int, truncation: int,
               flood: np.ndarray, reading: str) -> tuple[float, float]:
    """The worst case of `max_divergence` over ones = 0..n-1 and both orders.

    Args:
        n: number of users, >= 1 (the noise is NB(1/n, .) per user).
        epsilon_prime: the noise parameter, > 0.
        q: the input part's probability q, in (0, 1).
        s: copies of +1 and -1, >= 1.
        truncation: the noise's largest count per user and sign, >= 0.
        flood: each user's flood pmf (index = count).
        reading: one of READINGS.

    Returns:
        (largest lower end, largest upper end); math.inf when a support differs.

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: a positive entry of a view underflowed.
    """
    lows, ups = [], []
    for k in range(n):
        for br in max_divergence(n=n, ones=k, epsilon_prime=epsilon_prime, q=q, s=s,
                                 truncation=truncation, flood=flood, reading=reading):
            lows.append(float(br.require_lower().value))
            ups.append(float(br.require_upper().value))
    return max(lows), max(ups)


def closed_form(*, q: float, reading: str) -> tuple[float, float | None]:
    """The exact (X || X', X' || X) max-divergence for every n, truncation, s, flood and eps'
    (module docstring; None: no closed form, the 'original' reading's X' || X).

    Args:
        q: the input part's probability, in (0, 1).
        reading: one of READINGS.

    Returns:
        (d_inf(X || X'), d_inf(X' || X)).

    Raises:
        ParameterError: q outside (0, 1) or an unknown reading.
    """
    _check_q(q)
    if reading == "footnote":
        return math.inf, -math.log(q)
    if reading == "randomized":
        v = abs(math.log((1 - q) / q))
        return v, v
    if reading == "original":
        return math.inf, None
    raise ParameterError(f"reading={reading!r}; valid: {', '.join(READINGS)}")


def support_mismatch_mass(*, n: int, ones: int, epsilon_prime: float, q: float, s: int,
                          truncation: int, flood: np.ndarray, reading: str) -> float:
    """A certified lower bound on the mass the view of X (x1 = 1) puts where X' (x1 = 0) has
    none (exact supports; the float sum shrunk by its relative error).

    Args:
        n: number of users, >= 1 (the noise is NB(1/n, .) per user).
        ones: ones among the other n - 1 users, 0..n-1.
        epsilon_prime: the noise parameter, > 0.
        q: the input part's probability q, in (0, 1).
        s: copies of +1 and -1, >= 1.
        truncation: the noise's largest count per user and sign, >= 0.
        flood: each user's flood pmf (index = count).
        reading: one of READINGS.

    Returns:
        The lower bound (0 when the supports agree).

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: a positive entry of a view underflowed.
    """
    vp, vq = view_pair(n=n, ones=ones, epsilon_prime=epsilon_prime, q=q, s=s,
                       truncation=truncation, flood=flood, reading=reading)
    mass = math.fsum(vp.pmf[vp.support & ~vq.support].ravel())
    return mass * (1 - vp.rel_error) / (1 + _U)


@dataclass(frozen=True, slots=True)
class GridSummary:
    """`instance_grid`'s findings against `closed_form`.

    Attributes:
        instances: (n, truncation) instances.
        pairs: neighbouring pairs per reading (sum over instances of n).
        footnote_infinite: pairs of the footnote reading with d_inf(X || X') = +inf (exact).
        footnote_reverse_gap: largest distance of a certified end of d_inf(X' || X) from
            log(1/q), footnote reading (math.inf if one is infinite).
        randomized_gap: largest distance of a certified end of either order from
            log((1-q)/q), randomized reading.
    """

    instances: int
    pairs: int
    footnote_infinite: int
    footnote_reverse_gap: float
    randomized_gap: float


def instance_grid(*, ns: tuple[int, ...], truncations: tuple[int, ...], epsilon_prime: float,
                  q: float, s: int, lam: float, flood_truncation: int) -> GridSummary:
    """Every neighbouring pair of every (n, truncation) instance, in the footnote and the
    randomized readings, with each user's flood Poi(lam/n) truncated at flood_truncation.

    Args:
        ns: numbers of users.
        truncations: noise truncations.
        epsilon_prime: the noise parameter, > 0.
        q: the input part's probability, in (0, 1).
        s: copies, >= 1.
        lam: the total flood mean (each user's is lam / n).
        flood_truncation: each user's largest flood count.

    Returns:
        The GridSummary.

    Raises:
        ParameterError: an argument outside its domain.
        PrecisionError: a positive entry of a view underflowed.
    """
    inf_pairs, pairs, gap_f, gap_r = 0, 0, 0.0, 0.0
    v_f = closed_form(q=q, reading="footnote")[1]
    assert v_f is not None  # the footnote reading has both closed forms
    v_r = closed_form(q=q, reading="randomized")[0]

    def gap(br: Bracket, v: float) -> float:
        lo, up = float(br.require_lower().value), float(br.require_upper().value)
        return max(abs(lo - v), abs(up - v))
    for n in ns:
        fl = truncated_poisson_pmf(mean=lam / n, truncation=flood_truncation)
        for T in truncations:
            kw: dict[str, Any] = {"n": n, "epsilon_prime": epsilon_prime, "q": q, "s": s,
                                  "truncation": T, "flood": fl}
            for k in range(n):
                pq, qp = max_divergence(ones=k, reading="footnote", **kw)
                inf_pairs += pq.require_lower().value == math.inf
                gap_f = max(gap_f, gap(qp, v_f))
                gap_r = max(gap_r, *(gap(b, v_r) for b in
                                     max_divergence(ones=k, reading="randomized", **kw)))
                pairs += 1
    return GridSummary(instances=len(ns) * len(truncations), pairs=pairs,
                       footnote_infinite=inf_pairs, footnote_reverse_gap=gap_f,
                       randomized_gap=gap_r)
