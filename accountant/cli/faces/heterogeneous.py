"""`heterogeneous`: users in groups with different local randomizers, given as a JSON file.

The file holds a list of groups, or an object {"groups": [...]}; a group is
{"count": c, "rows": [[...], ...]} (its own matrix, one row per input), {"count": c,
"randomizer": "binary-rr", "epsilon0": e} or {"count": c, "randomizer": "k-rr",
"epsilon0": e, "k": k}, each with an optional "count_max" (the count known only to lie in
[count, count_max]: the answer is at count, docs/heterogeneous.md#n-as-a-range). Every
problem with the file is a one-line ParameterError (exit status 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from accountant.cli.faces.declared import Special, declared_spec
from accountant.errors import ParameterError
from accountant.protocols.heterogeneous import Group, HeterogeneousRandomizer, check_groups

__all__ = ["SPEC", "read_groups"]


def read_groups(path: str) -> tuple[Group, ...]:
    """The validated groups of a JSON file.

    Args:
        path: the file.

    Returns:
        The groups (`protocols.heterogeneous.check_groups`).

    Raises:
        ParameterError: unreadable file, malformed JSON, or invalid groups (the message
            names the file and the group).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ParameterError(f"groups={path!r} cannot be read: "
                             f"{exc.strerror or exc.__class__.__name__}") from None
    except UnicodeDecodeError:
        raise ParameterError(f"groups={path!r} cannot be read: UnicodeDecodeError") from None
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParameterError(f"groups={path!r} is not valid JSON: {exc.msg} at line "
                             f"{exc.lineno}") from None
    if isinstance(data, dict):
        if "groups" not in data:
            raise ParameterError(f"groups={path!r}: a JSON object needs a \"groups\" key")
        data = data["groups"]
    try:
        return check_groups(data)
    except ParameterError as exc:
        raise ParameterError(f"groups={path!r}: {exc}") from None


def _add_groups(p: argparse.ArgumentParser) -> None:
    p.add_argument("--groups", required=True, metavar="FILE",
                   help="the groups: JSON list of {count, rows | randomizer, epsilon0[, k]}")


# --colluders and the handlers follow HeterogeneousRandomizer's declaration
SPEC = declared_spec(HeterogeneousRandomizer,
                     "users in groups with different randomizers (--groups FILE: JSON)",
                     Special(add_arguments=_add_groups,
                             values=lambda args: {"groups": read_groups(args.groups)}))
