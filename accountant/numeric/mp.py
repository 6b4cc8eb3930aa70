"""mpmath helpers: conversion of any of our value types to mpf."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

__all__ = ["to_mpf"]


def to_mpf(x: Any) -> mpmath.mpf:
    """float, int, Fraction or mpf -> mpf (a Fraction is divided at the working precision).

    Args:
        x: a float, int, Fraction or mpmath.mpf (anything mpmath.mpf accepts).

    Returns:
        An mpmath.mpf at the current mpmath working precision; a Fraction becomes
        numerator / denominator rounded once at that precision.
    """
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)
