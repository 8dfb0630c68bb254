"""A batched environment in compiled code: N games of one variant stepped by one call.

For self-play and data generation: actions in (one action index per game), observations, legal-
action masks, rewards and done flags out; a finished game is replaced at once by a new one (its
random start drawn from the environment's seed), so every slot always holds a game in progress.
One numba kernel steps all N games (generic over the games through :mod:`engines.contract`), so
the cost per step is the game's own move, mask and observation, with no Python in between.

    >>> from board_arena.envs import BatchedEnv
    >>> env = BatchedEnv("kalah", num_envs=4, seed=0)
    >>> obs, mask = env.reset()
    >>> obs.shape, mask.shape
    ((4, 2, 7), (4, 6))
    >>> obs, mask, rewards, dones = env.step(env.random_actions())
    >>> rewards.shape, dones.shape, env.to_play.shape
    ((4, 2), (4,), (4,))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from board_arena import engines
from board_arena.engines.game import Game
from board_arena.envs._kernels import (
    afterstates,
    random_actions,
    random_step,
    reset_all,
    step_all,
)
from board_arena.kernels import rng_from_seed

__all__ = ["BatchedEnv", "IllegalActionError", "NotAnActionError", "as_action", "missing_extra", "OBS_LOW", "OBS_HIGH"]

#: Bounds of every observation value of every game (seed, cow and tile counts stay below 256;
#: margins and ratios lie in [-1, 1]): the bounds of the Gymnasium and PettingZoo spaces.
OBS_LOW, OBS_HIGH = -1.0, 255.0


class IllegalActionError(ValueError):
    """An action that is not legal in its game (the message names the game slot and the action)."""


class NotAnActionError(IllegalActionError):
    """A value that the action space does not contain (a float, a string, a bool, an integer out
    of range): refused whatever the environment does with illegal actions."""


def missing_extra(module: str, error: ImportError) -> ImportError:
    """The one-line error of an environment module whose library is not installed: what is
    missing and the extra that installs it."""
    return ImportError(f'{module} needs {error.name or "PettingZoo and Gymnasium"}, which is not installed: pip install -e ".[rl]"')


def as_action(action: Any, num_actions: int) -> int:
    """The action index ``action`` is, when the action space ``Discrete(num_actions)`` contains
    it: a Python or numpy integer, or a 0-d integer array (``np.array(2)``), from 0 to
    ``num_actions - 1``. Bools are refused although Python counts them as integers: an action
    given as ``True`` is a bug.

    Raises:
        NotAnActionError: anything else (one line: what was given, what is allowed).
    """
    value = action
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        value = action[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value < num_actions:
        shown = repr(action) if len(repr(action)) <= 40 else repr(action)[:40] + "..."
        raise NotAnActionError(
            f"an action is an integer from 0 to {num_actions - 1} (or a 0-d integer array), not {shown} ({type(action).__name__})"
        )
    return int(value)


class BatchedEnv:
    """``num_envs`` games of one variant, stepped together in compiled code.

    Args:
        game: a game name (with ``params``) or a :class:`engines.Game`.
        num_envs: how many games run side by side (at least 1).
        seed: every random start (deal, opening) and :meth:`random_actions` flow from it; slot
            ``i``'s sequence of games depends only on ``seed`` and ``i``.

    After :meth:`reset` and each :meth:`step`: ``obs`` (float32 ``[N, *observation_shape]``, the
    player to move's observation), ``mask`` (bool ``[N, num_actions]``, the legal actions),
    ``to_play`` (int64 ``[N]``, the player to move). The arrays returned are read-only views that
    the next step overwrites (copy them to keep them).

    Raises:
        ValueError: ``num_envs`` below 1.
    """

    def __init__(self, game: str | Game, num_envs: int, seed: int = 0, **params: Any) -> None:
        self.game = engines.make(game, **params) if isinstance(game, str) else game
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer of at least 1, not {num_envs!r}")
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, not {seed!r}")
        self.num_envs = int(num_envs)
        self.seed = int(seed)
        space = self.game.encoding.action_space
        self._tables = space.tables()
        self.num_actions = space.num_actions
        self.observation_shape = self.game.encoding.observation_shape
        self._template = self.game.new_initial_state(0).buffer
        self._code = self.game.start_code
        n = self.num_envs
        self.states = np.zeros(n, self.game.kernels.STATE_DTYPE)
        self._obs = np.zeros((n, int(np.prod(self.observation_shape))), np.float32)
        self._masks = np.zeros((n, self.num_actions), np.bool_)
        self._rewards = np.zeros((n, 2), np.float32)
        self._dones = np.zeros(n, np.bool_)
        self._to_play = np.zeros(n, np.int64)
        self._moves = np.empty(self.game.kernels.MAX_MOVES, np.int64)
        self._actions = np.zeros(n, np.int64)
        self._rngs = np.zeros((n, 1), np.uint64)
        self._action_rng = rng_from_seed(self.seed)
        self._views = (self.obs, self.mask, self.rewards, self.dones)
        self.reset()

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """Every slot a new game (the seed's sequence starts over); returns ``(obs, mask)``."""
        for i in range(self.num_envs):
            self._rngs[i] = rng_from_seed(self.seed * 1_000_003 + i + 1)
        self._action_rng = rng_from_seed(self.seed)
        reset_all(self.states, self._template[0], self._code, self._rngs, self._obs, self._masks,
                   self._to_play, self._moves, *self._tables[1:])
        self._rewards[:] = 0
        self._dones[:] = False
        return self.obs, self.mask

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Plays one action in every game; returns ``(obs, mask, rewards, dones)``.

        ``rewards`` (float32 ``[N, 2]``): player 0's and player 1's result (1 win, 0 draw, -1
        loss) in the games that ended with this step, 0 elsewhere; ``dones`` (bool ``[N]``): the
        game ended (the slot now holds a new game, which ``obs`` and ``mask`` show).

        Raises:
            IllegalActionError: an action is not legal in its game (no game is changed).
        """
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise NotAnActionError(
                f"actions must be {self.num_envs} integers (one per game), not an array of shape {actions.shape} "
                f"and type {actions.dtype}"
            )
        self._actions[:] = actions
        bad = step_all(self.states, self._template[0], self._code, self._rngs, self._actions, *self._tables,
                        self._obs, self._masks, self._rewards, self._dones, self._to_play, self._moves)
        if bad >= 0:
            raise IllegalActionError(
                f"game {bad}: action {int(actions[bad])} is not legal; legal: {np.flatnonzero(self._masks[bad]).tolist()}"
            )
        return self._views

    def step_random(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Plays a uniformly random legal action in every game (random self-play, drawn from the
        environment's seed) in one compiled call; returns ``(actions, obs, mask, rewards, dones)``."""
        actions = self._actions
        random_step(self.states, self._template[0], self._code, self._rngs, self._action_rng, actions,
                     *self._tables, self._obs, self._masks, self._rewards, self._dones, self._to_play, self._moves)
        return (self._read_only(actions), *self._views)

    def afterstates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What each legal action leads to, for afterstate learners (TD learning of a value of
        the position after a move): ``(obs, again, terminal, value)`` with ``obs`` float32
        ``[N, num_actions, *observation_shape]`` seen by the player to move now, ``again`` bool
        (that player moves again), ``terminal`` bool and ``value`` float32 (the mover's result
        where the action ends the game), all ``[N, num_actions]``; entries of illegal actions
        are zero. New arrays each call."""
        n, a = self.num_envs, self.num_actions
        obs = np.zeros((n, a, int(np.prod(self.observation_shape))), np.float32)
        again = np.zeros((n, a), np.bool_)
        terminal = np.zeros((n, a), np.bool_)
        value = np.zeros((n, a), np.float32)
        scratch = np.zeros(1, self.states.dtype)
        afterstates(self.states, self._tables[0], self._masks, scratch, obs, again, terminal, value)
        return obs.reshape((n, a, *self.observation_shape)), again, terminal, value

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action per game (drawn from the environment's seed)."""
        out = np.empty(self.num_envs, np.int64)
        random_actions(self._masks, self._action_rng, out)
        return out

    @staticmethod
    def _read_only(array):
        view = array.view()
        view.flags.writeable = False
        return view

    @property
    def obs(self) -> np.ndarray:
        return self._read_only(self._obs.reshape((self.num_envs, *self.observation_shape)))

    @property
    def mask(self) -> np.ndarray:
        return self._read_only(self._masks)

    @property
    def rewards(self) -> np.ndarray:
        return self._read_only(self._rewards)

    @property
    def dones(self) -> np.ndarray:
        return self._read_only(self._dones)

    @property
    def to_play(self) -> np.ndarray:
        return self._read_only(self._to_play)

    def state(self, i: int) -> engines.State:
        """A copy of game ``i`` as an :class:`engines.State` (a set-up position: no history)."""
        return engines.State(self.game, self.states[i : i + 1].copy(), None, custom_start=True)
