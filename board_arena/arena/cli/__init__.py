"""The ``arena`` command: ``run``, ``report``, ``verify``, ``list``, ``replay``, ``export``, ``play``,
``serve``, ``check-game``, ``engine``.

Each command is a module here (listed once, in :data:`COMMANDS`) with ``add_parser(commands)``,
which adds its subparser and options, and ``handle(args)``, which runs it and returns the exit
status; the options that several commands share are :mod:`.options`. Every error a user can
cause (an unknown game or agent, a bad parameter, a folder holding another run) ends the command
with one line saying what was wrong and what is allowed, and status 2.

The parser is built from the standard library alone; a command imports what it needs when it
runs, so that an interrupt during the heavy imports (numba) is handled like any other.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import signal
import sys
from types import ModuleType
from typing import Any, Sequence

from board_arena.arena.cli.options import EXAMPLES, load_agent_plugins, load_engines
from board_arena.commandline import OneLineParser, interrupt_handled, interrupts_kept

__all__ = ["main", "build_parser", "command_module", "COMMANDS"]

#: The commands, in the order ``arena --help`` lists them, and the module of each here (``list``
#: is :mod:`.listing`: a module named ``list`` would hide the builtin in this package).
COMMANDS = {
    "run": "run",
    "report": "report",
    "verify": "verify",
    "list": "listing",
    "replay": "replay",
    "export": "export",
    "play": "play",
    "serve": "serve",
    "check-game": "check_game",
    "engine": "engine",
}


def command_module(name: str) -> ModuleType:
    """The module of command ``name`` (one of :data:`COMMANDS`)."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name]}")


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``arena`` command, every command's subparser added by its module."""
    parser = OneLineParser(
        prog="arena",
        description="Round-robin tournaments between game-playing agents, with joint Elo ratings.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    commands.required = True
    for name in COMMANDS:
        command_module(name).add_parser(commands)
    return parser


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked for (reading the installed distributions' metadata
    would slow every command otherwise)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option_string: str | None = None) -> None:
        print(f"arena (board-arena) {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("board-arena")
    except PackageNotFoundError:
        return "(not installed)"


#: Exit status after an interrupt (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
#: Exit status when the reader of the output went away (128 + SIGPIPE), as for `git log | head`.
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console command: every error a user can cause is one line
    and status 2; an interrupt at any moment (start-up included) is one line and status 130."""
    words = sys.argv[1:] if argv is None else list(argv)
    # The command's name before the parser exists (Ctrl-C may come while the interpreter imports).
    command = f"arena {words[0]}" if words and words[0] in COMMANDS else "arena"
    # The arena command's own process (not a call from Python): the objects of the imports
    # (numba's, a few hundred thousand) live as long as it does. The cyclic collector, which
    # would go over them again and again and free nothing, is off while they are made, and
    # they are then kept out of its passes, which also keeps it from copying their pages into
    # the forked workers (what gc.freeze is for).
    own_process = argv is None
    if own_process:
        gc.disable()
        # numpy's OpenBLAS starts a thread per core when numpy is imported, and they spin: CPU
        # spent at each start of a command whose linear algebra is a few small matrices (the
        # ratings), with the games in worker processes already one per core. As Ray does
        # for its workers, one thread, unless the user has said otherwise.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        with interrupts_kept():
            try:
                args = build_parser().parse_args(argv)
            except SystemExit as stop:  # --help, --version, or a usage error (already printed)
                return stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
            command = f"arena {args.command}"
            # The heavy imports that every command needs (numba, the games, the agents), made
            # while the collector is still off in the command's own process.
            from board_arena import agents, engines  # noqa: F401

            if own_process:
                gc.freeze()
                gc.enable()
            load_agent_plugins(args)
            load_engines(args)
            return command_module(args.command).handle(args)
    except ValueError as error:
        print(f"{command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this short
        interrupt_handled()
        if command == "arena run":
            print("\narena run: interrupted; finished games are stored (run the same command to resume)", file=sys.stderr)
        else:
            print(f"\n{command}: interrupted", file=sys.stderr)
        if not own_process:  # called from Python: its caller's Ctrl-C as it was
            signal.signal(signal.SIGINT, previous)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (| head) has gone: stop writing, quietly. Point stdout at nothing so that
        # the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
