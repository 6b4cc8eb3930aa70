"""The protocol contract: every registered protocol's Mechanism answers every question
with a Bracket whose kinds are honest and whose ends are ordered; where it offers a
dominating pair, that pair's certified upper delta stays above the mechanism's exact
(or lower-end) value; view pairs are ViewPairs."""

from __future__ import annotations

import math

import pytest

from accountant.cli.registry import PROTOCOLS, protocol_spec
from accountant.pairs import clones
from accountant.protocols.balcer_cheu import (
    BalcerCheuHist,
    BalcerCheuZsum,
    hist_parameters,
    zsum_parameters,
)
from accountant.protocols.binary_rr import BinaryRR
from accountant.protocols.contract import DominatingPair, Mechanism
from accountant.protocols.ggkpv import (
    CountMinSketch,
    GGKPVHadamard,
    countmin_parameters,
    ggkpv_parameters,
)
from accountant.protocols.gkm import GKMCount, gkm_parameters
from accountant.protocols.k_rr import KRR, blanket
from accountant.protocols.ldp import LDP
from accountant.protocols.randomizer import RandomizerMechanism
from accountant.protocols.randomizer import k_rr as k_rr_matrix
from accountant.result import Bracket, Kind
from accountant.view import ViewPair

MECHANISMS = {
    "binary-rr": BinaryRR(n=60, epsilon0=1.0),
    "k-rr": KRR(n=60, epsilon0=1.0, k=4),
    "ldp": LDP(n=60, epsilon0=1.0),
    "bc-zsum": BalcerCheuZsum(zsum_parameters(n=2000, p=0.9)),
    "bc-hist": BalcerCheuHist(hist_parameters(n=300, d=3, p=0.9)),
    "gkm-count": GKMCount(gkm_parameters(n=3, epsilon=1.0, epsilon_prime=0.5, q=0.1, s=8,
                                         lam=60.0), ones=1),
    "ggkpv-hadamard": GGKPVHadamard(ggkpv_parameters(n=50, B=7, rho=20)),
    "ggkpv-countmin": CountMinSketch(countmin_parameters(n=50, B=7, w=10, d=2, rho=20)),
    "randomizer": RandomizerMechanism(k_rr_matrix(3, 1.0), 30),
}


def _check(b: Bracket) -> None:
    assert isinstance(b, Bracket)
    assert b.upper is None or b.upper.kind in (Kind.UPPER, Kind.EXACT)
    assert b.lower is None or b.lower.kind in (Kind.LOWER, Kind.EXACT)
    if b.lower is not None and b.upper is not None:
        assert float(b.lower) <= float(b.upper)


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_mechanism_answers_with_ordered_brackets(name):
    m = MECHANISMS[name]
    assert isinstance(m, Mechanism) and m.name == name
    _check(m.epsilon_for_delta(1e-3))
    _check(m.delta_for_epsilon(0.5))
    orders = [2.0, math.inf]
    renyi = m.renyi(orders)
    assert len(renyi) == len(orders)
    for b in renyi:
        _check(b)
    _check(m.max_divergence())
    view = m.view_pair()
    assert view is None or isinstance(view, ViewPair)
    pair = m.dominating_pair()
    assert pair is None and m.no_pair_reason or isinstance(pair, DominatingPair)


@pytest.mark.parametrize("entry", PROTOCOLS, ids=lambda e: e.name)
def test_every_registered_protocol_has_a_face(entry):
    spec = protocol_spec(entry.name)
    assert spec.name == entry.name and set(entry.commands) - {"simulate", "calibrate"} <= (
        set(spec.handlers) | {"simulate"})


def test_parameters_are_validated_on_construction():
    from accountant.errors import ParameterError

    with pytest.raises(ParameterError, match="epsilon0"):
        BinaryRR(n=10, epsilon0=-1.0)
    with pytest.raises(ParameterError, match="k="):
        KRR(n=10, epsilon0=1.0, k=1)


@pytest.mark.parametrize("n, epsilon0, epsilon", [(30, 1.0, 0.3), (80, 2.0, 0.8)])
def test_binary_rr_dominating_pair_bounds_the_exact_worst_case(n, epsilon0, epsilon):
    """The blanket pair dominates every count's pair: its certified upper delta is at least
    the certified lower end of the exact worst case over all counts (evaluated at these n),
    and not absurdly above it (within a factor 3 here)."""
    m = BinaryRR(n=n, epsilon0=epsilon0)
    pair = m.dominating_pair().pair
    upper = clones.delta_for_epsilon(pair, epsilon=epsilon).upper.value
    worst = m.delta_for_epsilon(epsilon).lower.value
    assert worst <= upper <= 3 * worst


def test_k_rr_dominating_pair_is_the_n_revealing_blanket_for_k_at_least_3():
    pair = KRR(n=100, epsilon0=1.0, k=5).dominating_pair().pair
    assert isinstance(pair, blanket.BlanketCountPair)
