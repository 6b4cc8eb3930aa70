"""`compose --mechanism` takes the seed protocols with hand-written faces (Balcer-Cheu's
zsum and hist, GKM and GKMP20 counting) like every declared family, and a protocol
named with one dataset (`--ones`) composes as that pair's view, labelled pair scope."""

from __future__ import annotations

import pytest

from accountant.cli import main
from accountant.cli.compose import compose
from accountant.composition import Accountant
from accountant.protocols.balcer_cheu import (
    BalcerCheuHist,
    BalcerCheuZsum,
    hist_parameters,
    zsum_parameters,
)

DELTA = 1e-5


@pytest.mark.parametrize(("spec", "mech"), [
    ("bc-zsum --n 10000 --epsilon 0.5 --delta 1e-6",
     lambda: BalcerCheuZsum(zsum_parameters(n=10000, epsilon=0.5, delta=1e-6, p=None))),
    ("bc-hist --n 2000 --d 5 --p 0.9",
     lambda: BalcerCheuHist(hist_parameters(n=2000, d=5, epsilon=None, delta=None, p=0.9))),
])
def test_balcer_cheu_rounds_compose_as_the_library_does(spec, mech) -> None:
    out = compose([spec], rounds=20, delta=DELTA)
    ours = Accountant().compose(mech(), 20).get_epsilon(DELTA)
    assert out["epsilon"]["value"] == ours.upper.value
    assert out["epsilon"]["kind"] == "upper" and out["scope"]["guarantee"] == "mechanism"
    assert 0 < out["epsilon_lower"]["value"] <= out["epsilon"]["value"]
    # more rounds never cost less
    assert compose([spec], rounds=5, delta=DELTA)["epsilon"]["value"] < out["epsilon"]["value"]


def test_gkm_one_count_is_a_pair_below_the_worst_case() -> None:
    spec = "gkm-count --n 10 --epsilon 2 --epsilon-prime 1 --q 0.2"
    pair = compose([spec + " --ones 3"], rounds=10, delta=DELTA)
    worst = compose([spec], rounds=10, delta=DELTA)
    assert pair["scope"]["guarantee"] == "pair" and "ones_among_others=3" in \
        pair["scope"]["pairs"][0]
    assert worst["scope"]["guarantee"] == "mechanism"
    # one count's pair is one of the pairs the worst case maximises over
    assert pair["epsilon_lower"]["value"] <= worst["epsilon"]["value"]
    assert pair["epsilon"]["value"] <= worst["epsilon"]["value"] * (1 + 1e-2)


def test_gkmp20_composes_and_reports_its_infinite_pure_part(capsys) -> None:
    # GKMP20 is not pure-DP (docs/gkm.md): its composed epsilon at a small delta may be
    # unbounded above, never below the pair's lower end
    code = main(["compose", "--mechanism", "gkmp20-count --n 10 --epsilon-prime 1 --lam 3 "
                 "--ones 3", "--rounds", "10", "--at-delta", "1e-5", "--json"])
    assert code == 0
    assert '"guarantee": "pair"' in capsys.readouterr().out
