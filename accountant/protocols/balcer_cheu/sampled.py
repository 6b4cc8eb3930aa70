"""One real neighbouring pair of a Poisson-sampled Balcer-Cheu round, as a count: the lower
end of sampled rounds (docs/balcer-cheu-2020.md#sampled-rounds).

Each user takes part with probability q and then sends x + Bern(p) messages "1" (zsum; hist
does so on each coordinate). Take the other n - 1 users holding 0 (zsum) or a value other
than a (hist, counting the messages of coordinate a, a post-processing of the view): each
adds Bern(q p) to the count, B = Bin(n - 1, q p). The differing user adds

    x = 1:  0 w.p. 1 - q,   1 w.p. q (1 - p),   2 w.p. q p
    x = 0:  0 w.p. 1 - q p, 1 w.p. q p                         (absent: 0)

so P = (1-q) B + q(1-p) B(. - 1) + q p B(. - 2) and Q = (1 - q p) B + q p B(. - 1)
(substitute) or Q = B (add/remove), on the window of B widened by two, every grid value the
true probability. Its divergences are LOWER bounds on the sampled mechanism's (one pair of
the maximum over pairs).

Error model: log B from `binomial_logpmf` (`log_pmf_error`) plus the perturbation of q p,
formed with a relative error below `EPSILON_PARAM` (as `pairs.subsampled_count`); the
weights are products of two floats, 1 - q p the sum (1 - q) + q (1 - p) of positive terms;
each log-sum-exp adds 4u (1 + |value|).
"""

from __future__ import annotations

import math

import numpy as np

from accountant.distributions import binomial_window
from accountant.numeric import rounding
from accountant.numeric.logspace import finite_abs
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.pairs.subsampled_count import DEFAULT_TAIL, EPSILON_PARAM
from accountant.pmf import PMF
from accountant.protocols.balcer_cheu.views import BalcerCheuParameters
from accountant.view import ViewPair

__all__ = ["sampled_count_pair"]

_U = rounding.UNIT_ROUNDOFF


def sampled_count_pair(params: BalcerCheuParameters, rate: float, relation: str,
                       tail: float = DEFAULT_TAIL) -> ViewPair:
    """The count pair of the module docstring.

    Args:
        params: n and p of the protocol.
        rate: the participation probability q, in (0, 1] (checked by the caller).
        relation: "substitute" or "add-remove" (checked by the caller).
        tail: mass of B allowed outside the window.

    Returns:
        A float ViewPair on the count, grid exact; P: the differing user holds 1 (zsum; a,
        hist), Q: it holds 0 (b) or is absent.
    """
    q, p, gamma = float(rate), float(params.p), float(params.gamma)
    m = int(params.n) - 1
    b = q * p
    lo, hi, cut = binomial_window(m, b, tail)
    ks = np.arange(lo, hi + 3, dtype=float)
    ext = binomial_logpmf(np.arange(lo - 2, hi + 3, dtype=float), float(m), b)
    lb0, lb1, lb2 = ext[2:], ext[1:-1], ext[:-2]        # log B(k), B(k - 1), B(k - 2)
    with np.errstate(divide="ignore"):
        w = [math.log(v) if v > 0 else -math.inf
             for v in (1.0 - q, q * gamma, b, (1.0 - q) + q * gamma)]
        lp = np.logaddexp(np.logaddexp(w[0] + lb0, w[1] + lb1), w[2] + lb2)
        if relation == "substitute":
            lq = np.logaddexp(w[3] + lb0, w[2] + lb1)
        else:
            lq = lb0.copy()
    b_c = (1.0 - q) + q * gamma
    ratio = b / b_c if b_c > 0 else 0.0
    param = EPSILON_PARAM * (ks + (m - ks + 2) * ratio) + 4 * EPSILON_PARAM
    base = np.maximum(np.maximum(log_pmf_error(lb0), log_pmf_error(lb1)), log_pmf_error(lb2))
    err = base + param + 8 * _U * (1 + np.maximum(finite_abs(lp), finite_abs(lq)))
    desc = {"pair": "sampled Balcer-Cheu count (the others hold 0; one neighbouring pair: "
                    "a lower bound on the mechanism)", "n": int(params.n), "p": p,
            "sampling_rate": q, "relation": relation}
    P = PMF("float", (lo,), lp, cut, err, True)
    Q = PMF("float", (lo,), lq, cut, err, True)
    return ViewPair.from_pmfs(P, Q, description=desc)
