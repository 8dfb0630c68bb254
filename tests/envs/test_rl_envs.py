"""PettingZoo's api_test and Gymnasium's environment checker pass for every game; the environments
follow the specs strictly: a step after the end, what the action space contains and what it does not."""

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import board_arena.envs.gymnasium_env  # noqa: F401  (registers the ids)
from board_arena import engines
from board_arena.envs import BatchedEnv, IllegalActionError, NotAnActionError
from board_arena.envs.gymnasium_env import ResetNeededError
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


# -- the specs, strictly: a step after the end, what the action space contains -----------------

#: Values the action space Discrete(6) contains: the action 2 written every way a caller may.
ACTIONS = [2, np.int64(2), np.int32(2), np.uint8(2), np.array(2), np.array(2, np.int16)]
#: Values it does not contain: refused with one line, whatever the environment does with illegal moves.
NOT_ACTIONS = [2.7, np.float32(3.9), 2.0, "2", True, np.bool_(True), None, [2], np.array([2]), np.array(2.0), -1, 6, 2**70]


@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_every_action_the_space_contains_is_accepted(action):
    gym_env = gym.make("board-arena/kalah-v0", opponent="random")
    gym_env.reset(seed=0)
    assert gym_env.action_space.contains(action)
    obs, _, _, _, _ = gym_env.step(action)  # pit c ends in South's store: the learner moves again
    assert obs[0, 2] == 0
    e = aec_env("kalah")
    e.reset(seed=0)
    e.step(action)
    assert e.unwrapped.state_.history == (2,)


@pytest.mark.parametrize("action", NOT_ACTIONS, ids=repr)
def test_what_the_space_does_not_contain_is_refused_with_one_line(action):
    gym_env = gym.make("board-arena/kalah-v0", opponent="random")  # illegal="lose": still refused
    gym_env.reset(seed=0)
    with pytest.raises(NotAnActionError, match="^an action is an integer from 0 to 5") as refused:
        gym_env.step(action)
    assert "\n" not in str(refused.value)
    assert gym_env.unwrapped.state.history == ()  # nothing played: the episode goes on
    gym_env.step(2)
    e = aec_env("kalah")
    e.reset(seed=0)
    with pytest.raises(NotAnActionError, match="^an action is an integer from 0 to 5"):
        e.step(action)
    assert e.unwrapped.state_.history == ()


@pytest.mark.parametrize("actions", [[2.0, 1.0], ["2", "1"], [True, False], [[2], [1]], [2]], ids=repr)
def test_the_batched_environment_refuses_actions_that_are_not_integers(actions):
    env = BatchedEnv("kalah", num_envs=2, seed=0)
    with pytest.raises(NotAnActionError, match="^actions must be 2 integers"):
        env.step(np.asarray(actions) if actions != [2] else actions)
    env.step(np.array([2, 1], np.uint8))  # any integer type


def test_a_step_after_the_end_raises_reset_needed_also_after_an_illegal_action():
    gym_env = gym.make("board-arena/kalah-v0", opponent="random")
    with pytest.raises(ResetNeeded):
        gym_env.step(0)  # before reset: Gymnasium's own wrapper
    with pytest.raises(ResetNeededError):
        gym_env.unwrapped.step(0)  # the environment itself says the same
    gym_env.reset(seed=0)
    state = gym_env.unwrapped.state
    state.apply(2)  # South sows pit c into its store and moves again: pit c is empty, action 2 illegal
    obs, reward, terminated, truncated, info = gym_env.step(2)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(ResetNeededError, match="the episode is over"):
        gym_env.step(0)  # a legal action, after the illegal one ended the episode
    assert isinstance(ResetNeededError("x"), ValueError)
    _, info = gym_env.reset(seed=1)
    done = False
    while not done:
        _, _, terminated, truncated, info = gym_env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    with pytest.raises(ResetNeededError):
        gym_env.step(0)  # after a game that ended by the rules


def test_a_pettingzoo_step_after_the_end_is_refused():
    e = aec_env("kalah")
    e.reset(seed=3)
    for agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            with pytest.raises(ValueError, match="only valid action is None"):
                e.step(0)  # PettingZoo's own rule for an agent that is done
            e.step(None)
        else:
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    raw = e.unwrapped
    with pytest.raises(ValueError, match="no game in progress"):
        raw.step(0)


@pytest.mark.parametrize("module, library", [("pettingzoo_env", "pettingzoo"), ("gymnasium_env", "gymnasium")])
def test_without_the_rl_extra_the_import_names_it_in_one_line(module, library):
    """Run where the library cannot be imported (``sys.modules[name] = None``), as on an install
    without the extra."""
    code = f"import sys; sys.modules[{library!r}] = None\nimport board_arena.envs.{module}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f'ImportError: board_arena.envs.{module} needs {library}, which is not installed: pip install -e ".[rl]"'
    )


def test_a_dataframe_without_pandas_names_what_to_install(monkeypatch):
    from board_arena import arena

    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r'to_dataframe needs pandas: pip install pandas, or pip install -e "\.\[notebook\]"'):
        arena.fit_ratings([("a", "b", 1.0)]).to_dataframe()
