"""A shuffled local randomizer given as a matrix, as a `Mechanism` (the protocol contract)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from accountant.divergence import delta_bracket, epsilon_bracket, renyi_divergence
from accountant.domains import EPSILON0, N_PAIR
from accountant.errors import ParameterError
from accountant.pairs.subsampled_count import subsampled_count_pair
from accountant.protocols import ldp
from accountant.protocols.contract import DominatingPair, Mechanism, param
from accountant.protocols.randomizer import blanket
from accountant.protocols.randomizer.matrix import Randomizer
from accountant.protocols.randomizer.views import exact_view_pair, histogram_count
from accountant.result import Bracket, Direction, Kind, Result, Source
from accountant.view import ViewPair

__all__ = ["RandomizerMechanism", "SPECIAL_VIEW_LIMIT"]

# Largest number of histograms on which the special pair (the lower end) is built.
SPECIAL_VIEW_LIMIT = 30_000
_METHOD = "protocols.randomizer"
# The clones pair needs e^epsilon0 as a finite float (the library's local randomizers stop
# at 700 too); beyond it the post-processing end epsilon0 is the Renyi upper end.
_CLONES_MAX_EPSILON0 = 700.0
# e^epsilon of a delta(epsilon) query must be a finite float
_MAX_EXP_EPSILON = 700.0
# The clones pair's Renyi moments are asked for orders up to this (the command line's cap);
# above it the moments e^((alpha - 1) loss) overflow and epsilon0 is the upper end.
_CLONES_MAX_ORDER = 1e6
_SPECIAL = Source(citation="special neighbouring pair of the matrix",
                  locator="all other users hold x; the differing user x or x' (the pair "
                          "attaining epsilon0); exact histogram views")


@dataclass(frozen=True)
class RandomizerMechanism(Mechanism):
    """n users, each applying the local randomizer `matrix` to its input, shuffled.

    Upper ends: the blanket bound of `protocols.randomizer.blanket` (every dataset, both
    orders). Lower ends: the exact special pair (all other users hold x, the differing user
    x or x', where (x, x') attains epsilon0), built when it has at most SPECIAL_VIEW_LIMIT
    histograms. Renyi upper ends: the clones pair at the matrix's epsilon0 (every
    epsilon0-LDP randomizer) or epsilon0, whichever is smaller.

    Attributes:
        matrix: the randomizer (a `Randomizer`; rows given as a 2-D list are validated).
        n: number of users, >= 2.

    Raises:
        ParameterError: on construction, an invalid matrix or n.
    """

    matrix: Randomizer
    n: int = param(N_PAIR, "number of users (>= 2)")
    name: ClassVar[str] = "randomizer"

    def __post_init__(self) -> None:
        super().__post_init__()  # validates the declared n
        if not isinstance(self.matrix, Randomizer):
            object.__setattr__(self, "matrix", Randomizer.from_rows(self.matrix))

    def params(self) -> dict[str, Any]:
        """{"n": n, "matrix": the matrix's description}."""
        return {"n": self.n, "matrix": self.matrix.describe()}

    def _special_inputs(self) -> tuple[int, int]:
        _, x, x1, _ = self.matrix.max_ratio()
        return x, x1

    def view_pair(self) -> ViewPair | None:
        """The special pair (P: every user holds x; Q: the differing user holds x'), or None
        beyond SPECIAL_VIEW_LIMIT histograms."""
        if histogram_count(self.n, self.matrix.outputs) > SPECIAL_VIEW_LIMIT:
            return None
        x, x1 = self._special_inputs()
        return exact_view_pair(self.matrix, self.n, [x] * self.n, [x1] + [x] * (self.n - 1))

    def subsampled_pair(self, rate: float, relation: str) -> ViewPair:
        """The count of y under one neighbouring pair of a Poisson-subsampled round
        (`pairs.subsampled_count_pair`), (x, x', y) the matrix's max-ratio triple
        (`Randomizer.max_ratio`: x maximises, x' minimises R(y|.)): the other users hold x',
        the differing user x (P) or x' / absent (Q). The entries are exact rationals, so
        the probabilities are rounded once. Other users hold x' (not x, as in `view_pair`):
        the count of y then has the smallest background."""
        _, x, x1, y = self.matrix.max_ratio()
        col = self.matrix.column(y)
        return subsampled_count_pair.unchecked(
            n=self.n, high=col[x], low=col[x1], rate=rate, relation=relation,
            description={"protocol": "randomizer", "matrix": self.matrix.name, "x": x,
                         "x_prime": x1, "y": y})

    def dominating_pair(self) -> DominatingPair[object]:
        """The matrix's blanket pairs, one per ordered input pair."""
        return DominatingPair(pair=blanket.blanket_bound(self.matrix, self.n),
                              name="blanket pairs of the matrix (Balle-Bell-Gascon-Nissim "
                                   "2019 decomposition), one per ordered input pair",
                              proof="docs/clones-and-blankets.md#blanket-bound-for-a-"
                                    "randomizer-matrix")

    def subsampling_pair(self) -> DominatingPair[object] | None:
        """The clones pair of the matrix's epsilon0 (rounded up): every epsilon0-LDP
        randomizer's rounds are dominated by it, sampled or not (its blanket pairs are not a
        clones-family pair); None when epsilon0 is 0 or outside the clones pair's domain
        (infinite: a zero entry)."""
        epsilon0 = self.matrix.epsilon0
        if not 0 < epsilon0 < EPSILON0.high:  # inf: a zero entry; 0: the output is noise
            return None
        return DominatingPair(pair=ldp.privacy.clones_pair.unchecked(n=self.n,
                                                                     epsilon0=epsilon0),
                              name=f"clones pair of the epsilon0 = {epsilon0:.6g} class "
                                   "(Feldman, McMillan, Talwar, FOCS 2021)",
                              proof="docs/clones-and-blankets.md#clones-pair")

    def epsilon_for_delta(self, delta: float) -> Bracket:
        """epsilon(delta): the blanket bound's upper end and the special pair's ends."""
        up = blanket.epsilon_for_delta(blanket.blanket_bound(self.matrix, self.n),
                                       delta=delta)
        return self._with_special_pair(up, "epsilon_for_delta",
                                       lambda view: epsilon_bracket.unchecked(view, delta))

    def delta_for_epsilon(self, epsilon: float) -> Bracket:
        """delta(epsilon): the blanket bound's upper end and the special pair's ends. Above
        epsilon = 700 (e^epsilon overflows) only epsilon >= the matrix's epsilon0 is answered
        (delta = 0 exactly: every view is epsilon0-DP); below it, a ParameterError."""
        if epsilon > _MAX_EXP_EPSILON:
            if epsilon >= self.matrix.epsilon0:
                return Bracket.of(Result(
                    quantity="delta", value=0.0, kind=Kind.EXACT, direction=Direction.MAX,
                    at=float(epsilon),
                    method=f"{_METHOD}.delta_for_epsilon (epsilon >= epsilon0 of the matrix: "
                           "pure DP, delta = 0)"))
            raise ParameterError(f"epsilon={epsilon!r} is outside [0, {_MAX_EXP_EPSILON:g}] "
                                 f"for a matrix with epsilon0={self.matrix.epsilon0:.6g} "
                                 "(e^epsilon must stay a finite float)")
        up = blanket.delta_for_epsilon(blanket.blanket_bound(self.matrix, self.n),
                                       epsilon=epsilon)
        return self._with_special_pair(up, "delta_for_epsilon",
                                       lambda view: delta_bracket.unchecked(view, epsilon))

    def _with_special_pair(self, upper: Result, what: str, bracket: Any) -> Bracket:
        """The Bracket with the blanket `upper` and, when the special pair is built, its
        certified ends: the lower one a lower bound on the mechanism."""
        lower = special = None
        view = self.view_pair()
        if view is not None:
            lo, hi = bracket(view)
            m = f"{_METHOD}.{what}(special pair: lower bound on the mechanism)"
            lower, special = lo.with_(method=m, source=_SPECIAL), hi.with_(method=m,
                                                                           source=_SPECIAL)
        return Bracket(lower=lower, upper=upper, pair_name="blanket", special=special)

    def renyi(self, orders: Sequence[float]) -> list[Bracket]:
        """Renyi divergences at many orders.

        Upper ends: the smaller of epsilon0 (D_alpha <= D_inf) and the clones pair's
        certified value at the matrix's epsilon0 (Feldman-McMillan-Talwar 2021: it
        dominates every epsilon0-LDP randomizer, and the matrix is epsilon0-LDP for the
        float epsilon0, which is rounded up). Lower ends: the exact special pair, when it is
        built (module constant SPECIAL_VIEW_LIMIT)."""
        finite = [float(a) for a in orders if a != math.inf]
        view = self.view_pair() if finite else None
        clones = self._clones_renyi(finite)
        out = []
        for alpha in orders:
            if alpha == math.inf:
                out.append(self.max_divergence())
                continue
            up = Result(quantity="renyi", value=self.matrix.epsilon0, kind=Kind.UPPER,
                        direction=Direction.MAX, order=float(alpha),
                        method=f"{_METHOD}.renyi (D_alpha <= D_inf <= epsilon0 of the "
                               "matrix: post-processing)")
            c = clones.get(float(alpha))
            if c is not None and c.value < up.value:
                up = c.with_(method=f"{_METHOD}.renyi (clones pair at the matrix's epsilon0: "
                                    f"every epsilon0-LDP randomizer; {c.method})")
            lower = special = None
            if view is not None:
                value = renyi_divergence(view, alpha)
                m = f"{_METHOD}.renyi(special pair: lower bound on the mechanism)"
                low = max(float(value.value) - 2 * value.error_budget, 0.0)
                lower = Result(quantity="renyi", value=min(low, up.value), kind=Kind.LOWER,
                               direction=Direction.MAX, method=m, source=_SPECIAL,
                               order=float(alpha), error_budget=value.error_budget)
                special = value.with_(method=m, source=_SPECIAL)
            out.append(Bracket(lower=lower, upper=up, special=special))
        return out

    def _clones_renyi(self, alphas: list[float]) -> dict[float, Result]:
        """{alpha: the clones pair's certified Renyi upper end at the matrix's epsilon0};
        empty when epsilon0 is 0, infinite or above _CLONES_MAX_EPSILON0, and without the
        orders above _CLONES_MAX_ORDER (the trivial end epsilon0 is then exact or all there
        is)."""
        e0 = self.matrix.epsilon0
        alphas = [a for a in alphas if a <= _CLONES_MAX_ORDER]
        if not alphas or not 0 < e0 <= _CLONES_MAX_EPSILON0:
            return {}
        curve = ldp.renyi_curve.unchecked(n=self.n, epsilon0=e0, alphas=alphas)
        return {a: up for a, (_, up) in zip(alphas, curve, strict=True)}

    def local_guarantee(self) -> tuple[float, float] | None:
        """(epsilon0 of the matrix, 0), None when it is infinite (a zero against a positive
        entry in one column)."""
        e0 = self.matrix.epsilon0
        return (e0, 0.0) if math.isfinite(e0) else None

    def max_divergence(self) -> Bracket:
        """epsilon0 of the matrix, both ends: every view is a post-processing of n reports
        (upper), and the histogram with all n messages equal to the output y attaining
        epsilon0, all other users holding x, has ratio R(y|x)/R(y|x') (lower)."""
        if self.matrix.max_ratio()[0] == 0:  # pragma: no cover - ratio >= 1 always
            raise ParameterError("matrix has no positive entry")
        m = f"{_METHOD}.max_divergence (epsilon0 of the matrix, attained)"
        mk = lambda v, kind: Result(quantity="max_divergence", value=v,  # noqa: E731
                                    kind=kind, direction=Direction.MAX, order=math.inf,
                                    method=m)
        return Bracket(lower=mk(self.matrix.epsilon0_lower, Kind.LOWER),
                       upper=mk(self.matrix.epsilon0, Kind.UPPER))
