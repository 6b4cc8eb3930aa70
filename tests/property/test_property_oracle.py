"""Property suite: every certified number of every protocol family, ViewPair backend and
ledger, on parameters drawn from the declared domains with their edges
(`verify.strategies`), against the independent oracle (`verify.oracle`, which imports
nothing from `accountant`), through the checks of `verify.selfcheck`:

- an `upper` is never below the truth (or below a lower bound on it: a member randomizer's
  exact value, a truncated sum), a `lower` never above it (or above an upper bound on it:
  epsilon0 for every divergence of an epsilon0-LDP view, 1 - e^(epsilon - epsilon0) for
  delta), an `exact` is both within its precision, and Bracket.lower <= Bracket.upper;
- a crash (any exception but a typed refusal) on a valid input is a violation; typed
  refusals (ParameterError, RegimeError, PrecisionError) are counted and printed.

Known, unfixed violations (`verify.strategies.KNOWN_VIOLATIONS`) are assume()d away
quantity by quantity; each has a strict-xfail reproducer in test_known_violations.py.

The default suite is a time-boxed, derandomized slice (about 40 s on a busy 2-core
machine); `pytest -m slow tests/property` checks >= 10,000 numbers. The last test of each
suite prints the counts and asserts them.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from accountant import (
    KRR,
    LDP,
    BalcerCheuHist,
    BalcerCheuZsum,
    BinaryRR,
    GKMCount,
    GKMP20Count,
)
from accountant.protocols.ggkpv import GGKPVHadamard
from accountant.protocols.randomizer import RandomizerMechanism
from verify import selfcheck as sc
from verify import strategies as S

# the last test (test_zz_*) checks the totals that the others add up in this module:
# under `pytest -n 2` all of them run on one worker (tests/conftest.py)
pytestmark = pytest.mark.xdist_group("property-oracle")

CHECKERS = {"default": sc.Checker(skip_known=False), "slow": sc.Checker(skip_known=False)}
RAN: dict[str, set[str]] = {"default": set(), "slow": set()}
EXCLUDED: dict[str, dict[str, int]] = {"default": {}, "slow": {}}
MIN_CASES = {"default": 1200, "slow": 10_000}

# examples per family: (default, slow); GKM's oracle sums its 2-D view in mpmath (~1 s)
EXAMPLES = {
    BinaryRR: (25, 150), KRR: (14, 120), LDP: (14, 120), RandomizerMechanism: (15, 150),
    BalcerCheuZsum: (15, 120), BalcerCheuHist: (10, 60), GKMCount: (3, 20),
    GKMP20Count: (3, 20), GGKPVHadamard: (15, 80),
}
LEDGER_EXAMPLES = (8, 150)
VIEW_EXAMPLES = (40, 250)
EXACT_VIEW_EXAMPLES = (30, 250)


def _settings(examples: int) -> settings:
    # derandomized and without shrinking: reproducible in CI, and a violation's message
    # already carries its reproducer (shrinking through mpmath oracles costs minutes)
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


def _run(suite: str, name: str, case: object, *args: object, **kwargs: object) -> None:
    checker = CHECKERS[suite]
    before = len(checker.violations)
    case(checker, *args, **kwargs)  # type: ignore[operator]
    RAN[suite].add(name)
    new = checker.violations[before:]
    assert not new, "\n".join(str(v) for v in new)


def _exclude(suite: str, reason: str) -> None:
    EXCLUDED[suite][reason] = EXCLUDED[suite].get(reason, 0) + 1


# ------------------------------------------------------------------ mechanisms
def _mechanism_test(cls: type, suite: str) -> object:
    examples = EXAMPLES[cls][0 if suite == "default" else 1]

    @_settings(examples)
    @given(args=S.family_args(cls), epsilon_fraction=S.EPSILON_POINT.strategy(),
           delta=S.DELTA_POINT.strategy(),
           alphas=st.lists(S.ALPHA_POINT.strategy(), min_size=1, max_size=3))
    def test(args: dict, epsilon_fraction: float, delta: float, alphas: list) -> None:
        point = {"epsilon_fraction": epsilon_fraction, "delta": delta, "alphas": alphas}
        quantities = []
        for quantity in ("delta", "epsilon", "renyi", "max"):
            reason = S.known_violation(cls, args, quantity, point)
            if reason is None:
                quantities.append(quantity)
            else:
                _exclude(suite, reason)
        assume(quantities)
        _run(suite, cls.__name__, sc.mechanism_case, cls, args,
             epsilon_fraction=epsilon_fraction, delta=delta, alphas=alphas,
             quantities=tuple(quantities))

    test.__doc__ = (f"{cls.__name__}: every privacy number against the oracle "
                    f"({suite} suite, {examples} examples)")
    return pytest.mark.slow(test) if suite == "slow" else test


for _cls in S.FAMILIES:
    globals()[f"test_{_cls.__name__}"] = _mechanism_test(_cls, "default")
    globals()[f"test_{_cls.__name__}_slow"] = _mechanism_test(_cls, "slow")


def test_every_family_is_under_test() -> None:
    """Adding a Mechanism to FAMILIES is what puts it under test: every protocol family
    the package exports has an entry (and so a test above)."""
    exported = {BinaryRR, KRR, LDP, RandomizerMechanism, BalcerCheuZsum, BalcerCheuHist,
                GKMCount, GKMP20Count, GGKPVHadamard}
    assert exported <= set(S.FAMILIES)
    assert set(EXAMPLES) == set(S.FAMILIES)


# ------------------------------------------------------------------ ledgers
def _ledger_test(suite: str) -> object:
    examples = LEDGER_EXAMPLES[0 if suite == "default" else 1]

    @_settings(examples)
    @given(case=S.ledger_args())
    def test(case: tuple) -> None:
        cls, args, kw = case
        reason = S.known_violation(cls, args, "ledger", kw)
        if reason is not None:
            _exclude(suite, reason)
        assume(reason is None)
        _run(suite, "ledger", sc.ledger_case, cls, args, **kw)

    test.__doc__ = (f"Accountant ledgers (1-3 rounds, Subsampled, add-remove, a ViewPair "
                    f"event) against brute-force products ({suite} suite)")
    return pytest.mark.slow(test) if suite == "slow" else test


test_ledger = _ledger_test("default")
test_ledger_slow = _ledger_test("slow")


# ------------------------------------------------------------------ ViewPair backends
@st.composite
def float_view_args(draw: st.DrawFn) -> dict:
    """Float PMF pairs (`selfcheck.random_pmf_pair` regimes: tiny masses down to 1e-300,
    near-equal, disjoint supports, exactly normalised dyadic) with the points' edges."""
    size = draw(st.integers(2, 6))
    regime = draw(st.sampled_from(["generic", "tiny", "near", "disjoint", "dyadic"]))
    p, q, normalised = sc.random_pmf_pair(random.Random(draw(st.integers(0, 2 ** 32))), size,
                                          regime)
    alpha = draw(S.ALPHA_POINT.strategy().filter(math.isfinite))
    return {"p": p, "q": q, "normalised": normalised,
            "backend": draw(st.sampled_from(["float", "mp"])),
            "direction": draw(st.sampled_from(["P||Q", "Q||P", "max"])),
            "epsilon": draw(S.VIEW_EPSILON.strategy()), "delta": draw(S.DELTA_POINT.strategy()),
            "alpha": alpha}


def _view_test(suite: str) -> object:
    examples = VIEW_EXAMPLES[0 if suite == "default" else 1]

    @_settings(examples)
    @given(args=float_view_args())
    def test(args: dict) -> None:
        reason = S.known_violation(type(None), args, "view", args)
        if reason is not None:
            _exclude(suite, reason)
        assume(reason is None)
        _run(suite, "view", sc.divergence_case, **args)

    test.__doc__ = f"float and mp ViewPairs: every divergence against the oracle ({suite})"
    return pytest.mark.slow(test) if suite == "slow" else test


def _exact_view_test(suite: str) -> object:
    examples = EXACT_VIEW_EXAMPLES[0 if suite == "default" else 1]

    @_settings(examples)
    @given(args=S.exact_pair_args())
    def test(args: dict) -> None:
        reason = S.known_violation(type(None), args, "exact_view", args)
        if reason is not None:
            _exclude(suite, reason)
        assume(reason is None)
        _run(suite, "exact_view", sc.exact_divergence_case, **args)

    test.__doc__ = (f"Fraction PMFs with gaps down to 1e-80 on the exact, mp and float "
                    f"backends against the oracle at 150 digits ({suite})")
    return pytest.mark.slow(test) if suite == "slow" else test


test_view = _view_test("default")
test_view_slow = _view_test("slow")
test_exact_view = _exact_view_test("default")
test_exact_view_slow = _exact_view_test("slow")


# ------------------------------------------------------------------ the counts
NAMES = {c.__name__ for c in S.FAMILIES} | {"ledger", "view", "exact_view"}


def _report(suite: str) -> None:
    missing = NAMES - RAN[suite]
    if missing:
        pytest.skip(f"property tests not run in this session: {sorted(missing)}")
    c = CHECKERS[suite]
    print(f"\n[{suite} property suite] {c.total} privacy numbers checked against the oracle, "
          f"{len(c.violations)} violations, {sum(c.infinite_uppers.values())} infinite "
          f"upper ends, {sum(c.refusals.values())} typed refusals")
    for check, count in sorted(c.cases.items()):
        print(f"  {check:48s} {count}")
    for reason, count in sorted(EXCLUDED[suite].items()):
        print(f"  excluded (known violation) x{count}: {reason}")
    for detail in c.refusal_details[:10]:
        print(f"  refusal: {detail[:300]}")
    for v in c.violations:
        print(f"  VIOLATION {v}")
    assert not c.violations
    assert c.total >= MIN_CASES[suite]


def test_zz_property_case_count() -> None:
    """Print and assert the default suite's count; runs last in this file."""
    _report("default")


@pytest.mark.slow
def test_zz_property_case_count_slow() -> None:
    """Print and assert the slow suite's count (>= 10,000)."""
    _report("slow")
