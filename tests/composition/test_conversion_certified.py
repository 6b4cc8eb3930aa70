"""The optimal RDP -> DP conversion is certified (issue 11, item 5): its delta is a proven
upper bound on the supremum over binary pairs, its epsilon one at which that delta is at
most the target (docs/conversions.md#optimal-conversion).

The reference here is written independently of the library: a 50-digit mpmath search over
q (a coarse grid in log q, then golden sections; both objectives are unimodal in log q), with
p_max(q) from a bracketed root of the constraint, moved to its feasible side. Every value it
returns is attained by a feasible pair, so it is at most the supremum: `upper >= truth` is a
real check of soundness, and `upper <= truth (1 + 1e-6)` one of tightness.
"""

import math
import random

import mpmath
import pytest

from accountant.composition import conversion as cv
from accountant.composition.rdp import RdpCurve
from accountant.errors import ParameterError

DPS = 50
REL = 1e-6


def _p_max(q: mpmath.mpf, a: mpmath.mpf, bound: mpmath.mpf) -> mpmath.mpf:
    """Largest p in [q, 1] with p^a q^(1-a) + (1-p)^a (1-q)^(1-a) <= bound (feasible side)."""
    def f(p):
        return p ** a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a) - bound

    if f(mpmath.mpf(1)) <= 0:
        return mpmath.mpf(1)
    # bisection on log p over [log q, 0] (f increases in p on [q, 1]), then a bracketed solver
    lo, hi = mpmath.log(q), mpmath.mpf(0)
    for _ in range(48):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mpmath.exp(mid)) <= 0 else (lo, mid)
    try:  # in u = log p: the solvers' tolerances are absolute in their variable
        p = mpmath.exp(mpmath.findroot(lambda u: f(mpmath.exp(u)), (lo, hi),
                                       solver="anderson"))
    except (ValueError, ZeroDivisionError):
        p = mpmath.exp(lo)
    p = min(max(p, q), mpmath.mpf(1))
    shave = mpmath.mpf(10) ** (5 - DPS)
    while f(p) > 0:  # keep the feasible side: the reference never exceeds the supremum
        p, shave = q + (p - q) * (1 - shave), min(2 * shave, mpmath.mpf(1) / 2)
    return p


def _maximise(h, top: mpmath.mpf) -> mpmath.mpf:
    """max of a unimodal h over log q <= top: a grid (widened to the left while its best point
    is the left end), then golden sections on the best point's neighbours."""
    width = mpmath.mpf(64)
    while True:
        grid = [top - width + width * i / 64 for i in range(65)]
        vals = [h(x) for x in grid]
        i = max(range(65), key=lambda j: vals[j])
        if i > 0 or width > 1e5:
            break
        width *= 8
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, 64)]
    ratio = (mpmath.sqrt(5) - 1) / 2
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = h(x1), h(x2)
    best = max(vals[i], f1, f2)
    for _ in range(80):
        if f1 < f2:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = h(x2)
        else:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = h(x1)
        best = max(best, f1, f2)
    return best


def true_delta(alpha: float, tau: float, epsilon: float) -> mpmath.mpf:
    """sup {p - e^eps q} over the binary pairs with D_alpha <= tau, from feasible pairs."""
    with mpmath.workdps(DPS):
        a, t, gamma = mpmath.mpf(alpha), mpmath.mpf(tau), mpmath.exp(mpmath.mpf(epsilon))
        bound = mpmath.exp((a - 1) * t)

        def g(log_q):
            q = mpmath.exp(log_q)
            return _p_max(q, a, bound) - gamma * q

        # p_max(q) <= q^(1-1/a) e^((a-1) tau / a): the objective is negative for larger q
        top = min(mpmath.mpf(0), (a - 1) * t - a * mpmath.mpf(epsilon))
        return max(mpmath.mpf(0), _maximise(g, top))


def true_epsilon(alpha: float, tau: float, delta: float) -> mpmath.mpf:
    """sup {log((p - delta)/q)} over the binary pairs with D_alpha <= tau and p > delta."""
    with mpmath.workdps(DPS):
        a, t, d = mpmath.mpf(alpha), mpmath.mpf(tau), mpmath.mpf(delta)
        bound = mpmath.exp((a - 1) * t)

        def h(log_q):
            q = mpmath.exp(log_q)
            p = _p_max(q, a, bound)
            return mpmath.log((p - d) / q) if p > d else mpmath.mpf(-10) ** 9

        return max(mpmath.mpf(0), _maximise(h, mpmath.mpf(0)))


def _cases(seed: int, count: int) -> list[tuple[float, float, float]]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        alpha = 1 + math.exp(rng.uniform(math.log(0.02), math.log(200)))
        tau = math.exp(rng.uniform(math.log(1e-4), math.log(20)))
        epsilon = rng.choice([0.0, rng.uniform(0, 1), rng.uniform(0, 6)])
        out.append((alpha, tau, epsilon))
    return out


def _check_delta(alpha: float, tau: float, epsilon: float) -> float:
    truth = true_delta(alpha, tau, epsilon)
    lower, upper, _ = cv.certified_delta(alpha, tau, epsilon)
    reported = cv.delta_optimal(RdpCurve(orders=(alpha,), values=(tau,)),
                                epsilon=epsilon).value
    assert lower <= upper
    if truth < 1e-300:  # below the float range: the smallest positive float at most
        assert 0 < upper <= 1e-300 and reported <= 1e-300
        return 1.0
    assert mpmath.mpf(upper) >= truth, (alpha, tau, epsilon, upper, truth)
    assert mpmath.mpf(reported) >= truth, (alpha, tau, epsilon, reported, truth)
    # both are lower ends of the supremum (ours proven, the reference's by construction): only
    # the certificate's own width is checked
    assert upper - lower <= 1e-9 * upper, (alpha, tau, epsilon, lower, upper)
    assert mpmath.mpf(reported) <= truth * (1 + REL), (alpha, tau, epsilon, reported, truth)
    return float(mpmath.mpf(reported) / truth) if truth > 0 else 1.0


def _check_epsilon(alpha: float, tau: float, delta: float) -> float:
    truth = true_epsilon(alpha, tau, delta)
    reported = cv.epsilon_optimal(RdpCurve(orders=(alpha,), values=(tau,)), delta=delta).value
    assert mpmath.mpf(reported) >= truth, (alpha, tau, delta, reported, truth)
    # an absolute 1e-12 where the truth is (near) 0
    assert mpmath.mpf(reported) <= truth * (1 + REL) + 1e-12, (alpha, tau, delta, reported,
                                                                truth)
    return float(mpmath.mpf(reported) / truth) if truth > 0 else 1.0


@pytest.mark.parametrize("alpha, tau, epsilon", _cases(11, 12))
def test_delta_optimal_is_a_tight_upper_bound_on_the_supremum(alpha, tau, epsilon):
    _check_delta(alpha, tau, epsilon)


@pytest.mark.parametrize("alpha, tau, delta", [
    (a, t, d) for (a, t, _), d in zip(_cases(12, 8), [1e-3, 1e-6, 1e-10, 1e-30] * 2,
                                      strict=True)])
def test_epsilon_optimal_is_a_tight_upper_bound_on_the_supremum(alpha, tau, delta):
    _check_epsilon(alpha, tau, delta)


@pytest.mark.slow
def test_many_random_points_stay_between_truth_and_one_ppm():
    worst_delta = max(_check_delta(*case) for case in _cases(13, 150))
    worst_eps = max(_check_epsilon(a, t, d) for (a, t, _), d in zip(
        _cases(14, 100), [1e-2, 1e-5, 1e-9, 1e-15, 1e-50] * 20, strict=True))
    assert worst_delta <= 1 + REL and worst_eps <= 1 + REL


def test_kink_where_the_old_margin_was_below_the_supremum():
    """At alpha = 32, tau = 0.3, eps = 0.2 the optimum sits on the corner p = 1, q = e^-tau
    (the constraint holds with equality there), so the supremum is exactly 1 - e^(eps - tau).
    The float search with its relative 1e-9 margin reported 0.0951625819390405, 2.6e-10
    relative below it."""
    with mpmath.workdps(40):
        exact = 1 - mpmath.exp(mpmath.mpf(0.2) - mpmath.mpf(0.3))
    curve = RdpCurve(orders=(32.0,), values=(0.3,))
    reported = cv.delta_optimal(curve, epsilon=0.2).value
    assert mpmath.mpf(reported) >= exact
    assert mpmath.mpf(0.0951625819390405) < exact
    assert reported <= float(exact) * (1 + 1e-12)
    lower, upper, _ = cv.certified_delta(32.0, 0.3, 0.2)
    assert mpmath.mpf(lower) <= exact <= mpmath.mpf(upper)


def test_tau_zero_and_bad_parameters():
    assert cv.certified_delta(3.0, 0.0, 0.5)[:2] == (0.0, 0.0)
    for bad in [(1.0, 0.1, 0.1), (2.0, -1.0, 0.1), (2.0, 0.1, -0.1), (2.0, math.inf, 0.1)]:
        with pytest.raises(ParameterError):
            cv.certified_delta(*bad)


def test_the_interval_precision_is_restored():
    before = mpmath.iv.prec, mpmath.mp.prec
    cv.certified_delta(4.0, 0.5, 1.0)
    assert (mpmath.iv.prec, mpmath.mp.prec) == before
