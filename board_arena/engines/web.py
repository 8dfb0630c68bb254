"""The browser's board (``arena serve``): the game's drawing, and moves as clicks on it.

A move is made on the page by clicking elements of the game's drawing in turn (a pit; a cow then
a point; a tile then an end of the line); each element carries a name, and a :class:`WebBoard`
translates between moves and those names, says what to do after some clicks and what to mark
after a move, so that the page keeps no rule of its own. Moves travel in the game's notation.

Each game may provide a subclass in its own folder (``mancala/web.py``, beside its drawing
``web.js``) and name it in ``Game.web_class``; the game object holds one as ``game.web``. The
default fits a game without a drawing: the page shows the text rendering and a button per legal
move, one click named as the move is written.

    >>> from board_arena import engines
    >>> game = engines.make("kalah")
    >>> game.web.move_clicks(game.new_initial_state(), 2)
    ['pit-0-c']
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

if TYPE_CHECKING:
    from board_arena.engines.game import Game, State

__all__ = ["WebBoard"]


class WebBoard:
    """A game's board on the page, for one variant (``self.game``)."""

    #: The page's drawing of the game: a JavaScript file beside the module that defines the
    #: class, which calls ``registerDrawing(family, draw)`` (see ``engines/mancala/web.js``).
    #: None: the page shows the text rendering and a button per legal move.
    drawing: ClassVar[str | None] = None
    #: Buttons the page shows beside the board whether or not their move is legal now, as
    #: ``(click, label)`` (Dominoes: ``("draw", "Draw a tile")``). A legal move of one click that
    #: the drawing does not show gets a button anyway.
    buttons: ClassVar[tuple[tuple[str, str], ...]] = ()

    def __init__(self, game: Game) -> None:
        self.game = game

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.game!r}>"

    @classmethod
    def drawing_file(cls) -> Path | None:
        """The file of :attr:`drawing` (None when the game has no drawing of its own).

        Raises:
            ValueError: the file named is not there.
        """
        if cls.drawing is None:
            return None
        path = Path(inspect.getfile(cls)).resolve().parent / cls.drawing
        if not path.is_file():
            raise ValueError(f"{cls.__qualname__}.drawing names {cls.drawing!r}, which is not in {path.parent}")
        return path

    def move_clicks(self, state: State, move: int) -> list[str]:
        """The names of the elements a person clicks, in order, to make ``move`` (legal in
        ``state``). Two legal moves never have the same clicks; where one move's clicks begin
        another's, the page offers to stop there.

        Default: one click, named as the move is written (the buttons of a game without a
        drawing).
        """
        return [self.game.notation.format_move(state, move)]

    def move_from_clicks(self, state: State, clicks: Sequence[str]) -> str:
        """The notation that ``clicks`` spell in ``state``: the inverse of :meth:`move_clicks`
        for legal moves; for other clicks a move the engine then refuses with its reason.

        Raises:
            ValueError: the clicks spell no move at all (the message says what to click).
        """
        if len(clicks) != 1:
            raise ValueError("click one move")
        return clicks[0]

    def click_prompt(self, state: State, clicks: Sequence[str]) -> str | None:
        """What the page tells a person who has clicked ``clicks`` (the start of one or more
        legal moves' clicks), or None for nothing in particular (Morabaraba: a mill, shoot)."""
        return None

    def highlights(self, state: State) -> list[list[str]]:
        """Groups of element names that the page marks after the last move (Morabaraba: the
        points of each mill it formed); default none."""
        return []

    def layout(self) -> dict[str, Any]:
        """What a drawing of this variant needs beyond :meth:`State.board`, as plain data that
        never changes during a game (Morabaraba: the lines between its points); default none."""
        return {}
