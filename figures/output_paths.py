"""Checks of the output paths given on the command line (`audit --out FILE.md`,
`reproduce --out DIR`), made before any computation so that a long run does not end in a
traceback at the write.

Missing parent directories are fine (they are created when the file is written); an empty
path, a path that names the wrong kind of thing (a directory for a file, a file for a
directory) and a path below an existing file are refused with one line naming the flag.
"""

from __future__ import annotations

from pathlib import Path

from accountant.errors import ParameterError

__all__ = ["output_file", "output_directory"]


def _below_a_file(path: Path, flag: str, text: str) -> None:
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise ParameterError(f"{flag}={text!r}: {str(parent)!r} is a file, not a "
                                 "directory; give a path in a directory")


def output_file(text: str, *, flag: str = "--out", example: str = "report.md") -> Path:
    """The path of a file to write, checked.

    Args:
        text: the flag's value.
        flag: the flag's name, for the message.
        example: a file name suggested in the messages.

    Returns:
        The path (its missing parent directories are created when it is written).

    Raises:
        ParameterError: empty, an existing directory, or below an existing file.
    """
    if not text.strip():
        raise ParameterError(f"{flag}={text!r} is empty; give a file path such as {example}")
    path = Path(text)
    if path.is_dir():
        raise ParameterError(f"{flag}={text!r} is a directory; give a file path such as "
                             f"{str(path / example)!r}")
    _below_a_file(path, flag, text)
    return path


def output_directory(text: str, *, flag: str = "--out") -> Path:
    """The path of a directory to write files into, checked.

    Args:
        text: the flag's value.
        flag: the flag's name, for the message.

    Returns:
        The path (created with its parents when the files are written).

    Raises:
        ParameterError: empty, an existing file, or below an existing file.
    """
    if not text.strip():
        raise ParameterError(f"{flag}={text!r} is empty; give a directory path such as "
                             "reproduce-out")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise ParameterError(f"{flag}={text!r} is a file, not a directory; give a directory "
                             "path")
    _below_a_file(path, flag, text)
    return path
