"""GKM counting with a Bernoulli flood (Sec. 5 of Ghazi-Kumar-Manurangsi: "even replacing it
[D_flood/n] with a Bernoulli distribution also works"; docs/gkm.md#bernoulli-flood).

Each user draws its flood count z+- ~ Bern(b) instead of Poi(lam/n), so F ~ Bin(n, b) and a
user sends at most 2s + 3 + z+ + z- messages of the flood and input parts. The view is the
GKM view (`view` module) with the Poisson CDF replaced by

    G(M) = sum_{f=0}^{min(M, n)} Bin(n, b)(f) e^(2 eps' f)   (0 for M < 0),

since P(V+ = a, V- = b') = sum_j w_j (1-r)^2 r^(a+b'-alpha_j-beta_j) G(min(a-alpha_j, b'-beta_j)),
r = e^-eps'. G is constant for M >= n, so along the rays of `view.pure_epsilon_rays` the loss
is constant once m >= n + the largest shift: the max-divergence is a maximum over finitely
many points, computed here in float64 log-space with an error margin (no tail, no box).

Example (n = 10, s = 8: too few users for a bounded flood; the order x1 = 0 vs 1 exceeds 1):
    >>> pq, qp = max_divergence(n=10, ones=0, epsilon_prime=0.5, q=0.1, s=8, flood=0.9)
    >>> round(pq.value, 4), round(qp.value, 4)
    (0.5, 1.7024)
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from accountant.domains import COUNT, N_USERS, PROBABILITY
from accountant.errors import ParameterError
from accountant.numeric.logspace import logsumexp
from accountant.protocols.gkm.protocol import Q_DROP, S_COPIES, check_epsilon_prime
from accountant.protocols.gkm.view import mixture_law
from accountant.result import Direction, Kind, Result, Source

__all__ = ["FLOAT_MARGIN", "SOURCE", "log_flood_cdf", "max_divergence", "worst_case"]

SOURCE = Source(citation="Ghazi, Kumar, Manurangsi, Pure-DP Aggregation in the Shuffle Model",
                locator="Sec. 5 (bounded number of messages: a Bernoulli flood)")
# added to every computed loss: float64 log-sums of at most (n + 1) J terms of size below
# 1e4 lose far less (about 1e-16 per term and unit of size)
FLOAT_MARGIN = 1e-9


def log_flood_cdf(*, n: int, flood: float, epsilon_prime: float, top: int) -> np.ndarray:
    """log G(M), M = 0..top, G(M) = sum_{f <= min(M, n)} Bin(n, flood)(f) e^(2 eps' f).

    Args:
        n: number of users (the flood is Bin(n, flood)).
        flood: each user's Bernoulli flood probability, in (0, 1].
        epsilon_prime: the noise parameter, > 0.
        top: the last M, >= 0.

    Returns:
        A float array of length top + 1 (constant from M = n on).
    """
    f = np.arange(n + 1)
    terms = stats.binom.logpmf(f, n, flood) + 2 * epsilon_prime * f
    cdf = np.logaddexp.accumulate(terms)
    return cdf[np.minimum(np.arange(top + 1), n)]


def max_divergence(*, n: int, ones: int, epsilon_prime: float, q: float, s: int,
                   flood: float) -> tuple[Result, Result]:
    """(P||Q, Q||P) max-divergence of the views of x1 = 1 (P) and x1 = 0 (Q), `ones` ones
    among the other n - 1 users, with a Bernoulli(flood) flood per user.

    Args:
        n: number of users, >= 1.
        ones: ones among the other users, 0..n-1.
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in (0, 1).
        s: copies of +1 and -1, >= 1.
        flood: each user's flood probability, in (0, 1].

    Returns:
        Two Results on "max_divergence" (order inf): UPPER (the computed maximum plus
        FLOAT_MARGIN), or EXACT +inf where one view has a point the other lacks.

    Raises:
        ParameterError: an argument outside its domain.
    """
    N_USERS.check(n)
    COUNT.named("ones").check(ones)
    if ones > n - 1:
        raise ParameterError(f"ones={ones} is outside [0, n-1] = [0, {n - 1}]")
    check_epsilon_prime(epsilon_prime)
    Q_DROP.check(q)
    S_COPIES.check(s)
    PROBABILITY.named("flood").check(flood)
    if flood == 0:
        raise ParameterError("flood=0 is outside (0, 1]: without a flood the views' supports "
                             "differ (Sec. 1.2)")
    law_p = mixture_law(m1=ones + 1, m0=n - 1 - ones, epsilon_prime=epsilon_prime, q=q, s=s)
    law_q = mixture_law(m1=ones, m0=n - ones, epsilon_prime=epsilon_prime, q=q, s=s)
    k_star = max(law_p.max_k1, law_q.max_k1)
    # past m = n + largest offset every G is at its constant: the loss no longer changes
    top = int(max(np.max(law_p.alpha), np.max(law_q.alpha))) + n + 2
    log_g = log_flood_cdf(n=n, flood=flood, epsilon_prime=epsilon_prime, top=top)
    worst = {Direction.P_Q: -math.inf, Direction.Q_P: -math.inf}
    for d in range(k_star + 1):
        logs = []
        for law in (law_p, law_q):
            acc = np.full(top + 1, -np.inf)
            offsets = law.beta + np.maximum(law.alpha - law.beta - d, 0)
            for off in np.unique(offsets):
                if off > top:
                    continue
                lc = logsumexp(law.log_c[offsets == off])
                np.logaddexp(acc[off:], lc + log_g[:top + 1 - off], out=acc[off:])
            logs.append(acc)
        lp, lq = logs
        if np.any(np.isfinite(lp) & np.isneginf(lq)):
            worst[Direction.P_Q] = math.inf
        if np.any(np.isneginf(lp) & np.isfinite(lq)):
            worst[Direction.Q_P] = math.inf
        both = np.isfinite(lp) & np.isfinite(lq)
        if np.any(both):
            worst[Direction.P_Q] = max(worst[Direction.P_Q], float(np.max(lp[both] - lq[both])))
            worst[Direction.Q_P] = max(worst[Direction.Q_P], float(np.max(lq[both] - lp[both])))
    method = "protocols.gkm.bernoulli_flood.max_divergence (float64 rays, finite support of F)"
    out = []
    for direction, value in worst.items():
        if value == math.inf:
            out.append(Result(quantity="max_divergence", value=math.inf, kind=Kind.EXACT,
                              direction=direction, method=method + " [support mismatch]",
                              source=SOURCE, order=math.inf))
        else:
            up = max(value, 0.0) + FLOAT_MARGIN
            out.append(Result(quantity="max_divergence", value=up, kind=Kind.UPPER,
                              direction=direction, method=method, source=SOURCE,
                              order=math.inf, error_budget=FLOAT_MARGIN))
    return out[0], out[1]


def worst_case(*, n: int, epsilon_prime: float, q: float, s: int, flood: float) -> float:
    """The certified max-divergence over both orders and every count of other ones.

    Args:
        n: number of users, >= 1.
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in (0, 1).
        s: copies of +1 and -1, >= 1.
        flood: each user's flood probability, in (0, 1].

    Returns:
        The largest upper end of `max_divergence` over ones = 0..n-1 (math.inf if any is).

    Raises:
        ParameterError: an argument outside its domain.
    """
    return max(float(r.value) for k in range(n)
               for r in max_divergence(n=n, ones=k, epsilon_prime=epsilon_prime, q=q, s=s,
                                       flood=flood))
