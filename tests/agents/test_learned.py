"""The learned Kalah player (experiments/learn_kalah.py) and the afterstates that feed it."""

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.engines.mancala.learned import feature_count, kalah_features
from board_arena.envs import BatchedEnv


def test_afterstates_are_the_engines_children_seen_by_the_mover():
    env = BatchedEnv("kalah", num_envs=3, seed=2)
    for _ in range(5):
        env.step_random()
    obs, again, terminal, value = env.afterstates()
    game = env.game
    for i in range(env.num_envs):
        state = env.state(i)
        me = state.current_player
        for a in range(env.num_actions):
            if not env.mask[i, a]:
                assert not obs[i, a].any()
                continue
            child = state.copy()
            child.apply(game.encoding.move_of(a))
            assert np.array_equal(obs[i, a], child.observation(me))
            assert terminal[i, a] == child.is_terminal()
            assert again[i, a] == (not child.is_terminal() and child.current_player == me)


def test_features_have_the_documented_size():
    state = engines.make("kalah").new_initial_state()
    f = kalah_features(state.observation(), np.array(False))
    assert f.shape == (feature_count(6),) and f[-1] == 1.0
    assert f[: 12 * 13].sum() == 12  # one count feature per pit


def test_the_bundled_td_player_beats_greedy():
    game = engines.make("kalah")
    score = 0.0
    games = 30
    for g in range(games):
        seat = g % 2
        td = agents.make_agent("td-kalah", seed=g)
        greedy = agents.make_agent("greedy", seed=100 + g)
        final = agents.play_game(game, [td, greedy] if seat == 0 else [greedy, td], seed=g)
        score += (final.returns()[seat] + 1) / 2
    assert score / games > 0.55


def test_td_player_refuses_what_it_did_not_learn():
    td = agents.make_agent("td-kalah", seed=0)
    with pytest.raises(ValueError, match="td-kalah plays the Mancala variant"):
        td.check_game(engines.make("kalah", pits=4))
    with pytest.raises(ValueError, match="td-kalah plays the Mancala variant"):
        td.check_game(engines.make("dominoes"))
    with pytest.raises(ValueError, match="cannot read TD weights"):
        agents.make_agent("td-kalah:weights=/nonexistent.json")
