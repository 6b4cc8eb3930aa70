"""A certified blanket upper bound on delta(eps) of any shuffled local randomizer, any n.

The argument is docs/clones-and-blankets.md#blanket-bound-for-a-randomizer-matrix; in short:

1. Blanket decomposition (Balle, Bell, Gascon, Nissim, CRYPTO 2019): with
   gamma_b = sum_y min_x R(y|x) and omega(y) = min_x R(y|x)/gamma_b, every row is
   gamma_b omega + (1 - gamma_b) R'_x. Revealing which other users drew from omega and
   what the rest drew leaves, for an ordered input pair (x, x'), the pair "blanket size
   N ~ Bin(n-1, gamma_b) and the multiset of the differing user's message and N omega-draws",
   which dominates every dataset with the differing user holding x (P) or x' (Q).
2. Given N, with c = N + 1, d(y) = (R(y|x) - g R(y|x'))/omega(y) on supp(omega), g = e^eps:
   H_g(P_N||Q_N) = off(g) + E[(D_1 + ... + D_c)_+]/c, D_i iid d(Y), Y ~ omega, and
   off(g) = sum_{y outside supp(omega)} (R(y|x) - g R(y|x'))_+. H is nonincreasing in N.
3. Randomized rounding to a lattice of step Delta (a power of 2), with conditional mean
   >= d(y), is a mean-preserving spread plus a nonnegative shift, so (Jensen, (.)_+ convex
   and nondecreasing) E[(sum D)_+] <= E[(sum D~)_+]: an upper bound, whose slack is only
   the added variance (<= Delta^2/4 per message).
4. E[(Sigma)_+] for the integer sum Sigma = sum D~/Delta is computed under an exponential
   tilt theta > 0: P(Sigma = s) = e^(-theta s) g^{*c}(s), g(j) = f(j) e^(theta j), as the
   Parseval sum (1/L) sum_k phi_k^c conj(w^_k) of a length-L FFT (phi = DFT of g/scale,
   w_s = s e^(-theta s) on 1 <= s < L/2). Cyclic aliasing only adds nonnegative mass to
   the window; the mass at s >= L/2 is bounded by Chernoff; FFT round-off by a stated
   error model (10 u log2(L) in the 2-norm, Higham 2002, Thm 24.2), the complex power by
   the mean-value bound |a^c - b^c| <= c |a - b| max(|a|, |b|)^(c-1); every bound is added.
5. The mixture over N uses monotone coarsening (block start values, outside-window mass
   at value 1) with q = the largest float <= gamma_b (a smaller q makes N stochastically
   smaller, which can only raise a mixture of nonincreasing H_N).

Both orders: the maximum over all ordered input pairs (x, x'), after merging pairs that are
the same up to a relabelling of outputs. epsilon(delta): a bracketing search whose reported
upper end has certified delta <= the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.optimize import brentq

from accountant.domains import DELTA, EPSILON, N_PAIR
from accountant.errors import ParameterError
from accountant.numeric.logspace import logsumexp
from accountant.numeric.rounding import UNIT_ROUNDOFF, down, sum_relative_error
from accountant.pairs.clones import count_blocks
from accountant.protocols.randomizer.matrix import Randomizer
from accountant.result import Direction, Kind, Result, Source

__all__ = ["BlanketBound", "PairTerms", "blanket_bound", "delta_for_epsilon",
           "delta_given_blanket", "epsilon_for_delta", "positive_part_mean"]

_U = UNIT_ROUNDOFF
_FFT_ETA = 10 * _U  # stated per-stage error of a radix-2 FFT (docs section, step 4)
_MAX_FFT = 2 ** 22
_SOURCE = Source(citation="Balle, Bell, Gascon, Nissim, CRYPTO 2019 (blanket decomposition)",
                 locator="docs/clones-and-blankets.md#blanket-bound-for-a-randomizer-matrix")


@dataclass(frozen=True, eq=False)
class PairTerms:
    """One ordered input pair (x, x') in float form, with what the bound needs.

    Attributes:
        x, x_prime: the differing user's inputs under P and Q.
        a, b: R(y|x)/omega(y) and R(y|x')/omega(y) on the support of omega (each the
            nearest float to the exact value).
        weights: omega(y) on the support (nearest floats).
        off_p, off_q: R(y|x), R(y|x') on outputs outside the support.
        copies: how many ordered pairs share these terms (up to relabelling outputs).
    """

    x: int
    x_prime: int
    a: np.ndarray
    b: np.ndarray
    weights: np.ndarray
    off_p: np.ndarray
    off_q: np.ndarray
    copies: int = 1


@dataclass(frozen=True, eq=False)
class BlanketBound:
    """The blanket pairs of a randomizer with n users (module docstring).

    Attributes:
        matrix: the randomizer.
        n: number of users.
        blanket_mass: gamma_b exactly.
        q: the largest float <= gamma_b (N ~ Bin(n-1, q) is used).
        pairs: distinct ordered input pairs.
    """

    matrix: Randomizer
    n: int
    blanket_mass: Fraction
    q: float
    pairs: tuple[PairTerms, ...]
    source: Source = _SOURCE
    description: dict[str, Any] = field(default_factory=dict)


def blanket_bound(matrix: Randomizer, n: int) -> BlanketBound:
    """The blanket pairs of `matrix` for n shuffled users: an UPPER bound on every dataset.

    Raises:
        ParameterError: n < 2.
    """
    N_PAIR.check(n)
    n = int(n)
    gamma, omega = matrix.blanket()
    support = [y for y in range(matrix.outputs) if omega[y] > 0]
    outside = [y for y in range(matrix.outputs) if omega[y] == 0]
    seen: dict[Any, int] = {}
    pairs: list[PairTerms] = []
    for x in range(matrix.inputs):
        for x1 in range(matrix.inputs):
            if x == x1:
                continue
            rx, rx1 = matrix.rows[x], matrix.rows[x1]
            key = (tuple(sorted((rx[y], rx1[y], omega[y]) for y in support)),
                   tuple(sorted((rx[y], rx1[y]) for y in outside)))
            if key in seen:
                i = seen[key]
                old = pairs[i]
                pairs[i] = PairTerms(x=old.x, x_prime=old.x_prime, a=old.a, b=old.b,
                                     weights=old.weights, off_p=old.off_p, off_q=old.off_q,
                                     copies=old.copies + 1)
                continue
            # merge outputs with equal (a, b): their weights add (exactly, as Fractions)
            merged: dict[tuple[Fraction, Fraction], Fraction] = {}
            for y in support:
                ab = (rx[y] / omega[y], rx1[y] / omega[y])
                merged[ab] = merged.get(ab, Fraction(0)) + omega[y]
            items = sorted(merged.items())
            seen[key] = len(pairs)
            pairs.append(PairTerms(
                x=x, x_prime=x1, a=np.array([float(k[0]) for k, _ in items]),
                b=np.array([float(k[1]) for k, _ in items]),
                weights=np.array([float(v) for _, v in items]),
                off_p=np.array([float(rx[y]) for y in outside]),
                off_q=np.array([float(rx1[y]) for y in outside])))
    return BlanketBound(matrix=matrix, n=n, blanket_mass=gamma, q=down(gamma),
                        pairs=tuple(pairs),
                        description={"pair": "randomizer blanket", "matrix": matrix.name,
                                     "n": n, "blanket_mass": float(gamma)})


# ---------------------------------------------------------------------- one pair, many N
def positive_part_mean(d: np.ndarray, d_err: np.ndarray, weights: np.ndarray,
                       counts: np.ndarray, *, resolution: int = 64,
                       mirrored: bool = False) -> np.ndarray:
    """Upper bounds on E[(D_1 + ... + D_c)_+] / c for each c in `counts`.

    D_i are iid, P(D = d_y) = weights_y, with |computed d_y - true d_y| <= d_err_y and each
    weight within relative (len(d) + 2) u of the true probability (which sum to 1).

    Args:
        d, d_err, weights: the values, their absolute error bounds, their probabilities.
        counts: integers c >= 1.
        resolution: lattice steps per tilted standard deviation (accuracy only).
        mirrored: internal; set when called on -d (no second mirroring).

    Returns:
        Array of upper bounds, one per count (module docstring, steps 3 and 4).
    """
    counts = np.asarray(counts, dtype=np.int64)
    hi = d + d_err
    rho_w = (d.size + 2) * _U
    # E[(mean of c)_+] <= E[(D)_+] for every c (convexity): the fallback
    trivial = float(np.sum(weights * np.maximum(hi, 0.0))) * (1 + rho_w) * (
        1 + sum_relative_error(d.size)) + 1e-300
    out = np.full(counts.size, trivial)
    if np.all(hi <= 0):
        return np.zeros(counts.size)
    scale = float(np.sum(weights * np.abs(hi)))
    mean_up = float(np.sum(weights * hi))
    if mean_up >= -1e-9 * scale:
        # E[(S)_+] = E[S] + E[(-S)_+]: the mean (rounded up) plus the mirrored problem,
        # whose mean is clearly negative unless the mean is near 0 (then the fallback)
        mean_lo = float(np.sum(weights * (d - d_err)))
        if not mirrored and mean_lo > 1e-9 * scale:
            top = (mean_up + abs(mean_up) * rho_w + scale * sum_relative_error(d.size)
                   + 1e-300)
            mirror = positive_part_mean(-d, d_err, weights, counts, resolution=resolution,
                                        mirrored=True)
            return np.minimum(out, top + mirror)
        return out
    theta_c = _saddle(hi, weights)
    sd = math.sqrt(_tilted_variance(hi, weights, theta_c))
    if not sd > 0:
        return out
    # lattice step: `resolution` steps per tilted sd, but at most 2^14 steps over the range
    # of d (extreme tilts, far in the tail, where a coarser lattice is still an upper bound)
    spread = float(np.max(hi) - np.min(hi))
    step = 2.0 ** math.floor(math.log2(max(sd / resolution, spread / 2 ** 14, 1e-300)))
    for _ in range(8):
        res = _lattice_bound(hi, weights, counts, step, rho_w)
        if res is not None:
            return np.minimum(res, out)
        step *= 4.0
    return out


def _saddle(v: np.ndarray, w: np.ndarray) -> float:
    """theta > 0 with sum w v e^(theta v) = 0 (v has positive and negative mean...)."""
    top = float(np.max(v))

    def f(t: float) -> float:
        return float(np.sum(w * v * np.exp(t * (v - top))))

    b = 1.0 / max(top, 1e-300)
    while f(b) < 0:
        b *= 2.0
        if b > 1e300:
            return b
    return brentq(f, 0.0, b, xtol=1e-14 * b, rtol=1e-12, maxiter=300)


def _tilted_variance(v: np.ndarray, w: np.ndarray, t: float) -> float:
    e = w * np.exp(t * (v - np.max(v)))
    e = e / np.sum(e)
    mean = float(np.sum(e * v))
    return float(np.sum(e * (v - mean) ** 2))


def _lattice_bound(hi: np.ndarray, weights: np.ndarray, counts: np.ndarray, step: float,
                   rho_w: float) -> np.ndarray | None:
    """The tilted-FFT bound on a lattice of `step` (module docstring, step 4), or None when
    the FFT would exceed _MAX_FFT points."""
    t_up = hi / step
    t_up = np.nextafter(t_up, np.inf)  # hi/step is exact (power of 2) unless subnormal
    lo = np.floor(t_up)
    frac = t_up - lo  # exact
    j_min, j_max = int(lo.min()), int(lo.max()) + 1
    if j_max - j_min > 2 ** 18:
        return None
    f = np.zeros(j_max - j_min + 1)
    np.add.at(f, (lo - j_min).astype(np.int64), weights * (1.0 - frac))
    np.add.at(f, (lo - j_min + 1).astype(np.int64), weights * frac)
    js = np.arange(j_min, j_max + 1)
    keep = f > 0
    f, js = f[keep], js[keep]
    if js.max() <= 0:
        return np.zeros(counts.size)  # the rounded sum is never positive
    if float(np.sum(f * js)) >= 0:
        return None
    rho_f = rho_w + (hi.size + 3) * _U
    theta = _saddle(js.astype(float), f)
    sd = math.sqrt(_tilted_variance(js.astype(float), f, theta))
    c_max, c_min = int(counts.max()), int(counts.min())
    theta = max(theta, 4.0 / (max(sd, 1.0) * math.sqrt(c_max)))
    log_g = np.log(f) + theta * js
    log_scale = logsumexp(log_g)
    h = np.exp(log_g - log_scale)
    tilt_mean = float(np.sum(h * js) / np.sum(h))
    tilt_sd = math.sqrt(max(float(np.sum(h * (js - tilt_mean) ** 2) / np.sum(h)), 1.0))
    reach = (max(c_max * tilt_mean, 0.0) + 14.0 * tilt_sd * math.sqrt(c_max)
             + (j_max - j_min) + 2.0)
    reach = max(reach, (80.0 + math.log(c_max * (abs(j_max) + 1.0))) / theta)
    size = 1 << max(4, math.ceil(math.log2(2.0 * reach + 2.0)))
    if size > _MAX_FFT:
        return None
    rho = rho_f + 4 * _U * (2.0 + float(np.max(np.abs(np.log(f)) + np.abs(theta * js)))
                            + abs(log_scale)) * 1.01 + 2 * _U
    vec = np.zeros(size)
    np.add.at(vec, np.mod(js, size), h)
    # real input: half spectrum; bin k stands for k and L-k (mult 2) except 0 and L/2
    phi = np.fft.rfft(vec)
    mult = np.full(phi.size, 2.0)
    mult[0] = mult[-1] = 1.0
    log2l = math.log2(size)
    e1 = _FFT_ETA * log2l * math.sqrt(size) * float(np.linalg.norm(vec)) * 1.01
    s = np.arange(1, size // 2, dtype=float)
    wts = np.zeros(size)
    wts[1:size // 2] = np.exp(np.log(s) - theta * s)
    eps_w = 4 * _U * (2.0 + math.log(size) + theta * size / 2)
    what = np.fft.rfft(wts)
    e_w = _FFT_ETA * log2l * math.sqrt(size) * float(np.linalg.norm(wts)) * 1.01
    r = np.abs(phi) + e1
    wabs = np.abs(what) + e_w
    with np.errstate(divide="ignore"):
        log_r = np.log(r)
    live = c_min * log_r > -80.0
    excluded = math.exp(-80.0) * float(np.sum((mult * wabs)[~live])) * 1.01
    phi_k, what_c = phi[live], np.conj(what[live])
    r_k, mult_k = r[live], mult[live]
    w2_k = mult_k * wabs[live] ** 2
    with np.errstate(divide="ignore"):
        log_mod = np.log(np.abs(phi_k))
    abs_log = np.abs(np.where(np.isfinite(log_mod), log_mod, 0.0))
    ang = np.angle(phi_k)
    sum_rel = sum_relative_error(int(live.sum())) + 8 * _U
    # H_N is nonincreasing in N, so a bound at a smaller count holds at every larger one:
    # when the work would be large, evaluate a thinned subset of the counts (always the
    # smallest) and give each count the value at the largest evaluated count below it
    order = np.argsort(counts, kind="stable")
    budget = max(4, int(3e7 // max(int(live.sum()), 1)))
    picks = np.unique(np.linspace(0, counts.size - 1, min(budget, counts.size)).round()
                      .astype(np.int64))
    evaluated = order[picks]
    values = np.empty(evaluated.size)
    prev = -1
    power = rc = np.zeros(0)
    kappa_extra = 0.0
    for i, c in enumerate(counts[evaluated]):
        c = int(c)
        if prev > 0 and 0 <= c - prev <= 8:
            # phi^c = phi^prev * phi^(c - prev): each product adds <= 6u relative
            for _ in range(c - prev):
                power = power * phi_k
                rc = rc * r_k
            kappa_extra += 6 * _U * (c - prev)
        else:
            power = np.exp(c * log_mod) * (np.cos(c * ang) + 1j * np.sin(c * ang))
            rc = np.exp(c * np.log(r_k))
            kappa_extra = 0.0
        prev = c
        rc_up = rc * (1 + 4 * _U * (2 + c * (1 + np.abs(np.log(r_k)))) + kappa_extra)
        v = float(np.sum(mult_k * (power * what_c).real)) / size
        mag = mult_k * np.abs(power) * np.abs(what_c)
        kappa = 4 * _U * (2.0 + c * (3.0 + abs_log + 2 * math.pi)) + kappa_extra
        e3 = float(np.sum(mag * (kappa + 4 * _U))) + sum_rel * float(np.sum(mag))
        e1_c = c * e1 * math.sqrt(float(np.sum(w2_k * (rc_up / r_k) ** 2)))
        e2_c = e_w * math.sqrt(float(np.sum(mult_k * rc_up ** 2)))
        t_val = v + (e1_c + e2_c + e3 + excluded) / size
        t_val = t_val / ((1 - rho) ** c * (1 - eps_w))
        if not t_val > 0:
            t_val = 1e-300
        log_main = c * log_scale + math.log(t_val)
        log_tail = (math.log(c * max(j_max, 1)) - theta * (size // 2)
                    + c * (log_scale + math.log1p(2 * rho)))
        log_e = float(np.logaddexp(log_main, log_tail)) + 1e-12
        values[i] = step * math.exp(min(log_e, 700.0)) / c * (1 + 8 * _U) if log_e > -700 \
            else 1e-300
    sorted_counts = counts[order]
    at = np.searchsorted(counts[evaluated], sorted_counts, side="right") - 1
    out = np.empty(counts.size)
    out[order] = values[at]
    return out


# ---------------------------------------------------------------------- mixtures
def _pair_h(pair: PairTerms, gamma: float, counts: np.ndarray) -> np.ndarray:
    """Upper bounds on H_gamma(P_N || Q_N) for N = counts - 1 (module docstring, step 2)."""
    off = 0.0
    if pair.off_p.size:
        t = pair.off_p - gamma * pair.off_q + 3 * _U * (pair.off_p + gamma * pair.off_q)
        off = float(np.sum(np.maximum(t, 0.0))) * (1 + (pair.off_p.size + 2) * _U)
    if pair.a.size == 0:
        return np.full(counts.size, min(off, 1.0))
    d = pair.a - gamma * pair.b
    d_err = 4 * _U * (pair.a + gamma * pair.b)
    inner = positive_part_mean(d, d_err, pair.weights, counts)
    return np.minimum(off + inner * (1 + 2 * _U), 1.0)


def _layout(bound: BlanketBound, tail: float, blocks: int) -> tuple[Any, ...]:
    if bound.q <= 0.0:
        return (np.array([0]), np.array([0]), np.array([1.0]), -math.inf)
    return count_blocks(bound.n - 1, bound.q, tail, blocks)


def _mixture(bound: BlanketBound, pair: PairTerms, gamma: float, layout: tuple[Any, ...]) -> \
        float:
    starts, _, masses, log_cut = layout
    h = _pair_h(pair, gamma, np.asarray(starts) + 1)
    cut = math.exp(log_cut) if log_cut > -745 else 0.0
    return min(math.fsum(masses * h) * (1 + 1e-12) + cut * (1 + 1e-12), 1.0)


def _gamma(epsilon: float) -> float:
    """A float <= e^epsilon (H is nonincreasing in gamma, so this errs upward)."""
    return max(math.exp(epsilon) * (1 - 2 * _U), 1.0)


def delta_given_blanket(bound: BlanketBound, *, counts: Any, exp_epsilon: float,
                        pair: int = 0) -> np.ndarray:
    """Upper bounds on H_g(P_N||Q_N) of one pair for N = counts - 1 (tests, diagnostics)."""
    return _pair_h(bound.pairs[pair], float(exp_epsilon),
                   np.atleast_1d(np.asarray(counts, dtype=np.int64)))


def delta_for_epsilon(bound: BlanketBound, *, epsilon: float | None = None,
                      exp_epsilon: float | None = None, tail: float = 1e-30,
                      blocks: int = 64) -> Result:
    """Certified upper bound on delta(eps) of the shuffled randomizer, every dataset, both
    orders (the maximum over ordered input pairs of the blanket pair's value).

    Args:
        bound: from `blanket_bound`.
        epsilon: eps >= 0 (e^eps is rounded down), or
        exp_epsilon: e^eps >= 1 as a float, used exactly.
        tail: certified count-window tail.
        blocks: count blocks (accuracy only).

    Returns:
        Result(quantity="delta", kind=UPPER, direction=MAX).

    Raises:
        ParameterError: both or neither of epsilon and exp_epsilon, or out of domain.
    """
    if (epsilon is None) == (exp_epsilon is None):
        raise ParameterError("give exactly one of epsilon and exp_epsilon")
    if epsilon is not None:
        EPSILON.check(epsilon)
        gamma, at = _gamma(float(epsilon)), float(epsilon)
    else:
        if not (isinstance(exp_epsilon, int | float) and exp_epsilon >= 1
                and math.isfinite(exp_epsilon)):
            raise ParameterError(f"exp_epsilon={exp_epsilon!r} is outside [1, inf)")
        gamma, at = float(exp_epsilon), math.log(exp_epsilon)
    layout = _layout(bound, tail, blocks)
    values = [_mixture(bound, p, gamma, layout) for p in bound.pairs]
    worst = int(np.argmax(values))
    p = bound.pairs[worst]
    return Result(quantity="delta", value=float(values[worst]), kind=Kind.UPPER,
                  direction=Direction.MAX, source=bound.source, at=at,
                  method=f"protocols.randomizer.blanket.delta_for_epsilon (worst ordered "
                         f"pair x={p.x}, x'={p.x_prime} of {len(bound.pairs)} distinct)")


def epsilon_for_delta(bound: BlanketBound, *, delta: float, relative_tolerance: float = 1e-4,
                      blocks: int = 64, epsilon_max: float = 60.0) -> Result:
    """Certified upper bound on epsilon(delta): an eps whose certified delta(eps) <= delta
    for every ordered input pair (so the shuffled randomizer is (eps, delta)-DP).

    The search brackets [a, b] with the certified bound above delta at a and at most delta
    at b, shrinking to `relative_tolerance`; it follows the currently worst pair and checks
    every pair at the final b (restarting with any pair that fails). Returns +inf when even
    eps = min(epsilon0, epsilon_max) does not bring the bound to delta.

    Raises:
        ParameterError: delta outside (0, 1).
    """
    DELTA.check(delta)
    tail = max(min(delta * 1e-9, 1e-30), 1e-300)
    layout = _layout(bound, tail, blocks)
    top = min(bound.matrix.epsilon0, epsilon_max)
    cache: dict[tuple[int, float], float] = {}

    def value(i: int, e: float) -> float:
        if (i, e) not in cache:
            cache[(i, e)] = _mixture(bound, bound.pairs[i], _gamma(e), layout)
        return cache[(i, e)]

    everyone = range(len(bound.pairs))
    worst_at_top = [value(i, top) for i in everyone]
    m = "protocols.randomizer.blanket.epsilon_for_delta"
    if max(worst_at_top) > delta:
        return Result(quantity="epsilon", value=math.inf, kind=Kind.UPPER,
                      direction=Direction.MAX, source=bound.source, at=float(delta),
                      method=f"{m} (bound above delta at eps={top:g})")
    probe = top / 4
    scores = [value(i, probe) for i in everyone]
    active = {int(np.argmax(scores))}
    a, b = 0.0, top
    while True:
        while b - a > relative_tolerance * b:
            mid = math.sqrt(a * b) if a > 0 and b / a < 1e6 else (
                0.5 * (a + b) if a > 0 else b / 8)
            if max(value(i, mid) for i in active) > delta:
                a = mid
            else:
                b = mid
        failing = [i for i in everyone if value(i, b) > delta]
        if not failing:
            break
        active.update(failing)
        a = b
        b = top
    worst = max(everyone, key=lambda i: value(i, b))
    p = bound.pairs[worst]
    return Result(quantity="epsilon", value=float(b), kind=Kind.UPPER, direction=Direction.MAX,
                  source=bound.source, at=float(delta), error_budget=float(b - a),
                  method=f"{m} (bracket [{a:.6g}, {b:.6g}]; worst ordered pair x={p.x}, "
                         f"x'={p.x_prime} of {len(bound.pairs)} distinct)")
