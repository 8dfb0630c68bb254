"""Mancala's position string: ``SOUTH/NORTH STORE_S STORE_N MOVER``.

``SOUTH`` and ``NORTH`` are each row's seed counts, comma-separated, from its owner's left (pit
``a`` first, as the notation letters them); then the two stores and the player to move (``S`` or
``N``). The start of Kalah is ``4,4,4,4,4,4/4,4,4,4,4,4 0 0 S``. The seeds on the board must add
up to the variant's ``2 * pits * seeds``; a row is empty only once the game is over, when the
rules have swept both rows into the stores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from board_arena.engines.fen import counter, fen_fields, refuse
from board_arena.engines.mancala import kernels

if TYPE_CHECKING:
    from board_arena.engines.game import Game, State

__all__ = ["write_fen", "read_fen", "FORM"]

FORM = "SOUTH/NORTH STORE_S STORE_N MOVER, e.g. 4,4,4,4,4,4/4,4,4,4,4,4 0 0 S (pits from each owner's left, mover S or N)"
_MOVERS = "SN"


def write_fen(state: State) -> str:
    south, north = kernels.pit_counts(state.data)
    stores = [int(n) for n in state.data["stores"]]
    rows = "/".join(",".join(str(n) for n in row) for row in (south, north))
    return f"{rows} {stores[0]} {stores[1]} {_MOVERS[int(state.data['to_move'])]}"


def read_fen(game: Game, text: str) -> State:
    from board_arena.engines.game import State

    pits, seeds = game.params["pits"], game.params["seeds"]
    form = FORM.replace("4,4,4,4,4,4", ",".join(["4"] * pits)) if pits != 6 else FORM
    board, store_s, store_n, mover = fen_fields(game, text, 4, form)
    halves = board.split("/")
    if len(halves) != 2:
        raise refuse(game, text, "the board is two rows separated by one /", form)
    rows = []
    total = 2 * pits * seeds
    for name, half in zip(("South", "North"), halves):
        counts = half.split(",")
        if len(counts) != pits:
            raise refuse(game, text, f"{name}'s row has {len(counts)} pits; this variant has {pits}", form)
        rows.append([counter(game, text, c, f"a pit of {name}", form, 0, total) for c in counts])
    stores = (counter(game, text, store_s, "South's store", form, 0, total),
              counter(game, text, store_n, "North's store", form, 0, total))
    if mover not in _MOVERS:
        raise refuse(game, text, f"the mover {mover!r} is neither S nor N", form)
    on_board = sum(rows[0]) + sum(rows[1]) + sum(stores)
    if on_board != total:
        raise refuse(game, text, f"{on_board} seeds in all; this variant has {total} ({pits} pits x {seeds} seeds x 2)", form)
    over = not any(rows[0]) and not any(rows[1])
    if not over and (not any(rows[0]) or not any(rows[1])):
        raise refuse(game, text, "one row is empty and the other is not: the game would be over, its seeds swept", form)
    buf = np.zeros(1, kernels.STATE_DTYPE)
    record = buf[0]
    game._init_record(record, None)
    for p, row in enumerate(rows):
        record["rows"][p] = sum(n << (8 * j) for j, n in enumerate(row))
    record["stores"][:] = stores
    record["to_move"] = _MOVERS.index(mover)
    record["terminal"] = int(over)
    return State(game, buf, None, custom_start=True)
