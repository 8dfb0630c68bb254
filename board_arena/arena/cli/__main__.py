"""``python -m board_arena.arena.cli``: the ``arena`` command."""

import sys

from board_arena.arena.cli import main

sys.exit(main())
