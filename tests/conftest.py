"""Shared test configuration: hypothesis profiles (CI is deterministic and bounded)."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("exhaustive", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    """Under `pytest -n N` (pytest-xdist), tests marked `xdist_group(NAME)` share a worker
    (`--dist loadgroup`); the rest are spread one by one as by plain `-n`. The property suite
    and the soundness campaign add up counts in module state that their last test checks:
    spread over two workers, that test would see part of them and skip."""
    if getattr(config.option, "dist", None) == "load":  # the controller, plain `-n N`
        config.option.dist = "loadgroup"
    if getattr(config, "workerinput", {}).get("loadgroup"):  # a worker: group names on ids
        config.option.loadgroup = True


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests run for tens of minutes by design: their per-test timeout is 4 h, not
    the default suite's 900 s (pyproject.toml)."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(4 * 3600))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # type: ignore[no-untyped-def]
    """Tell each xdist worker that the controller groups (xdist reads `--dist` there only
    from the command line)."""
    node.workerinput["loadgroup"] = node.config.getoption("dist") == "loadgroup"
