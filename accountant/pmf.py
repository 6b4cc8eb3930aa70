"""Probability mass functions on integer grids, with a certified bound on the mass left out.

A `PMF` holds the values of a law on a box of the integer lattice (1-D or more) and `tail`,
an upper bound on the mass that the box does not represent. Three backends share one type:

- "float": `values` are natural-log probabilities (float64), `log_error` bounds the
  absolute error of each one (the stated error model of `accountant.numeric.special`,
  propagated through every operation);
- "mp": `values` are mpmath.mpf probabilities (object array), each within a relative
  `relative_error()` of the true probability (stated by the producer in `value_error`, or
  the model of `model_relative_error`); operations work at the inputs' precision and
  state the error of their results;
- "exact": `values` are fractions.Fraction probabilities (object array).

Invariant: every grid value is at most the true probability at that point (exactly equal
when `exact_on_grid`; for "mp", up to the relative error), and the true mass not represented
on the grid is at most `tail`.
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
from accountant.numeric import rounding
from accountant.numeric.logspace import logsumexp
from accountant.numeric.mp import mantissa_bits, to_fmpq, to_mpf
from accountant.numeric.rounding import UNIT_ROUNDOFF

__all__ = ["PMF", "BACKENDS", "shift", "reflect", "mixture", "convolve", "product",
           "check_backend", "model_relative_error", "value_precision", "compose_errors"]

BACKENDS = ("float", "mp", "exact")

# float: entries more than this far below the peak (in log) underflow in the scaled
# linear-domain convolution; their mass is moved to `tail` instead of being lost.
_SCALE_FLOOR = -700.0


def value_precision(values: Any) -> int:
    """The working precision that mpf values show: their longest mantissa, at least 53 bits.

    Args:
        values: an iterable of mpmath.mpf (or any numbers; non-mpf count as 53 bits).

    Returns:
        max(53, longest mantissa in bits).
    """
    return max([53] + [mantissa_bits(v) for v in values])


def model_relative_error(values: Any) -> float:
    """The stated model of an mp grid whose producer stated no error (docs/soundness.md).

    Model: a grid whose longest mantissa has fewer than 53 bits holds exact dyadic values
    (a rounded result fills its mantissa: 1, 1/2 or C(n, k)/2^n are exact); otherwise the
    values were computed at the precision P that longest mantissa shows, each by at most
    (number of values + 64) rounded operations, each amplified at most 2^20-fold (the exp
    of a log-probability of magnitude up to 2^20): relative error at most
    (N + 64) 2^(24 - P). A model with a wide margin, not a proof: producers that know their
    error state it (`PMF.value_error`), as every operation of this module does.

    Args:
        values: the mpf values of a grid (any iterable).

    Returns:
        The relative error bound, a float rounded up (0.0 for short mantissas).
    """
    vals = list(values)
    if max([0] + [mantissa_bits(v) for v in vals if isinstance(v, mpmath.mpf)]) < 53:
        return 0.0
    return float(rounding.up(Fraction(len(vals) + 64, 2 ** (value_precision(vals) - 24))))


def compose_errors(*factors: Any, roundings: int = 0, precision: int = 53) -> float:
    """Relative error of a product of inputs with relative errors `factors`, after
    `roundings` further rounded operations at `precision` bits.

    Args:
        *factors: relative error bounds (each >= 0) of the inputs multiplied together.
        roundings: the number of rounded additions or multiplications that follow.
        precision: their working precision in bits (unit roundoff 2^-precision).

    Returns:
        A float rounded up, >= prod(1 + f) (1 + 2^-precision)^roundings - 1 (by
        (1 + u)^k <= 1 + k u / (1 - k u)); 0.0 only when every factor is 0 and there is no
        rounding; inf when k u >= 1/2.
    """
    total = Fraction(1)
    for f in factors:
        total *= 1 + Fraction(f)
    ku = Fraction(roundings, 2 ** precision)
    if ku >= Fraction(1, 2):
        return math.inf
    total *= 1 + ku / (1 - ku)
    return float(rounding.up(total - 1))


def _working_precision(*pmfs: Any) -> int:
    """Precision for an operation on mp values: the finest of its inputs and mpmath's."""
    return max([mpmath.mp.prec] + [value_precision(p.values.ravel()) for p in pmfs])


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
        value_error: "mp" only: a bound rho on the relative error of every value (true p in
            p (1 +- rho)), stated by the producer; None: not stated (`relative_error` then
            uses `model_relative_error`).
    """

    backend: str
    offset: tuple[int, ...]
    values: np.ndarray
    tail: Any = 0.0
    log_error: Any = 0.0
    exact_on_grid: bool = True
    value_error: float | None = None

    def __post_init__(self) -> None:
        check_backend(self.backend)
        if len(self.offset) != self.values.ndim:
            raise ValueError(f"offset {self.offset} does not match values.ndim={self.values.ndim}")

    @property
    def ndim(self) -> int:
        return self.values.ndim

    def relative_error(self) -> float:
        """Bound on the relative error of the grid values (mp: stated, else the model).

        Returns:
            0.0 for "exact"; for "mp", `value_error` when stated, else
            `model_relative_error(values)`; for "float", 0.0 (its errors are `log_error`).
        """
        if self.backend != "mp":
            return 0.0
        if self.value_error is not None:
            return float(self.value_error)
        return model_relative_error(self.values.ravel())

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
        raw = np.asarray(values, dtype=object).ravel()
        try:
            with mpmath.workdps(dps):  # Fractions become mpf at dps digits, not 15
                objs = np.array([conv(v) for v in raw], dtype=object).reshape(np.shape(values))
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
        if backend == "exact":
            return cls(backend, off, objs, _zero(backend), 0.0, True)
        # each value is rounded at most 3 times (a Fraction: numerator, denominator, their
        # quotient; a string once); values that converted exactly carry no error
        inexact = any(not _converted_exactly(v, o) for v, o in zip(raw, objs.ravel(),
                                                                    strict=True))
        prec = mpmath.libmp.dps_to_prec(dps)
        return cls(backend, off, objs, _zero(backend), 0.0, True,
                   compose_errors(roundings=3, precision=prec) if inexact else 0.0)


def _converted_exactly(given: Any, stored: mpmath.mpf) -> bool:
    """Whether an mpf equals the value it was converted from (floats, ints and mpfs always
    do; a Fraction when it is dyadic and short enough; anything else is not checked)."""
    if isinstance(given, float | int | np.floating | np.integer | mpmath.mpf):
        return True
    if isinstance(given, Fraction):
        return to_fmpq(stored) == to_fmpq(given)
    return False


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
        (or no component has outside mass); for "mp", computed at the inputs' precision,
        value_error the components' largest plus the weights' (an mpf weight counts as
        made by 64 roundings at max(53, its mantissa) bits) plus the roundings, and the tail
        raised to cover the weights' error.

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
    if backend == "exact":
        out = np.full(shape, _zero(backend), dtype=object)
        for w, p in components:
            out[_slices(p, lo)] += w * p.values
        tail = sum((w * p.tail for w, p in components), _zero(backend))
        return PMF(backend, lo, out, tail, 0.0, exact)
    # mp: at the inputs' precision (not mpmath's global one); an mpf weight counts as
    # made by at most 64 roundings at the precision its mantissa shows (1 - p rounded at
    # 53 bits, p = 1/(e^eps0 + 1) at 60 digits with exp's amplification by eps0)
    prec = max(_working_precision(*pmfs), value_precision(weights))
    w_err = max(compose_errors(roundings=64, precision=value_precision([w]))
                if isinstance(w, mpmath.mpf) else 0.0 for w in weights)
    rho = compose_errors(max(p.relative_error() for p in pmfs), w_err,
                         roundings=len(components) + 1, precision=prec)
    with mpmath.workprec(prec):
        out = np.full(shape, _zero(backend), dtype=object)
        for w, p in components:
            out[_slices(p, lo)] += w * p.values
        # the tail bounds true outside mass: true weights may be larger by w_err
        tail = sum((w * p.tail for w, p in components), _zero(backend)) * (
            1 + mpmath.mpf(compose_errors(w_err, roundings=len(components) + 1,
                                          precision=prec)))
    return PMF(backend, lo, out, tail, 0.0, exact, rho)


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
        that underflowed); log_error adds the inputs' bounds and 2 (min(len) + 2) u; for
        "mp", computed at the inputs' precision with value_error the inputs' combined plus
        min(len) + 1 roundings.

    Raises:
        ParameterError: the backends or dimensions differ, or the PMFs are not 1-D.
    """
    backend = _same_backend([a, b])
    if a.ndim != 1:
        raise ParameterError("convolve is defined for 1-D PMFs; use product for joint laws")
    offset = (a.offset[0] + b.offset[0],)
    exact = a.exact_on_grid and b.exact_on_grid and a.tail == 0 and b.tail == 0
    if backend == "exact":
        vals = np.convolve(a.values, b.values)
        return PMF(backend, offset, vals, a.tail + b.tail, 0.0, exact)
    if backend == "mp":
        # each output: a sum of at most min(len) products, at the inputs' precision
        prec = _working_precision(a, b)
        n_terms = min(a.values.size, b.values.size)
        rho = compose_errors(a.relative_error(), b.relative_error(), roundings=n_terms + 1,
                             precision=prec)
        with mpmath.workprec(prec):
            vals = np.convolve(a.values, b.values)
            tail = (a.tail + b.tail) * (1 + mpmath.mpf(2) ** (2 - prec))
        return PMF(backend, offset, vals, tail, 0.0, exact, rho)
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
        of the two broadcast bounds plus 2 u; for "mp", computed at the inputs' precision,
        value_error the inputs' combined plus one rounding.

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
    if backend == "exact":
        vals = np.multiply.outer(a.values, b.values)
        return PMF(backend, offset, vals, a.tail + b.tail, 0.0, exact)
    prec = _working_precision(a, b)
    rho = compose_errors(a.relative_error(), b.relative_error(), roundings=1, precision=prec)
    with mpmath.workprec(prec):
        vals = np.multiply.outer(a.values, b.values)
        tail = (a.tail + b.tail) * (1 + mpmath.mpf(2) ** (2 - prec))
    return PMF(backend, offset, vals, tail, 0.0, exact, rho)
