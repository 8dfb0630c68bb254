"""Gymnasium single-agent environments: one seat of a game against an agent of the registry
(needs the ``rl`` extra). Importing this module registers ``board-arena/<game>-v0`` for every
preset, also of games registered after the import:

    >>> import gymnasium as gym
    >>> import board_arena.envs.gymnasium_env  # registers the ids
    >>> env = gym.make("board-arena/kalah-v0", opponent="mcts:iterations=50")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, info["action_mask"].tolist()
    ((2, 7), [1, 1, 1, 1, 1, 1])
    >>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))

The observation is the game's tensor from the learner's side (Dominoes: from the learner's view
only); ``info["action_mask"]`` (int8) marks the legal actions. The opponent (any agent spec,
``"random"`` by default) moves in between; it is seeded from ``reset``'s seed, as is the start.
The reward is the learner's result at the end (1 / 0 / -1), else 0; a game stopped by
Morabaraba's ply cap is truncated. An illegal action ends the episode as a loss (reward -1,
``info["illegal_action"]``: an environment checker steps with unmasked samples), or raises
:class:`envs.IllegalActionError` with ``illegal="raise"``. Actions are what the action space
contains (``int``, a numpy integer, a 0-d integer array); anything else (a float, a string, a
bool) raises :class:`envs.batched.NotAnActionError`. A ``step`` after the episode ended raises
:class:`ResetNeededError` (Gymnasium's ``ResetNeeded``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from board_arena import agents, engines
from board_arena.engines.game import PLY_CAP, State
from board_arena.envs.batched import (
    OBS_HIGH,
    OBS_LOW,
    IllegalActionError,
    as_action,
    missing_extra,
)

try:
    import gymnasium as gym
    from gymnasium import spaces
    from gymnasium.error import ResetNeeded
except ImportError as error:
    raise missing_extra(__name__, error) from None

__all__ = ["BoardArenaEnv", "register_all", "ResetNeededError"]


class ResetNeededError(ResetNeeded, ValueError):
    """``step`` before ``reset``, or after the episode ended: Gymnasium's ``ResetNeeded`` (what its
    order-enforcing wrapper raises), and a ValueError as every bad call here is."""


class BoardArenaEnv(gym.Env):
    """One seat (``seat`` 0 or 1) of ``game`` against ``opponent`` (an agent spec).

    Raises:
        ValueError: unknown game, parameter, agent spec, seat or ``illegal`` rule, or an opponent
            that cannot play the game (a full-state search in a hidden-information game).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, game: str = "kalah", opponent: str = "random", seat: int = 0,
                 illegal: str = "lose", render_mode: str | None = None, **params: Any) -> None:
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, not {seat!r}")
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise', not {illegal!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.game = engines.make(game, **params)
        self.opponent_spec = opponent
        self.opponent = agents.make_agent(opponent, seed=0)
        self.opponent.check_game(self.game)
        self.seat = seat
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, self.game.encoding.observation_shape, np.float32)
        self.action_space = spaces.Discrete(self.game.encoding.num_actions)
        self.state: State | None = None
        self._over = False  # the episode has returned terminated or truncated

    @property
    def _game(self) -> State:
        """The game being played (an error before the first ``reset``)."""
        if self.state is None:
            raise ValueError("no episode yet: call reset() first")
        return self.state

    def _info(self, **extra: Any) -> dict[str, Any]:
        mask = np.zeros(self.game.encoding.num_actions, np.int8)
        if not self._game.is_terminal():
            mask[self._game.legal_action_mask()] = 1
        return {"action_mask": mask, **extra}

    def _opponent_moves(self) -> None:
        state = self._game
        while not state.is_terminal() and state.current_player != self.seat:
            mover = state.current_player
            state.apply(self.opponent.select_move(self.opponent.observe(state, mover)))

    def _result(self) -> tuple[float, bool, bool]:
        if not self._game.is_terminal():
            return 0.0, False, False
        reward = float(self._game.returns()[self.seat])
        truncated = self._game.end_reason == PLY_CAP
        return reward, not truncated, truncated

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        start_seed, agent_seed = (int(x) for x in self.np_random.integers(2**62, size=2))
        self.opponent = agents.make_agent(self.opponent_spec, seed=agent_seed)
        self.opponent.reset()
        self.state = self.game.new_initial_state(start_seed)
        self._over = False
        self._opponent_moves()  # the opponent opens when it has the first move
        # A game the opponent ends before the learner's first move cannot happen in these games
        # (every game gives both players a move), but a set-up rule could: then reset again.
        if self._game.is_terminal():
            return self.reset()
        return self.game.encoding.observation(self._game, self.seat), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Plays ``action`` (an element of ``action_space``), then the opponent's moves.

        Raises:
            ResetNeededError: no episode yet, or it has ended (``terminated`` or ``truncated``
                was returned, an illegal action included): call ``reset()``.
            NotAnActionError: ``action`` is not in the action space (a float, a string, a bool,
                an integer out of range), whatever ``illegal`` says.
            IllegalActionError: the action is not legal here and ``illegal="raise"``.
        """
        if self.state is None:
            raise ResetNeededError("Cannot call env.step() before calling env.reset()")
        if self._over:
            raise ResetNeededError("the episode is over (it returned terminated or truncated): call env.reset()")
        index = as_action(action, self.game.encoding.num_actions)
        if not self._game.legal_action_mask()[index]:
            if self.illegal == "raise":
                raise IllegalActionError(f"action {index} is not legal; legal actions: {self._game.legal_actions()}")
            self._over = True
            obs = self.game.encoding.observation(self._game, self.seat)
            return obs, -1.0, True, False, {"action_mask": np.zeros(self.game.encoding.num_actions, np.int8), "illegal_action": True}
        self._game.apply(self.game.encoding.move_of(index))
        self._opponent_moves()
        reward, terminated, truncated = self._result()
        self._over = terminated or truncated
        return self.game.encoding.observation(self._game, self.seat), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._game.render()
        return None


def register_all() -> None:
    """Registers ``board-arena/<preset>-v0`` for every preset of every registered game (done at
    import, and again for each game registered later)."""
    for name in engines.available_games():
        env_id = f"board-arena/{name}-v0"
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="board_arena.envs.gymnasium_env:BoardArenaEnv", kwargs={"game": name})


register_all()
engines.on_game_registered(lambda cls: register_all())
