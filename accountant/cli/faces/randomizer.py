"""`randomizer`: any local randomizer given as a matrix file, shuffled.

The file holds the matrix R(y|x), one row per input, one column per output: JSON (a list of
rows, or an object with "rows" and optionally "name") or CSV (one row per line, comma or
whitespace separated; blank lines and lines starting with '#' are skipped). Every problem
with the file is a one-line ParameterError (exit status 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from accountant.cli.faces.declared import Special, declared_spec
from accountant.errors import ParameterError
from accountant.protocols.randomizer import Randomizer, RandomizerMechanism

__all__ = ["SPEC", "read_matrix"]


def read_matrix(path: str) -> Randomizer:
    """The validated matrix of a JSON or CSV file.

    Args:
        path: the file (".json" is read as JSON, anything else as CSV unless it starts
            with '[' or '{').

    Returns:
        The `Randomizer`, named after the file (or the JSON "name").

    Raises:
        ParameterError: unreadable file, malformed JSON/CSV, or an invalid matrix (the
            message names the file and the offending entry).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ParameterError(f"matrix={path!r} cannot be read: "
                             f"{exc.strerror or exc.__class__.__name__}") from None
    except UnicodeDecodeError:
        raise ParameterError(f"matrix={path!r} cannot be read: UnicodeDecodeError") from None
    name = Path(path).name
    stripped = text.lstrip()
    if path.endswith(".json") or stripped.startswith(("[", "{")):
        try:
            data: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParameterError(f"matrix={path!r} is not valid JSON: {exc.msg} at line "
                                 f"{exc.lineno}") from None
        if isinstance(data, dict):
            name = str(data.get("name", name))
            if "rows" not in data:
                raise ParameterError(f"matrix={path!r}: a JSON object needs a \"rows\" key")
            data = data["rows"]
    else:
        data = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            cells = [c for c in line.replace(",", " ").split() if c]
            try:
                data.append([float(c) for c in cells])
            except ValueError:
                raise ParameterError(f"matrix={path!r} line {lineno} is not a row of numbers: "
                                     f"{line[:40]!r}") from None
    try:
        return Randomizer.from_rows(data, name=name)
    except ParameterError as exc:
        raise ParameterError(f"matrix={path!r}: {exc}") from None


def _add_matrix(p: argparse.ArgumentParser) -> None:
    p.add_argument("--matrix", required=True, metavar="FILE",
                   help="the randomizer R(y|x): JSON or CSV, one row per input")


# --n and the handlers follow RandomizerMechanism's declaration; only --matrix is special
SPEC = declared_spec(RandomizerMechanism, "any local randomizer given as a matrix file",
                     Special(add_arguments=_add_matrix,
                             values=lambda args: {"matrix": read_matrix(args.matrix)}))
