"""Noise laws of a local randomizer Y = x + noise on inputs x in {0, 1}.

A law here is a symmetric, unimodal noise distribution whose likelihood ratio
f_0(y)/f_1(y) = exp(log_ratio(y)) is nonincreasing in y (true for Gaussian and Laplace
noise, docs/continuous-randomizers.md#the-laws). The blanket bound and the threshold lower
end need only its distribution function and that log-ratio; their float evaluations follow
the stated error model `CDF_RELATIVE_ERROR`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

__all__ = ["NoiseLaw", "GaussianLaw", "LaplaceLaw", "DiscreteGaussianLaw", "DiscreteLaplaceLaw",
           "CDF_RELATIVE_ERROR"]

# Stated model: a float CDF value is within this relative error of the true CDF at the
# float argument given, for values above 1e-290 (arguments within 36 scales for Gaussian
# noise). The rounding of y/sigma alone costs
# about u x^2 relative (2e-13 at x = 35, the measured worst in the tests against 50-digit
# mpmath), hence the margin of 5 there and of 1000 in the bulk.
CDF_RELATIVE_ERROR = 1e-12


@dataclass(frozen=True, slots=True)
class NoiseLaw:
    """Base record of a noise law with one scale parameter.

    Attributes:
        scale: the law's scale (the Gaussian's sigma, the Laplace law's b).
    """

    scale: float

    name = "noise"
    integer = False  # outputs on the integers (the blanket grid then cuts between them)

    def cdf(self, y: np.ndarray) -> np.ndarray:
        """P(noise <= y), elementwise.

        Args:
            y: points (any shape).

        Returns:
            The distribution function at y (relative error `CDF_RELATIVE_ERROR`).
        """
        raise NotImplementedError

    def log_ratio(self, y: np.ndarray) -> np.ndarray:
        """log f_0(y)/f_1(y) (input 0 against input 1), nonincreasing in y.

        Args:
            y: output points.

        Returns:
            The log likelihood ratio (absolute error <= 4 u (1 + |value|)).
        """
        raise NotImplementedError

    def blanket_mass(self) -> float:
        """gamma = integral of min(f_0, f_1) = 2 P(noise <= -1/2) (symmetric noise).

        Returns:
            gamma rounded to nearest (the callers widen it by `CDF_RELATIVE_ERROR`).
        """
        return float(2.0 * self.cdf(np.array(-0.5)))

    def chi_square(self) -> float:
        """chi^2(f_1 || f_0) = E_0[(f_1/f_0)^2] - 1: the special pair's asymptotic scale
        (its privacy loss is close to Gaussian with variance chi^2/n).

        Returns:
            The chi-square divergence between the two output laws (a float evaluation; on
            the integers by summation, continuous laws give a closed form).
        """
        if self.integer:
            return _chi_square_sum(self)
        raise NotImplementedError

    def shuffle_index(self) -> float:
        """kappa = int (f_0 - f_1)^2 / min(f_0, f_1): the blanket pair's asymptotic scale
        (its privacy loss is close to Gaussian with variance kappa/n;
        docs/continuous-randomizers.md#shuffle-index). kappa >= chi^2.

        Returns:
            kappa (a float evaluation, not a certified bound; on the integers by summation).
        """
        if self.integer:
            return _shuffle_index_sum(self)
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class GaussianLaw(NoiseLaw):
    """Gaussian noise N(0, sigma^2); scale = sigma."""

    name = "gaussian"

    def cdf(self, y: np.ndarray) -> np.ndarray:
        """Phi(y / sigma) (scipy's ndtr).

        Args:
            y: points.

        Returns:
            The distribution function at y.
        """
        return np.asarray(ndtr(np.asarray(y, dtype=float) / self.scale))

    def log_ratio(self, y: np.ndarray) -> np.ndarray:
        """(1 - 2 y) / (2 sigma^2).

        Args:
            y: output points.

        Returns:
            log f_0(y)/f_1(y).
        """
        return (1.0 - 2.0 * np.asarray(y, dtype=float)) / (2.0 * self.scale ** 2)

    def chi_square(self) -> float:
        """e^(1/sigma^2) - 1.

        Returns:
            chi^2 of N(1, sigma^2) against N(0, sigma^2).
        """
        return math.expm1(1.0 / self.scale ** 2)

    def shuffle_index(self) -> float:
        """2 (e^(1/s^2) Phi(3/(2s)) - 2 Phi(1/(2s)) + Phi(-1/(2s))), s = sigma: on y < 1/2
        the minimum is f_1 and f_0^2/f_1 = e^(1/s^2) times the N(-1, s^2) density.

        Returns:
            kappa for Gaussian noise.
        """
        s = self.scale
        phi = ndtr
        return float(2.0 * (math.exp(1.0 / s ** 2) * phi(1.5 / s) - 2.0 * phi(0.5 / s)
                            + phi(-0.5 / s)))


@dataclass(frozen=True, slots=True)
class LaplaceLaw(NoiseLaw):
    """Laplace noise, density e^(-|y|/b)/(2b); scale = b. The randomizer is (1/b)-LDP."""

    name = "laplace"

    def cdf(self, y: np.ndarray) -> np.ndarray:
        """e^(y/b)/2 below 0, 1 - e^(-y/b)/2 above.

        Args:
            y: points.

        Returns:
            The distribution function at y.
        """
        y = np.asarray(y, dtype=float)
        half = 0.5 * np.exp(-np.abs(y) / self.scale)
        return np.where(y < 0, half, 1.0 - half)

    def log_ratio(self, y: np.ndarray) -> np.ndarray:
        """(|y - 1| - |y|) / b, in [-1/b, 1/b].

        Args:
            y: output points.

        Returns:
            log f_0(y)/f_1(y).
        """
        y = np.asarray(y, dtype=float)
        return (np.abs(y - 1.0) - np.abs(y)) / self.scale

    def chi_square(self) -> float:
        """(2/3) e^(1/b) + (1/3) e^(-2/b) - 1 (integrate (f_1/f_0)^2 f_0 piecewise).

        Returns:
            chi^2 of Laplace(1, b) against Laplace(0, b).
        """
        b = self.scale
        return 2.0 / 3.0 * math.exp(1.0 / b) + math.exp(-2.0 / b) / 3.0 - 1.0

    def shuffle_index(self) -> float:
        """Twice the left half: on y < 0 the ratio f_0/f_1 is e^(1/b) (f_1-mass e^(-1/b)/2),
        on 0 < y < 1/2 it is e^((1 - 2y)/b) with f_1 = e^(-(1-y)/b)/(2b); the second piece
        integrates in closed form (exponentials).

        Returns:
            kappa for Laplace noise.
        """
        b = self.scale
        first = 0.5 * math.exp(-1.0 / b) * math.expm1(1.0 / b) ** 2
        # int_0^{1/2} f_1 (e^{(1-2y)/b} - 1)^2 dy
        #   = (1/(2b)) int_0^{1/2} (e^{(1-3y)/b} - 2 e^{-y/b} + e^{-(1-y)/b}) dy
        e1 = (math.exp(1.0 / b) - math.exp(-0.5 / b)) * b / 3.0
        e2 = 2.0 * b * -math.expm1(-0.5 / b)
        e3 = b * (math.exp(-0.5 / b) - math.exp(-1.0 / b))
        return 2.0 * (first + (e1 - e2 + e3) / (2.0 * b))


@dataclass(frozen=True, slots=True)
class DiscreteLaplaceLaw(NoiseLaw):
    """Discrete Laplace noise on the integers, P(k) = (1 - p)/(1 + p) p^|k|, p = e^(-1/b);
    scale = b. The randomizer is (1/b)-LDP. `log_ratio` is the Laplace formula, exact at the
    integers and monotone between them (all the blanket bound needs)."""

    name = "discrete-laplace"
    integer = True

    def cdf(self, y: np.ndarray) -> np.ndarray:
        """P(noise <= floor(y)): p^|k|/(1 + p) for k = floor(y) < 0, 1 - p^(k+1)/(1 + p)
        for k >= 0.

        Args:
            y: points.

        Returns:
            The distribution function at y.
        """
        k = np.floor(np.asarray(y, dtype=float))
        p = math.exp(-1.0 / self.scale)
        neg = np.exp(-np.abs(k) / self.scale) / (1.0 + p)
        pos = 1.0 - np.exp(-(np.maximum(k, 0.0) + 1.0) / self.scale) / (1.0 + p)
        return np.where(k < 0, neg, pos)

    def log_ratio(self, y: np.ndarray) -> np.ndarray:
        """(|y - 1| - |y|) / b.

        Args:
            y: output points.

        Returns:
            log f_0(y)/f_1(y) at integers (its monotone interpolation elsewhere).
        """
        y = np.asarray(y, dtype=float)
        return (np.abs(y - 1.0) - np.abs(y)) / self.scale


@dataclass(frozen=True, slots=True)
class DiscreteGaussianLaw(NoiseLaw):
    """Discrete Gaussian noise on the integers, P(k) proportional to e^(-k^2/(2 sigma^2));
    scale = sigma (Canonne, Kamath, Steinke, NeurIPS 2020). Its CDF is a sum of the PMF
    over |k| <= 40 sigma + 40 (the mass beyond is below e^-800, under the float range)."""

    name = "discrete-gaussian"
    integer = True

    def _table(self) -> tuple[np.ndarray, np.ndarray]:
        top = math.ceil(40.0 * self.scale) + 40
        ks = np.arange(-top, top + 1, dtype=float)
        w = np.exp(-ks * ks / (2.0 * self.scale ** 2))
        # cumulative sums of positive terms from the left tail: relative error <= len * u
        return ks, np.cumsum(w) / np.sum(w)

    def cdf(self, y: np.ndarray) -> np.ndarray:
        """P(noise <= floor(y)) by summation (relative error <= 2 * 81 sigma * u, within
        `CDF_RELATIVE_ERROR` for sigma <= 100).

        Args:
            y: points.

        Returns:
            The distribution function at y.
        """
        ks, cum = self._table()
        k = np.floor(np.asarray(y, dtype=float))
        idx = np.clip(k - ks[0], -1, ks.size - 1).astype(np.int64)
        return np.where(idx < 0, 0.0, cum[np.maximum(idx, 0)])

    def log_ratio(self, y: np.ndarray) -> np.ndarray:
        """(1 - 2 y) / (2 sigma^2).

        Args:
            y: output points.

        Returns:
            log f_0(y)/f_1(y) at integers (its linear interpolation elsewhere).
        """
        return (1.0 - 2.0 * np.asarray(y, dtype=float)) / (2.0 * self.scale ** 2)


def _pmfs(law: NoiseLaw) -> tuple[np.ndarray, np.ndarray]:
    top = math.ceil(40.0 * law.scale) + 40
    ks = np.arange(-top, top + 2, dtype=float)
    f0 = law.cdf(ks) - law.cdf(ks - 1.0)
    f1 = law.cdf(ks - 1.0) - law.cdf(ks - 2.0)
    return f0, f1


def _chi_square_sum(law: NoiseLaw) -> float:
    f0, f1 = _pmfs(law)
    keep = f0 > 0
    return float(np.sum(f1[keep] ** 2 / f0[keep]) - 1.0)


def _shuffle_index_sum(law: NoiseLaw) -> float:
    f0, f1 = _pmfs(law)
    low = np.minimum(f0, f1)
    keep = low > 0
    return float(np.sum((f0[keep] - f1[keep]) ** 2 / low[keep]))
