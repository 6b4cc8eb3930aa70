"""Every command line written in README.md and docs/*.md runs, as written, in a test.

What counts as a command line (`doc_lines` below):

- in a fenced block labelled sh, bash, shell or console, or unlabelled: each line that starts
  with `shuffle-accountant` or `python -m accountant` (a `$ ` prompt allowed; backslash
  continuations joined; in an unlabelled block, indented lines after such a line continue
  it); the parts of a line joined by `&&` are taken one by one;
- in the prose: every inline code span that starts with `shuffle-accountant` or
  `python -m accountant`.

Each is one of three kinds:

- a *synopsis* (placeholders: `[...]`, `a|b`, `(... | ...)`, `...`, metavars in capitals
  such as PROTOCOL, DIR): not run; every flag it names must be a flag of a command it
  names, and every `--flag a|b|c` list must be that flag's choices;
- a *name*: an inline span without flags that names a command whose parser needs flags
  (`shuffle-accountant compose` in a sentence): checked with `--help`;
- everything else is *run*: `python -m accountant.cli ARGS` in a fresh temporary directory,
  with exit status 0 and a non-empty stdout (or the status that a trailing
  `# exits N` comment documents), and, after a `$ ` prompt, exactly the output shown under it.
  A file that a page shows as a ```json or ```csv block right after naming it (README's
  `my_randomizer.json`) is written into that directory first.

Not run: `pip`, `mkdocs`, `mutmut` and `pytest` lines (installs, the site, mutation testing
and this suite itself); any other program in a shell block is an error, so that a new kind
of line needs a rule here. Lines that take minutes (`reproduce` without `--quick`,
`audit all` without `--quick`, `selfcheck` with its default one-minute budget) are marked
`slow`.

The second half checks that every parser of the command line refuses abbreviated flags
(`allow_abbrev=False`): `dp ldp --n 1000 --epsilon 1` must not be read as `--epsilon0`.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from accountant.cli.main import build_parser, leaf_parsers, main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE_OPEN = re.compile(r"^ {0,3}```+\s*([\w-]*)")
SHELL_LANGUAGES = {"", "sh", "bash", "shell", "console"}
FILE_LANGUAGES = {"json", "csv"}
PROGRAMS = ("shuffle-accountant", "python -m accountant.cli", "python -m accountant")
NOT_RUN = re.compile(r"^(?:(?:python3? -m )?(?:pip|mkdocs|mutmut|pytest)(?:\s|$)"
                     r"|[A-Za-z_]\w*=\S*$)")  # (or a shell variable set for the next lines)
EXIT_MARK = re.compile(r"#\s*exits?\s+(?:with\s+)?(?:status\s+)?(\d+)")
INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
NAMED_FILE = re.compile(r"`([\w.-]+\.(?:json|csv))`")


def _placeholder(word: str) -> bool:
    return bool(re.search(r"[\[\]|()…]|\.\.\.", word) or re.fullmatch(r"[A-Z][A-Z0-9_]*", word))


@dataclass(frozen=True)
class DocLine:
    """One command line of a page."""

    page: str  # relative to the repository root
    line: int  # 1-based line of the command's first line
    text: str  # as written (continuations joined)
    argv: tuple[str, ...]  # the words after the program
    kind: str  # "run", "synopsis" or "name"
    status: int  # the documented exit status
    output: tuple[str, ...] | None  # what a `$ ` line shows under it, if anything
    files: tuple[tuple[str, str], ...]  # (name, content) the page provides

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


LEAVES = dict(leaf_parsers(build_parser()))


def _needs_flags(parser: argparse.ArgumentParser) -> bool:
    return (any(a.required for a in parser._actions if a.option_strings)
            or any(g.required for g in parser._mutually_exclusive_groups))


def _names_a_command(argv: tuple[str, ...]) -> bool:
    """Flagless words that name a command rather than run it: the program alone, a command
    with subcommands (`dp`), or a leaf whose parser needs flags (`compose`)."""
    if argv in LEAVES:
        return _needs_flags(LEAVES[argv])
    return any(path[:len(argv)] == argv for path in LEAVES)


def _classify(text: str, *, inline: bool) -> tuple[tuple[str, ...], str, int]:
    words = shlex.split(text, comments=True)
    skip = next(len(p.split()) for p in PROGRAMS if words[:len(p.split())] == p.split())
    argv = tuple(words[skip:])
    mark = EXIT_MARK.search(text)
    status = int(mark.group(1)) if mark else 0
    if any(_placeholder(w) for w in argv):
        return argv, "synopsis", status
    if inline and not any(w.startswith("-") for w in argv) and _names_a_command(argv):
        return argv, "name", status
    return argv, "run", status


def _is_cli(text: str) -> bool:
    return any(text == p or text.startswith(p + " ") for p in PROGRAMS)


def _parts(text: str) -> list[str]:
    """The commands of a line joined by `&&` or `;`, a trailing `# comment` kept on the last."""
    code, hash_, comment = text.partition(" #")
    parts = [p.strip() for p in re.split(r"&&|;", code) if p.strip()]
    if parts and hash_:
        parts[-1] += hash_ + comment
    return parts


def scan(path: Path, text: str | None = None) -> tuple[list[DocLine], list[str]]:
    """(the command lines of a page, the lines of its shell blocks that no rule covers)."""
    text = path.read_text() if text is None else text
    page = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
    lines = text.split("\n")
    found: list[tuple[int, str, bool, tuple[str, ...] | None]] = []
    unknown: list[str] = []
    files: list[tuple[str, str]] = []
    prose = lines[:]  # the page with its fenced blocks blanked (for the inline spans)
    since_fence: list[str] = []
    i = 0
    while i < len(lines):
        opening = FENCE_OPEN.match(lines[i])
        if not opening:
            since_fence.append(lines[i])
            i += 1
            continue
        language = opening.group(1).lower()
        start = i
        i += 1
        body: list[tuple[int, str]] = []
        while i < len(lines) and not FENCE_OPEN.match(lines[i]):
            body.append((i + 1, lines[i]))
            i += 1
        for k in range(start, min(i + 1, len(lines))):
            prose[k] = ""
        i += 1
        if language in FILE_LANGUAGES:
            names = NAMED_FILE.findall("\n".join(since_fence))
            if names:
                files.append((names[-1], "\n".join(line for _, line in body) + "\n"))
        since_fence = []
        if language in SHELL_LANGUAGES:
            found += _scan_block(body, labelled=language != "", unknown=unknown, page=page)
    for match in INLINE.finditer("\n".join(prose)):
        span = " ".join(match.group(1).split())
        line = "\n".join(prose)[:match.start()].count("\n") + 1
        if _is_cli(span):
            found += [(line, part, True, None) for part in _parts(span) if _is_cli(part)]
    out = []
    for line, command, inline, output in found:
        argv, kind, status = _classify(command, inline=inline)
        out.append(DocLine(page, line, command, argv, kind, status, output, tuple(files)))
    return out, unknown


def _scan_block(body: list[tuple[int, str]], *, labelled: bool, unknown: list[str],
                page: str) -> list[tuple[int, str, bool, tuple[str, ...] | None]]:
    prompted = any(line.startswith("$ ") for _, line in body)
    logical: list[tuple[int, str, list[str]]] = []  # (line, text, output under a prompt)
    k = 0
    while k < len(body):
        number, line = body[k]
        if prompted and not line.startswith("$ "):
            if logical:
                logical[-1][2].append(line)
            k += 1
            continue
        text = line[2:] if prompted else line
        while text.rstrip().endswith("\\") and k + 1 < len(body):
            k += 1
            text = text.rstrip()[:-1] + " " + body[k][1].strip()
        if (not prompted and not labelled and logical and line[:1].isspace()
                and _is_cli(logical[-1][1])):
            logical[-1] = (logical[-1][0], logical[-1][1] + " " + " ".join(line.split()), [])
        else:
            logical.append((number, " ".join(text.split()), []))
        k += 1
    out = []
    for number, text, output in logical:
        if not text or text.startswith("#"):
            continue
        for part in _parts(text):
            if _is_cli(part):
                shown = tuple(o.rstrip() for o in output if o.strip()) if prompted else None
                out.append((number, part, False, shown or None))
            elif labelled and not NOT_RUN.match(part.split(" #")[0].strip()):
                unknown.append(f"{page}:{number}: {part}")
    return out


SCANNED = {page: scan(page) for page in PAGES}
LINES = [d for page in PAGES for d in SCANNED[page][0]]
RUN = [d for d in LINES if d.kind == "run"]


def _slow(argv: tuple[str, ...]) -> bool:
    """Commands that take minutes or near one: the whole `reproduce` (or one full-size
    figure), `audit all` or one paper's audit at full size (about a minute each on a slow
    2-core machine), `selfcheck` with its default budget of a minute."""
    if argv[:1] == ("reproduce",):
        return "--quick" not in argv and "--list" not in argv
    if argv[:1] == ("audit",) and len(argv) > 1 and not argv[1].startswith("-"):
        return "--quick" not in argv
    if argv[:1] == ("selfcheck",):
        return not any(w.startswith("--seconds") for w in argv)
    return False


def _run(argv: tuple[str, ...] | list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-m", "accountant.cli", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=1800)


def test_every_page_was_read_and_the_commands_were_found() -> None:
    per_page = {page: len(SCANNED[ROOT / page][0]) for page in ("README.md", "docs/guide.md",
                                                                 "docs/cli.md")}
    assert per_page["README.md"] >= 12 and per_page["docs/guide.md"] >= 4, per_page
    assert per_page["docs/cli.md"] >= 9, per_page
    assert len(RUN) >= 18
    # the README's own command block and its `$` example (with the output it shows)
    texts = {d.text.split(" #")[0] for d in LINES}
    assert "shuffle-accountant audit all --quick" in texts
    prompt = [d for d in LINES if d.output]
    assert prompt and prompt[0].files and prompt[0].files[0][0] == "my_randomizer.json"


def test_no_shell_line_without_a_rule() -> None:
    unknown = [u for page in PAGES for u in SCANNED[page][1]]
    assert not unknown, "lines of shell blocks that are neither the CLI nor skipped:\n" + \
        "\n".join(unknown)


def test_the_scanner_reads_what_the_rules_say(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("\n".join([
        "Run `shuffle-accountant selfcheck` or `shuffle-accountant dp ldp --n 10 --epsilon0 1",
        "--at-delta 1e-6`; `shuffle-accountant compose` names a command, `pip install x`"
        " is not ours.", "", "Save `m.json`:", "", "```json", "[[1]]", "```", "",
        "```sh", "python -m pip install -e . && shuffle-accountant reproduce",
        "shuffle-accountant bound fmt --n 10 \\", "    --epsilon0 1   # exits 2",
        "mutmut results", "```", "", "```", "shuffle-accountant reproduce [--out DIR]",
        "                            [--quick]", "x = 1", "```", "",
        "```console", "$ shuffle-accountant pure ldp --n 3 --epsilon0 1", "pure ldp",
        "  max  1", "```", "", "```sh", "make all", "```", ""]))
    lines, unknown = scan(page)
    got = [(d.line, d.text, d.kind, d.status) for d in lines]
    assert got == [
        (11, "shuffle-accountant reproduce", "run", 0),
        (12, "shuffle-accountant bound fmt --n 10 --epsilon0 1 # exits 2", "run", 2),
        (18, "shuffle-accountant reproduce [--out DIR] [--quick]", "synopsis", 0),
        (24, "shuffle-accountant pure ldp --n 3 --epsilon0 1", "run", 0),
        (1, "shuffle-accountant selfcheck", "run", 0),
        (1, "shuffle-accountant dp ldp --n 10 --epsilon0 1 --at-delta 1e-6", "run", 0),
        (2, "shuffle-accountant compose", "name", 0),
    ]
    assert lines[3].output == ("pure ldp", "  max  1") and lines[0].output is None
    assert lines[0].files == (("m.json", "[[1]]\n"),)
    assert unknown == ["page.md:30: make all"]
    assert _slow(("reproduce",)) and not _slow(("reproduce", "--only", "x", "--quick"))
    assert _slow(("audit", "all")) and not _slow(("audit", "all", "--quick"))
    assert _slow(("audit", "gkm")) and not _slow(("audit", "gkm", "--quick", "--json"))
    assert _slow(("selfcheck",)) and not _slow(("dp", "ldp"))


@pytest.mark.parametrize("doc", [pytest.param(d, id=d.id, marks=[pytest.mark.slow]
                                              if _slow(d.argv) else [])
                                 for d in RUN])
def test_documented_command_runs(doc: DocLine, tmp_path: Path) -> None:
    for name, content in doc.files:
        (tmp_path / name).write_text(content)
    proc = _run(doc.argv, tmp_path)
    where = f"{doc.id}: {doc.text}\n{proc.stderr[-2000:]}"
    assert proc.returncode == doc.status, where
    if doc.status == 0:
        assert proc.stdout.strip(), where
    else:
        assert len(proc.stderr.strip().splitlines()) == 1, where
    if doc.output is not None:
        assert tuple(line.rstrip() for line in proc.stdout.splitlines() if line.strip()) \
            == doc.output, f"{doc.id}: the output shown is not what the command prints"


@pytest.mark.parametrize("doc", [d for d in LINES if d.kind == "name"], ids=lambda d: d.id)
def test_documented_command_name_exists(doc: DocLine, tmp_path: Path) -> None:
    proc = _run([*doc.argv, "--help"], tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip(), f"{doc.id}: {doc.text}"


@pytest.mark.parametrize("doc", [d for d in LINES if d.kind == "synopsis"], ids=lambda d: d.id)
def test_documented_synopsis_names_real_flags(doc: DocLine) -> None:
    words = tuple(itertools.takewhile(lambda w: not w.startswith("-") and not _placeholder(w),
                                      doc.argv))
    under = [p for path, p in LEAVES.items() if path[:len(words)] == words]
    assert under, f"{doc.id}: no command {' '.join(words)!r}"
    body = doc.text.split(" #", 1)[0]
    missing = [f for f in re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", body)
               if not any(f in p._option_string_actions for p in under)]
    assert not missing, f"{doc.id}: {' '.join(words)} has no flag {missing}"
    for flag, listed in re.findall(r"(--[\w-]+)[ =]([\w.-]+(?:\|[\w.-]+)+)", body):
        choices = {tuple(sorted(map(str, p._option_string_actions[flag].choices or ())))
                   for p in under if flag in p._option_string_actions}
        assert tuple(sorted(listed.split("|"))) in choices, f"{doc.id}: {flag} {listed}"


# --------------------------------------------------------------------------- abbreviations

def _all_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [parser, *(q for s in subs for child in s.choices.values()
                      for q in _all_parsers(child))]


def test_every_parser_refuses_abbreviations() -> None:
    from accountant.cli import compose

    parsers = _all_parsers(build_parser())
    assert len(parsers) > len(LEAVES)
    assert not [p.prog for p in parsers if p.allow_abbrev]
    assert not compose._SpecParser(prog="ldp").allow_abbrev  # --mechanism's own flags


# A valid value for every flag that some command requires (only the abbreviation is wrong).
VALID = {
    "--n": "100", "--epsilon0": "1", "--at-delta": "1e-6", "--k": "3", "--epsilon": "0.5",
    "--delta": "1e-6", "--epsilon-prime": "0.25", "--lam": "60", "--orders": "2,4",
    "--target-epsilon": "1", "--target-delta": "1e-6", "--trials": "10", "--seed": "1",
    "--gamma": "0.3", "--a": "0.5", "--rounds": "10",
    "--mechanism": "binary-rr --n 100 --epsilon0 1", "--matrix": "matrix.json",
    "--width": "100", "--out": "out", "--only": "girgis-fig2", "--seconds": "1",
    "--workers": "2", "--delta0": "1e-6", "--sigma": "1", "--scale": "1",
    "--groups": "groups.json", "--colluders": "1",
}


def _required(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    groups = [g._group_actions[0] for g in parser._mutually_exclusive_groups if g.required]
    return [a for a in parser._actions if a.option_strings and a.required] + groups


def _abbreviation(parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """(a valid command line's flags, an unambiguous abbreviation of one of its flags with
    a valid value): a required flag's when there is one."""
    base = [w for a in _required(parser) for w in (a.option_strings[0],
                                                     VALID[a.option_strings[0]])]
    strings = [s for s in parser._option_string_actions if s.startswith("--")]
    candidates = _required(parser) + [
        a for a in parser._actions if a.option_strings and a.dest != "help"
        and (a.nargs == 0 or a.option_strings[0] in VALID)]
    for action in candidates:
        flag = action.option_strings[0]
        short = flag[:-1]
        if len(short) > 2 and short not in strings and \
                sum(s.startswith(short) for s in strings) == 1:
            return base, [short] + ([] if action.nargs == 0 else [VALID[flag]])
    raise AssertionError(f"{parser.prog}: no long flag to abbreviate")


ABBREVIATED = [(words, *_abbreviation(parser)) for words, parser in LEAVES.items()]


@pytest.mark.parametrize("words, base, abbreviated", ABBREVIATED,
                         ids=[f"{' '.join(w)} {a[0]}" for w, _, a in ABBREVIATED])
def test_an_abbreviated_flag_is_refused(words, base, abbreviated, tmp_path, monkeypatch,
                                        capsys) -> None:
    """A valid command line plus one flag abbreviated (`--epsilon 1` beside `--epsilon0 1`):
    exit 2 and one line naming the abbreviation, not a run with the flag guessed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "matrix.json").write_text("[[0.75, 0.25], [0.25, 0.75]]")
    (tmp_path / "groups.json").write_text('[{"count": 50, "randomizer": "k-rr", '
                                          '"epsilon0": 1.0, "k": 3}]')
    argv = [*words, *base, *abbreviated]
    assert main(argv) == 2, argv
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"unrecognized arguments: {abbreviated[0]}" in err[0], err


def test_the_program_refuses_an_abbreviated_version_flag(capsys) -> None:
    assert main(["--vers", "pure", "ldp", "--n", "10", "--epsilon0", "1"]) == 2
    assert "unrecognized arguments: --vers" in capsys.readouterr().err
