"""One registry of games: ``make(name, **params)`` and ``available_games()``.

Every preset of every game family is a name here (``mancala``, ``kalah``, ...). Adding a game
means writing its kernel module and ``Game`` subclass and listing the class in ``_FAMILIES``.
"""

from __future__ import annotations

from typing import Any

from board_arena.engines.dominoes import Dominoes
from board_arena.engines.game import Game, VariantError, shown
from board_arena.engines.konane import Konane
from board_arena.engines.mancala import Mancala
from board_arena.engines.morabaraba import Morabaraba

__all__ = ["make", "available_games", "game_class"]

_FAMILIES: tuple[type[Game], ...] = (Mancala, Morabaraba, Konane, Dominoes)

_PRESETS: dict[str, type[Game]] = {
    preset: family for family in _FAMILIES for preset in family.PRESETS
}


def available_games() -> list[str]:
    """The names :func:`make` accepts, one per preset, in family order."""
    return list(_PRESETS)


def game_class(name: str) -> type[Game]:
    """The ``Game`` subclass behind a preset name (its ``PARAMS`` describe the parameters)."""
    try:
        return _PRESETS[name]
    except KeyError:
        raise VariantError(f"unknown game {shown(name)}; available: {', '.join(_PRESETS)}") from None


def make(name: str, **params: Any) -> Game:
    """The game ``name`` (a preset) with variant parameters changed by ``params``.

    Raises:
        VariantError: unknown game, unknown parameter or a value out of range (a ValueError).

    Example:
        >>> from board_arena import engines
        >>> game = engines.make("kalah", pits=4, seeds=3)
        >>> game.params["pits"], game.params["capture"]
        (4, 'kalah')
    """
    return game_class(name)(name, **params)
