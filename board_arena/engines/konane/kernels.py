"""Konane kernels: the Hawaiian jumping game on a ``size`` x ``size`` board (4..8), one uint64
bitboard per colour.

Rules: ``docs/games/konane.md`` and text 003. Black (player 0) moves first; a move jumps
one stone orthogonally over an adjacent opponent stone into the empty point beyond, capturing it,
and may go on jumping with the same stone (same direction by default, any direction with
``turning_jumps``), stopping after any jump.

Board layout: square ``sq = 8 * row + col`` whatever the size (rows from the bottom, columns from
the left, as the notation writes them: a1 is square 0), so one shift moves every stone one point
at once: east ``<< 1``, north ``<< 8``, west ``>> 1``, south ``>> 8``. Squares of columns or rows
``>= size`` are never occupied, so a shift that leaves the board lands on a square that is masked
out by ``& opp`` or ``& empty``; only the east/west wrap from column 7 to column 0 of the next row
needs a file mask. Drawn for size 6 (``.`` = off the board)::

    row 7   56 57 58 59 60 61 62 63      . . . . . . . .
    row 6   48 49 50 51 52 53 54 55      . . . . . . . .
    row 5   40 41 42 43 44 45 46 47      B W B W B W . .    a6 (square 40) is black:
    ...                                   ...                 black on the top-left point
    row 0    0  1  2  3  4  5  6  7      W B W B W B . .    a1 (square 0)
           col 0  1  2  3  4  5  6  7

Stones never leave their colour of square (a jump moves two points), so black stones stay on the
squares with ``(row + col) % 2 == (size - 1) % 2`` and white stones on the others.

Move ids (``MOVE_DTYPE`` int64), bits from the lowest:

==========  ====================================================================================
0-5         the square the stone jumps from
6-7         the direction of the first jump: 0 east, 1 north, 2 west, 3 south (counter-clockwise)
8-12        number of jumps - 1 (at most 24 jumps: see ``MAX_JUMPS``)
13 + 2i..   for jump i + 2 (i = 0, 1, ...): its turn from the previous jump's direction, 0 straight,
            1 left, 2 right, 3 back (never legal: it would cross the point just emptied); the
            direction changes by ``code ^ (code >> 1)`` quarter turns counter-clockwise
==========  ====================================================================================

So a straight multi-jump of ``k <= 3`` jumps has an id below ``JUMP_IDS = 768`` (the whole move
space of the default rule) and a path with a turn has an id of at least ``2**13``. The two
non-jump moves take ids that as jumps would be four straight jumps, which needs 9 columns or rows:
``REMOVE_BASE + sq`` (768 + sq) removes the mover's stone on ``sq`` in the classic opening and
``PASS`` (832) passes.
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
)

MIN_SIZE = 4
MAX_SIZE = 8

# A path crosses each edge of its stone's landing lattice (the points two apart, 4x4 on 8x8, so
# 2 * 4 * 3 = 24 edges) at most once, since the stone it jumps is captured: at most 24 jumps.
MAX_JUMPS = 24
JUMP_IDS = 3 << 8  # straight moves of 1-3 jumps: from | direction << 6 | (jumps - 1) << 8
REMOVE_BASE = JUMP_IDS
PASS = REMOVE_BASE + 64
TURN_SHIFT = 13
MOVE_BOUND = 1 << (TURN_SHIFT + 2 * (MAX_JUMPS - 1))

# MAX_MOVES: the most legal moves of any state of any size and rule, the turning rule on 8x8.
# Argument (checked by tests/engines/test_konane.py::test_max_moves_is_the_exact_bound, which
# enumerates every case): a turning move is a trail (no edge twice) in the lattice of points two
# apart that holds its stone; it never lands on another own stone and needs an opponent stone at
# the middle of each edge. The mover's colour of square splits into two such lattices (4x4 and 4x4 on 8x8);
# over every set of own stones in a lattice, the most trails is 27,384, from one stone alone on
# an inner point with every other point empty, so at most 2 * 27,384 moves, and a position with
# one black stone in each lattice and 30 white stones reaches it. The default rule has at most
# 4 * 32 (a straight move is fixed by its direction and the last opponent stone it jumps), the
# classic opening 8 removals.
MAX_MOVES = 2 * 27_384
# The same bound per board size for the turning rule (index: size), and the straight-move bound,
# so that searches size their move buffers to the variant they play (contract.max_moves).
TURNING_MAX_MOVES = np.array([0, 0, 0, 0, 16, 292, 568, 27_668, 54_768], dtype=np.int64)

SCORING_CAPTURES = 0  # text 003: one point per captured stone, more points wins
SCORING_LAST_MOVE = 1  # classic normal play: who cannot move on their turn loses, no passes

OPENING_RANDOM = 0  # text 003: one black and one white stone removed at random (any stones)
OPENING_RANDOM_ADJACENT = 1  # a random orthogonally adjacent black-white pair removed
OPENING_CLASSIC = 2  # black removes a corner or centre stone, white one next to the gap: moves

PHASE_BLACK_REMOVES = 0
PHASE_WHITE_REMOVES = 1
PHASE_PLAY = 2

BLACK = 0
WHITE = 1

STATE_DTYPE = state_dtype(
    [
        ("stones", np.uint64, (2,)),  # [black, white] bitboards, layout above
        ("board", np.uint64),  # the size x size squares
        ("captures", np.int8, (2,)),  # stones captured by [black, white]
        ("size", np.int8),
        ("to_move", np.int8),  # 0 black, 1 white
        ("phase", np.int8),  # PHASE_*: the classic opening's removals, then play
        ("turning", np.int8),  # 1: a multi-jump may change direction
        ("scoring", np.int8),  # SCORING_*
        ("terminal", np.int8),  # 1 once the game is over (set by apply_move)
    ]
)

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U8 = np.uint64(8)
_U16 = np.uint64(16)
BB_FILE_A = np.uint64(0x0101_0101_0101_0101)
BB_FILE_H = np.uint64(0x8080_8080_8080_8080)
BB_FILES_AB = np.uint64(0x0303_0303_0303_0303)
BB_FILES_GH = np.uint64(0xC0C0_C0C0_C0C0_C0C0)
_NOT_FILE_A = ~BB_FILE_A
_NOT_FILE_H = ~BB_FILE_H
_NOT_FILES_AB = ~BB_FILES_AB
_NOT_FILES_GH = ~BB_FILES_GH
# Square offset of one step in each direction (east, north, west, south).
DELTA = np.array([1, 8, -1, -8], dtype=np.int64)


def _board_mask(size: int) -> int:
    return sum(1 << (8 * r + c) for r in range(size) for c in range(size))


def _black_squares(size: int) -> int:
    # Black on the top-left point (row size - 1, column 0).
    return sum(1 << (8 * r + c) for r in range(size) for c in range(size) if (r + c) % 2 == (size - 1) % 2)


def _corners_and_centre(size: int) -> int:
    last = size - 1
    squares = {(0, 0), (0, last), (last, 0), (last, last)}
    half = size // 2
    if size % 2:
        squares.add((half, half))
    else:
        squares |= {(half - 1, half - 1), (half - 1, half), (half, half - 1), (half, half)}
    return sum(1 << (8 * r + c) for r, c in squares)


# Indexed by size (entries below MIN_SIZE unused).
BB_BOARD = np.array([_board_mask(n) for n in range(MAX_SIZE + 1)], dtype=np.uint64)
BB_BLACK_SQUARES = np.array([_black_squares(n) for n in range(MAX_SIZE + 1)], dtype=np.uint64)
# Where black may remove its first stone in the classic opening (a black stone is there).
BB_OPENING = np.array([_corners_and_centre(n) if n else 0 for n in range(MAX_SIZE + 1)], dtype=np.uint64)


# ----------------------------------------------------------------------------------------------
# Shifts and jumps


@kernel(inline="always")
def _step(x, d):
    """Every point of ``x`` moved one step in direction ``d`` (points leaving the word dropped,
    the file wrap of east/west masked; the caller masks points off the board)."""
    if d == 0:
        return (x << _U1) & _NOT_FILE_A
    if d == 1:
        return x << _U8
    if d == 2:
        return (x >> _U1) & _NOT_FILE_H
    return x >> _U8


@kernel(inline="always")
def _jump(x, d, opp, empty):
    """Landing points of one jump from each point of ``x`` in direction ``d``:
    an opponent stone one step away and an empty point two steps away."""
    if d == 0:
        return ((x & (opp >> _U1)) << _U2) & empty & _NOT_FILES_AB
    if d == 1:
        return ((x & (opp >> _U8)) << _U16) & empty
    if d == 2:
        return ((x & (opp << _U1)) >> _U2) & empty & _NOT_FILES_GH
    return ((x & (opp << _U8)) >> _U16) & empty


@kernel(inline="always")
def _has_jump(own, opp, empty):
    """True if any stone of ``own`` can jump."""
    return (
        _jump(own, 0, opp, empty) | _jump(own, 1, opp, empty) | _jump(own, 2, opp, empty) | _jump(own, 3, opp, empty)
    ) != _U0


@kernel(inline="always")
def _mobility(own, opp, empty):
    """First jumps available to ``own``: one per stone and direction that can jump."""
    return (
        popcount(_jump(own, 0, opp, empty))
        + popcount(_jump(own, 1, opp, empty))
        + popcount(_jump(own, 2, opp, empty))
        + popcount(_jump(own, 3, opp, empty))
    )


@kernel(inline="always")
def _empty(s):
    return s["board"] & ~(s["stones"][0] | s["stones"][1])


@kernel(inline="always")
def _neighbours(x):
    return _step(x, 0) | _step(x, 1) | _step(x, 2) | _step(x, 3)


@kernel(inline="always")
def _nth_bit(x, n):
    """The square of the ``n``-th lowest set bit of ``x`` (0-based)."""
    for _ in range(n):
        x &= x - _U1
    return lowest_bit_index(x)


# ----------------------------------------------------------------------------------------------
# Setting up


@kernel
def init_state(s, size, turning, scoring, opening, rng):
    """Fills ``s`` with the start position: the full checkerboard, then the opening.

    opening: OPENING_*; the random ones draw from ``rng`` (uint64[1]), the classic one leaves the
    removals to the players as moves.
    """
    board = BB_BOARD[size]
    black = BB_BLACK_SQUARES[size]
    white = board & ~black
    if opening == OPENING_RANDOM:
        black &= ~(_U1 << np.uint64(_nth_bit(black, rng_below(rng, popcount(black)))))
        white &= ~(_U1 << np.uint64(_nth_bit(white, rng_below(rng, popcount(white)))))
    elif opening == OPENING_RANDOM_ADJACENT:
        # 2 * size * (size - 1) adjacent pairs: horizontal ones first (each named by its west
        # point), then vertical ones (each named by its south point); every pair is black-white.
        pairs = size * (size - 1)
        k = rng_below(rng, 2 * pairs)
        if k < pairs:
            a = 8 * (k // (size - 1)) + k % (size - 1)
            b = a + 1
        else:
            k -= pairs
            a = 8 * (k // size) + k % size
            b = a + 8
        gap = (_U1 << np.uint64(a)) | (_U1 << np.uint64(b))
        black &= ~gap
        white &= ~gap
    s["stones"][0] = black
    s["stones"][1] = white
    s["board"] = board
    s["captures"][0] = 0
    s["captures"][1] = 0
    s["size"] = size
    s["to_move"] = BLACK
    s["phase"] = PHASE_BLACK_REMOVES if opening == OPENING_CLASSIC else PHASE_PLAY
    s["turning"] = turning
    s["scoring"] = scoring
    s["terminal"] = 0
    if s["phase"] == PHASE_PLAY:
        settle(s)


@kernel(inline="always")
def settle(s):
    """Ends the game if the player to move cannot jump and the rules say so (normal play: that
    player loses; capture scoring: only if the other player cannot jump either)."""
    me = s["to_move"]
    own = s["stones"][me]
    opp = s["stones"][1 - me]
    empty = _empty(s)
    if not _has_jump(own, opp, empty):
        if s["scoring"] == SCORING_LAST_MOVE or not _has_jump(opp, own, empty):
            s["terminal"] = 1


# ----------------------------------------------------------------------------------------------
# The contract


@kernel(inline="always")
def _straight_moves(own, opp, empty, out):
    """Straight moves: for each direction, the landing points after 1, 2 and 3 jumps (a move is
    named by its landing point: the stone came from 2k points back)."""
    n = 0
    for d in range(4):
        x = own
        for k in range(1, 4):
            x = _jump(x, d, opp, empty)
            if x == _U0:
                break
            tag = (d << 6) + ((k - 1) << 8) - 2 * k * DELTA[d]
            y = x
            while y:
                out[n] = lowest_bit_index(y) + tag
                n += 1
                y &= y - _U1
    return n


@kernel(inline="always")
def _jumpers(own, opp, empty):
    """A superset of the stones of ``own`` that can jump (east/west may let through a stone whose
    jump would wrap around the board's edge; the caller checks each jump)."""
    return own & (
        ((opp >> _U1) & (empty >> _U2))
        | ((opp << _U1) & (empty << _U2))
        | ((opp >> _U8) & (empty >> _U16))
        | ((opp << _U8) & (empty << _U16))
    )


@kernel
def _turning_moves(own, opp, empty, out):
    """Every path of every stone, depth-first (each prefix of a path is a move of its own).

    The search keeps no arrays: the directions taken so far are packed 2 bits a jump in
    ``taken``, enough to undo a jump on the way back (where the stone was, the stone it took).
    """
    n = 0
    stones = _jumpers(own, opp, empty)
    while stones:
        start = lowest_bit_index(stones)
        stones &= stones - _U1
        free = empty | (_U1 << np.uint64(start))  # its own point is empty once the stone leaves
        at = start
        left = opp  # opponent stones not jumped yet
        head = start  # the id of the path so far, without the jump count
        taken = 0
        depth = 0  # jumps made
        d = 0  # the next direction to try from ``at``
        while True:
            if d == 4:
                if depth == 0:
                    break
                depth -= 1
                d = (taken >> (2 * depth)) & 3
                at -= 2 * DELTA[d]
                left |= _U1 << np.uint64(at + DELTA[d])
                if depth == 0:
                    head = start
                else:
                    head &= ~(3 << (TURN_SHIFT + 2 * (depth - 1)))
                d += 1
                continue
            if _jump(_U1 << np.uint64(at), d, left, free) == _U0:
                d += 1
                continue
            if depth == 0:
                head = start | (d << 6)
            else:
                turn = (d - ((taken >> (2 * (depth - 1))) & 3)) & 3  # 1 left, 3 right
                head |= (turn ^ (turn >> 1)) << (TURN_SHIFT + 2 * (depth - 1))
            out[n] = head | (depth << 8)
            n += 1
            taken = (taken & ~(3 << (2 * depth))) | (d << (2 * depth))
            left &= ~(_U1 << np.uint64(at + DELTA[d]))
            at += 2 * DELTA[d]
            depth += 1
            d = 0
    return n


@kernel(inline="always")
def _removals(s, out):
    """The classic opening: black's stones at a corner or the centre, then white's stones next to
    the gap black made (the only empty point)."""
    if s["phase"] == PHASE_BLACK_REMOVES:
        candidates = s["stones"][0] & BB_OPENING[s["size"]]
    else:
        candidates = s["stones"][1] & _neighbours(_empty(s))
    n = 0
    while candidates:
        out[n] = REMOVE_BASE + lowest_bit_index(candidates)
        n += 1
        candidates &= candidates - _U1
    return n


@kernel(inline="always")
def move_capacity(s):
    """The most legal moves of any state of ``s``'s variant (contract.max_moves sizes the agents'
    move buffers with it): the turning bound of its size, or 4 straight moves per opponent
    stone; at least the 8 removals of the classic opening."""
    size = np.int64(s["size"])
    if s["turning"]:
        return max(TURNING_MAX_MOVES[size], 8)
    return max(4 * ((size * size + 1) // 2), 8)


@kernel(inline="always")
def legal_moves(s, out):
    """The legal moves in a fixed order: jumps (straight ones by direction, jump count, landing
    point; turning paths depth-first by stone), else PASS, or the opening's removals."""
    if s["terminal"]:
        return 0
    if s["phase"] != PHASE_PLAY:
        return _removals(s, out)
    me = s["to_move"]
    own = s["stones"][me]
    opp = s["stones"][1 - me]
    empty = _empty(s)
    if s["turning"]:
        n = _turning_moves(own, opp, empty, out)
    else:
        n = _straight_moves(own, opp, empty, out)
    if n == 0:
        # Not over, so the opponent can jump: this player passes (capture scoring only, since
        # under normal play a player without a jump has lost).
        out[0] = PASS
        n = 1
    return n


# ``illegal_reason`` codes of this game (its low 8 bits); a code about one jump of a path carries
# that jump's index (0 for the first) in the bits above: ``code | jump << 8``.
REASON_OPENING_FIRST = FIRST_GAME_REASON  # the classic opening's removals come first
REASON_OFF_BOARD = FIRST_GAME_REASON + 1  # the point named is not on this size of board
REASON_REMOVE_NOT_OWN = FIRST_GAME_REASON + 2  # a removal names no stone of the mover
REASON_REMOVE_NOT_OPENING_POINT = FIRST_GAME_REASON + 3  # black removes at a corner or the centre
REASON_REMOVE_NOT_NEXT_TO_GAP = FIRST_GAME_REASON + 4  # white removes next to black's gap
REASON_REMOVE_AFTER_OPENING = FIRST_GAME_REASON + 5  # removals belong to the classic opening
REASON_PASS_NORMAL_PLAY = FIRST_GAME_REASON + 6  # no passing under normal play (last-move)
REASON_PASS_WITH_JUMP = FIRST_GAME_REASON + 7  # a player with a jump must jump
REASON_START_EMPTY = FIRST_GAME_REASON + 8  # the path starts on an empty point
REASON_START_OPPONENT = FIRST_GAME_REASON + 9  # the path starts on an opponent stone
REASON_LEAVES_BOARD = FIRST_GAME_REASON + 10  # a jump lands off the board
REASON_JUMPS_BACK = FIRST_GAME_REASON + 11  # a jump goes straight back over the emptied point
REASON_TURNS = FIRST_GAME_REASON + 12  # a jump changes direction without turning_jumps
REASON_NOTHING_TO_JUMP = FIRST_GAME_REASON + 13  # no opponent stone next to the stone that way
REASON_LANDING_OCCUPIED = FIRST_GAME_REASON + 14  # a jump lands on a stone
REASON_STEP_SHIFT = 8


@kernel(inline="always")
def is_path_id(move):
    """True for ids that name a jump path (whether or not it is legal anywhere): straight paths of
    1-3 jumps below JUMP_IDS, and paths of 2-MAX_JUMPS jumps with a turn and nothing written past
    their last jump."""
    if move < 0 or move >= MOVE_BOUND:
        return False
    if move < JUMP_IDS:
        return True
    jumps = ((move >> 8) & 31) + 1
    return move >= (1 << TURN_SHIFT) and 2 <= jumps <= MAX_JUMPS and (move >> TURN_SHIFT) < (1 << (2 * (jumps - 1)))


@kernel(inline="always")
def _turn_code(move, j):
    """The turn code (0 straight, 1 left, 2 right, 3 back) of jump ``j >= 1`` of a path id."""
    return (move >> (TURN_SHIFT + 2 * (j - 1))) & 3


@kernel(inline="always")
def _turned(d, code):
    """The direction after a turn of ``code`` from direction ``d`` (quarter turns counter-clockwise)."""
    return (d + (code ^ (code >> 1))) & 3


@kernel
def write_path(move, squares, directions):
    """Follows the jump path ``move`` (a path id, whether or not it is legal anywhere; a turn code
    3 is followed straight back as written): writes the squares it visits, start first, into
    ``squares: int64[>=MAX_JUMPS + 1]`` and each jump's direction into ``directions:
    int64[>=MAX_JUMPS]``; returns the number of jumps. Squares may leave the board (and the
    word) where the path does."""
    at = move & 63
    d = (move >> 6) & 3
    jumps = ((move >> 8) & 31) + 1
    squares[0] = at
    for j in range(jumps):
        if j > 0:
            d = _turned(d, _turn_code(move, j))
        at += 2 * DELTA[d]
        squares[j + 1] = at
        directions[j] = d
    return jumps


@kernel
def segment(a, b):
    """``(direction, distance)`` from square ``a`` to square ``b`` along a row or a column
    (``distance`` in points; a straight run of jumps covers an even one), or ``(-1, 0)`` when they
    share neither."""
    rows = (b >> 3) - (a >> 3)
    cols = (b & 7) - (a & 7)
    if rows != 0 and cols != 0:
        return -1, 0
    if cols > 0:
        return 0, cols
    if rows > 0:
        return 1, rows
    if cols < 0:
        return 2, -cols
    return 3, -rows


@kernel
def path_id(squares, n):
    """The id of the jump path through ``squares[:n + 1]`` (start first; each square two points
    from the one before, orthogonally; ``1 <= n <= MAX_JUMPS`` jumps): the inverse of
    :func:`write_path`."""
    move = squares[0]
    previous = 0
    for j in range(n):
        step = (squares[j + 1] - squares[j]) // 2
        d = 0
        while DELTA[d] != step:
            d += 1
        if j == 0:
            move |= (d << 6) | ((n - 1) << 8)
        else:
            turn = (d - previous) & 3
            move |= (turn ^ (turn >> 1)) << (TURN_SHIFT + 2 * (j - 1))
        previous = d
    return move


@kernel(inline="always")
def _on_board(sq, size):
    return (sq & 7) < size and (sq >> 3) < size


@kernel(inline="always")
def illegal_reason(s, move):
    """Why ``move`` is not legal in ``s``: ``LEGAL``, a code of ``engines.contract`` or one of the
    ``REASON_*`` codes above (with the index of the failing jump above its low 8 bits)."""
    if s["terminal"]:
        return REASON_GAME_OVER
    is_removal = REMOVE_BASE <= move < PASS
    if move != PASS and not is_removal and not is_path_id(move):
        return REASON_NOT_A_MOVE
    size = np.int64(s["size"])
    me = s["to_move"]
    own = s["stones"][me]
    opp = s["stones"][1 - me]
    if s["phase"] != PHASE_PLAY:
        if not is_removal:
            return REASON_OPENING_FIRST
        sq = move - REMOVE_BASE
        if not _on_board(sq, size):
            return REASON_OFF_BOARD
        bit = _U1 << np.uint64(sq)
        if own & bit == _U0:
            return REASON_REMOVE_NOT_OWN
        if s["phase"] == PHASE_BLACK_REMOVES:
            if BB_OPENING[size] & bit == _U0:
                return REASON_REMOVE_NOT_OPENING_POINT
        elif _neighbours(_empty(s)) & bit == _U0:
            return REASON_REMOVE_NOT_NEXT_TO_GAP
        return LEGAL
    if is_removal:
        return REASON_REMOVE_AFTER_OPENING
    empty = _empty(s)
    if move == PASS:
        if s["scoring"] == SCORING_LAST_MOVE:
            return REASON_PASS_NORMAL_PLAY
        if _has_jump(own, opp, empty):
            return REASON_PASS_WITH_JUMP
        return LEGAL
    # A jump path: follow it as apply_move would, checking each jump.
    at = move & 63
    if not _on_board(at, size):
        return REASON_OFF_BOARD
    start = _U1 << np.uint64(at)
    if own & start == _U0:
        return REASON_START_OPPONENT if opp & start else REASON_START_EMPTY
    free = empty | start  # the stone's own point is empty once it leaves
    d = (move >> 6) & 3
    for j in range(((move >> 8) & 31) + 1):
        if j > 0:
            turn = _turn_code(move, j)
            if turn == 3:
                return REASON_JUMPS_BACK | (j << REASON_STEP_SHIFT)
            if turn != 0 and not s["turning"]:
                return REASON_TURNS | (j << REASON_STEP_SHIFT)
            d = _turned(d, turn)
        col = (at & 7) + 2 * (d == 0) - 2 * (d == 2)
        row = (at >> 3) + 2 * (d == 1) - 2 * (d == 3)
        if col < 0 or row < 0 or col >= size or row >= size:
            return REASON_LEAVES_BOARD | (j << REASON_STEP_SHIFT)
        over = _U1 << np.uint64(at + DELTA[d])
        if opp & over == _U0:
            return REASON_NOTHING_TO_JUMP | (j << REASON_STEP_SHIFT)
        at += 2 * DELTA[d]
        if free & (_U1 << np.uint64(at)) == _U0:
            return REASON_LANDING_OCCUPIED | (j << REASON_STEP_SHIFT)
        opp &= ~over
        free |= over
    return LEGAL


@kernel(inline="always")
def apply_move(s, move):
    """Plays ``move`` (legal, unchecked): a jump path, a pass or an opening removal."""
    me = s["to_move"]
    stones = s["stones"]
    if move < REMOVE_BASE or move >= (1 << TURN_SHIFT):
        start = move & 63
        d = (move >> 6) & 3
        jumps = ((move >> 8) & 31) + 1
        at = start
        captured = _U0
        for j in range(jumps):
            if j > 0:
                d = _turned(d, _turn_code(move, j))
            captured |= _U1 << np.uint64(at + DELTA[d])
            at += 2 * DELTA[d]
        # XOR: a path that comes back to its start point leaves the stone where it was.
        stones[me] ^= (_U1 << np.uint64(start)) ^ (_U1 << np.uint64(at))
        stones[1 - me] &= ~captured
        s["captures"][me] += jumps
        s["to_move"] = 1 - me
        settle(s)
    elif move == PASS:
        s["to_move"] = 1 - me
    else:
        stones[me] &= ~(_U1 << np.uint64(move - REMOVE_BASE))
        s["phase"] = s["phase"] + 1
        s["to_move"] = 1 - me
        if s["phase"] == PHASE_PLAY:
            settle(s)


@kernel(inline="always")
def is_terminal(s):
    return s["terminal"] != 0


@kernel(inline="always")
def current_player(s):
    return np.int64(s["to_move"])


@kernel(inline="always")
def score(s):
    """Stones captured by black minus stones captured by white (under either scoring rule)."""
    return np.int64(s["captures"][0]) - np.int64(s["captures"][1])


@kernel(inline="always")
def outcome(s):
    """Black's result at the end: by captures, or under normal play a loss for the player to move
    (the one who cannot jump)."""
    if s["scoring"] == SCORING_LAST_MOVE:
        return -1.0 if s["to_move"] == BLACK else 1.0
    margin = score(s)
    if margin > 0:
        return 1.0
    if margin < 0:
        return -1.0
    return 0.0


# Exact solving (agents/solver.py): the margin is the capture difference under capture scoring;
# under normal play the game has no margin (the outcome, 1 or -1, at the end).


def has_margin(s) -> bool:
    """Whether the variant of ``s`` is scored by a margin (capture scoring) or won by the last move."""
    return int(s["scoring"]) == SCORING_CAPTURES


@kernel(inline="always")
def margin(s):
    """Captures by black minus captures by white; under normal play 0 until the end, then the
    outcome."""
    if s["scoring"] == SCORING_LAST_MOVE:
        if not s["terminal"]:
            return np.int64(0)
        return np.int64(-1) if s["to_move"] == BLACK else np.int64(1)
    return score(s)


@kernel(inline="always")
def margin_bounds(s):
    """A player can still capture at most the opponent's stones on the board; normal play: -1..1."""
    if s["scoring"] == SCORING_LAST_MOVE:
        return np.int64(-1), np.int64(1)
    return -popcount(s["stones"][0]), popcount(s["stones"][1])


@kernel(inline="always")
def solve_key(s):
    """The position without the capture counts (the future never depends on them)."""
    h = mix64(s["stones"][0] ^ np.uint64(0xBB67_AE85_84CA_A73B))
    h = mix64(h ^ s["stones"][1])
    tail = np.uint64(s["to_move"]) | (np.uint64(s["phase"]) << _U8) | (np.uint64(s["terminal"]) << _U16)
    return mix64(h ^ tail)


# Heuristic weights: under capture scoring a point is a point, and a first jump available is
# worth a quarter of one (it may be answered); under normal play only mobility counts.
MOBILITY_WEIGHT = 0.25
HEURISTIC_SCALE = 4.0


@kernel(inline="always")
def heuristic(s):
    """Black's view of the position in (-1, 1): x / (|x| + 4) with x the capture difference plus
    a quarter of the mobility difference (first jumps available to each player), or the mobility
    difference alone under normal play."""
    black = s["stones"][0]
    white = s["stones"][1]
    empty = _empty(s)
    mobility = np.float64(_mobility(black, white, empty) - _mobility(white, black, empty))
    if s["scoring"] == SCORING_LAST_MOVE:
        x = mobility
    else:
        x = np.float64(score(s)) + MOBILITY_WEIGHT * mobility
    return x / (abs(x) + HEURISTIC_SCALE)


@kernel(inline="always")
def state_hash(s):
    h = mix64(s["stones"][0] ^ np.uint64(0x6A09_E667_F3BC_C909))
    h = mix64(h ^ s["stones"][1])
    tail = (
        np.uint64(s["captures"][0])
        | (np.uint64(s["captures"][1]) << _U8)
        | (np.uint64(s["to_move"]) << np.uint64(16))
        | (np.uint64(s["phase"]) << np.uint64(24))
        | (np.uint64(s["terminal"]) << np.uint64(32))
        | (np.uint64(s["size"]) << np.uint64(40))
        | (np.uint64(s["turning"]) << np.uint64(48))
        | (np.uint64(s["scoring"]) << np.uint64(56))
    )
    return mix64(h ^ tail)


# ----------------------------------------------------------------------------------------------
# Learning: the observation tensor, the restart of a finished game and the action table.

OBSERVATION_PLANES = 6


@kernel(inline="always")
def write_observation(s, player, out):
    """``player``'s view as ``out: float32[6 * size * size]`` (shape ``(6, size, size)``
    flattened; rows from the top as ``render`` draws them, columns from the left), planes: 0 the
    player's stones, 1 the opponent's stones, 2 the empty points, 3 ones if the player is Black,
    4 ones while the classic opening's removals are played, 5 the capture margin (the player's
    captures minus the opponent's) over the number of points."""
    size = np.int64(s["size"])
    area = size * size
    own = s["stones"][player]
    opp = s["stones"][1 - player]
    empty = _empty(s)
    black = np.float32(1.0) if player == BLACK else np.float32(0.0)
    opening = np.float32(1.0) if s["phase"] != PHASE_PLAY else np.float32(0.0)
    margin = np.float32((np.int64(s["captures"][player]) - np.int64(s["captures"][1 - player])) / area)
    for i in range(size):
        row = size - 1 - i
        for col in range(size):
            bit = _U1 << np.uint64(8 * row + col)
            k = i * size + col
            out[k] = np.float32(1.0) if own & bit else np.float32(0.0)
            out[area + k] = np.float32(1.0) if opp & bit else np.float32(0.0)
            out[2 * area + k] = np.float32(1.0) if empty & bit else np.float32(0.0)
            out[3 * area + k] = black
            out[4 * area + k] = opening
            out[5 * area + k] = margin


@kernel(inline="always")
def redraw_start(s, rng, code):
    """A new start in ``s`` (a copy of a start of its variant) with the opening ``code``
    (OPENING_*) drawn from ``rng``."""
    init_state(s, np.int64(s["size"]), np.int64(s["turning"]), np.int64(s["scoring"]), code, rng)


@kernel
def jump_paths(size, turning, start, out):
    """Every jump move that a stone on ``start`` could ever make on a ``size`` board (writes move
    ids into ``out``, returns the count; the action table lists them): the moves of that stone
    alone among the points of its lattice (the points an even number of rows and columns away),
    every other point holding an opponent stone, which is the position with the most moves (see
    MAX_MOVES). ``turning``: every path, depth-first; else the straight jumps by direction and
    number of jumps."""
    board = BB_BOARD[size]
    lattice = _U0
    for sq in range(64):
        if ((sq >> 3) - (start >> 3)) % 2 == 0 and ((sq & 7) - (start & 7)) % 2 == 0:
            lattice |= _U1 << np.uint64(sq)
    lattice &= board
    own = _U1 << np.uint64(start)
    if turning:
        return _turning_moves(own, board & ~lattice, lattice & ~own, out)
    return _straight_moves(own, board & ~lattice, lattice & ~own, out)
