"""Groups of users sharing a local randomizer: (count, matrix) or (count, named randomizer).

Every group's matrix must have the same input alphabet (a user's datum is one of k inputs
whatever its group) and the same output alphabet (the shuffler mixes all messages). A
group's count may be a range [count, count_max]: the number of its users is only known to
lie there, and every guarantee is taken at `count`, the fewest
(docs/heterogeneous.md#n-as-a-range).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accountant.domains import ALPHABET, COUNT, EPSILON0
from accountant.errors import ParameterError
from accountant.protocols import randomizer

__all__ = ["Group", "binary_rr_group", "k_rr_group", "matrix_group", "check_groups"]

_COUNT = COUNT.named("count")


@dataclass(frozen=True)
class Group:
    """`count` users (at least; at most `count_max` when given) applying `matrix`.

    Attributes:
        count: the number of users of the group (the fewest, when a range is given).
        matrix: their local randomizer (`protocols.randomizer.Randomizer`).
        count_max: the most users of the group, or None when the count is known.
    """

    count: int
    matrix: randomizer.Randomizer
    count_max: int | None = None

    def describe(self) -> dict[str, Any]:
        """The group as JSON: its count (or range), its matrix's name, size and epsilon0."""
        out: dict[str, Any] = {"count": self.count, "randomizer": self.matrix.name,
                               "inputs": self.matrix.inputs, "outputs": self.matrix.outputs,
                               "epsilon0": self.matrix.epsilon0}
        if self.count_max is not None:
            out["count_max"] = self.count_max
        return out


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterError(f"{where}={value!r} is outside integers in [0, inf)")
    _COUNT.check(value)
    return int(value)


def _range(count: Any, count_max: Any, where: str) -> tuple[int, int | None]:
    low = _count(count, f"{where}.count")
    if count_max is None:
        return low, None
    high = _count(count_max, f"{where}.count_max")
    if high < low:
        raise ParameterError(f"{where}.count_max={high} is outside [{low}, inf) (count={low})")
    return low, high


def matrix_group(count: Any, rows: Any, *, count_max: Any = None,
                 name: str = "user matrix") -> Group:
    """A group with its own matrix.

    Args:
        count: the number of users, an integer >= 0 (the fewest when count_max is given).
        rows: a `Randomizer` or its rows (validated by `Randomizer.from_rows`).
        count_max: the most users, an integer >= count, or None.
        name: the matrix's label when rows are given.

    Returns:
        The Group.

    Raises:
        ParameterError: a count outside its range or an invalid matrix.
    """
    low, high = _range(count, count_max, "group")
    matrix = rows if isinstance(rows, randomizer.Randomizer) else \
        randomizer.Randomizer.from_rows(rows, name=name)
    return Group(count=low, matrix=matrix, count_max=high)


def binary_rr_group(count: Any, epsilon0: float, *, count_max: Any = None) -> Group:
    """A group of binary randomized response users at their own epsilon0.

    Args:
        count: the number of users, an integer >= 0.
        epsilon0: the group's local epsilon0, in (0, 700].
        count_max: the most users, or None.

    Returns:
        The Group with `randomizer.binary_rr(epsilon0)`.

    Raises:
        ParameterError: a count or epsilon0 outside its range.
    """
    EPSILON0.check(epsilon0)
    return matrix_group(count, randomizer.binary_rr(float(epsilon0)), count_max=count_max)


def k_rr_group(count: Any, epsilon0: float, k: int, *, count_max: Any = None) -> Group:
    """A group of k-ary randomized response users at their own epsilon0.

    Args:
        count: the number of users, an integer >= 0.
        epsilon0: the group's local epsilon0, in (0, 700].
        k: the alphabet size, an integer >= 2.
        count_max: the most users, or None.

    Returns:
        The Group with `randomizer.k_rr(k, epsilon0)`.

    Raises:
        ParameterError: a count, epsilon0 or k outside its range.
    """
    EPSILON0.check(epsilon0)
    ALPHABET.check(k)
    return matrix_group(count, randomizer.k_rr(int(k), float(epsilon0)), count_max=count_max)


def check_groups(groups: Sequence[Any]) -> tuple[Group, ...]:
    """Validate a list of groups: Group records, or JSON-like objects.

    A JSON-like group is {"count": c, "rows": [[...], ...]} (or "matrix" for "rows"), or
    {"count": c, "randomizer": "binary-rr", "epsilon0": e}, or {"count": c, "randomizer":
    "k-rr", "epsilon0": e, "k": k}; "count_max" is optional in each.

    Args:
        groups: the groups, at least one.

    Returns:
        The tuple of Groups.

    Raises:
        ParameterError: no group, an invalid group (its index named), or matrices whose
            input or output alphabets differ.
    """
    if isinstance(groups, str | bytes) or not isinstance(groups, Sequence) or not groups:
        raise ParameterError(f"groups={str(groups)[:60]!r} is not a non-empty list of groups")
    out = []
    for i, g in enumerate(groups):
        try:
            out.append(g if isinstance(g, Group) else _from_json(g))
        except ParameterError as exc:
            raise ParameterError(f"groups[{i}]: {exc}") from None
    k, m = out[0].matrix.inputs, out[0].matrix.outputs
    for i, g in enumerate(out):
        if (g.matrix.inputs, g.matrix.outputs) != (k, m):
            raise ParameterError(
                f"groups[{i}] has a {g.matrix.inputs} x {g.matrix.outputs} matrix, outside "
                f"{k} x {m} (every group shares group 0's inputs and outputs)")
    return tuple(out)


def _from_json(g: Any) -> Group:
    if not isinstance(g, dict):
        raise ParameterError(f"group={str(g)[:60]!r} is not an object with \"count\"")
    if "count" not in g:
        raise ParameterError("a group needs a \"count\"")
    known = {"count", "count_max", "rows", "matrix", "name", "randomizer", "epsilon0", "k"}
    extra = sorted(set(g) - known)
    if extra:
        raise ParameterError(f"unknown key {extra[0]!r}; valid keys {sorted(known)}")
    count, count_max = g["count"], g.get("count_max")
    kind = g.get("randomizer")
    if kind is None:
        rows = g.get("rows", g.get("matrix"))
        if rows is None:
            raise ParameterError("a group needs \"rows\" (its matrix) or \"randomizer\"")
        return matrix_group(count, rows, count_max=count_max,
                            name=str(g.get("name", "user matrix")))
    if "epsilon0" not in g:
        raise ParameterError(f"randomizer={kind!r} needs \"epsilon0\"")
    e0 = g["epsilon0"]
    if isinstance(e0, bool) or not isinstance(e0, numbers.Real):
        raise ParameterError(f"epsilon0={e0!r} is not a real number; valid range (0, 700]")
    if kind == "binary-rr":
        return binary_rr_group(count, float(e0), count_max=count_max)
    if kind == "k-rr":
        if "k" not in g:
            raise ParameterError("randomizer='k-rr' needs \"k\"")
        kk = g["k"]
        if isinstance(kk, bool) or not isinstance(kk, numbers.Integral):
            raise ParameterError(f"k={kk!r} is outside integers in [2, 1e10]")
        return k_rr_group(count, float(e0), int(kk), count_max=count_max)
    raise ParameterError(f"randomizer={kind!r} is not one of 'binary-rr', 'k-rr' (a group of "
                         "any other randomizer gives its matrix as \"rows\")")
