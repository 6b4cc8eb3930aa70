"""Any epsilon0-LDP randomizer, shuffled: certified upper bounds valid for every randomizer
of the class (the clones pair, docs/clones-and-blankets.md#clones-pair) and binary RR's
special pair as a lower bound (a member of the class)."""

from accountant.protocols.ldp.mechanism import LDP
from accountant.protocols.ldp.privacy import (
    clones_pair,
    delta_for_epsilon,
    epsilon_for_delta,
    max_divergence,
    renyi_curve,
    renyi_divergence,
)

__all__ = ["LDP", "clones_pair", "delta_for_epsilon", "epsilon_for_delta", "max_divergence",
           "renyi_curve", "renyi_divergence"]
