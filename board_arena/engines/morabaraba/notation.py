"""Morabaraba's notation: points named as on the drawn board (columns a-g, rows 1-7), ``d6``
places, ``a7-d7`` slides or flies, ``x`` and a point shoots (``a7-d7xg7``, ``d6xg1``); and the
board drawn in ASCII or Unicode."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable

from board_arena.engines.errors import IllegalMoveError
from board_arena.engines.morabaraba import board, kernels
from board_arena.engines.morabaraba.board import POINT_NAMES, POINT_OF, mill_name
from board_arena.engines.morabaraba.fen import read_fen, write_fen
from board_arena.engines.notation import Notation, wrap_paragraphs
from board_arena.engines.style import Style

if TYPE_CHECKING:
    from board_arena.engines.game import State
    from board_arena.engines.morabaraba import Morabaraba

__all__ = ["MorabarabaNotation", "decode", "encode", "points_of", "point_list", "mill_list", "parse_point"]

_MOVE_RE = re.compile(r"^([a-z]\d)(?:[-:]?([a-z]\d))?(?:[x*×]([a-z]\d))?$")
_ANY_SQUARE = re.compile(r"[a-z]\d")
_COLOURS = ("W", "B")
_UNICODE_COWS = ("\u25cb", "\u25cf")  # white and black circles


def decode(move: int) -> tuple[int, int, int]:
    """``(frm, to, shot)`` of a move id (``frm`` PLACE for a placement, ``shot`` NO_SHOT if none):
    ``kernels.decode_move``."""
    frm, to, shot = kernels.decode_move(int(move))
    return int(frm), int(to), int(shot)


def encode(frm: int, to: int, shot: int = kernels.NO_SHOT) -> int:
    """The move id of ``(frm, to, shot)``: ``kernels.encode_move``."""
    return int(kernels.encode_move(frm, to, shot))


def points_of(bits: int) -> list[int]:
    """The points of a bitmask (bit p: point p), in board order."""
    return [p for p in range(board.N_POINTS) if bits >> p & 1]


def point_list(points: Iterable[int]) -> str:
    """The points' names separated by spaces, e.g. ``a7 d7 g7``."""
    return " ".join(POINT_NAMES[p] for p in points)


def mill_list(mills: int) -> str:
    """The mills of a bitmask (bit m: mill m of ``board.LINES``), e.g. ``a4-b4-c4, c5-c4-c3``."""
    return ", ".join(mill_name(m) for m in range(board.N_MILLS) if mills >> m & 1)


def parse_point(text: str, where: str = "") -> int:
    """The point named ``text`` (``"d6"``).

    Raises:
        ValueError: no point has that name (the message lists the points; ``where`` says whose).
    """
    name = text.strip().lower()
    if name not in POINT_OF:
        raise ValueError(f"{text.strip()} is not a point of the board{where}; points: {point_list(range(24))}")
    return POINT_OF[name]


class MorabarabaNotation(Notation):
    game: Morabaraba
    player_colors = ("white", "black")
    MOVE_IDS = "from * 1024 + to * 32 + shot, with from 0-23 or 24 to place, to 0-23, shot 0-23 or 24 for none"

    HELP = """\
Each player has {cows} cows. First the players take turns placing a cow on an empty point; when all
are placed, a move slides one of your cows along a line to the next empty point, and a player
with only three cows left flies: moves one to any empty point. Three of your cows on one line
(a mill; {lines}) shoot one opponent cow: it must be a cow outside mills, unless all of them stand
in mills. {remill} A player left with two cows, or with no move on their turn, loses.{draws}

Points are named by column a-g and row 1-7 as printed. Write a placement as the point (d6), a slide
or flight as from-to (a7-d7), and add the cow you shoot after an x: d6xg1, a7-d7xg7."""

    _REMILL_HELP = {
        "off": "Every time a mill is formed it shoots, also a mill broken and remade by moving a cow "
        "back and forth.",
        "no-shot": "A mill may be broken and remade, and shoots each time, with one exception: when "
        "a move breaks a mill and forms another, the broken mill shoots nothing if you remake it "
        "with your very next move (wait one move before remaking it).",
        "forbidden": "A mill may be broken and remade, and shoots each time, with one exception: when "
        "a move breaks a mill and forms another, you may not remake the broken mill with your very "
        "next move (wait one move before remaking it).",
    }

    def fen(self, state: State) -> str:
        return write_fen(state)

    def parse_fen(self, text: str) -> State:
        return read_fen(self.game, text)

    def help_text(self) -> str:
        p = self.game.params
        lines = "rows, columns and diagonals as drawn" if p["diagonals"] else "rows and columns as drawn"
        draws = []
        if p["three_cow_draw_plies"]:
            draws.append(f"after {p['three_cow_draw_plies']} moves without a shot while a player has three cows")
        if p["no_shot_draw_plies"]:
            draws.append(f"after {p['no_shot_draw_plies']} moves of sliding without a shot")
        draw_text = f" The game is drawn {', or '.join(draws)}." if draws else ""
        if p["max_plies"]:
            draw_text += f" A game still going after {p['max_plies']} moves in all is stopped as a draw (ply cap)."
        remill = self._REMILL_HELP[p["no_immediate_remill"]]
        return wrap_paragraphs(self.HELP.format(cows=p["cows"], lines=lines, remill=remill, draws=draw_text))

    def format_move(self, state: State, move: int) -> str:
        frm, to, shot = decode(move)
        text = POINT_NAMES[to] if frm == kernels.PLACE else f"{POINT_NAMES[frm]}-{POINT_NAMES[to]}"
        return text if shot == kernels.NO_SHOT else f"{text}x{POINT_NAMES[shot]}"

    def parse_move(self, state: State, text: str) -> int:
        word = re.sub(r"\s+", "", str(text).lower())
        match = _MOVE_RE.match(word)
        if match is None:
            for square in _ANY_SQUARE.findall(word):
                parse_point(square)
            raise ValueError(
                f"{str(text).strip()!r} is not a move: write d6 to place a cow, a7-d7 to slide or "
                "fly one, and add the cow to shoot after an x when the move forms a mill (a7-d7xg7)"
            )
        first, second, shot = match.groups()  # the regular expression makes the first point
        frm, to = (kernels.PLACE, parse_point(first)) if not second else (parse_point(first), parse_point(second))
        move = encode(frm, to, parse_point(shot) if shot else kernels.NO_SHOT)
        why = self.game.illegal_reason(state, move)
        if why is not None:
            raise IllegalMoveError(why)
        return move

    def render(self, state: State, *, color: bool = False, unicode: bool = False) -> str:
        style = Style(color, unicode, self.player_colors)
        s = state.data
        cows = [int(s["cows"][p]) for p in (0, 1)]
        pieces = _UNICODE_COWS if unicode else _COLOURS
        empty = "\u00b7" if unicode else "."
        grid = [list(row) for row in (_BOARD_DIAGONALS if s["diagonals"] else _BOARD_PLAIN)]
        if unicode:
            table = str.maketrans({"-": "\u2500", "|": "\u2502", "/": "\u2571", "\\": "\u2572"})
            grid = [list("".join(row).translate(table)) for row in grid]
        for p, (x, y) in enumerate(_CELL):
            owner = 0 if cows[0] >> p & 1 else 1 if cows[1] >> p & 1 else None
            grid[y][x] = empty if owner is None else style.player(owner, pieces[owner], bold=True)
        lines = [f"{7 - y // 2 if y % 2 == 0 else ' '}  " + "".join(row).rstrip() for y, row in enumerate(grid)]
        lines.append("   a   b   c   d   e   f   g")
        for p in (0, 1):
            mark = style.player(p, pieces[p], bold=True)
            lines.append(
                f"{mark} {self.game.player_names[p]}: {int(s['in_hand'][p])} in hand, "
                f"{cows[p].bit_count()} on the board, {self.game.stage(state, p)}"
            )
        notes = []
        if state.history:
            notes.append(f"last move {self.format_move(state, state.history[-1])}")
        notes.append(f"ply {int(s['plies'])}" + (f"/{int(s['max_plies'])}" if s["max_plies"] else ""))
        if s["no_shot_limit"] and s["no_shot"]:
            notes.append(f"{int(s['no_shot'])}/{int(s['no_shot_limit'])} plies without a shot")
        if s["three_cow_limit"] and s["three_cow"]:
            notes.append(f"three-cow count {int(s['three_cow'])}/{int(s['three_cow_limit'])}")
        lines.append(", ".join(notes))
        for p in (0, 1):
            if s["blocked"][p]:
                names = mill_list(int(s["blocked"][p]))
                lines.append(f"{self.game.player_names[p]}'s next move may not count the mill {names}")
        lines.append(self.game.status_line(state))
        return "\n".join(lines)


# The drawn board, one character per column; the points sit at columns 0, 4, ..., 24 of the even
# rows (column letter a-g, row 7 at the top).
_BOARD_DIAGONALS = (
    "+-----------+-----------+",
    "|  \\        |        /  |",
    "|   +-------+-------+   |",
    "|   | \\     |     / |   |",
    "|   |   +---+---+   |   |",
    "|   |   |       |   |   |",
    "+---+---+       +---+---+",
    "|   |   |       |   |   |",
    "|   |   +---+---+   |   |",
    "|   | /     |     \\ |   |",
    "|   +-------+-------+   |",
    "|  /        |        \\  |",
    "+-----------+-----------+",
)
_BOARD_PLAIN = tuple(row.replace("\\", " ").replace("/", " ") for row in _BOARD_DIAGONALS)
_CELL = [(4 * "abcdefg".index(n[0]), 2 * (7 - int(n[1]))) for n in POINT_NAMES]
