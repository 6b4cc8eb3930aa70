"""Exports to the peers: the ledger as a dp_accounting DpEvent, an RDP curve as an autodp
mechanism, and the Opacus-compatible `TrainingAccountant` (issue 25, item 2)."""

from __future__ import annotations

import math
import warnings

import pytest

from accountant import LDP
from accountant.composition import (
    Accountant,
    GaussianNoise,
    LaplaceNoise,
    RandomizedResponse,
    SampledWithoutReplacement,
    Subsampled,
    TrainingAccountant,
)
from accountant.composition.interop import to_autodp_mechanism
from accountant.errors import ParameterError

dpa = pytest.importorskip("dp_accounting")


@pytest.mark.parametrize(("relation", "events"), [
    ("add-remove", [(Subsampled(GaussianNoise(1.0), 0.01), 200), (GaussianNoise(8.0), 3)]),
    ("add-remove", [(Subsampled(LaplaceNoise(2.0), 0.1), 10)]),
    ("substitute", [(RandomizedResponse(0.5, 4), 5), (GaussianNoise(6.0), 2)]),
    ("substitute", [(SampledWithoutReplacement(GaussianNoise(2.0), 50, 5000), 100)]),
])
def test_a_ledger_exports_as_a_dp_event_and_comes_back_the_same(relation, events) -> None:
    acc = Accountant(relation)
    for e, c in events:
        acc.compose(e, c)
    event = acc.to_dp_event()
    back = Accountant(relation).compose(event)
    assert [(e.label, e.count) for e in back.ledger] == [(e.label, e.count) for e in acc.ledger]
    ours, again = acc.get_epsilon(1e-6), back.get_epsilon(1e-6)
    assert again.upper.value == ours.upper.value and again.lower.value == ours.lower.value
    if relation == "add-remove":
        # dp_accounting's own PLD of the exported event (not certified) lies in our bracket,
        # up to its pessimistic grid of 1e-4 per event
        theirs = dpa.pld.PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)
        theirs.compose(event)
        assert ours.lower.value <= theirs.get_epsilon(1e-6) <= ours.upper.value * 1.01


def test_a_shuffled_protocol_has_no_dp_event() -> None:
    acc = Accountant().compose(LDP(n=1000, epsilon0=1.0), 3)
    with pytest.raises(ParameterError, match="has no dp_accounting event"):
        acc.to_dp_event()


def test_an_rdp_curve_becomes_an_autodp_mechanism() -> None:
    pytest.importorskip("autodp")
    from autodp.transformer_zoo import Composition

    acc = Accountant().compose(LDP(n=10**4, epsilon0=1.0), 1)
    curve = acc.rdp_curve()
    assert curve is not None
    mech = to_autodp_mechanism(curve)
    for a in (2.0, 4.0, 16.0):
        assert mech.RenyiDP(a) == curve.value_at(a)
    below = curve.orders[0] / 2 + 0.5  # between 1 and the first stored order
    assert mech.RenyiDP(below) == curve.value_at(curve.orders[0])
    composed = Composition()([mech], [100])
    with warnings.catch_warnings():  # autodp's own scipy search divides 0/0 on its way
        warnings.simplefilter("ignore", RuntimeWarning)
        eps = composed.get_approxDP(1e-6)
    # autodp converts the same summed curve (its own conversion over every order), so it
    # lands near our RDP route's value for 100 rounds, above the PLD route's lower end
    acc100 = Accountant().compose(LDP(n=10**4, epsilon0=1.0), 100)
    rdp = acc100.report(delta=1e-6, method="rdp").bracket.upper.value
    lower = acc100.get_epsilon(1e-6).pair_lower
    assert math.isfinite(eps) and 0.9 * rdp <= eps <= 1.1 * rdp
    assert lower is None or lower.value <= eps


# ------------------------------------------------------------------ Opacus's interface
def test_training_accountant_merges_steps_and_answers_like_the_ledger() -> None:
    t = TrainingAccountant()
    for _ in range(300):
        t.step(noise_multiplier=1.0, sample_rate=0.01)
    t.step(noise_multiplier=2.0, sample_rate=1.0)
    assert t.history == [(1.0, 0.01, 300), (2.0, 1.0, 1)] and len(t) == 301
    ref = (Accountant("add-remove").compose(Subsampled(GaussianNoise(1.0), 0.01), 300)
           .compose(GaussianNoise(2.0)).get_epsilon(1e-5))
    assert t.get_epsilon(1e-5) == ref.upper.value
    assert t.get_epsilon(1e-5, poisson=True) == ref.upper.value
    with pytest.raises(ParameterError, match="poisson=False"):
        t.get_epsilon(1e-5, poisson=False)
    other = TrainingAccountant()
    other.load_state_dict(t.state_dict())
    assert other.history == t.history and other.get_epsilon(1e-5) == t.get_epsilon(1e-5)


def test_training_accountant_domain() -> None:
    t = TrainingAccountant()
    with pytest.raises(ParameterError, match="no step recorded"):
        t.get_epsilon(1e-5)
    with pytest.raises(ParameterError, match="sample_rate=1.5"):
        t.step(noise_multiplier=1.0, sample_rate=1.5)
    with pytest.raises(ParameterError, match="noise_multiplier=0"):
        t.step(noise_multiplier=0.0, sample_rate=0.1)
    with pytest.raises(ParameterError, match="neighboring"):
        TrainingAccountant("replace")


@pytest.mark.parametrize(("sigma", "q", "steps"), [(1.0, 0.01, 1000), (0.8, 0.05, 200)])
def test_training_accountant_agrees_with_the_prv_accountant(sigma, q, steps) -> None:
    # prv_accountant (Gopi, Lee, Wutschitz 2021: the algorithm of Opacus's PRV accountant)
    # reports a [lower, upper] interval; ours must meet it, and our certified upper end may
    # not exceed its upper end
    prv = pytest.importorskip("prv_accountant.dpsgd")
    lo, _, hi = prv.DPSGDAccountant(noise_multiplier=sigma, sampling_probability=q,
                                    max_steps=steps).compute_epsilon(delta=1e-5,
                                                                     num_steps=steps)
    t = TrainingAccountant()
    for _ in range(steps):
        t.step(noise_multiplier=sigma, sample_rate=q)
    b = t.get_bracket(1e-5)
    assert lo <= b.upper.value <= hi and lo <= b.lower.value <= hi


def _opacus_accountants():
    """Opacus's `opacus.accountants`, or a skip. Its accountants need only numpy and scipy,
    but the package's __init__ (and the accountant base class, through DPOptimizer) imports
    torch, a 2 GB install kept out of the test extra; without torch the package is entered
    below its __init__ with `opacus.optimizers` stubbed, so Opacus's own accounting code
    runs unchanged. `pip install opacus --no-deps` makes this test run."""
    import importlib
    import importlib.util
    import sys
    import types

    if "opacus" in sys.modules:  # imported already (here or by the real package)
        return importlib.import_module("opacus.accountants")
    spec = importlib.util.find_spec("opacus")
    if spec is None or spec.origin is None:
        pytest.skip("opacus is not installed (pip install opacus --no-deps)")
    if importlib.util.find_spec("torch") is None:
        from pathlib import Path

        package = types.ModuleType("opacus")
        package.__path__ = [str(Path(spec.origin).parent)]
        optimizers = types.ModuleType("opacus.optimizers")
        optimizers.DPOptimizer = object  # only named in a type check of the base class
        sys.modules.update({"opacus": package, "opacus.optimizers": optimizers})
    return importlib.import_module("opacus.accountants")


@pytest.mark.parametrize(("sigma", "q", "steps"), [(1.0, 0.01, 1000), (0.8, 0.05, 200)])
def test_training_accountant_agrees_with_opacus(sigma, q, steps) -> None:
    # the same steps through Opacus's PRVAccountant (its default error 0.01 on epsilon, an
    # estimate from above) and ours: same history, our certified upper end at most theirs and
    # within their error of it; Opacus's RDP accountant (same curve family) is looser
    accountants = _opacus_accountants()
    prv, rdp, ours = accountants.PRVAccountant(), accountants.RDPAccountant(), TrainingAccountant()
    for _ in range(steps):
        for a in (prv, rdp, ours):
            a.step(noise_multiplier=sigma, sample_rate=q)
    assert [tuple(h) for h in prv.history] == ours.history
    theirs = prv.get_epsilon(1e-5, eps_error=0.01)
    b = ours.get_bracket(1e-5)
    assert b.upper.value <= theirs and theirs - b.upper.value <= 2 * 0.01
    assert b.upper.value <= rdp.get_epsilon(1e-5)
