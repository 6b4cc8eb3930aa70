"""The literal GGKPV sampler against the accountant's exact view PMFs: the (A, A') counts
of the real shuffled messages (tuples inside C_x^tau, inside C_x'^tau) follow the count
pair's laws, P when user 1 holds x and Q when it holds x' (docs/ggkpv.md)."""

from __future__ import annotations

import numpy as np

from accountant.distributions import binomial
from accountant.pmf import product, shift
from accountant.protocols.ggkpv import background_view, ggkpv_parameters
from verify.crosscheck import goodness_of_fit
from verify.samplers import ggkpv as g

N, B, RHO = 40, 7, 3
X, X2, OTHER = 1, 2, 4  # 1 ^ 2 ^ 4 != 0: the others' signals act like noise


def _counts(first: int, trials: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    tau = g.default_tau(N)
    xs = np.array([first] + [OTHER] * (N - 1))
    out = np.empty((trials, 2), dtype=np.int64)
    for t in range(trials):
        m = g.shuffled_hadamard_messages(xs, B=B, tau=tau, rho=RHO, rng=rng)
        out[t, 0] = np.count_nonzero(np.all(g.in_positive_set(X, m), axis=1))
        out[t, 1] = np.count_nonzero(np.all(g.in_positive_set(X2, m), axis=1))
    return out


def _laws(M: int, pi: float):
    a = shift(binomial(M, pi), 1)
    b = binomial(M + 1, pi)
    return product(a, b), product(b, a)


def test_sampler_counts_fit_the_exact_view_pmfs() -> None:
    params = ggkpv_parameters(n=N, B=B, rho=RHO)
    view = background_view(params, tail=None)
    assert view is not None and view.description["M"] == N * RHO + N - 1
    P, Q = _laws(N * RHO + N - 1, params.pi)
    under_p = _counts(X, 4000, 1)
    under_q = _counts(X2, 4000, 2)
    assert goodness_of_fit(under_p, P).passed
    assert goodness_of_fit(under_q, Q).passed
    # and the test has power: P's law does not fit samples drawn under Q
    assert not goodness_of_fit(under_q, P).passed
    # the ViewPair's grid carries the same P (coordinates and probabilities)
    grid = dict(zip(zip(*(c.tolist() for c in view.coords), strict=True),
                    np.exp(view.p).tolist(), strict=True))
    lp = P.log_probs()
    for (a, a2), prob in list(grid.items())[:200]:
        i, j = a - P.offset[0], a2 - P.offset[1]
        if 0 <= i < lp.shape[0] and 0 <= j < lp.shape[1]:
            assert abs(np.exp(lp[i, j]) - prob) <= 1e-12
