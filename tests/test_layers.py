"""The import rules of the project, written down and enforced by static analysis (ast only).

Every import statement of every .py file under accountant/, verify/ and figures/ is checked:
module, class and function bodies and ``if TYPE_CHECKING:`` blocks; relative imports resolved.
``from P import n`` means module P.n when P.n is a module or package on disk, else module P.

Layers of ``accountant``, bottom up; a module imports from its own layer or a lower one only:

    0 errors   1 numeric.*   2 result, domains   3 pmf, distributions, view, audit
    4 divergence.*, pairs.*   5 bounds.*   6 protocols.*   7 composition.*   8 cli.*

Rules (rule id in brackets, as printed in failure messages):

[layers]    No upward import. ``accountant/__init__.py`` (the package face, ranked between
            composition and cli) may import anything in accountant except cli. bounds imports
            only errors, numeric, result, domains and bounds. Inside protocols, package Y uses
            another protocol X only through its face: ``accountant.protocols.X.sub`` (a module
            below X) imported from accountant.protocols.Y[.*], Y != X, is a violation.
            accountant never imports verify or figures, except from its cli layer (the command
            line is the top: it runs the samplers and the figures); verify imports accountant
            (and verify) only; figures imports accountant and verify. Neither imports
            accountant.cli, except the drivers in CLI_DRIVERS, which run the command line as a
            user does.
[unlayered] Every module of accountant belongs to a layer above (or is the face).
[private]   No private name across modules: ``from M import _x`` outside M; no private module
            (``M._mod``) imported from outside the package holding it; no ``m._x`` where m
            is a project module bound by an import. Dunders are public. Only project
            modules are checked.
[argparse]  argparse only in the CLI: accountant/cli.py or accountant/cli/; in verify/, only in
            files named *cli.py, *cli_handlers.py, *reproduce.py or in a ``cli`` package;
            anywhere in figures/ (figure scripts may parse their own ``__main__`` arguments).
[cycle]     No cycle among project modules in the graph of imports run at import time (module
            and class bodies; not function bodies, not ``if TYPE_CHECKING:``). An edge goes to
            the module named, not to its parent packages.
[local]     No function-local import of a project module under accountant/, except in the
            cli layer (lazy loading of CLI faces). Function-local imports of third-party or
            stdlib modules (matplotlib, mpmath, scipy, ...) are fine everywhere.

LAYERS_ROOT=/some/tree runs the checks against another checkout.
"""

import ast
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("LAYERS_ROOT") or Path(__file__).resolve().parents[1]).resolve()
PROJECT = ("accountant", "verify", "figures")

LAYERS = (  # (number, label, module prefixes), bottom up
    (0, "errors", ("accountant.errors",)),
    (1, "numeric", ("accountant.numeric",)),
    (2, "result/domains", ("accountant.result", "accountant.domains")),
    (3, "pmf/distributions/view/audit",
     ("accountant.pmf", "accountant.distributions", "accountant.view", "accountant.audit")),
    (4, "divergence/pairs", ("accountant.divergence", "accountant.pairs")),
    (5, "bounds", ("accountant.bounds",)),
    (6, "protocols", ("accountant.protocols",)),
    (7, "composition", ("accountant.composition",)),
    (8, "cli", ("accountant.cli",)),
)
FACE = (7.5, "package face", "accountant")
BOUNDS_MAY_IMPORT = ("accountant.errors", "accountant.numeric", "accountant.result",
                     "accountant.domains", "accountant.bounds")
IMPORTS_ALLOWED = {"verify": ("accountant", "verify"),
                   "figures": ("accountant", "verify", "figures")}
VERIFY_ARGPARSE_FILES = ("cli.py", "cli_handlers.py", "reproduce.py")
# modules outside accountant that drive the command line itself (as a user would)
CLI_DRIVERS = ("verify.bad_input_sweep",)


@dataclass(frozen=True)
class Import:
    importer: str  # dotted name of the importing module
    path: str  # its file, relative to the root
    line: int
    target: str  # the module imported (resolved as described in the docstring)
    attr: str | None  # the name taken from it, for `from target import attr`
    in_function: bool
    type_checking: bool

    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Project:
    modules: dict  # dotted name -> path relative to the root
    imports: tuple


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(nodes, in_function: bool, type_checking: bool):
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function, type_checking
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _walk(ast.iter_child_nodes(node), True, type_checking)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _walk(node.body, in_function, True)
            yield from _walk(node.orelse, in_function, type_checking)
        else:
            yield from _walk(ast.iter_child_nodes(node), in_function, type_checking)


def scan(root: Path) -> Project:
    modules, is_package = {}, {}
    for top in PROJECT:
        for file in sorted((root / top).rglob("*.py")):
            parts = file.relative_to(root).with_suffix("").parts
            package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if package else parts)
            modules[name] = file.relative_to(root).as_posix()
            is_package[name] = package
    imports = []
    for importer, rel in modules.items():
        tree = ast.parse((root / rel).read_text(encoding="utf-8"), filename=rel)
        for node, in_function, type_checking in _walk(tree.body, False, False):
            found = []  # (target, attr)
            if isinstance(node, ast.Import):
                found = [(alias.name, None) for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    package = importer if is_package[importer] else importer.rpartition(".")[0]
                    parts = package.split(".")
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:
                        found.append((sub, None))
                    else:
                        found.append((base, None if alias.name == "*" else alias.name))
            imports += [Import(importer, rel, node.lineno, target, attr, in_function, type_checking)
                        for target, attr in found]
    return Project(modules, tuple(imports))


@cache
def _project() -> Project:
    return scan(ROOT)


def _layer(module: str):
    if module == FACE[2]:
        return FACE[:2]
    for number, label, prefixes in LAYERS:
        if any(_within(module, p) for p in prefixes):
            return number, label
    return None


def _is_project(module: str) -> bool:
    return module.split(".")[0] in PROJECT


def _in_cli_layer(module: str) -> bool:
    return _within(module, "accountant.cli")


def check_layers(project: Project) -> list[str]:
    out = []
    for imp in project.imports:
        src, dst = imp.importer, imp.target
        src_top, dst_top = src.split(".")[0], dst.split(".")[0]
        if not _is_project(dst) or src == dst:
            continue
        if src_top in IMPORTS_ALLOWED:
            if dst_top not in IMPORTS_ALLOWED[src_top]:
                allowed = " and ".join(IMPORTS_ALLOWED[src_top])
                out.append(f"{imp.where()}: [layers] {src} imports {dst}; "
                           f"{src_top} may import only {allowed}")
            elif _within(dst, "accountant.cli") and src not in CLI_DRIVERS:
                out.append(f"{imp.where()}: [layers] {src} imports {dst}; the command line "
                           f"is the top layer: {src_top} never imports accountant.cli")
            continue
        if dst_top != "accountant":
            if not _in_cli_layer(src):
                out.append(f"{imp.where()}: [layers] {src} imports {dst}; "
                           f"accountant never imports {dst_top} outside its cli layer")
            continue
        src_layer, dst_layer = _layer(src), _layer(dst)
        if src_layer is None or dst_layer is None:
            continue  # reported by the [unlayered] check
        if dst_layer[0] > src_layer[0]:
            out.append(f"{imp.where()}: [layers] upward import: {src} (layer {src_layer[0]} "
                       f"{src_layer[1]}) imports {dst} (layer {dst_layer[0]} {dst_layer[1]})")
        elif _within(src, "accountant.bounds") and not any(
                _within(dst, p) for p in BOUNDS_MAY_IMPORT):
            out.append(f"{imp.where()}: [layers] {src} imports {dst}; bounds may import only "
                       "errors, numeric, result, domains")
        elif _within(src, "accountant.protocols") and _within(dst, "accountant.protocols"):
            src_parts, dst_parts = src.split("."), dst.split(".")
            if len(src_parts) >= 3 and len(dst_parts) >= 4 and src_parts[2] != dst_parts[2]:
                face = ".".join(dst_parts[:3])
                out.append(f"{imp.where()}: [layers] {src} imports {dst}; another protocol is "
                           f"used only through its package face {face}")
    return out


def check_unlayered(project: Project) -> list[str]:
    return [f"{path}:1: [unlayered] {name} belongs to no layer; add it to LAYERS"
            for name, path in project.modules.items()
            if name.split(".")[0] == "accountant" and _layer(name) is None]


def check_private(project: Project) -> list[str]:
    out = []
    for imp in project.imports:
        if not _is_project(imp.target):
            continue
        parts = imp.target.split(".")
        for i, part in enumerate(parts):
            holder = ".".join(parts[:i])
            if _is_private(part) and not _within(imp.importer, holder):
                out.append(f"{imp.where()}: [private] {imp.importer} imports private module "
                           f"{'.'.join(parts[: i + 1])} from outside {holder}")
                break
        if imp.attr and _is_private(imp.attr) and imp.importer != imp.target:
            out.append(f"{imp.where()}: [private] {imp.importer} imports private name "
                       f"{imp.target}.{imp.attr}")
    return out


def _argparse_allowed(module: str, path: str) -> bool:
    top = module.split(".")[0]
    if top == "accountant":
        return _in_cli_layer(module)
    if top == "verify":
        return path.endswith(VERIFY_ARGPARSE_FILES) or "cli" in path.split("/")[:-1]
    return True  # figures/: every figure script may parse its own __main__ arguments


def check_argparse(project: Project) -> list[str]:
    return [f"{imp.where()}: [argparse] {imp.importer} imports argparse outside the CLI"
            for imp in project.imports
            if imp.target.split(".")[0] == "argparse"
            and not _argparse_allowed(imp.importer, imp.path)]


def _cycles(graph: dict) -> list[list[str]]:
    """Elementary cycles, each once, starting from its smallest node (graphs here are small)."""
    found = []
    for start in sorted(graph):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node], reverse=True):
                if nxt == start:
                    found.append(path + [start])
                elif nxt > start and nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return sorted(found)


def check_cycles(project: Project) -> list[str]:
    graph, first = {name: set() for name in project.modules}, {}
    for imp in project.imports:
        if (imp.in_function or imp.type_checking or imp.target not in project.modules
                or imp.target == imp.importer):
            continue
        graph[imp.importer].add(imp.target)
        first.setdefault((imp.importer, imp.target), imp)
    out = []
    for cycle in _cycles(graph):
        hops = [first[a, b] for a, b in zip(cycle, cycle[1:], strict=False)]
        out.append(f"{hops[0].where()}: [cycle] {' -> '.join(cycle)} "
                   f"(via {', '.join(h.where() for h in hops)})")
    return out


def function_local_project_imports(project: Project) -> list[Import]:
    return [imp for imp in project.imports if imp.in_function and _is_project(imp.target)]


def check_function_local(project: Project) -> list[str]:
    return [f"{imp.where()}: [local] {imp.importer} imports {imp.target} inside a function"
            for imp in function_local_project_imports(project)
            if imp.importer.split(".")[0] == "accountant" and not _in_cli_layer(imp.importer)]


CHECKS = {"layers": check_layers, "unlayered": check_unlayered, "private": check_private,
          "argparse": check_argparse, "cycle": check_cycles, "local": check_function_local}


def run(rule: str, project: Project) -> list[str]:
    """The violations of one rule, each once (`from M import a, b` may repeat a message)."""
    return list(dict.fromkeys(CHECKS[rule](project)))


def _assert_clean(rule: str, extra: str = "") -> None:
    found = run(rule, _project())
    assert not found, (f"{len(found)} violation(s) of [{rule}] under {ROOT}{extra}:\n"
                       + "\n".join(found))


# ---- the rules, on the real tree ---------------------------------------------------------------

def test_tree_is_found():
    assert any(name == "accountant" for name in _project().modules), f"no accountant/ in {ROOT}"


def test_no_upward_imports():
    _assert_clean("layers")


def test_every_module_has_a_layer():
    _assert_clean("unlayered")


def test_no_private_names_across_modules():
    _assert_clean("private")


def test_argparse_only_in_cli():
    _assert_clean("argparse")


def test_no_import_cycles():
    _assert_clean("cycle")


def test_no_function_local_project_imports():
    total = len(function_local_project_imports(_project()))
    _assert_clean("local", f" ({total} function-local project imports in all packages)")


# ---- the checker itself: each rule finds a planted violation, and only it -----------------------

BASE_TREE = {
    "accountant/__init__.py": "from accountant.divergence import renyi\n__version__ = '0'\n",
    "accountant/errors.py": "",
    "accountant/numeric/__init__.py": "",
    "accountant/numeric/mp.py": "import mpmath\n",
    "accountant/result.py": "from accountant.errors import X\nfrom accountant.numeric import mp\n",
    "accountant/pmf.py": "from accountant.result import R\n",
    "accountant/view.py": "from .pmf import PMF\n",
    "accountant/divergence/__init__.py": "from accountant.divergence.renyi import __all__\n",
    "accountant/divergence/_common.py": "from accountant.view import ViewPair\n",
    "accountant/divergence/renyi.py": "from . import _common\nfrom ._common import arr\n",
    "accountant/bounds/__init__.py": "",
    "accountant/bounds/_moments.py": "from accountant.numeric.mp import to_mpf\n",
    "accountant/bounds/girgis.py": "from accountant.bounds import _moments as m\n"
                                   "from accountant.domains import N\n",
    "accountant/domains.py": "",
    "accountant/protocols/__init__.py": "",
    "accountant/protocols/registry.py": "",
    "accountant/protocols/a/__init__.py": "from accountant.protocols.a import core\n",
    "accountant/protocols/a/core.py": "from accountant.protocols import b, registry\n"
                                      "from accountant.protocols.b import thing\n"
                                      "from typing import TYPE_CHECKING\n"
                                      "if TYPE_CHECKING:\n"
                                      "    from accountant.protocols.a import X\n"
                                      "def f():\n    import scipy\n    from fractions import F\n",
    "accountant/protocols/b/__init__.py": "from accountant.protocols.b.view import thing\n",
    "accountant/protocols/b/view.py": "import numpy as np\n",
    "accountant/composition/__init__.py": "from accountant.protocols.a import run\n",
    "accountant/cli.py": "import argparse\nimport importlib\nfrom accountant import renyi\n"
                         "def main():\n    from accountant.protocols import a\n"
                         "    importlib.import_module('verify.cli_handlers')\n",
    "verify/__init__.py": "",
    "verify/cli_handlers.py": "import argparse\nfrom accountant.pmf import PMF\n",
    "verify/samplers/__init__.py": "",
    "verify/samplers/gkm.py": "def f():\n    from accountant.protocols import b\n",
    "figures/__init__.py": "",
    "figures/fig_x.py": "import argparse\nfrom verify.samplers import gkm\nimport accountant\n",
}

PLANTED = [  # (rule, file, source, the one violation expected)
    ("layers", "accountant/errors.py", "from accountant.composition import compose, kov\n",
     "accountant/errors.py:1: [layers] upward import: accountant.errors (layer 0 errors) "
     "imports accountant.composition (layer 7 composition)"),
    ("layers", "accountant/numeric/mp.py", "from typing import TYPE_CHECKING\n"
     "if TYPE_CHECKING:\n    from ..view import ViewPair\n",
     "accountant/numeric/mp.py:3: [layers] upward import: accountant.numeric.mp (layer 1 "
     "numeric) imports accountant.view (layer 3 pmf/distributions/view/audit)"),
    ("layers", "accountant/bounds/girgis.py", "class C:\n    import accountant\n",
     "accountant/bounds/girgis.py:2: [layers] upward import: accountant.bounds.girgis "
     "(layer 5 bounds) imports accountant (layer 7.5 package face)"),
    ("layers", "accountant/__init__.py", "import typing\nif typing.TYPE_CHECKING:\n"
     "    from accountant.cli import main\n",
     "accountant/__init__.py:3: [layers] upward import: accountant (layer 7.5 package face) "
     "imports accountant.cli (layer 8 cli)"),
    ("layers", "accountant/bounds/girgis.py", "from accountant.pmf import PMF\n",
     "accountant/bounds/girgis.py:1: [layers] accountant.bounds.girgis imports accountant.pmf; "
     "bounds may import only errors, numeric, result, domains"),
    ("layers", "accountant/protocols/a/core.py", "from accountant.protocols.b import view\n",
     "accountant/protocols/a/core.py:1: [layers] accountant.protocols.a.core imports "
     "accountant.protocols.b.view; another protocol is used only through its package face "
     "accountant.protocols.b"),
    ("layers", "accountant/composition/__init__.py", "import verify.cli_handlers\n",
     "accountant/composition/__init__.py:1: [layers] accountant.composition imports "
     "verify.cli_handlers; accountant never imports verify outside its cli layer"),
    ("layers", "verify/samplers/gkm.py", "from accountant.cli import main\n",
     "verify/samplers/gkm.py:1: [layers] verify.samplers.gkm imports accountant.cli; the "
     "command line is the top layer: verify never imports accountant.cli"),
    ("layers", "verify/cli_handlers.py", "from figures import fig_x\n",
     "verify/cli_handlers.py:1: [layers] verify.cli_handlers imports figures.fig_x; "
     "verify may import only accountant and verify"),
    ("unlayered", "accountant/core.py", "",
     "accountant/core.py:1: [unlayered] accountant.core belongs to no layer; add it to LAYERS"),
    ("private", "accountant/protocols/b/__init__.py",
     "from accountant.protocols.b.view import _w\n",
     "accountant/protocols/b/__init__.py:1: [private] accountant.protocols.b imports "
     "private name accountant.protocols.b.view._w"),
    ("private", "accountant/composition/__init__.py", "import accountant.divergence._common\n",
     "accountant/composition/__init__.py:1: [private] accountant.composition imports private "
     "module accountant.divergence._common from outside accountant.divergence"),
    ("private", "accountant/protocols/registry.py", "from accountant.divergence import _common\n",
     "accountant/protocols/registry.py:1: [private] accountant.protocols.registry imports private "
     "module accountant.divergence._common from outside accountant.divergence"),
    ("argparse", "accountant/bounds/girgis.py", "from argparse import Namespace\n",
     "accountant/bounds/girgis.py:1: [argparse] accountant.bounds.girgis imports argparse "
     "outside the CLI"),
    ("argparse", "verify/samplers/gkm.py", "def main():\n    import argparse as ap\n",
     "verify/samplers/gkm.py:2: [argparse] verify.samplers.gkm imports argparse outside the CLI"),
    ("cycle", "accountant/protocols/b/view.py", "import numpy\n"
     "from accountant.protocols.b import thing\n",
     "accountant/protocols/b/__init__.py:1: [cycle] accountant.protocols.b -> "
     "accountant.protocols.b.view -> accountant.protocols.b "
     "(via accountant/protocols/b/__init__.py:1, accountant/protocols/b/view.py:2)"),
    ("cycle", "accountant/protocols/b/view.py", "from ..a import run\n",
     "accountant/protocols/a/__init__.py:1: [cycle] accountant.protocols.a -> "
     "accountant.protocols.a.core -> accountant.protocols.b -> accountant.protocols.b.view -> "
     "accountant.protocols.a (via accountant/protocols/a/__init__.py:1, "
     "accountant/protocols/a/core.py:1, accountant/protocols/b/__init__.py:1, "
     "accountant/protocols/b/view.py:1)"),
    ("local", "accountant/view.py", "def f():\n    if True:\n        from . import pmf\n",
     "accountant/view.py:3: [local] accountant.view imports accountant.pmf inside a function"),
]


def _write(root: Path, files: dict) -> Project:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return scan(root)


def test_checker_passes_a_clean_tree(tmp_path):
    project = _write(tmp_path, BASE_TREE)
    assert {rule: run(rule, project) for rule in CHECKS} == {rule: [] for rule in CHECKS}
    assert len(function_local_project_imports(project)) == 2  # cli.py and verify/samplers


@pytest.mark.parametrize(("rule", "file", "source", "expected"), PLANTED,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(PLANTED)])
def test_checker_finds_a_planted_violation(tmp_path, rule, file, source, expected):
    project = _write(tmp_path, {**BASE_TREE, file: source})
    found = {r: run(r, project) for r in CHECKS}
    assert {r: v for r, v in found.items() if v} == {rule: [expected]}


def private_attribute_uses(root: Path) -> list[str]:
    """``alias._name`` where alias is bound by an import of a project module."""
    out = []
    for top in PROJECT:
        for path in sorted((root / top).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            aliases = {}
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name.split(".")[0] in PROJECT and a.asname:
                            aliases[a.asname] = a.name
                elif isinstance(node, ast.ImportFrom) and node.module and (
                        node.module.split(".")[0] in PROJECT):
                    for a in node.names:
                        dotted = f"{node.module}.{a.name}"
                        as_path = root / Path(*dotted.split("."))
                        if as_path.with_suffix(".py").exists() or as_path.is_dir():
                            aliases[a.asname or a.name] = dotted
            for node in ast.walk(tree):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                        and node.value.id in aliases and _is_private(node.attr)):
                    rel = path.relative_to(root)
                    out.append(f"{rel}:{node.lineno}: [private] uses "
                               f"{aliases[node.value.id]}.{node.attr}")
    return out


def test_no_private_attributes_of_imported_modules():
    found = private_attribute_uses(ROOT)
    assert not found, "\n".join(found)


def test_private_attribute_check_finds_a_planted_use(tmp_path):
    pkg = tmp_path / "accountant"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("_x = 1\n")
    (pkg / "b.py").write_text("from accountant import a\ny = a._x\n")
    assert private_attribute_uses(tmp_path) == ["accountant/b.py:2: [private] uses "
                                                "accountant.a._x"]
