"""``arena engine``: one of our agents as a UGI engine on standard input and output, for any
UGI host (cutegames, or the arena's own, ``board_arena.ugi``); see ``docs/protocol.md`` and
:class:`board_arena.ugi.engine.UGIEngine`."""

from __future__ import annotations

import argparse
import io
import os
import secrets
import sys

from board_arena.arena.cli.options import add_plugin_option, integer

__all__ = ["add_parser", "handle"]

DESCRIPTION = """\
Run an agent as a UGI engine (the Universal Game Interface: UCI for any two-player game):
commands on standard input, replies on standard output, notes on standard error. UGI's p1 is
the game's first player; moves are in the game's notation; a position is startpos or a position
string (fen) with the moves since, and Dominoes is told its seat's view (position deal ...).
See docs/protocol.md."""

EPILOG = """examples:
  arena engine --game kalah --agent alphabeta:depth=8
  arena engine --game konane --agent mcts:iterations=2000 --seed 7
  arena engine --game dominoes --agent pimc"""


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``engine`` command and its options."""
    engine = commands.add_parser(
        "engine",
        help="speak UGI on stdin/stdout: an agent as an engine for a UGI host",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    engine.add_argument("--game", required=True, metavar="NAME[:param=value,...]", help="the game and variant the engine plays")
    engine.add_argument("--agent", required=True, metavar="SPEC", help="the agent that plays (see arena list), e.g. alphabeta:depth=8")
    engine.add_argument("--seed", type=integer, metavar="S", help="the agent's seed (default: a fresh one, shown as the Seed option)")
    add_plugin_option(engine)
    return engine


def handle(args: argparse.Namespace) -> int:
    """Runs the engine until ``quit`` or the end of the input."""
    from board_arena.arena.tournament.settings import parse_game_spec
    from board_arena.engines import make
    from board_arena.ugi.engine import UGIEngine

    if args.seed is not None and not 0 <= args.seed < 2**63:
        raise ValueError(f"--seed must be an integer from 0 to {2**63 - 1}, not {args.seed}")
    name, params = parse_game_spec(args.game)
    game = make(name, **params)
    seed = secrets.randbits(63) if args.seed is None else args.seed
    engine = UGIEngine(game, args.agent, seed)
    # Bytes that are not UTF-8 make a command that nothing matches, not an error that ends the engine.
    commands = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    if engine.run(commands):
        # quit during a search with a budget: a compiled search cannot be interrupted, and the
        # interpreter would wait for it at exit.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0
