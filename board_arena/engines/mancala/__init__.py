"""Mancala: BrainKing's Kalah-like game (text 004) and Kalah(m,n).

=============  ===================================================================================
Rules          ``docs/games/mancala.md`` and text 004. Two rows of ``pits`` pits with
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

The rules are here; the other capabilities beside them: ``notation.py`` (the letters, the board
drawn), ``web.py`` (the page's pits, with ``web.js``), ``encoding.py`` (actions, observations),
``databases.py`` (Kalah's endgame databases, built by ``endgame.py``) and ``learned.py`` (the
``td-kalah`` agent, its weights in ``td_kalah.json``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar, Sequence

import numpy as np

from board_arena.engines.game import Game, State
from board_arena.engines.mancala import kernels
from board_arena.engines.mancala.databases import MancalaDatabases
from board_arena.engines.mancala.encoding import MancalaEncoding
from board_arena.engines.mancala.notation import LETTERS, MancalaNotation
from board_arena.engines.mancala.web import MancalaWeb
from board_arena.engines.params import Param


class Mancala(Game):
    family = "mancala"
    summary = "Kalah-like sowing game: extra turns, captures, end-of-game sweep"
    kernels: ClassVar[ModuleType] = kernels
    player_names = ("South", "North")
    implicit_minimax = 0.6  # against plain UCT at equal simulations and OpenSpiel's MCTS at equal time
    notation_class = MancalaNotation
    web_class = MancalaWeb
    encoding_class = MancalaEncoding
    endgame_class = MancalaDatabases
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

    def _init_record(self, record: np.void, seed: int | None) -> None:
        p = self.params
        capture = kernels.CAPTURE_KALAH if p["capture"] == "kalah" else kernels.CAPTURE_OPPOSITE
        kernels.init_state(record, p["pits"], p["seeds"], capture, int(p["empty_capture"]))

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

    def _reason_words(self, state: State, move: int, code: int) -> str:
        assert code == kernels.REASON_EMPTY_PIT, code  # the game's only rule of its own
        return f"pit {LETTERS[move]} is empty: sow from a pit with seeds ({', '.join(state.legal_move_names())})"

    def _board(self, state: State) -> dict[str, Any]:
        south, north = kernels.pit_counts(state.data)
        return {"pits": [south, north], "stores": [int(n) for n in state.data["stores"]]}

    def end_reason(self, state: State) -> str | None:
        return "a row is empty" if state.is_terminal() else None
