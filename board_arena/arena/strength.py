"""The command-line face of the strength-testing options of ``arena run`` (openings, SPRT,
gauntlet) and of ``--plugin`` (agents from outside the package), kept apart from ``arena.cli``
so that the parser there gains only a call or two."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_strength_options", "add_plugin_option", "strength_options", "load_agent_plugins"]


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
