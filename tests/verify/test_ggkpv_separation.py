"""The GGKPV separation experiment (verify/ggkpv_separation.py) and its figure."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.ggkpv_separation import (
    HEADER,
    PROTOCOLS,
    dataset,
    estimator_variances,
    expected_max_abs_normal,
    run_separation,
)
from verify.samplers import ggkpv as g


def test_dataset_uses_every_value() -> None:
    xs = dataset(100, 7)
    assert xs.size == 100 and (xs == 1).sum() == 50 and set(xs.tolist()) == set(range(1, 8))


@pytest.mark.parametrize("protocol, parameter", [("multi-message hadamard", 44),
                                                 ("k-rr", 2.5), ("unary encoding", 2.5)])
def test_estimator_variances_match_simulation(protocol: str, parameter: float) -> None:
    # The closed forms against the samplers: the mean squared error over all values, and on
    # the heavy value alone (where k-RR's variance has its f_x p (1 - p) term), each within
    # 3 standard errors over 400 seeded trials.
    n, B, trials = 200, 15, 400
    rng = np.random.default_rng(11)
    xs = dataset(n, B)
    f = g.true_frequencies(xs, B)
    errs = np.empty((trials, B))
    for t in range(trials):
        if protocol == "multi-message hadamard":
            m = g.shuffled_hadamard_messages(xs, B=B, tau=g.default_tau(n), rho=parameter,
                                             rng=rng)
            est = g.shuffled_hadamard_estimate(m, n=n, B=B, rho=parameter)
        elif protocol == "k-rr":
            est = g.krr_estimate(g.krr_randomizer(xs, epsilon0=parameter, B=B, rng=rng),
                                 epsilon0=parameter, B=B)
        else:
            est = g.unary_estimate(g.unary_randomizer(xs, epsilon0=parameter, B=B, rng=rng),
                                   epsilon0=parameter)
        errs[t] = est - f
    var = estimator_variances(protocol, f, n=n, B=B, parameter=parameter)
    for sq, v in ((np.mean(errs ** 2, axis=1), var.mean()), (errs[:, 0] ** 2, var[0])):
        assert abs(sq.mean() - v) <= 3 * sq.std(ddof=1) / math.sqrt(trials), (sq.mean(), v)
    if protocol == "k-rr":  # the heavy value's variance differs from a light value's
        assert var[0] > 1.5 * var[1]


def test_expected_max_abs_normal() -> None:
    assert expected_max_abs_normal([2.0]) == pytest.approx(2.0 * math.sqrt(2 / math.pi),
                                                           rel=1e-9)
    rng = np.random.default_rng(5)
    for sds in (np.full(127, 6.6), np.r_[25.0, np.full(30, 7.0)]):
        mx = np.max(np.abs(rng.normal(size=(20000, sds.size)) * sds), axis=1)
        assert abs(expected_max_abs_normal(sds) - mx.mean()) <= 3 * mx.std() / math.sqrt(
            mx.size)
    one = expected_max_abs_normal(np.ones(7))
    assert one < expected_max_abs_normal(np.ones(127)) < 1.1 * one * math.sqrt(
        math.log(127) / math.log(7))  # grows like sqrt(log B), not like sqrt(B)


@pytest.fixture(scope="module")
def separation() -> dict[tuple[str, int], dict]:
    rows = run_separation(ns=(250,), Bs=(7, 127), trials=40, seed=3)
    assert len(rows) == 6 and all(set(HEADER) <= set(r) for r in rows)
    return {(r["protocol"], r["B"]): r for r in rows}


def _diff_se(a: dict, b: dict, key: str) -> float:
    return math.hypot(a[key + "_se"], b[key + "_se"])


def test_separation_rows_are_certified(separation) -> None:
    assert all(r["certified_epsilon"] <= 1.0 for r in separation.values())
    multi = [separation[("multi-message hadamard", b)] for b in (7, 127)]
    assert multi[0]["parameter_value"] == multi[1]["parameter_value"]  # rho does not grow
    assert multi[0]["messages_per_user"] > 1
    assert separation[("unary encoding", 127)]["bits_per_user"] == 127
    for r in separation.values():  # the simulation agrees with the closed forms
        assert abs(r["rms_error"] - r["rms_error_theory"]) <= 3 * r["rms_error_se"], r


def test_per_value_error_is_flat_in_B_except_k_rr_on_the_heavy_value(separation) -> None:
    s = separation
    for protocol in PROTOCOLS:  # per-value RMS error: no growth from B = 7 to 127
        a, b = s[(protocol, 7)], s[(protocol, 127)]
        assert b["rms_error"] - a["rms_error"] <= 3 * _diff_se(a, b, "rms_error"), protocol
    for protocol in ("multi-message hadamard", "unary encoding"):  # flat: both directions
        a, b = s[(protocol, 7)], s[(protocol, 127)]
        assert abs(b["rms_error"] - a["rms_error"]) <= 3 * _diff_se(a, b, "rms_error")
        assert b["rms_error_theory"] == pytest.approx(a["rms_error_theory"], rel=0.01)
    # k-RR's error on the heavy value grows with B, significantly, by about 2x here
    a, b = s[("k-rr", 7)], s[("k-rr", 127)]
    growth = b["heavy_value_rms_error"] - a["heavy_value_rms_error"]
    assert growth > 3 * _diff_se(a, b, "heavy_value_rms_error")
    assert b["heavy_value_rms_error"] > 1.5 * a["heavy_value_rms_error"]
    assert b["heavy_value_sd_theory"] > 2 * a["heavy_value_sd_theory"]


def test_multi_message_max_error_grows_only_as_a_maximum_of_B_estimates(separation) -> None:
    s = separation
    multi = [s[("multi-message hadamard", b)] for b in (7, 127)]
    for r in multi:  # the max of B nearly independent, nearly normal errors
        se = r["max_error_sd"] / math.sqrt(r["trials"])
        assert abs(r["max_error_mean"] - r["max_error_indep_normal"]) <= 3 * se
    growth = multi[1]["max_error_mean"] / multi[0]["max_error_mean"]
    assert growth < 0.5 * math.sqrt(127 / 7)  # far below sqrt(B) growth
    krr = [s[("k-rr", b)] for b in (7, 127)]
    assert krr[1]["max_error_mean"] / krr[0]["max_error_mean"] > growth
    assert (krr[1]["max_error_indep_normal"] / krr[0]["max_error_indep_normal"]
            > multi[1]["max_error_indep_normal"] / multi[0]["max_error_indep_normal"])


@pytest.mark.slow
def test_figure_quick_mode_writes_png_and_csv(tmp_path) -> None:
    from figures.common import read_csv
    from figures.fig_ggkpv import FIGURE

    files = FIGURE.run(tmp_path, True)
    assert {f.suffix for f in files} == {".png", ".csv"}
    rows = read_csv(next(f for f in files if f.suffix == ".csv"))
    assert {r["protocol"] for r in rows} == set(PROTOCOLS)
    assert list(rows[0]) == HEADER
