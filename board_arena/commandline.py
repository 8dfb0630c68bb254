"""What the project's command lines share (``arena``, the endgame builder, the experiments'
scripts): a bad argument is one line and status 2, never argparse's usage block.

Kept apart from the subpackages so that a command can parse its arguments before it imports
numba (``arena`` starts on the standard library alone).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, NoReturn, Sequence

__all__ = ["OneLineParser", "positive_int", "int_list", "run_script", "script_status"]


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and status 2:
    ``PROG: error: MESSAGE (see PROG --help)``.

        >>> parser = OneLineParser(prog="demo")
        >>> _ = parser.add_argument("--games", type=int)
        >>> parser.parse_args(["--games", "x"])
        Traceback (most recent call last):
        ...
        SystemExit: 2
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(text: str) -> int:
    """An argparse ``type``: a whole number of at least 1 (a count of games, runs, simulations)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or str(value) != text.strip().lstrip("+"):
        raise argparse.ArgumentTypeError(f"give a whole number of at least 1, not {text!r}")
    return value


def int_list(text: str) -> list[int]:
    """An argparse ``type``: whole numbers of at least 1 separated by commas (``1,2``)."""
    try:
        return [positive_int(item) for item in text.split(",")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"give whole numbers of at least 1 separated by commas, not {text!r}") from None


def run_script(main: Callable[[], int | None], prog: str) -> NoReturn:
    """Runs a script's ``main`` and exits with its status; a ``ValueError`` it raises (what the
    arguments name turned out wrong once read: an unknown game or agent, a value out of range) is
    one line, ``PROG: error: MESSAGE``, and status 2, as argparse's own errors are."""
    try:
        status = main()
    except ValueError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        sys.exit(2)
    sys.exit(status or 0)


def script_status(
    prog: str,
    parse_args: Callable[[Sequence[str] | None], Any],
    run: Callable[[Any], int],
    argv: Sequence[str] | None = None,
    interrupted: str = "interrupted",
) -> int:
    """The status of a script's ``main`` that its tests call: ``run(parse_args(argv))``'s, or
    argparse's for a bad argument; an interrupt is one line, ``PROG: INTERRUPTED``, and status
    130, and a ``ValueError`` one line, ``PROG: MESSAGE``, and status 2."""
    try:
        args = parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    try:
        return run(args)
    except KeyboardInterrupt:
        print(f"{prog}: {interrupted}", file=sys.stderr)
        return 130
    except ValueError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
