"""Compact action spaces: each variant's moves numbered ``0..num_actions-1``, for learning code.

Move ids are what the engines search with, and they are sparse (a Konane path id can reach
2**59). A learner needs a fixed, dense set of actions, a legal-action mask and a two-way mapping:
:class:`ActionSpace` holds, for one variant, the move id of every action (``moves[a]``) and the
inverse (a dense table indexed by move id when the ids are small, else the ids sorted for a binary
search). Each game lists its actions in ``Game._action_moves``; the numbering is fixed by the
variant (never by the position), so that one network output means one move everywhere.

The kernels here are generic over the games (they call :mod:`engines.contract`), so the batched
environment (:mod:`envs.batched`) compiles them for any game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from board_arena.engines import contract
from board_arena.kernels import kernel

__all__ = ["ActionSpace", "NO_ACTION", "move_to_action", "write_action_mask"]

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
    # A binary search written out: numba's np.searchsorted on a scalar costs ~100 ns a call.
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
    reference count each way, several times the cost of a Kalah mask (measured in
    experiments/bench_envs.py's setting).
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
