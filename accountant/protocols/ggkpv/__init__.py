"""[GGKPV] shuffled multi-message Hadamard response (docs/ggkpv.md). Modules: `views`
(parameters, the count pairs of the full view and their divergences), `calibration`
(the least rho for a target), `mechanism` (the contract object); `countmin` (the count-min
variant with public coins: its parameters, pairs, accountant, calibration and contract
object, docs/ggkpv.md#count-min-variant); `local_hadamard` (the local Hadamard response's
certified error) and `fano` (the slides' Fano step, exact mutual information)."""

from accountant.protocols.ggkpv import fano, local_hadamard
from accountant.protocols.ggkpv.calibration import Calibration, calibrate, least_rho
from accountant.protocols.ggkpv.countmin import (
    COUNTMIN_INFINITE_REASON,
    STEP,
    CountMinCalibration,
    CountMinParameters,
    CountMinSketch,
    LossLattice,
    calibrate_countmin,
    compose_lattices,
    countmin_delta_bracket,
    countmin_epsilon_bracket,
    countmin_max_divergence_bracket,
    countmin_parameters,
    countmin_renyi_bracket,
    lattice_step,
    lattice_view,
    mixture_view,
    row_lattice,
    row_pair,
    separating_lattice,
)
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
    "fano",
    "local_hadamard",
    "CITATION", "INFINITE_DIVERGENCE_REASON", "Calibration", "GGKPVHadamard",
    "GGKPVParameters", "background_view", "calibrate", "count_pair", "delta_bracket",
    "epsilon_bracket", "ggkpv_parameters", "heuristic_epsilon", "heuristic_view",
    "labelled_view", "least_rho", "max_divergence_bracket", "renyi_bracket", "slides_rho",
    # count-min variant
    "COUNTMIN_INFINITE_REASON", "CountMinCalibration", "CountMinParameters", "CountMinSketch",
    "LossLattice", "STEP", "calibrate_countmin", "compose_lattices", "countmin_delta_bracket",
    "countmin_epsilon_bracket", "countmin_max_divergence_bracket", "countmin_parameters",
    "countmin_renyi_bracket", "lattice_step", "lattice_view", "mixture_view", "row_lattice",
    "row_pair", "separating_lattice",
]
