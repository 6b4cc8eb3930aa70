"""Girgis et al., CCS 2021, Figure 5: composed shuffle rounds with Poisson subsampling.

Curves at fixed total delta versus the number of rounds T (docs/conversions.md#poisson-subsampling,
docs/girgis-2021.md#section-4-pipelines):
- Theorem 1 RDP -> [ZW19] Thm 6 Poisson subsampling -> x T -> Lemma 1 ([CKS20]);
- refined Theorem 4 RDP, same pipeline;
- [FMT20] closed form per round -> [LQS12] approximate-DP subsampling -> [KOV15] optimal
  composition (upper bound).
The two RDP curves are the paper's HEURISTIC pipeline: [ZW19] is proved for add/remove
neighbours and the base add/remove RDP, while the shuffle RDP here is replace-one
(docs/conversions.md#poisson-subsampling).
They are labelled so in the CSV and the legend; they are not certified bounds. The paper's
subsampled "lower bound" curve is not reproduced: [ZW19] applied to a lower bound is not a
lower bound of anything, and the library refuses to build an RDP curve from lower bounds.
In its place, a certified lower bound: binary RR (a member of the eps0-LDP class) on a
population of n/g users, each round Poisson-subsampled at rate g (so n users per batch in
expectation), the count of 1s under its special pair composed T times by the optimistic
PLD (`LDP.subsampled_view_pair`, docs/conversions.md#a-certified-lower-end-for-subsampled-
rounds): the worst eps0-LDP randomizer's composed epsilon is at least it, so every upper bound
for the class must lie above it. It is drawn at T in LOWER_ROUNDS (cost); where it is 0 (the
log axes cannot show it) the panel says so.

Parameters: the seed text lost the values. We take n users in each shuffled batch (the base
mechanism), each round Poisson-subsampled with rate g, delta = 1e-5, T up to 10^4, and
(n, epsilon0, g) in {(10^4, 0.5, 0.01), (10^4, 2, 0.01), (10^5, 1, 0.001)}.
"""

from __future__ import annotations

import math
from pathlib import Path

from accountant.bounds import girgis_2021
from accountant.composition import epsilon_cks, poisson_subsampled
from accountant.composition.pld import compose_views
from accountant.protocols.ldp import LDP
from figures import girgis_pipelines as gp
from figures.common import Drawing, FigureFiles, FigureSpec, new_figure

__all__ = ["FIGURE", "DELTA", "PANELS", "ROUNDS", "LOWER_ROUNDS", "COLUMNS", "MAX_ORDER",
           "compute", "certified_lower", "run"]

DELTA = 1e-5
PANELS: tuple[tuple[int, float, float], ...] = ((10**4, 0.5, 0.01), (10**4, 2.0, 0.01),
                                                (10**5, 1.0, 0.001))
ROUNDS: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
QUICK_PANELS: tuple[tuple[int, float, float], ...] = ((10**4, 0.5, 0.01),)
QUICK_ROUNDS: tuple[int, ...] = (1, 100, 10000)
# the certified lower curve costs seconds per point at large T: these rounds only
LOWER_ROUNDS: tuple[int, ...] = (1, 10, 100, 1000, 10000)
QUICK_LOWER_ROUNDS: tuple[int, ...] = (1, 100)
# the lower curve needs to be certified, not tight: a 5 % pessimistic-optimistic gap
LOWER_GAP = 0.05
# [ZW19] needs eps(l) at every integer l <= alpha (cost ~ alpha^2, still < 1 s at 1024); the
# top order sets the floor log(1/delta)/(alpha - 1) of the conversion at small T
MAX_ORDER = 1024

COLUMNS: dict[str, tuple[str, str]] = {
    "thm1_zw19": ("Thm 1 + ZW19 (heuristic)", "paper's heuristic pipeline "
                                              "(docs/conversions.md#poisson-subsampling)"),
    "refined_zw19": ("refined + ZW19 (heuristic)", "paper's heuristic pipeline "
                                                   "(docs/conversions.md#poisson-subsampling)"),
    "fmt_lqs12_kov": ("FMT20 + LQS12 + KOV15", "upper"),
    "lower_binary_rr": ("certified lower: binary RR, subsampled, PLD", "lower (every eps0-LDP "
                                                                       "upper bound is above it)"),
}


def certified_lower(*, n: int, epsilon0: float, rate: float, rounds: int,
                    delta: float = DELTA) -> float:
    """A certified lower bound on epsilon(delta) of `rounds` Poisson-subsampled shuffle
    rounds of the worst epsilon0-LDP randomizer, n users per batch in expectation.

    Args:
        n: expected users per batch (the population is n / rate).
        epsilon0: the local randomizers' epsilon0.
        rate: the Poisson sampling rate g.
        rounds: T.
        delta: the target delta.

    Returns:
        The optimistic-PLD epsilon of binary RR's subsampled special-pair count, composed T
        times (module docstring).
    """
    view = LDP(n=round(n / rate), epsilon0=epsilon0).subsampled_view_pair(rate, "substitute")
    return float(compose_views([(view, rounds)], delta=delta, relative_gap=LOWER_GAP).lower)


def compute(panels=PANELS, rounds=ROUNDS, *, delta: float = DELTA,
            orders=gp.ORDERS, lower_rounds=LOWER_ROUNDS) -> list[dict[str, float]]:
    rows = []
    for n, epsilon0, rate in panels:
        sub = {}
        for key, bound in (("thm1_zw19", girgis_2021.rdp_upper_thm1),
                           ("refined_zw19", girgis_2021.rdp_upper_refined)):
            base = gp.closed_form_curve(bound, n=n, epsilon0=epsilon0, orders=orders)
            sub[key] = poisson_subsampled(base, sampling_rate=rate, max_order=MAX_ORDER)
        for t in rounds:
            row: dict[str, float] = {"n": n, "epsilon0": epsilon0, "sampling_rate": rate,
                                     "delta": delta, "rounds": t}
            for key, curve in sub.items():
                row[key] = float(epsilon_cks(curve.times(t), delta=delta,
                                             real_orders=False))
            row["fmt_lqs12_kov"] = gp.fmt_kov_epsilon(n=n, epsilon0=epsilon0, delta=delta,
                                                      rounds=t, rate=rate)
            row["lower_binary_rr"] = (certified_lower(n=n, epsilon0=epsilon0, rate=rate,
                                                      rounds=t, delta=delta)
                                      if t in lower_rounds else math.nan)
            rows.append(row)
    return rows


def _plot(rows, panels) -> Drawing:
    fig, axes = new_figure(len(panels), width=4.6, height=3.8)
    styles = {"thm1_zw19": "-o", "refined_zw19": "--", "fmt_lqs12_kov": "-s",
              "lower_binary_rr": "k:^"}
    for ax, (n, epsilon0, rate) in zip(axes, panels, strict=True):
        sel = [r for r in rows if (r["n"], r["epsilon0"], r["sampling_rate"])
               == (n, epsilon0, rate)]
        x = [r["rounds"] for r in sel]
        for key, (label, _) in COLUMNS.items():
            # NaN: not computed; 0 (a certified lower end): no place on log axes, said below
            pts = [(t, r[key]) for t, r in zip(x, sel, strict=True)
                   if not math.isnan(r[key]) and r[key] > 0]
            if pts:
                ax.plot(*zip(*pts, strict=True), styles[key], label=label, markersize=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"n={n:g}, eps0={epsilon0:g}, g={rate:g}, delta={rows[0]['delta']:g}",
                     fontsize=8)
        ax.set_xlabel("rounds T")
        ax.set_ylabel("total epsilon at delta")
        ax.grid(True, alpha=0.3)
        zeros = _lower_zero_rounds(sel)
        if zeros:
            # 0 has no place on log axes: say so where the curve is missing
            ax.text(0.97, 0.03, f"certified lower = 0 at T <= {max(zeros):g}\n(delta covers "
                    "the whole loss there)", transform=ax.transAxes, fontsize=7,
                    va="bottom", ha="right")
    return Drawing(fig, axes, headline_note(rows))


def _lower_zero_rounds(sel: list[dict[str, float]]) -> list[float]:
    """The rounds at which the certified lower end is 0 (not drawable on log axes)."""
    return [r["rounds"] for r in sel if r["lower_binary_rr"] == 0]


def headline_note(rows: list[dict[str, float]]) -> str:
    """The caption: per panel, at the largest T, the heuristic Thm 1 + ZW19 value over
    FMT + LQS12 + KOV (below 1: the RDP route is better) and over the certified lower end.

    Args:
        rows: computed rows.

    Returns:
        The caption (numbers from `rows`).
    """
    over_fmt, over_lower = [], []
    for key in sorted({(r["n"], r["epsilon0"], r["sampling_rate"]) for r in rows}):
        sel = [r for r in rows if (r["n"], r["epsilon0"], r["sampling_rate"]) == key]
        last = max(sel, key=lambda r: r["rounds"])
        over_fmt.append(f"x{last['thm1_zw19'] / last['fmt_lqs12_kov']:.3g} (eps0={key[1]:g})")
        if last["lower_binary_rr"] > 0:
            over_lower.append(f"x{last['thm1_zw19'] / last['lower_binary_rr']:.3g}")
    text = (f"At T={max(r['rounds'] for r in rows):g}, Thm 1+ZW19 (heuristic) over "
            f"FMT+LQS12+KOV: {', '.join(over_fmt)}")
    return text + (f"; over the certified lower: {', '.join(over_lower)}" if over_lower
                   else "")


FILES = FigureFiles(
    "girgis_2021_fig5",
    see_png="the heuristic Thm 1 + ZW19 curves against FMT20 + LQS12 + KOV15 with subsampling, "
            "above a certified lower curve (dotted black: the worst eps0-LDP randomizer's epsilon "
            "is at least this; missing points are 0, marked in the panel); the caption gives the "
            "ratios at the largest T (the paper's factor did not survive in the seed text)",
    see_csv="one row per (n, eps0, g, T); the ZW19 columns are heuristic, not bounds")


def run(out_dir: Path, quick: bool) -> list[Path]:
    panels = QUICK_PANELS if quick else PANELS
    rows = compute(panels, QUICK_ROUNDS if quick else ROUNDS,
                   orders=gp.QUICK_ORDERS if quick else gp.ORDERS,
                   lower_rounds=QUICK_LOWER_ROUNDS if quick else LOWER_ROUNDS)
    header = ["n", "epsilon0", "sampling_rate", "delta", "rounds", *COLUMNS]
    comments = [
        "Girgis et al. CCS 2021 Fig. 5: Poisson-subsampled shuffle rounds, epsilon vs T "
        "(parameters chosen by us; the seed text lost the paper's values)",
        *(f"{k}: {label} [{kind}]" for k, (label, kind) in COLUMNS.items()),
        "ZW19 is an add/remove theorem applied to replace-one RDP: the paper's heuristic, "
        "not a proved bound (docs/conversions.md#poisson-subsampling)",
        f"fmt_lqs12_kov: per-round delta0 = split * delta / (T g), min over splits "
        f"{gp.DELTA_SPLITS}",
        "lower_binary_rr: population n/g, binary RR's special-pair count under Poisson "
        "sampling at g, optimistic PLD of T rounds (a lower bound on the worst eps0-LDP "
        "randomizer); NaN where not computed",
    ]
    return FILES.write(out_dir, _plot(rows, panels), header=header, rows=rows,
                       comments=comments)


FIGURE = FigureSpec("girgis-fig5", "Girgis et al., CCS 2021",
                    "Fig. 5: Poisson subsampling: Thm 1/refined RDP + ZW19 (heuristic "
                    "pipeline) vs FMT20 + LQS12 + KOV15, eps vs T", run, FILES.see)
