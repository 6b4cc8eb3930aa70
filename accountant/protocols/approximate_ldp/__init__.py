"""Any (epsilon0, delta0)-LDP randomizer, shuffled (issue 24, item 2).

Upper ends hold for every randomizer of the class: the clones pair at epsilon0 plus an
additive delta term (this library's lemma, docs/approximate-ldp.md#the-reduction), or the
local guarantee, whichever is smaller. Lower ends come from two members of the class:
binary RR at epsilon0 (pure, so in the class) and binary RR with a delta0 reveal branch
(`reveal_randomizer`), whose special pair is evaluated exactly. The max-divergence and
every Renyi divergence are +inf (the reveal member's view has an atom of one dataset only).

Modules: `reduction` (the certified upper ends), `reveal` (the reveal member and the lower
ends), `mechanism` (the contract object).
"""

from accountant.protocols.approximate_ldp.mechanism import ApproximateLDP
from accountant.protocols.approximate_ldp.reduction import (
    DELTA0,
    delta0_term,
    delta_upper,
    epsilon_upper,
    local_delta_upper,
)
from accountant.protocols.approximate_ldp.reveal import (
    delta_lower,
    epsilon_lower,
    reveal_randomizer,
)

__all__ = ["ApproximateLDP", "DELTA0", "delta0_term", "delta_lower", "delta_upper",
           "epsilon_lower", "epsilon_upper", "local_delta_upper", "reveal_randomizer"]
