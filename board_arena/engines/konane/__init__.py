"""Konane: the Hawaiian jumping game, text 003's capture-scored game and the classic one.

=============  ===================================================================================
Rules          ``docs/rules.md`` (Konane) and text 003. A ``size`` x ``size`` board full of
               stones in a checkerboard, black on the top-left point, opened by removing one black
               and one white stone. A move jumps one stone orthogonally over an adjacent opponent
               stone into the empty point beyond, capturing it; the same stone may go on jumping
               and may stop after any jump. A player without a jump passes; the game ends when
               neither player can jump.
Players        Black (player 0, moves first) and White (player 1).
Moves          ``c3-c5`` (a jump), ``c3-c5-c7`` or ``c3-c7`` (a double jump: every landing point,
               or only the start, the turning points and the end), ``pass``, and in the classic
               opening ``xd4`` (also ``remove d4``, or ``d4``) to remove a stone. Columns a.. from
               the left, rows 1.. from the bottom, as drawn by ``render``. Ids: see
               ``engines.konane.kernels``; ``game.legal_move_list(state)`` lists the legal moves
               for a person, by stone.
Actions        by start point: each direction and length of a straight jump (145 on
               text 003's 6x6), or every path a stone could take with ``turning_jumps``;
               the classic opening's removals; ``pass``. Observation ``(6, size, size)``
               float32: see ``kernels.write_observation``.
Returns        by captures (text 003): 1 / 0 / -1 by stones captured, ``score`` is black's captures
               minus white's; or under normal play (classic) -1 for the player who cannot jump on
               their turn (``score`` still the capture difference).
Presets        ``konane`` (text 003: 6x6, random opening, capture scoring) and ``konane-classic``
               (the traditional opening as moves of the game, the last player to move wins).
Parameters     ``size`` 4..8 (6); ``turning_jumps`` (False): a multi-jump may change direction;
               ``scoring`` ``"captures"`` | ``"last-move"``; ``opening`` ``"random"`` (any black and
               any white stone, drawn from the game's seed) | ``"random-adjacent"`` (a random
               adjacent pair) | ``"classic"`` (black removes a corner or centre stone, then white
               one next to the gap, as moves).
=============  ===================================================================================
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any, ClassVar, Sequence

import numpy as np

from board_arena.engines.game import (
    Game,
    IllegalMoveError,
    Param,
    State,
    wrap_paragraphs,
)
from board_arena.engines.konane import kernels
from board_arena.engines.style import Style
from board_arena.kernels import rng_from_seed

_FILES = "abcdefgh"
_BLACK_SIGNS = frozenset("bBx●⚫")
_WHITE_SIGNS = frozenset("wWo○⚪")
_EMPTY_SIGNS = frozenset(".-_·+")
_SQUARE = re.compile(r"([a-z])(\d+)$")
_OPENINGS = {
    "random": kernels.OPENING_RANDOM,
    "random-adjacent": kernels.OPENING_RANDOM_ADJACENT,
    "classic": kernels.OPENING_CLASSIC,
}
_SCORINGS = {"captures": kernels.SCORING_CAPTURES, "last-move": kernels.SCORING_LAST_MOVE}


def square_name(sq: int) -> str:
    """``a1`` for square 0 (the kernels' ``8 * row + col``)."""
    return f"{_FILES[sq & 7]}{(sq >> 3) + 1}"


_HEADINGS = ("east", "north", "west", "south")  # the kernels' directions 0-3


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


class Konane(Game):
    family = "konane"
    summary = "Hawaiian checkers: jump and capture orthogonally, multi-jumps; last move or most captures wins"
    kernels: ClassVar[ModuleType] = kernels
    web_drawing = "web.js"

    @property
    def random_start(self) -> bool:
        """Text 003's openings are drawn from the seed; the classic one is played as moves."""
        return self.params["opening"] != "classic"
    player_names = ("Black", "White")
    player_colors = ("black", "white")
    PARAMS = (
        Param("size", 6, "the board is size x size points", low=kernels.MIN_SIZE, high=kernels.MAX_SIZE),
        Param(
            "turning_jumps",
            False,
            "a multi-jump may change direction between jumps (default: every jump keeps the first one's direction)",
        ),
        Param(
            "scoring",
            "captures",
            "'captures': a point per captured stone, more points wins (text 003); "
            "'last-move': normal play, who cannot jump on their turn loses, no passes",
            choices=tuple(_SCORINGS),
        ),
        Param(
            "opening",
            "random",
            "'random': one black and one white stone removed at random, any stones (text 003); "
            "'random-adjacent': a random adjacent pair; 'classic': the players remove them as moves",
            choices=tuple(_OPENINGS),
        ),
    )
    PRESETS = {
        "konane": {},
        "konane-classic": {"opening": "classic", "scoring": "last-move"},
    }
    HELP = """\
A move jumps one of your stones over an adjacent opponent stone (left, right, up or down, never
diagonally) into the empty point just beyond, capturing it. The same stone may jump again and may
stop after any jump. Write a move as its start and landing points, e.g. c3-c5 or c3-c5-c7 (c3-c7
for short); columns a.. from the left, rows 1.. from the bottom, as printed."""

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(6, size, size)``: planes over the points (``kernels.write_observation``)."""
        size = self.params["size"]
        return (kernels.OBSERVATION_PLANES, size, size)

    @property
    def start_code(self) -> int:
        return _OPENINGS[self.params["opening"]]

    def _action_moves(self) -> np.ndarray:
        # By start point (a1, b1, ..., row by row): every move the stone could ever make
        # (kernels.jump_paths: straight jumps by direction and length, or with turning jumps
        # every path); then the classic opening's removals, then the pass (capture scoring only:
        # normal play has none).
        size = self.params["size"]
        squares = [8 * row + col for row in range(size) for col in range(size)]
        moves: list[int] = []
        out = np.empty(kernels.MAX_MOVES, np.int64)
        for sq in squares:
            n = kernels.jump_paths(size, int(self.params["turning_jumps"]), sq, out)
            moves.extend(out[:n].tolist())
        if self.params["opening"] == "classic":
            moves.extend(kernels.REMOVE_BASE + sq for sq in squares)
        if self.params["scoring"] == "captures":
            moves.append(kernels.PASS)
        return np.array(moves, dtype=np.int64)

    def _init_record(self, record: np.void, seed: int | None) -> None:
        p = self.params
        kernels.init_state(
            record,
            p["size"],
            int(p["turning_jumps"]),
            _SCORINGS[p["scoring"]],
            _OPENINGS[p["opening"]],
            rng_from_seed(0 if seed is None else seed),
        )

    def position(self, board: str, to_move: str | int = "black", captures: tuple[int, int] = (0, 0)) -> State:
        """A set-up position (the game in play, past the opening) from a drawing of the board.

        Args:
            board: ``size`` rows of ``size`` points, the top row first as ``render`` draws them:
                ``B`` (or ``x``, ``●``) black, ``W`` (or ``o``, ``○``) white, ``.`` empty;
                spaces are ignored. Each stone must stand on its own colour of point (black on
                the top-left point's colour), since stones never leave it.
            to_move: ``"black"`` / ``"white"`` or 0 / 1.
            captures: stones captured so far by black and by white.

        Example:
            >>> from board_arena import engines
            >>> game = engines.make("konane", size=4)
            >>> state = game.position('''
            ...     B W . .
            ...     . . . .
            ...     . . . .
            ...     . . . .''')
            >>> state.legal_move_names()
            ['a4-c4']
        """
        size = self.params["size"]
        rows = [row.replace(" ", "") for row in board.strip().splitlines()]
        if len(rows) != size or any(len(row) != size for row in rows):
            raise ValueError(f"the board must have {size} rows of {size} points, got {[len(r) for r in rows]}")
        stones = [0, 0]
        black_squares = int(kernels.BB_BLACK_SQUARES[size])
        for i, row in enumerate(rows):
            for col, sign in enumerate(row):
                sq = 8 * (size - 1 - i) + col
                if sign in _EMPTY_SIGNS:
                    continue
                if sign not in _BLACK_SIGNS and sign not in _WHITE_SIGNS:
                    raise ValueError(f"{square_name(sq)}: {sign!r} is not a point: write B, W or .")
                colour = 0 if sign in _BLACK_SIGNS else 1
                if bool(black_squares >> sq & 1) != (colour == 0):
                    raise ValueError(
                        f"{square_name(sq)} is a {'white' if colour == 0 else 'black'} point: "
                        f"{self.player_names[colour].lower()} stones stand only on their own colour"
                    )
                stones[colour] |= 1 << sq
        players = {"black": 0, "white": 1, 0: 0, 1: 1}
        if to_move not in players:
            raise ValueError(f"to_move must be 'black', 'white', 0 or 1, not {to_move!r}")
        if len(captures) != 2 or not all(isinstance(c, (int, np.integer)) and 0 <= c <= 32 for c in captures):
            raise ValueError(f"captures must be two counts from 0 to 32, not {captures!r}")
        buf = np.zeros(1, kernels.STATE_DTYPE)
        record = buf[0]
        self._init_record(record, 0)
        record["stones"][:] = stones
        record["captures"][:] = captures
        record["to_move"] = players[to_move]
        record["phase"] = kernels.PHASE_PLAY
        record["terminal"] = 0
        kernels.settle(record)
        return State(self, buf, None, custom_start=True)

    # -- notation ------------------------------------------------------------------------------

    def format_move(self, state: State, move: int) -> str:
        if move == kernels.PASS:
            return "pass"
        if kernels.REMOVE_BASE <= move < kernels.PASS:
            return "x" + square_name(move - kernels.REMOVE_BASE)
        return "-".join(square_name(sq) for sq in move_path(move))

    def _square(self, word: str) -> int:
        size = self.params["size"]
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
            return kernels.REMOVE_BASE + self._square(removal[2])
        parts = re.split(r"\s*-\s*", word)
        if len(parts) < 2 or not all(parts):
            raise ValueError(
                f"{text.strip()!r} is not a move: write a jump as c3-c5 (c3-c5-c7 for more), "
                "'pass', or in the classic opening xd4"
            )
        points = [self._square(p) for p in parts]
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

    # -- the browser: a stone, then each landing point; a stone to remove; pass ----------------

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
            legal = state.is_legal(self.parse_move(state, self.move_from_clicks(state, clicks)))
        except ValueError:
            return None
        return "Jump again, or click Stop here (or the stone again)." if legal else None

    # -- explanations --------------------------------------------------------------------------

    MOVE_IDS = "a jump path id, a removal (768 + square) or the pass (832); see engines.konane.kernels"

    def _reason_words(self, state: State, move: int, code: int) -> str:
        """Words for the kernel's codes; a code about one jump carries its index (kernels)."""
        k = kernels
        reason, step = code & 0xFF, code >> k.REASON_STEP_SHIFT
        me = int(state.data["to_move"])
        mine, theirs = self.player_names[me].lower(), self.player_names[1 - me].lower()
        size = self.params["size"]
        moves = self.legal_move_list(state)
        legal = ", ".join(moves[:12]) + (f", ... ({len(moves)} in all)" if len(moves) > 12 else "")
        if reason == k.REASON_OPENING_FIRST:
            what = (
                "black removes one of its stones at a corner or the centre"
                if state.data["phase"] == k.PHASE_BLACK_REMOVES
                else "white removes one of its stones next to the gap"
            )
            return f"the classic opening comes first: {what} (write it like xd4; legal: {legal})"
        if reason == k.REASON_PASS_NORMAL_PLAY:
            return f"there is no passing under normal play (scoring='last-move'); legal: {legal}"
        if reason == k.REASON_PASS_WITH_JUMP:
            return f"you may pass only when you have no jump, and you have one: {legal}"
        if reason == k.REASON_REMOVE_AFTER_OPENING:
            return f"stones are removed only in the classic opening; legal: {legal}"
        is_removal = k.REMOVE_BASE <= move < k.PASS
        path, directions = ([move - k.REMOVE_BASE], []) if is_removal else jump_path(move)
        where = square_name(path[0]) if path[0] < 64 else str(path[0])
        if reason == k.REASON_OFF_BOARD:
            return f"{where} is not a point of the {size}x{size} board; legal: {legal}"
        if reason == k.REASON_REMOVE_NOT_OWN:
            return f"{where} holds no {mine} stone: you remove one of your own stones; legal: {legal}"
        if reason == k.REASON_REMOVE_NOT_OPENING_POINT:
            return f"{where} is neither a corner nor a centre point: black opens there; legal: {legal}"
        if reason == k.REASON_REMOVE_NOT_NEXT_TO_GAP:
            return f"{where} is not next to the gap black made: white removes a stone adjacent to it; legal: {legal}"
        if reason == k.REASON_START_EMPTY:
            return f"{where} holds no stone: move one of your ({mine}) stones; legal: {legal}"
        if reason == k.REASON_START_OPPONENT:
            middle = path[0] + int(k.DELTA[directions[0]])
            if 0 <= middle < 64 and int(state.data["stones"][me]) >> middle & 1:  # a jump written backwards
                return (
                    f"{where} holds a {theirs} stone, not yours, and {square_name(middle)} is your own stone: "
                    f"a stone jumps only over an opponent stone; legal: {legal}"
                )
            return f"{where} holds a {theirs} stone, not yours: move one of your ({mine}) stones; legal: {legal}"
        a, b = path[step], path[step + 1]
        if reason == k.REASON_LEAVES_BOARD:
            return f"the jump {_HEADINGS[directions[step]]} from {square_name(a)} leaves the {size}x{size} board; legal: {legal}"
        jump = f"{square_name(a)}-{square_name(b)}"
        if reason == k.REASON_JUMPS_BACK:
            return f"{jump} jumps straight back over the point just emptied: a jump needs a stone to jump; legal: {legal}"
        if reason == k.REASON_TURNS:
            return (
                f"{jump} changes direction: every jump of a move keeps the first jump's direction "
                f"(turning_jumps=False); legal: {legal}"
            )
        if reason == k.REASON_NOTHING_TO_JUMP:
            middle = a + int(k.DELTA[directions[step]])
            return f"{jump} has no stone on {square_name(middle)} to jump over; legal: {legal}"
        assert reason == k.REASON_LANDING_OCCUPIED, code
        return f"{jump} lands on {square_name(b)}, which is occupied: a jump lands on an empty point; legal: {legal}"

    # -- drawing -------------------------------------------------------------------------------

    def render(self, state: State, *, color: bool = False, unicode: bool = False) -> str:
        """The board, top row first, with its coordinates, the captures and who moves. Stones are
        ``B`` / ``W`` in ASCII (as text 003 draws them, and as ``position`` reads them back),
        discs in Unicode."""
        style = Style(color, unicode, self.player_colors)
        data = state.data
        size = self.params["size"]
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
            lines.append(captured + style.bold(self.result_text(state)))
        else:
            mover = state.current_player
            doing = "to remove a stone" if data["phase"] != kernels.PHASE_PLAY else "to move"
            lines.append(captured + style.player(mover, f"{self.player_names[mover]} {doing}", bold=True))
        return "\n".join(lines)

    def help_text(self) -> str:
        p = self.params
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

    def _board(self, state: State) -> dict[str, Any]:
        s = state.data
        size = int(s["size"])
        stones = [int(s["stones"][p]) for p in (0, 1)]

        def sign(sq):
            return "B" if stones[0] >> sq & 1 else "W" if stones[1] >> sq & 1 else "."

        return {
            "size": size,
            "grid": ["".join(sign(8 * row + col) for col in range(size)) for row in reversed(range(size))],
            "stones": [[square_name(sq) for sq in range(64) if stones[p] >> sq & 1] for p in (0, 1)],
            "captures": [int(n) for n in s["captures"]],
            "opening": int(s["phase"]) != kernels.PHASE_PLAY,
        }

    def end_reason(self, state: State) -> str | None:
        if not state.is_terminal():
            return None
        return "cannot move" if self.params["scoring"] == "last-move" else "no moves left"

    def result_text(self, state: State) -> str:
        if state.outcome() is None or self.params["scoring"] == "captures":
            return super().result_text(state)
        loser = state.current_player
        return f"{self.player_names[1 - loser]} wins: {self.player_names[loser]} cannot move"
