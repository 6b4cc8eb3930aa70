"""Balcer & Cheu, "Separating Local & Shuffled Differential Privacy via Histograms", ITC 2020.

Closed forms of the paper (docs/balcer-cheu-2020.md#the-zsum-protocol,
docs/balcer-cheu-2020.md#smoothness, docs/balcer-cheu-2020.md#the-hist-protocol), with their regime
checks:

- `paper_p`: the zsum parameter p = 1 - 50 log(2/delta) / (epsilon^2 n) (Fig. 1), valid
  for epsilon, delta in (0, 1] and n >= 100 log(2/delta) / epsilon^2 (Theorem 3.1), which
  is exactly p >= 1/2;
- `accuracy_alpha_thm31`: the (alpha, beta)-accuracy of Theorem 3.1(ii),
  alpha = 50 log(2/delta)/(epsilon^2 n) + sqrt(200 log(2/delta) log(2/beta)) / (epsilon n),
  for beta >= delta^25;
- `accuracy_alpha_for_p`: the same bound in the proof's form for any p,
  alpha = (1 - p) + 2 sqrt(p (1 - p) log(2/beta) / n), valid when the Chernoff step is,
  beta >= 2 exp(-n p (1 - p)) (this is what a calibrated p buys);
- `simultaneous_alpha_thm32`: Theorem 3.2(iii), Theorem 3.1(ii) at failure probability
  beta / n, for beta >= n delta^25;
- `lemma_a3_delta`, `lemma_a3_epsilon`: the smoothness parameters of Bin(n, g) of Lemma
  A.3 (from Ghazi, Golowich, Kumar, Pagh, Velingker), eps = log((1+a)/(1-a)) and
  delta = exp(-a^2 g n / 8) + exp(-a^2 g n / (8 + 2a)), for g in [0, 1/2], a in [0, 1],
  k <= a g n / 2.

All logarithms are natural (docs/README.md#logarithms-and-notation). These are upper bounds (on an
error or on a
privacy parameter) as the paper states them; the exact values live in
`accountant.protocols.balcer_cheu`.
"""

from __future__ import annotations

import math
import sys

from accountant.domains import N_USERS, Interval
from accountant.errors import ParameterError, RegimeError
from accountant.numeric import rounding
from accountant.result import Direction, Kind, Result, Source

__all__ = [
    "CITATION",
    "paper_p",
    "noise_gamma",
    "accuracy_alpha_thm31",
    "accuracy_alpha_for_p",
    "simultaneous_alpha_thm32",
    "lemma_a3_delta",
    "lemma_a3_epsilon",
]

CITATION = "Balcer, Cheu, Separating Local & Shuffled Differential Privacy via Histograms, ITC 2020"
_NAME = "bounds.balcer_cheu_2020"
_UNIT = Interval("epsilon", 0.0, 1.0, closed="right")
_BETA = Interval("beta", 0.0, 1.0, closed="neither")
_A = Interval("a", 0.0, 1.0, closed="neither")
_GAMMA = Interval("gamma", 0.0, 0.5, closed="right")
_P = Interval("p", 0.0, 1.0, closed="neither")


def _check_privacy(epsilon: float, delta: float) -> None:
    _UNIT.check(epsilon)
    _UNIT.named("delta").check(delta)


def noise_gamma(*, epsilon: float, delta: float, n: int) -> float:
    """g = 1 - p = 50 log(2/delta) / (epsilon^2 n), Fig. 1 (rounded up: more noise).

    Raises RegimeError when n < 100 log(2/delta)/epsilon^2 (Theorem 3.1; i.e. g > 1/2).

    Args:
        epsilon: central privacy parameter, in (0, 1].
        delta: central delta, in (0, 1].
        n: number of users, an integer >= 1.

    Returns:
        g as a float, rounded up, in (0, 1/2].

    Raises:
        ParameterError: epsilon or delta outside (0, 1], n not a positive integer.
        RegimeError: g > 1/2, i.e. n < 100 log(2/delta) / epsilon^2 (Theorem 3.1's
            hypothesis; the message, which names `paper_p`, gives the n needed).
    """
    _check_privacy(epsilon, delta)
    N_USERS.check(n)
    ld = math.log(2.0) - math.log(delta)
    den = epsilon * epsilon * n
    # below epsilon ~ 1e-154 the denominator underflows (to 0 below 1e-162: a
    # ZeroDivisionError); dividing by epsilon twice instead only grows the quotient, to +inf
    # at worst, which the regime check below refuses
    g = rounding.up(50.0 * ld / den if den >= sys.float_info.min
                    else 50.0 * ld / n / epsilon / epsilon)
    if g > 0.5:
        need = 100.0 * ld / epsilon / epsilon
        shown = (f"{math.ceil(need)}" if need < 1e15 else f"{need:.3g}" if math.isfinite(need)
                 else f"10^{math.log10(100.0 * ld) - 2.0 * math.log10(epsilon):.1f}")
        raise RegimeError(
            f"{_NAME}.paper_p needs n >= 100*ln(2/delta)/epsilon^2 (Balcer-Cheu 2020, "
            f"Theorem 3.1; equivalently p >= 1/2); got n={n}, epsilon={epsilon!r}, "
            f"delta={delta!r} (need n >= {shown})")
    return g


def paper_p(*, epsilon: float, delta: float, n: int) -> float:
    """The zsum/hist randomizer's parameter p = 1 - 50 log(2/delta)/(epsilon^2 n) (Fig. 1).

    1 - p is computed first and p = 1 - g is exact in float for g <= 1/2 (Sterbenz), so
    the p used by every computation is exactly 1 - noise_gamma(...).

    Args:
        epsilon: central privacy parameter, in (0, 1].
        delta: central delta, in (0, 1].
        n: number of users, an integer >= 1.

    Returns:
        p as a float in [1/2, 1).

    Raises:
        ParameterError: epsilon or delta outside (0, 1], n not a positive integer.
        RegimeError: n < 100 log(2/delta) / epsilon^2 (Theorem 3.1's hypothesis).
    """
    return 1.0 - noise_gamma(epsilon=epsilon, delta=delta, n=n)


def _accuracy(value: float, function: str, locator: str, at: float) -> Result:
    return Result(quantity="accuracy_alpha", value=rounding.up(value), kind=Kind.UPPER,
                  direction=Direction.MAX, method=f"{_NAME}.{function}",
                  source=Source(citation=CITATION, locator=locator), at=at)


def accuracy_alpha_thm31(*, epsilon: float, delta: float, n: int, beta: float) -> Result:
    """Theorem 3.1(ii): |output - mean(x)| <= alpha with probability >= 1 - beta.

    alpha = 50 log(2/delta)/(epsilon^2 n) + sqrt(200 log(2/delta) log(2/beta))/(epsilon n).

    Args:
        epsilon: central privacy parameter, in (0, 1].
        delta: central delta, in (0, 1].
        n: number of users, an integer >= 1.
        beta: failure probability, in (0, 1), at least delta^25.

    Returns:
        Result(quantity="accuracy_alpha", kind=UPPER, direction=MAX, at=beta), value rounded
        up, source "Theorem 3.1(ii)".

    Raises:
        ParameterError: epsilon or delta outside (0, 1], n not a positive integer, beta
            outside (0, 1).
        RegimeError: beta < delta^25, or n below Theorem 3.1's bound.
    """
    _check_privacy(epsilon, delta)
    _BETA.check(beta)
    noise_gamma(epsilon=epsilon, delta=delta, n=n)
    if math.log(beta) < 25 * math.log(delta):
        raise RegimeError(f"{_NAME}.accuracy_alpha_thm31 needs beta >= delta^25 (Balcer-Cheu "
                          f"2020, Theorem 3.1(ii)); got beta={beta!r}, delta={delta!r}")
    ld, lb = (math.log(2.0) - math.log(delta)), (math.log(2.0) - math.log(beta))
    alpha = 50.0 * ld / (epsilon ** 2 * n) + math.sqrt(200.0 * ld * lb) / (epsilon * n)
    return _accuracy(alpha, "accuracy_alpha_thm31", "Theorem 3.1(ii)", beta)


def accuracy_alpha_for_p(*, p: float, n: int, beta: float) -> Result:
    """The proof of Theorem 3.1(ii) at any p: alpha = (1-p) + 2 sqrt(p(1-p) log(2/beta)/n).

    The proof bounds |Bin(n,p)/n - p| by a multiplicative Chernoff bound, which it uses
    under beta >= 2 exp(-n p (1-p)); we enforce that condition.

    Args:
        p: the randomizer's parameter, in (0, 1).
        n: number of users, an integer >= 1.
        beta: failure probability, in (0, 1).

    Returns:
        Result(quantity="accuracy_alpha", kind=UPPER, direction=MAX, at=beta), value rounded
        up, source "Theorem 3.1(ii), proof".

    Raises:
        ParameterError: p or beta outside (0, 1), n not a positive integer.
        RegimeError: beta < 2 exp(-n p (1-p)).
    """
    _P.check(p)
    N_USERS.check(n)
    _BETA.check(beta)
    g = 1.0 - p
    if beta < 2.0 * math.exp(-n * p * g):
        raise RegimeError(f"{_NAME}.accuracy_alpha_for_p needs beta >= 2 exp(-n p (1-p)) "
                          f"(Balcer-Cheu 2020, proof of Theorem 3.1(ii)); got beta={beta!r}, "
                          f"n={n}, p={p!r} (bound {2.0 * math.exp(-n * p * g):.3g})")
    alpha = g + 2.0 * math.sqrt(p * g * (math.log(2.0) - math.log(beta)) / n)
    return _accuracy(alpha, "accuracy_alpha_for_p", "Theorem 3.1(ii), proof", beta)


def simultaneous_alpha_thm32(*, epsilon: float, delta: float, n: int, beta: float) -> Result:
    """Theorem 3.2(iii): all bins of the histogram within alpha at once, w.p. >= 1 - beta.

    Theorem 3.1(ii) at failure probability beta/n (at most n bins are nonzero; zero bins
    are exact). Needs beta >= n delta^25.

    Args:
        epsilon: central privacy parameter, in (0, 1].
        delta: central delta, in (0, 1]. It enters the regime check before it is validated:
            delta <= 0 raises math's ValueError, not ParameterError.
        n: number of users, an integer >= 1.
        beta: failure probability for all bins together, in (0, 1).

    Returns:
        `accuracy_alpha_thm31` at beta/n, relabelled: method
        "bounds.balcer_cheu_2020.simultaneous_alpha_thm32", at=beta, source
        "Theorem 3.2(iii)" (quantity "accuracy_alpha", UPPER).

    Raises:
        ParameterError: beta outside (0, 1), n not a positive integer, epsilon or delta
            outside (0, 1] (delta > 1 only; see above).
        RegimeError: beta < n delta^25, or n below Theorem 3.1's bound.
    """
    _BETA.check(beta)
    N_USERS.check(n)
    if math.log(beta) < math.log(n) + 25 * math.log(delta):
        raise RegimeError(f"{_NAME}.simultaneous_alpha_thm32 needs beta >= n delta^25 "
                          f"(Balcer-Cheu 2020, Theorem 3.2(iii)); got beta={beta!r}, n={n}, "
                          f"delta={delta!r}")
    r = accuracy_alpha_thm31(epsilon=epsilon, delta=delta, n=n, beta=beta / n)
    return r.with_(method=f"{_NAME}.simultaneous_alpha_thm32", at=beta,
                   source=Source(citation=CITATION, locator="Theorem 3.2(iii)"))


def lemma_a3_epsilon(*, a: float) -> float:
    """eps = log((1+a)/(1-a)) of Lemma A.3 (rounded up).

    Args:
        a: the lemma's accuracy parameter, in (0, 1).

    Returns:
        eps as a float, rounded up.

    Raises:
        ParameterError: a outside (0, 1).
    """
    _A.check(a)
    return rounding.up(math.log1p(a) - math.log1p(-a))


def lemma_a3_delta(*, n: int, gamma: float, a: float, k: int = 1) -> Result:
    """Lemma A.3: Bin(n, gamma) is (eps, delta, k)-smooth with eps = log((1+a)/(1-a)) and
    delta = exp(-a^2 gamma n / 8) + exp(-a^2 gamma n / (8 + 2a)).

    Args:
        n: number of trials, an integer >= 1.
        gamma: success probability, in (0, 1/2].
        a: the lemma's accuracy parameter, in (0, 1).
        k: the smoothness shift, an int >= 1, at most a gamma n / 2.

    Returns:
        Result(quantity="delta", kind=UPPER, direction=MAX, at=lemma_a3_epsilon(a=a)), value
        rounded up, source "Lemma A.3".

    Raises:
        ParameterError: n not a positive integer, gamma outside (0, 1/2], a outside (0, 1),
            k not an int >= 1.
        RegimeError: k > a gamma n / 2 (the lemma's hypothesis).
    """
    N_USERS.check(n)
    _GAMMA.check(gamma)
    _A.check(a)
    if not isinstance(k, int) or k < 1:
        raise ParameterError(f"k={k!r} is outside the integers >= 1")
    if k > a * gamma * n / 2:
        raise RegimeError(f"{_NAME}.lemma_a3_delta needs k <= a*gamma*n/2 (Balcer-Cheu 2020, "
                          f"Lemma A.3); got k={k}, a={a!r}, gamma={gamma!r}, n={n} "
                          f"(a*gamma*n/2 = {a * gamma * n / 2:.4g})")
    x = a * a * gamma * n
    delta = math.exp(-x / 8.0) + math.exp(-x / (8.0 + 2.0 * a))
    return Result(quantity="delta", value=rounding.up(delta), kind=Kind.UPPER,
                  direction=Direction.MAX, method=f"{_NAME}.lemma_a3_delta",
                  source=Source(citation=CITATION, locator="Lemma A.3"),
                  at=lemma_a3_epsilon(a=a))
