"""[GGKPV] shuffled multi-message Hadamard response (docs/ggkpv.md). Modules: `views`
(parameters, the count pairs of the full view and their divergences), `calibration`
(the least rho for a target), `mechanism` (the contract object)."""

from accountant.protocols.ggkpv.calibration import Calibration, calibrate, least_rho
from accountant.protocols.ggkpv.mechanism import GGKPVHadamard
from accountant.protocols.ggkpv.views import (
    CITATION,
    INFINITE_DIVERGENCE_REASON,
    GGKPVParameters,
    background_view,
    count_pair,
    delta_bracket,
    epsilon_bracket,
    ggkpv_parameters,
    heuristic_epsilon,
    heuristic_view,
    labelled_view,
    max_divergence_bracket,
    renyi_bracket,
    slides_rho,
)

__all__ = [
    "CITATION", "INFINITE_DIVERGENCE_REASON", "Calibration", "GGKPVHadamard",
    "GGKPVParameters", "background_view", "calibrate", "count_pair", "delta_bracket",
    "epsilon_bracket", "ggkpv_parameters", "heuristic_epsilon", "heuristic_view",
    "labelled_view", "least_rho", "max_divergence_bracket", "renyi_bracket", "slides_rho",
]
