"""A Poisson-sampled round dominated by the differing user's local report
(docs/continuous-randomizers.md#sampled-rounds).

When every shuffled view of a round post-processes the differing user's report with the
other users' independent reports (a local randomizer, each user one report), the report pair
R(x) against R(x') dominates every neighbouring pair at every n. With Poisson sampling and
the substitute relation the user's participation coin is shared by both datasets, so the
round post-processes

    P = (1 - q) [no message] + q R(x),        Q = (1 - q) [no message] + q R(x')

(the others' reports, sampled independently of user 1, are added by the common channel).
Its privacy-loss measure under P is (1 - q) at loss 0 plus q times the report pair's: each
order's discretised measure is the report pair's scaled by q with an atom 1 - q at grid
index 0 (loss 0 lies on every grid, so it needs no rounding and couples exactly).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from accountant.composition.pld import LossPmf, LossPmfSource, PairSource, connects
from accountant.composition.pld.sources import pmfs
from accountant.domains import SAMPLING_RATE
from accountant.numeric import rounding

__all__ = ["ParticipationPair"]

_U = rounding.UNIT_ROUNDOFF


@dataclass(frozen=True, eq=False)
class ParticipationPair(LossPmfSource):
    """The report pair mixed with "no message" at 1 - q in both laws (module docstring).

    Attributes:
        report: the differing user's report pair (a `PairSource` the engine composes).
        sampling_rate: the participation probability q, in (0, 1] (checked).
    """

    report: PairSource
    sampling_rate: float

    def __post_init__(self) -> None:
        SAMPLING_RATE.named("sampling_rate").check(self.sampling_rate)

    @property
    def description(self) -> Mapping[str, Any]:
        """The report pair's description, with the rate and what the mixture is."""
        return {**dict(self.report.description), "sampling_rate": float(self.sampling_rate),
                "relation": "substitute",
                "round": "the report pair mixed with no message at 1 - q (shared coin)"}

    def loss_pmfs(self, width: float, pessimistic: bool, tail: float,
                  connect: bool = False) -> list[LossPmf]:
        """Each order's measure of the report pair, scaled by q, plus 1 - q at loss 0.

        Args:
            width: grid width.
            pessimistic: upper (True) or lower (False) measures.
            tail: mass the report pair's measures may move (scaled by q here).
            connect: connect-the-dots measures where the report pair has them.

        Returns:
            One measure per order of the report pair.
        """
        return [_mixed(m, float(self.sampling_rate))
                for m in pmfs(self.report, width, pessimistic, tail, connect)]

    @property
    def connects(self) -> bool:
        """Whether the report pair's measures are connect-the-dots ones."""
        return connects(self.report)

    @property
    def self_coupled(self) -> bool:
        """Whether the report pair's upper measure also gives its lower end."""
        return connects(self.report, itself=True)


def _mixed(measure: LossPmf, rate: float) -> LossPmf:
    """q `measure` + (1 - q) [loss 0], with the ledger carried.

    Scaling by q adds one rounding to every entry (relative u) and scales the absolute
    part, the +inf atom and the moved mass; 1 - q is one rounding (relative u) added to
    the entry at index 0 (one more rounding there). A connect-the-dots coupling keeps its
    per-atom drift and spread: the new atom sits exactly on its grid point."""
    if rate == 1.0:
        return measure
    lo = min(measure.offset, 0)
    hi = max(measure.offset + measure.mass.size, 1)
    mass = np.zeros(hi - lo)
    start = measure.offset - lo
    mass[start:start + measure.mass.size] = measure.mass * rate
    mass[-lo] += 1.0 - rate
    grow = 1 + 4 * _U
    return replace(
        measure, offset=lo, mass=mass,
        infinity=rounding.up(measure.infinity * rate * grow),
        error=rounding.up(measure.error * rate * grow),
        relative=rounding.up((measure.relative + 3 * _U) * grow),
        moved=rounding.up(measure.moved * rate * grow),
        tilt=None)
