"""The analyzer's output of one real GKM pair, reduced to its sign: a two-atom lower end that
costs nothing where the pair's ray view is beyond its budget (docs/gkm.md#a-dominating-pair).

Take the other users holding 0 and user 1 holding 1 (P) or 0 (Q). The analyzer returns
D = V+ - V-: the s copies and the flood cancel, the zeros add nothing, and
D = K + N+ - N- with K ~ Bern(1 - q) under P (user 1 active) and K = 0 under Q, N+ - N- a
discrete Laplace law P(k) = (1 - r)/(1 + r) r^|k|, r = e^-eps'. The loss of D is
log((1 - q) r^(|k-1| - |k|) + q): one value on {D >= 1}, another on {D <= 0}, so the sign of
D is sufficient:

    Q(D >= 1) = r / (1 + r),          P(D >= 1) = ((1 - q) + q r) / (1 + r),
    Q(D <= 0) = 1 / (1 + r),          P(D <= 0) = (q + (1 - q) r) / (1 + r),

with the losses log((1 - q) e^eps' + q) and log(q + (1 - q) e^-eps') in closed form. A
post-processing of one real pair's view, so every divergence of it is a LOWER bound on the
mechanism's. Theorem 6 (n = 100, rho = 1/2: eps' = 0.995, q = 9.2e-4) puts its loss at
0.9941 against the certified max-divergence 0.99529.

Error model: r and the weights are a few roundings from eps' and q (relative <= 8u); their
logs and the loss carry 16u (1 + |value|).
"""

from __future__ import annotations

import math

import numpy as np

from accountant.numeric import rounding
from accountant.pmf import PMF
from accountant.protocols.gkm.protocol import GkmParameters
from accountant.view import ViewPair

__all__ = ["difference_view"]

_U = rounding.UNIT_ROUNDOFF


def difference_view(params: GkmParameters) -> ViewPair:
    """The sign of the analyzer's output under one real pair (module docstring).

    Args:
        params: the protocol instance.

    Returns:
        A float ViewPair on two atoms ({D >= 1}, {D <= 0}), grid exact, no tails.
    """
    e, q = float(params.epsilon_prime), float(params.q)
    log_r = -e
    log_1r = math.log1p(math.exp(log_r))              # log(1 + r)
    with np.errstate(divide="ignore"):
        log_q = math.log(q) if q > 0 else -math.inf
        log_q_c = math.log1p(-q)
        # P(D >= 1) (1 + r) = (1 - q) + q r;  P(D <= 0) (1 + r) = q + (1 - q) r
        up = np.logaddexp(log_q_c, log_q + log_r)
        down = np.logaddexp(log_q, log_q_c + log_r)
    lp = np.array([up - log_1r, down - log_1r])
    lq = np.array([log_r - log_1r, -log_1r])
    err = 16 * _U * (1 + np.maximum(np.abs(lp), np.abs(lq)) + e)

    def loss(coords: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        k = np.asarray(coords[0])
        with np.errstate(divide="ignore"):
            above = float(np.logaddexp(log_q_c + e, log_q))   # log((1 - q) e^eps' + q)
            below = float(np.logaddexp(log_q, log_q_c - e))   # log(q + (1 - q) e^-eps')
        value = np.where(k == 0, above, below)
        return value, 16 * _U * (1 + np.abs(value) + e)

    desc = {"pair": "GKM analyzer output's sign, others hold 0 (one neighbouring pair: a "
                    "lower bound on the mechanism)", **params.to_json()}
    P = PMF("float", (0,), lp, 0.0, err, True)
    Q = PMF("float", (0,), lq, 0.0, err, True)
    return ViewPair.from_pmfs(P, Q, loss=loss, description=desc)
