"""Issue 21, small sampling rates: the lower end of a sampled Gaussian's PLD bracket.

Two mechanisms ate it. (1) The connect-the-dots split of a piece needs the P- and Q-masses
of that piece to about 1e-10 relative at a 1e-6 grid, and a difference of two survival
functions gave 1e-7 in the tails: the split's uncertainty went to the `moved` ledger,
1.3e-4 per round, and the lower end of `Subsampled(GaussianNoise(1), 0.001)` x 1000 read 0.
(2) Each truncation of a measure read from both sides counted the whole error ledger as
moved mass again: 8e-7 of it at T = 1e4, delta = 1e-5, a 1 % lower end.
"""

import math
from functools import partial

import mpmath
import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.pld import privacy_loss_distribution as dpl

from accountant.composition import noise, pld
from accountant.composition.noise import NoisePair


def _exact_gauss_mass(centre: float, half: float, shift: float = 0.0) -> mpmath.mpf:
    """The standard Gaussian mass of [centre - half, centre + half] - shift, in 60 digits
    (the ends are formed exactly: rounding them is what the enclosures must cover)."""
    with mpmath.workdps(60):
        # the mirror image has the same mass: erfc of positive arguments keeps its digits
        m, c = abs(mpmath.mpf(centre) - mpmath.mpf(shift)), mpmath.mpf(half)
        return (mpmath.erfc((m - c) / mpmath.sqrt(2)) - mpmath.erfc((m + c) / mpmath.sqrt(2))) / 2


def test_narrow_gauss_mass_encloses_and_is_tight():
    rng = np.random.default_rng(21)
    centres = rng.uniform(-30, 30, 400)
    halves = 10.0 ** rng.uniform(-9, -0.5, 400)
    lo, hi = noise._narrow_gauss_mass(centres, centres, halves)
    applies = 0
    for m, c, a, b in zip(centres, halves, lo, hi, strict=True):
        exact = _exact_gauss_mass(m, c)
        assert a <= exact <= b, (m, c)
        if abs(m) * c <= 1 and c <= 0.5 and abs(m) <= 37 and exact > 1e-290:
            applies += 1
            # series truncation c^8/3500 plus rounding (about u m^2): far below the 1e-7
            # of the survival-function differences it replaces in the tails
            assert (b - a) <= (2e-14 * (4 + m * m) + c ** 8 / 1000) * float(exact), (m, c)
        else:
            assert a == 0 and b == math.inf
    assert applies > 200


@pytest.mark.parametrize("top", [1e-6, 1e-3, 0.05, 1.0])
def test_cosh_series_cut_early_still_encloses(top):
    """A batch of small |x| stops the series once the first omitted term is below 1e-20
    (5 terms at 1e-2 instead of 12): every bound still encloses S_k(x) from 50 digits."""
    x = np.concatenate([np.random.default_rng(7).uniform(0, top, 60), [0.0, top]])
    moments = noise._cosh_moments_upto(x, 4)
    with mpmath.workdps(50):
        for k, (low, high) in enumerate(moments):
            for xi, a, b in zip(x, low, high, strict=True):
                exact = mpmath.nsum(lambda j, xi=xi, k=k: mpmath.mpf(xi) ** (2 * j)
                                    / (mpmath.factorial(2 * j) * (2 * k + 2 * j + 1)),
                                    [0, mpmath.inf])
                assert a <= exact <= b, (k, xi)
                assert b - a <= 1e-13 * exact


@pytest.mark.parametrize("order", ["remove", "add"])
def test_narrow_pieces_have_tight_masses_for_both_laws(order):
    pair = NoisePair("gaussian", 1.0, 0.001, "add-remove")
    a = np.array([-7.3, -4.751353037781716, -2.5, -0.3, 0.4, 2.2, 5.0])
    b = a + np.array([1e-8, 3.7e-9, 1e-6, 9e-4, 2e-3, 8e-3, 6e-2])
    for law in (0, 1):
        lo, hi = pair._upper_mass(a, b, order, law=law)
        assert np.all(lo <= hi)
        with mpmath.workdps(50):
            for left, right, m_lo, m_hi in zip(a, b, lo, hi, strict=True):
                comps = pair._mixtures(order)[law]
                mid = (mpmath.mpf(left) + mpmath.mpf(right)) / 2
                half = (mpmath.mpf(right) - mpmath.mpf(left)) / 2
                exact = sum(mpmath.mpf(w) * _exact_gauss_mass(mid, half, c)
                            for w, _, c in comps)
                assert m_lo <= exact <= m_hi
                assert m_hi - m_lo <= 1e-12 * float(exact), (left, right)


def test_one_round_split_moves_no_mass_on_a_fine_grid():
    """The mechanism of the collapse: at a 1e-6 grid the old split put 1.3e-4 of P-mass
    per round on the moved ledger (T = 1000 rounds: 0.13, far above any delta); 3.4e-5 at
    the 2e-6 grid used here, and a drift of 2.2e-10."""
    pair = NoisePair("gaussian", 1.0, 0.001, "add-remove")
    for one in pair.loss_pmfs(2e-6, True, 1e-13, connect=True):
        assert one.moved < 1e-12
        assert one.drift < 1e-10     # the split's uncertainty, as a mean shift
        assert abs(float(np.sum(one.mass)) - 1) < 1e-9


def _dp_accounting_epsilon(sigma: float, q: float, rounds: int, relation: str,
                           pessimistic: bool, width: float = 2e-5) -> float:
    rel = (NeighboringRelation.ADD_OR_REMOVE_ONE if relation == "add-remove"
           else NeighboringRelation.REPLACE_ONE)
    sensitivity = 1.0  # dp_accounting's replace-one Gaussian moves by 2 itself
    one = dpl.from_gaussian_mechanism(sigma, sensitivity=sensitivity, sampling_prob=q,
                                      pessimistic_estimate=pessimistic,
                                      value_discretization_interval=width,
                                      use_connect_dots=pessimistic,
                                      neighboring_relation=rel)
    return float(one.self_compose(rounds).get_epsilon_for_delta(1e-5))


@pytest.mark.parametrize("relation", ["add-remove", "substitute"])
def test_fine_grid_bracket_is_tight_and_holds_dp_accounting(relation):
    """Before: [0, 0.0552] (add/remove) at a 2e-6 grid (the refinement of `compose_views`
    went to 1e-6 by itself at T = 1000); now [0.05507, 0.05517], dp_accounting 0.05517."""
    pair = NoisePair("gaussian", 1.0, 0.001, relation)
    out = pld.compose_views([(pair, 100)], delta=1e-5, discretization=2e-6)
    upper, lower = float(out.upper), float(out.lower)
    assert 0 < lower <= upper
    assert upper - lower <= 0.01 * upper
    # dp_accounting's pessimistic PLD is above the truth, its optimistic one below
    # (up to its own truncation): each must sit on its side of our certified ends
    assert lower <= _dp_accounting_epsilon(1.0, 0.001, 100, relation, True)
    assert upper >= _dp_accounting_epsilon(1.0, 0.001, 100, relation, False)


def test_automatic_refinement_keeps_the_lower_end():
    """The issue's case: add/remove, sigma = 1, q = 0.001, T = 1000 reported [0, 0.14891]
    (the refinement went to 1e-6, where the lower end collapsed)."""
    pair = NoisePair("gaussian", 1.0, 0.001, "add-remove")
    out = pld.compose_views([(pair, 1000)], delta=1e-5)
    upper, lower = float(out.upper), float(out.lower)
    assert upper - lower <= 0.008 * upper
    assert lower <= _dp_accounting_epsilon(1.0, 0.001, 1000, "add-remove", True)
    assert upper >= _dp_accounting_epsilon(1.0, 0.001, 1000, "add-remove", False)


def test_long_composition_does_not_count_the_ledger_as_moved_mass():
    """sigma = 0.5, q = 0.001, T = 1e4: before, [3.971, 5.2295] (auto) and 8.2e-7 of moved
    mass at a 2e-5 grid (every truncation counted the whole ledger again)."""
    pair = NoisePair("gaussian", 0.5, 0.001, "add-remove")
    tail = pld.truncation_tail([(pair, 10_000)], 1e-5)
    measures = pld.compose_measures([(pair, 10_000)], 2e-5, tail=tail, connect=True)
    one = pair.loss_pmfs(2e-5, True, tail, connect=True)
    for composed, single in zip(measures, one, strict=True):
        # the split's own moves, composed (T of them), nothing more
        assert composed.moved <= 1.01 * 10_000 * single.moved + 1e-12
        assert composed.error < 1e-7
    out = pld.compose_views([(pair, 10_000)], delta=1e-5)
    upper, lower = float(out.upper), float(out.lower)
    assert upper - lower <= 0.008 * upper
    assert lower <= _dp_accounting_epsilon(0.5, 0.001, 10_000, "add-remove", True, 1e-4)
    assert upper >= _dp_accounting_epsilon(0.5, 0.001, 10_000, "add-remove", False, 1e-4)


def _h(mass: np.ndarray, offset: int, width: float, infinity: float, eps: float) -> float:
    losses = (np.arange(mass.size) + offset) * width
    live = losses > eps
    return float(np.sum(-np.expm1(eps - losses[live]) * mass[live])) + infinity


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_truncation_of_a_two_sided_measure_keeps_both_readings_sound(seed):
    """A stored measure s = nu + e (|e|_1 within the ledger) read from both sides: after
    the tails are cut, the upper reading is still above H(nu) and the lower one below, and
    the moved ledger has not grown by the error ledger."""
    rng = np.random.default_rng(seed)
    width = 0.01
    grid = np.arange(-300, 900)
    nu = np.exp(-0.5 * ((grid - 200) / 80.0) ** 2)
    nu /= nu.sum()
    noise_ = rng.normal(0, 1e-9, nu.size)
    stored = np.maximum(nu + noise_, 0.0)
    err = float(np.sum(np.abs(stored - nu))) * 1.0001
    m = pld.LossPmf(width, int(grid[0]), stored, 0.0, err, True, moved=1e-12, drift=0.0,
                    spread=1e-30)
    cut = pld.truncate(m, 1e-4)
    assert cut.mass.size < m.mass.size          # something was cut
    assert cut.moved == m.moved
    assert err < cut.error <= err + 2.1e-4
    low = pld.reading._from_below(cut)
    for eps in (0.0, 1.0, 2.0, 3.0, 4.0, 5.0):
        truth = _h(nu, int(grid[0]), width, 0.0, eps)
        assert pld.delta_of(cut, eps) >= truth
        assert pld.delta_of(low, eps) <= truth


def test_an_outcome_limit_is_not_retried_at_coarser_widths():
    """A clones pair with more (c, x) outcomes than the PLD route enumerates (n = 1e6,
    epsilon0 = 0.44, delta 4.7e-24: about 1.3e8) is refused at once: the refusal does not
    depend on the width, and compose_views once coarsened its grid for ever on it (the hang
    of the CI run of 866182c, through the Laplace property test). The accountant then
    answers by its other routes, with a finite upper end at most epsilon0."""
    from accountant.composition import Accountant
    from accountant.composition.pld import OutcomeLimitError
    from accountant.pairs import clones
    from accountant.result import Kind

    pair = clones.fmt_clones(n=10**6, epsilon0=0.4423462458975618)
    with pytest.raises(OutcomeLimitError, match="outcomes"):
        pld.compose_views([(pair, 1)], delta=4.708275098127637e-24)
    from accountant.protocols.continuous import LaplaceRandomizer
    b = Accountant().compose(LaplaceRandomizer(n=10**6, scale=2.2606725145161044)) \
        .get_epsilon(4.708275098127637e-24)
    assert b.upper.kind is Kind.UPPER
    assert 0 < b.upper.value <= 1 / 2.2606725145161044 * (1 + 1e-12)


def test_a_tail_reading_sums_the_same_atoms_as_the_whole_grid():
    """`_h_sum` starts a bucket below eps instead of passing over the whole grid (40 s of
    bisections at 4.4e7 cells): it must keep every atom above eps, including those on grid
    points next to eps, on grids with negative and positive offsets: the same sum, bit for
    bit, as the full pass it replaced."""
    rng = np.random.default_rng(7)

    def full(p, eps):
        losses = (np.arange(p.mass.size) + p.offset) * p.width
        live = losses > eps
        terms = -np.expm1(eps - losses[live]) * p.mass[live]
        return float(np.sum(terms)) + p.infinity, float(np.sum(p.mass[live]))

    for offset, width in ((-700, 1e-3), (3, 0.1), (-5, 0.37), (0, 2e-4)):
        mass = rng.random(1000) * 1e-3
        p = pld.LossPmf(width, offset, mass, 1e-9, 0.0, True)
        grid = [(k + offset) * width for k in (0, 1, 499, 500, 998, 999)]
        for eps in [0.0, -1.0, 1e-12, 1e6, *grid, *(g + 1e-15 for g in grid),
                    *(g - 1e-15 for g in grid), *(float(e) for e in rng.uniform(-1, 100, 20))]:
            h, _ = pld.reading._h_sum(p, eps)
            assert h == full(p, eps)[0], (offset, width, eps)


def test_a_probe_with_no_finite_upper_end_is_not_refined(monkeypatch):
    # discrete Laplace x 1e4 at delta 5e-324: the 0.05 probe certifies no finite upper end
    # (its ledger and +inf atom exceed delta); the 1e-3 probe took 17 s to say so again, and
    # the 2e-4 default then spanned 3.7e7 cells (over 60 s for the call). Now one probe,
    # whose own grid is the start (no finer grid has a smaller ledger).
    from accountant.composition import DiscreteLaplaceNoise

    items = [(DiscreteLaplaceNoise(1.0, 1).view("substitute"), 10_000)]
    widths = []
    inner = pld.compose._compose_side

    def counted(mechanisms, width, *args, **kwargs):
        widths.append(width)
        return inner(mechanisms, width, *args, **kwargs)

    monkeypatch.setattr(pld.compose, "_compose_side", counted)
    tail = pld.truncation_tail(items, 5e-324)
    reads = (partial(pld.epsilon_of, delta=5e-324), partial(pld.lower_epsilon_of, delta=5e-324))
    width, low = pld.compose._width_for_gap(items, 5e-324, None, 0.008, tail, reads, None)
    assert set(widths) == {0.05} and low == 0.0
    assert width == 0.05


@pytest.mark.parametrize("rounds", [2, 10, 10_000])
def test_one_sided_atoms_compose_to_infinity_at_both_ends(rounds):
    # P puts 0.2 where Q has none: T rounds keep 1 - 0.8^T of P at +inf loss, far above
    # delta, so eps(delta) is +inf exactly. The +inf atom's T-fold mass once overflowed
    # (s^T e^(T log1p(inf/s)): OverflowError at T = 1e4, GKMP20 with lam = 1), and the lower
    # reading stopped at the top grid loss (a lower end of 2.1 at T = 2)
    from accountant.view import ViewPair

    pair = ViewPair.from_arrays(np.array([0.5, 0.3, 0.2]), np.array([0.6, 0.4, 0.0]))
    got = pld.compose_views([(pair, rounds)], delta=1e-5)
    assert got.upper.value == math.inf and got.lower.value == math.inf
    # delta far out: the +inf atoms' mass, 1 - 0.8^T, between both ends
    far = pld.compose_views([(pair, rounds)], epsilon=50.0, discretization=1e-2)
    truth = 1 - 0.8 ** rounds
    assert far.lower.value <= truth <= far.upper.value
    assert far.upper.value - far.lower.value <= 1e-4 * truth
