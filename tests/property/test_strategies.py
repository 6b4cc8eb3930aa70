"""The draws of `verify.strategies` stay inside the declared domains and reach their edges,
and `selfcheck` draws the property suite's kinds from the same table."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import selfcheck as sc
from verify import strategies as S


def _scalar_draws() -> list:
    out = [S.EPSILON_POINT, S.DELTA_POINT, S.ALPHA_POINT, S.RATE, S.VIEW_EPSILON, S.K_SYMBOLS]
    for fam in S.FAMILIES.values():
        out += [d for d in fam.params.values() if isinstance(d, S.Real | S.Integer)]
    return out


def test_plain_draws_lie_in_their_declared_domains_and_hit_the_edges() -> None:
    """`sample` (selfcheck's draw) passes each parameter's `Interval.check`, and every
    edge that the domain admits is drawn."""
    rng = random.Random(5)
    for draw in _scalar_draws():
        seen = set()
        for _ in range(400):
            v = draw.sample(rng)
            draw.interval.check(v)
            assert draw.low <= v <= draw.high or v in draw.edges
            seen.add(v)
        assert {e for e in draw.edges if draw.interval.contains(e)} <= seen, draw.interval


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_hypothesis_draws_lie_in_their_declared_domains(data: st.DataObject) -> None:
    """`strategy` (the property tests' draw) passes each parameter's `Interval.check`."""
    for draw in _scalar_draws():
        draw.interval.check(data.draw(draw.strategy()))


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(raw=S.Matrix().strategy())
def test_matrix_draws_are_randomizers(raw: list) -> None:
    """Matrix draws are accepted by the library's validation (rows within 1e-9 of 1, entries
    in [0, 1]) and `normalise` gives the exact rows it then holds."""
    import pytest

    from accountant.errors import ParameterError
    from accountant.protocols.randomizer import Randomizer

    rows = S.Matrix.normalise(raw)
    assert all(sum(r, Fraction(0)) == 1 for r in rows)
    if S.below_float_range({"matrix": raw}):  # refused by name (and only then)
        with pytest.raises(ParameterError, match="below the float range"):
            Randomizer.from_rows(raw)
        return
    assert [list(r) for r in Randomizer.from_rows(raw).rows] == rows


def test_ldp_members_are_in_the_class() -> None:
    """`ldp_member_rows` mixes any matrix into the epsilon0-LDP class: every column ratio is
    at most e^epsilon0, checked at 60 digits."""
    rng = random.Random(7)
    for epsilon0 in (1e-3, 0.5, 3.0, 38.0):
        for _ in range(10):
            rows = S.ldp_member_rows(S.Matrix().sample(rng), epsilon0)
            with mpmath.workdps(60):
                bound = mpmath.exp(mpmath.mpf(epsilon0))
                for col in zip(*rows, strict=True):
                    if max(col) > 0:
                        assert min(col) > 0
                        ratio = max(col) / min(col)
                        assert mpmath.mpf(ratio.numerator) / ratio.denominator <= bound


def test_selfcheck_draws_the_property_kinds() -> None:
    """`selfcheck` mixes in mechanisms of FAMILIES, ledgers and exact ViewPairs, and finds
    no violation on a seeded sample (known violations counted apart)."""
    report = sc.run(seed=11, seconds=2.5)
    kinds = set(report["families"])
    assert any(k.startswith("mechanism.") for k in kinds)
    assert report["cases"] > 0
    assert report["violations"] == 0, report["details"]


def test_exact_pairs_are_probability_laws() -> None:
    """Every kind of exact pair sums to exactly 1 with nonnegative entries, including the
    gap 1e-60 the brief names."""
    for kind in ("gap", "cross", "tiny", "weights"):
        for gap in (1, 17, 60, 80):
            p, q = S.exact_pmf_pair(kind, gap, [3, 1, 4])
            assert sum(p) == 1 and sum(q) == 1
            assert min(p) >= 0 and min(q) >= 0
    p, q = S.exact_pmf_pair("gap", 60, [1])
    assert p[0] - q[0] == Fraction(1, 10 ** 60) and not math.isnan(float(p[0]))
