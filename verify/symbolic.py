"""Exact symbolic checks (sympy) of the closed forms and identities the library relies on.

Each check re-derives one closed form from its definition: a Renyi or hockey-stick integral
integrated by sympy, or a finite identity simplified to zero. It compares the result with
the library's expression, transcribed here as a plain function of sympy symbols (the
`*_code` functions; tests/verify/test_symbolic.py evaluates each transcription against the
library's own numbers, so it cannot drift from the code unnoticed). Every check function takes
the expression to test as its `claimed` argument (default: the transcription), so a wrong
expression can be fed in to see the check fail. The integrals do not depend on `claimed` and
are cached per process.

Like `verify.oracle`, the derivations import nothing from `accountant`; sympy is imported
here only, never by `import accountant` or the CLI.

Orders alpha > 1 enter as alpha = 1 + beta with beta > 0 (sympy keeps the assumption), and a
strict inequality a < b as b = a + d with d > 0.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

__all__ = [
    "Check",
    "SIMPLIFY",
    "INTEGRATE",
    "POINTS",
    "gaussian_rdp",
    "laplace_rdp",
    "sampled_gaussian_integer_rdp",
    "laplace_delta",
    "randomized_response",
    "binary_rr_rdp",
    "cks_conversion",
    "binomial_moment_mean",
    "CHECKS",
    "all_checks",
    "gaussian_rdp_code",
    "laplace_rdp_code",
    "sampled_gaussian_a_code",
    "laplace_delta_code",
    "laplace_epsilon_code",
    "rr_keep_code",
    "pure_dp_renyi_code",
    "cks_epsilon_code",
    "cks_log_delta_code",
    "binomial_l_minus_one_code",
]

SIMPLIFY = "simplify"
INTEGRATE = "integrate"
POINTS = "exact rational at points"

Expr = sp.Expr


@dataclass(frozen=True)
class Check:
    """The outcome of one symbolic check.

    Attributes:
        name: short identifier of the identity.
        backs: the library function or docs section that relies on it.
        statement: the identity, in words and formulas.
        holds: whether sympy established it (False: the residual is not zero).
        method: how it was established: "simplify", "integrate" or
            "exact rational at points".
        detail: what was compared (and the nonzero residual when it fails).
        seconds: wall time of the check.
    """

    name: str
    backs: str
    statement: str
    holds: bool
    method: str
    detail: str = ""
    seconds: float = 0.0

    def __str__(self) -> str:
        mark = "holds" if self.holds else "FAILS"
        return f"{self.name}: {mark} ({self.method}, {self.seconds:.2f} s) [{self.backs}]"


def _zero(expr: Expr) -> bool:
    """Whether sympy proves expr == 0 (simplify, then a second pass on exp/log forms)."""
    expr = sp.simplify(expr)
    if expr == 0:
        return True
    expr = sp.simplify(sp.powsimp(sp.expand_log(sp.expand(expr), force=True), force=True))
    return bool(expr == 0)


@functools.cache
def _integral(f: Expr, var: sp.Symbol, lo: Expr, hi: Expr) -> Expr:
    """sympy's definite integral of f over (lo, hi); cached, as it does not depend on the
    expression under test (a second check in one process reuses it)."""
    return sp.integrate(f, (var, lo, hi), conds="none")


def _done(name: str, backs: str, statement: str, method: str, residuals: list[Expr],
          start: float, detail: str) -> Check:
    bad = [r for r in residuals if not _zero(r)]
    if bad:
        detail += f"; nonzero residual: {sp.simplify(bad[0])}"
    return Check(name=name, backs=backs, statement=statement, holds=not bad, method=method,
                 detail=detail, seconds=time.perf_counter() - start)


# ------------------------------------------------------------------ transcriptions
# The library's expressions, written as functions of sympy symbols (or numbers).

def gaussian_rdp_code(alpha: Expr, s: Expr, sigma: Expr) -> Expr:
    """noise_rdp_curve, gaussian: `a * s * s / (2 * scale ** 2)`."""
    return alpha * s * s / (2 * sigma ** 2)


def laplace_rdp_code(alpha: Expr, inv: Expr) -> Expr:
    """noise_rdp_curve, laplace, inv = s/scale = 1/lam: `log(a/(2a-1) e^((a-1) inv)
    + (a-1)/(2a-1) e^(-a inv)) / (a-1)`."""
    a = alpha
    return sp.log(a / (2 * a - 1) * sp.exp((a - 1) * inv)
                  + (a - 1) / (2 * a - 1) * sp.exp(-a * inv)) / (a - 1)


def sampled_gaussian_a_code(alpha: int, q: Expr, sigma: Expr) -> Expr:
    """sampled_gaussian._integer_rdp: A = 1 + sum_{k=2..alpha} C(alpha, k) q^k
    (1-q)^(alpha-k) expm1(k(k-1)/(2 sigma^2)) (the RDP is log(A)/(alpha-1))."""
    return 1 + sum(sp.binomial(alpha, k) * q ** k * (1 - q) ** (alpha - k)
                   * (sp.exp(sp.Integer(k * (k - 1)) / (2 * sigma ** 2)) - 1)
                   for k in range(2, alpha + 1))


def laplace_delta_code(eps0: Expr, eps: Expr) -> Expr:
    """accountant._laplace_exact, epsilon given: `-expm1((eps - eps0)/2)` (eps < eps0)."""
    return -(sp.exp((eps - eps0) / 2) - 1)


def laplace_epsilon_code(eps0: Expr, delta: Expr) -> Expr:
    """accountant._laplace_exact, delta given: `eps0 + 2 log1p(-delta)` (when >= 0)."""
    return eps0 + 2 * sp.log(1 - delta)


def rr_keep_code(p: Expr, k: Expr) -> tuple[Expr, Expr]:
    """interop.RandomizedResponse.view: `keep, other = 1 - p + p / k, p / k`."""
    return 1 - p + p / k, p / k


def pure_dp_renyi_code(alpha: Expr, eps: Expr) -> Expr:
    """rdp._pure_dp_renyi: `(logaddexp(alpha eps, -(alpha-1) eps) - logaddexp(0, eps))
    / (alpha - 1)`."""
    num = sp.log(sp.exp(alpha * eps) + sp.exp(-(alpha - 1) * eps))
    den = sp.log(1 + sp.exp(eps))
    return (num - den) / (alpha - 1)


def cks_epsilon_code(alpha: Expr, tau: Expr, delta: Expr) -> Expr:
    """conversion.epsilon_cks / _cks_epsilon_one:
    `tau + log1p(-1/a) - (log(delta) + log(a))/(a - 1)`."""
    a = alpha
    return tau + sp.log(1 - 1 / a) - (sp.log(delta) + sp.log(a)) / (a - 1)


def cks_log_delta_code(alpha: Expr, tau: Expr, eps: Expr) -> Expr:
    """conversion.delta_cks / _cks_delta_one (log delta):
    `(a-1)(tau - eps) - log(a) + (a-1) log1p(-1/a)`."""
    a = alpha
    return (a - 1) * (tau - eps) - sp.log(a) + (a - 1) * sp.log(1 - 1 / a)


def binomial_l_minus_one_code(k: Expr, n: Expr, eps0: Expr) -> Expr:
    """binomial_moments._window_terms: x = L(k) - 1 = `(k (a + b) - n b)/n`,
    a = expm1(eps0), b = -expm1(-eps0)."""
    a = sp.exp(eps0) - 1
    b = 1 - sp.exp(-eps0)
    return (k * (a + b) - n * b) / n


# ------------------------------------------------------------------ symbols
_x = sp.Symbol("x", real=True)
_beta = sp.Symbol("beta", positive=True)      # alpha = 1 + beta > 1
_alpha = 1 + _beta


def _normal(x: Expr, mean: Expr, sigma: Expr) -> Expr:
    return sp.exp(-(x - mean) ** 2 / (2 * sigma ** 2)) / sp.sqrt(2 * sp.pi * sigma ** 2)


# ------------------------------------------------------------------ 1. Gaussian RDP
def gaussian_rdp(claimed: Callable[[Expr, Expr, Expr], Expr] = gaussian_rdp_code) -> Check:
    """D_alpha(N(s, sigma^2) || N(0, sigma^2)) = alpha s^2 / (2 sigma^2), by integrating
    the Renyi integral int p^alpha q^(1-alpha) dx over the line (symbolic alpha > 1, s, sigma).

    Args:
        claimed: the closed form to test, a function of (alpha, s, sigma).
    """
    start = time.perf_counter()
    s = sp.Symbol("s", real=True)
    sigma = sp.Symbol("sigma", positive=True)
    # p^alpha q^(1-alpha), the exponents combined (the densities are positive)
    log_p = -(_x - s) ** 2 / (2 * sigma ** 2)
    log_q = -_x ** 2 / (2 * sigma ** 2)
    integrand = sp.exp(sp.expand(_alpha * log_p + (1 - _alpha) * log_q)) \
        / sp.sqrt(2 * sp.pi * sigma ** 2)
    renyi = sp.simplify(_integral(integrand, _x, -sp.oo, sp.oo))
    divergence = sp.log(renyi) / (_alpha - 1)
    return _done(
        "gaussian_rdp",
        "accountant/composition/noise.py noise_rdp_curve (family='gaussian'); "
        "sampled_gaussian.py at q = 1",
        "D_alpha(N(s, sigma^2) || N(0, sigma^2)) = alpha s^2 / (2 sigma^2) for alpha > 1 "
        "(s = 1 add/remove, 2 substitute; [Mir17] Table II)",
        INTEGRATE, [divergence - claimed(_alpha, s, sigma)], start,
        f"int p^alpha q^(1-alpha) dx = {renyi}")


# ------------------------------------------------------------------ 2. Laplace RDP
def laplace_rdp(claimed: Callable[[Expr, Expr], Expr] = laplace_rdp_code) -> Check:
    """Mironov's Laplace RDP: for P = Laplace(0, lam), Q = Laplace(1, lam) (scale lam,
    shift 1: lam = b/s), D_alpha in both orders equals laplace_rdp_code(alpha, 1/lam); the
    Renyi integral is integrated piecewise (x < 0, 0..1, > 1) for symbolic alpha > 1, lam > 0.

    Args:
        claimed: the closed form to test, a function of (alpha, 1/lam).
    """
    start = time.perf_counter()
    lam = sp.Symbol("lam", positive=True)
    residuals = []
    sums = []
    for shift_p, shift_q in ((0, 1), (1, 0)):
        # log p^alpha q^(1-alpha) + log(2 lam): piecewise-linear in x
        exponent = -(_alpha * sp.Abs(_x - shift_p) + (1 - _alpha) * sp.Abs(_x - shift_q)) / lam
        integrand = sp.piecewise_fold(sp.exp(exponent.rewrite(sp.Piecewise))) / (2 * lam)
        renyi = _integral(integrand, _x, -sp.oo, sp.oo)
        sums.append(sp.simplify(renyi))
        # compare e^((alpha-1) D) (no log of a sum to untangle)
        residuals.append(renyi - sp.exp((_alpha - 1) * claimed(_alpha, 1 / lam)))
    return _done(
        "laplace_rdp",
        "accountant/composition/noise.py noise_rdp_curve (family='laplace')",
        "D_alpha(Lap(0, lam) || Lap(1, lam)) = D_alpha(Lap(1, lam) || Lap(0, lam)) = "
        "log(alpha/(2 alpha - 1) e^((alpha-1)/lam) + (alpha-1)/(2 alpha - 1) e^(-alpha/lam))"
        " / (alpha - 1) for alpha > 1, lam = scale/s > 0 ([Mir17] Table II; Laplace with "
        "scale lam, not 1/lam)",
        INTEGRATE, residuals, start, f"int p^alpha q^(1-alpha) dx = {sums[0]}")


# ------------------------------------------------------------------ 3. sampled Gaussian
def sampled_gaussian_integer_rdp(
        claimed: Callable[[int, Expr, Expr], Expr] = sampled_gaussian_a_code,
        orders: tuple[int, ...] = (2, 3, 4)) -> Check:
    """[MTZ19] Sec. 3.3 Case I: with mu0 = N(0, sigma^2), mu1 = N(1, sigma^2),
    mu = (1-q) mu0 + q mu1, the likelihood ratio mu/mu0 is 1 - q + q e^((2z-1)/(2 sigma^2)),
    and A_alpha = E_mu0[(mu/mu0)^alpha] equals the binomial sum
    sum_k C(alpha,k) (1-q)^(alpha-k) q^k e^((k^2-k)/(2 sigma^2)) and the code's 1 + excess
    form, for integer alpha in `orders` (integrated, symbolic q and sigma).

    Args:
        claimed: A_alpha as the code sums it, a function of (alpha, q, sigma).
        orders: the integer orders to integrate.
    """
    start = time.perf_counter()
    z = sp.Symbol("z", real=True)
    q = sp.Symbol("q", positive=True)
    sigma = sp.Symbol("sigma", positive=True)
    mu0, mu1 = _normal(z, 0, sigma), _normal(z, 1, sigma)
    ratio = 1 - q + q * sp.exp((2 * z - 1) / (2 * sigma ** 2))
    residuals = [((1 - q) * mu0 + q * mu1) / mu0 - ratio]
    integrals: dict[Expr, Expr] = {}      # int f dz of each z-dependent factor f, shared

    def integral(f: Expr) -> Expr:
        if f not in integrals:
            integrals[f] = _integral(f, z, -sp.oo, sp.oo)
        return integrals[f]

    for alpha in orders:
        # the expanded integrand, its terms grouped by their z-dependent factor (linearity)
        integrand = sp.expand(sp.powsimp(sp.expand(ratio ** alpha * mu0)))
        groups: dict[Expr, list[Expr]] = {}
        for term in sp.Add.make_args(integrand):
            coefficient, factor = term.as_independent(z)
            groups.setdefault(sp.powsimp(factor), []).append(coefficient)
        a_alpha = sp.Add(*[sp.Add(*cs) * integral(f) for f, cs in groups.items()])
        binomial_sum = sum(sp.binomial(alpha, k) * (1 - q) ** (alpha - k) * q ** k
                           * sp.exp(sp.Integer(k * k - k) / (2 * sigma ** 2))
                           for k in range(alpha + 1))
        residuals += [a_alpha - binomial_sum, binomial_sum - claimed(alpha, q, sigma)]
    return _done(
        "sampled_gaussian_integer_rdp",
        "accountant/composition/sampled_gaussian.py _integer_rdp (module docstring, Case I)",
        "mu/mu0 = 1 - q + q e^((2z-1)/(2 sigma^2)) and E_mu0[(mu/mu0)^alpha] = "
        "sum_{k=0..alpha} C(alpha,k) (1-q)^(alpha-k) q^k e^((k^2-k)/(2 sigma^2)) = "
        "1 + sum_{k=2..alpha} C(alpha,k) (1-q)^(alpha-k) q^k expm1((k^2-k)/(2 sigma^2)) "
        f"for alpha in {list(orders)}",
        INTEGRATE, residuals, start, f"alpha in {list(orders)}, symbolic q > 0, sigma > 0")


# ------------------------------------------------------------------ 4. one Laplace run
def laplace_delta(claimed: Callable[[Expr, Expr], Expr] = laplace_delta_code,
                  claimed_inverse: Callable[[Expr, Expr], Expr] = laplace_epsilon_code
                  ) -> Check:
    """One Laplace run, P = Lap(0, b), Q = Lap(s, b), eps0 = s/b: the hockey-stick
    divergence H_{e^eps}(P || Q) = int [p - e^eps q]_+ dx is 1 - e^((eps - eps0)/2) for
    0 <= eps < eps0 (integrated over {p > e^eps q} = (-inf, x*), x* = s(eps0 - eps)/(2 eps0)
    in (0, s)); the order Q || P is the same by the reflection x -> s - x. The code's
    inverse eps(delta) = eps0 + 2 log(1 - delta) inverts it, and the loss law the docs state
    (mass 1/2 at eps0, density e^((l - eps0)/2)/4 on (-eps0, eps0) under P) is checked.

    Args:
        claimed: delta(eps) as a function of (eps0, eps).
        claimed_inverse: eps(delta) as a function of (eps0, delta).
    """
    start = time.perf_counter()
    s = sp.Symbol("s", positive=True)
    eps = sp.Symbol("epsilon", nonnegative=True)
    gap = sp.Symbol("d", positive=True)          # eps0 = eps + gap > eps
    eps0 = eps + gap
    b = s / eps0
    # the loss log(p/q) = (|x - s| - |x|)/b is eps0 on x <= 0, (s - 2x)/b on [0, s] and
    # -eps0 on x >= s: nonincreasing, so {p > e^eps q} = (-inf, x*) with (s - 2x*)/b = eps
    x_star = sp.solve(sp.Eq((s - 2 * _x) / b, eps), _x)[0]
    region_ok = sp.simplify(x_star).is_positive and sp.simplify(s - x_star).is_positive

    def diff(abs_x: Expr, abs_xs: Expr) -> Expr:
        return (sp.exp(-abs_x / b) - sp.exp(eps) * sp.exp(-abs_xs / b)) / (2 * b)

    hockey = (_integral(diff(-_x, s - _x), _x, -sp.oo, 0)
              + _integral(diff(_x, s - _x), _x, 0, x_star))
    delta = sp.Symbol("delta", positive=True)
    loss = sp.Symbol("l", real=True)
    residuals = [hockey - claimed(eps0, eps),
                 claimed(eps0, claimed_inverse(eps0, delta)) - delta,
                 # the loss's pieces used above: eps0 left of 0, (s - 2x)/b on [0, s]
                 ((s - _x) - (-_x)) / b - eps0, ((s - _x) - _x) / b - (s - 2 * _x) / b,
                 # the docs' loss law under P: mass 1/2 at eps0, density e^((l-eps0)/2)/4
                 # on (-eps0, eps0) (the push-forward of p on (0, s), |dx/dl| = b/2)
                 _integral(sp.exp(_x / b) / (2 * b), _x, -sp.oo, 0)
                 - sp.Rational(1, 2),
                 (sp.exp(-_x / b) / (2 * b) * b / 2).subs(_x, (s - loss * b) / 2)
                 - sp.exp((loss - eps0) / 2) / 4]
    if not region_ok:
        residuals.append(sp.Symbol("x_star_outside_0_s"))
    return _done(
        "laplace_delta",
        "accountant/composition/accountant.py _laplace_exact; docs/conversions.md "
        "(One Laplace run)",
        "H_{e^eps}(Lap(0, b) || Lap(s, b)) = 1 - e^((eps - eps0)/2) for 0 <= eps < eps0 = s/b,"
        " and eps = eps0 + 2 log(1 - delta) is its inverse; under P the loss is eps0 w.p. 1/2"
        " and has density e^((l - eps0)/2)/4 on (-eps0, eps0)",
        INTEGRATE, residuals, start, f"x* = {sp.simplify(x_star)}, H = {sp.simplify(hockey)}")


# ------------------------------------------------------------------ 5. randomized response
def randomized_response(claimed: Callable[[Expr, Expr], tuple[Expr, Expr]] = rr_keep_code
                        ) -> Check:
    """k-ary randomized response: with noise p in (0, 1] and k buckets, keep = 1 - p + p/k
    and other = p/k satisfy keep/other = 1 + k(1-p)/p =: e^eps0 and keep = e^eps0/(e^eps0 +
    k - 1), other = 1/(e^eps0 + k - 1); conversely the k-RR of eps0 is this RR with
    p = k/(e^eps0 + k - 1) (k_rr's blanket probability g), and the k_rr subsampled pair's
    probabilities (t = e^-eps0) are these, with complements summing to one.

    Args:
        claimed: (keep, other) as functions of (p, k).
    """
    start = time.perf_counter()
    p = sp.Symbol("p", positive=True)
    k = sp.Symbol("k", positive=True)
    keep, other = claimed(p, k)
    e = keep / other                                   # e^eps0
    e0 = sp.Symbol("E", positive=True)                 # e^eps0 as a free symbol, > 0
    g = k / (e0 + k - 1)
    keep_g, other_g = claimed(g, k)
    t = 1 / e0
    den = 1 + (k - 1) * t
    residuals = [
        keep + (k - 1) * other - 1,                    # a probability vector
        e - (1 + k * (1 - p) / p),
        keep - e / (e + k - 1),
        other - 1 / (e + k - 1),
        keep_g - e0 / (e0 + k - 1),                    # p = g gives the eps0 parameterisation
        other_g - 1 / (e0 + k - 1),
        1 / den - e0 / (e0 + k - 1),                   # k_rr.mechanism.subsampled_pair: high
        t / den - 1 / (e0 + k - 1),                    # low
        1 / den + (k - 1) * t / den - 1,               # high + high_complement
        t / den + (1 + (k - 2) * t) / den - 1,         # low + low_complement
    ]
    return _done(
        "randomized_response",
        "accountant/composition/interop.py RandomizedResponse.view; "
        "accountant/protocols/k_rr/mechanism.py subsampled_pair; k_rr/blanket.py "
        "(g = k/(e^eps0+k-1))",
        "keep = 1 - p + p/k, other = p/k: keep/other = 1 + k(1-p)/p = e^eps0, "
        "keep = e^eps0/(e^eps0 + k - 1), other = 1/(e^eps0 + k - 1); p = k/(e^eps0 + k - 1) "
        "inverts it",
        SIMPLIFY, residuals, start, "symbolic p > 0, k > 0, e^eps0 > 0")


# ------------------------------------------------------------------ 6. binary RR's RDP
def binary_rr_rdp(claimed: Callable[[Expr, Expr], Expr] = pure_dp_renyi_code) -> Check:
    """Binary RR with eps: P = (e^eps, 1)/(1 + e^eps), Q = (1, e^eps)/(1 + e^eps); its
    D_alpha(P || Q) = log(sum P^alpha Q^(1-alpha))/(alpha - 1) equals
    log((e^(alpha eps) + e^((1-alpha) eps))/(1 + e^eps))/(alpha - 1), the pure-DP curve of
    `RdpCurve.from_pure_dp` (symbolic alpha > 1, eps > 0; both orders by symmetry).

    Args:
        claimed: the curve as a function of (alpha, eps).
    """
    start = time.perf_counter()
    eps = sp.Symbol("epsilon", positive=True)
    e = sp.exp(eps)
    P, Q = (e / (1 + e), 1 / (1 + e)), (1 / (1 + e), e / (1 + e))
    total = sum(pp ** _alpha * qq ** (1 - _alpha) for pp, qq in zip(P, Q, strict=True))
    total = sp.powsimp(sp.expand_power_base(total, force=True), force=True)
    residuals = [total - sp.exp((_alpha - 1) * claimed(_alpha, eps)),
                 # the docs' form (docs/conversions.md#pure-dp-to-rdp) and the code's agree
                 sp.log((sp.exp(_alpha * eps) + sp.exp((1 - _alpha) * eps)) / (1 + e))
                 / (_alpha - 1) - claimed(_alpha, eps)]
    return _done(
        "binary_rr_rdp",
        "accountant/composition/rdp.py RdpCurve.from_pure_dp / _pure_dp_renyi; "
        "docs/conversions.md#pure-dp-to-rdp (exact for binary RR)",
        "D_alpha(RR_eps(0) || RR_eps(1)) = log((e^(alpha eps) + e^((1-alpha) eps))"
        " / (1 + e^eps)) / (alpha - 1) for alpha > 1",
        SIMPLIFY, residuals, start, f"sum P^alpha Q^(1-alpha) = {sp.simplify(total)}")


# ------------------------------------------------------------------ 7a. CKS conversion
def cks_conversion(claimed_epsilon: Callable[[Expr, Expr, Expr], Expr] = cks_epsilon_code,
                   claimed_log_delta: Callable[[Expr, Expr, Expr], Expr] = cks_log_delta_code
                   ) -> Check:
    """The CKS20 / BBG+20 conversion's two directions are one identity: the code's
    log delta(eps) at eps = epsilon(delta) is log delta, and exp of it is the docstring's
    delta = e^((alpha-1)(tau-eps))/alpha (1 - 1/alpha)^(alpha-1) (symbolic alpha > 1,
    tau, delta > 0). The conversion itself is a theorem (an inequality), not checked here.

    Args:
        claimed_epsilon: epsilon(delta) as a function of (alpha, tau, delta).
        claimed_log_delta: log delta(eps) as a function of (alpha, tau, eps).
    """
    start = time.perf_counter()
    tau = sp.Symbol("tau", real=True)
    eps = sp.Symbol("epsilon", real=True)
    delta = sp.Symbol("delta", positive=True)
    a = _alpha
    residuals = [
        claimed_log_delta(a, tau, claimed_epsilon(a, tau, delta)) - sp.log(delta),
        sp.exp(claimed_log_delta(a, tau, eps))
        - sp.exp((a - 1) * (tau - eps)) / a * (1 - 1 / a) ** (a - 1),
    ]
    return _done(
        "cks_conversion",
        "accountant/composition/conversion.py epsilon_cks / delta_cks (_cks_epsilon_one, "
        "_cks_delta_one, epsilon_optimal's and delta_optimal's order screens)",
        "eps = tau + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1) <=> "
        "delta = e^((alpha-1)(tau-eps)) / alpha * (1 - 1/alpha)^(alpha-1)",
        SIMPLIFY, residuals, start, "symbolic alpha > 1, tau, eps real, delta > 0")


# ------------------------------------------------------------------ 7b. binomial moments
def binomial_moment_mean(claimed: Callable[[Expr, Expr, Expr], Expr] = binomial_l_minus_one_code,
                         users: tuple[int, ...] = tuple(range(1, 11))) -> Check:
    """The premise of accountant/bounds/binomial_moments.py: with k ~ Bin(n, p),
    p = 1/(e^eps0 + 1), and L(k) = (k e^eps0 + (n - k) e^-eps0)/n, E[L] = 1 exactly, so
    E[L^s] - 1 = E[f_s(L - 1)], f_s(x) = (1+x)^s - 1 - s x; and the code's x equals L - 1.
    Exact finite sums for each n in `users`, symbolic eps0 > 0.

    Args:
        claimed: L(k) - 1 as the code computes it, a function of (k, n, eps0).
        users: the values of n.
    """
    start = time.perf_counter()
    eps0 = sp.Symbol("epsilon0", positive=True)
    e = sp.exp(eps0)
    p = 1 / (e + 1)
    kk = sp.Symbol("k", nonnegative=True)
    nn = sp.Symbol("n", positive=True)
    residuals = [claimed(kk, nn, eps0) - ((kk * e + (nn - kk) / e) / nn - 1)]
    for n in users:
        mean = sum(sp.binomial(n, k) * p ** k * (1 - p) ** (n - k) * claimed(k, n, eps0)
                   for k in range(n + 1))
        residuals.append(mean)                        # E[L - 1] = 0
    return _done(
        "binomial_moment_mean",
        "accountant/bounds/binomial_moments.py (module docstring; _window_terms, "
        "log1p_moment_float)",
        "k ~ Bin(n, 1/(e^eps0+1)), L(k) = (k e^eps0 + (n-k) e^-eps0)/n: E[L - 1] = 0, and "
        "(k (expm1(eps0) - expm1(-eps0)) + n expm1(-eps0))/n = L(k) - 1",
        SIMPLIFY, residuals, start, f"n in {list(users)}, symbolic eps0 > 0")


CHECKS: tuple[Callable[[], Check], ...] = (
    gaussian_rdp, laplace_rdp, sampled_gaussian_integer_rdp, laplace_delta,
    randomized_response, binary_rr_rdp, cks_conversion, binomial_moment_mean)


def all_checks() -> list[Check]:
    """Run every check with the library's expressions (about 10 s of CPU).

    Returns:
        One `Check` per identity, in `CHECKS` order.
    """
    return [check() for check in CHECKS]


if __name__ == "__main__":
    for result in all_checks():
        print(result)
