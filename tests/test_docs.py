"""The documentation: the guide's blocks run and give what they say, the site builds with
warnings as errors, and no relative link or #anchor in README.md or docs/ is dead."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from accountant.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide.md"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def _blocks(path: Path, language: str) -> list[str]:
    return [code for lang, code in FENCE.findall(path.read_text()) if lang == language]


def _commands(path: Path) -> list[list[str]]:
    """The shell lines of a page (backslash continuations joined), as argv lists."""
    out = []
    for block in _blocks(path, "sh"):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line)
            if words:
                assert words[0] == "shuffle-accountant", line
                out.append(words[1:])
    return out


# --------------------------------------------------------------------------- the guide

@pytest.fixture(scope="module")
def guide_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the guide's Python blocks in order in one namespace, in a fresh directory."""
    import matplotlib

    matplotlib.use("Agg")
    cwd = tmp_path_factory.mktemp("guide")
    namespace: dict[str, Any] = {"__name__": "guide"}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(cwd)
        for i, code in enumerate(_blocks(GUIDE, "python")):
            exec(compile(code, f"{GUIDE}:python-block-{i}", "exec"), namespace)
    namespace["__cwd__"] = cwd
    return namespace


def test_guide_blocks_are_short_and_three_jobs_are_there() -> None:
    python, shell = _blocks(GUIDE, "python"), _blocks(GUIDE, "sh")
    assert len(python) == 3 and len(shell) >= 3
    assert all(len(code.strip().splitlines()) <= 10 for code in python + shell)
    headings = re.findall(r"^## (.+)$", GUIDE.read_text(), re.M)
    assert headings[:3] == ["Audit a claim", "Reproduce a figure", "Compose rounds"]


def test_guide_python_blocks_run(guide_run: dict[str, Any]) -> None:
    assert guide_run["record"].verdict == "loose"  # holds, claim >= 2x the upper end
    png = guide_run["__cwd__"] / "girgis-fig2.png"
    assert png.stat().st_size > 5000 and png.read_bytes()[:4] == b"\x89PNG"
    # the composed RDP epsilon grows with the number of rounds
    curve = guide_run["curve"]
    eps = [guide_run["epsilon_best"](curve.times(t), delta=1e-6)[0].value for t in (1, 10, 100)]
    assert eps == sorted(eps) and eps[0] > 0


def test_guide_command_lines_agree_with_python(guide_run: dict[str, Any], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    outputs = {}
    for argv in _commands(GUIDE):
        assert main([*argv, "--json"]) == 0, argv
        outputs[argv[0]] = json.loads(capsys.readouterr().out)
    assert set(outputs) == {"audit", "reproduce", "compose", "sweep"}
    # audit: the same verdict and number as the Python block
    audit = outputs["audit"]
    assert audit["verdict"] == "loose"
    assert audit["computed"]["value"] == float(guide_run["record"].computed_upper)
    # compose --method rdp: the Python block's number at T = 100
    python_eps = guide_run["epsilon_best"](guide_run["curve"].times(100), delta=1e-6)[0].value
    assert outputs["compose"]["epsilon"]["value"] == pytest.approx(python_eps, rel=1e-12)
    # reproduce: the figure and its numbers
    assert (tmp_path / "reproduce-out" / "girgis_2021_fig2.png").stat().st_size > 5000
    # sweep: 2 x 3 points, each an upper bound
    with open(tmp_path / "sweep.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 6 and all(r["kind"] == "upper" and float(r["value"]) > 0
                                  for r in rows)


# --------------------------------------------------------------------------- the site

def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """`mkdocs build --strict` (warnings are errors: broken nav, links, anchors, docstrings
    mkdocstrings cannot parse); the API pages are generated from the docstrings."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec(
            "mkdocstrings_handlers") is None:
        pytest.skip("mkdocs / mkdocstrings-python not installed (the `docs` extra)")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    seconds = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    api = (tmp_path / "site" / "api" / "protocols" / "index.html").read_text()
    # the reference is built from the docstrings: the contract's classes and a method's text
    assert "BinaryRR" in api and "epsilon_for_delta" in api
    assert (tmp_path / "site" / "guide" / "index.html").exists()
    print(f"mkdocs build --strict: {seconds:.1f} s")


def test_every_api_module_is_importable() -> None:
    """Each `::: module` of docs/api/ names a module that exists."""
    names = [m for page in (ROOT / "docs" / "api").glob("*.md")
             for m in re.findall(r"^::: ([\w.]+)", page.read_text(), re.M)]
    assert len(names) >= 30
    missing = [m for m in names if importlib.util.find_spec(m) is None]
    assert not missing, missing


# --------------------------------------------------------------------------- links

LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _prose(text: str) -> str:
    """The text without fenced blocks and inline code (links there are not links)."""
    text = FENCE.sub("", text)
    return re.sub(r"`[^`\n]*`", "", text)


def github_slug(heading: str) -> str:
    """The anchor GitHub (and the site's slugify) gives a heading.

    Args:
        heading: the heading's markdown text.

    Returns:
        Lower case, markup and punctuation dropped, spaces as hyphens.
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a markdown file (duplicates numbered as GitHub does).

    Args:
        path: the file.

    Returns:
        The anchors, without '#'.
    """
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", FENCE.sub("", path.read_text()),
                              re.M):
        slug = github_slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_slugs_match_the_usual_rules() -> None:
    assert github_slug("The protocol contract") == "the-protocol-contract"
    assert github_slug("Theorem 3 and Corollary 2") == "theorem-3-and-corollary-2"
    assert github_slug("`compose` and [KOV](x.md), T >= 1") == "compose-and-kov-t--1"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_no_dead_link(page: Path) -> None:
    dead = []
    for target in LINK.findall(_prose(page.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            dead.append(f"{target}: no file {dest}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            dead.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not dead, "\n".join(dead)


def test_the_link_checker_finds_dead_links(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n\n## Sub part\n")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#sub-part) [bad](a.md#nope) [gone](c.md) `[code](x.md)`\n")
    targets = LINK.findall(_prose(page.read_text()))
    assert targets == ["a.md#sub-part", "a.md#nope", "c.md"]
    assert "sub-part" in anchors(tmp_path / "a.md") and "nope" not in anchors(tmp_path / "a.md")
