"""Konane's position string: ``ROWS MOVER``.

``ROWS`` is the board's rows from the top to the bottom, separated by ``/``, each point from left
to right as ``B`` (black), ``W`` (white) or ``.``, as ``render`` draws them; then the player to
move, ``b`` or ``w``. Nothing else is needed: each side's captures are the stones missing from
the other colour less the one the opening removed, and the opening's progress shows on the
board (the classic opening: a full board is black's removal to come, one black stone missing
white's). The start of the classic 6x6 game is ``BWBWBW/WBWBWB/BWBWBW/WBWBWB/BWBWBW/WBWBWB b``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from board_arena.engines.fen import fen_fields, refuse
from board_arena.engines.konane import kernels

if TYPE_CHECKING:
    from board_arena.engines.game import Game, State

__all__ = ["write_fen", "read_fen", "FORM"]

FORM = "ROWS MOVER, e.g. BWBWBW/WBWBWB/BWBWBW/WBWBWB/BWBWBW/WBWBWB b (rows from the top of B, W or ., mover b or w)"
_MOVERS = "bw"


def write_fen(state: State) -> str:
    s = state.data
    size = int(s["size"])
    stones = [int(s["stones"][p]) for p in (0, 1)]

    def sign(sq: int) -> str:
        return "B" if stones[0] >> sq & 1 else "W" if stones[1] >> sq & 1 else "."

    rows = ["".join(sign(8 * row + col) for col in range(size)) for row in reversed(range(size))]
    return f"{'/'.join(rows)} {_MOVERS[int(s['to_move'])]}"


def _full_rows(size: int) -> str:
    black = int(kernels.BB_BLACK_SQUARES[size])
    return "/".join("".join("B" if black >> (8 * row + col) & 1 else "W" for col in range(size)) for row in reversed(range(size)))


def read_fen(game: Game, text: str) -> State:
    from board_arena.engines.game import State

    size = game.params["size"]
    form = FORM.replace("BWBWBW/WBWBWB/BWBWBW/WBWBWB/BWBWBW/WBWBWB", _full_rows(size))
    rows_field, mover = fen_fields(game, text, 2, form)
    rows = rows_field.split("/")
    if len(rows) != size or any(len(row) != size for row in rows):
        raise refuse(game, text, f"the board is {size} rows of {size} points, separated by /", form)
    black_squares = int(kernels.BB_BLACK_SQUARES[size])
    stones = [0, 0]
    for i, row in enumerate(rows):
        for col, sign in enumerate(row):
            if sign == ".":
                continue
            if sign not in "BW":
                raise refuse(game, text, f"{sign!r} is not a point: write B, W or .", form)
            sq = 8 * (size - 1 - i) + col
            colour = "BW".index(sign)
            if bool(black_squares >> sq & 1) != (colour == 0):
                raise refuse(game, text, f"row {i + 1} from the top, point {col + 1}: a {sign} stone on the other colour's point", form)
            stones[colour] |= 1 << sq
    if mover not in _MOVERS:
        raise refuse(game, text, f"the mover {mover!r} is neither b nor w", form)
    to_move = _MOVERS.index(mover)
    squares = [black_squares, int(kernels.BB_BOARD[size]) & ~black_squares]
    missing = [squares[p].bit_count() - stones[p].bit_count() for p in (0, 1)]
    classic = game.params["opening"] == "classic"
    if missing == [0, 0] or missing == [1, 0]:
        phase = kernels.PHASE_BLACK_REMOVES if missing == [0, 0] else kernels.PHASE_WHITE_REMOVES
        if not classic:
            raise refuse(game, text, "the opening removed one stone of each colour: neither colour can be complete", form)
        if to_move != phase:
            raise refuse(game, text, f"in the classic opening {'black' if phase == 0 else 'white'} removes the next stone", form)
        if phase == kernels.PHASE_WHITE_REMOVES and not (squares[0] & ~stones[0]) & int(kernels.BB_OPENING[size]):
            raise refuse(game, text, "black's first removal is a corner or centre stone", form)
    elif min(missing) < 1:
        raise refuse(game, text, "a stone of each colour is gone after the opening, yet one colour is complete", form)
    else:
        phase = kernels.PHASE_PLAY
    buf = np.zeros(1, kernels.STATE_DTYPE)
    record = buf[0]
    game._init_record(record, 0)
    record["stones"][:] = stones
    # Black captures white stones: all that are gone but the one the opening removed.
    record["captures"][:] = (max(0, missing[1] - 1), max(0, missing[0] - 1)) if phase == kernels.PHASE_PLAY else (0, 0)
    record["to_move"] = to_move
    record["phase"] = phase
    record["terminal"] = 0
    if phase == kernels.PHASE_PLAY:
        kernels.settle(record)
    return State(game, buf, None, custom_start=True)
