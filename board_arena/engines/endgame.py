"""Endgame databases, an optional capability of a game: the exact value of every position up to
some size (Kalah: seeds on the board), built once by retrograde analysis and read by the
searches at their horizon through the game's ``endgame_value`` kernel (:mod:`engines.contract`).

A game that has them provides a subclass of :class:`EndgameDatabases` in its own folder
(``mancala/databases.py``) and names it in ``Game.endgame_class``; the game object holds one as
``game.endgame``, which is None for a game without.

    >>> from board_arena import engines
    >>> engines.make("kalah").endgame is not None, engines.make("konane").endgame
    (True, None)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from board_arena.engines.game import Game, State

__all__ = ["EndgameDatabases", "PerfectPlay", "perfect_play_words"]


class PerfectPlay(NamedTuple):
    """A position's end under perfect play: seat 0's result (1, 0, -1) and the game's score at
    the end (``State.score``: Kalah, South's store minus North's)."""

    result: float
    score: int


class EndgameDatabases:
    """The endgame databases of one variant (``self.game``): every method is the game's to
    implement."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.game!r}>"

    def database(
        self, state: State, size: int, *, build_missing: bool = False, progress: bool = False
    ) -> tuple[np.ndarray, int] | None:
        """The endgame database ``(db, size)`` of ``state``'s variant that the game's
        ``endgame_value`` kernel reads (positions up to ``size``), from the cache folder; None
        when it is not there and ``build_missing`` is false (else it is built once, with a
        progress bar if ``progress``).

        Raises:
            ValueError: ``size`` is out of range (the message says what is allowed).
        """
        raise NotImplementedError

    def check_database(self, state: State, db: np.ndarray, size: int) -> None:
        """Raises ValueError unless ``(db, size)`` can be an endgame database of ``state``'s
        variant (the compiled lookup does not check its index)."""
        raise NotImplementedError

    def check_size(self, size: int) -> None:
        """Raises ValueError (saying what is allowed) unless a database of ``size`` can serve
        this variant: one :meth:`database` can build, and no larger than the game (an agent
        asking for one checks it when it is made, not at its first move)."""
        raise NotImplementedError

    def default_size(self, state: State) -> int:
        """The database size that an agent uses when not told (0: none): one that is quick to
        build or already built."""
        raise NotImplementedError

    def perfect_moves(self, state: State, database: tuple[np.ndarray, int]) -> list[int] | None:
        """The moves of perfect play from ``state``, when the searches need them to play the
        database perfectly (None: they do not, or the database does not hold ``state``). A game
        whose positions can repeat returns them: a search that sees only won positions ahead
        (each worth a win) could keep one for ever without winning it; Kalah's positions never
        repeat, and the default is None."""
        return None

    def describe(self, state: State, database: tuple[np.ndarray, int]) -> str | None:
        """``state``'s value under perfect play in words (``South wins by 6 under perfect play``),
        or None when the database does not hold it."""
        known = self.perfect_play(state, database)
        if known is None:
            return None
        if known.result == 0:
            return "a draw under perfect play" + (f" (score {known.score:+d})" if known.score else "")
        winner = self.game.player_names[0 if known.result > 0 else 1]
        return f"{winner} wins" + (f" by {abs(known.score)}" if known.score else "") + " under perfect play"

    def perfect_play(self, state: State, database: tuple[np.ndarray, int]) -> PerfectPlay | None:
        """How ``state`` ends under perfect play, read from ``database`` (:meth:`database`'s), or
        None when the database does not hold it: the perfect-play oracle that adjudication
        (``arena run --adjudicate perfect``) consults.

        This reading fits a game whose ``endgame_value`` kernel gives the change of the margin
        (:mod:`engines.contract`) and whose score is its margin; a game whose databases hold
        other values (won, drawn or lost) overrides it.
        """
        from board_arena.engines import contract

        db, size = database
        record = state.data
        data = record[0] if record.ndim else record
        if contract.is_terminal(data):
            return None
        change = int(contract.endgame_value(data, db, int(size)))
        if change == contract.NO_ENDGAME_VALUE:
            return None
        final = int(contract.margin(data)) + (change if int(contract.current_player(data)) == 0 else -change)
        return PerfectPlay(float((final > 0) - (final < 0)), final)


def perfect_play_words(state: State) -> str | None:
    """What the game's endgame databases already built in the cache folder say about ``state``
    (:meth:`EndgameDatabases.describe`), for a hint; None when none holds it (nothing is built)."""
    endgame = state.game.endgame
    if endgame is None or state.is_terminal():
        return None
    try:
        size = endgame.default_size(state)
        database = endgame.database(state, size, build_missing=False) if size else None
    except ValueError:  # rules the databases do not cover, or a damaged file: no words
        return None
    return None if database is None else endgame.describe(state, database)
