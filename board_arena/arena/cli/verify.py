"""``arena verify``: check every stored game of a run."""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_parser", "handle", "EXIT_INVALID"]

#: ``arena verify``'s exit status when some game fails (2 stays for errors of use).
EXIT_INVALID = 1


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``verify`` command and its options."""
    verify = commands.add_parser(
        "verify",
        help="check every stored game of a run",
        description="Check every stored game of a run: each replays through the engine to its stored result, "
        "score and length, belongs to the run's schedule (seats, seeds, opening), its notation matches its "
        "moves, and its checksum holds. Lists every game that fails; exit status 1 if one does.",
    )
    verify.add_argument("dir", metavar="DIR", help="run folder")
    return verify


def handle(args: argparse.Namespace) -> int:
    """Lists the stored games that fail verification; status ``EXIT_INVALID`` if one does."""
    from board_arena.arena.tournament.verify import verify_run

    settings, count, invalid = verify_run(args.dir, progress=sys.stderr.isatty())
    for game in invalid:
        print(game)
    if invalid:
        print(f"{len(invalid):,} of {count:,} stored games fail verification (of {settings.total_games:,} in the run)")
        return EXIT_INVALID
    print(f"All {count:,} stored games verified (of {settings.total_games:,} in the run): each replays to its stored end, "
          "follows the schedule and the openings, and its checksum holds")
    return 0
