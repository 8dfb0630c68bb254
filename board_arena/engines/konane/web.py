"""Konane on the page (``web.js``): a stone, then each landing point; a stone to remove in the
classic opening; ``pass``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from board_arena.engines.konane import kernels
from board_arena.engines.konane.notation import move_path, square_name
from board_arena.engines.web import WebBoard

if TYPE_CHECKING:
    from board_arena.engines.game import State

__all__ = ["KonaneWeb"]


class KonaneWeb(WebBoard):
    drawing = "web.js"

    def move_clicks(self, state: State, move: int) -> list[str]:
        if move == kernels.PASS:
            return ["pass"]
        if kernels.REMOVE_BASE <= move < kernels.PASS:
            return [square_name(move - kernels.REMOVE_BASE)]
        return [square_name(sq) for sq in move_path(move)]

    def move_from_clicks(self, state: State, clicks: Sequence[str]) -> str:
        if len(clicks) == 1 and clicks[0] != "pass" and state.data["phase"] != kernels.PHASE_PLAY:
            return "x" + clicks[0]
        return "-".join(clicks)

    def click_prompt(self, state: State, clicks: Sequence[str]) -> str | None:
        if len(clicks) < 2:
            return None
        try:  # a jump that may go on
            legal = state.is_legal(self.game.notation.parse_move(state, self.move_from_clicks(state, clicks)))
        except ValueError:
            return None
        return "Jump again, or click Stop here (or the stone again)." if legal else None
