"""The single- vs multi-message separation of [GGKPV], measured (docs/ggkpv.md).

For each (n, B) every protocol is set to the same certified (epsilon, delta):

- multi-message Hadamard response: the least rho whose certified epsilon(delta) meets the
  target (`accountant.protocols.ggkpv.calibrate`);
- k-RR over B symbols and symmetric unary encoding: the largest epsilon0 whose certified
  shuffled epsilon(delta) meets it (`verify.samplers.ggkpv.calibrated_epsilon0`).

Each is run `trials` times (seeded) on one dataset (half the users on value 1, the rest
spread evenly over 2..B) and the row reports the maximum count error over the B values
(mean and standard deviation over trials), messages and bits per user, and the analyzer's
query time per value. The slides predict single-message error growing like
min(n^(1/4), sqrt(B)) and multi-message error roughly flat in B.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from accountant.protocols.ggkpv import calibrate
from verify.samplers import ggkpv as g

__all__ = ["HEADER", "DEFAULT_NS", "DEFAULT_BS", "dataset", "run_separation"]

HEADER = ["n", "B", "protocol", "epsilon", "delta", "parameter", "parameter_value",
          "certified_epsilon", "max_error_mean", "max_error_sd", "messages_per_user",
          "bits_per_user", "query_seconds_per_value", "trials"]
DEFAULT_NS: tuple[int, ...] = (1000, 4000)
DEFAULT_BS: tuple[int, ...] = (7, 31, 127)


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


def _errors(run_once: Callable[[np.random.Generator], np.ndarray], f: np.ndarray,
            trials: int, rng: np.random.Generator) -> tuple[float, float, float]:
    """(mean, sd of the max count error over trials, query seconds per value)."""
    errs, seconds = [], 0.0
    for _ in range(trials):
        t0 = time.perf_counter()
        est = run_once(rng)
        seconds += time.perf_counter() - t0
        errs.append(float(np.max(np.abs(est - f))))
    a = np.asarray(errs)
    return float(a.mean()), float(a.std(ddof=1)) if a.size > 1 else 0.0, \
        seconds / (trials * f.size)


def run_separation(*, ns: Sequence[int] = DEFAULT_NS, Bs: Sequence[int] = DEFAULT_BS,
                   epsilon: float = 1.0, delta: float = 1e-6, trials: int = 10,
                   seed: int = 0) -> list[dict[str, Any]]:
    """Run the experiment; one row (HEADER keys) per (n, B, protocol).

    Args:
        ns: numbers of users.
        Bs: domain sizes (>= 2).
        epsilon, delta: the common certified target.
        trials: runs per protocol and (n, B).
        seed: seed of numpy's default generator (one stream for the whole run).

    Returns:
        The rows. Query time includes the randomizers for the single-message protocols
        (they are cheap); for the multi-message protocol it is the analyzer alone.
    """
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
            msgs_t, errs = 0.0, []
            for _ in range(trials):
                m = g.shuffled_hadamard_messages(xs, B=B, tau=tau, rho=rho, rng=rng)
                t0 = time.perf_counter()
                est = g.shuffled_hadamard_estimate(m, n=n, B=B, rho=rho)
                msgs_t += time.perf_counter() - t0
                errs.append(float(np.max(np.abs(est - f))))
            e = np.asarray(errs)
            rows.append(common | {
                "protocol": "multi-message hadamard", "parameter": "rho",
                "parameter_value": rho, "certified_epsilon": float(c.epsilon),
                "max_error_mean": float(e.mean()),
                "max_error_sd": float(e.std(ddof=1)) if e.size > 1 else 0.0,
                "messages_per_user": 1 + rho,
                "bits_per_user": (1 + rho) * tau * int(math.log2(c.params.K)),
                "query_seconds_per_value": msgs_t / (trials * B)})
            eps0, r = g.calibrated_epsilon0("k-rr", n=n, B=B, epsilon=epsilon, delta=delta,
                                            rel_tol=1e-2)
            mean, sd, q = _errors(lambda r_, e0=eps0, xs=xs, B=B: g.krr_estimate(
                g.krr_randomizer(xs, epsilon0=e0, B=B, rng=r_), epsilon0=e0, B=B), f,
                trials, rng)
            rows.append(common | {
                "protocol": "k-rr", "parameter": "epsilon0", "parameter_value": eps0,
                "certified_epsilon": float(r), "max_error_mean": mean, "max_error_sd": sd,
                "messages_per_user": 1, "bits_per_user": math.ceil(math.log2(B)),
                "query_seconds_per_value": q})
            if n not in unary_eps0:
                e0, ru = g.calibrated_epsilon0("unary", n=n, B=B, epsilon=epsilon,
                                               delta=delta, rel_tol=1e-2)
                unary_eps0[n] = (e0, float(ru))
            e0, cert = unary_eps0[n]
            mean, sd, q = _errors(lambda r_, e0=e0, xs=xs, B=B: g.unary_estimate(
                g.unary_randomizer(xs, epsilon0=e0, B=B, rng=r_), epsilon0=e0), f, trials,
                rng)
            rows.append(common | {
                "protocol": "unary encoding", "parameter": "epsilon0", "parameter_value": e0,
                "certified_epsilon": cert, "max_error_mean": mean, "max_error_sd": sd,
                "messages_per_user": 1, "bits_per_user": B, "query_seconds_per_value": q})
    return rows
