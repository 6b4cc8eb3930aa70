"""Calibration of Balcer-Cheu zsum/hist: the least noise meeting a target (epsilon, delta).

The paper sets p = 1 - 50 log(2/delta)/(epsilon^2 n) (Fig. 1), which is far more noise
than the exact guarantee needs (docs/balcer-cheu-2020.md#exact-zsum-view). `calibrate` finds the
largest p (least noise,
g = 1 - p smallest) whose exact epsilon(delta) (`accountant.protocols.balcer_cheu`, a
certified upper bound) is <= the target, within `tolerance` of it. The search is over
the parameter g only (Illinois regula falsi on log g, bracketed, so every accepted point
is checked by the exact inversion); epsilon(delta) itself is never bisected.

What the calibration buys is the accuracy: the proof form of Theorem 3.1(ii),
alpha = (1-p) + 2 sqrt(p (1-p) log(2/beta)/n), at the calibrated and at the paper's p,
and the exact (1 - beta) quantile of the analyzer's error (`error_quantile`), computed
from the binomial CDF: output = c* - p if c* = (s + K)/n > 1 else 0, K ~ Bin(n, p),
s = number of ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from accountant.bounds.balcer_cheu_2020 import (
    accuracy_alpha_for_p,
    accuracy_alpha_thm31,
    paper_p,
)
from accountant.domains import DELTA, N_USERS, Interval
from accountant.errors import ParameterError, RegimeError
from accountant.protocols.balcer_cheu.views import (
    BalcerCheuParameters,
    hist_epsilon,
    zsum_epsilon,
)
from accountant.result import Result

__all__ = ["Calibration", "calibrate", "error_quantile", "accuracy_summary", "MIN_GAMMA"]

# The smallest g = 1 - p with p < 1 in float (p = 1 - 2^-53).
MIN_GAMMA = 2.0 ** -53
_BETA = Interval("beta", 0.0, 1.0, closed="neither")
_PAPER_EPSILON = 1e-150
# the search squares and exponentiates epsilon-sized numbers
_TARGET_EPSILON = Interval("target_epsilon", 0.0, 700.0, closed="left",
                           note="e^epsilon must stay a finite float")
_TOLERANCE = Interval("tolerance", 0.0, 1.0, closed="neither")


@dataclass(frozen=True, slots=True, kw_only=True)
class Calibration:
    """The calibrated instance and what it buys.

    Attributes:
        params: the instance at the calibrated p.
        epsilon: its exact epsilon(target_delta) (certified upper bound) <= target_epsilon.
        target_epsilon, target_delta: the target.
        at_support_edge: the search hit p = 1/2 or p = 1 - 2^-53 (see `calibrate`).
        paper_p: the paper's p for the target (None when outside Theorem 3.1's regime):
            p(target_epsilon, target_delta) for zsum, p(target_epsilon/2,
            target_delta/2) for hist (Theorem 3.2(i) doubles both).
        evaluations: number of exact epsilon(delta) evaluations spent.
    """

    params: BalcerCheuParameters
    epsilon: Result
    target_epsilon: float
    target_delta: float
    at_support_edge: bool
    paper_p: float | None
    evaluations: int

    def to_json(self) -> dict[str, Any]:
        """The calibration as a JSON object.

        Returns:
            {"params", "epsilon" (the Result's JSON), "target": {"epsilon", "delta"},
            "at_support_edge", "paper_p", "evaluations"}.
        """
        return {"params": self.params.to_json(), "epsilon": self.epsilon.to_json(),
                "target": {"epsilon": self.target_epsilon, "delta": self.target_delta},
                "at_support_edge": self.at_support_edge, "paper_p": self.paper_p,
                "evaluations": self.evaluations}


def _epsilon(protocol: str, n: int, gamma: float, delta: float, d: int | None) -> Result:
    params = BalcerCheuParameters(n=n, p=1.0 - gamma, d=d)
    if protocol == "zsum":
        return zsum_epsilon(params, delta)
    return hist_epsilon(params, delta)


def calibrate(*, protocol: str, n: int, target_epsilon: float, target_delta: float,
              d: int | None = None, tolerance: float = 1e-6) -> Calibration:
    """Largest p in [1/2, 1) whose exact epsilon(target_delta) is <= target_epsilon.

    Args:
        protocol: "zsum" or "hist" (hist: the target is the histogram's own (eps, delta)).
        n: number of users.
        target_epsilon: the epsilon to meet, >= 0.
        target_delta: the delta at which it is met, in (0, 1).
        d: histogram domain size (hist only; the exact view does not depend on it).
        tolerance: the returned epsilon is in [target - tolerance, target].

    Returns:
        A Calibration; at_support_edge is True when p = 1 - 2^-53 already meets the
        target (no smaller noise is representable in float), or when the bracket closed
        to adjacent floats before reaching the tolerance (epsilon jumps there).

    Raises:
        ParameterError: invalid arguments.
        RegimeError: even p = 1/2 (the most noise the protocol allows) misses the target.
    """
    if protocol not in ("zsum", "hist"):
        raise ParameterError(f"protocol={protocol!r} is not one of zsum, hist")
    N_USERS.check(n)
    _TARGET_EPSILON.check(target_epsilon)
    DELTA.named("target_delta").check(target_delta)
    _TOLERANCE.check(tolerance)
    if protocol == "hist" and d is None:
        raise ParameterError("hist calibration needs d (the domain size)")
    n = int(n)
    evaluations = 0

    def eps_at(log_g: float) -> tuple[float, Result]:
        nonlocal evaluations
        evaluations += 1
        r = _epsilon(protocol, n, math.exp(log_g), target_delta, d)
        return float(r), r

    # Fig. 1's p for the target: for hist, Theorem 3.2(i) gives (2 eps, 2 delta) at
    # p(eps, delta), so the paper reaches the target with p(target/2, delta/2).
    halve = 2.0 if protocol == "hist" else 1.0
    paper = None
    # Theorem 3.1 needs n >= 100 ln(2/delta)/eps^2 > 1e300 for eps < _PAPER_EPSILON, and
    # paper_p would divide by an eps^2 that underflows to 0: no paper p there.
    if target_epsilon / halve >= _PAPER_EPSILON:
        try:
            paper = paper_p(epsilon=target_epsilon / halve, delta=target_delta / halve, n=n)
        except (RegimeError, ParameterError):
            paper = None

    def done(log_g: float, r: Result, edge: bool) -> Calibration:
        return Calibration(params=BalcerCheuParameters(n=n, p=1.0 - math.exp(log_g), d=d),
                           epsilon=r, target_epsilon=float(target_epsilon),
                           target_delta=float(target_delta), at_support_edge=edge,
                           paper_p=paper, evaluations=evaluations)

    lo_log = math.log(MIN_GAMMA)
    e_lo, r_lo = eps_at(lo_log)
    if e_lo <= target_epsilon:
        return done(lo_log, r_lo, True)
    # Upper bracket (epsilon <= target), found by doubling g from a cheap start: the hist
    # pair contains the zsum pair as a marginal, so (data processing) its epsilon is at
    # least zsum's and the zsum calibration is a lower bracket for hist. Evaluating hist at
    # p = 1/2 first would cost a 2-D grid of (22 sqrt(n/4))^2 points.
    if protocol == "hist":
        inner = calibrate(protocol="zsum", n=n, target_epsilon=target_epsilon,
                          target_delta=target_delta, tolerance=tolerance)
        evaluations += inner.evaluations
        start = max(1.0 - inner.params.p, MIN_GAMMA)
    else:
        start = min(0.5, 50.0 * math.log(2.0 / target_delta)
                    / (max(target_epsilon, 1e-3) ** 2 * n) / 16.0)
    hi_log = math.log(max(start, MIN_GAMMA))
    while True:
        e_hi, r_hi = eps_at(hi_log)
        if e_hi <= target_epsilon:
            break
        if hi_log >= math.log(0.5):
            raise RegimeError(
                f"calibrate: even p=1/2 gives epsilon={e_hi:.6g} > target_epsilon="
                f"{target_epsilon!r} at delta={target_delta!r} for n={n}; no p in [1/2, 1) "
                "meets it")
        lo_log, e_lo = hi_log, e_hi
        hi_log = min(hi_log + math.log(2.0), math.log(0.5))
    # Illinois regula falsi on f(log g) = min(eps, cap) - target; eps may be +inf near p=1.
    cap = target_epsilon + 10.0
    f_hi, f_lo = e_hi - target_epsilon, min(e_lo, cap) - target_epsilon
    w_hi, w_lo = f_hi, f_lo  # Illinois weights: halved when one end stays put twice
    side = 0
    for _ in range(200):
        if f_hi >= -tolerance:
            return done(hi_log, r_hi, False)
        if hi_log - lo_log < 1e-15:
            break
        x = hi_log - w_hi * (hi_log - lo_log) / (w_hi - w_lo)
        if not (lo_log < x < hi_log):
            x = 0.5 * (lo_log + hi_log)
        e_x, r_x = eps_at(x)
        f_x = min(e_x, cap) - target_epsilon
        if f_x <= 0:
            hi_log, f_hi, w_hi, r_hi = x, f_x, f_x, r_x
            w_lo = w_lo / 2 if side == -1 else w_lo
            side = -1
        else:
            lo_log, f_lo, w_lo = x, f_x, f_x
            w_hi = w_hi / 2 if side == 1 else w_hi
            side = 1
    return done(hi_log, r_hi, True)


def error_quantile(params: BalcerCheuParameters, *, ones: int, beta: float) -> float:
    """Exact (1 - beta) quantile of |output - ones/n| of the zsum analyzer (Fig. 1).

    output = (ones + K)/n - p if ones + K > n else 0, K ~ Bin(n, p). The error takes
    finitely many values; we return the smallest e with P[error <= e] >= 1 - beta,
    evaluated with scipy's binomial PMF (float; a diagnostic, not a privacy bound).

    Args:
        params: the zsum instance (n and p).
        ones: number of users holding 1, in 0..n.
        beta: failure probability, in (0, 1).

    Returns:
        The quantile as a float (O(n) work).

    Raises:
        ParameterError: beta outside (0, 1), or ones outside 0..n.
    """
    _BETA.check(beta)
    n = params.n
    if not (0 <= ones <= n):
        raise ParameterError(f"ones={ones!r} is outside [0, {n}]")
    k = np.arange(0, n + 1)
    total = ones + k
    out = np.where(total > n, total / n - params.p, 0.0)
    err = np.abs(out - ones / n)
    w = stats.binom.pmf(k, n, params.p)
    order = np.argsort(err, kind="stable")
    cdf = np.cumsum(w[order])
    i = int(np.searchsorted(cdf, 1.0 - beta - 1e-15, side="left"))
    return float(err[order][min(i, n)])


def accuracy_summary(params: BalcerCheuParameters, *, paper: float | None, beta: float,
                     epsilon: float | None = None, delta: float | None = None,
                     ones: int | None = None) -> dict[str, Any]:
    """Accuracy at p (and at the paper's p): Theorem 3.1(ii) and the exact error quantile.

    Args:
        params: the calibrated instance.
        paper: the paper's p for the same target, or None.
        beta: failure probability, in (0, 1).
        epsilon: the paper's target epsilon (with `delta`, adds Theorem 3.1(ii)'s alpha at the
            paper's p).
        delta: the paper's target delta.
        ones: number of users holding 1; None for n // 2.

    Returns:
        A dict with "beta", "ones", "calibrated" (p, "alpha_proof_form" as a Result's JSON or
        {"value": None, "reason"} out of regime, "exact_error_quantile"), and when `paper`
        is given "paper" (the same, plus "alpha_theorem_3_1" when epsilon and delta are) and
        "improvement_factor" (paper's quantile / calibrated quantile).

    Raises:
        ParameterError: beta outside (0, 1), ones outside 0..n, or p outside (0, 1).
        RegimeError: Theorem 3.1(ii)'s conditions fail at the paper's (epsilon, delta) (the
            proof form's RegimeError is caught and reported in the row instead).
    """
    ones = params.n // 2 if ones is None else ones
    out: dict[str, Any] = {"beta": beta, "ones": ones}

    def one(p: float) -> dict[str, Any]:
        q = BalcerCheuParameters(n=params.n, p=p, d=params.d)
        row: dict[str, Any] = {"p": p}
        try:
            row["alpha_proof_form"] = accuracy_alpha_for_p(p=p, n=params.n, beta=beta).to_json()
        except RegimeError as exc:
            row["alpha_proof_form"] = {"value": None, "reason": str(exc)}
        row["exact_error_quantile"] = error_quantile(q, ones=ones, beta=beta)
        return row

    out["calibrated"] = one(params.p)
    if paper is not None:
        out["paper"] = one(paper)
        if epsilon is not None and delta is not None:
            out["paper"]["alpha_theorem_3_1"] = accuracy_alpha_thm31(
                epsilon=epsilon, delta=delta, n=params.n, beta=beta).to_json()
        out["improvement_factor"] = (out["paper"]["exact_error_quantile"]
                                     / max(out["calibrated"]["exact_error_quantile"], 1e-300))
    return out
