"""The enclosure driver of accountant/divergence/objects.py (`certify`, `Certified`,
`rational_pair`, `start_precision`, `NeedPrecision`), pinned where mutation testing found gaps
(docs/soundness.md#mutation-testing, sixth run).

Oracles, independent of the code under test: exact Fractions (an end rounded up must be >= the
rational it rounds, down <= it, and both within the stated precision of it; a grid's prefix
sums recomputed by hand in ratio order), the docstrings' stopping rules of `certify` traced
call by call on scripted evaluations, and mpmath's own dps-to-bits table.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import fmpq

from accountant.divergence import objects as ob
from accountant.numeric.mp import to_fmpq
from accountant.result import Kind
from accountant.view import ViewPair


def _q(x):
    """A float/mpf/fmpq value as an exact Fraction."""
    v = to_fmpq(x)
    return Fraction(int(v.p), int(v.q))


def _f(fr):
    return fmpq(fr.numerator, fr.denominator)


# ------------------------------------------------------------------ rational_pair
def test_rational_pair_orders_atoms_first_then_by_decreasing_ratio():
    """Atoms (q = 0) first, then decreasing p/q; p = q = 0 points dropped; prefix masses are
    the running sums in that order; an exact view has rho 0 (stated)."""
    F = Fraction
    p = [F(1, 10), F(0), F(2, 10), F(1, 20), F(3, 10), F(1, 4)]
    q = [F(2, 10), F(0), F(1, 10), F(0), F(6, 10), F(1, 10)]
    tail_p, tail_q = F(0), F(0)
    view = ViewPair(backend="exact", p=np.array(p, dtype=object), q=np.array(q, dtype=object),
                    tail_p=tail_p, tail_q=tail_q, grid_exact=True, residual_loss_bound=0.0)
    rp = ob.rational_pair(view)
    # by hand: atom (1/20, 0); ratios 2 (2/10,1/10), 2.5 (1/4,1/10), 1/2 (1/10,2/10),
    # 1/2 (3/10,6/10)
    order_p = [F(1, 20), F(1, 4), F(2, 10)]
    order_q = [F(0), F(1, 10), F(1, 10)]
    assert [_q(x) for x in rp.p[:3]] == order_p
    assert [_q(x) for x in rp.q[:3]] == order_q
    assert sorted(_q(x) for x in rp.p[3:]) == [F(1, 10), F(3, 10)]
    assert rp.atoms == 1 and rp.ratio[0] is None
    assert [_q(r) for r in rp.finite_ratios] == [F(5, 2), F(2), F(1, 2), F(1, 2)]
    assert rp.ratio[1:] == rp.finite_ratios
    assert len(rp.p) == 5 and len(rp.a_prefix) == 6 and len(rp.b_prefix) == 6
    a = b = F(0)
    for j in range(5):
        assert _q(rp.a_prefix[j]) == a and _q(rp.b_prefix[j]) == b
        a, b = a + _q(rp.p[j]), b + _q(rp.q[j])
    assert _q(rp.a_prefix[5]) == sum(p) and _q(rp.b_prefix[5]) == sum(q)
    assert rp.rho == 0 and rp.stated is True and rp.rational_backend is True
    assert rp.grid_exact is True and rp.residual_loss_bound == 0.0
    # H_gamma at gamma = 1 from the definition: sum [p - q]_+
    assert _q(rp.hockey(fmpq(1))) == sum(max(F(0), x - y) for x, y in zip(p, q, strict=True))


def test_rational_pair_of_an_mp_view_carries_its_rho_and_residual():
    """An mp view: stored mpfs converted exactly, the stated rho, the tails, the flags."""
    with mpmath.workprec(128):
        p = [mpmath.mpf(1) / 3, mpmath.mpf(2) / 3 - mpmath.mpf(10) ** -6]
        q = [mpmath.mpf(1) / 2, mpmath.mpf(1) / 2 - mpmath.mpf(10) ** -6]
    view = ViewPair(backend="mp", p=np.array(p, dtype=object), q=np.array(q, dtype=object),
                    tail_p=Fraction(1, 10**6), tail_q=Fraction(1, 10**6), grid_exact=False,
                    residual_loss_bound=3.5, value_error=1e-20)
    rp = ob.rational_pair(view)
    assert [_q(x) for x in rp.p] == [_q(p[1]), _q(p[0])]     # ratio 4/3 first, then 2/3
    assert [_q(x) for x in rp.q] == [_q(q[1]), _q(q[0])]
    assert rp.atoms == 0 and None not in rp.ratio
    assert _q(rp.rho) == _q(1e-20) and rp.stated is True
    assert _q(rp.tail_p) == Fraction(1, 10**6) and _q(rp.tail_q) == Fraction(1, 10**6)
    assert rp.grid_exact is False and rp.residual_loss_bound == 3.5
    assert rp.rational_backend is False


# ------------------------------------------------------------------ Certified ends
THIRD = Fraction(1, 3)


@pytest.mark.parametrize("precision", [None, 64, 128, 300])
def test_certified_ends_round_outward(precision):
    """upper_value >= the rational upper end, lower_value <= the lower end, each within
    2^-(max(precision, 64) + 15) relative (Fraction, unrounded, for exact rationals)."""
    lo, hi = fmpq(1, 3), fmpq(2, 3)
    c = ob.Certified(lo, hi, False, None, 0.0, precision)
    for as_mpf in (False, True):
        up, down = c.upper_value(as_mpf), c.lower_value(as_mpf)
        if precision is None and not as_mpf:
            assert isinstance(up, Fraction) and up == 2 * THIRD
            assert isinstance(down, Fraction) and down == THIRD
            continue
        assert isinstance(up, mpmath.mpf) and isinstance(down, mpmath.mpf)
        assert _q(up) > 2 * THIRD and _q(down) < THIRD    # 1/3 is not dyadic: strict
        bits = max(precision or 128, 64) + 15
        assert _q(up) - 2 * THIRD <= 2 * THIRD * Fraction(1, 2**bits)
        assert THIRD - _q(down) <= THIRD * Fraction(1, 2**bits)
    inf = ob.Certified(lo, math.inf, False, None, 0.0, precision)
    assert inf.upper_value() == math.inf and inf.upper_value(True) == math.inf


def test_certified_width_is_rounded_up():
    """width >= upper - lower exactly; 0 for two infinite ends, inf for one."""
    c = ob.Certified(fmpq(1, 3), fmpq(1, 2), False, None, 0.0, None)
    w = c.width()
    assert isinstance(w, float) and Fraction(w) >= Fraction(1, 6)
    assert Fraction(w) - Fraction(1, 6) <= Fraction(1, 6) * Fraction(1, 2**51)
    assert ob.Certified(fmpq(1), fmpq(1), True, Fraction(1), 0.0, None).width() == 0.0
    assert ob.Certified(math.inf, math.inf, True, math.inf, 0.0, None).width() == 0.0
    assert ob.Certified(fmpq(1), math.inf, False, None, 0.0, None).width() == math.inf


@pytest.mark.parametrize("precision", [None, 53, 128])
def test_as_mpf_keeps_the_truth_in_the_ball(precision):
    """A Fraction value becomes an mpf whose radius covers the rounding (0 when exact); ends,
    tightness and precision are kept; a non-Fraction value is returned as it is."""
    c = ob.Certified(fmpq(1, 3), fmpq(1, 3), True, THIRD, 0.0, precision)
    m = c.as_mpf()
    assert isinstance(m.value, mpmath.mpf) and m.value != THIRD
    assert abs(_q(m.value) - THIRD) <= Fraction(m.radius)
    assert 0 < m.radius <= 2.0 ** -((precision or 128) + 16)
    assert (m.lower, m.upper, m.tight, m.precision) == (c.lower, c.upper, True, precision)
    half = ob.Certified(fmpq(1, 2), fmpq(1, 2), True, Fraction(1, 2), 0.0, precision).as_mpf()
    assert half.value == mpmath.mpf(0.5) and half.radius == 0.0
    ball = ob.Certified(fmpq(1), fmpq(2), True, mpmath.mpf(1.5), 0.25, 64)
    assert ball.as_mpf() is ball


# ------------------------------------------------------------------ start_precision
@pytest.mark.parametrize("dps", [1, 15, 38, 39, 50, 100])
def test_start_precision(dps):
    """max(128, mpmath's bits for dps) + 16 (mpmath: dps_to_prec)."""
    expected = max(128, int(mpmath.libmp.dps_to_prec(dps))) + 16
    assert ob.start_precision(dps) == expected
    assert ob.start_precision(dps) >= 144


# ------------------------------------------------------------------ certify
class Script:
    """An evaluation that records the precisions it is called with and answers from a rule."""

    def __init__(self, rule):
        self.rule = rule
        self.calls = []

    def __call__(self, prec):
        self.calls.append(prec)
        return self.rule(prec)


def _ball(mid, half):
    return _f(mid - half), _f(mid + half)


def test_certify_exact_rational_and_infinite_ends():
    """lo == hi: tight, the Fraction itself, radius 0, precision only if balls were used;
    an infinite end: not tight, no value, after one call."""
    s = Script(lambda prec: (fmpq(2, 7), fmpq(2, 7), False))
    c = ob.certify(s, 100)
    assert s.calls == [100]
    assert c.tight and c.value == Fraction(2, 7) and isinstance(c.value, Fraction)
    assert c.radius == 0.0 and c.precision is None
    assert c.lower == c.upper == fmpq(2, 7)
    assert _q(c.lower_value(True)) < Fraction(2, 7) < _q(c.upper_value(True))
    c = ob.certify(lambda prec: (fmpq(2, 7), fmpq(2, 7), True), 100)
    assert c.precision == 100
    s = Script(lambda prec: (fmpq(1), math.inf, True))
    c = ob.certify(s, 100)
    assert s.calls == [100] and not c.tight and c.value is None and c.upper == math.inf
    assert c.lower == 1 and c.precision == 100
    c = ob.certify(lambda prec: (math.inf, math.inf, False), 100)
    assert c.tight and c.value == math.inf and c.precision is None


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(-3, 2)])
def test_certify_tightness_threshold(scale):
    """Tight exactly when half-width <= 2^-40 |mid| (here mid = scale): at equality EXACT with
    a radius covering the half-width and the midpoint's rounding; just above, with no balls,
    one call and not tight."""
    mid = scale
    half = abs(mid) * Fraction(1, 2**40)
    s = Script(lambda prec: (*_ball(mid, half), False))
    c = ob.certify(s, 100)
    assert s.calls == [100] and c.tight and c.precision is None
    assert isinstance(c.value, mpmath.mpf)
    assert _q(c.lower) == mid - half and _q(c.upper) == mid + half
    assert _q(c.value) - Fraction(c.radius) <= mid - half
    assert mid + half <= _q(c.value) + Fraction(c.radius)
    assert Fraction(c.radius) <= half * (1 + Fraction(1, 2**40))
    over = half * (1 + Fraction(1, 2**20))
    s = Script(lambda prec: (*_ball(mid, over), False))
    c = ob.certify(s, 100)
    assert s.calls == [100] and not c.tight and c.value is None and c.radius == 0.0
    assert _q(c.lower) == mid - over and _q(c.upper) == mid + over


def test_certify_midpoint_rounding_enters_the_radius():
    """A midpoint 1/3 (not dyadic) at precision 20: rounded at 36 bits, the radius must cover
    that rounding (~2^-38), far more than the half-width 2^-60."""
    mid, half = THIRD, Fraction(1, 2**60)
    c = ob.certify(lambda prec: (*_ball(mid, half), True), 20)
    assert c.tight and c.precision == 20
    assert _q(c.value) - Fraction(c.radius) <= mid - half
    assert mid + half <= _q(c.value) + Fraction(c.radius)
    assert c.radius > 2.0 ** -45


def test_certify_doubles_until_tight():
    """A ball-based evaluation whose width is 2^(20 - prec): doubled from 30 until the
    half-width is within 2^-40 of the midpoint 1."""
    s = Script(lambda prec: (*_ball(Fraction(1), Fraction(1, 2**(prec - 20))), True))
    c = ob.certify(s, 30)
    assert s.calls == [30, 60]
    assert c.tight and c.precision == 60
    assert abs(_q(c.value) - 1) <= Fraction(c.radius)


def test_certify_stops_when_doubling_does_not_shrink_by_four():
    """Width halved per doubling (a tail, not rounding): stop at the second call; shrunk by
    exactly 4 each time: keep doubling to the last allowed call (MAX_DOUBLINGS + 1 calls)."""
    s = Script(lambda prec: (*_ball(Fraction(1), Fraction(100, prec)), True))
    c = ob.certify(s, 10)
    assert s.calls == [10, 20] and not c.tight and c.value is None
    assert _q(c.upper) == 1 + Fraction(100, 20) and c.precision == 20
    s = Script(lambda prec: (*_ball(Fraction(1), Fraction(1, prec * prec)), True))
    c = ob.certify(s, 2)
    assert s.calls == [2 * 2**k for k in range(ob.MAX_DOUBLINGS + 1)]
    assert not c.tight and c.precision == 2 * 2**ob.MAX_DOUBLINGS
    s = Script(lambda prec: (*_ball(Fraction(1), Fraction(1, 4)), False))
    ob.certify(s, 10)
    assert s.calls == [10]      # no balls: more precision cannot help


def test_certify_need_precision():
    """NeedPrecision doubles the precision; after MAX_DOUBLINGS the exception's own safe ends
    are returned (not tight, precision recorded)."""
    def rule(prec):
        if prec < 400:
            raise ob.NeedPrecision(fmpq(0), fmpq(1))
        return fmpq(1, 5), fmpq(1, 5), True
    s = Script(rule)
    c = ob.certify(s, 100)
    assert s.calls == [100, 200, 400] and c.value == Fraction(1, 5) and c.precision == 400

    def never(prec):
        raise ob.NeedPrecision(fmpq(1, 7), fmpq(3, 7))
    s = Script(never)
    c = ob.certify(s, 8)
    assert s.calls == [8 * 2**k for k in range(ob.MAX_DOUBLINGS + 1)]
    assert _q(c.lower) == Fraction(1, 7) and _q(c.upper) == Fraction(3, 7)
    assert not c.tight and c.precision == 8 * 2**ob.MAX_DOUBLINGS
    e = ob.NeedPrecision(fmpq(1), fmpq(2))
    assert (e.lower, e.upper) == (fmpq(1), fmpq(2)) and str(e) == "ball too wide"


# ------------------------------------------------------------------ rho at its extremes
# An mp view with a stated rho stands for every true pair with p_true in p (1 +- rho) and
# q_true in q (1 +- rho) (both laws summing to 1, Q's tail off the grid). The tests below fix
# a true pair first and store p_true / (1 + s rho') (s = +-1, rho' a hair below rho, rounded
# at 256 bits), so that each outcome's truth sits at the corner of its box that the bound
# under test must cover: the certified ends are then within O(rho^2) (or exactly at) the
# truth, and a dropped factor 1 +- rho on one term puts an end on the wrong side.
DPS = 60


def _stored(truth, signs, rho):
    """Stored mpfs with truth = stored (1 + s rho') for each outcome (rho' = rho (1 - 1e-9))."""
    rho_t = Fraction(rho) * (1 - Fraction(1, 10**9))
    out = []
    with mpmath.workprec(256):
        for t, s in zip(truth, signs, strict=True):
            v = t / (1 + s * rho_t)
            out.append(mpmath.mpf(v.numerator) / v.denominator)
    for t, v in zip(truth, out, strict=True):      # admissible: truth within 1 +- rho
        assert abs(t - _q(v)) <= Fraction(rho) * _q(v)
    return out


def _mp_view(p, q, rho, *, tail_q=Fraction(0)):
    return ViewPair(backend="mp", p=np.array(p, dtype=object), q=np.array(q, dtype=object),
                    tail_p=Fraction(0), tail_q=tail_q, grid_exact=True,
                    residual_loss_bound=0.0, value_error=rho)


def _renyi_truth(p, q, alpha):
    """D_alpha from the definition (grid outcomes with p = 0 contribute nothing)."""
    with mpmath.workdps(DPS):
        s = mpmath.fsum(mpmath.mpf(a.numerator) / a.denominator * (
            (mpmath.mpf(a.numerator) / a.denominator) / (mpmath.mpf(b.numerator) / b.denominator)
        ) ** (alpha - 1) for a, b in zip(p, q, strict=True) if a > 0)
        return mpmath.log(s) / (alpha - 1)


def _kl_truth(p, q):
    with mpmath.workdps(DPS):
        return mpmath.fsum(mpmath.mpf(a.numerator) / a.denominator * mpmath.log(
            mpmath.mpf(a.numerator * b.denominator) / (a.denominator * b.numerator))
            for a, b in zip(p, q, strict=True) if a > 0)


def _rn():
    from accountant.divergence import renyi as rn
    return rn


SLACK = mpmath.mpf("1e-45")   # far above the 60-digit oracle's rounding, far below rho


def _le(x, y):
    """x <= y up to the oracle's rounding (x, y mpf)."""
    with mpmath.workdps(DPS):
        return x <= y + SLACK * (1 + abs(y))


def _end(r, sign):
    """The end of a Result's ball (its value for UPPER/LOWER), as a 60-digit mpf."""
    with mpmath.workdps(DPS):
        v = _q(r.value)
        return mpmath.mpf(v.numerator) / v.denominator + sign * mpmath.mpf(r.radius)


# true pair: outcome 1 ratio 0.1 (far below 1), outcome 2 has p = 0, outcome 3 ratio ~1.31
TRUE_P = [Fraction(2, 100), Fraction(0), Fraction(98, 100)]
TRUE_Q = [Fraction(20, 100), Fraction(5, 100), Fraction(75, 100)]
# corners: the upper end of sum q f(p/q) is reached at (p down, q up) below ratio 1 and at
# q up where p = 0; its lower end at (p up, q down) below ratio 1 and q down where p = 0
UPPER_SIGNS = ([-1, +1, +1], [+1, +1, -1])
LOWER_SIGNS = ([+1, +1, -1], [-1, -1, +1])


def _corner_view(signs, rho):
    ps, qs = signs
    return _mp_view(_stored(TRUE_P, ps, rho), _stored(TRUE_Q, qs, rho), rho)


@pytest.mark.parametrize("rho", [1e-3, 1e-14])
@pytest.mark.parametrize("alpha", [2, 2.5])
def test_convex_sum_at_the_corners_renyi(alpha, rho):
    """Renyi on a complete mp grid (the `_convex_sum` path): the upper end covers a truth at
    the upper corners, the lower end a truth at the lower corners (rho = 1e-14: the EXACT
    ball holds both). Dropping (1 + rho)^2 from one term's weight (`qi / up`) or adding it
    (`qi / dn`) moves an end past the truth by ~2 rho q f."""
    rn = _rn()
    t = _renyi_truth(TRUE_P, TRUE_Q, alpha)
    up = rn.renyi_divergence(_corner_view(UPPER_SIGNS, rho), alpha, direction="P||Q")
    assert up.kind is (Kind.EXACT if rho == 1e-14 else Kind.UPPER)
    assert _le(t, _end(up, +1))
    low, _ = rn.renyi_bracket(_corner_view(LOWER_SIGNS, rho), alpha, direction="P||Q")
    assert _le(_end(low, -1), t)
    assert (low.kind is Kind.EXACT) == (rho == 1e-14)


@pytest.mark.parametrize("rho", [1e-3, 1e-14])
def test_convex_sum_at_the_corners_kl(rho):
    """KL on a complete mp grid (`_convex_sum` with g(x) = x log x - x + 1, g(0) = 1): the
    same corners; at rho = 1e-14 the enclosure is tight, so the lower end decides the EXACT
    ball, which must hold the lower-corner truth."""
    rn = _rn()
    t = _kl_truth(TRUE_P, TRUE_Q)
    up = rn.kl_divergence(_corner_view(UPPER_SIGNS, rho), direction="P||Q")
    assert _le(t, _end(up, +1))
    low = rn.kl_divergence(_corner_view(LOWER_SIGNS, rho), direction="P||Q")
    assert (low.kind is Kind.EXACT) == (rho == 1e-14)
    if low.kind is Kind.EXACT:
        assert _le(_end(low, -1), t)


@pytest.mark.parametrize("alpha", [2, 2.5, 4])
def test_tail_q_is_not_a_complete_grid(alpha):
    """tail_q = 1e-2 off the grid (where P is 0), tail_p = 0, rho = 1e-6 stated: the moment
    identity S - 1 = sum q f(p/q) needs both laws to sum to 1 on the grid, so the convex-sum
    path must not be taken (it would miss (alpha - 1) tail_q of S). The truth is the stored
    grid itself plus Q's off-grid mass."""
    rn = _rn()
    p = [Fraction(5, 10), Fraction(3, 10), Fraction(2, 10)]
    q = [Fraction(2, 10), Fraction(3, 10), Fraction(49, 100)]
    view = _mp_view(_stored(p, [0, 0, 0], 1e-6), _stored(q, [0, 0, 0], 1e-6), 1e-6,
                    tail_q=Fraction(1, 100))
    t = _renyi_truth(p, q, alpha)
    up = rn.renyi_divergence(view, alpha, direction="P||Q")
    assert _le(t, _end(up, +1))
    low, _ = rn.renyi_bracket(view, alpha, direction="P||Q")
    assert _le(_end(low, -1), t)


@pytest.mark.parametrize("rho", [1e-3, 1e-9])
@pytest.mark.parametrize("alpha", [2, 3.5])
def test_incomplete_grid_lower_end_at_its_corner(alpha, rho):
    """tail_q > 0 (not complete: the factor path of `renyi_enclosure`). Every outcome's truth
    at (p down, q up): S_true = S_stored (1 - rho')^alpha (1 + rho')^(1 - alpha), a hair
    above the lower end's S (1 - rho)^alpha (1 + rho)^(1 - alpha); any rho factor taken on
    the wrong side (`ll` sign, `/ e^ll`, `- expm1(ll)`) lifts the lower end above it."""
    rn = _rn()
    p = [Fraction(6, 10), Fraction(3, 10), Fraction(1, 10)]
    q = [Fraction(1, 10), Fraction(3, 10), Fraction(5, 10)]   # off-grid Q mass 1/10
    view = _mp_view(_stored(p, [-1] * 3, rho), _stored(q, [+1] * 3, rho), rho,
                    tail_q=Fraction(1, 10))
    t = _renyi_truth(p, q, alpha)
    low, up = rn.renyi_bracket(view, alpha, direction="P||Q")
    assert low.kind is Kind.LOWER and _le(_end(low, -1), t)
    # tight: the lower end is within 3 rho of the truth (it is the corner's own bound)
    assert _le(t - 3 * rho * alpha, _end(low, -1))
    assert _le(t, _end(up, +1))


def test_kl_ball_path_tight_with_a_q_tail():
    """KL with tail_q > 0, tail_p = 0, rho = 1e-14 (the per-term ball path; tight, so EXACT):
    every true q at q (1 + rho'), p as stored. KL_true = KL_stored - log(1 + rho') sits
    about 2 rho below the stored grid's KL, and the ball must still hold it: the log-ratio
    spread must be two-sided (+- log((1 + rho)/(1 - rho))), not +log only."""
    rn = _rn()
    rho = 1e-14
    p = [Fraction(5, 10), Fraction(3, 10), Fraction(2, 10)]
    q = [Fraction(4, 10), Fraction(3, 10), Fraction(2, 10)]   # off-grid Q mass 1/10
    view = _mp_view(_stored(p, [0, 0, 0], rho), _stored(q, [+1] * 3, rho), rho,
                    tail_q=Fraction(1, 10))
    t = _kl_truth(p, q)
    r = rn.kl_divergence(view, direction="P||Q")
    assert r.kind is Kind.EXACT
    assert _le(_end(r, -1), t) and _le(t, _end(r, +1))


@pytest.mark.parametrize("alpha", [2, 3.5])
def test_convex_sum_lower_end_is_zero_when_the_ratio_interval_holds_one(alpha):
    """Stored ratios 1 +- rho' (a true pair P = Q behind them, D = KL = 0): each ratio
    interval [r/c, r c] holds 1, so f's minimum over it is 0 and the lower end must be 0;
    taking f at an end of the interval (`r * c > 1`, `r / c < 1`, `r * c < 2` in the branch
    tests) gives a positive lower end, above the truth."""
    rn = _rn()
    rho = 1e-3
    half = Fraction(1, 2)
    view = _mp_view(_stored([half, half], [-1, +1], rho), _stored([half, half], [0, 0], rho),
                    rho)
    low, up = rn.renyi_bracket(view, alpha, direction="P||Q")
    assert low.kind is Kind.LOWER and _q(low.value) == 0
    assert _q(up.value) > 0


@pytest.mark.parametrize("rho", [1e-3, 1e-14])
def test_convex_sum_counts_every_zero_outcome(rho):
    """Two outcomes with p = 0 (sorted last, ratio 0): each adds q f(0) = q (alpha - 1) to
    the moment; the upper end at the upper corners must count both (a `break` after the
    first would drop 0.05 (alpha - 1) of S)."""
    rn = _rn()
    p = [Fraction(2, 100), Fraction(0), Fraction(0), Fraction(98, 100)]
    q = [Fraction(20, 100), Fraction(5, 100), Fraction(5, 100), Fraction(70, 100)]
    view = _mp_view(_stored(p, [-1, +1, +1, +1], rho), _stored(q, [+1, +1, +1, -1], rho), rho)
    for alpha in (2, 2.5):
        up = rn.renyi_divergence(view, alpha, direction="P||Q")
        assert _le(_renyi_truth(p, q, alpha), _end(up, +1))
    up = rn.kl_divergence(view, direction="P||Q")
    assert _le(_kl_truth(p, q), _end(up, +1))


@pytest.mark.parametrize("alpha", [2.5, 3.5])
def test_lower_bound_grid_raises_q_before_the_lower_end(alpha):
    """A grid of lower-bound values (grid_exact False, exact backend, real order): the true Q
    may put all of tail_q = 1/10 on one outcome. With it on the outcome of largest p, the
    true D_alpha is below the stored grid's, and the lower end (Q raised by tail_q at every
    outcome) must stay below it."""
    rn = _rn()
    p = [Fraction(6, 10), Fraction(3, 10), Fraction(1, 10)]
    q = [Fraction(2, 10), Fraction(3, 10), Fraction(4, 10)]
    view = ViewPair(backend="exact", p=np.array(p, dtype=object), q=np.array(q, dtype=object),
                    tail_p=Fraction(0), tail_q=Fraction(1, 10), grid_exact=False,
                    residual_loss_bound=0.0)
    true_q = [q[0] + Fraction(1, 10), q[1], q[2]]
    t = _renyi_truth(p, true_q, alpha)
    assert t < _renyi_truth(p, q, alpha)
    low, up = rn.renyi_bracket(view, alpha, direction="P||Q")
    assert low.kind is Kind.LOWER and _le(_end(low, -1), t)
    assert _le(t, _end(up, +1))


@pytest.mark.parametrize("rho", [1e-3, 1e-9])
@pytest.mark.parametrize("alpha", [2, 3.5])
def test_incomplete_grid_upper_end_at_its_corner(alpha, rho):
    """The mirror of the lower-end corner: every truth at (p up, q down), so S_true =
    S_stored (1 + rho')^alpha (1 - rho')^(1 - alpha), a hair below the upper end's factor;
    a factor taken on the wrong side in `lu` puts the upper end below it."""
    rn = _rn()
    p = [Fraction(6, 10), Fraction(3, 10), Fraction(1, 10)]
    q = [Fraction(1, 10), Fraction(3, 10), Fraction(5, 10)]   # off-grid Q mass 1/10
    view = _mp_view(_stored(p, [+1] * 3, rho), _stored(q, [-1] * 3, rho), rho,
                    tail_q=Fraction(1, 10))
    t = _renyi_truth(p, q, alpha)
    up = rn.renyi_divergence(view, alpha, direction="P||Q")
    assert up.kind is Kind.UPPER and _le(t, _end(up, +1))
    assert _le(_end(up, +1), t + 3 * rho * alpha)
