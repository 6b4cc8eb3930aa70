"""Parameter domains, declared once and reused for validation, messages and test strategies.

`EPSILON0.check(-1.0)` raises `ParameterError: epsilon0=-1.0 is outside (0, inf)`. Tests
draw valid inputs from `EPSILON0.strategy()`, so the checks and the tests cannot drift apart.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import mpmath

from accountant.errors import ParameterError

__all__ = [
    "Interval",
    "EPSILON",
    "EPSILON0",
    "DELTA",
    "PROBABILITY",
    "N_USERS",
    "ALPHA",
    "COUNT",
    "N_PAIR",
    "POSITIVE",
    "NONNEGATIVE",
]

_BRACKETS = {"both": "[]", "neither": "()", "left": "[)", "right": "(]"}


@dataclass(frozen=True, slots=True)
class Interval:
    """A real (or integer) interval with named endpoints' openness.

    Attributes:
        name: the parameter's name as users spell it (used in error messages).
        low, high: endpoints (may be +-inf).
        closed: "both", "neither", "left" or "right".
        integer: whether the value must be an integer.
        note: why the range is what it is, appended to the out-of-range message.
    """

    name: str
    low: float
    high: float
    closed: str = "both"
    integer: bool = False
    note: str = ""  # why the range is what it is, appended to the error message

    def named(self, name: str) -> Interval:
        """The same domain for a parameter with another name (e.g. a probability `q`).

        Args:
            name: the parameter's name to use in error messages.

        Returns:
            A copy of this Interval with `name` replaced (same endpoints, openness, note).
        """
        return replace(self, name=name)

    def describe(self) -> str:
        """The domain as text, e.g. "(0, inf)" or "integers in [2, inf)".

        Returns:
            The interval in bracket notation (endpoints formatted without ".0"), prefixed with
            "integers in " for an integer domain.
        """
        left, right = _BRACKETS[self.closed]
        body = f"{left}{_fmt(self.low)}, {_fmt(self.high)}{right}"
        return f"integers in {body}" if self.integer else body

    def contains(self, value: Any) -> bool:
        """Whether `check` would accept a value.

        Args:
            value: any object.

        Returns:
            True if `check(value)` passes, False if it raises ParameterError.
        """
        try:
            self.check(value)
        except ParameterError:
            return False
        return True

    def check(self, value: Any) -> Any:
        """Return value unchanged if it lies in the domain, else raise ParameterError.

        Args:
            value: the argument to validate: a real number (int, float, Fraction, numpy scalar or
                mpmath.mpf; bool is rejected). For an integer domain, an integral float such as
                3.0 is accepted.

        Returns:
            `value` itself, not converted.

        Raises:
            ParameterError: `value` is not a real number (or is a bool), is NaN, is not an
                integer for an integer domain, or lies outside the interval; the message names
                the parameter, the value and the range (and `note`, if any).
        """
        if isinstance(value, bool) or not isinstance(value, numbers.Real | mpmath.mpf):
            raise ParameterError(
                f"{self.name}={value!r} is not a real number; valid range {self.describe()}")
        if value != value:
            raise ParameterError(f"{self.name}=nan is outside {self.describe()}")
        if self.integer and not (isinstance(value, numbers.Integral)
                                 or (math.isfinite(float(value)) and float(value).is_integer())):
            raise ParameterError(f"{self.name}={value!r} is not an integer; valid range "
                                 f"{self.describe()}")
        lo_ok = value >= self.low if self.closed in ("both", "left") else value > self.low
        hi_ok = value <= self.high if self.closed in ("both", "right") else value < self.high
        if not (lo_ok and hi_ok):
            shown = repr(float(value)) if isinstance(value, float) else _fmt(value)
            why = f" ({self.note})" if self.note else ""
            raise ParameterError(f"{self.name}={shown} is outside {self.describe()}{why}")
        return value

    def strategy(self, *, max_value: float | None = None, min_value: float | None = None):
        """A hypothesis strategy over (a finite part of) this domain.

        Args:
            max_value: optional cap on the upper end (the smaller of it and `high` is used).
            min_value: optional floor on the lower end (the larger of it and `low` is used).

        Returns:
            A hypothesis strategy: `integers` between the closed integer ends for an integer
            domain, else `floats` without NaN or infinities, with the open ends excluded.
            Imports hypothesis (a test dependency) when called.
        """
        from hypothesis import strategies as st

        lo = self.low if min_value is None else max(self.low, min_value)
        hi = self.high if max_value is None else min(self.high, max_value)
        if self.integer:
            lo_i = math.ceil(lo) + (0 if self.closed in ("both", "left") or lo != self.low else 1)
            hi_i = math.floor(hi) - (0 if self.closed in ("both", "right") or hi != self.high
                                     else 1)
            return st.integers(min_value=lo_i, max_value=hi_i)
        return st.floats(
            min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False,
            exclude_min=self.closed in ("neither", "right") and lo == self.low,
            exclude_max=self.closed in ("neither", "left") and hi == self.high)


def _fmt(x: Any) -> str:
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, int):
        digits = str(abs(x))  # 10**400 has no float: format the integer itself
        return str(x) if len(digits) <= 20 else (
            f"{'-' if x < 0 else ''}{digits[0]}.{digits[1:4]}e+{len(digits) - 1}")
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        # endpoints read "[0, 1]", not "[0.0, 1.0]", and "1e10", not "10000000000"
        return str(int(x)) if abs(x) < 1e6 else f"{x:g}".replace("+", "")
    return repr(float(x)) if isinstance(x, float) else str(x)


EPSILON = Interval("epsilon", 0.0, math.inf, closed="left")
# The declared maxima are where the float error model is stated and tested: e^epsilon0
# must be a finite float (exp overflows past 709.78; 700 leaves room for the products formed
# with it), and user counts stay far below 2^53 so that every count is an exact float.
EPSILON0 = Interval("epsilon0", 0.0, 700.0, closed="neither",
                    note="e^epsilon0 must stay a finite float")
DELTA = Interval("delta", 0.0, 1.0, closed="neither")
PROBABILITY = Interval("p", 0.0, 1.0, closed="both")
N_USERS = Interval("n", 1, 1e10, closed="both", integer=True,
                  note="the float error model is tested up to n = 1e10")
COUNT = Interval("k", 0, math.inf, closed="left", integer=True)
# users of a shuffled protocol with a neighbouring pair (the differing user and >= 1 other)
N_PAIR = Interval("n", 2, 1e10, closed="both", integer=True,
                 note="a neighbouring pair needs at least 2 users; the float error model is "
                      "tested up to n = 1e10")
# Renyi orders: real alpha > 1; alpha = inf is the max-divergence.
ALPHA = Interval("alpha", 1.0, math.inf, closed="right")
POSITIVE = Interval("value", 0.0, math.inf, closed="neither")
NONNEGATIVE = Interval("value", 0.0, math.inf, closed="left")
