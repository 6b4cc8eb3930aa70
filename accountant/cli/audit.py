"""`audit PAPER`: the command-line face of `figures.audit_report` (the checked claims of a
seed paper, or of all four, as audit records). The figures package is imported only when
the command runs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from accountant.cli.types import integer
from accountant.domains import Interval
from accountant.errors import ParameterError

__all__ = ["add_arguments", "handler"]

_WIDTH = Interval("width", 40, 400, closed="both", integer=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the `audit PAPER` flags.

    Args:
        parser: the subcommand's argparse parser.
    """
    parser.add_argument("--quick", action="store_true",
                        help="a subset that runs in a few seconds (one point per grid, no "
                             "slow max-divergence runs)")
    parser.add_argument("--out", default=None, metavar="FILE.md",
                        help="also write the report as Markdown to this file (missing "
                             "parent directories are created)")
    parser.add_argument("--width", type=integer(_WIDTH), default=100,
                        help="line width of the terminal table, 40 to 400 (default 100)")


def handler(args: argparse.Namespace) -> dict[str, Any]:
    """`shuffle-accountant audit PAPER`.

    With --json the records and summary are returned for printing as JSON; otherwise the
    wrapped table is printed here and only the summary is returned (the generic printer
    of the command line would put each record on one long line).

    Args:
        args: parsed flags; args.protocol is "all" or a paper name.

    Returns:
        {"records": [...], "summary": {...}} (and "report": the Markdown path with --out);
        without --json, {} or {"report": path} (the table has the summary line).

    Raises:
        ParameterError: --out is empty, a directory, below a file, or cannot be written.
    """
    from figures import audit_report
    from figures.output_paths import output_file

    # checked before the audit runs: '' used to be ignored, a directory or a path below a
    # file ended the run in a traceback at the write
    report = None if args.out is None else output_file(args.out, example="audit.md")
    entries = audit_report.collect(
        args.protocol, quick=args.quick,
        progress=lambda name: print(f"auditing {name} ...", file=sys.stderr))
    out: dict[str, Any] = {"records": [e.to_json() for e in entries],
                           "summary": audit_report.summary(entries)}
    if report is not None:
        try:
            out["report"] = str(audit_report.write_markdown(entries, report))
        except OSError as exc:  # e.g. no permission: one line, not a traceback
            raise ParameterError(f"--out={args.out!r}: cannot write the report "
                                 f"({exc.strerror or exc})") from None
    if args.json:
        return out
    print(audit_report.format_table(entries, width=max(60, args.width)))
    return {"report": out["report"]} if "report" in out else {}
