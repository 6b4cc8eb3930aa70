"""The certified PLD engine (accountant/composition/pld/), pinned where mutation testing
found gaps (docs/soundness.md#mutation-testing).

Every oracle is independent of the code under test: Higham's FFT bound restated from the
`fft_error_bound` docstring and evaluated in mpmath at 50 digits, exact convolutions of
dyadic masses in Fractions, the error-ledger contract of `LossPmf` (every stored entry is
nu_i (1 + theta_i) + e_i with |theta_i| <= relative, sum |e_i| <= error) checked entry by
entry against an exact measure nu, and the definition of the hockey-stick divergence of a
discrete measure evaluated in Fractions / mpmath.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant.composition import pld
from accountant.errors import ParameterError

_U = 2.0**-53


def _pmf(mass, *, width=0.5, offset=0, infinity=0.0, error=0.0, pessimistic=True,
         relative=0.0):
    return pld.LossPmf(width, offset, np.asarray(mass, dtype=float), infinity, error,
                       pessimistic, relative)


# ---------------------------------------------------------------- fft_error_bound


def _higham(length, norms_a, norms_b):
    """The fft_error_bound docstring's formula at 50 digits (Higham, 2nd ed., Thm 24.2)."""
    with mpmath.workdps(50):
        u = mpmath.mpf(2) ** -53
        stages = max(1, math.ceil(math.log2(length)))
        gamma4 = 4 * u / (1 - 4 * u)
        eta = u + gamma4 * (mpmath.sqrt(2) + u)
        e_l = stages * eta / (1 - stages * eta)
        scale = max(mpmath.mpf(norms_a[1]) * norms_b[0], mpmath.mpf(norms_a[0]) * norms_b[1])
        return mpmath.mpf("1.01") * (3 * e_l + 4 * u) * scale


@pytest.mark.parametrize("length", [1, 2, 4, 2**10, 2**24])
@pytest.mark.parametrize("norms", [((1.0, 1.0), (1.0, 1.0)),
                                   ((1.0, 0.01), (3.0, 2.0)),
                                   ((0.5, 0.4), (1.0, 0.02)),
                                   ((0.5, 0.4), (2.0, 0.02))])
def test_fft_error_bound_is_highams_bound(length, norms):
    """The bound equals the docstring's formula to 1e-12 (a smaller value is not Higham's
    bound; the 1.01 covers only the second-order terms, below 1e-12 here)."""
    got = pld.fft_error_bound(length, *norms)
    ref = _higham(length, *norms)
    assert got == pytest.approx(float(ref), rel=1e-12, abs=0)


# ---------------------------------------------------------------- convolve


def _exact_conv(a, b):
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def test_fft_convolution_has_no_wraparound_at_a_power_of_two_plus_one():
    """size = 2^14 + 1 outputs: a transform of length 2^14 would fold the last entry onto
    the first. Integer masses scaled by 2^-40 make the exact convolution exact in int64."""
    rng = np.random.default_rng(7)
    n = 2**13 + 1
    ia = rng.integers(1, 2**10, n)
    ib = rng.integers(1, 2**10, n)
    ia[-1] = ib[-1] = 2**10 - 1  # a large last entry: the wrapped one is visible
    ia[0] = ib[0] = 1
    exact = np.convolve(ia.astype(np.int64), ib.astype(np.int64)) / 2.0**40
    out = pld.convolve(_pmf(ia / 2.0**20), _pmf(ib / 2.0**20))   # 6.7e7 products: FFT
    assert out.mass.size == 2 * n - 1
    assert float(np.sum(np.abs(out.mass - exact))) <= out.error
    assert np.all(out.mass >= 0)
    # the ledger holds at least the FFT bound at the exact norms (sqrt(size) l2 -> l1)
    a, b = ia / 2.0**20, ib / 2.0**20
    length = 1 << (2 * n - 2).bit_length()
    assert length >= 2 * n - 1
    norms_a = (math.fsum(a), math.sqrt(math.fsum(a * a)))
    norms_b = (math.fsum(b), math.sqrt(math.fsum(b * b)))
    ref = mpmath.sqrt(2 * n - 1) * _higham(length, norms_a, norms_b)
    assert out.error >= ref


def test_fft_convolution_clips_round_off_below_zero():
    """Where the exact convolution is 0, the FFT leaves round-off of both signs; a measure
    holds nonnegative masses (the module docstring: negative entries are clipped)."""
    rng = np.random.default_rng(5)
    a = rng.random(12000)
    a[3000:9000] = 0.0
    b = rng.random(12000)
    b[3000:9000] = 0.0
    out = pld.convolve(_pmf(a / a.sum()), _pmf(b / b.sum()))   # 3.6e7 products: the FFT
    assert out.error > 0                  # (the direct path has no absolute ledger)
    assert np.all(out.mass >= 0)
    assert np.all(out.mass[6000:9000] <= out.error)


@pytest.mark.parametrize("swap", [False, True])
def test_direct_convolution_of_equal_supports_sizes_at_different_places(swap):
    """Two inputs with the same number of nonzeros at different indices (the direct path
    picks the sparser one as the outer loop): the result is the exact convolution."""
    a = [0.5, 0.0, 0.25, 0.0, 0.0]
    b = [0.0, 0.125, 0.0, 0.0, 0.375]
    if swap:
        a, b = b, a
    out = pld.convolve(_pmf(a), _pmf(b))
    exact = _exact_conv([Fraction(x) for x in a], [Fraction(x) for x in b])
    assert [Fraction(x) for x in out.mass] == exact


def test_infinite_atom_of_a_product():
    """+inf absorbs: P(L_a + L_b = inf) = inf_a (|b| + inf_b) + |a| inf_b (dyadic: exact)."""
    a = _pmf([0.25, 0.25], infinity=0.5)
    b = _pmf([0.5, 0.125], infinity=0.25)
    out = pld.convolve(a, b)
    exact = Fraction(1, 2) * Fraction(7, 8) + Fraction(1, 2) * Fraction(1, 4)
    assert Fraction(out.infinity) >= exact
    assert out.infinity == pytest.approx(float(exact), rel=1e-12, abs=0)


def test_widths_and_directions_must_match():
    with pytest.raises(ParameterError):
        pld.convolve(_pmf([1.0]), _pmf([1.0], width=0.25))
    with pytest.raises(ParameterError):
        pld.convolve(_pmf([1.0]), _pmf([1.0], pessimistic=False))


def _ledger_needed(stored, exact, relative):
    """The least absolute ledger for which stored_i = nu_i (1 + theta_i) + e_i holds with
    |theta_i| <= relative: sum_i max(0, |stored_i - nu_i| - relative nu_i), exact."""
    rel = Fraction(relative)
    return sum(max(Fraction(0), abs(Fraction(s) - x) - rel * x)
               for s, x in zip(stored, exact, strict=True))


def _adversarial(nu, rel, err, theta_sign, e_sign, at):
    """stored = nu (1 + theta_sign rel) + e_sign err at index `at` (exact Fractions) and its
    nearest float (the float's rounding is added to the ledger, rounded up)."""
    exact = [x * (1 + theta_sign * Fraction(rel)) for x in nu]
    exact[at] += e_sign * Fraction(err)
    stored = [float(x) for x in exact]
    slack = sum(abs(Fraction(s) - x) for s, x in zip(stored, exact, strict=True))
    return stored, float(Fraction(err) + slack) * (1 + 4 * _U) + 1e-300


@pytest.mark.parametrize("rel_a, rel_b", [(0.0, 0.0), (0.1, 0.0), (0.0, 0.1), (0.1, 0.05)])
@pytest.mark.parametrize("signs", [(1, 1), (-1, -1), (1, -1), (-1, 1)])
def test_convolution_ledger_covers_adversarial_inputs(rel_a, rel_b, signs):
    """The error-ledger contract of LossPmf, propagated through a convolution: inputs that
    use their whole ledgers in one direction (relative parts at +-rel, absolute parts at
    one entry) give an output whose distance from the exact product fits the output's
    ledger. Exact Fractions throughout."""
    nu_a = [Fraction(3, 4), Fraction(1, 4), Fraction(1, 8), Fraction(1, 16)]  # mass > 1
    nu_b = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 2)]   # a measure of mass > 1
    err_a, err_b = 0.03, 0.02
    ts, es = signs
    a_st, a_err = _adversarial(nu_a, rel_a, err_a, ts, -es, 0)
    b_st, b_err = _adversarial(nu_b, rel_b, err_b, ts, es, 2)
    a = _pmf(a_st, error=a_err, relative=rel_a)
    b = _pmf(b_st, error=b_err, relative=rel_b)
    out = pld.convolve(a, b)
    exact = _exact_conv(nu_a, nu_b)
    assert out.relative >= (1 + rel_a) * (1 + rel_b) - 1
    assert _ledger_needed(out.mass, exact, out.relative) <= Fraction(out.error)
    # the docstring's first-order ledger: E_a |b|_1 + (|a|_1 + E_a) E_b
    first_order = (Fraction(a_err) * sum(Fraction(x) for x in b_st)
                   + (sum(Fraction(x) for x in a_st) + Fraction(a_err)) * Fraction(b_err))
    assert Fraction(out.error) >= first_order


def test_direct_convolution_relative_error_covers_its_sums():
    """Each output of the direct path is a sum of min(nnz) products: its relative error is
    at least the textbook (terms + 1) u; with 600 nonzeros per input this exceeds the
    atom's allowance (2 sum_relative_error + 8u)."""
    a = np.full(600, 1.0 / 600)
    out = pld.convolve(_pmf(a), _pmf(a))
    assert out.relative >= 601 * _U


# ---------------------------------------------------------------- grid_index, from_view


@pytest.mark.parametrize("pessimistic", [True, False])
def test_grid_index_puts_the_loss_on_its_side_of_the_grid(pessimistic):
    """index * width >= loss + margin (pessimistic) or <= loss - margin (optimistic), in
    exact arithmetic, for losses at, next to and between grid points."""
    rng = np.random.default_rng(3)
    width = 1e-3
    on_grid = np.arange(-50, 50) * width
    near = np.concatenate([np.nextafter(on_grid, np.inf), np.nextafter(on_grid, -np.inf)])
    loss = np.concatenate([on_grid, near, rng.normal(0, 3, 300), [1e6 / 3, -1e6 / 7]])
    margin = np.concatenate([np.zeros(loss.size - 100), rng.random(100) * 1e-6])
    idx = pld.grid_index(loss, margin, width, pessimistic)
    for i, x, m in zip(idx, loss, margin, strict=True):
        grid = Fraction(int(i)) * Fraction(width)
        if pessimistic:
            assert grid >= Fraction(float(x)) + Fraction(float(m))
        else:
            assert grid <= Fraction(float(x)) - Fraction(float(m))
    # and not further than one cell beyond the (rounded) margin
    step = np.where(pessimistic, 1, -1)
    assert np.all(np.abs(idx - step - (loss + step * margin) / width) <= 1 + 1e-6)


def _view(probs_p, probs_q, log_error, *, grid_exact=True, tail_p=0.0):
    from accountant.view import ViewPair
    with np.errstate(divide="ignore"):
        p, q = np.log(np.asarray(probs_p, float)), np.log(np.asarray(probs_q, float))
    return ViewPair(backend="float", p=p, q=q, log_error=log_error, grid_exact=grid_exact,
                    tail_p=tail_p)


@pytest.mark.parametrize("log_error", [0.0, 1e-6])
def test_from_view_masses_bound_every_admissible_true_mass(log_error):
    """A float view says: the true P-mass of a point is within log_error of exp(p). The
    pessimistic measure's masses (binned) must be >= the largest admissible true masses,
    the optimistic one's <= the smallest (mpmath, 40 digits); the +inf atom (q = 0) and the
    residual tail_p go to +inf when pessimistic; the optimistic measure keeps the atom
    lowered and drops the residual."""
    probs_p = [0.125, 0.25, 0.5, 0.0625, 0.0625]
    probs_q = [0.5, 0.25, 0.125, 0.125, 0.0]
    view = _view(probs_p, probs_q, log_error, tail_p=1e-9)
    width = 0.01
    with mpmath.workdps(40):
        hi = [mpmath.exp(mpmath.log(mpmath.mpf(x)) + log_error) for x in probs_p]
        lo = [mpmath.exp(mpmath.log(mpmath.mpf(x)) - log_error) for x in probs_p]
        up = pld.from_view(view, width, True)
        down = pld.from_view(view, width, False)
        # every finite-loss point sits in its own bin here (losses 2 log 2 apart)
        assert np.count_nonzero(up.mass) == 4 and np.count_nonzero(down.mass) == 4
        order = [0, 1, 2, 3]  # losses -log 4, 0, log 4, -log 2: sort by loss
        loss = [math.log(probs_p[i] / probs_q[i]) for i in order]
        by_loss = [order[j] for j in np.argsort(loss)]
        up_m = up.mass[up.mass > 0]
        down_m = down.mass[down.mass > 0]
        for k, i in enumerate(by_loss):
            assert mpmath.mpf(up_m[k]) >= hi[i]
            assert mpmath.mpf(down_m[k]) <= lo[i]
        assert mpmath.mpf(up.infinity) >= hi[4] + mpmath.mpf(1e-9)
        assert 0 < mpmath.mpf(down.infinity) <= lo[4]   # the atom lowered, the tail dropped
        assert up.pessimistic and not down.pessimistic


def test_from_view_optimistic_needs_an_exact_grid():
    """A view whose grid values are only lower bounds has no optimistic measure, but has a
    pessimistic one."""
    view = _view([0.5, 0.5], [0.25, 0.75], 0.0, grid_exact=False)
    assert pld.from_view(view, 0.01, True).total >= 1.0
    with pytest.raises(ParameterError, match="exact"):
        pld.from_view(view, 0.01, False)


# ---------------------------------------------------------------- reading H and epsilon


def _h_exact(pmf, epsilon):
    """H(e^eps) of the stored measure by its definition, at 60 digits:
    sum over losses s > eps of (1 - e^(eps - s)) m_s, plus the +inf atom."""
    with mpmath.workdps(60):
        eps = mpmath.mpf(epsilon)
        total = mpmath.mpf(pmf.infinity)
        for i, m in enumerate(pmf.mass):
            s = mpmath.mpf(pmf.offset + i) * mpmath.mpf(pmf.width)
            if m and s > eps:
                total += (1 - mpmath.exp(eps - s)) * mpmath.mpf(m)
        return total


def _h_true_upper(pmf, epsilon):
    """Largest H of a measure nu the ledger allows: nu_i <= (stored_i + |e_i|)/(1 - rel) and
    0 <= (1 - e^(eps - s))_+ <= 1, so H(nu) <= (H(stored) + E)/(1 - rel)."""
    with mpmath.workdps(60):
        return (_h_exact(pmf, epsilon) + mpmath.mpf(pmf.error)) / (1 - mpmath.mpf(pmf.relative))


def _h_true_lower(pmf, epsilon):
    with mpmath.workdps(60):
        return max(mpmath.mpf(0), (_h_exact(pmf, epsilon) - mpmath.mpf(pmf.error))
                   / (1 + mpmath.mpf(pmf.relative)))


def _measures():
    rng = np.random.default_rng(11)
    mass = rng.random(400) ** 3
    mass /= mass.sum() * 1.25
    yield "plain", dict(mass=mass, width=0.01, offset=-120, infinity=1e-7)
    yield "ledger", dict(mass=mass, width=0.01, offset=-120, infinity=1e-7, error=3e-6,
                         relative=0.02)
    small = np.array([0.3, 0.2, 0.25, 0.1, 0.05])
    yield "few", dict(mass=small, width=0.5, offset=-1, infinity=0.0, error=1e-4,
                      relative=1e-3)


_MEASURES = dict(_measures())


@pytest.mark.parametrize("name", list(_MEASURES))
@pytest.mark.parametrize("epsilon", [-0.3, 0.0, 0.2, 0.8, 1.5, 3.0])
def test_delta_of_is_on_its_side_of_every_admissible_truth(name, epsilon):
    kw = _MEASURES[name]
    up = _pmf(pessimistic=True, **kw)
    down = _pmf(pessimistic=False, **kw)
    hi, lo = _h_true_upper(up, epsilon), _h_true_lower(down, epsilon)
    d_up, d_down = pld.delta_of(up, epsilon), pld.delta_of(down, epsilon)
    assert mpmath.mpf(d_up) >= min(hi, 1)
    assert mpmath.mpf(d_down) <= lo
    # and tight: the rounding allowances are far below 1e-9 of H
    assert d_up <= hi * (1 + 1e-9) + 1e-300
    assert d_down >= lo * (1 - 1e-9) - 1e-300


def _inverse(h, delta, top):
    """inf{eps >= 0: h(eps) <= delta} of a nonincreasing h, by bisection to 1e-12."""
    if h(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, top
    while hi - lo > 1e-12:
        mid = (lo + hi) / 2
        if h(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


@pytest.mark.parametrize("name", list(_MEASURES))
@pytest.mark.parametrize("delta", [1e-6, 1e-3, 0.05, 0.5])
def test_epsilon_of_is_on_its_side_and_tight(name, delta):
    kw = _MEASURES[name]
    up = _pmf(pessimistic=True, **kw)
    down = _pmf(pessimistic=False, **kw)
    top = (kw["offset"] + kw["mass"].size) * kw["width"] + 1
    e_up, e_down = pld.epsilon_of(up, delta), pld.epsilon_of(down, delta)
    if _h_true_upper(up, top) > delta:
        assert e_up == math.inf
    else:
        # the truth is at most e_up: the ledger's worst H at e_up is <= delta
        assert _h_true_upper(up, e_up) <= delta
        assert e_up <= _inverse(lambda e: _h_true_upper(up, e), delta, top) + 1e-9
    # the truth is at least e_down: the ledger's least H just below e_down exceeds delta
    if e_down > 0:
        assert _h_true_lower(down, e_down * (1 - 1e-15)) > delta
    assert e_down >= _inverse(lambda e: _h_true_lower(down, e), delta, top) - 1e-9
    assert e_down <= e_up
    if delta == 0.5:                 # H(e^0) <= delta already: both ends are 0
        assert e_up == e_down == 0.0


def test_epsilon_of_is_infinite_when_the_infinite_atom_exceeds_delta():
    pmf = _pmf([0.5, 0.25], infinity=0.25)
    assert pld.epsilon_of(pmf, 0.2) == math.inf
    assert pld.epsilon_of(pmf, 0.3) < math.inf


# ---------------------------------------------------------------- truncate


@pytest.mark.parametrize("pessimistic", [True, False])
def test_truncate_moves_tails_in_the_safe_direction(pessimistic):
    """Tails of stored mass <= tail: pessimistic moves the left tail up onto the first kept
    loss and the right tail to +inf (H can only grow), optimistic moves the right tail down
    onto the last kept loss and drops the left one (H can only shrink). Dyadic masses: the
    moved sums are exact."""
    mass = np.array([2.0**-12, 2.0**-11, 0.25, 0.25, 0.25, 0.25 - 2.0**-9, 2.0**-11,
                     2.0**-12])
    pmf = _pmf(mass, width=0.25, offset=-3, infinity=2.0**-10, pessimistic=pessimistic)
    out = pld.truncate(pmf, 2.0**-10)
    assert out.mass.size == 4 and out.offset == -1
    if pessimistic:
        assert out.mass[0] == 0.25 + 2.0**-12 + 2.0**-11
        assert out.mass[-1] == 0.25 - 2.0**-9
        assert out.infinity == 2.0**-10 + 2.0**-11 + 2.0**-12
    else:
        assert out.mass[0] == 0.25
        assert out.mass[-1] == 0.25 - 2.0**-9 + 2.0**-11 + 2.0**-12
        assert out.infinity == 2.0**-10
    for eps in (-1.0, -0.2, 0.0, 0.1, 0.3, 0.6, 1.0):
        before, after = _h_exact(pmf, eps), _h_exact(out, eps)
        assert after >= before if pessimistic else after <= before
    assert out.error >= pmf.error


def test_truncate_keeps_a_measure_whose_tails_exceed_the_threshold():
    mass = np.array([0.25, 0.5, 0.25])
    pmf = _pmf(mass)
    for tail in (0.2, 0.0):
        out = pld.truncate(pmf, tail)
        assert out.offset == 0 and list(out.mass) == list(mass) and out.infinity == 0.0
    out = pld.truncate(_pmf([0.125, 0.25, 0.25, 0.25, 0.125]), 0.125)
    assert out.mass.size == 3          # tails of exactly `tail` are moved


# ---------------------------------------------------------------- compose_views


def _rr_two_fold_h(epsilon):
    """H_{e^eps} of two independent binary RR pairs (P = (3/4, 1/4), Q = (1/4, 3/4)),
    by enumerating the four outcomes at 50 digits."""
    with mpmath.workdps(50):
        p = [mpmath.mpf(3) / 4, mpmath.mpf(1) / 4]
        q = [p[1], p[0]]
        g = mpmath.exp(mpmath.mpf(epsilon))
        return sum(max(mpmath.mpf(0), p[i] * p[j] - g * q[i] * q[j])
                   for i in range(2) for j in range(2))


@pytest.mark.parametrize("epsilon", [0.2, 1.0])
def test_composition_of_a_view_of_lower_bound_values_has_only_an_upper_end(epsilon):
    """A view whose grid values are lower bounds (grid_exact=False) has no optimistic
    measure: the composition reports lower=None and a certified upper end."""
    view = _view([0.75, 0.25], [0.25, 0.75], 0.0, grid_exact=False)
    res = pld.compose_views([(view, 2)], epsilon=epsilon, discretization=1e-3)
    exact = _rr_two_fold_h(epsilon)
    assert res.lower is None
    assert mpmath.mpf(res.upper.value) >= exact
    assert res.upper.value <= float(exact) + 0.01
    exact_grid = pld.compose_views([(_view([0.75, 0.25], [0.25, 0.75], 0.0), 2)],
                                   epsilon=epsilon, discretization=1e-3)
    assert mpmath.mpf(exact_grid.lower.value) <= exact <= mpmath.mpf(exact_grid.upper.value)


@pytest.mark.parametrize("pessimistic", [True, False])
def test_truncate_moves_single_entry_tails(pessimistic):
    """One entry in each tail (the first and last kept indices are 1 and size - 2): the
    pessimistic measure keeps all its mass (left tail onto the first kept loss, right tail
    to +inf); the optimistic one keeps the right tail on the last kept loss."""
    mass = np.array([2.0**-12, 0.25, 0.5, 0.25 - 2.0**-10, 2.0**-11])
    pmf = _pmf(mass, width=0.25, offset=-2, infinity=0.0, pessimistic=pessimistic)
    out = pld.truncate(pmf, 2.0**-10)
    assert out.offset == -1 and out.mass.size == 3
    if pessimistic:
        assert out.mass[0] == 0.25 + 2.0**-12
        assert out.infinity == 2.0**-11
        assert math.fsum(out.mass) + out.infinity == math.fsum(mass)
    else:
        assert out.mass[-1] == 0.25 - 2.0**-10 + 2.0**-11
        assert out.infinity == 0.0
        assert math.fsum(out.mass) == math.fsum(mass) - 2.0**-12


@pytest.mark.parametrize("pessimistic", [True, False])
def test_truncate_ledger_covers_the_rounding_of_the_moved_sums(pessimistic):
    """Non-dyadic masses: the partial sums that move the tails round. The stored result must
    be within its ledger of the exactly moved measure (Fractions), and the ledger never
    forgets the input's (a heavier right tail: a ledger term in left - right would shrink).

    The rounding of adding a moved tail to a kept end entry is one u relative to that
    entry: `truncate` adds it to the relative part of the ledger (0 before; the mutation run
    found the gap, docs/soundness.md#mutation-testing)."""
    rng = np.random.default_rng(9)
    mass = np.concatenate([rng.random(25) * 1e-6, rng.random(30) + 0.1, rng.random(40) * 1e-6])
    mass /= mass.sum()
    pmf = _pmf(mass, width=0.1, offset=-50, infinity=1e-9, pessimistic=pessimistic,
               error=1e-12)
    out = pld.truncate(pmf, 3e-5)
    first = out.offset - pmf.offset
    last = first + out.mass.size - 1
    assert 0 < first and last < mass.size - 1
    ex = [Fraction(float(x)) for x in mass]
    left, right = sum(ex[:first]), sum(ex[last + 1:])
    kept = ex[first:last + 1]
    inf = Fraction(pmf.infinity)
    if pessimistic:
        kept[0] += left
        inf += right
    else:
        kept[-1] += right
    needed = _ledger_needed(out.mass, kept, out.relative) + abs(Fraction(out.infinity) - inf)
    assert needed <= Fraction(out.error) - Fraction(pmf.error)
    assert out.error >= pmf.error and out.relative >= _U > pmf.relative


@pytest.mark.parametrize("name, delta", [("plain", 1e-3), ("ledger", 1e-3), ("few", 1e-3),
                                         ("few", 0.15)])
@pytest.mark.parametrize("locator", ["zero", "inf", "low", "high"])
def test_epsilon_of_certifies_whatever_the_float_locator_says(monkeypatch, name, delta,
                                                              locator):
    """`float_inversion` only locates epsilon (it is not certified): epsilon_of must check the
    located value with the certified delta_of and bisect when the check fails. A locator
    that is wrong (0, inf, 0.3 too low or too high) must not change the certified sides,
    and where the located value fails the check (too small for the upper end, too large
    for the lower end, inf for both) the bisection must end within 1e-9 of the exact
    inverse."""
    kw = _MEASURES[name]
    up = _pmf(pessimistic=True, **kw)
    down = _pmf(pessimistic=False, **kw)
    top = (kw["offset"] + kw["mass"].size) * kw["width"] + 1
    exact_up = _inverse(lambda e: _h_true_upper(up, e), delta, top)
    exact_down = _inverse(lambda e: _h_true_lower(down, e), delta, top)
    if delta == 0.15:
        assert 0 < exact_down < exact_up < 1     # the bisections start below 1
    fake = {"zero": lambda exact: 0.0, "inf": lambda exact: math.inf,
            "low": lambda exact: max(0.0, exact - 0.3), "high": lambda exact: exact + 0.3}

    def wrong(losses, probs, infinity, target, exact=None):
        return fake[locator](exact)

    monkeypatch.setattr(pld.reading, "float_inversion",
                        lambda *args: wrong(*args, exact=exact_up))
    e_up = pld.epsilon_of(up, delta)
    monkeypatch.setattr(pld.reading, "float_inversion",
                        lambda *args: wrong(*args, exact=exact_down))
    e_down = pld.epsilon_of(down, delta)
    assert _h_true_upper(up, e_up) <= delta
    assert e_up >= exact_up - 1e-9
    if locator in ("zero", "low", "inf"):
        assert e_up <= exact_up + 1e-9
    if e_down > 0:
        assert _h_true_lower(down, e_down * (1 - 1e-15)) > delta
    assert e_down <= exact_down + 1e-9
    if locator in ("high", "inf"):
        assert e_down >= exact_down - 1e-9


@pytest.mark.parametrize("pessimistic", [True, False])
@pytest.mark.parametrize("shift", [0.03, 1.07, 4.51, 9.99])
def test_delta_of_far_from_zero_covers_the_rounding_of_eps_minus_loss(pessimistic, shift):
    """Losses near 1e5 on a non-dyadic grid: the float losses (k width) and eps - s round by
    ~1e-11, far above the relative allowance of the sum; the allowance that grows with
    |eps| + max |loss| must keep delta_of on its side of the exact H (60 digits)."""
    rng = np.random.default_rng(17)
    mass = rng.random(200)
    mass /= mass.sum()
    pmf = _pmf(mass, width=0.1, offset=10**6, pessimistic=pessimistic)
    epsilon = 1e5 + shift
    exact = _h_exact(pmf, epsilon)
    got = mpmath.mpf(pld.delta_of(pmf, epsilon))
    assert got >= exact if pessimistic else got <= exact
    assert abs(got - exact) <= 1e-8 * exact


# ---------------------------------------------------------------- pmf_from_entries


@pytest.mark.parametrize("pessimistic", [True, False])
def test_binning_of_no_entry_and_of_one_entry(pessimistic):
    """No finite entry (a view of +inf losses only): an empty measure that keeps the atom;
    one entry: its mass at its grid index."""
    empty = pld.pmf_from_entries(np.array([]), np.array([]), 0.1, 0.3, pessimistic)
    assert empty.width == 0.1 and empty.pessimistic is pessimistic
    assert float(np.sum(empty.mass)) == 0.0 and empty.infinity == 0.3
    assert empty.error == 0.0
    assert pld.delta_of(empty, 0.5) == pytest.approx(0.3, rel=1e-12, abs=0)
    one = pld.pmf_from_entries(np.array([5.0]), np.array([0.25]), 0.1, 0.0, pessimistic)
    assert one.offset == 5 and list(one.mass) == [0.25] and one.width == 0.1


def test_binning_ledger_covers_the_sums_in_each_bin():
    """3000 non-dyadic masses into 3 bins (1000 per bin): each stored bin is within its
    relative ledger of the exact sum of its entries (Fractions)."""
    rng = np.random.default_rng(21)
    mass = rng.random(3000) / 3000
    index = np.repeat(np.array([-1.0, 0.0, 2.0]), 1000)
    rng.shuffle(index)
    out = pld.pmf_from_entries(index, mass, 0.5, 0.0, True)
    assert out.offset == -1 and out.mass.size == 4 and out.mass[2] == 0.0
    exact = [sum((Fraction(float(m)) for m, i in zip(mass, index, strict=True) if i == k),
                 Fraction(0)) for k in (-1, 0, 1, 2)]
    assert _ledger_needed(out.mass, exact, out.relative) <= Fraction(out.error)
    # a bin is a sum of 1000 terms: at least the textbook 999 u (Higham, recursive sum)
    assert out.relative >= 999 * _U
