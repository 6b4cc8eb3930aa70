"""k-RR's lower pair for composition beyond the special pair's size limit: the count
post-processing of the special pair (found when Accountant().compose(KRR(n=10**6, ...))
raised ParameterError from the special pair's n <= 200,000 check)."""

from __future__ import annotations

import pytest

from accountant.divergence import delta_for_epsilon
from accountant.protocols.k_rr import KRR, privacy


@pytest.mark.parametrize("k", [2, 4])
def test_beyond_the_limit_the_lower_pair_is_a_post_processing_of_the_special_pair(
        monkeypatch, k):
    mech = KRR(n=3000, epsilon0=2.0, k=k)
    special = mech.lower_view_pair()
    monkeypatch.setattr(privacy, "SPECIAL_PAIR_LIMIT", 1000)
    count = mech.lower_view_pair()
    assert count.description != special.description
    upper = mech.delta_for_epsilon(0.1).require_upper()
    for eps in (0.0, 0.05, 0.1, 0.2):
        d_count = float(delta_for_epsilon(count, eps))
        d_special = float(delta_for_epsilon(special, eps))
        # post-processing never increases a divergence (both values carry float error
        # of a few ulps); both sit below the mechanism's certified upper end
        assert d_count <= d_special * (1 + 1e-9) + 1e-15
        if eps == 0.1:
            assert d_special <= float(upper)
    # the count keeps most of the special pair's information at this size
    assert float(delta_for_epsilon(count, 0.05)) > 0.5 * float(
        delta_for_epsilon(special, 0.05))


def test_compose_beyond_the_limit_gives_an_ordered_bracket():
    from accountant.composition import Accountant

    b = Accountant().compose(KRR(n=300_000, epsilon0=3.0, k=2), 2).get_epsilon(1e-6)
    assert 0 < float(b.lower) <= float(b.upper) < 0.1
