"""k-RR's Renyi brackets at many orders: the special pair (a lower bound on the mechanism)
is built once for all of them, with the same brackets as one call per order (at n = 1e5,
k = 4 it has 1.6e7 atoms, 14 s a build: the accountant's 15 orders took minutes)."""

import math

import pytest

from accountant.errors import ParameterError
from accountant.protocols.k_rr import privacy
from accountant.protocols.k_rr.mechanism import KRR


@pytest.mark.parametrize("n, epsilon0, k", [(300, 2.0, 4), (50, 0.5, 2), (120, 3.0, 7)])
def test_many_orders_build_the_special_pair_once(monkeypatch, n, epsilon0, k):
    orders = [1.1, 2.0, 6.0, 64.0, math.inf]
    one_by_one = [privacy.renyi_divergence(n=n, epsilon0=epsilon0, k=k, alpha=a)
                  for a in orders]
    builds = []
    build = privacy.special_pair.unchecked

    def counted(**kwargs):
        builds.append(kwargs)
        return build(**kwargs)

    monkeypatch.setattr(privacy.special_pair, "unchecked", counted)
    together = privacy.renyi_divergences(n=n, epsilon0=epsilon0, k=k, alphas=orders)
    assert len(builds) == 1
    # one window for every order (the widest order's tail) moves the ends by round-off only
    for t, o in zip(together, one_by_one, strict=True):
        assert t.lower.value == o.lower.value
        assert t.upper.value == pytest.approx(o.upper.value, rel=1e-12, abs=1e-300)
        assert t.upper.value >= o.lower.value
    # the special pair's value is a lower end for the mechanism, below its upper end
    for b in together[:-1]:
        assert b.lower is not None and b.lower.value <= b.upper.value
    assert [b.upper.value for b in KRR(n=n, epsilon0=epsilon0, k=k).renyi(orders)] == \
        [b.upper.value for b in together]


def test_orders_are_checked_by_name():
    with pytest.raises(ParameterError, match="alpha=1.0"):
        privacy.renyi_divergences(n=10, epsilon0=1.0, k=3, alphas=[2.0, 1.0])


def test_upper_ends_alone_build_no_special_pair(monkeypatch):
    # what the accountant's Renyi curve reads: the same upper ends (mechanism statements),
    # and the special pair never built
    mech = KRR(n=300, epsilon0=2.0, k=4)
    orders = [1.25, 3.0, 32.0, math.inf]
    brackets = mech.renyi(orders)

    def refuse(**kwargs):
        raise AssertionError("built the special pair")

    monkeypatch.setattr(privacy.special_pair, "unchecked", refuse)
    uppers = mech.renyi_upper(orders)
    assert uppers == [b.upper for b in brackets]
    assert all(u is not None and u.scope.value == "mechanism" for u in uppers)
    with pytest.raises(ParameterError, match="alpha=0.5"):
        mech.renyi_upper([0.5])


def test_the_lower_pair_is_the_special_pair_only_while_its_grid_is_small(monkeypatch):
    # the special pair's cells as built, and beyond the limit its one-count post-processing
    # (a real pair's view too, so its composed value stays a lower end for the mechanism)
    # (the grid's rectangle: its finite cells are the atoms kept)
    cells = privacy.special_cells(300, 2.0, 4)
    assert privacy.special_pair(n=300, epsilon0=2.0, k=4).p.size <= cells
    small = KRR(n=300, epsilon0=2.0, k=4)
    assert small.lower_view_pair().description.get("pair") == "special"
    from accountant.protocols.k_rr import mechanism
    monkeypatch.setattr(mechanism, "_LOWER_PAIR_CELLS", privacy.special_cells(300, 2.0, 4) - 1)
    counted = small.lower_view_pair()
    assert counted.description.get("pair") != "special"
    # post-processing: every divergence of the count pair is at most the special pair's
    special = small.view_pair()
    from accountant.divergence import delta_for_epsilon
    for eps in (0.0, 0.05, 0.2):
        assert delta_for_epsilon(counted, eps).value <= delta_for_epsilon(special, eps).value \
            * (1 + 1e-9) + 1e-15


def test_beyond_its_cell_budget_the_special_pair_is_read_through_its_count(monkeypatch):
    # a grid over SPECIAL_CELLS (n = 2e5, k = 4: 3.2e7 cells, 61 s and 4.4 GiB for one
    # epsilon) is not built: its one-count post-processing gives the lower end, at most the
    # special pair's (post-processing) and still above 0
    mech = KRR(n=400, epsilon0=2.0, k=4)
    full = mech.epsilon_for_delta(1e-5)
    monkeypatch.setattr(privacy, "SPECIAL_CELLS", privacy.special_cells(400, 2.0, 4) - 1)

    def refuse(**kwargs):
        raise AssertionError("built the special pair")

    monkeypatch.setattr(privacy.special_pair, "unchecked", refuse)
    counted = mech.epsilon_for_delta(1e-5)
    assert counted.upper == full.upper
    assert 0 < counted.lower.value <= full.lower.value
    assert "post-processing" in counted.lower.method
    # k = 2 keeps the special pair (its grid is one-dimensional)
    monkeypatch.undo()
    assert "special pair:" in KRR(n=400, epsilon0=2.0, k=2).epsilon_for_delta(1e-5).lower.method
