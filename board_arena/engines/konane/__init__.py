"""Konane: the Hawaiian jumping game, text 003's capture-scored game and the classic one.

=============  ===================================================================================
Rules          ``docs/games/konane.md`` and text 003. A ``size`` x ``size`` board full of
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
               ``engines.konane.kernels``; ``game.notation.legal_move_list(state)`` lists the
               legal moves for a person, by stone.
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

The rules are here; the other capabilities beside them: ``notation.py`` (paths of points, the
board drawn), ``web.py`` (the page's clicks, with ``web.js``) and ``encoding.py`` (actions,
observations).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from board_arena.engines.game import Game, State
from board_arena.engines.konane import kernels
from board_arena.engines.konane.encoding import KonaneEncoding
from board_arena.engines.konane.notation import (
    HEADINGS,
    KonaneNotation,
    is_jump_id,
    jump_path,
    move_path,
    parse_square,
    path_move,
    square_name,
)
from board_arena.engines.konane.web import KonaneWeb
from board_arena.engines.params import Param
from board_arena.kernels import rng_from_seed

__all__ = ["Konane", "square_name", "parse_square", "jump_path", "move_path", "path_move", "is_jump_id"]

_BLACK_SIGNS = frozenset("bBx●⚫")
_WHITE_SIGNS = frozenset("wWo○⚪")
_EMPTY_SIGNS = frozenset(".-_·+")
_OPENINGS = {
    "random": kernels.OPENING_RANDOM,
    "random-adjacent": kernels.OPENING_RANDOM_ADJACENT,
    "classic": kernels.OPENING_CLASSIC,
}
_SCORINGS = {"captures": kernels.SCORING_CAPTURES, "last-move": kernels.SCORING_LAST_MOVE}


class Konane(Game):
    family = "konane"
    summary = "Hawaiian checkers: jump and capture orthogonally, multi-jumps; last move or most captures wins"
    kernels: ClassVar[ModuleType] = kernels
    player_names = ("Black", "White")
    notation: KonaneNotation
    notation_class = KonaneNotation
    web_class = KonaneWeb
    encoding_class = KonaneEncoding
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
    @property
    def random_start(self) -> bool:
        """Text 003's openings are drawn from the seed; the classic one is played as moves."""
        return self.params["opening"] != "classic"

    @property
    def start_code(self) -> int:
        return _OPENINGS[self.params["opening"]]

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

    # -- the rules in words ----------------------------------------------------------------------

    def _reason_words(self, state: State, move: int, code: int) -> str:
        """Words for the kernel's codes; a code about one jump carries its index (kernels)."""
        k = kernels
        reason, step = code & 0xFF, code >> k.REASON_STEP_SHIFT
        me = int(state.data["to_move"])
        mine, theirs = self.player_names[me].lower(), self.player_names[1 - me].lower()
        size = self.params["size"]
        moves = self.notation.legal_move_list(state)
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
            return f"the jump {HEADINGS[directions[step]]} from {square_name(a)} leaves the {size}x{size} board; legal: {legal}"
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
