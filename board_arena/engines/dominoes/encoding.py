"""Dominoes' actions and observations: the move ids themselves (tile and end, then draw and
pass); the observation is ``(4 * n_tiles + 6,)`` float32 from the player's view
(``kernels.write_observation``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from board_arena.engines.dominoes import kernels
from board_arena.engines.encoding import Encoding

if TYPE_CHECKING:
    from board_arena.engines.dominoes import Dominoes

__all__ = ["DominoesEncoding"]


class DominoesEncoding(Encoding):
    game: Dominoes

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(4 * n_tiles + 6,)``: tile planes and counts from the player's view
        (``kernels.write_observation``)."""
        return (4 * self.game.n_tiles + kernels.OBSERVATION_SCALARS,)

    def action_moves(self) -> np.ndarray:
        # The move ids are dense already: tile and end, then draw (the draw game) and pass.
        moves = list(range(2 * self.game.n_tiles))
        if self.game.params["drawing"]:
            moves.append(kernels.MOVE_DRAW)
        moves.append(kernels.MOVE_PASS)
        return np.array(moves, dtype=np.int64)
