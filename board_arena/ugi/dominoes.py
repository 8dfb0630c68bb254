"""The Dominoes extension of UGI: ``position deal`` tells an engine what its seat sees, and
nothing more (never the other hand, never the boneyard's order, never the deal's seed), as
OpenSpiel's referee gives each bot its own observation::

    position deal seat S leader L hand T1 T2 ... [over U1 U2 ...] [moves M1 M2 ...]

``S`` is the engine's seat (0 is UGI's p1, the first hand dealt), ``L`` the player who led,
``T1 T2 ...`` the tiles dealt to the seat (``6-4``: high pips first). The moves are the game's
notation (``6-4L``, ``6-4R``, ``6-4``, ``pass``) with one change: a draw is ``draw`` when the
other player drew (the seat does not see the tile) and ``draw:T`` when the seat drew tile ``T``.
Once the game is over the rules show both hands: ``over`` lists the tiles left in the other
hand (none when that player went out), which also says that the game has ended (under
``block_rule="no-tile-fits"`` the seat could not tell otherwise).

The state it describes is the seat's view, exactly the record of ``state.view(seat)``
(``kernels.observe``): :func:`view_words` writes it from the game's state, :func:`view_from_words`
reads it back, and the engine searches it with the hidden-information agents (``pimc``,
``ismcts``), which sample the hidden tiles from it.

    >>> from board_arena import engines
    >>> from board_arena.ugi.protocol import parse_position, state_from_position
    >>> game = engines.make("dominoes", max_pips=2, hand_size=2)
    >>> state = game.deal("2-2 1-0", "1-1 0-0", boneyard="2-0 2-1").play("2-2", "draw", "draw")
    >>> words = view_words(state, 1)
    >>> " ".join(words)
    'deal seat 1 leader 0 hand 0-0 1-1 moves 2-2 draw:2-0 draw'
    >>> state_from_position(game, parse_position(["position", *words])) == state.view(1)
    True
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from board_arena.engines import Game, State, shown
from board_arena.engines.contract import LEGAL
from board_arena.engines.dominoes import Dominoes, kernels
from board_arena.engines.dominoes.notation import tile_name, tiles_of

__all__ = ["speaks", "view_words", "view_from_words", "FORM", "DRAWN"]

FORM = "position deal seat S leader L hand T1 T2 ... [over U1 ...] [moves M1 M2 ...] (draw:T for the seat's own draws)"
#: What joins ``draw`` and the tile the seat drew.
DRAWN = "draw:"


def speaks(game: Game) -> bool:
    """True for the games this extension describes (Dominoes and its variants)."""
    return isinstance(game, Dominoes)


def _tiles(game: Game, mask: int) -> list[str]:
    return [tile_name(game.params["max_pips"], t) for t in tiles_of(mask)]


def view_words(state: State, seat: int) -> list[str]:
    """The words after ``position`` that tell ``seat`` its view of ``state`` (the game's state):
    ``deal seat S leader L hand ... [over ...] [moves ...]``."""
    game = state.game
    s = state.data
    other = 1 - seat
    m = game.params["max_pips"]
    words = ["deal", "seat", str(seat), "leader", str(int(s["leader"])), "hand", *_tiles(game, int(s["dealt"][seat]))]
    if state.is_terminal():
        words += ["over", *_tiles(game, int(s["hands"][other]))]
    # The game from its deal, move by move, to write each move as the player before it saw it.
    buf = np.zeros(1, kernels.STATE_DTYPE)
    size = int(s["boneyard_size"])
    kernels.set_deal(
        buf[0], m, int(s["hand_size"]), int(s["drawing"]), int(s["block_rule"]),
        np.uint64(s["dealt"][0]), np.uint64(s["dealt"][1]), s["boneyard"][:size].copy(),
    )
    replay = State(game, buf, None, custom_start=True)
    moves = []
    for ply in range(int(s["ply"])):
        move = int(s["history"][ply])
        mover = int(replay.data["to_move"])
        if move == kernels.MOVE_DRAW:
            tile = int(replay.data["boneyard"][int(replay.data["drawn"])])
            moves.append(DRAWN + tile_name(m, tile) if mover == seat else "draw")
        else:
            moves.append(game.notation.format_move(replay, move))
        kernels.apply_move(replay.data, move)
    if moves:
        words += ["moves", *moves]
    return words


def _refuse(what: str) -> ValueError:
    from board_arena.ugi.errors import UGIError

    return UGIError(f"position deal: {what}; expected {FORM}")


def _seat_number(word: str | None, name: str) -> int:
    if word not in ("0", "1"):
        raise _refuse(f"{name} must be 0 or 1, not {shown(word)}")
    return int(word)


def view_from_words(game: Game, deal: Sequence[str], moves: Sequence[str]) -> State:
    """The seat's view that ``position deal ...`` describes: ``deal`` the words between ``deal``
    and ``moves``, ``moves`` those after it.

    Raises:
        UGIError: the words are malformed, or a move is illegal or shows a tile the seat could
            not have seen played (one line: what is wrong and the expected form).
    """
    words = list(deal)
    if words[:1] == ["deal"]:
        words = words[1:]
    if len(words) < 5 or words[0] != "seat" or words[2] != "leader" or words[4] != "hand":
        raise _refuse(f"it begins {shown(' '.join(words[:5]))}")
    seat = _seat_number(words[1], "seat")
    leader = _seat_number(words[3], "leader")
    rest = words[5:]
    shown_tiles: list[str] | None = None
    if "over" in rest:
        cut = rest.index("over")
        rest, shown_tiles = rest[:cut], rest[cut + 1:]
    p = game.params
    m, n_tiles = p["max_pips"], (p["max_pips"] + 1) * (p["max_pips"] + 2) // 2
    try:
        hand = game.parse_tiles(" ".join(rest))  # type: ignore[attr-defined]
        over = None if shown_tiles is None else game.parse_tiles(" ".join(shown_tiles))  # type: ignore[attr-defined]
    except ValueError as error:
        raise _refuse(str(error)) from None
    if len(hand) != p["hand_size"]:
        raise _refuse(f"the hand lists {len(hand)} tiles; this variant deals {p['hand_size']}")
    if leader != seat and n_tiles - 1 in hand:
        raise _refuse(f"seat {seat} holds {tile_name(m, n_tiles - 1)}, the greatest tile, so it leads")
    other = 1 - seat
    own = sum(1 << t for t in hand)
    buf = np.zeros(1, kernels.STATE_DTYPE)
    record = buf[0]
    masks = [np.uint64(0), np.uint64(0)]
    masks[seat] = np.uint64(own)
    block = {"boneyard-empty": kernels.BLOCK_BONEYARD_EMPTY, "no-tile-fits": kernels.BLOCK_NO_TILE_FITS}[p["block_rule"]]
    kernels.set_deal(record, m, p["hand_size"], int(p["drawing"]), block, masks[0], masks[1], np.zeros(0, np.int8))
    record["leader"] = leader
    record["to_move"] = leader
    record["viewer"] = seat
    view = State(game, buf, None, custom_start=True, viewer=seat)
    seen = own  # the tiles the seat has seen: its hand, its draws, the line
    for number, text in enumerate(moves, start=1):
        if record["terminal"]:
            raise _refuse(f"move {number} ({shown(text)}) comes after the end of the game")
        mover = int(record["to_move"])
        where = f"move {number} ({shown(text)})"
        if text.lower().startswith(DRAWN):
            if mover != seat:
                raise _refuse(f"{where}: the other player drew, which the seat does not see: write draw")
            try:
                (tile,) = game.parse_tiles(text[len(DRAWN):])  # type: ignore[attr-defined]
            except ValueError as error:
                raise _refuse(f"{where}: {error}") from None
            why = game.illegal_reason(view, kernels.MOVE_DRAW)
            if why is not None:
                raise _refuse(f"{where}: {why}")
            if seen >> tile & 1:
                raise _refuse(f"{where}: {tile_name(m, tile)} was seen already, so it is not in the boneyard")
            record["boneyard"][int(record["drawn"])] = tile
            seen |= 1 << tile
            kernels.apply_move(record, kernels.MOVE_DRAW)
        elif text.lower() in ("draw", "d"):
            if mover == seat:
                raise _refuse(f"{where}: the seat's own draw names the tile drawn, as draw:6-4")
            if not p["drawing"] or record["drawn"] >= record["boneyard_size"]:
                raise _refuse(f"{where}: {'the block game has no drawing' if not p['drawing'] else 'the boneyard is empty'}")
            record["history"][int(record["ply"])] = kernels.MOVE_DRAW
            record["ply"] += 1
            record["to_move"] = 1 - mover
            record["passes"] = 0
            record["drawn"] += 1
            record["counts"][mover] += 1
        else:
            try:
                move = game.notation.parse_move(view, text)
            except ValueError as error:
                raise _refuse(f"{where}: {error}") from None
            if mover == seat:
                why = game.illegal_reason(view, move)
            elif move == kernels.MOVE_PASS:
                can_draw = p["drawing"] and record["drawn"] < record["boneyard_size"]
                why = "a player who cannot play draws while the boneyard lasts" if can_draw else None
            else:
                tile = move >> 1
                if seen >> tile & 1:
                    raise _refuse(f"{where}: the seat has seen {tile_name(m, tile)} elsewhere (its hand, its draws or the line)")
                # The rules of the kernel, with the tile put in the other hand for the check.
                record["hands"][other] = np.uint64(1 << tile)
                code = int(kernels.illegal_reason(record, move))
                why = None if code == LEGAL else game._reason_words(view, move, code)
                seen |= 1 << tile
            if why is not None:
                raise _refuse(f"{where}: {why}")
            kernels.apply_move(record, move)
            if mover != seat:
                record["hands"][other] = np.uint64(0)
        # What the seat can tell of the end: a hand went out or both players passed. (Under
        # no-tile-fits the end depends on the other hand: ``over`` says it.)
        record["terminal"] = int(record["counts"][0] == 0 or record["counts"][1] == 0 or record["passes"] >= 2)
    if over is not None:
        if len(over) != int(record["counts"][other]):
            raise _refuse(f"over lists {len(over)} tiles, but the other hand holds {int(record['counts'][other])}")
        shown_mask = sum(1 << t for t in over)
        if shown_mask & seen:
            raise _refuse("over lists a tile the seat has seen elsewhere")
        if not record["terminal"]:
            nobody_fits = block == kernels.BLOCK_NO_TILE_FITS and _nothing_fits(record, shown_mask, m)
            if not nobody_fits:
                raise _refuse("over: the game has not ended (no hand is empty, no two passes, a tile still fits)")
        record["terminal"] = 1
        record["hands"][other] = np.uint64(shown_mask)
    return view


def _nothing_fits(record: np.void, other_hand: int, m: int) -> bool:
    """True when neither hand holds a tile that fits the line (``block_rule="no-tile-fits"``)."""
    left, right = int(record["ends"][0]), int(record["ends"][1])
    if left < 0:
        return False
    fits = int(kernels.PIP_MASK[m, left]) | int(kernels.PIP_MASK[m, right])
    return not ((int(record["hands"][0]) | int(record["hands"][1]) | other_hand) & fits)
