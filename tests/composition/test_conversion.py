"""RDP -> (epsilon, delta): ordering of the three theorems, soundness against exact deltas,
the optimal conversion against a brute-force search, agreement with dp_accounting."""

import math

import mpmath
import numpy as np
import pytest

from accountant.composition import conversion as cv
from accountant.composition.kov import delta_kov
from accountant.composition.rdp import RdpCurve
from accountant.divergence import delta_bracket
from accountant.protocols import binary_rr
from accountant.result import Kind

DELTAS = [1e-3, 1e-6, 1e-10]


def _gaussian_curve(sigma: float) -> RdpCurve:
    """Gaussian mechanism, sensitivity 1: D_alpha = alpha / (2 sigma^2) (Mironov 2017)."""
    orders = tuple(1 + x for x in np.geomspace(0.01, 255, 60))
    return RdpCurve(orders=orders, values=tuple(a / (2 * sigma ** 2) for a in orders))


def _curves(rr):
    shuffled = RdpCurve.from_view(binary_rr.view_pair(n=2000, epsilon0=1.0))
    return {
        "rr-eps1-x10": RdpCurve.from_view(rr(1.0)).times(10),
        "rr-eps0.1-x1000": RdpCurve.from_view(rr(0.1)).times(1000),
        "gaussian-sigma2": _gaussian_curve(2.0),
        "shuffled-rr-n2000-x100": shuffled.times(100),
        "shuffled-rr-n2000": shuffled,
    }


@pytest.mark.parametrize("delta", DELTAS)
def test_mironov_ge_cks_ge_optimal_epsilon(rr, delta):
    for name, curve in _curves(rr).items():
        m = cv.epsilon_mironov(curve, delta=delta)
        c = cv.epsilon_cks(curve, delta=delta)
        o = cv.epsilon_optimal(curve, delta=delta)
        assert m.value >= c.value >= o.value, name
        assert {m.kind, c.kind, o.kind} == {Kind.UPPER}


@pytest.mark.parametrize("epsilon", [0.5, 2.0, 6.0])
def test_mironov_ge_cks_ge_optimal_delta(rr, epsilon):
    for name, curve in _curves(rr).items():
        m = cv.delta_mironov(curve, epsilon=epsilon)
        c = cv.delta_cks(curve, epsilon=epsilon)
        o = cv.delta_optimal(curve, epsilon=epsilon)
        assert m.value >= c.value >= o.value, name


def test_optimal_conversion_beats_cks_strictly_somewhere(rr):
    """Not a tautology of the min(optimal, CKS) step: at moderate tau the binary optimum
    is strictly smaller (Asoodeh et al. 2021, Fig. 1)."""
    curve = RdpCurve(orders=(2.0,), values=(0.05,))
    assert cv.epsilon_optimal(curve, delta=1e-5).value < 0.75 * cv.epsilon_cks(
        curve, delta=1e-5).value


@pytest.mark.parametrize("alpha, tau, delta", [(2.0, 0.05, 1e-5), (4.0, 0.5, 1e-6),
                                               (32.0, 0.3, 1e-8)])
def test_optimal_conversion_dominates_a_brute_force_search(alpha, tau, delta):
    """Independent 30-digit grid search over binary pairs (p, q) satisfying the Renyi
    constraint: every pair's log((p - delta)/q) is at most the reported epsilon, and the
    best grid pair comes within 1% of it."""
    curve = RdpCurve(orders=(alpha,), values=(tau,))
    reported = cv.epsilon_optimal(curve, delta=delta).value
    best = -math.inf
    with mpmath.workdps(30):
        a, bound = mpmath.mpf(alpha), mpmath.exp((alpha - 1) * mpmath.mpf(tau))
        for log_q in np.linspace(-40, -1e-3, 400):
            q = mpmath.exp(log_q)

            def f(p, q=q):
                return p ** a * q ** (1 - a) + (1 - p) ** a * (1 - q) ** (1 - a)

            lo, hi = q, mpmath.mpf(1)
            if f(hi) <= bound:
                lo = hi
            else:
                for _ in range(80):
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if f(mid) <= bound else (lo, mid)
            if lo > delta:
                best = max(best, float(mpmath.log((lo - delta) / q)))
    assert best <= reported
    assert best >= 0.99 * reported


@pytest.mark.parametrize("epsilon, rounds", [(1.0, 1), (0.5, 10), (0.1, 300)])
@pytest.mark.parametrize("delta", [1e-4, 1e-8])
def test_conversions_are_sound_for_composed_randomized_response(rr, epsilon, rounds, delta):
    """The RR curve is exact (docs/conversions.md#pure-dp-to-rdp), and the exact delta of its
    k-fold composition is
    KOV's binomial formula with delta = 0 (docs/conversions.md#optimal-composition): at every
    reported epsilon the exact
    delta must not exceed the target."""
    curve = RdpCurve.from_view(rr(epsilon)).times(rounds)
    for f in (cv.epsilon_mironov, cv.epsilon_cks, cv.epsilon_optimal):
        reported = f(curve, delta=delta)
        exact = delta_kov(epsilon=epsilon, delta=0.0, rounds=rounds,
                          epsilon_total=reported.value)
        assert exact.value <= delta, f.__name__
    for f in (cv.delta_mironov, cv.delta_cks, cv.delta_optimal):
        at = 0.5 * math.sqrt(rounds) * epsilon
        reported = f(curve, epsilon=at)
        exact = delta_kov(epsilon=epsilon, delta=0.0, rounds=rounds, epsilon_total=at)
        assert exact.value <= reported.value, f.__name__


@pytest.mark.parametrize("delta", [1e-4, 1e-7])
def test_conversions_are_sound_for_the_shuffled_binary_rr_view(delta):
    view = binary_rr.view_pair(n=3000, epsilon0=1.5)
    curve = RdpCurve.from_view(view)
    for f in (cv.epsilon_mironov, cv.epsilon_cks, cv.epsilon_optimal):
        reported = f(curve, delta=delta)
        lower, _ = delta_bracket(view, reported.value)
        assert lower.value <= delta, f.__name__


def test_pure_dp_order_gives_epsilon_at_any_delta(rr):
    curve = RdpCurve.from_view(rr(0.7), (2.0, math.inf))
    r = cv.epsilon_cks(curve, delta=1e-12)
    assert r.order == math.inf and r.value == pytest.approx(0.7, rel=1e-14)
    assert cv.delta_optimal(curve, epsilon=0.7 + 1e-9).value == 0.0


def test_best_names_the_winning_theorem(rr):
    best, every = cv.epsilon_best(RdpCurve.from_view(rr(0.2)).times(100), delta=1e-6)
    assert best.value == min(r.value for r in every)
    assert best.method.startswith("composition.conversion.epsilon_")


# ---------------------------------------------------------------- dp_accounting oracle
@pytest.mark.parametrize("noise, rounds", [(0.5, 1), (0.3, 50), (0.8, 1000)])
def test_agreement_with_dp_accounting_rdp_accountant_on_randomized_response(rr, noise,
                                                                           rounds):
    """dp_accounting's RandomizedResponseDpEvent(noise, k=2) outputs the true bit with
    probability 1 - noise/2, i.e. binary RR with e^eps = (2 - noise)/noise; its RDP
    accountant (REPLACE_ONE) converts with CKS at the given orders."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc

    orders = [float(a) for a in range(2, 65)] + [80.0, 128.0, 256.0]
    accountant = rdp_acc.RdpAccountant(
        orders=orders, neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    accountant.compose(dp_accounting.RandomizedResponseDpEvent(noise, 2), rounds)
    theirs = accountant.get_epsilon(1e-6)
    epsilon = math.log((2 - noise) / noise)
    curve = RdpCurve.from_view(rr(epsilon), orders).times(rounds)
    ours = cv.epsilon_cks(curve, delta=1e-6, real_orders=False).value
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)
    assert ours >= theirs  # ours is rounded up


def test_dp_accounting_poisson_subsampled_gaussian_is_below_zhu_wang():
    """dp_accounting computes the subsampled Gaussian's RDP exactly (Mironov, Talwar,
    Zhang 2019); Zhu-Wang's Theorem 6 is a general upper bound, so it must be above."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc

    from accountant.composition.subsampling import poisson_subsampled

    sigma, rate = 1.5, 0.05
    orders = [float(a) for a in range(2, 33)]
    accountant = rdp_acc.RdpAccountant(orders=orders)
    accountant.compose(dp_accounting.PoissonSampledDpEvent(
        rate, dp_accounting.GaussianDpEvent(sigma)), 1)
    ours = poisson_subsampled(RdpCurve(orders=tuple(orders), values=tuple(
        a / (2 * sigma ** 2) for a in orders)), sampling_rate=rate)
    for delta in (1e-5, 1e-9):
        theirs = accountant.get_epsilon(delta)
        mine = cv.epsilon_cks(ours, delta=delta, real_orders=False).value
        assert theirs <= mine <= 1.5 * theirs
