"""``python -m board_arena.arena.cli``: the ``arena`` command."""

import sys

from board_arena.arena.cli import main

if __name__ == "__main__":  # not when a tool imports every module of the package
    sys.exit(main())
