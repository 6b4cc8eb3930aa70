"""Every name in a package's __all__ exists, and the top-level package re-exports the core."""

import importlib

import pytest

PACKAGES = ["accountant", "accountant.divergence", "accountant.errors", "accountant.result",
            "accountant.domains", "accountant.pmf", "accountant.distributions",
            "accountant.view", "accountant.pairs", "accountant.audit",
            "accountant.numeric.tails", "accountant.numeric.summation",
            "accountant.protocols.contract", "accountant.protocols.binary_rr",
            "accountant.protocols.k_rr", "accountant.protocols.ldp",
            "accountant.protocols.balcer_cheu", "accountant.protocols.gkm",
            "accountant.cli", "accountant.cli.registry"]


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
    """Imports flow one way (STYLE.md 1): verify/ and figures/ build on accountant/; only the
    command line, the top layer, imports them (tests/test_layers.py checks the other way)."""
    import ast
    from pathlib import Path

    import accountant

    root = Path(accountant.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        if path.relative_to(root).parts[0] == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.name}: {n}" for n in names
                          if n.split(".")[0] in ("verify", "figures")]
    assert not offenders, offenders


@pytest.mark.parametrize("argv, absent", [
    (["--help"], ["numpy", "scipy", "matplotlib", "figures", "verify"]),
    (["dp", "binary-rr", "--n", "100", "--epsilon0", "1", "--at-delta", "1e-6", "--json"],
     ["matplotlib", "figures", "verify", "dp_accounting", "accountant.composition", "scipy"]),
    (["dp", "ldp", "--n", "1e7", "--epsilon0", "4", "--at-delta", "1e-6", "--json"],
     ["matplotlib", "figures", "verify", "scipy"]),
])
def test_cli_imports_only_what_the_command_needs(argv, absent):
    """Import cost: users run the CLI as a process, so `dp` loads one protocol's face and
    `--help` loads none (the registry imports faces on demand)."""
    import subprocess
    import sys

    code = ("import sys\nfrom accountant.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                         check=True).stdout.strip().splitlines()[-1].split()
    loaded = [m for m in absent if m in out]
    assert not loaded, f"{argv[0]} imported {loaded}"
