"""PettingZoo's api_test and Gymnasium's environment checker pass for every game."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import board_arena.envs.gymnasium_env  # noqa: F401  (registers the ids)
from board_arena import engines
from board_arena.envs import IllegalActionError
from board_arena.envs.pettingzoo_env import env as aec_env


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("name", engines.available_games())
def test_pettingzoo_api_test_passes(name):
    api_test(aec_env(name), num_cycles=60)


@pytest.mark.parametrize("name", engines.available_games())
def test_gymnasium_env_checker_passes(name):
    env = gym.make(f"board-arena/{name}-v0", opponent="random")
    check_env(env.unwrapped, skip_render_check=True)


def test_aec_plays_a_whole_game_with_an_extra_turn_and_the_outcome_as_rewards():
    e = aec_env("kalah")
    e.reset(seed=1)
    e.step(2)  # pit c ends in South's store
    assert e.agent_selection == "player_0"
    rng = np.random.default_rng(0)
    total = {"player_0": 0.0, "player_1": 0.0}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = e.unwrapped.state_
    assert (total["player_0"], total["player_1"]) == state.returns()
    with pytest.raises(IllegalActionError):
        e.reset(seed=2)
        e.step(99)


def test_gymnasium_env_against_mcts_is_seeded_and_refuses_bad_settings():
    env = gym.make("board-arena/kalah-v0", opponent="mcts:iterations=20", seat=1)
    first, info = env.reset(seed=5)
    again, _ = env.reset(seed=5)
    assert np.array_equal(first, again) and info["action_mask"].any()
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    assert reward in (-1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="seat must be 0 or 1"):
        gym.make("board-arena/kalah-v0", seat=2)
    with pytest.raises(ValueError, match="searches the full state"):
        gym.make("board-arena/dominoes-v0", opponent="mcts")
    strict = gym.make("board-arena/kalah-v0", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(6)
