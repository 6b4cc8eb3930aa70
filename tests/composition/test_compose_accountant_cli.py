"""`compose` on the command line is a face over the Accountant: per-mechanism --rounds,
Gaussian/Laplace specs in one ledger with shuffle rounds, the same numbers as the object."""

import json

import pytest

from accountant.cli import main
from accountant.composition.accountant import Accountant, EpsilonDelta, GaussianNoise
from accountant.protocols.ldp import LDP


def _run(capsys, *argv):
    status = main(["compose", *argv, "--json"])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if status == 0 else None), err


def test_each_mechanism_takes_its_own_rounds(capsys):
    status, out, _ = _run(capsys, "--mechanism", "ldp --n 300 --epsilon0 1", "--rounds", "3",
                          "--mechanism", "gaussian --noise-multiplier 8", "--rounds", "5",
                          "--at-delta", "1e-6", "--method", "pld", "--discretization", "1e-3")
    assert status == 0 and out["params"]["rounds"] == [3, 5]
    direct = (Accountant().compose(LDP(n=300, epsilon0=1.0), 3).compose(GaussianNoise(8.0), 5)
              .get_epsilon(1e-6, method="pld", discretization=1e-3))
    assert out["epsilon"]["value"] == direct.upper.value
    assert out["epsilon"]["kind"] == "upper" and out["scope"] == {"guarantee": "mechanism"}
    assert "[pld]" in out["epsilon"]["method"]


def test_one_rounds_applies_to_every_mechanism(capsys):
    status, out, _ = _run(capsys, "--mechanism", "eps-delta --epsilon 0.2 --delta 0",
                          "--mechanism", "eps-delta --epsilon 0.2 --delta 0", "--rounds", "4",
                          "--at-delta", "1e-5", "--method", "kov")
    assert status == 0
    exact = Accountant().compose(EpsilonDelta(0.2), 8).get_epsilon(1e-5, method="kov")
    assert out["epsilon"]["kind"] == "exact" and out["epsilon"]["value"] == float(exact.upper)


def test_gaussian_spec_uses_the_analytic_route(capsys):
    status, out, _ = _run(capsys, "--mechanism", "gaussian --noise-multiplier 2",
                          "--rounds", "10", "--relation", "add-remove", "--at-delta", "1e-5")
    assert status == 0
    assert out["epsilon"]["method"].startswith("[analytic]")
    assert out["epsilon_lower"]["value"] <= out["epsilon"]["value"]
    assert out["epsilon"]["value"] == pytest.approx(7.5112759007448, rel=1e-9)


@pytest.mark.parametrize("argv, needle", [
    (["--mechanism", "gaussian --noise-multiplier 1", "--mechanism",
      "gaussian --noise-multiplier 2", "--rounds", "1", "--rounds", "2", "--rounds", "3"],
     "--rounds is given 3 times"),
    (["--mechanism", "gaussian --noise-multiplier -1", "--rounds", "1"], "noise_multiplier"),
    (["--mechanism", "binary-rr --n 10 --epsilon0 1 --ones 3", "--rounds", "2",
      "--sampling-rate", "0.5"], "cannot be subsampled"),
])
def test_bad_compositions_exit_2_with_one_line(capsys, argv, needle):
    status, _, err = _run(capsys, *argv, "--at-delta", "1e-6")
    assert status == 2 and err.count("\n") == 1 and needle in err
