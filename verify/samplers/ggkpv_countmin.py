"""Literal count-min sketch protocol of [GGKPV] with public coins (docs/ggkpv.md#count-min-variant).

Ghazi, Golowich, Kumar, Pagh, Velingker, "On the Power of Multiple Anonymous Messages",
EUROCRYPT 2021. The slides name the technique (count-min, public coins, error,
communication and query time O~(1)) and the per-coordinate idea (B parallel binary sums
made cheap by hashing); the choices below are this library's and are documented in
docs/ggkpv.md#count-min-variant:

- Public coins: d hash functions h_1..h_d: [B] -> [w], fully random (a d x B table of
  independent uniform cells drawn from a seeded generator, `hash_table`); everyone, the
  adversary included, sees the table. Values are 1..B, cells 0..w-1, rows 0..d-1.
- Randomizer: a user holding x sends, for each row j, the signal message (j, h_j(x)) and
  rho noise messages (j, c) with c uniform on [w]: d (1 + rho) messages, each ceil(log2 d)
  + ceil(log2 w) bits. All n d (1 + rho) messages are shuffled.
- Analyzer: the counts C_j[c] of message (j, c). Query x reads C_j[h_j(x)] in each row
  (query time O(d)). Over the hash draw and the noise,
  E C_j[h_j(x)] = f_x + (n - f_x)/w + n rho/w, so the per-row estimate
  f^_{x,j} = (C_j[h_j(x)] - n (1 + rho)/w) / (1 - 1/w) is unbiased, and so is their mean
  over rows. The count-min estimate min_j (C_j[h_j(x)] - n rho/w) removes the noise's mean
  and takes the minimum over rows as count-min does (collisions only add); it is biased
  (no claim).

This module never looks at the exact PMFs of `accountant.protocols.ggkpv`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from accountant.errors import ParameterError

__all__ = [
    "hash_table",
    "countmin_randomizer",
    "shuffled_countmin_messages",
    "countmin_counts",
    "row_estimates",
    "mean_estimate",
    "countmin_estimate",
]


def _check(B: int, w: int, d: int, rho: int | None = None) -> None:
    if int(B) != B or B < 1:
        raise ParameterError(f"B={B!r} must be an integer >= 1")
    if int(w) != w or w < 2:
        raise ParameterError(f"w={w!r} must be an integer >= 2")
    if int(d) != d or d < 1:
        raise ParameterError(f"d={d!r} must be an integer >= 1")
    if rho is not None and (int(rho) != rho or rho < 0):
        raise ParameterError(f"rho={rho!r} must be an integer >= 0")


def hash_table(*, B: int, w: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """The public coins: d fully random hash functions [B] -> [w] as a table.

    Args:
        B: domain size (values 1..B).
        w: width (cells 0..w-1).
        d: depth (rows).
        rng: the public generator (seeded by the caller).

    Returns:
        An int64 array of shape (d, B): h_j(x) = table[j, x - 1], independent and uniform.

    Raises:
        ParameterError: B, w or d outside their domains.
    """
    _check(B, w, d)
    return rng.integers(0, w, size=(d, B), dtype=np.int64)


def _values(xs: Any, B: int) -> np.ndarray:
    v = np.asarray(xs, dtype=np.int64).ravel()
    if v.size and (v.min() < 1 or v.max() > B):
        raise ParameterError(f"values must lie in 1..{B}")
    return v


def countmin_randomizer(x: int, *, table: np.ndarray, w: int, rho: int,
                        rng: np.random.Generator) -> np.ndarray:
    """One user's messages: per row j, (j, h_j(x)) and rho noise messages (j, uniform).

    Args:
        x: the user's value in 1..B.
        table: the public hash table (d, B).
        w: width.
        rho: noise messages per row, >= 0.
        rng: the user's private generator.

    Returns:
        An int64 array (d (1 + rho), 2) of (row, cell), signals first (row order), then the
        noise (row-major); unshuffled.

    Raises:
        ParameterError: an invalid value or parameter.
    """
    d, B = table.shape
    _check(B, w, d, rho)
    v = int(_values([x], B)[0])
    rows = np.arange(d, dtype=np.int64)
    signal = np.stack([rows, table[:, v - 1]], axis=1)
    noise = np.stack([np.repeat(rows, rho), rng.integers(0, w, size=d * rho)], axis=1)
    return np.concatenate([signal, noise.astype(np.int64)])


def shuffled_countmin_messages(xs: Any, *, table: np.ndarray, w: int, rho: int,
                               rng: np.random.Generator) -> np.ndarray:
    """All users' messages under a uniformly random permutation (vectorised).

    Args:
        xs: the n values in 1..B.
        table: the public hash table (d, B).
        w: width.
        rho: noise messages per user and row, >= 0.
        rng: the generator of the users' noise and of the shuffle.

    Returns:
        An int64 array (n d (1 + rho), 2) of (row, cell), shuffled.

    Raises:
        ParameterError: an invalid value or parameter.
    """
    d, B = table.shape
    _check(B, w, d, rho)
    v = _values(xs, B)
    n = v.size
    rows = np.arange(d, dtype=np.int64)
    signal = np.stack([np.tile(rows, n), table[:, v - 1].T.ravel()], axis=1)
    noise = np.stack([np.tile(np.repeat(rows, rho), n),
                      rng.integers(0, w, size=n * d * rho, dtype=np.int64)], axis=1)
    messages = np.concatenate([signal, noise])
    return messages[rng.permutation(messages.shape[0])]


def countmin_counts(messages: Any, *, w: int, d: int) -> np.ndarray:
    """The analyzer's sketch: C[j, c] = number of messages (j, c).

    Args:
        messages: (M, 2) array of (row, cell).
        w: width.
        d: depth.

    Returns:
        An int64 array (d, w).

    Raises:
        ParameterError: a message outside [d] x [w].
    """
    m = np.asarray(messages, dtype=np.int64).reshape(-1, 2)
    if m.size and (m.min() < 0 or m[:, 0].max() >= d or m[:, 1].max() >= w):
        raise ParameterError("messages must lie in [d] x [w]")
    return np.bincount(m[:, 0] * w + m[:, 1], minlength=d * w).reshape(d, w)


def _lookup(counts: np.ndarray, table: np.ndarray, queries: Any) -> np.ndarray:
    d, B = table.shape
    q = np.arange(1, B + 1) if queries is None else _values(queries, B)
    return counts[np.arange(d)[:, None], table[:, q - 1]]


def row_estimates(counts: np.ndarray, *, table: np.ndarray, n: int, rho: int,
                  queries: Any = None) -> np.ndarray:
    """Unbiased per-row estimates (C_j[h_j(x)] - n (1 + rho)/w) / (1 - 1/w).

    Unbiased over the hash draw and the noise: collisions add (n - f_x)/w, the noise n rho/w.

    Args:
        counts: the sketch (d, w).
        table: the public hash table (d, B).
        n: number of users.
        rho: noise messages per user and row.
        queries: values to estimate (default all 1..B).

    Returns:
        A float array (d, number of queries).
    """
    w = counts.shape[1]
    c = _lookup(counts, table, queries).astype(float)
    return (c - n * (1 + rho) / w) / (1.0 - 1.0 / w)


def mean_estimate(counts: np.ndarray, *, table: np.ndarray, n: int, rho: int,
                  queries: Any = None) -> np.ndarray:
    """The mean of the d unbiased per-row estimates (unbiased; variance about
    (n rho + n)/(w d) for distinct-valued data).

    Args:
        counts: the sketch (d, w).
        table: the public hash table (d, B).
        n: number of users.
        rho: noise messages per user and row.
        queries: values to estimate (default all 1..B).

    Returns:
        A float array (number of queries,).
    """
    return row_estimates(counts, table=table, n=n, rho=rho, queries=queries).mean(axis=0)


def countmin_estimate(counts: np.ndarray, *, table: np.ndarray, n: int, rho: int,
                      queries: Any = None) -> np.ndarray:
    """Count-min: min over rows of C_j[h_j(x)] - n rho / w (noise mean removed; biased).

    Args:
        counts: the sketch (d, w).
        table: the public hash table (d, B).
        n: number of users.
        rho: noise messages per user and row.
        queries: values to estimate (default all 1..B).

    Returns:
        A float array (number of queries,).
    """
    w = counts.shape[1]
    c = _lookup(counts, table, queries).astype(float)
    return (c - n * rho / w).min(axis=0)
