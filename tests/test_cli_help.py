"""`kopsim --help` of every command, `--version`, and the parser's range checks on every number."""

import argparse

import pytest

from kopsim.cli import args as cliargs
from kopsim.cli import build_parser, main


def _subparsers(parser: argparse.ArgumentParser, path=()):
    """(command words, parser) for the top level and every subcommand, however deep."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subparsers(sub, (*path, name))


COMMANDS = [words for words, _ in _subparsers(build_parser())]


def test_the_walk_finds_every_command():
    assert {("rules", "show"), ("rules", "diff"), ("simulate",), ("replay",), ("bench",),
            ("duel",), ("solve",), ("run",), ("report",)} <= set(COMMANDS)


@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: " ".join(w) or "kopsim")
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_of_every_command(words, flag, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*words, flag])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kopsim")


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out.split()
    assert out[0] == "kopsim" and out[1][0].isdigit()


def test_every_numeric_option_is_range_checked():
    """No option reads a plain int or float: each number goes through a kopsim.cli.args type."""
    unchecked = [(" ".join(words), a.option_strings) for words, p in _subparsers(build_parser())
                 for a in p._actions if a.type in (int, float)]
    assert unchecked == []


BAD = [
    (["simulate", "kop", "--seed", "-1"], "--seed"),
    (["simulate", "kop", "--seed", str(2**64)], "--seed"),
    (["simulate", "kop", "--hands", "0"], "--hands"),
    (["simulate", "kop", "--hands", "ten"], "--hands"),
    (["simulate", "kop", "--log", "/no/such/folder/x.jsonl"], "--log"),
    (["simulate", "kop", "--log", "."], "--log"),
    (["replay", "x.jsonl", "--jobs", "0"], "--jobs"),
    (["replay", "x.jsonl", "--max-report", "-1"], "--max-report"),
    (["bench", "kop", "--hands", "-5"], "--hands"),
    (["bench", "kop", "--reference-hands", "0"], "--reference-hands"),
    (["bench", "kop", "--heuristic-hands", "-1"], "--heuristic-hands"),
    (["bench", "kop", "--jobs", "1,0"], "--jobs"),
    (["bench", "kop", "--ev-deals", "999"], "--ev-deals"),  # the ev bot's least
    (["duel", "kop", "--a", "random", "--b", "random", "--jobs", "0"], "--jobs"),
    (["duel", "kop", "--a", "random", "--b", "random", "--deals", "1"], "--deals"),
    (["duel", "kop", "--a", "random", "--b", "random", "--seed", "-3"], "--seed"),
    (["solve", "kop", "--hands", "x", "--contract", "zolo", "--dealer", "6"], "--dealer"),
    (["solve", "kop", "--hands", "x", "--contract", "zolo", "--declarer", "-1"], "--declarer"),
    (["run", "x.toml", "--jobs", "0"], "--jobs"),
    (["run", "x.toml", "--seed", str(2**63)], "--seed"),
    (["run", "x.toml", "--chunk", "0"], "--chunk"),
    (["run", "x.toml", "--out", __file__], "--out"),
]


@pytest.mark.parametrize("argv,option", BAD, ids=lambda x: " ".join(x) if isinstance(x, list) else x)
def test_bad_numbers_exit_2_naming_the_option(argv, option, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: command line: argument {option}: ")
    assert "Traceback" not in err


def test_bench_rejects_an_unknown_ruleset_name(capsys):
    assert main(["bench", "kopp", "--hands", "10", "--reference-hands", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "kopp" in err and "kop-sportowy" in err


def test_type_helpers():
    assert cliargs.count()("2_000_000") == 2_000_000
    assert cliargs.seed(str(2**63 - 1)) == 2**63 - 1
    assert cliargs.jobs_list("1, 2") == [1, 2]
    with pytest.raises(argparse.ArgumentTypeError):
        cliargs.count()(str(cliargs.COUNT_LIMIT + 1))


def test_kopsim_bots_lists_every_bot_with_every_parameter_and_its_default(capsys):
    from pydantic import BaseModel

    from kopsim.bots import REGISTRY

    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    blocks = {b.split(":")[0]: b for b in out.strip().split("\n\n")}
    assert set(blocks) == set(REGISTRY)
    for name, cls in REGISTRY.items():
        assert "plays in: " in blocks[name]
        for key, f in cls.Params.model_fields.items():
            if f.is_required():  # a plug-in's (some tests register one)
                assert f"  {key} (" in blocks[name] and "required" in blocks[name]
            elif not isinstance(f.default, BaseModel):
                assert f"  {key} (" in blocks[name] and f"default {f.default!r}" in blocks[name]
    assert "reference engine only" in blocks["cheat-dd"] and "batch kernel" in blocks["pimc"]


def test_a_seat_option_reaches_the_largest_table_a_ruleset_may_have():
    from kopsim.rules.model import MAX_SEATS

    assert cliargs.SEAT_LIMIT == MAX_SEATS - 1
    assert cliargs.seat(str(MAX_SEATS - 1)) == MAX_SEATS - 1
    with pytest.raises(argparse.ArgumentTypeError):
        cliargs.seat(str(MAX_SEATS))
