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
   the window; the mass at s >= L/2 is bounded by Chernoff (the best of a few tilts t:
   c j_max e^(-t L/2) M(t)^c); FFT round-off by a stated
   error model (10 u log2(L) in the 2-norm, Higham 2002, Thm 24.2), the complex power by
   the mean-value bound |a^c - b^c| <= c |a - b| max(|a|, |b|)^(c-1); every bound is added.
5. The mixture over N uses monotone coarsening (block start values, outside-window mass
   at value 1) with q = the largest float <= gamma_b (a smaller q makes N stochastically
   smaller, which can only raise a mixture of nonincreasing H_N).

Both orders: the maximum over all ordered input pairs (x, x'), after merging pairs that are
the same up to a relabelling of outputs. Two cheaper bounds are certified too: Chernoff
without a lattice (x_+ <= e^(tx)/(e t), `chernoff_positive_part`) and the FFT bound on a
coarse lattice. epsilon(delta): a bracketing search (Illinois steps on sqrt(-log delta))
whose reported upper end has certified delta <= the target for every ordered pair, each
pair settled by the cheapest of the three bounds that does so.
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
from accountant.numeric.logspace import finite_abs, logsumexp
from accountant.numeric.rounding import UNIT_ROUNDOFF, down, sum_relative_error
from accountant.pairs.clones import count_blocks
from accountant.protocols.randomizer.matrix import Randomizer
from accountant.result import Direction, Kind, Result, Source

__all__ = ["BlanketBound", "PairTerms", "blanket_bound", "delta_for_epsilon",
           "delta_given_blanket", "epsilon_for_delta", "positive_part_mean",
           "certifiable_blanket", "MAX_BLANKET_RATIO"]

_U = UNIT_ROUNDOFF
_FFT_ETA = 10 * _U  # stated per-stage error of a radix-2 FFT (docs section, step 4)
_MAX_FFT = 2 ** 22
_REACH_SD = 10.0  # tilted standard deviations the FFT window covers on each side
_CHERNOFF = 0.0  # `resolution` that selects chernoff_positive_part (no lattice)
_COARSE = 4.0  # lattice steps per sd of the cheap check that usually settles a pair
# An output y whose column ratio max_x R(y|x) / min_x R(y|x) exceeds this is left out of
# the blanket (its min moves to the off-support terms): any smaller common component is
# still a valid decomposition (the bound can only grow), and the kept ratios
# R(y|x)/omega(y) stay far inside float range (their squares feed the tilted variance).
MAX_BLANKET_RATIO = 2.0 ** 128
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


def certifiable_blanket(matrix: Randomizer) -> tuple[Fraction, tuple[Fraction, ...], int]:
    """The blanket used by the bound: the matrix's (gamma, omega), except that outputs whose
    column ratio exceeds MAX_BLANKET_RATIO get no blanket mass.

    Args:
        matrix: the randomizer.

    Returns:
        (gamma, omega, dropped): the exact blanket mass and distribution (a common
        component of every row: gamma omega(y) <= R(y|x) for all x, y) and how many outputs
        were left out.
    """
    mins = []
    dropped = 0
    for y in range(matrix.outputs):
        col = matrix.column(y)
        low = min(col)
        if low > 0 and max(col) / low > MAX_BLANKET_RATIO:
            low = Fraction(0)
            dropped += 1
        mins.append(low)
    gamma = sum(mins, Fraction(0))
    if gamma == 0:
        return gamma, tuple(Fraction(0) for _ in mins), dropped
    return gamma, tuple(v / gamma for v in mins), dropped


def blanket_bound(matrix: Randomizer, n: int) -> BlanketBound:
    """The blanket pairs of `matrix` for n shuffled users: an UPPER bound on every dataset.

    Args:
        matrix: the randomizer.
        n: number of users, >= 2.

    Returns:
        The `BlanketBound` (blanket from `certifiable_blanket`).

    Raises:
        ParameterError: n < 2.
    """
    N_PAIR.check(n)
    n = int(n)
    gamma, omega, dropped = certifiable_blanket(matrix)
    support = [y for y in range(matrix.outputs) if omega[y] > 0]
    outside = [y for y in range(matrix.outputs) if omega[y] == 0]
    # exact values are compared through integer ids (equal Fractions, equal ids), so
    # that the pair keys below cost integer work, not Fraction arithmetic per pair
    ratio = [[row[y] / omega[y] for y in support] for row in matrix.rows]
    ids: dict[Fraction, int] = {}
    for v in [*(v for row in matrix.rows for v in row), *omega, *(v for r in ratio
                                                                   for v in r)]:
        ids.setdefault(v, len(ids))
    rid = np.array([[ids[v] for v in row] for row in matrix.rows], dtype=np.int64)
    aid = np.array([[ids[v] for v in r] for r in ratio], dtype=np.int64).reshape(
        matrix.inputs, len(support))
    wid = np.array([ids[omega[y]] for y in support], dtype=np.int64)
    a_float = np.array([[float(v) for v in r] for r in ratio]).reshape(matrix.inputs,
                                                                       len(support))
    w_exact = [omega[y] for y in support]
    r_float = np.array([[float(v) for v in row] for row in matrix.rows])
    sup, out = np.array(support, dtype=np.int64), np.array(outside, dtype=np.int64)
    seen: dict[Any, int] = {}
    pairs: list[PairTerms] = []
    copies: list[int] = []
    for x in range(matrix.inputs):
        for x1 in range(matrix.inputs):
            if x == x1:
                continue
            # the pair up to a relabelling of outputs: the multisets of (R(y|x), R(y|x'),
            # omega(y)) on the support and of (R(y|x), R(y|x')) outside it
            key = (tuple(sorted(zip(rid[x, sup].tolist(), rid[x1, sup].tolist(),
                                    wid.tolist(), strict=True))),
                   tuple(sorted(zip(rid[x, out].tolist(), rid[x1, out].tolist(),
                                    strict=True))))
            if key in seen:
                copies[seen[key]] += 1
                continue
            # merge outputs with equal (a, b): their weights add (exactly, as Fractions)
            groups: dict[tuple[int, int], list[int]] = {}
            for k, ab in enumerate(zip(aid[x].tolist(), aid[x1].tolist(), strict=True)):
                groups.setdefault(ab, []).append(k)
            members = list(groups.values())
            seen[key] = len(pairs)
            copies.append(1)
            pairs.append(PairTerms(
                x=x, x_prime=x1, a=np.array([a_float[x, g[0]] for g in members]),
                b=np.array([a_float[x1, g[0]] for g in members]),
                weights=np.array([float(w_exact[g[0]]) if len(g) == 1 else
                                  float(sum((w_exact[k] for k in g), Fraction(0)))
                                  for g in members]),
                off_p=r_float[x, out], off_q=r_float[x1, out]))
    pairs = [PairTerms(x=p.x, x_prime=p.x_prime, a=p.a, b=p.b, weights=p.weights,
                       off_p=p.off_p, off_q=p.off_q, copies=k)
             for p, k in zip(pairs, copies, strict=True)]
    return BlanketBound(matrix=matrix, n=n, blanket_mass=gamma, q=down(gamma),
                        pairs=tuple(pairs),
                        description={"pair": "randomizer blanket", "matrix": matrix.name,
                                     "n": n, "blanket_mass": float(gamma),
                                     **({"blanket_outputs_left_out": dropped} if dropped
                                        else {})})


# ---------------------------------------------------------------------- one pair, many N
def positive_part_mean(d: np.ndarray, d_err: np.ndarray, weights: np.ndarray,
                       counts: np.ndarray, *, resolution: float | None = None,
                       mirrored: bool = False) -> np.ndarray:
    """Upper bounds on E[(D_1 + ... + D_c)_+] / c for each c in `counts`.

    D_i are iid, P(D = d_y) = weights_y, with |computed d_y - true d_y| <= d_err_y and each
    weight within relative (len(d) + 2) u of the true probability (which sum to 1).

    Args:
        d, d_err, weights: the values, their absolute error bounds, their probabilities.
        counts: integers c >= 1.
        resolution: lattice steps per tilted standard deviation (accuracy only; None:
            64 for small counts, falling like c^(-1/2) to 16 from c ~ 6.6e4 on, which keeps
            the FFT near 2^19 points where the sum is nearly Gaussian anyway).
        mirrored: internal; set when called on -d (no second mirroring).

    Returns:
        Array of upper bounds, one per count (module docstring, steps 3 and 4).
    """
    counts = np.asarray(counts, dtype=np.int64)
    if resolution is None:
        resolution = min(64.0, max(32.0, 2.0 ** 13 / math.sqrt(float(counts.max()))))
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
    with np.errstate(over="ignore", invalid="ignore"):
        sd = math.sqrt(_tilted_variance(hi, weights, theta_c))
    # a variance that overflows (|d| near 1e155 at tiny noise) leaves the fallback, an upper
    # bound; NaN fails both comparisons
    if not 0 < sd < math.inf:
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


def chernoff_positive_part(d: np.ndarray, d_err: np.ndarray, weights: np.ndarray,
                           counts: np.ndarray) -> np.ndarray:
    """Cheap upper bounds on E[(D_1 + ... + D_c)_+] / c for each c in `counts`.

    For every t > 0 and real x, x_+ <= e^(t x) / (e t) (equality at x = 1/t), so
    E[(sum of c iid D)_+] <= M(t)^c / (e t) with M(t) = E[e^(t D)]: the best of a grid of
    t is taken. Looser than `positive_part_mean` by a factor of a few (the missing
    Gaussian prefactor), but it costs a few vector operations: the epsilon search uses it
    to clear the input pairs that are far from the worst one.

    Args:
        d, d_err, weights, counts: as in `positive_part_mean`.

    Returns:
        Array of upper bounds, one per count.
    """
    counts = np.asarray(counts, dtype=np.int64)
    hi = d + d_err
    if np.all(hi <= 0):
        return np.zeros(counts.size)
    rho_w = (d.size + 2) * _U
    mean_up = float(np.sum(weights * hi))
    base = _saddle(hi, weights) if mean_up < 0 else 1.0 / float(np.max(np.abs(hi)))
    c_typ = float(np.median(counts))
    sd = math.sqrt(max(_tilted_variance(hi, weights, base), 1e-300))
    # around the saddle of one message, and out to the 1/(c t) correction of the sum
    ts = np.unique(np.concatenate([base * np.geomspace(0.5, 4.0, 16),
                                   base + np.geomspace(0.1, 10.0, 16) / (sd * math.sqrt(
                                       c_typ))]))
    ts = ts[(ts > 0) & np.isfinite(ts)]
    exps = _tail_exponents(np.log(weights), hi, ts, rho_w)
    cs = counts.astype(float)[:, None]
    log_b = np.min(cs * exps[None, :] - 1.0 - np.log(ts)[None, :], axis=1) - np.log(cs[:, 0])
    return np.exp(np.minimum(log_b + 1e-12, 700.0)) * (1 + 8 * _U)


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
    # a tilt of at least one sum-sd^-1: the weight s e^(-theta s) then falls by e^-1 per
    # standard deviation of the sum, while the tilted sum moves by only about one
    theta = max(theta, 1.0 / (max(sd, 1.0) * math.sqrt(c_max)))
    log_f = np.log(f)
    log_g = log_f + theta * js
    log_scale = logsumexp(log_g)
    h = np.exp(log_g - log_scale)
    tilt_mean = float(np.sum(h * js) / np.sum(h))
    tilt_sd = math.sqrt(max(float(np.sum(h * (js - tilt_mean) ** 2) / np.sum(h)), 1.0))
    # the window covers the tilted sum to _REACH_SD standard deviations; what lies beyond
    # is bounded by Chernoff (_log_tail), so the reach affects tightness only
    reach = (max(c_max * tilt_mean, 0.0) + _REACH_SD * tilt_sd * math.sqrt(c_max)
             + (j_max - j_min) + 2.0)
    size = 1 << max(4, math.ceil(math.log2(2.0 * reach + 2.0)))
    if size > _MAX_FFT:
        return None
    rho = _log_rounding(log_f, theta * js, log_scale, rho_f)
    # Chernoff exponents for the mass beyond the window: the window's tilt, multiples of
    # it, and the Gaussian estimates of the best tilt at the smallest and largest count
    guesses = [theta + max(size // 2 - c * tilt_mean, 0.0) / (c * tilt_sd ** 2)
               for c in (c_min, c_max)]
    tail_ts = np.array([theta, 2 * theta, 4 * theta, 8 * theta, *guesses,
                        *(0.5 * (theta + g) for g in guesses)])
    tail_exp = _tail_exponents(log_f, js, tail_ts, rho_f)
    vec = np.zeros(size)
    np.add.at(vec, np.mod(js, size), h)
    # real input: half spectrum; bin k stands for k and L-k (mult 2) except 0 and L/2
    phi = np.fft.rfft(vec)
    mult = np.full(phi.size, 2.0)
    mult[0] = mult[-1] = 1.0
    log2l = math.log2(size)
    # 2-norms by plain sums of squares (the 1.01 covers their rounding; BLAS's threaded
    # dot was the slowest step on a busy machine); vec's nonzeros are the atoms h
    e1 = _FFT_ETA * log2l * math.sqrt(size) * math.sqrt(float(np.sum(h * h))) * 1.01
    s = np.arange(1, size // 2, dtype=float)
    wts = np.zeros(size)
    wts[1:size // 2] = np.exp(np.log(s) - theta * s)
    eps_w = 4 * _U * (2.0 + math.log(size) + theta * size / 2)
    what = np.fft.rfft(wts)
    e_w = _FFT_ETA * log2l * math.sqrt(size) * math.sqrt(float(np.sum(wts * wts))) * 1.01
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
    abs_log = finite_abs(log_mod)
    ang = np.angle(phi_k)
    sum_rel = sum_relative_error(int(live.sum())) + 8 * _U
    # H_N is nonincreasing in N, so a bound at a smaller count holds at every larger one:
    # when the work would be large, evaluate a thinned subset of the counts (always the
    # smallest) and give each count the value at the largest evaluated count below it
    order = np.argsort(counts, kind="stable")
    budget = max(4, int(4e6 // max(int(live.sum()), 1)))
    picks = np.unique(np.linspace(0, counts.size - 1, min(budget, counts.size)).round()
                      .astype(np.int64))
    evaluated = order[picks]
    cs_all = counts[evaluated].astype(float)
    values = np.empty(evaluated.size)
    wmag = mult_k * np.abs(what_c)
    log_r_k = np.log(r_k)
    rows = max(1, (1 << 20) // max(phi_k.size, 1))
    for first in range(0, cs_all.size, rows):
        # phi^c = |phi|^c (cos c arg + i sin c arg) for a block of counts at once; the
        # error model of each entry is the one stated for one count (kappa below)
        cs = cs_all[first:first + rows, None]
        modc = np.exp(cs * log_mod)
        power = modc * (np.cos(cs * ang) + 1j * np.sin(cs * ang))
        rc_up = np.exp(cs * log_r_k) * (1 + 4 * _U * (2 + cs * (1 + np.abs(log_r_k))))
        v = np.sum(mult_k * (power * what_c).real, axis=1) / size
        mag = modc * wmag
        kappa = 4 * _U * (2.0 + cs * (3.0 + abs_log + 2 * math.pi))
        e3 = np.sum(mag * (kappa + 4 * _U), axis=1) + sum_rel * np.sum(mag, axis=1)
        e1_c = cs[:, 0] * e1 * np.sqrt(np.sum(w2_k * (rc_up / r_k) ** 2, axis=1))
        e2_c = e_w * np.sqrt(np.sum(mult_k * rc_up ** 2, axis=1))
        t_val = v + (e1_c + e2_c + e3 + excluded) / size
        for k, c in enumerate(cs[:, 0]):
            c = int(c)
            t_c = float(t_val[k]) / ((1 - rho) ** c * (1 - eps_w))
            log_main = c * log_scale + math.log(t_c if t_c > 0 else 1e-300)
            log_tail = _log_tail(tail_ts, tail_exp, c, j_max, size // 2)
            log_e = float(np.logaddexp(log_main, log_tail)) + 1e-12
            values[first + k] = (step * math.exp(min(log_e, 700.0)) / c * (1 + 8 * _U)
                              if log_e > -700 else 1e-300)
    sorted_counts = counts[order]
    at = np.searchsorted(counts[evaluated], sorted_counts, side="right") - 1
    out = np.empty(counts.size)
    out[order] = values[at]
    return out


def _log_rounding(log_f: np.ndarray, exponents: np.ndarray, log_scale: float,
                  rho_f: float) -> float:
    """Relative error bound of the computed tilted weights exp(log f + t j - log_scale)."""
    return rho_f + 4 * _U * (2.0 + float(np.max(np.abs(log_f) + np.abs(exponents)))
                             + abs(log_scale)) * 1.01 + 2 * _U


def _tail_exponents(log_f: np.ndarray, js: np.ndarray, ts: np.ndarray,
                    rho_f: float) -> np.ndarray:
    """For each t in ts, an upper bound on log sum_j f_j e^(t j) (the log of the moment
    generating function of one lattice value, rounding errors included: `_log_rounding`
    row by row)."""
    expo = ts[:, None] * js[None, :]
    z = log_f[None, :] + expo
    top = np.max(z, axis=1)
    log_mgf = top + np.log(np.sum(np.exp(z - top[:, None]), axis=1))
    worst = np.max(np.abs(log_f)[None, :] + np.abs(expo), axis=1)
    # the terms' errors as in `_log_rounding`, plus the summation's (a bound on a sum, not
    # a normaliser that cancels as in the tilted FFT)
    rho = (rho_f + 4 * _U * (2.0 + worst + np.abs(log_mgf)) * 1.01 + 2 * _U
           + sum_relative_error(int(js.size)))
    return log_mgf + np.log1p(2 * rho)


def _log_tail(ts: np.ndarray, exponents: np.ndarray, c: int, j_max: float,
              start: int) -> float:
    """log of an upper bound on sum_{s >= start} s P(Sigma = s), Sigma a sum of c iid
    lattice values (each <= j_max) whose log-MGF at ts is below `exponents`.

    Chernoff with any t > 0: s <= c j_max and 1[s >= start] <= e^(t (s - start)) give
    c j_max e^(-t start) MGF(t)^c; the best t of `ts` is taken.
    """
    return math.log(c * max(j_max, 1.0)) + float(np.min(c * exponents - ts * start))

# ---------------------------------------------------------------------- mixtures
def _pair_h(pair: PairTerms, gamma: float, counts: np.ndarray,
            resolution: float | None = None) -> np.ndarray:
    """Upper bounds on H_gamma(P_N || Q_N) for N = counts - 1 (module docstring, step 2);
    resolution _CHERNOFF: the cheaper, looser `chernoff_positive_part` instead."""
    off = 0.0
    if pair.off_p.size:
        t = pair.off_p - gamma * pair.off_q + 3 * _U * (pair.off_p + gamma * pair.off_q)
        off = float(np.sum(np.maximum(t, 0.0))) * (1 + (pair.off_p.size + 2) * _U)
    if pair.a.size == 0:
        return np.full(counts.size, min(off, 1.0))
    d = pair.a - gamma * pair.b
    d_err = 4 * _U * (pair.a + gamma * pair.b)
    if resolution == _CHERNOFF:
        inner = chernoff_positive_part(d, d_err, pair.weights, counts)
    else:
        inner = positive_part_mean(d, d_err, pair.weights, counts, resolution=resolution)
    return np.minimum(off + inner * (1 + 2 * _U), 1.0)


def _layout(bound: BlanketBound, tail: float, blocks: int) -> tuple[Any, ...]:
    if bound.q <= 0.0:
        return (np.array([0]), np.array([0]), np.array([1.0]), -math.inf)
    return count_blocks(bound.n - 1, bound.q, tail, blocks)


def _mixture(bound: BlanketBound, pair: PairTerms, gamma: float, layout: tuple[Any, ...],
             resolution: float | None = None) -> float:
    starts, _, masses, log_cut = layout
    h = _pair_h(pair, gamma, np.asarray(starts) + 1, resolution)
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

    The search keeps a bracket [a, b]: the certified bound is above delta at a and at most
    delta at b. It shrinks the bracket by Illinois (regula falsi) steps on
    sqrt(-log delta(eps)), which is close to linear in eps, to `relative_tolerance`,
    following the pair that is worst at a coarse probe; it then checks every pair at the
    final b, first with a coarse lattice (a looser but still certified bound) and with the
    fine one only if the coarse check fails, restarting with any pair that fails. Returns
    +inf when even eps = min(epsilon0, epsilon_max) does not bring the bound to delta.

    Args:
        bound: from `blanket_bound`.
        delta: target delta in (0, 1).
        relative_tolerance: width of the final bracket relative to its upper end.
        blocks: count blocks (accuracy only).
        epsilon_max: largest eps searched.

    Returns:
        Result(quantity="epsilon", kind=UPPER, direction=MAX), error_budget the bracket width.

    Raises:
        ParameterError: delta outside (0, 1).
    """
    DELTA.check(delta)
    tail = max(min(delta * 1e-9, 1e-30), 1e-300)
    layout = _layout(bound, tail, blocks)
    top = min(bound.matrix.epsilon0, epsilon_max)
    cache: dict[tuple[int, float, float | None], float] = {}

    def value(i: int, e: float, resolution: float | None = None) -> float:
        key = (i, e, resolution)
        if key not in cache:
            cache[key] = _mixture(bound, bound.pairs[i], _gamma(e), layout, resolution)
        return cache[key]

    def passes(i: int, e: float) -> bool:
        # the Chernoff bound and a coarse lattice give certified, larger bounds at a small
        # fraction of the cost: most pairs are cleared by one of them
        return (value(i, e, _CHERNOFF) <= delta or value(i, e, _COARSE) <= delta
                or value(i, e) <= delta)

    everyone = range(len(bound.pairs))
    m = "protocols.randomizer.blanket.epsilon_for_delta"
    # locate the crossing roughly on the coarse lattice (following the pair that is worst
    # there), so that the fine search starts near it with the right pair
    lead, guess = 0, None
    for probe in (True, False):
        _, hi = _illinois(lambda e, i=lead: value(i, e, _COARSE), delta, 0.0, top, 1e-2,
                          guess)
        if hi == top:  # not located below top (the fine search will look on its own)
            break
        guess = hi
        worst = _worst_pair(everyone, lambda i, r, e=hi: value(i, e, r)) if probe else lead
        if worst == lead:
            break
        lead = worst
    active = {lead}
    a, b = 0.0, top
    while True:
        a, b = _illinois(lambda e: max(value(i, e) for i in active), delta, a, b,
                         relative_tolerance, guess)
        failing = [i for i in everyone if not passes(i, b)]
        if not failing:
            break
        if b == top:
            return _infinite(bound, delta, top, m)
        active.update(failing)
        a, b, guess = b, top, b * (1 + 1e-2)
    worst = max(everyone, key=lambda i: cache.get((i, b, None), cache.get(
        (i, b, _COARSE), value(i, b, _CHERNOFF))))
    p = bound.pairs[worst]
    return Result(quantity="epsilon", value=float(b), kind=Kind.UPPER, direction=Direction.MAX,
                  source=bound.source, at=float(delta), error_budget=float(b - a),
                  method=f"{m} (bracket [{a:.6g}, {b:.6g}]; worst ordered pair x={p.x}, "
                         f"x'={p.x_prime} of {len(bound.pairs)} distinct)")


def _worst_pair(everyone: range, value: Any) -> int:
    """The pair with the largest coarse-lattice bound among the (at most 8) largest
    Chernoff bounds within a factor 10 of the largest: a choice of where to search, not a
    certificate (the search checks every pair at its end)."""
    cheap = sorted(((value(i, _CHERNOFF), i) for i in everyone), reverse=True)
    close = [i for v, i in cheap[:8] if v >= cheap[0][0] / 10]
    return max(close, key=lambda i: value(i, _COARSE))


def _infinite(bound: BlanketBound, delta: float, top: float, method: str) -> Result:
    return Result(quantity="epsilon", value=math.inf, kind=Kind.UPPER,
                  direction=Direction.MAX, source=bound.source, at=float(delta),
                  method=f"{method} (bound above delta at eps={top:g})")


def _illinois(fun: Any, delta: float, a: float, b: float, tolerance: float,
              guess: float | None = None) -> tuple[float, float]:
    """Shrink [a, b] around the crossing of fun (nonincreasing) with delta.

    Returns (a', b') with fun(a') > delta and b' - a' <= tolerance b', and fun(b') <= delta
    unless b' == b: the initial b is never evaluated (it is often the costly far end), so a
    caller that gets b back must check it. a = 0 with fun(0) <= delta returns (0, 0).

    Every point is classified by fun itself, so the invariant holds whatever the
    interpolation does; the interpolation only chooses where to look: first `guess` and
    points 1 % either side of it, then regula falsi with the Illinois modification on
    psi(e) = sqrt(-log fun(e)) - sqrt(-log delta), which is close to linear in e (before a
    point below delta is known: extrapolation through the last two points, at most 4x
    further, or a geometric step). Within tolerance/2 of an end the step goes to that
    distance instead, so that the bracket closes from both sides.
    """
    target = math.sqrt(-math.log(delta))

    def psi(e: float) -> tuple[float, bool]:
        v = fun(e)
        if v >= 1:
            return -target, True
        return (math.sqrt(-math.log(v)) - target if v > 0 else math.inf), v > delta

    fa, above = psi(a)
    if not above:
        return a, a
    fb = math.nan  # fun(b) is never evaluated here: the caller checks b if it is returned
    side = 0
    tries = [] if guess is None else [guess, guess * 1.01, guess * 0.99]
    seen = [(a, fa)] if math.isfinite(fa) else []
    for _ in range(200):
        width = b - a
        if width <= tolerance * b:
            break
        c = tries.pop(0) if tries else math.nan
        if not a < c < b:
            if math.isfinite(fa) and math.isfinite(fb) and fb > fa:
                c = b - fb * width / (fb - fa)
            elif len(seen) >= 2 and seen[-1][1] > seen[-2][1] and seen[-1][0] != seen[-2][0]:
                # b not yet seen: extrapolate through the last two points, a little beyond
                (e1, p1), (e2, p2) = seen[-2], seen[-1]
                c = (e2 - p2 * (e2 - e1) / (p2 - p1)) * (1 + 2 * tolerance)
                c = min(c, 4 * a) if a > 0 else c
            else:  # nothing to interpolate: bisect (geometrically from a = 0)
                c = b / 16 if a == 0 else min(4 * a, 0.5 * (a + b))
        # within tolerance/2 of an end, step to that distance instead: the bracket then
        # closes from the other side at once if the estimate was good
        h = 0.45 * tolerance * c
        c = min(max(c, a + h), b - h) if a + h < b - h else 0.5 * (a + b)
        fc, above = psi(c)
        if math.isfinite(fc):
            seen.append((c, fc))
        if above:
            a, fa = c, fc
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            b, fb = c, fc
            if side == 1:
                fa *= 0.5
            side = 1
    return a, b
