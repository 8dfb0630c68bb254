"""Dominoes on the page (``web.js``): a tile of the hand, then the end of the line when it fits
both; buttons to draw and to pass."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from board_arena.engines.dominoes import kernels
from board_arena.engines.dominoes.notation import tile_name
from board_arena.engines.web import WebBoard

if TYPE_CHECKING:
    from board_arena.engines.dominoes import Dominoes
    from board_arena.engines.game import State

__all__ = ["DominoesWeb"]


class DominoesWeb(WebBoard):
    game: Dominoes
    drawing = "web.js"
    buttons = (("draw", "Draw a tile"), ("pass", "Pass"))

    def move_clicks(self, state: State, move: int) -> list[str]:
        if move >= kernels.MOVE_DRAW:
            return [self.game.notation.format_move(state, move)]
        tile = f"tile-{tile_name(self.game.params['max_pips'], move >> 1)}"
        if self.game.notation.single_move(state, move >> 1):  # the notation names no end either
            return [tile]
        return [tile, "end-" + ("R" if move & 1 else "L")]

    def move_from_clicks(self, state: State, clicks: Sequence[str]) -> str:
        if len(clicks) == 1 and clicks[0] in ("draw", "pass"):
            return clicks[0]
        if len(clicks) > 2:
            raise ValueError("click a tile of your hand, then the end of the line to lay it at")
        tile = clicks[0].removeprefix("tile-")
        return tile if len(clicks) == 1 else tile + clicks[1].removeprefix("end-")
