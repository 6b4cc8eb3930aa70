"""The spec of one reproduced figure or table: what `reproduce` runs, lists and links in
index.md. Kept apart from figures.common so that building the command line does not import
matplotlib."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FigureSpec"]


@dataclass(frozen=True)
class FigureSpec:
    """One reproduced figure or table.

    Attributes:
        name: short id used by `reproduce --only`, e.g. "girgis-fig2".
        paper: the seed paper, e.g. "Girgis et al., CCS 2021".
        what: one line saying what is plotted and from which statements.
        run: (output directory, quick) -> files written (PNG and CSV); quick trims the grid
            so that CI can afford it, never the method.
        see: (file name, one sentence on what to see in it) pairs, for index.md.
    """

    name: str
    paper: str
    what: str
    run: Callable[[Path, bool], list[Path]]
    see: tuple[tuple[str, str], ...] = ()
