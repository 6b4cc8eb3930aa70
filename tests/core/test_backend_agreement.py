"""The float backend agrees with the mp backend to 1e-9 relative, and its UPPER values are
never below the mp values (soundness), on 60 seeded random cases.

Cases are drawn by a seeded generator (below), not hand-picked: half are Bin(n,p) vs
1 + Bin(n,p) (closed-form loss), half Bin(n,p1) vs Bin(n,p2) (loss from log-PMF
differences). The mp values come from the library's mp backend at 50 digits; the exact
backend (test_exact_cases.py) and an independent mpmath sum (below) anchor that oracle.
"""

from dataclasses import dataclass

import mpmath
import numpy as np
import pytest

from accountant import (
    Kind,
    ViewPair,
    binomial,
    delta_for_epsilon,
    epsilon_for_delta,
    renyi_divergence,
)
from accountant.numeric.mp import to_mpf
from accountant.pairs import binomial_shift_pair

REL = 1e-9


@dataclass(frozen=True)
class Case:
    kind: str
    n: int
    p1: float
    p2: float
    epsilon: float
    delta: float
    alpha: float

    @property
    def id(self) -> str:
        return f"{self.kind}-n={self.n}-p={self.p1:.3f},{self.p2:.3f}-eps={self.epsilon:.3f}"


def _cases(count: int = 60, seed: int = 20261122) -> list[Case]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        kind = "shift" if i % 2 == 0 else "two-binomials"
        n = int(rng.integers(2, 2500))
        p1 = float(rng.uniform(0.02, 0.98))
        p2 = float(np.clip(p1 + rng.uniform(-0.08, 0.08), 0.01, 0.99))
        out.append(Case(kind, n, p1, p2, float(rng.uniform(0.0, 1.5)),
                        float(10 ** rng.uniform(-10, -2)), float(rng.uniform(1.1, 24.0))))
    return out


CASES = _cases()


def _views(case: Case) -> tuple[ViewPair, ViewPair]:
    if case.kind == "shift":
        return (binomial_shift_pair(case.n, case.p1),
                binomial_shift_pair(case.n, case.p1, backend="mp"))
    return (ViewPair.from_pmfs(binomial(case.n, case.p1), binomial(case.n, case.p2)),
            ViewPair.from_pmfs(binomial(case.n, case.p1, backend="mp"),
                               binomial(case.n, case.p2, backend="mp")))


def _agree_and_dominate(f, m) -> None:
    assert f.kind is Kind.UPPER
    fv, mv = to_mpf(f.value), to_mpf(m.value)
    if mpmath.isinf(mv):
        assert mpmath.isinf(fv)
        return
    assert fv >= mv, f"float upper {fv} is below the mp value {mv}"
    assert fv - mv <= REL * max(mv, mpmath.mpf(10) ** -300)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_delta_for_epsilon_float_vs_mp(case):
    f, m = _views(case)
    _agree_and_dominate(delta_for_epsilon(f, case.epsilon), delta_for_epsilon(m, case.epsilon))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_epsilon_for_delta_float_vs_mp(case):
    f, m = _views(case)
    _agree_and_dominate(epsilon_for_delta(f, case.delta), epsilon_for_delta(m, case.delta))


@pytest.mark.parametrize("case", [c for c in CASES if c.kind == "two-binomials"],
                         ids=lambda c: c.id)
def test_renyi_float_vs_mp(case):
    f, m = _views(case)
    _agree_and_dominate(renyi_divergence(f, case.alpha), renyi_divergence(m, case.alpha))


@pytest.mark.parametrize("case", CASES[:6], ids=lambda c: c.id)
def test_mp_backend_matches_an_independent_mpmath_sum(case):
    """The oracle itself: H_{e^eps} summed directly from mpmath.binomial, both orders."""
    _, m = _views(case)
    with mpmath.workdps(50):
        def pmf(p, k):
            return (mpmath.binomial(case.n, k) * mpmath.mpf(p) ** k
                    * (1 - mpmath.mpf(p)) ** (case.n - k)) if 0 <= k <= case.n else 0
        ks = range(case.n + 2)
        if case.kind == "shift":
            P = [pmf(case.p1, k) for k in ks]
            Q = [pmf(case.p1, k - 1) for k in ks]
        else:
            P = [pmf(case.p1, k) for k in ks]
            Q = [pmf(case.p2, k) for k in ks]
        g = mpmath.exp(case.epsilon)
        ref = max(sum(max(a - g * b, 0) for a, b in zip(P, Q, strict=True)),
                  sum(max(b - g * a, 0) for a, b in zip(P, Q, strict=True)))
        got = delta_for_epsilon(m, case.epsilon).value
        assert abs(got - ref) <= mpmath.mpf(10) ** -40 * max(ref, 1)


def test_product_of_views_with_opposite_infinite_atoms_has_no_nan_loss():
    """Regression: Bin vs 1+Bin (atom of P at k=0, atom of Q at k=n+1) times its swap
    gave +inf + -inf = NaN losses (and a RuntimeWarning) at points where P = Q = 0."""
    import warnings

    from accountant.pairs import binomial_shift_pair

    one = binomial_shift_pair(20, 0.7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prod = one.product(one.swapped())
    assert not np.any(np.isnan(prod.loss))
    both_zero = np.isneginf(prod.p) & np.isneginf(prod.q)
    assert np.any(both_zero) and np.all(np.isneginf(prod.loss[both_zero]))


@pytest.mark.parametrize("n,p,tail", [(10, 0.3, None), (1000, 0.9, 1e-20), (10**9, 0.5, 1e-20)])
def test_shift_pair_float_values_equal_pointwise_log_pmfs(n, p, tail):
    """binomial_shift_pair evaluates the log-PMF once on [a-1, b+1] and shifts it for Q;
    the values must be exactly the pointwise ones (Q(k) = Bin(n,p)(k-1))."""
    from accountant.numeric.special import binomial_logpmf
    from accountant.pairs import binomial_shift_pair

    view = binomial_shift_pair(n, p, tail=tail)
    k = view.coords[0]
    assert np.array_equal(view.p, binomial_logpmf(k, n, p))
    assert np.array_equal(view.q, binomial_logpmf(k - 1, n, p))
