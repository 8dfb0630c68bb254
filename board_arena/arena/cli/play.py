"""``arena play``: a person against any agent, in the terminal (the session is
:class:`board_arena.arena.terminal.PlaySession`)."""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sys
import time

from board_arena.arena.cli.options import add_engines_option, add_plugin_option

__all__ = ["add_parser", "handle", "DEFAULT_OPPONENTS"]

DESCRIPTION = """\
Play a game against an agent in the terminal. Each turn shows the board and whose turn it is;
type your move in the game's notation (the board shows the coordinates; type help for the rules
and examples), or one of these commands:

  moves     list your legal moves, numbered; then type a number to play that move
  hint      what the opponent agent would play in your place
  undo      take back your last move and the agent's reply
  board     show the board again
  help      the rules of the game, how to write a move, these commands
  quit      end the game (also Ctrl-D or Ctrl-C)

After the agent moves, its move is shown with what its search found. At the end the result and
the score are shown, and the game record is saved (it replays with: arena replay FILE).

With --tc each side has a game clock, as in the arena: your time runs from the prompt to your
move (help, moves and hints included), the agent budgets its own; the clocks are shown after each
move, and a side whose clock runs out loses on time. undo is off under a clock."""

EPILOG = """examples:
  arena play --game mancala
  arena play --game kalah:pits=4,seeds=3 --opponent mcts:iterations=5000 --first agent
  arena play --game mancala --opponent alphabeta:depth=8 --seed 7 --record my-game.json
  arena play --game nine-mens-morris --tc 5:00+3 --opponent mcts"""

#: The opponent when none is given: a strong search that answers in about a second.
DEFAULT_OPPONENTS = {True: "alphabeta:time=1", False: "ismcts:time=1"}  # by perfect information


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``play`` command and its options."""
    play = commands.add_parser(
        "play",
        help="play against an agent in the terminal",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument("--game", required=True, metavar="NAME[:param=value,...]", help="game and variant parameters (see arena list)")
    play.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a variant parameter of the game (repeatable)")
    play.add_argument(
        "--opponent",
        metavar="SPEC",
        help=f"the agent you play (default {DEFAULT_OPPONENTS[True]}, or {DEFAULT_OPPONENTS[False]} for dominoes; see arena list)",
    )
    play.add_argument(
        "--first",
        choices=("human", "agent", "random"),
        default="human",
        help="who moves first (default: you; in dominoes, who holds the greatest tile and leads)",
    )
    play.add_argument(
        "--tc",
        metavar="TIME[+INC]",
        help="a game clock for each side, as arena run takes it: 5:00+3 (five minutes, three seconds added a move), 40/600",
    )
    play.add_argument("--seed", type=int, help="seed of the start (deal, opening) and of the agent (default: a random one, printed)")
    play.add_argument("--record", metavar="FILE", help="where to save the game (default: arena-games/<game>-<date>.json)")
    play.add_argument("--ascii", action="store_true", help="plain ASCII: no colours, no Unicode lines or pieces")
    play.add_argument("--glyphs", action="store_true", help="dominoes: draw the line with Unicode domino glyphs (few fonts have them)")
    add_plugin_option(play)
    add_engines_option(play)
    return play


def _check_writable(path: str) -> None:
    """Makes sure the record can be saved before a game is played, not after, writing nothing
    (a game quit before its first move saves nothing; the record's folder is made when it is
    saved)."""
    if not path:
        raise ValueError("--record: give a file name, not an empty one")
    if os.path.isdir(path):
        raise ValueError(f"cannot write the game record to {path}: it is a folder (give a file name)")
    ancestor = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor) or not os.access(ancestor, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write the game record to {path}: {ancestor} is not a folder this process can write in")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ValueError(f"cannot write the game record to {path}: it is read-only")


def handle(args: argparse.Namespace) -> int:
    """The ``arena play`` command (errors raise ValueError, reported by the caller)."""
    from board_arena import engines
    from board_arena.arena.terminal import PlaySession
    from board_arena.arena.tournament.clock import parse_time_control
    from board_arena.arena.tournament.settings import (
        parse_game_spec,
        parse_param_options,
    )
    from board_arena.engines.style import terminal_style

    name, raw = parse_game_spec(args.game)
    game = engines.make(name, **{**raw, **parse_param_options(args.param)})
    opponent = DEFAULT_OPPONENTS[game.perfect_information] if args.opponent is None else args.opponent
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    # Seat of the player who moves first: player 0, except in dominoes (the greatest tile leads).
    opener = game.new_initial_state(seed).current_player
    first = args.first if args.first != "random" else random.Random(seed).choice(("human", "agent"))
    human_seat = opener if first == "human" else 1 - opener
    record = os.path.join("arena-games", f"{game.name}-{time.strftime('%Y%m%d-%H%M%S')}.json") if args.record is None else args.record
    style = terminal_style(sys.stdout, force_ascii=args.ascii, glyphs=args.glyphs)
    control = None if args.tc is None else parse_time_control(args.tc)
    session = PlaySession(game, opponent, human_seat, seed, style, record, time_control=control)  # checks the opponent
    _check_writable(record)
    return session.run()
