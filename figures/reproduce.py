"""`shuffle-accountant reproduce`: regenerate the seed papers' figures and tables.

Each `figures/fig_*.py` module exposes `FIGURE = FigureSpec(...)`, listed in the table
`figures.all_figures.FIGURES`; this command runs the selected ones and writes PNG + CSV files
under --out, the audit report `audit.md` (figures/audit_report.py), `index.json` listing what
was produced (and what failed, with the error, without hiding it) and `index.md`, which links
every file with one sentence on what to see in it. Progress (overall and per figure) goes to
stderr through tqdm, so that --json output on stdout stays clean.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from tqdm import tqdm

from figures import audit_report
from figures.figure_spec import FigureSpec
from figures.progress import set_progress

__all__ = ["discover", "audit_spec", "reproduce", "write_index_md", "AUDIT_NAME"]

AUDIT_NAME = "audit"  # the pseudo-figure of the audit report in index.json / --only


def discover() -> list[FigureSpec]:
    """All figure specs, sorted by name.

    Returns:
        The table figures.all_figures.FIGURES (imported here, not when the command line is
        built: it imports every figure's dependencies).
    """
    from figures.all_figures import FIGURES

    return sorted(FIGURES, key=lambda s: s.name)


def audit_spec() -> FigureSpec:
    """The audit report as a pseudo-figure (name AUDIT_NAME) of the reproduce run.

    Returns:
        Its FigureSpec: running it writes audit.md.
    """
    def run(out: Path, quick: bool) -> list[Path]:
        entries = audit_report.collect("all", quick=quick)
        return [audit_report.write_markdown(entries, out / "audit.md")]
    return FigureSpec(
        name=AUDIT_NAME, paper="all four seed papers",
        what="the seed papers' claims the library checks, each with its verdict and the "
             "command that reproduces it (figures/audit_report.py)", run=run,
        see=(("audit.md", "one row per claim: a `violated` row contradicts the claim as the "
                          "library reads it (docs/errata.md says which are the paper's errors "
                          "and which rest on a reconstructed formula), `loose` rows give the "
                          "factor by which a claim is weaker than the computed value"),))


def reproduce(out: Path, *, quick: bool = False, only: list[str] | None = None,
              progress: bool = False) -> dict[str, Any]:
    """Run the figures and the audit report; write index.json and index.md.

    Args:
        out: the output directory (created).
        quick: smaller grids (CI), never a different method.
        only: figure names (and/or "audit") to run; None runs everything.
        progress: show progress bars on stderr (overall and per figure; a terminal only) and
            a line per figure when it starts (with its time in the previous run into `out`,
            if any) and when it ends (through a pipe too).

    Returns:
        The index (also written to out/index.json).

    Raises:
        ParameterError: `only` names no figure.
    """
    from accountant.errors import ParameterError

    specs = [*discover(), audit_spec()]
    names = {s.name for s in specs}
    if only:
        unknown = sorted(set(only) - names)
        if unknown:
            raise ParameterError(f"only={','.join(unknown)} names no figure; valid: "
                                 f"{', '.join(sorted(names))}")
        specs = [s for s in specs if s.name in only]
    out.mkdir(parents=True, exist_ok=True)
    expected = _expected_seconds(out, quick)
    entries = []
    set_progress(progress)
    bar = tqdm(specs, desc="reproduce", unit="figure", file=sys.stderr, position=0,
               disable=not progress or None, dynamic_ncols=True)
    try:
        for spec in bar:
            bar.set_postfix_str(spec.name)
            if progress:
                # a line per stage before it runs, so a pipe or a log shows what is running
                # and how long it took last time (tqdm's bars need a terminal)
                guess = expected.get(spec.name)
                tqdm.write(f"{spec.name}: started" + (
                    f" (last run here: {guess:.1f} s)" if guess is not None else ""),
                    file=sys.stderr)
            t0 = time.perf_counter()
            try:
                files = spec.run(out, quick)
                entry = {"name": spec.name, "paper": spec.paper, "what": spec.what,
                         "files": [str(f) for f in files], "status": "ok",
                         "seconds": round(time.perf_counter() - t0, 2)}
            except Exception as exc:  # a broken figure must be visible, not stop the others
                entry = {"name": spec.name, "paper": spec.paper, "what": spec.what,
                         "files": [], "status": "failed",
                         "error": f"{type(exc).__name__}: {exc}",
                         "traceback": traceback.format_exc(limit=5),
                         "seconds": round(time.perf_counter() - t0, 2)}
            entries.append(entry)
            if progress:
                tqdm.write(f"{spec.name}: {entry['status']} in {entry['seconds']:.1f} s",
                           file=sys.stderr)
    finally:
        bar.close()
        set_progress(False)
    index = {"out": str(out), "quick": quick, "figures": entries}
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    write_index_md(out, entries, {s.name: s for s in specs}, quick=quick)
    return index


def _expected_seconds(out: Path, quick: bool) -> dict[str, float]:
    """Each figure's time in the previous run into `out` with the same `quick` (its
    index.json), or nothing: the estimate printed beside each stage."""
    try:
        index = json.loads((out / "index.json").read_text())
        if bool(index.get("quick")) != quick:
            return {}
        return {str(e["name"]): float(e["seconds"]) for e in index.get("figures", [])
                if e.get("status") == "ok"}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def write_index_md(out: Path, entries: list[dict[str, Any]], specs: dict[str, FigureSpec],
                   *, quick: bool) -> Path:
    """Write out/index.md: per figure, its statement and every file with what to see in it.

    Args:
        out: the output directory.
        entries: the index entries (as in index.json).
        specs: name -> FigureSpec (for the per-file sentences).
        quick: whether the grids were trimmed.

    Returns:
        The path of index.md.
    """
    lines = ["# Reproduced figures", "",
             f"Written by `shuffle-accountant reproduce{' --quick' if quick else ''}`. "
             "Each figure's CSV starts with `#` comments naming the library function and the "
             "kind (upper, lower, exact, heuristic) of every column. "
             + ("Quick mode: trimmed grids and coarser settings (fewer orders and grid points), so "
                "numbers can differ from the full run, which docs/ quotes." if quick else ""), ""]
    for e in entries:
        spec = specs.get(e["name"])
        see = dict(spec.see) if spec is not None else {}
        lines += [f"## {e['name']} ({e['paper']})", "", f"{e.get('what', '')}.", ""]
        if e["status"] != "ok":
            lines += [f"**Failed**: {e.get('error', '')} (traceback in index.json).", ""]
        for f in e["files"]:
            name = Path(f).name
            sentence = see.get(name) or ("the data behind the plot, one row per point"
                                         if name.endswith(".csv") else e.get("what", ""))
            lines.append(f"- [{name}]({name}): {sentence}")
        lines.append("")
    path = out / "index.md"
    path.write_text("\n".join(lines))
    return path
