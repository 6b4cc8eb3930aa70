"""Probability mass functions on integer grids, with a certified bound on the mass left out.

A `PMF` holds the values of a law on a box of the integer lattice (1-D or more) and `tail`,
an upper bound on the mass that the box does not represent. Three backends share one type:

- "float": `values` are natural-log probabilities (float64), `log_error` bounds the
  absolute error of each one (the stated error model of `accountant.numeric.special`,
  propagated through every operation);
- "mp": `values` are mpmath.mpf probabilities (object array), at the working precision;
- "exact": `values` are fractions.Fraction probabilities (object array).

Invariant: every grid value is at most the true probability at that point (exactly equal
when `exact_on_grid`), and the true mass not represented on the grid is at most `tail`.
Operations (shift, mixture, convolution, product) keep the invariant, so that divergences
computed from a PMF can add `tail` and stay sound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from accountant.errors import ParameterError
from accountant.numeric.logspace import logsumexp
from accountant.numeric.mp import to_mpf
from accountant.numeric.rounding import UNIT_ROUNDOFF

__all__ = ["PMF", "BACKENDS", "shift", "reflect", "mixture", "convolve", "product",
           "check_backend"]

BACKENDS = ("float", "mp", "exact")

# float: entries more than this far below the peak (in log) underflow in the scaled
# linear-domain convolution; their mass is moved to `tail` instead of being lost.
_SCALE_FLOOR = -700.0


def check_backend(backend: str) -> str:
    """Validate a backend name.

    Args:
        backend: the backend's name; one of BACKENDS ("float", "mp", "exact").

    Returns:
        `backend`, unchanged.

    Raises:
        ParameterError: `backend` is not one of BACKENDS.
    """
    if backend not in BACKENDS:
        raise ParameterError(f"backend={backend!r} is not one of {', '.join(BACKENDS)}")
    return backend


@dataclass(frozen=True, eq=False)
class PMF:
    """A law on a box of Z^d: values, the box's offset, and a bound on the mass outside.

    Attributes:
        backend: "float", "mp" or "exact".
        offset: lattice coordinates of values[0, ..., 0].
        values: float log-probabilities ("float") or linear probabilities (object array).
        tail: upper bound on the true mass not represented by the grid values.
        log_error: "float" only; bound on |computed - true| of each log value (array or
            scalar, broadcastable to values).
        exact_on_grid: grid values equal the true probabilities (up to log_error), rather
            than being lower bounds of them.
    """

    backend: str
    offset: tuple[int, ...]
    values: np.ndarray
    tail: Any = 0.0
    log_error: Any = 0.0
    exact_on_grid: bool = True

    def __post_init__(self) -> None:
        check_backend(self.backend)
        if len(self.offset) != self.values.ndim:
            raise ValueError(f"offset {self.offset} does not match values.ndim={self.values.ndim}")

    @property
    def ndim(self) -> int:
        return self.values.ndim

    @property
    def shape(self) -> tuple[int, ...]:
        return self.values.shape

    def support(self, axis: int = 0) -> np.ndarray:
        """Lattice coordinates of the grid along one axis.

        Args:
            axis: the axis, 0 <= axis < ndim.

        Returns:
            An integer array offset[axis], offset[axis] + 1, ..., of length shape[axis].
        """
        return self.offset[axis] + np.arange(self.values.shape[axis])

    def log_probs(self) -> np.ndarray:
        """Natural-log probabilities as float64 (mp/exact values converted, -inf for 0).

        Returns:
            A float64 array of the grid's shape: `values` itself for "float"; for "mp" and
            "exact", float(log(v)) of each value (rounded to nearest, not directed), -inf where
            v == 0.
        """
        if self.backend == "float":
            return self.values
        flat = [float(mpmath.log(v)) if v > 0 else -math.inf for v in self.values.ravel()]
        return np.array(flat, dtype=float).reshape(self.values.shape)

    def probs(self) -> np.ndarray:
        """Linear probabilities: float64 for "float" (may underflow to 0), else the objects.

        Returns:
            exp(values) as float64 for "float"; `values` itself (mpf or Fraction objects) otherwise.
        """
        if self.backend == "float":
            return np.exp(self.values)
        return self.values

    def mass(self) -> Any:
        """Total mass on the grid (float, mpf or Fraction).

        Returns:
            exp(logsumexp(values)) as a float for "float" (not rounded in a chosen direction);
            the exact sum (Fraction) or the sum at the working precision (mpf) otherwise.
            `tail` is not included.
        """
        if self.backend == "float":
            return math.exp(logsumexp(self.values))
        return sum(self.values.ravel().tolist(), _zero(self.backend))

    def mean(self) -> float:
        """Mean of a 1-D PMF on its grid (float; a diagnostic, not a certified value).

        Returns:
            sum(k w_k) / sum(w_k) over the grid, with weights w_k proportional to the grid
            probabilities, as a float; the outside mass `tail` is ignored.

        Raises:
            ValueError: the PMF is not 1-D.
        """
        if self.ndim != 1:
            raise ValueError("mean() is defined for 1-D PMFs")
        w = np.exp(self.log_probs() - np.max(self.log_probs()))
        return float(np.sum(w * self.support()) / np.sum(w))

    def value_at(self, *coords: int) -> Any:
        """The grid value at lattice coordinates (log-prob for "float"); KeyError outside.

        Args:
            *coords: one integer lattice coordinate per axis.

        Returns:
            values[coords - offset]: a float log-probability for "float", an mpf or Fraction
            probability otherwise.

        Raises:
            KeyError: the coordinates are outside the grid.
            ValueError: the number of coordinates differs from ndim (from zip(strict=True)).
        """
        idx = tuple(c - o for c, o in zip(coords, self.offset, strict=True))
        if any(i < 0 or i >= s for i, s in zip(idx, self.shape, strict=True)):
            raise KeyError(f"{coords} is outside the grid starting at {self.offset}")
        return self.values[idx]

    @classmethod
    def from_values(cls, values: Sequence[Any], *, offset: int | Sequence[int] = 0,
                    backend: str = "float", name: str = "pmf", tolerance: float = 1e-9,
                    log: bool = False, dps: int = 50) -> PMF:
        """A complete PMF from user-given probabilities (or log-probabilities with log=True).

        Raises ParameterError naming `name` if a value is negative or not finite, or if the
        values do not sum to 1 within `tolerance` (exactly 1 for the exact backend).

        Args:
            values: probabilities (a sequence or nested sequence; its shape is the grid's); with
                log=True, natural-log probabilities (<= 0, -inf for zero).
            offset: lattice coordinates of the first value: an integer (1-D) or one per axis.
            backend: "float", "mp" or "exact" (values become Fractions: floats are taken at their
                exact binary value).
            name: the name used in error messages.
            tolerance: allowed |sum - 1| for the "float" and "mp" backends.
            log: `values` are log-probabilities; read by the "float" backend only ("mp" and
                "exact" always take linear probabilities).
            dps: decimal digits at which "mp" values are converted and summed.

        Returns:
            A PMF with tail 0 and exact_on_grid=True; for "float", log_error is 4 u max(1, |log p|)
            per entry (u the unit roundoff).

        Raises:
            ParameterError: unknown backend; "float": a linear value outside [0, 1] or not finite,
                or a log value > 0 or NaN; "mp"/"exact": a value that does not convert (to mpf, to
                Fraction) or lies outside [0, 1]; the sum differs from 1 by more than `tolerance`
                (by anything for "exact"). The "mp" backend does not reject a NaN value (NaN
                compares false against every bound).
        """
        check_backend(backend)
        off = (offset,) if isinstance(offset, int | np.integer) else tuple(offset)
        if backend == "float":
            arr = np.asarray(values, dtype=float)
            if log:
                if np.any(np.isnan(arr)) or np.any(arr > 0):
                    raise ParameterError(f"{name}: log-probabilities must be <= 0, got max "
                                         f"{np.nanmax(arr)!r}")
                logv = arr
            else:
                if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
                    bad = float(arr[~(np.isfinite(arr) & (arr >= 0) & (arr <= 1))][0])
                    raise ParameterError(f"{name} has a value {bad!r} outside [0, 1]")
                with np.errstate(divide="ignore"):
                    logv = np.log(arr)
            total = math.exp(logsumexp(logv))
            if abs(total - 1.0) > tolerance:
                raise ParameterError(f"{name} sums to {total!r}, outside "
                                     f"[1 - {tolerance:g}, 1 + {tolerance:g}]")
            # log of a linear value carries ~1 ulp of the result, i.e. an absolute error that
            # grows with |log p| (numpy's log is not correctly rounded: 4 ulps); given logs
            # are taken as they are, up to the same allowance.
            log_error = 4 * UNIT_ROUNDOFF * np.maximum(1.0, np.abs(np.where(
                np.isfinite(logv), logv, 0.0)))
            return cls("float", off, logv, 0.0, log_error, True)
        conv = Fraction if backend == "exact" else to_mpf
        try:
            with mpmath.workdps(dps):  # Fractions become mpf at dps digits, not 15
                objs = np.array([conv(v) for v in np.asarray(values, dtype=object).ravel()],
                                dtype=object).reshape(np.shape(values))
        except (TypeError, ValueError) as exc:
            kind = "rationals" if backend == "exact" else "reals"
            raise ParameterError(f"{name}: values must be {kind}: {exc}") from exc
        if any(v < 0 or v > 1 for v in objs.ravel()):
            raise ParameterError(f"{name} has a value outside [0, 1]")
        with mpmath.workdps(dps):
            total = sum(objs.ravel().tolist(), _zero(backend))
        tol = 0 if backend == "exact" else tolerance
        if abs(total - 1) > tol:
            raise ParameterError(f"{name} sums to {total}, outside [1 - {tol:g}, 1 + {tol:g}]")
        return cls(backend, off, objs, _zero(backend), 0.0, True)


def _zero(backend: str) -> Any:
    return {"float": 0.0, "mp": mpmath.mpf(0), "exact": Fraction(0)}[backend]


def shift(pmf: PMF, by: int | Sequence[int]) -> PMF:
    """The law of X + by (by an integer or a vector of integers).

    Args:
        pmf: the law of X.
        by: an integer (the same shift on every axis) or one integer per axis.

    Returns:
        The same PMF with its offset moved by `by`; values, tail, error bounds and exactness
        unchanged.
    """
    by_t = (by,) * pmf.ndim if isinstance(by, int | np.integer) else tuple(by)
    return replace(pmf, offset=tuple(int(o + b) for o, b in zip(pmf.offset, by_t, strict=True)))


def reflect(pmf: PMF, about: int | Sequence[int]) -> PMF:
    """The law of about - X (coordinate-wise): e.g. Bin(n, 1-p) as reflect(Bin(n, p), n).

    Args:
        pmf: the law of X.
        about: an integer, or one integer per coordinate.

    Returns:
        The PMF of about - X, with the same outside mass, error bounds and exactness.
    """
    about_t = (about,) * pmf.ndim if isinstance(about, int | np.integer) else tuple(about)
    axes = tuple(range(pmf.ndim))
    values = np.flip(pmf.values, axis=axes)
    log_error = (np.flip(pmf.log_error, axis=axes) if np.ndim(pmf.log_error) == pmf.ndim
                 else pmf.log_error)
    offset = tuple(int(a - (o + size - 1)) for a, o, size
                   in zip(about_t, pmf.offset, pmf.values.shape, strict=True))
    return replace(pmf, offset=offset, values=values, log_error=log_error)


def _same_backend(pmfs: Sequence[PMF]) -> str:
    backends = {p.backend for p in pmfs}
    if len(backends) != 1:
        raise ParameterError(f"cannot combine PMFs of backends {sorted(backends)}")
    ndims = {p.ndim for p in pmfs}
    if len(ndims) != 1:
        raise ParameterError(f"cannot combine PMFs of dimensions {sorted(ndims)}")
    return backends.pop()


def mixture(components: Sequence[tuple[Any, PMF]]) -> PMF:
    """sum_i w_i P_i on the union of the grids. Weights must be >= 0 and sum to 1.

    Args:
        components: (weight, PMF) pairs; PMFs of one backend and one dimension. Weights are
            floats for "float" (sum within 1e-12 of 1), exact Fractions summing to exactly 1
            for "exact".

    Returns:
        The mixture on the bounding box of the components' grids: tail = sum_i w_i tail_i;
        for "float", log_error is the largest component bound plus 4 u per component;
        exact_on_grid only if every component is exact on its grid and the grids coincide
        (or no component has outside mass).

    Raises:
        ParameterError: no component, mixed backends or dimensions, a negative or NaN weight,
            or weights that do not sum to 1.
    """
    if not components:
        raise ParameterError("mixture needs at least one component")
    pmfs = [c for _, c in components]
    backend = _same_backend(pmfs)
    weights = [w for w, _ in components]
    if any(not (w >= 0) for w in weights):  # also refuses NaN, which compares false
        raise ParameterError(f"mixture weights must be >= 0, got {weights}")
    total = sum(weights)
    bad = total != 1 if backend == "exact" else abs(float(total) - 1.0) > 1e-12
    if bad:
        raise ParameterError(f"mixture weights sum to {total}, not 1")
    ndim = pmfs[0].ndim
    lo = tuple(min(p.offset[a] for p in pmfs) for a in range(ndim))
    hi = tuple(max(p.offset[a] + p.shape[a] for p in pmfs) for a in range(ndim))
    shape = tuple(h - low for h, low in zip(hi, lo, strict=True))
    same_grid = all(p.offset == lo and p.shape == shape for p in pmfs)
    exact = all(p.exact_on_grid for p in pmfs) and (
        same_grid or all(p.tail == 0 for p in pmfs))
    if backend == "float":
        out = np.full(shape, -np.inf)
        err = 0.0
        for w, p in components:
            if w == 0:
                continue
            sl = _slices(p, lo)
            out[sl] = np.logaddexp(out[sl], math.log(w) + p.values)
            err = max(err, float(np.max(p.log_error)))
        tail = sum(float(w) * float(p.tail) for w, p in components)
        # logaddexp of positives: relative error of a few ulps per addition.
        err += len(components) * 4 * UNIT_ROUNDOFF
        return PMF("float", lo, out, tail, err, exact)
    out = np.full(shape, _zero(backend), dtype=object)
    for w, p in components:
        out[_slices(p, lo)] += w * p.values
    tail = sum((w * p.tail for w, p in components), _zero(backend))
    return PMF(backend, lo, out, tail, 0.0, exact)


def _slices(p: PMF, lo: tuple[int, ...]) -> tuple[slice, ...]:
    return tuple(slice(o - low, o - low + s) for o, low, s in zip(p.offset, lo, p.shape,
                                                                   strict=True))


def convolve(a: PMF, b: PMF) -> PMF:
    """The law of X + Y for independent X ~ a, Y ~ b (1-D).

    float: direct (not FFT) convolution of peak-scaled linear values, so that every output
    value keeps a small relative error; entries that would underflow are moved to `tail`.

    Args:
        a: the law of X, 1-D.
        b: the law of Y, 1-D, same backend.

    Returns:
        The PMF of X + Y with offset a.offset + b.offset and tail a.tail + b.tail (plus, for
        "float", the mass of entries more than 700 below either peak and a bound on outputs
        that underflowed); log_error adds the inputs' bounds and 2 (min(len) + 2) u.

    Raises:
        ParameterError: the backends or dimensions differ, or the PMFs are not 1-D.
    """
    backend = _same_backend([a, b])
    if a.ndim != 1:
        raise ParameterError("convolve is defined for 1-D PMFs; use product for joint laws")
    offset = (a.offset[0] + b.offset[0],)
    exact = a.exact_on_grid and b.exact_on_grid and a.tail == 0 and b.tail == 0
    if backend != "float":
        vals = np.convolve(a.values, b.values)
        return PMF(backend, offset, vals, a.tail + b.tail, 0.0, exact)
    la, ta = _drop_underflow(a.values)
    lb, tb = _drop_underflow(b.values)
    ma, mb = float(np.max(la)), float(np.max(lb))
    with np.errstate(divide="ignore"):
        conv = np.convolve(np.exp(la - ma), np.exp(lb - mb))
        lc = np.log(conv) + ma + mb
    # Each output is a sum of at most min(len) positive products: relative error
    # <= (min(len) + 1) u; values of log(conv) that underflowed (-inf) are lower bounds.
    err = (float(np.max(a.log_error)) + float(np.max(b.log_error))
           + 2.0 * (min(la.size, lb.size) + 2) * UNIT_ROUNDOFF)
    underflow_mass = lc.size * math.exp(ma + mb - 700.0) if np.any(~np.isfinite(lc)) else 0.0
    tail = float(a.tail) + float(b.tail) + ta + tb + underflow_mass
    exact = exact and ta == 0 and tb == 0 and underflow_mass == 0
    return PMF("float", offset, lc, tail, err, exact)


def _drop_underflow(logv: np.ndarray) -> tuple[np.ndarray, float]:
    """Set to -inf the entries far below the peak; return them and their mass (rounded up)."""
    m = float(np.max(logv))
    low = logv < m + _SCALE_FLOOR
    if not np.any(low & np.isfinite(logv)):
        return logv, 0.0
    lost = math.exp(logsumexp(logv[low])) * (1 + 1e-12)
    out = np.where(low, -np.inf, logv)
    return out, lost


def product(a: PMF, b: PMF) -> PMF:
    """The joint law of independent (X, Y): an (a.ndim + b.ndim)-dimensional PMF.

    Args:
        a: the law of X.
        b: the law of Y, same backend (any dimension).

    Returns:
        The PMF on the product grid, offset a.offset + b.offset, tail a.tail + b.tail (a
        union bound on the mass outside the product box); for "float", log_error is the sum
        of the two broadcast bounds plus 2 u.

    Raises:
        ParameterError: the backends differ.
    """
    backend = _same_backend([a, b]) if a.ndim == b.ndim else a.backend
    if a.backend != b.backend:
        raise ParameterError(f"cannot combine PMFs of backends {a.backend}, {b.backend}")
    offset = a.offset + b.offset
    exact = a.exact_on_grid and b.exact_on_grid
    if backend == "float":
        vals = np.add.outer(a.values, b.values)
        err = np.add.outer(np.broadcast_to(a.log_error, a.shape),
                           np.broadcast_to(b.log_error, b.shape)) + 2 * UNIT_ROUNDOFF
        tail = float(a.tail) + float(b.tail)
        return PMF("float", offset, vals, tail, err, exact)
    vals = np.multiply.outer(a.values, b.values)
    return PMF(backend, offset, vals, a.tail + b.tail, 0.0, exact)
