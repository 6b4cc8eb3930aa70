"""Count-min rounds composed by the accountant's PLD route against brute force
(docs/ggkpv.md#composing-count-min-rounds).

For tiny n, rho, d, w the real shuffled view (the hash table and the multiset of all
n d (1 + rho) messages) is enumerated exactly, independently of the library, for every
table and several datasets of the other users; the T-round pair (T = 1..3) is composed
exactly in rationals after merging outcomes of equal likelihood ratio (a lossless merge).
Checked: the accountant's certified upper delta(eps) of T rounds is at least the worst
enumerated value (over tables, datasets and both orders), and the dominating pair's own
lower end (`pair_lower`) is at most the value of the table separating x and x' in every
row, which is that pair exactly."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant import divergence
from accountant.composition import Accountant
from accountant.protocols.ggkpv import CountMinSketch, countmin_parameters, row_pair
from accountant.protocols.ggkpv.countmin import (
    compose_split,
    dominating_view,
    mixture_lower_view,
    split_lattice,
    split_view,
)

B = 2
EPSILONS = (0.0, 0.5, 1.5)
# (n, rho, d, w, datasets of users 2..n); user 1 holds 1 (x) or 2 (x')
CASES = [
    (1, 1, 1, 2, [()]),
    (1, 2, 1, 2, [()]),
    (1, 2, 2, 2, [()]),
    (2, 1, 1, 3, [(1,), (2,)]),
    (2, 1, 2, 2, [(1,), (2,)]),
    (1, 1, 2, 3, [()]),
    (1, 3, 1, 3, [()]),
]


def message_law(values: tuple[int, ...], table: tuple[tuple[int, ...], ...], rho: int,
                w: int) -> Counter:
    """Counts (out of w^(noise messages)) of each shuffled multiset of (row, cell)."""
    d = len(table)
    signals = [(j, table[j][v - 1]) for v in values for j in range(d)]
    slots = [j for _ in values for j in range(d) for _ in range(rho)]
    law: Counter = Counter()
    for cells in itertools.product(range(w), repeat=len(slots)):
        law[tuple(sorted(signals + list(zip(slots, cells, strict=True))))] += 1
    return law


def ratio_pair(pairs: list[tuple[Counter, Counter]]) -> dict[Fraction | None, list[Fraction]]:
    """The mixture (uniform over the given (P, Q) laws, the public table revealed), merged
    by likelihood ratio P/Q (None: Q = 0): ratio -> [P-mass, Q-mass], exact."""
    out: dict[Fraction | None, list[Fraction]] = defaultdict(lambda: [Fraction(0), Fraction(0)])
    for P, Q in pairs:
        tp, tq = sum(P.values()), sum(Q.values())
        for key in set(P) | set(Q):
            p = Fraction(P.get(key, 0), tp * len(pairs))
            q = Fraction(Q.get(key, 0), tq * len(pairs))
            r = None if q == 0 else p / q
            out[r][0] += p
            out[r][1] += q
    return dict(out)


def compose(a: dict, b: dict) -> dict:
    out: dict = defaultdict(lambda: [Fraction(0), Fraction(0)])
    for (ra, (pa, qa)), (rb, (pb, qb)) in itertools.product(a.items(), b.items()):
        r = None if ra is None or rb is None else ra * rb
        out[r][0] += pa * pb
        out[r][1] += qa * qb
    return dict(out)


def delta_both_orders(pair: dict, eps: float) -> float:
    with mpmath.workdps(40):
        g = mpmath.exp(mpmath.mpf(eps))
        one = sum((max(mpmath.mpf(p.numerator) / p.denominator
                       - g * mpmath.mpf(q.numerator) / q.denominator, 0)
                   for p, q in pair.values()), mpmath.mpf(0))
        two = sum((max(mpmath.mpf(q.numerator) / q.denominator
                       - g * mpmath.mpf(p.numerator) / p.denominator, 0)
                   for p, q in pair.values()), mpmath.mpf(0))
        return float(max(one, two))


def power(pair: dict, T: int) -> dict:
    out = pair
    for _ in range(T - 1):
        out = compose(out, pair)
    return out


@pytest.mark.parametrize("n, rho, d, w, datasets", CASES,
                         ids=lambda v: str(v) if not isinstance(v, list) else "data")
def test_composed_rounds_bracket_the_enumerated_view(n, rho, d, w, datasets) -> None:
    tables = [tuple(tuple(c[j * B:(j + 1) * B]) for j in range(d))
              for c in itertools.product(range(w), repeat=d * B)]
    separating = tuple((0, 1) for _ in range(d))
    # per dataset: the mechanism's pair (public tables drawn afresh each round), every
    # single table's pair (one table for all rounds, even a chosen one), the separating one
    rounds = []
    for others in datasets:
        laws = {t: (message_law((1, *others), t, rho, w), message_law((2, *others), t, rho, w))
                for t in tables}
        mixture = ratio_pair(list(laws.values()))
        # tables with equal pairs once (relabelled cells give the same ratio pair)
        singles = list({repr(r): r for r in (ratio_pair([laws[t]]) for t in tables)}.values())
        rounds.append((mixture, singles, ratio_pair([laws[separating]])))
    params = countmin_parameters(n=n, B=B, w=w, d=d, rho=rho)
    mech = CountMinSketch(params)
    lower_view = mixture_lower_view(params)
    for T in (1, 2, 3):
        acc = Accountant().compose(mech, count=T)
        # a post-processing of the mechanism's own pair (tables drawn afresh each round)
        lower_acc = Accountant().compose(lower_view, count=T)
        powered = [(power(m, T), [power(s, T) for s in singles], power(sep, T))
                   for m, singles, sep in rounds]
        for eps in EPSILONS:
            report = acc.report(epsilon=eps, method="pld")
            up = float(report.bracket.upper)
            pld = next(e for e in report.entries if e.get("method") == "pld.pessimistic")
            worst = max(max(delta_both_orders(m, eps), *(delta_both_orders(s, eps)
                                                         for s in singles))
                        for m, singles, _ in powered)
            assert worst <= up, (T, eps, worst, up)
            # the mechanism's lower end (`CountMinSketch.lower_view_pair`, composed by the
            # accountant itself): never above the exact mixture, whatever the dataset
            mech_lower = report.bracket.lower
            assert mech_lower is not None and float(mech_lower) <= up
            for m, _, _ in powered:
                assert float(mech_lower) <= delta_both_orders(m, eps) + 1e-12
            lower = lower_acc.report(epsilon=eps, method="pld").bracket.lower
            assert lower is not None
            for m, _, _ in powered:
                assert float(lower) <= delta_both_orders(m, eps) + 1e-12
            for _, _, sep in powered:
                # the dominating pair is this table's pair exactly: its lower end is below
                assert pld["pair_lower"] <= delta_both_orders(sep, eps) + 1e-12


def test_split_pair_is_a_two_sided_pair_dominating_the_exact_product() -> None:
    # N = 40, w = 8, two rows: the exact product (full support) is small enough
    N, w = 40, 8
    row = row_pair(N, w, tail=None)
    exact = row.product(row)
    step = 2.0 ** -8
    one = split_lattice(row, step=step)
    view = split_view(compose_split(one, one, step=step), step=step)
    # both laws are normalised (a genuine pair, not a one-sided measure)
    mp, mq = view.masses()
    assert abs(mp - 1) < 1e-12 and abs(mq - 1) < 1e-12
    for eps in (0.0, 0.3, 1.0, 2.0):
        for direction in ("P||Q", "Q||P"):
            truth = divergence.delta_bracket(exact, eps, direction=direction)
            split = divergence.delta_bracket(view, eps, direction=direction)
            # split and merged back: its value is at least the exact product's
            assert float(truth[0]) <= float(split[1])
            # and close: an atom within 2 steps of eps moves delta by at most its mass
            # times about a step (here the loss-0 atom at eps = 0: 6e-5)
            assert float(split[1]) - float(truth[1]) < step / 32
    # swap symmetry survives the split: the two orders agree
    for eps in (0.2, 0.7):
        a = divergence.delta_bracket(view, eps, direction="P||Q")[1]
        b = divergence.delta_bracket(view, eps, direction="Q||P")[1]
        assert float(a) == pytest.approx(float(b), rel=1e-9)


def test_dominating_pair_is_the_view_and_brackets_the_lattice_ends() -> None:
    params = countmin_parameters(n=2000, B=10, w=400, d=2, rho=20)
    mech = CountMinSketch(params)
    pair = mech.dominating_pair()
    assert pair is not None and pair.composable is pair.pair
    view = dominating_view(params)
    assert view.tail_p < 1e-25 and view.tail_q < 1e-25
    # swap symmetry: the P-only atom (loss +inf) and the Q-only atom (-inf) weigh the same
    loss = view.float_loss
    p_inf = np.exp(view.p[np.isposinf(loss)]).sum()
    q_inf = np.exp(view.q[np.isneginf(loss)]).sum()
    assert p_inf > 0 and p_inf == pytest.approx(q_inf, rel=1e-9)
    bracket = mech.epsilon_for_delta(1e-6)
    one_round = float(divergence.epsilon_bracket(view, 1e-6, direction="P||Q")[1])
    # one round of the dominating pair is an upper end: above the mechanism's lower end
    # and within the lattices' rounding of the one-sided upper end
    assert float(bracket.lower) <= one_round <= float(bracket.upper) + 2e-3


def test_composed_rounds_have_a_mechanism_lower_end_matching_one_round() -> None:
    """`lower_view_pair()` (the loss-bin post-processing of the mechanism's own pair) is the
    accountant's lower end for count-min rounds: at T = 1 it agrees with the one-round
    bracket's lower end (the lattice mixture, rounded down) within the PLD route's 0.8 %
    target and is below the exact value of the same post-processed pair; for T rounds it
    is below the composed upper end and grows with T."""
    params = countmin_parameters(n=2000, B=10, w=400, d=2, rho=20)
    mech = CountMinSketch(params)
    lower_pair = mech.lower_view_pair()
    assert lower_pair is not None and lower_pair.grid_exact
    one = mech.epsilon_for_delta(1e-6)
    bins = divergence.epsilon_bracket(lower_pair, 1e-6, direction="P||Q")
    ends = []
    own = Accountant().compose(mech, 1).get_epsilon(1e-6)
    assert own.upper.value == one.upper.value  # one run: the mechanism's own bracket
    for T in (1, 10):
        # (T = 1 through the PLD route asked for by name)
        bracket = Accountant().compose(mech, T).get_epsilon(
            1e-6, method="pld" if T == 1 else "all")
        assert bracket.lower is not None
        assert "optimistic PLD of one neighbouring pair" in bracket.lower.method
        assert float(bracket.lower) <= float(bracket.upper)
        ends.append(float(bracket.lower))
        if T == 1:
            # the optimistic PLD of the post-processed pair is below its exact value
            assert float(bracket.lower) <= float(bins[1])
            assert float(bracket.lower) <= float(one.upper)
            assert abs(float(bracket.lower) - float(one.lower)) <= 0.008 * float(one.upper)
    assert ends[1] > ends[0]
