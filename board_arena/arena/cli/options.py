"""What the ``arena`` commands share: the types of their numeric arguments, the options that
several commands take (``--plugin``, ``--skip-invalid``), the strength-testing options of
``arena run`` (openings, SPRT, gauntlet), and the examples that ``arena --help`` shows.

Standard library only: the parser is built before anything heavy is imported.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, TypeVar

__all__ = [
    "EXAMPLES",
    "integer",
    "number",
    "add_strength_options",
    "add_plugin_option",
    "add_skip_invalid_option",
    "strength_options",
    "load_agent_plugins",
    "add_engines_option",
    "load_engines",
]

EXAMPLES = """examples:
  arena run --game mancala --agents mcts,alphabeta
  arena run --game kalah:pits=5,seeds=3 --agents random,alphabeta:depth=4,mcts:iterations=500 --games 20
  arena run --game mancala --agents mcts,alphabeta --cluster auto
  arena run --game kalah --agents mcts,alphabeta --tc 10+0.1
  arena report arena-runs/mancala-mcts-alphabeta-1a2b3c4d
  arena verify arena-runs/mancala-mcts-alphabeta-1a2b3c4d
  arena replay arena-runs/mancala-mcts-alphabeta-1a2b3c4d 0
  arena export arena-runs/mancala-mcts-alphabeta-1a2b3c4d --out games.txt
  arena list
  arena play --game mancala --opponent mcts:iterations=20000
  arena serve
  arena check-game mygame --plugin mygame
  arena engine --game kalah --agent alphabeta:depth=8
"""


def _shown(text: str, limit: int = 24) -> str:
    """An argument as an error message echoes it: at most a short prefix."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


_Value = TypeVar("_Value")


def _typed(convert: Callable[[str], _Value], what: str) -> Callable[[str], _Value]:
    """An argparse type: ``convert`` of the text, or an error that echoes only its prefix."""

    def parse(text: str) -> _Value:
        try:
            if len(text) > 24 or not text.isascii():  # no number a person means is this long; int("٣") is 3
                raise ValueError
            return convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {_shown(text)}") from None

    return parse


#: An argparse type: an integer.
integer = _typed(int, "an integer")
#: An argparse type: a number.
number = _typed(float, "a number")


def _plies(text: str) -> int:
    try:
        if len(text) > 12:
            raise ValueError
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text[:24]!r}") from None


def add_strength_options(run: argparse.ArgumentParser) -> None:
    """``--openings``, ``--opening-plies``, ``--sprt`` and ``--gauntlet`` for ``arena run``."""
    run.add_argument(
        "--openings",
        metavar="random:N|FILE",
        help="start each seat-swapped pair after N random plies, or from the next line of FILE (move "
        "sequences in the game's notation, one per line; lines starting with [ or # are skipped, so "
        "arena export files work, cut with --opening-plies; lines are taken in order, cycling)",
    )
    run.add_argument(
        "--opening-plies",
        type=_plies,
        metavar="K",
        help="with --openings FILE: play only the first K plies of each line (default: the whole line)",
    )
    run.add_argument(
        "--sprt",
        metavar="elo0=E0,elo1=E1[,alpha=A,beta=B,model=M]",
        help="sequential test of the first agent against the second on game pairs (pentanomial GSPRT, "
        "as fastchess): stop when H0 (Elo <= E0) or H1 (Elo >= E1) is accepted; alpha and beta default "
        "to 0.05, model to logistic (or normalized); --games is then the most games to play",
    )
    run.add_argument("--gauntlet", action="store_true", help="the first agent plays each of the others; they do not play each other")


def add_plugin_option(parser: argparse.ArgumentParser) -> None:
    """``--plugin`` (repeatable) for a command."""
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="FILE.py|MODULE",
        help="load agents or games from a Python file, package folder or module that registers them "
        "(repeatable; see experiments/plugins, tests/games)",
    )


def add_engines_option(parser: argparse.ArgumentParser) -> None:
    """``--engines FILE`` for a command: engine programs that play as agents, by name."""
    parser.add_argument(
        "--engines",
        metavar="FILE.toml",
        help="engine programs speaking UGI, described in a TOML file (see docs/engines.md); their names are "
        "then agent specs, e.g. --agents mcts,myengine",
    )


def load_engines(args: argparse.Namespace) -> None:
    """Registers the ``--engines`` file's engines as agents.

    Raises:
        ValueError: the file is missing or describes an engine wrongly (one line).
    """
    path = getattr(args, "engines", None)
    if path is not None:
        from board_arena.ugi.host import load_engines_file, register_engines

        try:
            register_engines(load_engines_file(path))
        except ValueError as error:
            message = str(error)
            raise ValueError(message if message.startswith("engines file ") else f"engines file {path}: {message}") from None


def add_skip_invalid_option(parser: argparse.ArgumentParser) -> None:
    """``--skip-invalid`` for a command that reads a run's stored games."""
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        help="leave out the stored games that fail verification (see arena verify) instead of refusing the run",
    )


def strength_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``TournamentSettings.create`` options that these flags give."""
    options: dict[str, Any] = {}
    if args.openings is not None or args.opening_plies is not None:
        options["openings"] = args.openings
        options["opening_plies"] = args.opening_plies
    if args.sprt is not None:
        options["sprt"] = args.sprt
    if args.gauntlet:
        options["gauntlet"] = True
    if args.plugin:
        options["plugins"] = tuple(args.plugin)
    return options


def load_agent_plugins(args: argparse.Namespace) -> None:
    """Loads the ``--plugin`` agents. (The installed packages' agents, entry points, are loaded
    at the first agent name not known yet: see :func:`agents.agent_class`.)

    Raises:
        ValueError: a plugin is missing or fails to import (one line).
    """
    from board_arena.agents.plugins import load_plugins

    load_plugins(getattr(args, "plugin", None) or ())
