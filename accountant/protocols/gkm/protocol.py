"""Ghazi-Kumar-Manurangsi pure-DP binary counting: parameters, privacy, utility, CLI.

Ghazi, Kumar, Manurangsi, "Pure-DP Aggregation in the Shuffle Model: Error-Optimal and
Communication-Efficient": Condition 7 (the parameter constraints), Theorem 6 (the parameter
choice from (epsilon, rho, n)), Lemma 8 (epsilon-DP), Lemma 11 (MSE), Lemma 12 (messages).
docs/gkm.md#ghazi-kumar-manurangsi-pure-dp-counting restates them with the errata found in the
paper:

- the analyzer returns V+ - V- (Algorithm 2's "- n s" is wrong,
docs/gkm.md#randomizer-and-analyzer);
- Theorem 6's q = 0.1 rho Var(DLap(epsilon)) / n breaks the MSE claim at small epsilon;
  `theorem6_parameters(corrected_q=True)` uses q = 0.1 rho min(1, V) / n
  (docs/gkm.md#utility-and-cost);
- Lemma 12's expected message count carries 2 lam / n, not lam / n (docs/gkm.md#utility-and-cost).

The exact view and its certified max-divergence live in `accountant.protocols.gkm.view`;
this module validates parameters and wires the CLI (`gkm-count`).

What the exact computation shows (tests/protocols/test_gkm.py, benchmarks/bench_gkm.py):
- at Condition-7-minimal parameters (n = 10, epsilon = 1, epsilon' = 0.5, q = 0.1:
  s = 8, lam = 59.63) the worst case over datasets is d_inf = 0.499985 (the x1 = 1 vs 0
  order, approaching epsilon' far out); the other order stays <= 0.478;
- Condition 7 is sufficient but far from necessary: s = 2, lam = 4 give 0.764 < 1;
- violating it can break pure DP: s = 1, lam = 1 give 2.03; s = 8, lam = 2 give 4.87;
- Theorem 6's own constants (n = 10, epsilon = 1, rho = 0.5, corrected q: s = 1903,
  lam = 7.66e5) are certified: worst case over datasets d_inf <= 0.9950003 (rays, ~8 min
  on 2 busy cores; the 2-D box would be ~5e6 wide).

Example:
    >>> p = gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1)
    >>> p.s, round(p.lam, 3)
    (8, 59.628)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from accountant.audit import AuditRecord, audit_claim
from accountant.domains import COUNT, EPSILON0, N_USERS, PROBABILITY, Interval
from accountant.errors import ParameterError, RegimeError
from accountant.numeric.rounding import up
from accountant.protocols.gkm import view as gkm_view
from accountant.result import Direction, Kind, Result, Source

__all__ = [
    "GkmParameters",
    "condition7_failures",
    "check_condition7",
    "minimal_s",
    "minimal_lam",
    "gkm_parameters",
    "theorem6_parameters",
    "dlap_variance",
    "mse_exact",
    "mse_upper_lemma11",
    "expected_messages",
    "view_pair",
    "max_divergence",
    "worst_case_max_divergence",
    "ones_range",
    "check_box_budget",
    "check_rays_budget",
    "check_epsilon_prime",
    "MIN_EPSILON_PRIME",
    "MAX_EPSILON_PRIME",
    "pure_epsilon_both",
    "exact_over_counts",
    "rays_fit",
    "audit_lemma8",
    "audit_theorem6_mse",
    "CITATION",
]

CITATION = "Ghazi, Kumar, Manurangsi, Pure-DP Aggregation in the Shuffle Model"
RHO = Interval("rho", 0.0, 0.5, closed="right")
EPSILON_PRIME = EPSILON0.named("epsilon_prime")
LAM = Interval("lam", 0.0, math.inf, closed="neither")
S_COPIES = Interval("s", 1, math.inf, closed="left", integer=True)
Q_DROP = PROBABILITY.named("q")


@dataclass(frozen=True, slots=True, kw_only=True)
class GkmParameters:
    """One instance of the protocol.

    Attributes:
        n: number of users.
        epsilon: the pure-DP target of Condition 7 (None for the GKMP20 protocol).
        epsilon_prime: noise parameter; N+-, ~ Geo(1 - e^-epsilon_prime).
        q: probability that a user drops its input-dependent messages (0 for GKMP20).
        s: copies of +1 and -1 in the input-dependent part (0 for GKMP20).
        lam: flood parameter; F ~ Poi(lam).
        choice: how the parameters were set ("given", "theorem6", "theorem6-corrected-q",
            "gkmp20").
        rho: Theorem 6's accuracy slack, when the parameters come from it.
    """

    n: int
    epsilon: float | None
    epsilon_prime: float
    q: float
    s: int
    lam: float
    choice: str = "given"
    rho: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The instance as a JSON object (the CLI's "params").

        Returns:
            The dataclass fields as a dict, without the ones that are None (epsilon for GKMP20,
            rho unless set by Theorem 6).
        """
        return {k: v for k, v in asdict(self).items() if v is not None}


# ------------------------------------------------------------------ Condition 7
def _s_bound(*, epsilon: float, epsilon_prime: float, q: float) -> float:
    """2 log(1/((e^eps - 1) q)) / (eps - eps'), or 0 when the log is <= 0."""
    log_term = -math.log(math.expm1(epsilon) * q)
    return max(0.0, 2.0 * log_term / (epsilon - epsilon_prime))


def _lam_factor(*, epsilon: float, epsilon_prime: float) -> float:
    """e^(eps - eps') / (1 - e^((eps' - eps)/2)): lam >= this * s (Condition 7)."""
    gap = epsilon - epsilon_prime
    return math.exp(gap) / -math.expm1(-gap / 2.0)


def condition7_failures(*, epsilon: float, epsilon_prime: float, q: float, s: int,
                        lam: float) -> list[str]:
    """The inequalities of Condition 7 (GKM; docs/gkm.md#condition-7) that fail, each spelled
    out.

    Args:
        epsilon: the pure-DP target, > 0.
        epsilon_prime: the noise parameter (Condition 7 needs epsilon_prime < epsilon).
        q: the drop probability (Condition 7 needs 0 < q < 1).
        s: copies of +1 and -1.
        lam: the flood parameter.

    Returns:
        A list of messages, empty when Condition 7 holds. When epsilon_prime >= epsilon, or
        q is outside (0, 1), only that failure is listed (the other bounds are undefined).
    """
    out = []
    if not epsilon_prime < epsilon:
        out.append(f"epsilon_prime < epsilon (got epsilon_prime={epsilon_prime!r}, "
                   f"epsilon={epsilon!r})")
        return out  # the other two are undefined without it
    if not 0 < q < 1:
        out.append(f"0 < q < 1 (got q={q!r})")
        return out
    s_need = _s_bound(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q)
    if s < max(s_need, 1):
        out.append(f"s >= 2 log(1/((e^epsilon - 1) q)) / (epsilon - epsilon_prime) = "
                   f"{s_need:.6g} (got s={s})")
    lam_need = _lam_factor(epsilon=epsilon, epsilon_prime=epsilon_prime) * s
    if lam < lam_need:
        out.append(f"lam >= e^(epsilon - epsilon_prime) / (1 - e^((epsilon_prime - epsilon)/2))"
                   f" * s = {lam_need:.6g} (got lam={lam!r})")
    return out


def check_condition7(*, epsilon: float, epsilon_prime: float, q: float, s: int,
                     lam: float) -> None:
    """Raise RegimeError naming the first failing inequality of Condition 7.

    Args:
        epsilon: the pure-DP target, > 0.
        epsilon_prime: the noise parameter.
        q: the drop probability.
        s: copies of +1 and -1.
        lam: the flood parameter.

    Raises:
        RegimeError: some inequality of `condition7_failures` fails; the message names the
            first and lists the others.
    """
    failures = condition7_failures(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q, s=s,
                                   lam=lam)
    if failures:
        raise RegimeError(f"protocols.gkm needs {failures[0]} ({CITATION}, Condition 7); "
                          + (f"also fails: {'; '.join(failures[1:])}" if failures[1:] else
                             "the other inequalities hold"))


def minimal_s(*, epsilon: float, epsilon_prime: float, q: float) -> int:
    """The least s allowed by Condition 7 (at least 1).

    Args:
        epsilon: the pure-DP target, > 0.
        epsilon_prime: the noise parameter, < epsilon.
        q: the drop probability, in (0, 1).

    Returns:
        max(1, ceil(2 log(1/((e^epsilon - 1) q)) / (epsilon - epsilon_prime))) (the log term
        counted as 0 when negative).
    """
    return max(1, math.ceil(_s_bound(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q)))


def minimal_lam(*, epsilon: float, epsilon_prime: float, s: int) -> float:
    """The least lam allowed by Condition 7, rounded up (never below the bound).

    Args:
        epsilon: the pure-DP target, > 0.
        epsilon_prime: the noise parameter, < epsilon.
        s: copies of +1 and -1.

    Returns:
        e^(epsilon - epsilon') / (1 - e^((epsilon' - epsilon)/2)) s, raised by a relative
        1e-15 and rounded up, as a float.
    """
    return up(_lam_factor(epsilon=epsilon, epsilon_prime=epsilon_prime) * s * (1 + 1e-15))


# Below MIN, e^-epsilon' rounds to 1 in float64: Geo(1 - e^-epsilon') noise has no float
# model (its tail bounds divide by log(1/r) = 0; such noise would need a box far beyond the
# 6000 points of `check_box_budget` anyway). Above MAX, e^-2 epsilon' (the box's Poisson
# mean lam / r^2) underflows.
MIN_EPSILON_PRIME = 2.0 ** -50
MAX_EPSILON_PRIME = 300.0


def _check_common(n: int, epsilon_prime: float, lam: float) -> None:
    N_USERS.check(n)
    check_epsilon_prime(epsilon_prime)
    LAM.check(lam)


def check_epsilon_prime(epsilon_prime: float) -> None:
    """Check the noise parameter against the float model: in [MIN_EPSILON_PRIME,
    MAX_EPSILON_PRIME].

    Args:
        epsilon_prime: the noise parameter.

    Raises:
        ParameterError: epsilon_prime outside that range (the message says why).
    """
    EPSILON_PRIME.check(epsilon_prime)
    if not MIN_EPSILON_PRIME <= epsilon_prime <= MAX_EPSILON_PRIME:
        why = ("e^-epsilon_prime rounds to 1" if epsilon_prime < MIN_EPSILON_PRIME
               else "e^-2 epsilon_prime underflows to 0")
        raise ParameterError(f"epsilon_prime={epsilon_prime!r} is outside "
                             f"[{MIN_EPSILON_PRIME:.4g}, {MAX_EPSILON_PRIME:g}]: {why} in "
                             "float64, so the geometric noise Geo(1 - e^-epsilon_prime) has no "
                             "float model")


def gkm_parameters(*, n: int, epsilon: float, epsilon_prime: float, q: float,
                   s: int | None = None, lam: float | None = None,
                   strict: bool = True) -> GkmParameters:
    """Parameters given directly; s and lam default to Condition 7's minimal values.

    Args:
        n: number of users, an integer >= 1.
        epsilon: the pure-DP target, > 0.
        epsilon_prime: the noise parameter, > 0 (< epsilon unless s and lam are both given).
        q: the drop probability, in (0, 1).
        s: copies of +1 and -1, a positive integer; None for `minimal_s`.
        lam: the flood parameter, > 0; None for `minimal_lam`.
        strict: check Condition 7 (False lets a study of violations through).

    Returns:
        GkmParameters with choice "given".

    Raises:
        ParameterError: a value outside its domain (n >= 1, epsilon, epsilon_prime > 0,
            q in (0, 1), s a positive integer, lam > 0).
        RegimeError: Condition 7 fails (unless strict=False, used to study violations), or
            epsilon_prime >= epsilon while s or lam is to be chosen (even with strict=False).
    """
    EPSILON0.named("epsilon").check(epsilon)
    Q_DROP.check(q)
    if q in (0, 1):
        raise ParameterError(f"q={q!r} is outside (0, 1)")
    check_epsilon_prime(epsilon_prime)
    if epsilon_prime >= epsilon and (s is None or lam is None):
        raise RegimeError(f"protocols.gkm needs epsilon_prime < epsilon to choose s and lam "
                          f"({CITATION}, Condition 7); got epsilon_prime={epsilon_prime!r}, "
                          f"epsilon={epsilon!r}")
    if s is None:
        s = minimal_s(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q)
    S_COPIES.check(s)
    if lam is None:
        lam = minimal_lam(epsilon=epsilon, epsilon_prime=epsilon_prime, s=int(s))
    _check_common(n, epsilon_prime, lam)
    if strict:
        check_condition7(epsilon=epsilon, epsilon_prime=epsilon_prime, q=q, s=int(s), lam=lam)
    return GkmParameters(n=int(n), epsilon=float(epsilon), epsilon_prime=float(epsilon_prime),
                         q=float(q), s=int(s), lam=float(lam))


def theorem6_parameters(*, n: int, epsilon: float, rho: float,
                        corrected_q: bool = False) -> GkmParameters:
    """Theorem 6's choice: eps' = eps - 0.01 rho min(eps, 1), q, minimal s and lam.

    q = 0.1 rho Var(DLap(eps)) / n as printed, or, with corrected_q, q = 0.1 rho min(1, V)/n
    (docs/gkm.md#utility-and-cost: the printed q breaks the MSE claim at small epsilon).

    Args:
        n: number of users, an integer >= 1.
        epsilon: the pure-DP target, > 0.
        rho: the accuracy slack, in (0, 1/2].
        corrected_q: use q = 0.1 rho min(1, V) / n.

    Returns:
        GkmParameters with choice "theorem6" or "theorem6-corrected-q" and rho recorded.

    Raises:
        ParameterError: n, epsilon or rho (in (0, 1/2]) outside its domain.
        RegimeError: the resulting q is not below 1 (small n and epsilon).
    """
    N_USERS.check(n)
    EPSILON0.named("epsilon").check(epsilon)
    RHO.check(rho)
    epsilon_prime = epsilon - 0.01 * rho * min(epsilon, 1.0)
    if not epsilon_prime < epsilon:
        raise ParameterError(f"rho={rho!r} is too small for epsilon={epsilon!r}: "
                             "epsilon' = epsilon - 0.01 rho min(epsilon, 1) rounds to epsilon in "
                             f"float64 ({CITATION}, Theorem 6); valid rho >= "
                             f"{_least_rho(epsilon):.3g}")
    v = dlap_variance(epsilon)
    q = 0.1 * rho * (min(1.0, v) if corrected_q else v) / n
    if not q < 1:
        raise RegimeError(f"protocols.gkm.theorem6_parameters needs q = 0.1 rho "
                          f"{'min(1, Var(DLap(eps)))' if corrected_q else 'Var(DLap(eps))'}"
                          f" / n < 1 ({CITATION}, Theorem 6); got n={n}, epsilon={epsilon!r},"
                          f" rho={rho!r} (q={q:.6g})")
    p = gkm_parameters(n=n, epsilon=epsilon, epsilon_prime=epsilon_prime, q=q)
    choice = "theorem6-corrected-q" if corrected_q else "theorem6"
    return GkmParameters(**(asdict(p) | {"choice": choice, "rho": float(rho)}))


# ------------------------------------------------------------------ utility and cost
def _least_rho(epsilon: float) -> float:
    """A rho for which epsilon - 0.01 rho min(epsilon, 1) is below epsilon in float64."""
    return 2.0 * math.ulp(epsilon) / (0.01 * min(epsilon, 1.0))


def dlap_variance(a: float) -> float:
    """Var(DLap(a)) = 2 e^-a / (1 - e^-a)^2 (docs/README.md#distributions; parameter a =
    epsilon).

    Args:
        a: the discrete Laplace parameter, > 0.

    Returns:
        The variance as a float (a few roundings), or inf when it exceeds the float range
        (a below about 1e-154: the variance is about 2/a^2).

    Raises:
        ParameterError: a not > 0.
    """
    EPSILON0.named("a").check(a)
    # (e^(-a/2) / (e^-a - 1))^2: overflows to inf for tiny a, where squaring expm1(-a)
    # first would underflow to 0 and divide by it
    r = math.exp(-a / 2) / math.expm1(-a)
    return 2.0 * r * r


def mse_exact(params: GkmParameters, *, ones: int) -> float:
    """Exact MSE of the corrected analyzer for a dataset with `ones` ones (Lemma 11).

    The error is DLap(eps') minus the number D ~ Bin(ones, q) of dropped ones, independent,
    so MSE = Var(DLap(eps')) + ones q + ones (ones - 1) q^2 (Lemma 11 takes ones = n).

    Args:
        params: the protocol instance.
        ones: number of ones in the dataset, an integer in 0..n.

    Returns:
        The MSE as a float (rounded to nearest).

    Raises:
        ParameterError: ones not an integer in 0..n.
    """
    COUNT.named("ones").check(ones)
    if ones > params.n:
        raise ParameterError(f"ones={ones} is outside [0, n] = [0, {params.n}]")
    q = params.q
    return dlap_variance(params.epsilon_prime) + ones * q + ones * (ones - 1) * q * q


def mse_upper_lemma11(params: GkmParameters) -> float:
    """Lemma 11's bound Var(DLap(eps')) + q n + q^2 n (n - 1) (exact for all ones).

    Args:
        params: the protocol instance.

    Returns:
        `mse_exact(params, ones=params.n)`.
    """
    return mse_exact(params, ones=params.n)


def expected_messages(params: GkmParameters, *, x: int) -> float:
    """E[# messages of a user with input x] (Lemma 12, corrected; docs/gkm.md#utility-and-cost).

    (1-q)(2s + x) + 2/(n (e^eps' - 1)) + 2 lam / n. For GKMP20 (q = 0, s = 0) this is
    x + 2/(n (e^eps' - 1)) + 2 lam / n.

    Args:
        params: the protocol instance.
        x: the user's input bit, 0 or 1.

    Returns:
        The expectation as a float.

    Raises:
        ParameterError: x is not 0 or 1.
    """
    if x not in (0, 1):
        raise ParameterError(f"x={x!r} is outside {{0, 1}}")
    n = params.n
    return ((1 - params.q) * (2 * params.s + x) + 2.0 / (n * math.expm1(params.epsilon_prime))
            + 2.0 * params.lam / n)


# ------------------------------------------------------------------ privacy
def view_pair(params: GkmParameters, *, ones: int, tail: float = gkm_view.DEFAULT_TAIL,
              box: int | None = None) -> Any:
    """Exact view pair (x1 = 1 vs x1 = 0, `ones` ones among the others); see gkm_view.

    Args:
        params: the protocol instance.
        ones: ones among the other n - 1 users, an integer in 0..n-1.
        tail: certified mass allowed outside the box (`gkm_view.box_size`).
        box: the box side; None for the least certified one.

    Returns:
        The float ViewPair of `gkm_view.view_pair` (description["choice"] added).

    Raises:
        ParameterError: ones outside 0..n-1, or a box too small or too large.
    """
    COUNT.named("ones").check(ones)
    if ones > params.n - 1:
        raise ParameterError(f"ones={ones} is outside [0, n-1] = [0, {params.n - 1}]")
    return gkm_view.view_pair(n=params.n, ones=int(ones), epsilon_prime=params.epsilon_prime,
                              q=params.q, s=params.s, lam=params.lam, tail=tail, box=box,
                              description={"choice": params.choice})


def _rays(params: GkmParameters, counts: range) -> list[tuple[Result, Result]]:
    """(P||Q, Q||P) along the rays for each count, within the work budget."""
    check_rays_budget(params, counts)
    return gkm_view.pure_epsilon_rays_counts(n=params.n, counts=counts,
                                             epsilon_prime=params.epsilon_prime, q=params.q,
                                             s=params.s, lam=params.lam)


def _oriented(pq: Result, qp: Result, direction: Direction) -> Result:
    """One order, or the larger of the two relabelled MAX (EXACT only if both are, or the
    larger is an exact +inf)."""
    if direction is Direction.P_Q:
        return pq
    if direction is Direction.Q_P:
        return qp
    top = pq if pq.value >= qp.value else qp
    exact = pq.kind is qp.kind is Kind.EXACT or (top.kind is Kind.EXACT
                                                 and top.value == math.inf)
    return top.with_(direction=Direction.MAX, kind=Kind.EXACT if exact else Kind.UPPER,
                     error_budget=0.0 if exact else top.error_budget,
                     method=f"{top.method} [max over P||Q={float(pq):.6g}, "
                            f"Q||P={float(qp):.6g}]")


def max_divergence(params: GkmParameters, *, ones: int,
                   direction: Direction | str = Direction.MAX) -> Result:
    """Certified upper bound on d_inf between the views of x1 = 1 and x1 = 0 (Lemma 8).

    Evaluated along the rays of the view (`gkm_view.pure_epsilon_rays`, no 2-D box); the
    box computation `gkm_view.pure_epsilon(view_pair(...))` gives the same value (tested).

    Args:
        params: the protocol instance.
        ones: ones among the other n - 1 users, an integer in 0..n-1.
        direction: "P||Q" (x1 = 1 vs 0), "Q||P" or "max".

    Returns:
        Result(quantity="max_divergence", order=inf): UPPER, or EXACT +inf on a support
        mismatch; for "max", the larger order, EXACT only if both orders are or the larger
        is an exact +inf.

    Raises:
        ParameterError: ones outside 0..n-1, or a scan beyond the work budget
            (`check_rays_budget`).
        ValueError: an unknown direction (Direction(...) is called directly, so this is
            not a ParameterError).
    """
    direction = Direction(direction)
    if ones is None:    # ones_range would take it for every count
        raise ParameterError("ones=None: max_divergence is one count's; "
                             "worst_case_max_divergence maximises over counts")
    [(pq, qp)] = _rays(params, ones_range(params, ones))
    return _oriented(pq, qp, direction)


def ones_range(params: GkmParameters, ones: int | None) -> range:
    """The counts of ones among the other users to evaluate.

    Args:
        params: the protocol instance.
        ones: one count, or None for all of them.

    Returns:
        range(n) for None (0..n-1), else the one-element range of `ones`.

    Raises:
        ParameterError: ones not an integer in 0..n-1.
    """
    if ones is None:
        return range(params.n)
    COUNT.named("ones").check(ones)
    if ones > params.n - 1:
        raise ParameterError(f"ones={ones} is outside [0, n-1] = [0, {params.n - 1}]")
    return range(int(ones), int(ones) + 1)


def worst_case_max_divergence(params: GkmParameters, *,
                              direction: Direction | str = Direction.MAX,
                              ones: int | None = None) -> tuple[Result, int]:
    """(max over the other users' count of ones of the max-divergence, the worst count).

    Args:
        params: the protocol instance.
        direction: "P||Q", "Q||P" or "max".
        ones: one count only; None for all counts 0..n-1.

    Returns:
        (Result, ones): the largest `max_divergence` over the counts, and its count.

    Raises:
        ParameterError: ones outside 0..n-1, or scans beyond the work budget
            (`check_rays_budget`).
        ValueError: an unknown direction.
    """
    direction = Direction(direction)
    counts = ones_range(params, ones)
    found = [(_oriented(pq, qp, direction), k)
             for (pq, qp), k in zip(_rays(params, counts), counts, strict=True)]
    return max(found, key=lambda rk: rk[0].value)


_WORST = " [worst case over the count of ones among the other users: ones={}]"


def _worst(results: list[tuple[Result, int]], explicit: bool) -> Result:
    r, k = max(results, key=lambda rk: rk[0].value)
    return r if explicit else r.with_(method=r.method + _WORST.format(k))


def check_box_budget(params: GkmParameters, ones: int | None) -> None:
    """Refuse computations whose 2-D box would not fit in memory (say what to do).

    Args:
        params: the protocol instance.
        ones: one count, or None for the worst case over all n counts.

    Raises:
        ParameterError: the box side exceeds `gkm_view.MAX_BOX_SIDE`, or the views of the
            worst case over counts would need more than 4e8 points together.
    """
    _, a = gkm_view.box_size(n=params.n, epsilon_prime=params.epsilon_prime, s=params.s,
                             lam=params.lam)
    if a > gkm_view.MAX_BOX_SIDE:
        raise ParameterError(f"the exact 2-D view needs a box of side {a} > "
                             f"{gkm_view.MAX_BOX_SIDE} "
                             f"(lam={params.lam:.6g}, s={params.s}, n={params.n}); "
                             "use smaller lam, s or n")
    counts = ones_range(params, ones)
    views = len(counts)
    if views * a * a > 4e8:
        raise ParameterError(f"the worst case over ones needs {views} views of {a}^2 points;"
                             " pass ones=K (--ones K) to evaluate one dataset")
    # each view also adds one shifted g-block per component of its two mixture laws (about
    # 5 ns a point each): n = 100, epsilon' = 0.5, q = 0.1 has 485 components a view and
    # took over 10 minutes for its worst case. The components vary smoothly in the count,
    # so a few counts estimate their sum.
    probe = sorted({counts[round(i * (views - 1) / 8)] for i in range(9)})
    per_view = sum(_components(params, k) for k in probe) / len(probe)
    work = views * per_view * a * a
    if work > _VIEW_WORK:
        one = "" if ones is not None else "; pass ones=K (--ones K) to evaluate one dataset"
        raise ParameterError(
            f"the exact 2-D views need about {work:.3g} block-points ({views} view(s) of "
            f"{a}^2 points, about {per_view:.0f} mixture components each), above the "
            f"{_VIEW_WORK:.0e} (about a minute) this library computes (n={params.n}, "
            f"s={params.s}, q={params.q}, lam={params.lam:.6g}); use smaller n, s or lam"
            + one)


# the most block-points (box points x mixture components, over every view) a call computes
_VIEW_WORK = 1e10


def _components(params: GkmParameters, ones: int) -> int:
    """Mixture components of the two laws of the view at `ones` (P's and Q's)."""
    n, ep, q, s = params.n, params.epsilon_prime, params.q, params.s
    return (gkm_view.mixture_law(m1=ones + 1, m0=n - 1 - ones, epsilon_prime=ep, q=q,
                                 s=s).alpha.size
            + gkm_view.mixture_law(m1=ones, m0=n - ones, epsilon_prime=ep, q=q, s=s).alpha.size)


def check_rays_budget(params: GkmParameters, counts: range) -> None:
    """Refuse ray scans that would run for minutes (say what to do instead).

    The scans of `max_divergence` touch about B0 array elements per (law, diagonal,
    offset) (`gkm_view.rays_offsets`), which grows like n^3 B0 over the worst case of
    all counts; Theorem 6's lam puts B0 in the millions.

    Args:
        params: the protocol instance.
        counts: the counts of ones to evaluate.

    Raises:
        ParameterError: more than `gkm_view.MAX_RAYS_WORK` elements in all.
    """
    b0, _ = gkm_view.box_size(n=params.n, epsilon_prime=params.epsilon_prime, s=params.s,
                              lam=params.lam, tail=1.0)
    work = 0.0
    for k in counts:
        work += float(b0) * gkm_view.rays_offsets(n=params.n, ones=k, q=params.q)
        if work > gkm_view.MAX_RAYS_WORK:
            break
    if work > gkm_view.MAX_RAYS_WORK:
        hint = ("pass ones=K (--ones K) to evaluate one dataset, or "
                if len(counts) > 1 else "")
        raise ParameterError(
            f"the certified max-divergence of these GKM views would scan more than "
            f"{gkm_view.MAX_RAYS_WORK:.0e} array elements ({len(counts)} count(s) of ones, "
            f"far region B0 = {b0}, n={params.n}, s={params.s}, lam={params.lam:.6g}): "
            f"minutes or hours; {hint}use smaller lam, s or n")


def pure_epsilon_both(params: GkmParameters, *,
                      ones: int | None = None) -> tuple[Result, Result, Result]:
    """(max over both orders, x1 = 1 vs 0, x1 = 0 vs 1) of the certified max-divergence,
    each maximised over the other users' count of ones unless `ones` is given.

    `counts.pure_epsilon_bound` bounds the worst case by the one-user pair beyond the
    scans' budget.

    Args:
        params: the protocol instance.
        ones: one count only; None for all counts 0..n-1.

    Returns:
        (both, P||Q, Q||P) Results from `max_divergence`; over several counts the `method`
        names the worst count. `both` is relabelled direction MAX but keeps the kind of the
        larger one-order Result.

    Raises:
        ParameterError: ones outside 0..n-1, or scans beyond the work budget
            (`check_rays_budget`).
    """
    explicit = ones is not None
    counts = ones_range(params, ones)
    rays = _rays(params, counts)
    pq_all = [(r[0], k) for r, k in zip(rays, counts, strict=True)]
    qp_all = [(r[1], k) for r, k in zip(rays, counts, strict=True)]
    both = _worst(pq_all + qp_all, explicit).with_(direction=Direction.MAX)
    return both, _worst(pq_all, explicit), _worst(qp_all, explicit)


def exact_over_counts(params: GkmParameters) -> bool:
    """Whether every count's pair is the one-user pair shifted by (ones, 0).

    Args:
        params: the protocol instance.

    Returns:
        True for GKMP20 (q = 0, s = 0), where the other users' messages are the constant
        (ones, 0) (docs/gkm.md#a-dominating-pair).
    """
    return params.q == 0.0 and params.s == 0


def rays_fit(params: GkmParameters, counts: range) -> bool:
    """Whether the scans of `counts` are within `check_rays_budget`.

    Args:
        params: the protocol instance.
        counts: the counts of ones to evaluate.

    Returns:
        True when `check_rays_budget` would not raise.
    """
    try:
        check_rays_budget(params, counts)
    except ParameterError:
        return False
    return True


def _target_epsilon(params: GkmParameters) -> float:
    """params.epsilon, which GKMP20 parameters do not have (a TypeError, as documented)."""
    if params.epsilon is None:
        raise TypeError(f"no pure-DP target epsilon in these parameters ({params.choice})")
    return params.epsilon


def audit_lemma8(params: GkmParameters, *, ones: int | None = None) -> AuditRecord:
    """Lemma 8's claim (epsilon-DP) against the computed max-divergence.

    The upper end runs along the view's rays; a certified lower end (the exact 2-D grid)
    is computed only when the upper end exceeds the claim, since only it can show a
    violation. The claim line says whether Condition 7 holds for these parameters.

    Args:
        params: a GKM instance with `epsilon` set (GKMP20 parameters, epsilon None, fail
            with a TypeError).
        ones: one count only; None for all counts 0..n-1.

    Returns:
        The AuditRecord of `audit.audit_claim` (quantity "max_divergence", claimed epsilon).

    Raises:
        ParameterError: ones outside 0..n-1, or the grid for the lower end does not fit
            (`check_box_budget`).
    """
    epsilon = _target_epsilon(params)
    upper = max((max_divergence(params, ones=k) for k in ones_range(params, ones)),
                key=lambda r: r.value)
    lower = None
    if upper.value > epsilon:
        check_box_budget(params, ones)
        lower = max((gkm_view.pure_epsilon_lower(view_pair(params, ones=k))
                     for k in ones_range(params, ones)), key=lambda r: r.value)
    failures = condition7_failures(epsilon=epsilon, epsilon_prime=params.epsilon_prime,
                                   q=params.q, s=params.s, lam=params.lam)
    status = "Condition 7 holds" if not failures else "Condition 7 FAILS: " + "; ".join(
        failures)
    return audit_claim(
        claim=f"epsilon-DP with epsilon={params.epsilon!r} ({status})",
        source=Source(citation=CITATION, locator="Lemma 8 / Theorem 6"),
        quantity="max_divergence", claimed=float(epsilon), computed_upper=upper,
        computed_lower=lower, params=params.to_json())


def audit_theorem6_mse(params: GkmParameters) -> dict[str, Any] | None:
    """Theorem 6's MSE claim on the all-ones dataset (None unless params came from rho).

    Args:
        params: the protocol instance.

    Returns:
        None when params.rho is None; else {"claim", "claimed": (1 + rho) Var(DLap(eps)),
        "computed": {"value": `mse_exact` at ones = n, "kind": "exact", "method"},
        "verdict": "holds" or "violated"}.
    """
    if params.rho is None:
        return None
    claimed = (1 + params.rho) * dlap_variance(float(_target_epsilon(params)))
    exact = mse_exact(params, ones=params.n)
    return {"claim": "MSE <= (1 + rho) Var(DLap(epsilon)) (Theorem 6), all-ones dataset",
            "claimed": claimed, "computed": {"value": exact, "kind": "exact",
                                             "method": "protocols.gkm.mse_exact (Lemma 11)"},
            "verdict": "holds" if exact <= claimed else "violated"}
