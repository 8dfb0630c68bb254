"""Search results to compare the agents against."""

import numpy as np

from board_arena.agents.minimax import minimax_search
from board_arena.kernels import rng_from_seed


def minimax_score(state, depth):
    """The plain minimax value of ``state`` searched ``depth`` plies deep, for the player to move."""
    return minimax_search(state.data, depth, rng_from_seed(0), np.zeros(1, np.int64))[1]
