"""Balcer-Cheu zsum/hist: exact privacy against independent references.

References: tests/reference/balcer_cheu_zsum.csv, written by make_balcer_cheu_zsum.py
(mpmath, direct hockey-stick sums over loggamma PMFs + bisection; no library code);
identities (both orders of hist equal by coordinate symmetry,
docs/balcer-cheu-2020.md#the-hist-protocol); relations
(data processing: hist >= zsum; basic composition: hist(2 delta) <= 2 zsum(delta)); the
mp/exact backends on small n.
"""

import csv
import math
from fractions import Fraction
from pathlib import Path

import pytest

from accountant.bounds.balcer_cheu_2020 import paper_p
from accountant.divergence import epsilon_for_delta, max_divergence, renyi_divergence
from accountant.errors import ParameterError, RegimeError
from accountant.pairs import binomial_shift_pair
from accountant.protocols import balcer_cheu as bc
from accountant.result import Direction, Kind

REFERENCE = Path(__file__).parents[1] / "reference" / "balcer_cheu_zsum.csv"
with REFERENCE.open() as f:
    CASES = list(csv.DictReader(f))


def _params(case):
    return bc.zsum_parameters(n=int(case["n"]), p=float.fromhex(case["p_hex"]))


@pytest.mark.parametrize("case", CASES,
                         ids=lambda c: f"n={c['n']}-p={c['p'][:8]}-delta={c['delta']}")
def test_zsum_epsilon_matches_independent_mpmath_to_1e9(case):
    params, delta = _params(case), float(case["delta"])
    r = bc.zsum_epsilon(params, delta)
    ref = float(case["epsilon"])
    assert r.kind is Kind.UPPER and r.direction is Direction.MAX
    assert r.value == pytest.approx(ref, rel=1e-9)
    assert float(r) >= ref * (1 - 1e-15)  # an upper bound never below the truth
    for direction, key in ((Direction.P_Q, "epsilon_pq"), (Direction.Q_P, "epsilon_qp")):
        one = bc.zsum_epsilon(params, delta, direction=direction)
        assert one.value == pytest.approx(float(case[key]), rel=1e-9)


@pytest.mark.parametrize("case", CASES[:6], ids=lambda c: f"n={c['n']}-delta={c['delta']}")
def test_zsum_certified_bracket_contains_the_reference(case):
    lower, upper = bc.zsum_epsilon_bracket(_params(case), float(case["delta"]))
    ref = float(case["epsilon"])
    assert float(lower) <= ref <= float(upper)


def test_zsum_mp_full_support_is_exact_and_agrees_with_float():
    params = bc.zsum_parameters(n=300, p=0.85)
    exact = bc.zsum_epsilon(params, 1e-6, backend="mp", full_support=True)
    approx = bc.zsum_epsilon(params, 1e-6)
    assert exact.kind is Kind.EXACT
    assert float(exact.value) <= approx.value <= float(exact.value) * (1 + 1e-9)


def test_zsum_delta_inverts_epsilon():
    params = bc.zsum_parameters(n=10**6, epsilon=1.0, delta=1e-6)
    eps = bc.zsum_epsilon(params, 1e-6)
    d = bc.zsum_delta(params, float(eps))
    assert d.kind is Kind.UPPER and 0.999e-6 <= float(d) <= 1e-6 * (1 + 1e-9)


def test_zsum_epsilon_monotone_in_delta_and_p():
    params = bc.zsum_parameters(n=10**5, p=0.99)
    eps = [float(bc.zsum_epsilon(params, d)) for d in (1e-12, 1e-9, 1e-6, 1e-3)]
    assert eps == sorted(eps, reverse=True)
    by_p = [float(bc.zsum_epsilon(bc.zsum_parameters(n=10**5, p=p), 1e-6))
            for p in (0.9, 0.99, 0.999)]
    assert by_p == sorted(by_p)  # less noise, more privacy loss


def test_paper_p_is_fig1_formula_and_cli_example():
    for n, eps, delta in ((10**5, 1.0, 1e-6), (10**7, 0.3, 1e-9)):
        g = 50 * math.log(2 / delta) / (eps**2 * n)
        assert 1 - paper_p(epsilon=eps, delta=delta, n=n) == pytest.approx(g, rel=1e-15)
    assert paper_p(epsilon=1.0, delta=1e-6, n=100000) == pytest.approx(0.99275, abs=1e-5)


@pytest.mark.parametrize("n,epsilon,delta", [(10**4, 1.0, 1e-6), (10**6, 0.5, 1e-9)])
def test_hist_two_d_sum_agrees_with_privacy_loss_convolution(n, epsilon, delta):
    params = bc.hist_parameters(n=n, d=5, epsilon=epsilon, delta=delta)
    two_d = bc.hist_epsilon(params, 2 * delta)
    pld = bc.hist_epsilon_pld(params, 2 * delta)
    slack = two_d.error_budget + pld.error_budget + 1e-12
    assert abs(two_d.value - pld.value) <= slack
    assert abs(two_d.value - pld.value) <= 1e-6 * two_d.value
    # and delta at that epsilon, both ways
    d2 = bc.hist_delta(params, float(two_d))
    dp = bc.hist_delta_pld(params, float(two_d))
    assert float(d2) == pytest.approx(float(dp), rel=1e-6)
    assert float(d2) <= 2 * delta * (1 + 1e-9)


def test_hist_both_orders_are_equal():
    params = bc.hist_parameters(n=5000, d=3, p=0.95)
    view = bc.hist_view(params)
    pq = epsilon_for_delta(view, 1e-6, direction=Direction.P_Q)
    qp = epsilon_for_delta(view, 1e-6, direction=Direction.Q_P)
    assert pq.value == pytest.approx(qp.value, rel=1e-9)
    both = bc.hist_epsilon(params, 1e-6, both_orders=True)
    pruned = bc.hist_epsilon(params, 1e-6)  # P||Q only, on the contributing points
    assert abs(both.value - pruned.value) <= both.error_budget + pruned.error_budget
    assert pruned.value == pytest.approx(both.value, rel=1e-8)


def test_hist_between_zsum_and_basic_composition():
    params = bc.hist_parameters(n=10**5, d=4, epsilon=1.0, delta=1e-6)
    z = float(bc.zsum_epsilon(params, 1e-6))
    z2 = float(bc.zsum_epsilon(params, 2e-6))
    h = float(bc.hist_epsilon(params, 2e-6))
    assert z2 <= h <= 2 * z   # marginal (data processing) <= hist <= composition


def test_hist_float_agrees_with_exact_fractions_on_small_n():
    n, p = 12, Fraction(3, 4)
    one = binomial_shift_pair(n, p, backend="exact")
    exact_view = one.product(one.swapped())
    exact = epsilon_for_delta(exact_view, Fraction(1, 100))
    approx = bc.hist_epsilon(bc.hist_parameters(n=n, d=2, p=float(p)), 0.01)
    assert exact.kind is Kind.EXACT
    assert float(exact.value) <= approx.value <= float(exact.value) * (1 + 1e-9) + 1e-12


def test_renyi_and_max_divergence_are_infinite_with_the_reason():
    params = bc.zsum_parameters(n=1000, p=0.9)
    for alpha in (1.5, 2.0, 64.0):
        r = bc.renyi_divergence(params, alpha)
        assert r.value == math.inf and r.kind is Kind.EXACT and "support-edge" in r.method
        # the generic divergence on the exact view agrees: +inf
        assert renyi_divergence(bc.zsum_view(params, tail=None), alpha).value == math.inf
    m = bc.max_divergence(bc.hist_parameters(n=1000, d=3, p=0.9))
    assert m.value == math.inf and m.quantity == "max_divergence"
    assert max_divergence(bc.zsum_view(params, tail=None)).value == math.inf


def test_regime_error_names_the_condition_and_values():
    with pytest.raises(RegimeError, match=r"n >= 100\*ln\(2/delta\)/epsilon\^2.*n=1000.*1451"):
        bc.zsum_parameters(n=1000, epsilon=1.0, delta=1e-6)


@pytest.mark.parametrize("kwargs,match", [
    ({"n": 100, "p": 1.0}, "p=1.0"),
    ({"n": 100, "p": 0.0}, "p=0.0"),
    ({"n": 0, "p": 0.5}, "n=0"),
    ({"n": 100, "p": 0.5, "epsilon": 1.0}, "either p"),
    ({"n": 100, "epsilon": 1.0}, "both epsilon and delta"),
    ({"n": 10**5, "epsilon": 1.5, "delta": 1e-6}, "epsilon=1.5"),
    ({"n": 10**5, "epsilon": 1.0, "delta": 0.0}, "delta=0.0"),
])
def test_parameter_errors(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        bc.zsum_parameters(**kwargs)


def test_hist_needs_d_at_least_two():
    with pytest.raises(ParameterError, match="d=1"):
        bc.hist_parameters(n=100, d=1, p=0.9)


def test_hist_bracket_contains_the_pld_value_and_the_point_estimate():
    params = bc.hist_parameters(n=10**5, d=3, epsilon=1.0, delta=1e-6)
    lower, upper = bc.hist_epsilon_bracket(params, 2e-6)
    assert lower.kind is Kind.LOWER and upper.kind is Kind.UPPER
    assert float(lower) <= bc.hist_epsilon(params, 2e-6).value <= float(upper) * (1 + 1e-12)
    pld = bc.hist_epsilon_pld(params, 2e-6)
    assert float(lower) <= pld.value
    assert float(upper) - float(lower) <= 1e-6 * float(upper)
