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
And the library's certified upper bound for the whole class: the dominating pair of one
Poisson-subsampled round of any eps0-LDP randomizer (FMT clones pair of the population n/g,
substitute relation, docs/conversions.md#poisson-subsampling-of-a-shuffled-round), its
pessimistic connect-the-dots PLD on a UPPER_WIDTH grid (`Accountant.loss_pmfs`) composed T
times (`pld.self_compose`, read by `pld.epsilon_of`): the value `Accountant.get_epsilon(delta,
method="pld", discretization=UPPER_WIDTH)` certifies, with one one-round measure shared by
all T. That measure is the cost (about 20-35 s, 5-7 s and 2-3 min for the three panels, from
the population n/g and epsilon0), so the full run builds it for populations up to
LIVE_POPULATION and reads it from UPPER_CACHE beyond (panel 3), as quick mode does (the
measure's floats, written by `cache_entry`; the slow tests of
tests/figures/test_fig_girgis_2021_345.py rebuild them); the CSV's upper_source and the
caption say which. A fixed grid is still certified: a coarser one only
gives a wider upper end (panel 1 at T = 1e4: 0.0665 at 1e-3, 0.0198 at 1e-4, 0.01628 at
1e-5, 0.01624 at 1e-6; the measure costs the same, composing 1e-6 four times more).

Parameters: the seed text lost the values. We take n users in each shuffled batch (the base
mechanism), each round Poisson-subsampled with rate g, delta = 1e-5, T up to 10^4, and
(n, epsilon0, g) in {(10^4, 0.5, 0.01), (10^4, 2, 0.01), (10^5, 1, 0.001)}.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from accountant.bounds import girgis_2021
from accountant.composition import Accountant, Subsampled, epsilon_cks, pld, poisson_subsampled
from accountant.composition.pld import compose_views
from accountant.protocols.ldp import LDP
from figures import girgis_pipelines as gp
from figures.common import Drawing, FigureFiles, FigureSpec, new_figure

__all__ = ["FIGURE", "DELTA", "PANELS", "ROUNDS", "LOWER_ROUNDS", "COLUMNS", "MAX_ORDER",
           "UPPER_WIDTH", "UPPER_CACHE", "LIVE_POPULATION", "cache_entry", "compute",
           "certified_lower", "certified_upper", "one_round_measures", "run"]

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

# the certified upper curve's grid (any grid is certified; a finer one is tighter) and the
# largest population whose one-round measure the full run builds (module docstring)
UPPER_WIDTH = 1e-5
LIVE_POPULATION = 10**6
# the one-round measures' truncation: compose_views' threshold for the largest T drawn,
# so that every T of the figure is composed at least as finely as compose_views would
UPPER_TAIL_ROUNDS = 10**4
# (population n/g, epsilon0, g) -> the pessimistic one-round measure(s) at UPPER_WIDTH and
# the tail of UPPER_TAIL_ROUNDS, written by
#   cache_entry(one_round_measures(n=n, epsilon0=e0, rate=g, live=True)[0], _tail(DELTA))
# for the panels read from it: panel 1 (quick mode; built in 35 s on 2 loaded cores) and
# panel 3 (full mode; 165 s); panel 2 (7 s) is only ever built in the run. Rebuilt and
# compared by tests/figures/test_fig_girgis_2021_345.py (slow suite)
UPPER_CACHE: dict[tuple[int, float, float], dict[str, Any]] = {
    (1000000, 0.5, 0.01): {
        "width": 1e-05, "tail": 1.2481901243197365e-14, "measures": [
            {"offset": -48,
             "mass": (2.3194670978742456e-14, 5.4290576338405884e-14, 1.7438207347165083e-13,
                      5.47846856654807e-13, 1.6782950348804208e-12, 4.999665685399723e-12,
                      1.459758210472177e-11, 4.138798142527032e-11, 1.1454788157848101e-10,
                      3.099098836104877e-10, 8.144049230400716e-10, 2.094900288004821e-09,
                      5.2451141480414414e-09, 1.2789562113850082e-08, 3.054829689025764e-08,
                      7.081049324313124e-08, 1.604668403490283e-07, 3.5476945553189426e-07,
                      7.627285044692397e-07, 1.605747182242616e-06, 3.285489182935816e-06,
                      6.55858620345801e-06, 1.2802540629668881e-05, 2.4270561891738456e-05,
                      4.5014676021195226e-05, 8.131839794539622e-05, 0.00014302616050841492,
                      0.00024634676219284057, 0.0004118760585852513, 0.0006729979234997757,
                      0.0010733174617329685, 0.0016642915460786595, 0.0025255181546455065,
                      0.003727567837442733, 0.00536486621166239, 0.007553131311212152,
                      0.010323518699444627, 0.013802897347888296, 0.017984283417977368,
                      0.02280954968796375, 0.028312964701552198, 0.03414077844437398,
                      0.04021204168576259, 0.046250062286895266, 0.05169881042073442,
                      0.05654479355595945, 0.06018807134343463, 0.06244252301919384,
                      0.06339051473625117, 0.06244603450614553, 0.060188024482904855,
                      0.05655283258917047, 0.051704364450740475, 0.04625393417525798,
                      0.040221179548539945, 0.03414557181114543, 0.028320985290248336,
                      0.02281506201844394, 0.017988327399258045, 0.013807988151353617,
                      0.010326847153678174, 0.007555473623875689, 0.005367307861106699,
                      0.0037289297869128168, 0.002526805360921617, 0.0016650510867607135,
                      0.0010738010165860733, 0.0006733997509520136, 0.00041208698881076004,
                      0.0002465006480468212, 0.00014311344547574066, 8.136639700996397e-05,
                      4.504787826032444e-05, 2.428686011271386e-05, 1.2811213122237064e-05,
                      6.564012894065255e-06, 3.2878832508419765e-06, 1.6071530111009498e-06,
                      7.63341927195422e-07, 3.550588990976365e-07, 1.606221578904367e-07,
                      7.087283922781997e-08, 3.0577007480681624e-08, 1.2802614413021735e-08,
                      5.250111535722504e-09, 2.0972170849108304e-09, 8.152342047723422e-10,
                      3.102332739501257e-10, 1.1468545408349756e-10, 4.143312036466393e-11,
                      1.4615428071138875e-11, 5.005535613138698e-12, 1.680272989828591e-12,
                      5.485803381347758e-13, 1.7459695410162145e-13, 5.436058477236633e-14,
                      1.6425048873814953e-14),
             "infinity": 9.92241306276374e-15, "error": 7.848448580517423e-28,
             "relative": 3.5638927364800905e-09, "moved": 1.6715194629505623e-14,
             "drift": 7.1530712057575096e-09, "spread": math.inf},
        ]},
    (100000000, 1.0, 0.001): {
        "width": 1e-05, "tail": 1.2481901243197365e-14, "measures": [
            {"offset": -4,
             "mass": (1.09298815980628e-11, 1.2458647939771792e-06, 0.0027175398611804726,
                      0.16956122235030974, 0.6212748232711902, 0.2023729618261334,
                      0.004069762892735171, 2.4438941319824113e-06, 2.8596797249510782e-11),
             "infinity": 3.125050068708238e-15, "error": 3.185799522932544e-31,
             "relative": 3.552504821424842e-07, "moved": 3.1259936072017884e-15,
             "drift": 7.104099665056473e-07, "spread": math.inf},
        ]},
}

COLUMNS: dict[str, tuple[str, str]] = {
    "thm1_zw19": ("Thm 1 + ZW19 (heuristic)", "paper's heuristic pipeline "
                                              "(docs/conversions.md#poisson-subsampling)"),
    "refined_zw19": ("refined + ZW19 (heuristic)", "paper's heuristic pipeline "
                                                   "(docs/conversions.md#poisson-subsampling)"),
    "fmt_lqs12_kov": ("FMT20 + LQS12 + KOV15", "upper"),
    "lower_binary_rr": ("certified lower: binary RR, subsampled, PLD", "lower (every eps0-LDP "
                                                                       "upper bound is above it)"),
    "upper_clones_pld": ("certified upper: subsampled clones pair, PLD", "upper (every eps0-LDP "
                                                                         "randomizer)"),
}


def _tail(delta: float) -> float:
    # compose_views' truncation threshold at UPPER_TAIL_ROUNDS rounds (it reads the counts)
    return pld.truncation_tail([(None, UPPER_TAIL_ROUNDS)], delta)


def _key(n: int, epsilon0: float, rate: float) -> tuple[int, float, float]:
    return (round(n / rate), float(epsilon0), float(rate))


def cache_entry(measures: list[pld.LossPmf], tail: float) -> dict[str, Any]:
    """The fields of one-round measures as an UPPER_CACHE value (floats exact by repr).

    Args:
        measures: pessimistic `LossPmf`s of one round.
        tail: the truncation threshold they were built with.

    Returns:
        A dict of plain numbers.
    """
    return {"width": UPPER_WIDTH, "tail": tail, "measures": [
        {"offset": int(m.offset), "mass": tuple(float(x) for x in m.mass),
         "infinity": m.infinity, "error": m.error, "relative": m.relative, "moved": m.moved,
         "drift": m.drift, "spread": m.spread} for m in measures]}


def one_round_measures(*, n: int, epsilon0: float, rate: float, delta: float = DELTA,
                       live: bool = True) -> tuple[list[pld.LossPmf], bool]:
    """The pessimistic PLD of one Poisson-subsampled shuffle round of the worst
    epsilon0-LDP randomizer (module docstring), built or read from UPPER_CACHE.

    Args:
        n: expected users per batch (the population is n / rate).
        epsilon0: the local randomizers' epsilon0.
        rate: the Poisson sampling rate g.
        delta: the target delta (sets the truncation tail).
        live: build it (`Accountant.loss_pmfs`) even when the cache holds it.

    Returns:
        (the measures, whether they came from the cache).
    """
    tail = _tail(delta)
    entry = UPPER_CACHE.get(_key(n, epsilon0, rate))
    if not live and entry is not None and entry["width"] == UPPER_WIDTH \
            and entry["tail"] == tail:
        return [pld.LossPmf(UPPER_WIDTH, m["offset"], np.array(m["mass"]), m["infinity"],
                            m["error"], True, m["relative"], moved=m["moved"],
                            drift=m["drift"], spread=m["spread"])
                for m in entry["measures"]], True
    accountant = Accountant().compose(
        Subsampled(LDP(n=round(n / rate), epsilon0=epsilon0), rate), count=1)
    return accountant.loss_pmfs(UPPER_WIDTH, pessimistic=True, tail=tail, connect=True), False


def certified_upper(measures: list[pld.LossPmf], rounds: int, *,
                    delta: float = DELTA) -> float:
    """A certified upper bound on epsilon(delta) of `rounds` rounds: the one-round
    measures composed (as `compose_views` does: truncated, self-composed with the power
    route's budget 1e-3 delta) and read by `pld.epsilon_of`, the largest over the orders.

    Args:
        measures: one round's pessimistic measures (`one_round_measures`).
        rounds: T.
        delta: the target delta.

    Returns:
        The certified upper end.
    """
    tail = _tail(delta)
    return max(pld.epsilon_of(pld.self_compose(pld.truncate(m, tail), rounds, tail,
                                               1e-3 * delta), delta) for m in measures)


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
            orders=gp.ORDERS, lower_rounds=LOWER_ROUNDS,
            live_population: float = LIVE_POPULATION) -> list[dict[str, Any]]:
    """One row per (panel, T) with the COLUMNS and upper_source.

    Args:
        panels: (n, epsilon0, g) triples.
        rounds: the T drawn.
        delta: the target delta.
        orders: integer RDP orders of the heuristic route.
        lower_rounds: the T at which the certified lower end is computed (else NaN).
        live_population: build the certified upper curve's one-round measure in the run
            for populations n/g up to this; read it from UPPER_CACHE beyond (0: always
            from the cache where it has the panel).

    Returns:
        The rows.
    """
    rows = []
    for n, epsilon0, rate in panels:
        measures, cached = one_round_measures(n=n, epsilon0=epsilon0, rate=rate, delta=delta,
                                              live=n / rate <= live_population)
        sub = {}
        for key, bound in (("thm1_zw19", girgis_2021.rdp_upper_thm1),
                           ("refined_zw19", girgis_2021.rdp_upper_refined)):
            base = gp.closed_form_curve(bound, n=n, epsilon0=epsilon0, orders=orders)
            sub[key] = poisson_subsampled(base, sampling_rate=rate, max_order=MAX_ORDER)
        for t in rounds:
            row: dict[str, Any] = {"n": n, "epsilon0": epsilon0, "sampling_rate": rate,
                                   "delta": delta, "rounds": t}
            for key, curve in sub.items():
                row[key] = float(epsilon_cks(curve.times(t), delta=delta,
                                             real_orders=False))
            row["fmt_lqs12_kov"] = gp.fmt_kov_epsilon(n=n, epsilon0=epsilon0, delta=delta,
                                                      rounds=t, rate=rate)
            row["lower_binary_rr"] = (certified_lower(n=n, epsilon0=epsilon0, rate=rate,
                                                      rounds=t, delta=delta)
                                      if t in lower_rounds else math.nan)
            row["upper_clones_pld"] = certified_upper(measures, t, delta=delta)
            row["upper_source"] = "cache" if cached else "computed"
            rows.append(row)
    return rows


def _plot(rows, panels) -> Drawing:
    fig, axes = new_figure(len(panels), width=4.6, height=3.8)
    styles = {"thm1_zw19": "-o", "refined_zw19": "--", "fmt_lqs12_kov": "-s",
              "lower_binary_rr": "k:^", "upper_clones_pld": "k-v"}
    for ax, (n, epsilon0, rate) in zip(axes, panels, strict=True):
        sel = [r for r in rows if (r["n"], r["epsilon0"], r["sampling_rate"])
               == (n, epsilon0, rate)]
        x = [r["rounds"] for r in sel]
        for key, (label, _) in COLUMNS.items():
            # NaN: not computed; 0 (a certified end): no place on log axes, said below
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
        notes = [f"certified {side} = 0 at T <= {max(zeros):g}"
                 for side, zeros in (("lower", _zero_rounds(sel)),
                                     ("upper", _zero_rounds(sel, "upper_clones_pld")))
                 if zeros]
        if notes:
            # 0 has no place on log axes: say so where the curve is missing
            # top left: the curves rise with T, so that corner stays clear of data
            ax.text(0.03, 0.97, "\n".join(notes) + "\n(delta covers the whole loss there)",
                    transform=ax.transAxes, fontsize=7, va="top", ha="left")
    return Drawing(fig, axes, headline_note(rows))


def _zero_rounds(sel: list[dict[str, Any]], key: str = "lower_binary_rr") -> list[float]:
    """The rounds at which a certified end is 0 (not drawable on log axes)."""
    return [r["rounds"] for r in sel if r[key] == 0]


def headline_note(rows: list[dict[str, Any]]) -> str:
    """The caption: per panel, at the largest T, the heuristic Thm 1 + ZW19 value over
    FMT + LQS12 + KOV (below 1: the RDP route is better), over the certified upper end, and
    the certified upper over the certified lower end (the bracket's width); which panels'
    upper curves come from the cache.

    Args:
        rows: computed rows.

    Returns:
        The caption (numbers from `rows`).
    """
    over_fmt, over_upper, bracket, cached = [], [], [], []
    for key in sorted({(r["n"], r["epsilon0"], r["sampling_rate"]) for r in rows}):
        sel = [r for r in rows if (r["n"], r["epsilon0"], r["sampling_rate"]) == key]
        last = max(sel, key=lambda r: r["rounds"])
        over_fmt.append(f"x{last['thm1_zw19'] / last['fmt_lqs12_kov']:.3g} (eps0={key[1]:g})")
        upper = last.get("upper_clones_pld", math.nan)
        if upper > 0:
            over_upper.append(f"x{last['thm1_zw19'] / upper:.3g}")
        # the bracket at the largest T where both ends are computed and positive
        both = [r for r in sel if r.get("upper_clones_pld", math.nan) > 0
                and r["lower_binary_rr"] > 0]
        if both:
            b = max(both, key=lambda r: r["rounds"])
            bracket.append(f"x{b['upper_clones_pld'] / b['lower_binary_rr']:.3g} "
                           f"(T={b['rounds']:g})")
        if last.get("upper_source") == "cache":
            cached.append(f"n={key[0]:g}, eps0={key[1]:g}")
    text = (f"At T={max(r['rounds'] for r in rows):g}, Thm 1+ZW19 (heuristic) over "
            f"FMT+LQS12+KOV: {', '.join(over_fmt)}")
    if over_upper:
        text += f"; over the certified upper: {', '.join(over_upper)}"
    if bracket:
        text += f"; certified upper over lower: {', '.join(bracket)}"
    if cached:
        text += (f". Upper curve's one-round PLD read from the module's cache for "
                 f"{'; '.join(cached)} (composed in this run)")
    return text


FILES = FigureFiles(
    "girgis_2021_fig5",
    see_png="the heuristic Thm 1 + ZW19 curves against FMT20 + LQS12 + KOV15 with subsampling, "
            "above the library's certified bracket for every eps0-LDP randomizer (solid black: "
            "certified upper, subsampled clones pair by PLD; dotted black: certified lower, the "
            "worst randomizer's epsilon is at least this; missing points are 0, marked in the "
            "panel); the caption gives the ratios at the largest T (the paper's factor did not "
            "survive in the seed text)",
    see_csv="one row per (n, eps0, g, T); the ZW19 columns are heuristic, not bounds; "
            "upper_source says whether the certified upper curve's one-round PLD was built in "
            "the run or read from the module's cache")


def run(out_dir: Path, quick: bool) -> list[Path]:
    panels = QUICK_PANELS if quick else PANELS
    rows = compute(panels, QUICK_ROUNDS if quick else ROUNDS,
                   orders=gp.QUICK_ORDERS if quick else gp.ORDERS,
                   lower_rounds=QUICK_LOWER_ROUNDS if quick else LOWER_ROUNDS,
                   live_population=0 if quick else LIVE_POPULATION)
    header = ["n", "epsilon0", "sampling_rate", "delta", "rounds", *COLUMNS, "upper_source"]
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
        f"upper_clones_pld: the FMT clones pair of the population n/g under Poisson sampling "
        f"at g (substitute), pessimistic connect-the-dots PLD on a {UPPER_WIDTH:g} grid "
        "(Accountant.loss_pmfs) composed T times (pld.self_compose, pld.epsilon_of): a "
        "certified upper bound for every eps0-LDP randomizer; upper_source: computed = "
        "one-round PLD built in this run, cache = read from UPPER_CACHE in "
        "figures/fig_girgis_2021_5.py (built by the same call; quick mode and populations "
        f"above {LIVE_POPULATION:g}), composed in this run",
    ]
    return FILES.write(out_dir, _plot(rows, panels), header=header, rows=rows,
                       comments=comments)


FIGURE = FigureSpec("girgis-fig5", "Girgis et al., CCS 2021",
                    "Fig. 5: Poisson subsampling: Thm 1/refined RDP + ZW19 (heuristic "
                    "pipeline) vs FMT20 + LQS12 + KOV15 and the library's certified upper "
                    "(subsampled clones pair, PLD) and lower ends, eps vs T", run, FILES.see)
