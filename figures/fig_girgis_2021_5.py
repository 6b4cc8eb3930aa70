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
             "mass": (2.3263087107687304e-14, 5.441752919337686e-14, 1.7475712558531976e-13,
                      5.493612888070231e-13, 1.6815981863550116e-12, 5.011587564722673e-12,
                      1.462734522980335e-11, 4.145995585627176e-11, 1.1480866048873935e-10,
                      3.1039625334458086e-10, 8.156450967497379e-10, 2.0989649068584922e-09,
                      5.252005350886797e-09, 1.2811997238331265e-08, 3.0586815314629434e-08,
                      7.08933951012199e-08, 1.6071342097574673e-07, 3.551174188644379e-07,
                      7.635320264515881e-07, 1.6076964529664535e-06, 3.288128015448187e-06,
                      6.566211832091952e-06, 1.2811358136490307e-05, 2.428788084995637e-05,
                      4.505722542478993e-05, 8.136119916667554e-05, 0.00014313190487638447,
                      0.00024648191091320955, 0.00041206067118018804, 0.0006734366115679688,
                      0.0010736494099154372, 0.0016648861879404104, 0.0025267656239616513,
                      0.0037283150959587833, 0.005367041042234573, 0.007554184917698608,
                      0.010325490119501181, 0.013806772818045985, 0.017985378573383046,
                      0.02281209269347748, 0.02831795687590894, 0.034140819494850545,
                      0.040216748653169945, 0.04624870535865975, 0.05169949540957516,
                      0.05654726423100643, 0.06018451796814804, 0.062440974607184146,
                      0.06338979865929714, 0.06244159926942323, 0.06018572156253789,
                      0.056548961222232415, 0.051701563731870494, 0.04625101798644913,
                      0.04021916231135499, 0.03414320964347316, 0.028320222900192937,
                      0.022814146173008806, 0.017987177395121286, 0.013808291955131564,
                      0.010326729433260145, 0.0075551671428073855, 0.005367792626704329,
                      0.003728874454498337, 0.002527170015066919, 0.0016651692838071978,
                      0.0010738427092753771, 0.0006735646003352438, 0.0004121431029171374,
                      0.0002465336858467658, 0.00014316340243989683, 8.137991692375575e-05,
                      4.5068042390222554e-05, 2.4293954462557285e-05, 1.28146899834924e-05,
                      6.567985264410814e-06, 3.2890489496291263e-06, 1.6081628292814757e-06,
                      7.637611558140822e-07, 3.552275378157473e-07, 1.607648664708942e-07,
                      7.091679715435357e-08, 3.059721816263923e-08, 1.2816482971143006e-08,
                      5.2538966819907854e-09, 2.099741799337064e-09, 8.159551462275358e-10,
                      3.1051734894594025e-10, 1.1485460105772083e-10, 4.147696036896592e-11,
                      1.4633490982138406e-11, 5.013743348027916e-12, 1.6823383592321943e-12,
                      5.496085989594748e-13, 1.7483754399673849e-13, 5.444311524389492e-14,
                      1.6460853788725408e-14),
             "infinity": 1.5834208717001256e-14, "error": 7.865110079070433e-28,
             "relative": 3.5621212646219733e-09, "moved": 2.2644342732111712e-14,
             "drift": 1.3120171189814123e-11, "spread": math.inf},
        ]},
    (100000000, 1.0, 0.001): {
        "width": 1e-05, "tail": 1.2481901243197365e-14, "measures": [
            {"offset": -4,
             "mass": (1.7731851326110653e-11, 1.7495773740252234e-06, 0.0033332744803756687,
                      0.18556663132921922, 0.6221947285119712, 0.18556852378905161,
                      0.0033333426453778015, 1.7496311693592345e-06, 1.7732577365135738e-11),
             "infinity": 9.236983346623864e-15, "error": 2.1012600736027708e-31,
             "relative": 3.552423492037004e-07, "moved": 9.238820282737459e-15,
             "drift": 1.3298003806478406e-11, "spread": math.inf},
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
