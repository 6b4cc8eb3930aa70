"""Certified blanket upper bound on delta(eps) of a shuffled continuous local randomizer.

docs/continuous-randomizers.md#the-blanket-bound has the proof; in short, for noise laws
with f_1(y) = f_0(1 - y) and f_0/f_1 nonincreasing (`laws`):

1. Blanket (Balle, Bell, Gascon, Nissim, CRYPTO 2019): gamma = int min(f_0, f_1),
   omega = min(f_0, f_1)/gamma. Revealing which other users drew from omega and what the
   others drew leaves N ~ Bin(n-1, q) (any q <= gamma) and the multiset of c = N + 1
   messages; H_g(P_N || Q_N) = E[(Z_1 + ... + Z_c)_+]/c with Z = (f_0 - g f_1)/omega(W),
   W ~ omega, and it is nonincreasing in N. Symmetric in the order (y -> 1 - y).
2. Z(y) is nonincreasing in y. A partition of y into bins is mapped to two-point laws on
   the bin's Z-range [lo, hi] with the bin's exact mass and first moment (closed forms in
   the noise CDF): a mean-preserving spread, so E[(sum)_+] can only grow (Jensen). The
   far tails: Z clipped below (upward), and above at M with E[(Z - M)_+] <= P_0(far left)
   added ((a + b)_+ <= a_+ + b_+).
3. Float error of the masses and moments: the omega-survival function of each half is
   rounded in the direction that moves mass towards larger Z, and each bin's share of its
   upper point is rounded up: upward moves of mass only.
4. The positive-part mean of the c-fold sum of that discrete law is the certified tilted
   FFT of `accountant.protocols.randomizer.blanket.positive_part_mean`; the mixture over N
   uses monotone coarsening (`pairs.clones.count_blocks`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accountant.numeric.rounding import UNIT_ROUNDOFF, down
from accountant.pairs.clones import count_blocks
from accountant.protocols import randomizer
from accountant.protocols.continuous.laws import CDF_RELATIVE_ERROR, NoiseLaw
from accountant.result import Direction, Kind, Result, Source

__all__ = ["BlanketLaw", "blanket_law", "delta_given_count", "delta_upper", "epsilon_upper",
           "grid", "SOURCE"]

_U = UNIT_ROUNDOFF
SOURCE = Source(citation="Balle, Bell, Gascon, Nissim, CRYPTO 2019 (privacy blanket)",
                locator="docs/continuous-randomizers.md#the-blanket-bound")


@dataclass(frozen=True, slots=True)
class BlanketLaw:
    """The discretized blanket terms Z of one noise law at one e^eps.

    Attributes:
        points: the support of the discrete law that dominates Z (increasing convex order).
        weights: its probabilities (the top point carries the moved deficit).
        tail: an upper bound on E[(Z - max(points))_+], added to every count's value.
        gamma: the blanket mass used (a float <= the true gamma).
        exp_epsilon: g = e^eps (a float, used exactly).
    """

    points: np.ndarray
    weights: np.ndarray
    tail: float
    gamma: float
    exp_epsilon: float


def grid(law: NoiseLaw, tail: float) -> np.ndarray:
    """Offsets t >= 0 from y = 1/2 (dyadic, so 1/2 +- t is exact): fine near the centre,
    out to where the far-left mass P_0(Y < 1/2 - T) is below `tail`. For integer laws the
    cuts are 0 and half-integers, so that each bin holds whole atoms."""
    s = law.scale
    tail = max(tail, 1e-290)  # below, the CDF leaves the stated error model (subnormals)
    step = 2.0 ** math.floor(math.log2(s / 64.0))
    top = step
    while float(law.cdf(np.array(0.5 - top))) > tail and top < 1e6 * s:
        top *= 1.05
    top = math.ceil(top / step) * step
    # uniform in the bulk (64 bins per scale), then geometric beyond 6 scales
    bulk = min(top, math.ceil(6.0 * s / step) * step)
    t = np.arange(0.0, bulk + step / 2, step)
    if top > bulk:
        far = np.geomspace(bulk, top, 64)[1:]
        t = np.concatenate([t, np.round(far / step) * step])
    kinks = [k for k in (0.5,) if law.name == "laplace" and k < top]
    t = np.unique(np.concatenate([t, np.array(kinks, dtype=float)]))
    if law.integer:
        # cut between atoms (the bin's mass and conditional mean are exact for any interval;
        # a bin may hold several atoms when the scale is large)
        t = np.unique(np.concatenate([[0.0], np.floor(t) + 0.5]))
    return t


def blanket_law(law: NoiseLaw, exp_epsilon: float, *, tail: float = 1e-16) -> BlanketLaw:
    """The discrete law (module docstring, steps 2-3) for one noise law and g = e^eps.

    Args:
        law: the noise law (validated by its family).
        exp_epsilon: g >= 1, a float used exactly.
        tail: target for the far-left mass whose positive part is added.

    Returns:
        The `BlanketLaw`.
    """
    g = float(exp_epsilon)
    rho = CDF_RELATIVE_ERROR
    gamma_f = law.blanket_mass()
    gamma_lo, gamma_hi = gamma_f * (1 - 2 * rho), gamma_f * (1 + 2 * rho)
    t = grid(law, tail)
    ca = law.cdf(0.5 - t)    # P_0(Y <= 1/2 - t) = P_1(Y >= 1/2 + t)
    cb = law.cdf(-0.5 - t)   # P_1(Y <= 1/2 - t) = P_0(Y >= 1/2 + t)
    # omega-mass beyond offset t on each half: S(t) = cb(t) / (2 cb(0)), S(0) = 1/2 exactly.
    # Left half (y = 1/2 - t): Z grows with t, so S is rounded up (mass moves to larger t);
    # right half (y = 1/2 + t): Z falls with t, so S is rounded down. Both are upward moves
    # of mass between bins ordered in Z (step 3); each half keeps total 1/2.
    surv = cb / (2.0 * cb[0])
    rel = 3 * rho + 4 * _U
    # (+1e-300: a mass that underflowed to 0 is still covered)
    s_up = np.maximum.accumulate(np.minimum(surv * (1 + rel) + 1e-300, 0.5)[::-1])[::-1]
    s_dn = np.minimum.accumulate(np.maximum(surv * (1 - rel), 0.0))
    s_up[0] = s_dn[0] = 0.5
    # bin masses (differences of floats: relative error u, the engine's weight model)
    m_left, m_right = s_up[:-1] - s_up[1:], s_dn[:-1] - s_dn[1:]
    # conditional means from the exact bin: left gamma (a/b - g), right gamma (1 - g a/b),
    # a = f_0-mass (left) / f_1-mass (right) of the bin, b = the other one
    a = ca[:-1] - ca[1:]
    b = cb[:-1] - cb[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(b > 0, a / b, 1.0)
        rel_ratio = np.where(b > 0, rho * (ca[:-1] + ca[1:]) / np.abs(a)
                             + rho * (cb[:-1] + cb[1:]) / b + 4 * _U, np.inf)
    lam = law.log_ratio(0.5 - t)  # >= 0, nondecreasing in t
    e_lam = np.exp(lam)
    slack = 1e-12 + 8 * _U * (1 + lam)
    # the bin's Z-range, widened outward for the float error of Z (and of gamma)
    left_lo = np.minimum(gamma_lo * (e_lam[:-1] - g), gamma_hi * (e_lam[:-1] - g))
    left_hi = np.maximum(gamma_lo * (e_lam[1:] - g), gamma_hi * (e_lam[1:] - g))
    right_lo = np.minimum(gamma_lo * (1 - g * e_lam[1:]), gamma_hi * (1 - g * e_lam[1:]))
    right_hi = np.maximum(gamma_lo * (1 - g * e_lam[:-1]), gamma_hi * (1 - g * e_lam[:-1]))
    size_l = gamma_hi * (e_lam + g)
    size_r = gamma_hi * (1 + g * e_lam)
    left_lo = left_lo - slack[:-1] * size_l[:-1] - 1e-300
    left_hi = left_hi + slack[1:] * size_l[1:] + 1e-300
    right_lo = right_lo - slack[1:] * size_r[1:] - 1e-300
    right_hi = right_hi + slack[:-1] * size_r[:-1] + 1e-300
    mean_left = gamma_f * (ratio - g)
    mean_right = gamma_f * (1 - g * ratio)
    with np.errstate(over="ignore"):
        # an error that overflows is +inf: the bin's share below then puts all its mass on
        # the upper point (upward), never a NaN
        err_left = (gamma_hi * ratio * np.minimum(rel_ratio, 1e300)
                    + 4 * rho * np.abs(mean_left))
        err_right = (g * gamma_hi * ratio * np.minimum(rel_ratio, 1e300)
                     + 4 * rho * np.abs(mean_right))
    pts: list[np.ndarray] = []
    wts: list[np.ndarray] = []
    for lo, hi, mean, err, mass in ((left_lo, left_hi, mean_left, err_left, m_left),
                                    (right_lo, right_hi, mean_right, err_right, m_right)):
        width = hi - lo
        with np.errstate(divide="ignore", invalid="ignore"):
            # the share of the upper point, rounded up (an upward move inside the bin)
            share = (mean + err - lo) / width * (1 + 8 * _U) + 8 * _U
        share = np.where(np.isfinite(share) & (width > 0), np.clip(share, 0.0, 1.0), 1.0)
        pts += [hi, lo]
        wts += [mass * share, mass * (1.0 - share)]
    # far tails: left (Z above left_hi[-1]) clipped at the largest point, its positive
    # excess bounded by P_0(Y < 1/2 - T) and added; right (Z below right_lo[-1]) put at
    # right_lo[-1] (upward)
    top = float(max(np.max(left_hi), np.max(right_hi)))
    points = np.concatenate([*pts, np.array([top, float(right_lo[-1])])])
    weights = np.concatenate([*wts, np.array([s_up[-1], s_dn[-1]])])
    keep = weights > 0
    tail_excess = float(ca[-1]) * (1 + 2 * rho) + 1e-300
    return BlanketLaw(points=points[keep], weights=weights[keep], tail=tail_excess,
                      gamma=down(gamma_lo), exp_epsilon=g)


def delta_given_count(terms: BlanketLaw, counts: np.ndarray) -> np.ndarray:
    """Upper bounds on H_g(P_N || Q_N) for c = N + 1 in `counts`.

    Args:
        terms: from `blanket_law`.
        counts: integers c >= 1.

    Returns:
        One upper bound per count (at most 1).
    """
    counts = np.asarray(counts, dtype=np.int64)
    inner = randomizer.blanket.positive_part_mean(terms.points, np.zeros(terms.points.size),
                                              terms.weights, counts)
    return np.minimum(inner * (1 + 2 * _U) + terms.tail, 1.0)


def _g(epsilon: float) -> float:
    # a float <= e^eps: delta is nonincreasing in g, so this errs upward
    return max(math.exp(epsilon) * (1 - 2 * _U), 1.0)


def delta_upper(law: NoiseLaw, n: int, epsilon: float, *, tail: float = 1e-16,
                blocks: int = 64) -> Result:
    """Certified upper bound on delta(eps) of n shuffled users with noise `law`, every
    dataset, both orders (the blanket pair is symmetric).

    Args:
        law: the noise law.
        n: users, >= 2 (checked by the family).
        epsilon: eps >= 0 (checked by the family).
        tail: budget for the count window and the far tail (each is added).
        blocks: count blocks (accuracy only).

    Returns:
        Result(quantity="delta", kind=UPPER, direction=MAX).
    """
    terms = blanket_law(law, _g(epsilon), tail=tail)
    value = _mixture(terms, n, tail, blocks)
    return Result(quantity="delta", value=value, kind=Kind.UPPER, direction=Direction.MAX,
                  source=SOURCE, at=float(epsilon),
                  method=f"protocols.continuous.blanket.delta_upper ({law.name} blanket, "
                         f"gamma={terms.gamma:.6g})")


def _mixture(terms: BlanketLaw, n: int, tail: float, blocks: int) -> float:
    starts, _, masses, log_cut = count_blocks(n - 1, terms.gamma, tail, blocks)
    h = delta_given_count(terms, np.asarray(starts) + 1)
    cut = math.exp(log_cut) if log_cut > -745 else 0.0
    return min(math.fsum(masses * h) * (1 + 1e-12) + cut * (1 + 1e-12), 1.0)


def epsilon_upper(law: NoiseLaw, n: int, delta: float, *, relative_tolerance: float = 1e-3,
                  blocks: int = 64, epsilon_max: float = 60.0,
                  guess: float | None = None) -> Result:
    """Certified upper bound on epsilon(delta): an eps whose certified blanket delta is
    <= delta (so the shuffled randomizer is (eps, delta)-DP for every dataset).

    The search keeps [a, b] with the bound above delta at a and at most delta at b and
    shrinks it (secant steps on sqrt(-log delta), bisection as a fallback) to
    `relative_tolerance`; +inf if even eps = epsilon_max does not bring the bound to delta.

    Args:
        law: the noise law.
        n: users, >= 2.
        delta: target in (0, 1).
        relative_tolerance: final (b - a)/b.
        blocks: count blocks (accuracy only).
        epsilon_max: largest eps tried.
        guess: where to look first (accuracy of the search only).

    Returns:
        Result(quantity="epsilon", kind=UPPER, direction=MAX), error_budget = b - a.
    """
    tail = max(delta * 1e-4, 1e-300)
    cache: dict[float, float] = {}

    def value(e: float) -> float:
        if e not in cache:
            cache[e] = _mixture(blanket_law(law, _g(e), tail=tail), n, tail, blocks)
        return cache[e]

    def psi(e: float) -> float:
        v = value(e)
        return (math.sqrt(-math.log(v)) if 0 < v < 1 else (math.inf if v <= 0 else 0.0)
                ) - math.sqrt(-math.log(delta))

    a, b = 0.0, None
    if value(0.0) <= delta:  # already (0, delta)-DP: the search below would halve forever
        b = 0.0
    e = guess if guess is not None and guess > 0 else 0.01
    # expand until the bound is at most delta (b), remembering the last point above (a)
    while b is None:
        if value(e) <= delta:
            b = e
        else:
            a = e
            if e >= epsilon_max:
                return Result(quantity="epsilon", value=math.inf, kind=Kind.UPPER,
                              direction=Direction.MAX, source=SOURCE, at=float(delta),
                              method="protocols.continuous.blanket.epsilon_upper (bound "
                                     f"above delta at eps={epsilon_max:g})")
            e = min(e * 1.5 if guess is not None else e * 4.0, epsilon_max)
    width = b - a
    while b - a > relative_tolerance * b and b > 0:
        fa = psi(a) if a > 0 else -math.inf
        fb = psi(b)
        c = 0.5 * (a + b)
        # a secant step only while the secant steps halve the bracket; otherwise bisect, so
        # that the search ends after at most about 2 log2(1/relative_tolerance) steps
        if (b - a <= 0.5 * width and math.isfinite(fa) and math.isfinite(fb) and fb > fa):
            c = a - fa * (b - a) / (fb - fa)
            # aim a little past the estimate on each side so the bracket closes from both
            h = 0.4 * relative_tolerance * b
            c = c + h if abs(c - a) < abs(c - b) else c - h
            c = min(max(c, a + 0.05 * (b - a)), b - 0.05 * (b - a))
        width = b - a
        if value(c) <= delta:
            b = c
        else:
            a = c
    return Result(quantity="epsilon", value=float(b), kind=Kind.UPPER, direction=Direction.MAX,
                  source=SOURCE, at=float(delta), error_budget=float(b - a),
                  method=f"protocols.continuous.blanket.epsilon_upper ({law.name} blanket; "
                         f"bracket [{a:.6g}, {b:.6g}])")
