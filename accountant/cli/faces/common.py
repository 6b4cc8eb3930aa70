"""What the protocol faces share: the JSON of a Bracket-valued dp/rdp answer."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from accountant.errors import ParameterError
from accountant.protocols.contract import Mechanism

__all__ = ["dp_body", "rdp_body", "pure_body", "contract_handlers"]


def dp_body(mechanism: Mechanism, args: argparse.Namespace) -> dict[str, Any]:
    """`dp`: epsilon at --at-delta or delta at --at-epsilon, with the bracket's keys.

    Args:
        mechanism: the protocol's contract object.
        args: parsed flags (--at-delta or --at-epsilon, --backend).

    Returns:
        The JSON body: params, the bracket's keys, the exact coordinate.

    Raises:
        ParameterError: --backend other than float (the contract answers in float64
            log-space with a certified error model; only bc-zsum has an mp route).
    """
    backend = getattr(args, "backend", "float")
    if backend != "float":
        raise ParameterError(f"backend={backend!r} is not available for "
                             f"{getattr(mechanism, 'name', type(mechanism).__name__)}; valid: "
                             "float (certified float64 log-space)")
    params = mechanism.params()
    if args.at_delta is not None:
        bracket = mechanism.epsilon_for_delta(args.at_delta)
        return {"params": params | {"delta": args.at_delta}, **bracket.json_items("epsilon"),
                "delta": {"value": args.at_delta, "kind": "exact"}}
    bracket = mechanism.delta_for_epsilon(args.at_epsilon)
    return {"params": params | {"epsilon": args.at_epsilon}, **bracket.json_items("delta"),
            "epsilon": {"value": args.at_epsilon, "kind": "exact"}}


def rdp_body(mechanism: Mechanism, args: argparse.Namespace) -> dict[str, Any]:
    """`rdp`: one list per bracket key ("renyi", "renyi_lower", ...), each row with its order
    (the orders are checked by the flag and by the contract's gate)."""
    rows: dict[str, list[Any]] = {}
    for alpha, bracket in zip(args.orders, mechanism.renyi(args.orders), strict=True):
        for key, value in bracket.json_items("renyi").items():
            rows.setdefault(key, []).append(value | {"order": alpha})
    return {"params": mechanism.params(), **rows}


def pure_body(mechanism: Mechanism) -> dict[str, Any]:
    """`pure`: the max-divergence's upper end."""
    return {"params": mechanism.params(),
            "max_divergence": mechanism.max_divergence().require_upper().to_json()}


def contract_handlers(mechanism: Callable[[argparse.Namespace], Mechanism],
                      ) -> dict[str, Callable[[argparse.Namespace], dict[str, Any]]]:
    """The dp, rdp and pure handlers of a protocol whose flags build one `Mechanism`.

    Args:
        mechanism: parsed flags -> the protocol's contract object.

    Returns:
        {"dp": ..., "rdp": ..., "pure": ...}, each answering through the contract.
    """
    return {"dp": lambda args: dp_body(mechanism(args), args),
            "rdp": lambda args: rdp_body(mechanism(args), args),
            "pure": lambda args: pure_body(mechanism(args))}
