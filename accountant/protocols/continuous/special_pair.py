"""Certified lower ends from the special pair, through a lattice statistic of its view.

The special pair: n - 1 users hold 0, the last holds 1 (P) or 0 (Q). Its view is the
multiset of the n outputs. Cut the outputs into cells (`cells`) and give each cell an
integer j (a lattice index of its conditional likelihood ratio); the statistic
T = sum_i j(Y_i) is a function of the multiset, so the pair (P_T, Q_T) is a post-processing
of the special pair, and its hockey-stick divergence is a lower bound on the special pair's,
hence on the mechanism's (one real neighbouring pair). With p_x the law of j(Y) under input x,

    P_T = p_0^{*(n-1)} * p_1,   Q_T = p_0^{*n},
    delta_T(P||Q) = sum_t ((p_0^{*(n-1)} * (p_1 - g p_0))(t))_+     (Q||P: p_0 - g p_1),

computed exactly up to a certified error by one tilted FFT: the masses carry proven
relative errors (`cells`), which n messages multiply by about n (a term kappa times the sum
of the two measures, computed beside), the FFT its round-off and the window its aliasing
(Chernoff); every error is subtracted from the value at each t before the positive part.
Because T is close to sufficient (j follows the likelihood ratio to 1/resolution of its
spread), delta_T is close to the special pair's own delta
(docs/continuous-randomizers.md#the-special-pair).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from accountant.numeric.logspace import logsumexp
from accountant.numeric.rounding import UNIT_ROUNDOFF, sum_relative_error
from accountant.protocols.continuous.cells import Cells, cells
from accountant.protocols.continuous.laws import NoiseLaw
from accountant.result import Direction, Kind, Result, Source

__all__ = ["delta_order", "delta_lower", "epsilon_lower", "secant_estimate", "SOURCE"]

_U = UNIT_ROUNDOFF
_FFT_ETA = 10 * _U  # stated per-stage error of a radix-2 FFT (Higham 2002, Thm 24.2)
_MAX_FFT = 2 ** 21
_SPAN = 2 ** 15  # lattice points one message may take (values beyond are clipped: a coarser T)
_REACH_SD = 12.0  # tilted standard deviations of T the window covers on each side
SOURCE = Source(citation="this library (special pair, lattice statistic)",
                locator="docs/continuous-randomizers.md#the-special-pair")


def _resolution(n: int) -> float:
    """Lattice steps per tilted standard deviation of one message: fine for few users, and
    from n ~ 1e3 on such that the FFT stays near 2^20 points (accuracy only)."""
    return float(min(256.0, max(4.0, 2.0 ** 19 / (2 * _REACH_SD * math.sqrt(n)))))


def _saddle(v: np.ndarray, w: np.ndarray) -> float:
    """theta >= 0 with sum w v e^(theta v) = 0 (0 when the mean is already >= 0)."""
    top = float(np.max(v))
    if float(np.sum(w * v)) >= 0 or top <= 0:
        return 0.0

    def f(t: float) -> float:
        return float(np.sum(w * v * np.exp(t * (v - top))))

    b = 1.0 / top
    while f(b) < 0:
        b *= 2.0
        if b > 1e300:
            return b
    return brentq(f, 0.0, b, xtol=1e-14 * b, rtol=1e-12, maxiter=300)


def delta_order(law: NoiseLaw, n: int, exp_epsilon: float, order: str) -> float:
    """Certified lower bound on the special pair's hockey-stick divergence in one order.

    Args:
        law: the noise law.
        n: users, >= 2.
        exp_epsilon: g = e^eps >= 1, a float used exactly (a larger g gives a smaller
            value, so a caller rounds e^eps up).
        order: "PQ" (the differing user's 1 against 0) or "QP".

    Returns:
        A float lower bound (0.0 when nothing positive can be certified).
    """
    cl = cells(law)
    resolution = _resolution(n)
    while resolution >= 1.0:
        # one message may take what the FFT leaves beside the sum's spread; a heavy tail
        # widens the tilted sum, and then a shorter span (more clipping) fits
        # (few users: a single message's tail matters, so a long span; many: the sum's
        # spread dominates the FFT and the bulk of one message is what counts)
        budget = _SPAN if n >= 1000 else _MAX_FFT // 8
        while budget >= _SPAN // 8:
            value = _lattice_delta(cl, int(n), float(exp_epsilon), order, resolution,
                                   budget)
            if value is not None:
                return value
            budget //= 8
        resolution /= 2.0
    return 0.0


def _lattice_delta(cl: Cells, c: int, g: float, order: str, resolution: float,
                   budget: int) -> float | None:
    """The bound of `delta_order` on a lattice of `resolution` steps per standard deviation
    of one message's term and at most `budget` steps; None when the FFT would exceed
    _MAX_FFT points."""
    p0, p1 = cl.p0, cl.p1
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(p0 > 0, p1 / np.where(p0 > 0, p0, 1.0), np.inf)  # E_0[r | cell]
    # the per-message loss term whose sum is positive where P_T > g Q_T (P||Q: r - g) or
    # Q_T > g P_T (Q||P: 1 - g r); only the lattice index depends on it (any index is valid)
    d = m - g if order == "PQ" else 1.0 - g * m
    live = p0 > 0
    if not np.any(live) or float(np.max(d[live])) <= 0:
        return 0.0
    # the lattice step: 1/resolution of the spread of one message's term (its untilted
    # standard deviation; the tilted one is unbounded for Gaussian noise, whose likelihood
    # ratio is lognormal): T then carries all but about 1/(12 resolution^2) of the variance
    dl = np.clip(d[live], -1e150, 1e150)
    wl = p0[live] / float(np.sum(p0[live]))
    mean = float(np.sum(wl * dl))
    sd = math.sqrt(float(np.sum(wl * (dl - mean) ** 2)))
    if not 0 < sd < math.inf:
        return 0.0
    step = sd / resolution
    with np.errstate(invalid="ignore", over="ignore"):
        jf = np.floor(np.clip(d / step, -1e15, 1e15) + 0.5)
    j_min, j_max = float(np.min(jf[live])), float(np.max(jf[live]))
    # at most `budget` steps: the far ends are clipped (a coarser statistic, still valid),
    # the bottom only when the top alone would not fit
    j_hi = min(j_max, max(j_min + budget, budget // 2))
    j_lo = max(j_min, j_hi - budget)
    j = (np.clip(jf, j_lo, j_hi) - j_lo).astype(np.int64)
    span = int(j_hi - j_lo)
    j_lo_i = int(j_lo)
    # the masses of each run of cells with one index, summed in ball arithmetic (the
    # index follows the likelihood ratio, which is monotone: one run per index, usually)
    index = j
    starts = np.flatnonzero(np.concatenate([[True], np.diff(index) != 0]))
    runs = cl.merged(starts)
    jr = index[starts]
    w0 = np.bincount(jr, weights=runs.p0, minlength=span + 1)
    w1 = np.bincount(jr, weights=runs.p1, minlength=span + 1)
    wu, wv = (w1, w0) if order == "PQ" else (w0, w1)
    tiny_u, tiny_v = (runs.tiny1, runs.tiny0) if order == "PQ" else (runs.tiny0, runs.tiny1)
    per_bin = int(np.max(np.bincount(jr)))
    js = np.arange(span + 1, dtype=float) + j_lo
    has0 = w0 > 0
    # the tilt: the saddle of the clipped, unrounded term (so that the tilted sum is
    # centred where P_T / Q_T crosses g even when the rounding to the lattice is biased,
    # as with a few atoms), per lattice step
    dc = np.clip(d[live], (j_lo - 0.5) * step, (j_hi + 0.5) * step)
    theta = _saddle(dc, p0[live]) * step
    s = logsumexp(np.log(w0[has0]) + theta * js[has0])
    expo = theta * js - s
    with np.errstate(over="ignore"):
        tilt = np.exp(np.minimum(expo, 700.0))
    h0 = w0 * tilt
    # a P-side (u) mass beyond the exponent cap is dropped: it can only lower the value
    hu = np.where(expo <= 700.0, wu, 0.0) * tilt
    hv = wv * tilt
    if np.any((expo > 700.0) & ((w0 > 0) | (wv > 0))):
        return None  # not reached: such a tilted weight would exceed 1
    q = hu - g * hv
    b = hu + g * hv
    # relative errors: the masses (cells), their sums per lattice point, the tilt weights
    rho0 = (runs.rho + (per_bin - 1) * _U * 1.01
            + 4 * _U * (2.0 + float(np.max(np.abs(theta * js))) + abs(s)) + _U)
    # true tilted weights = computed ones times (1 + a), |a| <= rho0 / (1 - rho0); the
    # last message's q = hu - g hv also carries its two roundings (relative to b)
    if not rho0 * c < 1.0:  # an error bound above the value: nothing to certify
        return 0.0
    rho_true = rho0 / (1 - rho0)
    rho_last = (rho_true * (1 + 2 * rho_true) + 3 * _U) * (1 + 4 * _U)
    beta = math.expm1((c - 1) * math.log1p(rho_true)) * (1 + 1e-9)
    # |A_t - computed A_t| <= kappa B_t, B = p_0^{*(c-1)} * (u + g v) (docs, step 3)
    kappa = (beta * (1 + rho_last + 8 * _U) + rho_last) * (1 + 1e-9)
    # the cells whose float mass is 0: their whole effect on any set of t
    tiny_abs = (math.expm1(min((c - 1) * math.log1p(runs.tiny0), 700.0)) * (1 + rho0) * 2
                + tiny_u + g * tiny_v) * (1 + g) * (1 + beta) * 2 + 1e-300

    # ---- window: the tilted T spreads over about sqrt(c) sd; cover 12 sd and one message
    tot0, totb = float(np.sum(h0)), float(np.sum(b))
    mu0 = float(np.sum(h0 * js)) / tot0
    var0 = float(np.sum(h0 * (js - mu0) ** 2)) / tot0
    mub = float(np.sum(b * js)) / totb if totb > 0 else mu0
    varb = float(np.sum(b * (js - mub) ** 2)) / totb if totb > 0 else var0
    sd_t = math.sqrt((c - 1) * var0 + varb)
    full = c * span + 1
    size = 1 << max(4, math.ceil(math.log2(2.0 * (_REACH_SD * sd_t + span + 2.0))))
    whole = full <= size
    if whole:
        size = 1 << max(4, math.ceil(math.log2(full)))
    if size > _MAX_FFT:
        return None
    center = (c - 1) * (mu0 - j_lo) + (mub - j_lo)
    s_lo = 0 if whole else int(min(max(round(center - size / 2), 0), full - size))

    vec = np.zeros((3, size))
    vec[0, :span + 1], vec[1, :span + 1], vec[2, :span + 1] = h0, q, b
    phi0, phiq, phib = np.fft.rfft(vec, axis=1)
    log2l = math.log2(size)
    sq = math.sqrt(size)
    e0, eq, eb = (_FFT_ETA * log2l * sq * math.sqrt(float(np.sum(x * x))) * 1.01 + 1e-300
                  for x in (h0, q, b))
    mult = np.full(phi0.size, 2.0)
    mult[0] = mult[-1] = 1.0
    mod0 = np.abs(phi0)
    log_r = np.log(mod0 + e0)
    live_k = (c - 1) * log_r > -700.0
    with np.errstate(divide="ignore"):
        log_mod = np.log(mod0[live_k])
    finite = np.isfinite(log_mod)
    ang = np.angle(phi0[live_k])
    power = np.where(finite, np.exp((c - 1) * np.where(finite, log_mod, 0.0)), 0.0) * (
        np.cos((c - 1) * ang) + 1j * np.sin((c - 1) * ang))
    kap = 4 * _U * (2.0 + (c - 1) * (3.0 + np.abs(np.where(finite, log_mod, 0.0))
                                      + 2 * math.pi))
    lr = log_r[live_k]
    r_c1 = np.exp((c - 1) * lr)
    d_power = kap * np.abs(power) + (c - 1) * e0 * np.exp((c - 2) * lr)
    mult_l = mult[live_k]
    out = []
    for phi, err in ((phiq, eq), (phib, eb)):
        ph = phi[live_k]
        z = power * ph
        dz = d_power * (np.abs(ph) + err) + r_c1 * err + 4 * _U * np.abs(z)
        dead = float(np.sum((mult * np.exp(np.minimum(
            (c - 1) * log_r + np.log(np.abs(phi) + err), 0.0)))[~live_k]))
        full_z = np.zeros(phi0.size, dtype=complex)
        full_z[live_k] = z
        x = np.fft.irfft(full_z, size)
        round_off = _FFT_ETA * log2l * math.sqrt(float(np.sum(mult_l * np.abs(z) ** 2))) / sq
        # two float sums of at most phi0.size nonnegative terms (numpy's pairwise sum: its
        # stated bound, not a flat 8u) and the few operations joining them
        bound = ((float(np.sum(mult_l * dz)) + dead) / size + round_off * 1.01) * (
            1 + sum_relative_error(int(phi0.size)) + 8 * _U)
        out.append((x, bound + 1e-300))
    (x, ex), (y, ey) = out
    alias = 0.0 if whole else _alias(h0, b, js, j_lo, c, s_lo, size, mu0, mub, sd_t, theta)

    # ---- per-t lower ends, untilted
    i = np.arange(size)
    t = (s_lo + np.mod(i - s_lo, size)).astype(float) + float(c) * j_lo_i
    slack = ex + alias + kappa * (y + ey)
    # (the float evaluation of x - slack is rounded down by its own error bound)
    low = (x - slack) - 4 * _U * (np.abs(x) + slack)
    pos = low > 0
    if not np.any(pos):
        return 0.0
    cs = float(c) * s
    log_f = cs - theta * t[pos]
    log_f = log_f - 4 * _U * (abs(cs) + np.abs(theta * t[pos]) + 2.0)
    terms = np.exp(np.minimum(log_f, 700.0)) * low[pos] * (1 - 4 * _U)
    total = float(np.sum(terms)) * (1 - sum_relative_error(int(terms.size)))
    return max(total - tiny_abs, 0.0)


def _alias(h0: np.ndarray, b: np.ndarray, js: np.ndarray, j_lo: float, c: int, s_lo: int,
           size: int, mu0: float, mub: float, sd_t: float, theta: float) -> float:
    """Upper bound on the tilted mass of p_0^{*(c-1)} * b outside the window
    [s_lo, s_lo + size) (s = t - c j_lo): Chernoff at a few tilts on each side (the best),
    with a relative margin for the float evaluation."""
    off = js - j_lo
    keep0, keepb = h0 > 0, b > 0
    lh0, lb = np.log(h0[keep0]), np.log(b[keepb])
    o0, ob = off[keep0], off[keepb]
    center = (c - 1) * (mu0 - j_lo) + (mub - j_lo)
    total = 0.0
    top = (c - 1) * float(np.max(o0)) + float(np.max(ob))  # the largest s with mass
    for edge, sign in ((s_lo + size, 1.0), (s_lo, -1.0)):
        if (sign > 0 and edge > top) or (sign < 0 and edge <= 0):
            continue  # no mass beyond this edge
        gap = sign * (edge - center)
        if gap <= 0:
            return math.inf
        base = gap / max(sd_t * sd_t, 1e-300)
        best = math.inf
        # the Gaussian optimum gap / sd^2 and fractions of the window's tilt (a heavy tail
        # on that side makes the moment generating function finite only below it)
        lams = np.concatenate([base * np.array([0.125, 0.25, 0.5, 1.0, 2.0]),
                               theta * np.array([0.05, 0.2, 0.5, 0.8, 0.95])])
        for lam in (float(v) for v in sign * lams[(lams > 0) & np.isfinite(lams)]):
            # (a tilt too steep for the range overflows: that candidate is skipped)
            with np.errstate(over="ignore", invalid="ignore"):
                a0 = lam * (mu0 - j_lo)
                m0 = logsumexp(lh0 + lam * (o0 - (mu0 - j_lo)))
                mb = logsumexp(lb + lam * (ob - (mu0 - j_lo)))
                # log of e^(-lam edge) M0^(c-1) Mb, centred at mu0 to keep the terms small
                expo = (-lam * edge + c * a0) + (c - 1) * m0 + mb
                scale = (abs(lam * edge) + c * abs(a0) + (c - 1) * abs(m0) + abs(mb)
                         + c * float(np.max(np.abs(lam * o0) + np.abs(lh0))))
            if math.isfinite(expo) and math.isfinite(scale):
                best = min(best, expo + 1e-12 * scale + 1e-9)
        total += math.exp(min(best, 700.0))
    return total * (1 + 1e-9)


def delta_lower(law: NoiseLaw, n: int, epsilon: float) -> Result:
    """Certified lower end of delta(eps) of the mechanism: the special pair's, both orders.

    Args:
        law: the noise law.
        n: users, >= 2.
        epsilon: eps >= 0.

    Returns:
        Result(quantity="delta", kind=LOWER, direction=MAX).
    """
    g = _g_up(epsilon)
    values = {o: delta_order(law, n, g, o) for o in ("PQ", "QP")}
    best = max(values, key=lambda o: values[o])
    return Result(quantity="delta", value=values[best], kind=Kind.LOWER,
                  direction=Direction.MAX, source=SOURCE, at=float(epsilon),
                  method=f"protocols.continuous.special_pair.delta_lower ({law.name}, "
                         f"order {'P||Q' if best == 'PQ' else 'Q||P'})")


def _g_up(epsilon: float) -> float:
    # a float >= e^eps: delta is nonincreasing in g, so this errs downward
    return math.exp(epsilon) * (1 + 2 * _U) if epsilon > 0 else 1.0


def epsilon_lower(law: NoiseLaw, n: int, delta: float, *, above: float = 0.0,
                  below: float | None = None, relative_tolerance: float = 2e-4,
                  epsilon_max: float = 60.0) -> Result | None:
    """Certified lower end of epsilon(delta): the largest eps found whose certified
    special-pair delta is still above the target (the mechanism's delta(eps) is then above
    delta, so its epsilon(delta) exceeds eps).

    The search keeps [a, b]: the certified value is above delta at a (or a = `above`, a
    lower end known from elsewhere) and at most delta at b (or b = `below`, an upper end of
    the mechanism, where the true value, hence the certified one, is at most delta). It
    steps by secants on psi(e) = sqrt(-log delta(e)), close to linear in e, aiming a little
    to either side of the estimate so that the bracket closes from both. The first point
    evaluates both orders; the rest follow the larger one (either order's value is a
    certified lower end on its own).

    Args:
        law: the noise law.
        n: users, >= 2.
        delta: target in (0, 1).
        above: a known lower end (0 if none).
        below: a known upper end, or None.
        relative_tolerance: final (b - a)/b.
        epsilon_max: largest eps tried when no upper end is given.

    Returns:
        Result(quantity="epsilon", kind=LOWER, direction=MAX), or None when no point above
        `above` is certified (nothing gained).
    """
    target = math.sqrt(-math.log(delta))
    cache: dict[float, float] = {}
    orders = ["PQ", "QP"]

    def value(e: float) -> float:
        if e not in cache:
            g = _g_up(e)
            got = {o: delta_order(law, n, g, o) for o in orders}
            if len(orders) == 2:
                orders[:] = [max(got, key=lambda o: got[o])]
            cache[e] = max(got.values())
        return cache[e]

    a, b = float(above), below
    found = False
    if b is None or not math.isfinite(b):
        e = max(2.0 * a, 0.01)
        b = None
        while b is None:
            if value(e) > delta:
                a, found = e, True
                if e >= epsilon_max:
                    return _result(law, delta, a, math.inf)
                e = min(4.0 * e, epsilon_max)
            else:
                b = e
    if b <= a:
        return None
    guess = b * _chi_ratio(law)
    if not found and a < guess < b:
        # first the asymptotic estimate (usually within a few per cent of the answer)
        if value(guess) > delta:
            a, found = guess, True
        else:
            b = guess
    if a > 0 and not found:
        # a point just above the known lower end: if the special pair does not beat it
        # there, it will not (this bound falls below the threshold's only far in the tails)
        c = min(a * (1 + 4 * relative_tolerance), 0.5 * (a + b))
        if value(c) <= delta:
            return None
        a, found = c, True
    sides: list[bool] = []
    for _ in range(40):
        if b - a <= relative_tolerance * b:
            break
        est = secant_estimate(cache, target)
        if est is None or not a < est < b:
            est = guess if a < guess < b and not cache else 0.5 * (a + b)
        # aim a little past the estimate, so that the bracket closes from both sides
        h = 0.4 * relative_tolerance * b
        c = est + h if abs(est - a) < abs(est - b) else est - h
        c = min(max(c, a + h), b - h)
        if len(sides) >= 2 and sides[-1] == sides[-2]:
            c = 0.5 * (a + b)  # two moves of the same end: the estimate lags, bisect
        above_delta = value(c) > delta
        sides.append(above_delta)
        if above_delta:
            a, found = c, True
        else:
            b = c
    return _result(law, delta, a, b) if found else None


def _chi_ratio(law: NoiseLaw) -> float:
    """sqrt(chi^2 / kappa): where the special pair's epsilon sits below the blanket's,
    asymptotically (the first point of the search only)."""
    try:
        ratio = math.sqrt(law.chi_square() / law.shuffle_index())
    except (OverflowError, ValueError, ZeroDivisionError):
        return 0.5
    return ratio if 0 < ratio <= 1 else 0.5


def secant_estimate(cache: dict[float, float], target: float) -> float | None:
    """Where psi = sqrt(-log delta) crosses the target, from the evaluated points.

    Args:
        cache: evaluated eps -> certified delta.
        target: sqrt(-log delta) of the wanted delta.

    Returns:
        The secant through the nearest point on each side, else through the last two,
        else proportionally from one; None if nothing usable (a search start only).
    """
    pts = sorted((e, math.sqrt(-math.log(v))) for e, v in cache.items() if 0 < v < 1)
    if not pts:
        return None
    below_pts = [p for p in pts if p[1] < target]
    above_pts = [p for p in pts if p[1] >= target]
    if below_pts and above_pts:
        (e1, f1), (e2, f2) = below_pts[-1], above_pts[0]
    elif len(pts) >= 2:
        (e1, f1), (e2, f2) = pts[-2:] if below_pts else pts[:2]
    else:
        e1, f1 = pts[0]
        return e1 * target / f1 if f1 > 0 else None
    if f2 == f1:
        return None
    return e1 + (target - f1) * (e2 - e1) / (f2 - f1)


def _result(law: NoiseLaw, delta: float, a: float, b: float) -> Result:
    return Result(quantity="epsilon", value=float(a), kind=Kind.LOWER, direction=Direction.MAX,
                  source=SOURCE, at=float(delta),
                  error_budget=float(b - a) if math.isfinite(b) else 0.0,
                  method=f"protocols.continuous.special_pair.epsilon_lower ({law.name} "
                         f"special pair, lattice statistic; bracket [{a:.6g}, {b:.6g}])")
