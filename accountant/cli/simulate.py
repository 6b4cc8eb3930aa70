"""Command-line handlers that run the literal protocols (`simulate`, and the simulated
error that `calibrate` reports) with `verify.samplers`. The command line is the top layer:
it may import `verify` and `figures`, which never import it. The registry
(`EXTRA_HANDLERS` in `accountant.cli.registry`) loads this module when such a command is
used and uses `CLI_HANDLERS` in place of the protocols' own handlers.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from accountant.bounds.balcer_cheu_2020 import (
    accuracy_alpha_for_p,
    accuracy_alpha_thm31,
    simultaneous_alpha_thm32,
)
from accountant.cli.faces import balcer_cheu as bc_cli
from accountant.cli.faces import ggkpv as ggkpv_cli
from accountant.cli.faces import ggkpv_countmin as countmin_cli
from accountant.cli.faces import gkm as gkm_cli
from accountant.cli.spec import Handler
from accountant.distributions import binomial
from accountant.errors import ParameterError, RegimeError
from accountant.pmf import product, shift
from accountant.protocols.ggkpv import GGKPVHadamard
from verify.crosscheck import goodness_of_fit, two_sample_test
from verify.samplers import balcer_cheu as bc_sampler
from verify.samplers import ggkpv as ggkpv_sampler
from verify.samplers import ggkpv_countmin as countmin_sampler
from verify.samplers import gkm as gkm_sampler

__all__ = ["CLI_HANDLERS"]

simulate_summary = bc_sampler.simulate_summary


def _bc_simulate(hist: bool) -> Handler:
    def handle(args: argparse.Namespace) -> dict[str, Any]:
        params = bc_cli.parameters_from_args(args, hist)
        n = params.n
        ones = n // 2 if args.ones is None else args.ones
        if not 0 <= ones <= n:
            raise ParameterError(f"ones={ones} is outside [0, {n}]")
        alphas = {}
        for beta in (0.1, 0.01):
            try:
                if params.epsilon is not None and params.delta is not None:
                    f = simultaneous_alpha_thm32 if hist else accuracy_alpha_thm31
                    alphas[beta] = float(f(epsilon=params.epsilon, delta=params.delta, n=n,
                                           beta=beta))
                else:
                    alphas[beta] = float(accuracy_alpha_for_p(p=params.p, n=n,
                                                             beta=beta / n if hist else beta))
            except RegimeError:
                pass
        literal = args.literal_trials if n * (params.d or 1) * args.literal_trials <= 5e6 else 0
        s = simulate_summary(protocol="hist" if hist else "zsum", n=n, p=params.p,
                             trials=args.trials, seed=args.seed, d=params.d, ones=ones,
                             alphas=alphas, literal_trials=literal)
        base = binomial(n, params.p, tail=1e-12)
        exact = (product(shift(base, ones), shift(base, n - ones)) if hist
                 else shift(base, ones))
        counts = s.pop("counts")
        lit = s.pop("literal_counts", None)
        gof = goodness_of_fit(counts, exact)
        out = {"params": params.to_json(), "simulation": s,
               "goodness_of_fit": {"statistic": gof.statistic, "dof": gof.dof,
                                   "p_value": gof.p_value, "passed": gof.passed,
                                   "false_alarm": gof.false_alarm,
                                   "against": "exact PMF of the message counts"}}
        if lit is not None:
            t = two_sample_test(lit, counts)
            out["literal_vs_fast"] = {"literal_trials": literal, "p_value": t.p_value,
                                      "passed": t.passed, "false_alarm": t.false_alarm}
        elif args.literal_trials:
            out["literal_vs_fast"] = {"skipped": "n * d * literal_trials > 5e6"}
        return out
    return handle


def _bc_calibrate(hist: bool) -> Handler:
    """The library's calibration plus, at each p, the simulated error: the fast sampler,
    20000 seeded trials, empirical 0.99 quantile of |output - ones/n| (zsum) or of the
    simultaneous error (hist)."""
    exact_handler = (bc_cli.HIST if hist else bc_cli.ZSUM).handlers["calibrate"]

    def handle(args: argparse.Namespace) -> dict[str, Any]:
        out = exact_handler(args)
        acc = out["accuracy"]
        sim: dict[str, Any] = {}
        for key in ("calibrated", "paper"):
            if key in acc:
                sim = simulate_summary(protocol="hist" if hist else "zsum", n=args.n,
                                       p=acc[key]["p"], trials=20_000, seed=0,
                                       d=args.d if hist else None, ones=acc["ones"])
                acc[key]["simulated_error_quantile"] = \
                    sim["error_quantiles"]["0.01"]["empirical_error_quantile"]
                acc[key]["simulated_trials"] = 20_000
        if sim:
            acc["simulated_error_kind"] = sim["error_kind"]
        return out
    return handle


def _gkm_simulate(params_from: Any) -> Handler:
    """Run the protocol (vectorized per-user draws) and compare with the exact values."""
    def handle(args: argparse.Namespace) -> dict[str, Any]:
        params = params_from(args)
        ones_total = params.n if args.ones is None else int(args.ones) + 1
        return {"params": params.to_json(),
                "simulation": gkm_sampler.simulate_summary(params, ones=ones_total,
                                                           trials=args.trials,
                                                           seed=args.seed)}
    return handle


def _ggkpv_simulate(args: argparse.Namespace) -> dict[str, Any]:
    """Run the shuffled multi-message Hadamard response (error figures, communication,
    query time) and, when the target set rho, the certified epsilon at its delta."""
    params = ggkpv_cli.parameters_from_args(args)
    simulation = ggkpv_sampler.simulate_summary(n=params.n, B=params.B, rho=params.rho,
                                                tau=params.tau, trials=args.trials,
                                                seed=args.seed)
    out: dict[str, Any] = {"params": params.to_json(), "simulation": simulation}
    if params.delta is not None:
        bracket = GGKPVHadamard(params).epsilon_for_delta(params.delta)
        out |= bracket.json_items("epsilon")
    return out


def _countmin_simulate(args: argparse.Namespace) -> dict[str, Any]:
    """Run the count-min protocol with public hash functions on a seeded dataset (values
    drawn from a Zipf-like law on 1..B, fresh hash functions per trial): the maximum count
    error over all B values of the mean-of-rows (unbiased) and the count-min (minimum)
    estimators, and the communication per user."""
    params = countmin_cli.parameters_from_args(args)
    rng = np.random.default_rng(args.seed)
    weights = 1.0 / np.arange(1, params.B + 1)
    errors: dict[str, list[float]] = {"mean_of_rows": [], "count_min": []}
    for _ in range(args.trials):
        xs = rng.choice(np.arange(1, params.B + 1), size=params.n, p=weights / weights.sum())
        truth = np.bincount(xs, minlength=params.B + 1)[1:]
        table = countmin_sampler.hash_table(B=params.B, w=params.w, d=params.d, rng=rng)
        messages = countmin_sampler.shuffled_countmin_messages(xs, table=table, w=params.w,
                                                               rho=params.rho, rng=rng)
        counts = countmin_sampler.countmin_counts(messages, w=params.w, d=params.d)
        for name, estimate in (("mean_of_rows", countmin_sampler.mean_estimate),
                               ("count_min", countmin_sampler.countmin_estimate)):
            est = estimate(counts, table=table, n=params.n, rho=params.rho)
            errors[name].append(float(np.max(np.abs(est - truth))))
    summary = {name: {"mean_max_error": float(np.mean(v)), "sd": float(np.std(v))}
               for name, v in errors.items()}
    return {"params": params.to_json(),
            "simulation": {"trials": args.trials, "seed": args.seed,
                           "max_count_error_over_B_values": summary,
                           "messages_per_user": params.d * (1 + params.rho),
                           "data": "Zipf(1) values on 1..B; fresh public hashes per trial"}}


CLI_HANDLERS: dict[tuple[str, str], Handler] = {
    ("simulate", "bc-zsum"): _bc_simulate(False),
    ("simulate", "bc-hist"): _bc_simulate(True),
    ("calibrate", "bc-zsum"): _bc_calibrate(False),
    ("calibrate", "bc-hist"): _bc_calibrate(True),
    ("simulate", "gkm-count"): _gkm_simulate(gkm_cli.parameters_from_args),
    ("simulate", "gkmp20-count"): _gkm_simulate(gkm_cli.gkmp20_parameters_from_args),
    ("simulate", "ggkpv-hadamard"): _ggkpv_simulate,
    ("simulate", "ggkpv-countmin"): _countmin_simulate,
}
