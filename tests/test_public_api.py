"""Every name in a package's __all__ exists, and the top-level package re-exports the core."""

import importlib

import pytest

PACKAGES = ["accountant", "accountant.divergence", "accountant.errors", "accountant.result",
            "accountant.domains", "accountant.pmf", "accountant.distributions",
            "accountant.view", "accountant.pairs", "accountant.audit"]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_names_exist(name):
    module = importlib.import_module(name)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ lists missing names {missing}"


def test_top_level_reexports_the_divergences():
    import accountant

    for n in ("delta_for_epsilon", "epsilon_for_delta", "renyi_divergence", "max_divergence",
              "ViewPair", "Result", "ParameterError"):
        assert n in accountant.__all__


def test_accountant_never_imports_verify_or_figures():
    """Imports flow one way (STYLE.md 1): verify/ and figures/ build on accountant/; the CLI
    reaches them only through plug-in module names (registry.HANDLER_MODULES etc.)."""
    import ast
    from pathlib import Path

    import accountant

    offenders = []
    for path in Path(accountant.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.name}: {n}" for n in names
                          if n.split(".")[0] in ("verify", "figures")]
    assert not offenders, offenders
