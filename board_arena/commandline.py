"""What the project's command lines share (``arena``, the endgame builder, the experiments'
scripts): a bad argument is one line and status 2, never argparse's usage block.

Kept apart from the subpackages so that a command can parse its arguments before it imports
numba (``arena`` starts on the standard library alone).
"""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["OneLineParser"]


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
