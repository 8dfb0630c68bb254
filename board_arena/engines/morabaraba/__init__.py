"""Morabaraba: the Generally Accepted Rules 12-cow game (text 000), its 9-cow form (text 002) and
nine men's morris.

=============  ===================================================================================
Rules          ``docs/rules.md`` (Morabaraba), from texts 000 and 002. 24 points on three
               squares joined at their midpoints (and corners, with ``diagonals``). Players place
               their ``cows`` one by one, then slide them to adjacent empty points; a player with
               three cows and none in hand flies to any empty point. Forming one or more mills
               (three own cows on a line) shoots one opponent cow, taken from outside mills
               unless all stand in mills.
Players        White (player 0, places first) and Black (player 1).
Moves          one id = (from or placement, to, shot or none); written with the points named as on
               the drawn board (columns a-g, rows 1-7): ``d6`` places, ``a7-d7`` slides or flies,
               ``a7-d7xg7`` and ``d6xg1`` also shoot the cow on g7 / g1.
Actions        every (from or placement, to, shot or none) the variant's rules allow, in id order:
               13,272 actions with flying on, fewer without. Observation ``(8, 24)`` float32:
               see ``kernels.write_observation``.
Returns        the player to move loses with two cows left (cows in hand count) or no legal move;
               draws by the three-cow rule (text 000), the optional no-shot rule and the ply cap
               (a bound for machines, end reason ``"ply cap"``). ``score`` is White's cows minus
               Black's (board and hand).
Presets        ``morabaraba`` (text 000, 12 cows, diagonals), ``morabaraba-9`` (text 002: 9 cows,
               ``no_immediate_remill="no-shot"``), ``nine-mens-morris`` (9 men, no diagonals, no
               three-cow rule, draw at 200 plies).
Parameters     ``cows`` 3..12 (12), ``diagonals`` (True), ``flying`` (True),
               ``no_immediate_remill`` ``"off"`` | ``"no-shot"`` | ``"forbidden"``,
               ``full_board`` ``"loss"`` | ``"draw"``, ``three_cow_draw_plies`` (10),
               ``no_shot_draw_plies`` (none), ``max_plies`` (1000).
=============  ===================================================================================

Text 002's rule "a mill which is broken to form a new mill can't be formed again on the next move"
(``no_immediate_remill``): when a slide or flight takes a cow out of one or more mills and forms
a mill, those broken mills are *blocked* for the mover's very next move. ``"no-shot"`` (the
project's reading, preset ``morabaraba-9``): that move is allowed but a blocked mill it re-forms
shoots nothing (unless it also forms another mill); ``"forbidden"``: a move that re-forms a blocked
mill is illegal. Simply breaking a mill and remaking it ("shuffling back and forth") still shoots
each time, as both texts say. See ``docs/rules.md``.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any, ClassVar, Iterable, Sequence

import numpy as np

from board_arena.engines.game import (
    PLY_CAP,
    Game,
    IllegalMoveError,
    Param,
    State,
    VariantError,
    wrap_paragraphs,
)
from board_arena.engines.morabaraba import board, kernels
from board_arena.engines.morabaraba.board import POINT_NAMES, POINT_OF, mill_name
from board_arena.engines.style import Style

#: The default ply cap of the Morabaraba presets: far beyond any game that is still going
#: somewhere (see docs/rules.md for the measured game lengths), so it only stops endless shuffles.
DEFAULT_MAX_PLIES = 1000

_MOVE_RE = re.compile(r"^([a-z]\d)(?:[-:]?([a-z]\d))?(?:[x*×]([a-z]\d))?$")
_ANY_SQUARE = re.compile(r"[a-z]\d")
_COLOURS = ("W", "B")
_UNICODE_COWS = ("\u25cb", "\u25cf")  # white and black circles


_REMILL_CODES = {
    "off": kernels.REMILL_ALLOWED,
    "no-shot": kernels.REMILL_NO_SHOT,
    "forbidden": kernels.REMILL_FORBIDDEN,
}


def decode(move: int) -> tuple[int, int, int]:
    """``(frm, to, shot)`` of a move id (``frm`` PLACE for a placement, ``shot`` NO_SHOT if none):
    ``kernels.decode_move``."""
    frm, to, shot = kernels.decode_move(int(move))
    return int(frm), int(to), int(shot)


def encode(frm: int, to: int, shot: int = kernels.NO_SHOT) -> int:
    """The move id of ``(frm, to, shot)``: ``kernels.encode_move``."""
    return int(kernels.encode_move(frm, to, shot))


def _points(bits: int) -> list[int]:
    return [p for p in range(board.N_POINTS) if bits >> p & 1]


def _names(points: Iterable[int]) -> str:
    return " ".join(POINT_NAMES[p] for p in points)


def _mill_names(mills: int) -> str:
    """The mills of a bitmask (bit m: mill m of ``board.LINES``), e.g. ``a4-b4-c4, c5-c4-c3``."""
    return ", ".join(mill_name(m) for m in range(board.N_MILLS) if mills >> m & 1)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Morabaraba(Game):
    family = "morabaraba"
    summary = "mill game on 24 points: place, slide, fly with three, shoot from a mill"
    kernels: ClassVar[ModuleType] = kernels
    player_names = ("White", "Black")
    player_colors = ("white", "black")
    web_drawing = "web.js"
    PARAMS = (
        Param("cows", 12, "cows per player", low=3, high=12),
        Param("diagonals", True, "the four diagonal lines exist (as lines to move along and as mills)"),
        Param("flying", True, "a player with three cows and none in hand moves to any empty point"),
        Param(
            "no_immediate_remill",
            "off",
            "text 002: a mill broken by a move that forms a mill, re-formed by the mover's next move: "
            "'no-shot' it shoots nothing, 'forbidden' that move is illegal, 'off' it shoots (text 000)",
            choices=("off", "no-shot", "forbidden"),
            aliases=((False, "off"), (True, "no-shot")),
        ),
        Param(
            "full_board",
            "loss",
            "a full board after placing (the player to move cannot move): 'loss' for that player "
            "(the blocked-player rule) or 'draw'",
            choices=("loss", "draw"),
        ),
        Param(
            "three_cow_draw_plies",
            10,
            "draw after this many plies without a shot while either player has three cows (text 000)",
            low=1,
            high=1000,
            allow_none=True,
        ),
        Param(
            "no_shot_draw_plies",
            None,
            "draw after this many consecutive plies of moving (not placing) without a shot "
            "(no text has this rule)",
            low=1,
            high=1000,
            allow_none=True,
            kind=int,
        ),
        Param(
            "max_plies",
            DEFAULT_MAX_PLIES,
            "ply cap: the game ends as a draw (end reason 'ply cap') when this many plies have been "
            "played (a shot is part of its ply); a bound for machines, not a rule of the texts",
            low=1,
            high=10000,
            allow_none=True,
            kind=int,
        ),
    )
    PRESETS = {
        "morabaraba": {},
        "morabaraba-9": {"cows": 9, "no_immediate_remill": "no-shot"},
        "nine-mens-morris": {
            "cows": 9,
            "diagonals": False,
            "three_cow_draw_plies": None,
            "max_plies": 200,
        },
    }

    HELP = """\
Each player has {cows} cows. First the players take turns placing a cow on an empty point; when all
are placed, a move slides one of your cows along a line to the next empty point, and a player
with only three cows left flies: moves one to any empty point. Three of your cows on one line
(a mill; {lines}) shoot one opponent cow: it must be a cow outside mills, unless all of them stand
in mills. {remill} A player left with two cows, or with no move on their turn, loses.{draws}

Points are named by column a-g and row 1-7 as printed. Write a placement as the point (d6), a slide
or flight as from-to (a7-d7), and add the cow you shoot after an x: d6xg1, a7-d7xg7."""

    _REMILL_HELP = {
        "off": "Every time a mill is formed it shoots, also a mill broken and remade by moving a cow "
        "back and forth.",
        "no-shot": "A mill may be broken and remade, and shoots each time, with one exception: when "
        "a move breaks a mill and forms another, the broken mill shoots nothing if you remake it "
        "with your very next move (wait one move before remaking it).",
        "forbidden": "A mill may be broken and remade, and shoots each time, with one exception: when "
        "a move breaks a mill and forms another, you may not remake the broken mill with your very "
        "next move (wait one move before remaking it).",
    }

    def help_text(self) -> str:
        p = self.params
        lines = "rows, columns and diagonals as drawn" if p["diagonals"] else "rows and columns as drawn"
        draws = []
        if p["three_cow_draw_plies"]:
            draws.append(f"after {p['three_cow_draw_plies']} moves without a shot while a player has three cows")
        if p["no_shot_draw_plies"]:
            draws.append(f"after {p['no_shot_draw_plies']} moves of sliding without a shot")
        draw_text = f" The game is drawn {', or '.join(draws)}." if draws else ""
        if p["max_plies"]:
            draw_text += f" A game still going after {p['max_plies']} moves in all is stopped as a draw (ply cap)."
        remill = self._REMILL_HELP[p["no_immediate_remill"]]
        return wrap_paragraphs(self.HELP.format(cows=p["cows"], lines=lines, remill=remill, draws=draw_text))

    def _check_params(self) -> None:
        p = self.params
        if p["no_shot_draw_plies"] is None and p["max_plies"] is None:
            raise VariantError(
                f"{self.name}: with neither no_shot_draw_plies nor max_plies a game could go on for ever; "
                "set max_plies (the ply cap)"
            )

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """``(8, 24)``: planes over the points (``kernels.write_observation``)."""
        return (kernels.OBSERVATION_PLANES, board.N_POINTS)

    def _action_moves(self) -> np.ndarray:
        out = np.empty(kernels.MAX_ACTIONS, np.int64)
        n = kernels.write_actions(int(self.params["diagonals"]), int(self.params["flying"]), out)
        return out[:n].copy()

    def _init_record(self, record: np.void, seed: int | None) -> None:
        p = self.params
        kernels.init_state(
            record,
            p["cows"],
            int(p["diagonals"]),
            int(p["flying"]),
            _REMILL_CODES[p["no_immediate_remill"]],
            int(p["full_board"] == "draw"),
            p["three_cow_draw_plies"] or 0,
            p["no_shot_draw_plies"] or 0,
            p["max_plies"] or 0,
        )

    # -- set-up positions ------------------------------------------------------------------------

    def position(
        self,
        white: str | Iterable[str] = (),
        black: str | Iterable[str] = (),
        in_hand: tuple[int, int] = (0, 0),
        to_move: int = 0,
        *,
        blocked: tuple[Iterable[str], Iterable[str]] = ((), ()),
        no_shot_plies: int = 0,
        three_cow_plies: int = 0,
        plies: int = 0,
    ) -> State:
        """A set-up position: the points of White's and Black's cows (names, as a list or a string
        like ``"a7 d7 g7"``), the cows in hand, the player to move (0 White, 1 Black), the mills
        each player may not count on its next move (``no_immediate_remill``, e.g. ``["a7-d7-g7"]``)
        and the draw counters.

        Raises:
            ValueError: an unknown or doubly used point, or more cows than the variant has.

        Example:
            >>> from board_arena import engines
            >>> game = engines.make("morabaraba")
            >>> state = game.position(white="a4 b4 c3 g7", black="a7 b6 c5 a1")
            >>> state.parse_move("c3-c4")
            Traceback (most recent call last):
            ...
            board_arena.engines.IllegalMoveError: this move forms a mill (a4-b4-c4): name the cow to shoot, e.g. c3-c4xa1
            >>> state.apply("c3-c4xa1")   # a7, b6 and c5 stand in a mill: a1 is the only target
            15733
            >>> game.stage(state, 1)        # Black is down to three cows
            'flying'
        """
        cows = self.params["cows"]
        sides = []
        for colour, points in (("white", white), ("black", black)):
            names = points.replace(",", " ").split() if isinstance(points, str) else list(points)
            pts = [self._point(str(n), f" ({colour})") for n in names]
            if len(set(pts)) != len(pts):
                raise ValueError(f"{colour} lists a point twice: {names}")
            sides.append(pts)
        if set(sides[0]) & set(sides[1]):
            raise ValueError(f"a point holds two cows: {_names(sorted(set(sides[0]) & set(sides[1])))}")
        if len(in_hand) != 2 or any(not isinstance(n, (int, np.integer)) or n < 0 for n in in_hand):
            raise ValueError(f"in_hand must be two counts >= 0, got {in_hand!r}")
        for p in (0, 1):
            total = len(sides[p]) + in_hand[p]
            if total > cows:
                raise ValueError(f"{self.player_names[p]} has {total} cows; this variant has {cows}")
            if total < 3:
                raise ValueError(f"{self.player_names[p]} has {total} cows: with two the game is already lost")
        if to_move not in (0, 1):
            raise ValueError(f"to_move must be 0 (White) or 1 (Black), not {to_move!r}")
        counters = {"no_shot_plies": no_shot_plies, "three_cow_plies": three_cow_plies, "plies": plies}
        for key, value in counters.items():
            if not isinstance(value, (int, np.integer)) or not 0 <= value <= 10000:
                raise ValueError(f"{key} must be an integer from 0 to 10000, not {value!r}")
        buf = np.zeros(1, kernels.STATE_DTYPE)
        record = buf[0]
        self._init_record(record, None)
        for p in (0, 1):
            record["cows"][p] = sum(1 << q for q in sides[p])
            record["in_hand"][p] = in_hand[p]
            record["blocked"][p] = sum(1 << self._mill(m) for m in blocked[p])
        record["to_move"] = to_move
        record["no_shot"] = no_shot_plies
        record["three_cow"] = three_cow_plies
        record["plies"] = plies
        kernels.settle(record)
        return State(self, buf, None, custom_start=True)

    def _point(self, text: str, where: str = "") -> int:
        name = text.strip().lower()
        if name not in POINT_OF:
            raise ValueError(f"{text.strip()} is not a point of the board{where}; points: {_names(range(24))}")
        return POINT_OF[name]

    def _mill(self, text: str) -> int:
        points = sorted(self._point(n) for n in re.split(r"[-\s,]+", text.strip()))
        for m, line in enumerate(board.lines_of(self.params["diagonals"])):
            if sorted(line) == points:
                return m
        raise ValueError(f"{text!r} is not a mill of this board")

    # -- notation --------------------------------------------------------------------------------

    def format_move(self, state: State, move: int) -> str:
        frm, to, shot = decode(move)
        text = POINT_NAMES[to] if frm == kernels.PLACE else f"{POINT_NAMES[frm]}-{POINT_NAMES[to]}"
        return text if shot == kernels.NO_SHOT else f"{text}x{POINT_NAMES[shot]}"

    def parse_move(self, state: State, text: str) -> int:
        word = re.sub(r"\s+", "", str(text).lower())
        match = _MOVE_RE.match(word)
        if match is None:
            for square in _ANY_SQUARE.findall(word):
                self._point(square)
            raise ValueError(
                f"{str(text).strip()!r} is not a move: write d6 to place a cow, a7-d7 to slide or "
                "fly one, and add the cow to shoot after an x when the move forms a mill (a7-d7xg7)"
            )
        first, second, shot = match.groups()  # the regular expression makes the first point
        frm, to = (kernels.PLACE, self._point(first)) if not second else (self._point(first), self._point(second))
        move = encode(frm, to, self._point(shot) if shot else kernels.NO_SHOT)
        why = self.illegal_reason(state, move)
        if why is not None:
            raise IllegalMoveError(why)
        return move

    MOVE_IDS = "from * 1024 + to * 32 + shot, with from 0-23 or 24 to place, to 0-23, shot 0-23 or 24 for none"

    def _reason_words(self, state: State, move: int, code: int) -> str:
        """Words for the kernel's codes (``engines.morabaraba.kernels.REASON_*``)."""
        k = kernels
        frm, to, shot = decode(move)
        s = state.data
        me = int(s["to_move"])
        who, other = self.player_names[me], self.player_names[1 - me]
        own, opp = int(s["cows"][me]), int(s["cows"][1 - me])
        name = POINT_NAMES
        if code == k.REASON_PLACE_EMPTY_HAND:
            return f"{who} has no cows in hand: move a cow along a line, e.g. {self._example(state)}"
        if code == k.REASON_MOVE_WITH_HAND:
            hand = int(s["in_hand"][me])
            return (
                f"{who} still has {_plural(hand, 'cow')} in hand: place one on an empty point "
                f"(e.g. {self._example(state)}) before moving"
            )
        if code == k.REASON_NOT_OWN_COW:
            holder = "empty" if not opp >> frm & 1 else f"a {other} cow"
            return f"{name[frm]} is {holder}: move one of {who}'s cows"
        if code == k.REASON_DOES_NOT_MOVE:
            return f"{name[frm]}-{name[to]} does not move the cow"
        if code == k.REASON_OCCUPIED:
            return f"{name[to]} is occupied"
        if code == k.REASON_NOT_ADJACENT:
            why = "flying is off in this variant" if not s["flying"] else f"you fly only with three cows; {who} has {own.bit_count()}"
            return f"{name[frm]} and {name[to]} are not adjacent ({why})"
        formed = int(kernels.mills_of_move(s, move))
        targets = _points(int(kernels.shot_targets(s)))
        written = self.format_move(state, encode(frm, to))
        if code == k.REASON_REMILL_FORBIDDEN:
            blocked = formed & int(s["blocked"][me])
            return (
                f"{written} re-forms {_mill_names(blocked)}, which {who} broke with its previous move to form "
                "a mill: under no_immediate_remill='forbidden' that move is not allowed"
            )
        if code == k.REASON_MUST_SHOOT:
            return f"this move forms a mill ({_mill_names(formed)}): name the cow to shoot, e.g. {written}x{name[targets[0]]}"
        if code == k.REASON_SHOOT_NOT_OPPONENT:
            holder = "empty" if not own >> shot & 1 else f"{who}'s own cow"
            return f"{name[shot]} is {holder}: shoot one of {other}'s cows ({_names(targets)})"
        if code == k.REASON_SHOOT_IN_MILL:
            return f"{name[shot]} is in a mill and {other} has cows outside mills: shoot one of {_names(targets)}"
        if code == k.REASON_NOTHING_TO_SHOOT:
            return f"{other} has no cow on the board to shoot"
        if code == k.REASON_REMILL_SHOOTS_NOTHING:
            return (
                f"this move re-forms {_mill_names(formed)}, which {who} broke with its previous move to form "
                "a mill: under no_immediate_remill it does not count, so it shoots nothing"
            )
        assert code == k.REASON_NO_MILL_NO_SHOT, code
        return "this move forms no mill, so it shoots nothing"

    def _example(self, state: State) -> str:
        names = state.legal_move_names()
        return names[0] if names else "none"

    # -- the browser: a point to place, a cow then a point, then the cow to shoot --------------

    def move_clicks(self, state: State, move: int) -> list[str]:
        frm, to, shot = decode(move)
        clicks = [POINT_NAMES[to]] if frm == kernels.PLACE else [POINT_NAMES[frm], POINT_NAMES[to]]
        return clicks if shot == kernels.NO_SHOT else clicks + [POINT_NAMES[shot]]

    def move_from_clicks(self, state: State, clicks: Sequence[str]) -> str:
        placing = state.data["in_hand"][state.current_player] > 0
        if len(clicks) == 3 or (len(clicks) == 2 and placing):
            return f"{'-'.join(clicks[:-1])}x{clicks[-1]}"
        return "-".join(clicks)

    def click_prompt(self, state: State, clicks: Sequence[str]) -> str | None:
        placing = state.data["in_hand"][state.current_player] > 0
        if len(clicks) != (1 if placing else 2) or not all(c in POINT_OF for c in clicks):
            return None
        points = [POINT_OF[c] for c in clicks]
        move = encode(kernels.PLACE, points[0]) if placing else encode(points[0], points[1])
        if self.reason_code(state, move) == kernels.REASON_MUST_SHOOT:
            return "Mill! Click the opponent's cow to shoot."
        return None

    def highlights(self, state: State) -> list[list[str]]:
        """The mills that the last move formed, when it shot (each as its three points)."""
        if not state.history:
            return []
        _, to, shot = decode(state.history[-1])
        if shot == kernels.NO_SHOT:
            return []
        mover = 1 - int(state.data["to_move"])  # every move passes the turn
        mills = int(kernels.mills_at(state.data, mover, to))
        return [mill_name(m).split("-") for m in range(board.N_MILLS) if mills >> m & 1]

    def board_layout(self) -> dict[str, Any]:
        """``lines``: the lines of the board (its mills), each as its points along the line."""
        return {"lines": [[POINT_NAMES[p] for p in line] for line in board.lines_of(self.params["diagonals"])]}

    # -- display ---------------------------------------------------------------------------------

    def stage(self, state: State, player: int) -> str:
        """``"placing"``, ``"moving"`` or ``"flying"``: how ``player`` moves in ``state``."""
        s = state.data
        if s["in_hand"][player] > 0:
            return "placing"
        return "flying" if kernels.is_flying(s, player) else "moving"

    def render(self, state: State, *, color: bool = False, unicode: bool = False) -> str:
        style = Style(color, unicode, self.player_colors)
        s = state.data
        cows = [int(s["cows"][p]) for p in (0, 1)]
        pieces = _UNICODE_COWS if unicode else _COLOURS
        empty = "\u00b7" if unicode else "."
        grid = [list(row) for row in (_BOARD_DIAGONALS if s["diagonals"] else _BOARD_PLAIN)]
        if unicode:
            table = str.maketrans({"-": "\u2500", "|": "\u2502", "/": "\u2571", "\\": "\u2572"})
            grid = [list("".join(row).translate(table)) for row in grid]
        for p, (x, y) in enumerate(_CELL):
            owner = 0 if cows[0] >> p & 1 else 1 if cows[1] >> p & 1 else None
            grid[y][x] = empty if owner is None else style.player(owner, pieces[owner], bold=True)
        lines = [f"{7 - y // 2 if y % 2 == 0 else ' '}  " + "".join(row).rstrip() for y, row in enumerate(grid)]
        lines.append("   a   b   c   d   e   f   g")
        for p in (0, 1):
            mark = style.player(p, pieces[p], bold=True)
            lines.append(
                f"{mark} {self.player_names[p]}: {int(s['in_hand'][p])} in hand, "
                f"{cows[p].bit_count()} on the board, {self.stage(state, p)}"
            )
        notes = []
        if state.history:
            notes.append(f"last move {self.format_move(state, state.history[-1])}")
        notes.append(f"ply {int(s['plies'])}" + (f"/{int(s['max_plies'])}" if s["max_plies"] else ""))
        if s["no_shot_limit"] and s["no_shot"]:
            notes.append(f"{int(s['no_shot'])}/{int(s['no_shot_limit'])} plies without a shot")
        if s["three_cow_limit"] and s["three_cow"]:
            notes.append(f"three-cow count {int(s['three_cow'])}/{int(s['three_cow_limit'])}")
        lines.append(", ".join(notes))
        for p in (0, 1):
            if s["blocked"][p]:
                names = _mill_names(int(s["blocked"][p]))
                lines.append(f"{self.player_names[p]}'s next move may not count the mill {names}")
        lines.append(self.status_line(state))
        return "\n".join(lines)

    def _board(self, state: State) -> dict[str, Any]:
        s = state.data
        cows = [int(s["cows"][p]) for p in (0, 1)]
        points = [0 if cows[0] >> p & 1 else 1 if cows[1] >> p & 1 else None for p in range(board.N_POINTS)]
        return {
            "points": points,
            "point_names": list(POINT_NAMES),
            "cows": [[POINT_NAMES[p] for p in _points(cows[side])] for side in (0, 1)],
            "in_hand": [int(n) for n in s["in_hand"]],
            "stage": [self.stage(state, p) for p in (0, 1)],
            "blocked_mills": [
                [mill_name(m) for m in range(board.N_MILLS) if int(s["blocked"][p]) >> m & 1] for p in (0, 1)
            ],
            "plies_without_shot": int(s["no_shot"]),
            "three_cow_plies": int(s["three_cow"]),
            "ply_cap": int(s["max_plies"]) or None,
        }

    _END_REASONS = {
        kernels.END_TWO_COWS: "two cows",
        kernels.END_BLOCKED: "cannot move",
        kernels.END_FULL_BOARD: "full board",
        kernels.END_THREE_COW_DRAW: "three-cow draw",
        kernels.END_NO_SHOT_DRAW: "no-shot draw",
        kernels.END_PLY_CAP: PLY_CAP,
    }

    def end_reason(self, state: State) -> str | None:
        return self._END_REASONS.get(int(state.data["end"]))

    def result_text(self, state: State) -> str:
        s = state.data
        end = int(s["end"])
        if end == kernels.END_NONE:
            return "game in progress"
        loser = self.player_names[int(s["to_move"])]
        reason = {
            kernels.END_TWO_COWS: f"{loser} has only two cows left",
            kernels.END_BLOCKED: f"{loser} cannot move",
            kernels.END_FULL_BOARD: "the board is full and no one can move",
            kernels.END_THREE_COW_DRAW: (
                f"{int(s['three_cow_limit'])} plies without a shot while a player had three cows"
            ),
            kernels.END_NO_SHOT_DRAW: f"{int(s['no_shot_limit'])} plies of moving without a shot",
            kernels.END_PLY_CAP: f"the ply cap of {int(s['max_plies'])} plies was reached",
        }[end]
        head = "draw" if s["winner"] < 0 else f"{self.player_names[int(s['winner'])]} wins"
        return f"{head}: {reason} (score {state.score():+d} for White)"


# The drawn board, one character per column; the points sit at columns 0, 4, ..., 24 of the even
# rows (column letter a-g, row 7 at the top).
_BOARD_DIAGONALS = (
    "+-----------+-----------+",
    "|  \\        |        /  |",
    "|   +-------+-------+   |",
    "|   | \\     |     / |   |",
    "|   |   +---+---+   |   |",
    "|   |   |       |   |   |",
    "+---+---+       +---+---+",
    "|   |   |       |   |   |",
    "|   |   +---+---+   |   |",
    "|   | /     |     \\ |   |",
    "|   +-------+-------+   |",
    "|  /        |        \\  |",
    "+-----------+-----------+",
)
_BOARD_PLAIN = tuple(row.replace("\\", " ").replace("/", " ") for row in _BOARD_DIAGONALS)
_CELL = [(4 * "abcdefg".index(n[0]), 2 * (7 - int(n[1]))) for n in POINT_NAMES]
