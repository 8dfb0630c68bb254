"""Terminal styling for board renderings: ANSI colours and Unicode pieces when asked for, plain
ASCII otherwise, so that every ``render`` reads the same in a log file, a notebook and a terminal.

    >>> style = Style(color=False, unicode=False)
    >>> style.player(0, "x"), style.piece(1)
    ('x', 'O')
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

__all__ = ["Style", "terminal_style"]

_RESET = "\033[0m"
_CODES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "cyan": "36",
    "black": "90",  # bright black (grey): black pieces stay visible on a dark background
    "white": "97",
}
#: Colours of player 0 and player 1 in a game whose pieces have no colour of their own (a game
#: whose pieces are black and white passes those: ``Notation.player_colors``).
PLAYER_COLORS = ("red", "blue")


class Style:
    """How to draw: ``color`` adds ANSI colours, ``unicode`` uses box-drawing characters and round
    pieces. Text wrapped in colours keeps its printed width (``len`` counts the escape codes, so
    pad before wrapping)."""

    def __init__(self, color: bool = False, unicode: bool = False, colors: tuple[str, str] = PLAYER_COLORS, glyphs: bool = False):
        self.color = color
        self.unicode = unicode
        self.colors = colors
        #: Draw dominoes as Unicode domino glyphs (few terminal fonts have them).
        self.glyphs = glyphs

    def for_colors(self, colors: tuple[str, str]) -> "Style":
        """The same style with the players drawn in ``colors``."""
        return Style(self.color, self.unicode, colors, self.glyphs)

    def paint(self, text: str, *names: str) -> str:
        if not self.color or not names:
            return text
        return "\033[" + ";".join(_CODES[n] for n in names) + "m" + text + _RESET

    def bold(self, text: str) -> str:
        return self.paint(text, "bold")

    def dim(self, text: str) -> str:
        return self.paint(text, "dim")

    def player(self, player: int, text: str, bold: bool = False) -> str:
        """``text`` in the colour of ``player`` (0 or 1)."""
        return self.paint(text, self.colors[player], *(("bold",) if bold else ()))

    def piece(self, player: int) -> str:
        """A stone or cow of ``player``: black/white discs in Unicode, X/O in ASCII."""
        if self.unicode:
            return self.player(player, "●" if player == 0 else "○", bold=True)
        return self.player(player, "X" if player == 0 else "O", bold=True)

    def empty_point(self) -> str:
        return self.dim("·" if self.unicode else ".")


def terminal_style(stream: TextIO | None = None, force_ascii: bool = False, glyphs: bool = False) -> Style:
    """The richest style ``stream`` (default stdout) supports: colours on a terminal unless
    ``NO_COLOR`` is set (to anything: it turns colours off, nothing else) or ``TERM=dumb``;
    Unicode lines and pieces when its encoding can write them; ``force_ascii``: neither."""
    stream = stream or sys.stdout
    is_tty = hasattr(stream, "isatty") and stream.isatty()
    color = is_tty and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb" and not force_ascii
    encoding = (getattr(stream, "encoding", None) or "ascii").lower()
    unicode = not force_ascii and encoding.replace("-", "") in ("utf8", "utf16", "utf32")
    return Style(color=color, unicode=unicode, glyphs=glyphs and unicode)
