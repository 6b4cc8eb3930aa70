"""Working on the bulk of a distribution loses nothing but its certified tail."""

import mpmath

from accountant import epsilon_bracket, epsilon_for_delta
from accountant.numeric.mp import to_mpf
from accountant.pairs import binomial_shift_pair


def test_bulk_and_full_support_brackets_intersect_and_dominate_the_mp_value():
    n, p, delta = 20000, 1 - 700 / 20000, 1e-6
    bulk = binomial_shift_pair(n, p, tail=1e-30)
    full = binomial_shift_pair(n, p)
    assert bulk.size < full.size / 20  # the point of the window
    b_lo, b_hi = epsilon_bracket(bulk, delta)
    f_lo, f_hi = epsilon_bracket(full, delta)
    assert float(b_lo) <= float(f_hi) and float(f_lo) <= float(b_hi)
    exact = epsilon_for_delta(binomial_shift_pair(n, p, backend="mp", tail=1e-45), delta)
    assert to_mpf(exact.value) <= to_mpf(b_hi.value)
    assert to_mpf(b_hi.value) - to_mpf(exact.value) <= 1e-9 * to_mpf(exact.value)
    assert mpmath.mpf(float(b_lo)) <= to_mpf(exact.value) + mpmath.mpf(10) ** -40


def test_brackets_of_a_convolved_view_contain_the_mp_value():
    """Convolving windowed laws leaves grid values that are only lower bounds; the bracket
    must still hold the truth (lower end: H >= H_grid - e^eps tail_q)."""
    from accountant import ViewPair, binomial, convolve, delta_bracket, delta_for_epsilon, shift

    def pair(backend, tail):
        kw = {"backend": backend} | ({"tail": tail} if tail else {})
        others = convolve(binomial(300, 0.7, **kw), binomial(899, 0.3, **kw))
        return ViewPair.from_pmfs(shift(others, 1), others, residual_loss_bound=10.0)

    view = pair("float", 1e-12)  # a deliberately coarse window, so the deficit matters
    assert not view.grid_exact
    truth = pair("mp", None)
    for eps in (0.0, 0.5, 1.0, 2.0):
        lo, hi = delta_bracket(view, eps)
        exact = to_mpf(delta_for_epsilon(truth, eps).value)
        assert to_mpf(lo.value) <= exact <= to_mpf(hi.value)
    e_lo, e_hi = epsilon_bracket(view, 1e-6)
    e_exact = to_mpf(epsilon_for_delta(truth, 1e-6).value)
    assert to_mpf(e_lo.value) <= e_exact <= to_mpf(e_hi.value)
