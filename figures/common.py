"""What every figure script shares: CSV writing, a non-interactive plot style and the tail
that writes a figure's PNG (legend and caption laid out) beside its CSV; its spec
(figures.figure_spec) and progress bars (figures.progress) are re-exported."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # figures are files; no display on CI machines
import matplotlib.pyplot as plt  # noqa: E402

from figures.figure_spec import FigureSpec  # noqa: E402
from figures.progress import set_progress, track  # noqa: E402

__all__ = ["FigureSpec", "FigureFiles", "Drawing", "write_csv", "read_csv", "new_figure",
           "save_figure", "track", "set_progress", "legend_and_caption"]


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


def save_figure(fig: Any, path: Path, *, layout: bool = True) -> Path:
    """Lay out, save as PNG (120 dpi) and close a figure.

    Args:
        fig: a matplotlib figure.
        path: the PNG path (parents are created).
        layout: apply tight_layout (False when the caller laid out room for a caption or a
            figure legend).

    Returns:
        path.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if layout:
        fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def legend_and_caption(fig: Any, axes: Sequence[Any], caption: str = "", *,
                       fontsize: float = 7) -> None:
    """One legend for all panels below them and a caption above them, laid out so that
    neither hides data nor is cut off (call save_figure(..., layout=False) afterwards).

    Args:
        fig: the figure.
        axes: its panels; the legend collects every distinct label of all of them.
        caption: text written above the panels (wrapped to the figure's width).
        fontsize: of the legend and the caption.
    """
    import textwrap

    seen: dict[str, Any] = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, h)
    width, height = fig.get_figwidth(), fig.get_figheight()
    ncol = max(1, min(len(seen), max(2, int(width // 2.6))))
    rows = -(-len(seen) // ncol) if seen else 0
    legend_h = (rows * 0.19 + 0.1) / height if rows else 0.0
    lines = textwrap.wrap(caption, int(width * 16 * 7 / fontsize)) if caption else []
    caption_h = (len(lines) * 0.15 + 0.08) / height if lines else 0.0
    if seen:
        fig.legend(list(seen.values()), list(seen), loc="lower center", ncol=ncol,
                   fontsize=fontsize, frameon=False)
    if lines:
        fig.text(0.5, 0.995, "\n".join(lines), ha="center", va="top", fontsize=fontsize)
    fig.tight_layout(rect=(0, legend_h, 1, 1 - caption_h))


@dataclass(frozen=True)
class Drawing:
    """A drawn figure waiting for its legend, its caption and its file.

    Attributes:
        fig: the matplotlib figure.
        axes: the panels whose labels go into the one legend (the visible ones).
        caption: the text written above the panels.
    """

    fig: Any
    axes: Sequence[Any]
    caption: str


@dataclass(frozen=True)
class FigureFiles:
    """The two files every figure writes, its PNG and the CSV of the drawn data under one
    stem, with a sentence each on what to see in them (for index.md).

    Attributes:
        stem: the file name without its extension, shared by the PNG and the CSV.
        see_png: what to see in the PNG.
        see_csv: what the CSV holds.
    """

    stem: str
    see_png: str
    see_csv: str

    @property
    def see(self) -> tuple[tuple[str, str], ...]:
        """(file name, sentence) pairs of both files, as FigureSpec.see takes them."""
        return ((f"{self.stem}.png", self.see_png), (f"{self.stem}.csv", self.see_csv))

    def write(self, out_dir: Path, drawing: Drawing, *, header: Sequence[str],
              rows: Sequence[Mapping[str, Any]], comments: Sequence[str] = ()) -> list[Path]:
        """The tail of every figure: the rows as out_dir/stem.csv and the drawing, with one
        legend below its panels and its caption above them, as out_dir/stem.png.

        Args:
            out_dir: the output directory (created).
            drawing: the figure, its panels and its caption.
            header: the CSV's columns, keys of every row, in order.
            rows: one mapping per point.
            comments: the CSV's "# ..." lines (see write_csv).

        Returns:
            [the PNG's path, the CSV's path].
        """
        csv_path = write_csv(out_dir / f"{self.stem}.csv", header,
                             [[row[h] for h in header] for row in rows], comments)
        legend_and_caption(drawing.fig, drawing.axes, drawing.caption)
        png = save_figure(drawing.fig, out_dir / f"{self.stem}.png", layout=False)
        return [png, csv_path]


def read_csv(path: Path) -> list[dict[str, str]]:
    """Rows of a CSV written by `write_csv`, as dicts (comment lines skipped)."""
    with path.open(newline="") as fh:
        return list(csv.DictReader(line for line in fh if not line.startswith("#")))
