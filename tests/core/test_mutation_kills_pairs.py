"""The clones/blanket pairs (accountant/pairs/clones.py), pinned where mutation testing
found gaps (docs/soundness.md#mutation-testing).

Oracle: the definition of the pair (module docstring of clones.py), evaluated in mpmath at
50 digits from the float parameters q, w, w' taken exactly:
    P_c(x) = w B_c(x-1) + w' B_c(x),  Q_c(x) = w' B_c(x-1) + w B_c(x),  B_c = Bin(c, 1/2),
H_c(gamma) = sum_x [P_c(x) - gamma Q_c(x)]_+ and the pair's H = sum_c Bin(N, q)(c) H_c.
Nothing of the library enters the truth; the code's ends must bracket it.
"""

import math

import mpmath
import numpy as np
import pytest

from accountant.pairs import clones

_DPS = 50


def _h_c(w, w1, gamma, c):
    """H_c(gamma) of the pair by definition, in mpmath."""
    with mpmath.workdps(_DPS):
        w, w1, g = mpmath.mpf(w), mpmath.mpf(w1), mpmath.mpf(gamma)
        half = mpmath.mpf(1) / 2
        b = [mpmath.binomial(c, k) * half ** c for k in range(c + 1)]
        total = mpmath.mpf(0)
        for x in range(c + 2):
            bm1 = b[x - 1] if x >= 1 else 0
            bx = b[x] if x <= c else 0
            p = w * bm1 + w1 * bx
            q = w1 * bm1 + w * bx
            if p > g * q:
                total += p - g * q
        return total


def _h_pair(pair, gamma):
    """The pair's H_gamma: the mixture over C ~ Bin(N, q), by definition."""
    with mpmath.workdps(_DPS):
        q = mpmath.mpf(pair.clone_probability)
        n = pair.others
        return mpmath.fsum(mpmath.binomial(n, c) * q ** c * (1 - q) ** (n - c)
                           * _h_c(pair.w, pair.w_prime, gamma, c) for c in range(n + 1))


_CASES = [(0.5, 1.2), (1.0, 1.5), (2.0, 3.0), (2.0, 1.0001), (0.1, 1.05), (3.0, 19.0)]


@pytest.mark.parametrize(("eps0", "gamma"), _CASES)
def test_hockey_stick_terms_bracket_each_count(eps0, gamma):
    pair = clones.fmt_clones(n=2, epsilon0=eps0)
    cs = np.arange(0, 41)
    lo, hi = clones.hockey_stick_terms(pair, cs, gamma)
    for c, a, b in zip(cs, lo, hi, strict=True):
        truth = _h_c(pair.w, pair.w_prime, gamma, int(c))
        assert mpmath.mpf(float(a)) <= truth <= mpmath.mpf(float(b)), (c, a, truth, b)
        # the bracket is tight: a dropped term or a wrong threshold moves an end by far more
        assert float(b) - float(a) <= 1e-9 * float(truth) + 1e-300, (c, a, b)


@pytest.mark.parametrize("terms", [1, 2, 3, 5])
def test_hockey_stick_terms_remainder_bound_with_few_terms(terms):
    # few series terms: the remainder bound carries the lower end and must stay below truth
    pair = clones.fmt_clones(n=2, epsilon0=1.0)
    gamma = 1.3
    cs = np.arange(0, 60)
    lo, hi = clones.hockey_stick_terms(pair, cs, gamma, terms=terms)
    for c, a, b in zip(cs, lo, hi, strict=True):
        truth = _h_c(pair.w, pair.w_prime, gamma, int(c))
        assert mpmath.mpf(float(a)) <= truth <= mpmath.mpf(float(b)), (c, terms, a, truth, b)


@pytest.mark.parametrize(("n", "eps0", "epsilon"),
                         [(30, 1.0, 0.3), (60, 2.0, 0.5), (40, 0.5, 0.05), (25, 3.0, 2.0),
                          (50, 1.5, 1.4999)])
def test_delta_pair_brackets_the_mixture(n, eps0, epsilon):
    pair = clones.fmt_clones(n=n, epsilon0=eps0)
    gamma = math.exp(epsilon)
    lo, hi, _ = clones._delta_pair(pair, gamma, 1e-30, 160)
    truth = _h_pair(pair, gamma)
    assert mpmath.mpf(lo) <= truth <= mpmath.mpf(hi), (lo, truth, hi)
    assert hi - lo <= 1e-8 * float(truth), (lo, hi)


@pytest.mark.parametrize(("n", "eps0", "epsilon"),
                         [(30, 1.0, 0.3), (60, 2.0, 0.5), (200, 1.0, 0.2)])
def test_blanket_pair_brackets_the_mixture(n, eps0, epsilon):
    pair = clones.blanket_k_rr(n=n, epsilon0=eps0, k=3)
    gamma = math.exp(epsilon)
    lo, hi, _ = clones._delta_pair(pair, gamma, 1e-30, 160)
    truth = _h_pair(pair, gamma)
    assert mpmath.mpf(lo) <= truth <= mpmath.mpf(hi), (lo, truth, hi)


@pytest.mark.parametrize(("n", "q", "tail"), [(50, 0.3, 1e-12), (400, 0.05, 1e-20),
                                             (1000, 0.5, 1e-9), (7, 0.9, 1e-6)])
def test_count_blocks_masses_and_cut(n, q, tail):
    starts, ends, masses, log_cut = clones.count_blocks(n, q, tail, 16)
    assert np.all(starts[1:] == ends[:-1] + 1)
    assert np.all(ends >= starts)
    with mpmath.workdps(_DPS):
        qm = mpmath.mpf(q)
        pmf = [mpmath.binomial(n, c) * qm ** c * (1 - qm) ** (n - c) for c in range(n + 1)]
        inside = mpmath.mpf(0)
        for a, b, m in zip(starts, ends, masses, strict=True):
            block = mpmath.fsum(pmf[int(a):int(b) + 1])
            inside += block
            assert mpmath.mpf(float(m)) >= block  # rounded up
            assert float(m) <= float(block) * (1 + 1e-9)
        outside = 1 - inside
        assert outside <= mpmath.exp(mpmath.mpf(log_cut)) if log_cut > -math.inf else \
            outside <= mpmath.mpf(10) ** -40
        assert outside <= tail
    logs = clones.count_block_log_masses(n, q, starts, ends)
    with mpmath.workdps(_DPS):
        for a, b, lm in zip(starts, ends, logs, strict=True):
            block = mpmath.fsum(pmf[int(a):int(b) + 1])
            assert mpmath.mpf(float(lm)) >= mpmath.log(block)
            assert float(lm) <= float(mpmath.log(block)) + 1e-9


def test_count_blocks_whole_count_at_q_one():
    starts, ends, masses, log_cut = clones.count_blocks(9, 1.0, 1e-9, 16)
    assert list(starts) == [9] and list(ends) == [9] and list(masses) == [1.0]
    assert log_cut == -math.inf


@pytest.mark.parametrize(("n", "eps0", "epsilon", "tail"),
                         [(60, 2.0, 0.01, 0.2), (40, 1.0, 0.05, 0.3), (80, 3.0, 0.1, 0.05)])
def test_delta_upper_adds_the_mass_outside_the_window(n, eps0, epsilon, tail):
    # a coarse window (large tail): the counts outside it hold much of H, which the upper
    # end must add as C-mass (H_c <= 1) and the lower end may drop
    pair = clones.fmt_clones(n=n, epsilon0=eps0)
    gamma = math.exp(epsilon)
    layout = clones._c_blocks(pair, tail, 160)
    assert layout[3] > -745  # the window leaves mass out
    lo, hi, _ = clones._delta_pair(pair, gamma, tail, 160, layout)
    truth = _h_pair(pair, gamma)
    inside = mpmath.fsum(
        mpmath.binomial(n, c) * mpmath.mpf(pair.clone_probability) ** c
        * (1 - mpmath.mpf(pair.clone_probability)) ** (n - c)
        * _h_c(pair.w, pair.w_prime, gamma, c)
        for c in range(int(layout[0][0]), int(layout[1][-1]) + 1))
    assert truth - inside > 1e-6  # the case is not vacuous: the outside matters
    assert mpmath.mpf(lo) <= truth <= mpmath.mpf(hi), (lo, truth, hi)


@pytest.mark.parametrize("eps0", [0.5, 1.0, 2.0])
def test_hockey_stick_terms_near_gamma_e_eps0(eps0):
    # gamma within a few ulps of w/w': w - gamma w' cancels, and the rounding of the
    # coefficients (4u (w + gamma w')) carries the upper end
    pair = clones.fmt_clones(n=2, epsilon0=eps0)
    ratio = pair.w / pair.w_prime
    cs = np.arange(0, 30)
    checked = 0
    for k in range(1, 40):
        gamma = ratio * (1 - k * 2.0 ** -53)
        lo, hi = clones.hockey_stick_terms(pair, cs, gamma)
        for c, a, b in zip(cs, lo, hi, strict=True):
            truth = _h_c(pair.w, pair.w_prime, gamma, int(c))
            checked += truth > 0
            assert mpmath.mpf(float(a)) <= truth <= mpmath.mpf(float(b)), (k, c, a, truth, b)
    assert checked > 0


def test_hockey_stick_terms_zero_beyond_e_eps0():
    pair = clones.fmt_clones(n=2, epsilon0=1.0)
    lo, hi = clones.hockey_stick_terms(pair, np.arange(5), math.exp(1.5))
    assert np.array_equal(lo, np.zeros(5)) and np.array_equal(hi, np.zeros(5))


def test_block_log_masses_of_blocks_of_many_counts_are_upper_ends():
    """count_block_log_masses on blocks holding many counts (the open gap of the third run:
    with one count per block, log(sum) = 0 hid a sign error there): each block's log mass is
    at least the exact log of its Bin(n, q) mass (mpmath, 60 digits) and within 1e-9 of it."""
    import mpmath

    from accountant.pairs.clones import count_block_log_masses

    n, q = 5000, mpmath.mpf(0.37)
    starts = np.array([1700, 1800, 1850, 1900, 2000])
    ends = np.array([1799, 1849, 1899, 1999, 2100])
    got = count_block_log_masses(n, float(q), starts, ends)
    with mpmath.workdps(60):
        qq = mpmath.mpf(float(q))
        for g, a, b in zip(got, starts, ends, strict=True):
            exact = mpmath.log(mpmath.fsum(mpmath.binomial(n, c) * qq ** c * (1 - qq) ** (n - c)
                                           for c in range(int(a), int(b) + 1)))
            assert exact <= g <= exact + 1e-9, (a, b, g, exact)
