"""``arena export``: a run's games as text records."""

from __future__ import annotations

import argparse

from board_arena.arena.cli.options import add_skip_invalid_option

__all__ = ["add_parser", "handle"]


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``export`` command and its options."""
    export = commands.add_parser(
        "export",
        help="write a run's games as text records",
        description="Write the games of a run as text records: per game, tag lines ([Game \"kalah\"], "
        "[Result \"1-0\"], ...), then one line with all its moves in the game's notation, then a blank "
        "line. The file serves as an openings file (arena run --openings FILE --opening-plies K).",
    )
    export.add_argument("dir", metavar="DIR", help="run folder")
    export.add_argument("--out", metavar="FILE", help="where to write (default DIR/games.txt; - for standard output)")
    add_skip_invalid_option(export)
    return export


def handle(args: argparse.Namespace) -> int:
    """Writes the games of the run in ``args.dir`` to ``args.out``."""
    from board_arena.arena.tournament.export import export_run

    path, count = export_run(args.dir, args.out, args.skip_invalid)
    if path != "-":
        print(f"{count} games written to {path}")
    return 0
