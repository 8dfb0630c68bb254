"""The errors of the game engines, and the helper that keeps their messages short.

They live apart from :mod:`engines.game` so that the lowest modules (the registry) can raise them
without importing the Python face of the games.
"""

from __future__ import annotations

from typing import Any

__all__ = ["IllegalMoveError", "VariantError", "shown"]


class IllegalMoveError(ValueError):
    """A move that is not legal in the position (the message says which rule it breaks)."""

    __module__ = "board_arena.engines"  # where users import it from (tracebacks name it so)


class VariantError(ValueError):
    """An unknown game, an unknown variant parameter or a value out of its range."""

    __module__ = "board_arena.engines"


def shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` as an error message echoes what a user typed: at most a short prefix, so
    that an absurd argument gives a short message."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
