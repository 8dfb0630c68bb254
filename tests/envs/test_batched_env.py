"""The batched environment agrees with the single-game engine move by move, for every game."""

import numpy as np
import pytest

from board_arena import engines
from board_arena.envs import BatchedEnv, IllegalActionError


@pytest.mark.parametrize("name", engines.available_games())
def test_batched_env_agrees_with_the_engine_move_by_move(name):
    env = BatchedEnv(name, num_envs=3, seed=7)
    game = env.game
    obs, mask = env.reset()
    finished = 0
    for step in range(150):
        before = [env.state(i) for i in range(env.num_envs)]
        for i, state in enumerate(before):
            assert np.array_equal(mask[i], state.legal_action_mask())
            assert np.array_equal(obs[i], state.observation())
            assert env.to_play[i] == state.current_player
        actions = env.random_actions()
        obs, mask, rewards, dones = env.step(actions)
        for i, state in enumerate(before):
            state.apply(game.encoding.move_of(int(actions[i])))
            if state.is_terminal():
                finished += 1
                assert dones[i]
                assert tuple(rewards[i]) == state.returns()
                assert env.state(i).ply == 0 and not env.state(i).is_terminal()
            else:
                assert not dones[i] and not rewards[i].any()
                assert env.state(i) == state, f"game {i} differs from the engine after step {step}"
    if name in ("kalah", "mancala", "konane", "dominoes", "dominoes-block"):
        assert finished > 0  # short games: the restart was exercised


def test_same_seed_same_games_and_new_deals_after_the_end():
    a = BatchedEnv("dominoes", num_envs=4, seed=3)
    b = BatchedEnv("dominoes", num_envs=4, seed=3)
    starts = set()
    for _ in range(200):
        ra = a.step_random()
        rb = b.step_random()
        for x, y in zip(ra, rb):
            assert np.array_equal(x, y)
        starts.update(a.states[i]["hands"].tobytes() for i in range(4) if a.dones[i])
    assert len(starts) > 3  # every restart is a new deal
    other = BatchedEnv("dominoes", num_envs=4, seed=4)
    assert a.reset()[0].tobytes() != other.reset()[0].tobytes()


def test_an_illegal_action_is_refused_and_changes_nothing():
    env = BatchedEnv("kalah", num_envs=2, seed=0)
    before = env.states.tobytes()
    with pytest.raises(IllegalActionError, match="game 1: action 9 is not legal"):
        env.step(np.array([0, 9]))
    assert env.states.tobytes() == before
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        env.step([0])
    with pytest.raises(ValueError, match="num_envs must be an integer of at least 1"):
        BatchedEnv("kalah", num_envs=0)
