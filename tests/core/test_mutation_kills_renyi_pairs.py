"""The clones/blanket pairs' Renyi side and search (accountant/pairs/clones.py), and the
subsampled-count and binomial-shift pairs (accountant/pairs/subsampled_count.py,
binomial_shift.py), pinned where the fourth mutation run found gaps
(docs/soundness.md#mutation-testing).

Oracle: the definition of the pair (module docstring of clones.py), evaluated in mpmath at
50 digits from the float parameters q, w, w', w* taken exactly:
    P_c(x) = w B_c(x-1) + w' B_c(x),  Q_c(x) = w' B_c(x-1) + w B_c(x),  B_c = Bin(c, 1/2),
S_c(alpha) = sum_x P_c(x)^alpha Q_c(x)^(1-alpha), the per-count excess
E_c = S_c - (w + w') (the w* block has P = Q and adds w* to both sides), the per-count
moment M_c = S_c + w*, and the pair's moment sum_c Bin(N, q)(c) (S_c + 1 - w - w'), whose
log over alpha - 1 is the Renyi divergence (one test with counts up to 1700 uses the same
definition in float64 log space, with a margin far above its error). The search
`bracket_crossing` is checked on a synthetic curve by its certificates themselves; the
count and shift pairs against exact Fractions / mpmath PMFs. Nothing of the library enters
the truth; the code's ends must bracket it.
"""

import functools
import math

import mpmath
import numpy as np
import pytest

from accountant.pairs import clones

_DPS = 50


@functools.cache
def _s_c(w, w1, alpha, c):
    """S_c(alpha) = sum_x P_c(x)^alpha Q_c(x)^(1 - alpha) by definition (mpmath)."""
    with mpmath.workdps(_DPS):
        w, w1, a = mpmath.mpf(w), mpmath.mpf(w1), mpmath.mpf(alpha)
        b = [mpmath.mpf(0)] * (c + 2)  # B_c(x) for x = 0..c, and B_c(c + 1) = 0
        b[0] = mpmath.mpf(2) ** -c
        for x in range(1, c + 1):
            b[x] = b[x - 1] * (c - x + 1) / x
        total, prev = mpmath.mpf(0), mpmath.mpf(0)
        for x in range(c + 2):
            p = w * prev + w1 * b[x]
            q = w1 * prev + w * b[x]
            total += q * (p / q) ** a
            prev = b[x]
        return total


def _excess(pair, alpha, c):
    with mpmath.workdps(_DPS):
        return _s_c(pair.w, pair.w_prime, float(alpha), int(c)) - (
            mpmath.mpf(pair.w) + mpmath.mpf(pair.w_prime))


def _log_moment(pair, alpha, c):
    with mpmath.workdps(_DPS):
        return mpmath.log(_s_c(pair.w, pair.w_prime, float(alpha), int(c))
                          + mpmath.mpf(pair.w_star))


def _pair_renyi(pair, alpha):
    """The pair's D_alpha: log of the C-mixture of the moments, over alpha - 1."""
    return _mixture_renyi(pair.others, pair.clone_probability, pair.w, pair.w_prime,
                          float(alpha))


@functools.cache
def _mixture_renyi(n, q, w, w1, alpha):
    with mpmath.workdps(_DPS):
        q = mpmath.mpf(q)
        rest = 1 - mpmath.mpf(w) - mpmath.mpf(w1)
        total, pi = mpmath.mpf(0), (1 - q) ** n
        for c in range(n + 1):
            total += pi * (_s_c(w, w1, alpha, c) + rest)
            pi = pi * (n - c) * q / ((c + 1) * (1 - q))
        return mpmath.log(total) / (mpmath.mpf(alpha) - 1)


def _mp(x):
    return mpmath.mpf(float(x))


_PAIRS = {
    "fmt 0.5": lambda n: clones.fmt_clones(n=n, epsilon0=0.5),
    "fmt 3": lambda n: clones.fmt_clones(n=n, epsilon0=3.0),
    "blanket k=5 eps0=3": lambda n: clones.blanket_k_rr(n=n, epsilon0=3.0, k=5),
    "fmt 30": lambda n: clones.fmt_clones(n=n, epsilon0=30.0),  # log(P/Q) near -eps0
}


@pytest.mark.parametrize("name", _PAIRS)
def test_renyi_excess_terms_bracket_each_count(name):
    """Linear rows: lower <= E_c <= upper, width <= 5e-8 |E_c| + 1e-20; huge rows:
    log lower <= log M_c <= log upper, width <= 1e-10."""
    pair = _PAIRS[name](2)
    cs = np.array([0, 1, 2, 5, 20, 150])
    alphas = np.array([1.001, 1.5, 2.0, 7.5, 40.0, 150.0])
    lo, up, log_lo, log_up = clones._renyi_excess_terms(pair, cs, alphas)
    huge = 0
    for i, a in enumerate(alphas):
        for j, c in enumerate(cs):
            if np.isnan(lo[i, j]):
                huge += 1
                assert np.isnan(up[i, j])
                truth = _log_moment(pair, a, c)
                assert _mp(log_lo[i, j]) <= truth <= _mp(log_up[i, j]), (a, c)
                assert log_up[i, j] - log_lo[i, j] <= 1e-10, (a, c)
            else:
                assert np.isnan(log_lo[i, j]) and np.isnan(log_up[i, j])
                truth = _excess(pair, a, c)
                assert _mp(lo[i, j]) <= truth <= _mp(up[i, j]), (a, c, lo[i, j], up[i, j])
                assert up[i, j] - lo[i, j] <= 5e-8 * abs(float(truth)) + 1e-20, (a, c)
    assert huge > 0 or pair.epsilon0 * alphas.max() < 300  # both kinds of rows checked


@pytest.mark.parametrize("k", [5, 1000])
def test_renyi_excess_terms_log_rows_include_the_w_star_block(k):
    """A huge row (alpha max loss > 300) whose moment is of order 1: the w* block (P = Q,
    mass w*) moves log M_c by 3e-6 (k = 5) and 1e-3 (k = 1000), far above the width."""
    pair = clones.blanket_k_rr(n=2, epsilon0=10.0, k=k)
    cs = np.array([100, 300, 500])
    lo, _, log_lo, log_up = clones._renyi_excess_terms(pair, cs, np.array([31.0]))
    assert np.isnan(lo).all()
    for j, c in enumerate(cs):
        truth = _log_moment(pair, 31.0, c)
        assert _mp(log_lo[0, j]) <= truth <= _mp(log_up[0, j]), (c, log_lo[0, j], truth)
        assert log_up[0, j] - log_lo[0, j] <= 1e-10


_CURVE = {
    "fmt n=121 eps0=1": lambda: clones.fmt_clones(n=121, epsilon0=1.0),
    "blanket n=121 eps0=1.5 k=3": lambda: clones.blanket_k_rr(n=121, epsilon0=1.5, k=3),
    "fmt n=61 eps0=3": lambda: clones.fmt_clones(n=61, epsilon0=3.0),
    # C near its top (q = 0.9): the last count holds most of the mass, so the last
    # block's lower end (the moment at the window's last count) carries the lower end
    "fmt n=3 eps0=0.1": lambda: clones.fmt_clones(n=3, epsilon0=0.1),
    "blanket n=8 eps0=0.2 k=2": lambda: clones.blanket_k_rr(n=8, epsilon0=0.2, k=2),
}


@pytest.mark.parametrize("blocks", [1, 64])
@pytest.mark.parametrize("name", _CURVE)
def test_renyi_curve_brackets_the_pair(name, blocks):
    """renyi_curve against the pair's D_alpha by definition: blocks=1 gives blocks of
    many counts (each block's moment at its start above, at the next block's start
    below), blocks=64 one count per block (the upper end then within 1e-9 of the truth);
    order 120 at eps0 = 3 takes the log-space rows."""
    pair = _CURVE[name]()
    orders = [1.01, 2.0, 8.0, 120.0] if pair.epsilon0 == 3.0 else [1.01, 2.0, 8.0]
    for a, (low, up) in zip(orders, clones.renyi_curve(pair, alphas=orders, blocks=blocks),
                            strict=True):
        truth = _pair_renyi(pair, a)
        lo_v, up_v = float(low.value), float(up.value)
        assert _mp(lo_v) <= truth <= _mp(up_v), (a, lo_v, truth, up_v)
        assert lo_v > 0 and up_v <= pair.epsilon0
        if blocks == 64:
            assert up_v - float(truth) <= 1e-9 * float(truth), (a, up_v, truth)
        # the lower end is a block (or one count) off, not trivial
        assert lo_v >= 0.5 * float(truth) or pair.others < 10, (a, lo_v, truth)


# ------------------------------------------------------------------ subsampled count pair
def _mpq(x):
    """A Fraction (or a float, taken exactly) as an mpf at the working precision."""
    from fractions import Fraction

    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


_COUNT_CASES = [
    # (n, high, low, rate, relation, tail): Fractions are exact inputs, floats are taken
    # exactly as the pair's probabilities
    (30, "7/10", "1/5", "1/3", "substitute", 1e-12),
    (30, "7/10", "1/5", "1/3", "add-remove", 1e-12),
    (120, 0.9, 0.05, 0.3, "substitute", 1e-30),
    (120, 0.9, 0.05, 0.3, "add-remove", 1e-30),
    (60, "99/100", "1/100", "1", "substitute", 1e-20),
    (9, 0.6, 0.0, 0.5, "substitute", 1e-9),
    (200, 0.75, 0.25, 0.02, "substitute", 1e-40),
]


@pytest.mark.parametrize(("n", "high", "low", "rate", "relation", "tail"), _COUNT_CASES)
def test_subsampled_count_pair_is_within_its_stated_errors(n, high, low, rate, relation,
                                                           tail):
    """Every stored log-value within log_error of the exact log P(k), log Q(k) (P =
    Bern(rate high) * Bin(n-1, rate low), Q = Bern(rate low or 0) * Bin(n-1, rate low),
    exact rationals, 50 digits); every loss within loss_error of log P/Q; the tails at
    least the exact mass off the grid; residual_loss_bound at least every |L(k)| off the
    grid; the values tight (1e-11) so that a wrong weight is seen."""
    from fractions import Fraction

    from accountant.pairs.subsampled_count import subsampled_count_pair

    def arg(v):
        return Fraction(v) if isinstance(v, str) else v

    h, lo_, r = arg(high), arg(low), arg(rate)
    view = subsampled_count_pair(n=n, high=h, low=lo_, rate=r, relation=relation, tail=tail)
    fh, fl, fr = Fraction(h), Fraction(lo_), Fraction(r)
    a, b = fr * fh, fr * fl
    c = b if relation == "substitute" else Fraction(0)
    m = n - 1
    with mpmath.workdps(_DPS):
        am, bm, cm = _mpq(a), _mpq(b), _mpq(c)

        def binom(k):
            if k < 0 or k > m:
                return mpmath.mpf(0)
            return mpmath.binomial(m, k) * bm ** k * (1 - bm) ** (m - k)

        def law(k, s):
            return (1 - s) * binom(k) + s * binom(k - 1)

        ks = [int(k) for k in view.coords[0]]
        for i, k in enumerate(ks):
            p, q = law(k, am), law(k, cm)
            assert p > 0
            lp = mpmath.log(p)
            assert abs(_mp(view.p[i]) - lp) <= _mp(view.log_error[i]), (k, view.p[i], lp)
            assert abs(float(view.p[i]) - float(lp)) <= 1e-11 * (1 + abs(float(lp)))
            if q > 0:
                lq = mpmath.log(q)
                assert abs(_mp(view.q[i]) - lq) <= _mp(view.log_error[i]), (k, view.q[i])
                assert abs(_mp(view.loss[i]) - (lp - lq)) <= _mp(view.loss_error[i]), k
                assert abs(float(view.loss[i]) - float(lp - lq)) <= 1e-11 * (
                    1 + abs(float(lp - lq)))
            else:
                assert np.isneginf(view.q[i]) and np.isposinf(view.loss[i])
        off = [k for k in range(n + 1) if k not in set(ks)]
        assert _mp(view.tail_p) >= mpmath.fsum(law(k, am) for k in off)
        assert _mp(view.tail_q) >= mpmath.fsum(law(k, cm) for k in off)
        if c > 0:
            worst = max(abs(mpmath.log(law(k, am)) - mpmath.log(law(k, cm)))
                        for k in range(n + 1) if law(k, cm) > 0)
            assert _mp(view.residual_loss_bound) >= worst
            assert view.residual_loss_bound <= float(worst) * (1 + 1e-9) + 1e-12
        else:
            assert view.residual_loss_bound == math.inf


# ------------------------------------------------------------------ binomial shift pair
def _log_bin(n, p, k):
    """log Bin(n, p)(k) in mpmath from the exact float p (-inf off 0..n)."""
    if k < 0 or k > n:
        return -mpmath.inf
    pm = _mpq(p)
    return (mpmath.log(mpmath.binomial(n, k)) + k * mpmath.log(pm)
            + (n - k) * mpmath.log1p(-pm))


@pytest.mark.parametrize(("n", "p"), [(10, 0.3), (1000, 0.01), (10**9, 1e-7), (50, 0.999),
                                      (7, 0.5)])
def test_binomial_shift_loss_is_within_its_error(n, p):
    """L(k) = log(Bin(n,p)(k) / Bin(n,p)(k-1)) = log((n-k+1) p / (k (1-p))) by definition,
    within the stated error (both branches: near the mean and far from it)."""
    from accountant.pairs.binomial_shift import binomial_shift_loss

    mean = n * p
    ks = sorted({0, 1, 2, n, n + 1, n + 2, -1, max(1, int(mean)), int(mean) + 1,
                 int(mean) + 2, max(1, int(mean / 3)), min(n, int(3 * mean) + 1),
                 max(1, int(mean - 3 * math.sqrt(mean) - 1)),
                 min(n, int(mean + 3 * math.sqrt(mean) + 1))})
    loss, err = binomial_shift_loss(np.array(ks, dtype=float), n, p)
    with mpmath.workdps(_DPS):
        pm = _mpq(p)
        for k, v, e in zip(ks, loss, err, strict=True):
            if k <= 0:
                assert v == math.inf and e == 0
            elif k >= n + 1:
                assert v == -math.inf and e == 0
            else:
                truth = mpmath.log((n - k + 1) * pm / (k * (1 - pm)))
                assert abs(_mp(v) - truth) <= _mp(e), (k, v, truth, e)
                assert e <= 16 * 2.0 ** -53 * (1 + abs(float(truth)) + math.log(n + 2)) * (1 + 1e-9)


@pytest.mark.parametrize(("n", "p", "tail"), [(40, 0.3, 1e-9), (400, 0.02, 1e-20),
                                              (25, 0.9, None)])
def test_binomial_shift_pair_float_values_and_tails(n, p, tail):
    """P = Bin(n, p), Q = 1 + Bin(n, p): each log-value within log_error of the exact one
    (tight to 1e-11), the tails at least the exact mass off the grid."""
    from accountant.pairs.binomial_shift import binomial_shift_pair

    view = binomial_shift_pair(n, p, tail=tail)
    ks = [int(k) for k in view.coords[0]]
    assert ks == list(range(ks[0], ks[-1] + 1))
    with mpmath.workdps(_DPS):
        for i, k in enumerate(ks):
            for got, truth in ((view.p[i], _log_bin(n, p, k)), (view.q[i],
                                                                 _log_bin(n, p, k - 1))):
                if truth == -mpmath.inf:
                    assert got == -math.inf
                else:
                    assert abs(_mp(got) - truth) <= _mp(view.log_error[i]), (k, got, truth)
                    assert abs(float(got) - float(truth)) <= 1e-11 * (1 + abs(float(truth)))
        off_p = mpmath.fsum(mpmath.exp(_log_bin(n, p, k)) for k in range(n + 1)
                            if k not in set(ks))
        off_q = mpmath.fsum(mpmath.exp(_log_bin(n, p, k - 1)) for k in range(1, n + 2)
                            if k not in set(ks))
        assert _mp(view.tail_p) >= off_p and _mp(view.tail_q) >= off_q
        if tail is None:
            assert ks == list(range(n + 2)) and view.tail_p == 0 and view.tail_q == 0
        else:
            assert view.tail_p <= tail and view.tail_q <= tail


@pytest.mark.parametrize("backend", ["exact", "mp"])
@pytest.mark.parametrize("tail", [None, 1e-3, 1e-12])
def test_binomial_shift_pair_object_backends_are_exact(backend, tail):
    """mp/exact views: P(k) = Bin(n, p)(k) and Q(k) = Bin(n, p)(k - 1) (Fractions, or
    mpmath to 1e-40), tails at least the exact mass off the grid."""
    from fractions import Fraction

    from accountant.pairs.binomial_shift import binomial_shift_pair

    n, p = 30, Fraction(2, 7)
    view = binomial_shift_pair(n, p, backend=backend, tail=tail)

    def b(k):
        return math.comb(n, k) * p ** k * (1 - p) ** (n - k) if 0 <= k <= n else Fraction(0)

    ks = [int(k) for k in view.coords[0]]
    assert ks == list(range(ks[0], ks[-1] + 1)) and ks[-1] <= n + 1
    for i, k in enumerate(ks):
        for got, truth in ((view.p[i], b(k)), (view.q[i], b(k - 1))):
            if backend == "exact":
                assert got == truth, (k, got, truth)
            else:
                with mpmath.workdps(_DPS):
                    assert abs(got - _mpq(truth)) <= mpmath.mpf(10) ** -40 * (
                        _mpq(truth) + mpmath.mpf(10) ** -300), (k, got, truth)
    off_p = sum((b(k) for k in range(n + 1) if k not in set(ks)), Fraction(0))
    off_q = sum((b(k - 1) for k in range(1, n + 2) if k not in set(ks)), Fraction(0))
    with mpmath.workdps(_DPS):
        tp, tq = (_mpq(t) if isinstance(t, Fraction) else mpmath.mpf(t)
                  for t in (view.tail_p, view.tail_q))
        assert tp >= _mpq(off_p) and tq >= _mpq(off_q)
    if tail is not None:
        assert ks[0] > 0 or ks[-1] < n + 1  # a real window


# ------------------------------------------------------------------ bracket_crossing
def _curve(e0, width, slope_factor=1.0):
    """A certified-looking delta curve: upper U(e) = 0.3 e^-4e (1 - e/e0) (0 at e0),
    lower U(e) (1 - width), and d upper/d gamma (times slope_factor: a wrong slope may
    only cost evaluations)."""
    calls = []

    def upper(e):
        return 0.3 * math.exp(-4.0 * e) * (1.0 - e / e0) if e < e0 else 0.0

    def f(e):
        calls.append(e)
        u = upper(e)
        du = (-4.0 * u - 0.3 * math.exp(-4.0 * e) / e0) if e < e0 else 0.0
        return u * (1.0 - width), u, slope_factor * du / math.exp(e)

    return f, upper, calls


@pytest.mark.parametrize("start", [None, 0.0, 0.05, 0.6, 1.9, 2.0, 5.0])
@pytest.mark.parametrize("slope_factor", [1.0, 3.0, 0.2, -1.0])
@pytest.mark.parametrize(("delta", "width"), [(1e-3, 1e-4), (0.1, 1e-9), (1e-9, 1e-3)])
def test_bracket_crossing_ends_are_certified_and_tight(start, slope_factor, delta, width):
    """The returned (upper, lower): upper(e_up) <= delta and lower(e_lo) > delta, checked
    on the curve itself; the two within the tolerance plus the curve's own width; the
    start point and a wrong slope change only the path."""
    e0, rtol = 2.0, 1e-6
    f, upper, _ = _curve(e0, width, slope_factor)
    e_up, e_lo = clones.bracket_crossing(f, delta, e0, rtol, start=start)
    assert upper(e_up) <= delta, (e_up, upper(e_up))
    assert e_lo == 0.0 or upper(e_lo) * (1.0 - width) > delta, (e_lo, upper(e_lo))
    assert 0.0 < e_lo <= e_up < e0
    # the root of U(e) = delta, and of U(e) (1 - width) = delta: e_up is within rtol of
    # the first from above, e_lo below the second (and not far)
    with mpmath.workdps(30):
        def root(scale):
            fn = lambda e: 0.3 * mpmath.exp(-4 * e) * (1 - e / e0) * scale - delta  # noqa: E731
            return float(mpmath.findroot(fn, (mpmath.mpf(0), mpmath.mpf(e0)),
                                         solver="anderson"))
        r_up, r_lo = root(1.0), root(1.0 - width)
    assert r_up <= e_up <= r_up * (1 + 2 * rtol) + 1e-15, (e_up, r_up)
    assert e_lo <= r_lo and e_lo >= r_lo - 1e-3 * r_up, (e_lo, r_lo)


@pytest.mark.parametrize("start", [None, 0.3])
def test_bracket_crossing_returns_zero_when_delta_holds_at_zero(start):
    f, upper, _ = _curve(2.0, 1e-4)
    assert clones.bracket_crossing(f, 0.3, 2.0, 1e-6, start=start) == (0.0, 0.0)
    assert clones.bracket_crossing(f, 0.5, 2.0, 1e-6, start=start) == (0.0, 0.0)
    e_up, e_lo = clones.bracket_crossing(f, 0.2999, 2.0, 1e-6, start=start)
    assert upper(e_up) <= 0.2999 < upper(0.0) and 0.0 <= e_lo <= e_up


def test_bracket_crossing_uses_the_separate_lower_curve():
    """lower=...: f's lower item is NaN (never read), the lower end is certified on the
    given curve."""
    e0, delta, width = 2.0, 1e-3, 1e-4
    f, upper, _ = _curve(e0, width)

    def f_nan(e):
        return (math.nan, *f(e)[1:])

    def low(e):
        return upper(e) * (1.0 - width)

    e_up, e_lo = clones.bracket_crossing(f_nan, delta, e0, 1e-6, lower=low)
    assert upper(e_up) <= delta < low(e_lo)
    assert e_up - e_lo <= 1e-4 * e_up


# ------------------------------------------------------------------ public delta / epsilon
def _h_c(w, w1, gamma, c):
    """H_c(gamma) = sum_x [P_c(x) - gamma Q_c(x)]_+ by definition (mpmath)."""
    with mpmath.workdps(_DPS):
        w, w1, g = _mpq(w), _mpq(w1), mpmath.mpf(gamma)
        b = [mpmath.binomial(c, k) / mpmath.mpf(2) ** c for k in range(c + 1)] + [0]
        total, prev = mpmath.mpf(0), mpmath.mpf(0)
        for x in range(c + 2):
            p, q = w * prev + w1 * b[x], w1 * prev + w * b[x]
            if p > g * q:
                total += p - g * q
            prev = b[x]
        return total


def _h_pair(pair, gamma):
    with mpmath.workdps(_DPS):
        q, n = _mpq(pair.clone_probability), pair.others
        return mpmath.fsum(mpmath.binomial(n, c) * q ** c * (1 - q) ** (n - c)
                           * _h_c(pair.w, pair.w_prime, gamma, c) for c in range(n + 1))


_DE_PAIRS = {
    "fmt n=40 eps0=1": lambda: clones.fmt_clones(n=40, epsilon0=1.0),
    "blanket n=30 eps0=2 k=4": lambda: clones.blanket_k_rr(n=30, epsilon0=2.0, k=4),
}


@pytest.mark.parametrize("name", _DE_PAIRS)
def test_delta_for_epsilon_brackets_the_pair(name):
    pair = _DE_PAIRS[name]()
    for eps in (0.0, 0.2, 0.7 * pair.epsilon0):
        res = clones.delta_for_epsilon(pair, epsilon=eps)
        truth = _h_pair(pair, mpmath.exp(_mpq(eps)))
        lo, hi = float(res.lower.value), float(res.upper.value)
        assert _mp(lo) <= truth <= _mp(hi), (eps, lo, truth, hi)
        assert hi - lo <= 1e-8 * float(truth)
        assert res.lower.kind.name == "LOWER" and res.upper.kind.name == "UPPER"
        assert res.upper.at == eps and res.upper.error_budget == pytest.approx(hi - lo)
    # a coarse window: the C-mass outside it must be added to the upper end
    res = clones.delta_for_epsilon(pair, epsilon=0.05, tail=0.3, blocks=8)
    truth = _h_pair(pair, mpmath.exp(mpmath.mpf(0.05)))
    assert _mp(res.lower.value) <= truth <= _mp(res.upper.value)


@pytest.mark.parametrize("name", _DE_PAIRS)
@pytest.mark.parametrize("delta", [1e-2, 1e-5])
def test_epsilon_for_delta_brackets_the_pair(name, delta):
    """The ends against the definition: H(e^upper) <= delta < H(e^lower) (mpmath), and the
    upper end within 1e-5 of the root."""
    pair = _DE_PAIRS[name]()
    res = clones.epsilon_for_delta(pair, delta=delta)
    lo, hi = float(res.lower.value), float(res.upper.value)
    with mpmath.workdps(_DPS):
        assert _h_pair(pair, mpmath.exp(_mpq(hi))) <= delta
        assert lo == 0 or _h_pair(pair, mpmath.exp(_mpq(lo))) > delta
        # the root is above e(1 - 2e-5) of the upper end: H there exceeds delta
        assert _h_pair(pair, mpmath.exp(_mpq(hi) * (1 - 2e-5))) > delta
    assert 0 < lo <= hi
    assert res.upper.at == delta and res.upper.kind.name == "UPPER"


# ------------------------------------------------------------------ half_logpmf
def test_half_logpmf_within_the_log_pmf_error_model():
    """log Bin(c, 1/2)(x) against mpmath (log C(c, x) - c log 2, 50 digits), within
    LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR |value|; -inf off 0..c; broadcast shapes."""
    from accountant.numeric.special import LOG_PMF_ABS_ERROR, LOG_PMF_REL_ERROR

    xs, cs = [], []
    for c in (1, 2, 3, 4, 10, 15, 16, 17, 31, 36, 81, 100, 501, 1001, 10**6 + 1, 10**9,
              2**40 + 2):
        for x in {-1, 0, 1, 2, c // 2, c // 2 + 1, c // 3, c - 2, c - 1, c, c + 1}:
            xs.append(x)
            cs.append(c)
    got = clones.half_logpmf(np.array(xs), np.array(cs))
    assert got.shape == (len(xs),)
    with mpmath.workdps(_DPS):
        for x, c, g in zip(xs, cs, got, strict=True):
            if x < 0 or x > c:
                assert g == -math.inf, (x, c)
                continue
            truth = mpmath.log(mpmath.binomial(c, x)) - c * mpmath.log(2)
            tol = LOG_PMF_ABS_ERROR + LOG_PMF_REL_ERROR * abs(float(truth))
            assert abs(_mp(g) - truth) <= tol, (x, c, g, truth)
    grid = clones.half_logpmf(np.arange(6)[:, None], np.array([[3, 5]]))
    assert grid.shape == (6, 2) and grid[4, 0] == -math.inf and grid[5, 1] == -5 * math.log(2)


def _log_moment_float(pair, alpha):
    """log of the pair's moment sum_c Bin(N, q)(c) (S_c + w*) in float64 log space
    (scipy's gammaln, numpy's logaddexp: no library code), for counts up to thousands
    where the 50-digit sum is too slow. Its error, a few 1e-13 relative per term times
    |log term| <= 1e3, is far below the 1e-8 margin the test allows."""
    from scipy.special import gammaln

    n, q = pair.others, pair.clone_probability
    w, w1 = pair.w, pair.w_prime
    cs = np.arange(n + 1, dtype=float)
    log_pi = (gammaln(n + 1) - gammaln(cs + 1) - gammaln(n - cs + 1) + cs * math.log(q)
              + (n - cs) * math.log1p(-q))
    out = np.empty(n + 1)
    for c in range(n + 1):
        x = np.arange(c + 2, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            lb = np.where(x <= c, gammaln(c + 1) - gammaln(x + 1) - gammaln(c - x + 1), -np.inf)
        lb = lb - c * math.log(2.0)
        prev = np.concatenate(([-np.inf], lb[:-1]))
        lp = np.logaddexp(math.log(w) + prev, math.log(w1) + lb)
        lq = np.logaddexp(math.log(w1) + prev, math.log(w) + lb)
        t = lq + alpha * (lp - lq)
        top = float(np.max(t))
        log_s = top + math.log(float(np.sum(np.exp(t - top))))
        out[c] = np.logaddexp(log_s, math.log(pair.w_star)) if pair.w_star > 0 else log_s
    t = log_pi + out
    top = float(np.max(t))
    return top + math.log(float(np.sum(np.exp(t - top))))


@pytest.mark.parametrize(("n", "eps0", "alpha"), [(1701, 0.5, 620.0), (701, 0.5, 620.0)])
def test_renyi_curve_log_space_orders_with_mixed_rows(n, eps0, alpha):
    """alpha eps0 = 310: the moments of small counts are huge (log-space rows) and, at
    n = 1701, those of counts above ~1100 are not (linear rows converted by log1p): the
    log-space combination must take each block's own kind. The truth D_alpha is below 1
    (a lower end clamped at 1 would exceed it)."""
    pair = clones.blanket_k_rr(n=n, epsilon0=eps0, k=2)
    truth = _log_moment_float(pair, alpha) / (alpha - 1)
    assert 0 < truth < 1
    for blocks in (64, 1):
        low, up = clones.renyi_curve(pair, alphas=[alpha], blocks=blocks)[0]
        lo_v, up_v = float(low.value), float(up.value)
        assert math.isfinite(lo_v) and math.isfinite(up_v)
        assert lo_v <= truth * (1 + 1e-8) and truth <= up_v * (1 + 1e-8), (blocks, lo_v,
                                                                           truth, up_v)
        if blocks == 64:
            assert up_v <= truth * (1 + 1e-6) and lo_v >= 0.9 * truth
