"""Properties of Balcer-Cheu exact privacy over random parameters (hypothesis, domains.py
strategies): the float bracket contains the EXACT mp value on the full support, the float
upper bound is within 1e-9 of it, and delta(epsilon(delta)) <= delta."""

import math

from hypothesis import given
from hypothesis import strategies as st

from accountant.domains import DELTA, N_USERS, PROBABILITY
from accountant.protocols import balcer_cheu as bc
from accountant.result import Kind

SMALL_N = N_USERS.strategy(min_value=5, max_value=150)
P = PROBABILITY.named("p").strategy(min_value=0.5, max_value=0.98)
DELTAS = DELTA.strategy(min_value=1e-9, max_value=0.2)


@given(n=SMALL_N, p=P, delta=DELTAS)
def test_float_bracket_contains_exact_mp_value(n, p, delta):
    params = bc.zsum_parameters(n=n, p=p)
    exact = bc.zsum_epsilon(params, delta, backend="mp", full_support=True)
    assert exact.kind is Kind.EXACT
    lower, upper = bc.zsum_epsilon_bracket(params, delta)
    e = float(exact.value)
    if math.isinf(e):
        assert math.isinf(float(upper))
        return
    assert float(lower) <= e * (1 + 1e-15) + 1e-300
    assert e <= float(upper) <= e + 1e-9 * max(e, 1.0)


@given(n=st.integers(min_value=10**3, max_value=10**9), p=P, delta=DELTAS)
def test_delta_at_epsilon_of_delta_is_at_most_delta(n, p, delta):
    params = bc.zsum_parameters(n=n, p=p)
    eps = bc.zsum_epsilon(params, delta)
    if not math.isfinite(eps.value) or eps.value == 0:
        return
    d = bc.zsum_delta(params, float(eps))
    # delta(eps_upper) is at most delta up to the two computations' error budgets
    assert float(d) <= delta * (1 + 1e-9) + d.error_budget
