"""A parseable illegal move of each game, found in a position of a game being played: what the
server tests send through HTTP and the browser tests click, to see the engine's reason come
back (``Game.illegal_reason``). Each finder returns ``(notation, clicks, move id)`` or None when
the position has no such move yet."""

from __future__ import annotations


def empty_pit(seen):
    """Kalah: a pit of the mover's that a move of theirs has emptied."""
    me = seen.current_player
    for j, seeds in enumerate(seen.board()["pits"][me]):
        if seeds == 0:
            letter = "abcdefgh"[j]
            return letter, [f"pit-{me}-{letter}"], seen.parse_move(letter)
    return None


def slide_to_an_occupied_point(seen):
    """Morabaraba: once the cows are placed, one of the mover's cows to a point that holds a cow."""
    from board_arena.engines.morabaraba import POINT_OF, encode

    board = seen.board()
    me = seen.current_player
    if board["stage"][me] == "placing":
        return None
    frm = board["cows"][me][0]
    to = board["cows"][1 - me][0]
    return f"{frm}-{to}", [frm, to], encode(POINT_OF[frm], POINT_OF[to])


def jump_it_cannot_make(seen):
    """Konane: one of the mover's stones, then the point two rows up or down that it cannot reach."""
    board = seen.board()
    if board["opening"]:  # the classic opening's removals first
        return None
    me = seen.current_player
    size = board["size"]
    for stone in board["stones"][me]:
        for rows in (2, -2):
            row = int(stone[1:]) + rows
            if 1 <= row <= size:
                target = f"{stone[0]}{row}"
                move = seen.parse_move(f"{stone}-{target}")
                if not seen.is_legal(move):
                    return f"{stone}-{target}", [stone, target], move
    return None


def tile_that_fits_neither_end(seen):
    """Dominoes: after the lead, a tile of the mover's hand that matches neither open end."""
    board = seen.board()
    if board["ends"] is None:
        return None
    for tile in board["hands"][seen.current_player]:
        if not set(map(int, tile.split("-"))) & set(board["ends"]):
            return f"{tile}L", [f"tile-{tile}", "end-L"], seen.parse_move(f"{tile}L")
    return None


def marked_cell(seen):
    """Tic-tac-toe: a cell marked already."""
    for row, marks in zip("321", seen.board()["rows"]):
        for column, mark in zip("abc", marks):
            if mark != ".":
                return f"{column}{row}", [f"{column}{row}"], seen.parse_move(f"{column}{row}")
    return None


#: (game, variant parameters, finder): every game, each with a move the engine refuses.
ILLEGAL_MOVES = [
    ("kalah", {}, empty_pit),
    ("mancala", {}, empty_pit),
    ("morabaraba", {"cows": 6}, slide_to_an_occupied_point),
    ("nine-mens-morris", {"cows": 6}, slide_to_an_occupied_point),
    ("konane", {}, jump_it_cannot_make),
    ("konane-classic", {}, jump_it_cannot_make),
    ("dominoes", {}, tile_that_fits_neither_end),
    ("dominoes-block", {}, tile_that_fits_neither_end),
    ("tictactoe", {}, marked_cell),
]
