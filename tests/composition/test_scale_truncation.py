"""Truncation at training scale (docs/conversions.md#certified-pld-engine): the tails moved
by the squarings of a T-fold self-composition are convolved into up to 2T copies of
themselves, so `pld.truncation_tail` divides the budget (1e-4 delta) by about 2T; the
composed measure's +inf atom and its `moved` ledger then stay within that budget."""

import pytest

from accountant.composition.kov import epsilon_kov, kov_view_pair
from accountant.composition.pld import compose_measures, compose_views, truncation_tail
from accountant.composition.subsampled import SubsampledPair
from accountant.protocols.ldp import LDP


@pytest.fixture(scope="module")
def shuffle_round() -> SubsampledPair:
    """Koskela et al.'s round: n = 1e5, any 3-LDP randomizer, q = 0.01, substitute."""
    return SubsampledPair(pair=LDP(n=10**5, epsilon0=3.0).subsampling_pair().composable,
                          sampling_rate=0.01)


def test_moved_tails_stay_within_the_budget_at_a_hundred_thousand_rounds(shuffle_round):
    """With the tail divided by the steps only (7e-12 here) the +inf atom was 1.4e-6, 14 %
    of delta; the budget is 1e-4 delta."""
    delta = 1e-5
    items = [(shuffle_round, 100_000)]
    measure = compose_measures(items, 1e-4, tail=truncation_tail(items, delta),
                               connect=True)[0]
    assert measure.infinity <= 1e-4 * delta
    assert measure.moved <= 1e-4 * delta


def test_tail_shrinks_with_the_rounds():
    pair = kov_view_pair(epsilon=0.1, delta=0.0)
    tails = [truncation_tail([(pair, t)], 1e-5) for t in (10, 1000, 100_000)]
    assert tails[0] > tails[1] > tails[2] > 0
    assert 2 * 100_000 * tails[2] <= 1e-4 * 1e-5


def test_kov_pair_at_a_hundred_thousand_rounds_brackets_the_exact_kov():
    """The PLD of KOV's dominating pair against KOV's exact optimum (the float window, a
    ball): the bracket holds it and is within 1 %."""
    out = compose_views([(kov_view_pair(epsilon=0.01, delta=1e-12), 100_000)], delta=1e-5)
    exact = epsilon_kov(epsilon=0.01, delta=1e-12, rounds=100_000, delta_total=1e-5)
    assert out.lower is not None
    assert float(out.lower) <= exact.lower_end() <= exact.upper_end() <= float(out.upper)
    assert float(out.upper) - float(out.lower) <= 0.01 * float(out.upper)


@pytest.mark.slow
def test_shuffle_rounds_at_a_million_rounds_bracket_within_one_percent(shuffle_round):
    """Issue 21's acceptance case at T = 1e6 (about 10 s): the dominating pair's own bracket
    (upper and `pair_lower`) at most 1 % wide; it was 1.6 % before the tail scaled with T."""
    out = compose_views([(shuffle_round, 10**6)], delta=1e-5)
    assert out.lower is not None
    assert float(out.upper) - float(out.lower) <= 0.01 * float(out.upper)
