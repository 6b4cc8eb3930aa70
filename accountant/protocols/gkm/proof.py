"""The proof of Lemma 8 and Theorem 6 of Ghazi-Kumar-Manurangsi, checked step by step.

Ghazi, Kumar, Manurangsi, "Pure-DP Aggregation in the Shuffle Model" (docs/gkm.md#the-proof-
step-by-step). Each function evaluates one step of the paper's argument on concrete numbers:

- `lemma5_worst_ratio`: Lemma 5 (d_inf does not grow under convolution), exactly (Fractions)
  on seeded random integer PMFs on Z and Z^2;
- `lemma9_worst_ratio`: Lemma 9, max_i f_noise(i - 1) / (e^eps' f_noise(i)) for
  D_noise = Geo(1 - e^-eps'); it is 1 (equality) for every i >= 1;
- `lemma10_least_ratio`: Lemma 10, min_i [(e^eps - 1) q f(i + s) + e^(eps - eps') f(i - 1)]
  / f(i) for D_flood = Poi(lam): the lemma claims >= 1;
- `theorem6_variance_chain`: the proof of Theorem 6's chain of three inequalities on
  Var(DLap(eps')) / Var(DLap(eps)); its first step is false (e.g. at eps = 1, rho = 0.5 the
  ratio is 1.0109019 against the step's 1.0108933), while the final bound 1 + 0.5 rho holds.

Example:
    >>> chain = theorem6_variance_chain(epsilon=1.0, rho=0.5)
    >>> round(chain.ratio, 7), round(chain.step1, 7), chain.step1_holds
    (1.0109019, 1.0108933, False)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from scipy import special

from accountant.domains import COUNT, EPSILON0, Interval
from accountant.errors import ParameterError
from accountant.protocols.gkm.protocol import LAM, Q_DROP, RHO, S_COPIES, check_epsilon_prime

__all__ = [
    "Pmf",
    "VarianceChain",
    "convolve",
    "max_ratio",
    "lemma5_worst_ratio",
    "lemma9_worst_ratio",
    "lemma10_least_ratio",
    "lemma8_reverse_step",
    "theorem6_variance_chain",
    "LEMMA10_FLOAT_ERROR",
]

# An exact PMF on Z^d: point (a tuple of d integers) -> positive probability.
Pmf = dict[tuple[int, ...], Fraction]

TRIALS = Interval("trials", 1, 10**5, closed="both", integer=True)
SUPPORT = Interval("support", 1, 50, closed="both", integer=True)
DIMENSION = Interval("dimension", 1, 3, closed="both", integer=True)
# the log-ratio of Lemma 10 is a difference of log-gamma values of size up to s log lam + lam;
# float64 evaluates each with relative error < 1e-15, so 1e-9 absolute covers s log lam < 1e6
LEMMA10_FLOAT_ERROR = 1e-9


def convolve(first: Pmf, second: Pmf) -> Pmf:
    """The exact PMF of X + Y for independent X ~ first, Y ~ second (points added
    coordinate-wise).

    Args:
        first: an exact PMF on Z^d.
        second: an exact PMF on Z^d (the same d).

    Returns:
        The convolution first * second.
    """
    out: Pmf = {}
    for a, pa in first.items():
        for b, pb in second.items():
            point = tuple(x + y for x, y in zip(a, b, strict=True))
            out[point] = out.get(point, Fraction(0)) + pa * pb
    return out


def max_ratio(first: Pmf, second: Pmf) -> Fraction | float:
    """exp(d_inf(first || second)) = max over the support of first of first/second, exactly.

    Args:
        first: an exact PMF.
        second: an exact PMF.

    Returns:
        The largest ratio as a Fraction; math.inf when first has a point second lacks.
    """
    if any(second.get(point, 0) == 0 for point in first):
        return math.inf
    return max(p / second[point] for point, p in first.items())


def _random_pmf(rng: random.Random, support: int, dimension: int, span: int) -> Pmf:
    """A PMF on `support` random points of [0, span)^dimension with random integer weights."""
    points = {tuple(rng.randrange(span) for _ in range(dimension)) for _ in range(support)}
    weights = [rng.randint(1, 20) for _ in points]
    total = sum(weights)
    return {p: Fraction(w, total) for p, w in zip(sorted(points), weights, strict=True)}


def lemma5_worst_ratio(*, seed: int, trials: int, support: int = 4,
                       dimension: int = 2) -> Fraction:
    """Lemma 5 on seeded random instances: the largest exp(d_inf(D1*D3 || D2*D3)) /
    exp(d_inf(D1 || D2)), exactly; Lemma 5 says it is at most 1.

    D2 and D3 are random PMFs on [0, 3)^dimension; D1 is a random PMF on a subset of D2's
    support (so that d_inf(D1 || D2) is finite; an infinite one bounds nothing).

    Args:
        seed: the random generator's seed.
        trials: number of random triples (D1, D2, D3), 1..1e5.
        support: points drawn for each PMF, 1..50.
        dimension: d of Z^d, 1..3.

    Returns:
        The largest ratio over the trials, a Fraction (1 where the convolution keeps the
        worst point's ratio).

    Raises:
        ParameterError: an argument outside its range.
    """
    COUNT.named("seed").check(seed)
    TRIALS.check(trials)
    SUPPORT.check(support)
    DIMENSION.check(dimension)
    rng = random.Random(seed)
    worst = Fraction(0)
    for _ in range(trials):
        d2 = _random_pmf(rng, support, dimension, 3)
        keep = [p for p in d2 if rng.random() < 0.7] or [next(iter(d2))]
        weights = [rng.randint(1, 20) for _ in keep]
        d1 = {p: Fraction(w, sum(weights)) for p, w in zip(keep, weights, strict=True)}
        d3 = _random_pmf(rng, support, dimension, 3)
        before = max_ratio(d1, d2)
        after = max_ratio(convolve(d1, d3), convolve(d2, d3))
        # both are finite Fractions: supp D1 is inside supp D2, so supp D1*D3 is in D2*D3's
        worst = max(worst, Fraction(after) / Fraction(before))
    return worst


def lemma9_worst_ratio(*, epsilon_prime: float, top: int = 1000) -> float:
    """Lemma 9: max over i = 1..top of f_noise(i - 1) / (e^eps' f_noise(i)), f_noise the
    PMF of Geo(1 - e^-eps'), at 50 digits (i <= 0 gives 0 / f or 0 / 0: nothing to check).

    Args:
        epsilon_prime: the noise parameter, > 0.
        top: the last i, >= 1.

    Returns:
        The largest ratio, rounded to float (Lemma 9 claims <= 1; the geometric PMF makes
        every ratio 1).

    Raises:
        ParameterError: epsilon_prime outside the float model or top < 1.
    """
    check_epsilon_prime(epsilon_prime)
    Interval("top", 1, 10**7, closed="both", integer=True).check(top)
    with mpmath.workdps(50):
        e = mpmath.mpf(epsilon_prime)
        r = mpmath.exp(-e)
        worst = max((1 - r) * r ** (i - 1) / (mpmath.exp(e) * (1 - r) * r ** i)
                    for i in range(1, top + 1))
        return float(worst)


def lemma10_least_ratio(*, epsilon: float, epsilon_prime: float, q: float, s: int,
                        lam: float) -> tuple[float, int]:
    """Lemma 10: min over i >= 0 of [(e^eps - 1) q f(i + s) + e^(eps - eps') f(i - 1)] / f(i),
    f the PMF of Poi(lam); the lemma claims >= 1 (for i < 0 both sides vanish).

    The ratio is A(i) + e^(eps - eps') i / lam with A(i) = (e^eps - 1) q lam^s / ((i+1)...(i+s))
    decreasing, so past I = ceil(2 lam) + s + 2 it exceeds e^(eps - eps') I / lam >= 2: the
    scan over i = 0..I, min'd with that floor, is the least ratio over all i (a lower bound on
    it when both exceed the floor). Log-space in float64 (log-gamma), each ratio within
    LEMMA10_FLOAT_ERROR (relative) of the exact one.

    Args:
        epsilon: the pure-DP target, > epsilon_prime.
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in (0, 1).
        s: copies of +1 and -1, >= 1.
        lam: the flood parameter, > 0 (at most 2e7: the scan holds 2 lam floats).

    Returns:
        (least ratio, the i where the scan reaches it).

    Raises:
        ParameterError: an argument outside its domain, or epsilon_prime >= epsilon.
    """
    EPSILON0.named("epsilon").check(epsilon)
    check_epsilon_prime(epsilon_prime)
    Q_DROP.check(q)
    S_COPIES.check(s)
    LAM.check(lam)
    if not epsilon_prime < epsilon:
        raise ParameterError(f"epsilon_prime={epsilon_prime!r} is outside (0, epsilon) = "
                             f"(0, {epsilon!r})")
    if lam > 2e7:
        raise ParameterError(f"lam={lam!r} is outside (0, 2e7]: the scan would hold more "
                             "than 4e7 points")
    gap = epsilon - epsilon_prime
    top = math.ceil(2 * lam) + s + 2
    i = np.arange(top + 1, dtype=float)
    # log f(i + s) - log f(i) = s log lam - log((i + 1) ... (i + s))
    up_s = s * math.log(lam) - (special.gammaln(i + s + 1) - special.gammaln(i + 1))
    down = np.where(i > 0, np.log(np.maximum(i, 1.0)) - math.log(lam), -np.inf)
    with np.errstate(over="ignore"):  # lam^s / (i+1)...(i+s) overflows at small i: ratio inf
        ratio = math.expm1(epsilon) * q * np.exp(up_s) + math.exp(gap) * np.exp(down)
    where = int(np.argmin(ratio))
    return min(float(ratio[where]), math.exp(gap) * top / lam), where


@dataclass(frozen=True, slots=True, kw_only=True)
class VarianceChain:
    """The proof of Theorem 6's chain on r = Var(DLap(eps')) / Var(DLap(eps)), evaluated.

    The proof writes r <= step1 <= step2 <= final with
    step1 = 1 + (e^(eps - eps') - 1)(1 + e^-eps') / (1 - e^-eps'),
    step2 = 1 + 3 (eps - eps') 2 / eps', final = 1 + 0.5 rho, eps' = eps - 0.01 rho min(eps, 1).

    Attributes:
        epsilon, rho: the theorem's inputs.
        epsilon_prime: eps - 0.01 rho min(eps, 1).
        ratio: r, at 50 digits, rounded to float.
        step1, step2, final: the three right-hand sides, rounded to float.
        step1_holds, step2_holds, final_holds: r <= step1, step1 <= step2, r <= final,
            decided at 50 digits.
    """

    epsilon: float
    rho: float
    epsilon_prime: float
    ratio: float
    step1: float
    step2: float
    final: float
    step1_holds: bool
    step2_holds: bool
    final_holds: bool


def theorem6_variance_chain(*, epsilon: float, rho: float) -> VarianceChain:
    """Evaluate the proof of Theorem 6's variance-ratio chain at (epsilon, rho).

    Args:
        epsilon: the pure-DP target, > 0.
        rho: the accuracy slack, in (0, 1/2].

    Returns:
        The VarianceChain (every comparison decided at 50 significant digits).

    Raises:
        ParameterError: epsilon or rho outside its domain.
    """
    EPSILON0.named("epsilon").check(epsilon)
    RHO.check(rho)
    with mpmath.workdps(50):
        e, p = mpmath.mpf(epsilon), mpmath.mpf(rho)
        ep = e - mpmath.mpf("0.01") * p * min(e, 1)

        def var(a: mpmath.mpf) -> mpmath.mpf:
            return 2 * mpmath.exp(-a) / (1 - mpmath.exp(-a)) ** 2

        ratio = var(ep) / var(e)
        step1 = 1 + mpmath.expm1(e - ep) * (1 + mpmath.exp(-ep)) / (-mpmath.expm1(-ep))
        step2 = 1 + 3 * (e - ep) * 2 / ep
        final = 1 + p / 2
        return VarianceChain(epsilon=float(epsilon), rho=float(rho), epsilon_prime=float(ep),
                             ratio=float(ratio), step1=float(step1), step2=float(step2),
                             final=float(final), step1_holds=bool(ratio <= step1),
                             step2_holds=bool(step1 <= step2), final_holds=bool(ratio <= final))


def lemma8_reverse_step(*, epsilon_prime: float, q: float, s: int, lam: float) -> float:
    """The proof of Lemma 8, order X' || X: d_inf(D_in,0 * F * (0 x D_noise) ||
    D_in,1 * F * (0 x D_noise)), the bound the proof derives from Lemma 5 and shows <= eps.

    With F the flood's law on the diagonal and N = D_noise, the two PMFs at (i, j), j >= i,
    are (q F(i) + (1-q) F(i-s)) N(j-i) and q F(i) N(j-i) + (1-q) F(i-s-1) N(j-i+1); since
    N(j-i+1) = e^-eps' N(j-i) the ratio depends on i only (at j = i - 1 the first vanishes).
    It is scanned over i = 0..I, I the first i >= s + lam e^eps' + 1 where the ratio's upper
    envelope q F(i)/((1-q) r F(i-s-1)) + lam/(r (i-s)) (decreasing from there on) is <= 1
    (the ratio at i = 0 is 1, so nothing beyond can be the maximum).

    Args:
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in (0, 1).
        s: copies of +1 and -1, >= 1.
        lam: the flood parameter, > 0 (at most 1e8).

    Returns:
        The max-divergence (natural log of the largest ratio), float64 log-space (error
        below 1e-9 for s log lam < 1e6).

    Raises:
        ParameterError: an argument outside its domain.
    """
    check_epsilon_prime(epsilon_prime)
    Q_DROP.check(q)
    S_COPIES.check(s)
    LAM.check(lam)
    if lam > 1e8:
        raise ParameterError(f"lam={lam!r} is outside (0, 1e8]: the scan would hold more "
                             "than 1e8 points")
    r = math.exp(-epsilon_prime)
    log_lam = math.log(lam)
    top = s + lam / r + 1
    while True:  # the envelope at i = top, decreasing beyond: stop once it is <= 1
        k = top - s - 1
        log_head = (s + 1) * log_lam - (special.gammaln(top + 1) - special.gammaln(k + 1))
        if q / ((1 - q) * r) * math.exp(log_head) + lam / (r * (top - s)) <= 1:
            break
        top *= 2
    i = np.arange(int(math.ceil(top)) + 1, dtype=float)

    def log_f(k: np.ndarray) -> np.ndarray:
        safe = np.maximum(k, 0.0)
        return np.where(k >= 0, safe * log_lam - lam - special.gammaln(safe + 1), -np.inf)

    log_p = np.logaddexp(math.log(q) + log_f(i), math.log1p(-q) + log_f(i - s))
    log_q = np.logaddexp(math.log(q) + log_f(i), math.log1p(-q) - epsilon_prime
                         + log_f(i - s - 1))
    return float(np.max(log_p - log_q))
