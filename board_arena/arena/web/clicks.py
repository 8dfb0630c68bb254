"""Moves as clicks: the sequence of board elements a person clicks to make each legal move, and
back from clicks to the game's notation (so that an illegal click gets the engine's own reason).

Element names are those the page draws: Mancala ``pit-<player>-<letter>``; Morabaraba and Konane
the point names (``d6``, ``c3``); Dominoes ``tile-6-4`` (a tile of the hand) and ``end-L`` /
``end-R``; and for every game the buttons ``draw`` and ``pass``.
"""

from __future__ import annotations

import re

from board_arena.engines.game import State

BUTTONS = ("draw", "pass")


def move_clicks(state: State, move: int) -> list[str]:
    """The clicks that make ``move`` (legal in ``state``), in order."""
    text = state.format_move(move)
    family = state.game.family
    if text in BUTTONS:
        return [text]
    if family == "mancala":
        return [f"pit-{state.current_player}-{text}"]
    if family == "morabaraba":
        head, _, shot = text.partition("x")
        return head.split("-") + ([shot] if shot else [])
    if family == "konane":
        return [text[1:]] if text.startswith("x") else text.split("-")
    if family == "dominoes":
        match = re.fullmatch(r"(\d+-\d+)([LR]?)", text)
        if match is None:
            raise ValueError(f"no clicks for the move {text!r}")
        tile, end = match.group(1), match.group(2)
        if state.board()["ends"] is None:
            return [f"tile-{tile}"]
        if not end:  # the tile fits one end only: which one the engine says
            end = "L" if _parses_to(state, tile + "L", move) else "R"
        return [f"tile-{tile}", f"end-{end}"]
    raise ValueError(f"no click mapping for the game family {family!r}")


def _parses_to(state: State, text: str, move: int) -> bool:
    try:
        return state.parse_move(text) == move
    except ValueError:
        return False


def clicks_text(state: State, clicks: list[str]) -> str:
    """The notation that ``clicks`` spell (possibly an illegal move, for the engine to explain).

    Raises:
        ValueError: the clicks spell no move at all (the message says what to click).
    """
    family = state.game.family
    if len(clicks) == 1 and clicks[0] in BUTTONS:
        return clicks[0]
    if family == "mancala":
        match = re.fullmatch(r"pit-([01])-([a-z])", clicks[0]) if len(clicks) == 1 else None
        if match is None:
            raise ValueError("click one pit")
        if int(match.group(1)) != state.current_player:
            raise ValueError(
                f"that pit is {state.game.player_names[int(match.group(1))]}'s: "
                f"{state.game.player_names[state.current_player]} sows one of their own pits"
            )
        return match.group(2)
    if family == "morabaraba":
        if len(clicks) == 3:
            return f"{clicks[0]}-{clicks[1]}x{clicks[2]}"
        stage = state.board()["stage"][state.current_player]
        if len(clicks) == 2 and stage == "placing":
            return f"{clicks[0]}x{clicks[1]}"
        return "-".join(clicks)
    if family == "konane":
        if state.board()["opening"] and len(clicks) == 1:
            return "x" + clicks[0]
        return "-".join(clicks)
    if family == "dominoes":
        tile = clicks[0].removeprefix("tile-")
        if len(clicks) == 1:
            return tile
        return tile + clicks[1].removeprefix("end-")
    raise ValueError(f"no click mapping for the game family {family!r}")
