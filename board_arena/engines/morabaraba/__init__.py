"""Morabaraba: the Generally Accepted Rules 12-cow game (text 000), its 9-cow form (text 002) and
nine men's morris.

=============  ===================================================================================
Rules          ``docs/games/morabaraba.md``, from texts 000 and 002. 24 points on three
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

The rules are here; the other capabilities beside them: ``notation.py`` (the points' names, the
board drawn), ``web.py`` (the page's clicks, with ``web.js``) and ``encoding.py`` (actions,
observations).

Text 002's rule "a mill which is broken to form a new mill can't be formed again on the next move"
(``no_immediate_remill``): when a slide or flight takes a cow out of one or more mills and forms
a mill, those broken mills are *blocked* for the mover's very next move. ``"no-shot"`` (the
project's reading, preset ``morabaraba-9``): that move is allowed but a blocked mill it re-forms
shoots nothing (unless it also forms another mill); ``"forbidden"``: a move that re-forms a blocked
mill is illegal. Simply breaking a mill and remaking it ("shuffling back and forth") still shoots
each time, as both texts say. See ``docs/games/morabaraba.md``.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any, ClassVar, Iterable

import numpy as np

from board_arena.engines.errors import VariantError
from board_arena.engines.game import PLY_CAP, Game, State
from board_arena.engines.morabaraba import board, kernels
from board_arena.engines.morabaraba.board import POINT_NAMES, POINT_OF, mill_name
from board_arena.engines.morabaraba.databases import MorrisDatabases
from board_arena.engines.morabaraba.encoding import MorabarabaEncoding
from board_arena.engines.morabaraba.notation import (
    MorabarabaNotation,
    decode,
    encode,
    mill_list,
    parse_point,
    point_list,
    points_of,
)
from board_arena.engines.morabaraba.web import MorabarabaWeb
from board_arena.engines.params import Param

__all__ = ["Morabaraba", "decode", "encode", "POINT_NAMES", "POINT_OF", "DEFAULT_MAX_PLIES"]

#: The default ply cap of the Morabaraba presets: far beyond any game that is still going
#: somewhere (see docs/games/morabaraba.md for the measured game lengths), so it only stops endless shuffles.
DEFAULT_MAX_PLIES = 1000

_REMILL_CODES = {
    "off": kernels.REMILL_ALLOWED,
    "no-shot": kernels.REMILL_NO_SHOT,
    "forbidden": kernels.REMILL_FORBIDDEN,
}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Morabaraba(Game):
    family = "morabaraba"
    summary = "mill game on 24 points: place, slide, fly with three, shoot from a mill"
    kernels: ClassVar[ModuleType] = kernels
    player_names = ("White", "Black")
    implicit_minimax = 0.6  # against plain UCT at equal simulations and OpenSpiel's MCTS at equal time
    notation_class = MorabarabaNotation
    web_class = MorabarabaWeb
    encoding_class = MorabarabaEncoding
    endgame_class = MorrisDatabases
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

    def _check_params(self) -> None:
        p = self.params
        if p["no_shot_draw_plies"] is None and p["max_plies"] is None:
            raise VariantError(
                f"{self.name}: with neither no_shot_draw_plies nor max_plies a game could go on for ever; "
                "set max_plies (the ply cap)"
            )

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
            pts = [parse_point(str(n), f" ({colour})") for n in names]
            if len(set(pts)) != len(pts):
                raise ValueError(f"{colour} lists a point twice: {names}")
            sides.append(pts)
        if set(sides[0]) & set(sides[1]):
            raise ValueError(f"a point holds two cows: {point_list(sorted(set(sides[0]) & set(sides[1])))}")
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

    def _mill(self, text: str) -> int:
        points = sorted(parse_point(n) for n in re.split(r"[-\s,]+", text.strip()))
        for m, line in enumerate(board.lines_of(self.params["diagonals"])):
            if sorted(line) == points:
                return m
        raise ValueError(f"{text!r} is not a mill of this board")

    # -- the rules in words ----------------------------------------------------------------------

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
        targets = points_of(int(kernels.shot_targets(s)))
        written = self.notation.format_move(state, encode(frm, to))
        if code == k.REASON_REMILL_FORBIDDEN:
            blocked = formed & int(s["blocked"][me])
            return (
                f"{written} re-forms {mill_list(blocked)}, which {who} broke with its previous move to form "
                "a mill: under no_immediate_remill='forbidden' that move is not allowed"
            )
        if code == k.REASON_MUST_SHOOT:
            return f"this move forms a mill ({mill_list(formed)}): name the cow to shoot, e.g. {written}x{name[targets[0]]}"
        if code == k.REASON_SHOOT_NOT_OPPONENT:
            holder = "empty" if not own >> shot & 1 else f"{who}'s own cow"
            return f"{name[shot]} is {holder}: shoot one of {other}'s cows ({point_list(targets)})"
        if code == k.REASON_SHOOT_IN_MILL:
            return f"{name[shot]} is in a mill and {other} has cows outside mills: shoot one of {point_list(targets)}"
        if code == k.REASON_NOTHING_TO_SHOOT:
            return f"{other} has no cow on the board to shoot"
        if code == k.REASON_REMILL_SHOOTS_NOTHING:
            return (
                f"this move re-forms {mill_list(formed)}, which {who} broke with its previous move to form "
                "a mill: under no_immediate_remill it does not count, so it shoots nothing"
            )
        assert code == k.REASON_NO_MILL_NO_SHOT, code
        return "this move forms no mill, so it shoots nothing"

    def _example(self, state: State) -> str:
        names = state.legal_move_names()
        return names[0] if names else "none"

    def stage(self, state: State, player: int) -> str:
        """``"placing"``, ``"moving"`` or ``"flying"``: how ``player`` moves in ``state``."""
        s = state.data
        if s["in_hand"][player] > 0:
            return "placing"
        return "flying" if kernels.is_flying(s, player) else "moving"

    def _board(self, state: State) -> dict[str, Any]:
        s = state.data
        cows = [int(s["cows"][p]) for p in (0, 1)]
        points = [0 if cows[0] >> p & 1 else 1 if cows[1] >> p & 1 else None for p in range(board.N_POINTS)]
        return {
            "points": points,
            "point_names": list(POINT_NAMES),
            "cows": [[POINT_NAMES[p] for p in points_of(cows[side])] for side in (0, 1)],
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


