"""Mancala's endgame databases (:mod:`engines.endgame`): Kalah positions by seeds on the board,
built and read by :mod:`engines.mancala.endgame`.

The builder module is imported by the methods that use it, not here: ``python -m
board_arena.engines.mancala.endgame`` (the database builder) runs it as ``__main__``, which
Python warns about when importing the package has already imported it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from board_arena.engines.endgame import EndgameDatabases
from board_arena.engines.mancala import kernels

if TYPE_CHECKING:
    from board_arena.engines.game import State

__all__ = ["MancalaDatabases"]


class MancalaDatabases(EndgameDatabases):
    #: The largest database built without being asked for by size.
    DEFAULT_ENDGAME_POSITIONS = 1 << 25

    def database(
        self, state: State, size: int, *, build_missing: bool = False, progress: bool = False, rebuild: bool = False
    ) -> tuple[np.ndarray, int] | None:
        """The database of every position of ``state``'s variant with at most ``size`` seeds on the
        board (see :meth:`engines.EndgameDatabases.database` and :mod:`engines.mancala.endgame`),
        verified when read; ``rebuild``: built again in place of a damaged file.

        Raises:
            ValueError: ``size`` out of range or too large to build; the file fails its checks
                (``endgame.DatabaseError``, one line saying how to build it again).
        """
        from board_arena.engines.mancala import endgame

        s = state.data
        return endgame.load(int(s["pits"]), size, int(s["capture"]), bool(s["empty_capture"]),
                            build_missing=build_missing, rebuild=rebuild, progress=progress)

    def check_database(self, state: State, db: np.ndarray, size: int) -> None:
        from board_arena.engines.mancala import endgame

        s = state.data
        endgame.check(int(s["pits"]), db, size, int(s["capture"]), bool(s["empty_capture"]))

    def default_size(self, state: State) -> int:
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

    def check_size(self, size: int) -> None:
        from board_arena.engines.mancala import endgame

        game = self.game
        pits, seeds = game.params["pits"], 2 * game.params["pits"] * game.params["seeds"]
        largest = 0  # the largest database of this many pits that endgame.load builds
        while largest < min(seeds, kernels.MAX_DB_SEEDS) and endgame.database_size(pits, largest + 1) <= endgame.MAX_BUILD_POSITIONS:
            largest += 1
        if not 1 <= size <= largest:
            why = (f"the game has {seeds} seeds" if largest == seeds else
                   f"a database of {largest + 1} seeds on {pits} pits would hold over {endgame.MAX_BUILD_POSITIONS:,} positions")
            raise ValueError(f"an endgame database of {game.name} with {pits} pits holds 1 to {largest} seeds "
                             f"({why}), not {size}" + (": ask for fewer seeds" if size > largest else ""))
