"""Support identification with the shuffled histogram (Balcer-Cheu 2020, Def. 3.3, Claim 3.4).

n users draw their values independently and uniformly from an unknown set H of h values out
of a domain of d; the protocol runs hist (the paper's p for (epsilon, delta)) and returns the
values whose estimated frequency is at least (t + 1)/n. Claim 3.4's proof takes
t = n alpha, with alpha Theorem 3.1(ii)'s error at failure probability 1/(200 h) (a union
bound over the h support bins; footnote 5), and asks for success probability >= 99/100.

Everything here is exact up to float:

- A value outside H has count 0, so hist reports exactly 0 for it (Theorem 3.1(iii)): it is
  never selected, and the success probability does not depend on d at all.
- Given the support counts (m_1, ..., m_h) the bins are independent, so every event of the
  form "each support bin satisfies A" has probability E[prod_j g(m_j)] under the multinomial
  law of the counts. Poissonization computes that expectation exactly: if the counts are
  independent Poisson(n/h), conditioning on their sum being n gives the multinomial, so

      E_multinomial[prod_j g(m_j)] = (g Pois(n/h))^{*h}(n) / Pois(n)(n),

  an h-fold convolution (by squaring, FFT: absolute float error ~1e-12, so a probability
  below that is "about 0" and one above 1 - 1e-12 "about 1").

`support_identification` returns the exact success probability and the proof's two events,
E_samp (every support value appears at least 2t + 1 times) and E_priv (every support bin is
estimated within t/n), each of which the proof lower-bounds by 199/200.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import signal, stats

from accountant.bounds.balcer_cheu_2020 import accuracy_alpha_thm31
from accountant.domains import Interval
from accountant.errors import ParameterError
from accountant.protocols.balcer_cheu.accuracy import failure_probabilities
from accountant.protocols.balcer_cheu.views import BalcerCheuParameters, hist_parameters

__all__ = ["SupportIdentification", "least_n_for_support", "multinomial_product",
           "support_identification"]

_H = Interval("h", 1, math.inf, closed="left")
_TARGET = Interval("target", 0.0, 1.0, closed="neither")
_MAX_N = 10**7


@dataclass(frozen=True, slots=True, kw_only=True)
class SupportIdentification:
    """One instance of Claim 3.4's protocol and its exact probabilities.

    Attributes:
        n, h: users and support size.
        p: hist's parameter (the paper's rule).
        t: the proof's t = n alpha (alpha of Theorem 3.1(ii) at failure probability 1/(200h)).
        success: P[the selected set is exactly H].
        sample_event: P[E_samp], every support value appears >= 2t + 1 times.
        privacy_event: P[E_priv], every support bin is estimated within t/n.
    """

    n: int
    h: int
    p: float
    t: float
    success: float
    sample_event: float
    privacy_event: float


def multinomial_product(g: np.ndarray, *, n: int, h: int) -> float:
    """E[prod_j g(m_j)] for (m_1, ..., m_h) ~ Multinomial(n; 1/h, ..., 1/h).

    Args:
        g: g(m) for m = 0..n, values in [0, 1].
        n: number of draws, >= 1.
        h: number of equally likely cells, >= 1.

    Returns:
        The expectation (float; clipped to [0, 1]).

    Raises:
        ParameterError: g not of length n + 1, h < 1.
    """
    _H.check(h)
    if len(g) != n + 1:
        raise ParameterError(f"len(g)={len(g)} is outside [{n + 1}, {n + 1}] (g on 0..n)")
    weights = np.asarray(g, dtype=float) * stats.poisson.pmf(np.arange(n + 1), n / h)
    total, power, k = None, weights, int(h)
    while k:  # binary powering of the convolution, truncated at n
        if k & 1:
            total = power if total is None else signal.fftconvolve(total, power)[:n + 1]
        k >>= 1
        if k:
            power = signal.fftconvolve(power, power)[:n + 1]
    assert total is not None  # h >= 1
    value = float(total[n]) / float(stats.poisson.pmf(n, n))
    return min(1.0, max(0.0, value))


def _selected_probabilities(params: BalcerCheuParameters, threshold: float) -> np.ndarray:
    """P[hist's estimate of a bin with m users >= threshold], m = 0..n."""
    n, p = params.n, params.p
    m = np.arange(n + 1)
    # estimate (m + K)/n - p >= threshold and m + K > n (else it reads 0 < threshold)
    least_k = np.maximum(n - m + 1, np.ceil(n * (threshold + p) - m - 1e-9)).astype(np.int64)
    return stats.binom.sf(least_k - 1, n, p)


def support_identification(*, epsilon: float, delta: float, h: int,
                           n: int) -> SupportIdentification:
    """Claim 3.4's protocol at (epsilon, delta, h, n): exact success and event probabilities.

    Args:
        epsilon: hist's target epsilon, in (0, 1].
        delta: hist's target delta, in (0, 1].
        h: support size, an integer >= 1 (the domain size d does not matter: see the module
            docstring).
        n: number of users, >= 100 log(2/delta)/epsilon^2 (Theorem 3.1) and <= 1e7.

    Returns:
        SupportIdentification.

    Raises:
        ParameterError: an argument outside its domain.
        RegimeError: n below Theorem 3.1's bound, or 1/(200h) < delta^25 (Theorem 3.1(ii) at
            the proof's failure probability; Claim 3.4's hypothesis).
    """
    _H.check(h)
    if not isinstance(n, int) or n > _MAX_N:
        raise ParameterError(f"n={n!r} is outside the integers in [1, {_MAX_N}]")
    h = int(h)
    params = hist_parameters(n=n, d=max(h, 2), epsilon=epsilon, delta=delta)
    alpha = float(accuracy_alpha_thm31(epsilon=epsilon, delta=delta, n=n, beta=1 / (200 * h)))
    t = n * alpha
    selected = _selected_probabilities(params, (t + 1) / n)
    selected[0] = 0.0  # a support value drawn by nobody reads 0 and is missed
    m = np.arange(n + 1)
    within = 1.0 - failure_probabilities(params, alpha=alpha)
    return SupportIdentification(
        n=n, h=h, p=params.p, t=t,
        success=multinomial_product(selected, n=n, h=h),
        sample_event=multinomial_product((m >= 2 * t + 1).astype(float), n=n, h=h),
        privacy_event=multinomial_product(within, n=n, h=h))


def least_n_for_support(*, epsilon: float, delta: float, h: int, target: float = 0.99,
                        criterion: str = "success") -> int:
    """The least n at which Claim 3.4's protocol meets its target.

    criterion "success": P[exactly H selected] >= target. "proof events": the proof's
    sufficient condition, P[E_samp] >= (1 + target)/2 and P[E_priv] >= (1 + target)/2
    (199/200 each for target 99/100). Doubling from Theorem 3.1's least n, then bisection;
    both criteria are monotone in n on every instance the tests scan, which the bisection
    relies on (the tests check the returned n against n - 1).

    Args:
        epsilon: in (0, 1].
        delta: in (0, 1].
        h: support size, >= 1.
        target: success probability, in (0, 1) (the paper's 99/100 by default).
        criterion: "success" or "proof events".

    Returns:
        The least n.

    Raises:
        ParameterError: an argument outside its domain, or no n <= 1e7 reaches the target.
        RegimeError: as `support_identification`.
    """
    _TARGET.check(target)
    if criterion not in ("success", "proof events"):
        raise ParameterError(f"criterion={criterion!r} is not one of success, proof events")
    low = math.ceil(100 * math.log(2 / delta) / epsilon**2)

    def ok(n: int) -> bool:
        r = support_identification(epsilon=epsilon, delta=delta, h=h, n=n)
        if criterion == "success":
            return r.success >= target
        return min(r.sample_event, r.privacy_event) >= (1 + target) / 2

    if ok(low):
        return low
    high = low
    while not ok(high):
        low, high = high, 2 * high
        if high > _MAX_N:
            raise ParameterError(f"target={target!r} is not reached by any n <= {_MAX_N}")
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if ok(mid) else (mid, high)
    return high
