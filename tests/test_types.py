"""The library type-checks: ``python -m mypy accountant`` exits 0.

The configuration is ``[tool.mypy]`` in pyproject.toml: mypy's default (non-strict) checks,
with only the third-party modules that ship neither stubs nor a py.typed marker (mpmath,
scipy, tqdm, dp_accounting, pyarrow) taken as Any. mypy comes with the ``test`` extra; where
it is not installed the test is skipped, not failed.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -e '.[test]' brings it)")
def test_mypy_passes_on_the_library():
    # run from the repository root so that mypy reads pyproject.toml's [tool.mypy]
    proc = subprocess.run([sys.executable, "-m", "mypy", "accountant"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (
        f"mypy exited with {proc.returncode}:\n{proc.stdout}{proc.stderr}")
