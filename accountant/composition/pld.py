"""Composition of view pairs through privacy-loss distributions (PLD), on Google's
`dp_accounting` (https://github.com/google/differential-privacy, python/dp_accounting).

docs/divergences.md#products: for a product of independent pairs the privacy loss adds, so the PLD
of a
composition is the convolution of the PLDs, and H_{e^eps} = E_P[(1 - e^(eps - L))_+] with
an atom at +inf kept apart. dp_accounting discretizes losses on a grid of width `Delta` and
self-composes by FFT (Meiser and Mohammadi, CCS 2018; Koskela, Jalko, Honkela, AISTATS
2020; Doroshenko et al., PETS 2022).

We build the discretized PLD ourselves from a `ViewPair` (not through
`from_two_probability_mass_functions`) so that soundness uses the view's certificates:

- pessimistic (upper): each loss rounded up to a multiple of Delta after adding its error
  bound, each P-mass raised by its log-error bound, the certified residual mass `tail_p` and
  the mass on +inf losses put on the +inf atom; rounding losses up only increases every
  hockey-stick divergence of every composition (dp_accounting's pessimistic estimate);
- optimistic (lower): losses rounded down after subtracting their error, masses lowered,
  residual dropped; this needs an exact grid (`grid_exact`).

Both orders of a non-symmetric pair are kept (dp_accounting's "remove" and "add" PMFs are
P||Q and Q||P here) and the reported value is the maximum over both. The gap between the
pessimistic and the optimistic value shows the discretization error; by default Delta is
refined until that gap is below `relative_gap` of the value.

Not certified: the floating-point error of dp_accounting's FFT convolution (relative to the
largest probability, ~1e-16 per entry; negligible at delta >= 1e-12 but not bounded here),
and its tail truncation (1e-15 per composition, put on the +inf atom when pessimistic; for
the optimistic value we subtract it back out, see `_lower_target`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from dp_accounting.pld import pld_pmf

from accountant.composition.rdp import ROUNDS
from accountant.divergence.common import ULP_SLACK, arr
from accountant.domains import DELTA, EPSILON, POSITIVE
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric import rounding
from accountant.result import Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = ["PldComposition", "compose_views", "DEFAULT_DISCRETIZATION"]

DEFAULT_DISCRETIZATION = 1e-4
_TRUNCATION = 1e-15
_MAX_BUCKETS = 2_000_000
_SOURCE = Source(citation="dp_accounting (Google) privacy-loss distributions",
                 locator="pessimistic/optimistic discretization, FFT self-composition; "
                         "docs/divergences.md#products")


@dataclass(frozen=True, slots=True)
class PldComposition:
    """Pessimistic (UPPER) and optimistic (LOWER) values of one composition.

    Attributes:
        upper: Result from the pessimistic PLD (a sound upper bound, see module docstring).
        lower: Result from the optimistic PLD (LOWER), or None when the views' grids are not
            exact (then no lower value can be derived).
        discretization: the loss grid width Delta that was finally used.
        relative_gap: (upper - lower) / upper.
    """

    upper: Result
    lower: Result | None
    discretization: float
    relative_gap: float


def _one_direction(view: ViewPair, width: float, pessimistic: bool) -> pld_pmf.PLDPmf:
    """Discretized PLD of P||Q (`view` oriented), with the view's error certificates."""
    if view.backend != "float":
        raise ParameterError("PLD composition needs float views (backend='float')")
    n = view.size
    lp = view.p
    loss = view.loss
    lerr = arr(view.log_error, n) + ULP_SLACK
    margin = arr(view.loss_error, n) + 4 * rounding.UNIT_ROUNDOFF * np.abs(
        np.where(np.isfinite(loss), loss, 0.0))
    live = np.isfinite(lp)
    atoms = live & np.isposinf(loss)
    finite = live & np.isfinite(loss)
    sign = 1.0 if pessimistic else -1.0
    mass = np.exp(lp[finite] + sign * lerr[finite])
    shifted = (loss[finite] + sign * margin[finite]) / width
    index = np.ceil(shifted) if pessimistic else np.floor(shifted)
    infinity = float(np.sum(np.exp(lp[atoms] + sign * lerr[atoms])))
    if pessimistic:
        infinity += float(view.tail_p)
    if index.size == 0:
        return pld_pmf.create_pmf({0: 0.0}, width, min(infinity, 1.0), pessimistic)
    lo = int(index.min())
    span = int(index.max()) - lo + 1
    if span > _MAX_BUCKETS:
        raise PrecisionError(f"PLD discretization={width:g} needs {span} buckets for one "
                             f"pair (limit {_MAX_BUCKETS}); use a coarser discretization")
    probs = np.bincount((index - lo).astype(np.int64), weights=mass, minlength=span)
    lo, probs, infinity = _trim(lo, probs, infinity, pessimistic)
    return pld_pmf.DensePLDPmf(width, lo, probs, min(infinity, 1.0), pessimistic)


def _trim(lo: int, probs: np.ndarray, infinity: float, pessimistic: bool,
          cut: float = 1e-30) -> tuple[int, np.ndarray, float]:
    """Drop negligible tails (mass <= cut each side) in the safe direction, so that the FFT
    self-composition works on the bulk only.

    Pessimistic: the left tail moves up to the first kept loss (a larger loss), the right
    tail goes to the +inf atom. Optimistic: the right tail moves down to the last kept loss,
    the left tail is dropped (less mass). Both keep the estimate on its side.
    """
    left = np.cumsum(probs)
    right = np.cumsum(probs[::-1])[::-1]
    first = int(np.searchsorted(left, cut, side="right"))
    last = probs.size - 1 - int(np.searchsorted(right[::-1], cut, side="right"))
    if first > last:
        return lo, probs, infinity
    kept = probs[first:last + 1].copy()
    left_mass = float(left[first - 1]) if first > 0 else 0.0
    right_mass = float(right[last + 1]) if last + 1 < probs.size else 0.0
    if pessimistic:
        kept[0] += left_mass
        infinity += right_mass
    else:
        kept[-1] += right_mass
    return lo + first, kept, infinity


def _composed(mechanisms: Sequence[tuple[ViewPair, int]], width: float,
              pessimistic: bool) -> tuple[list[pld_pmf.PLDPmf], int]:
    """The composed PLD PMFs of both orders (P||Q, Q||P) and the number of truncating
    operations (for `_lower_target`). These are dp_accounting's "remove" and "add" PMFs
    of `PrivacyLossDistribution`, composed the way it composes them."""
    totals: list[pld_pmf.PLDPmf] = []
    operations = 0
    for side in (0, 1):
        total = None
        for view, rounds in mechanisms:
            one = _one_direction(view if side == 0 else view.swapped(), width, pessimistic)
            if rounds > 1:
                one = one.self_compose(int(rounds), tail_mass_truncation=_TRUNCATION)
                operations += side == 0
            if total is None:
                total = one
            else:
                total = total.compose(one, tail_mass_truncation=_TRUNCATION)
                operations += side == 0
        totals.append(total)
    return totals, operations


def _lower_target(delta: float, operations: int) -> float:
    """dp_accounting adds the truncated mass (and FFT wrap-around of at most that mass) even
    to optimistic PLDs; asking the optimistic PLD for epsilon at delta + that mass keeps its
    value below the truth."""
    return delta + 2 * _TRUNCATION * operations


def _check(mechanisms: Sequence[tuple[ViewPair, int]]) -> list[tuple[ViewPair, int]]:
    if not mechanisms:
        raise ParameterError("PLD composition needs at least one (view, rounds) pair")
    out = []
    for view, rounds in mechanisms:
        if not isinstance(view, ViewPair):
            raise ParameterError(f"{view!r} is not a ViewPair")
        ROUNDS.check(rounds)
        out.append((view, int(rounds)))
    return out


def _dense(pmf: pld_pmf.PLDPmf) -> tuple[np.ndarray, np.ndarray, float]:
    """(losses ascending, probabilities, +inf mass) of a composed PMF.

    dp_accounting has no public accessor for these arrays, and its `get_epsilon_for_delta`
    is a Python loop over every bucket (~1 s per call at 1e6 buckets), so we read the dense
    PMF's fields (dp_accounting 0.6.0) and invert with cumulative sums instead.
    """
    dense = pmf.to_dense_pmf()
    probs = np.asarray(dense._probs, dtype=float)  # noqa: SLF001 - see docstring
    losses = (np.arange(probs.size) + dense._lower_loss) * dense._discretization  # noqa: SLF001
    return losses, probs, float(dense._infinity_mass)  # noqa: SLF001


def _epsilon_of(pmf: pld_pmf.PLDPmf, delta: float) -> float:
    """inf{eps >= 0 : H_{e^eps} <= delta} of a discretized PLD (docs/divergences.md#exact-inversion
    on its atoms)."""
    losses, probs, infinity = _dense(pmf)
    if infinity > delta:
        return math.inf
    positive = losses > 0
    losses, probs = losses[positive][::-1], np.maximum(probs[positive][::-1], 0.0)
    a = infinity + np.cumsum(probs)
    b = np.cumsum(probs * np.exp(-losses))
    ok = (a > delta) & (b > 0)
    if not np.any(ok):
        return 0.0
    return max(0.0, float(np.max(np.log((a[ok] - delta) / b[ok]))))


def _delta_of(pmf: pld_pmf.PLDPmf, epsilon: float) -> float:
    losses, probs, infinity = _dense(pmf)
    live = losses > epsilon
    return min(1.0, infinity + float(np.dot(-np.expm1(epsilon - losses[live]),
                                            np.maximum(probs[live], 0.0))))


def _evaluate(mechanisms: list[tuple[ViewPair, int]], width: float, delta: float | None,
              epsilon: float | None, want_lower: bool) -> tuple[float, float | None]:
    pess, _ = _composed(mechanisms, width, True)
    if delta is not None:
        upper = max(_epsilon_of(p, delta) for p in pess)
    else:
        upper = max(_delta_of(p, epsilon) for p in pess)
    lower = None
    if want_lower:
        opt, ops = _composed(mechanisms, width, False)
        if delta is not None:
            lower = max(_epsilon_of(p, _lower_target(delta, ops)) for p in opt)
        else:
            lower = max(0.0, max(_delta_of(p, epsilon) for p in opt) - 2 * _TRUNCATION * ops)
        lower = min(lower, upper)
    return float(upper), None if lower is None else float(lower)


def compose_views(mechanisms: Sequence[tuple[ViewPair, int]], *, delta: float | None = None,
                  epsilon: float | None = None, discretization: float | None = None,
                  relative_gap: float = 0.008, max_refinements: int = 3) -> PldComposition:
    """epsilon(delta) or delta(epsilon) of the composition of `rounds` copies of each view.

    Args:
        mechanisms: (view, rounds) pairs; each view is one mechanism's neighbouring pair
            (float backend), composed `rounds` times, all of them composed together.
        delta / epsilon: exactly one: the point at which to report the other coordinate.
        discretization: loss grid width Delta. None: start at 1e-4/sqrt(total rounds) and
            refine (at most `max_refinements` times) until (upper - lower) <= relative_gap
            * upper.
        relative_gap: target of the automatic refinement.

    Returns:
        PldComposition with the pessimistic UPPER and optimistic LOWER Results.
    """
    mechanisms = _check(mechanisms)
    if (delta is None) == (epsilon is None):
        raise ParameterError("give exactly one of delta and epsilon")
    if delta is not None:
        DELTA.check(delta)
    else:
        EPSILON.check(epsilon)
    if discretization is not None:
        POSITIVE.named("discretization").check(discretization)
    exact_grids = all(v.grid_exact for v, _ in mechanisms)
    # the gap grows about linearly in the number of rounds times Delta; starting at
    # 1e-4/sqrt(rounds) usually leaves one refinement to do
    total_rounds = sum(r for _, r in mechanisms)
    width = discretization or DEFAULT_DISCRETIZATION / math.sqrt(total_rounds)
    upper, lower = _evaluate(mechanisms, width, delta, epsilon, exact_grids)
    refinements = 0
    while (discretization is None and lower is not None and refinements < max_refinements
           and math.isfinite(upper) and upper - lower > relative_gap * upper):
        # the gap is about linear in Delta (each round's rounding shifts the loss by < Delta)
        new_width = width * 0.85 * relative_gap * upper / (upper - lower)
        try:
            upper, lower = _evaluate(mechanisms, new_width, delta, epsilon, True)
        except PrecisionError:
            break
        width = new_width
        refinements += 1
    quantity = "epsilon" if delta is not None else "delta"
    at = float(delta if delta is not None else epsilon)
    rounds = "+".join(f"{r}x[{_label(v)}]" for v, r in mechanisms)
    method = f"composition.pld.compose_views({rounds}, discretization={width:.3g})"
    up = Result(quantity=quantity, value=rounding.up(upper), kind=Kind.UPPER,
                direction=Direction.MAX, method=method + " pessimistic", source=_SOURCE,
                at=at)
    low = None if lower is None else Result(
        quantity=quantity, value=lower, kind=Kind.LOWER, direction=Direction.MAX,
        method=method + " optimistic", source=_SOURCE, at=at)
    gap = (upper - lower) / upper if lower is not None and upper > 0 and math.isfinite(
        upper) else (0.0 if lower is not None and upper == lower else math.inf)
    return PldComposition(upper=up, lower=low, discretization=width, relative_gap=gap)


def _label(view: ViewPair) -> str:
    d = dict(view.description)
    return ", ".join(f"{k}={v}" for k, v in d.items() if not isinstance(v, dict | list)) \
        or "view"
