"""Exact shuffled views of a local randomizer for small n, and the worst case over datasets.

The shuffled output of n users is the histogram h (a composition of n into m parts) of
their n independent messages; its law is the m-dimensional convolution of the n rows
R(.|x_i). It is built user by user over the compositions of t = 0..n (`Compositions`):
adding a user holding x maps the law L_t to L_{t+1}(h) = sum_y L_t(h - e_y) R(y|x).

Backends: "exact" works with integer numerators over the common denominator D^t of the
matrix (D = lcm of its denominators), so the probabilities are exact rationals; "float"
works in log space (views) or linear float64 (worst case) with stated error bounds.

Worst case over datasets (replace-one neighbours, both orders): the view depends on the
dataset only through the input histogram c of the n-1 other users and the differing
user's pair (x, x'), so every c in the C(n+k-2, k-1) histograms and every ordered pair
is evaluated: delta(eps) = max_{c, x != x'} H_{e^eps}(L_c * R(.|x) || L_c * R(.|x')).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from accountant.domains import N_PAIR
from accountant.errors import ParameterError
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.protocols.randomizer.matrix import Randomizer
from accountant.view import ViewPair

__all__ = ["Compositions", "WorstCase", "exact_view_pair", "exact_worst_case",
           "histogram_count", "VIEW_LIMIT"]

# Largest number of histograms (compositions of n into m parts) a view is built on.
VIEW_LIMIT = 400_000
_U = UNIT_ROUNDOFF


def histogram_count(n: int, m: int) -> int:
    """C(n+m-1, m-1): the number of histograms of n messages over m outputs."""
    return math.comb(n + m - 1, m - 1)


class Compositions:
    """All compositions of t into m parts for t = 0..n, with the maps "add one e_y".

    Attributes:
        m: number of parts.
        levels: levels[t] is an int array (count, m) of the compositions of t, sorted by
            their key sum_i h_i (n+1)^i.
    """

    def __init__(self, n: int, m: int) -> None:
        self.n, self.m = n, m
        self._base = np.array([(n + 1) ** i for i in range(m)], dtype=np.int64)
        self.levels: list[np.ndarray] = []
        self._keys: list[np.ndarray] = []
        for t in range(n + 1):
            comps = _compositions(t, m)
            keys = comps @ self._base
            order = np.argsort(keys)
            self.levels.append(comps[order])
            self._keys.append(keys[order])
        self._up: dict[int, list[np.ndarray]] = {}

    def up(self, t: int) -> list[np.ndarray]:
        """For each y, the index at level t+1 of (composition i of level t) + e_y."""
        if t not in self._up:
            self._up[t] = [np.searchsorted(self._keys[t + 1], self._keys[t] + self._base[y])
                           for y in range(self.m)]
        return self._up[t]


def _compositions(t: int, m: int) -> np.ndarray:
    """Compositions of t into m nonnegative parts (stars and bars), as rows."""
    if m == 1:
        return np.array([[t]], dtype=np.int64)
    rows = []
    for bars in itertools.combinations(range(t + m - 1), m - 1):
        prev, parts = -1, []
        for b in bars:
            parts.append(b - prev - 1)
            prev = b
        parts.append(t + m - 1 - prev - 1)
        rows.append(parts)
    return np.array(rows, dtype=np.int64).reshape(-1, m)


@dataclass(frozen=True)
class _Numerators:
    """The matrix as integers over a common denominator D (exact backend)."""

    den: int
    num: list[list[int]]


def _numerators(matrix: Randomizer) -> _Numerators:
    den = 1
    for row in matrix.rows:
        for v in row:
            den = den * v.denominator // math.gcd(den, v.denominator)
    return _Numerators(den=den, num=[[int(v * den) for v in row] for row in matrix.rows])


def _step_exact(comps: Compositions, t: int, law: np.ndarray, weights: Sequence[int]) -> \
        np.ndarray:
    out = np.zeros(comps.levels[t + 1].shape[0], dtype=object)
    out[:] = 0
    for y, idx in enumerate(comps.up(t)):
        if weights[y]:
            out[idx] += law * weights[y]
    return out


def _step_linear(comps: Compositions, t: int, law: np.ndarray, row: np.ndarray) -> np.ndarray:
    out = np.zeros(comps.levels[t + 1].shape[0])
    for y, idx in enumerate(comps.up(t)):
        if row[y] > 0:
            out[idx] += law * row[y]
    return out


def _step_log(comps: Compositions, t: int, law: np.ndarray, log_row: np.ndarray) -> np.ndarray:
    out = np.full(comps.levels[t + 1].shape[0], -np.inf)
    for y, idx in enumerate(comps.up(t)):
        if np.isfinite(log_row[y]):
            out[idx] = np.logaddexp(out[idx], law + log_row[y])
    return out


def _check_inputs(matrix: Randomizer, values: Any, name: str, n: int) -> list[int]:
    vals = list(values)
    if len(vals) != n:
        raise ParameterError(f"{name} has {len(vals)} users, outside [{n}, {n}] (n={n})")
    for i, v in enumerate(vals):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or not (
                0 <= v < matrix.inputs):
            raise ParameterError(f"{name}[{i}]={v!r} is outside integers in "
                                 f"[0, {matrix.inputs - 1}]")
    return [int(v) for v in vals]


def exact_view_pair(matrix: Randomizer, n: int, dataset: Sequence[int],
                    neighbour: Sequence[int], *, backend: str = "float") -> ViewPair:
    """The exact pair of histogram laws (P: `dataset`, Q: `neighbour`) of n shuffled users.

    Args:
        matrix: the local randomizer.
        n: number of users, >= 2.
        dataset, neighbour: the inputs of the n users (integers in [0, k)); they must differ
            in exactly one position (replace-one neighbours).
        backend: "float" (log space, with a stated error bound per entry) or "exact"
            (Fractions).

    Returns:
        A complete `ViewPair` on the histograms (coords: one array per output).

    Raises:
        ParameterError: n < 2, inputs outside [0, k), datasets not neighbours, more than
            VIEW_LIMIT histograms, unknown backend.
    """
    N_PAIR.check(n)
    n = int(n)
    a = _check_inputs(matrix, dataset, "dataset", n)
    b = _check_inputs(matrix, neighbour, "neighbour", n)
    diff = [i for i in range(n) if a[i] != b[i]]
    if len(diff) != 1:
        raise ParameterError(f"dataset and neighbour differ in {len(diff)} positions, "
                             "outside [1, 1] (replace-one neighbours)")
    if backend not in ("float", "exact"):
        raise ParameterError(f"backend={backend!r} is not one of float, exact")
    m = matrix.outputs
    if histogram_count(n, m) > VIEW_LIMIT:
        raise ParameterError(f"C(n+m-1, m-1)={histogram_count(n, m)} histograms is outside "
                             f"[1, {VIEW_LIMIT}] for an exact view (n={n}, m={m})")
    comps = Compositions(n, m)
    others = [a[i] for i in range(n) if i != diff[0]]
    x, x1 = a[diff[0]], b[diff[0]]
    coords = tuple(comps.levels[n][:, y] for y in range(m))
    desc = {"protocol": "randomizer", "matrix": matrix.name, "n": n, "dataset": a,
            "neighbour": b}
    if backend == "exact":
        nums = _numerators(matrix)
        law = np.array([1], dtype=object)
        for t, z in enumerate(others):
            law = _step_exact(comps, t, law, nums.num[z])
        scale = nums.den ** n
        p = _step_exact(comps, n - 1, law, nums.num[x])
        q = _step_exact(comps, n - 1, law, nums.num[x1])
        to_frac = np.frompyfunc(lambda v: Fraction(v, scale), 1, 1)
        return ViewPair(backend="exact", p=to_frac(p).astype(object),
                        q=to_frac(q).astype(object), residual_loss_bound=0.0,
                        coords=coords, description=desc)
    with np.errstate(divide="ignore"):
        log_r = np.log(matrix.array)
    law = np.zeros(1)
    for t, z in enumerate(others):
        law = _step_log(comps, t, law, log_r[z])
    p = _step_log(comps, n - 1, law, log_r[x])
    q = _step_log(comps, n - 1, law, log_r[x1])
    finite = np.concatenate([p[np.isfinite(p)], q[np.isfinite(q)]])
    big = float(np.max(np.abs(finite))) if finite.size else 0.0
    # per user: log R(y|x) of the float entry (2u(1 + |log R|)), one sum and m logaddexps
    # of magnitude <= big (4u(1 + big) each)
    err = 8 * _U * n * (m + 2) * (1.0 + big)
    return ViewPair(backend="float", p=p, q=q, log_error=err, residual_loss_bound=0.0,
                    coords=coords, description=desc)


@dataclass(frozen=True)
class WorstCase:
    """The largest delta(eps) over all datasets of n users and both orders.

    Attributes:
        delta: the value (a Fraction for the exact backend, else a float).
        error: an absolute bound on the float error of `delta` (0 for exact).
        others: the input histogram (counts per input) of the n-1 other users attaining it.
        x, x_prime: the differing user's inputs (P holds x, Q holds x').
        exp_epsilon: e^eps used (exactly).
        backend: "exact" or "float".
    """

    delta: Fraction | float
    error: float
    others: tuple[int, ...]
    x: int
    x_prime: int
    exp_epsilon: Fraction | float
    backend: str


def _input_histograms(t: int, k: int) -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in row) for row in _compositions(t, k)]


def exact_worst_case(matrix: Randomizer, n: int, epsilon: float | None = None, *,
                     exp_epsilon: Any = None, backend: str = "exact") -> Any:
    """max over datasets and both orders of delta(eps) for n shuffled users (tiny n).

    Args:
        matrix: the local randomizer.
        n: number of users, >= 2.
        epsilon: eps >= 0; the exact backend then uses the float exp(epsilon) as e^eps.
        exp_epsilon: e^eps >= 1 instead (int, Fraction or float, taken exactly), or a
            sequence of them (one WorstCase each, computed in one pass).
        backend: "exact" (integer arithmetic, Fraction result) or "float".

    Returns:
        A `WorstCase` (a list of them when exp_epsilon is a sequence).

    Raises:
        ParameterError: n < 2, both or neither of epsilon and exp_epsilon, e^eps < 1, too
            many histograms, unknown backend.
    """
    N_PAIR.check(n)
    n = int(n)
    if (epsilon is None) == (exp_epsilon is None):
        raise ParameterError("give exactly one of epsilon and exp_epsilon")
    many = isinstance(exp_epsilon, Sequence)
    gammas = list(exp_epsilon) if many else [math.exp(epsilon) if epsilon is not None
                                             else exp_epsilon]
    for g in gammas:
        if isinstance(g, bool) or not (isinstance(g, int | float | Fraction) and g >= 1
                                       and math.isfinite(float(g))):
            raise ParameterError(f"exp_epsilon={g!r} is outside [1, inf)")
    if backend not in ("float", "exact"):
        raise ParameterError(f"backend={backend!r} is not one of float, exact")
    k, m = matrix.inputs, matrix.outputs
    if histogram_count(n, m) * histogram_count(n - 1, k) > 50 * VIEW_LIMIT:
        raise ParameterError(f"n={n} is outside the exact worst-case range for k={k}, m={m} "
                             "(too many datasets x histograms)")
    comps = Compositions(n, m)
    exact = backend == "exact"
    if exact:
        nums = _numerators(matrix)
        rows: Any = nums.num
        one: Any = np.array([1], dtype=object)
        step: Any = _step_exact
        fr = [Fraction(g) for g in gammas]
    else:
        rows = matrix.array
        one = np.ones(1)
        step = _step_linear
    # laws of the other users' histograms, input histogram by input histogram
    laws: dict[tuple[int, ...], Any] = {tuple([0] * k): one}
    for t in range(n - 1):
        nxt: dict[tuple[int, ...], Any] = {}
        for c in _input_histograms(t + 1, k):
            x = next(i for i in range(k) if c[i] > 0)
            prev = tuple(c[i] - (i == x) for i in range(k))
            nxt[c] = step(comps, t, laws[prev], rows[x])
        laws = nxt
    best: list[Any] = [None] * len(gammas)
    for c, law in laws.items():
        views = [step(comps, n - 1, law, rows[x]) for x in range(k)]
        for x in range(k):
            for x1 in range(k):
                if x == x1:
                    continue
                for i, g in enumerate(gammas):
                    if exact:
                        # H = sum (g_den P - g_num Q)_+ / (g_den D^n): compare numerators
                        gn, gd = fr[i].numerator, fr[i].denominator
                        diff = views[x] * gd - views[x1] * gn
                        val = sum(v for v in diff if v > 0)
                    else:
                        val = float(np.sum(np.maximum(views[x] - float(g) * views[x1], 0.0)))
                    if best[i] is None or val > best[i][0]:
                        best[i] = (val, c, x, x1)
    out = []
    size = comps.levels[n].shape[0]
    for i, g in enumerate(gammas):
        val, c, x, x1 = best[i]
        if exact:
            delta: Any = Fraction(val, fr[i].denominator * nums.den ** n)
            err = 0.0
        else:
            delta = val
            err = (1 + float(g)) * (n * (m + 1) + 4 + math.log2(size + 1)) * _U * 1.01
        out.append(WorstCase(delta=delta, error=err, others=c, x=x, x_prime=x1,
                             exp_epsilon=fr[i] if exact else g, backend=backend))
    return out if many else out[0]
