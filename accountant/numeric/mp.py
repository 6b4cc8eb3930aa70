"""Multiprecision helpers: conversions between our value types, mpmath and python-flint.

The exact and mp backends evaluate divergences on exact rationals (python-flint's `fmpq`)
and take logarithms and exponentials in ball arithmetic (`arb`, whose radii are proven
error bounds); these helpers move values between those types without rounding, or with
the rounding direction stated.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import mpmath
from flint import arb, fmpq, fmpz

__all__ = ["to_mpf", "to_fmpq", "arb_to_mpf", "arb_lower", "arb_upper", "mantissa_bits",
           "bits_for_dps"]


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
    if isinstance(x, fmpq):
        return mpmath.mpf(int(x.p)) / int(x.q)
    return mpmath.mpf(x)


def to_fmpq(x: Any) -> fmpq:
    """The exact rational value of a finite Fraction, int, float, mpf or fmpq.

    Args:
        x: a finite number; a float or mpf is a dyadic rational and is converted exactly.

    Returns:
        The `fmpq` equal to x (no rounding).

    Raises:
        ValueError: x is infinite or NaN.
        TypeError: x is of another type.
    """
    if isinstance(x, fmpq):
        return x
    if isinstance(x, int):
        return fmpq(x)
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, float):
        if not math.isfinite(x):  # Fraction raises OverflowError for inf, ValueError for nan
            raise ValueError(f"{x!r} has no rational value")
        f = Fraction(x)
        return fmpq(f.numerator, f.denominator)
    if isinstance(x, mpmath.mpf):
        sign, man, exp, _ = x._mpf_
        if not man:
            if x != 0:
                raise ValueError(f"{x} has no rational value")
            return fmpq(0)
        man = -int(man) if sign else int(man)
        return fmpq(man << exp) if exp >= 0 else fmpq(man, 1 << -exp)
    if isinstance(x, fmpz):
        return fmpq(x)
    if isinstance(x, numbers.Rational):  # numpy integers, sympy rationals
        return fmpq(int(x.numerator), int(x.denominator))
    raise TypeError(f"cannot convert {type(x).__name__} to a rational")


def arb_to_mpf(x: arb) -> mpmath.mpf:
    """The midpoint of an arb ball as an mpf, exactly (no rounding to mpmath's precision).

    Args:
        x: a ball with a finite midpoint.

    Returns:
        mpmath.mpf equal to x's midpoint.
    """
    man, exp = x.mid().man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def arb_lower(x: arb) -> fmpq:
    """The exact lower end of a finite ball, as a rational.

    Args:
        x: a ball with finite midpoint and radius.

    Returns:
        The fmpq midpoint - radius, exactly (arb's own lower() rounds at the context's
        precision).

    Raises:
        ValueError: the ball is not finite.
    """
    mid, rad = _mid_rad(x)
    return mid - rad


def arb_upper(x: arb) -> fmpq:
    """The exact upper end of a finite ball, as a rational.

    Args:
        x: a ball with finite midpoint and radius.

    Returns:
        The fmpq midpoint + radius, exactly.

    Raises:
        ValueError: the ball is not finite.
    """
    mid, rad = _mid_rad(x)
    return mid + rad


def _mid_rad(x: arb) -> tuple[fmpq, fmpq]:
    if not x.is_finite():
        raise ValueError(f"ball {x} is not finite")
    m, e = x.mid().man_exp()
    r, f = x.rad().man_exp()
    return _dyadic(int(m), int(e)), _dyadic(int(r), int(f))


def _dyadic(man: int, exp: int) -> fmpq:
    return fmpq(man << exp) if exp >= 0 else fmpq(man, 1 << -exp)


def mantissa_bits(x: Any) -> int:
    """Significant bits of an mpf's mantissa (0 for zero; 53 for a float).

    Args:
        x: an mpmath.mpf or a float.

    Returns:
        The bit count of the mantissa: a value rounded at p bits has at most p, and a value
        computed at p bits usually has about p.
    """
    if isinstance(x, mpmath.mpf):
        return int(x._mpf_[3])
    return 53


def bits_for_dps(dps: int) -> int:
    """Bits of precision for a number of decimal digits (mpmath's own conversion).

    Args:
        dps: decimal digits, >= 1.

    Returns:
        The binary precision mpmath uses for `dps` digits.
    """
    return int(mpmath.libmp.dps_to_prec(int(dps)))
