"""The count-min accountant (public coins) against brute force: the real shuffled multiset of
all n d (1 + rho) messages is enumerated for tiny n, rho, d, w (independently of the
library), per hash table and averaged over every table of the fully random family
(docs/ggkpv.md#count-min-variant).

Checked: for a table separating x and x' in every row, the real view's delta(eps) equals the
d-fold product of the exact row pair (the reduction is exact); for every table, it never
exceeds the certified upper end; averaged over all tables (the mechanism with public coins),
it lies inside the certified bracket; the epsilon(delta) ends are consistent with it."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant import divergence
from accountant.errors import ParameterError
from accountant.protocols.ggkpv import (
    CountMinSketch,
    compose_lattices,
    countmin_delta_bracket,
    countmin_epsilon_bracket,
    countmin_max_divergence_bracket,
    countmin_parameters,
    countmin_renyi_bracket,
    lattice_step,
    lattice_view,
    row_lattice,
    row_pair,
)

# (n, rho, d, w, others): user 1 holds value 1 (x) or 2 (x'); users 2..n hold `others`.
CASES = [
    (1, 1, 1, 2, ()), (1, 2, 1, 2, ()), (1, 3, 1, 2, ()), (1, 4, 1, 2, ()),
    (2, 1, 1, 2, (1,)), (2, 2, 1, 2, (2,)), (3, 1, 1, 2, (1, 2)), (4, 1, 1, 2, (1, 1, 2)),
    (3, 2, 1, 2, (2, 2)), (1, 1, 1, 3, ()), (1, 2, 1, 3, ()), (2, 1, 1, 3, (1,)),
    (2, 2, 1, 3, (2,)), (1, 2, 1, 5, ()), (1, 1, 2, 2, ()), (1, 2, 2, 2, ()),
    (2, 1, 2, 2, (2,)), (2, 2, 2, 2, (1,)), (1, 1, 2, 3, ()), (2, 1, 2, 3, (1,)),
    (1, 2, 2, 3, ()), (1, 1, 2, 4, ()), (1, 1, 3, 2, ()), (1, 2, 3, 2, ()),
    (2, 1, 3, 2, (2,)), (3, 1, 2, 2, (1, 2)),
]
EPSILONS = (0.0, 0.4, 1.3)
B = 2


def view_law(values: tuple[int, ...], table: tuple[tuple[int, ...], ...], rho: int,
             w: int) -> dict[tuple, Fraction]:
    """The law of the real view: the multiset of all (row, cell) messages, enumerated over
    every assignment of the noise messages."""
    d = len(table)
    signals = [(j, table[j][v - 1]) for v in values for j in range(d)]
    slots = [j for _ in values for j in range(d) for _ in range(rho)]
    law: Counter = Counter()
    for cells in itertools.product(range(w), repeat=len(slots)):
        law[tuple(sorted(signals + list(zip(slots, cells, strict=True))))] += 1
    total = w ** len(slots)
    return {k: Fraction(c, total) for k, c in law.items()}


def hockey(P: dict, Q: dict, eps: float) -> mpmath.mpf:
    """max over both orders of sum (P - e^eps Q)_+ (40 digits)."""
    with mpmath.workdps(40):
        g = mpmath.exp(mpmath.mpf(eps))
        keys = set(P) | set(Q)

        def one(a: dict, b: dict) -> mpmath.mpf:
            return sum((max(mpmath.mpf(a.get(k, 0).numerator) / a.get(k, 1).denominator
                            - g * mpmath.mpf(b.get(k, 0).numerator) / b.get(k, 1).denominator,
                            0) for k in keys), mpmath.mpf(0))

        return max(one(P, Q), one(Q, P))


def real_delta(n: int, rho: int, table: tuple, w: int, others: tuple, eps: float) -> float:
    P = view_law((1, *others), table, rho, w)
    Q = view_law((2, *others), table, rho, w)
    assert len(others) == n - 1
    return float(hockey(P, Q, eps))


def all_tables(d: int, w: int):
    for cells in itertools.product(range(w), repeat=d * B):
        yield tuple(tuple(cells[j * B:(j + 1) * B]) for j in range(d))


def exact_product(N: int, w: int, d: int):
    row = row_pair(N, w, tail=None)
    view = row
    for _ in range(d - 1):
        view = view.product(row)
    return view


@pytest.mark.parametrize("n, rho, d, w, others", CASES)
def test_real_view_inside_certified_bracket(n, rho, d, w, others) -> None:
    params = countmin_parameters(n=n, B=B, w=w, d=d, rho=rho)
    separating = tuple((0, 1) for _ in range(d))  # h_j(x) = 0 != 1 = h_j(x') in every row
    product = exact_product(n * rho, w, d)
    tables = list(all_tables(d, w))
    step = lattice_step(params)
    assert step <= 2.0 ** -10
    for eps in EPSILONS:
        bracket = countmin_delta_bracket(params, eps)
        up, lo = float(bracket.upper), float(bracket.lower)
        sep = real_delta(n, rho, separating, w, others, eps)
        # the reduction is exact: the real view of a separating table is the product pair
        p_lo, p_up = divergence.delta_bracket(product, eps)
        assert float(p_lo) - 1e-12 <= sep <= float(p_up) + 1e-12
        assert float(bracket.pair_lower) <= sep + 1e-12 and sep <= up
        # the mechanism (public coins): the view is (table, messages); average over tables
        per_table = [real_delta(n, rho, t, w, others, eps) for t in tables]
        assert max(per_table) <= up
        avg = sum(per_table) / len(per_table)
        assert lo <= avg + 1e-12 and avg <= up
        # the bracket is tight: rounding up costs at most one lattice step per row in eps
        if eps >= d * step:
            assert up <= real_delta(n, rho, separating, w, others, eps - d * step) + 1e-9
        else:
            assert up <= sep + 0.01
    delta = 0.05
    eb = countmin_epsilon_bracket(params, delta)
    if math.isfinite(float(eb.upper)):
        worst = max(real_delta(n, rho, t, w, others, float(eb.upper)) for t in tables)
        assert worst <= delta  # every table meets delta at the certified upper epsilon
    if float(eb.lower) > 0:  # +inf: delta(eps) > delta at every eps (checked at eps = 50)
        at = min(float(eb.lower) * (1 - 1e-9), 50.0)
        avg = np.mean([real_delta(n, rho, t, w, others, at) for t in tables])
        assert avg >= delta * (1 - 1e-9)  # the mechanism misses delta just below the lower


def test_lattice_brackets_the_exact_product_at_larger_sizes() -> None:
    """Rounding up/down on the lattice brackets the exact product's delta (N = 40, d = 2)."""
    N, w = 40, 6
    row = row_pair(N, w, tail=None)
    exact = row.product(row)
    up = compose_lattices(row_lattice(row, upper=True), row_lattice(row, upper=True))
    dn = compose_lattices(row_lattice(row, upper=False), row_lattice(row, upper=False))
    for eps in (0.0, 0.3, 1.0, 2.0):
        e_lo, e_up = divergence.delta_bracket(exact, eps)
        u = divergence.delta_bracket(lattice_view(up), eps, direction="P||Q")[1]
        lo = divergence.delta_bracket(lattice_view(dn), eps, direction="P||Q")[0]
        assert float(lo) <= float(e_lo) and float(e_up) <= float(u)
        assert float(u) - float(lo) <= 0.01 * float(e_up) + 1e-12


def test_windowed_row_pair_agrees_with_the_full_support() -> None:
    full, cut = row_pair(400, 8, tail=None), row_pair(400, 8)
    assert cut.size < full.size and cut.tail_p <= 3e-30
    for eps in (0.2, 1.0):
        a = divergence.delta_bracket(full, eps)
        b = divergence.delta_bracket(cut, eps)
        assert float(b[1]) >= float(a[0]) and abs(float(a[1]) - float(b[1])) < 1e-12


def test_non_power_of_two_width_and_symmetry() -> None:
    row = row_pair(50, 7, tail=None)
    for eps in (0.1, 0.9):
        pq = divergence.delta_bracket(row, eps, direction="P||Q")
        qp = divergence.delta_bracket(row, eps, direction="Q||P")
        assert abs(float(pq[1]) - float(qp[1])) < 1e-12


def test_epsilon_finite_and_decreasing_in_rho() -> None:
    eps = [float(countmin_epsilon_bracket(countmin_parameters(n=200, B=100, w=50, d=3,
                                                              rho=r), 1e-6).upper)
           for r in (8, 16, 32)]
    assert all(math.isfinite(e) for e in eps) and eps[0] > eps[1] > eps[2] > 0


def test_too_little_noise_is_infinite() -> None:
    # delta(eps) >= P(a separating row's cell h(x') is empty) ~ (1 - 1/w)^(n rho)
    params = countmin_parameters(n=100, B=10, w=50, d=2, rho=2)
    b = countmin_epsilon_bracket(params, 1e-6)
    assert float(b.upper) == math.inf and float(b.lower) == math.inf


def test_renyi_and_max_divergence_are_exactly_infinite() -> None:
    params = countmin_parameters(n=100, B=10, w=20, d=2, rho=30)
    for b in (countmin_renyi_bracket(params, 2.0), countmin_max_divergence_bracket(params)):
        assert float(b.upper) == math.inf and b.upper.kind.value == "exact"
        assert "empty" in b.upper.method
    m = CountMinSketch(params)
    # the PLD route composes it (tests/protocols/test_ggkpv_countmin_compose.py); RDP cannot
    pair = m.dominating_pair()
    assert pair is not None and pair.composable is pair.pair and m.view_pair() is None
    assert [float(b.upper) for b in m.renyi([2.0, math.inf])] == [math.inf, math.inf]


@pytest.mark.parametrize("kwargs", [dict(B=1), dict(w=1), dict(d=0), dict(d=65), dict(rho=0),
                                    dict(n=0), dict(rho=1.5)])
def test_parameters_are_validated(kwargs) -> None:
    base = dict(n=10, B=5, w=4, d=2, rho=3) | kwargs
    with pytest.raises(ParameterError):
        countmin_parameters(**base)
