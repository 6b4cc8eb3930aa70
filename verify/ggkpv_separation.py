"""The single- vs multi-message separation of [GGKPV], measured (docs/ggkpv.md#separation).

For each (n, B) every protocol is set to the same certified (epsilon, delta):

- multi-message Hadamard response: the least rho whose certified epsilon(delta) meets the
  target (`accountant.protocols.ggkpv.calibrate`);
- k-RR over B symbols and symmetric unary encoding: the largest epsilon0 whose certified
  shuffled epsilon(delta) meets it (by default `verify.samplers.ggkpv.calibrated_epsilon0`;
  `run_separation(epsilon0_search=...)` takes any search whose answer carries the certified
  epsilon(delta) upper end at it, as figures/fig_ggkpv.py's one-check-per-step search does).

Each is run `trials` times (seeded) on one dataset (half the users on value 1, "the heavy
value", the rest spread evenly over 2..B). A row reports, besides messages and bits per
user and the analyzer's query time per value:

- the maximum count error over the B values (mean and sd over trials), and for comparison
  the expected maximum of B *independent* normal errors with the estimator's exact
  per-value standard deviations (`expected_max_abs_normal`; a reference, not a bound);
- the per-value RMS count error, pooled over trials and the B values, with its standard
  error, next to the closed form sqrt(mean_x Var f^_x) (`estimator_variances`);
- the RMS error on the heavy value alone, next to its closed-form standard deviation.

What the measurement shows (docs/ggkpv.md#separation has the numbers): the multi-message
per-value error is flat in B (and in n: the calibrated rho is the same), so its maximum over
B values grows only as the maximum of B noisy estimates must (about sqrt(2 ln B) times the
per-value sd). k-RR's error on light values is flat too, but its error on the heavy value
grows with B (variance about f_1 (B - 1)/e^epsilon0), and that drives its maximum error.
Unary encoding's per-value error does not depend on B but grows with n (the n^(1/4) branch
of the slides' min(n^(1/4), sqrt(B))). The slides' single-message lower bound concerns the
worst value of the worst dataset, not the average value.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import integrate, special

from accountant.errors import ParameterError
from accountant.protocols.ggkpv import calibrate
from accountant.result import Result
from verify.samplers import ggkpv as g

__all__ = ["Epsilon0Search", "HEADER", "DEFAULT_NS", "DEFAULT_BS", "PROTOCOLS", "dataset",
           "estimator_variances", "expected_max_abs_normal", "run_separation"]

HEADER = ["n", "B", "protocol", "epsilon", "delta", "parameter", "parameter_value",
          "certified_epsilon", "max_error_mean", "max_error_sd", "max_error_indep_normal",
          "rms_error", "rms_error_se", "rms_error_theory", "heavy_value_rms_error",
          "heavy_value_rms_error_se", "heavy_value_sd_theory", "messages_per_user",
          "bits_per_user", "query_seconds_per_value", "trials"]
DEFAULT_NS: tuple[int, ...] = (1000, 4000)
DEFAULT_BS: tuple[int, ...] = (7, 15, 31, 63, 127)
PROTOCOLS: tuple[str, ...] = ("multi-message hadamard", "k-rr", "unary encoding")


Epsilon0Search = Callable[[str, int, int, float, float], tuple[float, Result]]


def _default_search(protocol: str, n: int, B: int, epsilon: float,
                    delta: float) -> tuple[float, Result]:
    return g.calibrated_epsilon0(protocol, n=n, B=B, epsilon=epsilon, delta=delta,
                                 rel_tol=1e-2)


def dataset(n: int, B: int) -> np.ndarray:
    """Half the users on value 1, the rest spread evenly over 2..B (B >= 2).

    Args:
        n: number of users.
        B: domain size.

    Returns:
        The users' values.
    """
    rest = n - n // 2
    return np.concatenate([np.ones(n // 2, dtype=np.int64),
                           2 + np.arange(rest, dtype=np.int64) % (B - 1)])


def estimator_variances(protocol: str, f: np.ndarray, *, n: int, B: int, parameter: float,
                        tau: int | None = None) -> np.ndarray:
    """Exact Var f^_x, x = 1..B, of each protocol's unbiased estimator on counts f.

    Every count is a sum of independent Bernoulli indicators (one per user's report, or per
    tuple), so the variances are exact for every dataset:

    - multi-message Hadamard (parameter = rho, pi = 2^-tau): N_x = f_x + Bin(n - f_x, pi)
      + Bin(n rho, pi), so Var f^_x = (n (1 + rho) - f_x) pi / (1 - pi);
    - k-RR (parameter = epsilon0; p = e^eps0/(e^eps0 + B - 1), q = 1/(e^eps0 + B - 1)):
      Var f^_x = (f_x p (1 - p) + (n - f_x) q (1 - q)) / (p - q)^2;
    - unary encoding (parameter = epsilon0; p = 1/(1 + e^(-eps0/2)), q = 1 - p): every bit
      has variance p q, so Var f^_x = n p q / (p - q)^2 for every x.

    Args:
        protocol: one of PROTOCOLS.
        f: the true counts, length B.
        n: number of users.
        B: domain size.
        parameter: rho (multi-message) or epsilon0 (single-message).
        tau: indices per tuple (multi-message only; default ceil(log2 n)).

    Returns:
        The B variances.
    """
    f = np.asarray(f, dtype=float)
    if protocol == "multi-message hadamard":
        pi = 2.0 ** -(g.default_tau(n) if tau is None else int(tau))
        return (n * (1 + parameter) - f) * pi / (1.0 - pi)
    if protocol == "k-rr":
        den = math.exp(parameter) + B - 1
        p, q = math.exp(parameter) / den, 1.0 / den
        return (f * p * (1 - p) + (n - f) * q * (1 - q)) / (p - q) ** 2
    if protocol == "unary encoding":
        p = 1.0 / (1.0 + math.exp(-parameter / 2))
        q = 1.0 - p
        return np.full(f.shape, n * p * q / (p - q) ** 2)
    raise ParameterError(f"protocol={protocol!r}; valid: {', '.join(PROTOCOLS)}")


def expected_max_abs_normal(sds: Sequence[float] | np.ndarray) -> float:
    """E max_x |Z_x| for independent Z_x ~ N(0, sds[x]^2), by quadrature of
    integral_0^inf (1 - prod_x P(|Z_x| <= t)) dt.

    A reference for the maximum count error: the estimators' errors are neither exactly
    normal nor exactly independent (k-RR's counts are multinomial), so this is neither a
    bound nor an estimate of the true expectation, only what the maximum of B independent
    errors of the same sizes would be (for B equal sds, about sqrt(2 ln B) sd for large B).

    Args:
        sds: positive standard deviations.

    Returns:
        The expectation.
    """
    s = np.asarray(sds, dtype=float)
    if s.size == 0 or np.any(~(s > 0)):
        raise ParameterError("sds must be a non-empty array of positive numbers")

    def tail(t: float) -> float:
        with np.errstate(divide="ignore"):
            return float(-np.expm1(np.sum(np.log(special.erf(t / (s * math.sqrt(2.0)))))))

    top = float(s.max()) * (math.sqrt(2.0 * math.log(s.size + 1.0)) + 12.0)
    value, _ = integrate.quad(tail, 0.0, top, limit=200)
    return float(value)


def _summary(errs: np.ndarray, seconds: float) -> dict[str, float]:
    """Columns measured from a (trials, B) array of count errors."""
    T, B = errs.shape
    mx = np.max(np.abs(errs), axis=1)
    ms = np.mean(errs ** 2, axis=1)  # per-trial mean squared error over the B values
    heavy = errs[:, 0] ** 2
    rms, h_rms = math.sqrt(float(ms.mean())), math.sqrt(float(heavy.mean()))

    def se_of_root(x: np.ndarray, root: float) -> float:  # delta method, sqrt of a mean
        return float(x.std(ddof=1) / math.sqrt(T) / (2.0 * root)) if T > 1 and root > 0 \
            else math.inf
    return {"max_error_mean": float(mx.mean()),
            "max_error_sd": float(mx.std(ddof=1)) if T > 1 else 0.0,
            "rms_error": rms, "rms_error_se": se_of_root(ms, rms),
            "heavy_value_rms_error": h_rms, "heavy_value_rms_error_se": se_of_root(heavy, h_rms),
            "query_seconds_per_value": seconds / (T * B)}


def _simulate(run_once: Callable[[np.random.Generator], tuple[np.ndarray, float]],
              f: np.ndarray, trials: int, rng: np.random.Generator) -> dict[str, float]:
    errs, seconds = np.empty((trials, f.size)), 0.0
    for t in range(trials):
        est, sec = run_once(rng)
        errs[t] = est - f
        seconds += sec
    return _summary(errs, seconds)


def _timed(fn: Callable[[], np.ndarray]) -> tuple[np.ndarray, float]:
    t0 = time.perf_counter()
    est = fn()
    return est, time.perf_counter() - t0


def _theory(protocol: str, f: np.ndarray, **kw: Any) -> dict[str, float]:
    sds = np.sqrt(estimator_variances(protocol, f, **kw))
    return {"rms_error_theory": math.sqrt(float(np.mean(sds ** 2))),
            "heavy_value_sd_theory": float(sds[0]),
            "max_error_indep_normal": expected_max_abs_normal(sds)}


def run_separation(*, ns: Sequence[int] = DEFAULT_NS, Bs: Sequence[int] = DEFAULT_BS,
                   epsilon: float = 1.0, delta: float = 1e-6, trials: int = 10,
                   seed: int = 0,
                   epsilon0_search: Epsilon0Search | None = None) -> list[dict[str, Any]]:
    """Run the experiment; one row (HEADER keys) per (n, B, protocol).

    Args:
        ns: numbers of users.
        Bs: domain sizes (>= 2).
        epsilon, delta: the common certified target.
        trials: runs per protocol and (n, B) (>= 2 for the standard deviations).
        seed: seed of numpy's default generator (one stream for the whole run).
        epsilon0_search: (protocol, n, B, epsilon, delta) -> (epsilon0, the certified
            upper Result on epsilon(delta) at epsilon0), protocol "k-rr" or "unary"; its
            Result (<= epsilon, checked here) is the row's certified_epsilon. Default:
            `calibrated_epsilon0` at rel_tol 1e-2.

    Returns:
        The rows. Query time includes the randomizers for the single-message protocols
        (they are cheap); for the multi-message protocol it is the analyzer alone. The
        heavy value is value 1 (n // 2 users).
    """
    search = _default_search if epsilon0_search is None else epsilon0_search

    def certified(protocol: str, n: int, B: int) -> tuple[float, float]:
        e0, r = search(protocol, n, B, epsilon, delta)
        if r.kind.value != "upper" or not float(r) <= epsilon:
            raise ParameterError(f"epsilon0 search returned {r!r} for {protocol}: not a "
                                 f"certified upper end <= epsilon={epsilon}")
        return e0, float(r)
    rng = np.random.default_rng(seed)
    unary_eps0: dict[int, tuple[float, float]] = {}
    rows: list[dict[str, Any]] = []
    for n in ns:
        for B in Bs:
            xs = dataset(n, B)
            f = g.true_frequencies(xs, B)
            common = {"n": n, "B": B, "epsilon": epsilon, "delta": delta, "trials": trials}
            c = calibrate(n=n, B=B, target_epsilon=epsilon, target_delta=delta)
            tau, rho = c.params.tau, c.rho

            def multi(r_: np.random.Generator, xs=xs, B=B, tau=tau, rho=rho, n=n):
                m = g.shuffled_hadamard_messages(xs, B=B, tau=tau, rho=rho, rng=r_)
                return _timed(lambda: g.shuffled_hadamard_estimate(m, n=n, B=B, rho=rho))
            rows.append(common | {
                "protocol": PROTOCOLS[0], "parameter": "rho", "parameter_value": rho,
                "certified_epsilon": float(c.epsilon),
                "messages_per_user": 1 + rho,
                "bits_per_user": (1 + rho) * tau * int(math.log2(c.params.K))}
                | _simulate(multi, f, trials, rng)
                | _theory(PROTOCOLS[0], f, n=n, B=B, parameter=rho, tau=tau))
            eps0, r = certified("k-rr", n, B)
            rows.append(common | {
                "protocol": PROTOCOLS[1], "parameter": "epsilon0", "parameter_value": eps0,
                "certified_epsilon": float(r), "messages_per_user": 1,
                "bits_per_user": math.ceil(math.log2(B))}
                | _simulate(lambda r_, e0=eps0, xs=xs, B=B: _timed(lambda: g.krr_estimate(
                    g.krr_randomizer(xs, epsilon0=e0, B=B, rng=r_), epsilon0=e0, B=B)),
                    f, trials, rng)
                | _theory(PROTOCOLS[1], f, n=n, B=B, parameter=eps0))
            if n not in unary_eps0:
                unary_eps0[n] = certified("unary", n, B)
            e0, cert = unary_eps0[n]
            rows.append(common | {
                "protocol": PROTOCOLS[2], "parameter": "epsilon0", "parameter_value": e0,
                "certified_epsilon": cert, "messages_per_user": 1, "bits_per_user": B}
                | _simulate(lambda r_, e0=e0, xs=xs, B=B: _timed(lambda: g.unary_estimate(
                    g.unary_randomizer(xs, epsilon0=e0, B=B, rng=r_), epsilon0=e0)),
                    f, trials, rng)
                | _theory(PROTOCOLS[2], f, n=n, B=B, parameter=e0))
    return rows
