"""How Ghazi-Kumar-Manurangsi counting scales in n: Theorem 2 measured on Theorem 6's
parameters (docs/gkm.md#theorem-2-swept-in-n).

Theorem 2: for epsilon <= O(1) an epsilon-DP shuffle protocol for binary summation with
RMSE O(1/epsilon) and O(log n / epsilon) expected one-bit messages per user; Theorem 6 with
rho = 0.5 gives it. `theorem2_row` evaluates one n exactly: the worst RMSE over datasets
(the all-ones one: MSE = Var(DLap(eps')) + m q + m (m - 1) q^2 grows with the count m of
ones) and the exact expected messages of a user holding 1 (the larger of x = 0, 1), both
normalised by the theorem's rates, so that "O(.)" becomes a measured constant per n.

Example:
    >>> row = theorem2_row(n=10**4, epsilon=1.0)
    >>> row.s, round(row.rmse_times_epsilon, 4)
    (4666, 1.3834)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accountant.domains import EPSILON0, N_PAIR
from accountant.protocols.gkm.protocol import (
    RHO,
    expected_messages,
    mse_exact,
    theorem6_parameters,
)

__all__ = ["Theorem2Row", "theorem2_row"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Theorem2Row:
    """Theorem 2's two rates at one (n, epsilon), on Theorem 6's corrected parameters.

    Attributes:
        n, epsilon, rho: the inputs.
        s, lam: Theorem 6's (minimal) copies and flood parameter.
        rmse: exact worst RMSE over datasets (all ones), exact.
        messages: exact expected messages of a user holding 1 (Lemma 12 corrected), exact.
        rmse_times_epsilon: rmse * epsilon (Theorem 2: bounded).
        messages_per_log_n: messages * epsilon / ln n (Theorem 2: bounded).
    """

    n: int
    epsilon: float
    rho: float
    s: int
    lam: float
    rmse: float
    messages: float
    rmse_times_epsilon: float
    messages_per_log_n: float


def theorem2_row(*, n: int, epsilon: float, rho: float = 0.5) -> Theorem2Row:
    """Theorem 2's rates at (n, epsilon), exactly, with Theorem 6's corrected q.

    Args:
        n: number of users, >= 2 (ln n > 0).
        epsilon: the pure-DP target, > 0.
        rho: Theorem 6's slack, in (0, 1/2] (Theorem 2 takes a constant; 0.5 by default).

    Returns:
        The Theorem2Row.

    Raises:
        ParameterError: an argument outside its domain.
        RegimeError: Theorem 6's q is not below 1 (`theorem6_parameters`; the corrected
            q <= 0.05 never is).
    """
    N_PAIR.check(n)  # ln n > 0 normalises the messages
    EPSILON0.named("epsilon").check(epsilon)
    RHO.check(rho)
    p = theorem6_parameters(n=n, epsilon=epsilon, rho=rho, corrected_q=True)
    rmse = math.sqrt(mse_exact(p, ones=p.n))
    messages = max(expected_messages(p, x=1), expected_messages(p, x=0))
    return Theorem2Row(n=int(n), epsilon=float(epsilon), rho=float(rho), s=p.s, lam=p.lam,
                       rmse=rmse, messages=messages, rmse_times_epsilon=rmse * epsilon,
                       messages_per_log_n=messages * epsilon / math.log(n))
