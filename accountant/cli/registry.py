"""The command line's one registry table: which protocols, bounds and commands exist, and
where their faces live.

Faces are modules loaded by name only when their command is used, so that a `dp` call
imports one protocol's code and never matplotlib, `figures` or `verify`. A row names either
a declared family's class (its face is derived from the declaration:
`accountant.cli.faces.declared`) or a hand-written face exposing a `ProtocolSpec` (or a
tuple of them) for protocols with special flags; `bound` loads `accountant.cli.faces.bounds`;
a command module exposes `register(subparsers)`. A declared family defined in the running
process but not in the table (e.g. a user's own) is listed too (`protocol_entries`).

A handler takes the parsed arguments and returns the command-specific part of the JSON
object (e.g. {"params": ..., "epsilon": ..., "delta": ...}); `main` adds "command" and
"protocol", prints JSON or a table, and turns AccountantError into exit status 2.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Any

from accountant.cli.spec import EXIT_STATUS, BoundSpec, Handler, ProtocolSpec

__all__ = ["ProtocolSpec", "BoundSpec", "Handler", "ProtocolEntry", "PROTOCOLS",
           "AUDIT_REPORT", "AUDIT_PAPERS",
           "PROTOCOL_COMMANDS", "COMMANDS", "EXTRA_HANDLERS", "BOUND_FACE", "EXIT_STATUS",
           "load", "protocol_spec", "protocol_entries"]

@dataclass(frozen=True)
class ProtocolEntry:
    """One row of the table: a protocol's name, help line, face and commands."""

    name: str
    summary: str
    face: str  # "module:attribute" of its family class (declared) or of its ProtocolSpec
    commands: tuple[str, ...]


# Subcommands that take a PROTOCOL argument, in --help order.
PROTOCOL_COMMANDS = ("dp", "rdp", "pure", "audit", "calibrate", "simulate")

PROTOCOLS: tuple[ProtocolEntry, ...] = (
    ProtocolEntry("bc-zsum", "Balcer-Cheu zero-sum binary counting (Fig. 1)",
                  "accountant.cli.faces.balcer_cheu:ZSUM",
                  ("dp", "rdp", "pure", "audit", "calibrate", "simulate")),
    ProtocolEntry("bc-hist", "Balcer-Cheu histogram (Fig. 2)",
                  "accountant.cli.faces.balcer_cheu:HIST",
                  ("dp", "rdp", "pure", "audit", "calibrate", "simulate")),
    ProtocolEntry("binary-rr", "shuffled binary randomized response",
                  "accountant.protocols.binary_rr:BinaryRR", ("dp", "rdp", "pure")),
    ProtocolEntry("gkm-count", "Ghazi-Kumar-Manurangsi pure-DP binary counting (correlated "
                  "noise)", "accountant.cli.faces.gkm:GKM",
                  ("dp", "rdp", "pure", "audit", "simulate")),
    ProtocolEntry("gkmp20-count", "GKMP20 counting: deterministic input step (not pure-DP; "
                  "finite (eps, delta))", "accountant.cli.faces.gkm:GKMP20",
                  ("dp", "rdp", "pure", "audit", "simulate")),
    ProtocolEntry("ggkpv-hadamard", "GGKPV shuffled multi-message Hadamard response "
                  "(frequencies)", "accountant.cli.faces.ggkpv:SPEC",
                  ("dp", "rdp", "pure", "calibrate", "simulate")),
    ProtocolEntry("ggkpv-countmin", "GGKPV count-min sketch with public hash functions "
                  "(frequencies)", "accountant.cli.faces.ggkpv_countmin:SPEC",
                  ("dp", "rdp", "pure", "calibrate", "simulate")),
    ProtocolEntry("k-rr", "shuffled k-ary randomized response",
                  "accountant.protocols.k_rr:KRR", ("dp", "rdp", "pure")),
    ProtocolEntry("ldp", "any epsilon0-LDP randomizer (clones pair upper, binary RR lower)",
                  "accountant.protocols.ldp:LDP", ("dp", "rdp", "pure")),
    ProtocolEntry("approximate-ldp", "any (epsilon0, delta0)-LDP randomizer (clones pair + "
                  "delta term upper, binary RR with reveal lower)",
                  "accountant.protocols.approximate_ldp:ApproximateLDP", ("dp", "rdp", "pure")),
    ProtocolEntry("heterogeneous", "users in groups with different randomizer matrices "
                  "(--groups FILE: JSON; --colluders)", "accountant.cli.faces.heterogeneous:SPEC",
                  ("dp", "rdp", "pure")),
    ProtocolEntry("gaussian-randomizer", "x + N(0, sigma^2) on inputs {0, 1} (blanket upper, "
                  "threshold lower)", "accountant.protocols.continuous:GaussianRandomizer",
                  ("dp", "pure")),
    ProtocolEntry("laplace-randomizer", "x + Laplace(b) on inputs {0, 1} (blanket or clones "
                  "upper)", "accountant.protocols.continuous:LaplaceRandomizer",
                  ("dp", "rdp", "pure")),
    ProtocolEntry("discrete-gaussian-randomizer", "x + discrete Gaussian on inputs {0, 1}",
                  "accountant.protocols.continuous:DiscreteGaussianRandomizer", ("dp", "pure")),
    ProtocolEntry("discrete-laplace-randomizer", "x + discrete Laplace(b) on inputs {0, 1}",
                  "accountant.protocols.continuous:DiscreteLaplaceRandomizer",
                  ("dp", "rdp", "pure")),
    ProtocolEntry("randomizer", "any local randomizer given as a matrix (--matrix FILE: JSON "
                  "or CSV)", "accountant.cli.faces.randomizer:SPEC", ("dp", "rdp", "pure")),
)

# Handlers that run the literal samplers of `verify` (loaded only when used, so that other
# commands never import verify): (command, protocol) -> "module:attribute" of a dict of them.
EXTRA_HANDLERS: dict[tuple[str, str], str] = {
    (command, protocol): "accountant.cli.simulate:CLI_HANDLERS"
    for command, protocol in (("simulate", "bc-zsum"), ("simulate", "bc-hist"),
                              ("calibrate", "bc-zsum"), ("calibrate", "bc-hist"),
                              ("simulate", "gkm-count"), ("simulate", "gkmp20-count"),
                              ("simulate", "ggkpv-hadamard"), ("simulate", "ggkpv-countmin"))
}

BOUND_FACE = "accountant.cli.faces.bounds:BOUNDS"

# `audit PAPER`: the checked claims of a seed paper (or of all four) as audit records;
# the module exposes `add_arguments(parser)` and `handler(args)` (args.protocol is the name).
AUDIT_REPORT = "accountant.cli.audit"
AUDIT_PAPERS: dict[str, str] = {
    "all": "the checked claims of the four seed papers",
    "balcer-cheu-2020": "Balcer-Cheu 2020: privacy, accuracy, communication, Section 4",
    "girgis-2021": "Girgis et al. 2021: the RDP bounds, remarks and figures' statements",
    "gkm": "Ghazi-Kumar-Manurangsi: Condition 7, Lemma 8, Theorem 6, Lemmas 11-12",
    "ggkpv": "Ghazi-Golowich-Kumar-Pagh-Velingker slides: the multi-message claims",
}

# Top-level commands besides the protocol commands and `bound`: name -> (help, module
# exposing `register(subparsers)`).
COMMANDS: dict[str, tuple[str, str]] = {
    "compose": ("compose mechanisms (RDP, PLD, KOV)", "accountant.cli.compose"),
    "reproduce": ("regenerate the seed papers' figures and tables", "accountant.cli.reproduce"),
    "selfcheck": ("run a sample of the soundness checks on this machine",
                  "accountant.cli.selfcheck"),
    "sweep": ("one question over a parameter grid, as a resumable table", "accountant.cli.sweep"),
}


def load(target: str) -> Any:
    """The attribute named by "module:attribute" (the module imported on demand)."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


# the commands every declared family answers through the contract
DECLARED_COMMANDS = ("dp", "rdp", "pure")


def protocol_entries() -> tuple[ProtocolEntry, ...]:
    """The table, then every declared family defined in this process and not in it.

    Families register themselves by being defined (`protocols.contract.families`); when
    the contract module is not loaded yet no family outside the table can exist, so
    listing costs no import.

    Returns:
        The rows, the table's first.
    """
    contract = sys.modules.get("accountant.protocols.contract")
    if contract is None:
        return PROTOCOLS
    known = {e.name for e in PROTOCOLS}
    extra = tuple(
        ProtocolEntry(name, cls.summary or (cls.__doc__ or name).strip().splitlines()[0],
                      f"{cls.__module__}:{cls.__qualname__}", DECLARED_COMMANDS)
        for name, cls in sorted(contract.families().items())
        if name not in known and contract.declared(cls))
    return PROTOCOLS + extra


def protocol_spec(name: str) -> ProtocolSpec:
    """The face of the protocol called `name` (its module imported on demand; a declared
    family's face derived from its declaration).

    Raises:
        LookupError: no protocol of that name in the table.
    """
    entry = next((e for e in protocol_entries() if e.name == name), None)
    if entry is None:
        raise LookupError(f"no protocol named {name!r} in the registry")
    if entry in PROTOCOLS:
        target = load(entry.face)
    else:  # a family defined in this process (its class may be local to a function)
        target = sys.modules["accountant.protocols.contract"].families()[name]
    if isinstance(target, type):  # a declared family: its face follows the declaration
        from accountant.cli.faces.declared import declared_spec  # (cli layer: lazy)

        return declared_spec(target, entry.summary)
    specs = target
    for spec in specs if isinstance(specs, tuple | list) else (specs,):
        if spec.name == name:
            return spec
    raise LookupError(f"{entry.face} has no ProtocolSpec named {name!r}")
