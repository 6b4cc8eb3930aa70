"""Balcer-Cheu Table 2 figure: rows against direct library calls, the simulated PC success
against the exact one, and a caption regenerated from the rows."""

from __future__ import annotations

import math
import re

import pytest

from accountant.protocols.balcer_cheu import least_n_central, least_n_for_support
from figures import fig_balcer_cheu_table2 as table2


@pytest.fixture(scope="module")
def rows():
    return table2.compute(hs=(2, 4), ells=(3, 10**5), trials=400)


def test_pc_rows_are_flat_in_l_and_match_the_library(rows):
    pc = [r for r in rows if r["parameter"] == "l"]
    assert {r["shuffled_least_n"] for r in pc} == {least_n_for_support(epsilon=1.0,
                                                                       delta=1e-6, h=2)}
    assert {r["central_least_n"] for r in pc} == {least_n_central(epsilon=1.0, delta=1e-6,
                                                                  h=2)}


def test_simulated_pc_success_agrees_with_the_exact_one(rows):
    # 400 runs at success ~0.99: sd ~0.005; 5 sd is a false-alarm rate below 1e-6
    sim = next(r for r in rows if r["simulated_trials"])
    sd = math.sqrt(sim["exact_success"] * (1 - sim["exact_success"]) / sim["simulated_trials"])
    assert abs(sim["simulated_success"] - sim["exact_success"]) <= 5 * sd + 1e-12


def test_findings_quote_the_rows(rows):
    text = table2.findings(rows)
    pc = [r for r in rows if r["parameter"] == "l"]
    assert f"shuffled least n is {pc[0]['shuffled_least_n']:g} at every l" in text
    ratios = [r["shuffled_least_n"] / r["central_least_n"] for r in rows]
    assert f"{min(ratios):.3g}-{max(ratios):.3g}" in text
    crossing = [r for r in pc if r["local_reference"] > r["shuffled_least_n"]]
    assert (f"exceeds it from l = {crossing[0]['value']:g}" in text) if crossing else (
        "stays below" in text)


def test_index_sentences_hold_no_hand_written_number():
    for _, sentence in table2.FILES.see:
        assert not re.search(r"\d", sentence), sentence
