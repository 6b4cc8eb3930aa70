"""Regression tests for soundness bugs found by an independent mpmath oracle (issue 16):
each case once gave an `upper` below the truth or a `lower` above it. The truth here is the
oracle of verify/oracle.py at 60 digits."""

from __future__ import annotations

import mpmath
import pytest

from accountant.protocols import binary_rr
from verify import oracle
from verify.oracle import binary_rr_pair, epsilon_for_delta, hockey_stick


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(60):
        yield


def test_binary_rr_count_pair_at_large_epsilon0_epsilon():
    """Bin(ones, 1-p) with 1-p rounded lost p's relative accuracy (p ~ 2.7e-11): the upper
    end was 20.6552565, the truth 20.6552583."""
    n, epsilon0, delta, ones = 864, 24.3596419873612, 4.6015720795036994e-70, 324
    truth = epsilon_for_delta(*binary_rr_pair(n, epsilon0, ones), delta)
    got = binary_rr.epsilon_for_delta(n=n, epsilon0=epsilon0, delta=delta, ones=ones)
    assert got.lower.value <= truth <= got.upper.value
    assert got.upper.value - got.lower.value < 1e-9


def test_binary_rr_count_pair_at_large_epsilon0_delta():
    """Same cause, delta(epsilon): upper 6.3216047e-9 against the truth 6.3216076e-9."""
    n, epsilon0, epsilon, ones = 997, 19.646842882949024, 15.646626514420372, 106
    truth = hockey_stick(*binary_rr_pair(n, epsilon0, ones), epsilon)
    got = binary_rr.delta_for_epsilon(n=n, epsilon0=epsilon0, epsilon=epsilon, ones=ones)
    assert got.lower.value <= truth <= got.upper.value


def test_binary_rr_renyi_lower_end_from_a_truncated_grid():
    """`rdp binary-rr --n 3000 --epsilon0 1 --ones 1 --orders 10000` reported a lower end of
    0.94197 (upper minus twice a budget that ignored the window's residual; the residual
    term was also capped at e^700): the truth is 0.90591 (Q||P)."""
    n, epsilon0, ones, alpha = 3000, 1.0, 1, 10000
    P, Q = binary_rr_pair(n, epsilon0, ones)
    truth = max(oracle.renyi(P, Q, alpha), oracle.renyi(Q, P, alpha))
    got = binary_rr.renyi_divergence(n=n, epsilon0=epsilon0, alpha=alpha, ones=ones)
    assert got.lower.value <= truth <= got.upper.value
    low = binary_rr.renyi_divergence(n=n, epsilon0=epsilon0, alpha=8.0, ones=ones)
    assert low.upper.value - low.lower.value < 1e-7 * low.upper.value  # tight where it can be


def test_mp_view_on_a_truncated_convolution_is_not_exact():
    """A grid of lower-bound values (convolution of truncated windows) gave a max-divergence
    of 3.93939 tagged exact; the truth is 3.90005. Such a value is an upper bound."""
    from accountant import ViewPair, binomial, convolve, max_divergence, poisson, renyi_divergence
    from accountant.divergence import delta_bracket, renyi_bracket
    from accountant.result import Kind

    Q_pmf = convolve(poisson(2.0, backend="mp", tail=1e-3), poisson(2.0, backend="mp", tail=1e-3))
    view = ViewPair.from_pmfs(binomial(14, 0.6, backend="mp"), Q_pmf)
    P = oracle.binomial_pmf(14, mpmath.mpf("0.6"))
    Q = oracle.poisson_pmf(4.0, 14)  # Poi(2) * Poi(2) = Poi(4)
    truth = max(mpmath.log(p / q) for p, q in zip(P, Q, strict=True))
    r = max_divergence(view, direction="P||Q")
    assert r.kind is Kind.UPPER and r.value >= truth
    up = renyi_divergence(view, 2.0, direction="P||Q")
    lo, _ = renyi_bracket(view, 2.0, direction="P||Q")
    assert up.kind is Kind.UPPER and lo.value <= oracle.renyi(P, Q, 2.0) <= up.value
    dlo, dup = delta_bracket(view, 0.5, direction="P||Q")
    g = mpmath.exp(mpmath.mpf("0.5"))
    h = sum(max(p - g * q, 0) for p, q in zip(P, Q, strict=True))
    assert dlo.kind is Kind.LOWER and dlo.value <= h <= dup.value


def test_user_given_probabilities_carry_a_log_error_that_grows_with_log_p():
    """log(p) of a user-given p carries ~1 ulp of the result, not a fixed 4u: with a fixed
    error the upper delta was 0.0 (truth 2.01e-284) and the max-divergence 1.0346e-11
    (truth 1.0451e-11) on these near-ties."""
    from accountant import ViewPair, delta_for_epsilon, max_divergence

    p, q, epsilon = 1.8074973208071182e-271, 1.8072533871245983e-271, 0.00013496570159254897
    view = ViewPair.from_arrays([p, 1.0], [q, 1.0])
    truth = max(mpmath.mpf(p) - mpmath.exp(mpmath.mpf(epsilon)) * mpmath.mpf(q), 0)
    assert truth > 0
    assert delta_for_epsilon(view, epsilon, direction="P||Q").value >= truth
    p, q = 1.0386319397349948e-292, 1.03863193972414e-292
    view = ViewPair.from_arrays([p, 1.0], [q, 1.0])
    truth = mpmath.log(mpmath.mpf(p) / mpmath.mpf(q))
    assert max_divergence(view, direction="P||Q").value >= truth


@pytest.mark.parametrize("delta", [1e-300, 1.0790388466044463e-195, 3.3e-100, 1e-17, 0.01])
def test_infinite_loss_mass_just_above_delta_gives_infinite_epsilon(delta):
    """P has an atom of mass a > delta where Q = 0 (a = the next float above delta): every
    epsilon leaves delta(epsilon) >= a > delta, so epsilon(delta) = +inf. The comparison of
    the atom's mass with delta was not rounded in the safe direction: 1951 of 2000 random
    such cases gave a finite epsilon (about 7e-15)."""
    import math

    import numpy as np

    from accountant import ViewPair, epsilon_for_delta

    a = float(np.nextafter(delta, 1.0))
    view = ViewPair.from_arrays([a, 1 - a], [0.0, 1.0])
    assert epsilon_for_delta(view, delta, direction="P||Q").value == math.inf


def test_nan_mixture_weight_is_refused():
    """A NaN weight compared false with 0 and was accepted; epsilon_for_delta then
    returned an upper end of 0.0."""
    from accountant import binomial, mixture
    from accountant.errors import ParameterError

    with pytest.raises(ParameterError, match="weights"):
        mixture([(float("nan"), binomial(3, 0.5)), (1.0, binomial(3, 0.5))])


def test_k_rr_at_delta_below_the_float_range_of_two_over_tail():
    """`dp k-rr --at-delta 1e-300` raised OverflowError (2/tail overflowed in the window
    width); it now returns a certified upper end (epsilon0 itself is always one)."""
    from accountant.protocols import k_rr

    got = k_rr.epsilon_for_delta(n=1000, epsilon0=1.0, k=3, delta=1e-300)
    assert got.upper.value <= 1.0 and got.lower.value <= got.upper.value


def test_renyi_curve_of_one_count_returns_its_bracket():
    """binary_rr.renyi_curve indexed a Bracket like the old dict for 0 < ones < n-1
    (TypeError); the ends bracket the count's exact Renyi divergence (oracle, both orders)."""
    from accountant.protocols.binary_rr import BinaryRR

    (b,) = BinaryRR(n=10, epsilon0=1.0, ones=3).renyi([2.0])
    P, Q = binary_rr_pair(10, 1.0, 3)
    truth = max(oracle.renyi(P, Q, 2.0), oracle.renyi(Q, P, 2.0))
    assert b.lower.value <= truth <= b.upper.value


def test_max_over_orders_never_mixes_lower_and_upper_ends():
    """over_directions labelled EXACT+LOWER as UPPER; the maximum of a lower and an upper
    end bounds nothing and is refused."""
    from accountant import Direction, Kind, Result, ViewPair
    from accountant.divergence.common import over_directions
    from accountant.errors import PrecisionError

    view = ViewPair.from_arrays([0.5, 0.5], [0.25, 0.75])

    def make(kinds):
        return lambda v, d: Result(quantity="delta", value=0.1, kind=kinds[d],
                                   direction=d, method="test")
    low = over_directions(view, Direction.MAX, make({Direction.P_Q: Kind.EXACT,
                                                     Direction.Q_P: Kind.LOWER}))
    assert low.kind is Kind.LOWER
    with pytest.raises(PrecisionError):
        over_directions(view, Direction.MAX, make({Direction.P_Q: Kind.UPPER,
                                                   Direction.Q_P: Kind.LOWER}))


def test_directed_rounding_keeps_the_precision_it_is_given():
    """rounding.up re-wrapped an mpf at the current precision (53 bits by default), so a
    200-bit 1/3 could come back below 1/3; ints beyond 2**53 were rounded to nearest."""
    from accountant.numeric import rounding

    with mpmath.workprec(200):
        third = mpmath.mpf(1) / 3
    assert rounding.down(third) <= third <= rounding.up(third)
    big = 2**53 + 1
    assert rounding.down(big) <= big <= rounding.up(big)
    assert rounding.up(big) > rounding.down(big)
