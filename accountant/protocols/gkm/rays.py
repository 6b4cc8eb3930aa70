"""The GKM view reduced to its rays: the same divergences as the 2-D view, on far fewer atoms
(docs/gkm.md#the-view-on-its-rays).

The 2-D view (`view.view_pair`) is P(a, b) = C r^(a+b) h(a, b) with
h(a, b) = sum_j c_j G(min(a - alpha_j, b - beta_j)). On the point (m + d, m), d >= 0,

    h = H_d(m) = sum_{k1} b(k1) Psi_{m0}(m - s k1 - max(k1 - d, 0)),
    b(k1) = Bin(m1, 1-q)(k1) r^-((2s+1) k1),
    Psi_{m0}(z) = sum_{k0} Bin(m0, 1-q)(k0) r^(-2 s k0) G(z - s k0),

and h(a, b) = H_0(a) on every a < b, H_K(m) on every (m + e, m) with e >= K (K >= every k1
of either law). So the loss is constant on the fibres

    d = 0:        {(m, b): b >= m}                 C r^(2m) / (1 - r)   x H_0(m)
    0 < d < K:    {(m + d, m)}                     C r^(2m + d)          x H_d(m)
    d = K:        {(m + e, m): e >= K}             C r^(2m + K) / (1-r)  x H_K(m)

and the pair of fibre masses is a sufficient statistic: every hockey-stick, Renyi and
max-divergence equals the 2-D view's (the loss is constant on each fibre). (K + 1) L atoms
instead of a box of A^2 points; m runs over [0, L) with L >= B0, and every atom beyond lies
in the box argument's region 1, whose loss the far bound covers (`view`'s docstring).

Cost. Psi_{m0+1}(z) = q Psi_{m0}(z) + (1-q) r^(-2s) Psi_{m0}(z - s): m0 passes over L
entries (one per other user with a zero). The prefix sums A_d = sum_{k1 <= d} b(k1)
Psi(m - s k1) grow by one term per ray, and the suffix sums
B_d(m) = sum_{k1 > d} b(k1) Psi(m + d - (s+1) k1) satisfy
B_(d-1)(m) = b(d) Psi(m - s d - 1) + B_d(m - 1): one pass per ray each. So one count's
view costs about (m0 + 3K) L log-sum-exps, where the 2-D view costs a box per mixture
component ((m1 + 1)(m0 + 1) A^2).

Every entry is a log-sum of positive terms: each step adds at most 4u (|value| + 2) to the
absolute error of a log (the model of `view`), counted per step below.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from accountant.numeric.logspace import logsumexp
from accountant.numeric.rounding import UNIT_ROUNDOFF
from accountant.numeric.special import binomial_logpmf, log_pmf_error
from accountant.protocols.gkm.view import (
    DEFAULT_TAIL,
    box_size,
    log_poisson_cdf,
    sum_tail_bound,
)
from accountant.view import ViewPair

__all__ = ["RayTable", "ray_length", "ray_view_pair", "ray_atoms"]

_STEP = 4 * UNIT_ROUNDOFF
# the faint atoms moved to the residual hold at most this share of the tail asked for (so
# the tail, and a high order's residual term tail e^((alpha-1) B), barely grow)
_SPILL = 1e-3


def ray_length(*, n: int, epsilon_prime: float, s: int, lam: float,
               tail: float = DEFAULT_TAIL) -> tuple[int, int]:
    """(B0, L): the far-region threshold of `view.box_size` and the ray length L >= B0 with
    P[min(V+, V-) >= L] <= P[N + F >= L - s n] <= tail (V- = s T + N- + F, T <= n).

    Args:
        n: number of users.
        epsilon_prime: the noise parameter, > 0.
        s: copies of +1 and -1, >= 0.
        lam: the flood parameter, > 0.
        tail: the allowed mass beyond the rays' end.

    Returns:
        (B0, L) as ints.

    Raises:
        ParameterError: B0 beyond `view.MAX_FAR_REGION` (from `box_size`).
    """
    b0, _ = box_size(n=n, epsilon_prime=epsilon_prime, s=s, lam=lam, tail=1.0)
    r = math.exp(-epsilon_prime)
    length = b0
    while sum_tail_bound(length - s * n, r=r, lam=lam) > tail:
        length += max(8, length // 8)
    return b0, length


@dataclass(frozen=True, slots=True)
class RayTable:
    """What every count's rays share: the log Poisson CDF on [0, L) with its error.

    Attributes:
        n, epsilon_prime, q, s, lam: the protocol's parameters.
        b0, length: the far threshold and the ray length (`ray_length`).
        tail: the certified mass beyond the rays, per law.
        allowed: the tail asked for (atoms fainter than allowed / atoms join the residual).
        log_g, g_err: log G(M) and its absolute error, M = 0..L-1.
    """

    n: int
    epsilon_prime: float
    q: float
    s: int
    lam: float
    b0: int
    length: int
    tail: float
    allowed: float
    log_g: np.ndarray
    g_err: float

    @classmethod
    def build(cls, *, n: int, epsilon_prime: float, q: float, s: int, lam: float,
              tail: float = DEFAULT_TAIL) -> RayTable:
        """The table for these parameters (inputs validated by the callers).

        Args:
            n: number of users.
            epsilon_prime: the noise parameter, > 0.
            q: the drop probability, in [0, 1).
            s: copies of +1 and -1, >= 0.
            lam: the flood parameter, > 0.
            tail: the allowed mass beyond the rays, per law.

        Returns:
            The RayTable (L from `ray_length`, the CDF from `view.log_poisson_cdf`).
        """
        b0, length = ray_length(n=n, epsilon_prime=epsilon_prime, s=s, lam=lam, tail=tail)
        log_g, g_err = log_poisson_cdf(lam * math.exp(2 * epsilon_prime), length - 1)
        r = math.exp(-epsilon_prime)
        return cls(n=n, epsilon_prime=epsilon_prime, q=q, s=s, lam=lam, b0=b0, length=length,
                   tail=sum_tail_bound(length - s * n, r=r, lam=lam), allowed=tail,
                   log_g=log_g,
                   g_err=float(np.max(g_err)))

    def psi(self) -> Iterator[tuple[np.ndarray, float, float]]:
        """Psi_m0 for m0 = 0, 1, 2, ... (without end).

        Psi_0 = G; Psi_(m0+1)(z) = q Psi_m0(z) + (1-q) e^(2 s eps') Psi_m0(z - s).

        Yields:
            (log Psi_m0 on [0, L), a bound on its absolute error, the largest |finite log|
            met so far).
        """
        psi = self.log_g.copy()
        err = self.g_err
        mag = _mag(psi)
        s, q = self.s, self.q
        lift = 2 * s * self.epsilon_prime
        # the constants' own rounding, carried by every step
        if q == 0.0:
            lq, lp, c_err = -math.inf, lift, _STEP * (abs(lift) + 1)
        else:
            lq, lp = math.log(q), math.log1p(-q) + lift
            c_err = _STEP * (abs(lq) + abs(lp) + 2)
        # |log Psi_(m0+1)| <= |log Psi_m0| + max(|lq|, |lp|) + log 2 (a log-sum of two terms)
        grow = max(abs(lq) if q > 0.0 else 0.0, abs(lp)) + math.log(2.0)
        while True:
            yield psi, err, mag
            new = psi + lq if q > 0.0 else np.full_like(psi, -np.inf)
            if s < psi.size:
                np.logaddexp(new[s:], psi[:psi.size - s] + lp, out=new[s:])
            mag += grow
            err = err + c_err + _STEP * (mag + 2)
            psi = new


def _mag(x: np.ndarray) -> float:
    """The largest |finite entry| (0 when none)."""
    finite = x[np.isfinite(x)]
    return float(np.max(np.abs(finite))) if finite.size else 0.0


def _log_b(m1: int, q: float, s: int, epsilon_prime: float) -> tuple[np.ndarray, float]:
    """log b(k1) = log Bin(m1, 1-q)(k1) + (2s+1) eps' k1, k1 = 0..m1, and its error."""
    k = np.arange(m1 + 1)
    if m1 == 0:
        lw = np.zeros(1)
    elif q == 0.0:
        lw = np.where(k == m1, 0.0, -np.inf)
    else:
        lw = binomial_logpmf(k, m1, 1.0 - q)
    tilt = (2 * s + 1) * epsilon_prime * k
    out = lw + tilt
    finite = np.isfinite(lw)
    err = (float(np.max(log_pmf_error(lw[finite]))) if m1 > 0 and q > 0.0 else 0.0)
    err += _STEP * (float(np.max(np.abs(out[finite]))) + float(np.max(tilt)) + 2)
    return out, err


def _rays_of_law(psi: np.ndarray, m1: int, k_top: int, lb: np.ndarray,
                 s: int) -> tuple[np.ndarray, int]:
    """log H_d(m) for d = 0..k_top (rows), m = 0..L-1, of a law with m1 ones (module
    docstring), and the number of sequential log-sum steps any entry went through."""
    length = psi.size
    out = np.full((k_top + 1, length), -np.inf)
    acc = np.full(length, -np.inf)
    for d in range(k_top + 1):  # prefix sums A_d
        if d <= m1 and np.isfinite(lb[d]) and s * d < length:
            np.logaddexp(acc[s * d:], lb[d] + psi[:length - s * d], out=acc[s * d:])
        out[d] = acc
    suffix = np.full(length, -np.inf)
    for d in range(k_top, -1, -1):  # B_d, from B_K = 0 (empty) downwards
        np.logaddexp(out[d], suffix, out=out[d])
        if d == 0:
            break
        moved = np.full(length, -np.inf)
        moved[1:] = suffix[:-1]
        shift = s * d + 1
        if d <= m1 and np.isfinite(lb[d]) and shift < length:
            np.logaddexp(moved[shift:], lb[d] + psi[:length - shift], out=moved[shift:])
        suffix = moved
    return out, 2 * (k_top + 1) + 1


def ray_atoms(table: RayTable, *, ones: int, psi_p: tuple[np.ndarray, float, float],
              psi_q: tuple[np.ndarray, float, float]) -> ViewPair:
    """The ray view of one count from a shared table and the two laws' Psi.

    Args:
        table: the parameters' RayTable.
        ones: ones among the other n - 1 users, in 0..n-1 (not validated here).
        psi_p: Psi_(n-1-ones) as `RayTable.psi` yields it (the law of x1 = 1).
        psi_q: Psi_(n-ones) (the law of x1 = 0).

    Returns:
        The pair `ray_view_pair` describes.
    """
    n, ep, q, s = table.n, table.epsilon_prime, table.q, table.s
    r = math.exp(-ep)
    k_top = ones + 1  # every k1 of either law is <= ones + 1
    laws = ((ones + 1, n - 1 - ones, psi_p), (ones, n - ones, psi_q))
    rays, errs, mags, totals = [], [], [], []
    for m1, m0, (psi, psi_err, psi_mag) in laws:
        lb, lb_err = _log_b(m1, q, s, ep)
        h, steps = _rays_of_law(psi, m1, k_top, lb, s)
        # every partial sum of H lies between one term lb + Psi and m1 + 1 times the largest
        mag = (psi_mag + float(np.max(np.abs(lb[np.isfinite(lb)])))
               + math.log(m1 + 1.0))
        rays.append(h)
        errs.append(psi_err + lb_err + steps * _STEP * (mag + 2))
        mags.append(mag)
        # log S = log sum_j c_j = log sum_k1 b(k1) + m0 log(q + (1-q) e^(2 s eps'))
        lift = 2 * s * ep
        per_zero = lift + math.log1p(-q) if q == 0.0 else float(np.logaddexp(
            math.log(q), math.log1p(-q) + lift))
        log_b_total = logsumexp(lb)
        totals.append((log_b_total + m0 * per_zero,
                       lb_err + (m1 + 2) * _STEP * (abs(log_b_total) + 2)
                       + m0 * _STEP * (abs(per_zero) + 2) + _STEP * m0 * abs(per_zero)))
    h_p, h_q = rays
    err_h = max(errs)
    mag = max(mags)
    length = table.length

    log_r = -ep
    log_w = np.array([d * log_r for d in range(k_top + 1)])
    log_w[0] -= math.log1p(-r)
    log_w[k_top] -= math.log1p(-r)
    log_const = 2 * math.log1p(-r) + table.lam * math.expm1(2 * ep)
    m = np.arange(length)
    scale = log_const + log_w[:, None] + (2 * log_r) * m[None, :]
    log_p = h_p + scale
    log_q = h_q + scale
    scale_mag = abs(log_const) + float(np.max(np.abs(log_w))) + 2 * ep * length + 2
    log_error = err_h + 3 * _STEP * (scale_mag + mag + 2)
    with np.errstate(invalid="ignore"):
        loss = h_p - h_q
    loss = np.where(np.isneginf(h_q) & np.isfinite(h_p), np.inf, loss)
    loss = np.where(np.isneginf(h_p) & np.isfinite(h_q), -np.inf, loss)
    loss_error = 2 * err_h + _STEP * (2 * mag + 2)

    # atoms with m >= L >= B0: region 1 of the box argument (`view`'s docstring)
    m0_arg = table.b0 - (s * n + ones + 1)  # every alpha_j <= s n + ones + 1
    log_g_low = (float(table.log_g[m0_arg]) - table.g_err) if m0_arg >= 0 else -math.inf
    (tot_p, e_p), (tot_q, e_q) = totals
    far = tot_p - tot_q
    far_err = e_p + e_q + _STEP * (abs(tot_p) + abs(tot_q) + 2)
    sup_pq = far - log_g_low + far_err
    sup_qp = -far - log_g_low + far_err

    # atoms below _SPILL allowed / atoms in both laws join the residual (that much in all,
    # their largest loss joins the residual's bound): the rays run far beyond the bulk
    # (L >= B0), and the PLD and Renyi passes would otherwise read millions of atoms of
    # mass 1e-300
    spill_total = table.allowed * _SPILL
    cut = math.log(spill_total) - math.log(log_p.size)
    # both -inf included; a one-sided -inf (a support mismatch: an infinite loss) is kept
    faint = (log_p < cut) & (log_q < cut) & (np.isneginf(log_p) == np.isneginf(log_q))
    tail_p, tail_q = table.tail, table.tail
    if np.any(faint):
        # each faint atom is below e^(cut + log_error) in either law: spill_total in all
        spill = spill_total * (1 + 2 * log_error + 1e-12)
        tail_p += spill
        tail_q += spill
        faint_loss = loss[faint]
        faint_loss = faint_loss[~np.isnan(faint_loss)]  # (both -inf: no loss)
        if faint_loss.size:
            sup_pq = max(sup_pq, float(np.max(faint_loss)) + loss_error)
            sup_qp = max(sup_qp, float(np.max(-faint_loss)) + loss_error)
    keep = ~faint.ravel()
    coords = np.meshgrid(np.arange(k_top + 1), m, indexing="ij")
    desc: dict[str, Any] = {
        "protocol": "GKM counting view on its rays (d, m)", "n": n, "ones_among_others": ones,
        "epsilon_prime": ep, "q": q, "s": s, "lam": table.lam, "ray_length": length,
        "far_threshold": table.b0, "outside_loss_sup": {"P||Q": sup_pq, "Q||P": sup_qp},
        "P": "x1 = 1", "Q": "x1 = 0"}
    return ViewPair(backend="float", p=log_p.ravel()[keep], q=log_q.ravel()[keep],
                    tail_p=tail_p, tail_q=tail_q,
                    residual_loss_bound=max(sup_pq, sup_qp), loss=loss.ravel()[keep],
                    log_error=log_error, loss_error=loss_error, grid_exact=True,
                    coords=tuple(c.ravel()[keep] for c in coords), description=desc)


def ray_view_pair(*, n: int, ones: int, epsilon_prime: float, q: float, s: int, lam: float,
                  tail: float = DEFAULT_TAIL,
                  description: dict[str, Any] | None = None) -> ViewPair:
    """The pair (x1 = 1, x1 = 0) with `ones` ones among the other n - 1 users, on its rays.

    Its atoms are the fibres of the module docstring: every divergence equals the 2-D
    view's (`view.view_pair`; the tests compare them), with no box, so it scales to the
    far regions (lam, s n) the box refuses. Parameters are validated by the callers.

    Args:
        n: number of users, >= 1.
        ones: ones among the other n - 1 users, in 0..n-1.
        epsilon_prime: the noise parameter, > 0.
        q: the drop probability, in [0, 1).
        s: copies of +1 and -1, >= 0.
        lam: the flood parameter, > 0.
        tail: the certified mass allowed beyond the rays, per law.
        description: entries merged into the pair's description.

    Returns:
        A float ViewPair (grid exact, coords (d, m)); description["outside_loss_sup"] holds
        the far bound of each order, as `view.pure_epsilon` reads it.

    Raises:
        ParameterError: the far region beyond `view.MAX_FAR_REGION`.
    """
    table = RayTable.build(n=n, epsilon_prime=epsilon_prime, q=q, s=s, lam=lam, tail=tail)
    wanted = {n - 1 - ones, n - ones}
    found = {}
    for m0, item in enumerate(table.psi()):
        if m0 in wanted:
            found[m0] = item
        if m0 >= n - ones:
            break
    pair = ray_atoms(table, ones=ones, psi_p=found[n - 1 - ones], psi_q=found[n - ones])
    if description:
        from dataclasses import replace
        pair = replace(pair, description=dict(pair.description) | description)
    return pair
