"""Dominoes kernels: the two-player draw game of text 001 with hidden hands, its information view
and an exact sampler of the hidden worlds consistent with a view.

Rules: ``docs/games/dominoes.md`` and text 001. A double-``max_pips`` set (1..9: 3 to 55
tiles), ``hand_size`` tiles each, the rest is the boneyard.

Tiles. Tile ids are *ranks*: 0 is the smallest tile and ``n_tiles - 1`` the greatest in the order
that chooses the first player (a double beats a non-double; else more pips; else the higher high
end), so "the greatest tile of a hand" is its highest set bit. Non-doubles come first, by (pip sum,
high end), then the doubles by pips. For the double-six set (``TILE_HIGH[6]``/``TILE_LOW[6]``)::

    rank  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27
    tile 10 20 30 21 40 31 50 41 32 60 51 42 61 52 43 62 53 63 54 64 65 00 11 22 33 44 55 66

A set of tiles (a hand, a mask of tiles that match a number) is one uint64 with bit ``rank``.

Deal. All chance happens at the start: the whole set is shuffled from the game's seed; player 0
gets the first ``hand_size`` tiles, player 1 the next, and the rest is the boneyard *in order*
(``boneyard[k]`` is the k-th tile drawn), so the game is deterministic after the deal. The
leader, the holder of the greatest dealt tile, moves first (player 0 is the first hand dealt, not
necessarily the first to move: ``current_player`` tells).

Moves: ``2 * tile + end`` (end 0 = left, 1 = right) places ``tile`` at that end of the line; a tile
that fits both ends, when they differ, gives both moves. When both ends show the same number, and
for the lead (the first tile, which may be any tile of the leader's hand), a tile has one move,
with end 0. ``MOVE_DRAW`` (a player who cannot play draws the next boneyard tile and the turn
passes, even if the tile fits) and ``MOVE_PASS`` (a player who cannot play with an empty boneyard,
or in the block game) are the other moves: exactly one of them is the only legal move of a player
who cannot play. Every move hands the turn over, so the player of ply ``i`` is
``leader ^ (i & 1)``.

End: a player who plays their last tile wins. Two passes in a row (only possible with an empty
boneyard, or in the block game) show that neither player can play: the game is blocked and the
player with fewer tiles wins, equal counts draw. Ending on the second pass rather than on the
move that blocked the line changes no result, and it keeps every fact a player learns in a public
move (a player learns nothing from the game merely going on), which is what keeps the sampler
below exact. With ``block_rule = BLOCK_NO_TILE_FITS`` (text 001 read literally) the game ends
as soon as neither hand holds a tile that fits the line, whatever the boneyard holds; then the
game going on does tell something (one of the hands holds a tile that fits), and the sampler
keeps only the deals under which the game went on as it did (rejection from the exact sampler,
which keeps the draw uniform). ``score`` is player 0's pip margin: pips in player 1's hand minus pips in player 0's.

State layout (one record; ``viewer`` = -1 for the true state)::

    hands[2]     uint64  tiles in each hand now                       (a view: opponent's = 0)
    dealt[2]     uint64  tiles dealt to each hand                     (a view: opponent's = 0)
    ply          int16   moves played
    boneyard[53] int8    the boneyard in draw order, -1 past its size (a view: -1 but for the
                         tiles that the viewer drew)
    history[168] int8    every move so far (public: a draw does not say which tile)
    ends[2]      int8    left and right open ends, -1 before the lead
    counts[2]    int8    tiles in each hand (public)
    drawn        int8    tiles drawn so far: the next draw is boneyard[drawn]
    passes       int8    consecutive passes (2 ends the game)

The information view (``observe``) is the same record with the hidden parts cleared and
``viewer`` set; everything a player knows is in it: own hand and dealt hand, the tiles they drew,
the line and the public history (from which the sampler replays every draw and pass), the counts.
At the end both hands are shown. ``sample_world`` draws, exactly uniformly, a deal consistent with
a view and writes the true state it leads to (see its docstring for the method).
"""

from __future__ import annotations

import numpy as np

from board_arena.engines.contract import (
    FIRST_GAME_REASON,
    LEGAL,
    REASON_GAME_OVER,
    REASON_NOT_A_MOVE,
    state_dtype,
)
from board_arena.kernels import (
    kernel,
    lowest_bit_index,
    mix64,
    popcount,
    rng_below,
    rng_uniform,
)

MAX_PIPS = 9
MAX_TILES = (MAX_PIPS + 1) * (MAX_PIPS + 2) // 2  # 55
MAX_HAND = MAX_TILES // 2  # 27
MAX_BONEYARD = MAX_TILES - 2  # hand_size >= 1
# Plays <= tiles, draws <= boneyard, and each pass but the last two is followed by a play (passes
# need an empty boneyard or the block game, where the other player then plays or passes too).
MAX_PLIES = 2 * MAX_TILES + MAX_BONEYARD + 2  # 165
MOVE_DRAW = 2 * MAX_TILES  # 110
MOVE_PASS = MOVE_DRAW + 1
MOVE_BOUND = MOVE_PASS + 1
# A lead is one move per tile of the hand; later a move fits one of the two end numbers, each of
# which is on max_pips + 1 tiles.
MAX_MOVES = max(MAX_HAND, 2 * (MAX_PIPS + 1))

# block_rule: when a game nobody can go on with ends (text 001: "none of them may play a tile").
BLOCK_BONEYARD_EMPTY = 0  # neither player can play and the boneyard is empty: at the second pass
BLOCK_NO_TILE_FITS = 1  # neither hand holds a tile that fits the line, whatever the boneyard holds

NO_END = -1
NO_VIEWER = -1
UNKNOWN_TILE = -1

STATE_DTYPE = state_dtype(
    [
        ("hands", np.uint64, (2,)),
        ("dealt", np.uint64, (2,)),
        ("ply", np.int16),
        ("boneyard", np.int8, (MAX_BONEYARD,)),
        ("history", np.int8, (168,)),
        ("ends", np.int8, (2,)),
        ("counts", np.int8, (2,)),
        ("max_pips", np.int8),
        ("hand_size", np.int8),
        ("n_tiles", np.int8),
        ("boneyard_size", np.int8),
        ("drawing", np.int8),  # 1: the draw game (text 001); 0: the block game (no drawing)
        ("block_rule", np.int8),  # BLOCK_*: when a game in which nobody can play ends
        ("drawn", np.int8),
        ("leader", np.int8),
        ("to_move", np.int8),
        ("passes", np.int8),
        ("terminal", np.int8),
        ("viewer", np.int8),  # -1: the true state; 0 or 1: that player's view
    ]
)
assert STATE_DTYPE["history"].shape[0] >= MAX_PLIES


def tile_order(max_pips: int) -> list[tuple[int, int]]:
    """The tiles (high, low) of a double-``max_pips`` set, smallest first (index = tile id)."""
    tiles = [(a, b) for a in range(max_pips + 1) for b in range(a + 1)]
    singles = sorted((t for t in tiles if t[0] != t[1]), key=lambda t: (t[0] + t[1], t[0]))
    doubles = sorted((t for t in tiles if t[0] == t[1]), key=lambda t: t[0])
    return singles + doubles


def _tables():
    high = np.zeros((MAX_PIPS + 1, MAX_TILES), np.int8)
    low = np.zeros((MAX_PIPS + 1, MAX_TILES), np.int8)
    pip_mask = np.zeros((MAX_PIPS + 1, MAX_PIPS + 1), np.uint64)
    sum_bits = np.zeros((MAX_PIPS + 1, 5), np.uint64)  # bit k of the tile's pip sum (sums <= 18)
    for m in range(1, MAX_PIPS + 1):
        for t, (a, b) in enumerate(tile_order(m)):
            high[m, t], low[m, t] = a, b
            pip_mask[m, a] |= np.uint64(1 << t)
            pip_mask[m, b] |= np.uint64(1 << t)
            for k in range(5):
                if (a + b) >> k & 1:
                    sum_bits[m, k] |= np.uint64(1 << t)
    return high, low, pip_mask, sum_bits


TILE_HIGH, TILE_LOW, PIP_MASK, PIP_SUM_BITS = _tables()

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


@kernel(inline="always")
def _bit(t):
    return _U1 << np.uint64(t)


@kernel(inline="always")
def _all_tiles(n):
    return _ALL >> np.uint64(64 - n)


@kernel(inline="always")
def _matching(s, left, right):
    """The tiles that fit an end showing ``left`` or ``right`` (both >= 0)."""
    m = s["max_pips"]
    return PIP_MASK[m, left] | PIP_MASK[m, right]


@kernel
def init_state(s, max_pips, hand_size, drawing, block_rule, rng):
    """Deals from ``rng`` (uint64[1]): a full shuffle of the set; see the module docstring."""
    n = (max_pips + 1) * (max_pips + 2) // 2
    order = np.arange(n).astype(np.int8)
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = rng_below(rng, i + 1)
        t = order[i]
        order[i] = order[j]
        order[j] = t
    hands = np.zeros(2, np.uint64)
    for i in range(2 * hand_size):
        hands[i // hand_size] |= _bit(order[i])
    set_deal(s, max_pips, hand_size, drawing, block_rule, hands[0], hands[1], order[2 * hand_size :])


@kernel
def set_deal(s, max_pips, hand_size, drawing, block_rule, hand0, hand1, boneyard):
    """The start of the game for a given deal: hands (uint64 masks), boneyard int8[n] in order."""
    s["max_pips"] = max_pips
    s["hand_size"] = hand_size
    s["drawing"] = drawing
    s["block_rule"] = block_rule
    n = (max_pips + 1) * (max_pips + 2) // 2
    s["n_tiles"] = n
    s["boneyard_size"] = n - 2 * hand_size
    s["hands"][0] = hand0
    s["hands"][1] = hand1
    s["dealt"][0] = hand0
    s["dealt"][1] = hand1
    s["counts"][0] = hand_size
    s["counts"][1] = hand_size
    for k in range(MAX_BONEYARD):
        s["boneyard"][k] = boneyard[k] if k < len(boneyard) else UNKNOWN_TILE
    for k in range(MAX_PLIES):
        s["history"][k] = 0
    s["ply"] = 0
    s["ends"][0] = NO_END
    s["ends"][1] = NO_END
    s["drawn"] = 0
    # The greatest dealt tile is the highest bit of either hand.
    s["leader"] = 0 if hand0 > hand1 else 1
    s["to_move"] = s["leader"]
    s["passes"] = 0
    s["terminal"] = 0
    s["viewer"] = NO_VIEWER


@kernel(inline="always")
def _can_play(s):
    """True if the mover holds a tile that fits (any tile, for the lead)."""
    hand = s["hands"][s["to_move"]]
    left = s["ends"][0]
    if left < 0:
        return hand != _U0
    return hand & _matching(s, left, s["ends"][1]) != _U0


@kernel(inline="always")
def _can_draw(s):
    return s["drawing"] != 0 and s["drawn"] < s["boneyard_size"]


@kernel(inline="always")
def legal_moves(s, out):
    """Plays by ascending tile, left end first, then right end; else the one DRAW or PASS."""
    if s["terminal"]:
        return 0
    hand = s["hands"][s["to_move"]]
    left = s["ends"][0]
    n = 0
    if left < 0:  # the lead: any tile, one move each
        while hand:
            out[n] = 2 * lowest_bit_index(hand)
            hand &= hand - _U1
            n += 1
        return n
    right = s["ends"][1]
    m = s["max_pips"]
    fits = hand & PIP_MASK[m, left]
    while fits:
        out[n] = 2 * lowest_bit_index(fits)
        fits &= fits - _U1
        n += 1
    if right != left:
        fits = hand & PIP_MASK[m, right]
        while fits:
            out[n] = 2 * lowest_bit_index(fits) + 1
            fits &= fits - _U1
            n += 1
    if n == 0:
        out[0] = MOVE_DRAW if _can_draw(s) else MOVE_PASS
        n = 1
    return n


# ``illegal_reason`` codes of this game.
REASON_DRAW_CAN_PLAY = FIRST_GAME_REASON  # a player who can play a tile may not draw
REASON_NO_DRAWING = FIRST_GAME_REASON + 1  # the block game has no drawing
REASON_BONEYARD_EMPTY = FIRST_GAME_REASON + 2  # nothing left to draw: pass
REASON_PASS_CAN_PLAY = FIRST_GAME_REASON + 3  # a player who can play a tile must
REASON_PASS_CAN_DRAW = FIRST_GAME_REASON + 4  # a player who cannot play draws while the boneyard lasts
REASON_NOT_IN_HAND = FIRST_GAME_REASON + 5  # the tile is not in the mover's hand
REASON_LEAD_ONE_MOVE = FIRST_GAME_REASON + 6  # the lead has one move per tile, written with end 0
REASON_EQUAL_ENDS_ONE_MOVE = FIRST_GAME_REASON + 7  # both ends show one number: end 0 only
REASON_NO_MATCH = FIRST_GAME_REASON + 8  # the tile does not show the number at that end


@kernel(inline="always")
def illegal_reason(s, move):
    """Why ``move`` is not legal in ``s``: ``LEGAL``, a code of ``engines.contract`` or one of the
    ``REASON_*`` codes above (the same rules as ``legal_moves``)."""
    if s["terminal"]:
        return REASON_GAME_OVER
    if move < 0 or move >= MOVE_BOUND or (move < MOVE_DRAW and move >> 1 >= s["n_tiles"]):
        return REASON_NOT_A_MOVE
    can_play = _can_play(s)
    if move == MOVE_DRAW:
        if can_play:
            return REASON_DRAW_CAN_PLAY
        if not s["drawing"]:
            return REASON_NO_DRAWING
        return LEGAL if _can_draw(s) else REASON_BONEYARD_EMPTY
    if move == MOVE_PASS:
        if can_play:
            return REASON_PASS_CAN_PLAY
        return REASON_PASS_CAN_DRAW if _can_draw(s) else LEGAL
    tile = move >> 1
    end = move & 1
    if s["hands"][s["to_move"]] & _bit(tile) == _U0:
        return REASON_NOT_IN_HAND
    left = s["ends"][0]
    if left < 0:
        return REASON_LEAD_ONE_MOVE if end else LEGAL
    right = s["ends"][1]
    if left == right and end == 1:
        return REASON_EQUAL_ENDS_ONE_MOVE
    if PIP_MASK[s["max_pips"], right if end else left] & _bit(tile) == _U0:
        return REASON_NO_MATCH
    return LEGAL


@kernel(inline="always")
def apply_move(s, move):
    """Plays a legal move in place: a tile at an end, a draw or a pass; the turn always passes."""
    me = s["to_move"]
    s["history"][s["ply"]] = move
    s["ply"] += 1
    s["to_move"] = 1 - me
    if move == MOVE_PASS:
        s["passes"] += 1
        if s["passes"] == 2:
            s["terminal"] = 1
        return
    s["passes"] = 0
    if move == MOVE_DRAW:
        tile = s["boneyard"][s["drawn"]]
        s["drawn"] += 1
        s["hands"][me] |= _bit(tile)
        s["counts"][me] += 1
        _end_if_no_tile_fits(s)
        return
    tile = move >> 1
    end = move & 1
    m = s["max_pips"]
    high = TILE_HIGH[m, tile]
    low = TILE_LOW[m, tile]
    shown = s["ends"][end]
    if shown < 0:
        s["ends"][0] = high
        s["ends"][1] = low
    else:
        s["ends"][end] = high + low - shown
    s["hands"][me] &= ~_bit(tile)
    s["counts"][me] -= 1
    if s["counts"][me] == 0:
        s["terminal"] = 1
    else:
        _end_if_no_tile_fits(s)


@kernel(inline="always")
def _end_if_no_tile_fits(s):
    """``BLOCK_NO_TILE_FITS``: the game ends when neither hand holds a tile that fits the line.
    (A pass changes neither the hands nor the line, so plays and draws are the moves to check.)"""
    if s["block_rule"] == BLOCK_NO_TILE_FITS:
        fits = _matching(s, s["ends"][0], s["ends"][1])
        if (s["hands"][0] | s["hands"][1]) & fits == _U0:
            s["terminal"] = 1


@kernel(inline="always")
def is_terminal(s):
    return s["terminal"] != 0


@kernel(inline="always")
def current_player(s):
    return np.int64(s["to_move"])


@kernel(inline="always")
def outcome(s):
    """Fewer tiles wins (an empty hand is the fewest): player 0's result."""
    c0 = s["counts"][0]
    c1 = s["counts"][1]
    if c0 < c1:
        return 1.0
    if c0 > c1:
        return -1.0
    return 0.0


@kernel(inline="always")
def pips(s, hand):
    """Pips on the tiles of ``hand`` (a uint64 mask): popcounts of the pip sums' bit planes."""
    m = s["max_pips"]
    total = 0
    for k in range(5):
        total += popcount(hand & PIP_SUM_BITS[m, k]) << k
    return total


@kernel(inline="always")
def score(s):
    """Player 0's pip margin: pips left in player 1's hand minus pips left in player 0's."""
    return np.int64(pips(s, s["hands"][1]) - pips(s, s["hands"][0]))


@kernel(inline="always")
def heuristic(s):
    """Tile-count margin, pip margin as the tie-break, scaled strictly inside (-1, 1)."""
    c0 = np.int64(s["counts"][0])
    c1 = np.int64(s["counts"][1])
    p0 = pips(s, s["hands"][0])
    p1 = pips(s, s["hands"][1])
    # |c1 - c0| <= c0 + c1 and the pip term is inside (-1, 1).
    return (c1 - c0 + (p1 - p0) / (p0 + p1 + 1.0)) / (c0 + c1 + 2.0)


@kernel(inline="always")
def state_hash(s):
    """Hands, ends, turn, pass count, the boneyard still to draw (in order) and the variant.

    The history and the dealt hands are left out: they decide what the players know, not what
    can happen next.
    """
    h = mix64(s["hands"][0] ^ np.uint64(0x6A09_E667_F3BC_C909))
    h = mix64(h ^ s["hands"][1])
    small = (
        np.uint64(s["ends"][0] + 1)
        | (np.uint64(s["ends"][1] + 1) << np.uint64(8))
        | (np.uint64(s["to_move"]) << np.uint64(16))
        | (np.uint64(s["passes"]) << np.uint64(20))
        | (np.uint64(s["terminal"]) << np.uint64(24))
        | (np.uint64(s["viewer"] + 1) << np.uint64(28))
        | (np.uint64(s["drawing"]) << np.uint64(32))
        | (np.uint64(s["max_pips"]) << np.uint64(36))
        | (np.uint64(s["hand_size"]) << np.uint64(40))
        | (np.uint64(s["block_rule"]) << np.uint64(48))
    )
    h = mix64(h ^ small)
    for k in range(s["drawn"], s["boneyard_size"]):
        h = mix64(h ^ np.uint64(s["boneyard"][k] + 1))
    return h


# ----------------------------------------------------------------------------------------------
# Hidden information: the view and the sampler of worlds.


@kernel
def copy_state(src, dst):
    """dst := src, field by field (records of STATE_DTYPE)."""
    dst["hands"][0] = src["hands"][0]
    dst["hands"][1] = src["hands"][1]
    dst["dealt"][0] = src["dealt"][0]
    dst["dealt"][1] = src["dealt"][1]
    for k in range(MAX_BONEYARD):
        dst["boneyard"][k] = src["boneyard"][k]
    for k in range(168):
        dst["history"][k] = src["history"][k]
    dst["ply"] = src["ply"]
    dst["ends"][0] = src["ends"][0]
    dst["ends"][1] = src["ends"][1]
    dst["counts"][0] = src["counts"][0]
    dst["counts"][1] = src["counts"][1]
    dst["max_pips"] = src["max_pips"]
    dst["hand_size"] = src["hand_size"]
    dst["n_tiles"] = src["n_tiles"]
    dst["boneyard_size"] = src["boneyard_size"]
    dst["drawing"] = src["drawing"]
    dst["block_rule"] = src["block_rule"]
    dst["drawn"] = src["drawn"]
    dst["leader"] = src["leader"]
    dst["to_move"] = src["to_move"]
    dst["passes"] = src["passes"]
    dst["terminal"] = src["terminal"]
    dst["viewer"] = src["viewer"]
    for k in range(len(src["_pad"])):
        dst["_pad"][k] = src["_pad"][k]


@kernel(inline="always")
def observe(s, player, view):
    """Writes into ``view`` what ``player`` may know of the true state ``s``: the opponent's hand
    and dealt hand cleared (the hand is shown once the game is over), the boneyard cleared but for
    the tiles ``player`` drew, ``viewer`` = player."""
    copy_state(s, view)
    other = 1 - player
    view["viewer"] = player
    view["dealt"][other] = _U0
    if not s["terminal"]:
        view["hands"][other] = _U0
    draws = 0
    for i in range(s["ply"]):
        if s["history"][i] == MOVE_DRAW:
            if (s["leader"] ^ (i & 1)) != player:
                view["boneyard"][draws] = UNKNOWN_TILE
            draws += 1
    for k in range(draws, MAX_BONEYARD):
        view["boneyard"][k] = UNKNOWN_TILE


@kernel(inline="always")
def _choose(n, k):
    """C(n, k) as a float (0 when k < 0 or k > n)."""
    if k < 0 or k > n:
        return 0.0
    c = 1.0
    for i in range(k):
        c = c * (n - i) / (i + 1)
    return c


@kernel(inline="always")
def _pick(mask, k):
    """The k-th lowest set bit of ``mask`` (0 <= k < popcount)."""
    for _ in range(k):
        mask &= mask - _U1
    return lowest_bit_index(mask)


@kernel(inline="always")
def _find(keys, lo, hi, key):
    for i in range(lo, hi):
        if keys[i] == key:
            return i
    return -1


# The sampler's working records (see _worlds). Slot j of the hidden world: 0 the opponent's dealt
# hand, 1..D the opponent's draws in play order (a *bin* each).
_EVENT = np.dtype(
    [
        ("ply", np.int64),  # an opponent's draw or pass
        ("mask", np.uint64),  # the tiles that fit an end then: not in the opponent's hand
        ("after", np.uint64),  # the union of the masks of this event and every later one
    ],
    align=True,
)
_SLOT = np.dtype(
    [
        ("allowed", np.uint64),  # the tiles that may fill the slot and be held still
        ("size", np.int64),  # popcount(allowed)
        ("ply", np.int64),  # a bin: the ply of the draw
        ("pos", np.int64),  # a bin: its position in the boneyard
        ("first_event", np.int64),  # a bin: the first event after its draw
        ("arrive", np.uint64),  # a bin: the class counts of the items whose window ends here
        ("n_arrive", np.int64),  # a bin: how many they are
        ("layer_at", np.int64),  # the DP's states after bin j: keys[layer_at:layer_end]
        ("layer_end", np.int64),
        ("cls", np.int64),  # sampled: the class of the item placed in the bin, -1: an unknown tile
        ("item", np.int64),  # sampled: that item, -1: none
    ],
    align=True,
)
_ITEM = np.dtype(
    [
        ("tile", np.int64),  # a tile the opponent played (or showed at the end)
        ("ply", np.int64),  # when
        ("lo", np.int64),  # the bins it may have been drawn in: lo..hi (hi 0: slot 0 only)
        ("hi", np.int64),
        ("cls", np.int64),  # its class, -1 for an item of slot 0 only
        ("in_zero", np.bool_),  # it may have been dealt (slot 0)
        ("high", np.bool_),  # it is above the viewer's greatest dealt tile
    ],
    align=True,
)
_CLASS = np.dtype(
    [
        ("lo", np.int64),  # the first bin its items may be in
        ("size", np.int64),  # its items
        ("off", np.int64),  # its count's first bit in a DP state
        ("one", np.uint64),  # one item of it in a DP state: 1 << off
        ("field", np.uint64),  # the bits of its count in a DP state
        ("zero", np.bool_),  # its items may be in slot 0
        ("high", np.bool_),  # ... and are above the viewer's greatest dealt tile
    ],
    align=True,
)


@kernel
def _replay(view, events, slots, items):
    """Replays the public history of ``view`` from its viewer's side and writes the opponent's
    draws and passes (``events[:n_events]``: ply, mask), the opponent's draws
    (``slots[1:n_bins + 1]``: ply, position, first event after it) and the tiles the opponent
    played (``items[:n_items]``: tile, ply; at the end of the game the opponent's shown hand
    too, as played at the last ply). Returns ``(n_events, n_bins, n_items, viewer_drew,
    played)``, the last two the tiles the viewer drew and those the opponent played."""
    viewer = np.int64(view["viewer"])
    m = view["max_pips"]
    ply = np.int64(view["ply"])
    leader = np.int64(view["leader"])
    n_events = 0
    n_bins = 0
    n_items = 0
    viewer_drew = _U0
    left = np.int64(-1)
    right = np.int64(-1)
    k = np.int64(0)
    for i in range(ply):
        move = np.int64(view["history"][i])
        mine = (leader ^ (i & 1)) != viewer
        if move >= MOVE_DRAW:
            if mine:
                events[n_events]["ply"] = i
                events[n_events]["mask"] = _matching(view, left, right)
                n_events += 1
            if move == MOVE_DRAW:
                if mine:
                    n_bins += 1
                    slots[n_bins]["ply"] = i
                    slots[n_bins]["pos"] = k
                    slots[n_bins]["first_event"] = n_events
                else:
                    viewer_drew |= _bit(view["boneyard"][k])
                k += 1
        else:
            tile = move >> 1
            if mine:
                items[n_items]["tile"] = tile
                items[n_items]["ply"] = i
                n_items += 1
            shown = left if (move & 1) == 0 else right
            high = np.int64(TILE_HIGH[m, tile])
            low = np.int64(TILE_LOW[m, tile])
            if left < 0:
                left = high
                right = low
            elif (move & 1) == 0:
                left = high + low - shown
            else:
                right = high + low - shown
    played = _U0
    for p in range(n_items):
        played |= _bit(items[p]["tile"])
    if view["terminal"]:
        shown_hand = view["hands"][1 - viewer]
        while shown_hand:
            items[n_items]["tile"] = lowest_bit_index(shown_hand)
            items[n_items]["ply"] = ply
            n_items += 1
            shown_hand &= shown_hand - _U1
    return n_events, n_bins, n_items, viewer_drew, played


@kernel
def _allow(events, n_events, slots, n_bins, candidates, low_tiles, viewer_led):
    """Each slot's allowed tiles (``slots[j]["allowed"]``, ``["size"]``, j in 0..n_bins): the
    ``candidates`` (uint64 set) not shown absent at an event after the slot's draw (slot 0: at
    any event, and below the viewer's greatest dealt tile, ``low_tiles``, if the viewer led).
    The sets are nested: slot 0 the most constrained."""
    after = _U0
    events[n_events]["after"] = _U0
    for e in range(n_events - 1, -1, -1):
        after |= events[e]["mask"]
        events[e]["after"] = after
    slots[0]["allowed"] = candidates & ~events[0]["after"]
    if viewer_led:
        slots[0]["allowed"] &= low_tiles
    for j in range(1, n_bins + 1):
        slots[j]["allowed"] = candidates & ~events[slots[j]["first_event"]]["after"]
    for j in range(n_bins + 1):
        slots[j]["size"] = popcount(slots[j]["allowed"])


@kernel
def _place_items(items, n_items, events, n_events, slots, n_bins, top, viewer_led):
    """Each item's window of bins (``items[p]["lo"]..["hi"]``), whether slot 0 may hold it
    (``["in_zero"]``) and whether it is above the viewer's greatest dealt tile ``top``
    (``["high"]``): a tile played at ply t was acquired before t, and fit no end at an
    opponent's draw or pass between its acquisition and t. Returns ``(possible, fixed_zero,
    fixed_high)``: False if an item fits no slot; the items that only slot 0 may hold, and
    whether one of them is above ``top``."""
    fixed_zero = np.int64(0)
    fixed_high = False
    for p in range(n_items):
        t = items[p]["tile"]
        last = -1  # ply of the last event before the play at which the tile matched an end
        for e in range(n_events):
            if events[e]["ply"] < items[p]["ply"] and (events[e]["mask"] >> np.uint64(t)) & _U1:
                last = events[e]["ply"]
        hi = 0
        for j in range(1, n_bins + 1):
            if slots[j]["ply"] < items[p]["ply"]:
                hi = j
        lo = n_bins + 1
        for j in range(n_bins, 0, -1):
            if slots[j]["ply"] >= last:
                lo = j
        high = t > top
        zero_ok = last < 0 and not (viewer_led and high)
        if lo > hi:
            if not zero_ok:
                return False, fixed_zero, fixed_high
            fixed_zero += 1
            fixed_high = fixed_high or high
            hi = 0
        items[p]["lo"] = lo
        items[p]["hi"] = hi
        items[p]["in_zero"] = zero_ok
        items[p]["high"] = high
    return True, fixed_zero, fixed_high


@kernel
def _classify(items, n_items, classes, slots):
    """Sorts the items with bins (``hi`` > 0) into classes of interchangeable ones (same ``lo``,
    slot 0 allowed, above the viewer's greatest tile: ``items[p]["cls"]``, -1 for the others)
    and packs each class's count into bits of a uint64 DP state (``classes[c]``: ``off``,
    ``one``, ``field``, wide enough for its size); notes in each bin the items whose window ends
    there (``slots[j]["arrive"]``, ``["n_arrive"]``). Returns ``(n_classes, high_fields)``, the
    second the fields of the classes above the viewer's greatest tile."""
    n_cls = 0
    for p in range(n_items):
        items[p]["cls"] = -1
        if items[p]["hi"] == 0:
            continue
        high = items[p]["in_zero"] and items[p]["high"]
        c = 0
        while c < n_cls and not (
            classes[c]["lo"] == items[p]["lo"] and classes[c]["zero"] == items[p]["in_zero"] and classes[c]["high"] == high
        ):
            c += 1
        if c == n_cls:
            classes[c]["lo"] = items[p]["lo"]
            classes[c]["zero"] = items[p]["in_zero"]
            classes[c]["high"] = high
            classes[c]["size"] = 0
            n_cls += 1
        items[p]["cls"] = c
        classes[c]["size"] += 1
    high_fields = _U0
    off = 0
    for c in range(n_cls):
        width = 1
        while (classes[c]["size"] >> width) > 0:
            width += 1
        classes[c]["off"] = off
        classes[c]["one"] = _bit(off)
        classes[c]["field"] = (_bit(width) - _U1) << np.uint64(off)
        if classes[c]["high"]:
            high_fields |= classes[c]["field"]
        off += width
    for p in range(n_items):
        hi = items[p]["hi"]
        if hi > 0:
            slots[hi]["arrive"] += classes[items[p]["cls"]]["one"]
            slots[hi]["n_arrive"] += 1
    return n_cls, high_fields


@kernel(inline="always")
def _count_of(state, classes, c):
    """The count of class ``c`` in the packed DP ``state``."""
    return np.int64((state & classes[c]["field"]) >> np.uint64(classes[c]["off"]))


@kernel
def _forward(slots, n_bins, classes, n_cls, free_base):
    """The DP over the bins from last to first. A state (uint64) packs the counts of the items
    that have arrived (their window ends at or after the bin) and are not placed yet, per class;
    layer j is the states after bin j with their path weights: ``keys``, ``weights`` [
    ``slots[j]["layer_at"]``: ``slots[j]["layer_end"]``] (layer D+1, one state 0 of weight 1,
    first). A bin holds an unknown tile (weight: the free choices left for it, ``free_base``
    plus what later bins took) or an item of a class that may be there (weight: its count).
    Returns ``(keys: uint64[>=used], weights: float64[>=used])``."""
    cap = 64
    keys = np.empty(cap, np.uint64)
    weights = np.empty(cap, np.float64)
    keys[0] = _U0
    weights[0] = 1.0
    slots[n_bins + 1]["layer_at"] = 0
    slots[n_bins + 1]["layer_end"] = 1
    used = 1
    seen = 0  # items arrived at bins >= j
    # Merging equal children goes through an open-addressing table of indices into `keys`; an
    # entry belongs to the current layer when its stamp is the layer's bin.
    table_bits = 6
    table = np.empty(1 << table_bits, np.int64)
    stamp = np.zeros(1 << table_bits, np.int64)
    for j in range(n_bins, 0, -1):
        seen += slots[j]["n_arrive"]
        slots[j]["layer_at"] = used
        expiring = _U0  # fields of the classes that must be placed by bin j
        for c in range(n_cls):
            if classes[c]["lo"] == j and not classes[c]["zero"]:
                expiring |= classes[c]["field"]
        bound = (slots[j + 1]["layer_end"] - slots[j + 1]["layer_at"]) * (n_cls + 1)
        if 2 * bound > (1 << table_bits):
            while 2 * bound > (1 << table_bits):
                table_bits += 1
            table = np.empty(1 << table_bits, np.int64)
            stamp = np.zeros(1 << table_bits, np.int64)
        table_mask = np.uint64((1 << table_bits) - 1)
        for i in range(slots[j + 1]["layer_at"], slots[j + 1]["layer_end"]):
            pending = keys[i] + slots[j]["arrive"]
            w = weights[i]
            n_pending = np.int64(0)
            for c in range(n_cls):
                n_pending += _count_of(pending, classes, c)
            # Children: bin j free (an unknown tile in it), or an item of a class placeable here.
            for c in range(-1, n_cls):
                if c < 0:
                    child = pending
                    cw = w * (slots[j]["size"] - (free_base + j - 1 + seen - n_pending))
                    if cw <= 0.0:
                        continue
                else:
                    if classes[c]["lo"] > j:
                        continue
                    k = _count_of(pending, classes, c)
                    if k == 0:
                        continue
                    child = pending - classes[c]["one"]
                    cw = w * k
                if child & expiring:
                    continue
                slot = np.int64(mix64(child) & table_mask)
                while stamp[slot] == j and keys[table[slot]] != child:
                    slot = np.int64((slot + 1) & np.int64(table_mask))
                if stamp[slot] == j:
                    weights[table[slot]] += cw
                    continue
                if used == cap:
                    cap *= 2
                    grown = np.empty(cap, np.uint64)
                    grown_w = np.empty(cap, np.float64)
                    # Element by element: a slice assignment would compile numba's formatted
                    # shape-mismatch error, a costly part of every cold compile.
                    for k in range(used):
                        grown[k] = keys[k]
                        grown_w[k] = weights[k]
                    keys = grown
                    weights = grown_w
                stamp[slot] = j
                table[slot] = used
                keys[used] = child
                weights[used] = cw
                used += 1
        slots[j]["layer_end"] = used
    return keys, weights


@kernel(inline="always")
def _pending_items(state, classes, n_cls):
    """The items counted in the packed DP ``state``, all classes together."""
    n = np.int64(0)
    for c in range(n_cls):
        n += _count_of(state, classes, c)
    return n


@kernel
def _weigh_slot_zero(keys, weights, slots, classes, n_cls, h, fixed_zero, must_hold_high, high_fields, low_tiles):
    """Multiplies the weight of each state after bin 1 by the ways to fill slot 0, and returns
    the total: the state's pending items join the ``fixed_zero`` ones in the dealt hand of ``h``
    tiles, and f0 unknown tiles of ``slots[0]["allowed"]`` fill the rest, C(size, f0) ways. When
    ``must_hold_high`` (the opponent led, and no fixed item is above the viewer's greatest
    tile) and no pending item of a class in ``high_fields`` is, the f0 tiles must hold one:
    minus the C(allowed tiles in ``low_tiles``, f0) ways that do not."""
    zero_low = popcount(slots[0]["allowed"] & low_tiles)
    total = 0.0
    for i in range(slots[1]["layer_at"], slots[1]["layer_end"]):
        pending = keys[i]
        f0 = h - (fixed_zero + _pending_items(pending, classes, n_cls))
        g = _choose(slots[0]["size"], f0)
        if must_hold_high and not (pending & high_fields):
            g -= _choose(zero_low, f0)
        weights[i] *= g
        total += weights[i]
    return total


@kernel(inline="always")
def _draw_index(rng, weights, start, end, total):
    """An index in ``[start, end)`` drawn with probability ``weights[i] / total`` (``total`` their
    sum); never one of weight 0, even when rounding runs past the end."""
    x = rng_uniform(rng) * total
    chosen = end - 1
    for i in range(start, end):
        x -= weights[i]
        if x < 0.0 and weights[i] > 0.0:
            chosen = i
            break
    while weights[chosen] <= 0.0:  # rounding fell past the end: the last possible index
        chosen -= 1
    return chosen


@kernel
def _sample_bins(rng, keys, weights, slots, n_bins, classes, n_cls, free_base, total):
    """Backward sampling through the DP of :func:`_forward`: a final state with its weight (of
    ``total``), then bins 1..D in order, each bin's content (``slots[j]["cls"]``: a class, -1 an
    unknown tile) with its exact conditional probability, from the weights of the states of
    layer j + 1 it can come from. Returns the final state: the items left pending for slot 0."""
    state = keys[_draw_index(rng, weights, slots[1]["layer_at"], slots[1]["layer_end"], total)]
    zero_pending = state
    choices = np.empty(n_cls + 1, np.float64)  # 0: an unknown tile, c + 1: an item of class c
    for j in range(1, n_bins + 1):
        # The state before bin j (after the arrivals) was `state` (bin j free) or state + one
        # item of a placeable class; its weight is in layer j + 1 under key (before - arrivals).
        seen_j = 0
        for jj in range(j, n_bins + 1):
            seen_j += slots[jj]["n_arrive"]
        arrive = slots[j]["arrive"]
        tot = 0.0
        for c in range(-1, n_cls):
            wc = 0.0
            if c < 0:
                before = state
            elif classes[c]["lo"] <= j:
                before = state + classes[c]["one"]
            else:
                before = _ALL
            if before != _ALL:
                ok = True
                n_before = np.int64(0)
                for e in range(n_cls):
                    have = _count_of(before, classes, e)
                    came = _count_of(arrive, classes, e)
                    n_before += have
                    if have < came or have > classes[e]["size"]:
                        ok = False
                if ok:
                    at = _find(keys, slots[j + 1]["layer_at"], slots[j + 1]["layer_end"], before - arrive)
                    if at >= 0:
                        if c < 0:
                            wc = weights[at] * (slots[j]["size"] - (free_base + j - 1 + seen_j - n_before))
                        else:
                            wc = weights[at] * np.float64(_count_of(before, classes, c))
            choices[c + 1] = max(wc, 0.0)
            tot += choices[c + 1]
        pick = _draw_index(rng, choices, 0, n_cls + 1, tot)
        slots[j]["cls"] = pick - 1
        if pick > 0:
            state += classes[pick - 1]["one"]
        state -= arrive
    return zero_pending


@kernel
def _sample_items(rng, slots, n_bins, items, n_items):
    """Which item of its class each bin holding one gets (``slots[j]["item"]``, -1: none): from
    the last bin down, uniformly among the class's items that have arrived (``hi`` >= j) and
    are not placed yet. Returns the placed items (bit p: item p); the others are dealt (slot 0)."""
    placed = _U0
    for j in range(n_bins, 0, -1):
        slots[j]["item"] = -1
        c = slots[j]["cls"]
        if c < 0:
            continue
        n_ok = 0
        for p in range(n_items):
            if items[p]["cls"] == c and items[p]["hi"] >= j and not (placed >> np.uint64(p)) & _U1:
                n_ok += 1
        r = rng_below(rng, n_ok)
        for p in range(n_items):
            if items[p]["cls"] == c and items[p]["hi"] >= j and not (placed >> np.uint64(p)) & _U1:
                if r == 0:
                    slots[j]["item"] = p
                    placed |= _bit(p)
                    break
                r -= 1
    return placed


@kernel(inline="always")
def _draw_tiles(rng, pool, n):
    """``n`` tiles drawn uniformly without replacement from the set ``pool`` (uint64 masks)."""
    picked = _U0
    for _ in range(n):
        t = _pick(pool, rng_below(rng, popcount(pool)))
        picked |= _bit(t)
        pool &= ~_bit(t)
    return picked


@kernel
def _worlds(view, rng, world, sample):
    """The exact sampler and counter behind ``sample_world`` and ``count_worlds``.

    Returns the number of deals consistent with ``view`` as a float (0.0 if none) and, when
    ``sample``, writes one of them, drawn uniformly, into ``world`` as the true state it leads to.

    The hidden world is the deal: the opponent's dealt hand and the boneyard order, of which the
    viewer knows the tiles they drew. The unknown tiles go into *slots*: the opponent's dealt hand
    (slot 0, ``hand_size`` places, acquired before the first move), one slot per opponent draw
    (bins 1..D, in play order, acquired at that draw), and the boneyard still to draw (any tile,
    any order: a factor r!). The public history constrains them:

    - a tile the opponent holds now, acquired in slot j, matched no end at any opponent draw or
      pass after slot j's draw: its allowed slots are all slots from some j on, so these sets are
      nested (``allowed[0] <= allowed[1] <= ...``, slot 0 the most constrained);
    - a tile the opponent played at ply t (an *item*) was acquired in a slot before t and matched
      no end at an opponent draw or pass between the slot's draw and t: an interval of slots;
    - the leader: if the viewer led, the opponent's dealt hand has no tile above the viewer's
      greatest dealt tile (fold into slot 0's allowed set); if the opponent led, it has one.

    Once the items are placed, the unknown held tiles fill the free slots from the most
    constrained on and their count is a product (``C(|allowed_0|, f0)`` times, for each free draw
    slot in order, ``|allowed_j|`` minus the tiles placed before it). The items are placed by an
    exact dynamic programme over the draw slots from last to first (the free slot factors depend
    only on how many items lie in later slots) whose state counts the items seen but not yet
    placed, per class of interchangeable items; then the slots are sampled back from first to last
    (forward filtering, backward sampling) and each class's items are dealt to its places
    uniformly. The "opponent led" condition is the difference of two binomials at slot 0. Every
    choice is drawn with its exact conditional probability (float64 weights), so the deal is
    uniform over the consistent deals. At the end of the game the opponent's hand is shown: its
    tiles become items "played" at the last ply.

    The steps: :func:`_replay` (the history), :func:`_allow` (each slot's tiles),
    :func:`_place_items` (each item's slots), :func:`_classify` (classes of items),
    :func:`_forward` (the DP), :func:`_weigh_slot_zero`; to sample, :func:`_sample_bins`,
    :func:`_sample_items` and the tiles of slot 0, the free bins and the boneyard.

    Cost: linear in the history plus the DP, whose states are few in play; a long run of opponent
    draws with many played tiles of different windows makes it costlier.
    """
    viewer = np.int64(view["viewer"])
    if viewer < 0:
        if sample:
            copy_state(view, world)
        return 1.0
    other = 1 - viewer
    h = np.int64(view["hand_size"])
    ply = np.int64(view["ply"])
    drawn = np.int64(view["drawn"])
    n_bone = np.int64(view["boneyard_size"])

    events = np.empty(ply + 1, _EVENT)
    slots = np.zeros(ply + 2, _SLOT)
    items = np.empty(64, _ITEM)
    n_events, n_bins, n_items, viewer_drew, played = _replay(view, events, slots, items)
    unknown = _all_tiles(view["n_tiles"]) & ~view["dealt"][viewer] & ~viewer_drew
    item_tiles = _U0
    for p in range(n_items):
        item_tiles |= _bit(items[p]["tile"])
    # The candidates for the free slots: the tiles that may be in the opponent's hand now.
    candidates = _U0 if view["terminal"] else unknown & ~item_tiles
    top = 0  # the viewer's greatest dealt tile
    while (view["dealt"][viewer] >> np.uint64(top)) > _U1:
        top += 1
    low_tiles = _bit(top) - _U1  # the tiles below it
    viewer_led = view["leader"] == viewer
    _allow(events, n_events, slots, n_bins, candidates, low_tiles, viewer_led)
    possible, fixed_zero, fixed_high = _place_items(items, n_items, events, n_events, slots, n_bins, top, viewer_led)
    if not possible:
        return 0.0
    free_base = h - n_items  # free slots before bin j = free_base + (j - 1) + (items in later bins)
    classes = np.empty(n_items + 1, _CLASS)
    n_cls, high_fields = _classify(items, n_items, classes, slots)
    keys, weights = _forward(slots, n_bins, classes, n_cls, free_base)
    must_hold_high = not viewer_led and not fixed_high
    total = _weigh_slot_zero(keys, weights, slots, classes, n_cls, h, fixed_zero, must_hold_high, high_fields, low_tiles)
    if total <= 0.0:
        return 0.0
    count = total
    for i in range(2, n_bone - drawn + 1):
        count *= i  # the boneyard still to draw, in any order
    if not sample:
        return count

    zero_pending = _sample_bins(rng, keys, weights, slots, n_bins, classes, n_cls, free_base, total)
    placed = _sample_items(rng, slots, n_bins, items, n_items)
    # Slot 0: the items not placed in a bin, then unknown tiles of its allowed set (with one above
    # the viewer's greatest tile if the opponent led and no item is).
    dealt = _U0
    for p in range(n_items):
        if not (placed >> np.uint64(p)) & _U1:
            dealt |= _bit(items[p]["tile"])
    need_high = must_hold_high and not (zero_pending & high_fields)
    f0 = h - popcount(dealt)
    while True:
        picked = _draw_tiles(rng, slots[0]["allowed"], f0)
        if not need_high or (picked & ~low_tiles):
            break
    dealt |= picked
    taken = picked
    copy_state(view, world)
    world["viewer"] = NO_VIEWER
    opp_drew = _U0
    for j in range(1, n_bins + 1):
        if slots[j]["item"] >= 0:
            t = items[slots[j]["item"]]["tile"]
        else:
            pool = slots[j]["allowed"] & ~taken
            t = _pick(pool, rng_below(rng, popcount(pool)))
            taken |= _bit(t)
        world["boneyard"][slots[j]["pos"]] = t
        opp_drew |= _bit(t)
    rest = unknown & ~item_tiles & ~taken
    for pos in range(drawn, n_bone):
        t = _pick(rest, rng_below(rng, popcount(rest)))
        rest &= ~_bit(t)
        world["boneyard"][pos] = t
    world["dealt"][other] = dealt
    world["hands"][other] = (dealt | opp_drew) & ~played
    return count


#: Deals drawn per world before ``sample_world`` gives up under ``BLOCK_NO_TILE_FITS``.
MAX_REJECTIONS = 10_000


@kernel
def sample_world(view, rng, world):
    """Writes into ``world`` a true state drawn uniformly from the deals consistent with ``view``
    and its public history; False if there is none. rng: uint64[1].

    Under ``BLOCK_NO_TILE_FITS`` the exact sampler draws from the deals consistent with the plays,
    draws and passes, and a deal under which the game would have ended earlier is drawn again:
    rejection keeps the draw uniform over the deals consistent with the game going on.
    """
    for _ in range(MAX_REJECTIONS):
        if _worlds(view, rng, world, True) <= 0.0:
            return False
        if view["block_rule"] != BLOCK_NO_TILE_FITS or view["viewer"] < 0 or _replays_as_seen(world):
            return True
    return False


@kernel
def _replays_as_seen(world):
    """Whether the deal of ``world`` plays its history without the game ending before its last
    move, and ends (or not) as ``world`` says."""
    replay = np.empty(1, STATE_DTYPE)
    set_deal(
        replay[0], world["max_pips"], world["hand_size"], world["drawing"], world["block_rule"],
        world["dealt"][0], world["dealt"][1], world["boneyard"][: world["boneyard_size"]],
    )
    for i in range(world["ply"]):
        if replay[0]["terminal"]:
            return False
        apply_move(replay[0], np.int64(world["history"][i]))
    return replay[0]["terminal"] == world["terminal"]


@kernel
def count_worlds(view):
    """The number of deals consistent with ``view`` (a float; exact below 2**53). Under
    ``BLOCK_NO_TILE_FITS`` it counts the deals consistent with the plays, draws and passes, a
    bound on those under which the game also went on as it did."""
    rng = np.zeros(1, np.uint64)
    unused = np.empty(1, STATE_DTYPE)
    return _worlds(view, rng, unused[0], False)


# ----------------------------------------------------------------------------------------------
# Learning: the observation tensor and the restart of a finished game.

OBSERVATION_SCALARS = 6


@kernel(inline="always")
def write_observation(s, player, out):
    """``player``'s view as ``out: float32[4 * n_tiles + 6]``, built from :func:`observe`'s view
    alone (so nothing hidden can leak): four planes over the tiles (tile ids as ranks, see the
    module docstring): 0 the player's hand, 1 the tiles on the line, 2 the tiles that fit the left
    end, 3 the tiles that fit the right end (2 and 3 empty before the lead); then six numbers: the
    player's tile count, the opponent's, the tiles left in the boneyard, 1 if the player is to
    move, 1 before the lead, the consecutive passes."""
    buf = np.empty(1, STATE_DTYPE)
    view = buf[0]
    observe(s, player, view)
    n = np.int64(view["n_tiles"])
    m = view["max_pips"]
    on_line = _U0
    for i in range(view["ply"]):
        move = np.int64(view["history"][i])
        if move < MOVE_DRAW:
            on_line |= _bit(move >> 1)
    hand = view["hands"][player]
    left = view["ends"][0]
    right = view["ends"][1]
    fit_left = PIP_MASK[m, left] if left >= 0 else _U0
    fit_right = PIP_MASK[m, right] if right >= 0 else _U0
    for t in range(n):
        bit = _bit(t)
        out[t] = np.float32(1.0) if hand & bit else np.float32(0.0)
        out[n + t] = np.float32(1.0) if on_line & bit else np.float32(0.0)
        out[2 * n + t] = np.float32(1.0) if fit_left & bit else np.float32(0.0)
        out[3 * n + t] = np.float32(1.0) if fit_right & bit else np.float32(0.0)
    out[4 * n] = np.float32(view["counts"][player])
    out[4 * n + 1] = np.float32(view["counts"][1 - player])
    out[4 * n + 2] = np.float32(view["boneyard_size"] - view["drawn"])
    out[4 * n + 3] = np.float32(1.0) if view["to_move"] == player else np.float32(0.0)
    out[4 * n + 4] = np.float32(1.0) if left < 0 else np.float32(0.0)
    out[4 * n + 5] = np.float32(view["passes"])


@kernel(inline="always")
def redraw_start(s, rng, code):
    """A new deal in ``s`` (a copy of a start of its variant) drawn from ``rng``; ``code`` unused."""
    init_state(s, np.int64(s["max_pips"]), np.int64(s["hand_size"]), np.int64(s["drawing"]), np.int64(s["block_rule"]), rng)
