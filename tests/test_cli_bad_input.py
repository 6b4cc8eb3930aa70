"""Bad input on the command line: every subcommand's every flag, fed an invalid, an empty,
an extreme, a negative and a NaN value, exits with status 2 and one line on stderr naming
the flag (argparse's own text is used only for choices and missing flags, where it names
the valid set). The parser is enumerated, so a flag added later is covered too."""

from __future__ import annotations

import argparse

import pytest

from accountant.cli.main import build_parser, leaf_parsers, main

# A valid value for every flag that takes one (so that only the flag under test is bad).
VALID = {
    "--n": "100", "--epsilon0": "1", "--at-delta": "1e-6", "--at-epsilon": "0.5",
    "--k": "3", "--epsilon": "0.5", "--delta": "1e-6", "--p": "0.9", "--d": "3",
    "--rho": "0.5", "--epsilon-prime": "0.25", "--q": "0.1", "--s": "8", "--lam": "60",
    "--orders": "2,4", "--target-epsilon": "1", "--target-delta": "1e-6", "--trials": "10",
    "--seed": "1", "--gamma": "0.3", "--a": "0.5", "--beta": "0.01", "--ones": "1",
    "--rounds": "10", "--mechanism": "binary-rr --n 100 --epsilon0 1", "--B": "7",
    "--sampling-rate": "0.1", "--discretization": "0.001", "--literal-trials": "10",
    "--matrix": "matrix.json", "--out": "out", "--only": "girgis-fig2",
}
BAD = ["abc", "", "1e300", "-1", "nan"]
LEAVES = leaf_parsers(build_parser())


def _value_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.nargs is None
            and a.const is None and a.dest != "help"]


def _base(words: tuple[str, ...], parser: argparse.ArgumentParser, skip: str) -> list[str]:
    argv = list(words)
    chosen_group = set()
    for action in _value_actions(parser):
        flag = action.option_strings[0]
        group = next((g for g in parser._mutually_exclusive_groups
                      if action in g._group_actions), None)
        if flag == skip or not (action.required or (group is not None and group.required)):
            continue
        if group is not None:
            if id(group) in chosen_group or any(a.option_strings[0] == skip
                                                for a in group._group_actions):
                continue
            chosen_group.add(id(group))
        argv += [flag, VALID[flag]]
    return argv


CASES = [(words, action.option_strings[0], bad)
         for words, parser in LEAVES for action in _value_actions(parser)
         if action.type is not None or action.choices is not None
         for bad in (BAD if action.choices is None else ["abc", ""])]


def test_every_flag_has_a_case_and_help_text():
    undocumented = [f"{' '.join(w)} {a.option_strings[0]}" for w, p in LEAVES
                    for a in p._actions if a.option_strings and a.dest != "help" and not a.help]
    assert len(CASES) > 300 and not undocumented, undocumented


@pytest.mark.parametrize("words, flag, bad", CASES,
                         ids=[f"{' '.join(w)} {f}={b!r}" for w, f, b in CASES])
def test_bad_value_exits_2_with_one_line(capsys, words, flag, bad):
    parser = dict(LEAVES)[words]
    argv = _base(words, parser, flag) + [f"{flag}={bad}"]
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, f"{argv} exited {code}"
    assert len(err) == 1 and flag.lstrip("-").split("-")[0] in err[0], err


@pytest.mark.parametrize("argv", [
    ["dp", "bc-zsum", "--n", "10000", "--epsilon", "1", "--delta", "0.5", "--p", "0.9",
     "--at-delta", "1e-6"],
    ["dp", "gkm-count", "--n", "3", "--epsilon", "1", "--epsilon-prime", "0.5", "--q", "0.1",
     "--corrected-q", "--at-delta", "1e-6"],
    ["dp", "gkm-count", "--n", "3", "--epsilon", "1", "--rho", "0.5", "--no-check",
     "--at-delta", "1e-6"],
    ["dp", "binary-rr", "--n", "100", "--epsilon0", "-inf", "--at-delta", "1e-6"],
    ["rdp", "ldp", "--n", "100", "--epsilon0", "1", "--orders", "2,,4"],
])
def test_contradictory_or_malformed_flag_sets_exit_2(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1
