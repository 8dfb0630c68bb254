"""The morris games' endgame databases (:mod:`engines.endgame`): every position after placing
with at most ``size`` cows on the board, built and read by :mod:`engines.morabaraba.retrograde`.

A position's database value is who wins under perfect play (the searches read it through the
``endgame_value`` kernel) and how far the next decisive shot is, which :meth:`perfect_moves`
uses to make progress: a morris game can go round in circles, and a side that only kept a won
position would never win it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from board_arena.engines.endgame import EndgameDatabases, PerfectPlay
from board_arena.engines.morabaraba import kernels, sectors

if TYPE_CHECKING:
    from board_arena.engines.game import State

__all__ = ["MorrisDatabases", "DatabaseValue"]


class DatabaseValue(NamedTuple):
    """A position's value for its player to move: ``result`` 1, 0 or -1, and ``plies`` to the
    next decisive event under perfect play (a shot into a position the winner still wins, or the
    loser left without a move; 0 for a draw or a position already lost)."""

    result: int
    plies: int


class MorrisDatabases(EndgameDatabases):
    #: The database built without being asked for by size: a few seconds of building.
    DEFAULT_STONES = 8

    def database(self, state: State, size: int, *, build_missing: bool = False,
                 progress: bool = False) -> tuple[np.ndarray, int] | None:
        """The database of every position of the variant with no cows in hand and at most
        ``size`` cows on the board (see :meth:`engines.EndgameDatabases.database`).

        Raises:
            ValueError: ``size`` out of range, or rules the databases do not cover; a sector file
                fails its checks (``retrograde.DatabaseError``, one line saying how to build it again).
        """
        from board_arena.engines.morabaraba import retrograde

        self.check_size(size)
        db = retrograde.load(self.game, size, build_missing=build_missing, progress=progress)
        return None if db is None else (db, size)

    def check_size(self, size: int) -> None:
        from board_arena.engines.morabaraba import retrograde

        retrograde.rules_of(self.game)
        retrograde.check_stones(self.game, size)

    def check_database(self, state: State, db: np.ndarray, size: int) -> None:
        from board_arena.engines.morabaraba import retrograde

        if not isinstance(db, np.ndarray) or db.dtype != np.int8 or db.ndim != 1 or len(db) < sectors.HEADER_BYTES:
            raise ValueError("a morris database is a one-dimensional int8 array (from game.endgame.database)")
        words = db[:sectors.HEADER_BYTES].view(np.int64)
        rules = retrograde.rules_of(self.game)
        found = (bool(words[sectors.H_DIAGONALS]), bool(words[sectors.H_FLYING]), int(words[sectors.H_THREE_COW]),
                 bool(words[sectors.H_FULL_BOARD_DRAW]))
        if words[sectors.H_MAGIC] != sectors.MAGIC or found != tuple(rules) or int(words[sectors.H_STONES]) != size:
            raise ValueError(f"this database is not the {size}-cow morris database of {self.game.name}: "
                             f"make it with game.endgame.database(state, {size})")

    def default_size(self, state: State) -> int:
        """The largest database of the variant whose sector files are all in the cache folder,
        else :attr:`DEFAULT_STONES`; 0 for rules the databases do not cover."""
        from board_arena.engines.morabaraba import retrograde

        try:
            rules = retrograde.rules_of(self.game)
        except ValueError:
            return 0
        most = int(self.game.params["cows"])
        built = 0
        while built < 2 * most and all(retrograde.sector_path(rules, m, o).is_file()
                                       for m, o in retrograde.sector_list(max(6, built + 1), most)):
            built = max(6, built + 1)
        return built or min(self.DEFAULT_STONES, 2 * most)

    def value(self, state: State, database: tuple[np.ndarray, int]) -> DatabaseValue | None:
        """``state``'s value for its player to move (the three-cow counter and the ply cap read as
        the kernel reads them), or None when the database does not hold it."""
        db, size = database
        s = state.data
        if state.is_terminal() or kernels.endgame_value(s, db, size) == kernels.NO_ENDGAME_VALUE:
            return None
        me = int(s["to_move"])
        code = int(sectors.code_at(db, s["cows"][me], s["cows"][1 - me]))
        result = int(kernels.endgame_value(s, db, size))
        return DatabaseValue(result, 0 if result == 0 else (0 if code == sectors.LOST_NOW else abs(code)))

    def describe(self, state: State, database: tuple[np.ndarray, int]) -> str | None:
        """E.g. ``White wins under perfect play: a decisive shot in 5 plies``."""
        known = self.value(state, database)
        if known is None:
            return None
        if known.result == 0:
            return "a draw under perfect play"
        mover = int(state.data["to_move"])
        winner = self.game.player_names[mover if known.result > 0 else 1 - mover]
        return f"{winner} wins under perfect play: a decisive shot in {known.plies} {'ply' if known.plies == 1 else 'plies'}"

    def perfect_play(self, state: State, database: tuple[np.ndarray, int]) -> PerfectPlay | None:
        """Who wins ``state`` under perfect play; the score is 0 (the databases know who wins, not
        by how many cows)."""
        known = self.value(state, database)
        if known is None:
            return None
        mover = int(state.data["to_move"])
        return PerfectPlay(float(known.result if mover == 0 else -known.result), 0)

    def perfect_moves(self, state: State, database: tuple[np.ndarray, int]) -> list[int] | None:
        """The moves of perfect play from ``state``, or None when the database does not hold it:
        a winner's moves that win soonest (a shot into a won position, or a quiet move nearest to
        one), a drawn side's moves that keep the draw, a loser's moves that hold out longest."""
        if self.value(state, database) is None:
            return None
        best: list[int] = []
        best_key: tuple[int, int] | None = None
        for move in state.legal_moves():
            child = state.copy()
            child.apply_legal(int(move))
            key = self._move_key(state, child, database)
            if key is None:
                return None
            if best_key is None or key > best_key:
                best, best_key = [int(move)], key
            elif key == best_key:
                best.append(int(move))
        return best

    def _move_key(self, state: State, child: State, database) -> tuple[int, int] | None:
        """How good the move to ``child`` is for ``state``'s mover: (result, -plies) for a win and
        a draw, (result, plies) for a loss, so that larger is better."""
        mover = int(state.data["to_move"])
        if child.is_terminal():
            winner = int(child.data["winner"])
            return (0, 0) if winner < 0 else ((1, -1) if winner == mover else (-1, 1))
        known = self.value(child, database)
        if known is None:
            return None
        shot = int(child.data["cows"][1 - mover]).bit_count() < int(state.data["cows"][1 - mover]).bit_count()
        plies = 1 if shot else 1 + known.plies  # a shot is the decisive event itself
        result = -known.result
        return (result, -plies) if result > 0 else (result, plies if result < 0 else 0)
