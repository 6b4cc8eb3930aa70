"""Balcer-Cheu 2020: the zero-sum counting protocol (zsum) and the histogram (hist)
(docs/balcer-cheu-2020.md). Modules: `views` (exact pairs and their divergences),
`audit`, `calibration`, `smoothness` (exact smoothness of Bin), `mechanism`, `accuracy`
(exact accuracy at the worst dataset and histogram), `single_message` (Section 4), `support`
(support identification, Claim 3.4), `pointer_chasing` (Defs. 3.5, 3.6, Table 2)."""

from accountant.protocols.balcer_cheu.accuracy import (
    WorstAccuracy,
    failure_probabilities,
    simultaneous_failure,
    worst_error_quantile,
    worst_simultaneous_error_quantile,
)
from accountant.protocols.balcer_cheu.audit import AUDIT_GRID, audit_hist, audit_table, audit_zsum
from accountant.protocols.balcer_cheu.calibration import (
    MIN_GAMMA,
    Calibration,
    accuracy_summary,
    calibrate,
    error_quantile,
)
from accountant.protocols.balcer_cheu.mechanism import BalcerCheuHist, BalcerCheuZsum
from accountant.protocols.balcer_cheu.pointer_chasing import (
    central_support_success,
    least_n_central,
    pointer_chase,
)
from accountant.protocols.balcer_cheu.single_message import (
    claim_42_max_divergence,
    local_epsilon_for_delta,
    shuffled_epsilon_bracket,
)
from accountant.protocols.balcer_cheu.smoothness import binomial_smoothness_delta
from accountant.protocols.balcer_cheu.support import (
    SupportIdentification,
    least_n_for_support,
    multinomial_product,
    support_identification,
)
from accountant.protocols.balcer_cheu.views import (
    INFINITE_DIVERGENCE_REASON,
    BalcerCheuParameters,
    hist_delta,
    hist_delta_pld,
    hist_epsilon,
    hist_epsilon_bracket,
    hist_epsilon_pld,
    hist_parameters,
    hist_view,
    max_divergence,
    renyi_divergence,
    zsum_delta,
    zsum_epsilon,
    zsum_epsilon_bracket,
    zsum_parameters,
    zsum_view,
)

__all__ = [
    "AUDIT_GRID", "INFINITE_DIVERGENCE_REASON", "MIN_GAMMA", "BalcerCheuHist",
    "BalcerCheuParameters", "BalcerCheuZsum", "Calibration", "accuracy_summary",
    "audit_hist", "audit_table", "audit_zsum", "binomial_smoothness_delta", "calibrate",
    "error_quantile", "hist_delta", "hist_delta_pld", "hist_epsilon", "hist_epsilon_bracket",
    "hist_epsilon_pld", "hist_parameters", "hist_view", "max_divergence", "renyi_divergence",
    "zsum_delta", "zsum_epsilon", "zsum_epsilon_bracket", "zsum_parameters", "zsum_view",
    "WorstAccuracy", "claim_42_max_divergence", "failure_probabilities",
    "local_epsilon_for_delta", "simultaneous_failure", "worst_error_quantile",
    "worst_simultaneous_error_quantile", "SupportIdentification", "least_n_for_support",
    "multinomial_product", "support_identification", "central_support_success",
    "least_n_central", "pointer_chase", "shuffled_epsilon_bracket",
]
