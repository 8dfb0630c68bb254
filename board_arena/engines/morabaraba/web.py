"""Morabaraba on the page (``web.js``): a point to place, a cow then a point to slide or fly,
then the cow to shoot; the mills a shot formed are marked, and the layout gives the lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from board_arena.engines.morabaraba import board, kernels
from board_arena.engines.morabaraba.board import POINT_NAMES, POINT_OF, mill_name
from board_arena.engines.morabaraba.notation import decode, encode
from board_arena.engines.web import WebBoard

if TYPE_CHECKING:
    from board_arena.engines.game import State

__all__ = ["MorabarabaWeb"]


class MorabarabaWeb(WebBoard):
    drawing = "web.js"

    def move_clicks(self, state: State, move: int) -> list[str]:
        frm, to, shot = decode(move)
        clicks = [POINT_NAMES[to]] if frm == kernels.PLACE else [POINT_NAMES[frm], POINT_NAMES[to]]
        return clicks if shot == kernels.NO_SHOT else clicks + [POINT_NAMES[shot]]

    def move_from_clicks(self, state: State, clicks: Sequence[str]) -> str:
        placing = state.data["in_hand"][state.current_player] > 0
        if len(clicks) == 3 or (len(clicks) == 2 and placing):
            return f"{'-'.join(clicks[:-1])}x{clicks[-1]}"
        return "-".join(clicks)

    def click_prompt(self, state: State, clicks: Sequence[str]) -> str | None:
        placing = state.data["in_hand"][state.current_player] > 0
        if len(clicks) != (1 if placing else 2) or not all(c in POINT_OF for c in clicks):
            return None
        points = [POINT_OF[c] for c in clicks]
        move = encode(kernels.PLACE, points[0]) if placing else encode(points[0], points[1])
        if self.game.reason_code(state, move) == kernels.REASON_MUST_SHOOT:
            return "Mill! Click the opponent's cow to shoot."
        return None

    def highlights(self, state: State) -> list[list[str]]:
        """The mills that the last move formed, when it shot (each as its three points)."""
        if not state.history:
            return []
        _, to, shot = decode(state.history[-1])
        if shot == kernels.NO_SHOT:
            return []
        mover = 1 - int(state.data["to_move"])  # every move passes the turn
        mills = int(kernels.mills_at(state.data, mover, to))
        return [mill_name(m).split("-") for m in range(board.N_MILLS) if mills >> m & 1]

    def layout(self) -> dict[str, Any]:
        """``lines``: the lines of the board (its mills), each as its points along the line."""
        return {"lines": [[POINT_NAMES[p] for p in line] for line in board.lines_of(self.game.params["diagonals"])]}
