"""Game engines: numba kernels behind one contract, and a Python face to play them.

    >>> from board_arena import engines
    >>> engines.available_games()[:2]
    ['mancala', 'kalah']
    >>> state = engines.make("kalah").new_initial_state(seed=1)
    >>> print(state)  # doctest: +SKIP

See :mod:`engines.contract` for the compiled contract that agents search through.
"""

from board_arena.engines import _jit  # noqa: F401  (installs the cache locator before any kernel exists)
from board_arena.engines.game import (
    PLY_CAP,
    Game,
    GameRecord,
    IllegalMoveError,
    Param,
    State,
    VariantError,
    shown,
)
from board_arena.engines.registry import available_games, game_class, make

__all__ = [
    "make",
    "available_games",
    "game_class",
    "Game",
    "State",
    "GameRecord",
    "Param",
    "IllegalMoveError",
    "VariantError",
    "PLY_CAP",
    "shown",
]
