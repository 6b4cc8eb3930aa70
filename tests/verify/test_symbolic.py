"""verify.symbolic: every identity holds, every check can fail, and every transcription of a
library expression matches the library's own numbers."""

from __future__ import annotations

import subprocess
import sys
import time

import mpmath
import pytest
import sympy as sp

from verify import symbolic as sym


def _f(expr: sp.Expr) -> float:
    return float(sp.N(expr, 30))


# ------------------------------------------------------------------ each check holds
def test_all_checks_hold_and_are_well_formed() -> None:
    cpu = time.process_time()
    checks = sym.all_checks()
    cpu = time.process_time() - cpu
    assert [c.name for c in checks] == [f.__name__ for f in sym.CHECKS]
    for c in checks:
        assert c.holds, c.detail
        assert c.method in (sym.SIMPLIFY, sym.INTEGRATE, sym.POINTS)
        assert c.backs and c.statement
    # CPU seconds of this process (the checks' own times are wall time, which another xdist
    # worker or job on the same cores stretches)
    assert cpu < 20
    with pytest.raises(AttributeError):
        checks[0].holds = False  # type: ignore[misc]  # frozen


# ------------------------------------------------------------------ each check can fail
def _wrong_laplace_weights(alpha: sp.Expr, inv: sp.Expr) -> sp.Expr:
    a = alpha  # the two weights swapped
    return sp.log((a - 1) / (2 * a - 1) * sp.exp((a - 1) * inv)
                  + a / (2 * a - 1) * sp.exp(-a * inv)) / (a - 1)


def _wrong_sampled(alpha: int, q: sp.Expr, sigma: sp.Expr) -> sp.Expr:
    # exponent k^2/(2 sigma^2) instead of (k^2 - k)/(2 sigma^2)
    return 1 + sum(sp.binomial(alpha, k) * q ** k * (1 - q) ** (alpha - k)
                   * (sp.exp(sp.Integer(k * k) / (2 * sigma ** 2)) - 1)
                   for k in range(2, alpha + 1))


def _comment_form(alpha: sp.Expr, eps: sp.Expr) -> sp.Expr:
    # the comment in rdp._pure_dp_renyi: log(sigmoid(e)) + a e + log1p(e^(-(2a-1) e))
    e = sp.exp(eps)
    return (sp.log(e / (1 + e)) + alpha * eps
            + sp.log(1 + sp.exp(-(2 * alpha - 1) * eps))) / (alpha - 1)


WRONG = {
    "gaussian, alpha mu^2 (no /2)":
        lambda: sym.gaussian_rdp(lambda a, s, sigma: a * s ** 2 / sigma ** 2),
    "laplace, weights swapped":
        lambda: sym.laplace_rdp(_wrong_laplace_weights),
    "laplace, scale 1/lam read as lam":
        lambda: sym.laplace_rdp(lambda a, inv: sym.laplace_rdp_code(a, 1 / inv)),
    "sampled gaussian, e^(k^2/(2 sigma^2))":
        lambda: sym.sampled_gaussian_integer_rdp(_wrong_sampled, orders=(2,)),
    "sampled gaussian, k from 1":
        lambda: sym.sampled_gaussian_integer_rdp(
            lambda a, q, s: sym.sampled_gaussian_a_code(a, q, s) + a * q * (1 - q) ** (a - 1)
            * (sp.exp(1 / (2 * s ** 2)) - 1), orders=(3,)),
    "laplace delta, 1 - e^(eps - eps0)":
        lambda: sym.laplace_delta(lambda e0, e: 1 - sp.exp(e - e0)),
    "laplace epsilon, eps0 + log(1 - delta)":
        lambda: sym.laplace_delta(claimed_inverse=lambda e0, d: e0 + sp.log(1 - d)),
    "rr, other = p/(k-1)":
        lambda: sym.randomized_response(lambda p, k: (1 - p, p / (k - 1))),
    "rr, keep = 1 - p":
        lambda: sym.randomized_response(lambda p, k: (1 - p, p / k)),
    "binary rr, no /(alpha-1)":
        lambda: sym.binary_rr_rdp(lambda a, e: sym.pure_dp_renyi_code(a, e) * (a - 1)),
    "binary rr, the comment's log-sigmoid form":
        lambda: sym.binary_rr_rdp(_comment_form),
    "cks, (1 - 1/alpha) not raised to alpha - 1":
        lambda: sym.cks_conversion(claimed_log_delta=lambda a, t, e: (a - 1) * (t - e)
                                   - sp.log(a) + sp.log(1 - 1 / a)),
    "cks, epsilon with log(1/delta) only":
        lambda: sym.cks_conversion(claimed_epsilon=lambda a, t, d: t - sp.log(d) / (a - 1)),
    "binomial, x = (k (a + b) - n a)/n":
        lambda: sym.binomial_moment_mean(
            lambda k, n, e0: (k * (sp.exp(e0) - sp.exp(-e0)) - n * (sp.exp(e0) - 1)) / n,
            users=(1, 2, 3)),
}


@pytest.mark.parametrize("case", list(WRONG))
def test_a_wrong_expression_fails(case: str) -> None:
    check = WRONG[case]()
    assert check.holds is False
    assert "nonzero residual" in check.detail


# ------------------------------------------------------------------ transcriptions
def test_transcription_noise_rdp_curve() -> None:
    from accountant.composition.noise import noise_rdp_curve
    orders = (1.5, 2.0, 7.25, 64.0)
    for scale, relation, s in ((1.3, "add-remove", 1), (0.8, "substitute", 2)):
        g = noise_rdp_curve("gaussian", scale, relation, orders=orders)
        lap = noise_rdp_curve("laplace", scale, relation, orders=orders)
        for a, vg, vl in zip(orders, g.values, lap.values, strict=True):
            alpha = sp.Float(a, 30)
            assert vg == pytest.approx(_f(sym.gaussian_rdp_code(alpha, s, sp.Float(scale))),
                                       rel=1e-13)
            assert vl == pytest.approx(
                _f(sym.laplace_rdp_code(alpha, s / sp.Float(scale, 30))), rel=1e-13)


def test_transcription_sampled_gaussian() -> None:
    from accountant.composition.sampled_gaussian import sampled_gaussian_rdp
    for sigma, q, alpha in ((1.0, 0.01, 2), (0.7, 0.2, 3), (2.5, 0.5, 8)):
        expected = sp.log(sym.sampled_gaussian_a_code(alpha, sp.Float(q, 30),
                                                      sp.Float(sigma, 30))) / (alpha - 1)
        assert sampled_gaussian_rdp(sigma, q, float(alpha)) == pytest.approx(_f(expected),
                                                                             rel=1e-12)


def test_transcription_laplace_exact() -> None:
    from accountant.composition.accountant import _laplace_exact
    for eps0, eps, delta in ((1.5, 0.4, 0.1), (0.3, 0.05, 1e-3)):
        up = float(_laplace_exact(eps0, None, eps)[0]["result"])
        assert up == pytest.approx(_f(sym.laplace_delta_code(sp.Float(eps0, 30),
                                                             sp.Float(eps, 30))), rel=1e-13)
        up = float(_laplace_exact(eps0, delta, None)[0]["result"])
        assert up == pytest.approx(_f(sym.laplace_epsilon_code(sp.Float(eps0, 30),
                                                               sp.Float(delta, 30))), rel=1e-13)


def test_transcription_randomized_response() -> None:
    from accountant.composition.interop import RandomizedResponse
    from accountant.protocols.k_rr.blanket import blanket_count_pair
    for p, k in ((0.3, 5), (0.9, 2), (0.05, 40)):
        P, Q = RandomizedResponse(p, k).view().linear()
        keep, other = sym.rr_keep_code(sp.Float(p, 30), k)
        assert float(P[0]) == pytest.approx(_f(keep), rel=1e-14)
        assert float(P[1]) == pytest.approx(_f(other), rel=1e-14)
        assert float(Q[0]) == pytest.approx(_f(other), rel=1e-14)
    for eps0, k in ((1.0, 3), (4.0, 10)):
        pair = blanket_count_pair(n=10, epsilon0=eps0, k=k)
        keep, other = sym.rr_keep_code(sp.Float(pair.blanket_probability, 30), k)
        assert pair.w == pytest.approx(_f(keep), rel=1e-13)
        assert pair.w_prime == pytest.approx(_f(other), rel=1e-13)


def test_transcription_pure_dp_and_cks() -> None:
    from accountant.composition import conversion
    from accountant.composition.rdp import RdpCurve
    orders = (1.5, 2.0, 5.5, 30.0)
    curve = RdpCurve.from_pure_dp(0.7, orders=orders)
    for a, v in zip(orders, curve.values, strict=True):
        assert v == pytest.approx(_f(sym.pure_dp_renyi_code(sp.Float(a, 30),
                                                            sp.Float(0.7, 30))), rel=1e-12)
    for a, tau, delta, eps in ((2.0, 0.3, 1e-5, 1.0), (12.5, 0.05, 1e-8, 0.5)):
        got = conversion._cks_epsilon_one(a, tau, delta)
        assert got == pytest.approx(_f(sym.cks_epsilon_code(sp.Float(a, 30), sp.Float(tau, 30),
                                                            sp.Float(delta, 30))), rel=1e-12)
        got = conversion._cks_delta_one(a, tau, eps)
        want = sp.exp(sym.cks_log_delta_code(sp.Float(a, 30), sp.Float(tau, 30),
                                             sp.Float(eps, 30)))
        assert got == pytest.approx(_f(want), rel=1e-12)


def test_transcription_binomial_moments() -> None:
    from accountant.bounds import binomial_moments as bm
    n, eps0 = 7, 0.8
    _, x = bm._window_terms(n, eps0, 0, n)
    for k in range(n + 1):
        want = _f(sym.binomial_l_minus_one_code(k, n, sp.Float(eps0, 30)))
        assert x[k] == pytest.approx(want, rel=1e-13, abs=1e-15)
    with mpmath.workdps(50):  # E[L] = 1 in the code's own 50-digit sum
        assert abs(bm.log_moment_mp(n=n, epsilon0=eps0, s=1.0, full=True)) < 1e-40


# ------------------------------------------------------------------ sympy stays out
def test_sympy_is_not_imported_by_the_library_or_cli() -> None:
    code = ("import sys, accountant, accountant.cli; "
            "print('sympy' in sys.modules or any(m.startswith('sympy.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
