"""The GGKPV certified accountant (accountant/protocols/ggkpv): brute force against the real
shuffled multiset for tiny parameters (enumerated independently here), the count pair's
exactness for the labelled view, finiteness and monotonicity in rho, the infinite Renyi and
max-divergences, calibration, and the heuristic's labelling."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from accountant import divergence
from accountant.errors import ParameterError
from accountant.protocols.ggkpv import (
    GGKPVHadamard,
    calibrate,
    count_pair,
    delta_bracket,
    epsilon_bracket,
    ggkpv_parameters,
    heuristic_epsilon,
    labelled_view,
    slides_rho,
)
from accountant.result import Kind

EPSILONS = (0.0, 0.3, 1.0, 2.0)
_MAX_ASSIGNMENTS = 70_000


# ------------------------------------------------------------------ independent enumeration
def _positive_codes(x: int, K: int, tau: int) -> list[int]:
    """Codes sum_t m_t K^t of the tuples with every m_t in C_x (popcount(x & m) even)."""
    cx = [j for j in range(K) if bin(x & j).count("1") % 2 == 0]
    return [sum(m * K ** t for t, m in enumerate(ms)) for ms in itertools.product(cx,
                                                                                  repeat=tau)]


def _law(K: int, tau: int, values: list[int], rho: int, labelled: bool) -> dict[int, int]:
    """Multiset law of the shuffled messages, as {key: number of equally likely assignments}.

    User i sends a signal tuple uniform on C_{values[i]}^tau; n rho noise tuples are uniform
    on [K]^tau; the shuffle's output is the multiset (the sorted messages). labelled=True:
    the adversary also sees users 2..n's signal tuples in order, beside the multiset of user
    1's signal and the noise.
    """
    n = len(values)
    all_codes = np.arange(K ** tau)
    choices = ([np.asarray(_positive_codes(v, K, tau)) for v in values]
               + [all_codes] * (n * rho))
    grid = np.meshgrid(*choices, indexing="ij")
    rows = np.stack([g.ravel() for g in grid], axis=1)
    if labelled:
        pool = np.sort(np.concatenate([rows[:, :1], rows[:, n:]], axis=1), axis=1)
        rows = np.concatenate([pool, rows[:, 1:n]], axis=1)
    else:
        rows = np.sort(rows, axis=1)
    base = K ** tau
    assert rows.shape[1] * math.log2(base) <= 62
    keys = rows @ (base ** np.arange(rows.shape[1], dtype=np.int64))
    uniq, counts = np.unique(keys, return_counts=True)
    return dict(zip(uniq.tolist(), counts.tolist(), strict=True))


def _delta(p: dict[int, int], q: dict[int, int], epsilon: float) -> float:
    """max over both orders of sum (P - e^eps Q)_+ (P, Q as counts of one total)."""
    total = sum(p.values())
    assert total == sum(q.values())
    keys = set(p) | set(q)
    g = math.exp(epsilon)
    a = sum(max(p.get(k, 0) - g * q.get(k, 0), 0.0) for k in keys)
    b = sum(max(q.get(k, 0) - g * p.get(k, 0), 0.0) for k in keys)
    return max(a, b) / total


def _cases() -> list[tuple[int, int, int, int, int, int, int | None]]:
    """(K, tau, n, rho, x, x', value of the other users) small enough to enumerate."""
    out = []
    for K, tau, n, rho in itertools.product((4, 8, 16), (1, 2, 3), (1, 2, 3), (1, 2, 3)):
        size = (K // 2) ** (tau * n) * K ** (tau * n * rho)
        if size > _MAX_ASSIGNMENTS:
            continue
        neighbours = [(1, 2)] + ([(3, 5)] if K >= 8 else [])
        for x, x2 in neighbours:
            others: list[int | None] = [None] if n == 1 else [x, x2, x ^ x2]
            if K >= 8 and n > 1:
                others.append(next(v for v in range(1, K) if v not in (x, x2, x ^ x2)))
            out.extend((K, tau, n, rho, x, x2, o) for o in others)
    return out


CASES = _cases()


def test_enough_brute_force_cases() -> None:
    assert len(CASES) >= 50
    assert any(c[0] == 16 for c in CASES) and any(c[1] == 3 for c in CASES)
    assert any(c[6] is not None and c[6] not in (c[4], c[5], c[4] ^ c[5]) for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "K{}-tau{}-n{}-rho{}-{}{}-{}".format(*c))
def test_brute_force_against_real_shuffled_multiset(case) -> None:
    K, tau, n, rho, x, x2, other = case
    rest = [] if other is None else [other] * (n - 1)
    params = ggkpv_parameters(n=n, B=K - 1, rho=rho, tau=tau)
    real_p = _law(K, tau, [x] + rest, rho, labelled=False)
    real_q = _law(K, tau, [x2] + rest, rho, labelled=False)
    lab_p = _law(K, tau, [x] + rest, rho, labelled=True)
    lab_q = _law(K, tau, [x2] + rest, rho, labelled=True)
    full = count_pair(n * rho, tau, tail=None)  # whole support
    generic = other is not None and other not in (x, x2, x ^ x2)
    for eps in EPSILONS:
        real = _delta(real_p, real_q, eps)
        lab = _delta(lab_p, lab_q, eps)
        b = delta_bracket(params, eps)
        # soundness: the certified upper end dominates the real view's exact delta
        assert real <= float(b.upper) * (1 + 1e-12)
        # the count pair IS the labelled view (sufficiency; docs/ggkpv.md)
        lo, up = divergence.delta_bracket(full, eps)
        assert float(lo) - 1e-12 <= lab <= float(up) + 1e-12
        assert abs(float(up) - lab) <= 1e-10
        assert real <= lab + 1e-12  # the real view is a post-processing of the labelled one
        if generic:  # the lower end is one real neighbouring pair's (A, A') counts
            assert b.lower is not None and float(b.lower) <= real + 1e-12
        elif K < 8:
            assert b.lower is None


def test_real_view_counts_match_background_pair() -> None:
    """With the others on x'' (x ^ x' ^ x'' != 0), the (A, A') counts of the real view have
    exactly the law of count_pair(n rho + n - 1): enumerate and compare probabilities."""
    K, tau, n, rho, x, x2, other = 8, 1, 2, 2, 1, 2, 4
    codes = np.arange(K ** tau)
    in_x = np.isin(codes, _positive_codes(x, K, tau))
    in_x2 = np.isin(codes, _positive_codes(x2, K, tau))
    pair = count_pair(n * rho + n - 1, tau, tail=None)
    want = dict(zip(zip(*(c.tolist() for c in pair.coords), strict=True),
                    np.exp(pair.p).tolist(), strict=True))
    values = [x] + [other] * (n - 1)
    choices = ([np.asarray(_positive_codes(v, K, tau)) for v in values] + [codes] * (n * rho))
    rows = np.stack([g.ravel() for g in np.meshgrid(*choices, indexing="ij")], axis=1)
    a, a2 = in_x[rows].sum(axis=1), in_x2[rows].sum(axis=1)
    got: dict[tuple[int, int], float] = {}
    for key in zip(a.tolist(), a2.tolist(), strict=True):
        got[key] = got.get(key, 0.0) + 1.0 / rows.shape[0]
    assert set(got) <= set(want)
    for key, prob in want.items():
        assert abs(got.get(key, 0.0) - prob) <= 1e-12


def test_windowed_pair_agrees_with_full_support() -> None:
    params = ggkpv_parameters(n=50, B=7, rho=6)
    full = count_pair(params.noise_tuples, params.tau, tail=None)
    for eps in (0.5, 1.0):
        lo, up = divergence.delta_bracket(full, eps)
        b = delta_bracket(params, eps)
        assert float(b.pair_lower) <= float(up) and float(lo) <= float(b.upper)
        assert float(b.upper) - float(b.pair_lower) <= 1e-12 + 1e-9 * float(b.upper)


def test_epsilon_finite_and_decreasing_in_rho() -> None:
    values = [epsilon_bracket(ggkpv_parameters(n=2000, B=63, rho=r), 1e-6) for r in
              (20, 30, 45, 70, 100)]
    uppers = [float(b.upper) for b in values]
    assert all(math.isfinite(u) for u in uppers)
    assert all(a > b for a, b in zip(uppers, uppers[1:], strict=False))
    for b in values:
        assert float(b.lower) <= float(b.pair_lower) <= float(b.upper)
        assert float(b.upper) - float(b.lower) < 0.1  # real-view counts are close
    # too little noise: delta >= P(no tuple in C_x'^tau) ~ e^-rho > 1e-6, proved by the
    # lower end (one real neighbouring pair), not only by the upper end
    low_noise = epsilon_bracket(ggkpv_parameters(n=2000, B=63, rho=8), 1e-6)
    assert math.isinf(float(low_noise.lower)) and math.isinf(float(low_noise.upper))


def test_renyi_and_max_divergence_are_exactly_infinite() -> None:
    m = GGKPVHadamard(ggkpv_parameters(n=100, B=15, rho=10))
    for b in m.renyi([1.5, 2.0, 10.0, math.inf]) + [m.max_divergence()]:
        assert b.upper.kind is Kind.EXACT and math.isinf(float(b.upper))
        assert b.lower is b.upper and "C_x'^tau" in b.upper.method


def test_mechanism_contract() -> None:
    m = GGKPVHadamard(ggkpv_parameters(n=300, B=31, epsilon=1.0, delta=1e-6))
    assert m.name == "ggkpv-hadamard" and m.params()["rho"] == math.ceil(slides_rho(1, 1e-6))
    assert m.view_pair() is None
    pair = m.dominating_pair()
    assert pair is not None and pair.pair.size > 0 and "docs/ggkpv.md" in pair.proof
    b = m.epsilon_for_delta(1e-3)
    assert b.lower.kind is Kind.LOWER and b.upper.kind is Kind.UPPER
    assert float(b.lower) <= float(b.upper)
    d = m.delta_for_epsilon(1.0)
    assert float(d.lower) <= float(d.pair_lower) <= float(d.upper)


def test_calibration_is_least_and_certified() -> None:
    c = calibrate(n=2000, B=63, target_epsilon=1.0, target_delta=1e-6)
    assert float(c.epsilon) <= 1.0 and c.epsilon.kind is Kind.UPPER
    below = epsilon_bracket(ggkpv_parameters(n=2000, B=63, rho=c.rho - 1), 1e-6)
    assert float(below.upper) > 1.0
    assert c.rho_insufficient is not None and c.rho_insufficient < c.rho
    proof = epsilon_bracket(ggkpv_parameters(n=2000, B=63, rho=c.rho_insufficient), 1e-6)
    assert float(proof.lower) > 1.0  # the true least rho is above rho_insufficient
    assert c.slides_rho == pytest.approx(math.log(1e6))
    assert c.rho > c.slides_rho  # the slides' constant 1 is not enough here
    assert c.to_json()["heuristic_note"].startswith("heuristic")


def test_heuristic_is_labelled_and_not_a_bound() -> None:
    params = ggkpv_parameters(n=2000, B=63, rho=40)
    h = heuristic_epsilon(params, 1e-6)
    assert "heuristic" in h.method and "not a bound" in h.method
    b = epsilon_bracket(params, 1e-6)
    assert "heuristic" not in b.upper.method
    assert h is not b.upper and math.isfinite(float(h))


def test_parameters_are_validated() -> None:
    with pytest.raises(ParameterError):
        ggkpv_parameters(n=10, B=1, rho=3)
    with pytest.raises(ParameterError):
        ggkpv_parameters(n=10, B=7, rho=0)
    with pytest.raises(ParameterError):
        ggkpv_parameters(n=10, B=7, rho=3, epsilon=1.0, delta=1e-6)
    with pytest.raises(ParameterError):
        ggkpv_parameters(n=10, B=7)
    p = ggkpv_parameters(n=2000, B=63, epsilon=0.5, delta=1e-6)
    assert (p.K, p.tau, p.rho) == (64, 11, math.ceil(4 * math.log(1e6)))
    assert labelled_view(p).description["M"] == 2000 * p.rho
