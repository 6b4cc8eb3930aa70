"""The independent mpmath oracle of the soundness tests now lives in the package
(`verify/oracle.py`, importing nothing from `accountant`), so that `shuffle-accountant
selfcheck` can use it; this module re-exports it for the tests."""

from verify.oracle import *  # noqa: F403
from verify.oracle import __all__  # noqa: F401
