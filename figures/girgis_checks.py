"""Exact checks of Girgis et al., CCS 2021 (docs/girgis-2021.md) on concrete randomizers.

The paper's reduction (Theorem 4, eq. (14)) and its monotonicity lemma (Lemma 8, eq. (41)) are
statements about the exact Renyi divergences of a given epsilon0-LDP randomizer's shuffled views;
at small n every neighbouring pair can be enumerated, so both are checked exactly here, with the
library's exact views (`accountant.protocols.randomizer.exact_view_pair`) and Renyi divergences
(`accountant.divergence.renyi_divergence`). The audit (figures/audit_papers/girgis.py) and the
tests (tests/properties/test_girgis_*.py) call these functions.

Numbers: every divergence is the library's float Result, whose `lower_end()` / `upper_end()`
bracket the true value; a check "holds" only when the certified upper end of the left side is
at most the certified lower end of the right side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from accountant.divergence import renyi_divergence
from accountant.protocols.randomizer import Randomizer, exact_view_pair
from accountant.result import Kind, Result
from accountant.view import ViewPair

__all__ = ["ReductionCheck", "SpecialPairMoments", "bracket", "lemma3_mixture_gap",
           "lemma8_largest_increase", "random_randomizer", "special_pair_curve",
           "special_pair_moments", "special_pair_renyi", "theorem4_check",
           "theorem4_right_side"]


def random_randomizer(*, inputs: int, outputs: int, seed: int,
                      floor: float = 0.15) -> Randomizer:
    """A seeded random local randomizer with entries in [floor, 1] before normalisation.

    The floor keeps epsilon0 moderate (about log(1/floor) at most), so that the reduction's
    binomial Bin(n-1, e^-epsilon0) is not degenerate at small n.

    Args:
        inputs: number of inputs k (>= 2).
        outputs: number of outputs d (>= 2).
        seed: the numpy seed.
        floor: the smallest entry before the rows are normalised, in (0, 1).

    Returns:
        A `Randomizer` named after its seed.
    """
    rng = np.random.default_rng(seed)
    rows = rng.uniform(floor, 1.0, size=(inputs, outputs))
    rows /= rows.sum(axis=1, keepdims=True)
    return Randomizer.from_rows(rows.tolist(), name=f"random {inputs}x{outputs} seed {seed}")


def special_pair_renyi(matrix: Randomizer, *, x: int, base: int, users: int,
                       alpha: float) -> tuple[float, float]:
    """Certified bracket of the forward special pair's D_alpha (Girgis et al., eq. (13)).

    The pair is (base x (users-1), x) against (base x users): the all-equal dataset is the
    second argument, as in Theorem 5.

    Args:
        matrix: the randomizer.
        x: the differing user's input in the first dataset.
        base: the input of everyone else (and of the differing user in the second dataset).
        users: the number of users m >= 1.
        alpha: the Renyi order > 1.

    Returns:
        (lower end, upper end) of D_alpha(M(D_m) || M(D'_m)).
    """
    if users == 1:
        rows = matrix.array
        view = ViewPair.from_arrays(rows[x], rows[base])
    else:
        view = exact_view_pair(matrix, users, [base] * (users - 1) + [x], [base] * users)
    return bracket(renyi_divergence(view, alpha, direction="P||Q"))


def bracket(result: Result) -> tuple[float, float]:
    """(lower end, upper end) of a divergence Result.

    A float-backend Result is UPPER: nominal + error_budget, where the budget bounds an
    error e in the moment sum S inside log1p (accountant.divergence.renyi). log1p is concave,
    so going down by e costs more than going up, but at most twice as much while e < (1+S)/2
    (always, by orders of magnitude): the lower end is nominal - 2 budget = value - 3 budget.

    Args:
        result: a Result of `renyi_divergence`.

    Returns:
        The certified bracket.
    """
    if result.kind is Kind.UPPER:
        upper = result.upper_end()
        return upper - 3 * result.error_budget, upper
    return result.lower_end(), result.upper_end()


def special_pair_curve(matrix: Randomizer, *, x: int, base: int, max_users: int,
                       alpha: float) -> list[tuple[float, float]]:
    """`special_pair_renyi` for users = 1..max_users (index m-1 holds m users)."""
    return [special_pair_renyi(matrix, x=x, base=base, users=m, alpha=alpha)
            for m in range(1, max_users + 1)]


def theorem4_right_side(matrix: Randomizer, *, n: int, x: int, base: int,
                        alpha: float) -> tuple[float, float]:
    """Theorem 4's right side, eq. (14), for one ordered differing pair, evaluated exactly.

    1/(alpha-1) log sum_{m=0}^{n-1} Bin(n-1, e^-epsilon0)(m) exp((alpha-1) D_alpha(special
    pair of m+1 users)), with epsilon0 the randomizer's own (rounded up, which only lowers
    e^-epsilon0: the mixture of eq. (19) stays valid).

    Args:
        matrix: the randomizer.
        n: the number of users.
        x, base: the differing user's inputs in the first and the second dataset.
        alpha: the Renyi order > 1.

    Returns:
        (lower end, upper end) of the right side.
    """
    curve = special_pair_curve(matrix, x=x, base=base, max_users=n, alpha=alpha)
    weights = stats.binom.pmf(np.arange(n), n - 1, math.exp(-matrix.epsilon0))
    ends = []
    for column in (0, 1):
        values = np.array([c[column] for c in curve])
        ends.append(math.log(float(np.dot(weights, np.exp((alpha - 1) * values))))
                    / (alpha - 1))
    # float weights and exp/log: 1e-12 relative slack, outward
    return ends[0] * (1 - 1e-12), ends[1] * (1 + 1e-12)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReductionCheck:
    """Theorem 4 checked over every neighbouring pair of n users of one randomizer.

    Attributes:
        n: users.
        alpha: Renyi order.
        pairs: ordered neighbouring pairs checked (other users' input histograms times ordered
            differing inputs).
        worst: the largest exact D_alpha over all of them (upper end): the mechanism's RDP.
        worst_bound: Theorem 4's right side (upper end) maximised over the ordered differing
            inputs: the reduction's bound on the mechanism's RDP.
        tightest: the largest ratio D_alpha(upper end) / right side (lower end) over the pairs;
            Theorem 4 holds at every pair iff it is <= 1.
        violations: pairs whose certified lower end exceeds the right side's upper end.
    """

    n: int
    alpha: float
    pairs: int
    worst: float
    worst_bound: float
    tightest: float
    violations: int


def _other_histograms(users: int, inputs: int) -> list[tuple[int, ...]]:
    """Every input histogram (counts per input) of `users` users."""
    if inputs == 1:
        return [(users,)]
    return [(c, *rest) for c in range(users + 1)
            for rest in _other_histograms(users - c, inputs - 1)]


def theorem4_check(matrix: Randomizer, *, n: int, alpha: float) -> ReductionCheck:
    """Theorem 4 (eq. (14)) against the exact D_alpha of every neighbouring pair of n users.

    Args:
        matrix: the randomizer.
        n: the number of users (>= 2; the view has C(n+d-1, d-1) histograms).
        alpha: the Renyi order > 1.

    Returns:
        The `ReductionCheck`.
    """
    k = matrix.inputs
    right = {(x, b): theorem4_right_side(matrix, n=n, x=x, base=b, alpha=alpha)
             for x in range(k) for b in range(k) if x != b}
    worst, tightest, violations, pairs = 0.0, 0.0, 0, 0
    for counts in _other_histograms(n - 1, k):
        others = [i for i, c in enumerate(counts) for _ in range(c)]
        for x in range(k):
            for b in range(x + 1, k):
                view = exact_view_pair(matrix, n, others + [x], others + [b])
                for direction, key in (("P||Q", (x, b)), ("Q||P", (b, x))):
                    d_low, d_high = bracket(renyi_divergence(view, alpha,
                                                             direction=direction))
                    low, high = right[key]
                    worst = max(worst, d_high)
                    tightest = max(tightest, d_high / low if low > 0 else math.inf)
                    violations += d_low > high
                    pairs += 1
    return ReductionCheck(n=n, alpha=alpha, pairs=pairs, worst=worst,
                          worst_bound=max(r[1] for r in right.values()), tightest=tightest,
                          violations=violations)


def lemma8_largest_increase(matrix: Randomizer, *, max_users: int, alpha: float) -> float:
    """Lemma 8 (eq. (41)) checked exactly: the special pair's D_alpha never grows with m.

    Args:
        matrix: the randomizer.
        max_users: m runs over 1..max_users.
        alpha: the Renyi order > 1.

    Returns:
        The largest certified increase max(lower end at m+1 - upper end at m) over m and the
        ordered input pairs; Lemma 8 holds iff it is <= 0.
    """
    k = matrix.inputs
    largest = -math.inf
    for x in range(k):
        for b in range(k):
            if x == b:
                continue
            curve = special_pair_curve(matrix, x=x, base=b, max_users=max_users, alpha=alpha)
            largest = max(largest, max(nxt[0] - cur[1]
                                       for cur, nxt in zip(curve, curve[1:], strict=False)))
    return largest


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecialPairMoments:
    """Exact moments of Lemma 6's X = L - 1 under Mult(m; q) for one special pair.

    Attributes:
        users: m.
        mean: E X (Lemma 6.1 says 0).
        variance: E X^2 (Lemma 6.2 says chi^2(p||q) / m).
        chi_square_over_m: chi^2(p||q) / m, computed from the rows.
        absolute: {j: E|X|^j} for the orders asked.
        lemma6_bound: {j: j Gamma(j/2) (2 v^2 / m)^(j/2)}, v^2 = (e^(2 eps0) - 1)^2 /
            (4 e^(2 eps0)) with the randomizer's epsilon0 (eq. (35) as reconstructed in
            docs/girgis-2021.md#lemma-6).
        moment: {lambda: E[L^lambda]} for the real orders asked.
        theorem6_bound: {lambda: exp(lambda^2 (e^eps0 - 1)^2 / (m e^eps0))} (eq. (44)).
    """

    users: int
    mean: float
    variance: float
    chi_square_over_m: float
    absolute: dict[int, float]
    lemma6_bound: dict[int, float]
    moment: dict[float, float]
    theorem6_bound: dict[float, float]


def special_pair_moments(matrix: Randomizer, *, x: int, base: int, users: int,
                         orders: tuple[int, ...] = (3, 4, 6, 8),
                         real_orders: tuple[float, ...] = (1.5, 2.0, 4.0)) -> SpecialPairMoments:
    """Lemma 6's and Theorem 6's quantities, exactly, for one special pair of m users.

    L(h) = P(h)/Q(h) over the histograms h of the exact special-pair view (eq. (33)); the
    sums are float sums of nonnegative (or, for E X, signed) terms over every histogram.

    Args:
        matrix: the randomizer.
        x, base: the differing input and everyone else's input.
        users: m >= 1.
        orders: integer j >= 3 for E|X|^j.
        real_orders: real lambda > 1 for E[L^lambda].

    Returns:
        The `SpecialPairMoments`.
    """
    rows = matrix.array
    if users == 1:
        log_p, log_q = np.log(rows[x]), np.log(rows[base])
    else:
        view = exact_view_pair(matrix, users, [base] * (users - 1) + [x], [base] * users)
        log_p, log_q = view.p, view.q
    # histograms whose log-probability is -inf under Q carry no Q-mass (and, by LDP, no P-mass)
    keep = np.isfinite(log_q)
    log_p, log_q = log_p[keep], log_q[keep]
    q = np.exp(log_q)
    loss = log_p - log_q
    xs = np.expm1(loss)
    e0 = matrix.epsilon0
    v2 = math.expm1(2 * e0) ** 2 / (4 * math.exp(2 * e0))
    chi_max = math.expm1(e0) ** 2 / math.exp(e0)
    return SpecialPairMoments(
        users=users, mean=float(np.dot(q, xs)), variance=float(np.dot(q, xs ** 2)),
        chi_square_over_m=float(np.dot(rows[base], (rows[x] / rows[base] - 1) ** 2)) / users,
        absolute={j: float(np.dot(q, np.abs(xs) ** j)) for j in orders},
        lemma6_bound={j: j * math.gamma(j / 2) * (2 * v2 / users) ** (j / 2) for j in orders},
        # log-space: q L^a = exp(log q + a loss), no overflow at large orders
        moment={a: float(np.sum(np.exp(log_q + a * loss))) for a in real_orders},
        # past the float range the bound is +inf (it then bounds trivially)
        theorem6_bound={a: math.exp(e) if (e := a * a * chi_max / users) < 709 else math.inf
                        for a in real_orders})


def lemma3_mixture_gap(matrix: Randomizer, *, others: tuple[int, ...], x: int,
                       base: int) -> float:
    """Lemma 3 (eqs. (23)-(24)) checked exactly: the shuffled view of (others, x) equals the
    mixture over subsets J of the other users of the views in which the users of J report by
    R(base) and the rest by R~_i = (R(d_i) - e^-eps0 R(base)) / (1 - e^-eps0), eq. (19),
    with weights e^(-eps0 |J|) (1 - e^-eps0)^(n-1-|J|).

    Args:
        matrix: the randomizer (epsilon0 finite).
        others: the inputs of the n-1 other users (n - 1 <= 10: 2^(n-1) subsets).
        x: the differing user's input (the first dataset; x = base gives the second).
        base: d'_n, the input whose distribution every R(d_i) contains with weight e^-eps0.

    Returns:
        max over histograms of |view - mixture| (float rounding only: about 1e-15).
    """
    rows = matrix.array
    w = math.exp(-matrix.epsilon0_lower)  # the largest weight the LDP ratio allows, exactly
    residual = [(rows[d] - w * rows[base]) / (1 - w) for d in others]
    n = len(others) + 1
    target = np.exp(exact_view_pair(matrix, n, [*others, x], [*others, base]).p)
    mixture = np.zeros_like(target)
    for mask in range(2 ** len(others)):
        chosen = [(mask >> i) & 1 for i in range(len(others))]
        table = [rows[base] if c else residual[i] for i, c in enumerate(chosen)]
        # the users of this term as a randomizer of their own, one input per user
        local = Randomizer.from_rows(np.clip([*table, rows[x], rows[base]], 0, 1).tolist(),
                                     tolerance=1e-6)
        ids = list(range(len(table)))
        view = exact_view_pair(local, n, [*ids, len(table)], [*ids, len(table) + 1])
        size = sum(chosen)
        mixture += w ** size * (1 - w) ** (len(others) - size) * np.exp(view.p)
    return float(np.max(np.abs(target - mixture)))
