"""Literal frequency-estimation protocols of [GGKPV] and their single-message baselines.

Ghazi, Golowich, Kumar, Pagh, Velingker, "On the Power of Multiple Anonymous Messages:
Frequency Estimation and Selection in the Shuffle Model of Differential Privacy",
EUROCRYPT 2021 (docs/ggkpv.md). Users hold values in 1..B; the domain is padded to
K = 2^ceil(log2(B + 1)) columns of the Sylvester Hadamard matrix
H[x][j] = (-1)^popcount(x AND j), and C_x = {j : H[x][j] = +1} (|C_x| = K/2).

- Local Hadamard response (docs/ggkpv.md#hadamard-response): a uniform element of C_x with
  probability e^eps/(1 + e^eps), else a uniform element of its complement; the estimator
  f^_x = 2 (e^eps + 1)/(e^eps - 1) (#{i : y_i in C_x} - n/2).
- Shuffled multi-message Hadamard response
  (docs/ggkpv.md#shuffled-multi-message-hadamard-response): each user sends one signal
  tuple of tau indices i.i.d. uniform on C_x and rho noise tuples uniform on [K]^tau; all
  n (1 + rho) tuples are shuffled by a uniformly random permutation. With pi = 2^-tau and
  N_x = #{tuples inside C_x^tau}, f^_x = (N_x - n (1 + rho) pi) / (1 - pi).
- Single-message baselines: k-ary randomized response over B symbols and symmetric unary
  encoding (each of the B bits of the one-hot vector kept with probability
  e^(eps0/2)/(1 + e^(eps0/2))), each with the largest epsilon0 whose certified shuffled
  epsilon(delta) (`accountant.protocols.k_rr.KRR`, `accountant.protocols.ldp.LDP`) is at
  most the target (`calibrated_epsilon0`).

Every estimator is unbiased for every dataset (tests/verify/test_ggkpv_samplers.py checks
this by simulation). This module never looks at the exact PMFs of
`accountant.protocols.ggkpv`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from accountant.errors import ParameterError
from accountant.pairs import clones
from accountant.protocols.k_rr import blanket
from accountant.result import Result, Scope

__all__ = [
    "padded_size",
    "default_tau",
    "in_positive_set",
    "sample_positive",
    "sample_negative",
    "local_hadamard_randomizer",
    "local_hadamard_estimate",
    "multi_message_randomizer",
    "shuffled_hadamard_messages",
    "shuffled_hadamard_estimate",
    "krr_randomizer",
    "krr_estimate",
    "unary_randomizer",
    "unary_estimate",
    "calibrated_epsilon0",
    "certified_epsilon_upper",
    "checked_epsilon0",
    "true_frequencies",
    "simulate_summary",
]

# Work arrays of the vectorised oracles hold at most this many entries per chunk.
_CHUNK_ENTRIES = 2 ** 22


def padded_size(B: int) -> int:
    """K: the least power of two >= B + 1 (row 0 of H is dropped, rows 1..B are used).

    Args:
        B: domain size, >= 1.

    Returns:
        K = 2^ceil(log2(B + 1)).

    Raises:
        ParameterError: B < 1.
    """
    if int(B) != B or B < 1:
        raise ParameterError(f"B={B!r} is not an integer >= 1")
    return 1 << int(B).bit_length()


def default_tau(n: int) -> int:
    """tau = ceil(log2 n) indices per tuple (at least 1).

    Args:
        n: number of users, >= 1.

    Returns:
        max(1, ceil(log2 n)), computed exactly on integers.
    """
    if int(n) != n or n < 1:
        raise ParameterError(f"n={n!r} is not an integer >= 1")
    return max(1, (int(n) - 1).bit_length())


def in_positive_set(x: Any, j: Any) -> np.ndarray:
    """Whether H[x][j] = +1, i.e. popcount(x AND j) is even (broadcasting).

    Args:
        x: row index or indices (integers >= 0).
        j: column index or indices (integers >= 0).

    Returns:
        A boolean array of the broadcast shape.
    """
    a = np.bitwise_and(np.asarray(x, dtype=np.int64), np.asarray(j, dtype=np.int64))
    return (np.bitwise_count(a) & 1) == 0


def _lowest_bit(x: np.ndarray) -> np.ndarray:
    return np.bitwise_and(x, -x)


def sample_positive(x: Any, K: int, rng: np.random.Generator, size: Any = None) -> np.ndarray:
    """Uniform elements of C_x (x >= 1), drawn independently.

    A uniform j in [K] with odd parity is mapped to j XOR lowbit(x): a bijection from the
    complement of C_x onto C_x, so the result is uniform on C_x.

    Args:
        x: nonzero row index (or an array of them, broadcast against `size`).
        K: number of columns (a power of two > max x).
        rng: the random generator.
        size: output shape (default: the shape of x).

    Returns:
        An int64 array of column indices in C_x.
    """
    xa = np.asarray(x, dtype=np.int64)
    if np.any(xa < 1) or np.any(xa >= K):
        raise ParameterError(f"row indices must lie in 1..{K - 1}")
    shape = xa.shape if size is None else size
    j = rng.integers(0, K, size=shape, dtype=np.int64)
    xb = np.broadcast_to(xa, j.shape)
    return np.where(in_positive_set(xb, j), j, np.bitwise_xor(j, _lowest_bit(xb)))


def sample_negative(x: Any, K: int, rng: np.random.Generator, size: Any = None) -> np.ndarray:
    """Uniform elements of the complement of C_x (x >= 1); see `sample_positive`."""
    pos = sample_positive(x, K, rng, size)
    xb = np.broadcast_to(np.asarray(x, dtype=np.int64), pos.shape)
    return np.bitwise_xor(pos, _lowest_bit(xb))


def _check_values(xs: Any, B: int) -> np.ndarray:
    xs = np.asarray(xs, dtype=np.int64)
    if xs.ndim != 1 or xs.size == 0:
        raise ParameterError("the dataset must be a non-empty 1-D array of values")
    if np.any(xs < 1) or np.any(xs > B):
        raise ParameterError(f"values must lie in 1..B={B}")
    return xs


def true_frequencies(xs: Any, B: int) -> np.ndarray:
    """f_x = #{i : x_i = x} for x = 1..B (array of length B)."""
    xs = _check_values(xs, B)
    return np.bincount(xs, minlength=B + 1)[1:].astype(float)


# ------------------------------------------------------------------ local Hadamard response
def local_hadamard_randomizer(xs: Any, *, epsilon: float, B: int,
                              rng: np.random.Generator) -> np.ndarray:
    """Each user's report: uniform on C_x w.p. e^eps/(1+e^eps), else on its complement.

    Args:
        xs: the users' values in 1..B.
        epsilon: the local epsilon > 0.
        B: domain size.
        rng: the random generator.

    Returns:
        One column index in [K] per user.
    """
    xs = _check_values(xs, B)
    if not epsilon > 0:
        raise ParameterError(f"epsilon={epsilon!r} must be > 0")
    K = padded_size(B)
    keep = rng.random(xs.size) < 1.0 / (1.0 + math.exp(-epsilon))
    pos = sample_positive(xs, K, rng)
    return np.where(keep, pos, np.bitwise_xor(pos, _lowest_bit(xs)))


def _membership_counts(reports: np.ndarray, B: int) -> np.ndarray:
    """#{i : reports[i] in C_x} for x = 1..B (chunked over x)."""
    out = np.empty(B)
    step = max(1, _CHUNK_ENTRIES // max(1, reports.size))
    for start in range(1, B + 1, step):
        xq = np.arange(start, min(B, start + step - 1) + 1, dtype=np.int64)
        out[start - 1:start - 1 + xq.size] = np.sum(
            in_positive_set(xq[:, None], reports[None, :]), axis=1)
    return out


def local_hadamard_estimate(reports: Any, *, epsilon: float, B: int) -> np.ndarray:
    """The unbiased estimates f^_x = 2 (e^eps+1)/(e^eps-1) (#{y_i in C_x} - n/2), x = 1..B.

    Args:
        reports: the users' reports (column indices).
        epsilon: the local epsilon used by the randomizer.
        B: domain size.

    Returns:
        Estimates for x = 1..B.
    """
    y = np.asarray(reports, dtype=np.int64)
    c = _membership_counts(y, B)
    return 2.0 * (math.exp(epsilon) + 1.0) / math.expm1(epsilon) * (c - y.size / 2.0)


# ------------------------------------------------------------------ multi-message Hadamard
def _check_rho_tau(rho: int, tau: int) -> None:
    if int(rho) != rho or rho < 0:
        raise ParameterError(f"rho={rho!r} is not an integer >= 0")
    if int(tau) != tau or tau < 1:
        raise ParameterError(f"tau={tau!r} is not an integer >= 1")


def multi_message_randomizer(x: int, *, B: int, tau: int, rho: int,
                             rng: np.random.Generator) -> list[tuple[int, ...]]:
    """One user's messages: a signal tuple uniform on C_x^tau and rho uniform noise tuples.

    Args:
        x: the user's value in 1..B.
        B: domain size.
        tau: indices per tuple.
        rho: noise tuples per user.
        rng: the random generator.

    Returns:
        1 + rho tuples of tau column indices (signal first; the shuffler hides the order).
    """
    _check_values([x], B)
    _check_rho_tau(rho, tau)
    K = padded_size(B)
    signal = tuple(int(j) for j in sample_positive(x, K, rng, size=(tau,)))
    noise = rng.integers(0, K, size=(rho, tau))
    return [signal] + [tuple(int(j) for j in row) for row in noise]


def shuffled_hadamard_messages(xs: Any, *, B: int, tau: int, rho: int,
                               rng: np.random.Generator) -> np.ndarray:
    """All users' tuples after a uniformly random shuffle (vectorised randomizers).

    Args:
        xs: the users' values in 1..B.
        B: domain size.
        tau: indices per tuple.
        rho: noise tuples per user.
        rng: the random generator.

    Returns:
        An int64 array of shape (n (1 + rho), tau), rows in uniformly random order.
    """
    xs = _check_values(xs, B)
    _check_rho_tau(rho, tau)
    K = padded_size(B)
    signal = sample_positive(xs[:, None], K, rng, size=(xs.size, tau))
    noise = rng.integers(0, K, size=(xs.size * rho, tau), dtype=np.int64)
    messages = np.concatenate([signal, noise], axis=0)
    return messages[rng.permutation(messages.shape[0])]


def _tuple_counts(messages: np.ndarray, B: int) -> np.ndarray:
    """N_x = #{tuples with every index in C_x} for x = 1..B, O(M tau) per query."""
    m = np.asarray(messages, dtype=np.int64)
    if m.ndim != 2:
        raise ParameterError("messages must be a 2-D array (tuples x tau)")
    out = np.empty(B)
    step = max(1, _CHUNK_ENTRIES // max(1, m.size))
    for start in range(1, B + 1, step):
        xq = np.arange(start, min(B, start + step - 1) + 1, dtype=np.int64)
        odd = (np.bitwise_count(np.bitwise_and(xq[:, None, None], m[None, :, :])) & 1)
        out[start - 1:start - 1 + xq.size] = m.shape[0] - np.count_nonzero(
            np.any(odd, axis=2), axis=1)
    return out


def shuffled_hadamard_estimate(messages: Any, *, n: int, B: int, rho: int) -> np.ndarray:
    """The unbiased estimates f^_x = (N_x - n (1 + rho) pi) / (1 - pi), pi = 2^-tau.

    Args:
        messages: the shuffled tuples, shape (n (1 + rho), tau).
        n: number of users.
        B: domain size.
        rho: noise tuples per user.

    Returns:
        Estimates for x = 1..B.

    Raises:
        ParameterError: the number of tuples is not n (1 + rho).
    """
    m = np.asarray(messages, dtype=np.int64)
    if m.ndim != 2 or m.shape[0] != n * (1 + rho):
        raise ParameterError(f"expected n (1 + rho) = {n * (1 + rho)} tuples")
    pi = 2.0 ** -m.shape[1]
    return (_tuple_counts(m, B) - n * (1 + rho) * pi) / (1.0 - pi)


# ------------------------------------------------------------------ single-message baselines
def krr_randomizer(xs: Any, *, epsilon0: float, B: int, rng: np.random.Generator) -> np.ndarray:
    """k-RR over B symbols: x w.p. e^eps0/(e^eps0 + B - 1), else a uniform other symbol."""
    xs = _check_values(xs, B)
    keep = rng.random(xs.size) < math.exp(epsilon0) / (math.exp(epsilon0) + B - 1)
    other = rng.integers(1, B, size=xs.size)  # 1..B-1, skipping x below
    other = np.where(other >= xs, other + 1, other)
    return np.where(keep, xs, other)


def krr_estimate(reports: Any, *, epsilon0: float, B: int) -> np.ndarray:
    """Unbiased k-RR estimates (c_x - n q)/(p - q), p = e^eps0/(e^eps0+B-1), q = 1/(...)."""
    y = np.asarray(reports, dtype=np.int64)
    den = math.exp(epsilon0) + B - 1
    p, q = math.exp(epsilon0) / den, 1.0 / den
    c = np.bincount(y, minlength=B + 1)[1:B + 1].astype(float)
    return (c - y.size * q) / (p - q)


def unary_randomizer(xs: Any, *, epsilon0: float, B: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Symmetric unary encoding: each bit of the one-hot vector kept w.p.
    e^(eps0/2)/(1 + e^(eps0/2)), flipped otherwise (eps0-LDP). Returns (n, B) bools."""
    xs = _check_values(xs, B)
    keep_p = 1.0 / (1.0 + math.exp(-epsilon0 / 2))
    onehot = np.arange(1, B + 1)[None, :] == xs[:, None]
    flip = rng.random(onehot.shape) >= keep_p
    return onehot ^ flip


def unary_estimate(reports: Any, *, epsilon0: float) -> np.ndarray:
    """Unbiased unary-encoding estimates (c_x - n q)/(p - q), p = keep prob, q = 1 - p."""
    bits = np.asarray(reports, dtype=bool)
    p = 1.0 / (1.0 + math.exp(-epsilon0 / 2))
    q = 1.0 - p
    return (bits.sum(axis=0) - bits.shape[0] * q) / (p - q)


def certified_epsilon_upper(protocol: str, n: int, B: int, epsilon0: float,
                            delta: float) -> Result:
    """The certified upper end of the shuffled protocol's epsilon(delta) at epsilon0.

    The same Result as `KRR(n, epsilon0, k=B).epsilon_for_delta(delta).upper` (k-RR: the
    blanket pair revealing only the blanket count for B >= 3, the binary blanket clone pair
    at B = 2) and `LDP(n, epsilon0).epsilon_for_delta(delta).upper` (unary encoding: the
    clones pair), without building the lower ends (k-RR's special pair at n <= 200,000,
    binary RR's special pair), which a calibration never reads.

    Args:
        protocol: "k-rr" or "unary".
        n: number of users (>= 2).
        B: domain size (>= 2; unused for "unary").
        epsilon0: the local epsilon0 (> 0).
        delta: target delta, in (0, 1).

    Returns:
        The UPPER Result on "epsilon", scope MECHANISM (as the mechanisms label it).

    Raises:
        ParameterError: an unknown protocol or an argument outside its domain.
    """
    if protocol == "k-rr":
        if B == 2:
            up = clones.epsilon_for_delta(clones.blanket_k_rr(n=n, epsilon0=epsilon0, k=2),
                                          delta=delta).upper
        else:
            up = blanket.epsilon_for_delta(blanket.blanket_count_pair(n=n, epsilon0=epsilon0,
                                                                      k=B), delta=delta).upper
    elif protocol == "unary":
        up = clones.epsilon_for_delta(clones.fmt_clones(n=n, epsilon0=epsilon0),
                                      delta=delta).upper
    else:
        raise ParameterError(f"protocol={protocol!r}; valid: 'k-rr', 'unary'")
    # the pair dominates every neighbouring pair: its upper end is one on the mechanism
    return up.with_(scope=Scope.MECHANISM)


def _certified_epsilon(protocol: str, n: int, B: int, epsilon0: float, delta: float) -> Result:
    return certified_epsilon_upper(protocol, n, B, epsilon0, delta)


def checked_epsilon0(protocol: str, *, n: int, B: int, epsilon: float, delta: float,
                     epsilon0: float, rel_tol: float = 1e-2,
                     max_steps: int = 40) -> tuple[float, Result]:
    """Certify a candidate epsilon0 found by any search (for instance one certified
    delta(epsilon) check per step): the certified epsilon(delta) upper end at epsilon0 must
    be <= epsilon; if it is not, epsilon0 shrinks by the factor (1 - rel_tol / 2) until it is.

    A delta(epsilon) <= delta certificate and an epsilon(delta) <= epsilon one differ only by
    the epsilon search's tolerance, so the first check nearly always passes; the shrinking
    keeps the returned pair sound either way.

    Args:
        protocol: "k-rr" or "unary".
        n: number of users (>= 2).
        B: domain size (>= 2).
        epsilon, delta: the target.
        epsilon0: the candidate.
        rel_tol: the search's relative tolerance (sets the shrinking step).
        max_steps: bound on the number of certified evaluations.

    Returns:
        (epsilon0, the certified upper Result at it, <= epsilon).

    Raises:
        ParameterError: no epsilon0 within max_steps meets the target.
    """
    e0 = float(epsilon0)
    for _ in range(max_steps):
        r = certified_epsilon_upper(protocol, n, B, e0, delta)
        if float(r) <= epsilon:
            return e0, r
        e0 *= 1.0 - rel_tol / 2
    raise ParameterError(f"no epsilon0 <= {epsilon0:g} within {max_steps} steps meets "
                         f"epsilon={epsilon}, delta={delta} for {protocol} with n={n}")


def calibrated_epsilon0(protocol: str, *, n: int, B: int, epsilon: float, delta: float,
                        rel_tol: float = 1e-3, max_steps: int = 40) -> tuple[float, Result]:
    """The largest epsilon0 (to rel_tol) whose certified shuffled epsilon(delta) <= epsilon.

    Bisection on the certified value: the returned epsilon0 is one at which the certified
    upper end was computed and found <= epsilon, so the guarantee holds whether or not the
    certified curve is monotone. k-RR uses `KRR(n, epsilon0, k=B)` (blanket pair); unary
    encoding, an epsilon0-LDP randomizer, uses `LDP(n, epsilon0)` (clones pair).

    Args:
        protocol: "k-rr" or "unary".
        n: number of users (>= 2).
        B: domain size (>= 2).
        epsilon, delta: the target.
        rel_tol: relative width of the final bisection interval.
        max_steps: bound on the number of certified evaluations in each phase.

    Returns:
        (epsilon0, the certified upper Result at epsilon0).

    Raises:
        ParameterError: no epsilon0 in [1e-3, 2 log n + 20] meets the target.
    """
    cap = 2 * math.log(n) + 20
    lo: float | None = None
    hi: float | None = None
    r_lo: Result | None = None
    x = 1.0
    for _ in range(max_steps):  # bracket: lo meets the target, hi does not
        r = _certified_epsilon(protocol, n, B, x, delta)
        if float(r) <= epsilon:
            lo, r_lo = x, r
        else:
            hi = x
        if lo is not None and hi is not None:
            break
        x = 2.0 * x if hi is None else 0.5 * x
        if x > cap:
            break
        if x < 1e-3:
            raise ParameterError(f"no epsilon0 >= 1e-3 meets epsilon={epsilon}, "
                                 f"delta={delta} for {protocol} with n={n}")
    if lo is None or r_lo is None:
        raise ParameterError(f"no epsilon0 found for {protocol} with n={n}")
    if hi is None:
        return lo, r_lo
    for _ in range(max_steps):
        if hi - lo <= rel_tol * lo:
            break
        mid = 0.5 * (lo + hi)
        r = _certified_epsilon(protocol, n, B, mid, delta)
        if float(r) <= epsilon:
            lo, r_lo = mid, r
        else:
            hi = mid
    return lo, r_lo


# ------------------------------------------------------------------ one summary for the CLI
def simulate_summary(*, n: int, B: int, rho: int, trials: int, seed: int,
                     tau: int | None = None,
                     dataset: Sequence[int] | None = None) -> dict[str, Any]:
    """Run the shuffled multi-message Hadamard response `trials` times and summarize.

    The default dataset puts about half the users on value 1 and spreads the rest over
    2..B. Reported: the mean and largest over trials of the maximum count error over all B
    values, the mean signed error (unbiasedness) with its standard error, communication
    (messages and bits per user) and the analyzer's query time per value.

    Args:
        n, B, rho: the protocol's parameters.
        trials: runs of the protocol.
        seed: seed of numpy's default generator.
        tau: indices per tuple (default ceil(log2 n)).
        dataset: the users' values (default as above).

    Returns:
        A JSON-ready dict.
    """
    rng = np.random.default_rng(seed)
    tau = default_tau(n) if tau is None else int(tau)
    xs = (np.asarray(dataset, dtype=np.int64) if dataset is not None else
          np.where(np.arange(n) < n // 2, 1, 1 + np.arange(n) % max(1, B - 1) + (B > 1)))
    xs = np.minimum(xs, B)
    f = true_frequencies(xs, B)
    K = padded_size(B)
    max_err, signed, q_time = [], [], 0.0
    for _ in range(trials):
        msgs = shuffled_hadamard_messages(xs, B=B, tau=tau, rho=rho, rng=rng)
        t0 = time.perf_counter()
        est = shuffled_hadamard_estimate(msgs, n=n, B=B, rho=rho)
        q_time += time.perf_counter() - t0
        err = est - f
        max_err.append(float(np.max(np.abs(err))))
        signed.append(float(np.mean(err)))
    s = np.asarray(signed)
    se = float(np.std(s, ddof=1) / math.sqrt(s.size)) if s.size > 1 else math.inf
    return {"trials": trials, "seed": seed, "n": n, "B": B, "K": K, "tau": tau, "rho": rho,
            "max_count_error_mean": float(np.mean(max_err)),
            "max_count_error_max": float(np.max(max_err)),
            "mean_signed_error": float(np.mean(s)), "mean_signed_error_se": se,
            "messages_per_user": 1 + rho,
            "bits_per_user": (1 + rho) * tau * int(math.log2(K)),
            "query_seconds_per_value": q_time / (trials * B),
            "error_kind": "max over the B values of |estimate - true count|"}
