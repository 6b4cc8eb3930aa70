"""`ViewPair`: the analyzer's view under two neighbouring datasets, on one common grid.

Divergences need P and Q on the same outcomes. A ViewPair holds them flattened to 1-D
(with the grid's shape and offset, to recover labels), plus what soundness needs:

- `tail_p`, `tail_q`: upper bounds on the mass each law has that the grid values do not
  represent (the "residual" laws M_P, M_Q, so that P = P_grid + M_P pointwise);
- `residual_loss_bound`: B such that M_P <= e^B M_Q and M_Q <= e^B M_P pointwise (math.inf
  if unknown). Hockey-stick, Renyi and max-divergence are jointly convex and 1-homogeneous
  in (P, Q), hence subadditive, so div(P||Q) <= div(P_grid||Q_grid) + div(M_P||M_Q), and
  the residual term is bounded by the tail mass and B alone;
- float backend: `loss` = log P - log Q on the grid (protocols may supply it in closed form,
  which is far more accurate than a difference of two log-PMFs), `log_error` and
  `loss_error`, bounds on the absolute error of log P, log Q and loss entries.

`grid_exact` says whether grid values are the true probabilities (up to float error) or
only lower bounds of them (after convolving truncated laws); lower bounds on divergences
are only derived from exact grids.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from accountant.errors import ParameterError
from accountant.numeric.logspace import logsumexp
from accountant.numeric.mp import to_mpf
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.pmf import (
    PMF,
    check_backend,
    compose_errors,
    model_relative_error,
    value_precision,
)

__all__ = ["ViewPair"]

LossFunction = Callable[[tuple[np.ndarray, ...]], tuple[np.ndarray, np.ndarray | float]]


@dataclass(frozen=True, eq=False)
class ViewPair:
    """Two laws P, Q on a common flattened grid, with certified residual bounds.

    Attributes:
        backend: "float", "mp" or "exact".
        p, q: log-probabilities ("float") or linear probabilities (object arrays), 1-D.
        tail_p, tail_q: upper bounds on the residual masses (not on the grid).
        residual_loss_bound: B with M_P <= e^B M_Q and M_Q <= e^B M_P (inf if unknown).
        loss: "float" only; log(p/q) per grid point (+inf where q = 0 < p, -inf where
            p = 0 < q).
        log_error, loss_error: "float" only; absolute error bounds (array or scalar).
        grid_exact: grid values are the true probabilities, not lower bounds.
        coords: lattice coordinates of each flattened grid point, one array per axis.
        description: protocol, parameters, which neighbours.
        value_error: "mp" only: bound rho on the relative error of every grid value (true p
            in p (1 +- rho)), as stated by the producer; None: not stated, and
            `relative_error` uses the model of `accountant.pmf.model_relative_error`.
    """

    backend: str
    p: np.ndarray
    q: np.ndarray
    tail_p: Any = 0.0
    tail_q: Any = 0.0
    residual_loss_bound: float = math.inf
    loss: np.ndarray | None = None
    log_error: Any = 0.0
    loss_error: Any = 0.0
    grid_exact: bool = True
    coords: tuple[np.ndarray, ...] = ()
    description: Mapping[str, Any] = field(default_factory=dict)
    value_error: float | None = None

    def __post_init__(self) -> None:
        check_backend(self.backend)
        if self.p.shape != self.q.shape or self.p.ndim != 1:
            raise ValueError("p and q must be 1-D arrays of one shape")
        if self.backend == "float" and self.loss is None:
            with np.errstate(invalid="ignore"):
                loss = self.p - self.q
            loss = np.where(np.isneginf(self.q) & ~np.isneginf(self.p), np.inf, loss)
            loss = np.where(np.isneginf(self.p) & ~np.isneginf(self.q), -np.inf, loss)
            object.__setattr__(self, "loss", loss)
            object.__setattr__(self, "loss_error", self._pair_error() + 4 * UNIT_ROUNDOFF
                               * np.abs(np.where(np.isfinite(loss), loss, 0.0)))

    def _pair_error(self) -> np.ndarray | float:
        return 2 * np.asarray(self.log_error) if np.ndim(self.log_error) else 2 * self.log_error

    @property
    def size(self) -> int:
        return int(self.p.size)

    @property
    def float_loss(self) -> np.ndarray:
        """`loss` of a "float" view, always an array there (`__post_init__` fills it in).

        Raises:
            ValueError: for the "mp" and "exact" backends, which carry no loss array.
        """
        if self.loss is None:
            raise ValueError(f"a {self.backend!r} view has no loss array")
        return self.loss

    @property
    def has_tails(self) -> bool:
        return self.tail_p > 0 or self.tail_q > 0

    def relative_error(self) -> tuple[float, bool]:
        """Bound on the relative error of the grid values, and whether it was stated.

        Returns:
            (rho, stated): (0.0, True) for "exact" and "float" (whose errors are log_error);
            for "mp", (value_error, True) when stated, else
            (`model_relative_error` of p and q, False).
        """
        if self.backend != "mp":
            return 0.0, True
        if self.value_error is not None:
            return float(self.value_error), True
        return model_relative_error(list(self.p) + list(self.q)), False

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_pmfs(cls, P: PMF, Q: PMF, *, loss: LossFunction | None = None,
                  residual_loss_bound: float = math.inf,
                  description: Mapping[str, Any] | None = None) -> ViewPair:
        """Align two PMFs on the intersection of their grids.

        Mass of either law outside the intersection moves to its tail. `loss`, if given,
        maps the grid's coordinate arrays to (log P/Q, absolute error bound) in closed form
        (float backend only). `residual_loss_bound` is the caller's certificate B for the
        residual laws (see the module docstring); keep inf if unsure.

        Args:
            P: the law under the first dataset.
            Q: the law under the neighbouring dataset; same backend and dimension as P.
            loss: optional closed-form loss: called with the flattened coordinate arrays of the
                common box, returns (log P/Q per point, error bound, array or scalar). Ignored
                by the "mp" and "exact" backends.
            residual_loss_bound: the certificate B (>= 0, or inf).
            description: protocol, parameters, which neighbours (copied into the pair).

        Returns:
            A ViewPair on the flattened box, with tail_p = P.tail + P's mass outside the box
            (rounded up) and likewise for Q, grid_exact = P.exact_on_grid and Q.exact_on_grid;
            for "mp", value_error the larger of the two laws' `relative_error()` (and the
            outside mass raised to cover it); for "float", points where both
            log-probabilities are -inf are dropped and log_error is the larger of the two
            laws' bounds per point.

        Raises:
            ParameterError: different backends or dimensions, or disjoint grids.
        """
        if P.backend != Q.backend or P.ndim != Q.ndim:
            raise ParameterError("P and Q must share backend and dimension")
        lo = tuple(max(a, b) for a, b in zip(P.offset, Q.offset, strict=True))
        hi = tuple(min(a + s, b + t) for a, s, b, t in
                   zip(P.offset, P.shape, Q.offset, Q.shape, strict=True))
        if any(h <= low for h, low in zip(hi, lo, strict=True)):
            raise ParameterError("P and Q have disjoint grids; widen their windows")
        p_in, p_out = _cut(P, lo, hi)
        q_in, q_out = _cut(Q, lo, hi)
        grids = np.meshgrid(*[np.arange(low, h) for low, h in zip(lo, hi, strict=True)],
                            indexing="ij")
        coords = tuple(g.ravel() for g in grids)
        common = dict(backend=P.backend, tail_p=P.tail + p_out, tail_q=Q.tail + q_out,
                      residual_loss_bound=residual_loss_bound,
                      grid_exact=P.exact_on_grid and Q.exact_on_grid, coords=coords,
                      description=dict(description or {}))
        if P.backend != "float":
            rho = max(P.relative_error(), Q.relative_error()) if P.backend == "mp" else None
            return cls(p=p_in.ravel(), q=q_in.ravel(), value_error=rho, **common)
        log_error = np.maximum(_flat_error(P, lo, hi), _flat_error(Q, lo, hi))
        lp, lq = p_in.ravel(), q_in.ravel()
        keep = ~(np.isneginf(lp) & np.isneginf(lq))
        if loss is None:
            view = cls(p=lp[keep], q=lq[keep], log_error=log_error[keep], **common | {
                "coords": tuple(c[keep] for c in coords)})
            return view
        loss_v, loss_err = loss(coords)
        loss_err = np.broadcast_to(np.asarray(loss_err, dtype=float), loss_v.shape)
        return cls(p=lp[keep], q=lq[keep], loss=np.asarray(loss_v, dtype=float)[keep],
                   log_error=log_error[keep], loss_error=loss_err[keep],
                   **common | {"coords": tuple(c[keep] for c in coords)})

    @classmethod
    def from_arrays(cls, p: Any, q: Any, *, backend: str = "float", tolerance: float = 1e-9,
                    log: bool = False,
                    description: Mapping[str, Any] | None = None) -> ViewPair:
        """A pair of complete PMFs given as arrays on the same outcomes (validated).

        Args:
            p: probabilities of P per outcome (log-probabilities with log=True, float backend).
            q: probabilities of Q on the same outcomes.
            backend: "float", "mp" or "exact".
            tolerance: allowed |sum - 1| of each law (the exact backend requires exactly 1).
            log: `p` and `q` are natural-log probabilities (read by the float backend only; see
                `PMF.from_values`).
            description: protocol, parameters, which neighbours.

        Returns:
            A ViewPair with no tails and residual_loss_bound 0.

        Raises:
            ParameterError: `PMF.from_values` rejects p or q (named "p" and "q" in the message),
                or they have different numbers of outcomes.
        """
        P = PMF.from_values(p, backend=backend, name="p", tolerance=tolerance, log=log)
        Q = PMF.from_values(q, backend=backend, name="q", tolerance=tolerance, log=log)
        if P.shape != Q.shape:
            raise ParameterError(f"p has {P.shape[0]} outcomes but q has {Q.shape[0]}")
        return cls.from_pmfs(P, Q, residual_loss_bound=0.0, description=description)

    # ---------------------------------------------------------------- transformations
    def swapped(self) -> ViewPair:
        """The pair (Q, P).

        Returns:
            A copy with p and q, tail_p and tail_q exchanged and the loss negated; error bounds,
            residual_loss_bound and coords unchanged.
        """
        return replace(self, p=self.q, q=self.p, tail_p=self.tail_q, tail_q=self.tail_p,
                       loss=None if self.loss is None else -self.loss)

    def product(self, other: ViewPair) -> ViewPair:
        """The pair (P1 x P2, Q1 x Q2) of independent views.

        Residual of the product: M1 x P2 + P1_grid x M2, whose loss is at most
        B1 + sup L2 or sup L1 + B2 (sup over grid and residual).

        Args:
            other: the second pair (P2, Q2), same backend.

        Returns:
            A ViewPair on the product of the two grids (this pair's index major), tails added,
            residual_loss_bound max(B1 + sup|L2|, sup|L1| + B2) (inf when a grid loss is
            infinite), grid_exact only if both are; for "float", log-values and losses added
            with error bounds summed plus 2 u (a +inf + -inf loss becomes -inf); for "mp",
            products at the inputs' precision, value_error combined plus one rounding.

        Raises:
            ParameterError: the backends differ.
        """
        if self.backend != other.backend:
            raise ParameterError("cannot take the product of views of different backends")
        b = max(self.residual_loss_bound + other._sup_abs_loss(),
                self._sup_abs_loss() + other.residual_loss_bound)
        coords = tuple(np.add.outer(c, np.zeros(other.size, dtype=int)).ravel()
                       for c in self.coords) + tuple(
            np.add.outer(np.zeros(self.size, dtype=int), c).ravel() for c in other.coords)
        common = dict(backend=self.backend, tail_p=self.tail_p + other.tail_p,
                      tail_q=self.tail_q + other.tail_q, residual_loss_bound=b,
                      grid_exact=self.grid_exact and other.grid_exact, coords=coords,
                      description={"product": [dict(self.description),
                                               dict(other.description)]})
        if self.backend == "exact":
            return ViewPair(p=np.multiply.outer(self.p, other.p).ravel(),
                            q=np.multiply.outer(self.q, other.q).ravel(), **common)
        if self.backend == "mp":
            prec = max(mpmath.mp.prec, value_precision(self.p), value_precision(self.q),
                       value_precision(other.p), value_precision(other.q))
            rho = compose_errors(self.relative_error()[0], other.relative_error()[0],
                                 roundings=1, precision=prec)
            with mpmath.workprec(prec):
                return ViewPair(p=np.multiply.outer(self.p, other.p).ravel(),
                                q=np.multiply.outer(self.q, other.q).ravel(), value_error=rho,
                                **common)
        err = (np.add.outer(_arr(self.log_error, self.size), _arr(other.log_error, other.size))
               .ravel() + 2 * UNIT_ROUNDOFF)
        with np.errstate(invalid="ignore"):
            loss = np.add.outer(self.float_loss, other.float_loss).ravel()
        # +inf + -inf: an atom of P1 only (Q1 = 0) times an atom of Q2 only (P2 = 0), so
        # P = Q = 0 there; -inf keeps the "no P mass" reading instead of a NaN loss.
        loss = np.where(np.isnan(loss), -np.inf, loss)
        loss_err = (np.add.outer(_arr(self.loss_error, self.size),
                                 _arr(other.loss_error, other.size)).ravel()
                    + 2 * UNIT_ROUNDOFF * np.abs(np.where(np.isfinite(loss), loss, 0.0)))
        return ViewPair(p=np.add.outer(self.p, other.p).ravel(),
                        q=np.add.outer(self.q, other.q).ravel(), loss=loss, log_error=err,
                        loss_error=loss_err, **common)

    def _sup_abs_loss(self) -> float:
        """sup |log P/Q| over the grid (float-rounded up) and the residual."""
        if self.backend == "float":
            loss = self.float_loss
            finite = loss[np.isfinite(loss)]
            grid = float(np.max(np.abs(finite) + _arr(self.loss_error, self.size)[
                np.isfinite(loss)])) if finite.size else 0.0
            if finite.size < self.size:
                grid = math.inf
        else:
            grid = 0.0
            for a, b in zip(self.p, self.q, strict=True):
                if (a == 0) != (b == 0):
                    return math.inf
                if a > 0:
                    grid = max(grid, abs(float(mpmath.log(to_mpf(a) / to_mpf(b)))))
            # each value may be off by a relative rho: the ratio by (1 + rho)/(1 - rho)
            rho = self.relative_error()[0]
            grid = (grid + 2.5 * rho) * (1 + 1e-12) + 1e-300
        return max(grid, self.residual_loss_bound) if self.has_tails else grid

    def merged(self, groups: np.ndarray) -> ViewPair:
        """Post-processing by a deterministic map: outcomes with equal group ids are merged.

        The merged pair's divergences are never larger (data processing); tests use this.

        Args:
            groups: one group id per grid point (shape (size,)); any sortable values.

        Returns:
            A ViewPair with one point per distinct id (sorted; coords = (ids,)), tails and
            residual_loss_bound unchanged. For "float", the probabilities are summed in log
            space, log_error becomes the largest bound plus 4 u (1 + log2 size), and the loss is
            recomputed from p - q (a closed-form loss is not carried over); for "mp", sums at
            the values' precision, value_error raised by one rounding per merged value.

        Raises:
            ParameterError: `groups` does not have one id per grid point.
        """
        groups = np.asarray(groups)
        if groups.shape != (self.size,):
            raise ParameterError(f"groups must have one id per outcome ({self.size})")
        ids, inverse = np.unique(groups, return_inverse=True)
        common = dict(backend=self.backend, tail_p=self.tail_p, tail_q=self.tail_q,
                      residual_loss_bound=self.residual_loss_bound, grid_exact=self.grid_exact,
                      coords=(ids,), description={"merged": dict(self.description)})
        if self.backend == "exact":
            p = np.full(ids.size, Fraction(0), dtype=object)
            q = np.full(ids.size, Fraction(0), dtype=object)
            np.add.at(p, inverse, self.p)
            np.add.at(q, inverse, self.q)
            return ViewPair(p=p, q=q, **common)
        if self.backend == "mp":
            # sums of positive values: the relative error grows by one rounding per addition
            prec = max(mpmath.mp.prec, value_precision(self.p), value_precision(self.q))
            rho = compose_errors(self.relative_error()[0],
                                 roundings=int(np.max(np.bincount(inverse))) + 1,
                                 precision=prec)
            with mpmath.workprec(prec):
                p = np.full(ids.size, mpmath.mpf(0), dtype=object)
                q = np.full(ids.size, mpmath.mpf(0), dtype=object)
                np.add.at(p, inverse, self.p)
                np.add.at(q, inverse, self.q)
            return ViewPair(p=p, q=q, value_error=rho, **common)
        p = np.full(ids.size, -np.inf)
        q = np.full(ids.size, -np.inf)
        np.logaddexp.at(p, inverse, self.p)
        np.logaddexp.at(q, inverse, self.q)
        err = float(np.max(_arr(self.log_error, self.size))) + 4 * UNIT_ROUNDOFF * (
            1 + math.log2(max(2, self.size)))
        return ViewPair(p=p, q=q, log_error=err, **common)

    def linear(self) -> tuple[list[Any], list[Any]]:
        """p, q as Python lists of mpf (float: converted from logs) or Fractions.

        Returns:
            (p, q) as Python lists: mpf values exp(log p) at the working precision for "float",
            the stored mpf or Fraction values otherwise.
        """
        if self.backend == "float":
            return ([mpmath.exp(mpmath.mpf(x)) for x in self.p],
                    [mpmath.exp(mpmath.mpf(x)) for x in self.q])
        return list(self.p), list(self.q)

    def masses(self) -> tuple[float, float]:
        """Grid masses of P and Q (float).

        Returns:
            (mass of P on the grid, mass of Q on the grid) as floats rounded to nearest (not
            directed): exp(logsumexp) for "float", float(sum) otherwise. Tails not included.
        """
        if self.backend == "float":
            return math.exp(logsumexp(self.p)), math.exp(logsumexp(self.q))
        return float(sum(self.p)), float(sum(self.q))


def _arr(x: Any, size: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(x, dtype=float), (size,))


def _cut(pmf: PMF, lo: tuple[int, ...], hi: tuple[int, ...]) -> tuple[np.ndarray, Any]:
    """Values inside the box [lo, hi) and the mass outside it (float: rounded up)."""
    sl = tuple(slice(low - o, h - o) for low, h, o in zip(lo, hi, pmf.offset, strict=True))
    inside = pmf.values[sl]
    if inside.shape == pmf.shape:
        return inside, (0.0 if pmf.backend == "float" else inside.flat[0] * 0)
    mask = np.ones(pmf.shape, dtype=bool)
    mask[sl] = False
    if pmf.backend == "float":
        return inside, math.exp(logsumexp(pmf.values[mask])) * (1 + 1e-12)
    if pmf.backend == "mp":
        # an upper bound on the true outside mass: values may be low by rho, the sum rounds
        outside = pmf.values[mask].tolist()
        prec = max(mpmath.mp.prec, value_precision(outside))
        rho = compose_errors(pmf.relative_error(), roundings=len(outside) + 1, precision=prec)
        with mpmath.workprec(prec):
            return inside, sum(outside, mpmath.mpf(0)) * (1 + mpmath.mpf(rho))
    return inside, sum(pmf.values[mask].tolist(), inside.flat[0] * 0)


def _flat_error(pmf: PMF, lo: tuple[int, ...], hi: tuple[int, ...]) -> np.ndarray:
    sl = tuple(slice(low - o, h - o) for low, h, o in zip(lo, hi, pmf.offset, strict=True))
    err = np.broadcast_to(np.asarray(pmf.log_error, dtype=float), pmf.shape)
    return np.ascontiguousarray(err[sl]).ravel()
