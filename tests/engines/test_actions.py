"""Action spaces and observation tensors beyond the presets (which tests/engines/test_conformance.py
checks): variants whose action tables differ, the layouts drawn out, and the errors."""

import numpy as np
import pytest

from board_arena import engines
from board_arena.engines.conformance import check_actions, check_observations

VARIANTS = [
    ("kalah", {"pits": 3, "seeds": 2}),
    ("morabaraba", {"flying": False}),
    ("nine-mens-morris", {"no_immediate_remill": "forbidden"}),
    ("konane", {"size": 5, "turning_jumps": True}),
    ("konane-classic", {"size": 4, "scoring": "captures"}),
    ("dominoes", {"max_pips": 3, "hand_size": 4}),
    ("dominoes-block", {"max_pips": 4}),
]


@pytest.mark.parametrize("name,params", VARIANTS)
def test_actions_are_a_bijection_on_the_legal_moves_of_random_positions(name, params):
    game = engines.make(name, **params)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            moves = state.legal_moves()
            check_actions(state, moves)
            check_observations(state)
            state.apply(moves[rng.integers(len(moves))])
        assert not state.legal_action_mask().any()


def test_action_counts_follow_the_variant():
    assert engines.make("kalah", pits=4).encoding.num_actions == 4
    # 24 placements x 24 shots (or none) + 24 x 23 flights x 23 shots.
    assert engines.make("morabaraba").encoding.num_actions == 24 * 24 + 24 * 23 * 23
    assert engines.make("morabaraba", flying=False).encoding.num_actions < 24 * 24 + 24 * 23 * 23
    # 6x6 straight jumps: every (start, direction, length) that stays on the board, and the pass.
    assert engines.make("konane").encoding.num_actions == 145
    assert engines.make("konane-classic").encoding.num_actions == 144 + 36  # removals, no pass
    assert engines.make("dominoes").encoding.num_actions == 2 * 28 + 2
    assert engines.make("dominoes-block").encoding.num_actions == 2 * 28 + 1


def test_turning_paths_are_actions():
    game = engines.make("konane", size=4, turning_jumps=True)
    state = game.position("""
        B W . .
        . . W .
        . . . .
        . . . .""")
    names = state.legal_move_names()
    assert "a4-c4-c2" in names  # a path that turns
    move = state.parse_move("a4-c4-c2")
    assert game.encoding.move_of(game.encoding.action_of(move)) == move
    assert state.legal_action_mask()[game.encoding.action_of(move)]


def test_kalah_observation_is_drawn_from_the_observers_side():
    game = engines.make("kalah", pits=3)
    state = game.position(south=[1, 2, 3], north=[4, 5, 6], stores=(7, 8), to_move=1)
    assert state.observation(0).tolist() == [[1, 2, 3, 7], [4, 5, 6, 8]]
    assert state.observation().tolist() == [[4, 5, 6, 8], [1, 2, 3, 7]]  # North to move


def test_konane_observation_planes():
    game = engines.make("konane", size=4)
    state = game.position("""
        B W . .
        . . . .
        . . . .
        . . W .""", to_move="white", captures=(2, 0))
    obs = state.observation()  # White's
    assert obs.shape == (6, 4, 4)
    assert obs[0, 0, 1] == 1 and obs[0, 3, 2] == 1 and obs[0].sum() == 2  # own stones, top row first
    assert obs[1, 0, 0] == 1 and obs[1].sum() == 1
    assert obs[2].sum() == 16 - 3
    assert obs[3].sum() == 0  # White is not Black
    assert obs[5, 0, 0] == pytest.approx(-2 / 16)


def test_dominoes_observation_hides_the_other_hand():
    game = engines.make("dominoes")
    state = game.new_initial_state(seed=3)
    n = game.n_tiles
    for player in (0, 1):
        obs = state.observation(player)
        hand = state.board()["hands"][player]
        assert obs[:n].sum() == len(hand) == obs[4 * n]
        mine = np.zeros(n)
        for t in range(n):
            mine[t] = (int(state.data["hands"][player]) >> t) & 1
        assert np.array_equal(obs[:n], mine)


def test_bad_actions_and_players_are_refused():
    game = engines.make("kalah")
    with pytest.raises(ValueError, match="action must be an integer from 0 to 5"):
        game.encoding.move_of(6)
    with pytest.raises(ValueError, match="is no move of kalah"):
        game.encoding.action_of(7)
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        state.observation(2)
    dominoes = engines.make("dominoes").new_initial_state(seed=1)
    with pytest.raises(ValueError, match="view"):
        dominoes.view(0).observation(1)
