"""The integer laws of shuffled views, in three backends, with certified bulk windows.

Each constructor returns a `PMF`. With `tail=None` a finite-support law is returned on its
whole support; with `tail=t` only the bulk window is computed, and the mass outside it is
certified to be <= t by a Chernoff bound (relative-entropy form), never estimated. Laws
with infinite support always take a window.

Chernoff exponents used (all standard, e.g. Mitzenmacher & Upfal, Thm 4.4 / Ex. 4.19):
- Bin(n, p): P(X <= k) <= exp(-n KL(k/n || p)) for k <= np, and symmetrically above;
  n KL(k/n || p) = bd0(k, np) + bd0(n - k, nq).
- Poi(mu): P(X >= k) <= exp(-bd0(k, mu)) for k >= mu, and symmetrically below.
- NB(r, p): P(X >= k) (k above the mean), P(X <= k) (below) <= exp(-g(k)),
  g(k) = k log(k / (q (k + r))) + r log(r / (p (k + r))), from the MGF (p/(1 - q e^t))^r.
- Geo(p): P(X > K) = (1 - p)^(K + 1) exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from accountant.domains import COUNT, PROBABILITY, Interval, checked
from accountant.errors import ParameterError
from accountant.numeric.mp import to_mpf
from accountant.numeric.special import (
    bd0,
    binomial_logpmf,
    log_pmf_error,
    negative_binomial_logpmf,
    poisson_logpmf,
)
from accountant.numeric.tails import chernoff_window
from accountant.pmf import PMF, check_backend, convolve

__all__ = [
    "binomial",
    "poisson",
    "geometric",
    "negative_binomial",
    "bernoulli",
    "point_mass",
    "poisson_binomial",
    "binomial_window",
    "DEFAULT_TAIL",
    "DEFAULT_DPS",
]

DEFAULT_TAIL = 1e-40
DEFAULT_DPS = 50
_TAIL = Interval("tail", 0.0, 1.0, closed="neither")
_MEAN = Interval("mu", 0.0, math.inf, closed="left")
_SHAPE = Interval("r", 0.0, math.inf, closed="neither")


def _prob(p: Any, backend: str, name: str) -> Any:
    # p's domain is checked where it enters; here only its type for the backend
    if backend == "exact":
        if not isinstance(p, Fraction | int):
            raise ParameterError(f"{name}={p!r} must be a fractions.Fraction for the exact "
                                 "backend (a float is not a rational parameter)")
        return Fraction(p)
    if backend == "mp":
        return p  # converted to mpf inside each constructor's workdps block
    return float(p)


def binomial_window(n: int, p: float, tail: float) -> tuple[int, int, float]:
    """[lo, hi] holding all but a certified <= tail of Bin(n, p)'s mass, and that bound.

    Args:
        n: number of trials, an integer >= 0 (not validated here).
        p: success probability in [0, 1] (taken as a float; not validated here).
        tail: target mass outside the window, in (0, 1).

    Returns:
        (lo, hi, outside): the integer window and the certified mass outside it, a float
        <= tail (`numeric.tails.chernoff_window`); (0, 0, 0.0) for p = 0 and (n, n, 0.0) for
        p = 1.

    Raises:
        ParameterError: `tail` is outside (0, 1).
    """
    _TAIL.check(tail)
    p = float(p)
    if p in (0.0, 1.0):
        k = 0 if p == 0.0 else n
        return k, k, 0.0
    q = 1.0 - p

    def f(x: float) -> float:
        return float(bd0(np.array(x), n * p) + bd0(np.array(n - x), n * q))

    return chernoff_window(f, n * p, 0.0, float(n), tail)


@checked(n=COUNT.named("n"), p=PROBABILITY.named("p"))
def binomial(n: int, p: Any, *, backend: str = "float", tail: float | None = None,
             dps: int = DEFAULT_DPS) -> PMF:
    """Bin(n, p), on its whole support (tail=None) or on a certified bulk window.

    Args:
        n: number of trials, an integer >= 0.
        p: success probability in [0, 1] (a Fraction for the exact backend).
        backend: "float" (log-space, Loader's saddle-point form), "mp" or "exact".
        tail: if given, keep only a window whose outside mass is certified <= tail.
        dps: decimal digits for the mp backend.

    Returns:
        A 1-D PMF exact on its grid: float log-probabilities with `log_pmf_error` bounds,
        mpf values computed at dps + 10 digits by the ratio recurrence, or exact Fractions;
        `tail` is the certified outside mass (0 on the whole support).

    Raises:
        ParameterError: unknown backend, n not an integer >= 0, p outside [0, 1], p not a
            Fraction (or int) for the exact backend, or tail outside (0, 1).
    """
    check_backend(backend)
    n = int(n)
    pp = _prob(p, backend, "p")
    if tail is None:
        lo, hi, cut = 0, n, 0.0
    else:
        lo, hi, cut = binomial_window(n, float(p), tail)
    ks = np.arange(lo, hi + 1)
    if backend == "float":
        vals = binomial_logpmf(ks, n, pp)
        return PMF("float", (lo,), vals, cut, log_pmf_error(vals), True)
    if backend == "exact":
        q = 1 - pp
        vals = np.array([math.comb(n, int(k)) * pp ** int(k) * q ** (n - int(k)) for k in ks],
                        dtype=object)
        return PMF("exact", (lo,), vals, Fraction(cut) if cut else Fraction(0), 0.0, True)
    with mpmath.workdps(dps + 10):
        pp = to_mpf(pp)
        q = 1 - pp
        vals = _mp_recurrence(
            first=_mp_binomial(n, lo, pp, q), count=hi - lo + 1,
            ratio=lambda k: (n - k) * pp / ((k + 1) * q), start=lo)
    return PMF("mp", (lo,), vals, mpmath.mpf(cut), 0.0, True)


def _mp_binomial(n: int, k: int, p: mpmath.mpf, q: mpmath.mpf) -> mpmath.mpf:
    if p == 0:
        return mpmath.mpf(1 if k == 0 else 0)
    if q == 0:
        return mpmath.mpf(1 if k == n else 0)
    return mpmath.exp(mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
                      + k * mpmath.log(p) + (n - k) * mpmath.log(q))


def _mp_recurrence(*, first: mpmath.mpf, count: int, ratio: Callable[[int], Any],
                   start: int) -> np.ndarray:
    out = np.empty(count, dtype=object)
    v = first
    for i in range(count):
        out[i] = +v  # unary plus rounds to the (outer) working precision
        if i + 1 < count:
            v = v * ratio(start + i)
    return out


def poisson(mu: float, *, backend: str = "float", tail: float = DEFAULT_TAIL,
            dps: int = DEFAULT_DPS) -> PMF:
    """Poi(mu) on a certified bulk window (outside mass <= tail). No exact backend:
    e^(-mu) is irrational for rational mu > 0.

    Args:
        mu: the mean, >= 0 (mu = 0 gives the point mass at 0).
        backend: "float" or "mp".
        tail: bound on the mass outside the window, in (0, 1).
        dps: decimal digits for the mp backend.

    Returns:
        A 1-D PMF exact on its window, with `tail` the certified outside mass (from the
        Chernoff bound, <= tail).

    Raises:
        ParameterError: unknown backend, mu < 0 or NaN, the exact backend, or tail outside
            (0, 1).
    """
    check_backend(backend)
    _MEAN.check(mu)
    if backend == "exact":
        raise ParameterError("poisson has no exact backend (e^-mu is irrational); use 'mp'")
    if mu == 0:
        return point_mass(0, backend=backend)
    mu_f = float(mu)

    def f(x: float) -> float:
        return float(bd0(np.array(x), mu_f))

    _TAIL.check(tail)
    lo, hi, cut = chernoff_window(f, mu_f, 0.0, math.inf, tail)
    ks = np.arange(lo, hi + 1)
    if backend == "float":
        vals = poisson_logpmf(ks, mu_f)
        return PMF("float", (lo,), vals, cut, log_pmf_error(vals), True)
    with mpmath.workdps(dps + 10):
        m = mpmath.mpf(mu)
        first = mpmath.exp(lo * mpmath.log(m) - m - mpmath.loggamma(lo + 1))
        vals = _mp_recurrence(first=first, count=hi - lo + 1, ratio=lambda k: m / (k + 1),
                              start=lo)
    return PMF("mp", (lo,), vals, mpmath.mpf(cut), 0.0, True)


def geometric(p: Any, *, backend: str = "float", tail: float = DEFAULT_TAIL,
              dps: int = DEFAULT_DPS) -> PMF:
    """Geo(p)(k) = p (1-p)^k, k >= 0, on [0, K] with (1-p)^(K+1) <= tail (exact tail).

    Args:
        p: success probability in (0, 1] (a Fraction for the exact backend); p = 1 gives the
            point mass at 0.
        backend: "float", "mp" or "exact".
        tail: bound on the mass outside [0, K], in (0, 1).
        dps: decimal digits for the mp backend.

    Returns:
        A 1-D PMF on [0, K] with tail (1-p)^(K+1): exact for "exact", at dps + 10 digits for
        "mp", raised by a relative 1e-12 for "float" (whose log values carry a 1e-15 relative
        error bound).

    Raises:
        ParameterError: unknown backend, p outside (0, 1], p not a Fraction (or int) for the
            exact backend, or tail outside (0, 1).
    """
    check_backend(backend)
    PROBABILITY.named("p").check(p)
    _TAIL.check(tail)
    if p == 0:
        raise ParameterError("p=0 is outside (0, 1] for geometric (no mass on the integers)")
    pp = _prob(p, backend, "p")
    if p == 1:
        return point_mass(0, backend=backend)
    K = max(0, math.ceil(math.log(tail) / math.log1p(-float(p))) - 1)
    ks = np.arange(0, K + 1)
    if backend == "float":
        vals = math.log(float(p)) + ks * math.log1p(-float(p))
        cut = math.exp((K + 1) * math.log1p(-float(p))) * (1 + 1e-12)
        err = 1e-15 * (1.0 + np.abs(vals))
        return PMF("float", (0,), vals, cut, err, True)
    if backend == "exact":
        q = 1 - pp
        vals = np.array([pp * q ** int(k) for k in ks], dtype=object)
        return PMF("exact", (0,), vals, q ** (K + 1), 0.0, True)
    with mpmath.workdps(dps + 10):
        pp = to_mpf(pp)
        q = 1 - pp
        vals = _mp_recurrence(first=pp, count=K + 1, ratio=lambda k: q, start=0)
        cut = q ** (K + 1)
    return PMF("mp", (0,), vals, +cut, 0.0, True)


def negative_binomial(r: float, p: Any, *, backend: str = "float", tail: float = DEFAULT_TAIL,
                      dps: int = DEFAULT_DPS) -> PMF:
    """NB(r, p)(k) = Gamma(k+r)/(Gamma(r) k!) p^r (1-p)^k, real r > 0, on a certified window.

    Args:
        r: shape (number of successes), a real > 0.
        p: success probability in (0, 1]; p = 1 gives the point mass at 0.
        backend: "float" or "mp".
        tail: bound on the mass outside the window, in (0, 1).
        dps: decimal digits for the mp backend.

    Returns:
        A 1-D PMF exact on its window, `tail` the certified outside mass from the Chernoff
        exponent g of the module docstring.

    Raises:
        ParameterError: unknown backend, r <= 0, p outside (0, 1], the exact backend, or
            tail outside (0, 1).
    """
    check_backend(backend)
    _SHAPE.check(r)
    PROBABILITY.named("p").check(p)
    if p == 0:
        raise ParameterError("p=0 is outside (0, 1] for negative_binomial")
    if backend == "exact":
        raise ParameterError("negative_binomial has no exact backend; use 'mp'")
    if p == 1:
        return point_mass(0, backend=backend)
    rf, pf = float(r), float(p)
    qf = 1.0 - pf
    mean = rf * qf / pf

    def g(k: float) -> float:
        if k <= 0:
            return -rf * math.log(pf)
        return k * math.log(k / (qf * (k + rf))) + rf * math.log(rf / (pf * (k + rf)))

    _TAIL.check(tail)
    lo, hi, cut = chernoff_window(g, mean, 0.0, math.inf, tail)
    ks = np.arange(lo, hi + 1)
    if backend == "float":
        vals = negative_binomial_logpmf(ks, rf, pf)
        return PMF("float", (lo,), vals, cut, log_pmf_error(vals), True)
    with mpmath.workdps(dps + 10):
        rm, pm = mpmath.mpf(r), to_mpf(p)
        qm = 1 - pm
        first = mpmath.exp(mpmath.loggamma(lo + rm) - mpmath.loggamma(rm) - mpmath.loggamma(lo + 1)
                           + rm * mpmath.log(pm) + lo * mpmath.log(qm))
        vals = _mp_recurrence(first=first, count=hi - lo + 1,
                              ratio=lambda k: (k + rm) * qm / (k + 1), start=lo)
    return PMF("mp", (lo,), vals, mpmath.mpf(cut), 0.0, True)


def bernoulli(p: Any, *, backend: str = "float") -> PMF:
    """Bern(p) on {0, 1}.

    Args:
        p: success probability in [0, 1] (a Fraction for the exact backend).
        backend: "float", "mp" or "exact".

    Returns:
        binomial(1, p, backend=backend): the PMF on {0, 1}, tail 0.

    Raises:
        ParameterError: as `binomial`.
    """
    return binomial(1, p, backend=backend)


def point_mass(k: int, *, backend: str = "float") -> PMF:
    """The law of the constant k.

    Args:
        k: the integer (not validated).
        backend: "float", "mp" or "exact".

    Returns:
        A one-point PMF at k with probability 1 and tail 0.

    Raises:
        ParameterError: unknown backend.
    """
    check_backend(backend)
    one = {"float": 0.0, "mp": mpmath.mpf(1), "exact": Fraction(1)}[backend]
    vals = np.array([one], dtype=float if backend == "float" else object)
    zero = {"float": 0.0, "mp": mpmath.mpf(0), "exact": Fraction(0)}[backend]
    return PMF(backend, (int(k),), vals, zero, 0.0, True)


def poisson_binomial(ps: Sequence[Any], *, backend: str = "float") -> PMF:
    """The law of a sum of independent Bernoulli(p_i) (a Bernoulli mixture count).

    Args:
        ps: the success probabilities p_i, each in [0, 1] (Fractions for the exact backend).
        backend: "float", "mp" or "exact".

    Returns:
        The PMF of the count on 0..len(ps), tail 0, by successive convolution of Bernoulli
        laws (for "float" the error bounds of `pmf.convolve` accumulate); the point mass at 0
        for an empty `ps`.

    Raises:
        ParameterError: unknown backend or a p_i that `bernoulli` rejects.
    """
    if len(ps) == 0:
        return point_mass(0, backend=backend)
    out = bernoulli(ps[0], backend=backend)
    for p in ps[1:]:
        out = convolve(out, bernoulli(p, backend=backend))
    return out
