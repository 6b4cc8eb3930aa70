"""The optimal conversion's pieces below and above `certified_delta`
(accountant/composition/conversion.py: `_root_d`, `_enclose`, `_Enclosure`, `_line_max`,
`_ends`, `_iv_prec`, the float locators, `epsilon_optimal`, `delta_optimal`,
`epsilon_best`, `delta_best`), pinned where mutation testing found gaps
(docs/soundness.md#mutation-testing).

Oracles, none of them the library's code:
- p_max(q), the largest p in [q, 1] with p^a q^(1-a) + (1-p)^a (1-q)^(1-a) <= e^((a-1) tau),
  by 400 bisection steps on p at 130 digits (the left side increases in p on [q, 1]);
- the chord bound of `_line_max` from its definition (docstring: the extensions of the
  neighbouring chords, max over the cell of their minimum), computed in exact Fractions
  from the exact mpf inputs, and the true maximum of the concave function the ladder samples;
- the optimal conversion's supremum sup_q p_max(q) - e^eps q (delta) and
  sup_q log((p_max(q) - delta)/q) (epsilon), by a grid and golden sections in log q at 40
  digits (both are unimodal in log q); every value it returns is attained by a feasible
  pair (p moved to the feasible side), so it is at most the truth;
- the CKS closed form at 50 digits (the optimal conversion is never worse than CKS at an
  order).
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant.composition import conversion as cv
from accountant.composition.rdp import RdpCurve
from accountant.result import Kind


def _frac(x) -> Fraction:
    """An mpf (or float) as an exact Fraction."""
    if not isinstance(x, mpmath.mpf):
        return Fraction(x)  # a float or int: exact
    sign, man, exp, _ = x._mpf_  # exact, not rounded to the current precision
    assert man or not exp, x  # finite
    return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)


# ------------------------------------------------------------------ p_max oracle
def _p_star(q, alpha, tau, dps=130):
    """p_max(q) by bisection on p (feasible end kept), at `dps` digits."""
    with mpmath.workdps(dps):
        q, a = mpmath.mpf(q), mpmath.mpf(alpha)
        bound = mpmath.exp((a - 1) * mpmath.mpf(tau))
        lq, l1q = mpmath.log(q), mpmath.log1p(-q)

        def f(p):
            return (mpmath.exp(a * mpmath.log(p) + (1 - a) * lq)
                    + mpmath.exp(a * mpmath.log1p(-p) + (1 - a) * l1q) - bound)

        if q ** (1 - a) <= bound:
            return mpmath.mpf(1)
        lo, hi = q, mpmath.mpf(1)
        for _ in range(400):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            lo, hi = (mid, hi) if f(mid) <= 0 else (lo, mid)
        return lo


_POINTS = [
    # (q, alpha, tau): interior optima of various shapes
    ("1e-2", 2.0, 0.1),
    ("1e-3", 8.0, 0.5),
    ("0.3", 1.5, 1e-4),          # small tau: p - q tiny, G ~ d^2
    ("1e-12", 32.0, 2.0),        # G ~ d^a
    ("0.9", 3.0, 0.01),          # q near 1
    ("1e-30", 1.05, 3.0),
    ("0.25", 200.0, 0.002),
]


@pytest.mark.parametrize("q, alpha, tau", _POINTS)
def test_root_d_is_the_boundary_of_the_constraint(q, alpha, tau):
    """`_root_d` returns d with q + d = p_max(q) to a relative 2^-80 (the certificate's
    bracket is 2^(40 - prec) wide around it, prec = 128), with or without a guess."""
    with mpmath.workprec(128):
        qm = mpmath.mpf(q)
        a = mpmath.mpf(alpha)
        c = (a - 1) * mpmath.mpf(tau)
        truth = _p_star(qm, alpha, tau) - qm
        assert truth > 0
        for guess in (None, truth * 3, truth / 5, mpmath.mpf(2)):
            d = cv._root_d(qm, a, c, mpmath.expm1(c), guess)
            assert d is not None
            with mpmath.workdps(130):
                assert abs(d / truth - 1) <= mpmath.mpf(2) ** -80, (guess, d, truth)


def test_root_d_is_none_exactly_when_p_one_is_feasible():
    """p = 1 is feasible iff q^(1-a) <= e^((a-1) tau), i.e. log q >= -tau."""
    with mpmath.workprec(128):
        a = mpmath.mpf(4)
        for q, tau, none in [("0.5", 1.0, True), ("0.3", 1.0, False), ("0.36", 1.0, False),
                             ("0.37", 1.0, True), ("0.999", 0.01, True)]:
            qm = mpmath.mpf(q)
            c = (a - 1) * mpmath.mpf(tau)
            d = cv._root_d(qm, a, c, mpmath.expm1(c), None)
            assert (d is None) is none, (q, tau)
            assert (mpmath.log(qm) >= -mpmath.mpf(tau)) is none


@pytest.mark.parametrize("q, alpha, tau", _POINTS)
@pytest.mark.parametrize("epsilon", [0.0, 0.7])
def test_enclose_brackets_p_max_tightly(q, alpha, tau, epsilon):
    """p_lo <= p_max(q) <= p_hi, both within a relative 2^-80 of p_max - q; g_lo <= p_max -
    e^eps q <= g_hi (exact e^eps), within 2^-70 of each other relative to p_max."""
    with mpmath.workprec(128), cv._iv_prec(128):
        qm = mpmath.mpf(q)
        gamma = mpmath.iv.exp(mpmath.iv.mpf(epsilon))
        e = cv._enclose(qm, alpha, tau, gamma, None)
        assert e.q == qm
    with mpmath.workdps(130):
        p = _p_star(qm, alpha, tau)
        d = p - qm
        assert e.p_lo <= p <= e.p_hi, (e.p_lo, p, e.p_hi)
        assert p - e.p_lo <= d * mpmath.mpf(2) ** -80 and e.p_hi - p <= d * mpmath.mpf(2) ** -80
        assert e.d is not None and abs(e.d / d - 1) <= mpmath.mpf(2) ** -80
        g = p - mpmath.exp(mpmath.mpf(epsilon)) * qm
        assert e.g_lo <= g <= e.g_hi, (e.g_lo, g, e.g_hi)
        assert e.g_hi - e.g_lo <= p * mpmath.mpf(2) ** -70


@pytest.mark.parametrize("q, tau", [("0.5", 1.0), ("0.999", 0.01), ("0.3678794411714424", 1.0)])
def test_enclose_at_a_full_point_is_p_one(q, tau):
    """log q >= -tau: p = 1 is feasible (and the largest p), so p_lo = p_hi = 1 exactly and
    g = 1 - e^eps q is enclosed by the interval of gamma."""
    with mpmath.workprec(128), cv._iv_prec(128):
        qm = mpmath.mpf(q)
        assert mpmath.log(qm) >= -mpmath.mpf(tau)
        gamma = mpmath.iv.exp(mpmath.iv.mpf(0.5))
        e = cv._enclose(qm, 3.0, tau, gamma, None)
    assert e.p_lo == 1 and e.p_hi == 1 and e.d is None
    with mpmath.workdps(130):
        g = 1 - mpmath.exp(mpmath.mpf(0.5)) * qm
        assert e.g_lo <= g <= e.g_hi and e.g_hi - e.g_lo <= mpmath.mpf(2) ** -100


def test_enclose_just_below_the_full_point():
    """q just below e^-tau: p_max < 1 but close; the enclosure must not claim p = 1."""
    tau = 1.0
    with mpmath.workprec(128), cv._iv_prec(128):
        qm = mpmath.exp(-mpmath.mpf(tau)) * (1 - mpmath.mpf(2) ** -30)
        gamma = mpmath.iv.exp(mpmath.iv.mpf(0.0))
        e = cv._enclose(qm, 3.0, tau, gamma, None)
    with mpmath.workdps(130):
        p = _p_star(qm, 3.0, tau)
        assert p < 1 and e.p_lo <= p <= e.p_hi and e.p_lo < 1


def test_enclosure_ends_from_the_given_p_ends():
    """`_Enclosure`: g_lo is the lower end of p_lo - gamma q, g_hi the upper end of
    p_hi - gamma q (exact Fractions of the interval ends)."""
    with mpmath.workprec(100), cv._iv_prec(100):
        q, p_lo, p_hi = mpmath.mpf(1) / 7, mpmath.mpf(1) / 3, mpmath.mpf(2) / 5
        gamma = mpmath.iv.mpf([mpmath.mpf(3) / 2, mpmath.mpf(13) / 8])
        e = cv._Enclosure(q, p_lo, p_hi, gamma, None)
    fq = _frac(q)
    lo_exact = _frac(p_lo) - Fraction(13, 8) * fq
    hi_exact = _frac(p_hi) - Fraction(3, 2) * fq
    assert _frac(e.g_lo) <= lo_exact and lo_exact - _frac(e.g_lo) <= Fraction(1, 2 ** 95)
    assert _frac(e.g_hi) >= hi_exact and _frac(e.g_hi) - hi_exact <= Fraction(1, 2 ** 95)
    assert (e.q, e.p_lo, e.p_hi, e.d) == (q, p_lo, p_hi, None)


def test_ends_and_iv_prec():
    with cv._iv_prec(77):
        assert mpmath.iv.prec == 77
        x = mpmath.iv.mpf(1) / 3
        lo, hi = cv._ends(x)
        assert _frac(lo) < Fraction(1, 3) < _frac(hi)
        assert _frac(hi) - _frac(lo) <= Fraction(1, 2 ** 75)
    before = mpmath.iv.prec
    with pytest.raises(RuntimeError), cv._iv_prec(200):
        raise RuntimeError
    assert mpmath.iv.prec == before


# ------------------------------------------------------------------ _line_max
def _chord_bound(z, lo, hi, i):
    """max over x in [z_i, z_{i+1}] of min(L(x), R(x)) in exact Fractions (docstring of
    `_line_max`): L the left chord (lo_{i-1} at z_{i-1}, hi_i at z_i) extended, R the right
    chord (hi_{i+1} at z_{i+1}, lo_{i+2} at z_{i+2}) extended; one of them at the ends."""
    z, lo, hi = ([_frac(v) for v in s] for s in (z, lo, hi))
    lines = []
    if i >= 1:
        s = (hi[i] - lo[i - 1]) / (z[i] - z[i - 1])
        lines.append(lambda x, s=s: hi[i] + s * (x - z[i]))
    if i + 2 < len(z):
        s = (hi[i + 1] - lo[i + 2]) / (z[i + 2] - z[i + 1])
        lines.append(lambda x, s=s: hi[i + 1] + s * (z[i + 1] - x))
    xs = [z[i], z[i + 1]]
    if len(lines) == 2:
        # the crossing of the two lines, if inside the cell
        l0, l1 = lines[0](z[i]), lines[0](z[i + 1])
        r0, r1 = lines[1](z[i]), lines[1](z[i + 1])
        dl, dr = l1 - l0, r1 - r0
        if dl != dr:
            t = (r0 - l0) / (dl - dr)
            if 0 < t < 1:
                xs.append(z[i] + t * (z[i + 1] - z[i]))
    return max(min(f(x) for f in lines) for x in xs)


def _concave_ladder(center, step, spread=0):
    """z = 0, e^(center + j step) (j = -3..3), 1 and g(x) = sqrt(x) - 2 x - x^2/3 (concave:
    g'' < 0) at them, lo = g - spread, hi = g + spread (exact at 0 and 1: spread at the
    interior points only)."""
    ladder = [mpmath.exp(mpmath.mpf(center) + j * mpmath.mpf(step)) for j in range(-3, 4)]
    z = [mpmath.mpf(0)] + [x for x in ladder if 0 < x < 1] + [mpmath.mpf(1)]

    def g(x):
        return mpmath.sqrt(x) - 2 * x - x * x / 3

    vals = [g(x) for x in z]
    sp = mpmath.mpf(spread)
    lo = [vals[0]] + [v - sp for v in vals[1:-1]] + [vals[-1]]
    hi = [vals[0]] + [v + sp for v in vals[1:-1]] + [vals[-1]]
    return z, lo, hi, g


@pytest.mark.parametrize("center, step, spread", [
    (math.log(0.25), 0.4, 0), (math.log(0.25), 0.05, 1e-20), (math.log(0.25), 1e-4, 0),
    (math.log(0.02), 1.0, 1e-9), (math.log(0.6), 0.2, 0), (math.log(0.9), 0.03, 1e-12),
    (math.log(1 / 16), 0.01, 1e-15), (math.log(0.07), 0.3, 0),
    # the peak (x* ~ 0.0604) in the second-to-last cell, and in the second cell
    (math.log(0.06) - 0.25, 0.1, 0), (math.log(0.06) + 0.25, 0.1, 0)])
def test_line_max_is_the_chord_bound(center, step, spread):
    """On every cell: at least the true maximum of the concave g there (sound), and equal to
    the exact chord bound of the docstring up to the interval rounding (tight: a dropped
    line, a wrong span or end, or a missing flat combination is seen)."""
    with mpmath.workprec(200), cv._iv_prec(200):
        z, lo, hi, g = _concave_ladder(center, step, spread)
        got = [cv._line_max(z, lo, hi, i) for i in range(len(z) - 1)]
        # true max of g on each cell: g' = 1/(2 sqrt x) - 2 - 2x/3 has one root in (0, 1)
        x_star = mpmath.findroot(lambda x: 1 / (2 * mpmath.sqrt(x)) - 2 - 2 * x / 3, 0.06)
        for i, v in enumerate(got):
            a, b = z[i], z[i + 1]
            true_max = g(min(max(x_star, a), b))
            assert v >= true_max, (i, v, true_max)
            exact = _chord_bound(z, lo, hi, i)
            assert _frac(v) >= exact, (i, v, float(exact))
            # the flat combination's lam is a float: its line is level to ~1e-16
            assert _frac(v) - exact <= Fraction(1, 10 ** 16) * (1 + abs(exact)), (
                i, v, float(exact))


def test_line_max_uses_lo_and_hi_as_documented():
    """Non-concave enclosures (lo well below hi) at irregular points: still exactly the
    chord bound with hi at the cell's side and lo at the far point of each chord."""
    with mpmath.workprec(200), cv._iv_prec(200):
        z = [mpmath.mpf(v) for v in ("0", "0.1", "0.25", "0.3", "0.55", "0.6", "1")]
        hi = [mpmath.mpf(v) for v in ("0", "0.2", "0.33", "0.35", "0.2", "0.1", "-1")]
        lo = [h - mpmath.mpf(d) for h, d in zip(hi, ("0", "0.05", "0.01", "0.02", "0.1",
                                                     "0.003", "0"), strict=True)]
        for i in range(len(z) - 1):
            exact = _chord_bound(z, lo, hi, i)
            v = cv._line_max(z, lo, hi, i)
            assert _frac(v) >= exact
            assert _frac(v) - exact <= Fraction(1, 10 ** 16)


# ------------------------------------------------------------------ supremum oracle
def _p_max40(q, a, bound):
    """p_max(q) at the working precision (feasible side), bisection on log p."""
    def f(p):
        return p ** a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a) - bound

    if f(mpmath.mpf(1)) <= 0:
        return mpmath.mpf(1)
    lo, hi = mpmath.log(q), mpmath.mpf(0)
    for _ in range(90):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mpmath.exp(mid)) <= 0 else (lo, mid)
    return max(mpmath.exp(lo), q)


def _golden_max(h, top):
    width = mpmath.mpf(64)
    while True:
        grid = [top - width + width * i / 32 for i in range(33)]
        vals = [h(x) for x in grid]
        i = max(range(33), key=lambda j: vals[j])
        if i > 0 or width > 1e5:
            break
        width *= 8
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, 32)]
    r = (mpmath.sqrt(5) - 1) / 2
    x1, x2 = hi - r * (hi - lo), lo + r * (hi - lo)
    f1, f2 = h(x1), h(x2)
    best = max(vals[i], f1, f2)
    for _ in range(60):
        if f1 < f2:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + r * (hi - lo)
            f2 = h(x2)
        else:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - r * (hi - lo)
            f1 = h(x1)
        best = max(best, f1, f2)
    return best


def _true_delta(alpha, tau, epsilon):
    with mpmath.workdps(30):
        a, gamma = mpmath.mpf(alpha), mpmath.exp(mpmath.mpf(epsilon))
        bound = mpmath.exp((a - 1) * mpmath.mpf(tau))
        top = min(mpmath.mpf(0), (a - 1) * mpmath.mpf(tau) - a * mpmath.mpf(epsilon))
        best = _golden_max(lambda lq: _p_max40(mpmath.exp(lq), a, bound)
                           - gamma * mpmath.exp(lq), top)
        return max(mpmath.mpf(0), best)


def _true_epsilon(alpha, tau, delta):
    with mpmath.workdps(30):
        a, d = mpmath.mpf(alpha), mpmath.mpf(delta)
        bound = mpmath.exp((a - 1) * mpmath.mpf(tau))

        def h(lq):
            q = mpmath.exp(lq)
            if q >= 1:  # p = q = 1: no (eps, delta) constraint
                return mpmath.mpf(-10) ** 9
            p = _p_max40(q, a, bound)
            return mpmath.log((p - d) / q) if p > d else mpmath.mpf(-10) ** 9

        return max(mpmath.mpf(0), _golden_max(h, mpmath.mpf(0)))


def _cks_delta(a, t, eps):
    with mpmath.workdps(50):
        a = mpmath.mpf(a)
        return min(mpmath.mpf(1), mpmath.exp((a - 1) * (mpmath.mpf(t) - eps) - mpmath.log(a)
                                             + (a - 1) * mpmath.log1p(-1 / a)))


def _cks_eps(a, t, delta):
    with mpmath.workdps(50):
        a = mpmath.mpf(a)
        return max(mpmath.mpf(0), mpmath.mpf(t) + mpmath.log1p(-1 / a)
                   - (mpmath.log(mpmath.mpf(delta)) + mpmath.log(a)) / (a - 1))


_CURVES = {
    # Gaussian-like (tau = alpha / (2 sigma^2)), stored at a few orders
    "gauss": RdpCurve(orders=(1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0),
                      values=tuple(a / 8 for a in (1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0))),
    "steep": RdpCurve(orders=(2.0, 3.0, 5.0, 10.0, 20.0),
                      values=(0.02, 0.05, 0.2, 1.0, 4.0)),
}


@pytest.mark.parametrize("name, epsilon, neighbours", [("gauss", 1.0, True),
                                                       ("gauss", 3.0, False),
                                                       ("steep", 0.5, False)])
def test_delta_optimal_on_a_curve(name, epsilon, neighbours):
    """At the reported order: at least the supremum for (order, value_at(order)) (sound) and
    within 1e-6 of it, or the (rounded-up) CKS value there; never above CKS at any of the
    curve's orders nor above `delta_cks`; error_budget = the certificate's width >= 0."""
    curve = _CURVES[name]
    res = cv.delta_optimal(curve, epsilon=epsilon)
    assert res.kind is Kind.UPPER and res.quantity == "delta" and res.at == epsilon
    assert "Asoodeh" in res.source.citation
    assert math.isfinite(res.order) and res.order > 1
    tau = float(curve.value_at(res.order))
    truth = _true_delta(res.order, tau, epsilon)
    assert mpmath.mpf(res.value) >= truth, (res.value, truth)
    assert mpmath.mpf(res.value) <= truth * (1 + 1e-6)
    assert 0 <= res.error_budget <= 1e-9 * res.value
    cks = cv.delta_cks(curve, epsilon=epsilon)
    assert res.value <= cks.value * (1 + 1e-12)
    for a, t in zip(curve.orders, curve.values, strict=True):
        assert mpmath.mpf(res.value) <= _cks_delta(a, t, epsilon) * (1 + 1e-12)
    # the optimum over the orders near CKS's: no neighbouring order is much better
    for a in (res.order * 0.9, res.order * 1.1) if neighbours else ():
        if curve.orders[0] <= a <= curve.orders[-1]:
            assert mpmath.mpf(res.value) <= _true_delta(
                a, float(curve.value_at(a)), epsilon) * (1 + 1e-3)


@pytest.mark.parametrize("name, delta, neighbours", [("gauss", 1e-6, True),
                                                     ("steep", 1e-3, False),
                                                     ("steep", 1e-9, False)])
def test_epsilon_optimal_on_a_curve(name, delta, neighbours):
    """At the reported order: at least the supremum of log((p - delta)/q) (sound) and within
    1e-6 of it; never above CKS at any of the curve's orders nor above `epsilon_cks`;
    error_budget = value - float estimate, small and >= 0."""
    curve = _CURVES[name]
    res = cv.epsilon_optimal(curve, delta=delta)
    assert res.kind is Kind.UPPER and res.quantity == "epsilon" and res.at == delta
    assert "Asoodeh" in res.source.citation
    assert math.isfinite(res.order) and res.order > 1
    truth = _true_epsilon(res.order, float(curve.value_at(res.order)), delta)
    assert mpmath.mpf(res.value) >= truth, (res.value, truth)
    assert mpmath.mpf(res.value) <= truth * (1 + 1e-6) + 1e-12
    assert 0 <= res.error_budget <= 1e-6 * res.value
    assert res.value <= cv.epsilon_cks(curve, delta=delta).value * (1 + 1e-12)
    for a, t in zip(curve.orders, curve.values, strict=True):
        assert mpmath.mpf(res.value) <= _cks_eps(a, t, delta) * (1 + 1e-12) + 1e-15
    # the estimate must not start above the truth by much: the certified search only
    # goes up from it
    for a in (res.order * 0.9, res.order * 1.1) if neighbours else ():
        if curve.orders[0] <= a <= curve.orders[-1]:
            assert mpmath.mpf(res.value) <= _true_epsilon(
                a, float(curve.value_at(a)), delta) * (1 + 1e-3)


def test_optimal_falls_back_to_cks_when_it_is_smaller():
    """The optimal conversion at an order is never above CKS there; with a certificate made
    loose (here: forced to 1) the CKS value of the near orders is reported."""
    curve = _CURVES["gauss"]
    orig = cv.certified_delta
    try:
        cv.certified_delta = lambda a, t, e, log_q=None: (0.0, 1.0, -1.0)
        d = cv.delta_optimal(curve, epsilon=1.0)
        e = cv.epsilon_optimal(curve, delta=1e-6)
    finally:
        cv.certified_delta = orig
    cks_d = cv.delta_cks(curve, epsilon=1.0)
    cks_e = cv.epsilon_cks(curve, delta=1e-6)
    assert d.value <= cks_d.value * (1 + 1e-12) and d.value >= cks_d.value * (1 - 1e-3)
    assert mpmath.mpf(d.value) >= _cks_delta(d.order, float(curve.value_at(d.order)), 1.0)
    assert d.error_budget == 0.0
    assert e.value <= cks_e.value * (1 + 1e-12) + 1e-15
    assert mpmath.mpf(e.value) >= _cks_eps(e.order, float(curve.value_at(e.order)), 1e-6)
    assert e.error_budget == 0.0


def test_optimal_with_only_the_pure_order():
    """Only alpha = inf: epsilon = D_inf at any delta; delta = 0 at eps >= D_inf, else the
    trivial 1 (no finite order)."""
    curve = RdpCurve(orders=(math.inf,), values=(2.0,))
    low = cv.delta_optimal(curve, epsilon=1.0)
    assert low.value == 1.0 and low.kind is Kind.UPPER and low.order == math.inf
    assert cv.delta_optimal(curve, epsilon=2.0).value == 0.0
    e = cv.epsilon_optimal(curve, delta=1e-6)
    assert e.value == 2.0 and e.order == math.inf and e.error_budget == 0.0


def test_optimal_pure_order_against_finite_orders():
    """A pure order that is worse than the finite orders does not win; one that is better
    does, with error_budget 0."""
    base = _CURVES["gauss"]
    loose = RdpCurve(orders=base.orders + (math.inf,), values=base.values + (50.0,))
    e = cv.epsilon_optimal(loose, delta=1e-6)
    assert e.value == cv.epsilon_optimal(base, delta=1e-6).value and math.isfinite(e.order)
    d = cv.delta_optimal(loose, epsilon=1.0)
    assert d.value == cv.delta_optimal(base, epsilon=1.0).value and math.isfinite(d.order)
    tight = RdpCurve(orders=base.orders + (math.inf,), values=base.values + (0.3,))
    e = cv.epsilon_optimal(tight, delta=1e-6)
    assert e.value == 0.3 and e.order == math.inf and e.error_budget == 0.0
    assert cv.delta_optimal(tight, epsilon=0.3).value == 0.0
    assert cv.delta_optimal(tight, epsilon=0.29).value > 0.0


def test_optimal_heuristic_curve_is_heuristic():
    curve = RdpCurve(orders=(2.0, 4.0), values=(0.1, 0.3), kind=Kind.HEURISTIC)
    assert cv.delta_optimal(curve, epsilon=1.0).kind is Kind.HEURISTIC
    assert cv.epsilon_optimal(curve, delta=1e-6).kind is Kind.HEURISTIC


@pytest.mark.parametrize("name", list(_CURVES))
def test_best_of_three_is_the_smallest(name):
    """`epsilon_best`/`delta_best`: the three theorems' Results in order, the tightest the
    smallest of them."""
    curve = _CURVES[name]
    best, allr = cv.epsilon_best(curve, delta=1e-6)
    assert [r.method.split(" of ")[0] for r in allr] == [
        "composition.conversion.epsilon_mironov", "composition.conversion.epsilon_cks",
        "composition.conversion.epsilon_optimal"]
    assert best.value == min(r.value for r in allr) == allr[2].value
    assert allr[0].value == cv.epsilon_mironov(curve, delta=1e-6).value
    best, allr = cv.delta_best(curve, epsilon=1.0)
    assert [r.method.split(" of ")[0] for r in allr] == [
        "composition.conversion.delta_mironov", "composition.conversion.delta_cks",
        "composition.conversion.delta_optimal"]
    assert best.value == min(r.value for r in allr) == allr[2].value
    assert allr[1].value == cv.delta_cks(curve, epsilon=1.0).value


# ------------------------------------------------------------------ float locators
@pytest.mark.parametrize("alpha, tau", [(2.0, 0.1), (8.0, 0.5), (1.5, 1e-4), (32.0, 2.0),
                                        (1.05, 3.0)])
def test_float_p_max_locators(alpha, tau):
    """`_log_p_max` and `_d_max` against the 130-digit p_max: the log within 1e-9 absolute
    (or p - q within 1e-6 relative where p is close to q), p = 1 exactly where log q >= -tau."""
    log_qs = np.array([-60.0, -20.0, -5.0, -1.0, -0.3, -1e-3, -tau, -tau * 0.999])
    lp = cv._log_p_max(log_qs, alpha, tau)
    qs = np.exp(log_qs[log_qs > -40])
    dm = cv._d_max(qs, alpha, tau)
    for lq, got in zip(log_qs, lp, strict=True):
        with mpmath.workdps(130):
            q = mpmath.exp(mpmath.mpf(lq))
            p = _p_star(q, alpha, tau, dps=60)
            if lq >= -tau:
                assert got == 0.0
            else:
                assert abs(got - float(mpmath.log(p))) <= 1e-9 * (1 + abs(float(mpmath.log(p))))
    for q, d in zip(qs, dm, strict=True):
        with mpmath.workdps(130):
            p = _p_star(mpmath.mpf(q), alpha, tau, dps=60)
            if math.log(q) >= -tau:
                assert d == 1.0 - q
            else:
                assert abs(d - float(p - mpmath.mpf(q))) <= 1e-6 * float(p - mpmath.mpf(q)) + 1e-15


@pytest.mark.parametrize("alpha, tau, epsilon", [(2.0, 0.3, 0.5), (8.0, 0.5, 2.0),
                                                 (1.5, 1e-3, 0.01), (32.0, 2.0, 3.0)])
def test_float_argmax_locates_the_optimum(alpha, tau, epsilon):
    """`_float_argmax_delta` returns (log q, log g) with g = p_max(q) - e^eps q within 1e-6
    of the supremum (at that q, by the oracle)."""
    lq, lg = cv._float_argmax_delta(alpha, tau, epsilon)
    truth = _true_delta(alpha, tau, epsilon)
    with mpmath.workdps(60):
        q = mpmath.exp(mpmath.mpf(lq))
        at = _p_star(q, alpha, tau, dps=60) - mpmath.exp(mpmath.mpf(epsilon)) * q
    assert abs(at / truth - 1) <= 1e-6, (at, truth)
    assert abs(lg - float(mpmath.log(truth))) <= 1e-6


@pytest.mark.parametrize("delta", [1e-9])
def test_optimal_epsilon_estimates(delta):
    """`_optimal_epsilon_many`: per order, within 1e-7 (relative) of the supremum; 0 at
    tau = 0."""
    alphas = np.array([2.0, 8.0, 1.5, 3.0])
    taus = np.array([0.1, 0.5, 0.01, 0.0])
    est = cv._optimal_epsilon_many(alphas, taus, delta)
    assert est[3] == 0.0
    for a, t, e in zip(alphas[:3], taus[:3], est[:3], strict=True):
        truth = _true_epsilon(float(a), float(t), delta)
        assert abs(e - float(truth)) <= 1e-7 * float(truth) + 1e-12, (a, t, e, truth)


def test_zoom_max_of_unimodal_rows():
    """Row-wise maxima of -(x - c_i)^2 + m_i on [a_i, b_i]: m_i when c_i is inside (to 1e-12),
    the value at the nearer end otherwise."""
    a, b = np.array([0.0, -3.0, 1.0]), np.array([1.0, 5.0, 2.0])
    c, m = np.array([0.3141, 4.2, 0.5]), np.array([1.0, -2.0, 0.25])
    best = cv._zoom_max(lambda x: -(x - c[:, None]) ** 2 + m[:, None], a, b)
    assert abs(best[0] - 1.0) <= 1e-12 and abs(best[1] + 2.0) <= 1e-12
    assert best[2] == 0.25 - 0.25


def test_optimal_picks_the_best_of_the_near_orders():
    """A curve that jumps between two close orders (4 and 4.001: tau 0.5 and 1.5; D_alpha may
    grow fast, value_at is the chord): the orders near the CKS optimum differ by a few % in
    delta; the reported value is at most the supremum at the best of them, alpha = 4
    (within 1e-6), not that of a worse neighbour."""
    curve = RdpCurve(orders=(4.0, 4.001), values=(0.5, 1.5))
    d = cv.delta_optimal(curve, epsilon=1.0)
    truth = _true_delta(4.0, 0.5, 1.0)
    assert truth <= mpmath.mpf(d.value) <= truth * (1 + 1e-6), (d.value, truth, d.order)
    assert d.order == 4.0
    e = cv.epsilon_optimal(curve, delta=1e-6)
    truth = _true_epsilon(4.0, 0.5, 1e-6)
    assert truth <= mpmath.mpf(e.value) <= truth * (1 + 1e-6), (e.value, truth, e.order)
    assert e.order == 4.0


def test_optimal_pure_dp_labels():
    """At epsilon >= D_inf: the Result is still the optimal conversion's delta (quantity,
    method, source), with value 0 at order inf."""
    curve = RdpCurve(orders=(2.0, math.inf), values=(0.1, 0.4))
    r = cv.delta_optimal(curve, epsilon=0.5)
    assert r.value == 0.0 and r.order == math.inf and r.quantity == "delta" and r.at == 0.5
    assert r.method.startswith("composition.conversion.delta_optimal of ")
    assert r.source is not None and "Asoodeh" in r.source.citation
    assert r.error_budget == 0.0 and r.kind is Kind.UPPER


@pytest.mark.parametrize("ulps", [1, 2, 4])
def test_enclose_a_few_ulps_below_the_full_point(ulps):
    """q a few 128-bit ulps below e^-tau: the interval of log q + tau straddles 0 or nearly,
    but p = 1 is infeasible (p_max ~ 1 - 2^-130), so p = 1 must not be claimed proven:
    p_lo <= p_max (a lower end of g above the truth would be unsound)."""
    tau = 1.0
    with mpmath.workprec(400):
        target = mpmath.exp(-mpmath.mpf(tau))
    with mpmath.workprec(128), cv._iv_prec(128):
        q = +target
        with mpmath.workprec(400):
            while q >= target:
                q -= mpmath.mpf(2) ** -129
            q -= (ulps - 1) * mpmath.mpf(2) ** -129
        gamma = mpmath.iv.exp(mpmath.iv.mpf(0.5))
        e = cv._enclose(q, 3.0, tau, gamma, None)
    with mpmath.workdps(130):
        assert q < target
        p = _p_star(q, 3.0, tau)
        assert p < 1
        assert e.p_lo <= p <= e.p_hi, (e.p_lo, p, e.p_hi)
        assert e.g_lo <= p - mpmath.exp(mpmath.mpf(0.5)) * q <= e.g_hi


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("q", ["0.01", "0.02", "0.03", "0.05", "0.07", "0.011"])
def test_enclose_proves_its_ends_whatever_the_located_root(q, sign, monkeypatch):
    """`_root_d` only locates: fed a d placed so that q + d (1 +- 2^-88) lands on p_max itself
    (within the 128-bit rounding, where the interval test cannot decide), `_enclose` must not
    take that point as p_hi (or p_lo) unproven; p_lo <= p_max <= p_hi still holds."""
    with mpmath.workprec(128), cv._iv_prec(128):
        qm = mpmath.mpf(q)
        p = _p_star(qm, 2.0, 0.1)
        d_at_boundary = (p - qm) / (1 + sign * mpmath.mpf(2) ** -88)
        monkeypatch.setattr(cv, "_root_d", lambda *args: d_at_boundary)
        e = cv._enclose(qm, 2.0, 0.1, mpmath.iv.exp(mpmath.iv.mpf(0.5)), None)
    with mpmath.workdps(130):
        assert e.p_lo <= p <= e.p_hi, (q, e.p_lo, p, e.p_hi)


# ------------------------------------------------------------------ closed forms: labels
@pytest.mark.parametrize("name", ["epsilon_mironov", "delta_mironov", "epsilon_cks",
                                  "delta_cks"])
def test_closed_forms_name_their_theorem(name):
    """The Result's source cites the theorem used (Mironov 2017 / CKS 2020) and its method
    names the function."""
    curve = RdpCurve(orders=(2.0, 8.0, 32.0), values=(0.2, 0.8, 3.2))
    fn = getattr(cv, name)
    res = fn(curve, delta=1e-6) if name.startswith("epsilon") else fn(curve, epsilon=1.0)
    citation = "Mironov" if "mironov" in name else "Canonne"
    assert citation in res.source.citation
    assert res.method.startswith(f"composition.conversion.{name} of ")
