"""Dominoes' notation: a tile and the end of the line (``6-4L``, ``6-4R``; ``6-4`` for the lead
or when the tile has one move), ``draw`` and ``pass``; the line, the hands and the boneyard
drawn as a player sees them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from board_arena.engines.dominoes import kernels
from board_arena.engines.fen import PositionError
from board_arena.engines.notation import Notation, wrap_paragraphs
from board_arena.engines.style import Style

if TYPE_CHECKING:
    from board_arena.engines.dominoes import Dominoes
    from board_arena.engines.game import State

__all__ = ["DominoesNotation", "tile_name", "tile_index", "tiles_of", "MOVE_PATTERN"]

#: A tile, with the end of the line optionally (``6-4``, ``[6|4] left``, ``64R``).
MOVE_PATTERN = re.compile(
    r"^\s*\[?\s*(\d)\s*[-:|/ ]?\s*(\d)\s*\]?\s*(l|r|left|right)?\s*$",
    re.IGNORECASE,
)
DRAW_WORDS = ("draw", "d")
PASS_WORDS = ("pass", "p")


def tile_name(max_pips: int, tile: int) -> str:
    """``6-4``: the tile's pips, high first."""
    return f"{kernels.TILE_HIGH[max_pips, tile]}-{kernels.TILE_LOW[max_pips, tile]}"


def tile_index(max_pips: int, a: int, b: int) -> int | None:
    """The id of the tile with pips ``a`` and ``b`` in the double-``max_pips`` set, None if none."""
    high, low = max(a, b), min(a, b)
    if high > max_pips:
        return None
    for t in range(kernels.TILE_HIGH.shape[1]):
        if kernels.TILE_HIGH[max_pips, t] == high and kernels.TILE_LOW[max_pips, t] == low:
            return t
    return None


def tiles_of(mask: int) -> list[int]:
    """The tile ids in a hand mask, smallest first."""
    mask = int(mask)
    return [t for t in range(64) if mask >> t & 1]


class DominoesNotation(Notation):
    game: Dominoes
    MOVE_IDS = (
        f"2 * tile + end (end 0 left, 1 right) for a tile of the set, {kernels.MOVE_DRAW} to draw, "
        f"{kernels.MOVE_PASS} to pass"
    )

    HELP = """\
Each player gets {hand} tiles of the double-{pips} set; the rest is the boneyard. The holder of the
greatest tile (a double beats any other tile, then more pips, then the higher end) leads with any
tile. Then each player in turn puts one tile at an open end of the line whose number it matches.
{drawing}The first to play all their tiles wins; {blocked}, fewer tiles in hand wins.
You see your own hand, the line and how many tiles the others hold.

Write a move as the tile and the end: 6-4L (left end) or 6-4R (right end); 6-4 alone when the tile
fits only one way.{draw_words}"""

    def fen(self, state: State) -> str:
        """Refused: a position string would show both hands and the boneyard. A player's view
        travels as the deal extension of UGI's ``position`` command (``docs/protocol.md``,
        :func:`board_arena.ugi.dominoes.view_words`)."""
        raise PositionError(
            f"{self.game.name} hides the hands: it has no position string; a player's view is written "
            "with UGI's Dominoes extension, 'position deal seat S leader L hand T... moves ...' (board_arena.ugi.dominoes)"
        )

    def parse_fen(self, text: str) -> State:
        self.fen(None)  # type: ignore[arg-type]  # the same refusal
        raise AssertionError("unreachable")

    def help_text(self) -> str:
        p = self.game.params
        if p["drawing"]:
            drawing = (
                "A player who cannot play draws one tile from the boneyard and the turn passes (even if "
                "it fits); with an empty boneyard they pass. "
            )
            words = " Type draw to draw, pass to pass."
        else:
            drawing = "A player who cannot play passes. "
            words = " Type pass to pass."
        if p["block_rule"] == "no-tile-fits":
            blocked = "as soon as neither hand holds a tile that fits the line (whatever the boneyard holds)"
        elif p["drawing"]:
            blocked = "when nobody can play and the boneyard is empty"
        else:
            blocked = "when nobody can play"
        return wrap_paragraphs(
            self.HELP.format(hand=p["hand_size"], pips=p["max_pips"], drawing=drawing, blocked=blocked, draw_words=words)
        )

    def format_move(self, state: State, move: int) -> str:
        if move == kernels.MOVE_DRAW:
            return "draw"
        if move == kernels.MOVE_PASS:
            return "pass"
        name = tile_name(self.game.params["max_pips"], move >> 1)
        if state.data["ends"][0] < 0 or self.single_move(state, move >> 1):
            return name
        return name + ("R" if move & 1 else "L")

    def single_move(self, state: State, tile: int) -> bool:
        """True when ``tile`` has at most one move here (lead, equal ends, or fits one end only):
        then its notation names no end."""
        left, right = (int(e) for e in state.data["ends"])
        if left < 0 or left == right:
            return True
        m = self.game.params["max_pips"]
        pips = (int(kernels.TILE_HIGH[m, tile]), int(kernels.TILE_LOW[m, tile]))
        return not (left in pips and right in pips)

    def parse_move(self, state: State, text: str) -> int:
        word = text.strip().lower()
        if word in DRAW_WORDS:
            return kernels.MOVE_DRAW
        if word in PASS_WORDS:
            return kernels.MOVE_PASS
        match = MOVE_PATTERN.match(word)
        if not match:
            raise ValueError(
                f"{text.strip()!r} is not a move: write a tile and the end of the line "
                f"(6-4L, 6-4R; 6-4 for the first tile), draw or pass"
            )
        m = self.game.params["max_pips"]
        a, b = int(match.group(1)), int(match.group(2))
        tile = tile_index(m, a, b)
        if tile is None:
            raise ValueError(f"{a}-{b} is not a tile of the double-{m} set (pips 0 to {m})")
        left, right = (int(e) for e in state.data["ends"])
        side = match.group(3)
        pips = (int(kernels.TILE_HIGH[m, tile]), int(kernels.TILE_LOW[m, tile]))
        if left < 0 or left == right:  # the lead, or equal ends: one move, written with end 0
            return 2 * tile
        if side is None:
            fits_left, fits_right = left in pips, right in pips
            if fits_left and fits_right:
                name = tile_name(m, tile)
                raise ValueError(
                    f"{name} fits both ends (left {left}, right {right}): write {name}L or {name}R"
                )
            return 2 * tile + int(fits_right)
        return 2 * tile + int(side.startswith("r"))

    def tile_text(self, a: int, b: int, glyphs: bool) -> str:
        """A tile of the line, left pips ``a``: ``[6|4]``, or with ``glyphs`` Unicode's domino tile
        (there are glyphs up to the double six only)."""
        if glyphs and self.game.params["max_pips"] <= 6:
            return chr(0x1F031 + 7 * a + b)  # DOMINO TILE HORIZONTAL-a-b
        return f"[{a}|{b}]"

    def render_for(self, state: State, player: int, style: Style) -> str:
        """The game as ``player`` sees it (both hands once it is over), with Unicode's domino
        tiles if ``style.glyphs`` asks for them."""
        seen = state if state.is_terminal() else state.view(player)
        return self.render(seen, color=style.color, unicode=style.unicode, glyphs=style.glyphs)

    def render(self, state: State, *, color: bool = False, unicode: bool = False, as_player: int | None = None, glyphs: bool = False) -> str:
        """The line, the hands and the boneyard as ``as_player`` (or the state's viewer) sees them;
        the true state of a game shows both hands. Tiles are written ``[6|4]`` unless ``glyphs``
        asks for Unicode's domino tiles (most terminal fonts lack them)."""
        if as_player is not None:
            return self.render(state.view(as_player), color=color, unicode=unicode, glyphs=glyphs)
        record = state.data
        m = self.game.params["max_pips"]
        viewer = int(record["viewer"])
        line = self.game.line(state)
        left, right = (int(e) for e in record["ends"])
        lines = []
        if line:
            lines.append("line: " + "".join(self.tile_text(a, b, glyphs) for a, b in line))
            lines.append(f"      left end {left}, right end {right}")
        else:
            lines.append("line: (empty: the leader plays any tile)")
        stock = int(record["boneyard_size"]) - int(record["drawn"])
        for p in (0, 1):
            name = self.game.player_names[p] + (" (you)" if p == viewer else "")
            count = int(record["counts"][p])
            hidden = viewer >= 0 and p != viewer and not record["terminal"]
            if hidden:
                lines.append(f"{name}: {count} tile{'s' * (count != 1)}")
            else:
                tiles = " ".join(tile_name(m, t) for t in reversed(tiles_of(record["hands"][p])))
                lines.append(f"{name}: {tiles or '(no tiles)'}")
        lines.append(f"boneyard: {stock} tile{'s' * (stock != 1)}" + ("" if record["drawing"] else " (block game: no drawing)"))
        ply = int(record["ply"])
        if ply:
            last = int(record["history"][ply - 1])
            mover = self.game.player_names[int(record["leader"]) ^ ((ply - 1) & 1)]
            if last == kernels.MOVE_DRAW:
                what = "drew a tile"
            elif last == kernels.MOVE_PASS:
                what = "passed"
            else:
                what = f"played {tile_name(m, last >> 1)}" + (("", " left", " right")[1 + (last & 1)] if ply > 1 else "")
            lines.append(f"last move: {mover} {what}")
        lines.append(self.game.status_line(state))
        return "\n".join(lines)
