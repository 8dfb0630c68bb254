"""Morabaraba's actions and observations: every (from or placement, to, shot or none) the
variant's rules allow, in id order; the observation is ``(8, 24)`` float32
(``kernels.write_observation``)."""

from __future__ import annotations

import numpy as np

from board_arena.engines.encoding import Encoding
from board_arena.engines.morabaraba import board, kernels

__all__ = ["MorabarabaEncoding"]


class MorabarabaEncoding(Encoding):
    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(8, 24)``: planes over the points (``kernels.write_observation``)."""
        return (kernels.OBSERVATION_PLANES, board.N_POINTS)

    def action_moves(self) -> np.ndarray:
        out = np.empty(kernels.MAX_ACTIONS, np.int64)
        n = kernels.write_actions(int(self.game.params["diagonals"]), int(self.game.params["flying"]), out)
        return out[:n].copy()
