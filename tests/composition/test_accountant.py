"""The accountant object (issue 11, step 4): dp_accounting's Gaussian and Laplace answers
reproduced, one ledger for noise and shuffle rounds, brute-forced small cases, honest routes.

Exact references are written out here independently (40-digit mpmath, enumeration)."""

import itertools
import math

import mpmath
import numpy as np
import pytest

from accountant.composition import kov, pld
from accountant.composition.accountant import (
    Accountant,
    EpsilonDelta,
    GaussianNoise,
    LaplaceNoise,
    Subsampled,
)
from accountant.composition.noise import NoisePair
from accountant.composition.rdp import RdpCurve
from accountant.errors import ParameterError
from accountant.protocols.binary_rr import BinaryRR
from accountant.protocols.ldp import LDP
from accountant.result import Kind
from tests.composition.conftest import rr_pair

dpa = pytest.importorskip("dp_accounting")
REL = 1e-6


def _close(value: float, reference: float, rel: float = REL) -> bool:
    return abs(value - reference) <= rel * abs(reference)


# ------------------------------------------------------------------ dp_accounting's answers
@pytest.mark.parametrize("sigma, count", [(2.0, 10), (0.8, 1), (5.0, 300)])
@pytest.mark.parametrize("relation", ["add-remove", "substitute"])
def test_gaussian_events_reproduce_dp_accounting(sigma, count, relation):
    """T Gaussians: dp_accounting's analytic Gaussian of the equivalent single Gaussian
    (sigma/sqrt(T); REPLACE_ONE doubles the sensitivity), to 1e-6 at both bracket ends."""
    acc = Accountant(relation).compose(dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(sigma),
                                                               count))
    bracket = acc.get_epsilon(1e-5, method="analytic")
    factor = 2.0 if relation == "substitute" else 1.0
    reference = dpa.get_epsilon_gaussian(sigma / factor / math.sqrt(count), 1e-5)
    assert bracket.lower.value <= bracket.upper.value
    assert _close(bracket.upper.value, reference) and _close(bracket.lower.value, reference)
    assert "[analytic]" in bracket.upper.method


def test_gaussian_pld_route_brackets_the_analytic_value():
    acc = Accountant("add-remove").compose(GaussianNoise(2.0), 10)
    exact = dpa.get_epsilon_gaussian(2.0 / math.sqrt(10), 1e-5)
    pld = acc.report(delta=1e-5, method="pld")
    values = {e["method"]: float(e["result"]) for e in pld.entries if "result" in e}
    assert values["pld.optimistic"] <= exact <= values["pld.pessimistic"]
    assert values["pld.pessimistic"] <= exact * 1.001
    report = acc.report(delta=1e-5, method="all")
    assert report.bracket.upper.method.startswith("[analytic]")
    assert report.bracket.lower.value <= exact <= report.bracket.upper.value
    # the analytic route is exact: the PLD and RDP routes could not win and are skipped
    # under "all"
    skipped = {e["method"] for e in report.entries
               if "the analytic answer is exact" in e.get("skipped", "")}
    assert skipped == {"pld", "rdp"}
    rdp = acc.report(delta=1e-5, method="rdp")
    assert min(float(e["result"]) for e in rdp.entries if "result" in e) >= exact


@pytest.mark.parametrize("case", ["gaussian", "binary-rr"])
def test_a_late_route_is_skipped_only_when_it_cannot_win_by_more_than_the_width(
        case: str) -> None:
    # SETTLED_WIDTH: the RDP route runs under "all" only while the bracket is wider than
    # 1 %; when it is skipped, its upper end (computed on request) is >= the lower end, so
    # the skip cost at most the bracket's width. The subsampled Gaussian's bracket is
    # 0.6 % wide (skipped); five unsampled binary RR rounds, whose RDP curve is certified,
    # about 10 % (it runs, and its upper end wins).
    from accountant.composition.accountant import SETTLED_WIDTH
    from accountant.protocols.binary_rr import BinaryRR

    if case == "gaussian":
        acc = Accountant("add-remove").compose(Subsampled(GaussianNoise(1.0), 0.01), 300)
    else:
        acc = Accountant().compose(BinaryRR(n=1000, epsilon0=1.0), 5)
    full = acc.report(delta=1e-5)
    b = full.bracket
    width = (b.upper.value - b.lower.value) / b.upper.value
    skipped = any(e["method"] == "rdp" and "skipped" in e for e in full.entries)
    assert skipped == (width <= SETTLED_WIDTH) == (case == "gaussian")
    rdp = acc.report(delta=1e-5, method="rdp").bracket.upper.value
    assert rdp >= b.lower.value
    if skipped:
        assert min(rdp, b.upper.value) >= b.upper.value * (1 - SETTLED_WIDTH)


@pytest.mark.parametrize("epsilon", [0.0, 0.3, 0.9, 1.5])
def test_one_laplace_event_reproduces_dp_accounting(epsilon):
    from dp_accounting.pld.privacy_loss_mechanism import LaplacePrivacyLoss

    bracket = Accountant("add-remove").compose(dpa.LaplaceDpEvent(1.0)).get_delta(epsilon)
    reference = LaplacePrivacyLoss(1.0).get_delta_for_epsilon(epsilon)
    if reference == 0:
        assert bracket.upper.value == 0
    else:
        assert _close(bracket.upper.value, reference) and _close(bracket.lower.value,
                                                                 reference)


def test_composed_laplace_and_sampled_gaussian_agree_with_dp_accounting_pld():
    """No closed form: dp_accounting's own pessimistic PLD (grid 1e-4) lies above our lower
    end and within 1e-3 of our upper end."""
    cases = [(dpa.LaplaceDpEvent(1.0), 10),
             (dpa.PoissonSampledDpEvent(0.05, dpa.GaussianDpEvent(1.5)), 50)]
    for event, count in cases:
        ours = Accountant("add-remove").compose(event, count).get_epsilon(1e-5, method="pld")
        theirs = dpa.pld.PLDAccountant(dpa.NeighboringRelation.ADD_OR_REMOVE_ONE, 1e-4)
        reference = theirs.compose(event, count).get_epsilon(1e-5)
        assert ours.lower.value <= reference
        assert abs(ours.upper.value - reference) <= 1e-3 * reference
        assert (ours.upper.value - ours.lower.value) <= 0.008 * ours.upper.value


# ------------------------------------------------------------------ exact noise PLDs
def _noise_delta_exact(family: str, scale: float, q: float, order: str, eps: float) -> float:
    """H(e^eps) of one noise pair by the crossing point x* of L = eps (L decreasing):
    upper(x < x*) - e^eps lower(x < x*), in 40 digits."""
    with mpmath.workdps(40):
        t = 1 / mpmath.mpf(scale)
        q = mpmath.mpf(q)

        def cdf(z):
            if family == "gaussian":
                return mpmath.ncdf(z)
            return mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2

        def dens(z):
            return mpmath.exp(-z * z / 2) if family == "gaussian" else mpmath.exp(-abs(z))

        mix_l = [(q, -t), (1 - q, 0)]
        mix_r = [(q, t), (1 - q, 0)]
        upper, lower = {"remove": (mix_l, [(1, 0)]), "add": ([(1, 0)], mix_r),
                        "replace": (mix_l, mix_r)}[order]

        def loss(x):
            return (mpmath.log(sum(w * dens(x - c) for w, c in upper))
                    - mpmath.log(sum(w * dens(x - c) for w, c in lower)))

        lo, hi = mpmath.mpf(-60), mpmath.mpf(60)
        if loss(lo) <= eps:
            return 0.0
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if loss(mid) > eps else (lo, mid)
        x = (lo + hi) / 2
        value = (sum(w * cdf(x - c) for w, c in upper)
                 - mpmath.exp(eps) * sum(w * cdf(x - c) for w, c in lower))
        return float(value)


@pytest.mark.parametrize("family, scale, q, relation", [
    ("gaussian", 1.0, 1.0, "add-remove"), ("gaussian", 0.7, 0.1, "add-remove"),
    ("gaussian", 1.3, 0.3, "substitute"), ("laplace", 0.8, 1.0, "substitute"),
    ("laplace", 1.0, 0.2, "add-remove")])
def test_noise_pair_measures_bracket_the_exact_delta(family, scale, q, relation):
    pair = NoisePair(family, scale, q, relation)
    width = 1e-3
    up = pair.loss_pmfs(width, True, 1e-15)
    low = pair.loss_pmfs(width, False, 1e-15)
    for order, p_up, p_low in zip(pair.orders(), up, low, strict=True):
        for eps in (0.0, 0.05, 0.5, 1.5):
            exact = _noise_delta_exact(family, scale, q, order, eps)
            assert pld.delta_of(p_low, eps) <= exact <= pld.delta_of(p_up, eps), (order, eps)
            # a loss moved by at most one cell moves H by at most e^width - 1 < 2 width
            assert pld.delta_of(p_up, eps) - exact <= 2 * width
            assert exact - pld.delta_of(p_low, eps) <= 2 * width


def test_scipy_log_ndtr_is_as_accurate_as_assumed():
    from scipy import special

    from accountant.composition.noise import SPECIAL_RELATIVE

    for z in np.concatenate([np.linspace(0, 40, 81), [0.001, 1e-8, 37.5]]):
        exact = mpmath.log(mpmath.ncdf(-mpmath.mpf(float(z))))
        got = special.log_ndtr(-z)
        assert abs(got - exact) <= SPECIAL_RELATIVE / 10 * (1 + abs(exact))


# ------------------------------------------------------------------ one ledger
def test_noise_and_shuffle_rounds_compose_in_one_ledger():
    """The composition is at least each part (its upper end above each part's lower end)
    and at most basic composition: eps(delta) <= eps_1(delta/2) + eps_2(delta/2)."""
    shuffle = LDP(n=500, epsilon0=1.0)
    delta = 1e-6
    both = Accountant().compose(shuffle, 4).compose(GaussianNoise(6.0), 5).get_epsilon(delta)
    alone_s = Accountant().compose(shuffle, 4)
    alone_g = Accountant().compose(GaussianNoise(6.0), 5)
    assert both.upper.kind is Kind.UPPER and "[pld]" in both.upper.method
    assert both.upper.value >= alone_s.get_epsilon(delta).upper.value
    assert both.upper.value >= alone_g.get_epsilon(delta).lower.value
    assert both.upper.value <= (alone_s.get_epsilon(delta / 2).upper.value
                                + alone_g.get_epsilon(delta / 2).upper.value)


def test_brute_force_product_of_view_pairs():
    """Heterogeneous ViewPair events against the exact delta of the enumerated product."""
    parts = [(rr_pair(0.5), 3), (rr_pair(1.0), 2), (rr_pair(0.2), 1)]
    acc = Accountant()
    for view, count in parts:
        acc.compose(view, count)
    factors = [pair for pair, count in parts for _ in range(count)]
    for eps in (0.0, 0.7, 2.0):
        exact = mpmath.mpf(0)
        for outcome in itertools.product(*[range(2)] * len(factors)):
            p = mpmath.fprod(mpmath.exp(f.p[o]) for f, o in zip(factors, outcome, strict=True))
            q = mpmath.fprod(mpmath.exp(f.q[o]) for f, o in zip(factors, outcome, strict=True))
            exact += max(p - mpmath.exp(eps) * q, 0)
        bracket = acc.get_delta(eps, method="pld", discretization=1e-4)
        assert bracket.lower.value <= exact <= bracket.upper.value
        rdp = acc.get_delta(eps, method="rdp")
        assert rdp.upper.value >= exact


def test_kov_route_is_exact_for_identical_eps_delta_events():
    acc = Accountant().compose(EpsilonDelta(0.1, 1e-8), 20).compose(EpsilonDelta(0.1, 1e-8),
                                                                     10)
    bracket = acc.get_epsilon(1e-5)
    assert bracket.upper.kind is Kind.EXACT and "[kov]" in bracket.upper.method


def test_subsampled_shuffle_round_and_honest_routes():
    acc = Accountant().compose(Subsampled(LDP(n=1000, epsilon0=2.0), 0.05), 3)
    report = acc.report(delta=1e-6)
    assert report.bracket.upper.kind is Kind.UPPER and "[pld]" in report.bracket.upper.method
    # the ZW19 pipeline on replace-one curves: listed only when asked for, never chosen
    assert not report.heuristic
    listed = acc.report(delta=1e-6, method="rdp")
    assert listed.heuristic
    # lower end: one neighbouring pair's subsampled count (binary RR, a member of the class),
    # below the dominating pair's own lower end, which is listed apart
    lower = report.bracket.lower
    assert lower.kind is Kind.LOWER and "one neighbouring pair" in lower.method
    assert report.bracket.pair_lower is not None
    assert 0 < lower.value <= report.bracket.pair_lower.value <= report.bracket.upper.value
    rdp = [e for e in listed.entries if e["method"].startswith("rdp")]
    assert rdp and all(e["result"].kind is Kind.HEURISTIC for e in rdp)


def test_get_epsilon_builds_no_heuristic_curve_for_the_same_bracket():
    # the sampled round's RDP curve is ZW19 on a replace-one curve: heuristic whatever it
    # is, so get_epsilon (a bracket) and report with "all" skip it; method="rdp" lists it
    acc = Accountant().compose(Subsampled(LDP(n=1000, epsilon0=2.0), 0.05), 3)
    entry = acc._ledger[0]
    assert entry.heuristic_curve
    bracket = acc.get_epsilon(1e-6)
    report = acc.report(delta=1e-6)
    assert not entry._curve_done          # the curve was never built
    assert bracket.upper.value == report.bracket.upper.value
    assert bracket.lower.value == report.bracket.lower.value
    assert [e["skipped"] for e in report.entries if e["method"] == "rdp"][0].startswith(
        "its values would be heuristic")
    assert acc.get_delta(1.0).upper.value == acc.report(epsilon=1.0).bracket.upper.value
    listed = acc.report(delta=1e-6, method="rdp")
    assert entry._curve_done
    assert any(e["method"].startswith("rdp.") for e in listed.entries)
    # a certified curve (an RDP curve sampled under add/remove: ZW19's own relation) is
    # still computed for the bracket, and is its upper end
    plain = Accountant("add-remove").compose(
        Subsampled(RdpCurve.from_pure_dp(1.0, [2.0, 4.0, 8.0]), 0.1), 3)
    assert not plain._ledger[0].heuristic_curve
    bracket = plain.get_epsilon(1e-6)
    assert plain._ledger[0]._curve_done and "[rdp]" in bracket.upper.method
    # asked by name, the heuristic route answers
    named = acc.get_epsilon(1e-6, method="rdp")
    assert named.upper.kind is not Kind.HEURISTIC   # never a bracket end (trivial or other)


def test_events_without_a_certified_route_get_the_trivial_upper_end():
    # an RDP curve sampled under substitution: ZW19 on it is heuristic, and a curve says
    # nothing about an (eps, delta) class
    curve = RdpCurve.from_pure_dp(1.0, [2.0, 4.0, 8.0])
    acc = Accountant().compose(Subsampled(curve, 0.1), 3)
    bracket = acc.get_epsilon(1e-6)
    assert bracket.upper.value == math.inf and "trivial" in bracket.upper.method
    # an (eps, delta) event sampled under substitution is still a member of (eps, q delta)
    # (no amplification of eps): KOV's class value
    for d in (0.0, 1e-9):
        member = Accountant().compose(Subsampled(EpsilonDelta(1.0, d), 0.1), 3)
        assert member.get_epsilon(1e-6).upper.value == pytest.approx(kov.epsilon_kov(
            epsilon=1.0, delta=0.1 * d, rounds=3, delta_total=1e-6).upper_end(), rel=1e-12)
    # under add/remove the amplification theorem applies
    amplified = Accountant("add-remove").compose(Subsampled(EpsilonDelta(1.0), 0.1), 3)
    # (log(1 + q(e - 1)), 0)-DP three times: at most 3 eps' (plus the PLD grid's slack)
    assert amplified.get_epsilon(1e-6).upper.value <= 1.002 * 3 * math.log1p(0.1 * math.expm1(1))


def test_add_remove_shuffle_round_without_sampling_is_not_private():
    """Under add/remove the number of messages reveals presence: delta = 1 at every eps."""
    acc = Accountant("add-remove").compose(BinaryRR(n=50, epsilon0=1.0))
    assert acc.get_delta(1.0, method="pld").upper.value == 1.0


def test_unsupported_events_and_empty_ledgers_raise():
    with pytest.raises(ParameterError):
        Accountant().compose("binary-rr")
    with pytest.raises(ParameterError, match="SingleEpochTree|not supported"):
        Accountant().compose(dpa.SingleEpochTreeAggregationDpEvent(1.0, 3))
    with pytest.raises(ParameterError, match="empty"):
        Accountant().get_epsilon(1e-6)
    with pytest.raises(ParameterError):
        Accountant(neighboring="replace")
    with pytest.raises(ParameterError):
        Subsampled(LaplaceNoise(1.0), 0.0)


def test_dp_accounting_neighboring_relation_is_accepted():
    """dp_accounting's NeighboringRelation names the same relations as our strings; its
    REPLACE_SPECIAL has no counterpart and is refused in one line."""
    dp_accounting = pytest.importorskip("dp_accounting")
    rel = dp_accounting.NeighboringRelation
    assert Accountant(rel.ADD_OR_REMOVE_ONE).neighboring == "add-remove"
    assert Accountant(rel.REPLACE_ONE).neighboring == "substitute"
    with pytest.raises(ParameterError, match="REPLACE_SPECIAL"):
        Accountant(rel.REPLACE_SPECIAL)


@pytest.mark.parametrize("make", [
    lambda: LDP(n=10**6, epsilon0=0.44),
    lambda: BinaryRR(n=50, epsilon0=2.0),
    lambda: __import__("accountant.protocols.continuous", fromlist=["x"]).LaplaceRandomizer(
        n=10**6, scale=2.2606725145161044),
], ids=["ldp-1e6", "binary-rr-50", "laplace-1e6"])
def test_one_run_of_a_mechanism_is_its_own_bracket(make):
    """One unsampled run: the report is the mechanism's own certified bracket, and the
    composition routes are skipped (they discretise the same or a looser pair: at n = 1e6
    the PLD took 71 s for LDP's upper end, and the Laplace randomizer's RDP route answered
    0.44 against its own 0.0026). Two runs compose as before."""
    mech = make()
    own = mech.epsilon_for_delta(1e-12)
    report = Accountant().compose(mech, 1).report(delta=1e-12)
    assert report.bracket.upper.value == own.upper.value
    assert report.bracket.lower.value == own.lower.value
    skipped = {e["method"] for e in report.entries if "skipped" in e}
    assert {"pld", "rdp"} <= skipped
    own_d = mech.delta_for_epsilon(own.upper.value / 2)
    b = Accountant().compose(mech, 1).get_delta(own.upper.value / 2)
    assert b.upper.value == own_d.upper.value
    if isinstance(mech, BinaryRR):
        two = Accountant().compose(mech, 2).report(delta=1e-12)
        assert not any(e["method"].startswith("analytic.mechanism") for e in two.entries)
        # two runs are at least one; the mechanism is epsilon0-DP (randomized response),
        # so two runs are 2 epsilon0-DP: the truth, hence the lower end, is <= 4
        assert own.lower.value <= two.bracket.upper.value
        assert two.bracket.lower.value <= 2 * 2.0


@pytest.mark.parametrize("family, scale, q, relation", [
    ("laplace", 1.0, 1.0, "add-remove"), ("laplace", 0.8, 1.0, "substitute")])
def test_pieces_left_uncut_stay_on_their_side(family, scale, q, relation, monkeypatch):
    # the cuts of a piece that spans more than one cell stop at noise._MAX_PIECES (where
    # the loss's margin is about the width, four rounds of 64 cuts made 9e7 pieces and
    # 24 GiB); with no cuts at all, the uncut pieces are rounded up (their mass moved) and
    # both connect-the-dots readings still bracket the exact delta
    from accountant.composition import noise

    monkeypatch.setattr(noise, "_MAX_PIECES", -10**12)   # below any count: no cuts
    pair = NoisePair(family, scale, q, relation)
    measures = pair.loss_pmfs(1e-3, True, 1e-15, connect=True)
    assert max(m.moved for m in measures) > 1e-6      # some pieces were left wide
    for order, m in zip(pair.orders(), measures, strict=True):
        for eps in (0.0, 0.05, 0.5, 1.5):
            exact = _noise_delta_exact(family, scale, q, order, eps)
            assert pld.lower_delta_of(m, eps) <= exact <= pld.delta_of(m, eps), (order, eps)
