"""``arena replay``: a stored game move by move, with the board."""

from __future__ import annotations

import argparse
import os

from board_arena.arena.cli.options import integer

__all__ = ["add_parser", "handle"]


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``replay`` command and its options."""
    replay = commands.add_parser(
        "replay",
        help="print a stored game move by move",
        description="Print a stored game move by move with the board: game GAME_ID of a run folder, "
        "or a game record file saved by arena play.",
    )
    replay.add_argument("path", metavar="DIR|FILE", help="run folder, or a .json game record")
    replay.add_argument("game_id", type=integer, nargs="?", metavar="GAME_ID", help="game number in a run folder (0 is the first)")
    return replay


def handle(args: argparse.Namespace) -> int:
    """Prints game ``args.game_id`` of a run folder, or a game record file, move by move."""
    from board_arena import engines
    from board_arena.arena.tournament.movelog import search_note
    from board_arena.arena.tournament.run import load_run

    if os.path.isfile(args.path):
        try:
            with open(args.path, encoding="utf-8") as handle:
                record = engines.GameRecord.from_json(handle.read())
            engines.make(record.game, **record.params)
        except UnicodeDecodeError:
            raise ValueError(f"{args.path} is not a game record (not UTF-8 text)") from None
        except (OSError, ValueError) as error:
            raise ValueError(f"{args.path} is not a game record ({error})") from None
        players = record.metadata.get("players", ["player 0", "player 1"])
        heading = f"{args.path}: {players[0]} (seat 0) vs {players[1]} (seat 1), {record.game}, seed {record.seed}"
        finished = record.metadata.get("finished", True)
        end_reason = record.metadata.get("end_reason") or ("rules" if finished else "stopped before the end")
        searches = record.metadata.get("searches")
    else:
        if args.game_id is None:
            raise ValueError("give the game number after the run folder, e.g. arena replay DIR 0")
        run = load_run(args.path, skip_invalid=True)
        failed = next((g for g in run.invalid if g.id == args.game_id), None)
        if failed is not None:
            raise ValueError(f"{failed} (see arena verify {args.path})")
        record = run.game_record(args.game_id)
        stored = next(g for g in run.games if g.id == args.game_id)
        players = [stored.player0, stored.player1]
        heading = f"Game {args.game_id}: {players[0]} (seat 0) vs {players[1]} (seat 1), {run.settings.game}, start seed {stored.game_seed}"
        end_reason = stored.end_reason
        from board_arena.arena.tournament.openings import opening_length

        opening = opening_length(run.settings, stored)
        if opening:
            heading += f"\nPlies 1-{opening} are the opening (played before the agents took over)"
        searches = run.searches([args.game_id]).get(args.game_id)
    game = engines.make(record.game, **record.params)
    positions = list(record.positions())  # the whole record is checked before anything is printed
    print(heading)
    for ply, (state, move) in enumerate(positions):
        print()
        print(game.notation.render(state))
        if move is not None:
            print(
                f"Move {ply + 1}: {game.player_names[state.current_player]} ({players[state.current_player]}) plays {move}"
                + search_note(searches, ply)
            )
    print()
    print(f"Result: {game.result_text(state)}" if end_reason == "rules" else f"Result: {end_reason}")
    return 0
