"""What every figure script shares: its spec, CSV writing, and a non-interactive plot style."""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # figures are files; no display on CI machines
import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["FigureSpec", "write_csv", "read_csv", "new_figure", "save_figure"]


@dataclass(frozen=True)
class FigureSpec:
    """One reproduced figure or table.

    Attributes:
        name: short id used by `reproduce --only`, e.g. "girgis-fig2".
        paper: the seed paper, e.g. "Girgis et al., CCS 2021".
        what: one line saying what is plotted and from which statements.
        run: (output directory, quick) -> files written (PNG and CSV); quick trims the grid
            so that CI can afford it, never the method.
    """

    name: str
    paper: str
    what: str
    run: Callable[[Path, bool], list[Path]]


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]],
              comments: Sequence[str] = ()) -> Path:
    """Write rows under a header; floats with full precision (repr).

    `comments` are written first, one "# ..." line each (parameter choices, sources, which
    columns are bounds of which kind); `read_csv` skips them.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        for line in comments:
            fh.write(f"# {line}\n")
        w = csv.writer(fh)
        w.writerow(header)
        for row in rows:
            w.writerow([repr(x) if isinstance(x, float) else x for x in row])
    return path


def new_figure(ncols: int = 1, *, width: float = 5.0, height: float = 3.6, nrows: int = 1):
    """A figure with nrows x ncols panels; the axes come back as one flat list, row-major."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                             squeeze=False)
    return fig, [ax for row in axes for ax in row]


def save_figure(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def read_csv(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV written by `write_csv`, as dicts (comment lines skipped)."""
    with path.open(newline="") as fh:
        return list(csv.DictReader(line for line in fh if not line.startswith("#")))
