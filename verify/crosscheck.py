"""Sampled views against exact PMFs: goodness-of-fit tests with a stated false-alarm rate.

DESIGN.md ("Why samplers live apart from views"): a protocol's exact view (a `PMF` built
by `accountant.protocols`) and its literal sampler (`verify.samplers`) are two independent
descriptions of one law; this module is the test that catches a mistake in either.

Test. Outcomes are integer vectors (1-D or d-D). The exact law's cells are fixed before
the data are seen; cells with expected count below `min_expected` (5, the usual
chi-square rule) are pooled, in lexicographic label order (adjacent outcomes for a 1-D
law), into groups of expected count >= `min_expected`, together with one extra cell for
everything outside the PMF's grid (expected mass 1 - grid mass). The statistic is
Pearson's X^2 = sum_i (O_i - E_i)^2 / E_i, compared with chi-square(cells - 1); the test
fails when the p-value is below `false_alarm`. (Pearson rather than the likelihood-ratio
G: G's upward bias of ~sum_i 1/(6 E_i) inflates the false-alarm rate when there are
thousands of pooled cells; see the comment in `goodness_of_fit`.) A sample on an outcome of
probability exactly 0 fails outright (p-value 0): no sampling noise explains it.

False-alarm rate. When the samples really come from the PMF, the test fails with
probability `false_alarm` up to the error of the chi-square approximation, which is small
when every pooled cell has expected count >= 5. Measured (tests/verify/test_crosscheck.py
and the development runs behind it): 1-D, 400 runs at nominal 0.1: 39 failures;
2-D with ~1700 cells, 200 runs at 0.1: 21 (goodness of fit) and 12 (two-sample);
2-D with ~12000 cells, 60 runs: 11.7% at 0.1 and 1.7% at 0.01 for both tests. Rates
below 0.01 were not measured; the approximation's relative error grows in the far tail,
so read false_alarm = 1e-3 as "about 1e-3". Seeded tests that run k such checks fail
spuriously with probability about k * false_alarm.

Example:
    >>> import numpy as np
    >>> from accountant.distributions import binomial
    >>> rng = np.random.default_rng(1)
    >>> goodness_of_fit(rng.binomial(50, 0.3, size=20_000), binomial(50, 0.3)).passed
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from accountant.errors import ParameterError
from accountant.pmf import PMF

__all__ = ["GofResult", "goodness_of_fit", "two_sample_test", "DEFAULT_FALSE_ALARM"]

DEFAULT_FALSE_ALARM = 1e-3


@dataclass(frozen=True, slots=True, kw_only=True)
class GofResult:
    """Outcome of one goodness-of-fit (or two-sample) test.

    Attributes:
        statistic: Pearson's X^2 (inf if a sample hit a probability-0 outcome).
        dof: degrees of freedom of the chi-square reference law (pooled cells - 1).
        p_value: chi-square(dof) survival function at `statistic`.
        passed: p_value >= false_alarm.
        false_alarm: the nominal probability of failing when the null hypothesis holds.
        cells: number of pooled cells.
        samples: number of samples tested (per sample, for a two-sample test: the first).
    """

    statistic: float
    dof: int
    p_value: float
    passed: bool
    false_alarm: float
    cells: int
    samples: int


def _check_false_alarm(false_alarm: float) -> None:
    if not (0 < false_alarm < 1):
        raise ParameterError(f"false_alarm={false_alarm!r} is outside (0, 1)")


def _as_rows(samples: Any, ndim: int, name: str) -> np.ndarray:
    """Samples as an integer array of shape (N, ndim)."""
    arr = np.asarray(samples)
    if arr.ndim == 1 and ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != ndim:
        raise ParameterError(f"{name} has shape {np.shape(samples)}; expected (N,) or "
                             f"(N, {ndim}) outcomes for a {ndim}-D law")
    if arr.shape[0] == 0:
        raise ParameterError(f"{name} is empty; at least one sample is needed")
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ParameterError(f"{name} must hold integer outcomes")
        arr = arr.astype(np.int64)
    return arr


@dataclass(frozen=True, slots=True)
class _Law:
    """The exact law's cells in lexicographic label order: probabilities (float64) and a
    map from sample rows to cell indices (-1 outside the law's cells)."""

    probs: np.ndarray
    ndim: int
    offset: np.ndarray | None = None   # PMF box: cells indexed arithmetically
    shape: tuple[int, ...] | None = None
    index: dict[tuple[int, ...], int] | None = None  # labelled arrays

    def cells_of(self, uniq: np.ndarray) -> np.ndarray:
        if self.shape is not None:
            rel = uniq - self.offset
            inside = np.all((rel >= 0) & (rel < np.array(self.shape)), axis=1)
            out = np.full(uniq.shape[0], -1, dtype=np.int64)
            if np.any(inside):
                out[inside] = np.ravel_multi_index(tuple(rel[inside].T), self.shape)
            return out
        return np.array([self.index.get(tuple(u), -1) for u in uniq.tolist()], dtype=np.int64)


def _law(pmf: PMF | Any, labels: Any) -> _Law:
    if isinstance(pmf, PMF):
        if labels is not None:
            raise ParameterError("labels are taken from the PMF's grid; do not pass labels")
        if pmf.backend == "float":
            probs = np.exp(pmf.values.astype(float)).ravel()
        else:
            probs = np.array([float(mpmath.mpf(v) if not hasattr(v, "numerator")
                                    else v.numerator / v.denominator)
                              for v in pmf.values.ravel()], dtype=float)
        # row-major order of the box is lexicographic order of the labels
        return _Law(probs=probs, ndim=pmf.ndim, offset=np.array(pmf.offset, dtype=np.int64),
                    shape=tuple(pmf.shape))
    probs = np.asarray(pmf, dtype=float).ravel()
    if labels is None:
        labs = np.arange(probs.size, dtype=np.int64)[:, None]
    else:
        labs = np.asarray(labels)
        labs = labs[:, None] if labs.ndim == 1 else labs
        labs = labs.astype(np.int64)
    if labs.shape[0] != probs.size:
        raise ParameterError(f"labels has {labs.shape[0]} rows but the law has {probs.size} "
                             "probabilities")
    if not np.all(np.isfinite(probs)) or np.any(probs < 0):
        raise ParameterError("probabilities must be finite and >= 0")
    if np.unique(labs, axis=0).shape[0] != labs.shape[0]:
        raise ParameterError("labels must be distinct")
    order = np.lexsort(labs.T[::-1])
    labs, probs = labs[order], probs[order]
    return _Law(probs=probs, ndim=labs.shape[1],
                index={tuple(lab): i for i, lab in enumerate(labs.tolist())})


def _counts(rows: np.ndarray, law: _Law) -> tuple[np.ndarray, int]:
    """Counts per cell of the law and the number of samples on none of its cells."""
    uniq, cnt = np.unique(rows, axis=0, return_counts=True)
    cells = law.cells_of(uniq)
    inside = cells >= 0
    counts = np.bincount(cells[inside], weights=cnt[inside], minlength=law.probs.size)
    return counts.astype(np.int64), int(np.sum(cnt[~inside]))


def _pool(expected: np.ndarray, min_expected: float) -> np.ndarray:
    """Group id per cell: cells with expected >= min_expected alone; the others pooled in
    order into consecutive groups, each closed as soon as its expected count reaches
    min_expected (a short last group joins the previous pooled group, or the smallest
    single cell if there is none). Depends on the expected counts only."""
    groups = np.arange(expected.size, dtype=np.int64)
    small = np.flatnonzero(expected < min_expected)
    if small.size:
        cum = np.cumsum(expected[small])
        ids = np.empty(small.size, dtype=np.int64)
        start, base, last = 0, 0.0, -1
        while start < small.size:
            # first position whose running sum since `start` reaches min_expected
            end = int(np.searchsorted(cum, base + min_expected, side="left"))
            if end >= small.size:
                if last >= 0:
                    ids[start:] = last
                else:
                    big = np.flatnonzero(expected >= min_expected)
                    ids[start:] = (big[np.argmin(expected[big])] if big.size
                                   else small[start])
                break
            ids[start:end + 1] = small[start]
            last = small[start]
            base = cum[end]
            start = end + 1
        groups[small] = ids
    _, dense = np.unique(groups, return_inverse=True)
    return dense


def _pearson(observed: np.ndarray, expected: np.ndarray) -> float:
    return float(np.sum((observed - expected) ** 2 / expected))


def goodness_of_fit(samples: Any, pmf: PMF | Any, *, labels: Any = None,
                    false_alarm: float = DEFAULT_FALSE_ALARM,
                    min_expected: float = 5.0) -> GofResult:
    """Chi-square test of `samples` against an exact law, with a stated false-alarm rate.

    Args:
        samples: integer outcomes, shape (N,) for a 1-D law or (N, d) for a d-D law.
        pmf: an `accountant.pmf.PMF` (any backend; its grid gives the labels, its mass
            outside the grid is one cell), or an array of probabilities with `labels`.
        labels: with an array `pmf`: the outcome of each probability, shape (K,) or (K, d)
            (default 0..K-1). Probability missing from the array (1 - sum) is one cell.
        false_alarm: the test fails when the p-value is below this; it is the probability
            of a spurious failure when the samples do come from `pmf` (module docstring).
        min_expected: least expected count of a pooled cell.

    Returns:
        GofResult(statistic, dof, p_value, passed, false_alarm, cells, samples).

    Raises:
        ParameterError: malformed samples or law, false_alarm outside (0, 1).
    """
    _check_false_alarm(false_alarm)
    law = _law(pmf, labels)
    probs = law.probs
    rows = _as_rows(samples, law.ndim, "samples")
    total = float(np.sum(probs))
    if total > 1 + 1e-9:
        raise ParameterError(f"the law's probabilities sum to {total!r} > 1")
    n = rows.shape[0]
    counts, outside = _counts(rows, law)
    outside_p = max(0.0, 1.0 - total)
    if np.any(counts[probs == 0] > 0) or (outside > 0 and outside_p == 0.0):
        return GofResult(statistic=math.inf, dof=0, p_value=0.0, passed=False,
                         false_alarm=false_alarm, cells=0, samples=n)
    keep = np.flatnonzero(probs > 0)
    expected = np.append(n * probs[keep], n * outside_p)
    observed = np.append(counts[keep], outside).astype(float)
    if outside_p == 0.0:
        expected, observed = expected[:-1], observed[:-1]
    groups = _pool(expected, min_expected)
    exp_g = np.bincount(groups, weights=expected)
    obs_g = np.bincount(groups, weights=observed)
    dof = exp_g.size - 1
    if dof < 1:
        return GofResult(statistic=0.0, dof=0, p_value=1.0, passed=True,
                         false_alarm=false_alarm, cells=int(exp_g.size), samples=n)
    # renormalise: the float probabilities may sum to 1 -/+ rounding
    exp_g = exp_g * (n / np.sum(exp_g))
    # Pearson's X^2, not the likelihood-ratio G: under the null E[X^2] = cells - 1
    # exactly and its variance is 2 (cells - 1) + (sum_i 1/p_i - cells^2 - 2 cells + 2)/N,
    # close to chi-square's for near-equal pooled cells, whereas G is biased upwards by
    # ~sum_i 1/(6 E_i): with 12000 cells of expected count 5-8, G (even with Williams'
    # correction) failed 30% of the time at a nominal 10%; X^2 stays at the nominal rate.
    g = _pearson(obs_g, exp_g)
    p_value = float(stats.chi2.sf(g, dof))
    return GofResult(statistic=g, dof=int(dof), p_value=p_value, passed=p_value >= false_alarm,
                     false_alarm=false_alarm, cells=int(exp_g.size), samples=n)


def two_sample_test(samples_a: Any, samples_b: Any, *,
                    false_alarm: float = DEFAULT_FALSE_ALARM,
                    min_expected: float = 5.0) -> GofResult:
    """Chi-square test of homogeneity: do two samples come from one (unknown) law?

    Used to show that a literal sampler and its vectorised fast path are statistically
    indistinguishable. Cells are the outcomes seen in either sample, pooled (in label
    order) by their expected count under the pooled law so that each has expected count
    >= min_expected in both samples; Pearson's X^2 over the 2 x cells table with
    E from the margins, against chi-square(cells - 1). The false-alarm rate is as in
    `goodness_of_fit` (the pooling looks at the pooled law only, which is symmetric in the
    two samples, so the null distribution is unaffected to first order).
    """
    _check_false_alarm(false_alarm)
    a = np.asarray(samples_a)
    ndim = 1 if a.ndim == 1 else a.shape[1]
    ra = _as_rows(samples_a, ndim, "samples_a")
    rb = _as_rows(samples_b, ndim, "samples_b")
    labs = np.unique(np.concatenate([ra, rb]), axis=0)  # lexicographic order
    law = _Law(probs=np.zeros(labs.shape[0]), ndim=ndim,
               index={tuple(lab): i for i, lab in enumerate(labs.tolist())})
    ca, _ = _counts(ra, law)
    cb, _ = _counts(rb, law)
    na, nb = ra.shape[0], rb.shape[0]
    pooled = (ca + cb) / (na + nb)
    groups = _pool(min(na, nb) * pooled, min_expected)
    oa = np.bincount(groups, weights=ca.astype(float))
    ob = np.bincount(groups, weights=cb.astype(float))
    dof = oa.size - 1
    if dof < 1:
        return GofResult(statistic=0.0, dof=0, p_value=1.0, passed=True,
                         false_alarm=false_alarm, cells=int(oa.size), samples=na)
    col = (oa + ob) / (na + nb)
    g = _pearson(oa, na * col) + _pearson(ob, nb * col)  # Pearson, as in goodness_of_fit
    p_value = float(stats.chi2.sf(g, dof))
    return GofResult(statistic=g, dof=int(dof), p_value=p_value, passed=p_value >= false_alarm,
                     false_alarm=false_alarm, cells=int(oa.size), samples=na)
