"""The exceptions and warnings the library raises on purpose.

Every error names the parameter, the value it got and the valid range (or the theorem's
condition that failed), so that a user can fix the call without reading our source.
"""

from __future__ import annotations

__all__ = [
    "AccountantError",
    "ParameterError",
    "RegimeError",
    "PrecisionError",
    "LooseBoundWarning",
]


class AccountantError(Exception):
    """Base class of everything this library raises on purpose."""


class ParameterError(AccountantError, ValueError):
    """An argument lies outside its declared domain (see `accountant.domains`)."""


class RegimeError(AccountantError, ValueError):
    """The input is valid, but a theorem's hypothesis does not hold for it."""


class PrecisionError(AccountantError, ArithmeticError):
    """The numerical backend cannot certify the answer at the requested precision."""


class LooseBoundWarning(UserWarning):
    """The answer is valid but loose (e.g. an optimum found at the edge of a search grid)."""
