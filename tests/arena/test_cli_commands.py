"""The ``arena`` command is assembled from one module per command (``board_arena/arena/cli/``),
each adding its own subparser and holding its own handler: a new command is one module, listed
once in ``cli.COMMANDS``."""

from __future__ import annotations

import argparse
import sys
import types
from pathlib import Path

import pytest

from board_arena.arena import cli

CLI = Path(cli.__file__).parent
SHARED = {"__init__", "__main__", "options"}  # the assembly, python -m, the shared options


def test_every_command_module_is_listed_once_and_has_a_parser_and_a_handler():
    modules = sorted(path.stem for path in CLI.glob("*.py") if path.stem not in SHARED)
    assert sorted(cli.COMMANDS.values()) == modules
    for name in cli.COMMANDS:
        module = cli.command_module(name)
        assert callable(module.add_parser) and callable(module.handle), name
    parser = cli.build_parser()
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    assert list(commands.choices) == list(cli.COMMANDS)  # the order of arena --help


def test_a_new_command_is_one_module_listed_once(monkeypatch, capsys):
    demo = types.ModuleType("board_arena.arena.cli.demo")

    def add_parser(commands):
        parser = commands.add_parser("demo", help="say hello")
        parser.add_argument("--name", default="world")
        return parser

    def handle(args):
        print(f"hello, {args.name}")
        return 0

    demo.add_parser, demo.handle = add_parser, handle
    monkeypatch.setitem(sys.modules, demo.__name__, demo)
    monkeypatch.setitem(cli.COMMANDS, "demo", "demo")
    assert cli.main(["demo", "--name", "arena"]) == 0
    assert capsys.readouterr().out == "hello, arena\n"
    assert cli.main(["demo", "--bogus"]) == 2
    # Named by the command that was given it, with its nearest option, as for every command.
    assert capsys.readouterr().err.strip() == "arena demo: error: unrecognized arguments: --bogus (see arena demo --help)"
    assert cli.main(["demo", "--nmae", "x"]) == 2
    assert capsys.readouterr().err.strip() == (
        "arena demo: error: unrecognized arguments: --nmae x; did you mean --name? (see arena demo --help)"
    )


@pytest.mark.parametrize("argv, words", [
    (["run", "--game", "kalah", "--agents", "random,greedy", "--gmaes", "10"],
     "arena run: error: unrecognized arguments: --gmaes 10; did you mean --games?"),
    (["run", "--game", "kalah", "--agents", "random,greedy", "--concurency=2"],
     "arena run: error: unrecognized arguments: --concurency=2; did you mean --concurrency?"),
    (["report", "x", "--plts"], "arena report: error: unrecognized arguments: --plts"),
    (["run", "--game", "kalah", "--agents", "random,greedy", "stray"], "arena run: error: unrecognized arguments: stray (see"),
])
def test_a_mistyped_option_is_named_by_its_command_with_the_nearest_option(argv, words, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err
