"""Lower ends for a shuffled continuous randomizer: one real neighbouring pair, thresholded.

The pair: every other user holds 0, the differing user holds 0 (Q) or 1 (P). Counting the
shuffled outputs above a threshold t is a post-processing of that pair's view, and the count
is Bin(n-1, s_0) + Bern(s_x) with s_x = P(x + noise > t), the library's subsampled count
pair at rate 1 (`pairs.subsampled_count`), evaluated exactly. Any t gives a lower end on the
mechanism; the largest over a few thresholds is reported
(docs/continuous-randomizers.md#the-lower-end-threshold-count).
"""

from __future__ import annotations

import math

import numpy as np

from accountant.divergence import delta_bracket, epsilon_bracket
from accountant.pairs.subsampled_count import subsampled_count_pair
from accountant.protocols.continuous.laws import CDF_RELATIVE_ERROR, NoiseLaw
from accountant.result import Result
from accountant.view import ViewPair

__all__ = ["threshold_pair", "thresholds", "composition_pair", "epsilon_lower", "delta_lower"]


def thresholds(law: NoiseLaw, n: int) -> list[float]:
    """Where to cut: the centre 1/2 and points out to where about one other user's output
    is expected above t (small n favours far thresholds).

    Args:
        law: the noise law.
        n: users.

    Returns:
        Thresholds t (any t is valid; these only choose which lower ends are tried).
    """
    s = law.scale
    ts = [0.5 + s * k for k in (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)]
    # the t where n P_0(Y > t) ~ 1
    far = 0.5 + s * min(max(math.sqrt(2.0 * math.log(max(n, 2))), 1.0), 8.0)
    if law.integer:  # between atoms, so that P(> t) and P(<= t) are complements
        return sorted({math.floor(t) + 0.5 for t in (*ts, far)})
    return sorted({*ts, far})


def threshold_pair(law: NoiseLaw, n: int, t: float, rate: float = 1.0,
                   relation: str = "substitute") -> ViewPair:
    """The count of outputs above t: Bin(n-1, s_0) + Bern(s_1) (P) against Bin(n, s_0) (Q);
    with Poisson sampling at `rate` every s_x becomes rate s_x (a user sends nothing when
    out), and under add/remove Q lacks the differing user.

    Args:
        law: the noise law.
        n: users, >= 2.
        t: the threshold (a half-integer for integer laws, from `thresholds`).
        rate: the participation probability, in (0, 1] (checked by the count pair).
        relation: "substitute" or "add-remove".

    Returns:
        The float ViewPair of the count (s_x from the law's CDF), its masses' error
        bounds covering the CDF's stated relative error `CDF_RELATIVE_ERROR`.
    """
    # P(x + noise > t) = P(noise <= x - t) (symmetric noise): no cancellation in the tail
    s0 = float(law.cdf(np.array(-t)))
    s1 = float(law.cdf(np.array(1.0 - t)))
    # the complements from the other side too: 1 - s_1 rounded to 0 would give the pair an
    # impossible event (count 0 under P) and an infinite, wrong, lower end
    return subsampled_count_pair(n=n, high=s1, low=s0, rate=rate, relation=relation,
                                 high_complement=float(law.cdf(np.array(t - 1.0))),
                                 low_complement=float(law.cdf(np.array(t))),
                                 description={"pair": f"{law.name} threshold count",
                                              "t": t},
                                 # the four values are the law's float CDF, not rounded
                                 # exact ones: their stated error enters every mass's bound
                                 parameter_error=CDF_RELATIVE_ERROR)


def composition_pair(law: NoiseLaw, n: int, rate: float = 1.0,
                     relation: str = "substitute") -> ViewPair:
    """The threshold count pair a composition reads as its lower end (one pair for all
    rounds): among `thresholds`, the one whose count has the largest KL divergence
    E_P[loss], which drives the loss of many composed rounds (any threshold is valid).

    Args:
        law: the noise law.
        n: users, >= 2.
        rate: the participation probability, in (0, 1].
        relation: "substitute" or "add-remove".

    Returns:
        The count pair (`threshold_pair`).
    """
    best, score = None, -math.inf
    for t in thresholds(law, n):
        pair = threshold_pair(law, n, t, rate, relation)
        loss = pair.float_loss
        live = np.isfinite(loss) & np.isfinite(pair.p)
        kl = math.inf if np.any(np.isposinf(loss) & np.isfinite(pair.p)) else \
            float(np.sum(np.exp(pair.p[live]) * loss[live]))
        if best is None or kl > score:
            best, score = pair, kl
    assert best is not None  # thresholds is never empty
    return best


def epsilon_lower(law: NoiseLaw, n: int, delta: float) -> Result | None:
    """The largest certified lower end of epsilon(delta) over `thresholds`.

    Args:
        law: the noise law.
        n: users, >= 2.
        delta: target in (0, 1).

    Returns:
        A LOWER Result (direction MAX), or None when no threshold gives a positive end.
    """
    best: Result | None = None
    for t in thresholds(law, n):
        low, _ = epsilon_bracket(threshold_pair(law, n, t), delta)
        if best is None or float(low.value) > float(best.value):
            best = low
    return best


def delta_lower(law: NoiseLaw, n: int, epsilon: float) -> Result | None:
    """The largest certified lower end of delta(epsilon) over `thresholds`.

    Args:
        law: the noise law.
        n: users, >= 2.
        epsilon: eps >= 0.

    Returns:
        A LOWER Result (direction MAX), or None.
    """
    best: Result | None = None
    for t in thresholds(law, n):
        low, _ = delta_bracket(threshold_pair(law, n, t), epsilon)
        if best is None or float(low.value) > float(best.value):
            best = low
    return best
