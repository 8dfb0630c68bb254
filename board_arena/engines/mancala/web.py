"""Mancala on the page (``web.js``): a move is a click on one of the mover's pits, named
``pit-<player>-<letter>``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from board_arena.engines.mancala.notation import LETTERS
from board_arena.engines.web import WebBoard

if TYPE_CHECKING:
    from board_arena.engines.game import State

__all__ = ["MancalaWeb"]


class MancalaWeb(WebBoard):
    drawing = "web.js"

    def move_clicks(self, state: State, move: int) -> list[str]:
        return [f"pit-{state.current_player}-{LETTERS[move]}"]

    def move_from_clicks(self, state: State, clicks: Sequence[str]) -> str:
        match = re.fullmatch(r"pit-([01])-([a-z])", clicks[0]) if len(clicks) == 1 else None
        if match is None:
            raise ValueError("click one pit")
        owner, mover = int(match.group(1)), state.current_player
        if owner != mover:
            names = self.game.player_names
            raise ValueError(f"that pit is {names[owner]}'s: {names[mover]} sows one of their own pits")
        return match.group(2)
