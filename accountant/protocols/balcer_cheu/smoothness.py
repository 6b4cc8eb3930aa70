"""Exact smoothness parameters of Bin(n, gamma), beside Lemma A.3's closed form.

Balcer & Cheu, ITC 2020, Appendix A (from Ghazi, Golowich, Kumar, Pagh, Velingker);
docs/balcer-cheu-2020.md#smoothness. A law D on Z is (eps, delta, k)-smooth if for every shift k'
in [-k, k]

    Pr_{Y ~ D}[ D(Y) / D(Y + k') >= e^(|k'| eps) ] <= delta.

The shift k' = 0 is excluded: there the ratio is 1 = e^0 and the event is certain, so the
definition read literally would force delta = 1 (an erratum of the definition as
restated; the lemma's proof only uses k' != 0).

For D = Bin(n, g) the ratio is monotone in Y (log D(y)/D(y-1) = log((n-y+1) g/(y(1-g)))
decreases in y), so each event is a tail: {Y >= y*} for k' > 0 (including the y with
y + k' > n, where D(Y + k') = 0) and {Y <= y*} for k' < 0. `binomial_smoothness_delta`
returns the exact maximum over k' of those tail probabilities. Lemma A.3's closed form
(`accountant.bounds.balcer_cheu_2020.lemma_a3_delta`) must dominate it in its regime;
the tests check that.
"""

from __future__ import annotations

import math

import numpy as np

from accountant.bounds.balcer_cheu_2020 import CITATION
from accountant.domains import EPSILON, N_USERS, Interval
from accountant.errors import ParameterError
from accountant.numeric.logspace import logsumexp
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.result import Direction, Kind, Result, Source

__all__ = ["binomial_smoothness_delta"]

_GAMMA = Interval("gamma", 0.0, 1.0, closed="neither")
# Ratios within this (log) margin of the threshold are counted in the event: the log-PMF
# differences carry ~1e-12 absolute error, so counting them keeps delta an upper bound.
_MARGIN = 1e-9


def binomial_smoothness_delta(*, n: int, gamma: float, epsilon: float, k: int = 1) -> Result:
    """The least delta for which Bin(n, gamma) is (epsilon, delta, k)-smooth (Def. A.1).

    Float log-space over the whole support 0..n (O(n k) work; n up to ~1e7). Borderline
    outcomes (ratio within 1e-9 of the threshold in log) are counted, and the log-PMF
    error is added, so the value is an UPPER bound that equals the exact value unless an
    outcome sits within 1e-9 of the threshold.

    Args:
        n: number of trials, an integer >= 1.
        gamma: success probability, in (0, 1).
        epsilon: smoothness epsilon, >= 0.
        k: largest shift, an int >= 1.

    Returns:
        Result(quantity="delta", kind=UPPER, direction=MAX, at=epsilon), capped at 1,
        error_budget the added log-PMF allowance; source Appendix A, Definition A.1.

    Raises:
        ParameterError: n < 1, gamma outside (0, 1), epsilon < 0, k < 1.
    """
    N_USERS.check(n)
    _GAMMA.check(gamma)
    EPSILON.check(epsilon)
    if not isinstance(k, int | np.integer) or k < 1:
        raise ParameterError(f"k={k!r} is outside the integers >= 1")
    n, k = int(n), int(k)
    y = np.arange(0, n + 1)
    logd = binomial_logpmf(y, n, float(gamma))
    err = float(np.max(log_pmf_error(logd)))
    ext = np.concatenate([np.full(k, -np.inf), logd, np.full(k, -np.inf)])  # D off support
    worst = -math.inf
    for shift in [s for s in range(-k, k + 1) if s != 0]:
        shifted = ext[k + shift: k + shift + n + 1]  # log D(y + shift)
        with np.errstate(invalid="ignore"):
            log_ratio = np.where(np.isneginf(shifted), np.inf, logd - shifted)
        event = log_ratio >= abs(shift) * epsilon - _MARGIN - 2 * err
        if np.any(event):
            worst = max(worst, logsumexp(logd[event]))
    value = 0.0 if worst == -math.inf else min(1.0, math.exp(worst + err) * (1 + 1e-12))
    return Result(quantity="delta", value=value, kind=Kind.UPPER, direction=Direction.MAX,
                  method="protocols.balcer_cheu.smoothness.binomial_smoothness_delta "
                         "(exact tails, float)",
                  source=Source(citation=CITATION, locator="Appendix A, Definition A.1"),
                  error_budget=value - math.exp(worst) if worst > -math.inf else 0.0,
                  at=float(epsilon))
