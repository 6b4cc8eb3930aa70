"""Shuffled Gaussian and Laplace randomizers on inputs {0, 1} (issue 24, item 1).

References: the single-user hockey-stick of two Gaussians (Balle and Wang, ICML 2018,
Theorem 8: delta(eps) = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s) for sensitivity 1
and s = sigma); brute force of the exact shuffled views at n <= 3 by integration of the
elementary-symmetric density (docs/continuous-randomizers.md#brute-force).
"""

from __future__ import annotations

import functools
import math
from itertools import combinations

import mpmath
import numpy as np
import pytest

from accountant.composition import Accountant, Subsampled, kov
from accountant.errors import ParameterError, RegimeError
from accountant.protocols.continuous import (
    DiscreteGaussianLaw,
    DiscreteGaussianRandomizer,
    DiscreteLaplaceLaw,
    DiscreteLaplaceRandomizer,
    GaussianLaw,
    GaussianRandomizer,
    LaplaceLaw,
    LaplaceRandomizer,
    blanket,
    threshold,
)
from accountant.protocols.continuous.laws import CDF_RELATIVE_ERROR
from accountant.protocols.ldp import LDP
from accountant.result import Kind, Scope
from verify.samplers import continuous as sampler


# ------------------------------------------------------------------ brute force (n <= 3)
def _law_functions(noise: str, s: float):
    """(cdf, r, r_inverse) for the noise: r = f_1/f_0 (nondecreasing), r_inverse(c) = the
    y* with {r > c} = {y > y*} (-inf / +inf when that set is everything / empty)."""
    if noise == "gaussian":
        def cdf(y):
            return 0.5 * math.erfc(-y / (s * math.sqrt(2)))

        def r(y):
            return math.exp((2 * y - 1) / (2 * s * s))

        def r_inv(c):
            return -math.inf if c <= 0 else 0.5 + s * s * math.log(c)
    else:
        def cdf(y):
            return 0.5 * math.exp(y / s) if y < 0 else 1 - 0.5 * math.exp(-y / s)

        def r(y):
            return math.exp((abs(y) - abs(y - 1)) / s)

        def r_inv(c):
            if c < math.exp(-1 / s):
                return -math.inf
            if c >= math.exp(1 / s):
                return math.inf
            return (1 + s * math.log(c)) / 2
    return cdf, r, r_inv


def _esym(values, m):
    if m < 0 or m > len(values):
        return 0.0
    return sum(math.prod(c) for c in combinations(values, m)) if m else 1.0


def _inner(cdf, r_inv, alpha, beta):
    """int f_0(y) (alpha + beta r(y))_+ dy = alpha S_0(y*) + beta S_1(y*) on {r > -a/b}."""
    if beta == 0:
        return max(alpha, 0.0)
    c = -alpha / beta
    y = r_inv(c)
    if beta > 0:  # positive where r > c
        s0 = 0.0 if y == math.inf else (1.0 if y == -math.inf else 1 - cdf(y))
        s1 = 0.0 if y == math.inf else (1.0 if y == -math.inf else 1 - cdf(y - 1))
        return max(alpha * s0 + beta * s1, 0.0)
    # positive where r < c (up to a null set): the complement
    f0 = 1.0 if y == math.inf else (0.0 if y == -math.inf else cdf(y))
    f1 = 1.0 if y == math.inf else (0.0 if y == -math.inf else cdf(y - 1))
    return max(alpha * f0 + beta * f1, 0.0)


def brute_delta(noise: str, s: float, n: int, ones: int, g: float, order: str,
                panels: int = 240, nodes: int = 8) -> float:
    """H_g of the exact shuffled views of the pair: `ones` of the other n - 1 users hold 1,
    the differing user 0 (P) or 1 (Q); order "PQ" or "QP". The density of the multiset
    under a dataset with m ones is e_m(r_1..r_n)/C(n, m) prod f_0(y_i); the last coordinate
    is integrated in closed form (`_inner`), the others by composite Gauss-Legendre."""
    cdf, r, r_inv = _law_functions(noise, s)
    m_a, m_b = (ones, ones + 1) if order == "PQ" else (ones + 1, ones)
    ca, cb = math.comb(n, m_a), math.comb(n, m_b)
    x, w = np.polynomial.legendre.leggauss(nodes)
    edges = np.linspace(0.5 - 14 * s, 0.5 + 14 * s, panels + 1)
    if noise == "laplace":  # panels end at the density's and the ratio's kinks
        edges = np.unique(np.concatenate([edges, [0.0, 1.0]]))
    ys = ((edges[:-1, None] + edges[1:, None]) / 2 + (edges[1:, None] - edges[:-1, None]) / 2
          * x[None, :]).ravel()
    ws = ((edges[1:, None] - edges[:-1, None]) / 2 * w[None, :]).ravel()
    if noise == "gaussian":
        dens = np.exp(-ys ** 2 / (2 * s * s)) / (s * math.sqrt(2 * math.pi))
    else:
        dens = np.exp(-np.abs(ys) / s) / (2 * s)
    rs = [r(y) for y in ys]
    total = 0.0
    if n == 2:
        for i in range(ys.size):
            rr = [rs[i]]
            alpha = _esym(rr, m_a) / ca - g * _esym(rr, m_b) / cb
            beta = _esym(rr, m_a - 1) / ca - g * _esym(rr, m_b - 1) / cb
            total += ws[i] * dens[i] * _inner(cdf, r_inv, alpha, beta)
        return total
    assert n == 3
    for i in range(ys.size):
        for j in range(ys.size):
            rr = [rs[i], rs[j]]
            alpha = _esym(rr, m_a) / ca - g * _esym(rr, m_b) / cb
            beta = _esym(rr, m_a - 1) / ca - g * _esym(rr, m_b - 1) / cb
            total += ws[i] * ws[j] * dens[i] * dens[j] * _inner(cdf, r_inv, alpha, beta)
    return total


def brute_worst(noise: str, s: float, n: int, g: float, **kw) -> tuple[float, float]:
    """(special pair's value, worst over every dataset pair and order)."""
    special = max(brute_delta(noise, s, n, 0, g, o, **kw) for o in ("PQ", "QP"))
    worst = max(brute_delta(noise, s, n, k, g, o, **kw) for k in range(n) for o in ("PQ", "QP"))
    return special, worst


def brute_delta_integer(law, n: int, ones: int, g: float, order: str) -> float:
    """H_g of the exact shuffled views for integer noise: every tuple of outputs in a window
    carrying all but e^-40 of the mass, summed (mpmath at 30 digits for the PMF)."""
    mpmath.mp.dps = 30
    top = math.ceil((12 if isinstance(law, DiscreteGaussianLaw) else 40) * law.scale) + 6
    ks = list(range(-top, top + 2))
    if isinstance(law, DiscreteGaussianLaw):
        w = [mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * mpmath.mpf(law.scale) ** 2)) for k in
             range(-top - 40, top + 42)]
        z = mpmath.fsum(w)

        def pmf(k):
            return mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * mpmath.mpf(law.scale) ** 2)) / z
    else:
        p = mpmath.exp(-1 / mpmath.mpf(law.scale))

        def pmf(k):
            return (1 - p) / (1 + p) * p ** abs(k)
    f0 = np.array([float(pmf(k)) for k in ks])
    f1 = np.array([float(pmf(k - 1)) for k in ks])
    m_a, m_b = (ones, ones + 1) if order == "PQ" else (ones + 1, ones)
    grids = np.meshgrid(*([np.arange(len(ks))] * n), indexing="ij")
    base = np.ones(grids[0].shape)
    r = [f1[gr] / f0[gr] for gr in grids]
    for gr in grids:
        base = base * f0[gr]

    def esym(m):
        if m == 0:
            return np.ones(base.shape)
        return sum(math.prod(c) for c in combinations(r, m)) if m <= n else 0.0

    a = esym(m_a) / math.comb(n, m_a)
    b = esym(m_b) / math.comb(n, m_b)
    return float(np.sum(base * np.maximum(a - g * b, 0.0)))


@pytest.mark.parametrize("law", [DiscreteGaussianLaw(1.0), DiscreteGaussianLaw(2.5),
                                 DiscreteLaplaceLaw(1.0)], ids=repr)
@pytest.mark.parametrize("n", [2, 3])
def test_integer_noise_sandwich(law, n):
    eps = 0.3
    mech = (DiscreteGaussianRandomizer(n=n, sigma=law.scale)
            if isinstance(law, DiscreteGaussianLaw) else
            DiscreteLaplaceRandomizer(n=n, scale=law.scale))
    b = mech.delta_for_epsilon(eps)
    values = {(k, o): brute_delta_integer(law, n, k, math.exp(eps), o)
              for k in range(n) for o in ("PQ", "QP")}
    special = max(values[(0, "PQ")], values[(0, "QP")])
    assert float(b.lower.value) <= special * (1 + 1e-9)
    assert max(values.values()) <= float(b.upper.value)


def test_brute_force_two_users_matches_mpmath():
    # n = 2, special pair, Q||P: q/p = (r_1 + r_2)/2 with y_i ~ N(0, 1); the inner integral
    # in closed form, the outer by mpmath at 30 digits: an independent check of the brute force
    mpmath.mp.dps = 30
    s, g = 1.0, mpmath.e ** mpmath.mpf("0.5")

    def outer(y1):
        r1 = mpmath.exp((2 * y1 - 1) / 2)
        c = 2 * g - r1  # r_2 > c  <=>  y_2 > y*
        f0 = mpmath.npdf(y1)
        if c <= 0:
            return f0 * (r1 / 2 + mpmath.mpf(1) / 2 - g)
        y = mpmath.mpf(1) / 2 + mpmath.log(c)
        s0, s1 = 1 - mpmath.ncdf(y), 1 - mpmath.ncdf(y - 1)
        return f0 * ((r1 / 2 - g) * s0 + s1 / 2)

    ref = mpmath.quad(outer, mpmath.linspace(-14, 15, 30))
    got = brute_delta("gaussian", s, 2, 0, math.exp(0.5), "QP")
    assert got == pytest.approx(float(ref), rel=1e-8)


@pytest.mark.parametrize("noise,s", [("gaussian", 0.7), ("gaussian", 1.0), ("gaussian", 3.0),
                                     ("laplace", 1.0)])
@pytest.mark.parametrize("epsilon", [0.1, 0.5])
def test_two_users_sandwich(noise, s, epsilon):
    mech = (GaussianRandomizer(n=2, sigma=s) if noise == "gaussian"
            else LaplaceRandomizer(n=2, scale=s))
    b = mech.delta_for_epsilon(epsilon)
    special, worst = brute_worst(noise, s, 2, math.exp(epsilon))
    assert float(b.lower.value) <= special * (1 + 1e-6)
    assert worst <= float(b.upper.value)


@pytest.mark.slow
@pytest.mark.parametrize("noise,s,epsilon", [("gaussian", 1.0, 0.2), ("gaussian", 2.0, 0.1),
                                             ("laplace", 1.0, 0.3)])
def test_three_users_sandwich(noise, s, epsilon):
    mech = (GaussianRandomizer(n=3, sigma=s) if noise == "gaussian"
            else LaplaceRandomizer(n=3, scale=s))
    b = mech.delta_for_epsilon(epsilon)
    special, worst = brute_worst(noise, s, 3, math.exp(epsilon), panels=120, nodes=6)
    # the lower end is now the special pair's value to 4e-5; this quadrature's own error is
    # about 1e-4 for Laplace noise (kinks off the panel edges; 0.14614122 against mpmath's
    # 0.14615420 at eps = 0.3), so the special pair is checked against mpmath in
    # test_continuous_special_pair.py and only loosely here
    tolerance = 1e-5 if noise == "gaussian" else 2e-4
    assert float(b.lower.value) <= special * (1 + tolerance)
    assert worst <= float(b.upper.value)


# ------------------------------------------------------------------ the blanket law
@pytest.mark.parametrize("law", [GaussianLaw(1.0), GaussianLaw(0.3), GaussianLaw(10.0),
                                 LaplaceLaw(1.0), LaplaceLaw(0.1), DiscreteGaussianLaw(0.7),
                                 DiscreteGaussianLaw(20.0), DiscreteLaplaceLaw(2.0)], ids=repr)
@pytest.mark.parametrize("epsilon", [0.0, 0.05, 1.0])
def test_discrete_law_is_a_probability_with_mean_at_least_the_true_mean(law, epsilon):
    # E_omega[Z] = int (f_0 - g f_1) = 1 - g exactly; the dominating law's mean is >= it
    # (increasing convex order) and, the clipping and rounding being small, close to it
    g = math.exp(epsilon)
    terms = blanket.blanket_law(law, g, tail=1e-12)
    assert math.fsum(terms.weights) == pytest.approx(1.0, abs=1e-15)
    assert np.all(terms.weights >= 0)
    mean = math.fsum(terms.points * terms.weights)
    assert mean >= 1 - g - 1e-12
    assert mean <= 1 - g + 1e-3 * g
    assert terms.gamma <= law.blanket_mass()


@pytest.mark.parametrize("sigma", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0])
def test_one_message_is_the_gaussian_hockey_stick(sigma, epsilon):
    # c = 1: H = E[(Z)_+] = int (f_0 - g f_1)_+ (Balle-Wang 2018, Thm 8, sensitivity 1)
    law = GaussianLaw(sigma)
    terms = blanket.blanket_law(law, math.exp(epsilon), tail=1e-14)
    exact = (mpmath.ncdf(1 / (2 * sigma) - epsilon * sigma)
             - mpmath.e ** epsilon * mpmath.ncdf(-1 / (2 * sigma) - epsilon * sigma))
    got = float(blanket.delta_given_count(terms, np.array([1]))[0])
    assert float(exact) <= got <= float(exact) * 1.01 + 1e-13


def test_per_count_values_do_not_increase():
    # one more blanket message is a post-processing: H_c is nonincreasing in c
    terms = blanket.blanket_law(GaussianLaw(1.0), math.exp(0.2))
    h = blanket.delta_given_count(terms, np.array([1, 2, 5, 20, 100, 1000]))
    assert np.all(np.diff(h) <= 1e-12)


def test_delta_upper_decreases_in_n_and_epsilon():
    law = GaussianLaw(2.0)
    by_n = [blanket.delta_upper(law, n, 0.1).value for n in (100, 1000, 10000)]
    by_eps = [blanket.delta_upper(law, 1000, e).value for e in (0.05, 0.1, 0.2)]
    assert by_n[0] > by_n[1] > by_n[2] and by_eps[0] > by_eps[1] > by_eps[2]


@pytest.mark.parametrize("law", [GaussianLaw(1.7), GaussianLaw(0.1), LaplaceLaw(0.3),
                                 DiscreteLaplaceLaw(0.7), DiscreteGaussianLaw(100.0),
                                 DiscreteGaussianLaw(0.5)], ids=repr)
def test_cdf_error_model_holds_against_mpmath(law):
    mpmath.mp.dps = 50
    s = mpmath.mpf(law.scale)
    for y in np.linspace(-36.0, 36.0, 145) * law.scale:
        x = mpmath.mpf(float(y))
        if isinstance(law, GaussianLaw):
            ref = mpmath.ncdf(x / s)
        elif isinstance(law, DiscreteLaplaceLaw):
            k, p = mpmath.floor(x), mpmath.exp(-1 / s)
            ref = p ** abs(k) / (1 + p) if k < 0 else 1 - p ** (k + 1) / (1 + p)
        elif isinstance(law, DiscreteGaussianLaw):
            ref = _discrete_gaussian_cdf(law.scale, int(mpmath.floor(x)))
            if ref < 1e-290:
                continue
        else:
            ref = mpmath.exp(x / s) / 2 if x < 0 else 1 - mpmath.exp(-x / s) / 2
        got = float(law.cdf(np.array(y)))
        assert abs(got - ref) <= CDF_RELATIVE_ERROR * ref


# ------------------------------------------------------------------ the families
def test_epsilon_bracket_is_certified_on_both_sides():
    mech = GaussianRandomizer(n=10000, sigma=2.0)
    b = mech.epsilon_for_delta(1e-6)
    assert b.lower.kind is Kind.LOWER and b.upper.kind is Kind.UPPER
    assert b.upper.scope is Scope.MECHANISM and b.lower.scope is Scope.MECHANISM
    assert 0 < b.lower.value < b.upper.value
    # the upper end's certified delta is at most the target
    assert blanket.delta_upper(mech.law(), mech.n, b.upper.value).value <= 1e-6
    # the lower end: the threshold pair's delta at it is above the target
    d_low = mech.delta_for_epsilon(b.lower.value).lower.value
    assert d_low >= 1e-6 * (1 - 1e-6)


def test_laplace_upper_end_is_the_smaller_of_blanket_and_clones():
    for scale in (0.3, 1.0, 5.0):
        mech = LaplaceRandomizer(n=1000, scale=scale)
        b = mech.epsilon_for_delta(1e-6)
        clones = LDP(n=1000, epsilon0=1 / scale).epsilon_for_delta(1e-6).upper.value
        assert b.upper.value <= clones
        assert b.upper.value <= blanket.epsilon_upper(mech.law(), 1000, 1e-6).value


def test_max_divergences():
    assert GaussianRandomizer(n=10, sigma=1.0).max_divergence().upper.value == math.inf
    assert DiscreteGaussianRandomizer(n=10, sigma=1.0).max_divergence().upper.value == math.inf
    assert LaplaceRandomizer(n=10, scale=2.0).max_divergence().lower.value == 0.5
    assert DiscreteLaplaceRandomizer(n=10, scale=4.0).max_divergence().lower.value == 0.25


@pytest.mark.parametrize("law", [GaussianLaw(0.8), GaussianLaw(4.0), DiscreteGaussianLaw(3.0),
                                 LaplaceLaw(2.0), DiscreteLaplaceLaw(0.5)], ids=repr)
def test_shuffle_index_against_numerical_sums(law):
    # kappa = int (f_0 - f_1)^2 / min(f_0, f_1) >= chi^2 = int (f_1 - f_0)^2 / f_0, both
    # checked against a direct fine Riemann sum (continuous) or the PMF sum (integer)
    if law.integer:
        ys = np.arange(-400, 402, dtype=float)
        f0 = law.cdf(ys) - law.cdf(ys - 1)
        f1 = law.cdf(ys - 1) - law.cdf(ys - 2)
        dy = 1.0
    else:
        ys = np.linspace(-40 * law.scale, 40 * law.scale + 1, 2_000_001)
        dy = ys[1] - ys[0]
        f0 = _density(law, ys)
        f1 = _density(law, ys - 1)
    keep = np.minimum(f0, f1) > 0
    kappa = np.sum((f0 - f1)[keep] ** 2 / np.minimum(f0, f1)[keep]) * dy
    chi2 = np.sum((f1 - f0)[keep] ** 2 / f0[keep]) * dy
    assert law.shuffle_index() == pytest.approx(kappa, rel=1e-6)
    assert law.chi_square() == pytest.approx(chi2, rel=1e-6)
    assert law.shuffle_index() >= law.chi_square()


@functools.cache
def _discrete_gaussian_table(sigma: float) -> tuple[int, list]:
    mpmath.mp.dps = 50
    s = mpmath.mpf(sigma)
    top = int(41 * sigma) + 41
    cum, acc = [], mpmath.mpf(0)
    for j in range(-top, top + 1):
        acc += mpmath.exp(-mpmath.mpf(j) ** 2 / (2 * s * s))
        cum.append(acc)
    return top, [c / acc for c in cum]


def _discrete_gaussian_cdf(sigma: float, k: int):
    top, cum = _discrete_gaussian_table(sigma)
    return mpmath.mpf(0) if k < -top else cum[min(k + top, len(cum) - 1)]


def _density(law, ys):
    if isinstance(law, GaussianLaw):
        return np.exp(-ys ** 2 / (2 * law.scale ** 2)) / (law.scale * math.sqrt(2 * math.pi))
    return np.exp(-np.abs(ys) / law.scale) / (2 * law.scale)


def test_laplace_max_divergence_is_attained_by_the_threshold_pair():
    # all outputs above t >= 1: each has ratio e^(1/b), so the threshold pair's log-ratio at
    # count n tends to 1/b as the pair's P(count = n) ratio s_1/s_0 = e^(1/b)
    law = LaplaceLaw(2.0)
    s0 = float(law.cdf(np.array(-3.0)))
    s1 = float(law.cdf(np.array(-2.0)))
    assert math.log(s1 / s0) == pytest.approx(0.5, rel=1e-12)


def test_gaussian_threshold_ratio_grows_without_bound():
    law = GaussianLaw(1.0)
    ratios = [math.log(float(law.cdf(np.array(1.0 - t))) / float(law.cdf(np.array(-t))))
              for t in (2.0, 5.0, 10.0)]
    assert ratios[0] < ratios[1] < ratios[2] and ratios[2] > 9.0


@pytest.mark.parametrize("cls,kw", [(GaussianRandomizer, {"sigma": 0.0}),
                                    (GaussianRandomizer, {"sigma": math.nan}),
                                    (GaussianRandomizer, {"sigma": 1e5}),
                                    (LaplaceRandomizer, {"scale": -1.0}),
                                    (LaplaceRandomizer, {"scale": 0.01}),
                                    (DiscreteGaussianRandomizer, {"sigma": 101.0}),
                                    (DiscreteLaplaceRandomizer, {"scale": math.inf})])
def test_bad_parameters_are_named(cls, kw):
    name = next(iter(kw))
    with pytest.raises(ParameterError, match=name):
        cls(n=10, **kw)


def test_bad_n_and_delta():
    with pytest.raises(ParameterError, match="n="):
        GaussianRandomizer(n=1, sigma=1.0)
    with pytest.raises(ParameterError, match="delta"):
        GaussianRandomizer(n=10, sigma=1.0).epsilon_for_delta(1.5)


def test_lower_end_is_finite_when_outputs_almost_reveal_the_input():
    # sigma = 0.1: P(noise >= 1) ~ 2e-22, so s_1 = P(1 + noise > t) rounds to 1.0; the true
    # special pair still gives count 0 probability ~2e-22 under P, so epsilon(1e-6) of the
    # threshold pair is finite (about log(1/2e-22) ~ 50), never +inf
    b = DiscreteGaussianRandomizer(n=10 ** 6, sigma=0.1).epsilon_for_delta(1e-6)
    assert math.isfinite(b.lower.value) and 30 < b.lower.value < 60


def test_epsilon_zero_when_the_target_delta_is_already_met():
    # delta(0) = TV of the blanket pair; at a target above it the answer is 0, found at once
    law = DiscreteLaplaceLaw(7741.6)
    assert blanket.delta_upper(law, 128, 0.0).value <= 1e-3
    assert blanket.epsilon_upper(law, 128, 1e-3).value == 0.0


@pytest.mark.parametrize("cls", [GaussianRandomizer, DiscreteGaussianRandomizer])
def test_gaussian_noise_composes_unsampled_rounds_through_the_local_curve(cls):
    # not epsilon0-LDP and no composable pair: unsampled rounds compose through the local
    # report's Renyi curve alpha / (2 sigma^2) (data processing) and the report pair
    mech = cls(n=1000, sigma=1.0)
    assert mech.dominating_pair() is None and "local report's Renyi" in mech.no_pair_reason
    curve = mech.renyi([2.0, 10.0])
    assert [b.upper.value for b in curve] == [1.0, 5.0] and curve[0].lower is None
    report = Accountant().compose(mech, 10).report(delta=1e-6)
    ten = report.bracket
    one = mech.epsilon_for_delta(1e-6)
    assert one.lower.value <= ten.upper.value < math.inf
    # the upper end: KOV over each round's certified (eps(delta1), delta1), delta1 a share
    # of the target (far below the local curve's RDP value: 2.53 against 20.95)
    kov_values = [kov.epsilon_kov(epsilon=mech.epsilon_upper(d1).upper_end(), delta=d1,
                                  rounds=10, delta_total=1e-6).value
                  for d1 in (0.5e-7, 0.9e-7)]
    assert "[kov]" in ten.upper.method and "delta1" in ten.upper.method
    assert ten.upper.value == pytest.approx(min(kov_values), rel=1e-12)
    rdp = [e["result"].value for e in report.entries if e["method"].startswith("rdp")
           and "result" in e]
    assert rdp and ten.upper.value < min(rdp)
    assert Accountant().compose(mech, 40).get_epsilon(1e-6).upper.value > ten.upper.value
    # no clones pair for sampled rounds: those go through the report pair (substitute);
    # under add/remove a report or its absence reveals presence, refused by name
    assert mech.subsampling_pair() is None and mech.report_noise()[1] == 1.0
    why = r"under add/remove the differing user's report, or its absence, reveals"
    with pytest.raises(RegimeError, match=why):
        Accountant("add-remove").compose(Subsampled(mech, 0.1), 10)
    with pytest.raises(RegimeError, match=why):
        Accountant("add-remove").compose(mech, 10)


@pytest.mark.parametrize("sigma", [0.1, 0.3, 1.0, 3.0])
def test_discrete_gaussian_renyi_is_below_the_continuous_curve(sigma):
    # the source the discrete family cites, checked by exact sums (50 digits): with
    # p_mu(k) proportional to exp(-(k - mu)^2 / (2 sigma^2)) and an integer shift the
    # normalisers cancel, and sum p_1^a p_0^(1-a) = sum exp(-(k^2 - 2 a k + a)/(2 s^2)) / Z
    with mpmath.workdps(50):
        s2 = 2 * mpmath.mpf(sigma) ** 2
        span = range(-int(60 * sigma) - 60, int(60 * sigma) + 62)
        z = mpmath.fsum(mpmath.exp(-mpmath.mpf(k) ** 2 / s2) for k in span)
        for a in (1.5, 2.0, 10.0, 64.0):
            a = mpmath.mpf(a)
            m = mpmath.fsum(mpmath.exp(-(k * k - 2 * a * k + a) / s2) for k in span) / z
            exact = mpmath.log(m) / (a - 1)
            bound = DiscreteGaussianRandomizer(n=10, sigma=sigma).renyi([float(a)])[0]
            assert exact <= bound.upper.value
            assert exact >= 0.5 * bound.upper.value or sigma < 1  # not vacuous at sigma >= 1


@pytest.mark.parametrize("cls", [LaplaceRandomizer, DiscreteLaplaceRandomizer])
def test_laplace_noise_composes_through_the_clones_pair(cls):
    mech = cls(n=1000, scale=1.0)
    composed = Accountant().compose(mech, 10).get_epsilon(1e-6)
    # the same pair as the 1/b-LDP class's (1/b = 1 exactly here)
    clones = Accountant().compose(LDP(n=1000, epsilon0=1.0), 10).get_epsilon(1e-6)
    assert composed.upper.value == clones.upper.value
    # ten rounds leak at least what one round does (its certified lower end), and at most
    # ten times the pure epsilon0 = 1/b
    one = mech.epsilon_for_delta(1e-6)
    assert one.lower.value <= composed.upper.value <= 10.0
    # Poisson-sampled rounds through the same pair
    sampled = Accountant().compose(Subsampled(mech, 0.1), 10).get_epsilon(1e-6)
    assert sampled.upper.value < composed.upper.value


def test_max_divergence_is_a_renyi_value_of_order_inf():
    # the accountant's RDP route reads it as the curve's order-inf point
    r = LaplaceRandomizer(n=10, scale=2.0).max_divergence().upper
    assert r.order == math.inf and r.quantity == "max_divergence"


# ------------------------------------------------------------------ simulation
@pytest.mark.slow
def test_threshold_attack_stays_below_the_upper_end():
    # the count above t from the literal sampler: an empirical lower end on delta, which
    # must stay below the certified upper end (4-sigma binomial intervals: a false failure
    # needs a deviation of more than 4 standard deviations, probability < 1e-4)
    rng = np.random.default_rng(24)
    n, sigma, eps, trials, t = 20, 1.0, 0.3, 200_000, 1.5
    d0 = sampler.count_above(sampler.run([0] * n, noise="gaussian", scale=sigma,
                                         trials=trials, rng=rng), t)
    d1 = sampler.count_above(sampler.run([1] + [0] * (n - 1), noise="gaussian", scale=sigma,
                                         trials=trials, rng=rng), t)
    upper = GaussianRandomizer(n=n, sigma=sigma).delta_for_epsilon(eps).upper.value
    best = 0.0
    for k in range(n + 1):
        p1, p0 = np.mean(d1 >= k), np.mean(d0 >= k)
        sd = math.sqrt((p1 * (1 - p1) + math.exp(2 * eps) * p0 * (1 - p0)) / trials)
        best = max(best, p1 - math.exp(eps) * p0 - 4 * sd)
    assert best <= upper
    # and the exact threshold pair agrees with the simulation's point estimate
    exact = threshold.delta_lower(GaussianLaw(sigma), n, eps).value
    assert best <= exact + 1e-12


@pytest.mark.parametrize("law, n, t", [(GaussianLaw(1.0), 50, 1.5), (LaplaceLaw(2.0), 200, 2.5)])
def test_threshold_lower_end_holds_for_every_cdf_within_its_stated_error(law, n, t):
    """The threshold pair is built from the law's float CDF, which is only within
    CDF_RELATIVE_ERROR of the truth: its certified delta lower end must hold for every
    pair whose four probabilities lie within that error (exact mpmath at the corners), not
    only for the float values (it treated them as exact before)."""
    from accountant.divergence import delta_bracket
    from accountant.protocols.continuous.laws import CDF_RELATIVE_ERROR

    pair = threshold.threshold_pair(law, n, t)
    s0 = float(law.cdf(np.array(-t)))
    s1 = float(law.cdf(np.array(1.0 - t)))
    eps = 0.3
    low = float(delta_bracket(pair, eps)[0].value)
    assert low > 0
    eta = mpmath.mpf(CDF_RELATIVE_ERROR)
    with mpmath.workdps(50):
        worst = mpmath.inf
        for d0 in (-1, 1):
            for d1 in (-1, 1):
                a, b = mpmath.mpf(s1) * (1 + d1 * eta), mpmath.mpf(s0) * (1 + d0 * eta)
                e = mpmath.e ** eps
                total = mpmath.mpf(0)
                for k in range(n + 1):
                    bk = mpmath.binomial(n - 1, k) * b ** k * (1 - b) ** (n - 1 - k) \
                        if k <= n - 1 else 0
                    bk1 = mpmath.binomial(n - 1, k - 1) * b ** (k - 1) * (1 - b) ** (n - k) \
                        if k >= 1 else 0
                    p = (1 - a) * bk + a * bk1
                    q = (1 - b) * bk + b * bk1
                    total += max(p - e * q, 0)
                worst = min(worst, total)
    assert low <= worst


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("mech", [
    GaussianRandomizer(n=2, sigma=0.1), GaussianRandomizer(n=10 ** 9, sigma=0.1),
    LaplaceRandomizer(n=2, scale=0.02), DiscreteGaussianRandomizer(n=2, sigma=0.1),
    DiscreteLaplaceRandomizer(n=5, scale=0.02)], ids=lambda m: f"{type(m).__name__}-{m.n}")
def test_delta_at_a_huge_epsilon_is_the_value_at_the_cap(mech):
    """delta(eps) for eps in the declared [0, inf): the blanket's products with e^eps
    overflowed from about 600 on (a NaN inside a root finder at 699, OverflowError at
    1000, RuntimeWarnings before). Beyond eps = 300 the upper end is the one at 300 (delta
    is nonincreasing in eps) and the lower end 0; no warning leaks. Beyond eps = 700 a
    family with a finite max-divergence (the (discrete) Laplace randomizers: 1/b = 50 here)
    reads delta = 0 exactly there (the contract's wrapper)."""
    at_cap = mech.delta_for_epsilon(300.0)
    below = mech.delta_for_epsilon(299.0)
    assert at_cap.upper.value <= below.upper.value or at_cap.upper.value <= 1e-16
    top = mech.max_divergence().upper
    for eps in (300.5, 699.0, 1000.0, 1e300):
        b = mech.delta_for_epsilon(eps)
        if eps > 700 and top is not None and top.is_finite and eps >= top.upper_end():
            assert b.upper.value == 0.0 == b.lower.value
            assert "the max-divergence" in b.upper.method
            continue
        assert b.upper.value == at_cap.upper.value and b.lower.value == 0.0
        assert "nonincreasing in eps" in b.upper.method
