"""Mancala: BrainKing's Kalah-like game (text 004) and Kalah(m,n).

=============  ===================================================================================
Rules          ``docs/rules.md`` (Mancala) and text 004. Two rows of ``pits`` pits with
               ``seeds`` seeds each, a store at each player's right; sowing counter-clockwise skips
               the opponent's store; last seed in the own store: move again; last seed in an empty
               own pit: capture; the game ends when a row is empty and the rest is swept.
Players        South (player 0, lower row, moves first) and North (player 1).
Moves          a pit of the mover's row, ids 0..pits-1 counted from the mover's left; written as
               a letter ``a``..``h`` (``a`` is the mover's leftmost pit). Letters, not numbers, so
               that a number typed at ``arena play`` always picks from the listed moves.
Actions        ``num_actions = pits``: the action is the move id. Observation ``(2, pits + 1)``
               float32: see ``kernels.write_observation``.
Returns        1 / 0 / -1 by stores at the end; ``score`` is South's store minus North's.
Presets        ``mancala`` (text 004: ``capture="opposite"``) and ``kalah`` (``capture="kalah"``).
Parameters     ``pits`` 1..8 (6), ``seeds`` 1..10 (4), ``capture`` ``"opposite"`` | ``"kalah"``,
               ``empty_capture`` (False): also capture when the opposite pit is empty.
=============  ===================================================================================
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any, ClassVar, Sequence

import numpy as np

from board_arena.engines.game import Game, Param, State, wrap_paragraphs
from board_arena.engines.mancala import kernels

# The endgame module is imported by the methods that use it, not here: `python -m
# board_arena.engines.mancala.endgame` (the database builder) runs it as __main__, which Python
# warns about when importing the package has already imported it.
from board_arena.engines.style import Style

_LETTERS = "abcdefgh"


class Mancala(Game):
    family = "mancala"
    summary = "Kalah-like sowing game: extra turns, captures, end-of-game sweep"
    kernels: ClassVar[ModuleType] = kernels
    player_names = ("South", "North")
    web_drawing = "web.js"
    PARAMS = (
        Param("pits", 6, "pits in each row", low=1, high=kernels.MAX_PITS),
        Param("seeds", 4, "seeds in each pit at the start", low=1, high=10),
        Param(
            "capture",
            "opposite",
            "'opposite': only the opposite pit's seeds are taken (text 004); "
            "'kalah': the last seed is banked too",
            choices=("opposite", "kalah"),
        ),
        Param("empty_capture", False, "the capture rule also fires when the opposite pit is empty"),
    )
    PRESETS = {
        "mancala": {},
        "kalah": {"capture": "kalah"},
    }
    HELP = """\
Each player owns the row of pits nearer to them and the store (big pit) at their right. A move
takes all the seeds of one of your pits and sows them one by one counter-clockwise into the next
pits and your own store (never into the opponent's store). If the last seed lands in your store,
you move again. If it lands in an empty pit of your row, you capture the seeds of the opposite
pit (in kalah, that last seed goes to your store too). When a player's row is empty the game
ends and each player banks the seeds left in their own row. Most seeds in store wins.

Moves: the letter of one of your pits, a (your leftmost) to {last} (the one next to your store);
your letters are printed on your side of the board."""

    def help_text(self) -> str:
        pits = self.params["pits"]
        return wrap_paragraphs(self.HELP.format(last=_LETTERS[pits - 1]))

    def _init_record(self, record: np.void, seed: int | None) -> None:
        p = self.params
        capture = kernels.CAPTURE_KALAH if p["capture"] == "kalah" else kernels.CAPTURE_OPPOSITE
        kernels.init_state(record, p["pits"], p["seeds"], capture, int(p["empty_capture"]))

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(2, pits + 1)``: the observer's pits (from their left) and store, then the
        opponent's pits (from the opponent's left) and store (``kernels.write_observation``)."""
        return (2, self.params["pits"] + 1)

    def _action_moves(self) -> np.ndarray:
        # A move is a pit of the mover's row counted from the mover's left: action = move.
        return np.arange(self.params["pits"], dtype=np.int64)

    def position(
        self, south: Sequence[int], north: Sequence[int], stores: tuple[int, int] = (0, 0), to_move: int = 0
    ) -> State:
        """A set-up position: seeds per pit for South and North (each from its owner's left).

        Example:
            >>> from board_arena import engines
            >>> game = engines.make("kalah", pits=3)
            >>> state = game.position(south=[0, 0, 1], north=[2, 0, 0], stores=(5, 4))
            >>> state.play("c").outcome()   # South banks its last seed, the row is empty: 6 + 0 vs 4 + 2
            0.0
        """
        pits = self.params["pits"]
        for name, row in (("south", south), ("north", north)):
            if len(row) != pits or any(not isinstance(n, (int, np.integer)) or n < 0 for n in row):
                raise ValueError(f"{name} must list {pits} seed counts >= 0, got {list(row)}")
        if len(stores) != 2 or min(stores) < 0 or to_move not in (0, 1):
            raise ValueError("stores must be two counts >= 0 and to_move 0 or 1")
        if sum(south) + sum(north) + sum(stores) > 255:
            raise ValueError("at most 255 seeds fit on the board")
        buf = np.zeros(1, kernels.STATE_DTYPE)
        record = buf[0]
        self._init_record(record, None)
        for p, row in enumerate((south, north)):
            record["rows"][p] = sum(int(n) << (8 * j) for j, n in enumerate(row))
        record["stores"][:] = stores
        record["to_move"] = to_move
        if not any(south) or not any(north):
            # A row is empty: the game is over, and the rules sweep the other row to its owner.
            record["stores"][:] = (stores[0] + sum(south), stores[1] + sum(north))
            record["rows"][:] = 0
            record["terminal"] = 1
        return State(self, buf, None, custom_start=True)

    def format_move(self, state: State, move: int) -> str:
        return _LETTERS[move]

    def parse_move(self, state: State, text: str) -> int:
        pits = self.params["pits"]
        word = text.strip().lower()
        if len(word) == 1 and word in _LETTERS[:pits]:
            return _LETTERS.index(word)
        raise ValueError(
            f"{text.strip()!r} is not a pit: write a letter a-{_LETTERS[pits - 1]}, your pits counted from your left"
        )

    MOVE_IDS = "a pit, 0 to pits-1 counted from the mover's left"

    # The browser: a move is a click on one of the mover's pits, ``pit-<player>-<letter>``.

    def move_clicks(self, state: State, move: int) -> list[str]:
        return [f"pit-{state.current_player}-{_LETTERS[move]}"]

    def move_from_clicks(self, state: State, clicks: Sequence[str]) -> str:
        match = re.fullmatch(r"pit-([01])-([a-z])", clicks[0]) if len(clicks) == 1 else None
        if match is None:
            raise ValueError("click one pit")
        owner, mover = int(match.group(1)), state.current_player
        if owner != mover:
            names = self.player_names
            raise ValueError(f"that pit is {names[owner]}'s: {names[mover]} sows one of their own pits")
        return match.group(2)

    def _reason_words(self, state: State, move: int, code: int) -> str:
        assert code == kernels.REASON_EMPTY_PIT, code  # the game's only rule of its own
        return f"pit {_LETTERS[move]} is empty: sow from a pit with seeds ({', '.join(state.legal_move_names())})"

    # Endgame databases: Kalah positions by seeds on the board (engines.mancala.endgame).

    has_endgame_databases = True

    def endgame_database(
        self, state: State, size: int, *, build_missing: bool = False, progress: bool = False, rebuild: bool = False
    ) -> tuple[np.ndarray, int] | None:
        """The database of every position of ``state``'s variant with at most ``size`` seeds on the
        board (see :meth:`Game.endgame_database` and :mod:`engines.mancala.endgame`), verified
        when read; ``rebuild``: built again in place of a damaged file.

        Raises:
            ValueError: ``size`` out of range or too large to build; the file fails its checks
                (``endgame.DatabaseError``, one line saying how to build it again).
        """
        from board_arena.engines.mancala import endgame

        s = state.data
        return endgame.load(int(s["pits"]), size, int(s["capture"]), bool(s["empty_capture"]),
                            build_missing=build_missing, rebuild=rebuild, progress=progress)

    def check_endgame_database(self, state: State, db: np.ndarray, size: int) -> None:
        from board_arena.engines.mancala import endgame

        s = state.data
        endgame.check(int(s["pits"]), db, size, int(s["capture"]), bool(s["empty_capture"]))

    #: The largest database built without being asked for by size (about ten seconds).
    DEFAULT_ENDGAME_POSITIONS = 1 << 25

    def default_endgame_size(self, state: State) -> int:
        """The largest database of the variant already in the cache folder, else the largest of
        at most ``DEFAULT_ENDGAME_POSITIONS`` positions (Kalah with 6 pits: 16 seeds); never more
        seeds than the game has (a bigger database would hold nothing more of use)."""
        from board_arena.engines.mancala import endgame

        s = state.data
        south, north = kernels.pit_counts(s)
        seeds = int(sum(south)) + int(sum(north)) + int(s["stores"].sum())
        built = endgame.available_sizes(int(s["pits"]), int(s["capture"]), bool(s["empty_capture"]))
        if built:
            return min((k for k in built if k >= seeds), default=max(built))
        size = 0
        while size < min(seeds, kernels.MAX_DB_SEEDS) and endgame.database_size(int(s["pits"]), size + 1) <= self.DEFAULT_ENDGAME_POSITIONS:
            size += 1
        return size

    def check_endgame_size(self, size: int) -> None:
        from board_arena.engines.mancala import endgame

        pits, seeds = self.params["pits"], 2 * self.params["pits"] * self.params["seeds"]
        largest = 0  # the largest database of this many pits that endgame.load builds
        while largest < min(seeds, kernels.MAX_DB_SEEDS) and endgame.database_size(pits, largest + 1) <= endgame.MAX_BUILD_POSITIONS:
            largest += 1
        if not 1 <= size <= largest:
            why = (f"the game has {seeds} seeds" if largest == seeds else
                   f"a database of {largest + 1} seeds on {pits} pits would hold over {endgame.MAX_BUILD_POSITIONS:,} positions")
            raise ValueError(f"an endgame database of {self.name} with {pits} pits holds 1 to {largest} seeds "
                             f"({why}), not {size}" + (": ask for fewer seeds" if size > largest else ""))

    def _board(self, state: State) -> dict[str, Any]:
        south, north = kernels.pit_counts(state.data)
        return {"pits": [south, north], "stores": [int(n) for n in state.data["stores"]]}

    def end_reason(self, state: State) -> str | None:
        return "a row is empty" if state.is_terminal() else None

    def render_for(self, state: State, player: int, *, color: bool = False, unicode: bool = False, glyphs: bool = False) -> str:
        return self.render(state, color=color, unicode=unicode, bottom=player)

    def render(self, state: State, *, color: bool = False, unicode: bool = False, bottom: int = 0) -> str:
        """The board with ``bottom``'s row below (0 South, 1 North: a person playing North sees
        it from their side), each row's pits lettered from its owner's left, stores labelled."""
        style = Style(color, unicode)
        pits = self.params["pits"]
        rows = kernels.pit_counts(state.data)
        stores = [int(n) for n in state.data["stores"]]
        mover = None if state.is_terminal() else state.current_player
        near, far = bottom, 1 - bottom
        h, v = ("─", "│") if unicode else ("-", "|")
        top, mid_l, mid_x, mid_r, base = (
            ("┌┬┐", "├", "┼", "┤", "└┴┘") if unicode else ("+++", "+", "+", "+", "+++")
        )

        def cell(player, n):
            return style.player(player, f"{n:>3}", bold=player == mover) + " "

        def rule(ends):
            return ends[0] + (h * 4 + ends[1]) * (pits + 1) + h * 4 + ends[2]

        names = self.player_names
        # Sowing runs counter-clockwise: the far row is drawn reversed (its owner's left is on
        # the right), and each player's store is at their right hand.
        width = len(rule(top))
        left_label, right_label = f"{names[far]}'s store", f"{names[near]}'s store"
        lines = [
            "        " + "".join(f"{_LETTERS[pits - 1 - i]:<5}" for i in range(pits)) + f"  {names[far]}",
            rule(top),
            f"{v}    {v}" + "".join(cell(far, n) + v for n in rows[far][::-1]) + f"    {v}",
            f"{v}{cell(far, stores[far])}{mid_l}" + (h * 4 + mid_x) * (pits - 1) + h * 4 + f"{mid_r}{cell(near, stores[near])}{v}",
            f"{v}    {v}" + "".join(cell(near, n) + v for n in rows[near]) + f"    {v}",
            rule(base),
            "        " + "".join(f"{_LETTERS[i]:<5}" for i in range(pits)) + f"  {names[near]}",
            style.dim(left_label + " " * max(1, width - len(left_label) - len(right_label)) + right_label),
        ]
        status = self.status_line(state)
        lines.append(style.bold(status) if mover is None else style.player(mover, status, bold=True))
        return "\n".join(lines)
