"""exp_up / exp_down beyond float range: e^x for x > 709.78 overflows a float. Before, the
helper behind them raised a bare OverflowError (found by the heterogeneous property tests
through a lower end's log of about 800); now both ends are mpf values around the truth."""

import mpmath
import pytest

from accountant.divergence.common import exp_down, exp_up


@pytest.mark.parametrize("log_x", [709.0, 709.5, 710.0, 800.0, 5000.0])
def test_exp_ends_beyond_float_range_bracket_the_truth(log_x):
    with mpmath.workdps(60):
        truth = mpmath.exp(mpmath.mpf(log_x))
        lo, hi = mpmath.mpf(exp_down(log_x)), mpmath.mpf(exp_up(log_x))
        assert lo <= truth <= hi
        assert mpmath.isfinite(lo) and hi / lo - 1 < mpmath.mpf(10) ** -12


@pytest.mark.parametrize("log_x", [-800.0, -700.5, 0.0, 708.9])
def test_exp_ends_inside_float_range_still_bracket_the_truth(log_x):
    with mpmath.workdps(60):
        truth = mpmath.exp(mpmath.mpf(log_x))
        assert mpmath.mpf(exp_down(log_x)) <= truth <= mpmath.mpf(exp_up(log_x))
