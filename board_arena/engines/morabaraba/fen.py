"""Morabaraba's position string: ``POINTS MOVER HANDS PLIES NO_SHOT THREE_COW BLOCKED``.

``POINTS`` is the board's seven rows from the top (row 7) to the bottom, separated by ``/``,
each point from left to right as ``W`` (White), ``B`` (Black) or ``.``: ``a7 d7 g7 / b6 d6 f6 /
c5 d5 e5 / a4 b4 c4 e4 f4 g4 / c3 d3 e3 / b2 d2 f2 / a1 d1 g1``. Then the player to move (``w`` or
``b``), the cows in hand (``WHITE,BLACK``), the plies played (for the ply cap), the plies of
moving without a shot and the plies without a shot while a player has three cows (the draw
rules' counters), and the mills each player may not count on its next move under
``no_immediate_remill`` (``WHITE/BLACK``, each ``-`` or mills by their points, comma-separated:
``a7-d7-g7``). The start of Morabaraba is ``.../.../.../....../.../.../... w 12,12 0 0 0 -/-``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from board_arena.engines.fen import counter, fen_fields, refuse
from board_arena.engines.morabaraba import board, kernels

if TYPE_CHECKING:
    from board_arena.engines.game import Game, State

__all__ = ["write_fen", "read_fen", "FORM"]

FORM = (
    "POINTS MOVER HANDS PLIES NO_SHOT THREE_COW BLOCKED, e.g. .../.../.../....../.../.../... w 12,12 0 0 0 -/- "
    "(rows 7 to 1 of W, B or ., mover w or b, cows in hand WHITE,BLACK, the three counters, blocked mills WHITE/BLACK)"
)
#: The points of each drawn row, top to bottom (board order is row by row).
_ROWS = (3, 3, 3, 6, 3, 3, 3)
_SIGNS = "WB."
_MOVERS = "wb"


def write_fen(state: State) -> str:
    s = state.data
    cows = [int(s["cows"][p]) for p in (0, 1)]
    signs = ["W" if cows[0] >> p & 1 else "B" if cows[1] >> p & 1 else "." for p in range(board.N_POINTS)]
    rows, start = [], 0
    for width in _ROWS:
        rows.append("".join(signs[start:start + width]))
        start += width
    blocked = []
    for p in (0, 1):
        mills = [board.mill_name(m) for m in range(board.N_MILLS) if int(s["blocked"][p]) >> m & 1]
        blocked.append(",".join(mills) or "-")
    return (
        f"{'/'.join(rows)} {_MOVERS[int(s['to_move'])]} {int(s['in_hand'][0])},{int(s['in_hand'][1])} "
        f"{int(s['plies'])} {int(s['no_shot'])} {int(s['three_cow'])} {'/'.join(blocked)}"
    )


def read_fen(game: Game, text: str) -> State:
    from board_arena.engines.game import State

    p = game.params
    cows = p["cows"]
    form = FORM.replace("12,12", f"{cows},{cows}")
    points, mover, hands, plies, no_shot, three_cow, blocked = fen_fields(game, text, 7, form)
    rows = points.split("/")
    if [len(row) for row in rows] != list(_ROWS) or any(c not in _SIGNS for c in points.replace("/", "")):
        raise refuse(game, text, "the points are 7 rows of 3, 3, 3, 6, 3, 3, 3 points, each W, B or .", form)
    signs = "".join(rows)
    stones = [sum(1 << q for q, c in enumerate(signs) if c == sign) for sign in "WB"]
    if mover not in _MOVERS:
        raise refuse(game, text, f"the mover {mover!r} is neither w nor b", form)
    to_move = _MOVERS.index(mover)
    hand_fields = hands.split(",")
    if len(hand_fields) != 2:
        raise refuse(game, text, f"the cows in hand {hands!r} are not WHITE,BLACK", form)
    in_hand = [counter(game, text, h, "cows in hand", form, 0, cows) for h in hand_fields]
    names = game.player_names
    for side in (0, 1):
        total = stones[side].bit_count() + in_hand[side]
        if total > cows:
            raise refuse(game, text, f"{names[side]} has {total} cows on the board and in hand; this variant has {cows}", form)
        # A player down to two cows loses at its turn, so only the player to move can have two.
        if total < (2 if side == to_move else 3):
            raise refuse(game, text, f"{names[side]} has {total} cows: a game ends when the player to move is down to two", form)
    placed = [cows - in_hand[0], cows - in_hand[1]]
    # White places first and the players alternate: while cows are in hand, White has placed one
    # more than Black exactly when Black is to move.
    expected = (1 if to_move == 1 else 0) if in_hand[0] or in_hand[1] else 0
    if placed[0] - placed[1] != expected:
        raise refuse(
            game, text,
            f"White has placed {placed[0]} cows and Black {placed[1]} with {names[to_move]} to move: "
            "White places first and the players alternate", form,
        )
    cap = p["max_plies"] or 10000
    played = counter(game, text, plies, "the plies played", form, 0, cap)
    shot_limit = p["no_shot_draw_plies"] or 10000
    three_limit = p["three_cow_draw_plies"] or 10000
    no_shot_plies = counter(game, text, no_shot, "the plies without a shot", form, 0, min(played, shot_limit))
    three_cow_plies = counter(game, text, three_cow, "the three-cow plies", form, 0, min(played, three_limit))
    if played < sum(placed):
        raise refuse(game, text, f"{played} plies played, but {sum(placed)} cows have been placed", form)
    sides = blocked.split("/")
    if len(sides) != 2:
        raise refuse(game, text, f"the blocked mills {blocked!r} are not WHITE/BLACK (- for none)", form)
    lines = board.lines_of(p["diagonals"])
    by_name = {board.mill_name(m): m for m in range(len(lines))}
    blocked_masks = []
    for side, listed in zip((0, 1), sides):
        mask = 0
        for name in ([] if listed == "-" else listed.split(",")):
            if name not in by_name:
                raise refuse(game, text, f"{name!r} is not a mill of this board (write its points along the line, as a7-d7-g7)", form)
            mask |= 1 << by_name[name]
        if mask and p["no_immediate_remill"] == "off":
            raise refuse(game, text, "blocked mills exist only under no_immediate_remill, which this variant has off", form)
        blocked_masks.append(mask)
    buf = np.zeros(1, kernels.STATE_DTYPE)
    record = buf[0]
    game._init_record(record, None)
    for side in (0, 1):
        record["cows"][side] = stones[side]
        record["in_hand"][side] = in_hand[side]
        record["blocked"][side] = blocked_masks[side]
    record["to_move"] = to_move
    record["plies"] = played
    record["no_shot"] = no_shot_plies
    record["three_cow"] = three_cow_plies
    kernels.settle(record)
    return State(game, buf, None, custom_start=True)
