"""Composition: the accountant object, RDP curves, subsampling, RDP -> (epsilon, delta)
conversions, PLD and optimal (epsilon, delta) composition (docs/conversions.md)."""

from accountant.composition.accountant import (
    Accountant,
    DiscreteLaplaceNoise,
    EpsilonDelta,
    GaussianNoise,
    LaplaceNoise,
    RandomizedResponse,
    SampledWithoutReplacement,
    Subsampled,
)
from accountant.composition.calibration import Calibration, calibrate, noise_multiplier
from accountant.composition.conversion import (
    delta_best,
    delta_cks,
    delta_mironov,
    delta_optimal,
    epsilon_best,
    epsilon_cks,
    epsilon_mironov,
    epsilon_optimal,
)
from accountant.composition.kov import (
    delta_drv,
    delta_kov,
    epsilon_drv,
    epsilon_kov,
    kov_view_pair,
)
from accountant.composition.pld import PldComposition, compose_views
from accountant.composition.rdp import DEFAULT_ORDERS, RdpCurve
from accountant.composition.subsampling import poisson_subsampled, without_replacement
from accountant.composition.training import TrainingAccountant

__all__ = [
    "Accountant",
    "DiscreteLaplaceNoise",
    "EpsilonDelta",
    "GaussianNoise",
    "LaplaceNoise",
    "RandomizedResponse",
    "SampledWithoutReplacement",
    "Subsampled",
    "TrainingAccountant",
    "Calibration",
    "calibrate",
    "noise_multiplier",
    "RdpCurve",
    "DEFAULT_ORDERS",
    "epsilon_mironov",
    "delta_mironov",
    "epsilon_cks",
    "delta_cks",
    "epsilon_optimal",
    "delta_optimal",
    "epsilon_best",
    "delta_best",
    "poisson_subsampled",
    "without_replacement",
    "delta_kov",
    "epsilon_kov",
    "epsilon_drv",
    "delta_drv",
    "kov_view_pair",
    "compose_views",
    "PldComposition",
]
