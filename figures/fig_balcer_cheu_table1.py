"""Balcer and Cheu, ITC 2020: Table 1's local, this paper's and central rows as a measured
figure: simultaneous histogram error against the domain size d at fixed n, epsilon, delta,
with the messages each user sends; and the [8] row. The two rows of [13] are not measured
here.

Table 1 compares rates (no constants): local Theta(sqrt(log d)/(eps sqrt n)); this paper's
shuffled histogram O(log(1/delta)/(eps^2 n)), free of d; central
Theta(min(log d, log 1/delta)/(eps n)). We measure, for one dataset and seeded trials, the
simultaneous error max_j |estimate_j - f_j| of normalised frequencies f_j:

- local: Hadamard response at epsilon (epsilon-LDP; a user with value v reports a uniform
  column of C_v = {k : H[v][k] = +1} with probability e^eps/(1+e^eps), else one of its
  complement; estimate c (#{reports in C_x} - n/2), c = 2(e^eps+1)/(e^eps-1), as in
  `accountant.protocols.ggkpv.local_hadamard`): the table's Theta(sqrt(log d)) row; and
  k-ary randomized response at epsilon (unbiased estimator), whose error grows like sqrt(d)
  instead, for contrast;
- shuffled [8] (Cheu et al. 2019): every user sends, for each coordinate j, one binary
  randomized-response bit of 1[x = j] (d messages); each coordinate's count is a shuffled
  binary RR, whose epsilon0 is the largest (bisection) at which the clones bound for any
  epsilon0-LDP randomizer (`accountant.LDP`, certified) gives (eps/2, delta/2); the two
  coordinates a replace-one change touches compose to (eps, delta). Unbiased estimator
  (ones_j/n - q)/(p - q);
- shuffled: Balcer-Cheu's hist (`verify.samplers.balcer_cheu.hist_fast`, the vectorised
  literal protocol) with p set by the paper's rule for (epsilon/2, delta/2), so that
  Theorem 3.2(i) gives (epsilon, delta)-DP;
- central: the exact counts plus discrete Laplace noise DLap(epsilon/2) per bin (a replace-one
  change moves two counts by one: epsilon-DP), sampled as a difference of two geometrics (the
  log d regime of the central row), and the stability-based histogram (the log(1/delta)
  regime): counts of present values plus Laplace(2/epsilon), released when above
  tau = 1 + (2/epsilon) ln(2/delta), absent values never (docs/balcer-cheu-2020.md#table-2).

Messages per user: 1 for the local protocols, 1 + d p in expectation for hist (the noise
bit of each of the d coordinates plus the user's own), none for the central ones.

hist reports a bin as 0 unless its message count exceeds n, i.e. unless it holds more than
about n(1 - p) users: zero-count bins are exact, and a bin below that size costs at most
its frequency, so the error is at most about 1 - p = 50 log(4/delta)/((eps/2)^2 n) (drawn as
a reference line) whatever d is; where it is below that line depends on the dataset (it is
not flat in d: it follows the bin sizes, see `findings`).
Dataset: half of the users hold value 1, the rest are spread evenly over the other values.
Parameters (ours; the table has no numbers): n = 10^5, epsilon = 1, delta = 1e-6,
d in {2, 8, 32, 128, 512, 2048}, 20 trials; quick: d in {2, 32, 512}, 5 trials.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from scipy.linalg import hadamard

from accountant import LDP
from accountant.protocols.balcer_cheu import hist_parameters
from figures.common import Drawing, FigureFiles, FigureSpec, new_figure, track
from verify.samplers.balcer_cheu import hist_fast

__all__ = ["FIGURE", "HEADER", "MODELS", "N", "EPSILON", "DELTA", "central_stability", "compute",
           "findings", "local_hadamard", "rr_epsilon0", "run", "shuffled_rr"]

N = 10**5
EPSILON = 1.0
DELTA = 1e-6
DS: tuple[int, ...] = (2, 8, 32, 128, 512, 2048)
QUICK_DS: tuple[int, ...] = (2, 32, 512)
SEED = 2020
MODELS: tuple[str, ...] = ("local k-RR", "shuffled hist (this paper)", "central DLap",
                           "local Hadamard response", "central stability histogram",
                           "shuffled RR per coordinate [8]")
HEADER = ["model", "d", "n", "epsilon", "delta", "trials", "max_error_mean", "max_error_sd",
          "one_minus_p", "messages_per_user"]


def dataset(n: int, d: int) -> np.ndarray:
    """Counts per value: n/2 users at value 1, the rest spread evenly over the others.

    Args:
        n: users.
        d: domain size (>= 2).

    Returns:
        Integer counts of length d summing to n.
    """
    counts = np.zeros(d, dtype=np.int64)
    counts[0] = n // 2
    rest = n - counts[0]
    counts[1:] = rest // (d - 1)
    counts[1:1 + rest % (d - 1)] += 1
    return counts


def local_krr(counts: np.ndarray, epsilon: float, trials: int,
              rng: np.random.Generator) -> np.ndarray:
    """Estimated frequencies of k-ary randomized response, one row per trial.

    Args:
        counts: true counts per value.
        epsilon: the local epsilon.
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) unbiased frequency estimates.
    """
    d = counts.size
    n = int(counts.sum())
    e = math.exp(epsilon)
    keep, other = e / (e + d - 1), 1 / (e + d - 1)
    reports = np.zeros((trials, d))
    for j, c in enumerate(counts):
        if c == 0:
            continue
        probs = np.full(d, other)
        probs[j] = keep
        reports += rng.multinomial(int(c), probs / probs.sum(), size=trials)
    return (reports / n - other) / (keep - other)


def central_geometric(counts: np.ndarray, epsilon: float, trials: int,
                      rng: np.random.Generator) -> np.ndarray:
    """Counts plus DLap(epsilon/2) noise per bin, as frequencies.

    Args:
        counts: true counts.
        epsilon: total epsilon (each bin gets rate epsilon/2).
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) frequency estimates.
    """
    p = -math.expm1(-epsilon / 2)
    shape = (trials, counts.size)
    noise = rng.geometric(p, size=shape) - rng.geometric(p, size=shape)
    return (counts[None, :] + noise) / counts.sum()


def local_hadamard(counts: np.ndarray, epsilon: float, trials: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Estimated frequencies of local Hadamard response, one row per trial.

    Args:
        counts: true counts per value.
        epsilon: the local epsilon.
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) unbiased frequency estimates.
    """
    d = counts.size
    n = int(counts.sum())
    size = 1 << d.bit_length()  # a power of two > d: rows 1..d skip the all-ones row 0
    plus = hadamard(size)[1:d + 1] > 0
    inside = np.array([np.flatnonzero(row) for row in plus])   # C_v, size/2 columns each
    outside = np.array([np.flatnonzero(~row) for row in plus])
    values = np.repeat(np.arange(d), counts)
    e = math.exp(epsilon)
    scale = 2 * (e + 1) / (e - 1)
    out = np.empty((trials, d))
    for t in range(trials):
        keep = rng.random(n) < e / (1 + e)
        j = rng.integers(0, size // 2, size=n)
        columns = np.where(keep, inside[values, j], outside[values, j])
        hist = np.bincount(columns, minlength=size)
        out[t] = scale * (plus.astype(np.int64) @ hist - n / 2) / n
    return out


def central_stability(counts: np.ndarray, epsilon: float, delta: float, trials: int,
                      rng: np.random.Generator) -> np.ndarray:
    """Stability-based histogram: present values' counts plus Laplace(2/epsilon), released
    above tau = 1 + (2/epsilon) ln(2/delta); absent and unreleased values read 0.

    Args:
        counts: true counts.
        epsilon, delta: the target.
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) frequency estimates.
    """
    noisy = counts[None, :] + rng.laplace(0.0, 2 / epsilon, size=(trials, counts.size))
    tau = 1 + 2 * math.log(2 / delta) / epsilon
    released = (counts[None, :] > 0) & (noisy > tau)
    return np.where(released, noisy, 0.0) / counts.sum()


def rr_epsilon0(*, n: int, epsilon: float, delta: float) -> float:
    """The largest epsilon0 (to 1e-4, bisection) at which n shuffled epsilon0-LDP reports are
    certified (epsilon, delta)-DP by the clones bound (`accountant.LDP`).

    Args:
        n: users.
        epsilon, delta: the per-coordinate target.

    Returns:
        epsilon0 (its certified epsilon at delta is <= epsilon).
    """
    low, high = 1e-3, 30.0
    while high - low > 1e-4:
        mid = (low + high) / 2
        fits = float(LDP(n=n, epsilon0=mid).epsilon_for_delta(delta).upper) <= epsilon
        low, high = (mid, high) if fits else (low, mid)
    return low


def shuffled_rr(counts: np.ndarray, epsilon0: float, trials: int,
                rng: np.random.Generator) -> np.ndarray:
    """Estimated frequencies of [8]'s protocol: one binary RR bit per user and coordinate.

    Args:
        counts: true counts per value.
        epsilon0: each bit's local epsilon.
        trials: runs.
        rng: generator.

    Returns:
        (trials, d) unbiased frequency estimates.
    """
    n = int(counts.sum())
    e = math.exp(epsilon0)
    keep, flip = e / (1 + e), 1 / (1 + e)
    shape = (trials, counts.size)
    ones = rng.binomial(counts[None, :] * np.ones(shape, dtype=np.int64), keep) + rng.binomial(
        (n - counts)[None, :] * np.ones(shape, dtype=np.int64), flip)
    return (ones / n - flip) / (keep - flip)


def compute(ds: tuple[int, ...] = DS, *, trials: int = 20, n: int = N,
            epsilon: float = EPSILON, delta: float = DELTA,
            seed: int = SEED) -> list[dict[str, float]]:
    """Mean and sd over trials of the simultaneous error, per model and d.

    Args:
        ds: domain sizes.
        trials: seeded runs per point.
        n, epsilon, delta: the target.
        seed: the generator's seed.

    Returns:
        One row per (model, d) with the HEADER keys.
    """
    rng = np.random.default_rng(seed)
    p = hist_parameters(n=n, d=2, epsilon=epsilon / 2, delta=delta / 2).p
    epsilon0 = rr_epsilon0(n=n, epsilon=epsilon / 2, delta=delta / 2)
    rows = []
    for d in track(ds, "bc-table1 domain sizes"):
        counts = dataset(n, d)
        f = counts / n
        estimates = {
            "local k-RR": local_krr(counts, epsilon, trials, rng),
            "shuffled hist (this paper)": hist_fast(bin_counts=counts, p=p, trials=trials,
                                                    rng=rng)[1],
            "central DLap": central_geometric(counts, epsilon, trials, rng),
            "local Hadamard response": local_hadamard(counts, epsilon, trials, rng),
            "central stability histogram": central_stability(counts, epsilon, delta, trials,
                                                             rng),
            "shuffled RR per coordinate [8]": shuffled_rr(counts, epsilon0, trials, rng)}
        messages = {"local k-RR": 1.0, "shuffled hist (this paper)": 1 + d * p,
                    "central DLap": math.nan, "local Hadamard response": 1.0,
                    "central stability histogram": math.nan,
                    "shuffled RR per coordinate [8]": float(d)}
        for model, est in estimates.items():
            err = np.max(np.abs(est - f[None, :]), axis=1)
            rows.append({"model": model, "d": d, "n": n, "epsilon": epsilon, "delta": delta,
                         "trials": trials, "max_error_mean": float(np.mean(err)),
                         "max_error_sd": float(np.std(err, ddof=1)), "one_minus_p": 1 - p,
                         "messages_per_user": messages[model]})
    return rows


def findings(rows: list[dict[str, float]]) -> str:
    """What the rows show, as sentences whose numbers are read off the rows.

    Args:
        rows: the rows of `compute` (every model at every d).

    Returns:
        The local error at the smallest and largest d (and whether it rises at every step),
        the range of the shuffled error against its threshold 1-p, and at how many d the
        central error is the lowest.
    """
    def curve(model: str) -> list[dict[str, float]]:
        return sorted((r for r in rows if r["model"] == model), key=lambda r: r["d"])

    local, shuffled, central, hadamard_rows, stability, per_coordinate = (
        curve(m) for m in MODELS)
    text = ""
    for name, curve_rows in (("Local k-RR", local), ("Local Hadamard response", hadamard_rows),
                             ("[8]'s shuffled RR per coordinate", per_coordinate)):
        if not curve_rows:
            continue
        first, last = curve_rows[0], curve_rows[-1]
        rises = all(b["max_error_mean"] > a["max_error_mean"]
                    for a, b in zip(curve_rows, curve_rows[1:], strict=False))
        text += (f"{name}'s error goes from {first['max_error_mean']:.3g} at "
                 f"d={first['d']:g} to {last['max_error_mean']:.3g} at d={last['d']:g} "
                 f"(x{last['max_error_mean'] / first['max_error_mean']:.3g}"
                 f"{', rising at every step' if rises else ', not rising at every step'}). ")
    errors = [r["max_error_mean"] for r in shuffled]
    threshold = shuffled[0]["one_minus_p"]
    worst = max(shuffled, key=lambda r: r["max_error_mean"])
    below = [r for r in shuffled if r["max_error_mean"] < threshold]
    text += (f"The shuffled histogram's error ranges from {min(errors):.3g} to "
             f"{max(errors):.3g} (largest at d={worst['d']:g}); it is below its threshold "
             f"1-p = {threshold:.3g} at {len(below)} of {len(shuffled)} domain sizes. "
             + ("It is not flat in d" if max(errors) >= 2 * min(errors)
                else "It varies by less than a factor 2 over d")
             + ": a bin with fewer than about n(1-p) users reads 0 and costs its frequency, so "
             "the error follows the dataset's bin sizes (here n/(2(d-1)) users per minor "
             "value), bounded by about 1-p whatever d is. ")
    lowest = [c for c, s, loc in zip(central, shuffled, local, strict=True)
              if c["max_error_mean"] < min(s["max_error_mean"], loc["max_error_mean"])]
    text += f"Central DLap is below both at {len(lowest)} of {len(central)} domain sizes"
    if stability:
        errs = [r["max_error_mean"] for r in stability]
        text += (f"; the central stability histogram's error ranges from {min(errs):.3g} to "
                 f"{max(errs):.3g}")
    messages = [r["messages_per_user"] for r in shuffled]
    return text + (f". hist sends {min(messages):.4g} to {max(messages):.4g} messages per "
                   "user in expectation (1 for the local protocols, d for [8]).")


def _plot(rows: list[dict[str, float]]) -> Drawing:
    fig, axes = new_figure(1, width=7.0, height=6.5)
    ax = axes[0]
    for (model, marker), color in zip(zip(MODELS, ("o", "s", "^", "D", "v", "P"), strict=True),
                                      ("C0", "C1", "C2", "C3", "C4", "C5"), strict=True):
        sel = [r for r in rows if r["model"] == model]
        ax.errorbar([r["d"] for r in sel], [r["max_error_mean"] for r in sel],
                    yerr=[r["max_error_sd"] for r in sel], marker=marker, color=color,
                    capsize=2, label=model)
    ax.axhline(rows[0]["one_minus_p"], color="C1", linestyle=":",
               label=f"hist's threshold 1-p = {rows[0]['one_minus_p']:.3g}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("domain size d")
    ax.set_ylabel("simultaneous error max_j |f^_j - f_j| (frequency)")
    ax.set_title(f"n={rows[0]['n']:g}, eps={rows[0]['epsilon']:g}, "
                 f"delta={rows[0]['delta']:g}, {rows[0]['trials']} seeded trials", fontsize=9)
    ax.grid(True, alpha=0.3, which="both")
    return Drawing(fig, axes, "Balcer-Cheu Table 1, measured (error bars: sd over trials). "
                   + findings(rows))


FILES = FigureFiles(
    "balcer_cheu_2020_table1",
    see_png="simultaneous error of the local, shuffled and central histograms against d; the "
            "caption's numbers (the local error at both ends, the shuffled error's range "
            "against its threshold 1-p, where central is lowest) are generated from the CSV",
    see_csv="mean and sd of the simultaneous error per (model, d); seeded")


def run(out_dir: Path, quick: bool) -> list[Path]:
    """Write balcer_cheu_2020_table1.csv and .png.

    Args:
        out_dir: output directory.
        quick: d in {2, 32, 512} and 5 trials, same method.

    Returns:
        The files written.
    """
    rows = compute(QUICK_DS, trials=5) if quick else compute()
    return FILES.write(
        out_dir, _plot(rows), header=HEADER, rows=rows,
        comments=["Balcer-Cheu ITC 2020 Table 1, its rows except the two multi-message [13] "
                  "ones measured: simultaneous error of normalised frequencies (mean and sd "
                  "over seeded trials)",
                  "local: k-RR and Hadamard response at epsilon; shuffled: hist_fast with the "
                  "paper's p for (eps/2, delta/2) (Thm 3.2(i): (eps, delta)-DP), and [8]'s "
                  "binary RR bit per coordinate at the largest certified epsilon0; central: "
                  "DLap(eps/2) per bin (eps-DP) and the stability histogram (Laplace(2/eps), "
                  "threshold 1 + (2/eps) ln(2/delta))",
                  f"dataset: n/2 users at value 1, rest even; seed {SEED}; parameters ours"])


FIGURE = FigureSpec("bc-table1", "Balcer and Cheu, ITC 2020",
                    "Table 1's rows measured except the two multi-message [13] rows: "
                    "simultaneous histogram error vs d for local k-RR and Hadamard response, "
                    "the shuffled histogram, [8]'s shuffled RR per coordinate and the central "
                    "discrete Laplace and stability histograms at one (eps, delta)", run,
                    FILES.see)
