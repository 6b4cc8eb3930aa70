"""Argument types of the command line: each rejects bad text with a message argparse prints
as one line (exit status 2)."""

from __future__ import annotations

import argparse
import math

__all__ = ["float_list", "positive_int", "count"]


def float_list(text: str) -> list[float]:
    """'2,4,8.5,inf' -> [2.0, 4.0, 8.5, inf] (for --orders)."""
    try:
        return [math.inf if t.strip().lower() in ("inf", "infinity") else float(t)
                for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") \
            from None


def positive_int(text: str) -> int:
    """An integer flag that also accepts 1e6-style spellings."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not x.is_integer():
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(x)


def count(text: str) -> int:
    """A count of users (an integer, 1e6-style spellings accepted; the range is checked by
    the library's domains)."""
    return positive_int(text)
