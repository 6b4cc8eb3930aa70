"""Argument types of the command line, built from the library's declared domains.

Each type rejects bad text with a message argparse prints as one line (exit status 2):
the parameter, the value given and the valid range, e.g.
`shuffle-accountant: argument --epsilon0: epsilon0=-1.0 is outside (0, 700)`.
The command line caps a few ranges below the library's (n, epsilon0, orders, ...) where a
larger value would overflow float exponents or run for hours; the note says why.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence

from accountant.domains import DELTA, Interval
from accountant.errors import ParameterError

__all__ = [
    "real", "integer", "real_list", "float_list", "positive_int", "count",
    "USERS", "USERS_PAIR", "EPSILON0", "EPSILON", "AT_EPSILON", "AT_DELTA", "ORDER",
    "ALPHABET", "ONES", "TRIALS", "SEED", "UNIT_OPEN", "UNIT_EPSILON", "POSITIVE_REAL",
    "NOISE_EPSILON", "TARGET_EPSILON", "ORDER_FINITE", "finite_orders", "reject_repeats",
]

_EXP = "e^x must stay a finite float"
USERS = Interval("n", 1, 1e10, closed="both", integer=True,
                 note="the float error model is tested up to n = 1e9")
USERS_PAIR = Interval("n", 2, 1e10, closed="both", integer=True,
                      note="a neighbouring pair needs two users; tested up to 1e9")
EPSILON0 = Interval("epsilon0", 0.0, 700.0, closed="neither", note=_EXP)
EPSILON = Interval("epsilon", 0.0, 700.0, closed="neither", note=_EXP)
AT_EPSILON = Interval("at-epsilon", 0.0, 700.0, closed="left", note=_EXP)
AT_DELTA = DELTA.named("at-delta")
ORDER = Interval("order", 1.0, 1e6, closed="neither",
                 note="a Renyi order > 1, or inf for the max-divergence")
ALPHABET = Interval("k", 2, 1e7, closed="both", integer=True)
ONES = Interval("ones", 0, 1e10, closed="both", integer=True)
TRIALS = Interval("trials", 1, 1e8, closed="both", integer=True)
SEED = Interval("seed", 0, 2**63 - 1, closed="both", integer=True)
UNIT_OPEN = Interval("p", 0.0, 1.0, closed="neither")
# epsilons that set noise through 1/epsilon^2 (Balcer-Cheu's p, GGKPV's rho, calibration
# targets): below 1e-150, epsilon^2 is no longer a normal float and the noise is infinite
_SQUARE = "the noise scales as 1/epsilon^2, which must stay a finite float"
UNIT_EPSILON = Interval("epsilon", 1e-150, 1.0, closed="both", note=_SQUARE)
NOISE_EPSILON = Interval("epsilon", 1e-150, 700.0, closed="left", note=_SQUARE)
TARGET_EPSILON = Interval("target-epsilon", 1e-150, 700.0, closed="left", note=_SQUARE)
# the closed-form bounds take finite orders only (their max-divergence is `pure`)
ORDER_FINITE = Interval("order", 1.0, 1e6, closed="neither", note="a finite Renyi order > 1")
POSITIVE_REAL = Interval("x", 0.0, 1e12, closed="neither")


def _number(text: str, domain: Interval) -> float:
    word = text.strip().lower()
    if word in ("inf", "+inf", "infinity", "+infinity"):
        return math.inf
    if word in ("-inf", "-infinity"):
        return -math.inf
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{domain.name}={text!r} is not a number; valid range {domain.describe()}") \
            from None
    if x != x:
        raise argparse.ArgumentTypeError(
            f"{domain.name}=nan is not a number; valid range {domain.describe()}")
    return x


def _checked(x: float | int, domain: Interval) -> float | int:
    try:
        domain.check(x)
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return x


def real(domain: Interval) -> Callable[[str], float]:
    """A float flag in `domain`."""
    def parse(text: str) -> float:
        return float(_checked(_number(text, domain), domain))
    parse.__name__ = domain.name
    return parse


def integer(domain: Interval) -> Callable[[str], int]:
    """An integer flag in `domain` (1e6-style spellings accepted)."""
    def parse(text: str) -> int:
        x = _number(text, domain)
        if math.isfinite(x) and not x.is_integer():
            raise argparse.ArgumentTypeError(
                f"{domain.name}={text!r} is not an integer; valid range {domain.describe()}")
        return int(_checked(int(x) if abs(x) < 1e18 else x, domain))
    parse.__name__ = domain.name
    return parse


def real_list(domain: Interval, *, allow_inf: bool = True) -> Callable[[str], list[float]]:
    """A non-empty comma-separated list of floats in `domain` ('inf' allowed if asked)."""
    def parse(text: str) -> list[float]:
        parts = [t for t in text.split(",")]
        if not text.strip() or any(not t.strip() for t in parts):
            raise argparse.ArgumentTypeError(
                f"{domain.name}s={text!r}: expected a comma-separated list of numbers in "
                f"{domain.describe()}{' or inf' if allow_inf else ''}, with no empty item")
        out = []
        for t in parts:
            x = _number(t, domain)
            out.append(x if (allow_inf and x == math.inf) else float(_checked(x, domain)))
        return out
    parse.__name__ = f"{domain.name}s"
    return parse


float_list = real_list(ORDER)
finite_orders = real_list(ORDER_FINITE, allow_inf=False)
# an integer flag whose range the library itself checks (it names the parameter there)
positive_int = integer(Interval("value", 0, 1e12, closed="both", integer=True))
count = integer(USERS)


# actions that may be given more than once
_REPEATABLE = (argparse._AppendAction, argparse._CountAction, argparse._HelpAction)


def reject_repeats(parser: argparse.ArgumentParser, args: Sequence[str]) -> None:
    """parser.error when a flag that takes one value is given twice: argparse keeps the last
    one silently (`--noise-multiplier 1 --noise-multiplier 2` used 2, exit 0). Only the
    parser's own flags count (a subcommand's parser checks its own)."""
    seen: set[str] = set()
    for token in args:
        if token == "--":
            break
        if not token.startswith("--"):
            continue
        name = token.split("=", 1)[0]
        action = parser._option_string_actions.get(name)
        if action is None or isinstance(action, _REPEATABLE):
            continue
        if action.dest in seen:
            parser.error(f"argument {name}: given twice (give it once)")
        seen.add(action.dest)
