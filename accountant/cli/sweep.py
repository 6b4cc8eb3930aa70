"""`shuffle-accountant sweep`: one question over a parameter grid, written as a table.

    shuffle-accountant sweep QUESTION... (--grid NAME=VALUES ... | --rows FILE.csv)
        --out TABLE.csv|TABLE.parquet [--workers N | --scheduler ADDRESS]
        [--retry-errors] [--no-progress] [--json]

QUESTION is an ordinary command line of `dp`, `rdp`, `pure`, `bound`, `compose` or
`calibrate` without the swept flags, e.g.

    shuffle-accountant sweep dp ldp --grid n=1000,10000,100000 --grid epsilon0=0.5,1,2 \\
        --at-delta 1e-6 --out table.csv

Grid values are a comma-separated list (`n=1000,10000`) or a range `a:b:log:k` /
`a:b:lin:k` (k values from a to b, geometric or evenly spaced; when both ends are
integers the values are rounded to integers and repeats dropped). Several `--grid` make
the Cartesian product; `--rows FILE.csv` gives the points instead (header = names, an
empty cell leaves the flag out). A name becomes the flag `--NAME` (underscores as dashes)
unless a word of the question holds `{NAME}`, which is then replaced by the value (for
`compose --mechanism 'ldp --n {n} --epsilon0 1'`).

Every point runs the command's own handler in a worker (the same code as the single
command; nothing in the computation knows about sweeps), through one executor interface:
a local process pool (`--workers`, default the number of CPUs) or a Dask distributed
cluster (`--scheduler ADDRESS`, needs the `dask` extra). The table has one row per point
and answered quantity (one per Renyi order for `rdp`; the calibrated parameter and the
epsilon it reaches for `calibrate`): the grid values, `order`, `quantity`, `value`,
`kind`, `lower`, `upper`, `method`, `seconds`, `error`, `params` (JSON) and `command` (the
point's own command line, which is also its key for resuming).

A point's rows are appended to the CSV in one write and synced as soon as the point
finishes, so an interrupted sweep leaves only finished points behind; the same command
run again computes only the missing points (a torn last line is dropped). When every
point is done the file is rewritten in grid order (atomically, by rename). A `.parquet`
output (needs pyarrow) is journalled as `TABLE.parquet.partial.csv` and converted at
the end.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import io
import itertools
import json
import math
import os
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from accountant.cli.main import build_parser
from accountant.errors import ParameterError

__all__ = [
    "register", "SWEEPABLE", "COLUMNS", "Executor", "ProcessPool", "DaskCluster",
    "parse_grid", "expand_values", "read_rows", "Point", "make_points", "evaluate_point",
    "output_rows", "run_sweep",
]

SWEEPABLE = ("dp", "rdp", "pure", "bound", "compose", "calibrate")
# columns after the grid names, in this order
COLUMNS = ("order", "quantity", "value", "kind", "lower", "upper", "method", "seconds",
           "error", "params", "command")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_SKIPPED_KEYS = frozenset(("command", "protocol", "bound", "version", "params", "methods",
                           "target"))


# --------------------------------------------------------------------------- the grid

def expand_values(name: str, text: str) -> list[str]:
    """The values of one grid axis, as the strings handed to the command line.

    Args:
        name: the axis name (for messages).
        text: "v1,v2,..." or a range "a:b:log:k" / "a:b:lin:k".

    Returns:
        The values in order (integers when both range ends are integers).

    Raises:
        ParameterError: an empty item, a malformed range, k < 1, or a log range with an
            end <= 0.
    """
    if ":" not in text:
        items = [t.strip() for t in text.split(",")]
        if not text.strip() or any(not t for t in items):
            raise ParameterError(f"--grid {name}={text!r}: expected v1,v2,... with no empty "
                                 "item, or a range a:b:log:k / a:b:lin:k")
        return items
    parts = [t.strip() for t in text.split(":")]
    if len(parts) != 4 or parts[2] not in ("log", "lin"):
        raise ParameterError(f"--grid {name}={text!r}: a range is a:b:log:k or a:b:lin:k")
    try:
        a, b, k = float(parts[0]), float(parts[1]), int(parts[3])
    except ValueError as exc:
        raise ParameterError(f"--grid {name}={text!r}: {exc}") from None
    if not (math.isfinite(a) and math.isfinite(b)) or k < 1:
        raise ParameterError(f"--grid {name}={text!r}: ends must be finite and k >= 1")
    if parts[2] == "log" and (a <= 0 or b <= 0):
        raise ParameterError(f"--grid {name}={text!r}: a log range needs ends > 0")
    if k == 1:
        xs = [a]
    elif parts[2] == "log":
        la, lb = math.log(a), math.log(b)
        xs = [math.exp(la + (lb - la) * i / (k - 1)) for i in range(k)]
        xs[0], xs[-1] = a, b
    else:
        xs = [a + (b - a) * i / (k - 1) for i in range(k)]
        xs[-1] = b
    if _is_int(parts[0]) and _is_int(parts[1]):
        return list(dict.fromkeys(str(round(x)) for x in xs))
    return list(dict.fromkeys(f"{x:.12g}" for x in xs))


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def parse_grid(specs: Sequence[str]) -> tuple[list[str], list[tuple[str, ...]]]:
    """The Cartesian product of `--grid NAME=VALUES` axes.

    Args:
        specs: the --grid strings, e.g. ["n=1000,10000", "epsilon0=0.5:8:log:9"].

    Returns:
        (names, points): the axis names in order and one tuple of value strings per point.

    Raises:
        ParameterError: a spec without '=', a bad name, a name given twice, or bad values.
    """
    names: list[str] = []
    axes: list[list[str]] = []
    for spec in specs:
        name, eq, values = spec.partition("=")
        name = name.strip()
        if not eq or not _NAME.match(name):
            raise ParameterError(f"--grid {spec!r}: expected NAME=VALUES with NAME a flag name "
                                 "such as n or epsilon0")
        if name in names:
            raise ParameterError(f"--grid {name}: given twice")
        names.append(name)
        axes.append(expand_values(name, values))
    return names, list(itertools.product(*axes))


def read_rows(path: str | Path) -> tuple[list[str], list[tuple[str, ...]]]:
    """The points of a CSV file: its header names the flags, each row is one point.

    Args:
        path: the CSV file (an empty cell leaves that flag out of the point).

    Returns:
        (names, points) as in `parse_grid`.

    Raises:
        ParameterError: the file cannot be read, has no header or no row, or a bad name.
    """
    try:
        with open(path, newline="") as fh:
            table = [row for row in csv.reader(fh) if any(cell.strip() for cell in row)]
    except OSError as exc:
        raise ParameterError(f"--rows {path}: {exc.strerror}") from None
    if len(table) < 2:
        raise ParameterError(f"--rows {path}: expected a header line and at least one row")
    names = [c.strip() for c in table[0]]
    bad = [n for n in names if not _NAME.match(n)]
    if bad or len(set(names)) != len(names):
        raise ParameterError(f"--rows {path}: header {names} needs distinct flag names")
    points = []
    for i, row in enumerate(table[1:], start=2):
        if len(row) != len(names):
            raise ParameterError(f"--rows {path}: line {i} has {len(row)} cells, the header "
                                 f"{len(names)}")
        points.append(tuple(c.strip() for c in row))
    return names, points


@dataclass(frozen=True)
class Point:
    """One point of a sweep.

    Attributes:
        index: its position in grid order.
        values: the grid values (strings), in the order of the names.
        argv: the command line that answers it (without --json).
    """

    index: int
    values: tuple[str, ...]
    argv: tuple[str, ...]

    @property
    def key(self) -> str:
        """The point's command line as one string: its key in the table."""
        return shlex.join(self.argv)


def make_points(question: Sequence[str], names: Sequence[str],
                points: Iterable[tuple[str, ...]]) -> list[Point]:
    """The command line of every point.

    Args:
        question: the question's words, e.g. ["dp", "ldp", "--at-delta", "1e-6"].
        names: the grid names.
        points: value tuples (an empty string leaves the flag out).

    Returns:
        One Point per value tuple.

    Raises:
        ParameterError: the question is not sweepable, or a grid name's flag is also
            given in the question.
    """
    if not question or question[0] not in SWEEPABLE:
        raise ParameterError(f"sweep: the question must start with one of "
                             f"{', '.join(SWEEPABLE)} (got {' '.join(question) or 'nothing'})")
    placed = {n for n in names if any("{" + n + "}" in w for w in question)}
    for name in names:
        flag = "--" + name.replace("_", "-")
        if name in placed:
            continue
        if name in COLUMNS:
            raise ParameterError(f"sweep: grid name {name!r} is also a column of the table; "
                                 f"write the flag as {{{name}}} in the question")
        if any(w == flag or w.startswith(flag + "=") for w in question):
            raise ParameterError(f"sweep: {flag} is both in the question and in the grid")
    out = []
    for index, values in enumerate(points):
        argv = list(question)
        for name, value in zip(names, values, strict=True):
            if name in placed:
                argv = [w.replace("{" + name + "}", value) for w in argv]
            elif value != "":
                argv += ["--" + name.replace("_", "-"), value]
        out.append(Point(index, tuple(values), tuple(argv)))
    return out


# --------------------------------------------------------------------------- one point

_PARSERS: dict[tuple[str, ...], argparse.ArgumentParser] = {}


def _parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    words = tuple(w for w in argv if not w.startswith("-"))
    words = words[:1] if words[:1] == ("compose",) else words[:2]
    parser = _PARSERS.get(words)
    if parser is None:
        parser = _PARSERS[words] = build_parser(list(argv))
    return parser


def _parse(argv: Sequence[str], capture: bool = False) -> argparse.Namespace:
    """Parse one point's command line; argparse's one-line error becomes a ParameterError
    (with `capture`, its stderr line is caught for the message: not thread-safe)."""
    parser = _parser_for(argv)
    if not capture:
        try:
            return parser.parse_args(list(argv))
        except SystemExit:
            raise ParameterError(f"{shlex.join(argv)}: not a valid command") from None
    stderr, sys.stderr = sys.stderr, io.StringIO()
    try:
        return parser.parse_args(list(argv))
    except SystemExit:
        message = sys.stderr.getvalue().strip().splitlines()
        last = message[-1].removeprefix("shuffle-accountant: ") if message else "not valid"
        raise ParameterError(f"{shlex.join(argv)}: {last}") from None
    finally:
        sys.stderr = stderr


def evaluate_point(argv: Sequence[str]) -> dict[str, Any]:
    """Answer one point in this process with the command's own handler.

    This is the function the executors run on their workers.

    Args:
        argv: the point's command line, e.g. ["dp", "ldp", "--n", "1000", ...].

    Returns:
        {"rows": [...], "seconds": s, "error": None or "Type: message"}: the rows as from
        `output_rows` (without the grid columns).
    """
    start = time.perf_counter()
    try:
        args = _parse(argv)
        out = args.handler(args)
        rows = output_rows(args.command, list(argv), out)
        error = None
    except Exception as exc:  # a point's failure is a row of the table, not the sweep's end
        rows, error = [], f"{type(exc).__name__}: {exc}"
    return {"rows": rows, "seconds": time.perf_counter() - start, "error": error}


def _number(x: Any) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, int | float):
        return float(x)
    if isinstance(x, str) and x in ("inf", "-inf", "nan"):
        return float(x)
    return None


def _row(quantity: str, obj: dict[str, Any], lower_obj: dict[str, Any] | None,
         params: str) -> dict[str, Any]:
    value = _number(obj.get("value"))
    kind = str(obj.get("kind", ""))
    lower = _number(lower_obj.get("value")) if lower_obj else None
    upper = None
    if kind in ("exact", "upper"):
        upper = value
    if kind in ("exact", "lower") and value is not None:
        lower = value if lower is None else max(lower, value)
    order = _number(obj.get("order"))
    return {"order": order, "quantity": quantity, "value": value, "kind": kind,
            "lower": lower, "upper": upper, "method": str(obj.get("method", "")),
            "params": params}


def output_rows(command: str, argv: Sequence[str], out: dict[str, Any]) -> list[dict[str, Any]]:
    """The table rows of one handler's output.

    A row is made for every top-level number object with a `method` (e.g. "epsilon") and
    every list of them (e.g. "renyi", one row per order); `K_lower` supplies the row's lower
    end. For `calibrate`, the calibrated parameter comes first, of kind "calibrated".

    Args:
        command: "dp", "rdp", ... (the question's first word).
        argv: the point's command line (to tell a calibrated parameter from a given one).
        out: the handler's output (the command-specific part of the JSON object).

    Returns:
        Dicts with the keys order, quantity, value, kind, lower, upper, method, params.
    """
    params = json.dumps(out.get("params", {}), sort_keys=True, default=str)
    rows: list[dict[str, Any]] = []
    if command == "calibrate":
        given = {w[2:].split("=")[0].replace("-", "_") for w in argv if w.startswith("--")}
        param_obj = out.get("params", {})
        found = [k for k, v in out.items() if k in param_obj and _number(v) is not None]
        if not found:
            found = [k for k, v in param_obj.items()
                     if k not in given and _number(v) is not None]
        for k in found:
            rows.append({"order": None, "quantity": k, "value": _number(param_obj[k]),
                         "kind": "calibrated", "lower": None, "upper": None,
                         "method": f"calibrate {argv[1] if len(argv) > 1 else ''}".strip(),
                         "params": params})
    quantities = [k for k, v in out.items() if k not in _SKIPPED_KEYS and (
        (isinstance(v, dict) and "value" in v and "method" in v)
        or (isinstance(v, list) and v and all(isinstance(x, dict) and "value" in x
                                              for x in v)))]
    companions = {k for k in quantities for q in quantities if k != q and k.startswith(q + "_")}
    for key in quantities:
        if key in companions:
            continue
        value, lower = out[key], out.get(f"{key}_lower")
        if isinstance(value, dict):
            rows.append(_row(key, value, lower if isinstance(lower, dict) else None, params))
            continue
        lowers = {}
        if isinstance(lower, list):
            lowers = {_number(x.get("order")): x for x in lower if isinstance(x, dict)}
        for item in value:
            rows.append(_row(key, item, lowers.get(_number(item.get("order"))), params))
    return rows


# --------------------------------------------------------------------------- executors

class Executor(Protocol):
    """Where points run: `map_unordered` yields (item, fn(item)) as each finishes."""

    description: str

    def map_unordered(self, fn: Callable[[Any], Any],
                      items: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        """Run fn on every item and yield (item, result) in order of completion.

        Args:
            fn: a picklable function of one argument (module-level, importable by workers).
            items: its arguments.

        Returns:
            An iterator of (item, fn(item)), in order of completion.
        """
        ...

    def close(self) -> None:
        """Release the workers (pending work is cancelled)."""
        ...


def _ignore_sigint() -> None:  # workers: Ctrl-C is the parent's to handle
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class ProcessPool:
    """A local pool of worker processes (concurrent.futures)."""

    def __init__(self, workers: int) -> None:
        """
        Args:
            workers: the number of processes (>= 1).
        """
        self.workers = workers
        self.description = f"process pool ({workers} worker{'s' if workers != 1 else ''})"
        self._pool = concurrent.futures.ProcessPoolExecutor(workers, initializer=_ignore_sigint)

    def map_unordered(self, fn: Callable[[Any], Any],
                      items: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        """Run fn on every item (at most 4 per worker in flight); yield as each finishes.

        Args:
            fn: a picklable function of one argument.
            items: its arguments.

        Yields:
            (item, fn(item)) as each finishes.
        """
        todo = iter(items)
        running: dict[concurrent.futures.Future[Any], Any] = {}
        while True:
            for item in itertools.islice(todo, max(0, 4 * self.workers - len(running))):
                running[self._pool.submit(fn, item)] = item
            if not running:
                return
            done, _ = concurrent.futures.wait(running,
                                              return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                yield running.pop(future), future.result()

    def close(self) -> None:
        """Stop the pool, cancelling what has not started."""
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskCluster:
    """A Dask distributed cluster reached through its scheduler (the `dask` extra)."""

    def __init__(self, address: str) -> None:
        """
        Args:
            address: the scheduler's address, e.g. "tcp://10.0.0.1:8786".

        Raises:
            ParameterError: dask.distributed is not installed or the scheduler cannot be
                reached.
        """
        try:
            from dask.distributed import Client
        except ImportError:
            raise ParameterError("--scheduler needs dask.distributed: "
                                 "pip install 'shuffle-accountant[dask]'") from None
        try:
            self._client = Client(address, timeout=30)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ParameterError(f"--scheduler {address}: {exc}") from None
        workers = len(self._client.scheduler_info().get("workers", {}))
        self.description = f"dask cluster at {address} ({workers} workers)"

    def map_unordered(self, fn: Callable[[Any], Any],
                      items: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
        """Submit every item as one task; yield (item, result) as each finishes.

        Args:
            fn: a function importable on the workers (the package must be installed there).
            items: its arguments.

        Yields:
            (item, fn(item)) as each finishes.
        """
        from dask.distributed import as_completed

        futures = {self._client.submit(fn, item, pure=False): item for item in items}
        for future, result in as_completed(futures, with_results=True):
            yield futures[future], result

    def close(self) -> None:
        """Disconnect from the scheduler (the cluster keeps running)."""
        self._client.close()


# --------------------------------------------------------------------------- the table

def _cell(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, float):
        return repr(x)
    return str(x)


def _check_out(out: str | Path) -> None:
    """Refuse an --out that cannot be a table file (before any point runs)."""
    path = Path(out)
    if not str(out).strip():
        raise ParameterError("sweep: --out='' is empty; name a .csv or .parquet file")
    if path.is_dir():
        raise ParameterError(f"sweep: --out={str(out)!r} is a directory; name a .csv or "
                             ".parquet file in it")
    if not path.parent.is_dir():
        raise ParameterError(f"sweep: --out={str(out)!r}: the directory {str(path.parent)!r} "
                             "does not exist")


class _Table:
    """The output file: read back what is done, append a point atomically, finish."""

    def __init__(self, out: Path, header: list[str]) -> None:
        self.out, self.header = out, header
        self.parquet = out.suffix.lower() == ".parquet"
        self.journal = out.with_name(out.name + ".partial.csv") if self.parquet else out
        if self.parquet:
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                raise ParameterError(f"--out {out}: Parquet output needs pyarrow, which is "
                                     "not installed (pip install 'shuffle-accountant"
                                     "[parquet]'); or name a .csv "
                                     "file") from None
            if out.exists() and not self.journal.exists():
                self._write_all(self.journal, self._read_parquet())

    def _read_parquet(self) -> list[dict[str, str]]:
        import pyarrow.parquet as pq

        table = pq.read_table(self.out).to_pylist()
        return [{k: _cell(v) for k, v in row.items()} for row in table]

    def read(self) -> list[dict[str, str]]:
        """The rows already written (a torn last line is cut off the file first).

        Raises:
            ParameterError: the file's header is not this sweep's.
        """
        path = self.journal
        if not path.exists():
            return []
        data = path.read_bytes()
        if data and not data.endswith(b"\n"):
            data = data[: data.rfind(b"\n") + 1]
            with open(path, "r+b") as fh:
                fh.truncate(len(data))
        lines = list(csv.reader(io.StringIO(data.decode())))
        if not lines:
            return []
        if lines[0] != self.header:
            raise ParameterError(f"--out {self.out}: its columns {lines[0]} are not this "
                                 f"sweep's {self.header}; choose another --out")
        return [dict(zip(self.header, row, strict=False)) for row in lines[1:] if row]

    def _encode(self, rows: Iterable[dict[str, Any]]) -> bytes:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for row in rows:
            writer.writerow([_cell(row.get(c)) for c in self.header])
        return buf.getvalue().encode()

    def _write_all(self, path: Path, rows: Iterable[dict[str, Any]]) -> None:
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(self._encode([dict(zip(self.header, self.header, strict=True))]))
            fh.write(self._encode(rows))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    def rewrite(self, rows: Iterable[dict[str, Any]]) -> None:
        """Replace the journal's rows (atomically)."""
        self._write_all(self.journal, rows)

    def append(self, rows: list[dict[str, Any]]) -> None:
        """Append one point's rows with one write, then sync."""
        data = self._encode(rows)
        if not self.journal.exists() or self.journal.stat().st_size == 0:
            self._write_all(self.journal, [])
        fd = os.open(self.journal, os.O_WRONLY | os.O_APPEND)
        try:
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        finally:
            os.close(fd)

    def finish(self, rows: list[dict[str, str]]) -> None:
        """Write the complete table in its final order and format."""
        if not self.parquet:
            self._write_all(self.out, rows)
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        numeric = ("order", "value", "lower", "upper", "seconds")
        columns = {c: pa.array([float(r[c]) if r.get(c) else None for r in rows], pa.float64())
                   if c in numeric else pa.array([r.get(c, "") for r in rows], pa.string())
                   for c in self.header}
        tmp = self.out.with_name(self.out.name + ".tmp")
        pq.write_table(pa.table(columns), tmp)
        os.replace(tmp, self.out)
        self.journal.unlink(missing_ok=True)


def run_sweep(question: Sequence[str], out: str | Path, *, grid: Sequence[str] = (),
              rows: str | Path | None = None, executor: Executor,
              retry_errors: bool = False, progress: bool = True) -> dict[str, Any]:
    """Answer `question` at every point of a grid and write the table (see the module).

    Args:
        question: the question's words without the swept flags.
        out: the table (.csv, or .parquet with pyarrow); resumed if it exists.
        grid: --grid specs (NAME=VALUES); or
        rows: a CSV of points.
        executor: where the points run (ProcessPool, DaskCluster, ...).
        retry_errors: compute again the points whose rows carry an error.
        progress: a tqdm bar on stderr.

    Returns:
        A summary: out, points, computed, skipped, errors, executor, seconds.

    Raises:
        ParameterError: a bad grid, question or output file (before any point runs).
    """
    from tqdm import tqdm

    if bool(grid) == (rows is not None):
        raise ParameterError("sweep: give --grid NAME=VALUES (one or more) or --rows FILE.csv")
    names, values = parse_grid(grid) if rows is None else read_rows(rows)
    points = make_points(question, names, values)
    for point in points:  # every command line checked before anything runs
        try:
            _parse(point.argv, capture=True)
        except ParameterError as exc:  # say that the value came from the grid or rows
            raise ParameterError(f"sweep {'--grid' if rows is None else '--rows'} point "
                                 f"{exc}") from None
    _check_out(out)
    table = _Table(Path(out), [*names, *COLUMNS])
    existing = table.read()
    keys = {p.key for p in points}
    failed = {r["command"] for r in existing if r.get("error")} if retry_errors else set()
    if failed:
        existing = [r for r in existing if r["command"] not in failed]
        table.rewrite(existing)
    done = {r["command"] for r in existing}
    todo = [p for p in points if p.key not in done]
    start = time.perf_counter()
    errors = 0
    bar = tqdm(total=len(todo), desc="sweep", unit="point", file=sys.stderr,
               dynamic_ncols=True, disable=not progress)
    try:
        by_argv = {p.argv: p for p in todo}
        for argv, result in executor.map_unordered(evaluate_point, [p.argv for p in todo]):
            point = by_argv[tuple(argv)]
            fixed = dict(zip(names, point.values, strict=True))
            fixed.update(seconds=f"{result['seconds']:.4f}", command=point.key)
            if result["error"] is not None:
                errors += 1
                new = [{**fixed, "error": result["error"]}]
            else:
                new = [{**fixed, **r} for r in result["rows"]] or [
                    {**fixed, "error": "no numbers in the command's output"}]
            table.append(new)
            bar.update(1)
            if errors:
                bar.set_postfix(errors=errors)
    finally:
        bar.close()
    written = table.read()
    order = {p.key: p.index for p in points}
    written.sort(key=lambda r: order.get(r["command"], len(points)))
    table.finish(written)
    foreign = sum(1 for r in written if r["command"] not in keys)
    summary = {"out": str(out), "points": len(points), "computed": len(todo),
               "skipped": len(points) - len(todo), "errors": errors,
               "executor": executor.description,
               "seconds": round(time.perf_counter() - start, 3)}
    if foreign:
        summary["foreign_rows"] = foreign
    return summary


# --------------------------------------------------------------------------- command line

_SWEEP_FLAGS = {"--grid": True, "--rows": True, "--out": True, "--workers": True,
                "--scheduler": True, "--retry-errors": False, "--no-progress": False,
                "--json": False}


def _add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--grid", action="append", default=[], metavar="NAME=VALUES",
                   help="a swept flag: v1,v2,... or a range a:b:log:k / a:b:lin:k "
                        "(repeat for a Cartesian product)")
    p.add_argument("--rows", default=None, metavar="FILE.csv",
                   help="the points as CSV rows instead of --grid (header = flag names)")
    p.add_argument("--out", default=None, metavar="TABLE",
                   help="the table: .csv, or .parquet (needs pyarrow); resumed if it exists")
    p.add_argument("--workers", type=_workers, default=None,
                   help="local worker processes (default: the number of CPUs)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on a Dask distributed cluster (e.g. tcp://host:8786) instead")
    p.add_argument("--retry-errors", action="store_true",
                   help="compute again the points whose rows in --out carry an error")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object (the summary)")


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"workers={text!r} is not an integer >= 1")
    return n


def _split(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the sweep's own flags, the question's words) of the words after the question."""
    own: list[str] = []
    question: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        flag = word.split("=", 1)[0]
        if flag in _SWEEP_FLAGS:
            own.append(word)
            if _SWEEP_FLAGS[flag] and "=" not in word and i + 1 < len(words):
                own.append(words[i + 1])
                i += 1
        else:
            question.append(word)
        i += 1
    return own, question


def register(subparsers: Any) -> None:
    """Add the `sweep` command to the CLI.

    Args:
        subparsers: the top-level subparsers object.
    """
    p = subparsers.add_parser(
        "sweep", help="one dp/rdp/compose/calibrate question over a parameter grid, as a table",
        description="Answer a question at every point of a grid and write a CSV/Parquet "
                    "table (resumable). Example: sweep dp ldp --grid n=1000,10000 "
                    "--grid epsilon0=0.5:2:log:3 --at-delta 1e-6 --out table.csv")
    _add_flags(p)
    p.add_argument("question", nargs=argparse.REMAINDER,
                   help=f"the command line to sweep ({', '.join(SWEEPABLE)} ...), "
                        "without the swept flags")
    p.set_defaults(handler=_handler)


def _handler(args: argparse.Namespace) -> dict[str, Any]:
    own, question = _split(args.question)
    if own:  # the sweep's flags written after the question
        later = argparse.ArgumentParser(prog="shuffle-accountant sweep", add_help=False,
                                        exit_on_error=False, allow_abbrev=False)
        _add_flags(later)
        try:
            extra = later.parse_args(own)
        except argparse.ArgumentError as exc:
            raise ParameterError(str(exc)) from None
        for key, value in vars(extra).items():
            if key == "grid":
                args.grid = [*args.grid, *value]
            elif value not in (None, False):
                setattr(args, key, value)
    if args.out is None:
        raise ParameterError("sweep: --out TABLE.csv (or .parquet) is required")
    if args.scheduler is not None and args.workers is not None:
        raise ParameterError("sweep: --workers is for the local pool; a --scheduler's "
                             "cluster has its own workers")
    executor: Executor = (DaskCluster(args.scheduler) if args.scheduler is not None
                          else ProcessPool(args.workers or os.cpu_count() or 1))
    try:
        return run_sweep(question, args.out, grid=args.grid, rows=args.rows,
                         executor=executor, retry_errors=args.retry_errors,
                         progress=not args.no_progress)
    except KeyboardInterrupt:
        sys.stderr.write(f"shuffle-accountant sweep: interrupted; the finished points are in "
                         f"{args.out}, run the same command again to compute the rest\n")
        raise SystemExit(130) from None
    finally:
        executor.close()
