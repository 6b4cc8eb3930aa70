"""Certified divergences of exact and mp views: rationals where the quantity is rational,
ball arithmetic where a logarithm or an exponential is needed (docs/soundness.md#exactness).

The grid values of an exact view are Fractions; those of an mp view are mpfs, which are
dyadic rationals, each within a relative `rho` of the true probability (the view's
`relative_error()`). Both are evaluated on the exact rational values of what is stored, so
the only errors are `rho` and those of logs and exps, and those are enclosed by python-flint's
`arb` balls (proven radii), never estimated:

- delta at a rational e^epsilon (epsilon = 0 in particular) is a rational; at any other
  epsilon, H_gamma is monotone in gamma, so the rational values at the two ends of a ball
  around e^epsilon enclose it;
- epsilon(delta) is the log of a rational, max_j (A_j - delta) / B_j;
- integer-order Renyi moments sum P^a Q^(1-a) and the max-divergence's max P/Q are rational;
- `rho` moves P and Q by at most a factor 1 +- rho: every bound below takes the factor
  on the side that makes it safe.

Each evaluation returns an enclosure [lower, upper] of the true value. Working precision
starts at the caller's digits and doubles (at most `MAX_DOUBLINGS` times) until the
enclosure's half-width is at most `RELATIVE_TOLERANCE` times its midpoint; then the value
is EXACT with that half-width as `radius`. Otherwise (a residual tail, a grid of lower-bound
values, rho too large, or precision exhausted) the ends are an UPPER and a LOWER bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from flint import arb, ctx, fmpq

from accountant.numeric import rounding
from accountant.numeric.mp import arb_lower, arb_upper, bits_for_dps, to_fmpq
from accountant.view import ViewPair

__all__ = ["RELATIVE_TOLERANCE", "MAX_DOUBLINGS", "Certified", "RationalPair", "rational_pair",
           "certify", "log_ball", "delta_enclosure", "epsilon_enclosure", "renyi_enclosure",
           "kl_enclosure", "max_divergence_enclosure", "start_precision"]

# An EXACT value's radius is at most this fraction of its magnitude: about 12 significant
# digits, more than any privacy number is read to, and far below every bound's slack.
RELATIVE_TOLERANCE = fmpq(1, 2**40)
MAX_DOUBLINGS = 7

INF = math.inf
_ONE = fmpq(1)
End = Any  # fmpq, or the float +inf


@dataclass(frozen=True)
class RationalPair:
    """A view's stored grid as exact rationals, sorted by decreasing ratio P/Q.

    Attributes:
        p, q: the stored values (points where both are 0 dropped), ratio order.
        ratio: p/q per point (None where q = 0, the infinite-loss atoms, which come first).
        atoms: the number of infinite-loss atoms; finite_ratios: ratio[atoms:].
        a_prefix, b_prefix: A_j = p-mass and B_j = q-mass of the first j points (j = 0..N).
        rho: relative error bound of stored values (true p in p (1 +- rho)); 0 for exact.
        tail_p, tail_q: the residual masses, exact.
        grid_exact: grid values are the true probabilities (up to rho).
        residual_loss_bound: the view's B (float, maybe inf).
        stated: rho was stated by the view's producer (False: the model of
            `ViewPair.relative_error`).
        rational_backend: the view is an exact one (its moments are worth summing as exact
            rationals; an mp view's values are only within rho anyway, and their exact sums
            grow huge denominators).
    """

    p: list[fmpq]
    q: list[fmpq]
    ratio: list[fmpq | None]
    atoms: int
    finite_ratios: list[fmpq]
    a_prefix: list[fmpq]
    b_prefix: list[fmpq]
    rho: fmpq
    tail_p: fmpq
    tail_q: fmpq
    grid_exact: bool
    residual_loss_bound: float
    stated: bool
    rational_backend: bool = True

    def hockey(self, gamma: fmpq) -> fmpq:
        """H_gamma of the stored grid, sum_x [p - gamma q]_+, exactly.

        Args:
            gamma: a rational >= 0.

        Returns:
            A_j - gamma B_j with j the number of points of ratio > gamma (atoms included).
        """
        j = self.atoms + _count_above(self.finite_ratios, gamma)
        return self.a_prefix[j] - gamma * self.b_prefix[j]

    def best_ratio(self, target: fmpq, floor: fmpq = _ONE) -> fmpq | None:
        """max(floor, max_j (A_j - target) / B_j) over prefixes in ratio order, or None when
        the infinite-loss mass exceeds target (epsilon = +inf).

        H_gamma = max_j (A_j - gamma B_j) (j = 0 holds the atoms alone), so
        H_gamma <= target exactly when gamma is at least every (A_j - target)/B_j; with
        floor = 1 the result is e^epsilon(target). Points of ratio <= floor cannot raise the
        maximum above floor, so the scan stops there.

        Args:
            target: the delta to invert, a rational > 0.
            floor: the least value of interest, a rational > 0.

        Returns:
            The rational maximum, or None.
        """
        k = self.atoms
        if self.a_prefix[k] > target:
            return None
        best = floor
        for j in range(k + 1, len(self.a_prefix)):
            r = self.ratio[j - 1]
            if r is None or r <= floor:
                break
            a = self.a_prefix[j]
            if a > target:
                cand = (a - target) / self.b_prefix[j]
                if cand > best:
                    best = cand
        return best


def _count_above(desc: list[Any], gamma: fmpq) -> int:
    """How many entries of a decreasing list exceed gamma (binary search)."""
    lo, hi = 0, len(desc)
    while lo < hi:
        mid = (lo + hi) // 2
        if desc[mid] > gamma:
            lo = mid + 1
        else:
            hi = mid
    return lo


def rational_pair(view: ViewPair) -> RationalPair:
    """The stored values of an exact or mp view as rationals, with their error bound.

    Args:
        view: a ViewPair of backend "exact" or "mp".

    Returns:
        A RationalPair; rho is 0 for "exact" and `view.relative_error()` for "mp".
    """
    pts = []
    for pi, qi in zip(view.p, view.q, strict=True):
        a, b = to_fmpq(pi), to_fmpq(qi)
        if a == 0 and b == 0:
            continue
        pts.append((a, b, None if b == 0 else a / b))
    # infinite-loss atoms first, then by decreasing ratio
    pts.sort(key=lambda t: (t[2] is not None, -(t[2] if t[2] is not None else 0)))
    a_pre, b_pre = [fmpq(0)], [fmpq(0)]
    for a, b, _ in pts:
        a_pre.append(a_pre[-1] + a)
        b_pre.append(b_pre[-1] + b)
    rho, stated = view.relative_error()
    ratio = [t[2] for t in pts]
    atoms = sum(1 for r in ratio if r is None)
    return RationalPair(p=[t[0] for t in pts], q=[t[1] for t in pts], ratio=ratio,
                        atoms=atoms, finite_ratios=[r for r in ratio[atoms:] if r is not None],
                        a_prefix=a_pre, b_prefix=b_pre, rho=to_fmpq(rho),
                        tail_p=to_fmpq(view.tail_p), tail_q=to_fmpq(view.tail_q),
                        grid_exact=bool(view.grid_exact),
                        residual_loss_bound=float(view.residual_loss_bound), stated=stated,
                        rational_backend=view.backend == "exact")


# ------------------------------------------------------------------ enclosure driver
@dataclass(frozen=True)
class Certified:
    """An enclosure [lower, upper] of a true value, and what it certifies.

    Attributes:
        lower: a value <= the truth (fmpq, 0 when nothing better is known), or +inf.
        upper: a value >= the truth (fmpq or +inf).
        tight: lower == upper, or the half-width is <= RELATIVE_TOLERANCE |midpoint|.
        value: the midpoint (Fraction when lower == upper is rational and no ball was used,
            else an mpf within `radius` of the truth); None unless tight.
        radius: certified |value - truth| bound (a float rounded up); 0 for exact rationals.
        precision: ball working precision in bits (None: rational arithmetic only).
    """

    lower: End
    upper: End
    tight: bool
    value: Any
    radius: float
    precision: int | None

    def upper_value(self, as_mpf: bool = False) -> Any:
        """The upper end as a number: +inf, a Fraction for exact rationals, else an mpf
        rounded up.

        Args:
            as_mpf: give an mpf (rounded up) also for an exact rational.

        Returns:
            math.inf, a Fraction or an mpmath.mpf >= the truth.
        """
        return _as_number(self.upper, +1, self.precision, as_mpf)

    def lower_value(self, as_mpf: bool = False) -> Any:
        """The lower end as a number (see `upper_value`), rounded down.

        Args:
            as_mpf: give an mpf (rounded down) also for an exact rational.

        Returns:
            math.inf, a Fraction or an mpmath.mpf <= the truth.
        """
        return _as_number(self.lower, -1, self.precision, as_mpf)

    def as_mpf(self) -> Certified:
        """The same enclosure with an exact rational value given as an mpf (for mp views,
        whose values are mpfs): rounded to nearest, the rounding added to the radius.

        Returns:
            self when the value is not a Fraction, else a copy with an mpf value.
        """
        if not isinstance(self.value, Fraction):
            return self
        mid = fmpq(self.value.numerator, self.value.denominator)
        value, radius = _as_mid(mid, fmpq(0), self.precision or 128)
        if to_fmpq(value) == mid:
            radius = 0.0
        return Certified(self.lower, self.upper, self.tight, value, radius, self.precision)

    def width(self) -> float:
        """upper - lower as a float rounded up (inf when an end is infinite).

        Returns:
            A float >= upper - lower.
        """
        if self.upper == INF or self.lower == INF:
            return 0.0 if self.upper == self.lower else INF
        return _float_up(self.upper - self.lower)


def _as_number(x: End, direction: int, precision: int | None, as_mpf: bool = False) -> Any:
    if x == INF:
        return INF
    if precision is None and not as_mpf:
        return Fraction(int(x.p), int(x.q))
    precision = precision or 128
    rnd = mpmath.libmp.round_ceiling if direction > 0 else mpmath.libmp.round_floor
    prec = max(precision, 64) + 16
    return mpmath.mp.make_mpf(mpmath.libmp.from_rational(int(x.p), int(x.q), prec, rnd))


def _float_up(x: fmpq) -> float:
    return rounding.up(Fraction(int(x.p), int(x.q)))


def start_precision(dps: int) -> int:
    """Initial ball precision for a backend asked to work at `dps` digits.

    Args:
        dps: decimal digits (the divergence functions' `dps`).

    Returns:
        max(128, mpmath's bits for dps) + 16 guard bits.
    """
    return max(128, bits_for_dps(dps)) + 16


class NeedPrecision(Exception):  # noqa: N818 (a signal inside `certify`, not an error)
    """Raised by an evaluation whose balls are too wide to decide a branch; carries the
    safe ends to report if precision runs out."""

    def __init__(self, lower: End, upper: End) -> None:
        super().__init__("ball too wide")
        self.lower, self.upper = lower, upper


def certify(evaluate: Callable[[int], tuple[End, End, bool]], precision: int) -> Certified:
    """Evaluate an enclosure, doubling the precision until it is tight or stops shrinking.

    Args:
        evaluate: called with a precision in bits; returns (lower, upper, used_balls) with
            lower <= truth <= upper (fmpq, or +inf) and whether a ball was involved, or
            raises NeedPrecision (with safe ends) when a ball is too wide to decide.
        precision: the first precision.

    Returns:
        The last Certified enclosure: tight as soon as lower == upper or the half-width is
        within RELATIVE_TOLERANCE of the midpoint; the loop also stops when an end is
        infinite, or when doubling shrank the width by less than 4 (the width is not
        rounding error: a tail, a rho, a grid of lower bounds), or after MAX_DOUBLINGS.
    """
    prec = precision
    prev_width = None
    for attempt in range(MAX_DOUBLINGS + 1):
        try:
            lo, hi, balls = evaluate(prec)
        except NeedPrecision as short:
            if attempt < MAX_DOUBLINGS:
                prec *= 2
                continue
            lo, hi, balls = short.lower, short.upper, True
        used = prec if balls else None
        if lo == hi:  # exact (a rational, or both ends +inf)
            value = INF if hi == INF else Fraction(int(hi.p), int(hi.q))
            return Certified(lo, hi, True, value, 0.0, used)
        if hi == INF or lo == INF:
            return Certified(lo, hi, False, None, 0.0, used)
        width = hi - lo
        mid = (lo + hi) / 2
        if width / 2 <= RELATIVE_TOLERANCE * abs(mid):
            value, radius = _as_mid(mid, width / 2, prec)
            return Certified(lo, hi, True, value, radius, used)
        if not balls or (prev_width is not None and width * 4 > prev_width):
            break
        prev_width = width
        prec *= 2
    return Certified(lo, hi, False, None, 0.0, used)


def _as_mid(mid: fmpq, half_width: fmpq, prec: int) -> tuple[mpmath.mpf, float]:
    """mid as an mpf (rounded at prec + 16 bits) and a float radius, rounded up, that
    covers half_width and that rounding."""
    m = mpmath.mp.make_mpf(mpmath.libmp.from_rational(int(mid.p), int(mid.q), prec + 16,
                                                       mpmath.libmp.round_nearest))
    return m, _float_up(half_width + abs(to_fmpq(m) - mid))


# ------------------------------------------------------------------ rigorous log / exp
def log_ball(r: fmpq) -> arb:
    """A ball around log r for a rational r > 0, at the context's precision: log1p(r - 1)
    near 1 (no loss of relative accuracy), log r elsewhere (r - 1 near -1 would round onto
    the singularity).

    Args:
        r: a rational > 0.

    Returns:
        An arb ball containing log r.
    """
    if fmpq(1, 2) <= r <= 2:
        return arb(r - 1).log1p()
    return arb(r).log()


def _log_bounds(r: fmpq, prec: int) -> tuple[fmpq, fmpq]:
    """[lo, hi] around log r for a rational r > 0."""
    if r == 1:
        return fmpq(0), fmpq(0)
    with ctx.workprec(prec):
        b = log_ball(r)
    return arb_lower(b), arb_upper(b)


def _exp_bounds(x: fmpq, prec: int) -> tuple[fmpq, fmpq]:
    """[lo, hi] around e^x for a rational x."""
    if x == 0:
        return fmpq(1), fmpq(1)
    with ctx.workprec(prec):
        b = arb(x).exp()
    return arb_lower(b), arb_upper(b)


def _one_plus(rho: fmpq) -> tuple[fmpq, fmpq]:
    return 1 + rho, 1 - rho


# ------------------------------------------------------------------ quantities
def delta_enclosure(rp: RationalPair, gamma: fmpq | None, epsilon: float,
                    precision: int) -> Certified:
    """Enclosure of H_{e^epsilon}(P||Q) of the true pair behind a view.

    Upper: (1 + rho) H~(g_lo (1 - rho)/(1 + rho)) + tail_p; lower: (1 - rho)
    H~(g_hi (1 + rho)/(1 - rho)), less g_hi tail_q on a grid of lower-bound values, at
    least 0; H~ is the stored grid's (exact, monotone decreasing in gamma) and [g_lo, g_hi]
    encloses e^epsilon (g_lo = g_hi = gamma when gamma is rational).

    Args:
        rp: the view as rationals (oriented P||Q).
        gamma: e^epsilon when it is rational (epsilon = 0, or exp_epsilon given), else None.
        epsilon: epsilon (used when gamma is None).
        precision: first ball precision in bits.

    Returns:
        The Certified enclosure.
    """
    up, dn = _one_plus(rp.rho)

    def evaluate(prec: int) -> tuple[End, End, bool]:
        if gamma is not None:
            g_lo = g_hi = gamma
            balls = False
        else:
            g_lo, g_hi = _exp_bounds(to_fmpq(epsilon), prec)
            balls = True
        upper = up * rp.hockey(g_lo * dn / up) + rp.tail_p
        lower = dn * rp.hockey(g_hi * up / dn) if rp.rho else rp.hockey(g_hi)
        if not rp.grid_exact:
            lower -= g_hi * rp.tail_q
        return max(lower, fmpq(0)), upper, balls

    return certify(evaluate, precision)


def epsilon_enclosure(rp: RationalPair, delta: fmpq, precision: int) -> Certified:
    """Enclosure of epsilon(delta) for P||Q of the true pair behind a view.

    With r*(t, f) = max(f, max_j (A_j - t)/B_j) of the stored grid
    (`RationalPair.best_ratio`) and c = (1 + rho)/(1 - rho): the true H at e^eps is at most
    (1 + rho) H~(e^eps / c) + tail_p and at least (1 - rho) H~(c e^eps), so
    upper = max(0, log(c r*((delta - tail_p)/(1 + rho), 1/c))), +inf when the infinite-loss
    mass exceeds that target; lower = max(0, log(r*(delta/(1 - rho), 1)/c))
    on an exact grid (0 on a grid of lower-bound values, whose truncated outcomes may
    carry any loss).

    Args:
        rp: the view as rationals (oriented P||Q).
        delta: the target delta, a rational in (0, 1).
        precision: first ball precision in bits.

    Returns:
        The Certified enclosure.
    """
    up, dn = _one_plus(rp.rho)
    c = up / dn
    target_u = (delta - rp.tail_p) / up
    # the stored grid's H at e^eps / c bounds the true one: gamma down to 1/c matters
    r_u = rp.best_ratio(target_u, 1 / c) if target_u > 0 else None
    if not rp.grid_exact:
        r_l: fmpq | None = fmpq(1)
    else:
        r_l = rp.best_ratio(delta / dn)
        r_l = None if r_l is None else max(r_l / c, fmpq(1))
    r_u = None if r_u is None else max(r_u * c, fmpq(1))

    def evaluate(prec: int) -> tuple[End, End, bool]:
        hi = INF if r_u is None else _log_bounds(r_u, prec)[1]
        lo = INF if r_l is None else _log_bounds(r_l, prec)[0]
        return lo, hi, (r_u not in (None, 1)) or (r_l not in (None, 1))

    return certify(evaluate, precision)


def max_divergence_enclosure(rp: RationalPair, precision: int) -> Certified:
    """Enclosure of D_inf(P||Q) = log max P/Q (>= 0) of the true pair behind a view.

    Args:
        rp: the view as rationals (oriented P||Q), without infinite-loss points.
        precision: first ball precision in bits.

    Returns:
        The Certified enclosure: the upper end also covers the residual (max with B when
        tail_p > 0); the lower end is 0 on a grid of lower-bound values.
    """
    up, dn = _one_plus(rp.rho)
    ratios = [r for r, p in zip(rp.ratio, rp.p, strict=True) if r is not None and p > 0]
    top = max(ratios, default=fmpq(0))
    r_u = max(top * up / dn, fmpq(1))
    r_l = max(top * dn / up, fmpq(1)) if rp.grid_exact else fmpq(1)
    resid = rp.residual_loss_bound if rp.tail_p > 0 else -INF

    def evaluate(prec: int) -> tuple[End, End, bool]:
        hi: End = _log_bounds(r_u, prec)[1]
        if resid == INF:
            hi = INF
        elif resid > -INF:
            hi = max(hi, to_fmpq(resid))
        return _log_bounds(r_l, prec)[0], hi, True

    return certify(evaluate, precision)


def _residual_moment(rp: RationalPair, a1: fmpq, prec: int) -> End:
    """Upper end of tail_p e^((alpha-1) B): the residual's share of the Renyi moment."""
    if rp.tail_p == 0:
        return fmpq(0)
    if rp.residual_loss_bound == INF:
        return INF
    return rp.tail_p * _exp_bounds(a1 * to_fmpq(rp.residual_loss_bound), prec)[1]


def _complete(rp: RationalPair) -> bool:
    """The true P and Q are both carried entirely by the grid (their grid masses are 1)."""
    return rp.tail_p == 0 and rp.tail_q == 0 and rp.grid_exact


def _convex_sum(rp: RationalPair, f: Callable[[fmpq], arb], at_zero: fmpq) -> tuple[arb, arb]:
    """Bounds on sum_x q f(p/q) over the true pair, for f convex, >= 0 and f(1) = 0.

    Each true ratio lies in [r/c, r c] (c = (1 + rho)/(1 - rho), r the stored ratio; a zero
    p stays zero, where f takes `at_zero`) and each true q in q (1 +- rho): the upper end
    takes the larger of f at the two ends, the lower end f's minimum over the interval
    (0 when it holds 1).
    """
    up, dn = _one_plus(rp.rho)
    c = up / dn
    hi, lo = arb(0), arb(0)
    for pi, qi in zip(rp.p, rp.q, strict=True):
        if qi == 0:
            continue
        if pi == 0:
            hi += arb(qi * up * at_zero)
            lo += arb(qi * dn * at_zero)
            continue
        r = pi / qi
        f_hi, f_lo = f(r * c), f(r / c)
        hi += arb(qi * up) * f_hi.max(f_lo)
        if r / c > 1:
            lo += arb(qi * dn) * f_lo.nonnegative_part()
        elif r * c < 1:
            lo += arb(qi * dn) * f_hi.nonnegative_part()
    return lo, hi


def renyi_enclosure(rp: RationalPair, alpha: Any, precision: int) -> Certified:
    """Enclosure of D_alpha(P||Q) = log(S)/(alpha - 1), S = sum P^alpha Q^(1-alpha), of the
    true pair behind a view (no infinite-loss points).

    Exact views: integer alpha gives a rational S, and only the final log1p(S - 1) is a
    ball. Real alpha (and any order of an mp view) sums
    S - 1 = sum p expm1((alpha-1) log(p/q)) + (sum p - 1) in balls. rho > 0 on a complete
    grid: S - 1 = sum q f(p/q) with f(x) = x^alpha - 1 - alpha (x - 1) >= 0 (both true laws
    sum to 1), bounded by `_convex_sum` (so values near alpha = 1 stay of order rho^2, not
    rho/(alpha - 1)). rho > 0 otherwise: the factors (1 + rho)^alpha (1 - rho)^(1-alpha)
    (upper) and (1 - rho)^alpha (1 + rho)^(1-alpha) (lower) bound S. The upper end adds
    tail_p e^((alpha-1) B) to S; the lower end uses the grid alone, Q raised by tail_q on a
    grid of lower-bound values, and is at least 0.

    Args:
        rp: the view as rationals (oriented P||Q).
        alpha: the order, a real > 1 (float, int or Fraction; converted exactly).
        precision: first ball precision in bits.

    Returns:
        The Certified enclosure.
    """
    a = to_fmpq(alpha)
    a1 = a - 1
    up, dn = _one_plus(rp.rho)
    integer = a.q == 1 and rp.rational_backend
    lower_q = (rp.q if rp.grid_exact else [qi + rp.tail_q for qi in rp.q])
    if integer:
        k = int(a.p)
        s = sum((pi ** k / qi ** (k - 1) for pi, qi in zip(rp.p, rp.q, strict=True)
                 if pi > 0), fmpq(0))
        s_l = s if rp.grid_exact else sum(
            (pi ** k / qi ** (k - 1) for pi, qi in zip(rp.p, lower_q, strict=True) if pi > 0),
            fmpq(0))
        c_u = up ** k / dn ** (k - 1)
        c_l = dn ** k / up ** (k - 1)

    def moment_minus_one(qs: list[fmpq], prec: int) -> arb:
        total = arb(0)
        for pi, qi in zip(rp.p, qs, strict=True):
            if pi > 0:
                total += arb(pi) * (arb(a1) * log_ball(pi / qi)).expm1()
        return total + arb(sum(rp.p, fmpq(0)) - 1)

    def f(x: fmpq) -> arb:
        return (arb(a) * log_ball(x)).expm1() - arb(a * (x - 1))

    def evaluate(prec: int) -> tuple[End, End, bool]:
        resid = _residual_moment(rp, a1, prec)
        with ctx.workprec(prec):
            if rp.rho and _complete(rp):
                sl1, su1 = _convex_sum(rp, f, a1)
            elif integer:
                su1 = arb(s * c_u - 1)
                sl1 = arb(s_l * c_l - 1)
            else:
                t = moment_minus_one(rp.q, prec)
                tl = t if rp.grid_exact else moment_minus_one(lower_q, prec)
                lu = arb(a) * arb(up - 1).log1p() - arb(a1) * arb(dn - 1).log1p()
                ll = arb(a) * arb(dn - 1).log1p() - arb(a1) * arb(up - 1).log1p()
                # S c - 1 = (S - 1) c + (c - 1), c = e^l
                su1 = t * lu.exp() + lu.expm1()
                sl1 = tl * ll.exp() + ll.expm1()
            if resid == INF:
                hi: End = INF
            else:
                su1 = su1 + arb(resid)
                hb = su1.log1p() / arb(a1) if su1 > -1 else None
                if hb is None or not hb.is_finite():
                    # S > 0, so the ball is only too wide: more precision, or +inf at the end
                    raise NeedPrecision(fmpq(0), INF)
                hi = arb_upper(hb)
            lo_b = sl1.log1p() / arb(a1) if sl1 > -1 else None
            lo = max(arb_lower(lo_b), fmpq(0)) if lo_b is not None and lo_b.is_finite() \
                else fmpq(0)
        if hi != INF:
            hi = max(hi, fmpq(0))
        return lo, hi, True

    return certify(evaluate, precision)


def kl_enclosure(rp: RationalPair, precision: int) -> Certified:
    """Enclosure of KL(P||Q) = sum p log(p/q) of the true pair behind a view (no
    infinite-loss points).

    Each term is a ball: p (1 +- rho) times log(p/q) +- log((1 + rho)/(1 - rho)); on a
    complete grid with rho > 0, KL = sum q g(p/q) with g(x) = x log x - x + 1 >= 0, bounded
    by `_convex_sum` instead. The upper
    end adds tail_p B (+inf for an unknown B); the lower end is the ball's on a complete
    exact grid and 0 otherwise (a residual can lower KL).

    Args:
        rp: the view as rationals (oriented P||Q).
        precision: first ball precision in bits.

    Returns:
        The Certified enclosure (never below 0).
    """
    up, dn = _one_plus(rp.rho)
    complete = rp.tail_p == 0 and rp.grid_exact

    def g(x: fmpq) -> arb:
        return arb(x) * log_ball(x) - arb(x - 1)

    def evaluate(prec: int) -> tuple[End, End, bool]:
        if rp.rho and complete and rp.tail_q == 0:
            # KL = sum q g(p/q), g(x) = x log x - x + 1 >= 0, as both true laws sum to 1
            with ctx.workprec(prec):
                lo_b, hi_b = _convex_sum(rp, g, fmpq(1))
            return max(arb_lower(lo_b), fmpq(0)), arb_upper(hi_b), True
        with ctx.workprec(prec):
            spread = arb(0)
            if rp.rho:
                spread = arb(0, arb_upper(arb(up / dn - 1).log1p()))
            total = arb(0)
            for pi, qi in zip(rp.p, rp.q, strict=True):
                if pi > 0:
                    term_log = log_ball(pi / qi) + spread
                    pb = arb(pi) if not rp.rho else arb(pi) * arb(1, rp.rho)
                    total += pb * term_log
            if rp.tail_p > 0:
                b = rp.residual_loss_bound
                if b == INF:
                    return fmpq(0), INF, True
                total += arb(rp.tail_p) * arb(to_fmpq(b))
        hi = max(arb_upper(total), fmpq(0))
        lo = max(arb_lower(total), fmpq(0)) if complete else fmpq(0)
        return lo, hi, True

    return certify(evaluate, precision)
