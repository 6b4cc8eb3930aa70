"""Result: safe rounding to float, honest kinds, and tightest() combining like with like."""

import math
from fractions import Fraction

import mpmath
import pytest

from accountant import Bracket, Direction, Kind, PrecisionError, Result, tightest


def _r(value, kind=Kind.UPPER, quantity="epsilon"):
    return Result(quantity=quantity, value=value, kind=kind, direction=Direction.MAX,
                  method="test")


def test_upper_rounds_up_and_lower_rounds_down():
    third = Fraction(1, 3)
    up, down = float(_r(third, Kind.UPPER)), float(_r(third, Kind.LOWER))
    assert Fraction(up) >= third >= Fraction(down)
    assert up != down  # 1/3 is not a float, so the two roundings differ by one ulp


def test_mpf_upper_rounds_up():
    with mpmath.workdps(40):
        x = mpmath.mpf(1) / 7
        assert mpmath.mpf(float(_r(x, Kind.UPPER))) >= x
        assert mpmath.mpf(float(_r(x, Kind.LOWER))) <= x


def test_nan_is_never_a_result():
    with pytest.raises(PrecisionError):
        _r(math.nan)


def test_exact_result_cannot_spend_an_error_budget():
    with pytest.raises(ValueError):
        Result(quantity="delta", value=0.1, kind=Kind.EXACT, direction=Direction.P_Q,
               method="t", error_budget=1e-9)


def test_tightest_takes_min_of_uppers_and_max_of_lowers():
    assert tightest(_r(0.3), _r(0.2), _r(0.25)).value == 0.2
    assert tightest(_r(0.3, Kind.LOWER), _r(0.2, Kind.LOWER)).value == 0.3


def test_tightest_refuses_to_mix_kinds_or_quantities():
    with pytest.raises(ValueError):
        tightest(_r(0.3), _r(0.2, Kind.LOWER))
    with pytest.raises(ValueError):
        tightest(_r(0.3), _r(0.2, quantity="delta"))


def test_json_of_a_value_below_float_range_keeps_its_exponent():
    with mpmath.workdps(30):
        tiny = mpmath.mpf(10) ** -400
    out = _r(tiny, quantity="delta").to_json()
    assert out["kind"] == "upper" and out["value"] > 0  # rounded up: the smallest subnormal
    assert out["log10_value"] == pytest.approx(-400)


def test_brackets_and_results_behave_like_numbers_and_print_short():
    """float(bracket) is the certified upper end (value + radius, rounded up; inf when
    unknown); repr is one line of at most 200 characters; to_dict() is the CLI's JSON."""
    from accountant import LDP
    from accountant.composition import Accountant

    b = LDP(n=1000, epsilon0=1.0).epsilon_for_delta(1e-6)
    assert float(b) == float(b.upper.upper_end()) >= float(b.upper.value)
    assert float(Bracket(lower=b.lower)) == math.inf
    for text in (repr(b), repr(b.upper), repr(Accountant().compose(LDP(n=100, epsilon0=1.0), 3)
                                               .get_epsilon(1e-5))):
        assert "\n" not in text and len(text) <= 200, text
    assert set(b.to_dict()) == set(b.json_items("epsilon")) == {
        "epsilon", "epsilon_lower", "epsilon_clones_lower"}
    assert Bracket().to_dict() == {}
