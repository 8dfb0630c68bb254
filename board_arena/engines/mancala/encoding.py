"""Mancala's actions and observations: the action is the move id (a pit of the mover's row);
the observation is ``(2, pits + 1)`` float32 (``kernels.write_observation``)."""

from __future__ import annotations

import numpy as np

from board_arena.engines.encoding import Encoding

__all__ = ["MancalaEncoding"]


class MancalaEncoding(Encoding):
    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(2, pits + 1)``: the observer's pits (from their left) and store, then the
        opponent's pits (from the opponent's left) and store (``kernels.write_observation``)."""
        return (2, self.game.params["pits"] + 1)

    def action_moves(self) -> np.ndarray:
        # A move is a pit of the mover's row counted from the mover's left: action = move.
        return np.arange(self.game.params["pits"], dtype=np.int64)
