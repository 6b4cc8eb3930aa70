"""Members of the (epsilon0, delta0)-LDP class whose shuffled views give the lower ends.

The reveal member (docs/approximate-ldp.md#the-reveal-member): inputs {0, 1}, outputs
(bottom_0, 0, 1, bottom_1); with probability delta0 the user outputs bottom_x (its input in
the clear), otherwise binary randomized response at epsilon0. Its two rows are exactly
(epsilon0, delta0)-indistinguishable (the hockey-stick at e^epsilon0 is delta0 in each
order). Take all other users holding 0 and the differing user holding 1 (view V1) or 0
(view V0). The outcomes with a bottom_1 have V1-mass delta0 and V0-mass 0; on the others,
with j users revealing and m = n - j randomizing, V0 = pi_j B_0^(m) and
V1 = pi_j (m/n) B_1^(m), pi_j = Bin(n, delta0)(j), B_b^(m) binary RR's special pair at m
users (differing user holding b). Hence

    H_{e^eps}(V1||V0) = delta0 + sum_j pi_j (m/n) H_{(n/m) e^eps}(B_1^(m)||B_0^(m))
                     >= delta0 + (1 - delta0)^n H_{e^eps}(B_1^(n)||B_0^(n))     (j = 0 only)

which is the lower end used here, together with binary RR at epsilon0 itself (pure, so a
member of the class): `ldp`'s lower end.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from accountant.divergence import delta_bracket, epsilon_bracket
from accountant.domains import DELTA, EPSILON, EPSILON0, N_PAIR, checked
from accountant.numeric.rounding import down
from accountant.protocols import binary_rr, ldp
from accountant.protocols.approximate_ldp.reduction import DELTA0
from accountant.protocols.randomizer import Randomizer
from accountant.result import Direction, Kind, Result, Source

__all__ = ["delta_lower", "epsilon_lower", "reveal_randomizer"]

_METHOD = "protocols.approximate_ldp"
_REVEAL = Source(citation="binary RR with a delta0 reveal branch, a member of the class",
                 locator="docs/approximate-ldp.md#the-reveal-member")
_PREC = 200
# tail of the binary-RR special pair's window (its outside mass is certified and dropped
# from the lower end)
_TAIL = 1e-250


def reveal_randomizer(exp_epsilon0: Any, delta0: Any) -> Randomizer:
    """The reveal member as an exact matrix: rows (delta0, (1-delta0) w, (1-delta0) w', 0)
    and (0, (1-delta0) w', (1-delta0) w, delta0), w = g/(g+1), w' = 1/(g+1), g = e^epsilon0.

    Args:
        exp_epsilon0: e^epsilon0 > 1 (int, Fraction or float, taken exactly).
        delta0: in (0, 1) (taken exactly).

    Returns:
        A `Randomizer` with 2 inputs and outputs labelled bottom_0, 0, 1, bottom_1; it is
        (log exp_epsilon0, delta0)-LDP and its hockey-stick at exp_epsilon0 is delta0.

    Raises:
        ParameterError: exp_epsilon0 <= 1 or delta0 outside (0, 1).
    """
    g, d = Fraction(exp_epsilon0), Fraction(delta0)
    EPSILON0.named("log(exp_epsilon0)").check(math.log(g) if g > 0 else -1.0)
    DELTA0.check(d)
    w, w1 = g / (g + 1), 1 / (g + 1)
    rows = [[d, (1 - d) * w, (1 - d) * w1, Fraction(0)],
            [Fraction(0), (1 - d) * w1, (1 - d) * w, d]]
    return Randomizer.from_rows(rows, name=f"binary RR with reveal (e^epsilon0={g}, "
                                f"delta0={d})", source="docs/approximate-ldp.md#the-reveal-"
                                "member", labels=("bottom_0", "0", "1", "bottom_1"))


def _lower(quantity: str, value: float, at: float, how: str, source: Source,
           error_budget: float = 0.0) -> Result:
    return Result(quantity=quantity, value=value, kind=Kind.LOWER, direction=Direction.MAX,
                  at=float(at), method=f"{_METHOD}.{how}", source=source,
                  error_budget=error_budget)


def _scaled_down(a: float, delta0: float, n: int) -> float:
    """delta0 + (1 - delta0)^n a, rounded down (a >= 0 a certified lower end)."""
    with mpmath.workprec(_PREC):
        product = (1 - mpmath.mpf(delta0)) ** n * mpmath.mpf(a)
        below = down(product * (1 - mpmath.mpf(2) ** -150))  # covers mpmath's rounding
    return down(Fraction(delta0) + Fraction(below))  # an exact sum, rounded once


@checked(n=N_PAIR, epsilon0=EPSILON0, delta0=DELTA0, epsilon=EPSILON)
def delta_lower(*, n: int, epsilon0: float, delta0: float, epsilon: float) -> Result:
    """delta(epsilon) lower end of the class: the larger of the reveal member's special pair
    (j = 0 term, module docstring) and binary RR's (`ldp.delta_for_epsilon`'s lower end).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' epsilon0, > 0.
        delta0: the local randomizers' delta0, in (0, 1).
        epsilon: epsilon >= 0.

    Returns:
        Result(quantity="delta", kind=LOWER, direction=MAX), at least delta0.

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, delta0, epsilon = int(n), float(epsilon0), float(delta0), float(epsilon)
    view = binary_rr.view_pair.unchecked(n=n, epsilon0=epsilon0, ones=0, tail=_TAIL)
    special, _ = delta_bracket.unchecked(view, epsilon, direction=Direction.P_Q)
    best = _lower("delta", _scaled_down(max(float(special.value), 0.0), delta0, n), epsilon,
                  f"delta_lower (reveal member: delta0 + (1 - delta0)^n x binary RR special "
                  f"pair {float(special.value):.6g}; {special.method})", _REVEAL)
    pure = ldp.delta_for_epsilon.unchecked(n=n, epsilon0=epsilon0, epsilon=epsilon).lower
    if pure is not None and float(pure.value) > float(best.value):
        best = pure.with_(direction=Direction.MAX, kind=Kind.LOWER,
                          method=f"{_METHOD}.delta_lower (binary RR, pure, in the class; "
                                 f"{pure.method})")
    return best


@checked(n=N_PAIR, epsilon0=EPSILON0, delta0=DELTA0, delta=DELTA)
def epsilon_lower(*, n: int, epsilon0: float, delta0: float, delta: float) -> Result:
    """epsilon(delta) lower end of the class: +inf below delta0 (the reveal member's atom has
    mass delta0 under one dataset only), else the larger of the reveal member's special pair
    inverted at (delta - delta0) / (1 - delta0)^n and binary RR's (`ldp`'s lower end).

    Args:
        n: number of users, an integer >= 2.
        epsilon0: the local randomizers' epsilon0, > 0.
        delta0: the local randomizers' delta0, in (0, 1).
        delta: target delta, in (0, 1).

    Returns:
        Result(quantity="epsilon", kind=LOWER, direction=MAX).

    Raises:
        ParameterError: an argument is outside its domain.
    """
    n, epsilon0, delta0, delta = int(n), float(epsilon0), float(delta0), float(delta)
    if delta < delta0:
        return _lower("epsilon", math.inf, delta, "epsilon_lower (delta < delta0: the reveal "
                      "member's view has an atom of mass delta0 under one dataset only)",
                      _REVEAL)
    best = ldp.epsilon_for_delta.unchecked(n=n, epsilon0=epsilon0, delta=delta).require_lower()
    best = best.with_(direction=Direction.MAX, kind=Kind.LOWER,
                      method=f"{_METHOD}.epsilon_lower (binary RR, pure, in the class; "
                             f"{best.method})")
    with mpmath.workprec(_PREC):
        # a target above the true (delta - delta0)/(1 - delta0)^n only lowers the inverse
        target = float((mpmath.mpf(delta) - mpmath.mpf(delta0))
                       / (1 - mpmath.mpf(delta0)) ** n * (1 + mpmath.mpf(2) ** -150))
        target = math.nextafter(target, math.inf)
    if 0 < target < 1:
        view = binary_rr.view_pair.unchecked(n=n, epsilon0=epsilon0, ones=0, tail=_TAIL)
        low, _ = epsilon_bracket.unchecked(view, target, direction=Direction.P_Q)
        if float(low.value) > float(best.value):
            best = _lower("epsilon", float(low.value), delta,
                          f"epsilon_lower (reveal member: binary RR special pair at "
                          f"(delta - delta0)/(1 - delta0)^n = {target:.6g}; {low.method})",
                          _REVEAL, low.error_budget)
    return best
