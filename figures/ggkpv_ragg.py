"""The GGKPV slides' "idea for multi-message upper bounds": frequency estimation as B parallel
binary aggregations, each by a shuffled local randomizer R_agg [Cheu et al.] with error
O~(1); count-min or Hadamard response then avoid sending B messages.

R_agg here (our reading; the slides give no parameters): binary randomized response, the
bit aggregation of Cheu, Smith, Ullman, Zeber, Zhilyaev (EUROCRYPT 2019). A user holding x
sends, for each j in [B], the message (j, R_agg(1[x = j])): its bit kept with probability
a = e^eps0/(1 + e^eps0), flipped otherwise, all bits independent. All n B messages are
shuffled (`randomizer`, `estimate`: the literal protocol, vectorised).

Privacy. The shuffled multiset of (j, bit) is the vector of per-label counts C_1..C_B, and
C_j depends only on the users' j-th bits, randomized independently across j. Neighbours
(user 1's x replaced by x') differ in coordinates x and x' only, so the view pair is the
product of two shuffled binary-RR count pairs and the other coordinates add nothing; by
basic composition, (epsilon/2, delta/2) for shuffled binary RR over every dataset
(`ggkpv_single.krr_delta_upper` at B = 2: the binary blanket clone pair, certified) gives
(epsilon, delta) for the whole protocol. `ragg_epsilon0` is the largest eps0 (to 1%) meeting
that; basic composition is a choice that can only cost accuracy, never soundness.

Accuracy (exact): the count of ones in coordinate j is Bin(f_j, a) + Bin(n - f_j, 1 - a),
so f^_j = (C_j - n (1 - a))/(2a - 1) is unbiased with variance n a (1 - a)/(2a - 1)^2 for
every dataset (`ragg_sd`). Communication: B messages of ceil(log2 B) + 1 bits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from figures import ggkpv_single

__all__ = ["ragg_epsilon0", "ragg_sd", "randomizer", "estimate", "ragg_rows"]


def ragg_epsilon0(n: int, epsilon: float, delta: float) -> tuple[float, float]:
    """The largest eps0 (to 1%) whose shuffled binary RR has certified delta(epsilon/2) <=
    delta/2, so that the two changed coordinates compose to (epsilon, delta).

    Returns:
        (eps0, the certified upper end of one coordinate's delta(epsilon/2)).
    """
    return ggkpv_single.krr_epsilon0(n, 2, epsilon / 2, delta / 2)


def ragg_sd(n: int, epsilon0: float) -> float:
    """Exact sd of the unbiased per-coordinate count estimate, every dataset."""
    a = 1.0 / (1.0 + math.exp(-epsilon0))
    return math.sqrt(n * a * (1 - a)) / (2 * a - 1)


def randomizer(xs: Sequence[int] | np.ndarray, *, B: int, epsilon0: float,
               rng: np.random.Generator) -> np.ndarray:
    """Every user's B bits 1[x = j], each flipped with probability 1/(1 + e^eps0).

    Returns:
        A bool array (n, B): user i's message for label j is (j, bit[i, j]).
    """
    v = np.asarray(xs, dtype=np.int64)
    bits = v[:, None] == np.arange(1, B + 1)[None, :]
    flip = rng.random(bits.shape) < 1.0 / (1.0 + math.exp(epsilon0))
    return bits ^ flip


def estimate(bits: np.ndarray, *, epsilon0: float) -> np.ndarray:
    """The analyzer: per label, (ones - n (1 - a))/(2a - 1), a = 1/(1 + e^-eps0). The
    shuffle is omitted: the counts per label are all it leaves."""
    a = 1.0 / (1.0 + math.exp(-epsilon0))
    return (bits.sum(axis=0) - bits.shape[0] * (1 - a)) / (2 * a - 1)


def ragg_rows(ns: Sequence[int], *, B: int, epsilon: float = 1.0,
              delta: float = 1e-6) -> list[dict[str, Any]]:
    """One row per n: eps0, the certified per-coordinate delta, the exact sd, messages and
    bits per user."""
    rows = []
    for n in ns:
        e0, d = ragg_epsilon0(n, epsilon, delta)
        rows.append({"n": n, "B": B, "epsilon0": e0, "coordinate_delta": d,
                     "sd": ragg_sd(n, e0), "messages_per_user": B,
                     "bits_per_user": B * (math.ceil(math.log2(B)) + 1)})
    return rows
