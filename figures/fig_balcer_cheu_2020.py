"""Balcer and Cheu, ITC 2020: the audit table and exact epsilon(delta) of zsum versus n.

Two outputs (docs/balcer-cheu-2020.md#balcer-and-cheu-2020):
1. The audit table (`protocols.balcer_cheu.audit.audit_table`): for each (epsilon, delta, n)
   on the audit grid, the paper's claim (Theorem 3.1(i): zsum is (eps, delta)-DP;
   Theorem 3.2(i): hist is (2 eps, 2 delta)-DP) against the certified exact epsilon of the
   protocol's view at the claimed delta, the verdict and the looseness (claimed / computed).
   Points violating n >= 100 log(2/delta)/eps^2 are rows marked "not applicable".
2. A plot of zsum's exact epsilon(delta) (certified bracket, `zsum_epsilon_bracket`) versus n
   when p is set by the paper from a target (eps, delta) (Fig. 1), against the target eps.
   As n grows the pair tends to a Poisson shift pair (docs/balcer-cheu-2020.md#exact-zsum-view), so
   the exact value levels off.

Parameters: the audit grid is the library's AUDIT_GRID (eps in {0.25, 0.5, 1}, delta in
{1e-6, 1e-9}, n in {10^4, 10^6}); the plot uses delta in {1e-6, 1e-9} (one panel each),
targets eps in {0.25, 0.5, 1} and n from the theorem's minimum to 10^7. The paper has no
figure; these are our choices.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from accountant.protocols.balcer_cheu import zsum_epsilon_bracket, zsum_parameters
from accountant.protocols.balcer_cheu.audit import AUDIT_GRID, audit_table
from figures.common import Drawing, FigureFiles, FigureSpec, new_figure, write_csv

__all__ = ["FIGURE", "DELTA", "TARGETS", "audit_rows", "curve_rows", "findings", "minimum_n",
           "run"]

DELTA = 1e-6
DELTAS: tuple[float, ...] = (1e-6, 1e-9)
TARGETS: tuple[float, ...] = (0.25, 0.5, 1.0)
N_MAX = 10**7
QUICK_HIST_GRID = {"epsilon": (0.5, 1.0), "delta": (1e-6,), "n": (10**4,)}

AUDIT_HEADER = ["protocol", "n", "epsilon", "delta", "claimed_epsilon", "computed_upper",
                "computed_lower", "verdict", "looseness"]


def minimum_n(*, epsilon: float, delta: float) -> int:
    """Theorem 3.1's hypothesis n >= 100 log(2/delta)/epsilon^2, rounded up."""
    return math.ceil(100 * math.log(2 / delta) / epsilon**2)


def audit_rows(protocol: str, grid=None) -> list[list[object]]:
    """The audit table as CSV rows (AUDIT_HEADER)."""
    rows = []
    for r in audit_table(protocol, grid=grid):
        p = r["params"]
        if r["verdict"] == "not applicable":
            rows.append([protocol, p["n"], p["epsilon"], p["delta"], math.nan, math.nan,
                         math.nan, "not applicable", math.nan])
            continue
        lower = r.get("computed_lower", {}).get("value", math.nan)
        rows.append([protocol, p["n"], p["epsilon"], p["delta"], r["claimed"]["value"],
                     r["computed"]["value"], lower, r["verdict"], r["looseness"]])
    return rows


def curve_rows(targets=TARGETS, *, delta: float = DELTA, points: int = 12) -> list[dict]:
    """Exact epsilon bracket of zsum at delta, p from the paper's rule, n on a log grid."""
    rows = []
    for eps in targets:
        n_min = minimum_n(epsilon=eps, delta=delta)
        for n in np.unique(np.geomspace(n_min, N_MAX, points).astype(np.int64)):
            params = zsum_parameters(n=int(n), epsilon=eps, delta=delta)
            lower, upper = zsum_epsilon_bracket(params, delta)
            rows.append({"epsilon_target": eps, "delta": delta, "n": int(n), "p": params.p,
                         "epsilon_exact_lower": float(lower),
                         "epsilon_exact_upper": float(upper),
                         "looseness": eps / float(upper)})
    return rows


def _plot(rows) -> Drawing:
    deltas = sorted({r["delta"] for r in rows}, reverse=True)
    fig, axes = new_figure(len(deltas), width=4.6, height=3.6)
    for ax, delta in zip(axes, deltas, strict=True):
        for i, eps in enumerate(sorted({r["epsilon_target"] for r in rows})):
            sel = [r for r in rows if r["epsilon_target"] == eps and r["delta"] == delta]
            color = f"C{i}"
            ax.plot([r["n"] for r in sel], [r["epsilon_exact_upper"] for r in sel], "-o",
                    color=color, markersize=3, label=f"exact epsilon, target eps={eps:g}")
            ax.axhline(eps, color=color, linestyle=":", label=f"paper's claim eps={eps:g}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n users (p set by the paper's rule)")
        ax.set_ylabel(f"epsilon at delta={delta:g}")
        ax.set_title(f"zsum, delta={delta:g}", fontsize=9)
        ax.grid(True, alpha=0.3, which="both")
    return Drawing(fig, axes, "Balcer-Cheu Thm 3.1(i): exact epsilon of zsum (certified) "
                   "against the claimed eps. " + findings(rows))


def findings(rows: list[dict]) -> str:
    """What the curves show, with numbers read off the rows.

    Args:
        rows: the rows of `curve_rows` (any deltas and targets).

    Returns:
        Where the claim holds (certified upper end <= target) and the range of the factor
        target / certified upper end over all rows and at the largest n.
    """
    factors = [r["epsilon_target"] / r["epsilon_exact_upper"] for r in rows]
    held = sum(r["epsilon_exact_upper"] <= r["epsilon_target"] for r in rows)
    n_max = max(r["n"] for r in rows)
    last = [r["epsilon_target"] / r["epsilon_exact_upper"] for r in rows if r["n"] == n_max]
    return (f"The claim holds at {held} of {len(rows)} points; the claimed eps is "
            f"{min(factors):.3g}-{max(factors):.3g} times the certified exact epsilon "
            f"(at n = {n_max:g}: {min(last):.3g}-{max(last):.3g}).")


FILES = FigureFiles(
    "balcer_cheu_2020_zsum_vs_n",
    see_png="exact epsilon (solid) against each claimed eps (dotted) versus n, for both deltas; "
            "the caption's factors (claimed / certified exact) are generated from the CSV",
    see_csv="exact epsilon bracket per (target eps, delta, n); lower <= upper <= target in every "
            "row")


def run(out_dir: Path, quick: bool) -> list[Path]:
    audit = audit_rows("zsum") + audit_rows("hist", QUICK_HIST_GRID if quick else None)
    audit_path = write_csv(
        out_dir / "balcer_cheu_2020_audit.csv", AUDIT_HEADER, audit,
        ["Balcer-Cheu ITC 2020 audit: claimed epsilon (Thm 3.1(i) zsum; Thm 3.2(i) hist at "
         "2 eps, 2 delta) vs certified exact epsilon of the view",
         f"grid: {AUDIT_GRID if not quick else 'zsum: AUDIT_GRID; hist: ' + str(QUICK_HIST_GRID)}",
         "computed_upper/lower: certified bracket (nan where the audit gives one end only); "
         "looseness = claimed / computed_upper; not applicable = n < 100 log(2/delta)/eps^2"])
    rows = [r for delta in DELTAS for r in curve_rows(delta=delta, points=4 if quick else 10)]
    curve = FILES.write(
        out_dir, _plot(rows), header=list(rows[0]), rows=rows,
        comments=["Balcer-Cheu zsum: exact epsilon(delta) bracket vs n, p = 1 - 50 "
                  "log(2/delta)/(eps^2 n) from the target (our parameter choice; the paper has "
                  "no figure)"])
    return [*curve, audit_path]


FIGURE = FigureSpec(
    name="balcer-cheu", paper="Balcer and Cheu, ITC 2020",
    what="audit table (claimed vs exact eps, looseness) for zsum/hist; exact zsum eps(delta) "
         "vs n against the paper's eps",
    run=run,
    see=(*FILES.see,
         ("balcer_cheu_2020_audit.csv", "the audit grid: claimed vs exact epsilon, verdict and "
          "looseness for zsum and hist")))
