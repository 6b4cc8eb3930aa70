"""The subsampled-count pair and the binomial-shift pair (accountant/pairs/subsampled_count.py,
binomial_shift.py), pinned where mutation testing found gaps
(docs/soundness.md#mutation-testing); complements tests/core/test_mutation_kills_renyi_pairs.py.

Oracle: the pairs' definitions (module docstrings) evaluated in mpmath at 60 digits from
exact rational parameters:
    subsampled count: P(k) = (1 - a) B(k) + a B(k - 1), Q(k) = (1 - c) B(k) + c B(k - 1),
        B = Bin(n - 1, b), a = rate high, b = rate low, c = b (substitute) or 0 (add/remove);
    binomial shift: P = Bin(n, p), Q = 1 + Bin(n, p), L(k) = log((n - k + 1) p / (k (1 - p))).
Checked: every finite stored value within its stated error of the truth, the stated errors
no larger than the documented ones (a loose error is a loose certified bracket), the
documented defaults and backend types.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant.pairs.binomial_shift import binomial_shift_loss, binomial_shift_pair
from accountant.pairs.subsampled_count import subsampled_count_pair

_DPS = 60
_U = 2.0 ** -53


def _mpq(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _count_truth(n, a, b, c, k):
    """(log P(k), log Q(k)) of the subsampled count at 60 digits (-inf for a zero mass)."""
    m = n - 1
    am, bm, cm = _mpq(a), _mpq(b), _mpq(c)

    def binom(j):
        if j < 0 or j > m:
            return mpmath.mpf(0)
        return mpmath.binomial(m, j) * bm ** j * (1 - bm) ** (m - j)

    p = (1 - am) * binom(k) + am * binom(k - 1)
    q = (1 - cm) * binom(k) + cm * binom(k - 1)
    return (mpmath.log(p) if p > 0 else -mpmath.inf, mpmath.log(q) if q > 0 else -mpmath.inf)


def _check_count_view(view, n, high, low, rate, relation, *, tight=1e-10):
    """Stored log P, log Q, loss within the stated errors of the exact ones (60 digits), the
    errors themselves below `tight` (absolute) where the value is finite, 0 where not."""
    a, b = Fraction(rate) * Fraction(high), Fraction(rate) * Fraction(low)
    c = b if relation == "substitute" else Fraction(0)
    assert view.grid_exact is True  # true probabilities on the grid (the pair's lower ends)
    with mpmath.workdps(_DPS):
        for i, k in enumerate(int(k) for k in view.coords[0]):
            lp, lq = _count_truth(n, a, b, c, k)
            for got, truth in ((view.p[i], lp), (view.q[i], lq)):
                if truth == -mpmath.inf:
                    assert got == -math.inf, (k, got)
                else:
                    assert abs(mpmath.mpf(got) - truth) <= mpmath.mpf(view.log_error[i]), (
                        k, got, truth, view.log_error[i])
            assert 0 <= view.log_error[i] <= tight, (k, view.log_error[i])
            if lq == -mpmath.inf:
                assert view.loss[i] == math.inf
            else:
                assert abs(mpmath.mpf(view.loss[i]) - (lp - lq)) <= mpmath.mpf(
                    view.loss_error[i]), (k, view.loss[i], lp - lq, view.loss_error[i])
                assert 0 <= view.loss_error[i] <= tight, (k, view.loss_error[i])


@pytest.mark.parametrize("n, high, low, rate, relation", [
    # the whole support 0..n-1 of B is in the window: the k >= m + 1 and k = 0 branches
    (6, "9/10", "1/2", "1", "substitute"),
    (6, "9/10", "1/2", "1", "add-remove"),
    (5, "3/4", "1/3", "2/3", "substitute"),
    # the window starts above 0
    (3000, "3/5", "1/5", "1/2", "substitute"),
    (3000, "3/5", "1/5", "1/2", "add-remove"),
    # a tiny ratio b / (1 - b)
    (50, "1/2", "1/1000000", "1/10", "substitute"),
])
def test_subsampled_count_pair_values_losses_and_errors(n, high, low, rate, relation):
    h, lo_, r = Fraction(high), Fraction(low), Fraction(rate)
    view = subsampled_count_pair(n=n, high=float(h), low=float(lo_), rate=float(r),
                                 relation=relation, tail=1e-12)
    ks = [int(k) for k in view.coords[0]]
    assert ks == list(range(ks[0], ks[-1] + 1))
    if n < 10:
        assert ks == list(range(0, n + 1))  # 0..m plus one point
    _check_count_view(view, n, float(h), float(lo_), float(r), relation)


def test_subsampled_count_pair_default_relation_is_substitute():
    """The documented default relation is "substitute" (c = rate low)."""
    kw = dict(n=40, high=0.7, low=0.2, rate=0.3, tail=1e-12)
    default = subsampled_count_pair(**kw)
    sub = subsampled_count_pair(relation="substitute", **kw)
    rem = subsampled_count_pair(relation="add-remove", **kw)
    for name in ("p", "q", "loss", "log_error", "loss_error"):
        assert np.array_equal(getattr(default, name), getattr(sub, name)), name
    assert not np.array_equal(default.q, rem.q)
    assert default.residual_loss_bound == sub.residual_loss_bound < math.inf


def test_subsampled_count_pair_uses_the_given_complements():
    """high = 1 - 1e-12 and low = 1 - 1e-9 as floats have rounded complements (relative
    errors 1e-4 and 1e-7); with the exact complements given, the pair is that of the true
    parameters (rate 1: P(k) = (1 - high) B(k) + high B(k-1), B(k) ~ (1 - low)^(n-1-k))."""
    h, lo_ = 1 - Fraction(1, 10 ** 12), 1 - Fraction(1, 10 ** 9)
    n = 20
    view = subsampled_count_pair(n=n, high=float(h), low=float(lo_), rate=1.0,
                                 high_complement=1e-12, low_complement=1e-9, tail=1e-12)
    assert int(view.coords[0][-1]) == n  # k = m + 1: P = high B(m), Q = low B(m)
    # truth from the exact parameters (the floats 1e-12, 1e-9 are within 4u of 1e-12, 1e-9)
    with mpmath.workdps(_DPS):
        for i, k in enumerate(int(k) for k in view.coords[0]):
            lp, lq = _count_truth(n, h, lo_, lo_, k)
            assert abs(mpmath.mpf(view.p[i]) - lp) <= mpmath.mpf(view.log_error[i]), k
            assert abs(mpmath.mpf(view.q[i]) - lq) <= mpmath.mpf(view.log_error[i]), k
            assert abs(mpmath.mpf(view.loss[i]) - (lp - lq)) <= mpmath.mpf(
                view.loss_error[i]), k


def test_subsampled_count_pair_residual_bound():
    """Substitute: residual_loss_bound >= the largest |L(k)| over all k (exact, 60 digits),
    within 1e-12 of it; add/remove: inf (Q has no mass at n)."""
    n, h, lo_, r = 8, Fraction(4, 5), Fraction(1, 10), Fraction(1, 2)
    a, b = r * h, r * lo_
    view = subsampled_count_pair(n=n, high=float(h), low=float(lo_), rate=float(r),
                                 tail=1e-12)
    with mpmath.workdps(_DPS):
        worst = max(abs(lp - lq) for lp, lq in (_count_truth(n, a, b, b, k)
                                                for k in range(n + 1)))
    assert mpmath.mpf(view.residual_loss_bound) >= worst
    assert view.residual_loss_bound <= float(worst) * (1 + 1e-12) + 1e-12
    rem = subsampled_count_pair(n=n, high=float(h), low=float(lo_), rate=float(r),
                                relation="add-remove", tail=1e-12)
    assert rem.residual_loss_bound == math.inf


# ------------------------------------------------------------------ binomial shift
@pytest.mark.parametrize("n, p", [(10 ** 9, 1e-5), (10 ** 6, 0.3), (200, 0.5)])
def test_binomial_shift_loss_near_the_mean_is_relatively_accurate(n, p):
    """Where |r| = |(n+1)p - k| / (k (1-p)) < 0.5 the loss is the log1p branch: its stated
    error is 32 u |L| (docstring) and the value is within it of the truth, even for
    |L| ~ 1e-4 at n = 1e9 (a difference of logs would be off by ~u log(n p))."""
    mean = (n + 1) * p
    ks = sorted({int(mean) + d for d in (-3, -1, 0, 1, 2, 5)} | {int(mean * 1.2),
                                                               int(mean * 0.8)})
    loss, err = binomial_shift_loss(np.array(ks, dtype=float), n, p)
    with mpmath.workdps(_DPS):
        pm = _mpq(p)
        for k, v, e in zip(ks, loss, err, strict=True):
            truth = mpmath.log((n - k + 1) * pm / (k * (1 - pm)))
            r = ((n + 1) * pm - k) / (k * (1 - pm))
            assert abs(mpmath.mpf(v) - truth) <= mpmath.mpf(e), (k, v, truth, e)
            if abs(r) < 0.49:
                assert e <= 32 * _U * abs(float(truth)) * (1 + 1e-9), (k, e, truth)
                assert abs(mpmath.mpf(v) - truth) <= 32 * _U * abs(truth)


def test_binomial_shift_pair_backend_types():
    """Exact views hold Fractions (tails included: exact arithmetic downstream); mp views
    mpfs; both tails are the float window's cut, exactly."""
    p = Fraction(2, 7)
    ex = binomial_shift_pair(60, p, backend="exact", tail=1e-9)
    assert isinstance(ex.tail_p, Fraction) and isinstance(ex.tail_q, Fraction)
    assert all(isinstance(v, Fraction) for v in ex.p)
    mp = binomial_shift_pair(60, p, backend="mp", tail=1e-9)
    assert isinstance(mp.tail_p, mpmath.mpf) and isinstance(mp.tail_q, mpmath.mpf)
    assert ex.tail_p == Fraction(float(ex.tail_p)) and mp.tail_p == float(ex.tail_p)
    assert 0 < ex.tail_p <= Fraction(1, 10 ** 9)


@pytest.mark.parametrize("backend", ["float", "mp", "exact"])
@pytest.mark.parametrize("tail", [None, 1e-9])
def test_binomial_shift_pair_grid_is_the_window_plus_one_and_exact(backend, tail):
    """The grid is a..b+1 (a..b the certified window of Bin(n, p), 0..n without a tail) and
    its values are the true probabilities (grid_exact: the pair may give lower ends); the
    tails bound the mass off the grid (exact binomial sums)."""
    from accountant.distributions import binomial_window

    n, p = 80, Fraction(1, 5)
    view = binomial_shift_pair(n, p if backend == "exact" else float(p), backend=backend,
                               tail=tail)
    a, b = (0, n) if tail is None else binomial_window(n, 0.2, tail)[:2]
    ks = [int(k) for k in view.coords[0]]
    assert ks == list(range(a, b + 2))
    assert view.grid_exact is True
    pf = Fraction(float(p))  # the float p the float/mp views are built from
    off = sum((math.comb(n, k) * pf ** k * (1 - pf) ** (n - k) for k in range(n + 1)
               if not a <= k <= b), Fraction(0))
    tp = view.tail_p
    if isinstance(tp, mpmath.mpf):
        tp = Fraction(float(tp))
        assert view.tail_p == tp  # a float cut, held exactly
    assert Fraction(tp) >= off * (1 - Fraction(1, 10 ** 12))
    if tail is not None:
        assert float(view.tail_p) <= tail


@pytest.mark.parametrize("n", [1, 2, 3])
def test_binomial_shift_loss_at_the_smallest_n(n):
    """n >= 1 is in the domain: L(k) for k = 0..n+1 (+inf at 0, -inf at n + 1), finite values
    within the stated error of log((n-k+1) p / (k (1-p)))."""
    p = 0.3
    ks = np.arange(0, n + 2, dtype=float)
    loss, err = binomial_shift_loss(ks, n, p)
    assert loss[0] == math.inf and loss[-1] == -math.inf and err[0] == err[-1] == 0
    with mpmath.workdps(_DPS):
        pm = _mpq(p)
        for k in range(1, n + 1):
            truth = mpmath.log((n - k + 1) * pm / (k * (1 - pm)))
            assert math.isfinite(err[k]) and abs(mpmath.mpf(loss[k]) - truth) <= err[k]
    view = binomial_shift_pair(n, p)
    assert [int(k) for k in view.coords[0]] == list(range(n + 2))
    assert np.all(np.isfinite(view.loss_error))
