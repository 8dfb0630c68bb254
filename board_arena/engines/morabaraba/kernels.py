"""Morabaraba kernels: the mill games on 24 points (Morabaraba with 12 or 9 cows, nine men's
morris), one bitboard per player.

Rules: ``docs/rules.md`` (Morabaraba) and texts 000 and 002. Points are numbered and named
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

from board_arena.engines._jit import (
    kernel,
    lowest_bit_index,
    mix64,
    nth_set_bit,
    popcount,
    rng_below,
)
from board_arena.engines.contract import (
    FIRST_GAME_REASON,
    LEGAL,
    REASON_GAME_OVER,
    REASON_NOT_A_MOVE,
    state_dtype,
)
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
    TO_LAYOUT,
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


# A random legal move without the list (``random_legal_move``): the move that ``legal_moves``
# lists at a uniformly random index, found by counting. A source's moves in the list are its
# destinations in order, a mill-forming one once per cow it may shoot, so one pass over the
# sources counts the moves and a second finds the source, then the move, of the drawn index.


@kernel(inline="always")
def _shot(targets, slot):
    """The shot of a mill-forming move's ``slot``-th copy: the slot-th target, or none."""
    return nth_set_bit(targets, slot) if targets != _U0 else NO_SHOT


@kernel(inline="always")
def _kth_move(frm, dests, heavy, shots, targets, k):
    """The ``k``-th move of the source ``frm`` in list order (``heavy``: its destinations that
    form a mill, each ``shots`` moves, one per cow of ``targets``, or one without a shot)."""
    passed = 0  # heavy destinations before the one looked at
    while heavy != _U0:
        to = lowest_bit_index(heavy)
        heavy &= heavy - _U1
        first = popcount(dests & (BIT[to] - _U1)) + (shots - 1) * passed
        if k < first:
            break
        if k < first + shots:
            return encode_move(frm, to, _shot(targets, k - first))
        passed += 1
    return encode_move(frm, nth_set_bit(dests, k - (shots - 1) * passed), NO_SHOT)


@kernel(inline="always")
def random_legal_move(s, rng, scratch):
    """The move that ``legal_moves`` lists at ``rng_below(rng, n)`` (``n`` legal moves) in the
    non-terminal ``s``, found without listing them (see above); with a mill blocked by the remill
    rule, from the list in ``scratch``."""
    me = np.int64(s["to_move"])
    if s["blocked"][me] != 0:
        return scratch[rng_below(rng, _legal_moves_by_arrivals(s, scratch))]
    d = np.int64(s["diagonals"])
    own = s["cows"][me]
    opp = s["cows"][1 - me]
    empty = _BB_ALL & ~(own | opp)
    near, across_rows, across_columns, across_diagonals = _arrivals(d, own, empty)
    targets = _U0
    shots = 1
    if near != _U0:
        targets = shootable(d, opp)
        shots = max(popcount(targets), 1)
    fly = is_flying(s, me)
    all_sources = _U1 << np.uint64(PLACE) if s["in_hand"][me] > 0 else own
    n = 0
    sources = all_sources
    while sources != _U0:
        frm = lowest_bit_index(sources)
        sources &= sources - _U1
        dests, heavy = _source(d, own, frm, empty, fly, near, across_rows, across_columns, across_diagonals)
        n += popcount(dests) + (shots - 1) * popcount(heavy)
    k = rng_below(rng, n)
    sources = all_sources
    while True:
        frm = lowest_bit_index(sources)
        sources &= sources - _U1
        dests, heavy = _source(d, own, frm, empty, fly, near, across_rows, across_columns, across_diagonals)
        count = popcount(dests) + (shots - 1) * popcount(heavy)
        if k < count:
            return _kth_move(frm, dests, heavy, shots, targets, k)
        k -= count


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


@kernel
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
def can_move(s, p):
    """Whether player ``p`` has a legal move (the end rules aside)."""
    own = s["cows"][p]
    empty = _BB_ALL & ~(own | s["cows"][1 - p])
    if s["in_hand"][p] > 0:
        return empty != _U0
    d = np.int64(s["diagonals"])
    blocked = np.uint64(s["blocked"][p])
    forbidden = blocked != _U0 and s["no_remill"] == REMILL_FORBIDDEN
    fly = is_flying(s, p)
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
def settle(s):
    """Sets ``end`` and ``winner`` for the player to move, the rules in order of precedence: a
    win (two cows left, or no move) before the draw rules."""
    p = np.int64(s["to_move"])
    if _total(s, p) <= 2:
        s["end"] = END_TWO_COWS
        s["winner"] = 1 - p
    elif not can_move(s, p):
        if s["full_board_draw"] != 0 and (s["cows"][0] | s["cows"][1]) == _BB_ALL:
            s["end"] = END_FULL_BOARD
            s["winner"] = -1
        else:
            s["end"] = END_BLOCKED
            s["winner"] = 1 - p
    elif s["three_cow_limit"] > 0 and s["three_cow"] >= s["three_cow_limit"]:
        s["end"] = END_THREE_COW_DRAW
        s["winner"] = -1
    elif s["no_shot_limit"] > 0 and s["no_shot"] >= s["no_shot_limit"]:
        s["end"] = END_NO_SHOT_DRAW
        s["winner"] = -1
    elif s["max_plies"] > 0 and s["plies"] >= s["max_plies"]:
        s["end"] = END_PLY_CAP
        s["winner"] = -1
    else:
        s["end"] = END_NONE
        s["winner"] = -1


@kernel(inline="always")
def apply_move(s, move):
    """Plays ``move`` (legal, unchecked): the cow, its shot, the draw counters, the end."""
    me = np.int64(s["to_move"])
    frm, to, shot = decode_move(move)
    own = s["cows"][me]
    if frm == PLACE:
        s["in_hand"][me] -= 1
        s["no_shot"] = 0
        s["blocked"][me] = 0  # a placement breaks no mill (only set-up positions mix the two)
    else:
        if s["no_remill"] != 0:
            d = np.int64(s["diagonals"])
            rest = own & ~BIT[frm]
            broken = mills_through(d, own, frm)
            if broken != _U0 and mills_formed(d, rest, to) != _U0:
                s["blocked"][me] = np.uint32(broken)
            else:
                s["blocked"][me] = np.uint32(0)
        own &= ~BIT[frm]
        s["no_shot"] += 1
    s["cows"][me] = own | BIT[to]
    if shot != NO_SHOT:
        s["cows"][1 - me] &= ~BIT[shot]
        s["no_shot"] = 0
        s["three_cow"] = 0
    elif _total(s, 0) == 3 or _total(s, 1) == 3:
        s["three_cow"] += 1
    else:
        s["three_cow"] = 0
    s["plies"] += 1
    s["to_move"] = 1 - me
    settle(s)


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


@kernel
def outcome(s):
    if s["winner"] == 0:
        return 1.0
    if s["winner"] == 1:
        return -1.0
    return 0.0


@kernel
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


@kernel
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


@kernel
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


@kernel
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
