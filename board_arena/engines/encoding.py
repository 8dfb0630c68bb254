"""A game's encoding for learning code: a fixed, dense action space per variant (every move of
any position numbered ``0..num_actions-1``, with a legal-action mask and the mapping both ways)
and an observation tensor per player.

Move ids are what the engines search with, and they are sparse (a Konane path id can reach
2**59). A learner needs a fixed, dense set of actions: :class:`ActionSpace` holds, for one
variant, the move id of every action (``moves[a]``) and the inverse (a dense table indexed by
move id when the ids are small, else the ids sorted for a binary search). Each game lists its
actions in its :class:`Encoding`'s ``action_moves``; the numbering is fixed by the variant (never
by the position), so that one network output means one move everywhere.

Each game provides a subclass of :class:`Encoding` in its own folder (``mancala/encoding.py``)
and names it in ``Game.encoding_class``; the game object holds one as ``game.encoding``.

    >>> from board_arena import engines
    >>> game = engines.make("kalah")
    >>> game.encoding.num_actions, game.encoding.observation_shape
    (6, (2, 7))

The kernels here are generic over the games (they call :mod:`engines.contract`), so the batched
environment (:mod:`envs.batched`) compiles them for any game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Sequence

import numpy as np

from board_arena.engines import _face, contract
from board_arena.kernels import kernel

if TYPE_CHECKING:
    from board_arena.engines.game import Game, State

__all__ = ["Encoding", "ActionSpace", "NO_ACTION", "move_to_action", "write_action_mask", "actions_of_moves"]

#: What the move -> action mapping returns for a move id that is no action of the variant.
NO_ACTION = -1

# Move ids below this bound get a dense inverse table (int32, 4 bytes an id: 100 KB at most).
_DENSE_BOUND = 1 << 15


@dataclass(frozen=True)
class ActionSpace:
    """The actions of one variant.

    Attributes:
        moves: int64[num_actions], the move id of each action (all distinct).
        dense: int32[move_bound], the action of each move id (NO_ACTION for none), or an empty
            array when the ids are too large for a table.
        sorted_moves: int64[num_actions], the move ids in increasing order, and
        sorted_actions: int64[num_actions], the action of each (for the binary search).
    """

    moves: np.ndarray
    dense: np.ndarray
    sorted_moves: np.ndarray
    sorted_actions: np.ndarray

    @classmethod
    def from_moves(cls, moves: Sequence[int] | np.ndarray, move_bound: int) -> "ActionSpace":
        moves = np.ascontiguousarray(moves, dtype=np.int64)
        if len(np.unique(moves)) != len(moves):
            raise ValueError("an action space lists a move id twice")
        order = np.argsort(moves, kind="stable")
        if move_bound <= _DENSE_BOUND:
            dense = np.full(move_bound, NO_ACTION, np.int32)
            dense[moves] = np.arange(len(moves), dtype=np.int32)
        else:
            dense = np.empty(0, np.int32)
        return cls(moves, dense, moves[order], order.astype(np.int64))

    @property
    def num_actions(self) -> int:
        return len(self.moves)

    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The arrays that the kernels take, in their order."""
        return self.moves, self.dense, self.sorted_moves, self.sorted_actions


@kernel(inline="always")
def move_to_action(move, dense, sorted_moves, sorted_actions):
    """The action of move id ``move`` (NO_ACTION if it has none)."""
    if dense.shape[0] > 0:
        if 0 <= move < dense.shape[0]:
            return np.int64(dense[move])
        return np.int64(NO_ACTION)
    # A binary search written out: cheaper than numba's np.searchsorted on one scalar.
    lo = 0
    hi = sorted_moves.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_moves[mid] < move:
            lo = mid + 1
        else:
            hi = mid
    if lo < sorted_moves.shape[0] and sorted_moves[lo] == move:
        return sorted_actions[lo]
    return np.int64(NO_ACTION)


@kernel(inline="always")
def write_action_mask(s, moves, dense, sorted_moves, sorted_actions, masks, row):
    """Sets ``masks[row]: bool[num_actions]`` to the legal actions of ``s``; returns the number of
    legal moves (``moves: int64[>=max_moves]`` scratch), or -1 if a legal move has no action (a
    broken table).

    Rows of a 2-D mask, not a 1-D slice: passing a slice to a compiled function costs a
    reference count each way, more than a small game's whole mask.
    """
    for a in range(masks.shape[1]):
        masks[row, a] = False
    n = contract.legal_moves(s, moves)
    if dense.shape[0] > 0:
        for i in range(n):
            a = dense[moves[i]]
            if a < 0:
                return -1
            masks[row, a] = True
        return n
    for i in range(n):
        a = move_to_action(moves[i], dense, sorted_moves, sorted_actions)
        if a < 0:
            return -1
        masks[row, a] = True
    return n


@kernel
def actions_of_moves(moves, dense, sorted_moves, sorted_actions, out):
    """``out[i]`` = the action of ``moves[i]`` (NO_ACTION where none)."""
    for i in range(moves.shape[0]):
        out[i] = move_to_action(moves[i], dense, sorted_moves, sorted_actions)


class Encoding:
    """A game's actions and observations, for one variant (``self.game``).

    A subclass implements :data:`REQUIRED`: :meth:`action_moves` (the move id of every action, in
    action order) and :attr:`observation_shape`; the rest is built on them and on the game's
    ``write_observation`` kernel.
    """

    #: What a game's encoding must implement.
    REQUIRED: ClassVar[tuple[str, ...]] = ("action_moves", "observation_shape")

    def __init__(self, game: Game) -> None:
        self.game = game
        self._space: ActionSpace | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.game!r}>"

    def action_moves(self) -> np.ndarray:
        """int64[num_actions]: the move id of every action, in action order (every move any
        position of the variant can have)."""
        raise NotImplementedError

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """The shape of :meth:`observation` for this variant (float32)."""
        raise NotImplementedError

    @property
    def action_space(self) -> ActionSpace:
        """This variant's :class:`ActionSpace` (built once, then kept)."""
        if self._space is None:
            self._space = ActionSpace.from_moves(self.action_moves(), self.game.move_bound)
        return self._space

    @property
    def num_actions(self) -> int:
        """The number of actions of this variant: every move of any position is one action in
        ``0..num_actions-1`` (see :meth:`action_of`).

        Example:
            >>> from board_arena import engines
            >>> engines.make("kalah").encoding.num_actions, engines.make("dominoes").encoding.num_actions
            (6, 58)
        """
        return self.action_space.num_actions

    def action_of(self, move: int) -> int:
        """The action index of move id ``move``.

        Raises:
            ValueError: ``move`` is no move of this variant.
        """
        action = int(move_to_action(int(move), *self.action_space.tables()[1:]))
        if action < 0:
            raise ValueError(f"move {move} is no move of {self.game.name}; moves are the ids legal_moves() gives")
        return action

    def actions_of(self, moves: Sequence[int] | np.ndarray) -> np.ndarray:
        """The action indices of a sequence of move ids (int64 array).

        Raises:
            ValueError: a move is no move of this variant.
        """
        ids = np.asarray(moves, dtype=np.int64)
        out = np.empty(len(ids), np.int64)
        actions_of_moves(ids, *self.action_space.tables()[1:], out)
        if (out < 0).any():
            raise ValueError(f"move {int(ids[np.argmax(out < 0)])} is no move of {self.game.name}")
        return out

    def move_of(self, action: int) -> int:
        """The move id of action index ``action``.

        Raises:
            ValueError: ``action`` is not in ``0..num_actions-1``.
        """
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < self.num_actions:
            raise ValueError(f"action must be an integer from 0 to {self.num_actions - 1}, not {action!r}")
        return int(self.action_space.moves[action])

    def legal_action_mask(self, state: State) -> np.ndarray:
        """bool[num_actions]: True at the actions of ``state``'s legal moves."""
        mask = np.zeros((1, self.num_actions), np.bool_)
        moves = np.empty(self.game.kernels.MAX_MOVES, np.int64)
        if write_action_mask(state.data, moves, *self.action_space.tables()[1:], mask, 0) < 0:
            raise RuntimeError(f"{self.game.name}: a legal move has no action (the action table is incomplete)")
        return mask[0]

    def observation(self, state: State, player: int | None = None) -> np.ndarray:
        """``player``'s observation tensor of ``state`` (the player to move by default; at the end,
        player 0): float32 of :attr:`observation_shape`, documented plane by plane in each game's
        ``write_observation`` kernel. A hidden-information game builds it from the player's view.

        Raises:
            ValueError: ``player`` is not 0 or 1, or ``state`` is another player's view.
        """
        if player is None:
            player = state.viewer if state.viewer is not None else (0 if state.is_terminal() else state.current_player)
        if player not in (0, 1) or isinstance(player, bool):
            raise ValueError(f"player must be 0 or 1, not {player!r}")
        if state.viewer is not None and state.viewer != player:
            raise ValueError(f"this is {self.game.player_names[state.viewer]}'s view: it has no other player's observation")
        shape = self.observation_shape
        out = np.zeros(int(np.prod(shape)), np.float32)
        _face.write_observation(state.data, player, out)
        return out.reshape(shape)
