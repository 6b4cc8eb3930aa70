"""The library behind the command line's bad-input sweep: extreme but well-typed arguments
raise the library's own errors (ParameterError, RegimeError, PrecisionError naming the
parameter and its range or the theorem's condition), never ZeroDivisionError,
OverflowError, AssertionError, NaN or a RuntimeWarning; and the values at ordinary
arguments are unchanged."""

from __future__ import annotations

import math
import time
import warnings

import pytest

from accountant.errors import ParameterError, RegimeError
from accountant.result import Kind


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


# ------------------------------------------------------------------ Balcer-Cheu 2020
@pytest.mark.parametrize("epsilon", [1e-300, 1e-160, 5e-324])
def test_bc20_paper_p_at_underflowing_epsilon_is_a_regime_error(epsilon):
    from accountant.bounds import balcer_cheu_2020

    with pytest.raises(RegimeError, match=r"need n >= 10\^"):
        balcer_cheu_2020.paper_p(epsilon=epsilon, delta=1e-6, n=1000)


def test_bc20_paper_p_at_ordinary_epsilon_is_the_papers_formula():
    from accountant.bounds import balcer_cheu_2020

    ld = math.log(2.0) - math.log(1e-6)
    assert balcer_cheu_2020.paper_p(epsilon=1.0, delta=1e-6, n=100_000) == \
        1.0 - 50.0 * ld / (1.0 * 1.0 * 100_000)
    with pytest.raises(RegimeError, match=r"need n >= 1451\)"):
        balcer_cheu_2020.paper_p(epsilon=1.0, delta=1e-6, n=1000)


@pytest.mark.parametrize("protocol", ["zsum", "hist"])
def test_bc_parameters_at_tiny_epsilon_are_regime_errors(protocol):
    from accountant.protocols.balcer_cheu import hist_parameters, zsum_parameters

    with pytest.raises(RegimeError, match="paper_p needs n >= "):
        if protocol == "zsum":
            zsum_parameters(n=1000, epsilon=1e-300, delta=1e-6)
        else:
            hist_parameters(n=1000, d=3, epsilon=1e-300, delta=1e-6)


# ------------------------------------------------------------------ GGKPV
@pytest.mark.parametrize("rho", [89, 691, 10**6])
def test_ggkpv_pure_and_renyi_are_exact_inf_whatever_rho(rho):
    from accountant.protocols.ggkpv import GGKPVHadamard, ggkpv_parameters

    m = GGKPVHadamard(ggkpv_parameters(n=100, B=7, rho=rho))
    start = time.perf_counter()
    for b in [m.max_divergence(), *m.renyi([2.0, 1e6])]:
        assert b.upper.kind is Kind.EXACT and b.upper.value == math.inf
    assert time.perf_counter() - start < 5


def test_ggkpv_event_pair_keeps_the_zero_probability_point_below_the_float_range():
    from accountant.protocols.ggkpv import ggkpv_parameters
    from accountant.protocols.ggkpv.views import event_pair

    pair = event_pair(ggkpv_parameters(n=100, B=7, rho=10**6))  # c = e^-781250
    assert pair.grid_exact and math.isfinite(float(pair.p[0])) and pair.p[0] < -7e5


def test_ggkpv_rule_rho_at_epsilon_delta_set_by_the_cli_is_691():
    from accountant.protocols.ggkpv import GGKPVHadamard, ggkpv_parameters

    p = ggkpv_parameters(n=100, B=7, epsilon=1.0, delta=1e-300)
    assert p.rho == 691
    assert GGKPVHadamard(p).max_divergence().upper.value == math.inf


@pytest.mark.parametrize("epsilon", [1e-300, 1e-10, 5e-324])
def test_ggkpv_rule_rho_beyond_the_float_counts_is_a_parameter_error(epsilon):
    from accountant.protocols.ggkpv import ggkpv_parameters

    with pytest.raises(ParameterError, match=r"epsilon=.* set rho = .*outside \[1, "):
        ggkpv_parameters(n=100, B=7, epsilon=epsilon, delta=1e-6)


def test_ggkpv_rule_at_huge_epsilon_or_subnormal_delta_is_finite():
    from accountant.protocols.ggkpv import ggkpv_parameters, slides_rho

    assert ggkpv_parameters(n=100, B=7, epsilon=1e300, delta=1e-6).rho == 1
    assert slides_rho(1.0, 5e-324) == pytest.approx(744.44, abs=0.01)
    assert ggkpv_parameters(n=100, B=7, epsilon=1.0, delta=5e-324).rho == 745


def test_ggkpv_given_rho_beyond_the_float_counts_is_a_parameter_error():
    from accountant.protocols.ggkpv import ggkpv_parameters
    from accountant.protocols.ggkpv.views import max_rho

    top = max_rho(100)
    assert 100 * top + 100 <= 2**53 < 100 * (top + 1) + 100
    assert ggkpv_parameters(n=100, B=7, rho=top).rho == top
    with pytest.raises(ParameterError, match=r"rho=.* is outside \[1, 90071992547408\]"):
        ggkpv_parameters(n=100, B=7, rho=top + 1)


def test_ggkpv_views_too_large_for_memory_are_refused_at_once_with_the_rho_that_fits():
    from accountant.protocols.ggkpv import GGKPVHadamard, ggkpv_parameters
    from accountant.protocols.ggkpv.views import check_view_size

    m = GGKPVHadamard(ggkpv_parameters(n=100, B=7, rho=10**6))  # 4e8 points, ~50 GB
    start = time.perf_counter()
    with pytest.raises(ParameterError, match=r"rho=1000000 is too large .* rho <= (\d+) fits"):
        m.epsilon_for_delta(1e-6)
    with pytest.raises(ParameterError, match=r"rho=1000000 is too large"):
        m.dominating_pair()
    assert time.perf_counter() - start < 5
    fits = int(str(pytest.raises(ParameterError, check_view_size, m.parameters).value)
               .split("rho <= ")[1].split()[0])
    check_view_size(ggkpv_parameters(n=100, B=7, rho=fits))
    with pytest.raises(ParameterError):
        check_view_size(ggkpv_parameters(n=100, B=7, rho=fits + 1))


def test_ggkpv_calibration_budget_at_subnormal_delta_is_not_one():
    from accountant.protocols.ggkpv import ggkpv_parameters
    from accountant.protocols.ggkpv.calibration import largest_rho

    base = ggkpv_parameters(n=64, B=7, rho=1)
    assert largest_rho(base, 5e-324) > 100  # 1/delta overflowed: the budget was rho <= 1


# ------------------------------------------------------------------ composition
@pytest.mark.parametrize("scale", [1e-300, 1e-10, 0.009, 0.0])
@pytest.mark.parametrize("family", ["GaussianNoise", "LaplaceNoise"])
def test_noise_multiplier_below_its_declared_domain_is_a_parameter_error(family, scale):
    from accountant.composition import interop
    from accountant.composition.noise import NoisePair

    with pytest.raises(ParameterError, match=r"noise_multiplier=.* is outside \[0.01, inf\)"):
        getattr(interop, family)(scale)
    with pytest.raises(ParameterError, match=r"scale=.* is outside \[0.01, inf\)"):
        NoisePair("gaussian" if family == "GaussianNoise" else "laplace", scale)


def test_noise_multiplier_at_the_domain_edge_composes_analytically():
    from accountant.composition import Accountant
    from accountant.composition.interop import GaussianNoise
    from accountant.composition.noise import gaussian_epsilon

    b = Accountant().compose(GaussianNoise(0.01), 10).get_epsilon(1e-6, method="analytic")
    # substitute: mu = 2 / 0.01 per round, sqrt(10) rounds
    assert float(b.upper) >= gaussian_epsilon(200.0 * math.sqrt(10.0), 1e-6)[0] > 2e5


def _cli(argv, capsys):
    from accountant.cli.main import main

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, [ln for ln in err.splitlines() if ln.strip()], caught


def test_compose_analytic_with_a_non_gaussian_mechanism_exits_2(capsys):
    code, _, err, _ = _cli(["compose", "--mechanism", "ldp --n 100 --epsilon0 1", "--rounds",
                            "10", "--method", "analytic", "--at-delta", "1e-6"], capsys)
    assert code == 2 and len(err) == 1 and "--method analytic does not apply" in err[0]
    assert "Gaussian" in err[0]
    code, out, err, _ = _cli(["compose", "--mechanism", "gaussian --noise-multiplier 2",
                              "--rounds", "10", "--method", "analytic", "--at-delta", "1e-6",
                              "--json"], capsys)
    assert code == 0 and not err


@pytest.mark.parametrize("scale", ["1e-300", "1e-10"])
def test_compose_tiny_noise_multiplier_is_one_line(capsys, scale):
    code, _, err, caught = _cli(["compose", "--mechanism", f"gaussian --noise-multiplier {scale}",
                                 "--rounds", "10", "--at-delta", "1e-6"], capsys)
    assert code == 2 and len(err) == 1 and "noise_multiplier" in err[0] and not caught


# ------------------------------------------------------------------ figures' --out, --only
@pytest.fixture
def afile(tmp_path):
    f = tmp_path / "afile.json"
    f.write_text("{}")
    return f


def test_audit_out_refuses_empty_directory_and_below_a_file(capsys, tmp_path, afile):
    for out, words in [("", "is empty"), (str(tmp_path), "is a directory"),
                       (str(afile / "x.md"), "is a file, not a directory")]:
        start = time.perf_counter()
        code, _, err, _ = _cli(["audit", "gkm", "--quick", "--out", out], capsys)
        assert code == 2 and len(err) == 1 and "--out=" in err[0] and words in err[0], err
        assert time.perf_counter() - start < 2  # refused before the audit runs


def test_audit_out_creates_missing_parent_directories(capsys, tmp_path):
    target = tmp_path / "new" / "dir" / "audit.md"
    code, _, _, _ = _cli(["audit", "gkm", "--quick", "--out", str(target), "--json"], capsys)
    assert code == 0 and target.read_text().startswith("# Audit")


@pytest.mark.parametrize("flags", [["--only", "abc"], ["--only", ""], ["--only", ","],
                                   ["--out", ""], ["--out", "{afile}"],
                                   ["--out", "{afile}/below"]])
def test_reproduce_list_checks_only_and_out(capsys, afile, flags):
    argv = ["reproduce", "--list", *[f.format(afile=afile) for f in flags]]
    code, _, err, _ = _cli(argv, capsys)
    assert code == 2 and len(err) == 1 and flags[0] in err[0], err


def test_reproduce_list_with_only_lists_those(capsys):
    import json

    code, out, _, _ = _cli(["reproduce", "--list", "--only", "gkm,audit", "--json"], capsys)
    assert code == 0 and [r["name"] for r in json.loads(out)["figures"]] == ["gkm", "audit"]


# ------------------------------------------------------------------ tiny epsilon0, tiny p
@pytest.mark.parametrize("epsilon0", [1e-300, 1e-17, 5e-324])
def test_ldp_at_tiny_epsilon0_answers_without_warnings(epsilon0):
    from accountant import LDP

    b = LDP(n=100, epsilon0=epsilon0).epsilon_for_delta(1e-6)
    assert 0.0 <= float(b.upper) <= 1e-12  # epsilon(delta) <= epsilon0-ish, never NaN


def test_clones_terms_at_equal_float_weights_have_no_positive_part():
    import numpy as np

    from accountant.pairs.clones import fmt_clones, hockey_stick_terms

    pair = fmt_clones(n=100, epsilon0=1e-300)  # w = w' = 1/2 in float
    lower, upper = hockey_stick_terms(pair, np.arange(0, 100), 1.0 + 1e-9)
    assert np.all(np.isfinite(upper)) and np.all(upper <= 1e-12) and np.all(lower == 0)


@pytest.mark.parametrize("epsilon0", [1e-300, 1e-17, 5e-324])
@pytest.mark.parametrize("alpha", [2, 3, 2.5])
def test_girgis_refined_at_tiny_epsilon0_is_a_tiny_positive_upper_bound(epsilon0, alpha):
    from accountant.bounds import girgis_2021

    r = girgis_2021.rdp_upper_refined(alpha=alpha, epsilon0=epsilon0, n=10000)
    assert r.kind is Kind.UPPER and 0 < float(r) <= 1e-30


def test_girgis_refined_keeps_its_second_order_term_below_thm1():
    from accountant.bounds import girgis_2021

    # the single-user excess B1 - 1 ~ eps^2 (alpha = 2) was log(0) = -inf below eps ~ 1e-30
    refined = girgis_2021.rdp_upper_refined(alpha=2, epsilon0=1e-100, n=10000)
    thm1 = girgis_2021.rdp_upper_thm1(alpha=2, epsilon0=1e-100, n=10000)
    assert 1e-215 < float(refined) <= float(thm1)


def test_bc_hist_pld_at_tiny_p_has_no_nan_error_term():
    from accountant.protocols.balcer_cheu import hist_parameters
    from accountant.protocols.balcer_cheu.views import hist_delta_pld

    r = hist_delta_pld(hist_parameters(n=10000, d=3, p=1e-300), 1.0)
    assert r.kind is Kind.UPPER and float(r) <= 1.0 + 1e-9 and r.error_budget == r.error_budget
