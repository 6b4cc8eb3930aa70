"""A local randomizer as a row-stochastic matrix R(y|x), and the common ones built by name.

The matrix is stored exactly: every entry is a `Fraction`, each row divided by its own sum,
so the rows sum to exactly 1 and the randomizer the library accounts for is a definite
mathematical object (a float matrix given by a user is read as the exact rationals its
floats denote, then normalised; the change is below 1e-9 per row by validation). Float
views of it (`array`) carry a relative error of at most one unit roundoff per entry.

Exact quantities (docs/clones-and-blankets.md#blanket-decomposition):

- epsilon0 = max over outputs y and inputs x, x' of log R(y|x)/R(y|x') (+inf when a column
  has both zero and nonzero entries), with the (x, x', y) attaining it;
- the blanket mass gamma = sum_y min_x R(y|x).
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from accountant.domains import EPSILON0
from accountant.errors import ParameterError
from accountant.numeric.rounding import down, up

__all__ = [
    "Randomizer",
    "binary_rr",
    "hadamard_response",
    "k_rr",
    "local_hashing",
    "subset_selection",
    "unary_encoding",
    "MAX_OUTPUTS",
]

# Largest output alphabet a constructor builds (unary encoding has 2^k outputs).
MAX_OUTPUTS = 4096



# relative allowance for the 50-digit log below: its own rounding is ~1e-49 relative
_LOG_SLACK = mpmath.mpf(10) ** -45


def _log_ratio(ratio: Fraction, side: int) -> mpmath.mpf:
    """log(ratio) >= 0 at 50 digits, moved by _LOG_SLACK relative to the side asked (+1 above
    the truth, -1 below), through log1p of ratio - 1 taken exactly: log of the rounded
    quotient lost the digits of a ratio within 1e-34 of 1 (epsilon0 4e-34 came out
    3.999999957e-34, below the truth)."""
    with mpmath.workdps(50):
        x = mpmath.mpf(ratio.numerator - ratio.denominator) / ratio.denominator
        return mpmath.log1p(x) * (1 + side * _LOG_SLACK)

@dataclass(frozen=True, eq=False)
class Randomizer:
    """A local randomizer: inputs x = 0..k-1, outputs y = 0..m-1, R(y|x) = `rows[x][y]`.

    Build it with `Randomizer.from_rows` (validates) or a named constructor.

    Attributes:
        rows: the exact matrix, a tuple of k tuples of m Fractions, each row summing to 1.
        name: what it is ("k-RR(k=4, epsilon0=1)", "user matrix", ...).
        source: where its definition comes from (paper), or "" for a user's matrix.
        labels: optional output labels (e.g. bit strings of unary encoding).
    """

    rows: tuple[tuple[Fraction, ...], ...]
    name: str = "user matrix"
    source: str = ""
    labels: tuple[str, ...] = field(default=())

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_rows(cls, rows: Any, *, name: str = "user matrix", source: str = "",
                  tolerance: float = 1e-9, labels: Sequence[str] = ()) -> Randomizer:
        """Validate a matrix (inputs x outputs) and normalise each row exactly.

        Args:
            rows: a 2-D sequence (or array) of probabilities; floats, ints or Fractions.
            name: a label for reports.
            source: the citation of the randomizer's definition.
            tolerance: how far a row sum may be from 1 (exactly 1 is then enforced by
                dividing each row by its exact sum).
            labels: optional names of the outputs.

        Returns:
            The validated `Randomizer`.

        Raises:
            ParameterError: naming the offending entry or row: not a 2-D array, fewer than
                2 inputs or 1 output, ragged rows, an entry not a finite number in [0, 1],
                a row sum outside [1 - tolerance, 1 + tolerance], a positive entry below
                the float range (5e-324 after normalisation).
        """
        if isinstance(rows, np.ndarray):
            rows = rows.tolist()
        if isinstance(rows, str | bytes) or not isinstance(rows, Sequence) or not rows:
            raise ParameterError(f"matrix={_short(rows)} is not a non-empty 2-D array "
                                 "(inputs x outputs)")
        out: list[tuple[Fraction, ...]] = []
        width = None
        for i, row in enumerate(rows):
            if isinstance(row, np.ndarray):
                row = row.tolist()
            if isinstance(row, str | bytes) or not isinstance(row, Sequence) or not row:
                raise ParameterError(f"matrix row {i}={_short(row)} is not a non-empty list "
                                     "of probabilities")
            if width is None:
                width = len(row)
            elif len(row) != width:
                raise ParameterError(f"matrix row {i} has {len(row)} entries, outside "
                                     f"[{width}, {width}] (row 0 has {width})")
            exact = []
            for j, v in enumerate(row):
                if isinstance(v, bool) or not isinstance(v, numbers.Real):
                    raise ParameterError(f"matrix[{i}][{j}]={v!r} is not a real number; "
                                         "valid range [0, 1]")
                if isinstance(v, float) and not math.isfinite(v):
                    raise ParameterError(f"matrix[{i}][{j}]={v!r} is outside [0, 1]")
                f = _exact(v)
                if f < 0 or f > 1:
                    raise ParameterError(f"matrix[{i}][{j}]={v!r} is outside [0, 1]")
                exact.append(f)
            total = sum(exact, Fraction(0))
            if abs(total - 1) > Fraction(tolerance):
                raise ParameterError(f"matrix row {i} sums to {float(total)!r}, outside "
                                     f"[1 - {tolerance:g}, 1 + {tolerance:g}]")
            row_out = tuple(x / total for x in exact)
            for j, x in enumerate(row_out):
                # the float engines would read such an entry as an impossible output (an
                # infinite ratio where the truth is finite: lower ends above the truth)
                if x > 0 and float(x) == 0.0:  # rounds to 0: below half of 5e-324
                    raise ParameterError(
                        f"matrix[{i}][{j}]=~1e-{len(str(x.denominator)) - len(str(x.numerator))}"
                        " (normalised) is positive but below "
                        "the float range [5e-324, 1]; write 0 if the output is impossible")
            out.append(row_out)
        if len(out) < 2:
            raise ParameterError(f"matrix has {len(out)} input row(s), outside [2, inf) "
                                 "(a neighbouring pair needs two inputs)")
        if labels and len(labels) != width:
            raise ParameterError(f"labels has {len(labels)} entries, outside "
                                 f"[{width}, {width}] (one per output)")
        return cls(rows=tuple(out), name=name, source=source, labels=tuple(labels))

    # ------------------------------------------------------------------ shape
    @property
    def inputs(self) -> int:
        """k, the number of inputs (rows)."""
        return len(self.rows)

    @property
    def outputs(self) -> int:
        """m, the number of outputs (columns)."""
        return len(self.rows[0])

    @property
    def array(self) -> np.ndarray:
        """The matrix as float64 (each entry the nearest float to the exact value)."""
        return np.array([[float(v) for v in row] for row in self.rows])

    def column(self, y: int) -> tuple[Fraction, ...]:
        """R(y|x) for x = 0..k-1."""
        return tuple(row[y] for row in self.rows)

    # ------------------------------------------------------------------ exact numbers
    def max_ratio(self) -> tuple[Fraction | float, int, int, int]:
        """(max R(y|x)/R(y|x'), x, x', y) over all outputs and ordered input pairs.

        Returns:
            The largest ratio (a Fraction >= 1, or math.inf when some column has a zero
            and a nonzero entry) and the first (x, x', y) attaining it.
        """
        best: Fraction | float = Fraction(1)
        where = (0, 1, 0)
        for y in range(self.outputs):
            col = self.column(y)
            hi = max(range(self.inputs), key=lambda x: col[x])
            lo = min(range(self.inputs), key=lambda x: col[x])
            if col[hi] == 0:
                continue
            if col[lo] == 0:
                return math.inf, hi, lo, y
            ratio = col[hi] / col[lo]
            if ratio > best:
                best, where = ratio, (hi, lo, y)
        return (best, *where)

    @property
    def epsilon0(self) -> float:
        """The exact local epsilon0 = log max ratio, rounded up to a float (inf possible)."""
        ratio = self.max_ratio()[0]
        if not isinstance(ratio, Fraction):  # math.inf
            return math.inf
        return up(_log_ratio(ratio, +1))

    @property
    def epsilon0_lower(self) -> float:
        """log max ratio rounded down (the same exact number, other direction)."""
        ratio = self.max_ratio()[0]
        if not isinstance(ratio, Fraction):  # math.inf
            return math.inf
        return down(_log_ratio(ratio, -1))

    def blanket_mass(self) -> Fraction:
        """gamma = sum_y min_x R(y|x), exactly (docs/clones-and-blankets.md)."""
        return sum((min(self.column(y)) for y in range(self.outputs)), Fraction(0))

    def blanket(self) -> tuple[Fraction, tuple[Fraction, ...]]:
        """(gamma, omega): the blanket mass and the blanket distribution
        omega(y) = min_x R(y|x) / gamma (all zeros when gamma = 0)."""
        mins = tuple(min(self.column(y)) for y in range(self.outputs))
        g = sum(mins, Fraction(0))
        if g == 0:
            return g, tuple(Fraction(0) for _ in mins)
        return g, tuple(v / g for v in mins)

    def describe(self) -> dict[str, Any]:
        """A JSON summary: name, shape, epsilon0 with its (x, x', y), blanket mass."""
        ratio, x, x1, y = self.max_ratio()
        return {"name": self.name, "inputs": self.inputs, "outputs": self.outputs,
                "epsilon0": self.epsilon0, "epsilon0_attained_at": {"x": x, "x_prime": x1,
                                                                    "y": y},
                "blanket_mass": float(self.blanket_mass()),
                **({"source": self.source} if self.source else {})}


def _exact(v: numbers.Real) -> Fraction:
    """The exact value of an int, Fraction or float (another Real, e.g. numpy's float32,
    as the float it converts to)."""
    if isinstance(v, numbers.Rational):
        return v if isinstance(v, Fraction) else Fraction(v)
    return Fraction(float(v))


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------------- constructors
def _exp(epsilon0: float | None, exp_epsilon0: Any) -> Fraction | float:
    """e^eps0 as a Fraction (exp_epsilon0 given, rational) or a float."""
    if (epsilon0 is None) == (exp_epsilon0 is None):
        raise ParameterError("give exactly one of epsilon0 and exp_epsilon0")
    if epsilon0 is None:  # exp_epsilon0 is given
        if isinstance(exp_epsilon0, bool) or not isinstance(exp_epsilon0, numbers.Real) \
                or not math.isfinite(float(exp_epsilon0)) or not _exact(exp_epsilon0) > 1:
            raise ParameterError(f"exp_epsilon0={exp_epsilon0!r} is outside (1, inf)")
        return _exact(exp_epsilon0)
    EPSILON0.check(epsilon0)
    if epsilon0 > 700:
        raise ParameterError(f"epsilon0={epsilon0!r} is outside (0, 700] (e^epsilon0 must "
                             "be a finite float)")
    return math.exp(float(epsilon0))


def _int(name: str, value: Any, low: int, high: float) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not (
            low <= int(value) <= high):
        hi = "inf" if high == math.inf else str(int(high))
        raise ParameterError(f"{name}={value!r} is outside integers in [{low}, {hi}]")
    return int(value)


def _label(epsilon0: float | None, e: Any) -> str:
    return f"epsilon0={epsilon0:g}" if epsilon0 is not None else f"e^epsilon0={e}"


def k_rr(k: int, epsilon0: float | None = None, *,
         exp_epsilon0: Any = None) -> Randomizer:
    """k-ary randomized response: R(x|x) = e^eps0/(e^eps0+k-1), else 1/(e^eps0+k-1).

    Source: Warner, JASA 1965 (k = 2); Kairouz, Bonawitz, Ramage, ICML 2016, "Discrete
    distribution estimation under local privacy" (k-RR).

    Args:
        k: alphabet size, >= 2.
        epsilon0: local epsilon0 > 0 (float matrix), or
        exp_epsilon0: e^epsilon0 > 1 as a rational (exact matrix).

    Raises:
        ParameterError: k < 2, epsilon0 outside (0, 700], both or neither of epsilon0 and
            exp_epsilon0 given.
    """
    k = _int("k", k, 2, MAX_OUTPUTS)
    e = _exp(epsilon0, exp_epsilon0)
    den = e + k - 1
    rows = [[e / den if y == x else 1 / den for y in range(k)] for x in range(k)]
    return Randomizer.from_rows(rows, name=f"k-RR(k={k}, {_label(epsilon0, e)})",
                                source="Kairouz, Bonawitz, Ramage, ICML 2016 (k-RR); "
                                       "Warner 1965")


def binary_rr(epsilon0: float | None = None, *, exp_epsilon0: Any = None) -> Randomizer:
    """Binary randomized response, Warner (JASA 1965): k-RR with k = 2.

    Raises:
        ParameterError: as `k_rr`.
    """
    r = k_rr(2, epsilon0, exp_epsilon0=exp_epsilon0)
    return Randomizer(rows=r.rows, name=r.name.replace("k-RR(k=2, ", "binary RR("),
                      source="Warner, JASA 1965")


def unary_encoding(k: int, epsilon0: float, *, variant: str = "optimized") -> Randomizer:
    """Unary encoding: input x becomes the one-hot vector e_x in {0,1}^k; bit x is reported
    as 1 with probability p, every other bit independently with probability q. The outputs
    are the 2^k bit vectors (output index = the vector read as a binary number, bit i of the
    index = coordinate i).

    Variants (Wang, Blocki, Li, Jha, USENIX Security 2017, "Locally differentially private
    protocols for frequency estimation", Sec. 4.3): "symmetric" (SUE, basic RAPPOR of
    Erlingsson, Pihur, Korolova, CCS 2014): p = e^(eps0/2)/(e^(eps0/2)+1), q = 1 - p;
    "optimized" (OUE): p = 1/2, q = 1/(e^eps0+1). Both are exactly eps0-LDP.

    Args:
        k: input alphabet size, 2 <= k <= 12 (2^k outputs).
        epsilon0: local epsilon0 in (0, 700].
        variant: "symmetric" or "optimized".

    Raises:
        ParameterError: k outside [2, 12], epsilon0 outside its domain, unknown variant.
    """
    k = _int("k", k, 2, 12)
    e = _exp(epsilon0, None)
    if variant == "symmetric":
        h = math.exp(epsilon0 / 2)
        p, q = h / (h + 1), 1 / (h + 1)
    elif variant == "optimized":
        p, q = 0.5, 1 / (e + 1)
    else:
        raise ParameterError(f"variant={variant!r} is not one of symmetric, optimized")
    rows = []
    for x in range(k):
        row = []
        for v in range(2 ** k):
            prob = 1.0
            for i in range(k):
                bit = (v >> i) & 1
                pi = p if i == x else q
                prob *= pi if bit else 1 - pi
            row.append(prob)
        rows.append(row)
    labels = [format(v, f"0{k}b")[::-1] for v in range(2 ** k)]
    return Randomizer.from_rows(rows, name=f"unary encoding ({variant}, k={k}, "
                                           f"epsilon0={epsilon0:g})",
                                source="Wang, Blocki, Li, Jha, USENIX Security 2017, "
                                       "Sec. 4.3 (SUE/OUE)", labels=labels)


def subset_selection(k: int, epsilon0: float | None = None, *, d: int | None = None,
                     exp_epsilon0: Any = None) -> Randomizer:
    """d-subset selection: the output is a d-element subset S of the k inputs, with
    R(S|x) proportional to e^eps0 if x is in S and to 1 otherwise, i.e.
    R(S|x) = e^eps0 / (C(k-1, d-1) e^eps0 + C(k-1, d)) or 1 / (same).

    Source: Ye and Barg, IEEE Trans. Inf. Theory 2018, "Optimal schemes for discrete
    distribution estimation under locally differential privacy"; Wang, Wu, Hu et al.,
    arXiv 1607.08025 (2016). Default d = max(1, round(k/(e^eps0+1))), their choice.
    Outputs are the subsets in lexicographic order.

    Raises:
        ParameterError: k < 2, d outside [1, k-1], more than MAX_OUTPUTS subsets, epsilon0
            outside its domain.
    """
    k = _int("k", k, 2, MAX_OUTPUTS)
    e = _exp(epsilon0, exp_epsilon0)
    if d is None:
        d = max(1, min(k - 1, round(k / (float(e) + 1))))
    d = _int("d", d, 1, k - 1)
    subsets = list(itertools.combinations(range(k), d))
    if len(subsets) > MAX_OUTPUTS:
        raise ParameterError(f"C(k, d)={len(subsets)} subsets is outside [1, {MAX_OUTPUTS}] "
                             "outputs")
    den = math.comb(k - 1, d - 1) * e + math.comb(k - 1, d)
    rows = [[(e if x in s else 1) / den for s in subsets] for x in range(k)]
    return Randomizer.from_rows(rows, name=f"subset selection (k={k}, d={d}, "
                                           f"{_label(epsilon0, e)})",
                                source="Ye and Barg, IEEE Trans. Inf. Theory 2018; Wang et "
                                       "al., arXiv 1607.08025",
                                labels=["{" + ",".join(map(str, s)) + "}" for s in subsets])


def hadamard_response(k: int, epsilon0: float | None = None, *,
                      exp_epsilon0: Any = None) -> Randomizer:
    """Hadamard response (Acharya, Sun, Zhang, AISTATS 2019, "Hadamard response: estimating
    distributions privately, efficiently, and with little communication", Sec. 4).

    With K the smallest power of 2 > k and H_K the Sylvester Hadamard matrix
    (`H[i][j] = (-1)^popcount(i & j)`), input x owns the K/2 outputs C_x = {y : `H[x+1][y]` = 1}
    (row 0, all ones, is skipped) and R(y|x) = 2 e^eps0 / (K (e^eps0 + 1)) on C_x,
    2 / (K (e^eps0 + 1)) off it: exactly eps0-LDP.

    Raises:
        ParameterError: k outside [2, MAX_OUTPUTS - 1], epsilon0 outside its domain.
    """
    k = _int("k", k, 2, MAX_OUTPUTS - 1)
    e = _exp(epsilon0, exp_epsilon0)
    big = 1
    while big <= k:
        big *= 2
    hi, lo = 2 * e / (big * (e + 1)), 2 / (big * (e + 1))
    rows = [[hi if bin((x + 1) & y).count("1") % 2 == 0 else lo for y in range(big)]
            for x in range(k)]
    return Randomizer.from_rows(rows, name=f"Hadamard response (k={k}, K={big}, "
                                           f"{_label(epsilon0, e)})",
                                source="Acharya, Sun, Zhang, AISTATS 2019, Sec. 4")


def local_hashing(k: int, epsilon0: float | None = None, *, g: int | None = None,
                  family: int | Sequence[Sequence[int]] = 16, seed: int = 0,
                  exp_epsilon0: Any = None) -> Randomizer:
    """Local hashing (Wang, Blocki, Li, Jha, USENIX Security 2017, Sec. 4.4, BLH/OLH): the
    user draws a hash function h uniformly from a family of F functions [k] -> [g] and
    reports (h, v) with v = h(x) w.p. e^eps0/(e^eps0+g-1), any other value of [g] w.p.
    1/(e^eps0+g-1). Output index = j*g + v for the j-th function.

    The family is part of the randomizer (its privacy depends on it): give the table
    (F rows of k values in [0, g)) or a size F, for which a fixed table is drawn uniformly
    at random from numpy's default_rng(seed) (reproducible). Default g =
    max(2, round(e^eps0 + 1)) (OLH).

    Raises:
        ParameterError: k < 2, g < 2, a table entry outside [0, g), F * g > MAX_OUTPUTS,
            epsilon0 outside its domain.
    """
    k = _int("k", k, 2, MAX_OUTPUTS)
    e = _exp(epsilon0, exp_epsilon0)
    if g is None:
        g = max(2, round(float(e) + 1))
    g = _int("g", g, 2, MAX_OUTPUTS)
    if isinstance(family, numbers.Integral) and not isinstance(family, bool):
        size = _int("family", family, 1, MAX_OUTPUTS)
        table = np.random.default_rng(seed).integers(0, g, size=(size, k)).tolist()
    else:
        # mypy does not know that int is a numbers.Integral: family is the Sequence here
        table = [list(r) for r in family]  # type: ignore[union-attr]
        for j, r in enumerate(table):
            if len(r) != k or any(not isinstance(v, numbers.Integral) or not 0 <= int(v) < g
                                  for v in r):
                raise ParameterError(f"family[{j}]={_short(r)} is not {k} integers in "
                                     f"[0, {g})")
    if not table or len(table) * g > MAX_OUTPUTS:
        raise ParameterError(f"family size * g = {len(table) * g} is outside "
                             f"[1, {MAX_OUTPUTS}] outputs")
    size = len(table)
    den = size * (e + g - 1)
    rows = [[(e if table[j][x] == v else 1) / den for j in range(size) for v in range(g)]
            for x in range(k)]
    return Randomizer.from_rows(rows, name=f"local hashing (k={k}, g={g}, F={size}, "
                                           f"{_label(epsilon0, e)})",
                                source="Wang, Blocki, Li, Jha, USENIX Security 2017, "
                                       "Sec. 4.4 (BLH/OLH)")
