"""Divergences of exact and mp views (accountant/divergence/hockey_stick.py's mp/exact
paths, objects.py, common.py) and the Renyi family (accountant/divergence/renyi.py), pinned
where mutation testing found gaps (docs/soundness.md#mutation-testing).

Oracles, independent of the code under test: exact Fractions where the quantity is
rational (H at a rational e^eps, integer-order Renyi moments, max P/Q); mpmath at 60
digits from the definitions elsewhere (H_{e^eps} = sum [P - e^eps Q]_+,
eps(delta) = max over subsets S of log((P(S) - delta)/Q(S)), D_alpha = log(sum P^a Q^(1-a))
/ (a - 1), KL = sum P log(P/Q), D_inf = log max P/Q). A view with a residual (tail_p,
tail_q, B) or a relative error rho stands for every pair it admits: the tests build one
admissible true pair explicitly (the residual on an extra outcome, values moved by a factor
within 1 +- rho) and check that an UPPER end is at least its divergence, a LOWER end at
most, and an EXACT ball holds it.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant.divergence import hockey_stick as hs
from accountant.result import Kind
from accountant.view import ViewPair

DPS = 60


def _mp(x):
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _objarr(xs, backend):
    if backend == "exact":
        return np.array([Fraction(x) for x in xs], dtype=object)
    with mpmath.workprec(256):
        return np.array([_mp(Fraction(x)) for x in xs], dtype=object)


def _view(p, q, *, backend="exact", tail_p=0, tail_q=0, grid_exact=True, bound=0.0,
          rho=None):
    """An exact/mp ViewPair built directly (no completeness check: tails and lower-bound
    grids allowed)."""
    return ViewPair(backend=backend, p=_objarr(p, backend), q=_objarr(q, backend),
                    tail_p=Fraction(tail_p), tail_q=Fraction(tail_q),
                    residual_loss_bound=bound, grid_exact=grid_exact, value_error=rho)


# ------------------------------------------------------------------ oracles
def _h(p, q, gamma):
    """sum [p - gamma q]_+: exact for rational gamma, else at DPS digits."""
    if isinstance(gamma, Fraction):
        return sum((Fraction(a) - gamma * Fraction(b) for a, b in zip(p, q, strict=True)
                    if Fraction(a) > gamma * Fraction(b)), Fraction(0))
    with mpmath.workdps(DPS):
        return mpmath.fsum(max(mpmath.mpf(0), _mp(Fraction(a)) - gamma * _mp(Fraction(b)))
                           for a, b in zip(p, q, strict=True))


def _eps(p, q, delta):
    """max(0, max over subsets S with P(S) > delta of log((P(S) - delta)/Q(S))), at DPS."""
    delta = Fraction(delta)
    best = mpmath.mpf(0)
    with mpmath.workdps(DPS):
        for k in range(1, len(p) + 1):
            for s in itertools.combinations(range(len(p)), k):
                ps = sum((Fraction(p[i]) for i in s), Fraction(0))
                qs = sum((Fraction(q[i]) for i in s), Fraction(0))
                if ps > delta:
                    if qs == 0:
                        return mpmath.inf
                    best = max(best, mpmath.log(_mp((ps - delta) / qs)))
        return best


# P, Q on 5 outcomes, ratios 4, 2, 1, 1/2, 1/4 ... (no infinite loss)
_P = [Fraction(8, 30), Fraction(8, 30), Fraction(5, 30), Fraction(5, 30), Fraction(4, 30)]
_Q = [Fraction(2, 30), Fraction(4, 30), Fraction(5, 30), Fraction(10, 30), Fraction(9, 30)]


def _in_ball(r, truth):
    with mpmath.workdps(DPS):
        return abs(_mp(r.value) - truth) <= _mp(r.radius) + mpmath.mpf(10) ** -(DPS - 5)


def _le(a, b):
    """a <= b up to the oracle's own rounding (DPS - 10 digits)."""
    with mpmath.workdps(DPS):
        return _mp(a) <= _mp(b) + abs(_mp(b)) * mpmath.mpf(10) ** -(DPS - 10)


def _holds(r, truth):
    """The Result is honest about the truth: an EXACT ball holds it, an UPPER end is at
    least it, a LOWER end at most."""
    if r.kind is Kind.EXACT:
        return _in_ball(r, truth)
    return _le(truth, r.value) if r.kind is Kind.UPPER else _le(r.value, truth)


# ------------------------------------------------------------------ hockey-stick, mp/exact
@pytest.mark.parametrize("epsilon", [1.0, 0.5, 2.0])
@pytest.mark.parametrize("backend", ["exact", "mp"])
def test_delta_at_a_float_epsilon_is_taken_at_e_to_the_epsilon(backend, epsilon):
    """e^1 is irrational: the value is a ball around H_e, not H at some rational (a mutant
    took epsilon == 1 for e^eps = 1, giving the total variation tagged EXACT)."""
    view = _view(_P, _Q, backend=backend)
    with mpmath.workdps(DPS):
        truth = _h(_P, _Q, mpmath.exp(mpmath.mpf(epsilon)))
    r = hs.delta_for_epsilon(view, epsilon, direction="P||Q")
    assert r.kind is Kind.EXACT and r.quantity == "delta" and r.at == epsilon
    assert _in_ball(r, truth)
    lo, up = hs.delta_bracket(view, epsilon, direction="P||Q")
    assert _holds(lo, truth) and _holds(up, truth)
    assert lo.at == up.at == epsilon


@pytest.mark.parametrize("backend", ["exact", "mp"])
def test_epsilon_result_labels_on_the_exact_path(backend):
    view = _view(_P, _Q, backend=backend)
    r = hs.epsilon_for_delta(view, 0.1, direction="P||Q")
    truth = _eps(_P, _Q, Fraction(0.1))
    assert r.kind is Kind.EXACT and r.quantity == "epsilon" and r.at == 0.1
    assert _in_ball(r, truth)


def test_a_float_view_keeps_a_residual_below_the_float_range():
    """tail_p = 1e-400 (an mpf): the residual may sit where Q is 0, so H >= 1e-400 at every
    epsilon; converting the tail to a float (0.0) lost it."""
    p = np.log(np.array([0.25, 0.75]))
    view = ViewPair(backend="float", p=p, q=p.copy(), tail_p=mpmath.mpf("1e-400"),
                    tail_q=0.0, residual_loss_bound=math.inf)
    truth = mpmath.mpf("1e-400")  # H of the grid is 0 (P = Q); the residual adds its mass
    for epsilon in (0.0, 1.0):
        r = hs.delta_for_epsilon(view, epsilon, direction="P||Q")
        assert r.kind is Kind.UPPER and mpmath.mpf(r.value) >= truth
        lo, up = hs.delta_bracket(view, epsilon, direction="P||Q")
        assert mpmath.mpf(up.value) >= truth and mpmath.mpf(lo.value) <= truth


@pytest.mark.parametrize("tails", [(Fraction(1, 10**30), 0, True), (0, Fraction(1, 10**30), False)])
def test_a_view_with_a_residual_or_lower_bound_grid_is_never_exact(tails):
    """Only a grid of true values holding all of P's mass may give EXACT; a residual of
    1e-30 (or a lower-bound grid) keeps the enclosure within 2^-40 but must give UPPER."""
    tail_p, tail_q, grid_exact = tails
    p = [x * (1 - Fraction(tail_p)) for x in _P]
    q = [x * (1 - Fraction(tail_q)) for x in _Q]
    view = _view(p, q, tail_p=tail_p, tail_q=tail_q, grid_exact=grid_exact,
                 bound=math.inf)
    # an admissible true pair: the residual on an extra outcome, where the other law is 0
    tp, tq = p + [Fraction(tail_p), 0], q + [0, Fraction(tail_q)]
    for gamma in (Fraction(1), Fraction(3, 2)):
        r = hs.delta_for_epsilon(view, exp_epsilon=gamma, direction="P||Q")
        assert r.kind is Kind.UPPER and r.value >= _h(tp, tq, gamma)
    r = hs.epsilon_for_delta(view, 0.05, direction="P||Q")
    assert r.kind is Kind.UPPER and _mp(r.value) >= _eps(tp, tq, Fraction(0.05))


def _asym():
    """A pair whose Q||P divergences exceed its P||Q ones (ratios Q/P up to 6)."""
    p = [Fraction(6, 20), Fraction(6, 20), Fraction(5, 20), Fraction(2, 20), Fraction(1, 20)]
    q = [Fraction(2, 20), Fraction(3, 20), Fraction(3, 20), Fraction(6, 20), Fraction(6, 20)]
    return p, q


@pytest.mark.parametrize("direction", ["P||Q", "Q||P"])
def test_brackets_of_an_exact_view_keep_the_direction_asked_for(direction):
    """An EXACT result is returned as both ends: it must be the one of the direction asked
    for, not the maximum over both (the two directions differ here)."""
    p, q = _asym()
    a, b = (p, q) if direction == "P||Q" else (q, p)
    view = _view(p, q)
    with mpmath.workdps(DPS):
        t_delta = _h(a, b, mpmath.exp(mpmath.mpf(0.3)))
    t_eps = _eps(a, b, Fraction(0.05))
    assert _h(p, q, Fraction(2)) != _h(q, p, Fraction(2))
    for r in hs.delta_bracket(view, 0.3, direction=direction):
        assert r.kind is Kind.EXACT and _in_ball(r, t_delta)
    for r in hs.epsilon_bracket(view, 0.05, direction=direction):
        assert r.kind is Kind.EXACT and _in_ball(r, t_eps)


@pytest.mark.parametrize("direction", ["P||Q", "Q||P"])
def test_brackets_of_a_view_with_a_residual_are_a_lower_and_an_upper_end(direction):
    """tail_p = tail_q = 1/100 with B = 0 (the residuals are equal, so the truth is the
    grid's own value): the ends are UPPER and LOWER of the direction asked for; the lower
    end is at most the truth even though the upper end is well above it."""
    p, q = _asym()
    t = Fraction(1, 100)
    gp, gq = [x * (1 - t) for x in p], [x * (1 - t) for x in q]
    view = _view(gp, gq, tail_p=t, tail_q=t, bound=0.0)
    tp, tq = gp + [t], gq + [t]
    a, b = (tp, tq) if direction == "P||Q" else (tq, tp)
    with mpmath.workdps(DPS):
        t_delta = _h(a, b, mpmath.exp(mpmath.mpf(0.3)))
    t_eps = _eps(a, b, Fraction(0.05))
    lo, up = hs.delta_bracket(view, 0.3, direction=direction)
    assert lo.kind is Kind.LOWER and up.kind is Kind.UPPER
    assert _holds(lo, t_delta) and _holds(up, t_delta)
    lo, up = hs.epsilon_bracket(view, 0.05, direction=direction)
    assert lo.kind is Kind.LOWER and up.kind is Kind.UPPER
    assert _holds(lo, t_eps) and _holds(up, t_eps)
    assert _mp(up.value) > t_eps + mpmath.mpf("0.01")  # the residual widens the upper end


# ------------------------------------------------------------------ Renyi family
def _renyi(p, q, alpha):
    """D_alpha(P||Q) at DPS digits (alpha = inf: log max P/Q; alpha = 1: KL)."""
    with mpmath.workdps(DPS):
        pp = [_mp(Fraction(x)) for x in p]
        qq = [_mp(Fraction(x)) for x in q]
        if any(a > 0 and b == 0 for a, b in zip(pp, qq, strict=True)):
            return mpmath.inf
        pairs = [(a, b) for a, b in zip(pp, qq, strict=True) if a > 0]
        if alpha == math.inf:
            return max(mpmath.mpf(0), max(mpmath.log(a / b) for a, b in pairs))
        if alpha == 1:
            return mpmath.fsum(a * mpmath.log(a / b) for a, b in pairs)
        al = _mp(Fraction(alpha))
        s = mpmath.fsum(a ** al * b ** (1 - al) for a, b in pairs)
        return mpmath.log(s) / (al - 1)


def _div(view, alpha, direction):
    """The library's (lower or None, upper) Results at one order."""
    from accountant.divergence import renyi as rn

    if alpha == math.inf:
        return None, rn.max_divergence(view, direction=direction)
    if alpha == 1:
        return None, rn.kl_divergence(view, direction=direction)
    lo, up = rn.renyi_bracket(view, alpha, direction=direction)
    single = rn.renyi_divergence(view, alpha, direction=direction)
    assert single.value == up.value and single.kind is up.kind
    return lo, up


# float pair: dyadic probabilities (exact in floats), ratios 4, 2, 1/2, 1/4, 1/4
_FP = [0.5, 0.25, 0.125, 0.0625, 0.0625]
_FQ = [0.125, 0.125, 0.25, 0.25, 0.25]
_ORDERS = [1, 1.5, 2, 5, 500, math.inf]   # 500: the log-space branch (a1 L > 600)


def _float_view(p, q, shift=0.0, log_error=0.0, **kw):
    """Stored log P = log p + shift, log Q = log q - shift (|shift| <= log_error)."""
    with np.errstate(divide="ignore"):
        lp = np.log(np.asarray(p, float)) + shift
        lq = np.log(np.asarray(q, float)) - shift
    return ViewPair(backend="float", p=lp, q=lq, log_error=log_error, **kw)


def _side(direction, p, q):
    return (p, q) if direction == "P||Q" else (q, p)


@pytest.mark.parametrize("alpha", _ORDERS)
@pytest.mark.parametrize("direction", ["P||Q", "Q||P"])
def test_float_renyi_family_is_a_tight_bracket(alpha, direction):
    view = _float_view(_FP, _FQ)
    truth = _renyi(*_side(direction, _FP, _FQ), alpha)
    lo, up = _div(view, alpha, direction)
    assert up.kind is Kind.UPPER and up.value >= truth
    assert up.value <= truth * (1 + 1e-12) + 1e-14
    assert up.order == (alpha if alpha != 1 else 1.0)
    if lo is not None:
        assert lo.kind is Kind.LOWER and lo.value <= truth
        assert lo.value >= truth * (1 - 1e-12) - 1e-14


@pytest.mark.parametrize("alpha", _ORDERS)
@pytest.mark.parametrize("sign", [+1, -1])
def test_float_renyi_family_covers_every_pair_within_the_log_error(alpha, sign):
    """Stored values off by the whole log_error r = 1e-4, all in one direction: sign -1
    stores P too low and Q too high (the truth lies above the stored pair's value: the
    upper end must still cover it), sign +1 the reverse (the lower end must)."""
    r = 1e-4
    view = _float_view(_FP, _FQ, shift=sign * r * (1 - 1e-6), log_error=r)
    truth = _renyi(_FP, _FQ, alpha)
    lo, up = _div(view, alpha, "P||Q")
    assert up.value >= truth
    if lo is not None:
        assert lo.value <= truth
    # the ends are of the size of the log error, not wider
    span = 2 * r * (abs(alpha - 1) + 1) * (1 + truth) if alpha != math.inf else 4 * r
    assert up.value <= truth + 2 * span
    if lo is not None:
        assert lo.value >= truth - 2 * span


def _residual_pair(t_p, t_q):
    """A grid pair plus a residual outcome of masses (t_p, t_q): the grid view, and the
    true pair with the residual as an extra outcome."""
    gp = _FP[:-1] + [_FP[-1] - t_p]
    gq = _FQ[:-1] + [_FQ[-1] - t_q]
    bound = math.nextafter(abs(math.log(t_p / t_q)), math.inf)  # B must not round down
    view = _float_view(gp, gq, tail_p=t_p, tail_q=t_q, residual_loss_bound=bound)
    return view, gp + [t_p], gq + [t_q]


@pytest.mark.parametrize("alpha", _ORDERS)
def test_float_renyi_upper_end_counts_the_residual(alpha):
    """Residual masses 1/64 (P) and 1/1024 (Q): loss log 16 > every grid loss, so the
    residual carries the max-divergence and a large share of every moment."""
    view, tp, tq = _residual_pair(1 / 64, 1 / 1024)
    truth = _renyi(tp, tq, alpha)
    lo, up = _div(view, alpha, "P||Q")
    assert up.kind is Kind.UPPER and up.value >= truth
    assert up.value <= truth * (1 + 1e-9) + 0.05   # the residual bound is reached here
    if lo is not None:
        assert lo.value <= truth


@pytest.mark.parametrize("alpha", [1.5, 2, 5, 500])
def test_float_renyi_lower_end_with_a_residual_that_adds_nothing(alpha):
    """Residual masses 1/1024 (P) and 1/64 (Q): the residual adds almost nothing to the
    moment, whose grid part is at most 1 - 1/1024 + ...: the lower end may not count the
    residual mass as a gain."""
    view, tp, tq = _residual_pair(1 / 1024, 1 / 64)
    truth = _renyi(tp, tq, alpha)
    lo, up = _div(view, alpha, "P||Q")
    assert lo.value <= truth <= up.value


def test_float_renyi_lower_end_on_a_grid_of_lower_bound_values():
    """grid_exact=False: each true Q value may exceed the grid's by up to tail_q in total.
    The admissible pair here puts Q's whole deficit where P/Q is largest; with tail_q = 0
    the grid is complete (and must not be taken as log(0))."""
    tq = 1 / 64
    gq = [_FQ[0] - tq] + _FQ[1:]
    view = _float_view(_FP, gq, tail_q=tq, grid_exact=False, residual_loss_bound=math.inf)
    for alpha in (1.5, 2, 5, 500):
        truth = _renyi(_FP, _FQ, alpha)
        lo, up = _div(view, alpha, "P||Q")
        assert lo.kind is Kind.LOWER and lo.value <= truth
        assert up.value >= _renyi(_FP, gq, alpha) - 1e-12  # Q may be the grid's (P sums to 1)
    view0 = _float_view(_FP, _FQ, grid_exact=False, residual_loss_bound=math.inf)
    lo, up = _div(view0, 2, "P||Q")
    truth = _renyi(_FP, _FQ, 2)
    assert lo.value <= truth <= up.value and lo.value >= truth * (1 - 1e-9)


def test_float_renyi_lower_end_of_an_empty_grid_is_zero():
    """All of both laws in the residuals, with B = 0: every divergence is 0."""
    view = ViewPair(backend="float", p=np.full(3, -np.inf), q=np.full(3, -np.inf),
                    tail_p=1.0, tail_q=1.0, residual_loss_bound=0.0)
    for alpha in (1.5, 3):
        lo, up = _div(view, alpha, "P||Q")
        assert lo.value == 0.0 and 0.0 <= up.value < 1e-9
    for alpha in (1, math.inf):   # KL: tail_p B = 0; max-divergence: B = 0
        _, up = _div(view, alpha, "P||Q")
        assert up.value == 0.0 and up.kind is Kind.UPPER


def test_float_renyi_lower_end_when_the_error_swamps_the_moment():
    """log_error 1 (a factor e on every value): the error bound exceeds the moment itself;
    the lower end is then 0, not a positive number."""
    view = _float_view(_FP, _FP, log_error=1.0)
    for alpha in (1.5, 3):
        lo, up = _div(view, alpha, "P||Q")
        assert lo.value == 0.0 and up.value >= 0.0
    # log_error 0.35 at order 2: the error bound is ~1.4, the lowered moment - 1 in (-2, -1]
    lo, up = _div(_float_view(_FP, _FP, log_error=0.35), 2, "P||Q")
    assert lo.value == 0.0 and up.value >= 0.0


@pytest.mark.parametrize("alpha", _ORDERS)
def test_float_outcomes_where_both_laws_are_zero_are_ignored(alpha):
    p, q = _FP + [0.0], _FQ + [0.0]
    truth = _renyi(p, q, alpha)
    lo, up = _div(_float_view(p, q), alpha, "P||Q")
    assert math.isfinite(up.value) and truth <= up.value <= truth * (1 + 1e-12) + 1e-14
    if lo is not None:
        assert lo.value <= truth


@pytest.mark.parametrize("alpha", [1, 2, math.inf])
def test_support_mismatch_is_exact_only_on_a_grid_of_true_values(alpha):
    """P > 0 = Q on the grid: +inf, EXACT on a grid of true values; on a grid of
    lower-bound values Q may be positive there, and +inf is only an upper bound."""
    p, q = [0.5, 0.5], [1.0, 0.0]
    for grid_exact, kind in ((True, Kind.EXACT), (False, Kind.UPPER)):
        view = _float_view(p, q, grid_exact=grid_exact, tail_q=0.0 if grid_exact else 0.5)
        from accountant.divergence import renyi as rn

        up = (rn.renyi_divergence(view, 2, direction="P||Q") if alpha == 2
              else _div(view, alpha, "P||Q")[1])
        assert up.value == math.inf and up.kind is kind


# ------------------------------------------------------------------ Renyi family, mp/exact
@pytest.mark.parametrize("backend", ["exact", "mp"])
@pytest.mark.parametrize("alpha", [1, 2, 3.5, math.inf])
@pytest.mark.parametrize("direction", ["P||Q", "Q||P", "max"])
def test_exact_renyi_family_in_each_direction(backend, alpha, direction):
    """EXACT balls of the direction asked for (the two directions differ: an order inf
    passed on to the max-divergence must keep its direction)."""
    from accountant.divergence import renyi as rn

    p, q = _asym()
    view = _view(p, q, backend=backend)
    truths = {"P||Q": _renyi(p, q, alpha), "Q||P": _renyi(q, p, alpha)}
    truths["max"] = max(truths.values())
    assert truths["P||Q"] != truths["Q||P"]
    if alpha == 1:
        r = rn.kl_divergence(view, direction=direction)
    else:
        r = rn.renyi_divergence(view, alpha, direction=direction)
    assert r.kind is Kind.EXACT and _in_ball(r, truths[direction])
    assert r.order == (1.0 if alpha == 1 else alpha)
    assert r.quantity == {1: "kl", math.inf: "max_divergence"}.get(alpha, "renyi")
    if alpha not in (1, math.inf):
        for end in rn.renyi_bracket(view, alpha, direction=direction):
            assert end.kind is Kind.EXACT and _in_ball(end, truths[direction])


@pytest.mark.parametrize("alpha", [1, 2, 3.5, math.inf])
@pytest.mark.parametrize("grid_exact", [True, False])
def test_exact_renyi_family_with_a_residual_is_an_upper_bound(alpha, grid_exact):
    """A residual of 1e-30 (or a grid of lower-bound values) keeps the enclosure within
    2^-40 of its midpoint, but the result must be UPPER (at least the divergence of an
    admissible completion), never EXACT."""
    from accountant.divergence import renyi as rn

    t = Fraction(1, 10**30)
    if grid_exact:   # equal residuals (B = 0) on an extra outcome
        p, q = [x * (1 - t) for x in _P], [x * (1 - t) for x in _Q]
        view = _view(p, q, tail_p=t, tail_q=t, bound=0.0)
        tp, tq = p + [t], q + [t]
    else:            # Q's grid values short by t in total, here all at the last outcome
        p, q = list(_P), [x * (1 - t) for x in _Q]
        view = _view(p, q, tail_q=t, grid_exact=False, bound=math.inf)
        tp, tq = p, q[:-1] + [q[-1] + t * sum(_Q)]
    truth = _renyi(tp, tq, alpha)
    if alpha == 1:
        r = rn.kl_divergence(view, direction="P||Q")
    else:
        r = rn.renyi_divergence(view, alpha, direction="P||Q")
    assert r.kind is Kind.UPPER and _le(truth, r.value)


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("direction", ["P||Q", "Q||P"])
def test_exact_renyi_bracket_of_a_view_with_a_residual(direction, swap):
    """tail_p = tail_q = 1/100, B = 0: the truth is the grid's own divergence; the lower
    end is that of the direction asked for (the two directions differ; swap exchanges
    which one is larger)."""
    from accountant.divergence import renyi as rn

    p, q = _asym()
    if swap:
        p, q = q, p
    t = Fraction(1, 100)
    gp, gq = [x * (1 - t) for x in p], [x * (1 - t) for x in q]
    view = _view(gp, gq, tail_p=t, tail_q=t, bound=0.0)
    a, b = _side(direction, gp + [t], gq + [t])
    for alpha in (2, 3.5):
        truth = _renyi(a, b, alpha)
        lo, up = rn.renyi_bracket(view, alpha, direction=direction)
        assert lo.kind is Kind.LOWER and up.kind is Kind.UPPER
        assert _holds(lo, truth) and _holds(up, truth)
        grid = _renyi(a[:-1], b[:-1], alpha)  # tight: the grid's own moment, no residual
        assert _le(grid * (1 - mpmath.mpf(10) ** -12), lo.value)


# ------------------------------------------------------------------ mp views with a stated rho
_RHO = 1e-6


def _rho_view(p, q, pattern, tail=0):
    """An mp view whose stored values are the true ones moved by a factor 1 +- rho'
    (rho' just below the stated rho): "low" stores P low and Q high (the stored pair
    understates every divergence), "high" the reverse, "mixed" alternates per outcome.
    With a tail, the last outcome of p and q (equal masses) is the residual (B = 0)."""
    r = Fraction(_RHO) * (1 - Fraction(1, 10**6))
    if tail:
        p, q = p[:-1], q[:-1]
    sp = {"low": [-1] * len(p), "high": [1] * len(p),
          "mixed": [(-1) ** i for i in range(len(p))]}[pattern]
    gp = [x * (1 + s * r) for x, s in zip(p, sp, strict=True)]
    gq = [y * (1 - s * r) for y, s in zip(q, sp, strict=True)]
    return _view(gp, gq, backend="mp", rho=_RHO, tail_p=tail, tail_q=tail, bound=0.0)


@pytest.mark.parametrize("tail", [0, Fraction(1, 100)])
@pytest.mark.parametrize("pattern", ["low", "high", "mixed"])
@pytest.mark.parametrize("direction", ["P||Q", "Q||P"])
def test_mp_view_with_a_relative_error_brackets_the_true_pair(pattern, direction, tail):
    from accountant.divergence import renyi as rn

    p, q = _asym()
    if tail:   # the true pair: the grid scaled by 1 - tail, and the residual outcome
        p, q = [x * (1 - tail) for x in p] + [tail], [y * (1 - tail) for y in q] + [tail]
    view = _rho_view(p, q, pattern, tail)
    a, b = _side(direction, p, q)
    slack = 10 * _RHO + 2 * tail   # tightness only (a residual widens the enclosure)
    for gamma in (Fraction(1), Fraction(3, 2)):
        truth = _h(a, b, gamma)
        r = hs.delta_for_epsilon(view, exp_epsilon=gamma, direction=direction)
        assert r.kind is Kind.UPPER and _le(truth, r.value)
        assert _le(r.value, truth + slack)
    with mpmath.workdps(DPS):
        t_delta = _h(a, b, mpmath.exp(mpmath.mpf(0.3)))
    lo, up = hs.delta_bracket(view, 0.3, direction=direction)
    assert _holds(lo, t_delta) and _holds(up, t_delta)
    assert _le(up.value, t_delta + slack) and _le(t_delta - slack, lo.value)
    for delta in (0.05, 0.2):
        t_eps = _eps(a, b, Fraction(delta))
        lo, up = hs.epsilon_bracket(view, delta, direction=direction)
        assert lo.kind is Kind.LOWER and up.kind is Kind.UPPER
        assert _holds(lo, t_eps) and _holds(up, t_eps)
        assert _le(up.value, t_eps + 10 * slack) and _le(t_eps - 10 * slack, lo.value)
        assert _le(t_eps, hs.epsilon_for_delta(view, delta, direction=direction).value)
    for alpha in (1, 2, 3.5, math.inf):
        truth = _renyi(a, b, alpha)
        lo, up = _div(view, alpha, direction)
        assert up.kind is Kind.UPPER and _le(truth, up.value)
        assert _le(up.value, truth + 10 * slack)
        if lo is not None:
            assert _holds(lo, truth) and _le(truth - 10 * slack, lo.value)
    assert rn.renyi_divergence(view, 2, direction=direction).precision is not None


def test_renyi_divergences_is_renyi_divergence_at_each_order():
    from accountant.divergence import renyi as rn

    p, q = _asym()
    view = _view(p, q)
    for direction in ("P||Q", "Q||P"):
        got = rn.renyi_divergences(view, [2, 3.5, math.inf], direction=direction, dps=30)
        a, b = _side(direction, p, q)
        assert [r.order for r in got] == [2, 3.5, math.inf]
        for r, alpha in zip(got, [2, 3.5, math.inf], strict=True):
            assert r.kind is Kind.EXACT and _in_ball(r, _renyi(a, b, alpha))


# ------------------------------------------------------------------ objects.py: residuals, rho
def _rn():
    from accountant.divergence import renyi as rn
    return rn


@pytest.mark.parametrize("backend", ["exact", "mp"])
def test_exact_residual_of_large_loss_is_counted(backend):
    """Residual masses t (P) and t/16 (Q) with B = log 16 above every grid loss (log 4):
    the upper ends of D_inf, KL and D_alpha must count it (the residual as an extra
    outcome is an admissible completion)."""
    rn = _rn()
    t = Fraction(1, 64)
    p, q = [x * (1 - t) for x in _P], [y * (1 - t / 16) for y in _Q]
    bound = math.nextafter(math.log(16), math.inf)
    rho = 1e-6 if backend == "mp" else None
    view = _view(p, q, backend=backend, tail_p=t, tail_q=t / 16, bound=bound, rho=rho)
    tp, tq = p + [t], q + [t / 16]
    for alpha in (1, 2, 3.5, math.inf):
        truth = _renyi(tp, tq, alpha)
        r = (rn.kl_divergence(view, direction="P||Q") if alpha == 1 else
             rn.renyi_divergence(view, alpha, direction="P||Q"))
        assert r.kind is Kind.UPPER and _le(truth, r.value)
    assert _le(rn.max_divergence(view, direction="P||Q").value, bound + 1e-12)


@pytest.mark.parametrize("backend", ["exact", "mp"])
def test_exact_kl_with_a_residual_of_p_only(backend):
    """tail_p = 1/100, tail_q = 0: P's residual may sit on a grid point (here the one of
    largest ratio), so no finite bound B exists and KL's upper end is +inf; never the
    grid's own KL plus something of order tail_p."""
    rn = _rn()
    t = Fraction(1, 100)
    p = [x * (1 - t) for x in _P]
    rho = 1e-6 if backend == "mp" else None
    view = _view(p, list(_Q), backend=backend, tail_p=t, bound=math.inf, rho=rho)
    tp = [p[0] + t] + p[1:]
    truth = _renyi(tp, _Q, 1)
    r = rn.kl_divergence(view, direction="P||Q")
    assert r.kind is Kind.UPPER and _le(truth, r.value)
    for alpha in (2, 3.5, math.inf):   # no bound B on the residual: +inf, an upper end
        r = rn.renyi_divergence(view, alpha, direction="P||Q")
        assert r.kind is Kind.UPPER and r.value == math.inf


@pytest.mark.parametrize("backend", ["exact", "mp"])
@pytest.mark.parametrize("alpha", [2, 3, 3.5])
def test_exact_renyi_lower_end_on_a_grid_of_lower_bound_values(backend, alpha):
    """grid_exact=False, Q's grid short by tail_q = 1/20 in total: the admissible pair
    here puts the whole deficit where P/Q is largest; the lower end must stay below its
    divergence (integer orders sum the lower moment with Q raised by tail_q)."""
    rn = _rn()
    tq = Fraction(1, 20)
    gq = [_Q[0] - tq] + _Q[1:]
    view = _view(list(_P), gq, backend=backend, tail_q=tq, grid_exact=False,
                 bound=math.inf, rho=1e-30 if backend == "mp" else None)
    truth = _renyi(_P, _Q, alpha)
    lo, up = rn.renyi_bracket(view, alpha, direction="P||Q")
    assert lo.kind is Kind.LOWER and _le(lo.value, truth)
    assert _le(truth, up.value)
    with mpmath.workdps(DPS):   # the lower end is the moment with every q raised by tq
        s = mpmath.fsum(_mp(x) ** alpha * _mp(y + tq) ** (1 - alpha)
                        for x, y in zip(_P, gq, strict=True))
        floor = mpmath.log(s) / (alpha - 1)
    assert _le(floor * (1 - mpmath.mpf(10) ** -12), lo.value)


@pytest.mark.parametrize("alpha", [1, 2, 3.5])
def test_mp_view_with_a_tiny_rho_and_an_outcome_where_p_is_zero(alpha):
    """A complete mp grid with rho = 1e-40 is summed as sum q f(p/q); at p = 0 the term is
    q f(0) (f(0) = alpha - 1 for the moment, 1 for KL): EXACT balls must hold the truth."""
    rn = _rn()
    p = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6), Fraction(0)]
    q = [Fraction(1, 4), Fraction(1, 4), Fraction(1, 4), Fraction(1, 4)]
    view = _view(p, q, backend="mp", rho=1e-40)
    truth = _renyi(p, q, alpha)
    r = (rn.kl_divergence(view, direction="P||Q") if alpha == 1 else
         rn.renyi_divergence(view, alpha, direction="P||Q"))
    assert r.kind is Kind.EXACT and _in_ball(r, truth)
    if alpha != 1:
        for end in rn.renyi_bracket(view, alpha, direction="P||Q"):
            assert _holds(end, truth)


def test_max_ratio_of_exactly_two():
    """log 2 of a rational ratio 2 is a ball, not the shortcut log 1 = 0."""
    rn = _rn()
    p, q = [Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 4), Fraction(3, 4)]
    r = rn.max_divergence(_view(p, q), direction="P||Q")
    assert r.kind is Kind.EXACT and _in_ball(r, _renyi(p, q, math.inf))
    # at delta = 1/8 the first point gives eps = log((1/2 - 1/8)/(1/4)) = log(3/2)
    e = hs.epsilon_for_delta(_view(p, q), Fraction(1, 8), direction="P||Q")
    assert e.kind is Kind.EXACT and _in_ball(e, _eps(p, q, Fraction(1, 8)))


@pytest.mark.parametrize("backend", ["exact", "mp"])
def test_hockey_stick_brackets_on_a_grid_of_lower_bound_values(backend):
    """grid_exact=False, Q's grid short by 1/20 (the admissible pair puts it where P/Q is
    largest): the lower ends of delta and epsilon must stay below the true pair's; above
    e^eps = 4, the largest true ratio, the true H is 0."""
    tq = Fraction(1, 20)
    gq = [_Q[0] - tq] + _Q[1:]
    view = _view(list(_P), gq, backend=backend, tail_q=tq, grid_exact=False,
                 bound=math.inf, rho=1e-30 if backend == "mp" else None)
    for epsilon in (0.3, 1.4, 2.0):
        with mpmath.workdps(DPS):
            truth = _h(_P, _Q, mpmath.exp(mpmath.mpf(epsilon)))
        lo, up = hs.delta_bracket(view, epsilon, direction="P||Q")
        assert lo.kind is Kind.LOWER and _holds(lo, truth) and _holds(up, truth)
    for delta in (0.05, 0.2, 0.45):
        truth = _eps(_P, _Q, Fraction(delta))
        lo, up = hs.epsilon_bracket(view, delta, direction="P||Q")
        assert lo.kind is Kind.LOWER and _holds(lo, truth) and _holds(up, truth)


@pytest.mark.parametrize("backend", ["exact", "mp"])
def test_epsilon_when_the_infinite_loss_mass_equals_delta(backend):
    """P puts exactly 1/8 where Q is 0: at delta = 1/8, H(eps) <= delta as soon as the
    finite part of H is 0, so epsilon is finite (the largest finite log-ratio, log 2)."""
    p = [Fraction(1, 8), Fraction(1, 2), Fraction(3, 8)]
    q = [Fraction(0), Fraction(1, 4), Fraction(3, 4)]
    view = _view(p, q, backend=backend)
    truth = _eps(p, q, Fraction(1, 8))
    assert abs(truth - math.log(2)) < 1e-15
    for r in hs.epsilon_bracket(view, 0.125, direction="P||Q"):
        assert _holds(r, truth) and r.value < math.inf
    assert _holds(hs.epsilon_for_delta(view, 0.125, direction="P||Q"), truth)


@pytest.mark.parametrize("shift", [(0, -1), (0, 1), (1, 0), (-1, 0), (1, -1), (-1, 1)])
def test_mp_complete_grid_with_rho_and_a_zero_outcome(shift):
    """A complete mp grid with rho = 1e-6 (summed as sum q f(p/q)), P zero at one outcome
    and mostly below Q: stored values moved by a factor 1 + s rho' (s from `shift`, for p
    and for q): the true pair's divergences stay inside the brackets."""
    rn = _rn()
    sp, sq = shift
    p = [Fraction(1, 10), Fraction(1, 10), Fraction(4, 5), Fraction(0)]
    q = [Fraction(3, 10), Fraction(3, 10), Fraction(1, 5), Fraction(1, 5)]
    r = Fraction(_RHO) * (1 - Fraction(1, 10**6))
    view = _view([x * (1 + sp * r) for x in p], [y * (1 + sq * r) for y in q], backend="mp",
                 rho=_RHO)
    for alpha in (1, 2, 3.5):
        truth = _renyi(p, q, alpha)
        if alpha == 1:
            up = rn.kl_divergence(view, direction="P||Q")
            assert _le(truth, up.value)
            continue
        lo, up = rn.renyi_bracket(view, alpha, direction="P||Q")
        assert _holds(lo, truth) and _holds(up, truth)


@pytest.mark.parametrize("backend", ["exact", "mp"])
def test_max_over_orders_of_an_exact_ball_and_an_upper_end(backend):
    """tail_q = 1e-30 as a bound only (B = 0, no actual residual): P||Q is EXACT (a ball with
    a radius), Q||P an UPPER end; their maximum is an upper bound only once the ball is
    moved up by its radius (P||Q is the larger order here)."""
    rn = _rn()
    q, p = _asym()   # P||Q > Q||P
    # mp: a stated rho of 1e-14 gives balls of radius ~1e-14, far above the 128-bit rounding
    view = _view(p, q, backend=backend, tail_q=Fraction(1, 10**30), bound=0.0,
                 rho=1e-14 if backend == "mp" else None)
    for alpha in (2.5, 3.5):
        pq = rn.renyi_divergence(view, alpha, direction="P||Q")
        assert pq.kind is Kind.EXACT and pq.radius > 0
        truth = max(_renyi(p, q, alpha), _renyi(q, p, alpha))
        assert truth == _renyi(p, q, alpha)
        both = rn.renyi_divergence(view, alpha, direction="max")
        assert both.kind is Kind.UPPER and _le(truth, both.value)
        assert _le(both.value, truth * (1 + mpmath.mpf(10) ** -9))
    with mpmath.workdps(DPS):
        g = mpmath.exp(mpmath.mpf(0.3))
        truth = max(_h(p, q, g), _h(q, p, g))
    both = hs.delta_for_epsilon(view, 0.3, direction="max")
    assert both.kind is Kind.UPPER and _le(truth, both.value)
