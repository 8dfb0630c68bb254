"""Morabaraba kernels: the mill games on 24 points (Morabaraba with 12 or 9 cows, nine men's
morris), one bitboard per player.

Rules: ``docs/games/morabaraba.md`` and texts 000 and 002. Points are numbered and named
as in :mod:`engines.morabaraba.board`; bit ``p`` of a bitboard is point ``p``::

     0-----------1-----------2
     |  \\        |        /  |        the diagonals only with ``diagonals`` on
     |   3-------4-------5   |
     |   | \\     |     / |   |
     |   |   6---7---8   |   |
     |   |   |       |   |   |
     9--10--11      12--13--14
     |   |   |       |   |   |
     |   |  15--16--17   |   |
     |   | /     |     \\ |   |
     |  18------19------20   |
     | /         |         \\ |
    21----------22----------23

A move is one id holding where the cow comes from, where it goes and which cow it shoots::

    move = frm * 1024 + to * 32 + shot      frm: 0..23, or PLACE (24) for a cow from the hand
                                            to: 0..23
                                            shot: 0..23, or NO_SHOT (24)

so a shot belongs to its move (one ply), and ``MOVE_BOUND = 25 * 1024``.
"""

from __future__ import annotations

import numpy as np

from board_arena.engines.contract import (
    FIRST_GAME_REASON,
    LEGAL,
    NO_ENDGAME_VALUE,
    REASON_GAME_OVER,
    REASON_NOT_A_MOVE,
    state_dtype,
)
from board_arena.engines.morabaraba import sectors
from board_arena.engines.morabaraba.board import (
    BB_ALL,
    BIT,
    FROM_LAYOUT,
    LAYOUT_COLUMNS,
    LAYOUT_DIAGONALS,
    LAYOUT_ROWS,
    LINE_STARTS,
    MILL_MASKS,
    MILL_PARTNERS,
    N_MILLS,
    N_POINTS,
    NEIGHBOUR_MASKS,
    NEIGHBOURS_ALONG,
    POINT_MILLS,
    RING_POINTS,
    TO_LAYOUT,
    TO_RINGS,
)
from board_arena.kernels import (
    bits_below,
    kernel,
    lowest_bit_index,
    mix64,
    nth_set_bit,
    popcount,
    rng_below,
    rng_step,
)

PLACE = 24  # the ``frm`` of a placement
NO_SHOT = 24  # the ``shot`` of a move that shoots nothing
MOVE_BOUND = 25 * 1024
# A bound on the actions of any variant (every from, to and shot: see ``write_actions``).
MAX_ACTIONS = (PLACE + 1) * N_POINTS * (NO_SHOT + 1)

# An upper bound on the legal moves of any position (a move that forms a mill counts once per
# cow it may shoot). With n own cows on the board, e empty points and k opponent cows on the
# board (n + e + k = 24, k <= 12):
#   placing:  at most e * (k + 1) <= 12 * 13 = 156;
#   sliding:  every point has at most 4 neighbours, so at most 4 * min(n, e) slides, each with at
#             most k + 1 shots: at most 4 * 6 * 13 = 312 (n = e = 6, k = 12);
#   flying:   n = 3, at most 3 * e * (k + 1) with e + k = 21: at most 3 * 11 * 11 = 363.
MAX_MOVES = 363

# no_remill: what text 002's "a mill broken to form a new mill can't be formed again on the next
# move" does to a move that re-forms one of the mills in ``blocked``.
REMILL_ALLOWED = 0  # rule off: every remade mill shoots (text 000)
REMILL_NO_SHOT = 1  # the move is legal, the re-formed mill shoots nothing
REMILL_FORBIDDEN = 2  # the move is illegal

# end: why the game is over (0 while it goes on).
END_NONE = 0
END_TWO_COWS = 1  # the player to move has two cows left (in hand included): loses
END_BLOCKED = 2  # the player to move cannot move: loses
END_FULL_BOARD = 3  # blocked on a full board with full_board="draw": draw
END_THREE_COW_DRAW = 4  # three_cow_draw_plies plies without a shot while a player had three cows
END_NO_SHOT_DRAW = 5  # no_shot_draw_plies plies of moving without a shot
END_PLY_CAP = 6  # max_plies plies played

STATE_DTYPE = state_dtype(
    [
        ("cows", np.uint64, (2,)),  # bit p: the player's cow on point p (layout above)
        # Mills (bit m: mill m of board.LINES) that the player broke with its last move while
        # forming a mill: under no_immediate_remill they do not count on its next move.
        ("blocked", np.uint32, (2,)),
        ("plies", np.int32),  # plies played (a shot is part of its move)
        ("max_plies", np.int32),  # draw after this many plies; 0: no cap
        ("no_shot", np.int16),  # consecutive plies of moving (not placing) without a shot
        ("three_cow", np.int16),  # consecutive plies without a shot while a player has 3 cows
        ("no_shot_limit", np.int16),  # draw when no_shot reaches it; 0: rule off
        ("three_cow_limit", np.int16),  # draw when three_cow reaches it; 0: rule off
        ("in_hand", np.int8, (2,)),  # cows still to place
        ("to_move", np.int8),  # 0 White (places first), 1 Black
        ("diagonals", np.int8),  # 1: the four diagonal lines exist (tables' first index)
        ("flying", np.int8),  # 1: a player with three cows and none in hand flies
        ("no_remill", np.int8),  # no_immediate_remill (text 002): REMILL_*
        ("full_board_draw", np.int8),  # 1: blocked on a full board is a draw, not a loss
        ("end", np.int8),  # END_*
        ("winner", np.int8),  # 0 or 1, -1 for a draw or while the game goes on
    ]
)

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_BB_ALL = np.uint64(BB_ALL)
_U20 = np.uint64(20)
_U24 = np.uint64(24)
_U40 = np.uint64(40)
_U48 = np.uint64(48)


@kernel(inline="always")
def decode_move(move):
    """``(frm, to, shot)`` of a move id: ``frm`` PLACE for a placement, ``shot`` NO_SHOT if none."""
    return move >> 10, (move >> 5) & 31, move & 31


@kernel(inline="always")
def encode_move(frm, to, shot):
    """The move id of ``(frm, to, shot)`` (see :func:`decode_move`)."""
    return frm * 1024 + to * 32 + shot


@kernel(inline="always")
def _others(own, frm):
    """The mover's cows other than the one that moves (all of them for a placement)."""
    return own if frm == PLACE else own & ~BIT[frm]


@kernel(inline="always")
def _total(s, p):
    """Cows player ``p`` still has: on the board and in hand."""
    return popcount(s["cows"][p]) + np.int64(s["in_hand"][p])


@kernel(inline="always")
def is_flying(s, p):
    return s["flying"] != 0 and s["in_hand"][p] == 0 and popcount(s["cows"][p]) == 3


@kernel(inline="always")
def mills_formed(d, rest, to):
    """Bitmask of the mills through ``to`` that a cow arriving there forms, ``rest`` being the
    mover's other cows (uint64; mill bits as in ``blocked``)."""
    formed = _U0
    for k in range(3):
        pair = MILL_PARTNERS[d, to, k]
        if rest & pair == pair:
            formed |= _U1 << np.uint64(POINT_MILLS[d, to, k])
    return formed


@kernel(inline="always")
def forms_mill(d, rest, to):
    """Whether a cow arriving on ``to`` forms a mill (``rest``: the mover's other cows)."""
    p0 = MILL_PARTNERS[d, to, 0]
    p1 = MILL_PARTNERS[d, to, 1]
    p2 = MILL_PARTNERS[d, to, 2]
    return (rest & p0 == p0) | (rest & p1 == p1) | (rest & p2 == p2)


@kernel(inline="always")
def mills_through(d, cows, p):
    """Bitmask of the complete mills of ``cows`` through point ``p``."""
    full = _U0
    for k in range(3):
        m = POINT_MILLS[d, p, k]
        mask = MILL_MASKS[d, m]  # the padding "mill" N_MILLS is never complete
        if cows & mask == mask:
            full |= _U1 << np.uint64(m)
    return full


# Bit-parallel line tests on the layouts of ``board`` (each family of lines renumbered so that
# line i holds bits 3i..3i+2): a test of every line of a family is a few shifts.
_U2 = np.uint64(2)
_U8 = np.uint64(8)
_U16 = np.uint64(16)
_BYTE = np.uint64(0xFF)
_STARTS_8 = LINE_STARTS[LAYOUT_ROWS]  # rows and columns: 8 lines
_STARTS_4 = LINE_STARTS[LAYOUT_DIAGONALS]  # the 4 diagonals


@kernel(inline="always")
def _to_layout(bb, layout):
    return (
        TO_LAYOUT[layout, 0, bb & _BYTE]
        | TO_LAYOUT[layout, 1, (bb >> _U8) & _BYTE]
        | TO_LAYOUT[layout, 2, (bb >> _U16) & _BYTE]
    )


@kernel(inline="always")
def _from_layout(x, layout):
    return (
        FROM_LAYOUT[layout, 0, x & _BYTE]
        | FROM_LAYOUT[layout, 1, (x >> _U8) & _BYTE]
        | FROM_LAYOUT[layout, 2, (x >> _U16) & _BYTE]
    )


@kernel(inline="always")
def _completing(x, starts):
    """The bits of a layout board that complete a line of ``x``: its other two bits are set."""
    return (
        ((x >> _U1) & (x >> _U2) & starts)
        | ((x << _U1) & (x >> _U1) & (starts << _U1))
        | ((x << _U1) & (x << _U2) & (starts << _U2))
    )


@kernel(inline="always")
def _in_full_lines(x, starts):
    """The bits of a layout board ``x`` in lines of ``x`` that are complete."""
    full = x & (x >> _U1) & (x >> _U2) & starts
    return full | (full << _U1) | (full << _U2)


@kernel(inline="always")
def line_completions(d, own):
    """(rows, columns, diagonals): the points that would complete a row, a column or a diagonal
    of which ``own`` holds the other two points (occupied points included; diagonals 0 without
    them)."""
    rows = _completing(own, _STARTS_8)
    columns = _from_layout(_completing(_to_layout(own, LAYOUT_COLUMNS), _STARTS_8), LAYOUT_COLUMNS)
    diagonals = _U0
    if d:
        diagonals = _from_layout(_completing(_to_layout(own, LAYOUT_DIAGONALS), _STARTS_4), LAYOUT_DIAGONALS)
    return rows, columns, diagonals


@kernel(inline="always")
def cows_in_mills(d, cows):
    """The cows of ``cows`` that stand in a complete mill (bitboard)."""
    inside = _in_full_lines(cows, _STARTS_8)
    inside |= _from_layout(_in_full_lines(_to_layout(cows, LAYOUT_COLUMNS), _STARTS_8), LAYOUT_COLUMNS)
    if d:
        inside |= _from_layout(_in_full_lines(_to_layout(cows, LAYOUT_DIAGONALS), _STARTS_4), LAYOUT_DIAGONALS)
    return inside


@kernel(inline="always")
def shootable(d, cows):
    """The cows a shot may take: those outside mills, or any if all stand in mills."""
    free = cows & ~cows_in_mills(d, cows)
    return free if free != _U0 else cows


# What a cow arriving on a point does, given the mills its player may not remake (``blocked``).
ARRIVAL_QUIET = 0  # forms no mill, or only re-forms blocked mills (which shoot nothing)
ARRIVAL_SHOOTS = 1  # forms a mill that counts: the move shoots
ARRIVAL_FORBIDDEN = 2  # re-forms a blocked mill under REMILL_FORBIDDEN: not a legal move


@kernel(inline="always")
def _arrival(d, rest, to, blocked, forbidden):
    """ARRIVAL_* for a cow arriving on ``to`` (``rest``: the mover's other cows; ``forbidden``:
    the rule is REMILL_FORBIDDEN and ``blocked`` is not empty). The one home of text 002's rule."""
    if blocked == _U0:
        return ARRIVAL_SHOOTS if forms_mill(d, rest, to) else ARRIVAL_QUIET
    formed = mills_formed(d, rest, to)
    if forbidden and formed & blocked != _U0:
        return ARRIVAL_FORBIDDEN
    return ARRIVAL_SHOOTS if formed & ~blocked != _U0 else ARRIVAL_QUIET


@kernel(inline="always")
def _emit(out, n, base, targets):
    """Writes move ``base`` once per cow of ``targets`` (its shot), or once with no shot."""
    if targets == _U0:
        out[n] = base + NO_SHOT
        return n + 1
    while targets != _U0:
        out[n] = base + lowest_bit_index(targets)
        targets &= targets - _U1
        n += 1
    return n


@kernel(inline="always")
def _legal_moves_by_arrivals(s, out):
    """``legal_moves`` by testing every arrival with ``_arrival``: the general case, which the
    remill rule needs (a blocked mill may forbid a move or keep it from shooting)."""
    me = np.int64(s["to_move"])
    d = np.int64(s["diagonals"])
    own = s["cows"][me]
    opp = s["cows"][1 - me]
    empty = _BB_ALL & ~(own | opp)
    blocked = np.uint64(s["blocked"][me])
    forbidden = blocked != _U0 and s["no_remill"] == REMILL_FORBIDDEN
    # Targets of a shot, computed at the first move that forms a mill (most positions have none).
    targets = _U0
    have_targets = False
    n = 0
    if s["in_hand"][me] > 0:
        sources = _U1  # a single pass of the loop below, with frm = PLACE
        place = True
    else:
        sources = own
        place = False
    fly = is_flying(s, me)
    while sources != _U0:
        if place:
            frm = PLACE
            rest = own
            dests = empty
        else:
            frm = lowest_bit_index(sources)
            rest = own & ~BIT[frm]
            dests = empty if fly else NEIGHBOUR_MASKS[d, frm] & empty
        sources &= sources - _U1
        base = frm * 1024
        while dests != _U0:
            to = lowest_bit_index(dests)
            dests &= dests - _U1
            arrival = _arrival(d, rest, to, blocked, forbidden)
            if arrival == ARRIVAL_FORBIDDEN:
                continue
            if arrival == ARRIVAL_SHOOTS:
                if not have_targets:
                    targets = shootable(d, opp)
                    have_targets = True
                n = _emit(out, n, base + to * 32, targets)
            else:
                out[n] = base + to * 32 + NO_SHOT
                n += 1
    return n


# Where a move forms a mill, without a test per move. With no mill blocked (always, unless the
# remill rule is on and the mover has just broken and remade one), a cow arriving on ``to``
# forms a mill iff it completes a line whose other two points hold the mover's other cows. A
# placement completes any line through ``to``; a slide along a line never completes that line
# (the point it leaves is on it), only another line through ``to``; a flight completes any line
# through ``to`` that does not hold the point it leaves. So the mill-forming destinations of
# every source follow from the three ``line_completions`` of the mover's cows.


@kernel(inline="always")
def _arrivals(d, own, empty):
    """(mill-forming points for a placement, for a slide along a row, along a column, along a
    diagonal), all empty points."""
    rows, columns, diagonals = line_completions(d, own)
    rows &= empty
    columns &= empty
    diagonals &= empty
    return rows | columns | diagonals, columns | diagonals, rows | diagonals, rows | columns


@kernel(inline="always")
def _source(d, own, frm, empty, fly, near, across_rows, across_columns, across_diagonals):
    """(destinations, mill-forming destinations) of the mover's cow on ``frm`` (PLACE: the hand),
    the last four as ``_arrivals`` gives them; no mill blocked."""
    if frm == PLACE:
        return empty, near
    if fly:
        return empty, _mill_forming(d, own & ~BIT[frm], near)
    dests = NEIGHBOUR_MASKS[d, frm] & empty
    heavy = (
        (NEIGHBOURS_ALONG[LAYOUT_ROWS, frm] & across_rows)
        | (NEIGHBOURS_ALONG[LAYOUT_COLUMNS, frm] & across_columns)
        | (NEIGHBOURS_ALONG[LAYOUT_DIAGONALS, frm] & across_diagonals)
    )
    return dests, dests & heavy


@kernel(inline="always")
def _mill_forming(d, rest, candidates):
    """The points of ``candidates`` where a cow arriving forms a mill with ``rest``."""
    formed = _U0
    while candidates != _U0:
        to = lowest_bit_index(candidates)
        candidates &= candidates - _U1
        if forms_mill(d, rest, to):
            formed |= BIT[to]
    return formed


@kernel(inline="always")
def legal_moves(s, out):
    """Placements, slides or flights of the player to move, one id per possible shot.

    out: int64[>=MAX_MOVES]; returns the count. Order: by from point, then to point, then shot.
    """
    if s["end"] != END_NONE:
        return 0
    me = np.int64(s["to_move"])
    if s["blocked"][me] != 0:
        return _legal_moves_by_arrivals(s, out)
    d = np.int64(s["diagonals"])
    own = s["cows"][me]
    opp = s["cows"][1 - me]
    empty = _BB_ALL & ~(own | opp)
    near, across_rows, across_columns, across_diagonals = _arrivals(d, own, empty)
    targets = shootable(d, opp) if near != _U0 else _U0
    fly = is_flying(s, me)
    sources = _U1 << np.uint64(PLACE) if s["in_hand"][me] > 0 else own
    n = 0
    while sources != _U0:
        frm = lowest_bit_index(sources)
        sources &= sources - _U1
        dests, heavy = _source(d, own, frm, empty, fly, near, across_rows, across_columns, across_diagonals)
        base = frm * 1024
        while dests != _U0:
            to = lowest_bit_index(dests)
            dests &= dests - _U1
            if heavy & BIT[to] != _U0:
                n = _emit(out, n, base + to * 32, targets)
            else:
                out[n] = base + to * 32 + NO_SHOT
                n += 1
    return n


# A random legal move without the list (``random_legal_move``), on the rings' layout of
# ``board`` (bit 8r + i: point i of ring r, clockwise; corners even; a line is three points
# i, i+1, i+2 of a ring with i even, or a spoke i, 8+i, 16+i). The moves fall into at most four
# classes, each a set of destinations with one source per destination: the placements; the
# flights of each of the three cows; or the slides by the way they arrive (clockwise along a
# ring, anticlockwise, inwards along a spoke, outwards). Two classes share a 64-bit word (bits
# 0-23 and 24-47), so the k-th move of the lot is one or two popcounts and one select
# (``nth_set_bit``), whatever the position: no loop over the cows, no branch per cow.
#
# A mill-forming destination counts once per cow that its move may shoot. The draw is uniform
# over the legal moves, in its own order (the quiet moves by class and destination, then the
# mill-forming ones, each followed by its shots), not in ``legal_moves``'s.

_RING_FIRST = np.uint64(0x01_0101)  # bit 0 of every ring
_RING_LAST = np.uint64(0x80_8080)  # bit 7 of every ring
_EVEN = np.uint64(0x55_5555)  # the corners
_ODD = np.uint64(0xAA_AAAA)  # the middles of the sides
_RING0 = np.uint64(0x00_00FF)
_RING1 = np.uint64(0x00_FF00)
_RING2 = np.uint64(0xFF_0000)
_U7 = np.uint64(7)
# [diagonals]: the positions with a spoke (the corners' spokes are the diagonals)
SPOKE_MASKS = np.array([0xAA_AAAA, 0xFF_FFFF], dtype=np.uint64)


@kernel(inline="always")
def _to_rings(bb):
    """A bitboard in the rings' layout."""
    return TO_RINGS[0, bb & _BYTE] | TO_RINGS[1, (bb >> _U8) & _BYTE] | TO_RINGS[2, (bb >> _U16) & _BYTE]


@kernel(inline="always")
def _clockwise(x):
    """Every bit of a rings' board one point clockwise along its ring (bit i to i + 1 mod 8)."""
    return ((x << _U1) & ~_RING_FIRST & _BB_ALL) | ((x >> _U7) & _RING_FIRST)


@kernel(inline="always")
def _anticlockwise(x):
    """Every bit of a rings' board one point anticlockwise (bit i to i - 1 mod 8)."""
    return ((x >> _U1) & ~_RING_LAST) | ((x << _U7) & _RING_LAST & _BB_ALL)


@kernel(inline="always")
def _ring_completions(x, spokes):
    """The points of a rings' board that would complete a line whose other two points ``x``
    holds: (sides ahead: a corner i with i+1 and i+2; sides behind: a corner with i-1 and i-2;
    sides' middles: i odd with i-1 and i+1; spokes), occupied points included."""
    back = _anticlockwise(x)  # bit i: x holds i + 1
    back2 = _anticlockwise(back)
    fore = _clockwise(x)  # bit i: x holds i - 1
    fore2 = _clockwise(fore)
    outer = x >> _U8  # bit 8r + i: x holds 8(r + 1) + i
    inner = x << _U8
    across = ((outer & (outer >> _U8) & _RING0) | (outer & inner & _RING1) | (inner & (inner << _U8) & _RING2)) & spokes
    return back & back2 & _EVEN, fore & fore2 & _EVEN, back & fore & _ODD, across


@kernel(inline="always")
def _ring_shootable(x, spokes):
    """The cows of a rings' board that a shot may take: those outside mills, or any if all
    stand in mills."""
    back = _anticlockwise(x)
    sides = x & back & _anticlockwise(back) & _EVEN  # the first corner of every full side
    along = (x >> _U8) & (x >> _U16) & x & spokes & _RING0  # the outer point of every full spoke
    inside = sides | _clockwise(sides) | _clockwise(_clockwise(sides)) | along | (along << _U8) | (along << _U16)
    free = x & ~inside
    return free if free != _U0 else x


@kernel(inline="always")
def _select(low, high, k):
    """The index of the ``k``-th (from 0) set bit of the 128-bit ``low | high << 64``."""
    below = popcount(low)
    upper = k >= below  # a conditional move, not a branch: either half is as likely
    return 64 * upper + nth_set_bit(high if upper else low, k - below if upper else k)


def _slide_moves():
    """The move id (no shot) of each slide bit of ``random_legal_move``'s classes: bit ``t`` of
    the low word clockwise to ring bit ``t``, ``24 + t`` anticlockwise, ``64 + t`` inwards along
    a spoke, ``88 + t`` outwards; -1 where there is none."""
    encode = getattr(encode_move, "py_func", encode_move)  # plain Python: no kernel loaded at import
    moves = np.full(128, -1, dtype=np.int64)
    for t in range(N_POINTS):
        ring, i = divmod(t, 8)
        sources = (8 * ring + (i - 1) % 8, 8 * ring + (i + 1) % 8, t - 8, t + 8)
        for offset, frm in zip((0, 24, 64, 88), sources):
            if 0 <= frm < N_POINTS:
                moves[offset + t] = encode(RING_POINTS[frm], RING_POINTS[t], 0)
    return moves


SLIDE_MOVES = _slide_moves()


@kernel(inline="always")
def _draw(own_cows, opp_cows, placing, flying, d, x):
    """``random_legal_move``'s draw from values in registers: the mover's and the opponent's
    cows (bitboards), whether it places or flies, ``diagonals``, and the generator state ``x``.
    Returns (move, the generator state after). No mill may be blocked."""
    spokes = SPOKE_MASKS[d]
    own = _to_rings(own_cows)
    opp = _to_rings(opp_cows)
    empty = _BB_ALL & ~(own | opp)
    first = second = third = _U0  # a flyer's cows, lowest first (its classes)
    # low, high: the destinations of the four classes; heavy_*: the mill-forming ones.
    if placing:
        ahead, behind, middle, across = _ring_completions(own, spokes)
        low = empty
        heavy_low = empty & (ahead | behind | middle | across)
        high = _U0
        heavy_high = _U0
    elif flying:
        first = own & ~(own - _U1)
        rest = own & ~first
        second = rest & ~(rest - _U1)
        third = rest & ~second
        ahead, behind, middle, across = _ring_completions(own & ~first, spokes)
        heavy_first = empty & (ahead | behind | middle | across)
        ahead, behind, middle, across = _ring_completions(own & ~second, spokes)
        heavy_second = empty & (ahead | behind | middle | across)
        ahead, behind, middle, across = _ring_completions(own & ~third, spokes)
        low = empty | (empty << _U24)
        heavy_low = heavy_first | (heavy_second << _U24)
        high = empty
        heavy_high = empty & (ahead | behind | middle | across)
    else:
        # A slide never completes the line it slides along (the point it leaves is on it).
        ahead, behind, middle, across = _ring_completions(own, spokes)
        clockwise = _clockwise(own) & empty
        anticlockwise = _anticlockwise(own) & empty
        inwards = (own << _U8) & empty & spokes
        outwards = (own >> _U8) & empty & spokes
        sides = ahead | behind | middle
        low = clockwise | (anticlockwise << _U24)
        heavy_low = (clockwise & (ahead | across)) | ((anticlockwise & (behind | across)) << _U24)
        high = inwards | (outwards << _U24)
        heavy_high = high & (sides | (sides << _U24))
    quiet_low = low & ~heavy_low
    quiet_high = high & ~heavy_high
    quiet = popcount(quiet_low) + popcount(quiet_high)
    heavy = popcount(heavy_low) + popcount(heavy_high)
    targets = _U0
    shots = 1
    if heavy != 0:
        targets = _ring_shootable(opp, spokes)
        shots = max(popcount(targets), 1)
    x, bits = rng_step(x)
    k = bits_below(bits, quiet + shots * heavy)
    shot = NO_SHOT
    if k < quiet:
        bit = _select(quiet_low, quiet_high, k)
    else:
        k -= quiet
        index = k // shots
        bit = _select(heavy_low, heavy_high, index)
        if targets != _U0:
            shot = RING_POINTS[nth_set_bit(targets, k - index * shots)]
    if not placing and not flying:
        return SLIDE_MOVES[bit] + shot, x
    upper = (bit & 63) >= 24
    to = RING_POINTS[(bit & 63) - 24 * upper]
    if placing:
        return encode_move(PLACE, to, shot), x
    cow = third if bit >= 64 else (second if upper else first)
    return encode_move(RING_POINTS[lowest_bit_index(cow)], to, shot), x


@kernel(inline="always")
def random_legal_move(s, rng, scratch):
    """A uniformly random legal move of the non-terminal ``s``: one ``rng_below(rng, n)`` (``n``
    legal moves) picks it in the order above, without listing the moves; with a mill blocked by
    the remill rule, the move ``legal_moves`` lists at that index in ``scratch``."""
    me = np.int64(s["to_move"])
    if s["blocked"][me] != 0:
        return scratch[rng_below(rng, _legal_moves_by_arrivals(s, scratch))]
    move, rng[0] = _draw(
        s["cows"][me], s["cows"][1 - me], s["in_hand"][me] > 0, is_flying(s, me), np.int64(s["diagonals"]), rng[0]
    )
    return move


# ``illegal_reason`` codes of this game.
REASON_PLACE_EMPTY_HAND = FIRST_GAME_REASON  # a placement with no cow in hand
REASON_MOVE_WITH_HAND = FIRST_GAME_REASON + 1  # a slide or flight while cows remain in hand
REASON_NOT_OWN_COW = FIRST_GAME_REASON + 2  # the from point holds no cow of the mover
REASON_DOES_NOT_MOVE = FIRST_GAME_REASON + 3  # from and to are the same point
REASON_OCCUPIED = FIRST_GAME_REASON + 4  # the to point holds a cow
REASON_NOT_ADJACENT = FIRST_GAME_REASON + 5  # a slide along no line, by a player who cannot fly
REASON_REMILL_FORBIDDEN = FIRST_GAME_REASON + 6  # remakes a blocked mill (REMILL_FORBIDDEN)
REASON_MUST_SHOOT = FIRST_GAME_REASON + 7  # the move forms a mill and names no cow to shoot
REASON_SHOOT_NOT_OPPONENT = FIRST_GAME_REASON + 8  # the shot names no opponent cow
REASON_SHOOT_IN_MILL = FIRST_GAME_REASON + 9  # the shot takes a cow in a mill while others stand outside
REASON_NOTHING_TO_SHOOT = FIRST_GAME_REASON + 10  # a mill, but no opponent cow on the board
REASON_REMILL_SHOOTS_NOTHING = FIRST_GAME_REASON + 11  # re-forms only blocked mills (REMILL_NO_SHOT)
REASON_NO_MILL_NO_SHOT = FIRST_GAME_REASON + 12  # forms no mill, so it shoots nothing


@kernel(inline="always")
def illegal_reason(s, move):
    """Why ``move`` is not legal in ``s``: ``LEGAL``, a code of ``engines.contract`` or one of the
    ``REASON_*`` codes above (the same rules, through the same helpers, as ``legal_moves``)."""
    if s["end"] != END_NONE:
        return REASON_GAME_OVER
    if move < 0 or move >= MOVE_BOUND:
        return REASON_NOT_A_MOVE
    frm, to, shot = decode_move(move)
    if to >= N_POINTS or shot > NO_SHOT:
        return REASON_NOT_A_MOVE
    me = np.int64(s["to_move"])
    d = np.int64(s["diagonals"])
    own = s["cows"][me]
    opp = s["cows"][1 - me]
    if frm == PLACE:
        if s["in_hand"][me] == 0:
            return REASON_PLACE_EMPTY_HAND
    else:
        if s["in_hand"][me] > 0:
            return REASON_MOVE_WITH_HAND
        if own & BIT[frm] == _U0:
            return REASON_NOT_OWN_COW
        if frm == to:
            return REASON_DOES_NOT_MOVE
    rest = _others(own, frm)
    if (own | opp) & BIT[to] != _U0:
        return REASON_OCCUPIED
    if frm != PLACE and not is_flying(s, me) and NEIGHBOUR_MASKS[d, frm] & BIT[to] == _U0:
        return REASON_NOT_ADJACENT
    blocked = np.uint64(s["blocked"][me])
    arrival = _arrival(d, rest, to, blocked, blocked != _U0 and s["no_remill"] == REMILL_FORBIDDEN)
    if arrival == ARRIVAL_FORBIDDEN:
        return REASON_REMILL_FORBIDDEN
    if arrival == ARRIVAL_SHOOTS:
        targets = shootable(d, opp)
        if targets == _U0:
            return LEGAL if shot == NO_SHOT else REASON_NOTHING_TO_SHOOT
        if shot == NO_SHOT:
            return REASON_MUST_SHOOT
        if opp & BIT[shot] == _U0:
            return REASON_SHOOT_NOT_OPPONENT
        if targets & BIT[shot] == _U0:
            return REASON_SHOOT_IN_MILL
        return LEGAL
    if shot != NO_SHOT:
        return REASON_REMILL_SHOOTS_NOTHING if forms_mill(d, rest, to) else REASON_NO_MILL_NO_SHOT
    return LEGAL


# What the Python face asks to put a move or a position into words (and the page to mark a mill).


@kernel
def mills_of_move(s, move):
    """The mills (bit m: mill m of ``board.LINES``) that ``move``, by the player to move in ``s``,
    forms with its cow's arrival (re-formed blocked mills included), whatever its shot."""
    me = np.int64(s["to_move"])
    frm, to, _ = decode_move(move)
    return mills_formed(np.int64(s["diagonals"]), _others(s["cows"][me], frm), to)


@kernel
def shot_targets(s):
    """The opponent cows that a shot of the player to move may take (bitboard)."""
    return shootable(np.int64(s["diagonals"]), s["cows"][1 - np.int64(s["to_move"])])


@kernel
def mills_at(s, player, point):
    """The complete mills of ``player``'s cows through ``point`` (mill bits as above)."""
    return mills_through(np.int64(s["diagonals"]), s["cows"][player], point)


@kernel
def write_actions(diagonals, flying, out):
    """Every move id a variant's rules allow in some position, in id order: placements on any
    point, slides to a neighbour (to any other point when ``flying``), each with a shot of any
    point but the two the move uses, or none. out: int64[>=MAX_ACTIONS]; returns the count."""
    n = 0
    for frm in range(PLACE + 1):
        if frm == PLACE or flying:
            targets = _BB_ALL if frm == PLACE else _BB_ALL & ~BIT[frm]
        else:
            targets = NEIGHBOUR_MASKS[diagonals, frm]
        while targets != _U0:
            to = lowest_bit_index(targets)
            targets &= targets - _U1
            for shot in range(NO_SHOT + 1):
                if shot != to and (shot != frm or frm == PLACE):
                    out[n] = encode_move(frm, to, shot)
                    n += 1
    return n


@kernel(inline="always")
def _can_move(own, opp, in_hand, d, fly, blocked, forbidden):
    """Whether a player with cows ``own`` (``in_hand`` in hand, flying or not, ``blocked`` mills,
    ``forbidden``: under REMILL_FORBIDDEN) has a legal move (the end rules aside)."""
    empty = _BB_ALL & ~(own | opp)
    if in_hand > 0:
        return empty != _U0
    if fly and not forbidden:
        return empty != _U0
    sources = own
    while sources != _U0:
        frm = lowest_bit_index(sources)
        sources &= sources - _U1
        dests = empty if fly else NEIGHBOUR_MASKS[d, frm] & empty
        if not forbidden:
            if dests != _U0:
                return True
            continue
        rest = own & ~BIT[frm]
        while dests != _U0:
            to = lowest_bit_index(dests)
            dests &= dests - _U1
            if _arrival(d, rest, to, blocked, forbidden) != ARRIVAL_FORBIDDEN:
                return True
    return False


@kernel(inline="always")
def can_move(s, p):
    """Whether player ``p`` has a legal move (the end rules aside)."""
    blocked = np.uint64(s["blocked"][p])
    return _can_move(
        s["cows"][p],
        s["cows"][1 - p],
        s["in_hand"][p],
        np.int64(s["diagonals"]),
        is_flying(s, p),
        blocked,
        blocked != _U0 and s["no_remill"] == REMILL_FORBIDDEN,
    )


@kernel(inline="always")
def _end(s, own, opp, in_hand, movable, three_cow, no_shot, plies):
    """END_* for the player to move (cows ``own``, ``in_hand``; ``movable``: whether it has a
    move), the counters as given and the limits of ``s``, the rules in order of precedence: a
    win (two cows left, or no move) before the draw rules."""
    if popcount(own) + np.int64(in_hand) <= 2:
        return END_TWO_COWS
    if not movable:
        if s["full_board_draw"] != 0 and (own | opp) == _BB_ALL:
            return END_FULL_BOARD
        return END_BLOCKED
    if s["three_cow_limit"] > 0 and three_cow >= s["three_cow_limit"]:
        return END_THREE_COW_DRAW
    if s["no_shot_limit"] > 0 and no_shot >= s["no_shot_limit"]:
        return END_NO_SHOT_DRAW
    if s["max_plies"] > 0 and plies >= s["max_plies"]:
        return END_PLY_CAP
    return END_NONE


@kernel(inline="always")
def _winner(end, to_move):
    """The winner (-1: none) of a game ended by ``end`` with ``to_move`` to move."""
    return 1 - to_move if end == END_TWO_COWS or end == END_BLOCKED else -1


@kernel(inline="always")
def settle(s):
    """Sets ``end`` and ``winner`` for the player to move (see ``_end``)."""
    p = np.int64(s["to_move"])
    end = _end(s, s["cows"][p], s["cows"][1 - p], s["in_hand"][p], can_move(s, p), s["three_cow"], s["no_shot"], s["plies"])
    s["end"] = end
    s["winner"] = _winner(end, p)


@kernel(inline="always")
def _moved(own, opp, in_hand, in_hand_opp, no_shot, three_cow, move):
    """The mover's cows, the opponent's, the mover's cows in hand, and the no-shot and
    three-cow counters after the mover plays ``move`` (the remill blocks aside)."""
    frm, to, shot = decode_move(move)
    if frm == PLACE:
        in_hand -= 1
        no_shot = 0
    else:
        own &= ~BIT[frm]
        no_shot += 1
    own |= BIT[to]
    if shot != NO_SHOT:
        opp &= ~BIT[shot]
        no_shot = 0
        three_cow = 0
    elif popcount(own) + in_hand == 3 or popcount(opp) + in_hand_opp == 3:
        three_cow += 1
    else:
        three_cow = 0
    return own, opp, in_hand, no_shot, three_cow


@kernel(inline="always")
def apply_move(s, move):
    """Plays ``move`` (legal, unchecked): the cow, its shot, the draw counters, the end."""
    me = np.int64(s["to_move"])
    frm = move >> 10
    own = s["cows"][me]
    if frm == PLACE:
        s["blocked"][me] = 0  # a placement breaks no mill (only set-up positions mix the two)
    elif s["no_remill"] != 0:
        d = np.int64(s["diagonals"])
        broken = mills_through(d, own, frm)
        if broken != _U0 and mills_formed(d, own & ~BIT[frm], (move >> 5) & 31) != _U0:
            s["blocked"][me] = np.uint32(broken)
        else:
            s["blocked"][me] = np.uint32(0)
    hands = s["in_hand"]
    own, opp, in_hand, no_shot, three_cow = _moved(
        own, s["cows"][1 - me], np.int64(hands[me]), np.int64(hands[1 - me]), s["no_shot"], s["three_cow"], move
    )
    s["cows"][me] = own
    s["cows"][1 - me] = opp
    s["in_hand"][me] = in_hand
    s["no_shot"] = no_shot
    s["three_cow"] = three_cow
    s["plies"] += 1
    s["to_move"] = 1 - me
    settle(s)


@kernel(inline="always")
def random_playout(s, rng, scratch):
    """``random_legal_move`` and ``apply_move`` to the end, move for move, with the position in
    local variables (registers) from the first ply to the last. Variants with the remill rule
    (whose blocked mills the draw needs the listing for) play through the record."""
    plies = 0
    if s["no_remill"] != 0 or s["blocked"][0] != 0 or s["blocked"][1] != 0:
        while s["end"] == END_NONE:
            apply_move(s, random_legal_move(s, rng, scratch))
            plies += 1
        return plies
    end = np.int64(s["end"])
    me = np.int64(s["to_move"])
    own = s["cows"][me]
    opp = s["cows"][1 - me]
    in_hand = np.int64(s["in_hand"][me])
    in_hand_opp = np.int64(s["in_hand"][1 - me])
    no_shot = np.int64(s["no_shot"])
    three_cow = np.int64(s["three_cow"])
    played = np.int64(s["plies"])
    d = np.int64(s["diagonals"])
    flies = s["flying"] != 0
    x = rng[0]
    while end == END_NONE:
        fly = flies and in_hand == 0 and popcount(own) == 3
        move, x = _draw(own, opp, in_hand > 0, fly, d, x)
        own, opp, in_hand, no_shot, three_cow = _moved(own, opp, in_hand, in_hand_opp, no_shot, three_cow, move)
        own, opp = opp, own
        in_hand, in_hand_opp = in_hand_opp, in_hand
        me = 1 - me
        played += 1
        plies += 1
        fly = flies and in_hand == 0 and popcount(own) == 3
        movable = _can_move(own, opp, in_hand, d, fly, _U0, False)
        end = _end(s, own, opp, in_hand, movable, three_cow, no_shot, played)
    rng[0] = x
    s["cows"][me] = own
    s["cows"][1 - me] = opp
    s["in_hand"][me] = in_hand
    s["in_hand"][1 - me] = in_hand_opp
    s["no_shot"] = no_shot
    s["three_cow"] = three_cow
    s["plies"] = played
    s["to_move"] = me
    s["end"] = end
    s["winner"] = _winner(end, me)
    return plies


@kernel
def init_state(s, cows, diagonals, flying, no_remill, full_board_draw, three_cow_limit, no_shot_limit, max_plies):
    """The start position: an empty board, ``cows`` in each hand, White to place."""
    s["cows"][0] = _U0
    s["cows"][1] = _U0
    s["blocked"][0] = 0
    s["blocked"][1] = 0
    s["plies"] = 0
    s["max_plies"] = max_plies
    s["no_shot"] = 0
    s["three_cow"] = 0
    s["no_shot_limit"] = no_shot_limit
    s["three_cow_limit"] = three_cow_limit
    s["in_hand"][0] = cows
    s["in_hand"][1] = cows
    s["to_move"] = 0
    s["diagonals"] = diagonals
    s["flying"] = flying
    s["no_remill"] = no_remill
    s["full_board_draw"] = full_board_draw
    s["end"] = END_NONE
    s["winner"] = -1
    settle(s)


@kernel(inline="always")
def is_terminal(s):
    return s["end"] != END_NONE


@kernel(inline="always")
def current_player(s):
    return np.int64(s["to_move"])


@kernel(inline="always")
def outcome(s):
    if s["winner"] == 0:
        return 1.0
    if s["winner"] == 1:
        return -1.0
    return 0.0


@kernel(inline="always")
def score(s):
    """White's cows minus Black's (on the board and in hand)."""
    return _total(s, 0) - _total(s, 1)


@kernel(inline="always")
def _slides(d, own, empty):
    """Number of slides a player has (each cow to each empty neighbour)."""
    n = 0
    while own != _U0:
        n += popcount(NEIGHBOUR_MASKS[d, lowest_bit_index(own)] & empty)
        own &= own - _U1
    return n


@kernel(inline="always")
def _features(s, p, d, empty):
    """Player ``p``'s complete mills, open mills it can close with its next move (two cows and
    an empty third point that a cow can reach: from the hand, by flying, or sliding in from
    outside the line) and slides (0 for a flying player, whose mobility is never short)."""
    own = s["cows"][p]
    opp = s["cows"][1 - p]
    reach_any = s["in_hand"][p] > 0 or is_flying(s, p)
    mills = 0
    open_mills = 0
    for m in range(N_MILLS):
        mask = MILL_MASKS[d, m]
        held = own & mask
        if held == mask:
            mills += 1
        elif popcount(held) == 2 and opp & mask == _U0:
            gap = lowest_bit_index(mask & ~held)
            if reach_any or NEIGHBOUR_MASKS[d, gap] & own & ~mask != _U0:
                open_mills += 1
    slides = 0 if is_flying(s, p) else _slides(d, own, empty)
    return mills, open_mills, slides


@kernel(inline="always")
def heuristic(s):
    """White's prospects in (-1, 1): the cow difference (in hand included) plus smaller terms
    for mills, closable open mills and mobility, squashed by v / (|v| + 3).

    An open mill of the player to move is nearly a shot (it closes it now); one of the player who
    just moved may still be blocked, so it counts less.
    """
    d = np.int64(s["diagonals"])
    empty = _BB_ALL & ~(s["cows"][0] | s["cows"][1])
    mills0, open0, slides0 = _features(s, 0, d, empty)
    mills1, open1, slides1 = _features(s, 1, d, empty)
    v = np.float64(score(s)) + 0.3 * (mills0 - mills1) + 0.05 * (slides0 - slides1)
    if s["to_move"] == 0:
        v += 0.8 * min(open0, 1) + 0.2 * open0 - 0.3 * open1
    else:
        v -= 0.8 * min(open1, 1) + 0.2 * open1 - 0.3 * open0
    return v / (abs(v) + 3.0)


@kernel(inline="always")
def state_hash(s):
    """Covers the cows, the hands, the player to move, the remill blocks and every counter that
    one of the variant's rules reads (a counter whose rule is off is left out)."""
    board = s["cows"][0] | (s["cows"][1] << _U24) | (np.uint64(s["in_hand"][0]) << _U48)
    board |= np.uint64(s["in_hand"][1]) << np.uint64(53)
    board |= np.uint64(s["to_move"]) << np.uint64(58)
    board |= np.uint64(s["end"]) << np.uint64(59)
    rules = np.uint64(s["blocked"][0]) | (np.uint64(s["blocked"][1]) << _U20)
    if s["no_shot_limit"] > 0:
        rules |= np.uint64(s["no_shot"]) << _U40
    if s["three_cow_limit"] > 0:
        rules |= np.uint64(s["three_cow"]) << np.uint64(52)
    h = mix64(board ^ np.uint64(0x6A09_E667_F3BC_C909))
    h = mix64(h ^ rules)
    if s["max_plies"] > 0:
        h = mix64(h ^ np.uint64(s["plies"]))
    return h


@kernel(inline="always")
def endgame_value(s, db, k):
    """The result (1, 0, -1) for the player to move of ``s`` under perfect play, from a morris
    database array ``db`` (``retrograde.load``) of positions up to ``k`` cows on the board, or
    NO_ENDGAME_VALUE: cows in hand, more cows on the board, a database of other rules, or a ply
    cap that may or may not cut a decided game short. (The default margin is the result, so this is
    the change of the margin that the contract asks for.)"""
    if k < 6 or len(db) < sectors.HEADER_BYTES or s["in_hand"][0] != 0 or s["in_hand"][1] != 0:
        return NO_ENDGAME_VALUE
    if s["no_remill"] != 0 or s["no_shot_limit"] > 0:
        return NO_ENDGAME_VALUE
    words = sectors.header_of(db)
    if (words[sectors.H_MAGIC] != sectors.MAGIC or words[sectors.H_DIAGONALS] != s["diagonals"]
            or words[sectors.H_FLYING] != s["flying"] or words[sectors.H_THREE_COW] != s["three_cow_limit"]
            or words[sectors.H_FULL_BOARD_DRAW] != s["full_board_draw"]):
        return NO_ENDGAME_VALUE
    me = np.int64(s["to_move"])
    x = s["cows"][me]
    y = s["cows"][1 - me]
    m = np.int64(popcount(x))
    o = np.int64(popcount(y))
    if m + o > k:
        return NO_ENDGAME_VALUE
    code = sectors.code_at(db, x, y)
    if code == sectors.NO_CODE:
        return NO_ENDGAME_VALUE
    limit = np.int64(s["three_cow_limit"]) if m == 3 or o == 3 else np.int64(0)
    result = sectors.code_result(code, np.int64(s["three_cow"]) if limit > 0 else np.int64(0), limit)
    if result != 0 and s["max_plies"] > 0:
        # The ply cap: a decided game whose first decisive event comes after the cap is drawn
        # (no side wins without one); one whose whole rest fits before the cap keeps its value
        # (the header bounds the plies after that event); in between the database cannot tell.
        remaining = np.int64(s["max_plies"]) - np.int64(s["plies"])
        d = np.int64(0) if code == sectors.LOST_NOW else abs(code)
        if d > remaining:
            return np.int64(0)
        if d + words[sectors.H_BOUND + m + o - 1] > remaining:
            return NO_ENDGAME_VALUE
    return np.int64(result)


# ----------------------------------------------------------------------------------------------
# Learning: the observation tensor and the restart of a finished game.

OBSERVATION_PLANES = 8


@kernel(inline="always")
def write_observation(s, player, out):
    """``player``'s view as ``out: float32[8 * 24]`` (shape ``(8, 24)`` flattened, points in
    board order), planes: 0 the player's cows, 1 the opponent's cows, 2 the player's cows in hand
    (the count on every point), 3 the opponent's cows in hand, 4 the points of the player's mills
    that ``no_immediate_remill`` keeps from counting on their next move, 5 the same for the
    opponent, 6 the no-shot counter over its limit (0 when the rule is off), 7 the plies played
    over the ply cap (0 without a cap)."""
    d = np.int64(s["diagonals"])
    own = s["cows"][player]
    opp = s["cows"][1 - player]
    blocked_own = _U0
    blocked_opp = _U0
    for m in range(N_MILLS):
        if (np.uint64(s["blocked"][player]) >> np.uint64(m)) & _U1:
            blocked_own |= MILL_MASKS[d, m]
        if (np.uint64(s["blocked"][1 - player]) >> np.uint64(m)) & _U1:
            blocked_opp |= MILL_MASKS[d, m]
    hand_own = np.float32(s["in_hand"][player])
    hand_opp = np.float32(s["in_hand"][1 - player])
    no_shot = np.float32(0.0)
    if s["no_shot_limit"] > 0:
        no_shot = np.float32(s["no_shot"] / s["no_shot_limit"])
    plies = np.float32(0.0)
    if s["max_plies"] > 0:
        plies = np.float32(s["plies"] / s["max_plies"])
    for p in range(24):
        bit = BIT[p]
        out[p] = np.float32(1.0) if own & bit else np.float32(0.0)
        out[24 + p] = np.float32(1.0) if opp & bit else np.float32(0.0)
        out[48 + p] = hand_own
        out[72 + p] = hand_opp
        out[96 + p] = np.float32(1.0) if blocked_own & bit else np.float32(0.0)
        out[120 + p] = np.float32(1.0) if blocked_opp & bit else np.float32(0.0)
        out[144 + p] = no_shot
        out[168 + p] = plies


@kernel(inline="always")
def redraw_start(s, rng, code):
    """Draws the random parts of a start position copied into ``s``: Morabaraba has none."""
    return None
