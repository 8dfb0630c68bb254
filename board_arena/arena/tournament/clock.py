"""Game clocks, as chess engine testers keep them (cutechess's and fastchess's ``tc=``): a time
control ``[MOVES/]SECONDS[+INCREMENT]`` and a clock per side carried through each game.

- ``10+0.1``: 10 seconds for the whole game, plus 0.1 s added after each move.
- ``40/60``: 60 seconds for every 40 moves: after a side's 40th move (80th, ...) another 60 s
  are added to what it has left.
- ``40/60+0.5``: both. ``SECONDS`` may also be written ``MINUTES:SECONDS`` (``40/1:30``).

A side's moves are the decisions its agent makes: the plies of a seeded opening are played
before the clocks start, and cost nothing. After each move the time it took is taken off the
mover's clock; a clock below minus the margin (``--tc-margin``) loses the game on time;
otherwise the increment is added, and after the last move of a period the period's time.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["TimeControl", "GameClock", "parse_time_control"]

#: The most seconds a time control may give (a period, or an increment): a day.
MAX_SECONDS = 86_400.0
#: The most moves a period may hold.
MAX_MOVES = 10_000

_FORM = re.compile(r"^(?:(?P<moves>\d+)/)?(?:(?P<minutes>\d+):)?(?P<seconds>\d+(?:\.\d*)?|\.\d+)(?:\+(?P<increment>\d+(?:\.\d*)?|\.\d+))?$")
_HELP = "write SECONDS+INCREMENT or MOVES/SECONDS[+INCREMENT], e.g. 10+0.1, 40/60 or 40/60+0.5 (SECONDS may be MINUTES:SECONDS)"


@dataclass(frozen=True)
class TimeControl:
    """A time control: ``seconds`` per period, ``increment`` seconds added after each move, and
    ``moves`` per period (None: one period, the whole game)."""

    seconds: float
    increment: float = 0.0
    moves: int | None = None

    def __post_init__(self) -> None:
        if not (0.0 < self.seconds <= MAX_SECONDS):
            raise ValueError(f"a time control's time must be above 0 and at most {MAX_SECONDS:g} seconds, not {self.seconds:g}")
        if not (0.0 <= self.increment <= MAX_SECONDS):
            raise ValueError(f"a time control's increment must be from 0 to {MAX_SECONDS:g} seconds, not {self.increment:g}")
        if self.moves is not None and not (1 <= self.moves <= MAX_MOVES):
            raise ValueError(f"a time control's moves per period must be from 1 to {MAX_MOVES:,}, not {self.moves:,}")

    @property
    def spec(self) -> str:
        """The control as ``--tc`` takes it (``40/60+0.5``): what a run's settings store."""
        text = f"{self.seconds:g}" + (f"+{self.increment:g}" if self.increment else "")
        return text if self.moves is None else f"{self.moves}/{text}"

    def __str__(self) -> str:
        """For people: ``10 s + 0.1 s per move``, ``60 s per 40 moves``."""
        text = f"{self.seconds:g} s" + ("" if self.moves is None else f" per {self.moves} moves")
        return text + (f" + {self.increment:g} s per move" if self.increment else "")


def parse_time_control(text: str) -> TimeControl:
    """The time control ``text`` describes: ``SECONDS[+INCREMENT]`` or
    ``MOVES/SECONDS[+INCREMENT]``, ``SECONDS`` also as ``MINUTES:SECONDS``.

    >>> parse_time_control("40/60+0.5")
    TimeControl(seconds=60.0, increment=0.5, moves=40)
    >>> parse_time_control("1:30+1").spec
    '90+1'

    Raises:
        ValueError: anything else, or a value out of range (the message says what is allowed).
    """
    shown = repr(text) if len(text) <= 30 else repr(text[:30]) + "..."
    match = _FORM.match(text.strip()) if isinstance(text, str) and text.isascii() else None
    if match is None:
        raise ValueError(f"bad time control {shown}: {_HELP}")
    seconds = float(match["seconds"]) + 60 * int(match["minutes"] or 0)
    increment = float(match["increment"] or 0)
    moves = None if match["moves"] is None else int(match["moves"])
    if not all(math.isfinite(x) for x in (seconds, increment)):
        raise ValueError(f"bad time control {shown}: {_HELP}")
    try:
        return TimeControl(seconds, increment, moves)
    except ValueError as error:
        raise ValueError(f"bad time control {shown}: {error}") from None


class GameClock:
    """Both sides' clocks in one game under ``control``: what each has left, and how many moves
    until its next refill.

    Example:
        >>> clock = GameClock(parse_time_control("2/10+1"))
        >>> clock.charge(0, 3.0), clock.remaining[0], clock.moves_to_go(0)  # 10 - 3 + 1
        (True, 8.0, 1)
        >>> clock.charge(0, 4.0), clock.remaining[0], clock.moves_to_go(0)  # 8 - 4 + 1, and 10 more
        (True, 15.0, 2)
        >>> clock = GameClock(parse_time_control("10+1"))
        >>> clock.charge(1, 10.5, margin=1.0), clock.remaining[1]  # -0.5 is within the margin; + 1
        (True, 0.5)
        >>> clock.charge(1, 2.0, margin=1.0), clock.remaining[1]  # -1.5 is not: lost on time
        (False, -1.5)
    """

    def __init__(self, control: TimeControl):
        self.control = control
        #: Seconds left on each side's clock (below zero when the side is within the margin).
        self.remaining = [control.seconds, control.seconds]
        #: Moves each side has made.
        self.moves = [0, 0]

    def moves_to_go(self, seat: int) -> int | None:
        """Moves ``seat`` makes before its clock is refilled, this one included (None: no refill)."""
        period = self.control.moves
        return None if period is None else period - self.moves[seat] % period

    def charge(self, seat: int, seconds: float, margin: float = 0.0) -> bool:
        """Takes a move of ``seconds`` off ``seat``'s clock; returns False when the clock has
        fallen below ``-margin`` (the game is lost on time), else adds the increment, and the
        period's time after its last move, and returns True."""
        self.remaining[seat] -= seconds
        if self.remaining[seat] < -margin:
            return False
        self.moves[seat] += 1
        self.remaining[seat] += self.control.increment
        if self.control.moves is not None and self.moves[seat] % self.control.moves == 0:
            self.remaining[seat] += self.control.seconds
        return True
