"""Tic-tac-toe: a game written outside the package, as docs/extending/games.md says, to show
that a new game needs its own folder and one registration, nothing else.

=============  ===================================================================================
Rules          a 3x3 board; X (player 0) and O (player 1) mark empty cells in turn, X first;
               three of one's marks on a row, a column or a diagonal win; a full board without
               one is a draw.
Moves          the cell marked, id ``3 * row + col`` (rows from the bottom); written ``a1``..``c3``
               (column, then row).
Actions        the 9 cells. Observation ``(2, 3, 3)`` float32: see ``kernels.write_observation``.
Returns        1 / 0 / -1; ``score`` is the same for X.
Presets        ``tictactoe``; no parameters.
=============  ===================================================================================

Load it with ``--plugin tests/games/tictactoe`` (``arena run``, ``play``, ``serve``, ``list``)
or by importing this package.

    >>> from board_arena import engines
    >>> state = engines.make("tictactoe").new_initial_state()
    >>> state.play("b2", "a1", "c3", "a3", "a2", "c2", "b1", "b3", "c1").end_reason
    'a full board'
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from board_arena.engines import Encoding, Game, Notation, State, register_game

from . import kernels

_FILES = "abc"
_SIGNS = {kernels.EMPTY: ".", 0: "X", 1: "O"}


def board_rows(state: State) -> list[str]:
    """The board, top row first: ``X``, ``O`` or ``.`` per cell."""
    cells = state.data["cells"]
    return ["".join(_SIGNS[int(cells[3 * row + col])] for col in range(3)) for row in (2, 1, 0)]


class TicTacToeNotation(Notation):
    """Cells written as a column a-c and a row 1-3, and the board drawn in letters."""

    HELP = """\
Players mark empty cells in turn, X first; three of your marks on a row, a column or a diagonal
win, and a full board without one is a draw. Write a move as the cell: a column a-c and a row
1-3 (row 1 at the bottom), e.g. b2."""
    MOVE_IDS = "a cell, 3 * row + col with rows from the bottom (0 to 8)"

    def format_move(self, state: State, move: int) -> str:
        row, col = divmod(move, 3)
        return f"{_FILES[col]}{row + 1}"

    def parse_move(self, state: State, text: str) -> int:
        word = text.strip().lower()
        if len(word) != 2 or word[0] not in _FILES or word[1] not in "123":
            raise ValueError(f"{text.strip()!r} is not a cell: write a column a-c and a row 1-3, e.g. b2")
        return 3 * (int(word[1]) - 1) + _FILES.index(word[0])

    def render(self, state: State, *, color: bool = False, unicode: bool = False) -> str:
        lines = [f"{3 - i}  {' '.join(row)}" for i, row in enumerate(board_rows(state))]
        return "\n".join(lines + ["   a b c", self.game.status_line(state)])


class TicTacToeEncoding(Encoding):
    """An action per cell; the observation is the observer's marks, then the opponent's."""

    def action_moves(self) -> np.ndarray:
        return np.arange(kernels.CELLS, dtype=np.int64)  # action = cell

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(2, 3, 3)``: the observer's marks, then the opponent's (``kernels.write_observation``)."""
        return (kernels.OBSERVATION_PLANES, 3, 3)


@register_game
class TicTacToe(Game):
    family = "tictactoe"
    summary = "three in a row on a 3x3 board (a test of adding a game from outside the package)"
    kernels: ClassVar[ModuleType] = kernels
    player_names = ("X", "O")
    PARAMS = ()
    PRESETS = {"tictactoe": {}}
    notation_class = TicTacToeNotation
    encoding_class = TicTacToeEncoding  # the page needs nothing of its own: the default web board

    def _init_record(self, record: Any, seed: int | None) -> None:
        kernels.init_state(record)

    def _reason_words(self, state: State, move: int, code: int) -> str:
        assert code == kernels.REASON_OCCUPIED, code
        holder = self.player_names[int(state.data["cells"][move])]
        return f"{self.notation.format_move(state, move)} is marked already ({holder}): mark an empty cell"

    def _board(self, state: State) -> dict[str, Any]:
        return {"rows": board_rows(state)}

    def end_reason(self, state: State) -> str | None:
        if not state.is_terminal():
            return None
        return "a full board" if state.data["winner"] < 0 else "three in a row"
