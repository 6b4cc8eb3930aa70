"""Pairs of independent coordinates: P = P_1 x ... x P_k against Q = Q_1 x ... x Q_k.

The privacy loss of a product is the sum of the coordinates' losses (each outcome's
likelihood ratio factors), so its privacy-loss distribution is the convolution of the
coordinates' (docs/divergences.md#products). A product of views that would not fit on one
grid (Balcer-Cheu hist: two binomial coordinates of width W, W^2 cells) is composed by the
PLD engine from its coordinates instead (`composition.pld.sources.pmfs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accountant.errors import ParameterError
from accountant.view import ViewPair

__all__ = ["ProductPair"]


@dataclass(frozen=True)
class ProductPair:
    """The product of independent coordinates' view pairs.

    Attributes:
        components: the coordinates' pairs (P_i, Q_i), at least two.
        description: what the product is (protocol, parameters), for labels.
    """

    components: tuple[ViewPair, ...]
    description: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.components) < 2 or not all(isinstance(c, ViewPair)
                                                for c in self.components):
            raise ParameterError("a ProductPair needs at least two ViewPair components, got "
                                 f"{[type(c).__name__ for c in self.components]}")

    @property
    def grid_exact(self) -> bool:
        """Whether every coordinate's values are exact grid values (optimistic PLDs)."""
        return all(c.grid_exact for c in self.components)

    def swapped(self) -> ProductPair:
        """The pair (Q, P).

        Returns:
            A ProductPair of every coordinate swapped, with the same description.
        """
        return ProductPair(tuple(c.swapped() for c in self.components), self.description)
