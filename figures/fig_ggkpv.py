"""GGKPV: single- vs multi-message frequency estimation at one certified (epsilon, delta).

Runs `verify.ggkpv_separation.run_separation` (docs/ggkpv.md#separation): for each n and B,
the multi-message Hadamard response with the least certified rho, and k-RR and unary
encoding with the largest certified epsilon0 (`epsilon0_search`: one certified delta(epsilon)
check per step, one certified epsilon(delta) check at the answer), all at epsilon = 1,
delta = 1e-6; seeded, on a dataset with half the users on value 1 (the heavy value) and the
rest spread over 2..B. Markers are simulated (mean over trials; bars: sd over trials for the
maximum, standard error for the RMS errors); lines are closed forms (the estimators' exact
variances).

- (a) the maximum count error over the B values; lines: the expected maximum of B
  independent normal errors with the exact per-value sds (a reference, not a bound);
- (b) the per-value RMS count error (over trials and the B values), log-log, with a
  sqrt(B) reference slope: flat for the multi-message protocol and unary encoding, flat or
  falling for k-RR;
- (c) the RMS error on the heavy value: k-RR's grows with B (variance about
  f_1 (B - 1)/e^epsilon0), the others' does not;
- (d) bits per user.

What the numbers show is stated by `findings(rows)`, generated from the rows drawn (never
hand-written, so a changed grid cannot leave a stale ratio): the ratio of unary encoding's
and k-RR's per-value RMS error (closed forms) to the multi-message one's, the spread of the
multi-message per-value error over B and n, the growth of k-RR's heavy-value error, and the
(n, B) where a single-message protocol's simulated maximum error is below the multi-message
one's (k-RR at B = 7 in the quick grid). Every privacy parameter is a certified upper bound;
the errors are simulated. Grid (ours): n in
{1000, 4000}, B in {7, 15, 31, 63, 127}, 10 trials; quick: n = 250, B in {7, 127}, 5 trials.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from matplotlib import ticker

from accountant.result import Result
from figures import ggkpv_single
from figures.common import Drawing, FigureFiles, FigureSpec, new_figure
from verify.ggkpv_separation import HEADER, PROTOCOLS, run_separation
from verify.samplers import ggkpv as g

__all__ = ["FIGURE", "QUICK", "REL_TOL", "epsilon0_search", "findings", "run"]

# relative tolerance of the epsilon0 searches (as before: calibrated_epsilon0 at 1e-2)
REL_TOL = 1e-2


def epsilon0_search(protocol: str, n: int, B: int, epsilon: float,
                    delta: float) -> tuple[float, Result]:
    """The largest epsilon0 (to REL_TOL) for the separation's single-message protocols.

    One certified delta(epsilon) evaluation per search step (`ggkpv_single.krr_epsilon0`,
    `unary_epsilon0`: is the certified delta(epsilon) <= delta?), then one certified
    epsilon(delta) evaluation at the answer (`verify.samplers.ggkpv.checked_epsilon0`, which
    shrinks epsilon0 should that check fail): the returned Result is the certified upper end
    of epsilon(delta) at the returned epsilon0, <= epsilon, as `calibrated_epsilon0`'s is.
    `calibrated_epsilon0` inverts epsilon(delta) at every step (a Newton search of many
    delta evaluations), hence about ten times the work for the same certificate.

    Args:
        protocol: "k-rr" or "unary".
        n, B: users and domain size.
        epsilon, delta: the target.

    Returns:
        (epsilon0, the certified upper Result on epsilon(delta) at it).
    """
    if protocol == "k-rr":
        e0, _ = ggkpv_single.krr_epsilon0(n, B, epsilon, delta, rel_tol=REL_TOL)
    else:
        e0, _ = ggkpv_single.unary_epsilon0(n, epsilon, delta, rel_tol=REL_TOL)
    return g.checked_epsilon0(protocol, n=n, B=B, epsilon=epsilon, delta=delta, epsilon0=e0,
                              rel_tol=REL_TOL)

QUICK: dict[str, Any] = {"ns": (250,), "Bs": (7, 127), "trials": 5}
_COLORS = dict(zip(PROTOCOLS, ("C0", "C1", "C2"), strict=True))
_MARKERS = ("o", "s", "^", "D")
_LINES = ("-", "--", ":", "-.")


def _ratio_range(rows: list[dict[str, Any]], protocol: str, column: str) -> tuple[float, float]:
    """min and max over (n, B) of protocol's column / the multi-message one's."""
    base = {(r["n"], r["B"]): r[column] for r in rows if r["protocol"] == PROTOCOLS[0]}
    ratios = [r[column] / base[(r["n"], r["B"])] for r in rows if r["protocol"] == protocol]
    return min(ratios), max(ratios)


def _span(lo: float, hi: float, digits: int) -> str:
    """'lo-hi' at `digits` significant digits, one number when both print alike."""
    a, b = f"{lo:.{digits}g}", f"{hi:.{digits}g}"
    return a if a == b else f"{a}-{b}"


def findings(rows: list[dict[str, Any]]) -> str:
    """The figure's quantitative statements, generated from its rows.

    Args:
        rows: the rows of `run_separation` (every protocol at every (n, B)).

    Returns:
        Sentences giving: the multi-message per-value RMS error's range (closed form); the
        ratio ranges of unary encoding and k-RR to it; k-RR's heavy-value sd at the smallest
        and largest B; the (n, B) where a single-message protocol's mean maximum error
        (simulated) is below the multi-message one's, or that there are none.
    """
    multi = [r for r in rows if r["protocol"] == PROTOCOLS[0]]
    lo, hi = min(r["rms_error_theory"] for r in multi), max(r["rms_error_theory"]
                                                             for r in multi)
    u_lo, u_hi = _ratio_range(rows, "unary encoding", "rms_error_theory")
    k_lo, k_hi = _ratio_range(rows, "k-rr", "rms_error_theory")
    b_min, b_max = min(r["B"] for r in rows), max(r["B"] for r in rows)
    heavy = {r["B"]: r["heavy_value_sd_theory"] for r in rows
             if r["protocol"] == "k-rr" and r["n"] == max(x["n"] for x in rows)}
    best = {(r["n"], r["B"]): r["max_error_mean"] for r in multi}
    wins = [f"{r['protocol']} at n={r['n']}, B={r['B']}" for r in rows
            if r["protocol"] != PROTOCOLS[0] and r["max_error_mean"] < best[(r["n"], r["B"])]]
    return (f"Per-value RMS error (closed forms): multi-message {_span(lo, hi, 3)} over every "
            f"n and B; unary encoding {_span(u_lo, u_hi, 2)}x and k-RR {_span(k_lo, k_hi, 2)}x "
            f"that. k-RR's heavy-value sd grows from {heavy[b_min]:.3g} (B={b_min}) to "
            f"{heavy[b_max]:.3g} (B={b_max}) at n={max(r['n'] for r in rows)}. Mean max error "
            "below the multi-message one's: "
            + ("; ".join(wins) if wins else "none") + ".")


def _plot(rows: list[dict[str, Any]]) -> Drawing:
    fig, axes = new_figure(2, nrows=2, width=5.0, height=3.8)
    ax_max, ax_rms, ax_heavy, ax_bits = axes
    ns = sorted({r["n"] for r in rows})
    for protocol in PROTOCOLS:
        c = _COLORS[protocol]
        for i, n in enumerate(ns):
            pts = sorted((r for r in rows if r["protocol"] == protocol and r["n"] == n),
                         key=lambda r: r["B"])
            Bs = [r["B"] for r in pts]
            mk, ls = _MARKERS[i % len(_MARKERS)], _LINES[i % len(_LINES)]
            label = f"{protocol}, n={n}"
            for ax, y, yerr, line in (
                    (ax_max, "max_error_mean", "max_error_sd", "max_error_indep_normal"),
                    (ax_rms, "rms_error", "rms_error_se", "rms_error_theory"),
                    (ax_heavy, "heavy_value_rms_error", "heavy_value_rms_error_se",
                     "heavy_value_sd_theory")):
                ax.errorbar(Bs, [r[y] for r in pts], yerr=[r[yerr] for r in pts], marker=mk,
                            linestyle="none", color=c, capsize=2, markersize=4, label=label)
                ax.plot(Bs, [r[line] for r in pts], linestyle=ls, color=c, linewidth=1,
                        alpha=0.8)
            ax_bits.plot(Bs, [r["bits_per_user"] for r in pts], marker=mk, linestyle=ls,
                         color=c, markersize=4, label=label)
    B_all = sorted({r["B"] for r in rows})
    for ax in (ax_rms, ax_heavy):  # sqrt(B) reference slope through the smallest B
        base = min(r["rms_error_theory"] for r in rows if r["B"] == B_all[0])
        ax.plot(B_all, [base * math.sqrt(b / B_all[0]) for b in B_all], color="grey",
                linestyle=(0, (1, 2)), linewidth=1, label="slope sqrt(B) (reference)")
        ax.set_yscale("log")
    ax_bits.set_yscale("log")
    for i, n in enumerate(ns):  # legend entries for the closed-form lines of each n
        ax_max.plot([], [], color="grey", linestyle=_LINES[i % len(_LINES)], linewidth=1,
                    label=f"closed form, n={n}")
    for ax, title in ((ax_max, "(a) max count error over the B values"),
                      (ax_rms, "(b) per-value RMS count error"),
                      (ax_heavy, "(c) RMS error on the heavy value (n/2 users)"),
                      (ax_bits, "(d) bits per user")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(B_all, [str(b) for b in B_all])
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        if ax.get_yscale() == "log":  # plain 1-2-5 labels instead of powers of ten
            ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel("domain size B")
        ax.set_title(title, fontsize=9)
        ax.grid(True, alpha=0.3, which="both")
    ax_max.set_ylabel("count error")
    ax_rms.set_ylabel("count error")
    ax_heavy.set_ylabel("count error")
    ax_bits.set_ylabel("bits")
    r0 = rows[0]
    return Drawing(
        fig, axes,
        f"GGKPV separation at one certified (eps, delta) = ({r0['epsilon']:g}, "
        f"{r0['delta']:g}), {r0['trials']} seeded trials. Markers: simulated (bars: sd over "
        "trials in (a), standard error in (b, c)); lines: closed forms (exact variances; in "
        "(a) the expected max of B independent normal errors, a reference). " + findings(rows))


FILES = FigureFiles(
    "ggkpv_separation",
    see_png="at the same certified (1, 1e-6): max (a), per-value RMS (b) and heavy-value (c) "
            "count errors of the multi-message Hadamard response, k-RR and unary encoding against "
            "B, and bits per user (d); the caption's numbers (error ratios, where a "
            "single-message protocol's max error is lower) are generated from the CSV's rows",
    see_csv="per (protocol, n, B): certified epsilon, rho or epsilon0, simulated max, per-value "
            "RMS and heavy-value errors beside their closed forms, bits and messages per user, "
            "query time")


def run(out_dir: Path, quick: bool) -> list[Path]:
    """Write ggkpv_separation.csv and .png.

    Args:
        out_dir: output directory.
        quick: trim the grid (QUICK: n = 250, B in {7, 127}, 5 trials), never the method.

    Returns:
        The files written.
    """
    rows = run_separation(**(QUICK if quick else {}), epsilon0_search=epsilon0_search)
    return FILES.write(
        out_dir, _plot(rows), header=HEADER, rows=rows,
        comments=["GGKPV separation at one certified (epsilon, delta); rho = least certified "
                  "(protocols.ggkpv.calibrate), epsilon0 = largest certified (k-RR: blanket pair; "
                  "unary encoding: clones pair); certified_epsilon is an upper bound",
                  "dataset: n//2 users on value 1 (the heavy value), the rest spread evenly over "
                  "2..B; errors simulated (seeded); grid ours",
                  "max_error_mean/sd: max over the B values of |estimate - count|, mean/sd over "
                  "trials; max_error_indep_normal: E max of B independent normal errors with the "
                  "exact per-value sds (a reference, not a bound)",
                  "rms_error: sqrt of the mean over trials and the B values of the squared error, "
                  "rms_error_se its standard error over trials; heavy_value_rms_error (_se): the "
                  "same on value 1 alone; *_theory: closed forms from the exact variances "
                  "(verify.ggkpv_separation.estimator_variances)"])


FIGURE = FigureSpec("ggkpv", "Ghazi, Golowich, Kumar, Pagh, Velingker, EUROCRYPT 2021",
                    "max, per-value RMS and heavy-value count error and bits per user of "
                    "multi-message Hadamard response vs k-RR and unary encoding at one "
                    "certified (epsilon, delta)", run, FILES.see)
