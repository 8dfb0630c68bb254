"""PettingZoo AEC environments for every game and preset (needs the ``rl`` extra).

    >>> from board_arena.envs.pettingzoo_env import env
    >>> e = env("kalah")
    >>> e.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = e.last()
    >>> obs["observation"].shape, obs["action_mask"].tolist()
    ((2, 7), [1, 1, 1, 1, 1, 1])
    >>> e.step(2)            # South's pit c ends in its store: South moves again
    >>> e.agent_selection
    'player_0'

Agents ``player_0`` and ``player_1`` are the game's players 0 and 1. An observation is a dict as
in PettingZoo's classic games: ``observation`` (float32, the shape of the game's encoding,
``game.encoding.observation_shape``, from that agent's side; in Dominoes built from the agent's
own view, so nothing hidden leaks) and ``action_mask`` (int8, ``num_actions``; all zeros for an
agent that is not to move). Actions are the game's action indices (``game.encoding.move_of``).
The agent to move may move twice in a row (Kalah's extra turn). Rewards: 1 / 0 / -1 at the end; a Morabaraba game stopped by its ply cap is a draw
reported as truncated. An illegal action raises :class:`envs.IllegalActionError`; a value the
action space does not contain (a float, a string, a bool) :class:`envs.batched.NotAnActionError`
(numpy integers and 0-d integer arrays are actions).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from board_arena import engines
from board_arena.engines.game import PLY_CAP, State
from board_arena.envs.batched import (
    OBS_HIGH,
    OBS_LOW,
    IllegalActionError,
    as_action,
    missing_extra,
)

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:
    raise missing_extra(__name__, error) from None

__all__ = ["raw_env", "env"]


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped class)
    """The AEC environment of one game variant (``game`` a preset name, ``params`` its variant
    parameters); ``render_mode`` ``"ansi"`` (the rendering as a string) or ``"human"`` (printed)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "board_arena_v0", "is_parallelizable": False}

    def __init__(self, game: str = "kalah", render_mode: str | None = None, **params: Any) -> None:
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.game = engines.make(game, **params)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"board_arena_{game.replace('-', '_')}_v0")
        self.possible_agents = ["player_0", "player_1"]
        n = self.game.encoding.num_actions
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(OBS_LOW, OBS_HIGH, self.game.encoding.observation_shape, np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.state_: State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; ``seed`` reseeds the draws of the starts (deals, openings) that follow."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.state_ = state = self.game.new_initial_state(int(self._seeds.integers(2**62)))
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[state.current_player]

    @property
    def _game(self) -> State:
        """The game being played (an error before the first ``reset``)."""
        if self.state_ is None:
            raise ValueError("no game yet: call reset() first")
        return self.state_

    def observe(self, agent: str) -> dict:
        player = self.possible_agents.index(agent)
        mask = np.zeros(self.game.encoding.num_actions, np.int8)
        if not self._game.is_terminal() and self._game.current_player == player:
            mask[self._game.legal_action_mask()] = 1
        return {"observation": self.game.encoding.observation(self._game, player), "action_mask": mask}

    def step(self, action: int | np.integer | np.ndarray | None) -> None:
        """Plays ``action`` for the agent to move (None for an agent whose game has ended, as
        PettingZoo's AEC loop steps it).

        Raises:
            ValueError: no game yet, or every agent is done (call ``reset()``); an action other
                than None for an agent that is done (PettingZoo's ``_was_dead_step``).
            NotAnActionError: ``action`` is not in the action space (a float, a string, a bool,
                an integer out of range, None for an agent to move).
            IllegalActionError: the action is not legal here.
        """
        if not getattr(self, "agents", None):
            raise ValueError("no game in progress (every agent is done, or no reset yet): call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._game
        index = as_action(action, self.game.encoding.num_actions)
        if not state.legal_action_mask()[index]:
            raise IllegalActionError(f"{agent}: action {index} is not legal; legal actions: {state.legal_actions()}")
        self._cumulative_rewards[agent] = 0.0
        state.apply(self.game.encoding.move_of(index))
        if state.is_terminal():
            returns = state.returns()
            self.rewards = {a: float(returns[i]) for i, a in enumerate(self.possible_agents)}
            truncated = state.end_reason == PLY_CAP
            for a in self.agents:
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
        else:
            self.rewards = {a: 0.0 for a in self.agents}
            self.agent_selection = self.possible_agents[state.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._game.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(game: str = "kalah", render_mode: str | None = None, **params: Any) -> AECEnv:
    """The AEC environment of ``game`` with PettingZoo's order-enforcing wrapper (an action
    before ``reset`` or after the end is refused)."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, render_mode=render_mode, **params))
