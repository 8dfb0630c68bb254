"""Alpha-beta's principal variation search: the null windows and their re-searches change the
work, never the value, at depths where many children are scouted and many fail high (the root's
scout and the tie-break: tests/test_agents.py, test_alphabeta_breaks_ties_by_the_seed_alone)."""

import numpy as np
import pytest

from board_arena import engines
from board_arena.agents.alphabeta import HISTORY_SIZE, alphabeta_search, new_table
from board_arena.engines._jit import rng_from_seed
from tests.test_agents import minimax_score


def early_positions(game, count, seed, plies=16):
    """Positions after up to ``plies`` random moves from the start: wide trees, where the first
    child is often not the best and a scout fails high (without the re-search, a fifth of these
    Kalah searches return a wrong score)."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state(0)
        for _ in range(int(rng.integers(0, plies))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_moves())))
        if not state.is_terminal():
            positions.append(state)
    return positions


@pytest.mark.parametrize("name, depths", [("kalah", (4, 5, 6, 7)), ("nine-mens-morris", (3, 4))])
@pytest.mark.parametrize("table_mb", [1, 0.001])  # roomy, and so small that the scouts' bounds keep evicting
def test_principal_variation_search_returns_the_minimax_score(name, depths, table_mb):
    game = engines.make(name)
    for state in early_positions(game, 10, seed=3):
        table, history = new_table(table_mb), np.zeros(HISTORY_SIZE, np.int64)  # kept across the depths
        for depth in depths:
            result = np.zeros(4)
            alphabeta_search(state.data, depth, 2**62, 0, table, history, rng_from_seed(0), result)
            assert result[0] == minimax_score(state, depth), f"{name} depth {depth} at {state.record().moves}"
