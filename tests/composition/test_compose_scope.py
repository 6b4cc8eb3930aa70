"""compose says whether its numbers hold for the whole mechanism or for one neighbouring
pair: a protocol's exact view composes to the pair's value, which is only a lower bound on
the mechanism unless that pair is the worst case."""

from accountant.cli.compose import compose


def test_a_named_count_is_reported_as_pair_scope():
    body = compose(["binary-rr --n 2000 --epsilon0 1 --ones 0"], rounds=3, delta=1e-6,
                   method="pld")
    assert body["scope"]["guarantee"] == "pair"
    assert "ones=0" in body["scope"]["pairs"][0]


def test_protocol_without_a_named_pair_composes_its_dominating_pair():
    """binary-rr without --ones: the blanket pair's PLD is the mechanism's upper end, the
    special pair's optimistic value its lower end."""
    body = compose(["binary-rr --n 2000 --epsilon0 1"], rounds=3, delta=1e-6, method="pld")
    assert body["scope"] == {"guarantee": "mechanism"}
    assert "k-RR blanket" in body["epsilon"]["method"]
    assert body["epsilon_lower"]["kind"] == "lower"
    assert body["epsilon_lower"]["value"] <= body["epsilon"]["value"]
    pair = compose(["binary-rr --n 2000 --epsilon0 1 --ones 0"], rounds=3, delta=1e-6,
                   method="pld")
    assert pair["epsilon"]["value"] <= body["epsilon"]["value"]


def test_certified_specs_are_mechanism_scope():
    body = compose(["eps-delta --epsilon 0.5 --delta 1e-7"], rounds=4, delta=1e-6,
                   method="kov")
    assert body["scope"] == {"guarantee": "mechanism"}
