"""How searches score positions, shared so that minimax and alpha-beta agree to the last bit.

A score is from one player's point of view: a win reached ``ply`` moves below the root scores
``WIN_SCORE - ply`` (sooner is better, a loss later is less bad), a draw 0, and a position at the
search horizon its heuristic, which the contract keeps strictly inside (-1, 1), far below any
proven result.
"""

import numpy as np

from board_arena.engines import contract
from board_arena.kernels import kernel

WIN_SCORE = 1_000_000.0
MAX_PLY = 10_000
#: Scores at least this large (in absolute value) are proven wins or losses.
PROVEN_SCORE = WIN_SCORE - MAX_PLY
INFINITY = np.inf


@kernel(inline="always")
def terminal_score(s: np.void, player: int, ply: int) -> float:
    """Score of the terminal state ``s``, ``ply`` moves below the root, for ``player``."""
    # One type for the player (searches pass an int8 from a record or an int64): value_for is
    # then compiled once per game, not once per integer type.
    value = contract.value_for(s, np.int64(player))
    if value > 0:
        return WIN_SCORE - ply
    if value < 0:
        return -(WIN_SCORE - ply)
    return 0.0


@kernel(inline="always")
def horizon_score(s: np.void, player: int) -> float:
    """The heuristic of the non-terminal ``s`` for ``player``."""
    h = contract.heuristic(s)
    return h if player == 0 else -h


@kernel(inline="always")
def to_value(score: float) -> float:
    """A search score as a value in [-1, 1] (1: proven win, -1: proven loss)."""
    if score >= PROVEN_SCORE:
        return 1.0
    if score <= -PROVEN_SCORE:
        return -1.0
    return score


def is_proven(score: float) -> bool:
    return abs(score) >= PROVEN_SCORE
