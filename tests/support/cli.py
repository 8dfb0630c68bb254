"""The ``arena`` command run in the test's process, its output captured."""

import io
from contextlib import redirect_stderr, redirect_stdout

from board_arena.arena.cli import main


def arena_cli(*argv: str) -> tuple[int, str, str]:
    """(exit status, standard output, standard error) of ``arena *argv``."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()
