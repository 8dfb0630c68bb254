"""Adjudication: ending a game early whose result is clear, as cutechess and fastchess do (their
``-resign``, ``-draw`` and ``-tb`` options), off unless asked for (``arena run --adjudicate``).

Three rules, any of them on:

* **resign** ``resign=V:N``: the side to lose and its opponent agree, each by its last ``N`` moves
  in a row (every value the agent reported after its move, from its own side, in [-1, 1]), that
  the one is lost: the loser's values are all ``<= -V`` and the winner's all ``>= V``. The game
  ends as the loser's loss (score 0).
* **draw** ``draw=M:V:N``: once ``M`` plies are played (an opening's included), both sides'
  last ``N`` values each lie within ``V`` of 0. The game ends drawn (score 0).
* **perfect** ``perfect`` or ``perfect=K``: a position that the game's perfect-play oracle knows
  (its endgame databases, :meth:`engines.EndgameDatabases.perfect_play`; Kalah: every position
  with at most ``K`` seeds on the board; when ``K`` is not given, the game's default size at the
  time the run is set up, which its settings then store) ends the game with the result and final
  score of perfect play from there.

An agent that reports no value for a move (``last_search`` None or without a value) breaks its
run of values: the score rules never end a game on values not reported. Each adjudicated game
is stored with the moves played, its result (counted in the ratings like any other) and an end
reason that starts with ``adjudicated:`` and gives the values that triggered the rule, which
:mod:`arena.tournament.verify` checks against the run's rules (and, where the database is at
hand, a perfect-play result against the database).

    >>> rules = Adjudication.parse("resign=0.9:4,draw=40:0.05:8")
    >>> rules.spec, rules.resign
    ('resign=0.9:4,draw=40:0.05:8', ResignRule(value=0.9, moves=4))
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import numpy as np

    from board_arena import engines

__all__ = [
    "Adjudication",
    "ResignRule",
    "DrawRule",
    "Adjudicator",
    "Verdict",
    "ADJUDICATED",
    "SCORE_RULES",
    "MAX_RULE_MOVES",
    "parse_verdict",
    "perfect_reason",
]

#: How every adjudicated game's end reason begins.
ADJUDICATED = "adjudicated: "
#: How the end reasons of the games adjudicated by a score rule begin.
SCORE_RULES = (ADJUDICATED + "resign ", ADJUDICATED + "draw ")
#: The longest run of moves a score rule may ask for (a typo must not ask for a million).
MAX_RULE_MOVES = 1000
#: The latest ply a draw rule may start at.
MAX_DRAW_PLY = 1_000_000

_SYNTAX = "resign=VALUE:MOVES, draw=PLY:VALUE:MOVES and perfect[=SIZE], comma-separated, e.g. resign=0.9:4,draw=40:0.05:8,perfect"


@dataclass(frozen=True)
class ResignRule:
    """A side loses when, for its last ``moves`` moves and its opponent's last ``moves``, its
    values are ``<= -value`` and the opponent's ``>= value``."""

    value: float
    moves: int


@dataclass(frozen=True)
class DrawRule:
    """A draw when, from ply ``after`` on, both sides' last ``moves`` values lie in [-value, value]."""

    after: int
    value: float
    moves: int


@dataclass(frozen=True)
class Adjudication:
    """The adjudication rules of a run (each None: off); ``perfect`` is the size of the endgame
    database to consult (0: the game's default size)."""

    resign: ResignRule | None = None
    draw: DrawRule | None = None
    perfect: int | None = None

    def __post_init__(self) -> None:
        if self.resign is not None:
            _check_value("resign", self.resign.value, low_open=True)
            _check_moves("resign", self.resign.moves)
        if self.draw is not None:
            _check_value("draw", self.draw.value, low_open=False)
            _check_moves("draw", self.draw.moves)
            if not 0 <= self.draw.after <= MAX_DRAW_PLY:
                raise ValueError(f"--adjudicate draw: the first ply must be from 0 to {MAX_DRAW_PLY:,}, not {self.draw.after}")
        if self.perfect is not None and not 0 <= self.perfect <= 255:
            raise ValueError(f"--adjudicate perfect: the database size must be from 1 to 255 (or left out), not {self.perfect}")
        if self.resign is None and self.draw is None and self.perfect is None:
            raise ValueError(f"--adjudicate: give at least one rule: {_SYNTAX}")

    @classmethod
    def parse(cls, text: str) -> "Adjudication":
        """The rules of ``resign=0.9:4,draw=40:0.05:8,perfect`` (any of them, in any order).

        Raises:
            ValueError: an unknown rule, a rule given twice, or a bad value (one line, saying
                what is allowed).
        """
        rules: dict[str, object] = {}
        for piece in (p.strip() for p in text.split(",")):
            if not piece:
                continue
            name, sep, value = piece.partition("=")
            name = name.strip()
            if name in rules:
                raise ValueError(f"--adjudicate: the {name} rule is given twice in {_shown(text)}")
            numbers = value.split(":") if sep else []
            if name == "resign":
                if len(numbers) != 2:
                    raise ValueError(f"--adjudicate resign takes VALUE:MOVES, e.g. resign=0.9:4, not {_shown(piece)}")
                rules[name] = ResignRule(_number(numbers[0], piece), _integer(numbers[1], piece))
            elif name == "draw":
                if len(numbers) != 3:
                    raise ValueError(f"--adjudicate draw takes PLY:VALUE:MOVES, e.g. draw=40:0.05:8, not {_shown(piece)}")
                rules[name] = DrawRule(_integer(numbers[0], piece), _number(numbers[1], piece), _integer(numbers[2], piece))
            elif name == "perfect":
                if sep and len(numbers) != 1:
                    raise ValueError(f"--adjudicate perfect takes a database size, e.g. perfect=12, not {_shown(piece)}")
                size = _integer(numbers[0], piece) if sep else 0
                if sep and size < 1:
                    raise ValueError(f"--adjudicate perfect: the database size must be at least 1, not {size}")
                rules[name] = size
            else:
                raise ValueError(f"--adjudicate: unknown rule {_shown(name)}; the rules are {_SYNTAX}")
        if not rules:
            raise ValueError(f"--adjudicate: give at least one rule: {_SYNTAX}")
        return cls(**rules)  # type: ignore[arg-type]

    @property
    def spec(self) -> str:
        """The rules as :meth:`parse` reads them (what a run's settings store)."""
        parts = []
        if self.resign is not None:
            parts.append(f"resign={self.resign.value!r}:{self.resign.moves}")
        if self.draw is not None:
            parts.append(f"draw={self.draw.after}:{self.draw.value!r}:{self.draw.moves}")
        if self.perfect is not None:
            parts.append("perfect" if self.perfect == 0 else f"perfect={self.perfect}")
        return ",".join(parts)

    def __str__(self) -> str:
        return self.spec

    def check_game(self, game: engines.Game) -> None:
        """Raises ValueError unless ``game`` can be adjudicated by these rules: perfect play
        needs a game with endgame databases, of a size it can build."""
        if self.perfect is None:
            return
        if game.endgame is None:
            raise ValueError(f"--adjudicate perfect: {game.name} has no perfect-play oracle (endgame databases); "
                             "use the resign and draw rules")
        if self.perfect:
            game.endgame.check_size(self.perfect)

    def for_game(self, game: engines.Game) -> "Adjudication":
        """These rules checked for ``game`` (:meth:`check_game`), with perfect play's default
        database size made the size it is now (:meth:`database_size`), so that the run's games
        read the same database wherever and whenever they are played.

        Raises:
            ValueError: the rules cannot adjudicate ``game``.
        """
        self.check_game(game)
        if self.perfect != 0:
            return self
        size = self.database_size(game)
        if not size:
            raise ValueError(f"--adjudicate perfect: {game.name} has no endgame database to consult here; give its size, perfect=SIZE")
        return replace(self, perfect=size)

    def database_size(self, game: engines.Game) -> int:
        """The size of the endgame database perfect-play adjudication reads (0: none)."""
        if self.perfect is None or game.endgame is None:
            return 0
        return self.perfect or game.endgame.default_size(game.new_initial_state(0))

    def load_database(self, game: engines.Game, build_missing: bool = True, progress: bool = False) -> tuple[np.ndarray, int] | None:
        """The endgame database of ``game`` that perfect-play adjudication reads (built into the
        cache folder when missing and ``build_missing``), or None (no perfect rule, or not built)."""
        size = self.database_size(game)
        if not size:
            return None
        assert game.endgame is not None
        return game.endgame.database(game.new_initial_state(0), size, build_missing=build_missing, progress=progress)


@dataclass(frozen=True)
class Verdict:
    """An adjudicated end: seat 0's result, the score stored with it and the end reason."""

    result: float
    score: int
    reason: str


class Adjudicator:
    """Watches one game as it is played and says when the rules end it: :meth:`position` before
    each move (perfect play), :meth:`moved` after each agent's move (the score rules).

    Args:
        rules: the run's rules.
        game: the game (for the perfect-play oracle).
        names: the agents' labels in seat 0 and 1 (the end reasons name them).
        database: the endgame database (``(db, size)``) when ``rules.perfect`` is set.
    """

    def __init__(self, rules: Adjudication, game: engines.Game, names: Sequence[str], database: tuple[np.ndarray, int] | None = None):
        self.rules = rules
        self.game = game
        self.names = tuple(names)
        self.database = database
        #: Each seat's values since its last move that broke the runs (newest last, at most what a rule needs).
        self._values: tuple[list[float], list[float]] = ([], [])
        self._keep = max(rule.moves for rule in (rules.resign, rules.draw) if rule is not None) if (rules.resign or rules.draw) else 0

    def position(self, state: engines.State) -> Verdict | None:
        """The perfect-play verdict on ``state`` (about to be searched), or None."""
        if self.database is None or self.game.endgame is None:
            return None
        known = self.game.endgame.perfect_play(state, self.database)
        if known is None:
            return None
        return Verdict(known.result, known.score, perfect_reason(known.result, known.score))

    def moved(self, seat: int, value: float | None, plies: int) -> Verdict | None:
        """After ``seat``'s agent moved, reporting ``value`` (its own side's, or None), with
        ``plies`` played in all: the score rules' verdict, or None."""
        if not self._keep:
            return None
        values = self._values[seat]
        if value is None or not math.isfinite(value):
            values.clear()  # no value: this side's run starts again
            return None
        values.append(float(value))
        del values[: -self._keep]
        resign, draw = self.rules.resign, self.rules.draw
        if resign is not None:
            for loser in (seat, 1 - seat):
                lost, won = self._last(loser, resign.moves), self._last(1 - loser, resign.moves)
                if lost and won and max(lost) <= -resign.value and min(won) >= resign.value:
                    return Verdict(-1.0 if loser == 0 else 1.0, 0, self._resign_reason(loser, lost, won))
        if draw is not None and plies >= draw.after:
            near = [self._last(s, draw.moves) for s in (0, 1)]
            if all(v and max(abs(x) for x in v) <= draw.value for v in near):
                return Verdict(0.0, 0, self._draw_reason(near[0], near[1]))
        return None

    def _last(self, seat: int, moves: int) -> list[float]:
        values = self._values[seat]
        return values[-moves:] if len(values) >= moves else []

    def _resign_reason(self, loser: int, lost: list[float], won: list[float]) -> str:
        rule = self.rules.resign
        assert rule is not None
        return (f"{ADJUDICATED}resign by seat {loser} ({self.names[loser]}'s values {_values(lost)} "
                f"at most -{rule.value:g}, {self.names[1 - loser]}'s {_values(won)} at least {rule.value:g}, "
                f"for {rule.moves} moves each)")

    def _draw_reason(self, south: list[float], north: list[float]) -> str:
        rule = self.rules.draw
        assert rule is not None
        return (f"{ADJUDICATED}draw ({self.names[0]}'s values {_values(south)} and {self.names[1]}'s {_values(north)} "
                f"within {rule.value:g} of 0 for {rule.moves} moves each, from ply {rule.after})")


def perfect_reason(result: float, score: int) -> str:
    """The end reason of a game adjudicated by perfect play: ``adjudicated: perfect play, seat 1
    wins by 6`` (the margin is the score's size; a game whose databases know only who wins, as
    the morris games', stores score 0 and says ``seat 1 wins``), or ``... a draw``."""
    if result == 0:
        return f"{ADJUDICATED}perfect play, a draw" + (f" (score {score})" if score else "")
    return f"{ADJUDICATED}perfect play, seat {0 if result > 0 else 1} wins" + (f" by {abs(score)}" if score else "")


def _values(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{v:+.3f}" for v in values) + "]"


_RESIGN = re.compile(r"adjudicated: resign by seat ([01]) \(.*?'s values \[([^\]]*)\] at most -\S+, .*?'s \[([^\]]*)\] at least ")
_DRAW = re.compile(r"adjudicated: draw \(.*?'s values \[([^\]]*)\] and .*?'s \[([^\]]*)\] within ")
_PERFECT = re.compile(r"adjudicated: perfect play, (?:seat ([01]) wins(?: by (\d+))?|a draw(?: \(score (-?\d+)\))?)$")


def parse_verdict(reason: str) -> tuple[str, int | None, list[list[float]]] | None:
    """What an adjudicated end reason says: the rule (``resign``, ``draw``, ``perfect``), the
    losing seat (resign) or the winning seat (perfect play; None for a draw), and the values it
    quotes (resign: the loser's, then the winner's; draw: seat 0's, then seat 1's); None for an
    end reason that is not one the :class:`Adjudicator` writes."""
    if (match := _RESIGN.match(reason)) is not None:
        return "resign", int(match.group(1)), [_floats(match.group(2)), _floats(match.group(3))]
    if (match := _DRAW.match(reason)) is not None:
        return "draw", None, [_floats(match.group(1)), _floats(match.group(2))]
    if (match := _PERFECT.match(reason)) is not None:
        return "perfect", None if match.group(1) is None else int(match.group(1)), []
    return None


def _floats(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        return []


def _check_value(rule: str, value: float, low_open: bool) -> None:
    if not (0.0 < value <= 1.0 if low_open else 0.0 <= value < 1.0):
        bounds = "above 0 and at most 1" if low_open else "from 0 to below 1"
        raise ValueError(f"--adjudicate {rule}: the value bound must be {bounds} (values lie in [-1, 1]), not {value:g}")


def _check_moves(rule: str, moves: int) -> None:
    if not 1 <= moves <= MAX_RULE_MOVES:
        raise ValueError(f"--adjudicate {rule}: the moves must be from 1 to {MAX_RULE_MOVES}, not {moves}")


def _shown(text: str, limit: int = 40) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _number(text: str, piece: str) -> float:
    try:
        if len(text) > 24:
            raise ValueError
        value = float(text)
    except ValueError:
        raise ValueError(f"--adjudicate: {_shown(text)} in {_shown(piece)} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"--adjudicate: {_shown(text)} in {_shown(piece)} is not a finite number")
    return value


def _integer(text: str, piece: str) -> int:
    try:
        if len(text) > 12 or not text.strip().lstrip("-").isdigit():
            raise ValueError
        return int(text)
    except ValueError:
        raise ValueError(f"--adjudicate: {_shown(text)} in {_shown(piece)} is not an integer") from None
