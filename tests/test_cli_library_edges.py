"""The library behind the command line's bad-input cases: extreme parameters of GKM and the
GGKPV calibration raise the library's own errors (naming the parameter), in bounded time,
never OverflowError, ZeroDivisionError or ValueError('math domain error')."""

from __future__ import annotations

import math
import time

import pytest

from accountant.errors import AccountantError, ParameterError, RegimeError
from accountant.protocols import gkm
from accountant.protocols.ggkpv import calibrate, ggkpv_parameters
from accountant.protocols.ggkpv.calibration import MAX_MEAN_COUNT, largest_rho


@pytest.mark.parametrize("epsilon_prime", [1e-300, 1e-17, 301.0, 1e300])
def test_gkm_epsilon_prime_outside_the_float_model_is_a_parameter_error(epsilon_prime):
    with pytest.raises(ParameterError, match="epsilon_prime=.*outside"):
        gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=epsilon_prime, q=0.1, s=8,
                           lam=60.0, strict=False)
    with pytest.raises(ParameterError, match="epsilon_prime="):
        gkm.gkmp20.gkmp20_parameters(n=10, epsilon_prime=epsilon_prime, lam=60.0)


def test_gkm_epsilon_prime_at_the_ends_of_the_float_model_is_accepted():
    for e in (gkm.MIN_EPSILON_PRIME, gkm.MAX_EPSILON_PRIME):
        gkm.check_epsilon_prime(e)
    p = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=1e-15, q=0.1, s=8, lam=60.0,
                           strict=False)
    assert p.epsilon_prime == 1e-15


def test_gkm_rho_too_small_to_move_epsilon_prime_names_rho():
    with pytest.raises(ParameterError, match=r"rho=1e-300 is too small"):
        gkm.theorem6_parameters(n=10, epsilon=1.0, rho=1e-300)
    # the least rho the message offers does move epsilon'
    p = gkm.theorem6_parameters(n=10**6, epsilon=1.0, rho=5e-14)
    assert p.epsilon_prime < 1.0


def test_ggkpv_calibration_of_an_unreachable_target_stops_with_a_reason():
    # CPU seconds of this process: another xdist worker on the same cores does not count
    start = time.process_time()
    with pytest.raises(RegimeError, match="no rho <= .* meets target_epsilon=1e-300"):
        calibrate(n=64, B=7, target_epsilon=1e-300, target_delta=1e-6, tau=6)
    assert time.process_time() - start < 30


def test_ggkpv_search_budget_shrinks_for_tiny_delta_and_respects_the_mean_count():
    base = ggkpv_parameters(n=100, B=7, rho=1, tau=7)
    wide, narrow = largest_rho(base, 1e-6), largest_rho(base, 1e-300)
    assert narrow < wide and wide * base.n * base.pi <= MAX_MEAN_COUNT


def test_ggkpv_calibration_within_budget_is_unchanged():
    c = calibrate(n=2000, B=63, target_epsilon=1.0, target_delta=1e-6)
    assert float(c.epsilon) <= 1.0 and c.rho <= largest_rho(c.params, 1e-6)


@pytest.mark.parametrize("target", [0.0, -1.0, float("nan"), float("inf")])
def test_ggkpv_calibration_targets_are_checked_by_name(target):
    with pytest.raises(AccountantError, match="target_epsilon"):
        calibrate(n=64, B=7, target_epsilon=target, target_delta=1e-6)


@pytest.mark.parametrize("protocol", ["zsum", "hist"])
def test_balcer_cheu_calibration_of_a_tiny_target_is_a_regime_error(protocol):
    from accountant.protocols.balcer_cheu import calibrate as bc_calibrate

    with pytest.raises(RegimeError, match="even p=1/2 gives epsilon="):
        bc_calibrate(protocol=protocol, n=1000, target_epsilon=1e-300, target_delta=1e-6,
                     d=3 if protocol == "hist" else None)


def test_gkm_dlap_variance_overflows_to_inf_not_zero_division():
    assert gkm.dlap_variance(1e-300) == float("inf")
    assert gkm.dlap_variance(1.0) == pytest.approx(2 * math.exp(-1) / math.expm1(-1) ** 2,
                                                   rel=1e-15)
    with pytest.raises(RegimeError, match=r"q=inf"):
        gkm.theorem6_parameters(n=10, epsilon=1e-300, rho=0.5)


def test_gkm_huge_flood_or_ones_are_parameter_errors():
    p20 = gkm.gkmp20.gkmp20_parameters(n=10, epsilon_prime=0.5, lam=1e300)
    with pytest.raises(ParameterError, match=r"lam=1e\+300"):
        gkm.GKMP20Count(p20, ones=1).max_divergence()
    p = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1, s=8, lam=60.0)
    for ones in (float("inf"), float("nan"), 10, -1):
        with pytest.raises(ParameterError, match="ones="):
            gkm.GKMCount(p, ones=ones).max_divergence()


@pytest.mark.parametrize("target", [1e300, float("inf")])
def test_calibration_targets_above_700_are_parameter_errors(target):
    from accountant.protocols.balcer_cheu import calibrate as bc_calibrate

    with pytest.raises(ParameterError, match="target_epsilon"):
        bc_calibrate(protocol="zsum", n=1000, target_epsilon=target, target_delta=1e-6)
    with pytest.raises(ParameterError, match="target_epsilon"):
        calibrate(n=64, B=7, target_epsilon=target, target_delta=1e-6)
