"""Girgis et al., CCS 2021, Figure 2: RDP epsilon(lambda) of the shuffle model versus lambda.

Curves, for a few (n, epsilon0), at integer orders lambda (docs/girgis-2021.md#girgis-et-al-2021):
- Theorem 1, eq. (6) (upper bound, `girgis_2021.rdp_upper_thm1`);
- Theorem 2, eq. (9) (upper bound, reconstructed lambda^2 form, `rdp_upper_thm2`);
- eq. (10), the [EFM+19] bound the paper compares against (low-confidence reconstruction,
  `erlingsson_2019.rdp_upper_eq10`; a comparison curve, not a certified bound);
- Theorem 3 (lower bound: binary RR, forward order, `rdp_lower_thm3`);
- the reverse order of the same binary-RR special pair (`rdp_lower_reverse`, a stronger
  exact lower bound, docs/girgis-2021.md#theorem-3-and-corollary-2); max(Theorem 3, reverse) is the
  exact RDP of shuffled binary
  RR's special pair over both orders, numerically its worst case
  (docs/single-message.md#binary-randomized-response);
- the refined upper bound: Theorem 4's reduction evaluated exactly (`rdp_upper_refined`,
  not in the paper, always <= Theorem 1, docs/girgis-2021.md#theorem-4-and-the-refined-bound).

Parameters: the seed text lost the figure's parameter values. We use n in {10^3, 10^4, 10^6}
and epsilon0 in {0.5, 1, 2}, the ranges the paper's Section 4 prose discusses (small and
large LDP parameter; eq. (10) several orders of magnitude loose at larger epsilon0), and
orders 2..256 on a roughly geometric integer grid.
"""

from __future__ import annotations

from pathlib import Path

from accountant.bounds import erlingsson_2019, girgis_2021
from figures.common import Drawing, FigureFiles, FigureSpec, new_figure

__all__ = ["FIGURE", "PANELS", "ORDERS", "COLUMNS", "caption", "compute", "remark4_failures",
           "run", "widest_bracket"]

PANELS: tuple[tuple[int, float], ...] = ((1000, 0.5), (1000, 2.0), (10**4, 1.0),
                                         (10**6, 0.5), (10**6, 2.0))
ORDERS: tuple[int, ...] = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
QUICK_PANELS: tuple[tuple[int, float], ...] = ((1000, 0.5), (1000, 2.0))
QUICK_ORDERS: tuple[int, ...] = (2, 4, 8, 16, 32, 64)

# column -> (label, library function, kind of the number)
COLUMNS: dict[str, tuple[str, object, str]] = {
    "thm1_upper": ("Thm 1 (6)", girgis_2021.rdp_upper_thm1, "upper"),
    "thm2_upper": ("Thm 2 (9)", girgis_2021.rdp_upper_thm2, "upper"),
    "eq10_upper": ("eq. (10) [EFM+19]", erlingsson_2019.rdp_upper_eq10,
                   "claimed upper (reconstruction)"),
    "refined_upper": ("Thm 4 exact (refined)", girgis_2021.rdp_upper_refined, "upper"),
    "reverse_lower": ("binary RR, reverse order", girgis_2021.rdp_lower_reverse, "lower"),
    "thm3_lower": ("Thm 3 (binary RR, forward)", girgis_2021.rdp_lower_thm3, "lower"),
}


def compute(panels=PANELS, orders=ORDERS) -> list[dict[str, float]]:
    """One row per (n, epsilon0, alpha) with every column of COLUMNS (float values)."""
    rows = []
    for n, epsilon0 in panels:
        for alpha in orders:
            row: dict[str, float] = {"n": n, "epsilon0": epsilon0, "alpha": alpha}
            for key, (_, fn, _) in COLUMNS.items():
                row[key] = float(fn(alpha=alpha, epsilon0=epsilon0, n=n))
            rows.append(row)
    return rows


def _plot(rows: list[dict[str, float]], panels) -> Drawing:
    ncols = min(3, len(panels))
    nrows = -(-len(panels) // ncols)
    fig, axes = new_figure(ncols, nrows=nrows, width=4.4, height=3.4)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    styles = {"thm1_upper": "-o", "thm2_upper": "-s", "eq10_upper": ":^",
              "refined_upper": "--", "reverse_lower": "-.", "thm3_lower": "-x"}
    for ax, (n, epsilon0) in zip(axes, panels, strict=False):
        sel = [r for r in rows if r["n"] == n and r["epsilon0"] == epsilon0]
        x = [r["alpha"] for r in sel]
        for key, (label, _, _) in COLUMNS.items():
            # the reverse order coincides with Theorem 3 where both are tiny: draw it wide and
            # pale underneath so that both stay visible
            wide = dict(linewidth=4, alpha=0.45, zorder=1) if key == "reverse_lower" else {}
            ax.plot(x, [r[key] for r in sel], styles[key], label=label, markersize=3, **wide)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"n={n:g}, eps0={epsilon0:g}", fontsize=9)
        ax.set_xlabel("order lambda")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[::ncols]:
        ax.set_ylabel("RDP epsilon(lambda)")
    return Drawing(fig, axes[:len(panels)], caption(rows))


def remark4_failures(rows: list[dict[str, float]]) -> list[dict[str, float]]:
    """The rows where Theorem 2 is below Theorem 1 (Remark 4 says it never is).

    Args:
        rows: rows of `compute`.

    Returns:
        Those rows, in the order given.
    """
    return [r for r in rows if r["thm2_upper"] < r["thm1_upper"]]


def widest_bracket(rows: list[dict[str, float]]) -> tuple[float, dict[str, float]]:
    """The largest ratio of the refined upper bound to the larger exact lower bound.

    The true RDP of the worst epsilon0-LDP randomizer lies between the two, so this ratio
    says how far from pinned the drawn bracket is.

    Args:
        rows: rows of `compute`.

    Returns:
        (ratio, the row attaining it).
    """
    def ratio(r: dict[str, float]) -> float:
        return r["refined_upper"] / max(r["thm3_lower"], r["reverse_lower"])
    row = max(rows, key=ratio)
    return ratio(row), row


def caption(rows: list[dict[str, float]], threshold: int = 16) -> str:
    """The figure's caption, every number counted from `rows`.

    Args:
        rows: rows of `compute`.
        threshold: the order that splits the Remark 4 failures into small and large orders.

    Returns:
        Two sentences: where Remark 4's ordering fails (how many points, how many of them at
        orders >= threshold, in which panels) and the widest refined / lower ratio.
    """
    bad = remark4_failures(rows)
    high = sum(r["alpha"] >= threshold for r in bad)
    panels = sorted({(r["n"], r["epsilon0"]) for r in bad})
    where = "; ".join(
        f"n={n:g}, eps0={e:g}: orders "
        + ",".join(f"{r['alpha']:g}" for r in bad if (r["n"], r["epsilon0"]) == (n, e))
        for n, e in panels)
    ratio, at = widest_bracket(rows)
    return (f"Remark 4 says Theorem 1 is tighter than Theorem 2 in all ranges of interest; here "
            f"Theorem 2 is smaller at {len(bad)} of {len(rows)} points, {high} of them at "
            f"orders >= {threshold}" + (f" ({where})" if bad else "") + ". The true RDP lies "
            f"between the larger lower curve and the refined curve, up to x{ratio:.3g} apart "
            f"(n={at['n']:g}, eps0={at['epsilon0']:g}, lambda={at['alpha']:g}). Parameters ours "
            "(the seed text lost them).")


FILES = FigureFiles(
    "girgis_2021_fig2",
    see_png="Theorem 1 (circles) against Theorem 2 (squares): the caption counts the points where "
            "Remark 4's ordering fails and at which orders; the true RDP lies between the exact "
            "lower bounds (dash-dot, x) and the refined bound (dashed), and the caption gives "
            "the widest ratio between them",
    see_csv="one row per (n, eps0, lambda); max(thm3_lower, reverse_lower) <= refined_upper <= "
            "thm1_upper in every row")


def run(out_dir: Path, quick: bool) -> list[Path]:
    panels = QUICK_PANELS if quick else PANELS
    orders = QUICK_ORDERS if quick else ORDERS
    rows = compute(panels, orders)
    header = ["n", "epsilon0", "alpha", *COLUMNS]
    comments = [
        "Girgis et al. CCS 2021 Fig. 2: RDP of the shuffle model vs order (parameters chosen by "
        "us; the seed text lost the paper's values)",
        *(f"{k}: {label} [{kind}] = accountant.{fn.__module__.split('accountant.')[-1]}."
          f"{fn.__name__}" for k, (label, fn, kind) in COLUMNS.items()),
    ]
    return FILES.write(out_dir, _plot(rows, panels), header=header, rows=rows,
                       comments=comments)


FIGURE = FigureSpec("girgis-fig2", "Girgis et al., CCS 2021",
                    "Fig. 2: RDP eps(lambda) vs lambda: Thm 1, Thm 2, eq. (10), refined Thm "
                    "4, Thm 3 and reverse-order binary-RR lower bounds", run, FILES.see)
