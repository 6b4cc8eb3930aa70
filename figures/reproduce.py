"""`shuffle-accountant reproduce`: regenerate the seed papers' figures and tables.

Each `figures/fig_*.py` module exposes `FIGURE = FigureSpec(...)`; this command discovers
them, runs the selected ones and writes PNG + CSV files under --out, plus `index.json`
listing what was produced (and what failed, with the error, without hiding it).
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import time
import traceback
from pathlib import Path
from typing import Any

import figures
from figures.common import FigureSpec

__all__ = ["register", "discover", "reproduce"]


def discover() -> list[FigureSpec]:
    """All figure specs, sorted by name."""
    specs = []
    for info in pkgutil.iter_modules(figures.__path__):
        if info.name.startswith("fig_"):
            spec = getattr(importlib.import_module(f"figures.{info.name}"), "FIGURE", None)
            if spec is not None:
                specs.append(spec)
    return sorted(specs, key=lambda s: s.name)


def reproduce(out: Path, *, quick: bool = False, only: list[str] | None = None) -> dict[str, Any]:
    """Run the figures; returns the index (also written to out/index.json)."""
    from accountant.errors import ParameterError

    specs = discover()
    names = {s.name for s in specs}
    if only:
        unknown = sorted(set(only) - names)
        if unknown:
            raise ParameterError(f"only={','.join(unknown)} names no figure; valid: "
                                 f"{', '.join(sorted(names))}")
        specs = [s for s in specs if s.name in only]
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for spec in specs:
        t0 = time.perf_counter()
        try:
            files = spec.run(out, quick)
            entries.append({"name": spec.name, "paper": spec.paper, "what": spec.what,
                            "files": [str(f) for f in files], "status": "ok",
                            "seconds": round(time.perf_counter() - t0, 2)})
        except Exception as exc:  # a broken figure must be visible, and not stop the others
            entries.append({"name": spec.name, "paper": spec.paper, "status": "failed",
                            "error": f"{type(exc).__name__}: {exc}",
                            "traceback": traceback.format_exc(limit=5)})
    index = {"out": str(out), "quick": quick, "figures": entries}
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    return index


def _handler(args: argparse.Namespace) -> dict[str, Any]:
    only = [s for s in (args.only or "").split(",") if s] or None
    index = reproduce(Path(args.out), quick=args.quick, only=only)
    failed = [e["name"] for e in index["figures"] if e["status"] != "ok"]
    if failed:
        from accountant.errors import AccountantError

        raise AccountantError(f"figures failed: {', '.join(failed)} (see "
                              f"{Path(args.out) / 'index.json'})")
    return {"out": index["out"], "figures": [{k: e[k] for k in ("name", "status", "files")}
                                             for e in index["figures"]]}


def register(subparsers: Any) -> None:
    """Add the `reproduce` command to the CLI."""
    p = subparsers.add_parser("reproduce", help="regenerate the seed papers' figures and tables")
    p.add_argument("--out", default="reproduce-out", help="output directory")
    p.add_argument("--quick", action="store_true", help="smaller grids (CI)")
    p.add_argument("--only", default=None, help="comma-separated figure names")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_handler)
