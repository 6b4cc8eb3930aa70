"""Full (non-quick) run of every figure through the reproduce command: all succeed and the
full grids' orderings hold. Slow (about a minute): run with `pytest -m slow`."""

from __future__ import annotations

import math

import pytest

from figures.common import read_csv
from figures.reproduce import reproduce


@pytest.mark.slow
def test_full_reproduce_succeeds_and_keeps_orderings(tmp_path):
    index = reproduce(tmp_path, quick=False)
    assert [e["status"] for e in index["figures"]] == ["ok"] * len(index["figures"])
    for r in read_csv(tmp_path / "girgis_2021_fig3.csv"):
        lower = float(r["binary_rr_lower"])
        for key in ("thm1_cks", "refined_cks", "fmt_closed_form", "fmt_clones_numeric"):
            value = float(r[key])
            if not math.isnan(value) and not math.isnan(lower):
                assert lower <= value, (key, r)
    for r in read_csv(tmp_path / "girgis_2021_fig4.csv"):
        assert float(r["refined_rdp"]) <= float(r["thm1_rdp"])
    for r in read_csv(tmp_path / "girgis_2021_fig2.csv"):
        lower = max(float(r["thm3_lower"]), float(r["reverse_lower"]))
        assert lower <= float(r["refined_upper"]) <= float(r["thm1_upper"])
