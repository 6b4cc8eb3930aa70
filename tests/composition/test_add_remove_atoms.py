"""The add/remove round's atoms (`composition.add_remove_atoms`) against 50-digit mpmath.

Each row's log-PMF is one Loader value plus running sums of log((m-k+1)/k) + logit p',
logit p' = log q - eps0 - log(1-q) taken from exact pieces, so p' near 1 (q = 0.9,
eps0 = 0.01: 1 - p' has few correct digits as a float) keeps the closed form; the same
steps give the losses log((1-q) + q rho). Every stated bound is checked where it is
tightest (50 digits, p' and P(m) from the exact q and eps0), and checked to be small."""


import math

import mpmath
import numpy as np
import pytest

from accountant.composition import pld
from accountant.composition.add_remove_atoms import add_remove_atoms, merged
from accountant.composition.subsampled import SubsampledPair
from accountant.pairs.clones import fmt_clones


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(50):
        yield


def _mp_atom(n_other: int, q: float, eps0: float, m: int, k: int):
    """(gain, log mass without) of outcome (m, k), exactly for the float q, eps0."""
    qq, r = mpmath.mpf(q), mpmath.exp(-mpmath.mpf(eps0))
    keep = 1 - qq + qq * r
    p1 = qq * r / keep

    def log_bin(nn, kk, p):
        return (mpmath.log(mpmath.binomial(nn, kk)) + kk * mpmath.log(p)
                + (nn - kk) * mpmath.log(1 - p))

    rho = mpmath.mpf(k) * (1 - p1) / ((m - k + 1) * p1)
    gain = mpmath.log((1 - qq) + qq * rho)
    return gain, log_bin(n_other, m, keep) + log_bin(m, k, p1)


CASES = [
    (2999, 0.2, 2.0),        # the usual regime
    (10**6 - 1, 0.9, 0.01),  # p' = 0.899 > 1/2: the 80 s case of issue 20
    (199, 0.999, 0.5),       # p' near 1
    (49, 0.3, 30.0),         # p' ~ 4e-14: K's window is {0, 1, ...}
    (3, 0.5, 1.0),           # tiny: rows reach k = m + 1 (an infinite loss)
]


@pytest.mark.parametrize("n_other, q, eps0", CASES)
def test_atoms_hold_their_bounds(n_other, q, eps0):
    atoms = add_remove_atoms(n_other, q, eps0, 1e-12)
    assert atoms.size == int(atoms.starts[-1]) > 0
    rows = np.searchsorted(atoms.starts, np.arange(atoms.size), side="right") - 1
    for i in np.unique(np.linspace(0, atoms.size - 1, 50).astype(int)):
        r = rows[i]
        m = int(atoms.rows_m[r])
        k = int(atoms.rows_k[r]) + int(i - atoms.starts[r])
        assert 0 <= k <= m
        gain, log_mass = _mp_atom(n_other, q, eps0, m, k)
        assert abs(mpmath.mpf(float(atoms.gain[i])) - gain) <= atoms.margin, (m, k)
        assert abs(mpmath.mpf(float(atoms.log_without[i])) - log_mass) <= atoms.err, (m, k)
    # a few ulps of the logs for the losses; the masses' bound is p''s 16 u (n + k)
    assert atoms.margin < 1e-12
    assert atoms.err < 64 * 2.0**-53 * (n_other + 100) + 1e-11
    # within a row the gains increase, by at most `step`
    for r in range(atoms.rows_m.size):
        g = atoms.gain[atoms.starts[r]:atoms.starts[r + 1]]
        assert np.all(np.diff(g) >= 0) and np.all(np.diff(g) <= atoms.step)


def test_infinite_loss_mass_is_that_of_k_past_m():
    """with || without puts q Bin(m, p')(m) of each row's P(m) at +inf (K + B = m + 1)."""
    n_other, q, eps0 = 3, 0.5, 1.0
    atoms = add_remove_atoms(n_other, q, eps0, 1e-12)
    qq, r = mpmath.mpf(q), mpmath.exp(-mpmath.mpf(eps0))
    keep = 1 - qq + qq * r
    p1 = qq * r / keep
    # every m of 0..3 is in the window and every row reaches k = m + 1
    assert list(atoms.rows_m) == [0, 1, 2, 3]
    truth = sum(mpmath.binomial(n_other, m) * keep**m * (1 - keep)**(n_other - m)
                * qq * p1**m for m in range(4))
    assert abs(atoms.inf_with - truth) <= atoms.inf_err * truth
    assert atoms.inf_without == 0.0


def test_every_user_sampled_is_all_infinite():
    atoms = add_remove_atoms(20, 1.0, 2.0, 1e-12)
    assert atoms.size == 0
    assert atoms.inf_with == atoms.inf_without
    assert abs(atoms.inf_with - 1.0) <= 1e-9


@pytest.mark.parametrize("width", [1e-6, 1e-3, 0.05])
@pytest.mark.parametrize("order", [0, 1])
def test_merged_runs_bracket_their_atoms(width, order):
    atoms = add_remove_atoms(10**5 - 1, 0.5, 0.05, 1e-12)
    runs_ = merged(atoms, width, order)
    least, greatest, log_mass, extra = runs_.least, runs_.greatest, runs_.log_mass, runs_.extra
    assert 0 <= extra < 1e-12
    loss = atoms.gain if order == 0 else -atoms.gain
    mass = np.exp(atoms.log_without + (atoms.gain if order == 0 else 0.0))
    runs = int(width * width / (8 * atoms.step))
    if runs <= 1:
        assert least is greatest and np.array_equal(least, loss)
        assert width * width < 16 * atoms.step
        return
    assert width * width >= 8 * atoms.step * runs
    # every atom falls in exactly one run of its own row, between that run's ends
    row = np.searchsorted(atoms.starts, np.arange(atoms.size), side="right") - 1
    per_row = (np.diff(atoms.starts) + runs - 1) // runs
    run_of = (np.cumsum(per_row) - per_row)[row] + (np.arange(atoms.size)
                                                   - atoms.starts[row]) // runs
    assert run_of[-1] + 1 == least.size
    assert np.all(least[run_of] <= loss) and np.all(loss <= greatest[run_of])
    assert np.all(greatest - least <= width * width / 8)
    sums = np.bincount(run_of, weights=mass)
    # the runs' log masses within `extra` of the sums (and the exp here: 2 u |log|)
    here = 4 * 2.0**-53 * float(np.max(np.abs(log_mass)))
    assert np.all(np.abs(log_mass - np.log(sums)) <= extra + here)



def test_too_many_atoms_are_refused_and_fewer_others_composed():
    """n = 1e9, q = 0.9, eps0 = 0.01: about 6.9e9 outcomes (110 GB kept) are refused at
    once, naming the parameters; the pair then composes fewer other users (a dominating
    pair: more users add an independent (M, K) to both views), whose atoms fit."""
    from accountant.composition.add_remove_atoms import MAX_ATOMS, atom_count
    from accountant.composition.pld import OutcomeLimitError
    with pytest.raises(OutcomeLimitError, match=r"n - 1 = 999999999, sampling_rate = 0\.9"):
        add_remove_atoms(10**9 - 1, 0.9, 0.01, 1e-12)
    source = SubsampledPair(fmt_clones(n=10**9, epsilon0=0.01), 0.9, "add-remove")
    used = source.others_used
    assert used < 10**9 - 1
    assert atom_count(used, 0.9, 0.01, 1e-12) <= MAX_ATOMS / 4
    assert source.description["others_used"] == used
    # the fewer others' pair dominates: its delta is at least the fuller pair's at a
    # size both can build (n = 2e5 against 5e4 others), and the ledger answers
    small = SubsampledPair(fmt_clones(n=200_001, epsilon0=0.3), 0.5, "add-remove")
    fewer = SubsampledPair(fmt_clones(n=50_001, epsilon0=0.3), 0.5, "add-remove")
    for a, b in zip(fewer.loss_pmfs(1e-3, True, 1e-12, connect=True),
                    small.loss_pmfs(1e-3, True, 1e-12, connect=True), strict=True):
        for eps in (0.0, 0.01, 0.03):
            assert pld.delta_of(a, eps) >= pld.delta_of(b, eps)


@pytest.mark.slow
def test_a_billion_users_add_remove_answers():
    """The ledger of 10 such rounds answers through the fewer others' pair (12 s; the
    whole pair was refused, and before the limit it built 6.9e9 atoms)."""
    from accountant.composition import Accountant, Subsampled
    from accountant.protocols.ldp import LDP
    bracket = Accountant("add-remove").compose(Subsampled(LDP(n=10**9, epsilon0=0.01), 0.9),
                                               10).get_epsilon(1e-5)
    assert math.isfinite(bracket.upper.value) and bracket.lower.value <= bracket.upper.value
    # and informative (the whole pair of n = 1e6 users gives 0.0257)
    assert bracket.upper.value < 0.03
