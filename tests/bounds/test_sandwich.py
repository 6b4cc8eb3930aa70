"""The sandwich of issue 3 in Renyi divergence and in epsilon(delta).

Renyi (docs/single-message.md, docs/girgis-2021.md, docs/clones-and-blankets.md), each
link checked with certified ends (the lower end of the left side against the upper end
of the right side, so a failure is a real violation):

    Thm 3 <= reverse order (exact) <= binary-RR worst case <= blanket pair <= clones pair
    blanket pair <= §6.5 refinement <= Thm 1 (Remark 2 at real orders)
    exact, blanket and clones pairs <= Thm 2

Two links of the issue's chain are NOT true in general and are tested as documented
counterexamples below instead: "clones pair <= §6.5 refinement" (fails at high orders for
moderate n; both are valid upper bounds, the refinement is simply tighter there) and
"§6.5 refinement <= Thm 2" (fails at large n and eps0 >= 2, where Theorem 6's MGF bound
beats Theorem 5's moment sum). The binary-RR worst case, blanket and clones pairs come from
accountant.protocols (issue 3 part A); the bounds from accountant.bounds.

epsilon(delta) at delta = 1e-6: exact binary RR <= blanket pair <= clones pair <= FMT closed
form (where its regime holds), for n from 2 upward.
"""

import functools
import math

import mpmath
import pytest

from accountant.bounds import feldman_2020
from accountant.bounds import girgis_2021 as g
from accountant.errors import RegimeError

binary_rr = pytest.importorskip("accountant.protocols.binary_rr")
clone_pair = pytest.importorskip("accountant.pairs.clones")

# Each point costs ~0.1–1 s (the protocol pairs); the wide sweep is marked slow.
FAST_RENYI = [(2, 1.0, 2), (50, 0.1, 8.5), (50, 4.0, 64), (300, 1.0, 3), (300, 8.0, 2),
              (10**4, 1.0, 8.5), (10**4, 0.1, 64), (10**6, 1.0, 2), (10**6, 4.0, 8.5),
              (10**6, 0.1, 100.5)]
SLOW_RENYI = [(n, e0, a) for n in (2, 5, 50, 300, 1000, 10**4, 10**5, 10**6)
              for e0 in (0.1, 0.5, 1.0, 2.0, 4.0, 8.0) for a in (2, 3, 8.5, 32, 100.5, 256)]
WORST_CASE_LIMIT = 1000  # binary_rr maximises over every count up to here (cost ~ n^1.5)


@functools.cache
def renyi_chain(n, epsilon0, alpha):
    v = {"thm3": g.rdp_lower_thm3(alpha=alpha, epsilon0=epsilon0, n=n).value,
         "reverse": g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n).value,
         "refined": g.rdp_upper_refined(alpha=alpha, epsilon0=epsilon0, n=n).value,
         "thm1": g.rdp_upper_remark2(alpha=alpha, epsilon0=epsilon0, n=n).value,
         "thm2": g.rdp_upper_thm2(alpha=alpha, epsilon0=epsilon0, n=n).value}
    for name, pair in (("blanket", clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)),
                       ("clones", clone_pair.fmt_clones(n=n, epsilon0=epsilon0))):
        r = clone_pair.renyi_divergence(pair, alpha=alpha)
        v[name + "_lo"], v[name + "_up"] = r.lower.value, r.upper.value
    if n <= WORST_CASE_LIMIT:
        r = binary_rr.renyi_divergence(n=n, epsilon0=epsilon0, alpha=alpha)
        v["worst_lo"], v["worst_up"] = r.lower.value, r.upper.value
    return v


def check_renyi_chain(n, epsilon0, alpha):
    v = renyi_chain(n, epsilon0, alpha)
    where = f"n={n}, epsilon0={epsilon0}, alpha={alpha}: {v}"
    assert v["thm3"] <= v["reverse"], where
    if "worst_up" in v:
        assert v["reverse"] <= v["worst_up"], where
        assert v["worst_lo"] <= v["blanket_up"], where
    assert v["reverse"] <= v["blanket_up"], where
    assert v["blanket_lo"] <= v["clones_up"], where
    assert v["blanket_lo"] <= v["refined"], where
    assert v["refined"] <= v["thm1"], where
    for exact_or_pair in ("reverse", "blanket_lo", "clones_lo"):
        assert v[exact_or_pair] <= v["thm2"], where


@pytest.mark.parametrize("n,epsilon0,alpha", FAST_RENYI,
                         ids=[f"n={n}-eps0={e}-alpha={a}" for n, e, a in FAST_RENYI])
def test_renyi_sandwich(n, epsilon0, alpha):
    check_renyi_chain(n, epsilon0, alpha)


@pytest.mark.slow
@pytest.mark.parametrize("n,epsilon0,alpha", SLOW_RENYI,
                         ids=[f"n={n}-eps0={e}-alpha={a}" for n, e, a in SLOW_RENYI])
def test_renyi_sandwich_wide(n, epsilon0, alpha):
    check_renyi_chain(n, epsilon0, alpha)


@pytest.mark.parametrize("n,epsilon0,alpha", [(2, 1.0, 2), (50, 0.1, 8.5), (300, 1.0, 3)])
def test_special_pair_agrees_between_protocol_and_bound(n, epsilon0, alpha):
    # Two independent codes for the same number: binary_rr's special pair (a ViewPair through
    # the divergence core) and the bound's cancellation-free binomial moment.
    v = renyi_chain(n, epsilon0, alpha)
    assert v["worst_lo"] == pytest.approx(v["reverse"], rel=1e-8)


def clones_renyi_mp(n, epsilon0, alpha, digits=30):
    """Independent mpmath Renyi divergence of the FMT clones pair
    (docs/clones-and-blankets.md#clones-pair), full sums:
    C ~ Bin(n-1, e^-eps0), P_c(a) = w B_c(a) + (1-w) B_c(a-1), Q_c swapped, w = e/(e+1)."""
    with mpmath.workdps(digits):
        e = mpmath.exp(mpmath.mpf(epsilon0))
        w, q, trials = e / (e + 1), 1 / e, n - 1
        total = mpmath.mpf(0)
        for c in range(trials + 1):
            weight = mpmath.binomial(trials, c) * q**c * (1 - q) ** (trials - c)
            half = [mpmath.binomial(c, a) / mpmath.mpf(2) ** c for a in range(c + 1)] + [0]
            total += weight * mpmath.fsum(
                (w * half[a] + (1 - w) * half[a - 1]) ** alpha
                * ((1 - w) * half[a] + w * half[a - 1]) ** (1 - alpha) for a in range(c + 2))
        return mpmath.log(total) / (alpha - 1)


def test_clones_pair_exceeds_the_refinement_at_high_order():
    # Counterexample to "clones <= §6.5 refinement" (not to soundness: both are upper bounds
    # on every epsilon0-LDP randomizer, and both stay above the exact binary-RR value).
    n, epsilon0, alpha = 200, 2.0, 32  # clones 1.546, refinement 1.417, exact 1.182
    clones = clones_renyi_mp(n, epsilon0, alpha)
    refined = g.rdp_upper_refined(alpha=alpha, epsilon0=epsilon0, n=n).value
    exact = g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n).value
    assert exact < refined < clones - 0.1
    # part A's certified bracket of the same pair contains the independent value
    v = renyi_chain(n, epsilon0, alpha)
    assert v["clones_lo"] <= clones <= v["clones_up"]


def test_theorem_2_can_be_below_the_refinement():
    # Counterexample to "§6.5 refinement <= Thm 2": Theorem 2's exp(alpha^2 chi/nbar) is far
    # smaller than Theorem 5's sum of absolute-moment bounds when (e^(2 eps0)-1)^2/nbar is
    # not small. Theorem 2 still lies above the blanket and clones pairs here.
    n, epsilon0, alpha = 10**5, 4.0, 3
    refined = g.rdp_upper_refined(alpha=alpha, epsilon0=epsilon0, n=n).value
    thm2 = g.rdp_upper_thm2(alpha=alpha, epsilon0=epsilon0, n=n).value
    assert thm2 < refined / 2
    clones = clone_pair.renyi_divergence(clone_pair.fmt_clones(n=n, epsilon0=epsilon0),
                                         alpha=alpha).upper.value
    assert clones < thm2


FAST_DP = [(2, 0.5), (10, 1.0), (100, 0.5), (100, 4.0), (300, 2.0), (10**4, 1.0)]
SLOW_DP = [(n, e0) for n in (2, 3, 5, 10, 30, 100, 300, 1000, 3000, 10**4, 10**5, 10**6)
           for e0 in (0.1, 0.5, 1.0, 2.0, 4.0, 8.0)]
EXACT_DP_LIMIT = 300  # above this the fast grid skips binary_rr's all-counts maximisation


def check_dp_chain(n, epsilon0, delta=1e-6, exact_limit=math.inf):
    blanket = clone_pair.epsilon_for_delta(
        clone_pair.blanket_k_rr(n=n, epsilon0=epsilon0, k=2), delta=delta)
    clones = clone_pair.epsilon_for_delta(clone_pair.fmt_clones(n=n, epsilon0=epsilon0),
                                          delta=delta)
    where = f"n={n}, epsilon0={epsilon0}"
    assert blanket.lower.value <= clones.upper.value, where
    if n <= exact_limit:
        exact = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta)
        assert exact.lower.value <= blanket.upper.value, where
        assert exact.lower.value <= clones.upper.value, where
    try:
        fmt = feldman_2020.epsilon_upper(epsilon0=epsilon0, n=n, delta=delta).value
    except RegimeError:
        assert epsilon0 > feldman_2020.max_epsilon0(n=n, delta=delta) - 1e-12, where
        return
    assert clones.lower.value <= fmt, where


@pytest.mark.parametrize("n,epsilon0", FAST_DP, ids=[f"n={n}-eps0={e}" for n, e in FAST_DP])
def test_epsilon_delta_sandwich(n, epsilon0):
    check_dp_chain(n, epsilon0, exact_limit=EXACT_DP_LIMIT)


@pytest.mark.slow
@pytest.mark.parametrize("n,epsilon0", SLOW_DP, ids=[f"n={n}-eps0={e}" for n, e in SLOW_DP])
def test_epsilon_delta_sandwich_wide(n, epsilon0):
    check_dp_chain(n, epsilon0)


def test_fmt_closed_form_is_used_in_its_regime_on_the_fast_grid():
    # Guard against the chain passing vacuously: at least one fast point reaches the FMT link.
    assert any(e0 <= feldman_2020.max_epsilon0(n=n, delta=1e-6) for n, e0 in FAST_DP)
    assert math.isfinite(feldman_2020.max_epsilon0(n=1000, delta=1e-6))
