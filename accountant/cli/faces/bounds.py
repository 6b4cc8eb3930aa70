"""`shuffle-accountant bound NAME ...`: the command-line face of every closed form here.

Loaded by `accountant.cli` through `BOUNDS` (see `accountant.cli.registry`).
RDP bounds print {"params", "renyi": [{order, value, kind, ...}]}; (epsilon, delta) bounds
print {"params", "epsilon": {...}, "delta": {"value": D, "kind": "exact"}} (CLI.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from accountant.bounds import balcer_cheu_2020 as bc20
from accountant.bounds import balle_2019, erlingsson_2019, feldman_2020, girgis_2021
from accountant.cli.spec import BoundSpec
from accountant.cli.types import (
    ALPHABET,
    AT_DELTA,
    EPSILON0,
    UNIT_EPSILON,
    UNIT_OPEN,
    USERS,
    finite_orders,
    integer,
    real,
)
from accountant.domains import DELTA, EPSILON, Interval
from accountant.protocols.balcer_cheu import binomial_smoothness_delta
from accountant.result import Result

__all__ = ["BOUNDS"]

_DEFAULT_ORDERS = "2,3,4,8,16,32,64"


def _rdp_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=integer(USERS), required=True, help="number of users")
    parser.add_argument("--epsilon0", type=real(EPSILON0), required=True,
                        help="local epsilon0 > 0")
    parser.add_argument("--orders", type=finite_orders, default=finite_orders(_DEFAULT_ORDERS),
                        help=f"comma-separated finite Renyi orders > 1 (default "
                             f"{_DEFAULT_ORDERS})")


def _cor1_arguments(parser: argparse.ArgumentParser) -> None:
    _rdp_arguments(parser)
    parser.add_argument("--allow-fallback", action="store_true",
                        help="out of Corollary 1's regime, warn and return Theorem 1")


def _dp_arguments(parser: argparse.ArgumentParser, *, k: bool = False) -> None:
    parser.add_argument("--n", type=integer(USERS), required=True, help="number of users")
    parser.add_argument("--epsilon0", type=real(EPSILON0), required=True,
                        help="local epsilon0 > 0")
    parser.add_argument("--at-delta", type=real(AT_DELTA), required=True,
                        help="delta in (0, 1)")
    if k:
        parser.add_argument("--k", type=integer(ALPHABET), required=True,
                            help="alphabet size (>= 2)")


def _fmt_arguments(parser: argparse.ArgumentParser) -> None:
    _dp_arguments(parser)
    parser.add_argument("--variant", choices=["paper", "reference-code"], default="paper",
                        help="the paper's closed form or the reference code's variant")


def _rdp_handler(function: Callable[..., Result], integer: bool = False,
                 fallback: bool = False) -> Callable[[argparse.Namespace], dict[str, Any]]:
    # fallback: the bound takes strict= (Corollary 1), set by its --allow-fallback flag
    def handler(args: argparse.Namespace) -> dict[str, Any]:
        extra = {"strict": not args.allow_fallback} if fallback else {}
        values = [function(alpha=int(a) if integer and float(a).is_integer() else a,
                           epsilon0=args.epsilon0, n=args.n, **extra).to_json()
                  for a in args.orders]
        return {"params": {"n": args.n, "epsilon0": args.epsilon0}, "renyi": values}
    return handler


def _fmt_handler(args: argparse.Namespace) -> dict[str, Any]:
    function = (feldman_2020.epsilon_upper if args.variant == "paper"
                else feldman_2020.epsilon_upper_reference_code)
    result = function(epsilon0=args.epsilon0, n=args.n, delta=args.at_delta)
    return {"params": {"n": args.n, "epsilon0": args.epsilon0, "variant": args.variant},
            "epsilon": result.to_json(), "delta": {"value": args.at_delta, "kind": "exact"}}


def _bbgn_handler(args: argparse.Namespace) -> dict[str, Any]:
    result = balle_2019.epsilon_upper(epsilon0=args.epsilon0, n=args.n, delta=args.at_delta,
                                      k=args.k)
    return {"params": {"n": args.n, "epsilon0": args.epsilon0, "k": args.k},
            "epsilon": result.to_json(), "delta": {"value": args.at_delta, "kind": "exact"}}


_G = girgis_2021
_PAPER_BOUNDS = [
    BoundSpec("girgis-thm1", "Girgis et al. 2021 Theorem 1 (integer orders; real orders "
              "via Remark 2)", _rdp_arguments, _rdp_handler(_G.rdp_upper_remark2)),
    BoundSpec("girgis-remark3", "Girgis et al. 2021 Theorem 1 minimised over Remark 3's gamma "
              "(integer orders)", _rdp_arguments,
              _rdp_handler(_G.rdp_upper_remark3, integer=True)),
    BoundSpec("girgis-thm2", "Girgis et al. 2021 Theorem 2 (real orders)", _rdp_arguments,
              _rdp_handler(_G.rdp_upper_thm2)),
    BoundSpec("girgis-cor1", "Girgis et al. 2021 Corollary 1 (where S3 + E <= T2 holds)",
              _cor1_arguments, _rdp_handler(_G.rdp_upper_cor1, integer=True, fallback=True)),
    BoundSpec("girgis-thm3", "Girgis et al. 2021 Theorem 3 lower bound (forward order)",
              _rdp_arguments, _rdp_handler(_G.rdp_lower_thm3)),
    BoundSpec("girgis-cor2", "Girgis et al. 2021 Corollary 2 lower bound", _rdp_arguments,
              _rdp_handler(_G.rdp_lower_cor2, integer=True)),
    BoundSpec("girgis-reverse", "exact reverse-order lower bound "
                                "(docs/girgis-2021.md#theorem-3-and-corollary-2)",
              _rdp_arguments, _rdp_handler(_G.rdp_lower_reverse)),
    BoundSpec("girgis-refined", "Theorem 4 evaluated exactly "
                                "(docs/girgis-2021.md#theorem-4-and-the-refined-bound), <= Theorem "
                                "1",
              _rdp_arguments, _rdp_handler(_G.rdp_upper_refined)),
    BoundSpec("erlingsson-eq10", "Erlingsson et al. 2019 RDP curve (eq. 10; low-confidence "
              "reconstruction)", _rdp_arguments, _rdp_handler(erlingsson_2019.rdp_upper_eq10)),
    BoundSpec("fmt", "Feldman-McMillan-Talwar closed form (Theorem 3.1)", _fmt_arguments,
              _fmt_handler),
    BoundSpec("bbgn", "Balle et al. 2019 privacy-blanket closed form for k-RR",
              lambda p: _dp_arguments(p, k=True), _bbgn_handler),
]


# ---------------------------------------------------------------- Balcer-Cheu 2020
def _bc_zsum_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS), required=True, help="number of users")
    p.add_argument("--epsilon", type=real(UNIT_EPSILON), required=True,
                   help="the paper's epsilon in [1e-150, 1]")
    p.add_argument("--delta", type=real(DELTA), required=True, help="delta in (0, 1)")
    p.add_argument("--beta", type=real(UNIT_OPEN.named("beta")), default=0.01,
                   help="failure probability of the accuracy claim (default 0.01)")


def _bc_zsum_handler(args: argparse.Namespace) -> dict[str, Any]:
    EPSILON.check(args.epsilon)
    DELTA.check(args.delta)
    p = bc20.paper_p(epsilon=args.epsilon, delta=args.delta, n=args.n)
    return {"params": {"n": args.n, "epsilon": args.epsilon, "delta": args.delta, "p": p,
                       "beta": args.beta},
            "claimed_epsilon": {"value": args.epsilon, "kind": "upper",
                                "source": f"{bc20.CITATION}, Theorem 3.1(i)"},
            "accuracy_alpha": bc20.accuracy_alpha_thm31(epsilon=args.epsilon, delta=args.delta,
                                                   n=args.n, beta=args.beta).to_json()}


def _bc_smoothness_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer(USERS), required=True, help="number of trials")
    p.add_argument("--gamma", type=real(Interval("gamma", 0.0, 0.5, closed="right")),
                   required=True, help="Bin(n, gamma), 0 < gamma <= 1/2")
    p.add_argument("--a", type=real(Interval("a", 0.0, 1.0, closed="neither")),
                   required=True, help="eps = log((1+a)/(1-a)), 0 < a < 1")
    p.add_argument("--k", type=integer(Interval("k", 1, 1e6, closed="both", integer=True)),
                   default=1, help="largest shift (default 1)")


def _bc_smoothness_handler(args: argparse.Namespace) -> dict[str, Any]:
    closed = bc20.lemma_a3_delta(n=args.n, gamma=args.gamma, a=args.a, k=args.k)
    exact = binomial_smoothness_delta(n=args.n, gamma=args.gamma,
                                      epsilon=bc20.lemma_a3_epsilon(a=args.a), k=args.k)
    return {"params": {"n": args.n, "gamma": args.gamma, "a": args.a, "k": args.k,
                       "epsilon": bc20.lemma_a3_epsilon(a=args.a)},
            "delta": closed.to_json(), "delta_exact": exact.to_json()}


BALCER_CHEU_BOUNDS = [
    BoundSpec(name="bc20-zsum", summary="Balcer-Cheu 2020 Theorem 3.1: p and accuracy",
              add_arguments=_bc_zsum_arguments, handler=_bc_zsum_handler),
    BoundSpec(name="bc20-smoothness",
                        summary="Balcer-Cheu 2020 Lemma A.3 beside the exact smoothness",
                        add_arguments=_bc_smoothness_arguments,
                        handler=_bc_smoothness_handler)]

# --help order: Balcer-Cheu first, as the bounds were always listed
BOUNDS = BALCER_CHEU_BOUNDS + _PAPER_BOUNDS
