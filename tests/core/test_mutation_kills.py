"""Directed rounding and the Result/Bracket records, pinned where mutation testing found gaps.

Each test states a property from the docstring of `accountant.numeric.rounding` or
`accountant.result` (docs/soundness.md#mutation-testing): the definition of up/down as the
nearest float on one side, the closed form of `sum_relative_error`, the checks a Result or a
Bracket runs on construction, and the exact keys of their JSON.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from accountant import Direction, Kind, PrecisionError, Result, tightest
from accountant.numeric import rounding
from accountant.result import Bracket, Scope, Source

# ---------------------------------------------------------------- rounding.up / down


def _as_exact(x):
    """x as an exactly comparable number (Fraction or mpf; floats convert exactly)."""
    return x if isinstance(x, mpmath.mpf) else Fraction(x)


def _above(f, x):
    return mpmath.mpf(f) > x if isinstance(x, mpmath.mpf) else Fraction(f) > x


def _below(f, x):
    return mpmath.mpf(f) < x if isinstance(x, mpmath.mpf) else Fraction(f) < x


with mpmath.workprec(200):  # values finer than a float: 53-bit re-rounding would show
    _MPF_CASES = {
        "mpf-1/3": mpmath.mpf(1) / 3,
        "mpf-1/10": mpmath.mpf(1) / 10,
        "mpf-minus-2/3": -mpmath.mpf(2) / 3,
        "mpf-1+2^-80": 1 + mpmath.mpf(2) ** -80,
        "mpf-half": mpmath.mpf(1) / 2,  # a float exactly: no step
    }

_CASES = {
    "fraction-1/3": Fraction(1, 3),  # nearest float lies below
    "fraction-1/10": Fraction(1, 10),  # nearest float lies above
    "fraction-minus-1/3": Fraction(-1, 3),
    "fraction-half": Fraction(1, 2),  # a float exactly: no step
    "int-2^53+1": 2**53 + 1,  # float() rounds to nearest (even) below
    "int-2^60+3": 2**60 + 3,
    "int-minus-2^53-1": -(2**53) - 1,
    "int-7": 7,
    "numpy-int64-2^53+1": np.int64(2**53 + 1),
    **_MPF_CASES,
}


@pytest.mark.parametrize("x", list(_CASES.values()), ids=list(_CASES))
def test_up_is_the_least_float_at_or_above(x):
    """rounding.up docstring: the smallest float >= x."""
    f = rounding.up(x)
    exact = _as_exact(x) if not isinstance(x, np.integer) else Fraction(int(x))
    assert isinstance(f, float)
    assert not _below(f, exact)
    assert _below(math.nextafter(f, -math.inf), exact)


@pytest.mark.parametrize("x", list(_CASES.values()), ids=list(_CASES))
def test_down_is_the_greatest_float_at_or_below(x):
    """rounding.down docstring: the largest float <= x."""
    f = rounding.down(x)
    exact = _as_exact(x) if not isinstance(x, np.integer) else Fraction(int(x))
    assert isinstance(f, float)
    assert not _above(f, exact)
    assert _above(math.nextafter(f, math.inf), exact)


def test_big_integer_steps_to_its_neighbours():
    """2**53 + 1 is not a float: its neighbours are 2**53 and 2**53 + 2 (hand derivation)."""
    assert rounding.up(2**53 + 1) == 2.0**53 + 2
    assert rounding.down(2**53 + 1) == 2.0**53


@pytest.mark.parametrize("sign", [1, -1])
def test_infinite_mpf_stays_infinite(sign):
    inf = sign * mpmath.inf
    assert rounding.up(inf) == sign * math.inf
    assert rounding.down(inf) == sign * math.inf


def test_floats_and_numpy_floats_pass_through():
    assert rounding.up(0.1) == 0.1 == rounding.down(0.1)
    assert rounding.up(np.float64(0.1)) == 0.1 == rounding.down(np.float64(0.1))


@pytest.mark.parametrize("toward", ["lower", Kind.LOWER])
def test_to_float_lower_rounds_down_where_nearest_would_round_up(toward):
    """float(Fraction(1, 10)) = 0.1000000000000000055... lies above 1/10."""
    tenth = Fraction(1, 10)
    assert Fraction(float(tenth)) > tenth  # the nearest float is above: down must step
    assert rounding.to_float(tenth, toward=toward) == math.nextafter(0.1, 0.0)


@pytest.mark.parametrize("toward", ["upper", Kind.UPPER])
def test_to_float_upper_rounds_up_where_nearest_would_round_down(toward):
    third = Fraction(1, 3)
    assert Fraction(float(third)) < third
    assert rounding.to_float(third, toward=toward) == math.nextafter(float(third), 1.0)


@pytest.mark.parametrize("toward", ["exact", "heuristic"])
def test_to_float_otherwise_rounds_to_nearest(toward):
    assert rounding.to_float(Fraction(1, 10), toward=toward) == 0.1
    assert rounding.to_float(Fraction(1, 3), toward=toward) == 1 / 3


# ---------------------------------------------------------------- rounding.sum_relative_error

_U = 2.0**-53


@pytest.mark.parametrize(("n_terms", "depth"), [
    # depth = 128 + max(0, ceil(log2(n/128))) + 1, from the docstring (Higham 2nd ed. 4.2)
    (2, 129), (3, 129), (128, 129), (129, 130), (256, 130), (257, 131), (10**6, 142),
])
def test_sum_relative_error_matches_its_closed_form(n_terms, depth):
    assert rounding.sum_relative_error(n_terms) == 2.0 * depth * _U


@pytest.mark.parametrize("n_terms", [0, 1])
def test_one_term_or_none_sums_without_error(n_terms):
    assert rounding.sum_relative_error(n_terms) == 0.0


def test_sum_relative_error_grows_with_the_number_of_terms():
    values = [rounding.sum_relative_error(n) for n in (2, 200, 2000, 20000, 2 * 10**6)]
    assert values == sorted(values) and values[0] < values[-1]


def test_sum_relative_error_covers_a_real_worst_case_sum():
    """numpy's pairwise sum of 10**5 copies of 0.1 against the exact rational sum."""
    n = 10**5
    total = Fraction(float(np.sum(np.full(n, 0.1))))
    exact = n * Fraction(0.1)
    assert abs(total - exact) <= rounding.sum_relative_error(n) * exact


# ---------------------------------------------------------------- Result


def _r(value, kind=Kind.UPPER, **kw):
    fields = {"quantity": "epsilon", "direction": Direction.MAX, "method": "test"} | kw
    return Result(value=value, kind=kind, **fields)


def test_string_kind_scope_and_direction_become_enums():
    r = Result(quantity="delta", value=Fraction(1, 3), kind="upper", direction="max",
               method="t", scope="mechanism")
    assert r.kind is Kind.UPPER and r.direction is Direction.MAX
    assert r.scope is Scope.MECHANISM
    assert Fraction(float(r)) > Fraction(1, 3)  # an UPPER rounds up, whatever spelled it


def test_a_string_heuristic_kind_gets_heuristic_scope():
    r = Result(quantity="delta", value=0.1, kind="heuristic", direction="P||Q", method="t")
    assert r.kind is Kind.HEURISTIC and r.scope is Scope.HEURISTIC
    assert r.direction is Direction.P_Q


@pytest.mark.parametrize("kind", [Kind.UPPER, Kind.LOWER, Kind.EXACT])
def test_bounds_default_to_pair_scope(kind):
    """Claiming less is the safe default (Result docstring, `scope`)."""
    assert _r(0.1, kind).scope is Scope.PAIR


def test_heuristic_kind_overrides_a_claimed_scope():
    assert _r(0.1, Kind.HEURISTIC, scope=Scope.MECHANISM).scope is Scope.HEURISTIC


@pytest.mark.parametrize("kind", [Kind.UPPER, Kind.LOWER, Kind.EXACT])
def test_a_bound_cannot_claim_heuristic_scope(kind):
    with pytest.raises(ValueError, match="heuristic scope"):
        _r(0.1, kind, scope=Scope.HEURISTIC)


@pytest.mark.parametrize("radius", [-1e-300, -1.0, math.nan])
def test_radius_must_be_nonnegative(radius):
    with pytest.raises(ValueError, match="radius"):
        _r(0.1, Kind.EXACT, radius=radius)


def test_nan_message_names_the_method_and_quantity():
    with pytest.raises(PrecisionError, match="test produced NaN for epsilon"):
        _r(math.nan)


def test_with_changes_the_named_field_and_keeps_the_original():
    r = _r(0.5)
    s = r.with_(value=0.25, method="other")
    assert (s.value, s.method, r.value, r.method) == (0.25, "other", 0.5, "test")


def test_with_reruns_the_checks():
    with pytest.raises(ValueError):
        _r(0.5, Kind.EXACT).with_(error_budget=1e-9)


def test_to_json_has_exactly_the_documented_keys():
    r = _r(Fraction(1, 3), Kind.UPPER, quantity="renyi", order=math.inf, at=1e-6,
           source=Source(citation="A, B 2021", locator="Thm 1"), error_budget=1e-12,
           scope=Scope.MECHANISM, precision=128)
    out = r.to_json()
    assert out == {
        "value": math.nextafter(1 / 3, 1.0),  # UPPER rounds up
        "kind": "upper", "direction": "max", "method": "test", "scope": "mechanism",
        "precision_bits": 128, "order": "inf", "at": 1e-6,
        "source": "A, B 2021, Thm 1", "error_budget": 1e-12,
    }


def test_to_json_of_an_exact_ball_reports_its_radius():
    out = _r(0.25, Kind.EXACT, radius=1e-20, order=2.0).to_json()
    assert out == {"value": 0.25, "kind": "exact", "direction": "max", "method": "test",
                   "scope": "pair", "radius": 1e-20, "order": 2.0}


def test_to_json_leaves_out_unset_fields():
    assert set(_r(0.25).to_json()) == {"value", "kind", "direction", "method", "scope"}


@pytest.mark.parametrize(("value", "kind", "text"), [
    (math.inf, Kind.UPPER, "inf"), (-math.inf, Kind.LOWER, "-inf"),
    (mpmath.inf, Kind.UPPER, "inf"), (-mpmath.inf, Kind.LOWER, "-inf"),
])
def test_infinite_values_are_written_as_strings(value, kind, text):
    assert _r(value, kind).to_json()["value"] == text


@pytest.mark.parametrize("value", [
    mpmath.mpf(0), mpmath.mpf(1e-300), mpmath.mpf(0.5), 1e-310, 0.0,
], ids=["mpf-zero", "mpf-1e-300", "mpf-half", "float-subnormal", "float-zero"])
def test_log10_value_only_for_nonzero_mpf_below_1e_minus_300(value):
    assert "log10_value" not in _r(value).to_json()


# ---------------------------------------------------------------- tightest


def test_tightest_returns_the_first_exact_result():
    first, second = _r(0.3, Kind.EXACT, method="first"), _r(0.1, Kind.EXACT, method="second")
    assert tightest(_r(0.05), first, second) is first
    assert tightest(first) is first


def test_tightest_ignores_heuristics_beside_bounds():
    heuristic = _r(0.01, Kind.HEURISTIC, method="heuristic")
    assert tightest(_r(0.2), heuristic, _r(0.3)).value == 0.2
    assert tightest(_r(0.2, Kind.LOWER), heuristic).value == 0.2


def test_tightest_compares_mixed_value_types():
    uppers = (_r(Fraction(1, 3), method="fraction"), _r(0.33, method="float"),
              _r(mpmath.mpf("0.34"), method="mpf"))
    assert tightest(*uppers).method == "float"
    lowers = tuple(r.with_(kind=Kind.LOWER) for r in uppers)
    assert tightest(*lowers).method == "mpf"


def test_tightest_refuses_no_results_and_only_heuristics():
    with pytest.raises(ValueError, match="at least one"):
        tightest()
    with pytest.raises(ValueError, match="only heuristic"):
        tightest(_r(0.1, Kind.HEURISTIC))


def test_tightest_refuses_mixed_orders():
    with pytest.raises(ValueError, match="different quantities"):
        tightest(_r(0.1, quantity="renyi", order=2.0), _r(0.2, quantity="renyi", order=3.0))


# ---------------------------------------------------------------- Bracket


def test_bracket_refuses_heuristic_or_wrong_sided_ends():
    with pytest.raises(ValueError, match="Bracket.lower is a heuristic"):
        Bracket(lower=_r(0.1, Kind.HEURISTIC))
    with pytest.raises(ValueError, match="Bracket.upper is a heuristic"):
        Bracket(upper=_r(0.1, Kind.HEURISTIC))
    with pytest.raises(ValueError, match="Bracket.lower is an upper bound"):
        Bracket(lower=_r(0.1, Kind.UPPER))
    with pytest.raises(ValueError, match="Bracket.upper is a lower bound"):
        Bracket(upper=_r(0.1, Kind.LOWER))


def test_bracket_accepts_exact_ends_on_either_side():
    exact = _r(0.2, Kind.EXACT)
    b = Bracket(lower=exact, upper=_r(0.3))
    assert b.lower is exact and b.upper.value == 0.3
    assert Bracket(lower=_r(0.1, Kind.LOWER), upper=exact).upper is exact


def test_crossing_ends_raise():
    with pytest.raises(PrecisionError, match="certified ends cross"):
        Bracket(lower=_r(0.3, Kind.LOWER), upper=_r(0.2, Kind.UPPER))


def test_equal_ends_do_not_cross():
    b = Bracket(lower=_r(0.2, Kind.LOWER), upper=_r(0.2, Kind.UPPER))
    assert b.lower.value == b.upper.value == 0.2


def test_crossing_is_judged_at_the_ball_edges():
    """lower - radius <= upper + radius is no crossing: 0.3 - 0.06 <= 0.2 + 0.06."""
    lower, upper = _r(0.3, Kind.EXACT, radius=0.06), _r(0.2, Kind.EXACT, radius=0.06)
    assert Bracket(lower=lower, upper=upper).lower is lower
    with pytest.raises(PrecisionError):  # radii that do not reach each other
        Bracket(lower=lower.with_(radius=0.04), upper=upper.with_(radius=0.04))
    with pytest.raises(PrecisionError):  # one radius alone is not enough
        Bracket(lower=lower.with_(radius=0.0), upper=upper.with_(radius=0.09))
    with pytest.raises(PrecisionError):
        Bracket(lower=lower.with_(radius=0.09), upper=upper.with_(radius=0.0))


def test_crossing_compares_fraction_and_mpf_exactly():
    """A Fraction lower end one part in 10**30 above an mpf upper end still crosses."""
    with mpmath.workprec(200):
        upper = _r(mpmath.mpf(1) / 3, Kind.UPPER)
    lower = _r(Fraction(1, 3) + Fraction(1, 10**30), Kind.LOWER)
    with mpmath.workprec(200), pytest.raises(PrecisionError):
        Bracket(lower=lower, upper=upper)


@pytest.mark.parametrize("name", ["pair_lower", "special"])
def test_one_pairs_numbers_are_stamped_pair_scope(name):
    r = _r(0.1, Kind.LOWER, scope=Scope.MECHANISM, method="m")
    b = Bracket(**{name: r})
    stamped = getattr(b, name)
    assert stamped.scope is Scope.PAIR
    assert (stamped.value, stamped.kind, stamped.method) == (0.1, Kind.LOWER, "m")


def test_for_mechanism_stamps_both_ends_and_only_them():
    pair_lower, special = _r(0.15, Kind.LOWER), _r(0.12, Kind.UPPER)
    b = Bracket(lower=_r(0.1, Kind.LOWER), upper=_r(0.2), pair_lower=pair_lower,
                special=special, pair_name="clones").for_mechanism()
    assert b.lower.scope is Scope.MECHANISM and b.upper.scope is Scope.MECHANISM
    assert (b.lower.value, b.upper.value) == (0.1, 0.2)
    assert b.pair_lower.scope is Scope.PAIR and b.special.scope is Scope.PAIR
    assert b.pair_name == "clones"


def test_for_mechanism_keeps_an_exact_bracket_one_object():
    b = Bracket.of(_r(0.2, Kind.EXACT)).for_mechanism()
    assert b.lower is b.upper and b.upper.scope is Scope.MECHANISM


def test_for_mechanism_leaves_mechanism_ends_and_missing_ends_alone():
    upper = _r(0.2, scope=Scope.MECHANISM)
    b = Bracket(upper=upper).for_mechanism()
    assert b.upper is upper and b.lower is None


def test_bracket_of_one_result_sets_the_end_its_kind_names():
    exact, upper, lower = _r(0.2, Kind.EXACT), _r(0.3), _r(0.1, Kind.LOWER)
    assert (Bracket.of(exact).lower, Bracket.of(exact).upper) == (exact, exact)
    assert (Bracket.of(upper).lower, Bracket.of(upper).upper) == (None, upper)
    assert (Bracket.of(lower).lower, Bracket.of(lower).upper) == (lower, None)


def test_json_items_names_every_end():
    b = Bracket(lower=_r(0.1, Kind.LOWER), upper=_r(0.2), pair_lower=_r(0.15, Kind.LOWER),
                pair_name="clones", special=_r(0.12))
    out = b.json_items("epsilon")
    assert set(out) == {"epsilon", "epsilon_lower", "epsilon_clones_lower", "epsilon_special"}
    assert out["epsilon"] == _r(0.2).to_json()
    assert out["epsilon_lower"] == _r(0.1, Kind.LOWER).to_json()
    assert out["epsilon_clones_lower"]["value"] == 0.15
    assert "not a bound on the mechanism" in out["epsilon_clones_lower"]["note"]
    assert out["epsilon_special"]["value"] == 0.12
    assert "lower bound on the mechanism" in out["epsilon_special"]["note"]
    assert "note" not in out["epsilon"] and "note" not in out["epsilon_lower"]


def test_json_items_without_a_pair_name_and_with_missing_ends():
    out = Bracket(pair_lower=_r(0.15, Kind.LOWER)).json_items("delta")
    assert set(out) == {"delta_pair_lower"}
    assert Bracket().json_items("delta") == {}


# ---------------------------------------------------------------- ball ends (upper_end, lower_end)


def test_an_upper_ball_collapses_to_its_rounded_up_end():
    """An UPPER value with a radius becomes value + radius rounded up, with radius 0."""
    r = _r(0.5, Kind.UPPER, radius=0.25)
    assert (r.value, r.radius) == (0.75, 0.0)
    third = _r(Fraction(1, 3), Kind.UPPER, radius=1e-30)
    assert third.radius == 0.0
    assert third.value == rounding.up(Fraction(1, 3) + Fraction(1e-30))


def test_a_lower_ball_collapses_to_its_rounded_down_end():
    r = _r(0.5, Kind.LOWER, radius=0.25)
    assert (r.value, r.radius) == (0.25, 0.0)
    third = _r(Fraction(1, 3), Kind.LOWER, radius=1e-30)
    assert third.radius == 0.0
    assert third.value == rounding.down(Fraction(1, 3) - Fraction(1e-30))


def test_exact_balls_and_infinite_bounds_keep_their_radius():
    assert (_r(0.5, Kind.EXACT, radius=0.25).value, _r(0.5, Kind.EXACT, radius=0.25).radius) \
        == (0.5, 0.25)
    r = _r(math.inf, Kind.UPPER, radius=1.0)
    assert (r.value, r.radius) == (math.inf, 1.0)


def test_ends_of_a_float_ball_step_one_ulp_out():
    """0.1 +- 1e-20: 1e-20 is below half an ulp of 0.1 (1.4e-17), so each end is the
    neighbouring float (hand derivation)."""
    r = _r(0.1, Kind.EXACT, radius=1e-20)
    assert r.upper_end() == math.nextafter(0.1, 1.0)
    assert r.lower_end() == math.nextafter(0.1, 0.0)


@pytest.mark.parametrize("sign", [1, -1])  # -1: mpf.man_exp's mantissa is unsigned
def test_ends_of_a_fine_mpf_ball_are_the_nearest_floats_outside_it(sign):
    with mpmath.workprec(200):
        x = sign * mpmath.mpf(1) / 3
    r = _r(x, Kind.EXACT, radius=1e-40)
    with mpmath.workprec(600):  # exact: x has 200 bits, the radius 53, exponents close
        top, bottom = x + mpmath.mpf(1e-40), x - mpmath.mpf(1e-40)
        up, down = r.upper_end(), r.lower_end()
        assert mpmath.mpf(up) >= top > mpmath.mpf(math.nextafter(up, -math.inf))
        assert mpmath.mpf(down) <= bottom < mpmath.mpf(math.nextafter(down, math.inf))


def test_ends_without_a_radius_are_the_directed_roundings():
    third = Fraction(1, 3)
    assert _r(third, Kind.UPPER).upper_end() == rounding.up(third)
    assert _r(third, Kind.LOWER).lower_end() == rounding.down(third)
    assert _r(third, Kind.EXACT).upper_end() == rounding.up(third)
    assert _r(third, Kind.EXACT).lower_end() == rounding.down(third)


def test_ends_of_an_infinite_exact_ball_stay_infinite():
    r = _r(mpmath.inf, Kind.EXACT, radius=1.0)
    assert r.upper_end() == math.inf == r.lower_end()


@pytest.mark.parametrize(("kind", "end"), [
    (Kind.LOWER, "upper_end"), (Kind.UPPER, "lower_end"),
    (Kind.HEURISTIC, "upper_end"), (Kind.HEURISTIC, "lower_end"),
])
def test_a_bound_has_no_end_on_its_open_side(kind, end):
    with pytest.raises(ValueError, match="has no"):
        getattr(_r(0.5, kind), end)()


def test_a_negative_mpf_lower_ball_collapses_below_its_value():
    """It collapsed to +1e-50 - 1e-60 when the sign of the mpf was dropped."""
    r = _r(mpmath.mpf(-1e-50), Kind.LOWER, radius=1e-60)
    assert r.value <= -1e-50


# ---------------------------------------------------------------- error messages, word for word


def test_tightest_says_why_it_refuses():
    with pytest.raises(ValueError, match=r"^tightest\(\) needs at least one Result$"):
        tightest()
    with pytest.raises(ValueError, match=r"^tightest\(\) got only heuristic values; none of "
                                         r"them is a bound$"):
        tightest(_r(0.1, Kind.HEURISTIC))
    with pytest.raises(ValueError, match=r"^tightest\(\) cannot combine upper and lower "
                                         r"bounds; bracket them instead$"):
        tightest(_r(0.3), _r(0.2, Kind.LOWER))


def test_exact_with_budget_says_why():
    with pytest.raises(ValueError, match=r"^an exact result cannot spend an error budget$"):
        _r(0.1, Kind.EXACT, error_budget=1e-9)


def test_crossing_ends_name_both_methods_and_ask_for_a_report():
    pattern = (r"^certified ends cross: lower 0\.3 \(lo\) > upper 0\.2 \(hi\); one of them is "
               r"wrong, please report it$")
    with pytest.raises(PrecisionError, match=pattern):
        Bracket(lower=_r(0.3, Kind.LOWER, method="lo"), upper=_r(0.2, method="hi"))


# ---------------------------------------------------------------- the run's other findings


def test_directed_rounding_refuses_types_it_cannot_round_in_a_direction():
    """up("0.1") returned 0.1 (nearest, above 1/10 for down): no direction was kept."""
    with pytest.raises(TypeError):
        rounding.up("0.1")
    with pytest.raises(TypeError):
        rounding.down("0.1")


def test_cascade_sum_flattens_a_2d_array():
    """A 2-D input summed to 0.0 although the docstring says it is flattened."""
    from accountant.numeric.summation import cascade_sum

    assert cascade_sum(np.array([[1.0, 2.0], [3.0, 4.0]])) == 10.0


def test_json_of_a_tiny_negative_mpf_has_the_log10_of_its_magnitude():
    """to_json raised TypeError (log10 of a negative number is complex)."""
    r = _r(-mpmath.mpf("1e-350"), Kind.LOWER)
    assert abs(r.to_json()["log10_value"] + 350) < 1e-9
