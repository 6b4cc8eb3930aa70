"""Which published general epsilon0-LDP reductions survive exhaustive exact computation.

Over the "staircase" extreme points of the epsilon0-LDP polytope with k inputs (columns
theta_y e^(epsilon0 b_y), b_y in {0, 1}^k, solved exactly so that every row sums to 1) and
the interior example of Feldman-McMillan-Talwar's SODA 2023 erratum, the exact worst case
over datasets of the shuffled delta(epsilon) (accountant.protocols.randomizer, checked
elsewhere against an independent enumeration) is compared with
- the FMT 2021 clones pair (clone probability e^-epsilon0; a theorem for every
  epsilon0-LDP randomizer; `ldp`'s certified upper bound), and
- the "stronger clones" pair with clone probability 2/(e^epsilon0 + 1) (FMT 2023's
  reduction, whose erratum restricts it to a class of randomizers; Wang et al.'s
  variation-ratio bound with the general parameters p = q = e^eps0, beta = (e^eps0-1)/
  (e^eps0+1) gives the same pair).
No extreme point exceeds either (closest: e^eps0 = 3, k = 3, n = 8, e^eps = 2: 0.033371
against 0.0336151). This is evidence, not a proof: delta is not convex in the matrix, and
extreme points with more than k columns are not enumerated. So `ldp` keeps the proven FMT
2021 pair as its upper bound. Runs k <= 3 up to n = 8 at e^eps0 in {3, 8} (about 7 s).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from accountant.pairs import clones
from accountant.protocols import randomizer as rz

GAMMAS = (Fraction(1), Fraction(5, 4), Fraction(3, 2), Fraction(2))


def staircase_vertices(k: int, e: Fraction) -> list[list[list[Fraction]]]:
    """The extreme points with k columns of the ratio-e polytope (rows: inputs)."""
    out, seen = [], set()
    for subset in itertools.combinations(list(itertools.product((0, 1), repeat=k)), k):
        m = [[e ** p[x] for p in subset] + [Fraction(1)] for x in range(k)]
        for c in range(k):  # Gauss-Jordan in exact arithmetic: theta with A theta = 1
            piv = next((r for r in range(c, k) if m[r][c] != 0), None)
            if piv is None:
                break
            m[c], m[piv] = m[piv], m[c]
            for r in range(k):
                if r != c and m[r][c] != 0:
                    f = m[r][c] / m[c][c]
                    m[r] = [a - f * b for a, b in zip(m[r], m[c], strict=True)]
        else:
            theta = [m[i][k] / m[i][i] for i in range(k)]
            if any(t < 0 for t in theta):
                continue
            cols = [(subset[i], theta[i]) for i in range(k) if theta[i] > 0]
            rows = [[t * e ** p[x] for p, t in cols] for x in range(k)]
            key = tuple(sorted(tuple(r) for r in zip(*rows, strict=True)))
            if len(cols) >= 2 and key not in seen:
                seen.add(key)
                out.append(rows)
    if k == 3:  # the SODA 2023 erratum's example, an interior point of the polytope
        c = 1 / (e * (e + 2))
        h = (1 - c) / 2
        out.append([[e / (e + 2), 1 / (e + 2), 1 / (e + 2)],
                    [1 / (e + 2), e / (e + 2), 1 / (e + 2)], [h, h, c]])
    return out


def _check(e: Fraction, k: int, n: int) -> None:
    epsilon0 = math.log(float(e))
    fmt = clones.fmt_clones(n=n, epsilon0=epsilon0)
    strong = clones.blanket_k_rr(n=n, epsilon0=epsilon0, k=2)
    for rows in staircase_vertices(k, e):
        matrix = rz.Randomizer.from_rows(rows)
        worst = rz.exact_worst_case(matrix, n, exp_epsilon=list(GAMMAS))
        for g, w in zip(GAMMAS, worst, strict=True):
            eps = math.log(float(g))
            assert float(w.delta) <= clones.delta_for_epsilon(strong, epsilon=eps).upper.value
            assert float(w.delta) <= clones.delta_for_epsilon(fmt, epsilon=eps).upper.value


def test_vertex_count_matches_the_construction():
    assert len(staircase_vertices(2, Fraction(3))) == 1   # binary RR
    assert len(staircase_vertices(3, Fraction(3))) >= 6


@pytest.mark.parametrize("n", range(2, 9))
def test_binary_inputs_stay_below_both_reductions(n):
    _check(Fraction(3), 2, n)


@pytest.mark.parametrize("e", [Fraction(3), Fraction(8)])
@pytest.mark.parametrize("n", range(2, 9))
def test_three_inputs_stay_below_both_reductions(e, n):
    _check(e, 3, n)
