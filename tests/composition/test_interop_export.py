"""Exports to dp_accounting through its public API (issue 11, step 4): the composed RDP curve
to `dp_accounting.rdp.compute_epsilon`, the composed PLD to a `PrivacyLossDistribution`.
The two examples of docs/conversions.md#exports-to-dp_accounting are run here verbatim."""

import math

import pytest

from accountant.composition import pld
from accountant.composition.accountant import Accountant, GaussianNoise
from accountant.composition.interop import (
    rdp_epsilon_via_dp_accounting,
    to_dp_accounting_pld,
    translate_dp_event,
)
from accountant.errors import ParameterError
from accountant.protocols.ldp import LDP

dpa = pytest.importorskip("dp_accounting")


def test_rdp_export_example():
    # --- docs example: RDP curve to dp_accounting
    acc = Accountant().compose(LDP(n=2000, epsilon0=1.0), 50).compose(GaussianNoise(10.0), 20)
    curve = acc.rdp_curve()
    eps_dpa, order = rdp_epsilon_via_dp_accounting(curve, 1e-6)
    ours = acc.get_epsilon(1e-6, method="rdp")
    # ---
    cks = next(e["result"] for e in acc.report(delta=1e-6, method="rdp").entries
               if e["method"] == "rdp.cks")
    # dp_accounting applies the same CKS conversion on the stored orders only; ours also
    # reads the chord between them, so it can only be smaller
    assert float(cks) <= eps_dpa * (1 + 1e-9)
    assert ours.upper.value <= eps_dpa * (1 + 1e-9)
    assert order in curve.orders


def test_rdp_export_of_a_gaussian_curve_matches_the_rdp_accountant():
    acc = Accountant("add-remove").compose(GaussianNoise(3.0), 40)
    eps_dpa, _ = rdp_epsilon_via_dp_accounting(acc.rdp_curve(), 1e-5)
    native = dpa.rdp.RdpAccountant(neighboring_relation=dpa.NeighboringRelation.ADD_OR_REMOVE_ONE)
    native.compose(dpa.GaussianDpEvent(3.0), 40)
    # the same curve at different orders: within 1 %
    assert eps_dpa == pytest.approx(native.get_epsilon(1e-5), rel=1e-2)


def test_pld_export_example():
    # --- docs example: PLD to dp_accounting
    acc = Accountant().compose(LDP(n=2000, epsilon0=1.0), 5).compose(GaussianNoise(8.0), 5)
    measures = acc.loss_pmfs(1e-4)
    exported = to_dp_accounting_pld(measures)
    more = exported.compose(dpa.pld.privacy_loss_distribution.from_gaussian_mechanism(
        8.0, value_discretization_interval=1e-4, neighboring_relation=dpa.NeighboringRelation.
        REPLACE_ONE))
    # ---
    assert len(measures) == 1  # every pair is symmetric: one measure
    for eps in (0.0, 0.5, 1.0, 2.0):
        certified = max(pld.delta_of(m, eps) for m in measures)
        theirs = exported.get_delta_for_epsilon(eps)
        assert theirs >= certified * (1 - 1e-12)
        assert theirs <= certified + 1e-12
        assert more.get_delta_for_epsilon(eps) >= theirs * (1 - 1e-12)
    eps_dpa = exported.get_epsilon_for_delta(1e-6)
    eps_ours = max(pld.epsilon_of(m, 1e-6) for m in measures)
    assert eps_dpa == pytest.approx(eps_ours, rel=1e-6, abs=1e-4)


def test_pld_export_of_an_add_remove_ledger_keeps_both_orders():
    acc = Accountant("add-remove").compose(
        dpa.PoissonSampledDpEvent(0.1, dpa.GaussianDpEvent(1.0)), 3)
    measures = acc.loss_pmfs(1e-3)
    assert len(measures) == 2
    exported = to_dp_accounting_pld(measures)
    for eps in (0.1, 0.5):
        assert exported.get_delta_for_epsilon(eps) >= max(
            pld.delta_of(m, eps) for m in measures) * (1 - 1e-12)


def test_translation_and_refusals():
    event = dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(2.0), 3),
                                 dpa.NoOpDpEvent(), dpa.LaplaceDpEvent(1.0)])
    items = translate_dp_event(event, 2)
    assert [(type(e).__name__, c) for e, c in items] == [("GaussianNoise", 6),
                                                         ("LaplaceNoise", 2)]
    with pytest.raises(ParameterError):
        translate_dp_event(dpa.PoissonSampledDpEvent(0.1, dpa.NonPrivateDpEvent()))
    with pytest.raises(ParameterError, match="pessimistic"):
        to_dp_accounting_pld(Accountant().compose(GaussianNoise(1.0)).loss_pmfs(
            1e-3, pessimistic=False))
    assert math.isfinite(rdp_epsilon_via_dp_accounting(
        Accountant().compose(GaussianNoise(1.0)).rdp_curve(), 1e-5)[0])
