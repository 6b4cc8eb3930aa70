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
