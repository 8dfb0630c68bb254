"""Game engines: numba kernels behind one contract, and a Python face to play them.

    >>> from board_arena import engines
    >>> engines.available_games()[:2]
    ['mancala', 'kalah']
    >>> state = engines.make("kalah").new_initial_state(seed=1)
    >>> print(state)  # doctest: +SKIP

See :mod:`engines.contract` for the compiled contract that agents search through,
:mod:`engines.game` for the rules' Python face and the capabilities a game has besides
(:class:`Notation`, :class:`WebBoard`, :class:`Encoding`, :class:`EndgameDatabases`), and
:func:`register_game` to add a game from outside the package.
"""

from board_arena._collector import CollectorPaused

with CollectorPaused():  # see board_arena._collector
    from board_arena.engines.dominoes import Dominoes
    from board_arena.engines.encoding import Encoding
    from board_arena.engines.endgame import EndgameDatabases, PerfectPlay
    from board_arena.engines.errors import IllegalMoveError, VariantError, shown
    from board_arena.engines.fen import PositionError
    from board_arena.engines.game import PLY_CAP, Game, GameRecord, State
    from board_arena.engines.konane import Konane
    from board_arena.engines.mancala import Mancala
    from board_arena.engines.morabaraba import Morabaraba
    from board_arena.engines.notation import Notation
    from board_arena.engines.params import Param
    from board_arena.engines.registry import (
        available_games,
        game_class,
        game_classes,
        load_game_entry_points,
        make,
        on_game_registered,
        register_game,
    )
    from board_arena.engines.web import WebBoard

# The built-in games, in the order in which available_games() and arena list show them.
for _builtin in (Mancala, Morabaraba, Konane, Dominoes):
    register_game(_builtin)

__all__ = [
    "make",
    "available_games",
    "game_class",
    "game_classes",
    "register_game",
    "on_game_registered",
    "load_game_entry_points",
    "Game",
    "State",
    "GameRecord",
    "Param",
    "Notation",
    "WebBoard",
    "Encoding",
    "EndgameDatabases",
    "PerfectPlay",
    "IllegalMoveError",
    "VariantError",
    "PositionError",
    "PLY_CAP",
    "shown",
]
