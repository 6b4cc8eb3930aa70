"""Literal GKM counting protocol (Algorithms 1-2) and a vectorized fast path.

Ghazi, Kumar, Manurangsi, "Pure-DP Aggregation in the Shuffle Model", Sec. 3.1:

Algorithm 1 (randomizer of user i with input x_i, n users):
  1. (y+, y-) = (0, 0) with probability q, else (s + x_i, s);
  2. z+, z- i.i.d. ~ NB(1/n, 1 - e^-epsilon')  (D_noise divided n ways);
  3. z+- ~ Poi(lam / n)                         (D_flood divided n ways);
  4. send y+ + z+ + z+- copies of +1 and y- + z- + z+- copies of -1.
Shuffler: a uniformly random permutation of all messages.
Algorithm 2 (analyzer): return the sum of the messages, V+ - V- (corrected,
docs/gkm.md#randomizer-and-analyzer:
the printed "- n s" is wrong).

The GKMP20 protocol (`input_step="gkmp20"`) replaces step 1 by (y+, y-) = (x_i, 0).

This module is independent of `accountant.protocols.gkm.view` (it never looks at the
exact PMF); the cross-check of the two is in tests/verify/test_gkm_crosscheck.py.
numpy's negative_binomial(r, p) counts failures before r successes of probability p, the
parameterization NB(r, p) of docs/README.md#distributions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "randomizer",
    "shuffler",
    "analyzer",
    "run_protocol",
    "sample_views",
    "simulate_summary",
]


def randomizer(x: int, *, n: int, epsilon_prime: float, q: float, s: int, lam: float,
               rng: np.random.Generator, input_step: str = "gkm") -> list[int]:
    """Algorithm 1: the list of messages (+1 / -1) of one user with input x."""
    if input_step == "gkm":
        y_plus, y_minus = (0, 0) if rng.random() < q else (s + x, s)
    elif input_step == "gkmp20":
        y_plus, y_minus = x, 0
    else:
        raise ValueError(f"input_step={input_step!r} is not 'gkm' or 'gkmp20'")
    p_noise = -math.expm1(-epsilon_prime)  # 1 - e^-epsilon'
    z_plus = int(rng.negative_binomial(1.0 / n, p_noise))
    z_minus = int(rng.negative_binomial(1.0 / n, p_noise))
    z_flood = int(rng.poisson(lam / n))
    return [+1] * (y_plus + z_plus + z_flood) + [-1] * (y_minus + z_minus + z_flood)


def shuffler(messages: list[list[int]], rng: np.random.Generator) -> np.ndarray:
    """All users' messages in a uniformly random order."""
    flat = np.array([m for user in messages for m in user], dtype=np.int8)
    return flat[rng.permutation(flat.size)]


def analyzer(shuffled: np.ndarray) -> int:
    """Algorithm 2, corrected: the sum of all messages (= V+ - V-)."""
    return int(np.sum(shuffled, dtype=np.int64))


def run_protocol(data: list[int], *, epsilon_prime: float, q: float, s: int, lam: float,
                 rng: np.random.Generator,
                 input_step: str = "gkm") -> tuple[tuple[int, int], int, int]:
    """One literal run: ((V+, V-) seen in the shuffled output, estimate, #messages)."""
    n = len(data)
    messages = [randomizer(x, n=n, epsilon_prime=epsilon_prime, q=q, s=s, lam=lam, rng=rng,
                           input_step=input_step) for x in data]
    shuffled = shuffler(messages, rng)
    v_plus = int(np.count_nonzero(shuffled == 1))
    v_minus = int(np.count_nonzero(shuffled == -1))
    return (v_plus, v_minus), analyzer(shuffled), int(shuffled.size)


def sample_views(data: np.ndarray, *, epsilon_prime: float, q: float, s: int, lam: float,
                 trials: int, rng: np.random.Generator, input_step: str = "gkm",
                 chunk: int = 2_000_000) -> tuple[np.ndarray, np.ndarray]:
    """Fast path: (V+, V-) of `trials` runs, per-user draws vectorized over (trials, n).

    Same per-user laws as `randomizer`; the permutation is skipped because (V+, V-) and
    the sum do not depend on the order. Returns int64 arrays of shape (trials,).
    """
    data = np.asarray(data, dtype=np.int64)
    n = data.size
    p_noise = -math.expm1(-epsilon_prime)
    per = max(1, chunk // max(n, 1))
    v_plus, v_minus = [], []
    done = 0
    while done < trials:
        m = min(per, trials - done)
        shape = (m, n)
        if input_step == "gkm":
            active = rng.random(shape) >= q
            y_plus = np.where(active, s + data, 0)
            y_minus = np.where(active, s, 0)
        else:
            y_plus = np.broadcast_to(data, shape)
            y_minus = np.zeros(shape, dtype=np.int64)
        z_plus = rng.negative_binomial(1.0 / n, p_noise, size=shape)
        z_minus = rng.negative_binomial(1.0 / n, p_noise, size=shape)
        z_flood = rng.poisson(lam / n, size=shape)
        v_plus.append(np.sum(y_plus + z_plus + z_flood, axis=1))
        v_minus.append(np.sum(y_minus + z_minus + z_flood, axis=1))
        done += m
    return np.concatenate(v_plus).astype(np.int64), np.concatenate(v_minus).astype(np.int64)


def simulate_summary(params: Any, *, ones: int, trials: int, seed: int) -> dict[str, Any]:
    """Simulated MSE and messages per user against the exact values (docs/gkm.md#utility-and-cost).

    `params` is an `accountant.protocols.gkm.GkmParameters`; the dataset has `ones` ones
    (the first users) and n - ones zeros. Reports means, standard errors and z-scores.
    """
    from accountant.protocols import gkm

    n = params.n
    data = np.zeros(n, dtype=np.int64)
    data[:ones] = 1
    rng = np.random.default_rng(seed)
    step = "gkmp20" if params.choice == "gkmp20" else "gkm"
    v_plus, v_minus = sample_views(data, epsilon_prime=params.epsilon_prime, q=params.q,
                                   s=params.s, lam=params.lam, trials=trials, rng=rng,
                                   input_step=step)
    sq_err = (v_plus - v_minus - ones).astype(float) ** 2
    msgs = (v_plus + v_minus).astype(float) / n
    mse_exact = gkm.mse_exact(params, ones=ones)
    msg_exact = (ones * gkm.expected_messages(params, x=1)
                 + (n - ones) * gkm.expected_messages(params, x=0)) / n
    out = {"trials": trials, "seed": seed, "ones": ones}
    for name, sample, exact in (("mse", sq_err, mse_exact),
                                ("messages_per_user", msgs, msg_exact)):
        mean = float(np.mean(sample))
        se = float(np.std(sample, ddof=1) / math.sqrt(trials)) if trials > 1 else math.inf
        out[name] = {"simulated": mean, "standard_error": se, "exact": exact,
                     "z": (mean - exact) / se if se > 0 else 0.0}
    out["dlap_variance_epsilon_prime"] = gkm.dlap_variance(params.epsilon_prime)
    return out
