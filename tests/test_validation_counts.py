"""Each parameter is validated once per call (twice where the command-line flag itself is
checked first): counted by instrumenting `Interval.check` while the command line runs in
this process. A count is of the user's own value (binomial(n - 1, p) deep inside checks
its own, different arguments)."""

from __future__ import annotations

import collections
import contextlib
import io

import pytest

from accountant import domains
from accountant.cli.main import main

# the command line's flag names for the library's parameters
_SAME = {"at-delta": "delta", "at-epsilon": "epsilon", "order": "alpha",
         "sampling-rate": "rate", "sampling_rate": "rate"}


def _counts(monkeypatch, argv: list[str]) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    original = domains.Interval.check

    def counting(self, value):
        counts[(_SAME.get(self.name, self.name), float(value))] += 1
        return original(self, value)

    monkeypatch.setattr(domains.Interval, "check", counting)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0
    return counts


@pytest.mark.parametrize("argv, given", [
    (["dp", "ldp", "--n", "1000", "--epsilon0", "1", "--at-delta", "1e-6"],
     {"n": 1000, "epsilon0": 1.0, "delta": 1e-6}),
    (["dp", "ldp", "--n", "1000", "--epsilon0", "1", "--at-epsilon", "0.5"],
     {"n": 1000, "epsilon0": 1.0, "epsilon": 0.5}),
    (["rdp", "k-rr", "--n", "1000", "--epsilon0", "1", "--k", "4", "--orders", "2,4"],
     {"n": 1000, "epsilon0": 1.0, "k": 4, "alpha": 2.0}),
    (["rdp", "ldp", "--n", "100", "--epsilon0", "2", "--orders", "3,inf"],
     {"n": 100, "epsilon0": 2.0, "alpha": 3.0}),
    (["dp", "binary-rr", "--n", "300", "--epsilon0", "1.5", "--ones", "7", "--at-delta", "1e-5"],
     {"n": 300, "epsilon0": 1.5, "ones": 7, "delta": 1e-5}),
    # (1234 rounds: a value no internal Renyi order takes)
    (["compose", "--mechanism", "ldp --n 1000 --epsilon0 1", "--rounds", "1234",
      "--sampling-rate", "0.1", "--at-delta", "1e-6"],
     {"n": 1000, "epsilon0": 1.0, "rounds": 1234, "rate": 0.1, "delta": 1e-6}),
    (["compose", "--mechanism", "k-rr --n 60 --epsilon0 2 --k 3", "--rounds", "77",
      "--at-epsilon", "3.5", "--method", "rdp"],
     {"n": 60, "epsilon0": 2.0, "k": 3, "rounds": 77, "epsilon": 3.5}),
])
def test_each_parameter_is_checked_at_most_twice(monkeypatch, argv, given):
    counts = _counts(monkeypatch, argv)
    for name, value in given.items():
        seen = counts[(name, float(value))]
        # once by the flag, once by the record (or the contract's gate); never beneath
        assert 1 <= seen <= 2, f"{name}={value} checked {seen} times: {dict(counts)}"


def test_the_library_alone_checks_once(monkeypatch):
    from accountant.protocols.ldp import LDP

    counts: collections.Counter = collections.Counter()
    original = domains.Interval.check

    def counting(self, value):
        counts[self.name] += 1
        return original(self, value)

    monkeypatch.setattr(domains.Interval, "check", counting)
    m = LDP(n=1000, epsilon0=1.0)
    m.epsilon_for_delta(1e-6)
    m.renyi([2.0, 8.0])
    assert counts["n"] == 1 and counts["epsilon0"] == 1 and counts["delta"] == 1
    assert counts["alpha"] == 2  # one check per order, by the contract's gate
