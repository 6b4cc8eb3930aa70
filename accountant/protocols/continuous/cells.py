"""Certified masses of the output cells of a noise law under inputs 0 and 1.

A cell is an interval (a, b] of outputs; its mass under input x is F(b - x) - F(a - x), F the
noise's distribution function. The special-pair lower end (`special_pair`) needs these masses
to about a unit roundoff (its sum of n messages multiplies their relative errors by n), far
below the float CDF's stated error (`laws.CDF_RELATIVE_ERROR`), so they are evaluated here in
python-flint's ball arithmetic, whose radii are proven: each float mass comes with a bound on
its distance from the true mass (docs/continuous-randomizers.md#the-special-pair).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from flint import arb, ctx

from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.protocols.continuous import blanket
from accountant.protocols.continuous.laws import (
    DiscreteGaussianLaw,
    DiscreteLaplaceLaw,
    GaussianLaw,
    LaplaceLaw,
    NoiseLaw,
)

__all__ = ["Cells", "Tails", "cells", "cuts", "law_tails", "TINY"]

_PREC = 192  # bits: far more than the 53 kept, so that cancellation in F(b) - F(a) is harmless
# masses below this are set to 0 and their true value is carried as an absolute error (a
# float mass this small would be subnormal, outside the relative error model)
TINY = 1e-290


@dataclass(frozen=True, eq=False)
class Cells:
    """Float masses of consecutive output cells under inputs 0 and 1, with certified errors.

    Cell 0 is (-inf, cuts[0]], cell i is (cuts[i-1], cuts[i]], the last (cuts[-1], inf).

    Attributes:
        cuts: the increasing cut points.
        p0, p1: float masses under input 0 and 1 (each 0 or >= TINY).
        rho: |true - p_x| <= rho p_x for every cell with p_x > 0.
        tiny0, tiny1: upper bounds on the total true mass of the cells whose float mass is 0.
        balls0, balls1: the masses as balls (`merged` sums them over runs of cells).
    """

    cuts: np.ndarray
    p0: np.ndarray
    p1: np.ndarray
    rho: float
    tiny0: float
    tiny1: float
    balls0: tuple[arb, ...] = ()
    balls1: tuple[arb, ...] = ()

    def merged(self, starts: np.ndarray) -> Cells:
        """The cells of consecutive runs of these cells, each run starting at an index of
        `starts` (increasing, starts[0] = 0), their masses summed in ball arithmetic (so the
        float masses of the runs carry the same relative error as single cells, however
        many cells a run holds).

        Args:
            starts: first cell of each run.

        Returns:
            A `Cells` with one cell per run (cuts: the run boundaries).
        """
        ends = [*starts[1:].tolist(), len(self.balls0)]
        with ctx.workprec(_PREC):
            b0 = [_sum(self.balls0[a:b]) for a, b in zip(starts.tolist(), ends, strict=True)]
            b1 = [_sum(self.balls1[a:b]) for a, b in zip(starts.tolist(), ends, strict=True)]
            return _certify(self.cuts[starts[1:] - 1], b0, b1)


def cuts(law: NoiseLaw) -> np.ndarray:
    """Cut points: the blanket's grid of offsets from 1/2 on both sides (64 per scale out to 6
    scales, geometric beyond, out to where the noise's tail is below 1e-290; integers for
    integer laws, so that cells hold whole atoms).

    Args:
        law: the noise law.

    Returns:
        Increasing float cut points.
    """
    t = blanket.grid(law, 1e-290)
    y = np.concatenate([0.5 - t[::-1], 0.5 + t[1:]])
    # integer laws: integer cuts, each cell (a, b] holding the atoms a + 1, ..., b (none empty)
    return np.unique(np.floor(y) if law.integer else y)


@functools.lru_cache(maxsize=16)
def cells(law: NoiseLaw) -> Cells:
    """The certified cell masses of `law` on `cuts(law)` (cached per law).

    Args:
        law: the noise law (one of the four families' laws).

    Returns:
        The `Cells`.
    """
    c = cuts(law)
    with ctx.workprec(_PREC):
        tails = law_tails(law)
        p0 = _masses(tails, c)
        p1 = _masses(tails, c - 1.0)
        return _certify(c, p0, p1)


def _sum(balls: tuple[arb, ...]) -> arb:
    total = arb(0)
    for b in balls:
        total += b
    return total


def _certify(c: np.ndarray, p0: list[arb], p1: list[arb]) -> Cells:
    out, rho, tiny = [], 0.0, []
    for balls in (p0, p1):
        mid = np.array([float(b.mid()) for b in balls])
        # |true - float| <= |ball - float| (an arb bound, rounded up to a float)
        err = np.array([float(abs(b - arb(m)).upper()) for b, m in zip(balls, mid, strict=True)])
        err = err * (1 + 4 * UNIT_ROUNDOFF) + 1e-323
        small = mid < TINY
        tiny.append(float(np.sum(np.maximum(mid + err, 0.0)[small])) * (1 + 1e-12) + 1e-300)
        mid = np.where(small, 0.0, mid)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(small, 0.0, err / np.where(small, 1.0, mid))
        rho = max(rho, float(np.max(rel)) * (1 + 4 * UNIT_ROUNDOFF))
        out.append(mid)
    return Cells(cuts=c, p0=out[0], p1=out[1], rho=rho, tiny0=tiny[0], tiny1=tiny[1],
                 balls0=tuple(p0), balls1=tuple(p1))


def _masses(tails: Tails, y: np.ndarray) -> list[arb]:
    """Balls for the masses of the cells cut at y (the noise law at those points), each
    from the smaller side of 0: F differences left of 0, survival differences right of it."""
    lo = [tails(float(v)) for v in y]
    masses = [lo[0][0]]
    for (fa, sa), (fb, sb), a, b in zip(lo[:-1], lo[1:], y[:-1], y[1:], strict=True):
        if b <= 0:
            masses.append(fb - fa)
        elif a >= 0:
            masses.append(sa - sb)
        else:
            masses.append(1 - fa - sb)
    masses.append(lo[-1][1])
    return masses


class Tails:
    """(F(y), 1 - F(y)) of a noise law as balls, each computed without cancellation."""

    def __call__(self, y: float) -> tuple[arb, arb]:
        """(F(y), 1 - F(y)) at `y` as balls.

        Args:
            y: the point.

        Returns:
            The two balls.
        """
        raise NotImplementedError


class _GaussianTails(Tails):
    def __init__(self, sigma: float) -> None:
        self.scale = arb(sigma) * arb(2).sqrt()

    def __call__(self, y: float) -> tuple[arb, arb]:
        z = arb(y) / self.scale
        return (-z).erfc() / 2, z.erfc() / 2


class _LaplaceTails(Tails):
    def __init__(self, b: float) -> None:
        self.b = arb(b)

    def __call__(self, y: float) -> tuple[arb, arb]:
        if y < 0:
            f = (arb(y) / self.b).exp() / 2
            return f, 1 - f
        s = (-arb(y) / self.b).exp() / 2
        return 1 - s, s


class _DiscreteLaplaceTails(Tails):
    # P(X <= k) = p^|k| / (1 + p) for k < 0, P(X > k) = p^(k+1) / (1 + p) for k >= 0
    def __init__(self, b: float) -> None:
        self.b = arb(b)
        self.norm = 1 + (-1 / self.b).exp()

    def __call__(self, y: float) -> tuple[arb, arb]:
        k = math.floor(y)
        if k < 0:
            f = (arb(k) / self.b).exp() / self.norm
            return f, 1 - f
        s = (-arb(k + 1) / self.b).exp() / self.norm
        return 1 - s, s


class _DiscreteGaussianTails(Tails):
    """Prefix sums of e^(-k^2 / (2 sigma^2)) over |k| <= top = 40 sigma + 40 (one pass, cached
    with the law); the mass beyond top on each side is below e^(-top^2 / (2 sigma^2)) / (1 -
    e^(-top / sigma^2)), carried in the balls' radii."""

    def __init__(self, sigma: float) -> None:
        s2 = 2 * arb(sigma) ** 2
        self.top = math.ceil(40.0 * sigma) + 40
        w = [(-arb(k) ** 2 / s2).exp() for k in range(-self.top, self.top + 1)]
        beyond = ((-arb(self.top) ** 2 / s2).exp()
                  / (1 - (-arb(2 * self.top + 1) / s2).exp()))
        edge = arb(0, beyond.upper())  # [0, mass beyond top]: a ball around its midpoint
        left, acc = [], edge
        for v in w:
            acc = acc + v
            left.append(acc)  # sum of weights <= k (k = -top + index), tail included
        self.total = acc + edge
        self.left = left
        self.edge = edge

    def __call__(self, y: float) -> tuple[arb, arb]:
        k = math.floor(y)
        if k < -self.top:
            return self.edge / self.total, 1 - self.edge / self.total
        if k >= self.top:
            return 1 - self.edge / self.total, self.edge / self.total
        low = self.left[k + self.top]
        # the survival side from the mirrored prefix sum: P(X > k) = P(X < -k) = F(-k - 1)
        high = self.left[-k - 1 + self.top] if -k - 1 >= -self.top else self.edge
        return low / self.total, high / self.total


def law_tails(law: NoiseLaw) -> Tails:
    """The ball-arithmetic tails of a noise law (shared with `tail_events`).

    Args:
        law: a Gaussian, Laplace, discrete Laplace or discrete Gaussian law.

    Returns:
        Its `Tails`.

    Raises:
        TypeError: a law without ball-arithmetic tails.
    """
    if isinstance(law, GaussianLaw):
        return _GaussianTails(law.scale)
    if isinstance(law, LaplaceLaw):
        return _LaplaceTails(law.scale)
    if isinstance(law, DiscreteLaplaceLaw):
        return _DiscreteLaplaceTails(law.scale)
    if isinstance(law, DiscreteGaussianLaw):
        return _DiscreteGaussianTails(law.scale)
    raise TypeError(f"no ball-arithmetic CDF for {type(law).__name__}")
