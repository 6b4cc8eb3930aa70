"""Balcer-Cheu zsum (Fig. 1) and hist (Fig. 2): exact views and exact privacy.

Balcer & Cheu, "Separating Local & Shuffled Differential Privacy via Histograms",
ITC 2020, Sec. 3 (docs/balcer-cheu-2020.md#the-zsum-protocol to
docs/balcer-cheu-2020.md#the-hist-protocol).

zsum: each user sends x + z copies of the message "1", z ~ Bern(p). The shuffled view is
sum x_i + Bin(n, p), so neighbouring datasets give exactly the pair Bin(n,p) against
1 + Bin(n,p) (`accountant.pairs.binomial_shift_pair`), for both orders and every
neighbouring pair (docs/balcer-cheu-2020.md#exact-zsum-view). hist runs zsum on every coordinate of
the one-hot input;
neighbours that move one user from value a to value b give the product pair
P = Bin x (1+Bin), Q = (1+Bin) x Bin on coordinates (a, b); all other coordinates are
identical and independent, hence cancel (docs/balcer-cheu-2020.md#the-hist-protocol).

Exact privacy is computed by the hockey-stick inversion (`accountant.divergence`) on a
certified bulk window (residual mass added to delta, so results are UPPER bounds equal to
the exact value up to the stated error budget). For hist there are two independent
evaluations: the 2-D sum over the product grid (`hist_epsilon`, `hist_delta`) and the
privacy-loss convolution H(eps) = E_{K1}[H_2(eps - L_1(K1))] (`hist_delta_pld`), which
conditions on the first coordinate's loss and evaluates the second coordinate's
hockey-stick by cumulative sums (docs/divergences.md#products); tests check they agree.

Renyi and max-divergences are +inf in both orders (atoms k = 0 and k = n + 1: the outcome
"no noise message at all" and "every user sent a noise message" have zero probability
under one neighbour), so RDP accounting does not apply (docs/balcer-cheu-2020.md#exact-zsum-view).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from accountant.bounds.balcer_cheu_2020 import CITATION, paper_p
from accountant.distributions import DEFAULT_DPS
from accountant.divergence import (
    delta_for_epsilon,
    epsilon_bracket,
    epsilon_for_delta,
)
from accountant.domains import DELTA, EPSILON, N_USERS, Interval
from accountant.errors import ParameterError
from accountant.numeric.logspace import logsumexp
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.pairs import binomial_shift_pair
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = [
    "BalcerCheuParameters",
    "zsum_parameters",
    "hist_parameters",
    "zsum_view",
    "hist_view",
    "hist_fits",
    "HIST_PRODUCT_CELLS",
    "zsum_epsilon",
    "zsum_delta",
    "zsum_epsilon_bracket",
    "hist_epsilon",
    "hist_epsilon_bracket",
    "hist_delta",
    "hist_delta_pld",
    "hist_epsilon_pld",
    "renyi_divergence",
    "max_divergence",
    "INFINITE_DIVERGENCE_REASON",
]

_P = Interval("p", 0.0, 1.0, closed="neither")
_D = Interval("d", 2, math.inf, closed="left", integer=True)
_NAME = "protocols.balcer_cheu"
INFINITE_DIVERGENCE_REASON = (
    "support-edge atoms: outcome k=0 (no noise message) has probability (1-p)^n under "
    "Bin(n,p) and 0 under 1+Bin(n,p); k=n+1 has p^n and 0 the other way "
    "(docs/balcer-cheu-2020.md#exact-zsum-view)")
# Residual mass allowed outside the bulk window, relative to the delta asked for: the
# inversion spends it (target delta - tail), so it moves epsilon by ~1e-14 relative.
_RELATIVE_TAIL = 1e-14
_FLOOR_TAIL = 1e-300


@dataclass(frozen=True, slots=True, kw_only=True)
class BalcerCheuParameters:
    """One zsum/hist instance.

    Attributes:
        n: number of users.
        p: the randomizer's Bernoulli parameter (noise: Bin(n, p) extra messages).
        epsilon, delta: the paper's target, when p was set from it by Fig. 1 (else None).
        d: histogram domain size (hist only; None for zsum).
    """

    n: int
    p: float
    epsilon: float | None = None
    delta: float | None = None
    d: int | None = None

    @property
    def gamma(self) -> float:
        """1 - p, exact in float for p >= 1/2."""
        return 1.0 - self.p

    def to_json(self) -> dict[str, Any]:
        """The instance as a JSON object (the CLI's "params").

        Returns:
            {"n", ("epsilon", "delta" when set), "p", ("d" for hist)}.
        """
        out: dict[str, Any] = {"n": self.n}
        if self.epsilon is not None:
            out |= {"epsilon": self.epsilon, "delta": self.delta}
        out["p"] = self.p
        if self.d is not None:
            out["d"] = self.d
        return out


def zsum_parameters(*, n: int, epsilon: float | None = None, delta: float | None = None,
                    p: float | None = None) -> BalcerCheuParameters:
    """zsum with the paper's p (from epsilon, delta) or a user-given p in (0, 1).

    Args:
        n: number of users, an integer >= 1.
        epsilon: the target epsilon in (0, 1], with `delta` (Fig. 1 sets p); not with p.
        delta: the target delta in (0, 1], with `epsilon`.
        p: the randomizer's parameter in (0, 1), instead of epsilon and delta.

    Returns:
        BalcerCheuParameters(n, p) (with epsilon and delta recorded when they set p).

    Raises:
        ParameterError: missing or conflicting arguments, or values outside their domains.
        RegimeError: n < 100 log(2/delta)/epsilon^2 (Theorem 3.1's hypothesis).
    """
    N_USERS.check(n)
    n = int(n)
    if p is not None:
        if epsilon is not None or delta is not None:
            raise ParameterError("give either p, or epsilon and delta (which set p), not both")
        _P.check(p)
        return BalcerCheuParameters(n=n, p=float(p))
    if epsilon is None or delta is None:
        raise ParameterError("zsum needs p, or both epsilon and delta (Fig. 1 sets p)")
    return BalcerCheuParameters(n=n, p=paper_p(epsilon=epsilon, delta=delta, n=n),
                                epsilon=float(epsilon), delta=float(delta))


def hist_parameters(*, n: int, d: int, epsilon: float | None = None,
                    delta: float | None = None, p: float | None = None) -> BalcerCheuParameters:
    """hist over the domain [d], d >= 2 (same p rule as zsum).

    Args:
        n: number of users, an integer >= 1.
        d: histogram domain size, an integer >= 2.
        epsilon: the target epsilon in (0, 1], with `delta`; not with p.
        delta: the target delta in (0, 1], with `epsilon`.
        p: the randomizer's parameter in (0, 1), instead of epsilon and delta.

    Returns:
        BalcerCheuParameters(n, p, d) (with epsilon and delta when they set p).

    Raises:
        ParameterError: d not an integer >= 2, or as `zsum_parameters`.
        RegimeError: as `zsum_parameters`.
    """
    _D.check(d)
    base = zsum_parameters(n=n, epsilon=epsilon, delta=delta, p=p)
    return BalcerCheuParameters(n=base.n, p=base.p, epsilon=base.epsilon, delta=base.delta,
                                d=int(d))


# the most cells of the hist product view (float64 P, Q and their logs: about 1 GB)
HIST_PRODUCT_CELLS = 2**24


def _tail_for(delta: Any) -> float:
    return max(min(1e-30, float(delta) * _RELATIVE_TAIL), _FLOOR_TAIL)


def zsum_view(params: BalcerCheuParameters, *, backend: str = "float",
              tail: float | None = 1e-30, dps: int = DEFAULT_DPS) -> ViewPair:
    """The exact neighbouring view Bin(n,p) vs 1 + Bin(n,p)
    (docs/balcer-cheu-2020.md#exact-zsum-view).

    tail=None keeps the whole support (O(n) points, EXACT results with mp/exact).

    Args:
        params: the zsum (or hist) instance.
        backend: "float", "mp" or "exact". The exact backend with tail=None needs a Fraction
            p (`pairs.binomial_shift_pair`), which `zsum_parameters` never produces (it
            stores float(p)): only "mp" gives EXACT results in practice.
        tail: certified mass outside the bulk window, in (0, 1); None for the whole support.
        dps: decimal digits for the mp backend.

    Returns:
        The ViewPair of `pairs.binomial_shift_pair`, its description the instance's JSON
        with "protocol": "bc-zsum".

    Raises:
        ParameterError: as `pairs.binomial_shift_pair`.
    """
    return binomial_shift_pair(params.n, params.p, backend=backend, tail=tail, dps=dps,
                               description={"protocol": "bc-zsum", **params.to_json()})


def hist_view(params: BalcerCheuParameters, *, tail: float | None = 1e-30) -> ViewPair:
    """The product pair P = Bin x (1+Bin), Q = (1+Bin) x Bin on the two changed
    coordinates (docs/balcer-cheu-2020.md#the-hist-protocol), float backend; tail is per
    coordinate.

    Args:
        params: the hist instance (d is not used: the other coordinates cancel).
        tail: certified mass outside each coordinate's window, in (0, 1); None for the
            whole support (O(n^2) points).

    Returns:
        The float ViewPair of `ViewPair.product` of the zsum pair and its swap.

    Raises:
        ParameterError: as `zsum_view`.
    """
    one = zsum_view(params, tail=tail)
    if not _fits(one):
        raise ParameterError(
            f"bc-hist at n={params.n}, p={params.p:.6g}: the 2-D product view has "
            f"{one.size}^2 = {one.size ** 2:.3g} cells, above the {HIST_PRODUCT_CELLS:.3g} "
            "it may hold (about 1 GB; n = 1e8 at epsilon = 0.05 needed 20 GB): one round's "
            "epsilon and delta come from the privacy-loss convolution instead "
            "(hist_epsilon_pld, hist_delta_pld), and composition from its two coordinates "
            "(BalcerCheuHist.dominating_pair); the 2-D view itself is refused")
    return one.product(one.swapped())


def hist_fits(params: BalcerCheuParameters, *, tail: float | None = 1e-30) -> bool:
    """Whether `hist_view` at this tail stays within HIST_PRODUCT_CELLS cells.

    Args:
        params: the hist instance.
        tail: per-coordinate window tail, as `hist_view`'s.

    Returns:
        True when the 2-D product view fits.
    """
    return _fits(zsum_view(params, tail=tail))


def _fits(one: ViewPair) -> bool:
    return one.size ** 2 <= HIST_PRODUCT_CELLS


def _source(locator: str) -> Source:
    return Source(citation=CITATION, locator=locator)


def zsum_epsilon(params: BalcerCheuParameters, delta: Any, *, backend: str = "float",
                 direction: Direction | str = Direction.MAX, dps: int = DEFAULT_DPS,
                 tail: float | None = None, full_support: bool = False) -> Result:
    """Exact epsilon(delta) of zsum, by the sorted-loss inversion
    (docs/divergences.md#exact-inversion, docs/balcer-cheu-2020.md#exact-zsum-view).

    tail defaults to min(1e-30, 1e-14 delta) (its mass is spent from delta); float
    results are UPPER with the float error and the tail folded in. full_support=True
    uses the whole support 0..n+1 (O(n)): with backend "mp" the result is EXACT.

    Args:
        params: the zsum instance.
        delta: target delta, in (0, 1).
        backend: "float", "mp" or "exact" (see `zsum_view`).
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits for the mp backend.
        tail: window tail; None for the default above (ignored when full_support is True).
        full_support: use the whole support instead of a window.

    Returns:
        The Result of `divergence.epsilon_for_delta` (quantity "epsilon", at=delta), with
        `method` prefixed by "protocols.balcer_cheu.zsum_epsilon <-" and the Fig. 1 source.

    Raises:
        ParameterError: delta outside (0, 1), or as `zsum_view`.
    """
    DELTA.check(delta)
    tail = None if full_support else (_tail_for(delta) if tail is None else tail)
    r = epsilon_for_delta(zsum_view(params, backend=backend, tail=tail, dps=dps), delta,
                          direction=direction, dps=dps)
    return r.with_(method=f"{_NAME}.zsum_epsilon <- {r.method}",
                   source=_source("Fig. 1; exact view docs/balcer-cheu-2020.md#exact-zsum-view"))


def zsum_epsilon_bracket(params: BalcerCheuParameters, delta: float, *,
                         tail: float | None = None) -> tuple[Result, Result]:
    """(lower, upper) certified bracket of zsum's epsilon(delta), float backend.

    Args:
        params: the zsum instance.
        delta: target delta, in (0, 1).
        tail: window tail; None for min(1e-30, 1e-14 delta) (at least 1e-300).

    Returns:
        (LOWER, UPPER) Results of `divergence.epsilon_bracket`, direction MAX.

    Raises:
        ParameterError: delta outside (0, 1), or as `zsum_view`.
    """
    DELTA.check(delta)
    tail = _tail_for(delta) if tail is None else tail
    return epsilon_bracket(zsum_view(params, tail=tail), delta)


def _refined_delta(evaluate: Any, first_tail: float) -> Result:
    """delta(eps) with a tail small against the answer (recomputed once if needed)."""
    r = evaluate(first_tail)
    value = float(r)
    if 0 < value < 1e12 * first_tail:
        r = evaluate(max(value * 1e-12, _FLOOR_TAIL))
    return r


def zsum_delta(params: BalcerCheuParameters, epsilon: float, *, backend: str = "float",
               direction: Direction | str = Direction.MAX, dps: int = DEFAULT_DPS) -> Result:
    """Exact delta(epsilon) = H_{e^eps} of zsum (docs/balcer-cheu-2020.md#exact-zsum-view), UPPER
    in float.

    Args:
        params: the zsum instance.
        epsilon: epsilon >= 0.
        backend: "float", "mp" or "exact" (see `zsum_view`).
        direction: "P||Q", "Q||P" or "max".
        dps: decimal digits for the mp backend.

    Returns:
        The Result of `divergence.delta_for_epsilon` (at=epsilon) on a window of tail 1e-30,
        recomputed once with tail 1e-12 delta when delta < 1e-18; `method` prefixed by
        "protocols.balcer_cheu.zsum_delta <-".

    Raises:
        ParameterError: epsilon < 0 or NaN, or as `zsum_view`.
    """
    EPSILON.check(epsilon)
    r = _refined_delta(lambda t: delta_for_epsilon(
        zsum_view(params, backend=backend, tail=t, dps=dps), epsilon, direction=direction,
        dps=dps), 1e-30)
    return r.with_(method=f"{_NAME}.zsum_delta <- {r.method}",
                   source=_source("Fig. 1; exact view docs/balcer-cheu-2020.md#exact-zsum-view"))


def _pruned_for_p_q(view: ViewPair, *, log_floor: float) -> ViewPair:
    """The points of `view` that can matter to H_{e^eps}(P||Q) for eps >= 0.

    A point with loss <= 0 (after the inversion's own pessimistic margin) adds nothing to
    H for eps >= 0, so dropping it is exact for the P||Q hockey-stick (only). Points with
    log P < log_floor are dropped too and their total P-mass (rounded up) joins tail_p,
    which the inversion spends from delta: still an upper bound. This halves the 2-D sort
    (the loss is antisymmetric under swapping coordinates) and drops the window's corners.
    """
    n = view.size
    loss = view.float_loss
    finite = np.isfinite(loss)
    margin = np.broadcast_to(np.asarray(view.loss_error, dtype=float), (n,)) + \
        8 * UNIT_ROUNDOFF * np.abs(np.where(finite, loss, 0.0))
    lerr = np.broadcast_to(np.asarray(view.log_error, dtype=float), (n,))
    positive = np.where(finite, loss + margin > 0, loss > 0)
    small = view.p + lerr < log_floor
    keep = positive & ~small
    dropped = positive & small
    extra = 0.0
    if np.any(dropped):
        extra = math.exp(logsumexp(view.p[dropped] + lerr[dropped])) * (1 + 1e-9)
    pick = np.flatnonzero(keep)
    return replace(view, p=view.p[pick], q=view.q[pick], loss=loss[pick],
                   log_error=lerr[pick],
                   loss_error=np.broadcast_to(np.asarray(view.loss_error, dtype=float),
                                              (n,))[pick],
                   tail_p=view.tail_p + extra, coords=tuple(c[pick] for c in view.coords))


def hist_epsilon(params: BalcerCheuParameters, delta: float, *, both_orders: bool = False,
                 tail: float | None = None) -> Result:
    """Exact epsilon(delta) of hist by the 2-D sum over the product grid
    (docs/divergences.md#products, docs/balcer-cheu-2020.md#the-hist-protocol).

    The pair is mapped to its swap by exchanging the two coordinates, so both orders
    have the same exact value (docs/balcer-cheu-2020.md#the-hist-protocol); by default only P||Q is
    computed, on the
    points that can contribute (`_pruned_for_p_q`, mass below 1e-16 delta / size moved
    to the residual), and reported as the maximum (both_orders=True computes both orders
    on the full grid, for tests). tail is per coordinate (default min(1e-30, 1e-14
    delta) / 2).

    Args:
        params: the hist instance.
        delta: target delta, in (0, 1).
        both_orders: evaluate both orders on the full grid.
        tail: per-coordinate window tail; None for the default above.

    Returns:
        UPPER Result on "epsilon" (float backend), direction MAX, at=delta.

    Raises:
        ParameterError: delta outside (0, 1), or as `zsum_view`.
    """
    DELTA.check(delta)
    tail = _tail_for(delta) / 2 if tail is None else tail
    if not both_orders and not hist_fits(params, tail=tail):
        r = hist_epsilon_pld(params, delta)
        return r.with_(method=f"{r.method} [the 2-D view exceeds {HIST_PRODUCT_CELLS} cells]")
    view = hist_view(params, tail=tail)
    if both_orders:
        r = epsilon_for_delta(view, delta)
        note = "2-D sum, both orders"
    else:
        floor = math.log(max(float(delta) * 1e-16 / view.size, _FLOOR_TAIL))
        r = epsilon_for_delta(_pruned_for_p_q(view, log_floor=floor), delta,
                              direction=Direction.P_Q).with_(direction=Direction.MAX)
        note = "2-D sum of P||Q; Q||P = P||Q by coordinate symmetry"
    return r.with_(method=f"{_NAME}.hist_epsilon ({note}) <- {r.method}",
                   source=_source("Fig. 2; exact view docs/balcer-cheu-2020.md#the-hist-protocol"))


def hist_epsilon_bracket(params: BalcerCheuParameters, delta: float, *,
                         tail: float | None = None) -> tuple[Result, Result]:
    """(lower, upper) certified bracket of hist's epsilon(delta) (2-D sum, P||Q on the
    contributing points; dropping points only lowers the lower bound's H, so both ends
    stay sound; Q||P = P||Q by coordinate symmetry).

    Args:
        params: the hist instance.
        delta: target delta, in (0, 1).
        tail: per-coordinate window tail; None for min(1e-30, 1e-14 delta) / 2.

    Returns:
        (LOWER, UPPER) Results on "epsilon", relabelled direction MAX.

    Raises:
        ParameterError: delta outside (0, 1), or as `zsum_view`.
    """
    DELTA.check(delta)
    tail = _tail_for(delta) / 2 if tail is None else tail
    view = hist_view(params, tail=tail)
    floor = math.log(max(float(delta) * 1e-16 / view.size, _FLOOR_TAIL))
    lower, upper = epsilon_bracket(_pruned_for_p_q(view, log_floor=floor), delta,
                                   direction=Direction.P_Q)
    method = f"{_NAME}.hist_epsilon_bracket (2-D sum of P||Q; Q||P = P||Q by symmetry)"
    return (lower.with_(direction=Direction.MAX, method=method),
            upper.with_(direction=Direction.MAX, method=method))


def hist_delta(params: BalcerCheuParameters, epsilon: float, *,
               both_orders: bool = False) -> Result:
    """Exact delta(epsilon) of hist by the 2-D sum (see `hist_epsilon`).

    Args:
        params: the hist instance.
        epsilon: epsilon >= 0.
        both_orders: evaluate both orders (else P||Q, equal by symmetry).

    Returns:
        UPPER Result on "delta", relabelled direction MAX (per-coordinate tail 5e-31,
        recomputed once with a smaller tail when delta < 1e-18).

    Raises:
        ParameterError: epsilon < 0 or NaN.
    """
    EPSILON.check(epsilon)
    if not both_orders and not hist_fits(params, tail=5e-31):
        r = hist_delta_pld(params, epsilon, tail=5e-31)
        return r.with_(method=f"{r.method} [the 2-D view exceeds {HIST_PRODUCT_CELLS} cells]")
    direction = Direction.MAX if both_orders else Direction.P_Q
    r = _refined_delta(lambda t: delta_for_epsilon(hist_view(params, tail=t / 2), epsilon,
                                                   direction=direction), 1e-30)
    return r.with_(direction=Direction.MAX, method=f"{_NAME}.hist_delta (2-D sum) <- {r.method}",
                   source=_source("Fig. 2; exact view docs/balcer-cheu-2020.md#the-hist-protocol"))


# ---------------------------------------------------------------- privacy-loss convolution
def _coordinate_arrays(params: BalcerCheuParameters, tail: float) -> tuple[np.ndarray, ...]:
    """Linear P, Q, loss and loss error of one zsum coordinate (float), plus tail mass."""
    v = zsum_view(params, tail=tail)
    err = np.broadcast_to(np.asarray(v.log_error, dtype=float), (v.size,))
    return (np.exp(v.p), np.exp(v.q), v.float_loss,
            np.broadcast_to(np.asarray(v.loss_error, dtype=float), (v.size,)), err,
            np.array([float(v.tail_p), float(v.tail_q)]))


def _pld_delta(params: BalcerCheuParameters, epsilon: float, tail: float,
               order: Direction) -> tuple[float, float]:
    """(nominal, error bound) of H_{e^eps} for the hist pair, by conditioning on the first
    coordinate's loss: H = sum_k1 P1(k1) H_2(eps - L1(k1)), H_2(t) = A_2(t) - e^t B_2(t)
    with A_2, B_2 the P2-, Q2-masses of {L2 > t} (cumulative sums over sorted L2)."""
    p1, q1, l1, e1, le1, tails = _coordinate_arrays(params, tail)
    # Coordinate 1 is (Bin || 1+Bin), coordinate 2 is its swap; the order Q||P swaps both.
    if order is Direction.P_Q:
        pa, la, ea = p1, l1, e1
        pb, qb, lb, eb = q1, p1, -l1, e1
    else:
        pa, la, ea = q1, -l1, e1
        pb, qb, lb, eb = p1, q1, l1, e1
    srt = np.argsort(-lb, kind="stable")
    lbs = lb[srt]
    a_cum = np.concatenate([[0.0], np.cumsum(pb[srt])])
    b_cum = np.concatenate([[0.0], np.cumsum(qb[srt])])
    live = pa > 0
    pa, la, ea = pa[live], la[live], ea[live]
    t = epsilon - la
    # number of second-coordinate outcomes with L2 > t (lbs is decreasing)
    j = np.searchsorted(-lbs, -t, side="left")
    with np.errstate(over="ignore", invalid="ignore"):
        et = np.exp(np.where(np.isfinite(t), t, -np.inf))
        # e^t B_2(t): B_2 is exactly 0 when no outcome lies above t (j = 0), also where
        # e^t overflowed (inf * 0 was NaN, and a RuntimeWarning in `per` below); an
        # overflowed e^t times a positive B_2 stays +inf (inner 0, error +inf: safe)
        etb = np.where(j == 0, 0.0, et * b_cum[j])
        inner = np.where(np.isposinf(la), a_cum[-1], a_cum[j] - etb)
        gross = np.where(np.isposinf(la), a_cum[-1], a_cum[j] + etb)
    inner = np.maximum(inner, 0.0)
    nominal = float(np.sum(pa * inner))
    # First-order error bound, generous: the cumulative sums ((j + 4) u relative), the
    # log-PMF errors of the outer and inner laws (relative 2 (ea + eb), on A and on
    # e^t B alike, hence on A + e^t B), and the losses' errors (e^t moves by a factor
    # e^(+-lerr); outcomes with |L2 - t| <= lerr change the set but add at most
    # P2 * lerr each, i.e. <= A lerr), then the final sum.
    lerr = float(np.max(le1)) + 4 * UNIT_ROUNDOFF
    eb_max = float(np.max(eb))
    steps = (j + 4) * UNIT_ROUNDOFF
    per = pa * (gross * (steps + 2 * (ea + eb_max) + 2 * lerr) + etb * 2 * lerr)
    err = float(np.sum(per)) * (1 + 1e-6) + nominal * pa.size * UNIT_ROUNDOFF
    return nominal, err + 2 * float(np.sum(tails))


def hist_delta_pld(params: BalcerCheuParameters, epsilon: float, *,
                   tail: float = 1e-30) -> Result:
    """delta(epsilon) of hist by privacy-loss convolution (docs/divergences.md#products), an
    evaluation
    independent of the 2-D sum: UPPER, error budget = first-order float error bound plus
    both coordinates' residual masses. Both orders are computed (they agree,
    docs/balcer-cheu-2020.md#the-hist-protocol).

    Args:
        params: the hist instance.
        epsilon: epsilon >= 0.
        tail: per-coordinate window tail, in (0, 1).

    Returns:
        Result(quantity="delta", kind=UPPER, direction=MAX, at=epsilon): nominal plus error
        bound of the larger order, raised by 4 u and capped at 1.

    Raises:
        ParameterError: epsilon < 0 or NaN, or tail outside (0, 1).
    """
    EPSILON.check(epsilon)
    vals = [_pld_delta(params, float(epsilon), tail, o) for o in (Direction.P_Q, Direction.Q_P)]
    value, err = max(vals, key=lambda v: v[0] + v[1])
    return Result(quantity="delta", value=min(1.0, (value + err) * (1 + 4 * UNIT_ROUNDOFF)),
                  kind=Kind.UPPER, direction=Direction.MAX, error_budget=err,
                  method=f"{_NAME}.hist_delta_pld (privacy-loss convolution) [P||Q="
                         f"{vals[0][0]:.6g}, Q||P={vals[1][0]:.6g}]",
                  source=_source("Fig. 2; exact view docs/balcer-cheu-2020.md#the-hist-protocol"),
                  at=float(epsilon))


def hist_epsilon_pld(params: BalcerCheuParameters, delta: float, *,
                     relative_tolerance: float = 1e-12) -> Result:
    """epsilon(delta) of hist by bisection on `hist_delta_pld` (UPPER: the returned end
    satisfies delta_pld(eps) <= delta; the cross-check of `hist_epsilon`).

    Args:
        params: the hist instance.
        delta: target delta, in (0, 1).
        relative_tolerance: the bisection stops when hi - lo <= this times hi.

    Returns:
        Result(quantity="epsilon", kind=UPPER, direction=MAX, at=delta), error_budget
        hi - lo; +inf if no epsilon up to about 1e3 meets delta.

    Raises:
        ParameterError: delta outside (0, 1).
    """
    DELTA.check(delta)
    tail = _tail_for(delta) / 2

    def ok(e: float) -> bool:
        return float(hist_delta_pld(params, e, tail=tail)) <= delta

    lo, hi = 0.0, 1.0
    if ok(0.0):
        hi = 0.0
    while hi > 0 and not ok(hi):
        lo, hi = hi, hi * 2
        if hi > 1e3:
            hi = math.inf
            break
    while math.isfinite(hi) and hi - lo > relative_tolerance * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return Result(quantity="epsilon", value=hi, kind=Kind.UPPER, direction=Direction.MAX,
                  method=f"{_NAME}.hist_epsilon_pld (bisection on the PLD delta)",
                  error_budget=hi - lo if math.isfinite(hi) else 0.0,
                  source=_source("Fig. 2; exact view docs/balcer-cheu-2020.md#the-hist-protocol"),
                  at=float(delta))


# ---------------------------------------------------------------- infinite divergences
def renyi_divergence(params: BalcerCheuParameters, alpha: float) -> Result:
    """Renyi divergence of order alpha > 1 of zsum/hist: +inf, exactly
    (docs/balcer-cheu-2020.md#exact-zsum-view).

    The reason is in `method`: for every alpha >= 1 a point with P > 0 = Q gives +inf.

    Args:
        params: the zsum or hist instance (hist when params.d is set; only the method text
            depends on it).
        alpha: Renyi order, > 1 (inf allowed).

    Returns:
        Result(value=inf, kind=EXACT, direction=MAX, order=alpha), quantity "renyi" for
        finite alpha and "max_divergence" for inf.

    Raises:
        ParameterError: alpha not > 1 (NaN included).
    """
    if not (alpha > 1):
        raise ParameterError(f"alpha={alpha!r} is outside (1, inf]")
    protocol = "hist" if params.d is not None else "zsum"
    return Result(quantity="renyi" if math.isfinite(alpha) else "max_divergence",
                  value=math.inf, kind=Kind.EXACT, direction=Direction.MAX,
                  method=f"{_NAME}.renyi_divergence ({protocol}: +inf by "
                         f"{INFINITE_DIVERGENCE_REASON})",
                  source=_source("docs/balcer-cheu-2020.md#exact-zsum-view / "
                                 "docs/balcer-cheu-2020.md#the-hist-protocol"), order=float(alpha))


def max_divergence(params: BalcerCheuParameters) -> Result:
    """Max-divergence (pure epsilon) of zsum/hist: +inf (see `renyi_divergence`).

    Args:
        params: the zsum or hist instance.

    Returns:
        Result(quantity="max_divergence", value=inf, kind=EXACT, direction=MAX, order=inf).
    """
    return renyi_divergence(params, math.inf)

