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
