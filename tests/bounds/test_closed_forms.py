"""FMT 2021, BBGN 2019 and Erlingsson et al. 2019 closed forms: transcription, regimes with
their numbers, monotonicity, and soundness against an exact binary-RR lower bound."""

import importlib.util
import math
import pathlib

import pytest

from accountant.bounds import balle_2019, erlingsson_2019, feldman_2020
from accountant.bounds import girgis_2021 as g
from accountant.errors import ParameterError, RegimeError
from accountant.result import Direction, Kind

_spec = importlib.util.spec_from_file_location(
    "special_pair_oracle", pathlib.Path(__file__).with_name("special_pair_oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)


def fmt_by_hand(epsilon0, n, delta):
    """docs/clones-and-blankets.md#clones-pair display, term by term in plain floats."""
    e = math.exp(epsilon0)
    inner = 8 * math.sqrt(e * math.log(4 / delta)) / math.sqrt(n) + 8 * e / n
    return math.log(1 + (e - 1) / (e + 1) * inner)


@pytest.mark.parametrize("epsilon0,n", [(0.5, 10**4), (1.0, 10**6), (4.0, 10**6), (8.0, 10**8)])
def test_fmt_matches_the_display(epsilon0, n):
    got = feldman_2020.epsilon_upper(epsilon0=epsilon0, n=n, delta=1e-6)
    assert got.kind is Kind.UPPER and got.direction is Direction.MAX and got.at == 1e-6
    assert got.value == pytest.approx(fmt_by_hand(epsilon0, n, 1e-6), rel=1e-12)
    ref = feldman_2020.epsilon_upper_reference_code(epsilon0=epsilon0, n=n, delta=1e-6)
    # docs/clones-and-blankets.md#clones-pair: the code's variant is slightly larger
    assert ref.value >= got.value


def test_fmt_regime_error_names_condition_and_numbers():
    # log(1000/(16 log(2e6))) = 1.4604...: eps0 = 2 is outside.
    with pytest.raises(RegimeError) as info:
        feldman_2020.epsilon_upper(epsilon0=2.0, n=1000, delta=1e-6)
    message = str(info.value)
    for fragment in ("epsilon0 <= log(n/(16 log(2/delta)))", "epsilon0=2.0", "n=1000",
                     "delta=1e-06", "1.46042"):
        assert fragment in message
    with pytest.raises(RegimeError, match=r"log\(4/delta\)"):
        feldman_2020.epsilon_upper_reference_code(epsilon0=1.45, n=1000, delta=1e-6)
    # Just inside the theorem's regime is accepted.
    feldman_2020.epsilon_upper(epsilon0=1.46, n=1000, delta=1e-6)


@pytest.mark.parametrize("n", [2, 3, 10, 100])
def test_fmt_refuses_small_n_instead_of_reporting_a_tiny_epsilon(n):
    # The soundness case: eps0 = 0.5, delta = 1e-6 at n <= 100 is outside the regime
    # (n/(16 log(2/delta)) < e^0.5 needs n < 383), so no value is returned at all.
    with pytest.raises(RegimeError):
        feldman_2020.epsilon_upper(epsilon0=0.5, n=n, delta=1e-6)


FMT_GRID = [(n, e0) for n in (400, 1000, 5000, 20000) for e0 in (0.1, 0.5, 1.0, 2.0)
            if e0 <= feldman_2020.max_epsilon0(n=n, delta=1e-6)]


@pytest.mark.parametrize("n,epsilon0", FMT_GRID, ids=[f"n={n}-eps0={e}" for n, e in FMT_GRID])
def test_fmt_is_above_the_exact_binary_rr_special_pair(n, epsilon0):
    exact = oracle.special_pair_epsilon(n, epsilon0, 1e-6)
    assert exact <= feldman_2020.epsilon_upper(epsilon0=epsilon0, n=n, delta=1e-6).value


def test_fmt_monotone():
    values = [feldman_2020.epsilon_upper(epsilon0=1.0, n=n, delta=1e-6).value
              for n in (10**3, 10**4, 10**5, 10**6)]
    assert values == sorted(values, reverse=True)
    values = [feldman_2020.epsilon_upper(epsilon0=e0, n=10**6, delta=1e-6).value
              for e0 in (0.1, 1.0, 2.0, 4.0)]
    assert values == sorted(values)


def bbgn_by_hand(epsilon0, n, delta, k):
    g_blanket = k / (math.exp(epsilon0) + k - 1)
    return max(math.sqrt(14 * k * math.log(2 / delta) / ((n - 1) * g_blanket)),
               27 * k / ((n - 1) * g_blanket))


@pytest.mark.parametrize("epsilon0,n,k", [(1.0, 10**6, 2), (4.0, 10**6, 10), (0.5, 10**5, 3)])
def test_bbgn_matches_the_display(epsilon0, n, k):
    got = balle_2019.epsilon_upper(epsilon0=epsilon0, n=n, delta=1e-6, k=k)
    assert got.kind is Kind.UPPER and got.value == pytest.approx(
        bbgn_by_hand(epsilon0, n, 1e-6, k), rel=1e-12)


def test_bbgn_regime_error_names_condition_and_numbers():
    with pytest.raises(RegimeError) as info:
        balle_2019.epsilon_upper(epsilon0=4.0, n=1000, delta=1e-6, k=4)
    message = str(info.value)
    for fragment in ("<= 1", "epsilon0=4.0", "n=1000", "delta=1e-06", "k=4", "g=", "eps="):
        assert fragment in message


@pytest.mark.parametrize("n,epsilon0", [(2000, 0.1), (5000, 0.5), (20000, 1.0)])
def test_bbgn_with_two_symbols_is_above_exact_binary_rr(n, epsilon0):
    # k = 2 randomized response is binary RR; the special pair is one neighbouring pair.
    exact = oracle.special_pair_epsilon(n, epsilon0, 1e-6)
    assert exact <= balle_2019.epsilon_upper(epsilon0=epsilon0, n=n, delta=1e-6, k=2).value


def test_bbgn_bad_k():
    with pytest.raises(ParameterError, match="k=1"):
        balle_2019.epsilon_upper(epsilon0=1.0, n=10**6, delta=1e-6, k=1)
    with pytest.raises(ParameterError, match="n=1"):
        balle_2019.epsilon_upper(epsilon0=1.0, n=1, delta=1e-6, k=2)


@pytest.mark.parametrize("n", [10**3, 10**4, 10**5])
@pytest.mark.parametrize("epsilon0", [0.1, 0.5, 1.0])
def test_eq10_is_a_reconstruction_above_the_exact_lower_bound(n, epsilon0):
    for alpha in (2, 8, 32.5):
        curve = erlingsson_2019.rdp_upper_eq10(alpha=alpha, epsilon0=epsilon0, n=n)
        assert "reconstruction" in curve.method
        assert curve.value == pytest.approx(
            2 * alpha * math.exp(4 * epsilon0) * math.expm1(epsilon0) ** 2 / n, rel=1e-12)
        assert g.rdp_lower_reverse(alpha=alpha, epsilon0=epsilon0, n=n).value <= curve.value
