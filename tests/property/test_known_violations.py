"""Explicit cases of the property suite: the violations it found and the ones reported to it
(all fixed by 15:20 on 2026-11-26, so no strict xfail is left).

Each case runs the same check as the randomized tests (`verify.selfcheck`, against the
independent oracle) on one reproducer. A violation not yet fixed is marked
`xfail(strict=True)` with its reproducer: when the fix lands the case passes, the strict
xfail fails, and the mark (and the matching entry of `verify.strategies.KNOWN_VIOLATIONS`,
which the randomized tests assume() away) is to be removed. Fixed ones stay as regressions.
The oracle's truths are in /tmp/property_violations.md (at >= 60 digits).
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from fractions import Fraction

import mpmath
import pytest

from accountant import KRR, LDP, BinaryRR
from accountant.protocols.randomizer import RandomizerMechanism
from verify import oracle
from verify import selfcheck as sc
from verify import strategies as S


def _violations(cls: type, args: dict, *, epsilon_fraction: float = 0.5, delta: float = 1e-6,
                alphas: tuple = (2.0,), quantities: tuple = ("delta", "epsilon", "renyi",
                                                             "max")) -> list:
    checker = sc.Checker(skip_known=False)
    sc.mechanism_case(checker, cls, args, epsilon_fraction=epsilon_fraction, delta=delta,
                      alphas=list(alphas), quantities=quantities)
    assert checker.total > 0
    return [str(v) for v in checker.violations]


# ------------------------------------------------------------------ found here, not fixed
@pytest.mark.parametrize(("epsilon0", "k", "truth"), [
    (1.0, 10 ** 6, "1.71827715769575293881428946540333610942259762066183409487e-6"),
    # here the lower end also crosses the blanket upper end (PrecisionError)
    (0.5, 300_000, "2.16239235170218104414865682913978648723263747530154028397e-6"),
])
def test_k_rr_special_pair_lower_end_at_large_k(epsilon0: float, k: int, truth: str) -> None:
    """Found here (fixed): KRR(n=2, k >= 1e5).delta_for_epsilon(0.0): the special pair's
    certified lower end lay above the truth (oracle: every neighbouring pair, outputs lumped
    exactly), at k = 3e5 above the blanket upper end too (PrecisionError)."""
    with oracle.digits(80):
        t = max(oracle.hockey_stick(P, Q, 0) for P, Q in oracle.k_rr_pairs(2, epsilon0, k))
        assert abs(t / mpmath.mpf(truth) - 1) < 1e-50
    for fraction in (0.0, 0.9, 0.99):
        assert _violations(KRR, {"n": 2, "epsilon0": epsilon0, "k": k},
                           epsilon_fraction=fraction, quantities=("delta",)) == []


@pytest.mark.parametrize(("cls", "args", "truth"), [
    # silently: the upper end 0.21944835916148187 is below the truth
    (KRR, {"n": 10 ** 9, "epsilon0": 10.0, "k": 2},
     "5.45965604391792711576279334862430275212498431967608818241"),
    # PrecisionError "certified ends cross" against the special pair's lower end
    pytest.param(BinaryRR, {"n": 10 ** 9, "epsilon0": 10.0},
                 "5.45965604391792711576279334862430275212498431967608818241",
                 marks=pytest.mark.slow),
    (LDP, {"n": 10 ** 6, "epsilon0": 5.0, "member": [[1.0, 0.0], [0.0, 1.0]]},
     "4.32839799088728186654498572530832332084286699026699400580"),
    # a negative upper end, -0.000113695; the truth is >= 0
    pytest.param(KRR, {"n": 10 ** 9, "epsilon0": 1.0, "k": 100}, "0", marks=pytest.mark.slow),
], ids=["KRR-k2", "BinaryRR", "LDP", "KRR-k100"])
def test_renyi_upper_end_at_order_1e4_and_large_n(cls: type, args: dict, truth: str) -> None:
    """Found here (fixed in 0881a2b): the clones / blanket pairs' Renyi upper end at order
    1e4 (n >= 1e6) lay below a real neighbouring pair's value: the special pair's two-point
    coarsening "did anyone report x'" (oracle, any n) exceeded it; for binary RR the full
    special pair summed over every count agrees with it to 60 digits (the count 0
    dominates)."""
    with oracle.digits(70):
        e = mpmath.exp(mpmath.mpf(args["epsilon0"]))
        low = 1 / (e + args.get("k", 2) - 1)
        P, Q = oracle.no_report_pair(args["n"], e * low, low)
        lower = oracle.renyi(P, Q, 10000.0, "max")
        assert lower >= mpmath.mpf(truth) - mpmath.mpf(10) ** -50
    assert _violations(cls, args, alphas=(10000.0,), quantities=("renyi",)) == []


def _in_two_gigabytes(n: int) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 ** 3, 2 * 1024 ** 3))
        from accountant import BinaryRR
        b = BinaryRR(n={n}, epsilon0=1.0).epsilon_for_delta(1e-300)
        assert b.upper.value <= 1.0, b
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)


def test_binary_rr_huge_n_tiny_delta_fits_in_memory() -> None:
    """Found here (fixed): BinaryRR(n=10**9).epsilon_for_delta(1e-300) allocated n + 1
    entries (7.45 GiB): run in a child process limited to 2 GB of address space, it must
    answer."""
    done = _in_two_gigabytes(10 ** 9)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_memory_limited_child_answers_at_n_1e6() -> None:
    """Control for the case above: the same child process answers at n = 10**6, so a
    failure there is the allocation, not the limit or the imports."""
    done = _in_two_gigabytes(10 ** 6)
    assert done.returncode == 0, done.stderr[-2000:]


# ------------------------------------------------------------------ reported, now fixed
@pytest.mark.parametrize(("cls", "args", "point"), [
    # Renyi upper end collapsed to 8.6e-12 for epsilon0 >~ 37.5 (pairs/clones.py); truth
    # 37.99999999999999987443468831807881682247235113297527351486868743 (n = 4, order 2)
    (KRR, {"n": 4, "epsilon0": 38.0, "k": 2}, {"alphas": (2.0, 1.001, math.inf)}),
    (BinaryRR, {"n": 4, "epsilon0": 38.0}, {"alphas": (2.0, 1.001, 100.0)}),
    (LDP, {"n": 4, "epsilon0": 38.0, "member": [[1.0, 0.0], [0.0, 1.0]]},
     {"alphas": (2.0, 1.001)}),
    (KRR, {"n": 4, "epsilon0": 40.0, "k": 3}, {"alphas": (2.0, 8.0)}),  # ZeroDivisionError
    (KRR, {"n": 3, "epsilon0": 50.0, "k": 100}, {"alphas": (1.001,)}),
    # epsilon_for_delta at subnormal delta: math domain error
    (KRR, {"n": 3, "epsilon0": 2.0, "k": 3}, {"delta": 5e-324}),
    (KRR, {"n": 3, "epsilon0": 22.234505624889557, "k": 2}, {"delta": 5e-324}),
    (KRR, {"n": 4, "epsilon0": 0.00512365941539172, "k": 4}, {"delta": 1e-320}),
    # delta_for_epsilon at large epsilon0: OverflowError
    (KRR, {"n": 2, "epsilon0": 48.37742322863073, "k": 2}, {"epsilon_fraction": 1.0}),
    (KRR, {"n": 4, "epsilon0": 50.0, "k": 100}, {"epsilon_fraction": 1.2837896981588582}),
], ids=lambda v: getattr(v, "__name__", None) or ",".join(f"{k}={x}" for k, x in v.items()
                                                          if k != "member"))
def test_reported_violations_stay_fixed(cls: type, args: dict, point: dict) -> None:
    """The violations reported with the brief and those found in the first runs of this
    suite (small n: the oracle's truth is exact; every quantity is checked)."""
    assert _violations(cls, args, **point) == []


def test_randomizer_entry_below_the_float_range_is_refused_or_right() -> None:
    """Found here (fixed by refusing the input): a matrix given as exact Fractions with an
    entry of 10^-330 is 759.16-LDP, but the special pair's float view read the entry as 0,
    so epsilon(1e-6)'s lower end was +inf (truth 759.159929507467130395...) and the
    order-877.3 Renyi lower end 759.1599335 was above the truth 759.158351521441671680...
    Either the construction refuses the entry by name or every number is right."""
    tiny = Fraction(1, 10 ** 330)
    args = {"n": 2, "matrix": [[tiny, 1 - tiny], [Fraction(1, 2), Fraction(1, 2)]]}
    with oracle.digits(80):
        truth = max(oracle.epsilon_for_delta(P, Q, 1e-6)
                    for P, Q in oracle.matrix_pairs(args["matrix"], 2))
        assert abs(truth - mpmath.mpf("759.159929507467130395186731599120607486169")) < 1e-30
    checker = sc.Checker(skip_known=False)
    sc.mechanism_case(checker, RandomizerMechanism, args, epsilon_fraction=0.5, delta=1e-6,
                      alphas=[877.3, 2.0])
    assert [str(v) for v in checker.violations] == []
    assert checker.total > 1 or sum(checker.refusals.values()) == 1


def test_lower_end_of_renyi_at_order_near_one_is_at_most_epsilon0() -> None:
    """KRR(n=1000, epsilon0=36.3, k=2).renyi([1.001])[0].lower was 37.0 > epsilon0 (every
    Renyi divergence of an epsilon0-LDP view is at most epsilon0; n is beyond the oracle's
    brute force, so this is the bound checked)."""
    assert _violations(KRR, {"n": 1000, "epsilon0": 36.3, "k": 2}, alphas=(1.001, 1.5),
                       quantities=("renyi", "max")) == []


def test_exact_backend_delta_at_epsilon_zero_with_a_1e60_gap() -> None:
    """The exact backend returned 0.0 (exact) for delta(0) of 1/2 +- 10^-60 against
    (1/2, 1/2); the truth is 10^-60 exactly (TV distance)."""
    checker = sc.Checker(skip_known=False)
    p, q = S.exact_pmf_pair("gap", 60, [1, 1])
    for backend in ("exact", "mp", "float"):
        for direction in ("P||Q", "Q||P", "max"):
            sc.exact_divergence_case(checker, p, q, backend=backend, direction=direction,
                                     exp_epsilon=Fraction(1), delta=Fraction(1, 10 ** 61),
                                     alpha=1.001)
    assert checker.total >= 30
    assert [str(v) for v in checker.violations] == []
