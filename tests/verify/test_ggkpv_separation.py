"""The GGKPV separation experiment (verify/ggkpv_separation.py) and its figure."""

from __future__ import annotations

import pytest

from verify.ggkpv_separation import HEADER, dataset, run_separation


def test_dataset_uses_every_value() -> None:
    xs = dataset(100, 7)
    assert xs.size == 100 and (xs == 1).sum() == 50 and set(xs.tolist()) == set(range(1, 8))


@pytest.mark.slow
def test_separation_rows_are_certified_and_single_message_error_grows() -> None:
    rows = run_separation(ns=(1000,), Bs=(7, 127), trials=20, seed=3)
    assert len(rows) == 6 and all(set(HEADER) <= set(r) for r in rows)
    assert all(r["certified_epsilon"] <= 1.0 for r in rows)
    by = {(r["protocol"], r["B"]): r for r in rows}
    krr_growth = by[("k-rr", 127)]["max_error_mean"] / by[("k-rr", 7)]["max_error_mean"]
    multi = [by[("multi-message hadamard", b)]["max_error_mean"] for b in (7, 127)]
    multi_growth = multi[1] / multi[0]
    assert krr_growth > multi_growth  # single-message error grows faster with B
    assert by[("multi-message hadamard", 7)]["messages_per_user"] > 1
    assert by[("unary encoding", 127)]["bits_per_user"] == 127


@pytest.mark.slow
def test_figure_quick_mode_writes_png_and_csv(tmp_path) -> None:
    from figures.common import read_csv
    from figures.fig_ggkpv import FIGURE

    files = FIGURE.run(tmp_path, True)
    assert {f.suffix for f in files} == {".png", ".csv"}
    rows = read_csv(next(f for f in files if f.suffix == ".csv"))
    assert {r["protocol"] for r in rows} == {"multi-message hadamard", "k-rr", "unary encoding"}
