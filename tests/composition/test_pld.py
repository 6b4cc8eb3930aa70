"""PLD composition: brackets around exact values (single shot, products, KOV), both orders of
a non-symmetric pair, and the acceptance comparison PLD <= RDP <= Girgis Thm 1."""

import math

import pytest

from accountant.bounds import girgis_2021
from accountant.composition import conversion as cv
from accountant.composition.kov import epsilon_kov, kov_view_pair
from accountant.composition.pld import compose_views
from accountant.composition.rdp import RdpCurve
from accountant.divergence import delta_bracket, epsilon_bracket
from accountant.errors import ParameterError
from accountant.protocols import binary_rr
from accountant.result import Kind


@pytest.fixture(scope="module")
def view_1e4():
    return binary_rr.view_pair(n=10_000, epsilon0=1.0)


@pytest.fixture(scope="module")
def curves_1e4(view_1e4):
    exact = RdpCurve.from_view(view_1e4)
    girgis = RdpCurve.from_function(
        lambda a: girgis_2021.rdp_upper_thm1(alpha=int(a), epsilon0=1.0, n=10_000),
        [float(a) for a in range(2, 65)], method="girgis thm1")
    return exact, girgis


def test_single_shot_matches_the_exact_epsilon_within_discretization(view_1e4):
    out = compose_views([(view_1e4, 1)], delta=1e-6)
    lo, hi = epsilon_bracket(view_1e4, 1e-6)
    assert out.lower.value <= lo.value and hi.value <= out.upper.value
    assert out.upper.value - lo.value <= 2 * out.discretization
    # the lower end: the connect-the-dots coupling shift, width sqrt(log(1/eta)/2) for one
    # round, eta >= 1e-9 delta (pld.coupling_shift)
    shift = out.discretization * math.sqrt(math.log(1 / 1e-15) / 2)
    assert hi.value - out.lower.value <= shift + 1e-8
    assert out.upper.kind is Kind.UPPER and out.lower.kind is Kind.LOWER


def test_two_rounds_bracket_the_exact_product_of_a_non_symmetric_pair():
    """The shuffled-RR pair is not symmetric (docs/single-message.md#binary-randomized-response:
    the orders differ); the exact
    2-fold value comes from the product view, maximised over both orders."""
    view = binary_rr.view_pair(n=150, epsilon0=2.0, tail=None)
    product = view.product(view)
    for delta in (1e-3, 1e-6):
        lo, hi = epsilon_bracket(product, delta)
        out = compose_views([(view, 2)], delta=delta, discretization=1e-4)
        assert out.lower.value <= lo.value <= hi.value <= out.upper.value
    one_order = epsilon_bracket(product, 1e-6, direction="P||Q")[0].value
    other = epsilon_bracket(product, 1e-6, direction="Q||P")[0].value
    assert abs(one_order - other) > 10 * 1e-5  # both orders matter here


def test_delta_at_epsilon_brackets_the_exact_product():
    view = binary_rr.view_pair(n=60, epsilon0=1.0, tail=None)
    product = view.product(view).product(view)
    lo, hi = delta_bracket(product, 0.5)
    out = compose_views([(view, 3)], epsilon=0.5, discretization=1e-5)
    assert out.lower.value <= lo.value <= hi.value <= out.upper.value


def test_homogeneous_eps_delta_brackets_kov():
    out = compose_views([(kov_view_pair(epsilon=0.2, delta=1e-7), 40)], delta=1e-5)
    exact = float(epsilon_kov(epsilon=0.2, delta=1e-7, rounds=40, delta_total=1e-5).value)
    assert out.lower.value <= exact <= out.upper.value


def test_heterogeneous_eps_delta_brackets_the_brute_force_product():
    a = kov_view_pair(epsilon=0.5, delta=1e-4)
    b = kov_view_pair(epsilon=1.2, delta=0.0)
    brute = a.product(a).product(a).product(b).product(b)
    lo, hi = epsilon_bracket(brute, 1e-3)
    out = compose_views([(a, 3), (b, 2)], delta=1e-3, discretization=1e-4)
    assert out.lower.value <= lo.value <= hi.value <= out.upper.value


@pytest.mark.parametrize("rounds", [1, 10, 100,
                                    pytest.param(1000, marks=pytest.mark.slow),
                                    pytest.param(10_000, marks=pytest.mark.slow)])
def test_acceptance_pld_below_rdp_below_girgis(view_1e4, curves_1e4, rounds):
    """Issue 5 acceptance, shuffled binary RR n = 1e4, eps0 = 1, delta = 1e-6."""
    exact_curve, girgis_curve = curves_1e4
    out = compose_views([(view_1e4, rounds)], delta=1e-6)
    rdp, _ = cv.epsilon_best(exact_curve.times(rounds), delta=1e-6)
    girgis, _ = cv.epsilon_best(girgis_curve.times(rounds), delta=1e-6)
    assert out.upper.value <= rdp.value <= girgis.value
    assert out.lower.value <= out.upper.value
    assert out.upper.value - out.lower.value < 0.01 * out.upper.value


def test_residual_mass_goes_to_the_infinite_atom():
    """A view with certified tail mass t: the pessimistic delta at any epsilon is >= t."""
    view = binary_rr.view_pair(n=2000, epsilon0=1.0, tail=1e-4)
    assert view.tail_p > 0
    out = compose_views([(view, 1)], epsilon=5.0, discretization=1e-4)
    assert out.upper.value >= view.tail_p


@pytest.mark.parametrize("kwargs, match", [
    (dict(delta=1e-6, epsilon=1.0), "exactly one"),
    (dict(delta=2.0), "delta=2.0"),
    (dict(delta=1e-6, discretization=-1.0), "discretization"),
])
def test_bad_arguments_raise(view_1e4, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        compose_views([(view_1e4, 1)], **kwargs)


def test_rounds_must_be_positive_integers(view_1e4):
    with pytest.raises(ParameterError, match="rounds=0"):
        compose_views([(view_1e4, 0)], delta=1e-6)
    assert math.isfinite(compose_views([(view_1e4, 2)], delta=1e-6).upper.value)
