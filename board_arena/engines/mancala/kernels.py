"""Mancala kernels: Kalah-like sowing games on two rows of ``pits`` pits (1..8) with two stores.

Rules: ``docs/games/mancala.md`` and text 004 (BrainKing's Mancala). Moves are the index
of a pit in the mover's own row counted from the mover's left, 0..pits-1 (the same ids for both
players), so ``MOVE_BOUND = 8``.

State layout: each row is one uint64 word with one byte per pit (SWAR, "SIMD within a register"),
so that sowing a run of pits is one addition of a mask of 0x01 bytes, and an empty row is a zero
word. Byte ``j`` of ``rows[p]`` holds the seeds of player ``p``'s pit ``j`` counted from that
player's left; the stores are separate. No pit ever holds 256 seeds (at most 2*8*10 = 160 exist).
Drawn for 6 pits, South (player 0) below, sowing counter-clockwise::

                 rows[1]: byte 5   4   3   2   1   0
      stores[1]                                        stores[0]
                 rows[0]: byte 0   1   2   3   4   5

A sowing from pit ``j`` visits the mover's pits ``j+1..P-1``, the mover's store, the opponent's
pits ``0..P-1``, the mover's pits ``0..P-1`` and so on (``2P+1`` cells a lap, the opponent's store
skipped). The pit opposite the mover's pit ``j`` is the opponent's pit ``P-1-j``.
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
from board_arena.kernels import (
    FAST_PDEP,
    bits_below,
    kernel,
    lowest_bit_index,
    mix64,
    nth_set_bit,
    popcount,
    rng_below,
    rng_step,
)

MAX_PITS = 8
MAX_MOVES = MAX_PITS
MOVE_BOUND = MAX_PITS

CAPTURE_OPPOSITE = 0  # text 004: the opposite pit's seeds go to the store, the last seed stays
CAPTURE_KALAH = 1  # Kalah: the opposite pit's seeds and the last seed go to the store

STATE_DTYPE = state_dtype(
    [
        ("rows", np.uint64, (2,)),  # one byte per pit, layout above
        ("stores", np.int16, (2,)),
        ("pits", np.int8),  # pits per row, P
        ("to_move", np.int8),  # 0 South, 1 North
        ("capture", np.int8),  # CAPTURE_OPPOSITE or CAPTURE_KALAH
        ("empty_capture", np.int8),  # 1: the capture rule fires on an empty opposite pit too
        ("terminal", np.int8),  # 1 once a row is empty and the remaining seeds are swept
    ]
)

# BYTE_ONES[n]: 0x01 in each of the n low bytes (a run of pits j..k-1 is BYTE_ONES[k] - BYTE_ONES[j]).
BYTE_ONES = np.array([sum(1 << (8 * i) for i in range(n)) for n in range(9)], dtype=np.uint64)
_LOW_BITS = np.uint64(0x0101_0101_0101_0101)
_HIGH_BITS = np.uint64(0x8080_8080_8080_8080)
_BYTE = np.uint64(0xFF)
_U1 = np.uint64(1)
_U56 = np.uint64(56)
_U7 = np.uint64(7)
_SEVEN_BITS = np.uint64(0x7F7F_7F7F_7F7F_7F7F)
_ALL_BITS = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_U8 = np.uint64(8)


@kernel(inline="always")
def _pit(row, j):
    """Seeds in pit ``j`` of a row word."""
    return np.int64((row >> np.uint64(8 * j)) & _BYTE)


@kernel(inline="always")
def row_sum(row):
    """Seeds in a row: the byte sum lands in the top byte (no carry: a row holds < 256)."""
    return np.int64((row * _LOW_BITS) >> _U56)


@kernel(inline="always")
def nonempty_pits(row):
    """Bit 8j is set iff pit j holds seeds: adding 0x7F to each byte's low seven bits carries
    into its high bit iff they are not all zero (no carry leaves the byte), OR the byte's own
    high bit; four operations in a row, where folding the byte's bits took seven."""
    return ((((row & _SEVEN_BITS) + _SEVEN_BITS) | row) & _HIGH_BITS) >> _U7


@kernel
def init_state(s, pits, seeds, capture, empty_capture):
    """Fills ``s`` with the start position: ``seeds`` in each of the ``2*pits`` pits, South to move."""
    full = BYTE_ONES[pits] * np.uint64(seeds)
    s["rows"][0] = full
    s["rows"][1] = full
    s["stores"][0] = 0
    s["stores"][1] = 0
    s["pits"] = pits
    s["to_move"] = 0
    s["capture"] = capture
    s["empty_capture"] = empty_capture
    s["terminal"] = 0


@kernel(inline="always")
def legal_moves(s, out):
    """The non-empty pits of the mover's row (ids 0..pits-1 from the mover's left)."""
    if s["terminal"]:
        return 0
    nonempty = nonempty_pits(s["rows"][s["to_move"]])
    n = 0
    while nonempty:
        out[n] = lowest_bit_index(nonempty) >> 3
        nonempty &= nonempty - _U1
        n += 1
    return n


#: ``illegal_reason`` code of this game: the pit is empty.
REASON_EMPTY_PIT = FIRST_GAME_REASON


@kernel(inline="always")
def illegal_reason(s, move):
    """Why ``move`` is not legal in ``s`` (``LEGAL`` when it is; codes in ``engines.contract``)."""
    if s["terminal"]:
        return REASON_GAME_OVER
    if move < 0 or move >= s["pits"]:
        return REASON_NOT_A_MOVE
    if _pit(s["rows"][s["to_move"]], move) == 0:
        return REASON_EMPTY_PIT
    return LEGAL


@kernel(inline="always")
def ones_below(n, pits):
    """``BYTE_ONES[n]`` (0 <= n <= pits) computed in registers, where a table lookup would add a
    load to the sowing's chain: one shift, or two on the 8-pit board, whose ``n = 8`` would shift
    by the word's width (``pits`` is a constant where the code is specialised for a board)."""
    if pits < MAX_PITS:
        return _LOW_BITS & ((_U1 << np.uint64(8 * n)) - _U1)
    half = np.uint64(4 * (MAX_PITS - n))
    return (_LOW_BITS >> half) >> half


@kernel(inline="always")
def _sow(mine, theirs, move, pits, capture, empty_capture):
    """Sows the mover's pit ``move`` and applies a capture, on the two row words (the mover's,
    the opponent's) held in registers: the one home of the sowing rules, for ``apply_move`` and
    ``random_playout``. Returns ``(mine, theirs, banked, extra_turn)``: the rows after the move,
    the seeds it puts in the mover's store, and whether its last seed landed there.

    Without a branch but for whole laps: in a random game, which of the sowing's runs a move
    reaches and whether it captures are coin flips, and mispredicted branches cost more than
    computing every run (the random playouts gain; a search, whose moves are less random,
    loses a little). The cells of a lap are numbered from the mover's pit 0: its pits ``0..P-1``,
    its store ``P``, the opponent's pits ``P+1..2P``, and ``2P+1..`` for its own pits again; the
    last seed falls in cell ``move + seeds`` and every run is a mask of 0x01 bytes cut from that
    number."""
    shift = np.uint64(8 * move)
    seeds = np.int64((mine >> shift) & _BYTE)
    mine &= ~(_BYTE << shift)
    banked = 0

    # Whole laps (2P+1 seeds or more, rare) drop one seed in every cell but the opponent's store
    # and end back in the starting pit.
    lap = 2 * pits + 1
    if seeds >= lap:
        laps = seeds // lap
        seeds -= laps * lap
        mine += BYTE_ONES[pits] * np.uint64(laps)
        theirs += BYTE_ONES[pits] * np.uint64(laps)
        banked += laps
    # The rest, in at most four runs: own pits after the start, own store, opponent's pits, own
    # pits from the left.
    last = move + seeds
    mine += ((_LOW_BITS << shift) << _U8) & ones_below(min(last, pits - 1) + 1, pits)
    banked += last >= pits
    theirs += ones_below(min(max(last - pits, 0), pits), pits)
    mine += ones_below(max(last - 2 * pits, 0), pits)

    # The last seed in an own pit that was empty before it captures the opposite pit. The pit
    # numbers are wrapped into 0..7 so that every shift is defined; they matter only when the
    # last seed is in an own pit.
    last_pit = last - lap if last >= lap else last
    in_own_pit = (last < pits) | (last >= lap)
    last_shift = np.uint64(8 * (last_pit & 7))
    opposite_shift = np.uint64(8 * ((pits - 1 - last_pit) & 7))
    taken = np.int64((theirs >> opposite_shift) & _BYTE)
    kalah = capture == CAPTURE_KALAH
    captures = in_own_pit & ((mine >> last_shift) & _BYTE == _U1) & ((taken > 0) | (kalah & (empty_capture != 0)))
    # Masks of all ones or zeros (a multiplication by 0 or 1, which the compiler makes a negation).
    if_captures = _ALL_BITS * np.uint64(captures)
    banked += (taken + kalah) * captures  # Kalah banks the capturing seed too
    theirs &= ~((_BYTE << opposite_shift) & if_captures)
    mine &= ~((_BYTE << last_shift) & if_captures & (_ALL_BITS * np.uint64(kalah)))
    return mine, theirs, banked, last == pits


@kernel(inline="always")
def apply_move(s, move):
    """Sows the mover's pit ``move``, then extra turn, capture and the end-of-game sweep."""
    me = np.int64(s["to_move"])
    mine, theirs, banked, extra_turn = _sow(
        s["rows"][me], s["rows"][1 - me], move, np.int64(s["pits"]), s["capture"], s["empty_capture"]
    )
    stores = s["stores"]
    stores[me] += banked
    if mine == 0 or theirs == 0:
        stores[me] += row_sum(mine)
        stores[1 - me] += row_sum(theirs)
        mine = np.uint64(0)
        theirs = np.uint64(0)
        s["terminal"] = 1
    elif not extra_turn:
        s["to_move"] = 1 - me
    s["rows"][me] = mine
    s["rows"][1 - me] = theirs


@kernel(inline="always")
def broadword_nth_nonempty_pit(nonempty, k):
    """The pit of the ``k``-th (from 0) set bit of a ``nonempty_pits`` word, without a loop:
    byte j of ``nonempty * 0x0101...`` counts the non-empty pits 0..j (at most 8, no carry), and
    the pit sought is the number of bytes whose count is at most ``k`` (SWAR compare: the high
    bit of ``(count | 0x80) - (k + 1)`` is set iff count > k)."""
    counts = nonempty * _LOW_BITS
    above = ((counts | _HIGH_BITS) - _LOW_BITS * np.uint64(k + 1)) & _HIGH_BITS
    return popcount(~above & _HIGH_BITS)


if FAST_PDEP:

    @kernel(inline="always")
    def nth_nonempty_pit(nonempty, k):
        """The pit of the ``k``-th (from 0) set bit of a ``nonempty_pits`` word: ``pdep``'s select
        (:func:`nth_set_bit`), a chain of four operations where the broadword one has six."""
        return nth_set_bit(nonempty, k) >> 3

else:
    nth_nonempty_pit = broadword_nth_nonempty_pit


@kernel(inline="always")
def random_legal_move(s, rng, scratch):
    """``legal_moves``' move at index ``rng_below(rng, n)``, from the row word without a list."""
    nonempty = nonempty_pits(s["rows"][s["to_move"]])
    return nth_nonempty_pit(nonempty, rng_below(rng, popcount(nonempty)))


#: The board whose playouts are compiled with the pit count and the capture rule constants (both
#: presets, Kalah and text 004's Mancala, play on it): the sowing's bounds, its lap length and
#: its capture's masks then fold into the code.
STANDARD_PITS = 6


@kernel(inline="always")
def random_playout(s, rng, scratch):
    """``random_legal_move`` and ``apply_move`` to the end, move for move, with the two rows, the
    stores and the generator in registers (:func:`_playout`). The presets' loops are copies
    compiled for their board and rules, faster than the one that reads them from the record
    (constant bounds and masks fold into the code). Returns the plies."""
    if s["terminal"]:
        return 0
    if s["pits"] == STANDARD_PITS and not s["empty_capture"]:
        if s["capture"] == CAPTURE_KALAH:
            return _playout(s, rng, STANDARD_PITS, CAPTURE_KALAH, 0)
        return _playout(s, rng, STANDARD_PITS, CAPTURE_OPPOSITE, 0)
    return _playout(s, rng, np.int64(s["pits"]), s["capture"], s["empty_capture"])


@kernel(inline="always")
def _playout(s, rng, pits, capture, empty_capture):
    """``random_playout``'s loop on a board of ``pits`` pits with the given capture rule
    (constants where it is inlined with them): the mover's row first (the rows swap when the turn
    passes); the record and ``rng`` are written once, at the end."""
    me = np.int64(s["to_move"])
    mine = s["rows"][me]
    theirs = s["rows"][1 - me]
    my_store = np.int64(s["stores"][me])
    their_store = np.int64(s["stores"][1 - me])
    x = rng[0]
    plies = 0
    while True:
        x, bits = rng_step(x)
        nonempty = nonempty_pits(mine)
        move = nth_nonempty_pit(nonempty, bits_below(bits, popcount(nonempty)))
        mine, theirs, banked, extra_turn = _sow(mine, theirs, move, pits, capture, empty_capture)
        my_store += banked
        plies += 1
        if mine == 0 or theirs == 0:
            break
        if not extra_turn:
            mine, theirs = theirs, mine
            my_store, their_store = their_store, my_store
            me = 1 - me
    s["stores"][me] = my_store + row_sum(mine)
    s["stores"][1 - me] = their_store + row_sum(theirs)
    s["rows"][0] = 0
    s["rows"][1] = 0
    s["to_move"] = me
    s["terminal"] = 1
    rng[0] = x
    return plies


@kernel(inline="always")
def is_terminal(s):
    return s["terminal"] != 0


@kernel(inline="always")
def current_player(s):
    return np.int64(s["to_move"])


@kernel(inline="always")
def score(s):
    """South's store minus North's store."""
    return np.int64(s["stores"][0]) - np.int64(s["stores"][1])


@kernel(inline="always")
def outcome(s):
    margin = score(s)
    if margin > 0:
        return 1.0
    if margin < 0:
        return -1.0
    return 0.0


@kernel(inline="always")
def heuristic(s):
    """Store difference over the seeds in play (strictly inside (-1, 1))."""
    total = row_sum(s["rows"][0]) + row_sum(s["rows"][1]) + s["stores"][0] + s["stores"][1]
    return score(s) / (total + 1.0)


@kernel(inline="always")
def state_hash(s):
    h = mix64(s["rows"][0] ^ np.uint64(0x6A09_E667_F3BC_C909))
    h = mix64(h ^ s["rows"][1])
    tail = np.uint64(s["stores"][0]) | (np.uint64(s["stores"][1]) << np.uint64(16))
    return mix64(h ^ tail ^ (np.uint64(s["to_move"]) << np.uint64(32)))


# ----------------------------------------------------------------------------------------------
# Exact solving (agents/solver.py): the margin, its bounds, the key of a position without its
# stores, and the endgame database lookup (built by engines/mancala/endgame.py).


@kernel(inline="always")
def margin(s):
    """South's store minus North's: the final margin once the game is over."""
    return np.int64(s["stores"][0]) - np.int64(s["stores"][1])


@kernel(inline="always")
def margin_bounds(s):
    """Seeds never leave a store: from here the margin changes by at most the seeds on the board
    either way (so a store holding more than half of all seeds decides the game)."""
    board = row_sum(s["rows"][0]) + row_sum(s["rows"][1])
    return -board, board


@kernel(inline="always")
def solve_key(s):
    """The rows and the player to move: the rules never look at the stores, so the change of the
    margin from a position on does not depend on them."""
    h = mix64(s["rows"][0] ^ np.uint64(0x3C6E_F372_FE94_F82B))
    h = mix64(h ^ s["rows"][1])  # every byte of a row can be a pit (8 pits): mixed in alone
    return mix64(h ^ (np.uint64(s["to_move"]) | (np.uint64(s["terminal"]) << np.uint64(1))))


# The endgame database of a variant (pits, capture rule) holds, for every position with at most
# k seeds on the board, the change of the margin from there to the end under perfect play, from
# the side of the player to move, as int8. A position is the mover's row then the opponent's row
# (2P cells, each from its owner's left); with n seeds on the board it sits at
# level_offset(n) + its rank among the compositions of n into 2P cells in lexicographic order.
MAX_DB_CELLS = 2 * MAX_PITS
MAX_DB_SEEDS = 63


def _compositions_table():
    from math import comb

    ways = np.zeros((MAX_DB_CELLS + 2, MAX_DB_SEEDS + 2), dtype=np.int64)
    for cells in range(1, MAX_DB_CELLS + 2):
        for n in range(MAX_DB_SEEDS + 2):
            ways[cells, n] = comb(n + cells - 1, cells - 1)
    return ways


#: COMPOSITIONS[c, n]: the ways to put n seeds in c cells, C(n + c - 1, c - 1).
COMPOSITIONS = _compositions_table()


@kernel(inline="always")
def level_offset(cells, n):
    """Positions with fewer than ``n`` seeds on ``cells`` cells: C(n - 1 + cells, cells)."""
    return COMPOSITIONS[cells + 1, n - 1] if n > 0 else np.int64(0)


@kernel(inline="always")
def rank_position(mover, other, pits, n):
    """The rank of (mover's row, opponent's row) among the positions with ``n`` seeds on the
    board: the lexicographic rank of its composition (the count of compositions whose first
    differing cell is smaller, C(rest, cells left) - C(rest - c, cells left) per cell)."""
    cells = 2 * pits
    rank = np.int64(0)
    rest = n
    for i in range(cells - 1):
        c = _pit(mover, i) if i < pits else _pit(other, i - pits)
        if c > 0:
            rank += COMPOSITIONS[cells - i, rest] - COMPOSITIONS[cells - i, rest - c]
            rest -= c
            if rest == 0:
                break
    return rank


@kernel(inline="always")
def endgame_value(s, db, k):
    """The database's value of ``s`` (change of the margin to the end, mover's view), or
    ``NO_ENDGAME_VALUE`` when ``s`` has more than ``k`` seeds on the board."""
    me = s["to_move"]
    mover = s["rows"][me]
    other = s["rows"][1 - me]
    n = row_sum(mover) + row_sum(other)
    if n > k:
        return NO_ENDGAME_VALUE
    pits = np.int64(s["pits"])
    return np.int64(db[level_offset(2 * pits, n) + rank_position(mover, other, pits, n)])


def pit_counts(s) -> tuple[list[int], list[int]]:
    """(South's pits, North's pits), each from its owner's left (plain Python, for the face)."""
    pits = int(s["pits"])
    rows = [int(s["rows"][p]) for p in (0, 1)]
    south, north = ([(rows[p] >> (8 * j)) & 0xFF for j in range(pits)] for p in (0, 1))
    return south, north


# ----------------------------------------------------------------------------------------------
# Learning: the observation tensor and the restart of a finished game.


@kernel(inline="always")
def write_observation(s, player, out):
    """``player``'s view of the board as ``out: float32[2 * (pits + 1)]`` (shape ``(2, pits + 1)``
    flattened): row 0 the player's pits from their left, then their store; row 1 the opponent's
    pits from the opponent's left, then the opponent's store. Seed counts, unscaled."""
    pits = np.int64(s["pits"])
    mine = s["rows"][player]
    theirs = s["rows"][1 - player]
    for j in range(pits):
        out[j] = np.float32(_pit(mine, j))
        out[pits + 1 + j] = np.float32(_pit(theirs, j))
    out[pits] = np.float32(s["stores"][player])
    out[2 * pits + 1] = np.float32(s["stores"][1 - player])


@kernel(inline="always")
def redraw_start(s, rng, code):
    """Draws the random parts of a start position copied into ``s``: Mancala has none."""
    return None
