"""Parameter domains, declared once and reused for validation, messages and test strategies.

`EPSILON0.check(-1.0)` raises `ParameterError: epsilon0=-1.0 is outside (0, inf)`. Tests
draw valid inputs from `EPSILON0.strategy()`, so the checks and the tests cannot drift apart.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields, replace
from fractions import Fraction
from typing import Any, Generic, ParamSpec, TypeVar, overload

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
    "ALPHABET",
    "Checked",
    "BoundChecked",
    "trusted",
    "SAMPLING_RATE",
    "DELTA0",
    "SIGMA",
    "LAPLACE_SCALE",
    "DISCRETE_SIGMA",
    "checked",
    "finite_orders",
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
        left, right = _BRACKETS[self.closed][0], _BRACKETS[self.closed][1]
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
        v: Any = value  # a real number (numbers.Real declares no comparisons for the checker)
        lo_ok = v >= self.low if self.closed in ("both", "left") else v > self.low
        hi_ok = v <= self.high if self.closed in ("both", "right") else v < self.high
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
# an approximate local randomizer's delta0; 0 is the pure class (family `ldp`), 1 says nothing
DELTA0 = Interval("delta0", 0.0, 1.0, closed="neither",
                  note="delta0 = 0 is the pure class: use the ldp family")
# Noise laws of the continuous local randomizers (docs/continuous-randomizers.md), bounded so
# that the blanket's terms e^(log-ratio) stay far inside float range: the grid reaches
# t ~ 40 sigma, where the Gaussian log-ratio is t/sigma^2 ~ 40/sigma.
SIGMA = Interval("sigma", 0.1, 1e4, closed="both",
                 note="the Gaussian blanket's terms grow like e^(40/sigma)")
LAPLACE_SCALE = Interval("scale", 0.02, 1e4, closed="both",
                         note="a Laplace randomizer with b < 0.02 is more than 50-LDP")
# the discrete Gaussian's CDF is a sum over 81 sigma integers: its float error stays within
# the stated model up to sigma = 100
DISCRETE_SIGMA = Interval("sigma", 0.1, 100.0, closed="both",
                          note="the discrete Gaussian CDF is summed over 81 sigma integers")
# Renyi orders: real alpha > 1; alpha = inf is the max-divergence.
ALPHA = Interval("alpha", 1.0, math.inf, closed="right")
POSITIVE = Interval("value", 0.0, math.inf, closed="neither")
NONNEGATIVE = Interval("value", 0.0, math.inf, closed="left")
# a Poisson sampling rate: each user takes part with probability q
SAMPLING_RATE = Interval("sampling_rate", 0.0, 1.0, closed="right")
# alphabet sizes (k-RR's k): at least two symbols
ALPHABET = Interval("k", 2, 1e10, closed="both", integer=True,
                    note="k-RR needs k >= 2 symbols")

def orders(alphas: Any) -> None:
    """Validate Renyi orders: each in (1, inf] (inf: the max-divergence).

    Args:
        alphas: an iterable of orders.

    Raises:
        ParameterError: an order outside (1, inf].
    """
    for a in alphas:
        ALPHA.check(a)


def finite_orders(alphas: Any) -> None:
    """Validate Renyi orders for a curve: each in (1, inf), inf refused (a pair's
    max-divergence has its own call).

    Args:
        alphas: an iterable of orders.

    Raises:
        ParameterError: an order outside (1, inf], or an infinite one.
    """
    for a in alphas:
        ALPHA.check(a)
        if a == math.inf:
            raise ParameterError("alpha=inf: a curve takes finite orders; the max-divergence "
                                 "has its own call (max_divergence, or renyi_divergence at inf)")


P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


def trusted(cls: type[T], /, **values: Any) -> T:
    """A dataclass record built from values that were checked where they entered: its
    `__post_init__` checks are skipped (the record analogue of `Checked.unchecked`). Only for
    records whose `__post_init__` validates and derives nothing.

    Args:
        cls: the dataclass.
        **values: the fields (a missing one takes its default).

    Returns:
        The record.

    Raises:
        TypeError: a field without a default is missing.
    """
    obj = object.__new__(cls)
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name in values:
            value = values[f.name]
        elif f.default is not MISSING:
            value = f.default
        elif f.default_factory is not MISSING:
            value = f.default_factory()
        else:
            raise TypeError(f"{cls.__name__} needs {f.name!r}")
        object.__setattr__(obj, f.name, value)
    return obj


class Checked(Generic[P, R]):
    """A public function whose arguments are validated against declared domains.

    Calling it checks the named arguments (an argument left at a default of None is not
    checked) and runs the function; `unchecked` is the function itself, for the library's
    own callers whose values were validated once already (a family's record): a parameter is
    validated where it enters, never again beneath
    (docs/architecture.md#families-one-declaration-each).

    Attributes:
        unchecked: the function without the checks.
        domains: argument name -> its Interval, or a function raising ParameterError (for
            an argument such as a list of orders that no single Interval describes).
    """

    def __init__(self, fn: Callable[P, R],
                 domains: dict[str, Interval | Callable[[Any], object]]) -> None:
        self.unchecked = fn
        self.domains = domains
        self._signature = inspect.signature(fn)
        unknown = set(domains) - set(self._signature.parameters)
        if unknown:
            raise TypeError(f"{fn.__qualname__} has no argument(s) {sorted(unknown)}")
        functools.update_wrapper(self, fn)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        given = self._signature.bind(*args, **kwargs).arguments
        for name, domain in self.domains.items():
            if name in given and not (given[name] is None
                                      and self._signature.parameters[name].default is None):
                (domain.check if isinstance(domain, Interval) else domain)(given[name])
        return self.unchecked(*args, **kwargs)

    def __reduce__(self) -> str:
        # pickled by reference, as the plain function was (process pools in sweeps)
        return self.unchecked.__qualname__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Checked[P, R]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> BoundChecked[R]: ...

    def __get__(self, obj: object | None,
                owner: type | None = None) -> Checked[P, R] | BoundChecked[R]:
        # a method with declared domains: `record.method(x)` checks x,
        # `record.method.unchecked(x)` does not (the record itself was checked when built)
        return self if obj is None else BoundChecked(self, obj)


class BoundChecked(Generic[R]):
    """A `Checked` method bound to its object: calling it checks the arguments; `unchecked`
    is the bound method without the checks."""

    def __init__(self, method: Checked[Any, R], obj: object) -> None:
        self._method = method
        self._obj = obj
        self.unchecked: Callable[..., R] = functools.partial(method.unchecked, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> R:
        return self._method(self._obj, *args, **kwargs)


def checked(**domains: Interval | Callable[[Any], object],
            ) -> Callable[[Callable[P, R]], Checked[P, R]]:
    """Declare the domains of a public function's arguments (see `Checked`).

    Args:
        **domains: argument name -> Interval (or a validating function).

    Returns:
        A decorator turning the function into a `Checked` one.
    """
    def wrap(fn: Callable[P, R]) -> Checked[P, R]:
        return Checked(fn, domains)
    return wrap
