"""Corollary 3 of Ghazi-Kumar-Manurangsi: real summation bit by bit
(docs/gkm.md#corollary-3-real-summation).

Each x_i in [0, 1] is rounded at random to a multiple of 2^-L (unbiased; variance at most
4^-L / 4 per user) and its L bits are summed by L counting protocols, bit j at eps_j with
Theorem 6's corrected parameters; the estimate is sum_j 2^-j c^_j. The budget split
eps_j = eps w_j / sum w is either w_j = 2^(-2j/3), which minimises sum_j 4^-j Var(DLap(eps_j))
with Var(DLap(a)) ~ 2/a^2 (Lagrange), or w_j = 1/j, which keeps the messages polylogarithmic
(the paper's "appropriate privacy budget split" is not given); and L = ceil(log2(n)/2) + 1
keeps the rounding term n 4^-L / 4 <= 1/16. Messages are labelled by their bit, so the view
is the product of the L counting views: pure-DP budgets add (`composed_epsilon`), the MSE
terms add over bits with weights 4^-j (`mse_upper`).

Example:
    >>> plan = plan_bits(n=10**4, epsilon=1.0)
    >>> plan.bits, round(sum(plan.epsilons), 12)
    (8, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accountant.domains import EPSILON0, N_PAIR
from accountant.errors import ParameterError
from accountant.protocols.gkm.protocol import (
    RHO,
    GkmParameters,
    expected_messages,
    mse_exact,
    theorem6_parameters,
    worst_case_max_divergence,
)

__all__ = ["SPLITS", "BitPlan", "plan_bits", "mse_upper", "messages_per_user", "composed_epsilon"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BitPlan:
    """The bit-by-bit protocol's parameters.

    Attributes:
        n: number of users.
        epsilon: the total pure-DP budget.
        bits: L, the number of bits (and counting protocols).
        epsilons: eps_j, j = 1..L, summing to epsilon.
        protocols: Theorem 6's corrected parameters of each bit's counting protocol.
    """

    n: int
    epsilon: float
    bits: int
    epsilons: tuple[float, ...]
    protocols: tuple[GkmParameters, ...]


SPLITS = ("mse", "harmonic")


def plan_bits(*, n: int, epsilon: float, rho: float = 0.5, split: str = "mse") -> BitPlan:
    """The bits, the budget split and each bit's counting protocol.

    Args:
        n: number of users, >= 2.
        epsilon: the total pure-DP budget, > 0.
        rho: Theorem 6's slack, in (0, 1/2].
        split: "mse" (eps_j proportional to 2^(-2j/3): the least sum_j 4^-j 2/eps_j^2, but
            sum_j 1/eps_j, hence the messages, grows like n^(1/3)) or "harmonic" (eps_j
            proportional to 1/j: messages O(L^2 log L log n / eps), MSE O((log L)^2/eps^2)).

    Returns:
        The BitPlan.

    Raises:
        ParameterError: an argument outside its domain.
    """
    N_PAIR.check(n)
    EPSILON0.named("epsilon").check(epsilon)
    RHO.check(rho)
    if split not in SPLITS:
        raise ParameterError(f"split={split!r} is outside {SPLITS}")
    bits = math.ceil(math.log2(n) / 2) + 1
    weights = [2.0 ** (-2 * j / 3) if split == "mse" else 1.0 / j for j in range(1, bits + 1)]
    epsilons = tuple(epsilon * w / sum(weights) for w in weights)
    protocols = tuple(theorem6_parameters(n=n, epsilon=e, rho=rho, corrected_q=True)
                      for e in epsilons)
    return BitPlan(n=int(n), epsilon=float(epsilon), bits=bits, epsilons=epsilons,
                   protocols=protocols)


def mse_upper(plan: BitPlan) -> float:
    """The largest MSE over datasets, bounded: every bit's count at n (the all-ones MSE of
    Lemma 11 is the largest, it grows with the count) plus the rounding variance n 4^-L / 4
    (its maximum, at x halfway between grid points). Each term is attained by some dataset,
    not all by one, so this is an upper bound within a factor of the worst case.

    Args:
        plan: from `plan_bits`.

    Returns:
        sum_j 4^-j mse_exact(bit j, ones = n) + n 4^-L / 4.
    """
    bits = sum(4.0 ** -(j + 1) * mse_exact(p, ones=plan.n) for j, p in
               enumerate(plan.protocols))
    return bits + plan.n * 4.0 ** -plan.bits / 4


def messages_per_user(plan: BitPlan) -> float:
    """Exact expected messages of a user whose L bits are all 1 (the most).

    Args:
        plan: from `plan_bits`.

    Returns:
        sum_j expected_messages(bit j, x = 1).
    """
    return sum(expected_messages(p, x=1) for p in plan.protocols)


def composed_epsilon(plan: BitPlan) -> float:
    """The certified max-divergence of the whole view, worst case over datasets: the sum
    of each bit's certified worst case (the view is the product of the bits' views, and a
    neighbouring pair changes each bit's dataset in at most one user).

    Minutes at Theorem 6's constants for n beyond a few users (each bit scans its flood's
    far region); use small n.

    Args:
        plan: from `plan_bits`.

    Returns:
        sum_j of `worst_case_max_divergence` (upper ends).
    """
    return sum(float(worst_case_max_divergence(p)[0].value) for p in plan.protocols)
