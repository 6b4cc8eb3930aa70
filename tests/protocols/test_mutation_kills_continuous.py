"""Tests that kill the mutants of the seventh mutation run (issue 20, item 6) in
`continuous.special_pair`, `continuous.cells` and `continuous.blanket` that the rest of the
suite let survive (docs/soundness.md#mutation-testing).

Oracles, each independent of the code under test:
- the noise laws' distribution functions in mpmath at 50 digits (every cell's mass, every
  ball of `cells.law_tails`, the blanket mass gamma, the far-tail mass);
- the special pair of a two-cell law in exact binomial sums (mpmath, 40 digits): its view is
  the number K of messages in the upper cell, so the lattice statistic is sufficient and its
  certified lower end must lie below this value;
- stored masses put at the edge of their certified balls, each in the direction that
  raises the computed value (the truth fixed first, the stored floats derived from it), so
  that an error term left out lets the certified end cross the truth;
- the blanket's convex-order claim E[(D - c)_+] + tail >= E[(Z - c)_+] for the discretized
  law D and the true Z (mpmath quadrature of (f_0 - g f_1 - c omega)_+ over y);
- the count mixture from its definition: sum_N Bin(n - 1, gamma)(N) H(N + 1) with every
  count's own value (H nonincreasing, so the block starts may only raise it).
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import pytest
from flint import arb
from scipy.stats import binom

from accountant.pairs.clones import count_blocks
from accountant.protocols.continuous import (
    DiscreteGaussianLaw,
    DiscreteLaplaceLaw,
    GaussianLaw,
    LaplaceLaw,
    blanket,
    special_pair,
)
from accountant.protocols.continuous import cells as cells_mod
from accountant.protocols.continuous.cells import TINY, Cells, cells

DPS = 50


# ------------------------------------------------------------------ mpmath laws
@functools.cache
def _mp_cdf(law):
    """F(y) = P(noise <= y) of the law, in mpmath (integer laws: at floor(y))."""
    s = mpmath.mpf(law.scale)
    if isinstance(law, GaussianLaw):
        return lambda y: mpmath.ncdf(mpmath.mpf(y) / s)
    if isinstance(law, LaplaceLaw):
        def lap(y):
            y = mpmath.mpf(y)
            return mpmath.exp(y / s) / 2 if y < 0 else 1 - mpmath.exp(-y / s) / 2
        return lap
    if isinstance(law, DiscreteLaplaceLaw):
        p = mpmath.exp(-1 / s)

        def dlap(y):
            k = math.floor(y)
            return p ** abs(k) / (1 + p) if k < 0 else 1 - p ** (k + 1) / (1 + p)
        return dlap
    mpmath.mp.dps = DPS
    top = int(60 * law.scale) + 60
    w = [mpmath.exp(-mpmath.mpf(j) ** 2 / (2 * s * s)) for j in range(-top, top + 1)]
    total = mpmath.fsum(w)
    prefix = []
    acc = mpmath.mpf(0)
    for v in w:
        acc += v
        prefix.append(acc)

    def dg(y):
        k = math.floor(y)
        if k < -top:
            return mpmath.mpf(0)
        if k >= top:
            return mpmath.mpf(1)
        return prefix[k + top] / total
    return dg


def _mp_sf(law):
    """P(noise > y) without cancellation (symmetric laws)."""
    cdf = _mp_cdf(law)
    if law.integer:
        return lambda y: cdf(-math.floor(y) - 1)
    return lambda y: cdf(-y)


def _mass(law, a, b):
    """True mass of (a, b] under noise (a may be -inf, b may be +inf)."""
    cdf, sf = _mp_cdf(law), _mp_sf(law)
    if a == -math.inf:
        return cdf(b)
    if b == math.inf:
        return sf(a)
    return sf(a) - sf(b) if a >= 0 else cdf(b) - cdf(a)


def _contains(ball, value):
    """The ball's interval (mid +- rad) holds the mpmath value (up to the reference's own
    rounding at DPS digits: 1e-45 relative)."""
    mid = mpmath.mpf(ball.mid().str(70, radius=False))
    rad = mpmath.mpf(ball.rad().str(30, radius=False)) * (1 + mpmath.mpf(10) ** -20)
    return abs(value - mid) <= rad + abs(value) * mpmath.mpf(10) ** -45


# (GaussianLaw(150): neither 0 nor 1 is a cut there, so one cell straddles 0 under each input
# and its mass takes the third branch of `cells._masses`, 1 - F(a) - S(b))
LAWS = [GaussianLaw(1.0), GaussianLaw(0.1), GaussianLaw(150.0), LaplaceLaw(0.5),
        LaplaceLaw(3.0), DiscreteLaplaceLaw(1.0), DiscreteGaussianLaw(0.7),
        DiscreteGaussianLaw(2.0)]


# ------------------------------------------------------------------ cells
@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_every_cell_mass_is_within_rho_and_the_zeroed_ones_within_tiny(law):
    mpmath.mp.dps = DPS
    cl = cells(law)
    edges = [-math.inf, *[float(v) for v in cl.cuts], math.inf]
    assert cl.p0.size == cl.p1.size == len(edges) - 1
    if law == GaussianLaw(150.0):
        assert 0.0 not in cl.cuts and 1.0 not in cl.cuts
    assert 0 < cl.rho < 1e-14
    for x, stored, tiny in ((0, cl.p0, cl.tiny0), (1, cl.p1, cl.tiny1)):
        zeroed = mpmath.mpf(0)
        for i in range(stored.size):
            truth = _mass(law, edges[i] - x, edges[i + 1] - x)
            if stored[i] == 0:
                zeroed += truth
            else:
                assert stored[i] >= TINY
                assert abs(truth - stored[i]) <= cl.rho * stored[i], (x, i)
        assert zeroed <= tiny
        # the float masses are the truth to about a unit roundoff (not a loose bound)
        assert math.fsum(stored) == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_tail_balls_hold_the_distribution_function(law):
    mpmath.mp.dps = DPS
    tails = cells_mod.law_tails(law)
    cdf, sf = _mp_cdf(law), _mp_sf(law)
    s = law.scale
    ys = [0.0, -0.5, 0.5, 1.0, -1.0, 2.5 * s, -2.5 * s, 7 * s, -7 * s, 30 * s, -30 * s]
    if isinstance(law, DiscreteGaussianLaw):
        top = tails.top
        ys += [top - 1.0, top + 0.0, top + 3.0, -top - 1.0, -top + 0.0, -top - 3.0]
    for y in ys:
        low, high = tails(float(y))
        assert _contains(low, cdf(y)), y
        assert _contains(high, sf(y)), y


@pytest.mark.parametrize("law", [GaussianLaw(1.0), DiscreteGaussianLaw(2.0)], ids=repr)
def test_merged_runs_hold_their_true_masses(law):
    mpmath.mp.dps = DPS
    cl = cells(law)
    size = cl.p0.size
    starts = np.array(sorted({0, 1, 2, 5, size // 3, size // 2, size // 2 + 1, size - 2}))
    runs = cl.merged(starts)
    ends = [*starts[1:].tolist(), size]
    edges = [-math.inf, *[float(v) for v in cl.cuts], math.inf]
    assert np.array_equal(runs.cuts, cl.cuts[starts[1:] - 1])
    assert runs.p0.size == starts.size
    for k, (a, b) in enumerate(zip(starts.tolist(), ends, strict=True)):
        for x, stored in ((0, runs.p0), (1, runs.p1)):
            truth = _mass(law, edges[a] - x, edges[b] - x)
            if stored[k] == 0:
                assert truth <= (runs.tiny0 if x == 0 else runs.tiny1)
            else:
                assert abs(truth - stored[k]) <= runs.rho * stored[k], (x, k)


def test_certify_rho_and_tiny_cover_the_ball_radii():
    # balls of known radius: rho must be at least the largest rad / mid, tiny the zeroed mass
    balls0 = [arb(0.5, 0.5e-9), arb(0.25, 0.25e-12), arb(0.25, 0.0), arb(1e-295, 1e-296)]
    balls1 = [arb(0.5, 0.0), arb(0.5, 1e-10), arb(3e-300, 0.0), arb(0.0, 0.0)]
    got = cells_mod._certify(np.array([0.0, 1.0, 2.0]), balls0, balls1)
    assert got.rho >= 1e-9
    assert got.rho <= 1e-9 * (1 + 1e-6)
    assert list(got.p0) == [0.5, 0.25, 0.25, 0.0]
    assert list(got.p1) == [0.5, 0.5, 0.0, 0.0]
    assert got.tiny0 >= 1.1e-295
    assert got.tiny1 >= 3e-300
    assert got.tiny0 <= 1.2e-295


# ------------------------------------------------------------------ rounding of g
@pytest.mark.parametrize("epsilon", [0.0, 1e-300, 1e-12, 0.004, 0.5, 1.0, 7.25, 50.0])
def test_g_is_rounded_the_safe_way(epsilon):
    mpmath.mp.dps = DPS
    true_g = mpmath.exp(mpmath.mpf(epsilon))
    assert special_pair._g_up(epsilon) >= true_g  # larger g: smaller lower end
    assert blanket._g(epsilon) <= true_g  # smaller g: larger upper end
    assert blanket._g(epsilon) >= 1.0
    assert special_pair._g_up(epsilon) <= true_g * (1 + 1e-15)
    assert blanket._g(epsilon) >= max(true_g * (1 - 1e-15), 1)


# ------------------------------------------------------------------ special pair, 2 cells
def _two_cell_truth(q0, q1, n, g, order):
    """delta of (P_K, Q_K), K the number of messages in the upper cell: P: n - 1 from q0,
    the last from q1; Q: n from q0 (Q||P: the roles swap)."""
    mpmath.mp.dps = 40
    a, b = mpmath.mpf(q0[1]), mpmath.mpf(q1[1])
    g = mpmath.mpf(g)

    def pmf(m, k, p):
        if k < 0 or k > m:
            return mpmath.mpf(0)
        return mpmath.binomial(m, k) * p ** k * (1 - p) ** (m - k)

    total = mpmath.mpf(0)
    for k in range(n + 1):
        base = pmf(n - 1, k, a) * (1 - a) + pmf(n - 1, k - 1, a) * a
        diff = pmf(n - 1, k, a) * (1 - b) + pmf(n - 1, k - 1, a) * b
        p, q = (diff, base) if order == "PQ" else (base, diff)
        total += max(p - g * q, 0)
    return total


def _fake_cells(q0, q1, rho, signs0, signs1):
    """Cells whose true masses are q0, q1 and whose stored midpoints sit at the edge of
    balls of relative radius rho (truth = mid (1 + sign rho'), rho' just below rho)."""
    r = rho * (1 - 1e-6)
    b0, b1, m0, m1 = [], [], [], []
    for q, signs, balls, mids in ((q0, signs0, b0, m0), (q1, signs1, b1, m1)):
        for qi, si in zip(q, signs, strict=True):
            mid = float(mpmath.mpf(qi) / (1 + si * r))
            balls.append(arb(mid, rho * mid))
            mids.append(mid)
    return Cells(cuts=np.array([0.5]), p0=np.array(m0), p1=np.array(m1), rho=rho,
                 tiny0=1e-300, tiny1=1e-300, balls0=tuple(b0), balls1=tuple(b1))


SIGNS = [(+1, -1), (-1, +1), (+1, +1), (-1, -1)]


@pytest.mark.parametrize("order", ["PQ", "QP"])
@pytest.mark.parametrize("n,epsilon,rho", [(2, 0.3, 1e-3), (10, 0.4, 1e-4),
                                           (300, 0.05, 1e-6), (1000, 0.03, 1e-7)])
def test_two_cell_law_at_the_edge_of_its_balls_stays_below_the_truth(monkeypatch, order, n,
                                                                     epsilon, rho):
    q0, q1 = (0.7, 0.3), (0.4, 0.6)
    g = math.exp(epsilon) * (1 + 1e-15)
    truth = _two_cell_truth(q0, q1, n, g, order)
    assert truth > 1e-4
    best = 0.0
    for s0 in SIGNS:
        for s1 in SIGNS:
            fake = _fake_cells(q0, q1, rho, s0, s1)
            monkeypatch.setattr(special_pair, "cells", lambda law, fake=fake: fake)
            got = special_pair.delta_order(None, n, g, order)
            assert got <= truth, (s0, s1)
            best = max(best, got)
    # (and something is certified: the error terms do not swallow the value)
    assert best > 0.5 * truth


@pytest.mark.parametrize("order", ["PQ", "QP"])
@pytest.mark.parametrize("n,epsilon", [(2, 0.0), (2, 0.9), (3, 0.2), (10, 0.05), (10, 1.2),
                                       (100, 0.1), (1000, 0.03)])
def test_discrete_laplace_exact_binomial_sum(order, n, epsilon):
    # r takes two values: the lattice statistic is sufficient, the bound is the value up to
    # its certified error (the truth: the binomial sum in mpmath, not scipy's floats)
    b = 1.0
    mpmath.mp.dps = 40
    p = mpmath.exp(-1 / mpmath.mpf(b))
    a = p / (1 + p)  # P_0(noise >= 1): the upper cell under input 0
    up = 1 / (1 + p)  # P_1(noise + 1 >= 1) = P(noise >= 0)
    g = math.exp(epsilon) * (1 + 1e-15)
    truth = _two_cell_truth((1 - a, a), (1 - up, up), n, g, order)
    got = special_pair.delta_order(DiscreteLaplaceLaw(b), n, g, order)
    if truth == 0:
        assert got == 0.0
        return
    assert got <= truth
    assert got >= truth * (1 - 1e-6) - 1e-15


def test_delta_lower_is_the_larger_order_and_labels_it():
    law = LaplaceLaw(1.0)
    g = special_pair._g_up(0.3)
    pq = special_pair.delta_order(law, 1000, g, "PQ")
    qp = special_pair.delta_order(law, 1000, g, "QP")
    res = special_pair.delta_lower(law, 1000, 0.3)
    assert float(res.value) == max(pq, qp)
    assert pq != qp
    assert ("P||Q" if pq > qp else "Q||P") in res.method
    assert res.at == 0.3


# ------------------------------------------------------------------ blanket
def _lambda_inverse(law, level):
    """The y with log(f_0/f_1)(y) = level (lambda is nonincreasing in y): Gaussian
    lambda(y) = (1 - 2y)/(2 sigma^2); Laplace (|y - 1| - |y|)/b, flat at +-1/b outside [0, 1]
    (the ends: -inf / +inf when the level is not reached inside)."""
    s = mpmath.mpf(law.scale)
    if isinstance(law, GaussianLaw):
        return mpmath.mpf(1) / 2 - s * s * level
    if level >= 1 / s:
        return -mpmath.inf
    if level <= -1 / s:
        return mpmath.inf
    return (1 - s * level) / 2


def _excess(law, g, c):
    """E[(Z - c)_+], Z = (f_0 - g f_1)/omega(W), W ~ omega, omega = min(f_0, f_1)/gamma,
    in closed form: the integral over y of (f_0 - g f_1 - c omega)_+. Left of 1/2 (omega =
    f_1/gamma) it is f_0 - k1 f_1, k1 = g + c/gamma, positive where lambda > log k1; right of
    1/2 (omega = f_0/gamma) it is (1 - c/gamma) f_0 - g f_1, positive where lambda > log k2,
    k2 = g/(1 - c/gamma)."""
    cdf = _mp_cdf(law)
    gamma = 2 * cdf(-0.5)
    g, c = mpmath.mpf(g), mpmath.mpf(c)
    half = mpmath.mpf(1) / 2

    def F(y):
        return mpmath.mpf(0) if y == -mpmath.inf else (
            mpmath.mpf(1) if y == mpmath.inf else cdf(y))

    k1 = g + c / gamma
    y1 = half if k1 <= 1 else min(_lambda_inverse(law, mpmath.log(k1)), half)
    left = F(y1) - k1 * F(y1 - 1)
    right = mpmath.mpf(0)
    if 1 - c / gamma > 0:
        k2 = g / (1 - c / gamma)
        if k2 < 1:
            y2 = _lambda_inverse(law, mpmath.log(k2))
            right = (1 - c / gamma) * (F(y2) - F(half)) - g * (F(y2 - 1) - F(-half))
    return max(left, 0) + max(right, 0)


def test_excess_closed_form_against_quadrature():
    # the oracle itself, once, against mpmath quadrature of its defining integral, split at
    # its kinks (1/2 and the roots of f_0 = k f_1, found by findroot on the densities)
    mpmath.mp.dps = 30
    law, g = GaussianLaw(1.0), mpmath.mpf(1.5)
    gamma = 2 * mpmath.ncdf(-0.5)
    for c in (-0.7, -0.2, 0.1):
        def h(y, c=c):
            f0, f1 = mpmath.npdf(y), mpmath.npdf(y - 1)
            return max(f0 - g * f1 - c * min(f0, f1) / gamma, 0)
        pts = {mpmath.mpf(-40), mpmath.mpf(0.5), mpmath.mpf(41)}
        for k in (g + c / gamma, g / (1 - c / gamma)):
            root = mpmath.findroot(
                lambda y, k=k: mpmath.log(mpmath.npdf(y) / mpmath.npdf(y - 1)) - mpmath.log(k),
                0.5)
            if -40 < root < 41:
                pts.add(root)
        ref = mpmath.quad(h, sorted(pts))
        assert abs(_excess(law, g, c) - ref) <= 1e-20 * ref


@pytest.mark.parametrize("law,epsilon", [(GaussianLaw(1.0), 0.5), (GaussianLaw(0.5), 1.5),
                                         (LaplaceLaw(1.0), 0.3)], ids=repr)
def test_blanket_law_dominates_z_in_convex_order(law, epsilon):
    mpmath.mp.dps = 20
    g = blanket._g(epsilon)
    terms = blanket.blanket_law(law, g)
    pts, wts = terms.points, terms.weights
    assert math.fsum(wts) == pytest.approx(1.0, abs=1e-12)
    assert terms.gamma <= 2 * _mp_cdf(law)(-0.5)
    assert terms.gamma >= 2 * _mp_cdf(law)(-0.5) * (1 - 1e-10)
    # E D >= E Z = 1 - g
    assert math.fsum(pts * wts) >= (1 - g) - 1e-15
    top = float(np.max(pts))
    lo = float(np.min(pts))
    mpmath.mp.dps = 30
    for c in np.concatenate([np.linspace(lo, top, 41)[1:-1], [0.0, 1 - g, 0.5 * top]]):
        ours = math.fsum(np.maximum(pts - c, 0.0) * wts) + terms.tail
        truth = _excess(law, g, float(c))
        assert ours >= truth * (1 - 1e-12) - 1e-16, c


@pytest.mark.parametrize("law", [GaussianLaw(1.0), GaussianLaw(0.3), LaplaceLaw(2.0),
                                 DiscreteGaussianLaw(1.5), DiscreteLaplaceLaw(0.5)], ids=repr)
def test_blanket_tail_covers_the_far_left_mass(law):
    mpmath.mp.dps = DPS
    for tail in (1e-16, 1e-40):
        t = blanket.grid(law, tail)
        terms = blanket.blanket_law(law, 1.5, tail=tail)
        truth = _mp_cdf(law)(0.5 - float(t[-1]))  # P_0(Y <= 1/2 - T) (integer laws: atoms)
        if law.integer:
            truth = _mp_cdf(law)(math.floor(0.5 - float(t[-1])))
        assert terms.tail >= truth
        assert truth <= max(tail, 1e-290) * 1.0001 or terms.tail >= truth


def test_delta_given_count_adds_the_tail_and_caps_at_one():
    law = GaussianLaw(1.0)
    terms = blanket.blanket_law(law, 1.2)
    bigger = blanket.BlanketLaw(points=terms.points, weights=terms.weights, tail=0.25,
                                gamma=terms.gamma, exp_epsilon=terms.exp_epsilon)
    base = blanket.delta_given_count(terms, np.array([1, 4]))
    more = blanket.delta_given_count(bigger, np.array([1, 4]))
    assert np.all(more >= base - terms.tail + 0.25 - 1e-15)
    huge = blanket.BlanketLaw(points=terms.points, weights=terms.weights, tail=2.0,
                              gamma=terms.gamma, exp_epsilon=terms.exp_epsilon)
    assert np.all(blanket.delta_given_count(huge, np.array([1, 4])) == 1.0)
    # c = 1: the positive part of one term, E[(D)_+] + tail, directly
    one = math.fsum(np.maximum(terms.points, 0.0) * terms.weights)
    assert base[0] >= one * (1 - 1e-9) + terms.tail * (1 - 1e-9)


@pytest.mark.parametrize("law,n,epsilon,tail", [
    (GaussianLaw(1.0), 400, 0.2, 3e-2), (GaussianLaw(1.0), 400, 0.2, 0.2),
    (GaussianLaw(1.0), 12, 0.6, 1e-16), (LaplaceLaw(1.0), 25, 0.4, 1e-3),
    (DiscreteGaussianLaw(2.0), 9, 0.5, 1e-2)], ids=repr)
def test_mixture_is_its_blocks_plus_the_mass_outside(law, n, epsilon, tail):
    # Reference: the exact Bin(n - 1, gamma) mass of each block (scipy's cdf, far tighter
    # than the effects tested) times the value the mixture uses for it (H at its first
    # count, H being nonincreasing in the count), plus the exact mass outside the window
    # at value 1. With a large window budget that outside mass is real and must be added.
    terms = blanket.blanket_law(law, blanket._g(epsilon))
    starts, ends, _, _ = count_blocks(n - 1, terms.gamma, tail, 64)
    starts, ends = np.asarray(starts), np.asarray(ends)
    h = blanket.delta_given_count(terms, starts + 1)
    assert np.all(np.diff(h) <= 0) and np.all(h <= 1.0)
    mass = binom.cdf(ends, n - 1, terms.gamma) - binom.cdf(starts - 1, n - 1, terms.gamma)
    outside = max(1.0 - math.fsum(mass), 0.0)
    if n >= 100:
        assert outside > 1e-9  # these cases are meant to have real mass outside
    reference = math.fsum(mass * h) + outside
    got = blanket._mixture(terms, n, tail, 64)
    assert reference * (1 - 1e-9) <= got <= 1.0
    if tail == 1e-16:
        assert blanket.delta_upper(law, n, epsilon).value == got


def test_result_labels_of_both_ends():
    law = GaussianLaw(2.0)
    up = blanket.delta_upper(law, 50, 0.4)
    low = special_pair.delta_lower(law, 50, 0.4)
    for res, kind in ((up, "UPPER"), (low, "LOWER")):
        assert res.quantity == "delta"
        assert res.kind.name == kind
        assert res.direction.name == "MAX"
        assert res.at == 0.4
        assert res.source is not None and res.source.locator.startswith(
            "docs/continuous-randomizers.md#")
    assert up.source is blanket.SOURCE and low.source is special_pair.SOURCE
    assert "gaussian blanket" in up.method and "gamma=" in up.method
    assert float(low.value) <= float(up.value)


def test_nothing_certified_when_no_lattice_fits_the_fft():
    # from n ~ 2e9 on no lattice fits 2^21 FFT points (docs: where it is weak): the value is
    # then 0, a lower end that is trivially true, never a guessed number
    law = GaussianLaw(1.0)
    assert special_pair.delta_order(law, 10 ** 10, math.exp(1e-4), "PQ") == 0.0
    assert special_pair.delta_order(law, 10 ** 10, math.exp(1e-4), "QP") == 0.0
