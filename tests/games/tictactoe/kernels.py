"""Tic-tac-toe kernels: three in a row on a 3x3 board.

Rules: the players mark empty cells in turn, X (player 0) first; three of one's marks on a row,
a column or a diagonal win; a full board without a line is a draw.

State layout: one byte per cell, cell ``3 * row + col`` with rows from the bottom as the
notation names them (``a1`` is cell 0)::

    row 3    6 7 8        a3 b3 c3
    row 2    3 4 5        a2 b2 c2
    row 1    0 1 2        a1 b1 c1

A move is the cell it marks (``MOVE_BOUND = 9``).
"""

from __future__ import annotations

import numpy as np

from board_arena.engines.contract import (
    FIRST_GAME_REASON,
    LEGAL,
    REASON_GAME_OVER,
    REASON_NOT_A_MOVE,
    state_dtype,
)
from board_arena.kernels import kernel, mix64

CELLS = 9
MAX_MOVES = CELLS
MOVE_BOUND = CELLS

EMPTY = -1  # a cell's value when no player has marked it (else the player, 0 or 1)

STATE_DTYPE = state_dtype(
    [
        ("cells", np.int8, (CELLS,)),  # EMPTY, 0 (X) or 1 (O); layout above
        ("to_move", np.int8),  # 0 X, 1 O
        ("winner", np.int8),  # 0 or 1, -1 for a draw or while the game goes on
        ("terminal", np.int8),  # 1 once a line is made or the board is full
    ]
)

# The eight lines, cell by cell.
LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
    dtype=np.int64,
)

# ``illegal_reason`` codes of this game.
REASON_OCCUPIED = FIRST_GAME_REASON  # the cell is marked already

OBSERVATION_PLANES = 2


@kernel
def init_state(s):
    """The start position: an empty board, X to move."""
    for c in range(CELLS):
        s["cells"][c] = EMPTY
    s["to_move"] = 0
    s["winner"] = -1
    s["terminal"] = 0


@kernel(inline="always")
def legal_moves(s, out):
    """The empty cells, in cell order. out: int64[>=MAX_MOVES]; returns the count."""
    if s["terminal"]:
        return 0
    n = 0
    for c in range(CELLS):
        if s["cells"][c] == EMPTY:
            out[n] = c
            n += 1
    return n


@kernel(inline="always")
def illegal_reason(s, move):
    """``LEGAL``, a code of ``engines.contract`` or ``REASON_OCCUPIED``."""
    if s["terminal"]:
        return REASON_GAME_OVER
    if move < 0 or move >= MOVE_BOUND:
        return REASON_NOT_A_MOVE
    if s["cells"][move] != EMPTY:
        return REASON_OCCUPIED
    return LEGAL


@kernel(inline="always")
def completes_line(s, cell, player):
    """Whether ``player``'s marks make a line through ``cell``."""
    for k in range(LINES.shape[0]):
        a, b, c = LINES[k, 0], LINES[k, 1], LINES[k, 2]
        if (a == cell or b == cell or c == cell) and s["cells"][a] == player and s["cells"][b] == player and s["cells"][c] == player:
            return True
    return False


@kernel(inline="always")
def apply_move(s, move):
    """Marks the cell ``move`` for the player to move (legal, unchecked)."""
    me = s["to_move"]
    s["cells"][move] = me
    s["to_move"] = 1 - me
    if completes_line(s, move, me):
        s["winner"] = me
        s["terminal"] = 1
        return
    for c in range(CELLS):
        if s["cells"][c] == EMPTY:
            return
    s["terminal"] = 1


@kernel(inline="always")
def is_terminal(s):
    return s["terminal"] != 0


@kernel(inline="always")
def current_player(s):
    return np.int64(s["to_move"])


@kernel(inline="always")
def outcome(s):
    if s["winner"] == 0:
        return 1.0
    if s["winner"] == 1:
        return -1.0
    return 0.0


@kernel(inline="always")
def score(s):
    """X's margin: 1 for a win, -1 for a loss, 0 otherwise."""
    return np.int64(outcome(s))


@kernel(inline="always")
def heuristic(s):
    """X's prospects in (-1, 1): lines still open to X (no O in them) minus those open to O,
    weighted by the marks already in them, squashed by v / (|v| + 4)."""
    v = 0.0
    for k in range(LINES.shape[0]):
        xs = 0
        os = 0
        for j in range(3):
            cell = s["cells"][LINES[k, j]]
            if cell == 0:
                xs += 1
            elif cell == 1:
                os += 1
        if os == 0:
            v += xs
        if xs == 0:
            v -= os
    return v / (abs(v) + 4.0)


@kernel(inline="always")
def state_hash(s):
    h = np.uint64(0x9E37_79B9_7F4A_7C15)
    for c in range(CELLS):
        h = mix64(h ^ np.uint64(s["cells"][c] + 2) ^ (np.uint64(c) << np.uint64(8)))
    return mix64(h ^ (np.uint64(s["to_move"]) << np.uint64(16)))


@kernel(inline="always")
def write_observation(s, player, out):
    """``player``'s view as ``out: float32[2 * 9]`` (shape ``(2, 3, 3)`` flattened, rows from the
    top as drawn): plane 0 the player's marks, plane 1 the opponent's."""
    for i in range(3):
        row = 2 - i
        for col in range(3):
            cell = s["cells"][3 * row + col]
            out[3 * i + col] = np.float32(1.0) if cell == player else np.float32(0.0)
            out[CELLS + 3 * i + col] = np.float32(1.0) if cell == 1 - player else np.float32(0.0)


@kernel(inline="always")
def redraw_start(s, rng, code):
    """Draws the random parts of a start position copied into ``s``: tic-tac-toe has none."""
    return None
