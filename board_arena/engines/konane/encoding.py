"""Konane's actions and observations: by start point, every move a stone could ever make, then
the classic opening's removals and the pass; the observation is ``(6, size, size)`` float32
(``kernels.write_observation``)."""

from __future__ import annotations

import numpy as np

from board_arena.engines.encoding import Encoding
from board_arena.engines.konane import kernels

__all__ = ["KonaneEncoding"]


class KonaneEncoding(Encoding):
    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(6, size, size)``: planes over the points (``kernels.write_observation``)."""
        size = self.game.params["size"]
        return (kernels.OBSERVATION_PLANES, size, size)

    def action_moves(self) -> np.ndarray:
        # By start point (a1, b1, ..., row by row): every move the stone could ever make
        # (kernels.jump_paths: straight jumps by direction and length, or with turning jumps
        # every path); then the classic opening's removals, then the pass (capture scoring only:
        # normal play has none).
        size = self.game.params["size"]
        squares = [8 * row + col for row in range(size) for col in range(size)]
        moves: list[int] = []
        out = np.empty(kernels.MAX_MOVES, np.int64)
        for sq in squares:
            n = kernels.jump_paths(size, int(self.game.params["turning_jumps"]), sq, out)
            moves.extend(out[:n].tolist())
        if self.game.params["opening"] == "classic":
            moves.extend(kernels.REMOVE_BASE + sq for sq in squares)
        if self.game.params["scoring"] == "captures":
            moves.append(kernels.PASS)
        return np.array(moves, dtype=np.int64)
