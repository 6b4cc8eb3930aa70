"""Connect-the-dots PLDs and the coupling lower end (accountant/composition/pld/,
docs/conversions.md#connect-the-dots), checked against exact compositions.

Truth: the composed privacy-loss distribution enumerated atom by atom in mpmath (40 digits)
from the view's float masses taken exactly; H(eps) = sum over losses > eps of
m (1 - e^(eps - l)), eps(delta) by bisection on it. The grid widths go far coarser than the
engine's defaults (0.3) so that a wrong split or a wrong coupling shift shows."""

import math

import mpmath
import numpy as np
import pytest

from accountant.composition import Accountant, GaussianNoise, Subsampled, pld
from accountant.composition.subsampled import SubsampledPair
from accountant.errors import ParameterError
from accountant.pairs import clones
from accountant.protocols import binary_rr
from accountant.protocols.binary_rr import BinaryRR

mpmath.mp.dps = 40


def _atoms(view) -> dict:
    out: dict = {}
    for lp, lq in zip(view.p, view.q, strict=True):
        if not np.isfinite(lp):
            continue
        p = mpmath.e ** mpmath.mpf(float(lp))
        loss = mpmath.inf if not np.isfinite(lq) else mpmath.mpf(float(lp)) - mpmath.mpf(
            float(lq))
        out[loss] = out.get(loss, 0) + p
    return out


def _composed(view, rounds: int) -> dict:
    one = _atoms(view)
    dist = {mpmath.mpf(0): mpmath.mpf(1)}
    for _ in range(rounds):
        new: dict = {}
        for l1, m1 in dist.items():
            for l2, m2 in one.items():
                new[l1 + l2] = new.get(l1 + l2, 0) + m1 * m2
        dist = new
    return dist


def _h(dist: dict, eps) -> mpmath.mpf:
    return mpmath.fsum(m * (1 - mpmath.e ** (eps - l)) if l != mpmath.inf else m
                       for l, m in dist.items() if l > eps)


def _eps(dists: list, delta: float):
    lo, hi = mpmath.mpf(0), mpmath.mpf(60)
    if max(_h(d, lo) for d in dists) <= delta:
        return lo
    for _ in range(80):
        mid = (lo + hi) / 2
        if max(_h(d, mid) for d in dists) > delta:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


VIEWS = [(2, 0.5), (3, 1.0), (5, 2.0)]


@pytest.mark.parametrize("n, eps0", VIEWS)
def test_one_round_is_the_chord_through_the_grid_values(n, eps0):
    # one atom split between its grid neighbours keeps its Q-mass: H agrees with the truth
    # at every grid point and lies above it (a chord of a convex curve) in between
    view = binary_rr.view_pair(n=n, epsilon0=eps0)
    width = 0.25
    pmf = pld.from_view(view, width, True, connect=True)
    truth = _composed(view, 1)
    for k in range(-2, 12):
        at = k * width
        h = pld.delta_of(pmf, at)
        exact = _h(truth, mpmath.mpf(at))
        assert exact <= h <= exact * (1 + 1e-12) + 1e-15, (k, h, exact)
        mid = _h(truth, mpmath.mpf(at + width / 3))
        assert pld.delta_of(pmf, at + width / 3) >= mid


@pytest.mark.parametrize("n, eps0", VIEWS)
@pytest.mark.parametrize("rounds", [1, 2, 5, 8])
@pytest.mark.parametrize("width", [0.3, 0.05, 0.007])
def test_both_ends_of_a_composition_bracket_the_exact_value(n, eps0, rounds, width):
    view = binary_rr.view_pair(n=n, epsilon0=eps0)
    dists = [_composed(view, rounds), _composed(view.swapped(), rounds)]
    measures = pld.compose_measures([(view, rounds)], width, tail=1e-30, connect=True)
    assert all(math.isfinite(m.spread) for m in measures)
    for eps in (0.0, 0.1, 0.5, 1.3):
        truth = max(_h(d, mpmath.mpf(eps)) for d in dists)
        upper = max(pld.delta_of(m, eps) for m in measures)
        lower = max(pld.lower_delta_of(m, eps) for m in measures)
        assert lower <= truth <= upper * (1 + 1e-12), (eps, lower, truth, upper)
    for delta in (1e-2, 1e-4, 1e-7):
        truth = _eps(dists, delta)
        upper = max(pld.epsilon_of(m, delta) for m in measures)
        lower = max(pld.lower_epsilon_of(m, delta) for m in measures)
        assert lower <= truth + 1e-12 and truth <= upper + 1e-12, (delta, lower, truth, upper)


def test_the_coupling_lower_end_is_not_vacuous():
    # 8 rounds on a 0.007 grid: the lower end within the coupling shift of the truth
    view = binary_rr.view_pair(n=3, epsilon0=1.0)
    dists = [_composed(view, 8), _composed(view.swapped(), 8)]
    truth = float(_eps(dists, 1e-4))
    out = pld.compose_views([(view, 8)], delta=1e-4, discretization=0.007)
    # with eta = delta/10 the lower end is at least eps(1.1 delta) less the shift tau(eta)
    # (the grid's H is above the truth, so its eps(delta + eta) is too)
    tau = 8 * 0.007 ** 2 / 8 + 0.007 * math.sqrt(8 * math.log(1e5) / 2)
    assert float(_eps(dists, 1.1e-4)) - tau * (1 + 1e-6) <= out.lower.value <= truth
    assert truth <= out.upper.value <= truth + 1e-3   # second order: 8 (0.007)^2 / 8 ~ 5e-5


@pytest.mark.parametrize("n, eps0", [(4, 1.0), (6, 2.5)])
def test_clones_pair_connect_measure_brackets_its_explicit_view(n, eps0):
    pair = clones.fmt_clones(n=n, epsilon0=eps0)
    explicit = clones.view_pair(pair, backend="float")
    dists = [_composed(explicit, 3)]
    for width in (0.2, 0.01):
        [pmf] = pld.compose_measures([(pair, 3)], width, tail=1e-30, connect=True)
        for eps in (0.0, 0.4, 1.5):
            truth = _h(dists[0], mpmath.mpf(eps))
            assert pld.lower_delta_of(pmf, eps) <= truth <= pld.delta_of(pmf, eps) * (1 + 1e-12)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_a_clones_measure_split_chunk_by_chunk_is_the_one_of_all_atoms_at_once(
        pessimistic, monkeypatch):
    """from_clone_pair bins its atoms chunk by chunk (11.6 GiB at n = 1e6 when it kept them
    all): the summed measure equals one `connected_pmf` of every atom, its ledger covers
    both, and with many chunks it still brackets the explicit view's composition."""
    pair = clones.fmt_clones(n=3000, epsilon0=1.0)
    whole = pld.from_clone_pair(pair, 1e-3, pessimistic, 1e-20, connect=True)
    monkeypatch.setattr(pld.sources, "CHUNK", 500)
    chunked = pld.from_clone_pair(pair, 1e-3, pessimistic, 1e-20, connect=True)
    assert chunked.offset == whole.offset and chunked.mass.size == whole.mass.size
    gap = np.abs(chunked.mass - whole.mass)
    assert np.all(gap <= (chunked.relative + whole.relative) * whole.mass + 1e-300)
    assert chunked.relative >= whole.relative * 0.5 and chunked.relative < 1e-9
    for field in ("infinity", "moved", "drift", "spread"):
        assert getattr(chunked, field) == pytest.approx(getattr(whole, field), rel=1e-12)
    if pessimistic:
        monkeypatch.setattr(pld.sources, "CHUNK", 1)  # one count c per chunk
        small = clones.fmt_clones(n=6, epsilon0=2.5)
        [pmf] = pld.compose_measures([(small, 3)], 0.01, tail=1e-30, connect=True)
        dist = _composed(clones.view_pair(small, backend="float"), 3)
        for eps in (0.0, 0.4, 1.5):
            truth = _h(dist, mpmath.mpf(eps))
            assert pld.lower_delta_of(pmf, eps) <= truth <= pld.delta_of(pmf, eps) * (1 + 1e-12)


def test_coupling_shift_is_hoeffding():
    pmf = pld.connected_pmf(np.array([0.013]), np.array([0.0]), np.array([0.0]), 0.0, 0.01)
    assert pmf.spread == pytest.approx(1e-4, rel=1e-12)
    # drift: the split's mean shift (<= width^2/8) plus the raise by the margins
    assert 1e-4 / 8 <= pmf.drift <= 1e-4 / 8 + 1e-14
    assert pld.coupling_shift(pmf, 1e-6) == pytest.approx(
        pmf.drift + math.sqrt(1e-4 * math.log(1e6) / 2), rel=1e-12)
    # the split: mass at the two neighbours keeps P- and Q-mass
    mass = pmf.mass[pmf.mass > 0]
    grid = (np.flatnonzero(pmf.mass) + pmf.offset) * 0.01
    assert math.fsum(mass) == pytest.approx(1.0, rel=1e-14)
    assert math.fsum(mass * np.exp(-grid)) == pytest.approx(math.exp(-0.013), rel=1e-12)


def test_a_rounded_measure_has_no_coupled_lower_reading():
    view = binary_rr.view_pair(n=3, epsilon0=1.0)
    up = pld.from_view(view, 0.01, True)
    assert up.spread == math.inf
    with pytest.raises(ParameterError):
        pld.lower_delta_of(up, 0.1)
    # a rounded-down measure couples with shifts <= 0: read as it is (no eta)
    down = pld.from_view(view, 0.01, False)
    assert down.spread == 0.0
    assert pld.lower_delta_of(down, 0.1) == pld.delta_of(down, 0.1)


@pytest.mark.parametrize("relation", ["substitute", "add-remove"])
def test_subsampled_connect_ends_agree_with_a_fine_rounded_composition(relation):
    # both methods are certified: the coarse connect-the-dots bracket and the fine rounded
    # one must overlap (each end on its side of the same truth)
    pair = BinaryRR(n=50, epsilon0=1.0).dominating_pair().pair
    source = SubsampledPair(pair, 0.2, relation)
    new = pld.compose_views([(source, 20)], delta=1e-5, discretization=2e-3)
    old = pld.compose._evaluate([(source, 20)], 5e-5, lambda m: pld.epsilon_of(m, 1e-5),
                        lambda m: pld.lower_epsilon_of(m, 1e-5), True, False, 1e-18,
                        connect=False)
    assert new.lower.value <= old[0] and old[1] <= new.upper.value
    assert new.upper.value <= old[0]          # second order beats first order


@pytest.mark.parametrize("rounds", [8, 13, 40])
def test_power_route_brackets_the_exact_value(rounds):
    # one FFT and a pointwise power on a Chernoff window (the mass outside wraps around):
    # both ends still hold against the exact enumeration
    view = binary_rr.view_pair(n=3, epsilon0=0.7)
    dists = [_composed(view, rounds), _composed(view.swapped(), rounds)]
    for width in (0.05, 0.004):
        for tail in (1e-9, 1e-18):
            for m, truth_dist in zip((pld.from_view(view, width, True, connect=True),
                                      pld.from_view(view.swapped(), width, True,
                                                    connect=True)), dists, strict=True):
                out = pld.power_compose(m, rounds, tail)
                assert out is not None and out.error < tail + 1e-9
                for eps in (0.0, 0.5, 2.0):
                    truth = _h(truth_dist, mpmath.mpf(eps))
                    assert pld.lower_delta_of(out, eps) <= truth <= pld.delta_of(out, eps)
                # the same measure by repeated squaring: the two agree closely
                sq = pld.self_compose(m, rounds, tail)
                assert abs(pld.delta_of(out, 0.5) - pld.delta_of(sq, 0.5)) <= 1e-8 + 4 * tail


def test_chernoff_window_holds_the_stated_mass():
    rng = np.random.default_rng(3)
    mass = rng.random(40) ** 3
    mass /= mass.sum()
    rounds, tail = 12, 1e-6
    lo, hi = pld.self_composition._chernoff_window(mass, rounds, tail)
    exact = mass.copy()
    for _ in range(rounds - 1):
        exact = np.convolve(exact, mass)
    assert math.fsum(exact[:lo]) <= tail and math.fsum(exact[hi + 1:]) <= tail
    # and not vacuous: the window is much shorter than the full support
    assert hi - lo < 0.8 * exact.size


def test_power_route_is_refused_beyond_its_budget():
    view = binary_rr.view_pair(n=3, epsilon0=0.7)
    m = pld.from_view(view, 0.004, True, connect=True)
    assert pld.power_compose(m, 40, 1e-12, budget=1e-30) is None


def test_a_subnormal_delta_keeps_the_coupling_shift():
    # eta = delta * 0.3 underflows to 0 at delta = 5e-324: reading the measure at that
    # eta with no shift gave a lower end above the truth (found by the property suite:
    # LDP(n=2, eps0=17.8), one round)
    view = binary_rr.view_pair(n=2, epsilon0=17.802828227390254)
    dists = [_composed(view, 1), _composed(view.swapped(), 1)]
    truth = _eps(dists, 5e-324)
    for width in (2e-4, 0.05):
        for m in pld.compose_measures([(view, 1)], width, tail=1e-300, connect=True):
            assert pld.lower_epsilon_of(m, 5e-324) <= truth
            assert pld.lower_delta_of(m, float(truth) * 0.999) <= 1.0


def _gaussian_h(mu: float, eps: float) -> mpmath.mpf:
    # the Gaussian mechanism's privacy profile (Balle and Wang 2018), mu = sqrt(T)/sigma
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.e ** eps * mpmath.ncdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("sigma, rounds", [(1.0, 1), (2.0, 16), (0.8, 9)])
@pytest.mark.parametrize("width", [0.05, 0.004])
def test_gaussian_noise_connect_measures_bracket_the_closed_form(sigma, rounds, width):
    # T unsampled Gaussian rounds are one Gaussian with mu = sqrt(T)/sigma: both ends of the
    # continuous connect-the-dots measure (pieces cut at grid crossings) around it
    from accountant.composition.noise import NoisePair

    pair = NoisePair("gaussian", sigma, 1.0, "add-remove")
    measures = pld.compose_measures([(pair, rounds)], width, tail=1e-18, connect=True)
    mu = math.sqrt(rounds) / sigma
    for eps in (0.0, 0.5, 1.5, 3.0):
        truth = _gaussian_h(mu, eps)
        assert max(pld.lower_delta_of(m, eps) for m in measures) <= truth
        assert truth <= max(pld.delta_of(m, eps) for m in measures)
    # not vacuous: the upper end is second order in the width
    top = max(pld.delta_of(m, 1.0) for m in measures)
    assert top <= _gaussian_h(mu, 1.0) * (1 + 0.05) + 1e-12


@pytest.mark.parametrize("sigma, rounds, delta", [(5.0, 100, 1e-12), (3.0, 30, 1e-14)])
def test_a_tiny_delta_lower_end_is_not_held_by_the_pieces_mass_uncertainty(sigma, rounds,
                                                                           delta):
    # each piece's mass is known within [p_lo, p_hi] (3e-13 relative in the bulk): counted
    # as an absolute move, 3e-14 per round was taken back from every lower reading, a
    # 2.3 % bracket at delta 1e-12 (T = 100); as a relative error it costs nothing there.
    # The bracket holds the closed form (Balle-Wang) and is narrow
    from accountant.composition.noise import NoisePair, gaussian_epsilon

    pair = NoisePair("gaussian", sigma, 1.0, "add-remove")
    one = pair.loss_pmfs(1e-3, True, 1e-20, connect=True)
    assert all(m.moved < 1e-18 and 1e-14 < m.relative < 1e-9 for m in one)
    out = pld.compose_views([(pair, rounds)], delta=delta)
    low, high = gaussian_epsilon(math.sqrt(rounds) / sigma, delta)
    assert out.lower.value <= low and high <= out.upper.value
    assert out.upper.value - out.lower.value <= 5e-3 * out.upper.value


def test_a_tiny_epsilon_does_not_shrink_the_grid_without_bound():
    # sigma = 50: epsilon ~ 0.016 asked for a connect-the-dots width ~1e-9 after the
    # refinement and the process ran out of memory; the width now stops at 1e-6, or where
    # the composed span still fits in 1e6 cells (here 7.6e-7, 1.2e5 cells)
    from accountant.composition.noise import NoisePair

    pair = NoisePair("gaussian", 50.0, 0.01, "add-remove")
    out = pld.compose_views([(pair, 1000)], delta=1e-5)
    assert out.discretization >= 1e-7 and out.cells <= 1_000_000
    assert 0 < out.lower.value <= out.upper.value < 0.02
    assert out.upper.value - out.lower.value <= 8e-3 * out.upper.value


def test_a_tiny_span_refines_below_the_general_floor():
    # binary RR, n = 1e10, q = 0.01, eps0 = 0.05, T = 1e4: the composed losses span about
    # 2e-3, so a grid below 1e-6 stays under 1e6 cells; at the 1e-6 floor the bracket was
    # [2.6e-5, 2.99e-4] (91 %), below it 0.8 %
    from accountant.composition.pld.compose import _finest

    assert _finest(10.0) == 1e-6 and _finest(2e-3) == pytest.approx(2e-9)
    assert _finest(1e-9) == 1e-12
    acc = Accountant().compose(Subsampled(BinaryRR(n=10**10, epsilon0=0.05), 0.01), 10_000)
    b = acc.get_epsilon(1e-5, method="pld")
    assert b.pair_lower is not None
    assert b.upper.value - b.pair_lower.value <= 0.01 * b.upper.value
    assert 2.8e-4 < b.pair_lower.value <= b.upper.value < 2.99e-4


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize(("sigma", "rounds"), [(0.05, 10), (0.02, 3)])
def test_small_noise_pieces_above_a_loss_of_709_stay_on_the_safe_side(sigma, rounds):
    # e^(j width) overflowed for pieces whose loss exceeds 709 (it leaked RuntimeWarnings
    # through `calibrate compose` at sigma = 0.02 and could send their split the wrong way):
    # the PLD upper end stays above the analytic Gaussian's exact value (Balle-Wang)
    acc = Accountant("add-remove").compose(GaussianNoise(sigma), rounds)
    exact = acc.get_epsilon(1e-5, method="analytic")
    pld_upper = acc.get_epsilon(1e-5, method="pld").upper.value
    assert exact.upper.value <= pld_upper <= exact.upper.value * 1.001


def _exact_power(mass: np.ndarray, rounds: int) -> list:
    """The rounds-fold self-convolution of `mass` in mpmath (the stored masses taken as
    exact)."""
    one = [mpmath.mpf(float(x)) for x in mass]
    out = [mpmath.mpf(1)]
    for _ in range(rounds):
        new = [mpmath.mpf(0)] * (len(out) + len(one) - 1)
        for i, a in enumerate(out):
            if a:
                for j, b in enumerate(one):
                    new[i + j] += a * b
        out = new
    return out


@pytest.mark.parametrize("rounds", [2, 7, 24])
@pytest.mark.parametrize("tail", [1e-4, 1e-12])
def test_windowed_squaring_holds_its_ledger_against_the_exact_power(rounds, tail):
    # the squaring route cuts each partial power to its Chernoff window: the stored result
    # must stay within its ledger (stored = exact (1 + theta) + e, |theta| <= relative,
    # sum |e| <= error) of the exact T-fold power of the stored one-round measure, with
    # cuts that really happen (tail 1e-4) or not
    view = binary_rr.view_pair(n=3, epsilon0=0.7)
    m = pld.from_view(view, 0.05, True, connect=True)
    m = pld.LossPmf(m.width, m.offset, m.mass, 0.0, 0.0, True, 0.0, spread=m.spread)
    out = pld.self_composition.square_compose(m, rounds, tail)
    assert out is not None
    exact = _exact_power(m.mass, rounds)
    start = out.offset - rounds * m.offset
    assert start >= 0
    stored = [mpmath.mpf(0)] * len(exact)
    for i, x in enumerate(out.mass):
        stored[start + i] = mpmath.mpf(float(x))
    distance = mpmath.fsum(abs(a - b) for a, b in zip(stored, exact, strict=True))
    assert distance <= out.error + out.relative * mpmath.fsum(exact)
    # a cut at 1e-4 drops something at 24 rounds, and the ledger says so within a few tails
    if tail == 1e-4 and rounds == 24:
        assert out.mass.size < len(exact) and distance > 0
        assert out.error <= 2 * rounds * 2 * tail


@pytest.mark.parametrize("rounds", [8, 13, 40])
def test_windowed_squaring_brackets_the_exact_value(rounds):
    # the whole route (ledger lifted to the exact pair, +inf atom) against the enumeration
    view = binary_rr.view_pair(n=3, epsilon0=0.7)
    for v in (view, view.swapped()):
        truth_dist = _composed(v, rounds)
        m = pld.from_view(v, 0.05, True, connect=True)
        out = pld.self_composition.square_compose(m, rounds, 1e-9)
        assert out is not None
        for eps in (0.0, 0.5, 2.0):
            truth = _h(truth_dist, mpmath.mpf(eps))
            assert pld.lower_delta_of(out, eps) <= truth <= pld.delta_of(out, eps)


def test_windowed_squaring_is_not_held_up_by_the_round_off_floor():
    # issue 20: sigma = 1, q = 0.01, add/remove, T = 1e3 at delta = 1e-8. Cutting by stored
    # mass alone stopped at the FFT's noise (about 1e-19 a cell against a 1e-16 threshold):
    # 27,021 cells at a 0.05 grid, where the Chernoff window of the 1e3-fold sum holds about
    # 280 (and 2e7 cells, minutes, at the final grid)
    from accountant.composition.noise import NoisePair
    pair = NoisePair("gaussian", 1.0, 0.01, "add-remove")
    tail = pld.truncation_tail([(pair, 1000)], 1e-8)
    sides = pld.compose_measures([(pair, 1000)], 0.05, tail=tail, connect=True)
    for one, side in zip(pld.sources.pmfs(pair, 0.05, True, tail, True), sides, strict=True):
        lo, hi = pld.self_composition._chernoff_window(pld.truncate(one, tail).mass, 1000, tail)
        assert side.mass.size <= hi - lo + 1 < 1000


def test_the_inversion_profile_follows_the_grid_and_the_atom():
    # the recursion of `float_inversion` (the uncertified guess) is kept for the next call on the
    # same mass array: a shifted grid or another +inf atom on that array must not reuse it
    view = binary_rr.view_pair(n=3, epsilon0=0.7)
    m = pld.self_compose(pld.from_view(view, 0.01, True, connect=True), 12, 1e-15)
    losses = (np.arange(m.mass.size) + m.offset) * m.width

    def fresh(ls, inf):
        pld.reading.clear_profiles()
        return pld.reading.float_inversion(ls, m.mass, inf, 1e-3)
    first = pld.reading.float_inversion(losses, m.mass, m.infinity, 1e-3)
    assert first == fresh(losses, m.infinity) > 0
    pld.reading.float_inversion(losses, m.mass, m.infinity, 1e-3)
    shifted = losses + 7 * m.width
    inversion = pld.reading.float_inversion
    assert inversion(shifted, m.mass, m.infinity, 1e-3) == fresh(shifted, m.infinity)
    pld.reading.float_inversion(losses, m.mass, m.infinity, 1e-3)
    assert pld.reading.float_inversion(losses, m.mass, 5e-4, 1e-3) == fresh(losses, 5e-4) > first


@pytest.mark.parametrize("size, step", [(1, 0.1), (5, 40.0), (1000, 1e-4),
                                        (200_000, 1e-4), (50_000, 0.05), (3000, 3.0)])
def test_the_inversion_recursion_matches_a_linear_filter(size, step):
    # `_discounted` (blocks of one cumsum) replaced scipy.signal's lfilter, whose import
    # cost 0.7 s per compose process: the same first-order recursion to 1e-12 relative
    from scipy.signal import lfilter
    rng = np.random.default_rng(size)
    ps = rng.random(size) * np.exp(-50 * rng.random(size))
    r = math.exp(-step)
    reference = lfilter([0.0, r], [1.0, -r], ps)
    got = pld.reading._discounted(ps, step)
    assert np.all(np.abs(got - reference) <= 1e-12 * np.abs(reference) + 1e-300)


@pytest.mark.parametrize("rounds", [5, 24])
@pytest.mark.parametrize("tail", [1e-5, 1e-12])
def test_windowed_squaring_of_rounded_measures_keeps_each_side(rounds, tail):
    # rounded measures (losses rounded up / down, not connect-the-dots) go through the same
    # window cuts: the upper one stays above the enumeration, the lower one below
    view = binary_rr.view_pair(n=3, epsilon0=0.7)
    for v in (view, view.swapped()):
        truth_dist = _composed(v, rounds)
        up = pld.self_composition.square_compose(pld.from_view(v, 0.05, True), rounds, tail)
        low = pld.self_composition.square_compose(pld.from_view(v, 0.05, False), rounds, tail)
        assert up is not None and low is not None
        for eps in (0.0, 0.5, 2.0):
            truth = _h(truth_dist, mpmath.mpf(eps))
            assert pld.delta_of(low, eps) <= truth <= pld.delta_of(up, eps)


def _tail_case(rounds):
    view = binary_rr.view_pair(n=3, epsilon0=0.7)
    m = pld.from_view(view, 0.02, True, connect=True)
    losses = (np.arange(m.mass.size) + m.offset) * m.width
    # a loss far in the right tail of the T-fold sum: 85 % of the way to the top
    at = rounds * float(losses[-1]) * 0.85
    return view, m, at


@pytest.mark.parametrize("rounds", [24, 40])
def test_tilted_squaring_holds_its_positional_ledger(rounds):
    # the tilted chain's errors, tilted back, shrink by M^T e^(-lam k): above each index the
    # stored measure is within `error_above` of the exact power of the stored masses (the
    # ledger zeroed, so that only the chain's own errors count)
    _, m, at = _tail_case(rounds)
    m = pld.LossPmf(m.width, m.offset, m.mass, 0.0, 0.0, True, 0.0, spread=m.spread)
    out = pld.self_composition.square_compose(m, rounds, 1e-30, at=at)
    assert out is not None and out.tilt is not None
    exact = _exact_power(m.mass, rounds)
    start = out.offset - rounds * m.offset
    stored = [mpmath.mpf(0)] * len(exact)
    for i, x in enumerate(out.mass):
        stored[start + i] = mpmath.mpf(float(x))
    j_first = rounds * m.offset
    for frac in (0.6, 0.8, 0.85, 0.9, 0.97):
        eps = rounds * (m.offset + m.mass.size - 1) * m.width * frac
        k0 = max(0, math.floor(eps / m.width) - j_first + 1)
        distance = mpmath.fsum(abs(a - b) for a, b in zip(stored[k0:], exact[k0:],
                                                           strict=True))
        allowed = out.error_above(eps) + out.relative * mpmath.fsum(exact[k0:])
        assert distance <= allowed
    # and the positional bound is far below the total one where the tail is read
    assert out.error_above(at) < 1e-6 * out.error


@pytest.mark.parametrize("route", ["square", "power"])
@pytest.mark.parametrize("spread", [math.inf, 0.0025])
@pytest.mark.parametrize("tail", [1e-3, 1e-6, 1e-10])
@pytest.mark.parametrize("place", [0.4, 0.6])
def test_tilted_squaring_of_a_dense_measure_holds_both_ledgers_at_every_index(
        route, spread, tail, place):
    # a dense measure of 120 cells, 24 rounds, the tilt placed at 40 % or 60 % of the top:
    # at EVERY index j0 the stored entries at >= j0 are within `error_above` (positional
    # part where it applies, else the total ledger) of the exact power of the stored masses.
    # Two holes this closed: (1) a chain window starting above the first index whose
    # factor is <= 1 left the bulk (mass about 1) out of the total ledger (1e10 times too
    # small); (2) an upper measure of spread inf (the substitute subsampled round's) moved
    # its chain's tails in tilted units, and tilted back they were in no ledger (1.1-1.7x).
    # The tilted power route (one FFT of the tilt, tilted back) holds the same ledgers.
    # The exact power is a float direct convolution of positive terms: relative error below
    # 24 x 121 u per entry, covered by the 1e-11 relative slack.
    rounds = 24
    cells = np.arange(120, dtype=float)
    mass = np.exp(-(cells - 30) ** 2 / 300)
    mass /= mass.sum()
    m = pld.LossPmf(0.05, -30, mass, 0.0, 0.0, True, 0.0, spread=spread)
    top = (m.offset + m.mass.size - 1) * m.width
    at = rounds * top * place
    out = pld.self_composition.square_compose(m, rounds, tail, at=at) if route == "square" \
        else pld.self_composition.tilted_power_compose(m, rounds, tail, at, math.inf)
    assert out is not None and out.tilt is not None
    exact = np.array([1.0])
    for _ in range(rounds):
        exact = np.convolve(exact, mass)
    start = out.offset - rounds * m.offset
    stored = np.zeros(exact.size)
    stored[start:start + out.mass.size] = out.mass
    gaps = np.cumsum(np.abs(stored - exact)[::-1])[::-1]      # sum over indices >= k0
    above = np.cumsum(exact[::-1])[::-1]
    positional = 0
    for k0 in range(exact.size):
        j0 = k0 + rounds * m.offset
        eps = (j0 + 1) * m.width           # error_above reads from one cell below: j0
        allowed = out.error_above(eps) + (out.relative + 1e-11) * above[k0]
        assert gaps[k0] <= allowed, (k0, gaps[k0], allowed)
        positional += out.error_above(eps) < out.error
    assert positional > 100


@pytest.mark.parametrize("rounds", [24, 40])
def test_tilted_squaring_brackets_the_exact_tail(rounds):
    # the whole route against the enumeration of the composed pair, in the tail
    view, _, at = _tail_case(rounds)
    for v in (view, view.swapped()):
        truth_dist = _composed(v, rounds)
        m = pld.from_view(v, 0.02, True, connect=True)
        out = pld.self_composition.square_compose(m, rounds, 1e-30, at=at)
        # the lower connect-the-dots measure (read through the coupling like the upper one),
        # tilted too: its chain drops what it cuts
        # (through self_compose, whose final truncation once moved a lower measure's tails
        # and lost the tilt: a lower end of 0 for shuffle rounds at delta 1e-8)
        low = pld.self_compose(pld.from_view(v, 0.02, False, connect=True), rounds, 1e-25,
                               at=at)
        assert out is not None and low is not None and low.tilt is not None
        for eps in (0.0, 0.5 * at, 0.9 * at, at, 1.05 * at):
            truth = _h(truth_dist, mpmath.mpf(eps))
            assert pld.lower_delta_of(out, eps) <= truth <= pld.delta_of(out, eps)
            assert pld.lower_delta_of(low, eps) <= truth
        assert pld.lower_delta_of(low, 0.9 * at) > 1e-3 * _h(truth_dist, mpmath.mpf(0.9 * at))


def test_a_tiny_delta_is_read_through_the_tilt():
    # delta = 1e-20 is far below the FFT's absolute round-off (about 1e-12 of the mass):
    # untilted, no finite upper end is certified; tilted towards the tail, both ends hold
    # against the enumeration and the upper end is within 1e-6 of the truth (27.1200453)
    view = binary_rr.view_pair(n=3, epsilon0=0.7)
    out = pld.compose_views([(view, 40)], delta=1e-20)
    truth = _eps([_composed(view, 40), _composed(view.swapped(), 40)], 1e-20)
    assert out.lower.value <= truth <= out.upper.value <= truth * (1 + 1e-6)


# an asymmetric pair: its two orders' epsilons differ (33.9 and 55.5 at delta 1e-20,
# T = 40), so one tilt target for both left the smaller order untilted, read through the
# whole FFT ledger: +inf at delta 1e-20 and 1e-12
_ASYMMETRIC = ([0.7, 0.2, 0.1], [0.3, 0.3, 0.4])


@pytest.mark.parametrize("delta", [1e-20, 1e-12])
def test_each_order_is_tilted_towards_its_own_tail(delta):
    from accountant.view import ViewPair

    view = ViewPair.from_arrays(*_ASYMMETRIC)
    dists = [_composed(view, 40), _composed(view.swapped(), 40)]
    own = [_eps([d], delta) for d in dists]
    items = [(view, 40)]
    targets = pld.compose._tail_target(items, delta, pld.truncation_tail(items, delta))
    assert targets is not None and len(targets) == 2
    # each target below its own order's epsilon, and not far below it
    assert all(0.8 * e < t < e for t, e in zip(targets, own, strict=True)), (targets, own)
    out = pld.compose_views([(view, 40)], delta=delta)
    truth = max(own)
    assert out.lower.value <= truth <= out.upper.value <= truth * (1 + 1e-5)


@pytest.mark.parametrize("where", ["beyond the losses", "in the bulk"])
def test_a_misplaced_target_is_moved_into_the_tail(where):
    # targets come from coarser grids: one above the T-fold losses, or one in the bulk,
    # found no tilt and the order stayed untilted; now each is moved (to the mean plus 8
    # deviations, or up to the first index with a Chernoff bound of e^-10), and the tilted
    # route still brackets the enumeration
    from accountant.view import ViewPair

    rounds = 24
    view = ViewPair.from_arrays(*_ASYMMETRIC)
    truth_dist = _composed(view, rounds)
    m = pld.from_view(view, 0.02, True, connect=True)
    losses = (np.arange(m.mass.size) + m.offset) * m.width
    mean = float(np.dot(m.mass, losses) / m.mass.sum())
    at = 1.5 * rounds * float(losses[-1]) if where == "beyond the losses" else rounds * mean
    k_star = at / m.width - rounds * m.offset
    assert pld.self_composition._tilted(m.mass, rounds, k_star) is not None
    out = pld.self_composition.square_compose(m, rounds, 1e-30, at=at)
    assert out is not None and out.tilt is not None
    top = rounds * float(losses[-1])
    for eps in (0.0, 0.5 * top, 0.7 * top, 0.9 * top):
        truth = _h(truth_dist, mpmath.mpf(eps))
        assert pld.lower_delta_of(out, eps) <= truth <= pld.delta_of(out, eps)


def test_a_measure_concentrated_on_a_wide_support_is_tilted():
    # 5e3 cells whose mass sits on ten of them (the Q||P order of a subsampled Gaussian: a
    # long, light left tail): the tilts once searched stopped at 50 / support, far below
    # the Chernoff-optimal one, so no tilt was found and the order was read through the
    # whole FFT ledger; the search now reaches 50 over the deviation
    rounds, width = 16, 0.01
    mass = np.full(5000, 1e-12)
    bump = np.exp(-0.5 * ((np.arange(10) - 5.0) / 1.5) ** 2)
    mass[-10:] = bump / bump.sum() * (1 - mass[:-10].sum())
    m = pld.LossPmf(width, -4990, mass, 0.0, 0.0, True, 0.0, spread=width * width)
    index = np.arange(mass.size)
    mean = float(np.dot(mass, index))
    sd = math.sqrt(float(np.dot(mass, (index - mean) ** 2)))
    k_star = rounds * mean + 6 * math.sqrt(rounds) * 1.5
    assert sd < 20 and pld.self_composition._tilted(mass, rounds, k_star) is not None
    at = (k_star + rounds * m.offset) * width
    out = pld.self_composition.square_compose(m, rounds, 1e-30, at=at)
    assert out is not None and out.tilt is not None
    exact = mass
    for _ in range(rounds - 1):
        exact = np.convolve(exact, mass)   # nonnegative sums: 1e-13 relative here
    losses = (np.arange(exact.size) + rounds * m.offset) * width
    for eps in (at - 0.05, at, at + 0.05):
        live = losses > eps
        truth = math.fsum(-np.expm1(eps - losses[live]) * exact[live])
        assert truth > 0
        assert truth * (1 - 1e-9) <= pld.delta_of(out, eps) <= truth * (1 + 1e-6) + 1e-30
