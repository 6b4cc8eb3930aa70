"""GKM Sec. 5 / footnote 2: truncated NB noise with a symmetrized input part.

The float views are checked against an independent brute force: every combination of every
user's outcomes enumerated in exact rationals (rational e^-eps', q and flood), no convolution.
The max-divergences are checked against the exact rational ratios of that brute force and
against the corner/post-processing closed forms (docs/gkm.md#truncated-noise)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from accountant.errors import ParameterError
from accountant.protocols.gkm import truncated_noise as t

R = Fraction(3, 5)          # e^-eps', so eps' = log(5/3)
EPS_PRIME = math.log(5 / 3)
Q = Fraction(1, 10)
B_FLOOD = Fraction(1, 3)


def _noise_exact(n: int, T: int) -> list[Fraction]:
    """NB(1/n, 1 - R) conditioned on <= T: C(k + 1/n - 1, k) R^k, normalised (rational)."""
    r = Fraction(1, n)
    w, c = [], Fraction(1)
    for k in range(T + 1):
        w.append(c * R**k)
        c = c * (r + k) / (k + 1)
    total = sum(w)
    return [x / total for x in w]


def _input_exact(x: int, s: int, reading: str) -> list[tuple[int, int, Fraction]]:
    if reading == "footnote":
        return [(s + x, s, 1 - Q), (s, s, Q)]
    if reading == "randomized":
        return [(s + 1, s, 1 - Q), (s, s, Q)] if x else [(s, s, 1 - Q), (s + 1, s, Q)]
    return [(s + x, s, 1 - Q), (0, 0, Q)]


def _brute_view(xs: list[int], s: int, T: int, reading: str) -> dict[tuple[int, int], Fraction]:
    """P(V+ = a, V- = b) by enumerating all users' (input, z+, z-, flood) outcomes."""
    n = len(xs)
    noise = _noise_exact(n, T)
    flood = [1 - B_FLOOD, B_FLOOD]
    per_user = []
    for x in xs:
        outs = {}
        for (yp, ym, w), zp, zm, f in itertools.product(_input_exact(x, s, reading),
                                                        range(T + 1), range(T + 1), (0, 1)):
            key = (yp + zp + f, ym + zm + f)
            outs[key] = outs.get(key, 0) + w * noise[zp] * noise[zm] * flood[f]
        per_user.append(list(outs.items()))
    view: dict[tuple[int, int], Fraction] = {}
    for combo in itertools.product(*per_user):
        a = sum(o[0][0] for o in combo)
        b = sum(o[0][1] for o in combo)
        p = Fraction(1)
        for o in combo:
            p *= o[1]
        view[(a, b)] = view.get((a, b), 0) + p
    return view


def _float_flood() -> np.ndarray:
    return t.bernoulli_flood_pmf(float(B_FLOOD))


@pytest.mark.parametrize("reading", t.READINGS)
@pytest.mark.parametrize("n, ones, s, T", [(2, 0, 1, 1), (2, 1, 2, 2), (3, 1, 1, 1)])
def test_view_matches_the_exact_brute_force(reading, n, ones, s, T):
    vp, vq = t.view_pair(n=n, ones=ones, epsilon_prime=EPS_PRIME, q=float(Q), s=s,
                         truncation=T, flood=_float_flood(), reading=reading)
    for v, x1 in ((vp, 1), (vq, 0)):
        exact = _brute_view([x1] + [1] * ones + [0] * (n - 1 - ones), s, T, reading)
        assert sum(exact.values()) == 1
        got = {(int(a), int(b)) for a, b in zip(*np.nonzero(v.support), strict=True)}
        assert got == set(exact)  # the boolean supports are exactly the exact support
        assert not np.any(v.pmf[~v.support])
        for (a, b), p in exact.items():
            # within the certified relative error (float rounding of 5/3 adds ~1e-16)
            assert abs(v.pmf[a, b] / float(p) - 1) <= v.rel_error + 1e-15
        assert v.rel_error < 1e-12


@pytest.mark.parametrize("reading", t.READINGS)
def test_max_divergence_equals_the_exact_rational_one(reading):
    n, s, T = 3, 1, 1
    for ones in range(n):
        p = _brute_view([1] + [1] * ones + [0] * (n - 1 - ones), s, T, reading)
        q = _brute_view([0] + [1] * ones + [0] * (n - 1 - ones), s, T, reading)
        pq, qp = t.max_divergence(n=n, ones=ones, epsilon_prime=EPS_PRIME, q=float(Q), s=s,
                                  truncation=T, flood=_float_flood(), reading=reading)
        for a, b, br in ((p, q, pq), (q, p, qp)):
            if set(a) - set(b):
                assert br.lower.value == br.upper.value == math.inf
                continue
            exact = math.log(max(a[k] / b[k] for k in a))
            assert br.lower.value <= exact <= br.upper.value
            assert br.upper.value - br.lower.value < 1e-10


@pytest.mark.parametrize("n, T", [(2, 0), (3, 2), (4, 5)])
def test_closed_forms_hold_at_every_dataset(n, T):
    # the corners of V+ - V- give the lower ends, post-processing of user 1's input part (and
    # P_X >= q P_X' for the footnote reading) the upper ends: flat in n and T
    q = 0.2
    fl = t.truncated_poisson_pmf(mean=3.0, truncation=3)
    kw = {"n": n, "epsilon_prime": 0.5, "q": q, "s": 3, "truncation": T, "flood": fl}
    for ones in range(n):
        pq, qp = t.max_divergence(ones=ones, reading="footnote", **kw)
        assert pq.lower.value == math.inf
        assert qp.lower.value <= math.log(1 / q) <= qp.upper.value
        for br in t.max_divergence(ones=ones, reading="randomized", **kw):
            assert br.lower.value <= math.log((1 - q) / q) <= br.upper.value
    assert t.closed_form(q=q, reading="footnote") == (math.inf, pytest.approx(math.log(5)))


def test_footnote_mismatch_is_at_the_top_of_the_difference():
    # the corner argument's points, V+ - V- = ones + 1 + n T, are reached by x1 = 1 and never
    # by x1 = 0 (the 2-D view has further points x1 = 0 cannot reach)
    n, ones, s, T = 3, 1, 2, 2
    vp, vq = t.view_pair(n=n, ones=ones, epsilon_prime=0.5, q=0.1, s=s, truncation=T,
                         flood=t.bernoulli_flood_pmf(0.5), reading="footnote")
    a, b = np.indices(vp.pmf.shape)
    top = (a - b) == ones + 1 + n * T
    assert np.any(vp.support & top) and not np.any(vq.support & top)
    assert int(np.max((a - b)[vq.support])) == ones + n * T
    assert t.support_mismatch_mass(n=n, ones=ones, epsilon_prime=0.5, q=0.1, s=s,
                                   truncation=T, flood=t.bernoulli_flood_pmf(0.5),
                                   reading="footnote") > 0


def test_delta_bracket_and_its_relations():
    kw = {"n": 3, "ones": 1, "epsilon_prime": 0.5, "q": 0.1, "s": 2,
          "flood": t.bernoulli_flood_pmf(0.5), "reading": "footnote"}
    d_small = t.delta_for_epsilon(epsilon=1.0, truncation=1, **kw)
    d_large = t.delta_for_epsilon(epsilon=1.0, truncation=6, **kw)
    # x1=1 || x1=0: at least the mass x1 = 0 cannot produce, and it shrinks as T grows
    for T, d in ((1, d_small), (6, d_large)):
        m = t.support_mismatch_mass(truncation=T, **kw)
        assert m <= d[0].upper.value and d[0].lower.value <= d[0].upper.value
    assert d_large[0].upper.value < d_small[0].lower.value
    # delta at eps = d_inf(X'||X) + margin is 0 for the reverse order
    qp = t.max_divergence(truncation=1, **kw)[1]
    assert t.delta_for_epsilon(epsilon=qp.upper.value + 1e-9, truncation=1,
                               **kw)[1].lower.value == 0.0


def test_noise_pmf_against_scipy_negative_binomial():
    from scipy import stats
    n, T, ep = 5, 7, 0.4
    pmf, err = t.noise_pmf(n=n, epsilon_prime=ep, truncation=T)
    ref = stats.nbinom.pmf(np.arange(T + 1), 1 / n, 1 - math.exp(-ep))
    assert np.allclose(pmf, ref / ref.sum(), rtol=1e-12, atol=0) and err < 1e-13


def test_grid_summary_and_bad_input():
    g = t.instance_grid(ns=(2, 3), truncations=(1, 3), epsilon_prime=0.5, q=0.1, s=2,
                        lam=10.0, flood_truncation=4)
    assert g.instances == 4 and g.pairs == 10 and g.footnote_infinite == 10
    assert g.footnote_reverse_gap < 1e-9 and g.randomized_gap < 1e-9
    with pytest.raises(ParameterError):
        t.view_pair(n=3, ones=3, epsilon_prime=0.5, q=0.1, s=1, truncation=1,
                    flood=t.bernoulli_flood_pmf(0.5), reading="footnote")
    with pytest.raises(ParameterError):
        t.closed_form(q=0.0, reading="footnote")
    with pytest.raises(ParameterError):
        t.input_law(1, q=0.1, s=1, reading="symmetric")
    with pytest.raises(ParameterError):
        t.user_view(ones=1, zeros=0, epsilon_prime=0.5, q=0.1, s=1, truncation=1,
                    flood=np.array([0.5, 0.6]), reading="footnote", n=1)
