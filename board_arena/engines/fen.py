"""Position strings (``fen``, after chess's Forsyth-Edwards Notation): a position of a
perfect-information game as one line of text, and back.

``state.fen()`` writes it and ``game.from_fen(text)`` reads it; the game's notation does the work
(``Notation.fen`` and ``Notation.parse_fen``, each game's own code in its folder's ``fen.py``).
A position string holds everything of a position that the variant does not fix: the board,
who moves, and every counter a rule reads, so that ``game.from_fen(state.fen()) == state``.
It is one line of printable ASCII without ``moves`` among its words, so that UGI's
``position fen F moves M1 M2 ...`` carries it (:mod:`board_arena.ugi`). The variant itself is not
in it: the engine or the program reading it knows the game it plays.

    >>> from board_arena import engines
    >>> game = engines.make("kalah", pits=3, seeds=2)
    >>> state = game.new_initial_state().play("a")
    >>> state.fen()
    '0,3,3/2,2,2 0 0 N'
    >>> game.from_fen(state.fen()) == state
    True
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from board_arena.engines.errors import shown

if TYPE_CHECKING:
    from board_arena.engines.game import Game

__all__ = ["PositionError", "fen_fields", "counter"]

#: What a position string is made of: printable ASCII words separated by single spaces.
_WORD = re.compile(r"[!-~]+")


class PositionError(ValueError):
    """A position string that is malformed or describes a position the variant cannot reach (the
    message says what is wrong and the expected form)."""

    __module__ = "board_arena.engines"


def refuse(game: Game, text: str, what: str, form: str) -> PositionError:
    """The one-line error for ``text``: what is wrong, and the form a position string of
    ``game`` takes."""
    return PositionError(f"bad {game.name} position string {shown(text)}: {what}; expected {form}")


def fen_fields(game: Game, text: str, count: int, form: str) -> list[str]:
    """The ``count`` space-separated fields of ``text``, or :class:`PositionError`."""
    if not isinstance(text, str):
        raise PositionError(f"a {game.name} position string is text, not {shown(text)}; expected {form}")
    words = text.split()
    if any(not _WORD.fullmatch(word) for word in words):
        raise refuse(game, text, "it holds characters other than printable ASCII", form)
    if len(words) != count:
        raise refuse(game, text, f"{len(words)} fields instead of {count}", form)
    return words


def counter(game: Game, text: str, field: str, name: str, form: str, low: int = 0, high: int = 10000) -> int:
    """The integer ``field`` of ``text`` (a counter named ``name``) in ``[low, high]``, or
    :class:`PositionError`."""
    if not field.isdigit() or len(field) > 6 or not low <= int(field) <= high:
        raise refuse(game, text, f"{name} {shown(field)} is not an integer from {low} to {high}", form)
    return int(field)
