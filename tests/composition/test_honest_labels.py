"""Every `compose` output's kind and scope are honest (issue 11 acceptance, issue 16
"Labels"): nothing heuristic and nothing computed for one neighbouring pair is reported as
an upper bound on the mechanism, and a heuristic value never wins."""

import math

import pytest

from accountant.cli.compose import compose
from accountant.composition import conversion, poisson_subsampled
from accountant.composition.rdp import RdpCurve
from accountant.result import Bracket, Direction, Kind, Result, tightest

SPECS = ["binary-rr --n 40 --epsilon0 1", "k-rr --n 40 --epsilon0 1 --k 3",
         "ldp --n 40 --epsilon0 1", "eps-delta --epsilon 0.5 --delta 1e-8",
         "eps-delta --epsilon 0.5 --delta 0"]
HEURISTIC_MARK = "Girgis et al. 2021 Fig. 5"


def _r(value: float, kind: Kind) -> Result:
    return Result(quantity="epsilon", value=value, kind=kind, direction=Direction.MAX,
                  method=f"test {kind}")


def test_heuristic_kind_never_wins_tightest_and_never_ends_a_bracket():
    h = _r(0.01, Kind.HEURISTIC)
    assert tightest(h, _r(0.5, Kind.UPPER)).value == 0.5
    with pytest.raises(ValueError):
        tightest(h)
    with pytest.raises(ValueError):
        Bracket(upper=h)
    with pytest.raises(ValueError):
        Bracket(lower=h)


def test_zw19_on_a_replace_one_curve_is_heuristic_and_so_is_its_conversion():
    base = RdpCurve.from_pure_dp(1.0, orders=[float(a) for a in range(2, 33)])
    sub = poisson_subsampled(base, sampling_rate=0.1)
    assert sub.kind is Kind.HEURISTIC
    assert sub.times(10).kind is Kind.HEURISTIC
    assert sub.compose(base).kind is Kind.HEURISTIC
    for r in conversion.epsilon_best(sub.times(10), delta=1e-6)[1]:
        assert r.kind is Kind.HEURISTIC
    # the theorem's own hypothesis (an add/remove curve) gives an upper bound
    assert poisson_subsampled(base, sampling_rate=0.1,
                              base_relation="add-remove").kind is Kind.UPPER


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("method", ["rdp", "pld", "kov", "all"])
@pytest.mark.parametrize("rate", [None, 0.2])
def test_no_heuristic_or_pair_value_is_a_mechanism_upper(spec, method, rate):
    body = compose([spec], rounds=3, delta=1e-6, sampling_rate=rate, method=method,
                   discretization=1e-3)
    assert body["scope"] == {"guarantee": "mechanism"}
    for entry in body["methods"]:
        if "kind" not in entry:
            assert entry.get("skipped")
            continue
        name = entry["name"]
        if HEURISTIC_MARK in name or entry["method"].startswith("rdp") and rate is not None:
            assert entry["kind"] == "heuristic", entry
        if "special" in entry["method"] or "view [" in name:
            # one neighbouring pair's value: at most a lower bound on the mechanism
            assert entry["kind"] == "lower", entry
    chosen = body["epsilon"]
    assert chosen["kind"] in ("upper", "exact")
    assert HEURISTIC_MARK not in chosen["method"]
    if "epsilon_lower" in body:
        assert body["epsilon_lower"]["kind"] in ("lower", "exact")
        upper = math.inf if chosen["value"] == "inf" else chosen["value"]
        assert body["epsilon_lower"]["value"] <= upper
    if rate is not None and any(e.get("kind") == "heuristic" for e in body["methods"]):
        assert "heuristic" in body["caveat"]


def test_a_named_pair_is_reported_with_pair_scope():
    body = compose(["binary-rr --n 40 --epsilon0 1 --ones 3"], rounds=3, delta=1e-6,
                   method="rdp")
    assert body["scope"]["guarantee"] == "pair"
    assert "ones=3" in body["scope"]["pairs"][0]
