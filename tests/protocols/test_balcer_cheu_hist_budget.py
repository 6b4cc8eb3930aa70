"""bc-hist beyond its 2-D product view's budget: one round's epsilon and delta from the
privacy-loss convolution (O(W log W)), rounds composed from the two coordinates, the view
itself refused by name (n = 1e8 at epsilon = 0.05 asked for 2.6e8 cells and was killed at
20 GB)."""

from __future__ import annotations

import pytest

from accountant.composition import Accountant, pld
from accountant.errors import ParameterError
from accountant.pairs import ProductPair
from accountant.protocols import balcer_cheu as bc
from accountant.protocols.balcer_cheu import BalcerCheuHist, views

PARAMS = bc.hist_parameters(n=5000, d=4, epsilon=None, delta=None, p=0.9)


def test_beyond_the_budget_one_round_reads_the_convolution(monkeypatch):
    exact_eps = bc.hist_epsilon(PARAMS, 1e-6)
    low_eps, _ = bc.hist_epsilon_bracket(PARAMS, 1e-6)
    exact_delta = bc.hist_delta(PARAMS, 0.5)
    monkeypatch.setattr(views, "HIST_PRODUCT_CELLS", 100)
    assert not views.hist_fits(PARAMS)
    mech = BalcerCheuHist(PARAMS)
    eps = mech.epsilon_for_delta(1e-6).upper
    delta = mech.delta_for_epsilon(0.5).upper
    assert "exceeds 100 cells" in eps.method and "exceeds 100 cells" in delta.method
    # the convolution is an independent certified upper end of the same quantity: above
    # the 2-D sum's certified lower end, and equal to its upper end to the bisection's width
    assert eps.value >= low_eps.value
    assert eps.value == pytest.approx(exact_eps.value, rel=1e-6)
    assert delta.value >= exact_delta.value * (1 - 1e-9)
    assert delta.value == pytest.approx(exact_delta.value, rel=1e-6)


def test_beyond_the_budget_the_view_is_refused_and_rounds_compose(monkeypatch):
    within = Accountant().compose(BalcerCheuHist(PARAMS), 10).get_epsilon(1e-5)
    monkeypatch.setattr(views, "HIST_PRODUCT_CELLS", 100)
    with pytest.raises(ParameterError, match=r"bc-hist at n=5000.*cells, above the 100"):
        bc.hist_view(PARAMS)
    beyond = Accountant().compose(BalcerCheuHist(PARAMS), 10).get_epsilon(1e-5)
    assert beyond.upper.value == within.upper.value
    assert beyond.lower.value == within.lower.value


@pytest.mark.parametrize("rounds", [1, 3, 20])
def test_the_product_of_coordinates_composes_as_the_2d_view(rounds):
    # the loss of the product is the sum of the coordinates' losses: composing the two 1-D
    # pairs brackets the same value as composing the 2-D view (each coordinate is
    # discretised on its own, so the grid's share is about twice the view's)
    one = views.zsum_view(PARAMS)
    product = ProductPair((one, one.swapped()))
    width = 1e-3
    a = pld.compose_views([(product, rounds)], delta=1e-5, discretization=width)
    b = pld.compose_views([(bc.hist_view(PARAMS), rounds)], delta=1e-5, discretization=width)
    assert a.lower.value <= b.upper.value and b.lower.value <= a.upper.value
    assert a.upper.value == pytest.approx(b.upper.value, rel=1e-3)
    assert a.lower.value == pytest.approx(b.lower.value, rel=1e-2)
    # and one round brackets the exact 2-D sum's epsilon
    if rounds == 1:
        low, up = bc.hist_epsilon_bracket(PARAMS, 1e-5)
        assert a.lower.value <= up.value and low.value <= a.upper.value


def test_a_product_needs_two_view_components():
    one = views.zsum_view(PARAMS)
    with pytest.raises(ParameterError, match="at least two ViewPair"):
        ProductPair((one,))


def test_the_budget_admits_the_paper_sizes():
    # the audit table's largest hist instance (n = 1e6 at epsilon = 0.25) still fits
    big = bc.hist_parameters(n=10**6, d=2, epsilon=0.25, delta=1e-9, p=None)
    assert views.hist_fits(big)
    # and n = 1e8 at epsilon = 0.05 does not (its view was the 20 GB one)
    huge = bc.hist_parameters(n=10**8, d=10, epsilon=0.05, delta=1e-10, p=None)
    assert not views.hist_fits(huge)
