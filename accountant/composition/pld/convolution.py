"""Composition of two discretised measures (convolution, +inf absorbing) and truncation,
each with its certified ledger (docs/conversions.md#certified-pld-engine).

- **FFT error.** Each convolution is a zero-padded linear convolution by numpy's real FFT of
  a power-of-two length L (no periodisation: nothing wraps around). Its round-off is
  bounded in the 2-norm by Higham's FFT bound (Accuracy and Stability of Numerical
  Algorithms, 2nd ed., Thm 24.2) propagated through the product (`fft_error_bound`) and
  turned into an l1 bound by Cauchy-Schwarz; negative entries are clipped to 0 (which
  cannot move an entry further from a nonnegative truth).
- **Error ledger.** `LossPmf.error` bounds the l1 distance between the stored arrays (and
  atom) and the exact measure they stand for. Composition is bilinear, so
  E(a*b) <= E_a |b|_1 + (|a|_1 + E_a) E_b + FFT error + rounding of the atom. Since
  0 <= (1 - e^(eps - s))_+ <= 1, a ledger E moves H by at most E: it is added to upper
  values and subtracted from lower ones.
- **Truncation.** Between convolutions, tails whose stored mass is below a threshold are
  moved in the safe direction (pessimistic: right tail to +inf, left tail up to the first
  kept loss; optimistic: right tail down to the last kept loss, left tail dropped).
  Connect-the-dots measures drop them into the ledger instead.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from accountant.composition.pld.measure import LossPmf, tilt_plus
from accountant.errors import ParameterError
from accountant.numeric import rounding

_U = rounding.UNIT_ROUNDOFF


def fft_error_bound(length: int, norms_a: tuple[float, float],
                    norms_b: tuple[float, float]) -> float:
    """Bound on ||computed - exact||_2 of the linear convolution a * b by
    irfft(rfft(a, L) rfft(b, L), L), L a power of two.

    Higham (2nd ed., Thm 24.2): a computed radix-2 FFT of x has 2-norm error at most
    log2(L) eta / (1 - log2(L) eta) * ||F x||_2 with eta = mu + gamma_4 (sqrt 2 + mu), mu the
    twiddle factors' error (we take mu = u). With ||F x||_2 = sqrt(L) ||x||_2,
    ||F x||_inf <= ||x||_1, a complex product's error <= sqrt(2) gamma_2 and the inverse's
    1/L (exact for a power of two), the convolution's 2-norm error is at most
    (3 e_L + 4u) max(|a|_2 |b|_1, |a|_1 |b|_2) to first order, e_L = the FFT's relative
    bound; a factor 1.01 covers the second-order terms.

    Args:
        length: the FFT length L (a power of two).
        norms_a, norms_b: (l1 norm, l2 norm) of each input.

    Returns:
        The 2-norm bound.
    """
    scale = max(norms_a[1] * norms_b[0], norms_a[0] * norms_b[1])
    return 1.01 * (3 * fft_relative(length) + 4 * _U) * scale


def sum_squares(x: np.ndarray) -> float:
    """sum x_i^2 without BLAS: OpenBLAS's threaded dot spent 0.1 s of a second core's CPU
    spinning in a 0.28 s call (sigma = 1, q = 0.01, T = 1e4) for no wall-clock gain. The
    callers multiply the norm by 1.001, far above this sum's rounding."""
    return float(np.einsum("i,i->", x, x))


def fft_relative(length: int) -> float:
    """Higham's relative 2-norm bound e_L of a computed radix-2 FFT of length L
    (`fft_error_bound`)."""
    stages = max(1, int(math.ceil(math.log2(length))))
    gamma4 = 4 * _U / (1 - 4 * _U)
    eta = _U + gamma4 * (math.sqrt(2) + _U)
    return stages * eta / (1 - stages * eta)


_DIRECT_WORK = 30_000_000


def convolve(a: LossPmf, b: LossPmf) -> LossPmf:
    """The composition of two measures (convolution, +inf absorbing), with its ledger.

    Inputs that are not both dense connect-the-dots measures are convolved directly when
    size(a) x size(b) <= 3e7 (numpy's convolution) or nonzeros(a) x nonzeros(b) <= 3e7 (a
    loop over the sparser input's nonzeros): each output is a sum of at most min(sizes),
    resp. min(nonzeros), nonnegative products, a relative error (kept in `relative`, which
    keeps tiny tails accurate). Others go through the FFT, whose round-off
    (`fft_error_bound`) enters the absolute ledger.

    Raises:
        ParameterError: grids of different widths or directions.
    """
    if a.width != b.width or a.pessimistic != b.pessimistic:
        raise ParameterError("composed PLDs need the same grid width and direction")
    size = a.mass.size + b.mass.size - 1
    # connect-the-dots measures are dense on their grid (the FFT is far cheaper than a
    # loop over nonzeros) and are used where an absolute round-off is affordable;
    # rounded measures of few atoms stay sparse and keep a relative error
    dense = (0 < a.spread < math.inf or 0 < b.spread < math.inf) and \
        min(a.mass.size, b.mass.size) > 64
    direct = full = False
    if not dense:
        full = a.mass.size * b.mass.size <= _DIRECT_WORK
        if not full:
            nz_a, nz_b = np.flatnonzero(a.mass), np.flatnonzero(b.mass)
            direct = nz_a.size * nz_b.size <= _DIRECT_WORK
    if full:
        # numpy's direct convolution (a C loop; 20x faster than a Python loop over the
        # nonzeros at 5,500 entries each, the T = 1e4 shuffle round's lower pair): each
        # output is a sum of at most min(sizes) nonnegative products, in some order
        terms = max(1, min(a.mass.size, b.mass.size))
        out = np.convolve(a.mass, b.mass)
        op_rel = 2 * (terms + 1) * _U
        fft_l1 = 0.0
    elif direct:
        terms = max(1, min(nz_a.size, nz_b.size))
        out = np.zeros(size)
        small, large = (nz_a, nz_b) if nz_a.size <= nz_b.size else (nz_b, nz_a)
        ms, ml = (a.mass, b.mass) if nz_a.size <= nz_b.size else (b.mass, a.mass)
        for i in small:  # sparse inputs: one shifted, scaled copy per small nonzero
            out[i + large] += ms[i] * ml[large]
        op_rel = 2 * (terms + 1) * _U
        fft_l1 = 0.0
    else:
        length = 1 << (size - 1).bit_length()
        # numpy's pocketfft at a power-of-two length; a squaring transforms its input once
        spectrum = np.fft.rfft(a.mass, length)
        if b is a:
            spectrum *= spectrum
        else:
            spectrum *= np.fft.rfft(b.mass, length)
        out = np.fft.irfft(spectrum, length)[:size]
        norms_a = (float(np.sum(a.mass)) * 1.001,
                   math.sqrt(sum_squares(a.mass)) * 1.001)
        norms_b = norms_a if b is a else (float(np.sum(b.mass)) * 1.001,
                                          math.sqrt(sum_squares(b.mass)) * 1.001)
        fft_l1 = math.sqrt(size) * fft_error_bound(length, norms_a, norms_b)
        np.maximum(out, 0.0, out=out)
        op_rel = 0.0
    fa = float(np.sum(a.mass))
    fb = fa if b is a else float(np.sum(b.mass))
    infinity = a.infinity * (fb + b.infinity) + fa * b.infinity
    # the atom's sums: relative error of the pairwise sums plus a few products
    op_rel = max(op_rel, 2 * rounding.sum_relative_error(max(a.mass.size, b.mass.size))
                 + 8 * _U)
    ta, tb = a.total, b.total
    nu_a = (ta + a.error) / (1 - a.relative)  # bound on |nu_a|_1
    error = (a.error * tb + (1 + a.relative) * nu_a * b.error) * (1 + op_rel) + fft_l1
    relative = (1 + a.relative) * (1 + b.relative) * (1 + op_rel) - 1
    # a move in one factor changes H of the product by at most the move times the other
    # factor's total mass (H of a product is the other factor's average of shifted H's)
    nu_b = (tb + b.error) / (1 - b.relative)
    moved = (a.moved * nu_b + nu_a * b.moved) * (1 + 4 * _U)
    return LossPmf(a.width, a.offset + b.offset, out, rounding.up(infinity),
                   rounding.up(error), a.pessimistic, rounding.up(relative * (1 + 4 * _U)),
                   moved=rounding.up(moved), drift=rounding.up(a.drift + b.drift),
                   spread=rounding.up(a.spread + b.spread))


def truncate(pmf: LossPmf, tail: float) -> LossPmf:
    """Move tails of stored mass <= tail each in the safe direction (module docstring); a
    connect-the-dots upper measure (read from both sides) drops them into its ledger."""
    probs = pmf.mass
    if probs.size <= 2 or tail <= 0:
        return pmf
    left = np.cumsum(probs)
    right = np.cumsum(probs[::-1])
    first = int(np.searchsorted(left, tail, side="right"))
    last = probs.size - 1 - int(np.searchsorted(right, tail, side="right"))
    if first >= last:
        return pmf
    kept = probs[first:last + 1].copy()
    left_mass = float(left[first - 1]) if first > 0 else 0.0
    right_mass = float(right[probs.size - 2 - last]) if last + 1 < probs.size else 0.0
    if (pmf.pessimistic and math.isfinite(pmf.spread)) or pmf.tilt is not None:
        # a measure read from both sides (connect-the-dots), or a tilted one (upper or
        # lower: a move would spend its total ledger, about 1, on `moved` and lose the
        # positional one; a lower end of 0 at delta 1e-8 for shuffle rounds that the
        # untilted measure put at 1.258): the tails are dropped and their
        # stored mass enters the absolute ledger. With s = nu (1 + theta) + e, the dropped
        # entries' new errors -nu (1 + theta) sum to at most their stored mass plus their old
        # errors, which the ledger already holds; both readings pay the stored tail once.
        # (Moving them instead costs the lower reading the exact tail mass, bounded only by
        # the stored mass plus the WHOLE ledger, at every truncation: 8e-7 of moved mass at
        # T = 1e4, delta = 1e-5, a 1 % lower end; issue 21.)
        if left_mass == 0 and right_mass == 0:
            return replace(pmf, offset=pmf.offset + first, mass=kept)
        dropped = (left_mass + right_mass) * (1 + 2 * rounding.sum_relative_error(probs.size))
        return replace(pmf, offset=pmf.offset + first, mass=kept,
                       error=rounding.up((pmf.error + dropped) * (1 + 2 * _U)),
                       tilt=tilt_plus(pmf.tilt, dropped))
    infinity = pmf.infinity
    if pmf.pessimistic:
        kept[0] += left_mass
        infinity = rounding.up(infinity + right_mass)
    else:
        kept[-1] += right_mass
    # the two partial sums are within sum_relative_error of the moved entries; the one
    # addition into the kept end entry multiplies that entry (true part and error part) by
    # 1 + theta, |theta| <= u: one u more in the relative ledger (a measure with relative = 0
    # had no slack for it; found by the mutation run)
    moved = (left_mass + right_mass) * rounding.sum_relative_error(probs.size) * 2
    return replace(pmf, offset=pmf.offset + first, mass=kept, infinity=infinity,
                   # the exact measure's moved part: <= (stored moved + ledger) / (1 - rel)
                   moved=rounding.up(pmf.moved + (left_mass + right_mass + pmf.error)
                                     / (1 - pmf.relative)
                                     * (1 + 2 * rounding.sum_relative_error(probs.size)
                                        + 8 * _U)),
                   relative=rounding.up(pmf.relative + _U * (1 + pmf.relative)),
                   error=rounding.up((pmf.error + moved + 4 * _U * (left_mass + right_mass))
                                     * (1 + _U)), tilt=None)
