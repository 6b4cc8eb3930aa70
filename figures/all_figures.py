"""The table of every reproduced figure: one static import per `figures/fig_*.py` module.

`reproduce` runs, lists and checks `--only` against this table and nothing else (a figure
module missing here is not run; tests/figures/test_reproduce_cli.py checks that every
fig_*.py is listed). Importing it imports every figure's dependencies (matplotlib, the
protocols, the samplers), so the command line imports it only when a figure is listed or run.
"""

from __future__ import annotations

from figures import (
    fig_balcer_cheu_2020,
    fig_balcer_cheu_table1,
    fig_balcer_cheu_table2,
    fig_ggkpv,
    fig_girgis_2021_2,
    fig_girgis_2021_3,
    fig_girgis_2021_4,
    fig_girgis_2021_5,
    fig_gkm,
)
from figures.figure_spec import FigureSpec

__all__ = ["FIGURES"]

FIGURES: tuple[FigureSpec, ...] = (
    fig_balcer_cheu_2020.FIGURE,
    fig_balcer_cheu_table1.FIGURE,
    fig_balcer_cheu_table2.FIGURE,
    fig_ggkpv.FIGURE,
    fig_girgis_2021_2.FIGURE,
    fig_girgis_2021_3.FIGURE,
    fig_girgis_2021_4.FIGURE,
    fig_girgis_2021_5.FIGURE,
    fig_gkm.FIGURE,
)
