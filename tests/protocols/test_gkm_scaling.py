"""Theorem 2 swept in n (accountant.protocols.gkm.scaling).

Hand derivation at n = 1e4, eps = 1, rho = 0.5 (corrected q = 0.05 min(1, V)/n = 5e-6,
eps' = 0.995): RMSE^2 = Var(DLap(0.995)) + n q + n (n-1) q^2 = 1.86142 + 0.05 + 0.0025
= 1.91392.
"""

import math

import pytest

from accountant.errors import ParameterError
from accountant.protocols import gkm
from accountant.protocols.gkm.scaling import theorem2_row


def test_row_matches_the_exact_mse_and_messages():
    row = theorem2_row(n=10**4, epsilon=1.0)
    p = gkm.theorem6_parameters(n=10**4, epsilon=1.0, rho=0.5, corrected_q=True)
    assert row.s == p.s
    assert row.rmse ** 2 == pytest.approx(
        gkm.dlap_variance(0.995) + 1e4 * p.q + 1e4 * (1e4 - 1) * p.q ** 2, rel=1e-12)
    assert row.rmse ** 2 == pytest.approx(1.91392, rel=1e-5)
    assert row.messages == pytest.approx(gkm.expected_messages(p, x=1), rel=1e-15)
    assert row.messages_per_log_n == pytest.approx(row.messages / math.log(1e4), rel=1e-12)


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_rmse_times_epsilon_is_flat_and_messages_per_log_n_fall_in_n(epsilon):
    rows = [theorem2_row(n=10**k, epsilon=epsilon) for k in range(2, 9)]
    rmse = [r.rmse_times_epsilon for r in rows]
    assert max(rmse) / min(rmse) < 1.001  # q n does not depend on n
    per_log = [r.messages_per_log_n for r in rows]
    assert all(b <= a for a, b in zip(per_log, per_log[1:], strict=False))
    # s grows like ln n: the increments per decade are equal up to the ceiling
    steps = [b.s - a.s for a, b in zip(rows, rows[1:], strict=False)]
    assert max(steps) - min(steps) <= 2


def test_bad_input():
    with pytest.raises(ParameterError):
        theorem2_row(n=0, epsilon=1.0)
    with pytest.raises(ParameterError):
        theorem2_row(n=100, epsilon=1.0, rho=0.9)
    with pytest.raises(ParameterError, match="n=1"):
        theorem2_row(n=1, epsilon=1.0)
