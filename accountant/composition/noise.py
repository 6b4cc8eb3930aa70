"""Additive-noise mechanisms (Gaussian, Laplace), optionally Poisson-subsampled, as pairs for
the certified PLD engine, with their RDP curves and the analytic Gaussian
(docs/conversions.md#gaussian-and-laplace-events).

Conventions are dp_accounting's (so that one ledger answers the same questions as its
`GaussianDpEvent` / `LaplaceDpEvent`): noise of scale `sigma` (Gaussian standard deviation)
or `b` (Laplace parameter) in units of the sensitivity, and with sampling rate q

- add/remove, "remove" order: upper = q mu(x + 1) + (1 - q) mu(x), lower = mu(x);
- add/remove, "add" order: upper = mu(x), lower = q mu(x - 1) + (1 - q) mu(x);
- substitute ("replace"): upper = q mu(x + 1) + (1 - q) mu(x),
  lower = q mu(x - 1) + (1 - q) mu(x) (at q = 1: the shift pair with sensitivity 2).

In each case the loss L(x) = log(upper(x)/lower(x)) is continuous and nonincreasing in x (a
nondecreasing function of the loss of one shifted pair, which is nonincreasing), so the
upper measure of the loss cell between two points a < b is the upper-mass of [a, b] and its
largest loss is L(a).

Discretisation (`NoisePair.loss_pmfs`): the x-range [x_lo, x_hi] holds all but about
tail/8 of the upper mass; the grid levels k Delta are pulled back to x-edges by bisection
(the edges need not be accurate: a cell's grid index comes from a forward evaluation of L at
its end, with a margin covering that evaluation's rounding); a cell's mass is bounded above
and below from the noise's log-survival function (scipy's `log_ndtr` for the Gaussian,
assumed accurate to `SPECIAL_RELATIVE` relative; closed forms for Laplace). Pessimistic:
cell mass bounded above at index ceil(L(a)/Delta), the mass left of x_lo to +inf, the mass
right of x_hi at the last cell's index. Optimistic: bounded below at floor(L(b)/Delta),
tails dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from scipy import special

from accountant.composition.pld import (
    LossPmf,
    LossPmfSource,
    grid_index,
    pmf_from_entries,
    split_pmf,
)
from accountant.composition.rdp import DEFAULT_ORDERS, RdpCurve
from accountant.domains import DELTA, EPSILON, Interval
from accountant.errors import ParameterError, PrecisionError
from accountant.numeric import rounding
from accountant.numeric.logspace import finite_abs
from accountant.result import Source

__all__ = ["NoisePair", "FAMILIES", "NOISE_MULTIPLIER", "SPECIAL_RELATIVE", "gaussian_delta",
           "gaussian_epsilon", "noise_rdp_curve", "sensitivity_factor", "analytic_source"]

FAMILIES = ("gaussian", "laplace")
# The noise scale over the sensitivity, declared once for NoisePair and the ledger's
# GaussianNoise / LaplaceNoise. Below 0.01 one round is no privacy worth accounting (a
# Gaussian round's epsilon(1e-6) is above 5e3, a Laplace round's above 100), while the
# certified routes' work grows like 1/scale^2: the PLD grid (minutes and GBs at 0.01; at
# 1e-10 the float error model of a cell's mass overflows, at 1e-154 the analytic route's
# mu^2 does) and the RDP route's conversion of curves that large.
NOISE_MULTIPLIER = Interval("noise_multiplier", 0.01, math.inf, closed="left",
                            note="below 0.01 a round's epsilon exceeds 100 (Laplace) or "
                                 "5e3 (Gaussian at delta=1e-6) and the certified routes' work "
                                 "grows like 1/noise_multiplier^2")
# Assumed relative accuracy of scipy.special.log_ndtr (cephes-based; measured against
# 40-digit mpmath in tests/composition/test_noise.py at about 1e-16).
SPECIAL_RELATIVE = 1e-14
_U = rounding.UNIT_ROUNDOFF
_MAX_CELLS = 8_000_000
# the most pieces one order's connect-the-dots measure is cut into
_MAX_PIECES = 2_000_000
_BALLE_WANG = Source(citation="Balle, Wang, ICML 2018",
                     locator="Theorem 8 (analytic Gaussian); T Gaussians compose to one with "
                             "mu^2 summed (docs/conversions.md#gaussian-and-laplace-events)")
_MIRONOV = Source(citation="Mironov, CSF 2017", locator="Table II (Gaussian, Laplace RDP)")


def sensitivity_factor(relation: str) -> float:
    """Shift between the two hypotheses in units of the sensitivity: 1 for add/remove, 2 for
    substitute (dp_accounting's REPLACE_ONE convention).

    Args:
        relation: "add-remove" or "substitute".

    Returns:
        1.0 or 2.0.

    Raises:
        ParameterError: an unknown relation.
    """
    if relation == "add-remove":
        return 1.0
    if relation == "substitute":
        return 2.0
    raise ParameterError(f"relation={relation!r} is outside {{'substitute', 'add-remove'}}")


@dataclass(frozen=True, slots=True)
class NoisePair(LossPmfSource):
    """The pair(s) of one Gaussian or Laplace event (module docstring).

    Attributes:
        family: "gaussian" or "laplace".
        scale: sigma or b over the sensitivity (dp_accounting's noise_multiplier), in
            NOISE_MULTIPLIER = [0.01, inf).
        sampling_rate: Poisson sampling rate q in (0, 1].
        relation: "add-remove" (orders remove and add) or "substitute" (one symmetric pair).
    """

    family: str
    scale: float
    sampling_rate: float = 1.0
    relation: str = "add-remove"

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ParameterError(f"family={self.family!r} is outside {set(FAMILIES)}")
        if not isinstance(self.scale, int | float):
            raise ParameterError(f"noise scale={self.scale!r} is not a number")
        NOISE_MULTIPLIER.named("scale").check(self.scale)
        if not 0 < self.sampling_rate <= 1:
            raise ParameterError(f"sampling_rate={self.sampling_rate!r} is outside (0, 1]")
        sensitivity_factor(self.relation)

    @property
    def description(self) -> dict[str, Any]:
        """The family, scale, rate and relation (for labels)."""
        return {"pair": f"{self.family} noise", "scale": self.scale,
                "sampling_rate": self.sampling_rate, "relation": self.relation}

    def orders(self) -> tuple[str, ...]:
        """The orders composed: ("remove", "add") for add/remove, ("replace",) otherwise.

        Returns:
            The order names, in the engine's order (first: P = the dataset with the user).
        """
        return ("replace",) if self.relation == "substitute" else ("remove", "add")

    # ----------------------------------------------------------------- the two laws
    def _mixtures(self, order: str) -> tuple[list[tuple[float, float, float]],
                                             list[tuple[float, float, float]]]:
        """(weight, log weight, centre) components of upper and lower, in units of scale."""
        t = 1.0 / self.scale
        q = float(self.sampling_rate)
        rest = [(1.0 - q, math.log1p(-q), 0.0)] if q < 1 else []
        left = [(q, math.log(q), -t)] + rest
        right = [(q, math.log(q), t)] + rest
        plain = [(1.0, 0.0, 0.0)]
        if order == "remove":
            return left, plain
        if order == "add":
            return plain, right
        return left, right

    def _neglog(self, z: np.ndarray) -> np.ndarray:
        return 0.5 * z * z if self.family == "gaussian" else np.abs(z)

    def loss(self, z: np.ndarray, order: str) -> tuple[np.ndarray, np.ndarray]:
        """L(z) = log(upper/lower) at z (in units of scale) and a bound on its rounding.

        Args:
            z: points.
            order: "remove", "add" or "replace".

        Returns:
            (loss, margin): |computed - exact| <= margin, the exact loss being that of the
            pair with the stated (float) scale and rate.
        """
        upper, lower = self._mixtures(order)
        z = np.asarray(z, dtype=float)
        ups = [lw - self._neglog(z - c) for _, lw, c in upper]
        lows = [lw - self._neglog(z - c) for _, lw, c in lower]
        top = np.logaddexp(*ups) if len(ups) == 2 else ups[0]
        bottom = np.logaddexp(*lows) if len(lows) == 2 else lows[0]
        loss = top - bottom
        t = 1.0 / self.scale
        reach = np.abs(z) + t + 1.0
        size = reach * reach if self.family == "gaussian" else reach
        margin = 64 * _U * (size + np.abs(loss) + 40.0)
        return loss, margin

    def _log_sf(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """log of the standard noise's survival function at z >= 0, and its error bound."""
        with np.errstate(divide="ignore"):
            if self.family == "gaussian":
                ls = special.log_ndtr(-z)
                err = SPECIAL_RELATIVE * (1 + finite_abs(ls))
            else:
                ls = -z - math.log(2.0)
                err = 4 * _U * (1 + finite_abs(z))
        return ls, err

    def _interval_mass(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper bounds on the standard noise's mass of [a, b] (a <= b)."""
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        hi = np.zeros(a.shape)
        lo = np.zeros(a.shape)
        right = a >= 0
        left = (b <= 0) & ~right
        mid = ~(right | left)
        for sel, s, e in ((right, a, b), (left, -b, -a)):   # [s, e] with 0 <= s <= e
            if not np.any(sel):
                continue
            ls, es = self._log_sf(s[sel])
            le, ee = self._log_sf(e[sel])
            ee = np.where(np.isfinite(le), ee, 0.0)
            with np.errstate(invalid="ignore"):
                d = np.where(np.isfinite(le), le - ls, -np.inf)
            ed = es + ee + 2 * _U * finite_abs(d)
            core = -np.expm1(d)
            wobble = np.exp(d) * np.expm1(ed)
            hi[sel] = np.exp(ls + es) * (core + wobble) * (1 + 8 * _U)
            lo[sel] = np.exp(ls - es) * np.maximum(core - wobble, 0.0) * (1 - 8 * _U)
        if np.any(mid):
            l1, e1 = self._log_sf(b[mid])
            l2, e2 = self._log_sf(-a[mid])
            s1, s2 = np.exp(l1), np.exp(l2)
            hi[mid] = 1 - s1 * np.exp(-e1) - s2 * np.exp(-e2) + 4 * _U
            lo[mid] = np.maximum(1 - s1 * np.exp(e1) - s2 * np.exp(e2) - 4 * _U, 0.0)
        return lo, np.minimum(hi, 1.0)

    def _upper_mass(self, a: np.ndarray, b: np.ndarray, order: str,
                    law: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Bounds on the upper law's (law=1: the lower law's) mass of [a, b] (mixture of
        shifted noises).

        Each component's mass is enclosed twice and the enclosures intersected: from the
        survival function at the ends (`_interval_mass`, accurate for wide intervals), and
        for the Gaussian from a series about the midpoint (`_narrow_gauss_mass`, accurate
        to about 1e-13 relative for narrow ones, where the difference of survival
        functions loses digits). The connect-the-dots split needs both laws' masses of one
        piece to about 1e-10 relative at a 1e-6 grid (issue 21)."""
        upper = self._mixtures(order)[law]
        t = 1.0 / self.scale
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        lo = np.zeros(np.shape(a))
        hi = np.zeros(np.shape(a))
        finite = np.isfinite(a) & np.isfinite(b)
        mid = np.where(finite, 0.5 * a + 0.5 * b, 0.0)
        half = np.where(finite, 0.5 * b - 0.5 * a, np.inf)
        for w, _, c in upper:
            m_lo, m_hi = self._interval_mass(a - c, b - c)
            if c != 0:
                # a - c and b - c are rounded: each end moves by <= u |end|, which moves
                # the mass by at most that times the density there
                m_lo, m_hi = _widen_ends(m_lo, m_hi, a - c, b - c, self.family)
            if self.family == "gaussian":
                n_lo, n_hi = _narrow_gauss_mass(mid - c, mid, half)
                m_lo, m_hi = np.maximum(m_lo, n_lo), np.minimum(m_hi, n_hi)
            # the centre t carries a relative error <= u (1/scale rounded), which moves the
            # mass by a factor within exp(+-2u t (|z| + t + 1)) (Gaussian; Laplace: 2u t)
            reach = finite_abs(a) + finite_abs(b) + t + 1
            shift = 4 * _U * t * (reach if self.family == "gaussian" else 1.0)
            hi += w * m_hi * np.exp(shift) * (1 + 4 * _U)
            lo += w * m_lo * np.exp(-shift) * (1 - 4 * _U)
        return lo * (1 - 2 * _U), hi * (1 + 2 * _U)

    def _pullback(self, levels: np.ndarray, z_lo: float, z_hi: float, order: str,
                  width: float) -> np.ndarray:
        """Points z with L(z) <= level, close to the crossing (L is nonincreasing): brackets
        from a uniform grid, then bisection until L varies by less than width/1000 inside.
        Only tightness depends on these points; grid indices come from forward evaluation."""
        grid = np.linspace(z_lo, z_hi, int(min(max(levels.size, 2), 2_000_000)))
        values = self.loss(grid, order)[0]
        i = np.searchsorted(-values, -levels, side="left")
        hi = grid[np.minimum(i, grid.size - 1)]
        lo = grid[np.maximum(i - 1, 0)]
        l_lo = self.loss(lo, order)[0]
        l_hi = self.loss(hi, order)[0]
        for _ in range(64):
            open_ = (l_lo - l_hi > 1e-3 * width) & (hi - lo > 1e-15 * (1 + np.abs(hi)))
            if not np.any(open_):
                break
            mid = 0.5 * (lo[open_] + hi[open_])
            l_mid = self.loss(mid, order)[0]
            above = l_mid > levels[open_]
            lo[open_] = np.where(above, mid, lo[open_])
            l_lo[open_] = np.where(above, l_mid, l_lo[open_])
            hi[open_] = np.where(above, hi[open_], mid)
            l_hi[open_] = np.where(above, l_hi[open_], l_mid)
        return hi

    def _window(self, order: str, tail: float) -> tuple[float, float]:
        """The x-range outside which the upper law has mass <= about tail."""
        centres = [c for _, _, c in self._mixtures(order)[0]]
        if self.family == "gaussian":
            reach = math.sqrt(2 * math.log(16.0 / tail))   # S(reach) <= e^(-reach^2/2)/2
        else:
            reach = math.log(8.0 / tail)                   # S(reach) = e^(-reach)/2
        return min(centres) - reach, max(centres) + reach

    def _one(self, order: str, width: float, pessimistic: bool, tail: float) -> LossPmf:
        z_lo, z_hi = self._window(order, tail)
        l_top, m_top = self.loss(np.array([z_lo]), order)
        l_bot, m_bot = self.loss(np.array([z_hi]), order)
        k_max = math.ceil(float(l_top[0] + m_top[0]) / width)
        k_min = math.floor(float(l_bot[0] - m_bot[0]) / width)
        if k_max - k_min > _MAX_CELLS:
            raise PrecisionError(f"PLD discretization={width:g} needs {k_max - k_min} cells "
                                 f"for {self.family} noise (limit {_MAX_CELLS})")
        # pessimistic cells end just below a level (index k), optimistic ones just above
        shift = -1e-3 if pessimistic else 1e-3
        levels = (np.arange(k_max - 1, k_min, -1, dtype=float) + shift) * width
        inner = self._pullback(levels, z_lo, z_hi, order, width)
        edges = np.unique(np.concatenate(([z_lo], inner, [z_hi])))
        a, b = edges[:-1], edges[1:]
        m_lo, m_hi = self._upper_mass(a, b, order)
        end = a if pessimistic else b
        loss, margin = self.loss(end, order)
        index = grid_index(loss, margin, width, pessimistic)
        mass = m_hi if pessimistic else m_lo
        infinity = 0.0
        if pessimistic:
            left = self._upper_mass(np.array([-np.inf]), np.array([z_lo]), order)[1][0]
            right = self._upper_mass(np.array([z_hi]), np.array([np.inf]), order)[1][0]
            infinity = rounding.up(left)
            mass = np.concatenate([mass, [right]])
            index = np.concatenate([index, index[-1:]])
        return pmf_from_entries(index, mass, width, infinity, pessimistic)

    def _crossings(self, levels: np.ndarray, z_lo: float, z_hi: float, order: str,
                   width: float) -> tuple[np.ndarray, np.ndarray]:
        """For each level (decreasing), points lo < hi with L(lo) - margin >= level >=
        L(hi) + margin (certified sides) and L(lo) - L(hi) <= width/1000, or the z-interval
        too narrow to split further: the sliver [lo, hi] holds the crossing."""
        grid = np.linspace(z_lo, z_hi, int(min(max(2 * levels.size, 2), 4_000_000)))
        values, margins = self.loss(grid, order)
        above = values - margins                 # certified lower bounds of L
        below = values + margins                 # certified upper bounds of L
        # lo: the last grid point certified above the level; hi: the first certified below
        i_lo = np.searchsorted(-above, -levels, side="right") - 1
        i_hi = np.searchsorted(-below, -levels, side="left")
        lo = grid[np.clip(i_lo, 0, grid.size - 1)]
        hi = grid[np.clip(i_hi, 0, grid.size - 1)]
        l_lo, _ = self.loss(lo, order)
        l_hi, _ = self.loss(hi, order)
        live = np.ones(levels.size, dtype=bool)
        # L is smooth: a few interpolation steps, each probing just either side of the
        # secant's crossing, shrink most brackets 500-fold per step; a side moves only to a
        # point certified on its side of the level, so the invariants hold whatever the
        # guess. The bisection below finishes what they leave.
        for _ in range(3):
            live &= (l_lo - l_hi > 1e-5 * width) & (hi - lo > 4e-16 * (1 + np.abs(hi)))
            if not np.any(live):
                break
            idx = np.flatnonzero(live)
            level, a, b = levels[idx], lo[idx], hi[idx]
            frac = np.clip((l_lo[idx] - level) / (l_lo[idx] - l_hi[idx]), 0.001, 0.999)
            guess, step = a + frac * (b - a), 1e-3 * (b - a)
            p1, p2 = np.maximum(guess - step, a), np.minimum(guess + step, b)
            l_1, m_1 = self.loss(p1, order)
            l_2, m_2 = self.loss(p2, order)
            up, down = l_1 - m_1 >= level, l_2 + m_2 <= level
            lo[idx], l_lo[idx] = np.where(up, p1, a), np.where(up, l_1, l_lo[idx])
            hi[idx], l_hi[idx] = np.where(down, p2, b), np.where(down, l_2, l_hi[idx])
        live[:] = True
        for _ in range(120):
            live &= (l_lo - l_hi > 1e-5 * width) & (hi - lo > 4e-16 * (1 + np.abs(hi)))
            if not np.any(live):
                break
            idx = np.flatnonzero(live)
            level, a, b = levels[idx], lo[idx], hi[idx]
            mid = 0.5 * (a + b)
            l_m, m_m = self.loss(mid, order)
            up, down = l_m - m_m >= level, l_m + m_m <= level
            # the midpoint within the margins of the level: try the quarter points
            q1, q3 = 0.5 * (a + mid), 0.5 * (mid + b)
            l_1, m_1 = self.loss(q1, order)
            l_3, m_3 = self.loss(q3, order)
            stuck = ~(up | down)
            up1, down3 = stuck & (l_1 - m_1 >= level), stuck & (l_3 + m_3 <= level)
            lo[idx] = np.where(up, mid, np.where(up1, q1, a))
            l_lo[idx] = np.where(up, l_m, np.where(up1, l_1, l_lo[idx]))
            hi[idx] = np.where(down, mid, np.where(down3, q3, b))
            l_hi[idx] = np.where(down, l_m, np.where(down3, l_3, l_hi[idx]))
            live[idx[~(up | down | up1 | down3)]] = False
        return lo, hi

    def _range(self, a: np.ndarray, b: np.ndarray,
               order: str) -> tuple[np.ndarray, np.ndarray]:
        """Certified (top, bottom) of the losses on [a, b] (L is nonincreasing in z)."""
        l_a, m_a = self.loss(a, order)
        l_b, m_b = self.loss(b, order)
        return l_a + m_a, l_b - m_b

    def _connected(self, order: str, width: float, pessimistic: bool,
                   tail: float) -> LossPmf:
        """The connect-the-dots measure of one order (docs/conversions.md#connect-the-dots):
        the x-axis cut where the loss crosses each grid value, each piece's P-mass split
        between the grid values around its losses so that the split keeps its Q-mass."""
        z_lo, z_hi = self._window(order, tail)
        l_top, m_top = self.loss(np.array([z_lo]), order)
        l_bot, m_bot = self.loss(np.array([z_hi]), order)
        k_hi = math.floor(float(l_top[0] - m_top[0]) / width)
        k_lo = math.ceil(float(l_bot[0] + m_bot[0]) / width)
        if k_hi - k_lo > _MAX_CELLS:
            raise PrecisionError(f"PLD discretization={width:g} needs {k_hi - k_lo} cells "
                                 f"for {self.family} noise (limit {_MAX_CELLS})")
        levels = np.arange(k_hi, k_lo - 1, -1, dtype=float) * width
        lo, hi = self._crossings(levels, z_lo, z_hi, order, width)
        # the centres too: Laplace's loss is constant outside them (a flat piece is one
        # atom), and a cut inside a piece keeps both halves within its grid cell
        hull = [c for law in self._mixtures(order) for _, _, c in law]
        edges = np.concatenate(([z_lo], np.stack([lo, hi], axis=1).ravel(), [z_hi]))
        edges = np.maximum.accumulate(edges)
        edges = np.unique(np.concatenate([edges, [c for c in hull if z_lo < c < z_hi]]))
        a, b = edges[:-1], edges[1:]
        # a piece whose losses reach past one grid cell (a crossing not certified on one
        # side, a piece ending on a flat stretch at a grid value): cut it in 64, up to 4
        # times, so that all but tiny-range pieces fit in one cell
        for _ in range(4):
            top, bot = self._range(a, b, order)
            j = np.floor(bot / width - 4 * _U * np.abs(bot / width))
            ceil_top = np.ceil(top / width + 4 * _U * np.abs(top / width))
            bad = (ceil_top - j > 1) & (top - bot > 2e-5 * width) & (b > a)
            # no cuts past _MAX_PIECES more than 8 per cell: where the loss's certified
            # margin is about the width no cut fits a piece in one cell, and four rounds
            # of 64 made 9e7 pieces for 2e3 cells (24 GiB at sigma = 1000, q = 0.1 on a
            # 1e-6 grid); the rest stay wide. (A fine grid needs 2 or 3 per cell.)
            if not np.any(bad) or (a.size + 64 * int(np.count_nonzero(bad))
                                   > _MAX_PIECES + 8 * levels.size):
                break
            cuts = a[bad][:, None] + (b - a)[bad][:, None] * np.linspace(0, 1, 65)[None, :]
            keep_a, keep_b = a[~bad], b[~bad]
            a = np.concatenate([keep_a, cuts[:, :-1].ravel()])
            b = np.concatenate([keep_b, cuts[:, 1:].ravel()])
            order_ = np.argsort(a, kind="stable")
            a, b = a[order_], b[order_]
        top, bot = self._range(a, b, order)
        p_lo, p_hi = self._upper_mass(a, b, order)
        q_lo, q_hi = self._upper_mass(a, b, order, law=1)
        j = np.floor(bot / width - 4 * _U * np.abs(bot / width))
        ceil_top = np.ceil(top / width + 4 * _U * np.abs(top / width))
        fits = (ceil_top - j <= 1) & (p_hi > 0)
        sliver = ~fits & (top - bot <= 2e-5 * width) & (p_hi > 0)
        wide = ~fits & ~sliver & (p_hi > 0)
        sign = 1.0 if pessimistic else -1.0
        span = -math.expm1(-width)
        # pieces within one grid cell [j, j+1]: f = (1 - (Q/P) e^(j width)) / (1 - e^-width)
        # in logs: e^(j width) alone overflows above a loss of 709 (small noise), while
        # Q/P is tiny there; the sum's rounding is covered by `slack`
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            lq_hi, lq_lo, lp_hi, lp_lo = (np.log(v) for v in (q_hi, q_lo, p_hi, p_lo))
            jw = j * width
            size = [finite_abs(v) for v in (lq_hi, lq_lo, lp_hi, lp_lo)]
            slack = 4 * _U * (2 * np.maximum.reduce(size) + np.abs(jw) + 1)
            r_up = np.where(p_lo > 0, np.exp(lq_hi - lp_lo + jw + slack), np.inf)
            r_dn = np.where(p_hi > 0, np.exp(lq_lo - lp_hi + jw - slack), 0.0)
            r_up, r_dn = r_up * (1 + 8 * _U), r_dn * (1 - 8 * _U)
        f_hi = np.clip((1 - r_dn) / span * (1 + 8 * _U), 0.0, 1.0)
        f_lo = np.clip((1 - r_up) / span * (1 - 8 * _U), 0.0, 1.0)
        f = f_hi if pessimistic else f_lo
        mass = p_hi if pessimistic else p_lo
        index = [j[fits], j[fits] + 1]
        masses = [mass[fits] * (1 - f[fits]), mass[fits] * f[fits]]
        # a piece's mass is known within [p_lo, p_hi]: where p_hi / p_lo - 1 <= 1e-9 (the
        # bulk: 3e-13 at sigma = 1) that is a relative error of the split (the lower
        # reading divides by it), else the excess over p_lo counts as moved (as an
        # absolute move, 3e-14 per round of the bulk held the lower end at delta 1e-10,
        # T = 1e4: 3e-10 taken back from every reading); the split's uncertainty
        # f_hi - f_lo shifts the coupling's mean by at most (f_hi - f_lo) width (drift)
        # where it is below 1e-4, else counts as moved
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(p_lo > 0, p_hi / p_lo - 1, np.inf)
        tight = fits & (ratio <= 1e-9)
        # the division's and the split's products' roundings
        relative = float(np.max(ratio[tight], initial=0.0)) * (1 + 1e-9) + 8 * _U
        phi = np.where(fits, f_hi - f_lo, 0.0)
        loose = phi > 1e-4
        moved = (float(np.sum((p_hi - p_lo)[fits & ~tight]))
                 + float(np.sum((p_hi * phi)[loose])))
        split_drift = float(np.max(phi[~loose], initial=0.0)) * width if pessimistic else 0.0
        # slivers: an atom at the top of the piece (upper) or its bottom (lower)
        at = top[sliver] if pessimistic else bot[sliver]
        z = at / width
        z = z + sign * 6 * _U * np.abs(z)
        k = np.floor(z)
        t = (z - k) * width
        fb = np.expm1(-t) / np.expm1(-width)
        fb = np.clip(fb * (1 + sign * 16 * _U), 0.0, 1.0)
        index += [k, k + 1]
        masses += [mass[sliver] * (1 - fb), mass[sliver] * fb]
        moved += float(np.sum((p_hi - p_lo)[sliver]))
        # wider pieces (not expected): rounded up (or down); the lower end undoes them
        index.append(ceil_top[wide] if pessimistic else j[wide])
        masses.append(mass[wide])
        moved += float(np.sum(p_hi[wide]))
        raise_ = float(np.max((top - bot)[sliver], initial=0.0))
        infinity = 0.0
        left_out = self._upper_mass(np.array([-np.inf]), np.array([z_lo]), order)[1][0]
        right_out = self._upper_mass(np.array([z_hi]), np.array([np.inf]), order)[1][0]
        if pessimistic:
            infinity = rounding.up(left_out)
            index.append(np.array([math.ceil(float(l_bot[0] + m_bot[0]) / width)]))
            masses.append(np.array([right_out]))
            moved += left_out + right_out
        # coupling: given the piece, L' is independent of the loss inside it: both vary
        # within one grid cell, a sub-Gaussian proxy of 2 width^2 / 4 (spread 2 width^2)
        return split_pmf(np.concatenate(index), np.concatenate(masses), width, pessimistic,
                         infinity, rounding.up(moved * (1 + 1e-9)),
                         drift=(width * width / 8 + raise_ + split_drift) * (1 + 1e-9),
                         spread=2 * width * width * (1 + 1e-9), relative=relative)

    @property
    def connects(self) -> bool:
        """True: connect-the-dots measures of the pair itself."""
        return True

    @property
    def self_coupled(self) -> bool:
        """True: the upper measure also gives the lower end."""
        return True

    def loss_pmfs(self, width: float, pessimistic: bool, tail: float,
                  connect: bool = False) -> list[LossPmf]:
        """The discretised PLDs, one per order (`orders`).

        Args:
            width: grid width Delta.
            pessimistic: upper (True) or lower (False) measure.
            tail: about the upper mass left outside the x-range (to +inf when pessimistic).
            connect: connect-the-dots measures (`_connected`).

        Returns:
            One `LossPmf` per order.
        """
        tail = min(max(tail, 1e-300), 1e-3)
        if connect:
            return [self._connected(order, width, pessimistic, tail)
                    for order in self.orders()]
        return [self._one(order, width, pessimistic, tail) for order in self.orders()]


# ------------------------------------------------------------------ narrow intervals
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)   # within u of the constant
_SERIES_TERMS = 12


def _cosh_moments(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on S_k(x) = sum_j x^(2j) / ((2j)! (2k + 2j + 1)), |x| <= 1, from 12 terms of
    the series; the rest is at most twice its first term. Then
    int_{-c}^{c} u^(2k) cosh(m u) du = 2 c^(2k+1) S_k(m c)."""
    return _cosh_moments_upto(x, k)[k]


def _cosh_moments_upto(x: np.ndarray, top: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """`_cosh_moments` for k = 0..top at once: the terms x^(2j)/(2j)! do not depend on k,
    so they are formed once (the same operations, the same floats, as one k at a time;
    the per-piece series were a third of a fine-grid Gaussian measure's cost)."""
    x2 = x * x
    terms = []
    term = np.ones(x.shape)       # x^(2j) / (2j)!
    for j in range(_SERIES_TERMS):
        terms.append(term)
        term = term * x2 / ((2 * j + 1) * (2 * j + 2))
        # the rest is at most twice the first omitted term, and each sum is at least
        # 1 / (2k + 1) (its first term): once that term is below 1e-20 the bound widens
        # by under 1e-18 relative. Narrow pieces (|x| ~ 1e-2) need 5 terms, not 12
        # (the series were a quarter of a fine-grid Gaussian measure's cost)
        if float(np.max(term, initial=0.0)) <= 1e-20:
            break
    out = []
    for k in range(top + 1):
        total = np.zeros(x.shape)
        for j, t in enumerate(terms):
            total += t / (2 * k + 2 * j + 1)
        # nonnegative terms summed in order: relative error <= (terms + 2) u, doubled
        low = total * (1 - 2 * (_SERIES_TERMS + 2) * _U)
        out.append((low, total * (1 + 2 * (_SERIES_TERMS + 2) * _U) + 2 * term))
    return out


def _narrow_gauss_mass(m: np.ndarray, mid: np.ndarray,
                       half: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the standard Gaussian mass of [m - c, m + c] (c = half), (0, inf) where
    the series does not apply (c > 1/2, |m c| > 1, |m| > 37).

    With phi the density, the mass is phi(m) int_{-c}^{c} e^(-m u) e^(-u^2/2) du; the odd
    part of e^(-m u) integrates to 0, and with v = u^2/2 >= 0,
    1 - v + v^2/2 - v^3/6 <= e^(-v) <= the same + v^4/24 (Taylor, alternating remainder), so
    the mass lies between phi(m) (J0 - J1/2 + J2/8 - J3/48) and that + phi(m) J4/384,
    J_k = int_{-c}^{c} u^(2k) cosh(m u) du (`_cosh_moments`): a relative width of about
    c^8/3500. Rounding: the shifted midpoint m and the half-width carry the rounding of
    (a + b)/2 - centre and (b - a)/2, which moves the mass by a factor within
    exp(u (|mid| + |m|)(|m| + c)) and 1 + u e^(2 c (|m| + c)) (<= 1 + 13 u here); the
    density's argument m^2/2 is rounded (u m^2 relative through exp); the rest is a few
    u on sums of terms of one sign, or of alternating terms whose sum is at least 0.9 of
    the first (c <= 1/2)."""
    m = np.asarray(m, dtype=float)
    c = np.asarray(half, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.abs(m) * c
        ok = (c <= 0.5) & (x <= 1.0) & (np.abs(m) <= 37.0) & (c >= 0)
    xs = np.where(ok, x, 0.0)
    cs = np.where(ok, c, 0.0)
    ms = np.where(ok, m, 0.0)
    v2 = cs * cs
    low = np.zeros(m.shape)
    high = np.zeros(m.shape)
    coeff = (1.0, -0.5, 0.125, -1.0 / 48)
    power = 2 * cs                  # 2 c^(2k+1)
    moments = _cosh_moments_upto(xs, 4)
    for k, w in enumerate(coeff):
        s_lo, s_hi = moments[k]
        if w > 0:
            low += w * power * s_lo
            high += w * power * s_hi
        else:
            low += w * power * s_hi
            high += w * power * s_lo
        power = power * v2
    s4 = moments[4][1]
    high += power * s4 / 384.0
    dens = np.exp(-0.5 * ms * ms) * _INV_SQRT_2PI
    rel = _U * (64 + 2 * ms * ms + 4 * (np.abs(np.where(ok, mid, 0.0)) + np.abs(ms))
                * (np.abs(ms) + cs))
    lo = np.where(ok, np.maximum(dens * low * (1 - rel), 0.0), 0.0)
    hi = np.where(ok, dens * high * (1 + rel), np.inf)
    return lo, hi


def _widen_ends(lo: np.ndarray, hi: np.ndarray, a: np.ndarray, b: np.ndarray,
                family: str) -> tuple[np.ndarray, np.ndarray]:
    """Widen a mass enclosure of [a, b] for ends that carry a rounding of <= u |end|: the
    mass moves by at most u |end| times the density near the end (the density at the end
    times 1.01, the end's relative move being far below 1/|end|^2)."""
    def edge(z: np.ndarray) -> np.ndarray:
        z = finite_abs(z)
        dens = np.exp(-0.5 * z * z) * _INV_SQRT_2PI if family == "gaussian" else \
            0.5 * np.exp(-z)
        return 1.01 * _U * z * dens

    slack = (edge(a) + edge(b)) * (1 + 4 * _U)
    return np.maximum(lo - slack, 0.0), hi + slack


# ------------------------------------------------------------------ analytic Gaussian
def _gauss_delta_mp(mu: mpmath.mpf, eps: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(delta(eps), error bound) of mu-GDP in 80-digit arithmetic."""
    with mpmath.workdps(80):
        a = mpmath.ncdf(-eps / mu + mu / 2)
        b = mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)
        return max(a - b, mpmath.mpf(0)), (abs(a) + abs(b)) * mpmath.mpf(10) ** -70


def gaussian_delta(mu: float, epsilon: float) -> tuple[float, float]:
    """Lower and upper bounds on delta(eps) of the Gaussian mechanism with mu = sensitivity
    over sigma (Balle-Wang 2018, Thm 8):
    delta = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu).

    Args:
        mu: sensitivity / sigma, > 0 (T Gaussians: the root of the sum of squares).
        epsilon: eps >= 0.

    Returns:
        (lower, upper), floats rounded outwards.

    Raises:
        ParameterError: mu <= 0 or not finite.
    """
    if not 0 < mu < math.inf:
        raise ParameterError(f"mu={mu!r} is outside (0, inf)")
    EPSILON.check(epsilon)
    if epsilon / mu - mu / 2 > 1e6:
        # delta <= Phi(mu/2 - eps/mu) <= e^(-10^12 / 2): below the smallest float (mpmath's
        # erfc overflowed on arguments near 1e300)
        return 0.0, 5e-324
    value, err = _gauss_delta_mp(mpmath.mpf(mu), mpmath.mpf(epsilon))
    return (max(0.0, rounding.down(value - err)), min(1.0, rounding.up(value + err)))


def gaussian_epsilon(mu: float, delta: float) -> tuple[float, float]:
    """Lower and upper bounds on eps(delta) of the Gaussian mechanism (`gaussian_delta`),
    by bisection on the certified delta bounds.

    Args:
        mu: sensitivity / sigma, > 0.
        delta: in (0, 1).

    Returns:
        (lower, upper): delta(upper) <= delta is certified, and delta(lower) > delta unless
        lower is 0.

    Raises:
        ParameterError: mu <= 0 or not finite.
    """
    if not 0 < mu < math.inf:
        raise ParameterError(f"mu={mu!r} is outside (0, inf)")
    DELTA.check(delta)
    if gaussian_delta(mu, 0.0)[1] <= delta:
        return 0.0, 0.0
    hi = max(1.0, mu * mu)
    while gaussian_delta(mu, hi)[1] > delta:
        hi *= 2
    lo = 0.0
    good_lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        d_lo, d_hi = gaussian_delta(mu, mid)
        if d_hi <= delta:
            hi = mid
        else:
            lo = mid
            if d_lo > delta:
                good_lo = mid
        if hi - lo <= 1e-14 * hi:
            break
    return good_lo, rounding.up(hi)


# ------------------------------------------------------------------ RDP curves
def noise_rdp_curve(family: str, scale: float, relation: str,
                    orders: tuple[float, ...] = DEFAULT_ORDERS) -> RdpCurve:
    """The exact RDP curve (rounded up) of one Gaussian or Laplace event without sampling.

    Gaussian: alpha s^2/(2 sigma^2); Laplace with lam = b/s:
    log(alpha/(2 alpha - 1) e^((alpha-1)/lam) + (alpha-1)/(2 alpha - 1) e^(-alpha/lam))
    / (alpha - 1), alpha = inf giving 1/lam ([Mir17] Table II); s = 1 (add/remove) or 2
    (substitute).

    Args:
        family: "gaussian" or "laplace".
        scale: noise_multiplier (> 0).
        relation: "add-remove" or "substitute".
        orders: Renyi orders.

    Returns:
        The curve (kind UPPER: exact values rounded up).

    Raises:
        ParameterError: an unknown family.
    """
    s = sensitivity_factor(relation)
    if family not in FAMILIES:
        raise ParameterError(f"family={family!r} is outside {set(FAMILIES)}")

    def value(alpha: float) -> float:
        with mpmath.workdps(40):
            a = mpmath.mpf(alpha)
            if family == "gaussian":
                if math.isinf(alpha):
                    return math.inf
                v = a * s * s / (2 * mpmath.mpf(scale) ** 2)
            else:
                inv = s / mpmath.mpf(scale)
                if math.isinf(alpha):
                    v = inv
                else:
                    v = mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) * inv)
                                   + (a - 1) / (2 * a - 1) * mpmath.exp(-a * inv)) / (a - 1)
            return rounding.up(v * (1 + mpmath.mpf(10) ** -30))

    return RdpCurve.from_function(value, orders, method=f"composition.noise.noise_rdp_curve("
                                  f"{family}, scale={scale}, relation={relation})",
                                  source=_MIRONOV)


def analytic_source() -> Source:
    """The citation of the analytic Gaussian route.

    Returns:
        The `Source`.
    """
    return _BALLE_WANG
