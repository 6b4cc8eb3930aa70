"""The separation figure's one-check-per-step epsilon0 search (figures/fig_ggkpv.py) keeps the
certificate of `calibrated_epsilon0`: the returned Result is the certified epsilon(delta) upper
end at the returned epsilon0 (the same Result the mechanisms report), <= the target, and the
epsilon0 is the largest to the search's tolerance."""

import dataclasses

import pytest

from accountant.errors import ParameterError
from accountant.protocols import k_rr, ldp
from figures import fig_ggkpv
from verify.ggkpv_separation import run_separation
from verify.samplers import ggkpv as g

N, EPS, DELTA = 300, 1.0, 1e-6


@pytest.mark.parametrize("B", [2, 7])
def test_upper_end_is_the_mechanisms_upper_end(B):
    r = g.certified_epsilon_upper("k-rr", N, B, 3.0, DELTA)
    assert r == k_rr.KRR(n=N, epsilon0=3.0, k=B).epsilon_for_delta(DELTA).upper
    u = g.certified_epsilon_upper("unary", N, B, 3.0, DELTA)
    assert u == ldp.LDP(n=N, epsilon0=3.0).epsilon_for_delta(DELTA).upper


@pytest.mark.parametrize("protocol, B", [("k-rr", 7), ("unary", 7)])
def test_figure_search_is_certified_largest_and_agrees_with_the_slow_one(protocol, B):
    e0, r = fig_ggkpv.epsilon0_search(protocol, N, B, EPS, DELTA)
    assert r.kind.value == "upper" and float(r) <= EPS
    assert float(g.certified_epsilon_upper(protocol, N, B, e0 * 1.03, DELTA)) > EPS
    slow, r_slow = g.calibrated_epsilon0(protocol, n=N, B=B, epsilon=EPS, delta=DELTA,
                                         rel_tol=1e-2)
    assert e0 == pytest.approx(slow, rel=0.025)


def test_checked_epsilon0_shrinks_a_candidate_that_misses():
    e0, _ = fig_ggkpv.epsilon0_search("k-rr", N, 7, EPS, DELTA)
    too_big = e0 * 1.04
    assert float(g.certified_epsilon_upper("k-rr", N, 7, too_big, DELTA)) > EPS
    got, r = g.checked_epsilon0("k-rr", n=N, B=7, epsilon=EPS, delta=DELTA, epsilon0=too_big)
    assert got < too_big and float(r) <= EPS
    assert r == g.certified_epsilon_upper("k-rr", N, 7, got, DELTA)
    with pytest.raises(ParameterError):
        g.checked_epsilon0("k-rr", n=N, B=7, epsilon=EPS, delta=DELTA, epsilon0=e0 * 3,
                           max_steps=3)


def test_run_separation_refuses_an_uncertified_search():
    def bad(protocol, n, B, epsilon, delta):
        e0, r = fig_ggkpv.epsilon0_search(protocol, n, B, epsilon, delta)
        return e0, dataclasses.replace(r, value=epsilon * 1.5)
    with pytest.raises(ParameterError):
        run_separation(ns=(250,), Bs=(7,), trials=2, epsilon0_search=bad)
