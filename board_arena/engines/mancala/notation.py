"""Mancala's notation: a pit is the letter ``a``..``h`` of the mover's row counted from the
mover's left (move id 0..pits-1); the board drawn with either player's row below."""

from __future__ import annotations

from typing import TYPE_CHECKING

from board_arena.engines.mancala import kernels
from board_arena.engines.mancala.fen import read_fen, write_fen
from board_arena.engines.notation import Notation, wrap_paragraphs
from board_arena.engines.style import Style

if TYPE_CHECKING:
    from board_arena.engines.game import State

__all__ = ["MancalaNotation", "LETTERS"]

#: The names of the pits, from each player's left. Letters, not numbers, so that a number typed
#: at ``arena play`` always picks from the listed moves.
LETTERS = "abcdefgh"


class MancalaNotation(Notation):
    HELP = """\
Each player owns the row of pits nearer to them and the store (big pit) at their right. A move
takes all the seeds of one of your pits and sows them one by one counter-clockwise into the next
pits and your own store (never into the opponent's store). If the last seed lands in your store,
you move again. If it lands in an empty pit of your row, you capture the seeds of the opposite
pit (in kalah, that last seed goes to your store too). When a player's row is empty the game
ends and each player banks the seeds left in their own row. Most seeds in store wins.

Moves: the letter of one of your pits, a (your leftmost) to {last} (the one next to your store);
your letters are printed on your side of the board."""

    MOVE_IDS = "a pit, 0 to pits-1 counted from the mover's left"

    def fen(self, state: State) -> str:
        return write_fen(state)

    def parse_fen(self, text: str) -> State:
        return read_fen(self.game, text)

    def help_text(self) -> str:
        pits = self.game.params["pits"]
        return wrap_paragraphs(self.HELP.format(last=LETTERS[pits - 1]))

    def format_move(self, state: State, move: int) -> str:
        return LETTERS[move]

    def parse_move(self, state: State, text: str) -> int:
        pits = self.game.params["pits"]
        word = text.strip().lower()
        if len(word) == 1 and word in LETTERS[:pits]:
            return LETTERS.index(word)
        raise ValueError(
            f"{text.strip()!r} is not a pit: write a letter a-{LETTERS[pits - 1]}, your pits counted from your left"
        )

    def render_for(self, state: State, player: int, style: Style) -> str:
        return self.render(state, color=style.color, unicode=style.unicode, bottom=player)

    def render(self, state: State, *, color: bool = False, unicode: bool = False, bottom: int = 0) -> str:
        """The board with ``bottom``'s row below (0 South, 1 North: a person playing North sees
        it from their side), each row's pits lettered from its owner's left, stores labelled."""
        game = self.game
        style = Style(color, unicode)
        pits = game.params["pits"]
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

        names = game.player_names
        # Sowing runs counter-clockwise: the far row is drawn reversed (its owner's left is on
        # the right), and each player's store is at their right hand.
        width = len(rule(top))
        left_label, right_label = f"{names[far]}'s store", f"{names[near]}'s store"
        lines = [
            "        " + "".join(f"{LETTERS[pits - 1 - i]:<5}" for i in range(pits)) + f"  {names[far]}",
            rule(top),
            f"{v}    {v}" + "".join(cell(far, n) + v for n in rows[far][::-1]) + f"    {v}",
            f"{v}{cell(far, stores[far])}{mid_l}" + (h * 4 + mid_x) * (pits - 1) + h * 4 + f"{mid_r}{cell(near, stores[near])}{v}",
            f"{v}    {v}" + "".join(cell(near, n) + v for n in rows[near]) + f"    {v}",
            rule(base),
            "        " + "".join(f"{LETTERS[i]:<5}" for i in range(pits)) + f"  {names[near]}",
            style.dim(left_label + " " * max(1, width - len(left_label) - len(right_label)) + right_label),
        ]
        status = game.status_line(state)
        lines.append(style.bold(status) if mover is None else style.player(mover, status, bold=True))
        return "\n".join(lines)
