"""``arena serve``: the local web server of the browser board (see :mod:`board_arena.arena.web`)."""

from __future__ import annotations

import argparse
import os

from board_arena.arena.cli.options import (
    add_engines_option,
    add_plugin_option,
    integer,
    number,
)

__all__ = ["add_parser", "handle", "SERVE_LIMITS"]

#: Bounds of arena serve's limits: a move of at most an hour, a table of at most 64 GiB.
SERVE_LIMITS = {"max_move_time": (0.01, 3600.0), "max_table_mb": (1.0, 65536.0), "max_searches": (1, 256), "max_games": (1, 100_000)}


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``serve`` command and its options."""
    serve = commands.add_parser(
        "serve",
        help="play in the browser: a board you click, spectator games, tournament runs live",
        description="Start a local web server with a page where you play any game against an "
        "agent by clicking on the board, watch two agents play, or browse the tournament runs of "
        "--runs, and watch one that arena run is playing. The address (with the token that "
        "opens the page) is printed and opened in a browser when one is available.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only; never every interface)")
    serve.add_argument("--port", type=integer, default=0, help="port (default: a free one, printed)")
    serve.add_argument("--runs", default="arena-runs", metavar="DIR", help="folder of tournament runs to show (default arena-runs)")
    serve.add_argument("--no-browser", action="store_true", help="do not open a browser")
    serve.add_argument(
        "--max-move-time", type=number, default=10.0, metavar="SECONDS",
        help="the longest time per move an agent spec from the page may ask for, and the longest any search runs (default 10)",
    )
    serve.add_argument("--max-table-mb", type=number, default=64.0, metavar="MB",
                       help="the largest table an agent spec from the page may ask for, in MiB (default 64)")
    serve.add_argument("--max-searches", type=integer, default=None, metavar="N",
                       help="searches at once, each in a worker process (default: the number of cores, at most 4)")
    serve.add_argument("--max-games", type=integer, default=200, metavar="N",
                       help="games kept at once; the least recently used go first (default 200)")
    serve.add_argument("--verbose", action="store_true", help="log every request (default: errors only)")
    add_plugin_option(serve)
    add_engines_option(serve)
    return serve


def handle(args: argparse.Namespace) -> int:
    """Serves the page until interrupted (errors raise ValueError)."""
    from board_arena.arena.web.server import check_host, serve

    if not 0 <= args.port < 65536:
        raise ValueError(f"--port must be from 0 to 65535, not {args.port}")
    check_host(args.host)
    limits = {"max_move_time": args.max_move_time, "max_table_mb": args.max_table_mb, "max_games": args.max_games,
              "max_searches": max(1, min(4, os.cpu_count() or 1)) if args.max_searches is None else args.max_searches}
    for name, (low, high) in SERVE_LIMITS.items():
        if not low <= limits[name] <= high:
            raise ValueError(f"--{name.replace('_', '-')} must be from {low:g} to {high:g}, not {limits[name]:g}")
    try:
        return serve(args.host, args.port, args.runs, open_browser=not args.no_browser, verbose=args.verbose, **limits)
    except OSError as error:
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None
