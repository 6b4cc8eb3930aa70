"""compose says whether its numbers hold for the whole mechanism or for one neighbouring
pair: a protocol's exact view composes to the pair's value, which is only a lower bound on
the mechanism unless that pair is the worst case."""

from accountant.cli.compose import compose


def test_protocol_view_is_reported_as_pair_scope():
    body = compose(["binary-rr --n 2000 --epsilon0 1"], rounds=3, delta=1e-6, method="pld")
    assert body["scope"]["guarantee"] == "pair"
    assert "ones=0" in body["scope"]["pairs"][0]


def test_certified_specs_are_mechanism_scope():
    body = compose(["eps-delta --epsilon 0.5 --delta 1e-7"], rounds=4, delta=1e-6,
                   method="kov")
    assert body["scope"] == {"guarantee": "mechanism"}
