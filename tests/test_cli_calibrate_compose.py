"""`shuffle-accountant calibrate compose`: one parameter of a ledger, written ?, solved for a
target (epsilon, delta) on certified brackets (issue 21, item 4)."""

from __future__ import annotations

import json

import pytest

from accountant.cli import main
from accountant.cli.compose import calibrate_compose, compose
from accountant.errors import ParameterError


def _run(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["calibrate", "compose", *argv, "--json"])
    out = capsys.readouterr().out
    return code, (json.loads(out) if code == 0 else {})


def test_noise_multiplier_meets_the_target_and_the_miss_is_certain(capsys) -> None:
    code, body = _run(capsys, "--mechanism", "gaussian --noise-multiplier ?", "--rounds", "10",
                      "--relation", "add-remove", "--target-epsilon", "1",
                      "--target-delta", "1e-5", "--search", "0.5,20")
    assert code == 0
    sigma, missed = body["calibrated"]["value"], body["missed"]["value"]
    assert body["calibrated"]["flag"] == "--noise-multiplier"
    assert body["epsilon"]["value"] <= 1.0 and missed < sigma <= missed * 1.01
    # recomputed independently through compose: certified at sigma, certainly missed below
    at = compose([f"gaussian --noise-multiplier {sigma!r}"], rounds=10, delta=1e-5,
                 relation="add-remove")
    assert at["epsilon"]["value"] <= 1.0
    below = compose([f"gaussian --noise-multiplier {missed!r}"], rounds=10, delta=1e-5,
                    relation="add-remove")
    assert below["epsilon_lower"]["value"] > 1.0


def test_rounds_is_the_largest_count_within_the_target() -> None:
    body = calibrate_compose(["eps-delta --epsilon 0.05 --delta 0"], rounds=["?"],
                             sampling_rate=None, relation="substitute", target_epsilon=1.0,
                             target_delta=1e-5, search=(1, 2000))
    t = int(body["calibrated"]["value"])
    assert body["calibrated"]["value"] == t
    fits = compose(["eps-delta --epsilon 0.05 --delta 0"], rounds=t, delta=1e-5)
    assert fits["epsilon"]["value"] <= 1.0
    missed = body["missed"]["value"]
    assert missed is not None and missed > t
    over = compose(["eps-delta --epsilon 0.05 --delta 0"], rounds=int(missed), delta=1e-5)
    assert over["epsilon_lower"]["value"] > 1.0


def test_sampling_rate_is_the_largest_rate_within_the_target() -> None:
    body = calibrate_compose(["gaussian --noise-multiplier 2"], rounds=["100"],
                             sampling_rate="?", relation="add-remove", target_epsilon=0.5,
                             target_delta=1e-5)
    q = body["calibrated"]["value"]
    assert 0 < q < 1 and body["epsilon"]["value"] <= 0.5
    at = compose(["gaussian --noise-multiplier 2"], rounds=100, delta=1e-5, sampling_rate=q,
                 relation="add-remove")
    assert at["epsilon"]["value"] <= 0.5


@pytest.mark.parametrize(("spec", "rate", "flag"), [
    ("gaussian-randomizer --n 100000 --sigma ?", "0.1", "--sigma"),
    ("discrete-gaussian-randomizer --n 1000 --sigma ?", None, "--sigma"),
    ("laplace-randomizer --n 1000 --scale ?", None, "--scale"),
])
def test_a_noise_randomizers_scale_meets_the_target(spec, rate, flag) -> None:
    # epsilon falls as the noise grows; the answer round-trips through compose, and a
    # tenth less noise no longer meets the target by the certified upper end
    body = calibrate_compose([spec], rounds=["20"], sampling_rate=rate, relation="substitute",
                             target_epsilon=1.0, target_delta=1e-6, search=(0.2, 5.0))
    value = body["calibrated"]["value"]
    assert body["calibrated"]["flag"] == flag and body["epsilon"]["value"] <= 1.0
    rate_f = None if rate is None else float(rate)
    at = compose([spec.replace("?", repr(value))], rounds=20, delta=1e-6, sampling_rate=rate_f)
    assert at["epsilon"]["value"] <= 1.0
    less = compose([spec.replace("?", repr(0.9 * value))], rounds=20, delta=1e-6,
                   sampling_rate=rate_f)
    assert less["epsilon"]["value"] > 1.0


@pytest.mark.parametrize(("specs", "rounds", "rate", "match"), [
    (["gaussian --noise-multiplier 1"], ["10"], None, "found 0"),
    (["gaussian --noise-multiplier ?"], ["?"], None, "found 2"),
    (["eps-delta --epsilon 1 --delta ?"], ["10"], None, "--delta \\?: cannot be calibrated"),
])
def test_one_calibratable_question_mark(specs, rounds, rate, match) -> None:
    with pytest.raises(ParameterError, match=match):
        calibrate_compose(specs, rounds=rounds, sampling_rate=rate, relation="substitute",
                          target_epsilon=1.0, target_delta=1e-5)


def test_bad_flags_exit_2_with_one_line(capsys) -> None:
    for argv in (["--mechanism", "gaussian --noise-multiplier ?", "--rounds", "0",
                  "--target-epsilon", "1", "--target-delta", "1e-5"],
                 ["--mechanism", "gaussian --noise-multiplier ?", "--rounds", "10",
                  "--target-epsilon", "1", "--target-delta", "1e-5", "--search", "5,1"],
                 ["--mechanism", "gaussian --noise-multiplier 1", "--rounds", "10",
                  "--target-epsilon", "1", "--target-delta", "1e-5"]):
        assert main(["calibrate", "compose", *argv]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_an_integer_search_below_one_names_the_search(capsys) -> None:
    # --search 0.4,10 for --rounds ? failed as "rounds=0 is outside integers in [1, 1e12]",
    # a value and a range the user never wrote
    argv = ["--mechanism", "gaussian --noise-multiplier 1", "--rounds", "?",
            "--target-epsilon", "1", "--target-delta", "1e-5", "--search", "0.4,10"]
    assert main(["calibrate", "compose", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--search 0.4,10" in err and "[1, 1e+09]" in err


def test_a_flag_given_twice_is_refused_not_the_last_kept(capsys) -> None:
    # argparse keeps the last value silently: sigma = 2 was used, exit 0
    for argv in (["compose", "--mechanism", "gaussian --noise-multiplier 1 --noise-multiplier 2",
                  "--rounds", "10", "--at-delta", "1e-5"],
                 ["compose", "--mechanism", "gaussian --noise-multiplier 1", "--rounds", "10",
                  "--at-delta", "1e-5", "--at-delta", "1e-6"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "given twice" in err
