"""Girgis et al., CCS 2021, Figure 4: epsilon after T composed shuffle rounds versus T.

Curves at fixed total delta (docs/girgis-2021.md#section-4-pipelines,
docs/conversions.md#rdp-composition to docs/conversions.md#optimal-composition):
- Theorem 1 RDP x T -> Lemma 1 ([CKS20]) minimised over integer orders (upper bound);
- refined Theorem 4 RDP x T -> Lemma 1 (upper bound, not in the paper);
- eq. (10) [EFM+19] RDP x T -> Lemma 1 (comparison; low-confidence reconstruction);
- [FMT20] closed form per round at delta0 = split * delta / T, composed by the exact optimal
  [KOV15] composition (upper bound; min over the splits in `girgis_pipelines.DELTA_SPLITS`);
- RDP of the [FMT20] clones pair, evaluated numerically (`protocols.clone_pair`) x T ->
  Lemma 1 (certified upper bound for every epsilon0-LDP randomizer; full mode only);
- Theorem 3 x T -> Lemma 1, the paper's "lower bound" pipeline (NOT a bound; see
  `figures.girgis_pipelines`);
- exact shuffled binary RR, special pair (`protocols.binary_rr.view_pair`, ones = 0),
  composed T times by PLD (`composition.compose_views`, both orders); its optimistic
  (LOWER) value is a true lower bound on T rounds of shuffled binary RR, hence on the worst
  case over epsilon0-LDP randomizers: every upper bound must lie above it.

Parameters: the seed text lost the values; the prose mentions T up to 10^4 with n = 10^6 and
small epsilon0 as the regime where RDP composition wins. We use delta = 1e-5,
(n, epsilon0) in {(10^6, 0.5), (10^6, 2), (10^4, 0.5)} and T from 1 to 10^4.
"""

from __future__ import annotations

import math
from pathlib import Path

from accountant.bounds import erlingsson_2019, girgis_2021
from accountant.composition import RdpCurve, compose_views, epsilon_cks
from figures import girgis_pipelines as gp
from figures.common import FigureSpec, new_figure, save_figure, write_csv

try:  # landing in parallel
    from accountant.pairs import clones as clone_pair
    from accountant.protocols import binary_rr
except ImportError:  # pragma: no cover
    binary_rr = clone_pair = None

__all__ = ["FIGURE", "DELTA", "PANELS", "ROUNDS", "COLUMNS", "compute", "run"]

DELTA = 1e-5
PANELS: tuple[tuple[int, float], ...] = ((10**6, 0.5), (10**6, 2.0), (10**4, 0.5))
ROUNDS: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
QUICK_PANELS: tuple[tuple[int, float], ...] = ((10**6, 0.5),)
QUICK_ROUNDS: tuple[int, ...] = (1, 100, 10000)
CLONES_ORDERS: tuple[int, ...] = (*range(2, 13), 16, 24, 32, 48, 64, 96, 128, 192, 256, 512,
                                  1024)

COLUMNS: dict[str, tuple[str, str]] = {
    "thm1_rdp": ("Thm 1 RDP, composed", "upper"),
    "refined_rdp": ("refined Thm 4 RDP, composed", "upper"),
    "eq10_rdp": ("eq. (10) RDP, composed", "comparison (reconstruction)"),
    "fmt_kov": ("FMT20 + KOV15", "upper"),
    "clones_rdp": ("FMT20 clones pair RDP, composed", "upper"),
    "thm3_paper": ("Thm 3 RDP, composed (paper; not a bound)", "paper pipeline, not a bound"),
    "binary_rr_pld_lower": ("binary RR special pair, PLD", "lower"),
}


def clones_curve(*, n: int, epsilon0: float, orders=CLONES_ORDERS) -> RdpCurve | None:
    """Certified upper RDP curve of the clones pair (None if the module is unavailable)."""
    if clone_pair is None:
        return None
    pair = clone_pair.fmt_clones(n=n, epsilon0=epsilon0)
    results = []
    for a in orders:
        try:
            results.append(clone_pair.renyi_divergence(pair, alpha=float(a)).upper)
        except OverflowError:
            # clone_pair's tail term e^((alpha-1) eps0) overflows a float at large
            # alpha * eps0; fewer orders keep the curve a valid (slightly looser) bound
            continue
    return RdpCurve.from_results(results, method=f"clone_pair.renyi_divergence(FMT clones, "
                                                 f"n={n}, epsilon0={epsilon0})")


def compute(panels=PANELS, rounds=ROUNDS, *, delta: float = DELTA, orders=gp.ORDERS,
            clones: bool = False) -> list[dict[str, float]]:
    rows = []
    for n, epsilon0 in panels:
        curves = {key: gp.closed_form_curve(bound, n=n, epsilon0=epsilon0, orders=orders)
                  for key, bound in (("thm1_rdp", girgis_2021.rdp_upper_thm1),
                                     ("refined_rdp", girgis_2021.rdp_upper_refined),
                                     ("eq10_rdp", erlingsson_2019.rdp_upper_eq10))}
        extra = clones_curve(n=n, epsilon0=epsilon0) if clones else None
        if extra is not None:
            curves["clones_rdp"] = extra
        special = (binary_rr.view_pair(n=n, epsilon0=epsilon0, ones=0)
                   if binary_rr is not None else None)
        lower = [float(girgis_2021.rdp_lower_thm3(alpha=a, epsilon0=epsilon0, n=n))
                 for a in orders]
        for t in rounds:
            row: dict[str, float] = {"n": n, "epsilon0": epsilon0, "delta": delta, "rounds": t}
            for key in ("thm1_rdp", "refined_rdp", "eq10_rdp", "clones_rdp"):
                row[key] = (float(epsilon_cks(curves[key].times(t), delta=delta,
                                              real_orders=False))
                            if key in curves else math.nan)
            row["fmt_kov"] = gp.fmt_kov_epsilon(n=n, epsilon0=epsilon0, delta=delta, rounds=t)
            row["thm3_paper"] = gp.cks_epsilon_of_values(orders, [t * v for v in lower],
                                                         delta=delta)
            row["binary_rr_pld_lower"] = math.nan
            if special is not None:
                out = compose_views([(special, t)], delta=delta)
                if out.lower is not None:
                    row["binary_rr_pld_lower"] = float(out.lower)
            rows.append(row)
    return rows


def _plot(rows, panels, path: Path) -> Path:
    fig, axes = new_figure(len(panels), width=4.6, height=3.8)
    styles = {"thm1_rdp": "-o", "refined_rdp": "--", "eq10_rdp": ":^", "fmt_kov": "-s",
              "clones_rdp": "-D", "thm3_paper": "-.", "binary_rr_pld_lower": "-x"}
    for ax, (n, epsilon0) in zip(axes, panels, strict=True):
        sel = [r for r in rows if (r["n"], r["epsilon0"]) == (n, epsilon0)]
        x = [r["rounds"] for r in sel]
        for key, (label, _) in COLUMNS.items():
            y = [r[key] for r in sel]
            if not all(math.isnan(v) for v in y):
                ax.plot(x, y, styles[key], label=label, markersize=3,
                        color=f"C{list(COLUMNS).index(key)}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(top=10 * max(r["thm1_rdp"] for r in sel))
        ax.set_title(f"n={n:g}, eps0={epsilon0:g}, delta={rows[0]['delta']:g}", fontsize=9)
        ax.set_xlabel("rounds T")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("total epsilon")
    axes[0].legend(fontsize=6, loc="upper left")
    return save_figure(fig, path)


def run(out_dir: Path, quick: bool) -> list[Path]:
    panels = QUICK_PANELS if quick else PANELS
    rows = compute(panels, QUICK_ROUNDS if quick else ROUNDS,
                   orders=gp.QUICK_ORDERS if quick else gp.ORDERS, clones=not quick)
    header = ["n", "epsilon0", "delta", "rounds", *COLUMNS]
    comments = [
        "Girgis et al. CCS 2021 Fig. 4: epsilon after T rounds vs T (parameters chosen by us; "
        "the seed text lost the paper's values)",
        *(f"{k}: {label} [{kind}]" for k, (label, kind) in COLUMNS.items()),
        f"fmt_kov: per-round delta0 = split * delta / T, min over splits {gp.DELTA_SPLITS}",
        "nan: not computed in this mode (clones pair: full mode only)",
    ]
    csv_path = write_csv(out_dir / "girgis_2021_fig4.csv", header,
                         [[r[h] for h in header] for r in rows], comments)
    png = _plot(rows, panels, out_dir / "girgis_2021_fig4.png")
    return [png, csv_path]


FIGURE = FigureSpec(
    name="girgis-fig4", paper="Girgis et al., CCS 2021",
    what="Fig. 4: eps after T rounds vs T: Thm 1/refined/eq. (10) RDP composed via Lemma 1, "
         "FMT20 + KOV15, clones-pair RDP, paper's Thm 3 pipeline",
    run=run)
