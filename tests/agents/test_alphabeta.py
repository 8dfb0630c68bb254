"""Alpha-beta's principal variation search: the null windows and their re-searches change the
work, never the value, at depths where many children are scouted and many fail high (the root's
scout and the tie-break: tests/agents/test_agents.py,
test_alphabeta_breaks_ties_by_the_seed_alone)."""

import numpy as np
import pytest

from board_arena import engines
from board_arena.agents.alphabeta import HISTORY_SIZE, alphabeta_search, new_table
from board_arena.kernels import rng_from_seed
from tests.support.search import minimax_score


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


def test_database_results_are_ordered_by_their_final_margin(tmp_path, monkeypatch):
    """Kalah(3,2) (12 seeds) lies wholly in the 12-seed database: at depth 1 every child's exact
    margin is known. A won or lost root then plays a move that keeps the best margin under
    perfect play (the solver's), whatever the seed: a lost side the smallest loss, not a losing
    move drawn at random."""
    from board_arena import agents
    from board_arena.agents.solver import solve

    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    game = engines.make("kalah", pits=3, seeds=2, empty_capture=True)
    decided = 0
    for state in early_positions(game, 30, seed=7, plies=8):
        children = []
        for move in state.legal_moves():
            child = state.copy()
            child.apply(int(move))
            children.append((int(move), child))
        if any(child.is_terminal() for _, child in children):
            continue  # a game's end outranks any database result, as a proven distance does
        best = solve(state, table_mb=1).margin
        sign = 1 if state.current_player == 0 else -1
        margins = {move: sign * solve(child, table_mb=1).margin for move, child in children}
        if best == 0 or len(set(margins.values())) == 1:
            continue
        decided += 1
        for seed in range(3):
            agent = agents.make_agent("alphabeta:depth=1,endgame=12", seed=seed)
            assert margins[agent.select_move(state)] == sign * best, state.record().moves
    assert decided >= 5
