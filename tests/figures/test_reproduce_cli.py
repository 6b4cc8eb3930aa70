"""`shuffle-accountant reproduce`: --list, index.md linking every file with a sentence,
audit.md written through the audit report's writer, progress kept off stdout."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from accountant.cli.main import main
from figures.reproduce import AUDIT_NAME, discover, reproduce


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_list_names_every_figure_with_a_sentence():
    code, out, _ = _run(["reproduce", "--list"])
    assert code == 0
    names = [s.name for s in discover()] + [AUDIT_NAME]
    for name in names:
        line = next(ln for ln in out.splitlines() if ln.startswith(f"{name}: "))
        assert len(line) > len(name) + 20  # a sentence, not just the name
    assert max(len(ln) for ln in out.splitlines()) <= 100
    code, out, _ = _run(["reproduce", "--list", "--json"])
    listed = json.loads(out)["figures"]
    assert [f["name"] for f in listed] == names
    assert all(f["what"] and f["paper"] for f in listed)


def test_unknown_only_names_the_valid_ones(tmp_path: Path):
    code, _, err = _run(["reproduce", "--only", "nope", "--out", str(tmp_path)])
    assert code == 2 and "girgis-fig2" in err and AUDIT_NAME in err


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> tuple[Path, dict, str]:
    out = tmp_path_factory.mktemp("repro")
    code, stdout, _ = _run(["reproduce", "--quick", "--only", f"girgis-fig2,{AUDIT_NAME}",
                            "--out", str(out), "--json"])
    assert code == 0
    return out, json.loads(stdout), stdout


def test_json_stdout_is_clean_and_complete(small_run):
    out, result, stdout = small_run
    assert stdout.count("\n") == 1  # one JSON object; progress went to stderr
    assert [f["name"] for f in result["figures"]] == ["girgis-fig2", AUDIT_NAME]
    assert all(f["status"] == "ok" for f in result["figures"])
    assert result["index"] == str(out / "index.md")


def test_index_md_links_every_file_with_a_sentence(small_run):
    out, result, _ = small_run
    md = (out / "index.md").read_text()
    written = [Path(f).name for e in result["figures"] for f in e["files"]]
    assert set(written) >= {"girgis_2021_fig2.png", "girgis_2021_fig2.csv", "audit.md"}
    for name in written:
        assert (out / name).exists()
        m = re.search(rf"^- \[{re.escape(name)}\]\({re.escape(name)}\): (.+)$", md, re.M)
        assert m and len(m.group(1)) > 30, name
    index = json.loads((out / "index.json").read_text())
    assert {e["name"] for e in index["figures"]} == {"girgis-fig2", AUDIT_NAME}


def test_audit_md_has_the_records(small_run):
    out, _, _ = small_run
    md = (out / "audit.md").read_text()
    assert md.startswith("# Audit of the seed papers' claims")
    assert "| Remark 4 (Fig. 2) |" in md and "violated" in md
    assert re.search(r"^\d+ records: holds \d+, loose \d+, violated \d+", md, re.M)


def test_failed_figure_is_reported_not_hidden(tmp_path: Path, monkeypatch):
    from figures import reproduce as rp
    from figures.common import FigureSpec

    def boom(out: Path, quick: bool) -> list[Path]:
        raise RuntimeError("broken on purpose")

    monkeypatch.setattr(rp, "discover", lambda: [FigureSpec("boom", "none", "fails", boom)])
    index = reproduce(tmp_path, quick=True, only=["boom"])
    assert index["figures"][0]["status"] == "failed"
    assert "broken on purpose" in (tmp_path / "index.md").read_text()


def test_table_lists_every_figure_module_once():
    import figures
    from figures.all_figures import FIGURES

    modules = sorted(p.stem for p in Path(figures.__file__).parent.glob("fig_*.py"))
    assert sorted(spec.run.__module__.removeprefix("figures.") for spec in FIGURES) == modules
    assert len({spec.name for spec in FIGURES}) == len(FIGURES)


def test_reproduce_help_does_not_import_the_figures():
    # the command line imports figures.reproduce to build `reproduce`; matplotlib and the
    # figure modules wait until a figure is listed or run
    import subprocess
    import sys

    code = ("import sys\n"
            "from accountant.cli.main import main\n"
            "try:\n"
            "    main(['reproduce', '--help'])\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(sorted(m for m in sys.modules\n"
            "             if m == 'matplotlib' or m.startswith('figures.fig_')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
