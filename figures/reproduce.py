"""`shuffle-accountant reproduce`: regenerate the seed papers' figures and tables.

Each `figures/fig_*.py` module exposes `FIGURE = FigureSpec(...)`, listed in the table
`figures.all_figures.FIGURES`; this command runs the selected ones and writes PNG + CSV files
under --out, the audit report `audit.md` (figures/audit_report.py), `index.json` listing what
was produced (and what failed, with the error, without hiding it) and `index.md`, which links
every file with one sentence on what to see in it. Progress (overall and per figure) goes to
stderr through tqdm, so that --json output on stdout stays clean.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
import traceback
from pathlib import Path
from typing import Any

from tqdm import tqdm

from figures import audit_report
from figures.figure_spec import FigureSpec
from figures.output_paths import output_directory
from figures.progress import set_progress

__all__ = ["register", "discover", "reproduce", "write_index_md", "AUDIT_NAME"]

AUDIT_NAME = "audit"  # the pseudo-figure of the audit report in index.json / --only


def discover() -> list[FigureSpec]:
    """All figure specs, sorted by name.

    Returns:
        The table figures.all_figures.FIGURES (imported here, not when the command line is
        built: it imports every figure's dependencies).
    """
    from figures.all_figures import FIGURES

    return sorted(FIGURES, key=lambda s: s.name)


def _audit_spec() -> FigureSpec:
    def run(out: Path, quick: bool) -> list[Path]:
        entries = audit_report.collect("all", quick=quick)
        return [audit_report.write_markdown(entries, out / "audit.md")]
    return FigureSpec(
        name=AUDIT_NAME, paper="all four seed papers",
        what="every checkable claim of the seed papers with its verdict and the command "
             "that reproduces it (figures/audit_report.py)", run=run,
        see=(("audit.md", "one row per claim: `violated` rows are the paper errors the "
                          "library found, `loose` rows give the factor by which a claim is "
                          "weaker than the exact value"),))


def reproduce(out: Path, *, quick: bool = False, only: list[str] | None = None,
              progress: bool = False) -> dict[str, Any]:
    """Run the figures and the audit report; write index.json and index.md.

    Args:
        out: the output directory (created).
        quick: smaller grids (CI), never a different method.
        only: figure names (and/or "audit") to run; None runs everything.
        progress: show progress bars on stderr (overall and per figure) and one line per
            finished figure.

    Returns:
        The index (also written to out/index.json).

    Raises:
        ParameterError: `only` names no figure.
    """
    from accountant.errors import ParameterError

    specs = [*discover(), _audit_spec()]
    names = {s.name for s in specs}
    if only:
        unknown = sorted(set(only) - names)
        if unknown:
            raise ParameterError(f"only={','.join(unknown)} names no figure; valid: "
                                 f"{', '.join(sorted(names))}")
        specs = [s for s in specs if s.name in only]
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    set_progress(progress)
    bar = tqdm(specs, desc="reproduce", unit="figure", file=sys.stderr, position=0,
               disable=not progress or None, dynamic_ncols=True)
    try:
        for spec in bar:
            bar.set_postfix_str(spec.name)
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
             + ("Quick mode: trimmed grids, same methods." if quick else ""), ""]
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


def _only(text: str | None) -> list[str] | None:
    """--only as a list of known names (None: not given), checked before anything runs."""
    from accountant.errors import ParameterError

    if text is None:
        return None
    names = [s.strip() for s in text.split(",") if s.strip()]
    valid = sorted(s.name for s in [*discover(), _audit_spec()])
    if not names:
        raise ParameterError(f"--only={text!r} names no figure; give comma-separated names "
                             f"from: {', '.join(valid)}")
    unknown = sorted(set(names) - set(valid))
    if unknown:
        raise ParameterError(f"--only={text!r}: {', '.join(unknown)} names no figure; valid: "
                             f"{', '.join(valid)}")
    return names


def _list(as_json: bool, only: list[str] | None) -> dict[str, Any]:
    specs = [s for s in [*discover(), _audit_spec()] if only is None or s.name in only]
    rows = [{"name": s.name, "paper": s.paper, "what": s.what} for s in specs]
    if as_json:
        return {"figures": rows}
    for r in rows:
        print("\n".join(textwrap.wrap(f"{r['name']}: {r['what']} [{r['paper']}]", 100,
                                      subsequent_indent="    ")))
    return {}


def _handler(args: argparse.Namespace) -> dict[str, Any]:
    # both flags are checked with --list too: a script's typo must not pass silently
    out = output_directory(args.out)
    only = _only(args.only)
    if args.list:
        return _list(args.json, only)
    index = reproduce(out, quick=args.quick, only=only, progress=not args.no_progress)
    failed = [e["name"] for e in index["figures"] if e["status"] != "ok"]
    if failed:
        from accountant.errors import AccountantError

        raise AccountantError(f"figures failed: {', '.join(failed)} (see "
                              f"{Path(args.out) / 'index.json'})")
    return {"out": index["out"], "index": str(Path(args.out) / "index.md"),
            "figures": [{k: e[k] for k in ("name", "status", "seconds", "files")}
                        for e in index["figures"]]}


def register(subparsers: Any) -> None:
    """Add the `reproduce` command to the CLI.

    Args:
        subparsers: the top-level subparsers object.
    """
    p = subparsers.add_parser("reproduce", help="regenerate the seed papers' figures and tables")
    p.add_argument("--out", default="reproduce-out",
                   help="output directory (PNG, CSV, audit.md, index.md, index.json; created "
                        "with its parents)")
    p.add_argument("--quick", action="store_true",
                   help="smaller grids, same methods (about 13 s on 2 cores)")
    p.add_argument("--only", default=None,
                   help="comma-separated figure names (see --list; 'audit' is the report)")
    p.add_argument("--list", action="store_true",
                   help="list the figure names (those of --only, if given) with one sentence "
                        "each, and exit")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bars on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_handler)
