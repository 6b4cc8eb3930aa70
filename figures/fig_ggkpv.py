"""GGKPV: single- vs multi-message frequency estimation at one certified (epsilon, delta).

Runs `verify.ggkpv_separation.run_separation` (docs/ggkpv.md): for each n and B, the
multi-message Hadamard response with the least certified rho, and k-RR and unary encoding
with the largest certified epsilon0, all at epsilon = 1, delta = 1e-6; seeded. Left panel:
the maximum count error over all B values (mean over trials) against B; right panel:
bits per user. The CSV also has messages per user and the analyzer's query time per value.
Every privacy parameter is a certified upper bound; the errors are simulated. Grid (ours):
n in {1000, 4000}, B in {7, 31, 127}, 10 trials; quick: n = 1000, B in {7, 127}, 3 trials.
"""

from __future__ import annotations

from pathlib import Path

from figures.common import FigureSpec, new_figure, save_figure, write_csv
from verify.ggkpv_separation import HEADER, run_separation

__all__ = ["FIGURE", "run"]


def run(out_dir: Path, quick: bool) -> list[Path]:
    """Write ggkpv_separation.csv and .png.

    Args:
        out_dir: output directory.
        quick: trim the grid (n = 1000, B in {7, 127}, 3 trials), never the method.

    Returns:
        The files written.
    """
    kw = dict(ns=(1000,), Bs=(7, 127), trials=3) if quick else {}
    rows = run_separation(**kw)
    csv_path = write_csv(
        out_dir / "ggkpv_separation.csv", HEADER, [[r[h] for h in HEADER] for r in rows],
        ["GGKPV separation: max count error over all B values at one certified "
         "(epsilon, delta); rho = least certified (protocols.ggkpv.calibrate), epsilon0 = "
         "largest certified (k-RR: blanket pair; unary encoding: clones pair)",
         "certified_epsilon is an upper bound; errors are simulated (seeded); grid ours"])
    fig, (ax_err, ax_bits) = new_figure(2)
    for protocol, marker in (("multi-message hadamard", "o"), ("k-rr", "s"),
                             ("unary encoding", "^")):
        for n in sorted({r["n"] for r in rows}):
            pts = [r for r in rows if r["protocol"] == protocol and r["n"] == n]
            Bs = [r["B"] for r in pts]
            ax_err.errorbar(Bs, [r["max_error_mean"] for r in pts],
                            yerr=[r["max_error_sd"] for r in pts], marker=marker,
                            label=f"{protocol}, n={n}", capsize=2)
            ax_bits.plot(Bs, [r["bits_per_user"] for r in pts], marker=marker,
                         label=f"{protocol}, n={n}")
    for ax in (ax_err, ax_bits):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("domain size B")
    ax_err.set_ylabel("max count error over B values")
    ax_bits.set_ylabel("bits per user")
    ax_bits.set_yscale("log")
    ax_err.legend(fontsize=6)
    ax_err.set_title("same certified (1, 1e-6)")
    png = save_figure(fig, out_dir / "ggkpv_separation.png")
    return [png, csv_path]


FIGURE = FigureSpec(
    name="ggkpv", paper="Ghazi, Golowich, Kumar, Pagh, Velingker, EUROCRYPT 2021",
    what="max count error, bits per user and query time of multi-message Hadamard "
         "response vs k-RR and unary encoding at one certified (epsilon, delta)",
    run=run,
    see=(("ggkpv_separation.png", "at the same certified (1, 1e-6) the multi-message "
          "Hadamard response's max count error grows far less with B than k-RR's and unary "
          "encoding's, at the price of more bits per user (right)"),
         ("ggkpv_separation.csv", "per (protocol, n, B): certified epsilon, rho or epsilon0, "
          "simulated errors, bits and messages per user, query time")))
