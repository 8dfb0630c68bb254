"""``arena report``: the report of a stored run, and its plots."""

from __future__ import annotations

import argparse

from board_arena.arena.cli.options import add_skip_invalid_option

__all__ = ["add_parser", "handle"]


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``report`` command and its options."""
    report = commands.add_parser(
        "report",
        help="print the report of a run and draw its plots",
        description="Print the report of a run from its database, then draw its plots (elo.png, scores.png, "
        "history.png) into the run folder.",
    )
    report.add_argument("dir", metavar="DIR", help="run folder")
    report.add_argument("--anchor", metavar="AGENT", help="agent rated 0 (default: mean rating 0)")
    add_skip_invalid_option(report)
    return report


def handle(args: argparse.Namespace) -> int:
    """Prints the report of the run in ``args.dir`` and draws its plots."""
    from board_arena.arena.tournament.report import print_report
    from board_arena.arena.tournament.run import load_run

    print_report(load_run(args.dir, args.skip_invalid), args.anchor, plots=True)
    return 0
