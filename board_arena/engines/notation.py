"""How a game is written for people: its moves as text both ways, its position drawn for a
terminal (whole, or as one player sees it) and its rules in a few lines.

Each game provides a subclass of :class:`Notation` in its own folder (``mancala/notation.py``)
and names it in ``Game.notation_class``; the game object holds one as ``game.notation``. The
states' conveniences (``state.apply("c")``, ``state.legal_move_names()``, ``print(state)``) go
through it.

    >>> from board_arena import engines
    >>> game = engines.make("kalah")
    >>> state = game.new_initial_state()
    >>> game.notation.format_move(state, 2), game.notation.parse_move(state, "c")
    ('c', 2)
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, ClassVar

from board_arena.engines.fen import PositionError
from board_arena.engines.style import PLAYER_COLORS, Style

if TYPE_CHECKING:
    from board_arena.engines.game import Game, State

__all__ = ["Notation", "wrap_paragraphs"]


def wrap_paragraphs(text: str, width: int = 96) -> str:
    """Text re-wrapped to ``width`` columns, paragraph by paragraph (blank-line separated)."""
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(textwrap.fill(p, width) for p in paragraphs if p)


class Notation:
    """A game's moves as text and its position as a drawing, for one variant (``self.game``).

    A subclass implements :data:`REQUIRED`; :meth:`render_for`, :meth:`help_text` and the class
    attributes have defaults.
    """

    #: The methods a game's notation must implement.
    REQUIRED: ClassVar[tuple[str, ...]] = ("format_move", "parse_move", "render")

    #: The rules in a few lines and how to write a move, for a person at the terminal.
    HELP: ClassVar[str] = ""
    #: How the game numbers its moves (the words for a move id outside the game's encoding).
    MOVE_IDS: ClassVar[str] = "see the game's kernel module"
    #: The colours the players are drawn in (:mod:`engines.style`): the pieces' own colours where
    #: they have them (Black and White), else red and blue.
    player_colors: ClassVar[tuple[str, str]] = PLAYER_COLORS

    def __init__(self, game: Game) -> None:
        self.game = game

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.game!r}>"

    def format_move(self, state: State, move: int) -> str:
        """The notation of ``move`` (legal in ``state``)."""
        raise NotImplementedError

    def parse_move(self, state: State, text: str) -> int:
        """The move written ``text`` in ``state``.

        Raises:
            ValueError: the text names no move (the message says why and how to write one).
        """
        raise NotImplementedError

    def render(self, state: State, *, color: bool = False, unicode: bool = False) -> str:
        """A drawing of the position for a terminal, coordinates included. Games add keyword
        options of their own (Mancala: ``bottom``, the player whose row is drawn below)."""
        raise NotImplementedError

    def fen(self, state: State) -> str:
        """The position string of ``state`` (:mod:`engines.fen`): one line that
        :meth:`parse_fen` reads back to an equal state.

        Raises:
            PositionError: the game has no position string (hidden information, or none written).
        """
        raise PositionError(f"{self.game.name} has no position string")

    def parse_fen(self, text: str) -> State:
        """The position that ``text`` (written by :meth:`fen`) describes, as a set-up state.

        Raises:
            PositionError: ``text`` is malformed or describes a position this variant cannot
                reach (one line: what is wrong and the expected form).
        """
        raise PositionError(f"{self.game.name} has no position string")

    def render_for(self, state: State, player: int, style: Style) -> str:
        """The board as ``player`` sees it at a terminal drawn in ``style``: from their side, with
        only what they may see (the games that need it override this)."""
        return self.render(state, color=style.color, unicode=style.unicode)

    def help_text(self) -> str:
        """The rules in a few lines and how to write a move (:attr:`HELP`, for this variant)."""
        return wrap_paragraphs(self.HELP)
