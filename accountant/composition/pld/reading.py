"""Reading a composed measure: certified upper and lower delta(eps) and eps(delta), the lower
ones through the connect-the-dots coupling (docs/conversions.md#connect-the-dots), and the
float inversion that gives the certified searches their starting guesses.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from accountant.composition.pld.measure import LossPmf, tilt_plus
from accountant.errors import ParameterError
from accountant.numeric import rounding

_U = rounding.UNIT_ROUNDOFF


def _h_sum(pmf: LossPmf, epsilon: float) -> tuple[float, float]:
    """(computed H(eps) of the stored measure, bound on its rounding error)."""
    size = pmf.mass.size
    # only the atoms above eps count: start a bucket below the first of them, so that a
    # reading far in the tail costs its few atoms, not the grid (the bisections of a
    # lower reading at delta 1e-10, T = 1e4 passed 60 times over 4.4e7 cells, 40 s)
    z = epsilon / pmf.width
    start = min(max(int(math.floor(z)) - pmf.offset - 1, 0), size) if math.isfinite(z) \
        else (size if z > 0 else 0)
    losses = (np.arange(start, size) + pmf.offset) * pmf.width
    # the losses increase: the atoms above eps are a suffix (no boolean masks)
    first = int(np.searchsorted(losses, epsilon, side="right"))
    masses = pmf.mass[start + first:]
    terms = -np.expm1(epsilon - losses[first:]) * masses
    h = float(np.sum(terms)) + pmf.infinity
    finite = float(np.sum(masses))
    live = masses.size
    # |loss| is largest at an end of the grid
    ends = (np.array([0, size - 1]) + pmf.offset) * pmf.width
    top = float(np.max(np.abs(ends))) if size else 0.0
    err = (h * (rounding.sum_relative_error(live + 1) + 8 * _U)
           + 4 * _U * (abs(epsilon) + top + 1) * finite)
    return h, err


def delta_of(pmf: LossPmf, epsilon: float) -> float:
    """A bound on the true H(e^eps): upper for a pessimistic measure (computed value plus
    rounding plus ledger), lower for an optimistic one (minus both, at least 0)."""
    h, err = _h_sum(pmf, epsilon)
    ledger = pmf.error_above(epsilon)
    if pmf.pessimistic:
        return min(1.0, rounding.up((h + err + ledger) / (1 - pmf.relative)
                                    * (1 + 4 * _U)))
    return max(0.0, rounding.down((h - err - ledger) / (1 + pmf.relative)
                                  * (1 - 4 * _U)))


def epsilon_of(pmf: LossPmf, delta: float) -> float:
    """A bound on the true eps(delta) = inf{eps >= 0: H(e^eps) <= delta}.

    Pessimistic: an eps whose certified `delta_of` is <= delta (so the truth is <= eps);
    +inf when even the +inf atom and ledger exceed delta. Optimistic: an eps whose certified
    lower `delta_of` exceeds delta (so the truth is >= eps), or 0.
    """
    losses = (np.arange(pmf.mass.size) + pmf.offset) * pmf.width
    top = float(losses[-1]) if losses.size else 0.0
    if pmf.pessimistic:
        if delta_of(pmf, max(top, 0.0)) > delta:
            return math.inf
        # (a guess: the certified check follows)
        target = delta * (1 - 1e-9) * (1 - pmf.relative) - pmf.base_error
        guess = float_inversion(losses, pmf.mass, pmf.infinity, max(target, 0.0))
        good = max(top, 0.0)
        if math.isfinite(guess) and delta_of(pmf, guess) <= delta:
            good = guess
        # the certified check failed at the guess: bisect between it and a known-good eps
        lo = guess if math.isfinite(guess) else 0.0
        if good != guess:
            good = _bisect(lambda e: delta_of(pmf, e) <= delta, good, lo)
        return rounding.up(good)
    # a tilted measure's lower H is 0 below its kept tail (the total ledger is about 1):
    # search from there (bisection keeps only points where the check holds)
    start = 0.0 if pmf.tilt is None else max(0.0, (pmf.tilt[3] + 2) * pmf.width)
    if delta_of(pmf, start) <= delta:
        return 0.0
    # beyond the top grid loss only the +inf atom is left: when its certified lower mass
    # exceeds delta, every finite eps does (GKMP20's one-sided atoms: the truth is +inf, and
    # the reading was capped at the top loss, a lower end of 2.1 at T = 2)
    if math.isfinite(top) and delta_of(pmf, max(top, 0.0) + pmf.width) > delta:
        return math.inf
    guess = float_inversion(losses, pmf.mass, pmf.infinity,
                       delta * (1 + 1e-9) * (1 + pmf.relative) + pmf.base_error)
    guess = guess if math.isfinite(guess) else max(top, 0.0)
    if delta_of(pmf, guess) > delta:
        return rounding.down(guess)
    # the check failed at the guess: step down from it by growing steps, then bisect. A
    # reading costs the atoms above its eps, few near the guess; a bisection from `start`
    # read most of the grid at every step (a T = 1e9 composition's lower end: minutes)
    good, bad, step = start, guess, max(abs(guess) * 1e-6, pmf.width)
    while guess - step > start:
        if delta_of(pmf, guess - step) > delta:
            good = guess - step
            break
        bad, step = guess - step, 4 * step
    return rounding.down(_bisect(lambda e: delta_of(pmf, e) > delta, good, bad))


# eta candidates (fractions of the value) for the coupling's failure probability
_ETAS = (0.3, 0.1, 0.03, 1e-2, 1e-3, 1e-5)


def coupling_shift(pmf: LossPmf, eta: float) -> float:
    """tau with P[sum of rounding shifts > tau] <= eta for a connect-the-dots measure:
    drift + sqrt(spread log(1/eta) / 2) (Hoeffding, given the true losses)."""
    return rounding.up((pmf.drift + math.sqrt(pmf.spread * -math.log(eta) / 2))
                       * (1 + 8 * _U))


def _from_below(pmf: LossPmf) -> LossPmf:
    """The stored measure read from below: an upper one with its safe-direction moves
    taken back; a lower one as it is."""
    if not math.isfinite(pmf.spread):
        raise ParameterError("a lower reading needs a connect-the-dots or rounded-down "
                             "measure (pld.connected_pmf)")
    if not pmf.pessimistic:
        return pmf
    undo = pmf.moved * (1 + pmf.relative) * (1 + 2 * _U)
    return replace(pmf, pessimistic=False, error=rounding.up(pmf.error + undo),
                   tilt=tilt_plus(pmf.tilt, undo))


def _etas(pmf: LossPmf, scale: float) -> tuple[float, ...]:
    # no coupling randomness (rounded-down rounds only): eta = 0; else eta > 0 only (a
    # product that underflows to 0 would read the measure with no shift at all)
    if pmf.spread == 0:
        return (0.0,)
    return tuple(eta for eta in (scale * r for r in _ETAS) if eta > 0)


def lower_delta_of(pmf: LossPmf, epsilon: float) -> float:
    """A certified LOWER bound on the true H(e^eps) from a connect-the-dots (or rounded-
    down) measure: H(eps) >= H'(eps + tau) - eta, H' the composed grid measure,
    tau = `coupling_shift` (docs/conversions.md#connect-the-dots); the best of a few eta."""
    low = _from_below(pmf)
    h0 = delta_of(low, epsilon)
    best = 0.0
    for eta in _etas(pmf, h0):
        if h0 <= 0:
            break
        at = rounding.up(epsilon + coupling_shift(pmf, eta)) if eta > 0 else epsilon
        best = max(best, rounding.down(delta_of(low, at) - eta))
    return best


def lower_epsilon_of(pmf: LossPmf, delta: float) -> float:
    """A certified LOWER bound on the true eps(delta) from a connect-the-dots (or rounded-
    down) measure: an eps' whose lower H exceeds delta + eta, less tau, or 0."""
    low = _from_below(pmf)
    best = 0.0
    for eta in _etas(pmf, delta):
        e = epsilon_of(low, min(delta + eta, 1.0))
        if e > 0:
            shift = coupling_shift(pmf, eta) if eta > 0 else 0.0
            best = max(best, rounding.down(e - shift))
    return best


def _bisect(holds: Callable[[float], bool], good: float, bad: float) -> float:
    """Bisection between a point where `holds` is true (`good`) and one where it is false,
    to 1e-12 relative (60 steps at most); returns the last point where it held."""
    for _ in range(60):
        mid = 0.5 * (good + bad)
        if holds(mid):
            good = mid
        else:
            bad = mid
        if abs(good - bad) <= 1e-12 * max(1.0, good, bad):
            break
    return good


def float_inversion(losses: np.ndarray, probs: np.ndarray, infinity: float, delta: float) -> float:
    """inf{eps >= 0 : H(eps) <= delta} of a measure on the uniform grid `losses`, computed
    (not certified): docs/divergences.md#exact-inversion on the atoms.

    With the positive losses in decreasing order l_0 > l_1 > ..., H on [l_n, l_(n-1)) is
    A_n - e^(eps - l_n) y_n, A_n the mass above l_n (+inf included) and
    y_n = sum_(j<n) p_j e^(l_n - l_j), a first-order recursion with factor e^-width
    (`lfilter`, one pass): every exponent is <= 0. Summing p e^-l directly underflowed
    above a loss of 745 and read such measures as eps = 0 (a lower end of 744 at
    sigma = 0.3, q = 0.1, T = 1e4 against a truth near 3594; issue 21). The recursion is
    kept for the next call on the same arrays (`_profile`): a lower reading inverts one
    measure at six deltas, and the recursion over 5e5 cells was 40 % of a T = 1e4 call.
    """
    if infinity > delta:
        return math.inf
    prof = _profile(losses, probs, infinity)
    if prof is None:
        return 0.0
    ls, ps, y, above, a = prof
    over = np.flatnonzero(a - y > delta)
    if over.size:
        n = int(over[0])
        if n == 0:                             # H(l_0) is the +inf atom: rounding only
            return max(0.0, float(ls[0]))
        base, a_n, y_n, top = float(ls[n]), float(a[n]), float(y[n]), float(ls[n - 1])
    else:                                      # on [0, l_last): every atom is above eps
        base, a_n = float(ls[-1]), infinity + float(above[-1])
        y_n, top = float(y[-1] + ps[-1]), float(ls[-1])
        if a_n <= delta:
            return 0.0
    if y_n <= 0:
        return max(0.0, top)
    return max(0.0, min(top, base + math.log((a_n - delta) / y_n)))


_PROFILES: list[tuple[tuple[int, int, float, float, float], np.ndarray, Any]] = []


def clear_profiles() -> None:
    """Drop the kept inversion profiles (`_profile`): they hold a call's largest arrays."""
    _PROFILES.clear()


def _profile(losses: np.ndarray, probs: np.ndarray, infinity: float) -> Any:
    """(positive losses decreasing, their masses, y, cumulative masses, A) of `float_inversion`,
    or None without a positive loss; the last two are kept (`compose_views` clears them),
    keyed by the identity of the mass array (held in the entry, so the identity cannot be
    reused while it is kept) and the grid. Only a guess depends on it: every `epsilon_of`
    checks its answer with the certified `delta_of`."""
    key = (id(probs), probs.size, float(losses[0]) if losses.size else 0.0,
           float(losses[-1]) if losses.size else 0.0, infinity)
    for k, held, prof in _PROFILES:
        if k == key and held is probs:
            return prof
    positive = losses > 0
    ls, ps = losses[positive][::-1], probs[positive][::-1]
    if ls.size == 0:
        prof = None
    else:
        # the step of the grid (a guess needs no more than its computed value)
        y = _discounted(ps, float(ls[0] - ls[1]) if ls.size > 1 else 1.0)
        above = np.cumsum(ps)
        a = infinity + np.concatenate(([0.0], above[:-1]))    # mass strictly above l_n
        prof = (ls, ps, y, above, a)
    _PROFILES.insert(0, (key, probs, prof))
    del _PROFILES[2:]
    return prof


def _discounted(ps: np.ndarray, step: float) -> np.ndarray:
    """y_n = sum_(j<n) p_j e^(-(n - j) step), the recursion y_n = r (y_(n-1) + p_(n-1)),
    r = e^-step, in blocks of at most 30 / step entries (a factor up to e^30 inside a
    block): per block y_(s+k) = r^k (y_s + sum_(j<k) p_(s+j) r^-j), one cumsum. Computed,
    not certified (a guess of `float_inversion`). Replaces scipy's lfilter, whose package
    scipy.signal cost 0.7 s of every `compose` process's imports."""
    out = np.empty(ps.size)
    block = max(1, int(30.0 / step)) if step > 0 else ps.size
    carry = 0.0
    for s in range(0, ps.size, block):
        part = ps[s:s + block]
        k = np.arange(part.size, dtype=float)
        grow = np.exp(k * step)                                # r^-k
        partial = np.concatenate(([0.0], np.cumsum(part[:-1] * grow[:-1])))
        out[s:s + part.size] = np.exp(-k * step) * (carry + partial)
        carry = math.exp(-part.size * step) * (carry + float(partial[-1])
                                               + float(part[-1] * grow[-1]))
    return out
