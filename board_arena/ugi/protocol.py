"""The lines of the UGI protocol that both sides need: the ``position`` command for a state."""

from __future__ import annotations

from board_arena.engines import Game, State

__all__ = ["position_line"]


def position_line(game: Game, state: State, seat: int) -> str:
    """The ``position`` command that sets ``state`` up in an engine playing ``seat``: the start
    and the moves played since, in the game's notation."""
    replay = game.new_initial_state(state.seed)
    names = []
    for move in state.history:
        names.append(replay.format_move(move))
        replay.apply_legal(move)
    return "position startpos" + (" moves " + " ".join(names) if names else "")
