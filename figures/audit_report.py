"""`shuffle-accountant audit all` / `audit PAPER`: the seed papers' claims the library checks.

One `AuditEntry` per claim: the paper, the locator (theorem, remark, figure), the claim in
one line, the computed value(s) with their kind, a verdict and the shell command that
reproduces the first computed value. Verdicts (`VERDICTS`):

- `holds`: the certified computation confirms the claim, within a factor LOOSE_FACTOR;
- `loose`: it holds, but the paper's number is at least LOOSE_FACTOR times weaker than the
  computed value (`factor` = claimed / computed for an upper bound, computed / claimed for
  a lower bound);
- `violated`: a certified (or exact) computation contradicts the claim (`factor` = how far
  past the claim);
- `not applicable`: nothing can be computed (an asymptotic statement, a heuristic pipeline,
  a hypothesis that fails); `reason` says which;
- `undecided`: the certified bracket straddles the claim (tighten the computation).

Every computed value is obtained by a snippet function of `figures.audit_papers` that calls the
library's public functions (`accountant.protocols`, `accountant.bounds`,
`accountant.divergence`, ...) or by the library function behind an existing
`shuffle-accountant` command. A snippet function is called here and its body, with its
arguments written in, is the record's `python -c` command (`Snippet`), so the command is by
construction the computation that produced the number. Papers: docs/balcer-cheu-2020.md,
docs/girgis-2021.md, docs/gkm.md, docs/ggkpv.md; the paper errors are listed in
docs/errata.md.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import json
import math
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from accountant.audit import LOOSE_FACTOR, upper_verdict
from accountant.audit import VERDICTS as AUDIT_VERDICTS
from accountant.errors import ParameterError

__all__ = ["AuditEntry", "CliCommand", "LOOSE_FACTOR", "PAPERS", "Snippet", "VERDICTS",
           "collect", "format_table", "reproduce_command",
           "snippet_command", "snippet_lines", "summary", "upper_verdict", "write_markdown"]

# the verdicts of accountant.audit, plus "not applicable" (nothing can be computed)
VERDICTS = (*AUDIT_VERDICTS, "not applicable")
# CLI name -> title used in reports
PAPERS: dict[str, str] = {
    "balcer-cheu-2020": "Balcer-Cheu, ITC 2020",
    "girgis-2021": "Girgis et al., CCS 2021",
    "gkm": "Ghazi-Kumar-Manurangsi (pure-DP aggregation)",
    "ggkpv": "Ghazi-Golowich-Kumar-Pagh-Velingker (slides)",
}


@dataclass(frozen=True)
class AuditEntry:
    """One claim of a seed paper checked against the library.

    Attributes:
        paper: the CLI name of the paper (a key of PAPERS).
        locator: where the claim is (theorem, remark, figure).
        claim: the claim in one line.
        computed: the computed values, each {"quantity", "value", "kind"}; the first is the
            one `command` prints.
        verdict: one of VERDICTS.
        factor: claimed/computed (upper-bound claims), computed/claimed (lower-bound claims)
            or computed/claimed past the claim (violations); None when not meaningful.
        command: a shell command that reproduces computed[0].
        reason: why the verdict, where it is not self-evident (errata, caveats, n/a).
    """

    paper: str
    locator: str
    claim: str
    computed: list[dict[str, Any]]
    verdict: str
    factor: float | None
    command: str
    reason: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (non-finite floats as strings).

        Returns:
            {"paper", "locator", "claim", "computed", "verdict", "factor", "command",
            "reason"}.
        """
        def clean(x: Any) -> Any:
            if isinstance(x, float) and not math.isfinite(x):
                return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
            return x
        return {"paper": self.paper, "locator": self.locator, "claim": self.claim,
                "computed": [{k: clean(v) for k, v in c.items()} for c in self.computed],
                "verdict": self.verdict, "factor": clean(self.factor),
                "command": self.command, "reason": self.reason}


# ----------------------------------------------------------------------------- helpers
def snippet_lines(function: Callable[..., Any],
                  arguments: Mapping[str, Any] | None = None) -> list[str]:
    """The body of a snippet function as the lines of a command, its arguments written in.

    Each statement becomes one line (a statement's line breaks and indentation read as one
    space) and the returned tuple the last line; a name of an argument becomes the argument's
    literal (repr), or `alias.name` for a function of a module the body imports as `alias`.

    Args:
        function: a snippet function of figures.audit_papers (see its rules).
        arguments: the keyword arguments it is called with.

    Returns:
        The lines, the last one a tuple expression.

    Raises:
        TypeError: the arguments do not fit the function's signature.
        ValueError: the function breaks a rule (a block statement, no final tuple, a name from
            outside, an argument rebound, an argument without a literal).
    """
    arguments = dict(arguments or {})
    inspect.signature(function).bind(**arguments)
    source = textwrap.dedent(inspect.getsource(function))
    definition = ast.parse(source).body[0]
    if not isinstance(definition, ast.FunctionDef):
        raise ValueError(f"{function.__name__} is not a plain function")
    *statements, last = definition.body
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Tuple)):
        raise ValueError(f"{function.__name__} does not end in `return (...)`, a tuple")
    simple = (ast.Assign, ast.Expr, ast.Import, ast.ImportFrom)
    if not all(isinstance(statement, simple) for statement in statements):
        raise ValueError(f"{function.__name__} has a block statement: it cannot be one line")
    aliases = _imported_modules(definition)
    _check_names(function.__name__, definition, arguments, aliases)
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return line_starts[line - 1] + column

    def text(node: ast.AST) -> str:
        start = offset(node.lineno, node.col_offset)
        names = sorted((n for n in ast.walk(node) if isinstance(n, ast.Name)
                        and n.id in arguments), key=lambda n: (n.lineno, n.col_offset))
        pieces = []
        for name in names:
            pieces += [source[start:offset(name.lineno, name.col_offset)],
                       _literal(arguments[name.id], aliases)]
            start = offset(name.end_lineno, name.end_col_offset)
        pieces.append(source[start:offset(node.end_lineno, node.end_col_offset)])
        return re.sub(r"\s*\n\s*", " ", "".join(pieces))

    return [text(statement) for statement in statements] + [text(last.value)]


def _imported_modules(definition: ast.FunctionDef) -> dict[str, str]:
    """Full module name -> the name the function's body imports it as."""
    aliases = {}
    for node in ast.walk(definition):
        if isinstance(node, ast.Import):
            aliases |= {a.name: a.asname or a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            aliases |= {f"{node.module}.{a.name}": a.asname or a.name for a in node.names}
    return aliases


def _check_names(function: str, definition: ast.FunctionDef, arguments: Mapping[str, Any],
                 aliases: Mapping[str, str]) -> None:
    """Every name the body reads is an argument, bound in the body or a builtin, and no
    argument is rebound (its literal would be written in where the body means the new one)."""
    nodes = [node for statement in definition.body for node in ast.walk(statement)]
    bound = set(aliases.values())
    bound |= {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {n.arg for n in nodes if isinstance(n, ast.arg)}
    if bound & set(arguments):
        raise ValueError(f"{function} rebinds its argument(s) {sorted(bound & set(arguments))}")
    read = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    outside = read - bound - set(arguments) - set(dir(builtins))
    if outside:
        raise ValueError(f"{function} reads {sorted(outside)} from outside its body; the "
                         "command would not know them")


def _literal(value: Any, aliases: Mapping[str, str]) -> str:
    """An argument as the command writes it (see snippet_lines)."""
    if callable(value):
        module = getattr(value, "__module__", None)
        if (module in aliases
                and getattr(sys.modules.get(module), value.__name__, None) is value):
            return f"{aliases[module]}.{value.__name__}"
        raise ValueError(f"{value!r} is not a function of a module the snippet imports")
    if not _plain(value):
        raise ValueError(f"{value!r} is not a number, a string or a tuple of them: its repr "
                         "might not read back as itself")
    return repr(value)


def _plain(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return type(value) in (int, str, bool) or (type(value) is float and math.isfinite(value))


def snippet_command(lines: Sequence[str]) -> str:
    """The `python -c` command that runs the snippet and prints its value(s) with repr.

    Args:
        lines: statements, one a line; the last line is a tuple expression of numbers; they
            must not contain double quotes or `$`.

    Returns:
        The shell command.

    Raises:
        ValueError: if a line would break the double-quoted shell word.
    """
    for line in lines:
        if any(c in line for c in '"$`\\'):
            raise ValueError(f"snippet line {line!r} cannot be double-quoted for the shell")
    body = "; ".join([*lines[:-1], f"print(*map(float, {lines[-1]}))"])
    return f'python -c "{body}"'


@dataclass(frozen=True)
class Snippet:
    """A computation of the audit: a snippet function of figures.audit_papers and its arguments.

    Attributes:
        function: the snippet function (a tuple of numbers comes back).
        arguments: its keyword arguments, written into the command as literals.
    """

    function: Callable[..., tuple[Any, ...]]
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def values(self) -> tuple[Any, ...]:
        """The function's values, computed here.

        Raises:
            TypeError: the function did not return a tuple.
        """
        value = self.function(**self.arguments)
        if not isinstance(value, tuple):
            raise TypeError(f"snippet {self.function.__name__} returned a "
                            f"{type(value).__name__}, not a tuple")
        return value

    def command(self) -> str:
        """The `python -c` command that computes and prints the same values."""
        return snippet_command(snippet_lines(self.function, self.arguments))


@dataclass(frozen=True)
class CliCommand:
    """A computation of the audit by an existing `shuffle-accountant` command: the values
    come from the library function its handler calls, computed here (tests run the command).

    Attributes:
        argv: the command's arguments after `shuffle-accountant`.
        result: the values.
    """

    argv: tuple[str, ...]
    result: tuple[Any, ...]

    def values(self) -> tuple[Any, ...]:
        """The values."""
        return self.result

    def command(self) -> str:
        """The shell command."""
        return "shuffle-accountant " + " ".join(self.argv)


# verdict, factor, reason (see AuditEntry)
Verdict = tuple[str, float | None, str]


def _record(paper: str, locator: str, claim: str, computation: Snippet | CliCommand | None,
            names: Sequence[tuple[str, str]],
            decide: Callable[[tuple[Any, ...]], Verdict] | Verdict) -> AuditEntry:
    """The one builder of audit records: compute, name the values, decide the verdict.

    Args:
        paper, locator, claim: as in AuditEntry.
        computation: where the values come from and the command that reproduces them; None
            when nothing is computed (the command is then `shuffle-accountant audit PAPER`).
        names: (quantity, kind) for each value.
        decide: values -> (verdict, factor, reason), or that triple when it is known already.

    Returns:
        The entry.
    """
    values = () if computation is None else computation.values()
    computed = [{"quantity": q, "value": float(v), "kind": k}
                for (q, k), v in zip(names, values, strict=True)]
    verdict, factor, reason = decide(values) if callable(decide) else decide
    command = (f"shuffle-accountant audit {paper}" if computation is None
               else computation.command())
    return AuditEntry(paper, locator, claim, computed, verdict, factor, command, reason)


# `_record` with the paper filled in: what each paper's audit gets to make its records
Record = Callable[..., AuditEntry]


# paper -> the module of `figures.audit_papers` whose `audit(quick, record)` yields its
# records, each made by `record`, the one record builder with the paper filled in (one module
# per paper, imported when its paper is audited)
_AUDITS: dict[str, str] = {"balcer-cheu-2020": "balcer_cheu", "girgis-2021": "girgis",
                           "gkm": "gkm", "ggkpv": "ggkpv"}


def collect(paper: str = "all", *, quick: bool = False,
            progress: Callable[[str], None] | None = None) -> list[AuditEntry]:
    """Every audit entry of one paper or of all four.

    Args:
        paper: "all" or a key of PAPERS.
        quick: a subset that runs in seconds (one grid point per grid, no slow
            max-divergence runs).
        progress: called with each paper's name before it is audited.

    Returns:
        The entries, paper by paper.

    Raises:
        ParameterError: unknown paper.
    """
    if paper != "all" and paper not in _AUDITS:
        raise ParameterError(f"audit {paper!r}: expected 'all' or one of {', '.join(PAPERS)}")
    entries: list[AuditEntry] = []
    for name in (_AUDITS if paper == "all" else (paper,)):
        if progress is not None:
            progress(name)
        module = importlib.import_module(f"figures.audit_papers.{_AUDITS[name]}")
        entries.extend(module.audit(quick, partial(_record, name)))
    return entries


def summary(entries: Sequence[AuditEntry]) -> dict[str, Any]:
    """Counts by verdict and by paper.

    Args:
        entries: audit entries.

    Returns:
        {"records": n, "verdicts": {verdict: count}, "papers": {paper: count}}.
    """
    verdicts = {v: sum(e.verdict == v for e in entries) for v in VERDICTS}
    papers: dict[str, int] = {}
    for e in entries:
        papers[e.paper] = papers.get(e.paper, 0) + 1
    return {"records": len(entries), "verdicts": {k: v for k, v in verdicts.items() if v},
            "papers": papers}


def _fmt_value(v: Any) -> str:
    if isinstance(v, str):
        return v
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.6g}"


def _computed_text(e: AuditEntry) -> str:
    return "; ".join(f"{c['quantity']} = {_fmt_value(c['value'])} ({c['kind']})"
                     for c in e.computed) or "-"


def _verdict_text(e: AuditEntry) -> str:
    if e.factor is None or not math.isfinite(e.factor):
        return e.verdict
    return f"{e.verdict} (x{e.factor:.3g})"


def format_table(entries: Sequence[AuditEntry], width: int = 100) -> str:
    """The entries as a plain-text table, every line at most `width` characters.

    Args:
        entries: audit entries.
        width: the maximal line length (>= 60).

    Returns:
        The table: per entry a header line (paper, locator, verdict) and wrapped lines for
        the claim, the computed values, the reason and the command.
    """
    lines = []
    for e in entries:
        head = f"[{e.paper}] {e.locator}: {_verdict_text(e)}"
        lines.extend(textwrap.wrap(head, width, subsequent_indent="    "))
        for label, text in (("claim", e.claim), ("computed", _computed_text(e)),
                            ("why", e.reason)):
            if text:
                lines.extend(textwrap.wrap(text, width, initial_indent=f"  {label}: ",
                                           subsequent_indent="    "))
        cmd = textwrap.wrap(e.command, width - 2, initial_indent="  $ ",
                            subsequent_indent="      ", break_long_words=False,
                            break_on_hyphens=False)
        lines.extend(line + " \\" for line in cmd[:-1])
        lines.append(cmd[-1])
    s = summary(entries)
    lines.append(f"{s['records']} records: " + ", ".join(f"{k} {v}"
                                                          for k, v in s["verdicts"].items()))
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_markdown(records: Sequence[AuditEntry], path: Path) -> Path:
    """Write the audit report as Markdown: a summary, then one table per paper.

    Args:
        records: audit entries.
        path: the .md file to write (parents are created).

    Returns:
        path.
    """
    s = summary(records)
    out = ["# Audit of the seed papers' claims", "",
           "Each row is one checkable claim, checked by the library "
           "(`shuffle-accountant audit all`). Verdicts: `holds`; `loose` (holds, the "
           f"paper's number at least {LOOSE_FACTOR:g}x weaker than computed; the factor is "
           "shown); `violated` (a certified or exact computation contradicts it); "
           "`not applicable` (nothing to compute, reason given); `undecided`. Paper errors "
           "are discussed in docs/errata.md. Every command reproduces the first computed "
           "value.", "",
           f"{s['records']} records: " + ", ".join(f"{k} {v}" for k, v in s["verdicts"].items()),
           ""]
    for paper, title in PAPERS.items():
        rows = [r for r in records if r.paper == paper]
        if not rows:
            continue
        out += [f"## {title}", "", "| locator | claim | computed | verdict | notes | command |",
                "|---|---|---|---|---|---|"]
        for r in rows:
            out.append(f"| {_md(r.locator)} | {_md(r.claim)} | {_md(_computed_text(r))} | "
                       f"{_md(_verdict_text(r))} | {_md(r.reason)} | `{_md(r.command)}` |")
        out.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out))
    return path


def reproduce_command(entry: dict[str, Any], timeout: float = 300) -> str:
    """Run an entry's command (a shell command) and return its stdout.

    Args:
        entry: an entry's JSON.
        timeout: seconds.

    Returns:
        The command's standard output.

    Raises:
        subprocess.CalledProcessError: the command failed.
    """
    done = subprocess.run(entry["command"], shell=True, capture_output=True, text=True,
                          timeout=timeout, check=True)
    return done.stdout


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps([e.to_json() for e in collect(quick=True)], indent=1))
