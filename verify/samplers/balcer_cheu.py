"""Literal Balcer-Cheu zsum (Fig. 1) and hist (Fig. 2), plus a vectorized fast path.

Balcer & Cheu, "Separating Local & Shuffled Differential Privacy via Histograms",
ITC 2020, Sec. 3 (docs/balcer-cheu-2020.md#the-zsum-protocol,
docs/balcer-cheu-2020.md#the-hist-protocol):

Fig. 1, zsum (p in [1/2, 1)):
  randomizer R(x), x in {0, 1}: draw z ~ Bern(p); send x + z copies of the message 1.
  shuffler: a uniformly random permutation of all messages of all users.
  analyzer A(y): c* = |y| / n; output c* - p if c* > 1, else 0.
Fig. 2, hist over [d]: the user one-hot encodes x and, for every value j, runs the zsum
  randomizer on bit [x = j], labelling those messages j; one shuffle of all messages;
  the analyzer runs the zsum analyzer on the messages labelled j, for every j.

The literal functions build the message lists and shuffle them; the fast path draws the
same quantities directly (count of j-messages = count of users with value j +
Bin(n, p)); tests/verify/test_balcer_cheu_samplers.py checks the two agree. This module
never looks at the exact PMFs of `accountant.protocols.balcer_cheu`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "zsum_randomizer",
    "hist_randomizer",
    "shuffler",
    "zsum_analyzer",
    "hist_analyzer",
    "run_zsum",
    "run_hist",
    "zsum_fast",
    "hist_fast",
    "hist_dataset",
    "simulate_summary",
]


def zsum_randomizer(x: int, *, p: float, rng: np.random.Generator) -> list[int]:
    """Fig. 1's randomizer: x + z copies of the message 1, z ~ Bern(p)."""
    if x not in (0, 1):
        raise ValueError(f"x={x!r} is not a bit")
    z = 1 if rng.random() < p else 0
    return [1] * (x + z)


def hist_randomizer(x: int, *, d: int, p: float, rng: np.random.Generator) -> list[int]:
    """Fig. 2's randomizer: for every j in 1..d, zsum's randomizer on [x = j], messages
    labelled j."""
    if not 1 <= x <= d:
        raise ValueError(f"x={x!r} is outside 1..{d}")
    messages: list[int] = []
    for j in range(1, d + 1):
        messages.extend(j for _ in zsum_randomizer(1 if x == j else 0, p=p, rng=rng))
    return messages


def shuffler(messages: list[int], *, rng: np.random.Generator) -> list[int]:
    """A uniformly random permutation of all messages (Fisher-Yates via numpy)."""
    order = rng.permutation(len(messages))
    return [messages[i] for i in order]


def zsum_analyzer(y: Sequence[int], *, n: int, p: float) -> float:
    """Fig. 1's analyzer: c* = |y| / n; c* - p if c* > 1 else 0."""
    c = len(y) / n
    return c - p if c > 1 else 0.0


def hist_analyzer(y: Sequence[int], *, n: int, d: int, p: float) -> np.ndarray:
    """Fig. 2's analyzer: zsum's analyzer on the messages labelled j, for j = 1..d."""
    out = np.zeros(d)
    for j in range(1, d + 1):
        out[j - 1] = zsum_analyzer([m for m in y if m == j], n=n, p=p)
    return out


def run_zsum(xs: Sequence[int], *, p: float, rng: np.random.Generator) -> tuple[int, float]:
    """One literal run: (number of messages the analyzer sees, its output)."""
    messages: list[int] = []
    for x in xs:
        messages.extend(zsum_randomizer(int(x), p=p, rng=rng))
    y = shuffler(messages, rng=rng)
    return len(y), zsum_analyzer(y, n=len(xs), p=p)


def run_hist(xs: Sequence[int], *, d: int, p: float,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One literal run: (message count per value, analyzer output per value)."""
    messages: list[int] = []
    for x in xs:
        messages.extend(hist_randomizer(int(x), d=d, p=p, rng=rng))
    y = shuffler(messages, rng=rng)
    counts = np.bincount(np.asarray(y, dtype=np.int64), minlength=d + 1)[1:]
    return counts, hist_analyzer(y, n=len(xs), d=d, p=p)


def _analyze_counts(counts: np.ndarray, n: int, p: float) -> np.ndarray:
    c = counts / n
    return np.where(c > 1, c - p, 0.0)


def zsum_fast(*, ones: int, n: int, p: float, trials: int,
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Vectorized zsum: message counts ones + Bin(n, p) and outputs, one per trial."""
    counts = ones + rng.binomial(n, p, size=trials)
    return counts, _analyze_counts(counts, n, p)


def hist_fast(*, bin_counts: Sequence[int], p: float, trials: int,
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Vectorized hist: counts[t, j] = bin_counts[j] + Bin(n, p), independent over j."""
    h = np.asarray(bin_counts, dtype=np.int64)
    n = int(h.sum())
    counts = h[None, :] + rng.binomial(n, p, size=(trials, h.size))
    return counts, _analyze_counts(counts, n, p)


def hist_dataset(bin_counts: Sequence[int]) -> np.ndarray:
    """Users' values 1..d with the given count per value (for the literal sampler)."""
    return np.repeat(np.arange(1, len(bin_counts) + 1), bin_counts)


def _quantile(errors: np.ndarray, beta: float) -> float:
    """Empirical (1 - beta) quantile: the ceil((1-beta) T)-th smallest error."""
    s = np.sort(errors)
    return float(s[min(s.size - 1, math.ceil((1 - beta) * s.size) - 1)])


def simulate_summary(*, protocol: str, n: int, p: float, trials: int, seed: int,
                     d: int | None = None, ones: int | None = None,
                     alphas: dict[float, float] | None = None,
                     literal_trials: int = 0) -> dict[str, Any]:
    """Run the fast path `trials` times (and the literal protocol `literal_trials` times)
    and summarize: zero-count property, empirical error quantiles (beta = 0.1, 0.01)
    beside the given alpha bounds, and the sampled message counts (for goodness of fit).

    zsum: `ones` users hold 1 (default n // 2). hist: values split as ones (default
    n // 2) on value 1 and the rest on value 2; values 3..d hold nobody (zero bins).
    """
    rng = np.random.default_rng(seed)
    ones = n // 2 if ones is None else ones
    out: dict[str, Any] = {"trials": trials, "seed": seed, "ones": ones}
    if protocol == "zsum":
        counts, outputs = zsum_fast(ones=ones, n=n, p=p, trials=trials, rng=rng)
        errors = np.abs(outputs - ones / n)
        _, zero_out = zsum_fast(ones=0, n=n, p=p, trials=trials, rng=rng)
        zero_ok = bool(np.all(zero_out == 0.0))
    else:
        if d is None or d < 2:
            raise ValueError("hist needs d >= 2")
        h = np.zeros(d, dtype=np.int64)
        h[0], h[1] = ones, n - ones
        counts, outputs = hist_fast(bin_counts=h, p=p, trials=trials, rng=rng)
        errors = np.max(np.abs(outputs - h / n), axis=1)  # simultaneous error
        zero_ok = bool(np.all(outputs[:, 2:] == 0.0)) if d > 2 else True
        _, zero_out = hist_fast(bin_counts=np.array([n] + [0] * (d - 1)), p=p,
                                trials=trials, rng=rng)
        zero_ok = zero_ok and bool(np.all(zero_out[:, 1:] == 0.0))
    out["zero_count_property_every_trial"] = zero_ok
    quant = {}
    for beta in (0.1, 0.01):
        row: dict[str, Any] = {"beta": beta, "empirical_error_quantile": _quantile(errors, beta)}
        if alphas and beta in alphas:
            row["alpha_bound"] = alphas[beta]
            row["below_bound"] = row["empirical_error_quantile"] < alphas[beta]
        quant[str(beta)] = row
    out["error_quantiles"] = quant
    out["error_kind"] = "simultaneous max over bins" if protocol == "hist" else "absolute"
    out["mean_message_count"] = float(np.mean(counts))
    if literal_trials:
        lit = []
        for _ in range(literal_trials):
            if protocol == "zsum":
                xs = np.array([1] * ones + [0] * (n - ones))
                lit.append(run_zsum(xs, p=p, rng=rng)[0])
            else:
                lit.append(run_hist(hist_dataset(h), d=d, p=p, rng=rng)[0][:2])
        out["literal_counts"] = np.asarray(lit)
    out["counts"] = counts if protocol == "zsum" else counts[:, :2]
    return out
