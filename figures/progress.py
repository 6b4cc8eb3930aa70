"""Per-figure progress bars on stderr, shown only while `reproduce` runs with progress on
(never in tests or when a figure is called as a library function)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

__all__ = ["set_progress", "track"]

T = TypeVar("T")
_PROGRESS = {"enabled": False}


def set_progress(enabled: bool) -> None:
    """Turn the per-figure progress bars of `track` on or off.

    Args:
        enabled: show bars on stderr (tqdm also hides them when stderr is not a terminal).
    """
    _PROGRESS["enabled"] = enabled


def track(items: Iterable[T], desc: str, total: int | None = None) -> Iterator[T]:
    """Iterate over a figure's grid points with a progress bar on stderr (see set_progress).

    Args:
        items: the points.
        desc: a few words shown left of the bar.
        total: the number of points, when `items` has no len().

    Returns:
        An iterator over `items`.
    """
    if not _PROGRESS["enabled"]:
        return iter(items)
    return iter(tqdm(items, desc=f"  {desc}", total=total, leave=False, file=sys.stderr,
                     position=1, dynamic_ncols=True, disable=None))
