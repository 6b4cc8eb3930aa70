"""Every public function and method of the documented packages has a Google-style docstring
(docs: STYLE.md section 5), checked by static analysis (ast only; nothing is imported).

Public: a name without a leading underscore that is listed in its module's ``__all__`` (or in
the ``__all__`` of a package ``__init__`` that imports it from that module; every public name
when the module has no ``__all__``), and the public methods of such classes (nested classes
included). Properties and dunder methods are exempt; nested functions are not public.

Rules (rule id in brackets, as printed in failure messages):

[missing]   The docstring exists.
[args]      A function with at least one parameter other than self/cls has an ``Args:``
            section, and every such parameter is named there (``name:`` or ``name (type):``;
            ``*args`` and ``**kwargs`` may be written with or without their stars).
[returns]   A function that returns a value has a ``Returns:`` section (``Yields:`` for a
            generator). It returns a value unless it is annotated ``-> None`` or, when not
            annotated, no ``return`` in its own body carries a value.
[raises]    A function whose own body raises an exception class by name (``raise X(...)``,
            ``raise X``; not a bare re-raise) has a ``Raises:`` section naming each such class.
            Raises that happen in callees (a domain's ``check``, say) are documented by hand.

A method without parameters (``to_json(self)``) needs only a docstring and, when it returns a
value, ``Returns:``.

[contract]  A protocol family's implementation of a method of the contract (a method named in
            CONTRACT_METHODS, in a class whose bases name ``Mechanism`` or a class of the same
            module that does) is documented once, in ``protocols/contract.py``: it needs only
            a docstring saying what this family does (its Args/Returns/Raises are the
            contract's).

DOCSTRINGS_ROOT=/some/tree runs the checks against another checkout.
"""

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("DOCSTRINGS_ROOT") or Path(__file__).resolve().parents[1]).resolve()

TARGETS = (
    "accountant/numeric/",
    "accountant/result.py",
    "accountant/domains.py",
    "accountant/pmf.py",
    "accountant/distributions.py",
    "accountant/view.py",
    "accountant/audit.py",
    "accountant/divergence/",
    "accountant/pairs/",
    "accountant/bounds/",
    "accountant/protocols/binary_rr/",
    "accountant/protocols/k_rr/",
    "accountant/protocols/ldp/",
    "accountant/protocols/balcer_cheu/",
    "accountant/protocols/gkm/",
    "accountant/protocols/contract.py",
)

# the methods `accountant.protocols.contract.Mechanism` documents for every family
CONTRACT_METHODS = frozenset({
    "params", "view_pair", "subsampled_view_pair", "subsampled_pair", "dominating_pair",
    "epsilon_for_delta", "delta_for_epsilon", "renyi", "max_divergence", "one_pair",
    "check_relations"})

SECTIONS = ("Args:", "Arguments:", "Returns:", "Yields:", "Raises:", "Examples:", "Example:",
            "Note:", "Notes:", "Attributes:", "Warns:", "See Also:", "References:")

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Failure:
    path: str
    line: int
    name: str  # qualified: Class.method or function
    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.name} [{self.rule}] {self.detail}"


def target_files() -> list[Path]:
    files: list[Path] = []
    for target in TARGETS:
        path = ROOT / target
        files.extend(sorted(path.glob("*.py")) if target.endswith("/") else [path])
    return files


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def dunder_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return [str(name) for name in ast.literal_eval(node.value)]
    return None


def reexports() -> dict[str, set[str]]:
    """Module -> names that some package ``__init__``'s ``__all__`` imports from it."""
    found: dict[str, set[str]] = {}
    for path in target_files():
        if path.name != "__init__.py":
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        listed = set(dunder_all(tree) or ())
        package = module_name(path)
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom) or node.module is None and not node.level:
                continue
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                if (alias.asname or alias.name) in listed:
                    found.setdefault(source, set()).add(alias.name)
    return found


def is_property(node: FunctionNode) -> bool:
    for decorator in node.decorator_list:
        name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(
            decorator, "id", None)
        if name in ("property", "cached_property", "setter", "getter", "deleter"):
            return True
    return False


def is_static(node: FunctionNode) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def parameters(node: FunctionNode, in_class: bool) -> list[str]:
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if in_class and not is_static(node) and positional:
        positional = positional[1:]  # self or cls, whatever it is called
    names = positional + [a.arg for a in args.kwonlyargs]
    if args.vararg:
        names.append("*" + args.vararg.arg)
    if args.kwarg:
        names.append("**" + args.kwarg.arg)
    return names


def own_nodes(node: FunctionNode):
    """The nodes of a function's own body (not of functions or classes nested in it)."""
    stack = list(node.body)
    while stack:
        child = stack.pop()
        yield child
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(child))


def returns_value(node: FunctionNode) -> bool:
    if node.returns is not None:
        return not (isinstance(node.returns, ast.Constant) and node.returns.value is None)
    return any(isinstance(n, ast.Return) and n.value is not None for n in own_nodes(node))


def is_generator(node: FunctionNode) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(node))


def raised_classes(node: FunctionNode) -> set[str]:
    names: set[str] = set()
    for child in own_nodes(node):
        if not isinstance(child, ast.Raise) or child.exc is None:
            continue
        exc = child.exc.func if isinstance(child.exc, ast.Call) else child.exc
        if isinstance(exc, ast.Name) and exc.id[:1].isupper():
            names.add(exc.id)
        elif isinstance(exc, ast.Attribute) and exc.attr[:1].isupper():
            names.add(exc.attr)
    return names


def section(doc: str, header: str) -> str | None:
    """The body of a Google-style section (indented lines after ``header``), or None."""
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != header:
            continue
        indent = len(line) - len(line.lstrip())
        body = []
        for follow in lines[i + 1:]:
            if follow.strip() and len(follow) - len(follow.lstrip()) <= indent:
                break
            body.append(follow)
        return "\n".join(body)
    return None


def documented_args(body: str) -> set[str]:
    lines = [line for line in body.splitlines() if line.strip()]
    if not lines:
        return set()
    first = min(len(line) - len(line.lstrip()) for line in lines)
    names = set()
    for line in lines:
        if len(line) - len(line.lstrip()) != first:
            continue
        match = re.match(r"\s*(\*{0,2}\w+)\s*(\([^)]*\))?\s*:", line)
        if match:
            names.add(match.group(1))
            names.add(match.group(1).lstrip("*"))
    return names


def check_function(path: str, qualname: str, node: FunctionNode, in_class: bool) -> list[Failure]:
    def fail(rule: str, detail: str) -> Failure:
        return Failure(path, node.lineno, qualname, rule, detail)

    doc = ast.get_docstring(node)
    if not doc:
        return [fail("missing", "no docstring")]
    failures = []
    params = parameters(node, in_class)
    if params:
        args = section(doc, "Args:")
        if args is None:
            failures.append(fail("args", "no 'Args:' section"))
        else:
            missing = [p for p in params if p not in documented_args(args)
                       and p.lstrip("*") not in documented_args(args)]
            if missing:
                failures.append(fail("args", f"'Args:' does not name {', '.join(missing)}"))
    if returns_value(node):
        header = "Yields:" if is_generator(node) else "Returns:"
        if section(doc, header) is None:
            failures.append(fail("returns", f"no '{header}' section"))
    raised = raised_classes(node)
    if raised:
        raises = section(doc, "Raises:")
        if raises is None:
            failures.append(fail("raises", f"raises {', '.join(sorted(raised))}; no 'Raises:'"))
        else:
            unnamed = sorted(r for r in raised if not re.search(rf"\b{r}\b", raises))
            if unnamed:
                failures.append(fail("raises", f"'Raises:' does not name {', '.join(unnamed)}"))
    return failures


def _base_names(node: ast.ClassDef) -> set[str]:
    return {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
            if isinstance(b, ast.Name | ast.Attribute)}


def check_class(path: str, prefix: str, node: ast.ClassDef,
                families: frozenset[str] = frozenset()) -> list[Failure]:
    failures = []
    family = bool(_base_names(node) & ({"Mechanism"} | families))
    for child in node.body:
        if isinstance(child, ast.ClassDef) and not child.name.startswith("_"):
            failures.extend(check_class(path, f"{prefix}.{child.name}", child, families))
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if child.name.startswith("_") or is_property(child):
                continue  # private, dunder or property
            name = f"{prefix}.{child.name}"
            if family and child.name in CONTRACT_METHODS:  # [contract]: documented there
                if not ast.get_docstring(child):
                    failures.append(Failure(path, child.lineno, name, "missing",
                                            "no docstring"))
                continue
            failures.extend(check_function(path, name, child, in_class=True))
    return failures


def _family_classes(tree: ast.Module) -> frozenset[str]:
    """Classes of the module deriving (directly or through another) from Mechanism."""
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    found: set[str] = set()
    while True:
        more = {c.name for c in classes if _base_names(c) & ({"Mechanism"} | found)} - found
        if not more:
            return frozenset(found)
        found |= more


def check_file(path: Path, exported: set[str]) -> list[Failure]:
    tree = ast.parse(path.read_text(), filename=str(path))
    listed = dunder_all(tree)
    rel = str(path.relative_to(ROOT))
    failures = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if node.name.startswith("_"):
            continue
        if listed is not None and node.name not in listed and node.name not in exported:
            continue
        if isinstance(node, ast.ClassDef):
            failures.extend(check_class(rel, node.name, node, _family_classes(tree)))
        else:
            failures.extend(check_function(rel, node.name, node, in_class=False))
    return failures


def all_failures() -> list[Failure]:
    exported = reexports()
    failures = []
    for path in target_files():
        failures.extend(check_file(path, exported.get(module_name(path), set())))
    return failures


def test_targets_exist():
    missing = [t for t in TARGETS if not (ROOT / t).exists()]
    assert not missing, f"targets not on disk: {missing}"


def test_public_functions_have_google_docstrings():
    failures = all_failures()
    functions = len({(f.path, f.name) for f in failures})
    report = "\n".join(map(str, failures))
    assert not failures, f"{len(failures)} failures in {functions} functions:\n{report}"


if __name__ == "__main__":  # python tests/test_docstrings.py: the list, one a line
    found = all_failures()
    print("\n".join(map(str, found)))
    print(f"{len(found)} failures in {len({(f.path, f.name) for f in found})} functions")
    raise SystemExit(pytest.ExitCode.TESTS_FAILED if found else 0)
