"""`reproduce`: the command-line face of `figures.reproduce` (regenerate the seed papers'
figures and tables). The figures package is imported only when the command runs, so that
building the command line stays cheap."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import Any

from accountant.errors import AccountantError, ParameterError

__all__ = ["register"]


def _only(text: str | None) -> list[str] | None:
    """--only as a list of known names (None: not given), checked before anything runs."""
    from figures import reproduce as figures_run

    if text is None:
        return None
    names = [s.strip() for s in text.split(",") if s.strip()]
    valid = sorted(s.name for s in [*figures_run.discover(), figures_run.audit_spec()])
    if not names:
        raise ParameterError(f"--only={text!r} names no figure; give comma-separated names "
                             f"from: {', '.join(valid)}")
    unknown = sorted(set(names) - set(valid))
    if unknown:
        raise ParameterError(f"--only={text!r}: {', '.join(unknown)} names no figure; valid: "
                             f"{', '.join(valid)}")
    return names


def _list(as_json: bool, only: list[str] | None) -> dict[str, Any]:
    from figures import reproduce as figures_run

    specs = [s for s in [*figures_run.discover(), figures_run.audit_spec()]
             if only is None or s.name in only]
    rows = [{"name": s.name, "paper": s.paper, "what": s.what} for s in specs]
    if as_json:
        return {"figures": rows}
    for r in rows:
        print("\n".join(textwrap.wrap(f"{r['name']}: {r['what']} [{r['paper']}]", 100,
                                      subsequent_indent="    ")))
    return {}


def _handler(args: argparse.Namespace) -> dict[str, Any]:
    from figures import reproduce as figures_run
    from figures.output_paths import output_directory

    # both flags are checked with --list too: a script's typo must not pass silently
    out = output_directory(args.out)
    only = _only(args.only)
    if args.list:
        return _list(args.json, only)
    index = figures_run.reproduce(out, quick=args.quick, only=only,
                                  progress=not args.no_progress)
    failed = [e["name"] for e in index["figures"] if e["status"] != "ok"]
    if failed:
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
                   help="smaller grids and coarser settings, so numbers can differ (about 14 s "
                        "on 2 cores)")
    p.add_argument("--only", default=None,
                   help="comma-separated figure names (see --list; 'audit' is the report)")
    p.add_argument("--list", action="store_true",
                   help="list the figure names (those of --only, if given) with one sentence "
                        "each, and exit")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bars on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_handler)
