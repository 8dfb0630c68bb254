"""Konane's notation: a jump as its start and landing points (``c3-c5``, ``c3-c5-c7`` or
``c3-c7``), ``pass``, and in the classic opening ``xd4`` to remove a stone; columns a.. from the
left, rows 1.. from the bottom, as the board is drawn."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

import numpy as np

from board_arena.engines.errors import IllegalMoveError
from board_arena.engines.konane import kernels
from board_arena.engines.konane.fen import read_fen, write_fen
from board_arena.engines.notation import Notation, wrap_paragraphs
from board_arena.engines.style import Style

if TYPE_CHECKING:
    from board_arena.engines.game import State

__all__ = ["KonaneNotation", "square_name", "parse_square", "jump_path", "move_path", "path_move", "is_jump_id", "HEADINGS"]

_FILES = "abcdefgh"
_SQUARE = re.compile(r"([a-z])(\d+)$")


def square_name(sq: int) -> str:
    """``a1`` for square 0 (the kernels' ``8 * row + col``)."""
    return f"{_FILES[sq & 7]}{(sq >> 3) + 1}"


#: The words of the kernels' directions 0-3.
HEADINGS = ("east", "north", "west", "south")


def jump_path(move: int) -> tuple[list[int], list[int]]:
    """The squares a jump move visits, start first (``[from, landing 1, ...]``), and the direction
    of each jump (0 east, 1 north, 2 west, 3 south): ``kernels.write_path``.

    Only for jump ids (not PASS or removals); a turn code 3 (straight back) is followed as written.
    """
    squares = np.empty(kernels.MAX_JUMPS + 1, np.int64)
    directions = np.empty(kernels.MAX_JUMPS, np.int64)
    jumps = int(kernels.write_path(int(move), squares, directions))
    return squares[: jumps + 1].tolist(), directions[:jumps].tolist()


def move_path(move: int) -> list[int]:
    """The squares a jump move visits, start first: ``[from, landing 1, landing 2, ...]``."""
    return jump_path(move)[0]


def path_move(path: Sequence[int]) -> int:
    """The id of the jump move through ``path`` (squares, each two points from the one before,
    orthogonally; at most ``MAX_JUMPS`` jumps): ``kernels.path_id``."""
    return int(kernels.path_id(np.asarray(path, dtype=np.int64), len(path) - 1))


def is_jump_id(move: int) -> bool:
    """True for ids that name a jump path (whether or not it is legal anywhere)."""
    return 0 <= move < kernels.MOVE_BOUND and bool(kernels.is_path_id(move))


def parse_square(word: str, size: int) -> int:
    """The square of the point written ``word`` (``"c3"``) on a ``size`` x ``size`` board.

    Raises:
        ValueError: ``word`` is not a point of the board (the message says how to write one).
    """
    match = _SQUARE.match(word)
    last = f"{_FILES[size - 1]}{size}"
    if not match:
        raise ValueError(
            f"{word!r} is not a point: write a column a-{_FILES[size - 1]} and a row 1-{size}, e.g. c3"
        )
    col, row = _FILES.find(match[1]), int(match[2]) - 1
    if not (0 <= col < size and 0 <= row < size):
        raise ValueError(f"{word} is not a point of the {size}x{size} board (a1 to {last})")
    return 8 * row + col


class KonaneNotation(Notation):
    player_colors = ("black", "white")
    MOVE_IDS = "a jump path id, a removal (768 + square) or the pass (832); see engines.konane.kernels"
    HELP = """\
A move jumps one of your stones over an adjacent opponent stone (left, right, up or down, never
diagonally) into the empty point just beyond, capturing it. The same stone may jump again and may
stop after any jump. Write a move as its start and landing points, e.g. c3-c5 or c3-c5-c7 (c3-c7
for short); columns a.. from the left, rows 1.. from the bottom, as printed."""

    def fen(self, state: State) -> str:
        return write_fen(state)

    def parse_fen(self, text: str) -> State:
        return read_fen(self.game, text)

    def help_text(self) -> str:
        p = self.game.params
        rules = [
            "A multi-jump may change direction between jumps."
            if p["turning_jumps"]
            else "Every jump of a multi-jump keeps the first jump's direction.",
            "Opening: Black first removes one of its stones at a corner or the centre (xd4), then "
            "White one of its stones next to that gap."
            if p["opening"] == "classic"
            else "One black and one white stone were removed at random before the game.",
            "A player with no jump passes (type pass); the game ends when neither can jump. One "
            "point per captured stone: most points wins."
            if p["scoring"] == "captures"
            else "There is no passing: the player who cannot jump on their turn loses.",
        ]
        return wrap_paragraphs(self.HELP + "\n\n" + " ".join(rules))

    def format_move(self, state: State, move: int) -> str:
        if move == kernels.PASS:
            return "pass"
        if kernels.REMOVE_BASE <= move < kernels.PASS:
            return "x" + square_name(move - kernels.REMOVE_BASE)
        return "-".join(square_name(sq) for sq in move_path(move))

    def _point(self, word: str) -> int:
        return parse_square(word, self.game.params["size"])

    def parse_move(self, state: State, text: str) -> int:
        """Reads ``c3-c5-c7``, ``c3-c7``, ``pass``, ``xd4`` / ``remove d4`` / ``d4``.

        A path lists the start, then landing points; a straight run may be written by its ends
        only (``c3-c7`` is ``c3-c5-c7``), so with ``turning_jumps`` write every turning point.

        Raises:
            IllegalMoveError: the path is not made of jumps (a diagonal, one point, an odd distance).
            ValueError: the text is not a move.
        """
        word = text.strip().lower()
        if word == "pass":
            return kernels.PASS
        removal = re.fullmatch(r"(x|remove\s*)?([a-z]\d+)", word)
        if removal:
            if removal[1] is None and state.data["phase"] == kernels.PHASE_PLAY:
                raise ValueError(f"{text.strip()!r}: write a jump as its start and landing points, e.g. c3-c5")
            return kernels.REMOVE_BASE + self._point(removal[2])
        parts = re.split(r"\s*-\s*", word)
        if len(parts) < 2 or not all(parts):
            raise ValueError(
                f"{text.strip()!r} is not a move: write a jump as c3-c5 (c3-c5-c7 for more), "
                "'pass', or in the classic opening xd4"
            )
        points = [self._point(p) for p in parts]
        path = [points[0]]
        for a, b in zip(points, points[1:]):
            d, distance = (int(x) for x in kernels.segment(a, b))
            where = f"{square_name(a)}-{square_name(b)}"
            if d < 0:
                raise IllegalMoveError(f"{where} is diagonal: stones jump only orthogonally (along a row or a column)")
            if distance == 0:
                raise IllegalMoveError(f"{where} does not move: each jump lands two points away")
            if distance % 2:
                raise IllegalMoveError(
                    f"{where} is {distance} point{'s' if distance > 1 else ''} long: a jump goes over the "
                    "adjacent stone to the point just beyond it (two points away)"
                )
            step = 2 * int(kernels.DELTA[d])  # one jump
            path.extend(a + step * i for i in range(1, distance // 2 + 1))
        if len(path) - 1 > kernels.MAX_JUMPS:
            raise IllegalMoveError(
                f"{text.strip()!r} has {len(path) - 1} jumps; no move has more than {kernels.MAX_JUMPS}"
            )
        return path_move(path)

    def legal_move_list(self, state: State) -> list[str]:
        """The legal moves for a person: by stone (start point a1, b1, ... then a2, ...), shorter
        paths first. ``state.legal_move_names()`` gives the same moves in the engine's order."""

        def key(move):
            path = move_path(move) if is_jump_id(move) else [move]  # removals by point, or a pass
            return (path[0], len(path), path)

        return [self.format_move(state, m) for m in sorted(state.legal_moves(), key=key)]

    def render(self, state: State, *, color: bool = False, unicode: bool = False) -> str:
        """The board, top row first, with its coordinates, the captures and who moves. Stones are
        ``B`` / ``W`` in ASCII (as text 003 draws them, and as ``position`` reads them back),
        discs in Unicode."""
        style = Style(color, unicode, self.player_colors)
        data = state.data
        size = self.game.params["size"]
        stones = [int(data["stones"][0]), int(data["stones"][1])]
        signs = [style.piece(p) if unicode else style.player(p, "BW"[p], bold=True) for p in (0, 1)]
        empty = style.empty_point()
        files = "   " + " ".join(_FILES[:size])
        lines = [files]
        for row in range(size - 1, -1, -1):
            cells = []
            for col in range(size):
                sq = 8 * row + col
                cells.append(signs[0] if stones[0] >> sq & 1 else signs[1] if stones[1] >> sq & 1 else empty)
            lines.append(f"{row + 1:>2} " + " ".join(cells) + f" {row + 1}")
        lines.append(files)
        captured = f"captured: Black {int(data['captures'][0])}, White {int(data['captures'][1])}; "
        if state.is_terminal():
            lines.append(captured + style.bold(self.game.result_text(state)))
        else:
            mover = state.current_player
            doing = "to remove a stone" if data["phase"] != kernels.PHASE_PLAY else "to move"
            lines.append(captured + style.player(mover, f"{self.game.player_names[mover]} {doing}", bold=True))
        return "\n".join(lines)
