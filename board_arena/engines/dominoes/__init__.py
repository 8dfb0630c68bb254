"""Dominoes: the two-player draw game of text 001, with hidden hands.

=============  ===================================================================================
Rules          ``docs/games/dominoes.md``, from text 001. A double-six set, 7 tiles each,
               the rest is the boneyard. The holder of the greatest tile (a double beats a
               non-double, then more pips, then the higher high end) leads with any tile. A tile is
               placed at an open end it matches; a player who cannot play draws one tile and the
               turn passes even if it fits; with an empty boneyard they pass. Whoever plays their
               last tile wins; when neither can play, fewer tiles wins, equal is a draw.
Players        ``player 0`` is the first hand dealt, ``player 1`` the second; the leader (either)
               moves first: ``current_player`` tells. The deal is a shuffle from the game's seed.
Moves          ``2 * tile + end`` (end 0 left, 1 right), ``MOVE_DRAW`` = 110, ``MOVE_PASS`` = 111.
               Written ``6-4L`` / ``6-4R`` (the tile, high pips first, and the end of the line),
               ``6-4`` for the lead or when the tile has one move, ``draw``, ``pass``; read
               case-insensitively, ``4-6 left``, ``6:4r`` and ``64R`` too. When both ends show the
               same number a tile has one move, written with ``L``.
Actions        the move ids themselves, draw and pass after the tiles: ``2 * n_tiles + 2`` (58 for
               the double six), one fewer in the block game. Observation ``(4 * n_tiles + 6,)``
               float32 from the player's view only: see ``kernels.write_observation``.
Returns        1 / 0 / -1 by tiles in hand at the end (an empty hand wins); ``score`` is player 0's
               pip margin (player 1's pips in hand minus player 0's).
Information    Players see their own hand, the line, the counts of the other hand and of the
               boneyard and the public history. ``state.view(player)`` is that player's view (a
               ``State`` whose record is ``kernels.observe``'s); agents get only views, and
               ``kernels.sample_world`` draws a deal uniformly from those consistent with a view.
Presets        ``dominoes`` (text 001: the draw game) and ``dominoes-block`` (no drawing: a player
               who cannot play passes; the boneyard stays out of play).
Parameters     ``max_pips`` 1..9 (6): the double-``max_pips`` set, ``(m+1)(m+2)/2`` tiles;
               ``hand_size`` 1..27 (7), at most half the set; ``drawing`` (True);
               ``block_rule`` ``"boneyard-empty"`` (a game nobody can go on with ends when the
               boneyard is empty too) or ``"no-tile-fits"`` (it ends as soon as neither hand has a
               tile that fits, whatever the boneyard holds: text 001's words read literally).
=============  ===================================================================================

The rules are here; the other capabilities beside them: ``notation.py`` (tiles and ends, the
table drawn as a player sees it), ``web.py`` (the page's clicks and buttons, with ``web.js``)
and ``encoding.py`` (actions, observations).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from board_arena.engines.dominoes import kernels
from board_arena.engines.dominoes.encoding import DominoesEncoding
from board_arena.engines.dominoes.notation import (
    MOVE_PATTERN,
    DominoesNotation,
    tile_index,
    tile_name,
    tiles_of,
)
from board_arena.engines.dominoes.web import DominoesWeb
from board_arena.engines.errors import VariantError
from board_arena.engines.game import Game, State
from board_arena.engines.params import Param
from board_arena.kernels import rng_from_seed

__all__ = ["Dominoes", "tile_name", "tile_index", "tiles_of"]


class Dominoes(Game):
    family = "dominoes"
    summary = "draw dominoes with hidden hands: double-six, 7 tiles each, greatest tile leads"
    kernels: ClassVar[ModuleType] = kernels
    perfect_information = False
    notation: DominoesNotation
    notation_class = DominoesNotation
    web_class = DominoesWeb
    encoding_class = DominoesEncoding
    PARAMS = (
        Param("max_pips", 6, "the set: double-max_pips ((m+1)(m+2)/2 tiles)", low=1, high=kernels.MAX_PIPS),
        Param("hand_size", 7, "tiles dealt to each player (at most half the set)", low=1, high=kernels.MAX_HAND),
        Param("drawing", True, "a player who cannot play draws (the draw game); false: the block game"),
        Param(
            "block_rule",
            "boneyard-empty",
            "when a game nobody can go on with ends: 'boneyard-empty' when neither can play and the "
            "boneyard is empty; 'no-tile-fits' as soon as neither hand holds a tile that fits the "
            "line, whatever the boneyard holds (text 001 read literally)",
            choices=("boneyard-empty", "no-tile-fits"),
        ),
    )
    PRESETS = {
        "dominoes": {},
        "dominoes-block": {"drawing": False},
    }

    @property
    def random_start(self) -> bool:
        return True  # the deal

    @property
    def n_tiles(self) -> int:
        m = self.params["max_pips"]
        return (m + 1) * (m + 2) // 2

    @property
    def _block_code(self) -> int:
        return {"boneyard-empty": kernels.BLOCK_BONEYARD_EMPTY, "no-tile-fits": kernels.BLOCK_NO_TILE_FITS}[
            self.params["block_rule"]
        ]

    def _check_params(self) -> None:
        if 2 * self.params["hand_size"] > self.n_tiles:
            raise VariantError(
                f"{self.name}: hand_size={self.params['hand_size']} is too large for the double-"
                f"{self.params['max_pips']} set of {self.n_tiles} tiles; allowed: at most {self.n_tiles // 2}"
            )

    def _init_record(self, record: np.void, seed: int | None) -> None:
        p = self.params
        rng = rng_from_seed(0 if seed is None else seed)
        kernels.init_state(record, p["max_pips"], p["hand_size"], int(p["drawing"]), self._block_code, rng)

    # -- set-up positions ----------------------------------------------------------------------

    def parse_tiles(self, text: str) -> list[int]:
        """Tile ids from text such as ``"6-6 5-4 3-0"`` (ValueError saying which tile is wrong)."""
        tiles = []
        for word in text.replace(",", " ").split():
            match = MOVE_PATTERN.match(word)
            if not match or match.group(3):
                raise ValueError(f"{word!r} is not a tile: write tiles as 6-4, separated by spaces")
            t = tile_index(self.params["max_pips"], int(match.group(1)), int(match.group(2)))
            if t is None:
                raise ValueError(f"{word} is not a tile of the double-{self.params['max_pips']} set")
            if t in tiles:
                raise ValueError(f"{word} is listed twice")
            tiles.append(t)
        return tiles

    def deal(self, hand0: str, hand1: str, boneyard: str = "") -> State:
        """A game from a chosen deal: both hands and the boneyard in draw order, as tile lists.

        Tiles of the set that are not listed go to the end of the boneyard, smallest first.

        Example:
            >>> from board_arena import engines
            >>> game = engines.make("dominoes", max_pips=2, hand_size=2)
            >>> state = game.deal("2-2 1-0", "2-1 0-0", boneyard="2-0")
            >>> state.current_player, state.legal_move_names()   # 2-2 is the greatest: player 0
            (0, ['1-0', '2-2'])
        """
        h = self.params["hand_size"]
        hands = [self.parse_tiles(hand0), self.parse_tiles(hand1)]
        bone = self.parse_tiles(boneyard)
        for name, hand in zip(("hand0", "hand1"), hands):
            if len(hand) != h:
                raise ValueError(f"{name} must list hand_size={h} tiles, got {len(hand)}")
        listed = hands[0] + hands[1] + bone
        if len(set(listed)) != len(listed):
            raise ValueError("a tile is dealt twice")
        rest = [t for t in range(self.n_tiles) if t not in listed]
        order = np.array(bone + rest, np.int8)
        masks = [sum(1 << t for t in hand) for hand in hands]
        buf = np.zeros(1, kernels.STATE_DTYPE)
        kernels.set_deal(
            buf[0], self.params["max_pips"], h, int(self.params["drawing"]), self._block_code,
            np.uint64(masks[0]), np.uint64(masks[1]), order,
        )
        return State(self, buf, None, custom_start=True)

    # -- the rules in words and as data ----------------------------------------------------------

    def _reason_words(self, state: State, move: int, code: int) -> str:
        """Words for the kernel's codes (``engines.dominoes.kernels.REASON_*``)."""
        k = kernels
        record = state.data
        # The moves the player has, named as such: "(3-0)" alone would read as a tile of the line.
        legal = "your moves: " + ", ".join(state.legal_move_names())
        left, right = (int(e) for e in record["ends"])
        stock = int(record["boneyard_size"]) - int(record["drawn"])
        if code == k.REASON_DRAW_CAN_PLAY:
            if left < 0:
                return f"the leader may not draw: play any tile of your hand ({legal})"
            return f"you cannot draw when you can play ({legal})"
        if code == k.REASON_NO_DRAWING:
            return "there is no drawing in the block game: pass"
        if code == k.REASON_BONEYARD_EMPTY:
            return "the boneyard is empty: pass"
        if code == k.REASON_PASS_CAN_PLAY:
            return f"you must play when you can ({legal})"
        if code == k.REASON_PASS_CAN_DRAW:
            return f"you cannot pass while the boneyard has {stock} tile{'s' * (stock != 1)}: draw"
        name = tile_name(self.params["max_pips"], move >> 1)
        end = move & 1
        if code == k.REASON_NOT_IN_HAND:
            return f"{name} is not in your hand ({legal})"
        if code == k.REASON_LEAD_ONE_MOVE:
            return f"the first tile has one move, written {name}"
        if code == k.REASON_EQUAL_ENDS_ONE_MOVE:
            return f"both ends show {left}, so {name} has one move: {name}L"
        assert code == k.REASON_NO_MATCH, code
        shown, other = (right, left) if end else (left, right)
        side, other_side = ("right", "left") if end else ("left", "right")
        if other in (int(pips) for pips in name.split("-")):
            return f"{name} does not match the {side} end {shown}; it matches the {other_side} end {other}: {name}{other_side[0].upper()}"
        return f"{name} does not match the {side} end {shown}, nor the {other_side} end {other} ({legal})"

    def line(self, state: State) -> list[tuple[int, int]]:
        """The line from left to right, each tile as (left pips, right pips)."""
        m = self.params["max_pips"]
        line: list[tuple[int, int]] = []
        for move in state.data["history"][: int(state.data["ply"])]:
            move = int(move)
            if move >= kernels.MOVE_DRAW:
                continue
            tile, end = move >> 1, move & 1
            high, low = int(kernels.TILE_HIGH[m, tile]), int(kernels.TILE_LOW[m, tile])
            if not line:
                line.append((high, low))
            elif end == 0:
                shown = line[0][0]
                line.insert(0, (high + low - shown, shown))
            else:
                shown = line[-1][1]
                line.append((shown, high + low - shown))
        return line

    def first_player_reason(self, state: State, player: int | None) -> str | None:
        """The holder of the greatest tile dealt leads; ``player``, if it is they, is told the tile."""
        leader = int(state.data["leader"])
        if player != leader:
            return "holds the greatest tile dealt"
        tile = tile_name(self.params["max_pips"], int(state.data["dealt"][leader]).bit_length() - 1)
        return f"you hold the greatest tile dealt, {tile}"

    def _board(self, state: State) -> dict[str, Any]:
        record = state.data
        m = self.params["max_pips"]
        viewer = int(record["viewer"])
        hidden = [viewer >= 0 and p != viewer and not record["terminal"] for p in (0, 1)]
        hands = [None if hidden[p] else [tile_name(m, t) for t in tiles_of(int(record["hands"][p]))] for p in (0, 1)]
        return {
            "line": [list(tile) for tile in self.line(state)],
            "ends": None if record["ends"][0] < 0 else [int(e) for e in record["ends"]],
            "hands": hands,
            "hand_counts": [int(c) for c in record["counts"]],
            "boneyard": int(record["boneyard_size"]) - int(record["drawn"]),
            "leader": int(record["leader"]),
            "viewer": None if viewer < 0 else viewer,
        }

    def end_reason(self, state: State) -> str | None:
        if not state.is_terminal():
            return None
        return "domino" if 0 in state.data["counts"] else "blocked"

    def result_text(self, state: State) -> str:
        outcome = state.outcome()
        if outcome is None:
            return "game in progress"
        counts = [int(c) for c in state.data["counts"]]
        if 0 in counts:
            how = "played all their tiles"
        else:
            how = f"blocked, {counts[0]} tile{'s' * (counts[0] != 1)} to {counts[1]}"
        head = "draw" if outcome == 0 else f"{self.player_names[0 if outcome > 0 else 1]} wins"
        return f"{head} ({how}; pip margin {state.score():+d} for {self.player_names[0]})"
