"""The positions of the morris databases and where each one's value is stored: the board's
symmetries, a perfect index within a sector, and the layout of a database array.

A position of the databases has no cows in hand; it is the mover's cows ``x`` and the
opponent's ``y`` (bitboards), the mover to move: after placing, the rules treat White and Black
alike, so one entry serves both. A *sector* ``(m, o)`` holds every such position with ``m`` cows
of the mover and ``o`` of the opponent, both at least 3.

**Symmetries.** The board has 16: the four rotations, the mirror images, and each of those with
the inner and outer squares swapped; the diagonals (Morabaraba) map onto diagonals under every
one. A position is stored once for all its images: its *canonical* form is the image ``(x', y')``
smallest in ``x'``, then in ``y'``. The index of a position of sector ``(m, o)`` is then
``class(x') * C(24 - m, o) + rank(y')``: ``class`` numbers the canonical forms of ``m``-cow sets
in order (a table per ``m``, stored in the database), and ``rank`` is ``y'``'s rank among the
``o``-subsets of the points that ``x'`` leaves empty (the combinatorial number system). A few
indices (those of a symmetric ``x'`` with a ``y'`` that is not the smallest of its images) hold no
position: the builder gives them the code NO_POSITION, which no lookup reaches.

**A database array** (``int8``): a header of :data:`HEADER_WORDS` int64 words (the variant, the
byte offset of each class table and each sector, a bound on the length of the rest of a game per
stones on the board), the class tables (``int32``), then the sectors, one ``int16`` code a
position, low byte first (:mod:`engines.morabaraba.retrograde` says what a code means). Everything that the compiled
lookup needs is inside the array, so that a search reads it through the game contract's
``endgame_value(s, db, k)``.
"""

from __future__ import annotations

import numpy as np

from board_arena.engines.morabaraba.board import LINES, N_POINTS, RING_POINTS, lines_of
from board_arena.kernels import kernel, lowest_bit_index, nth_set_bit, popcount

__all__ = ["LOST_NOW", "MAX_DISTANCE", "NO_CODE", "NO_POSITION", "code_result", "code_at", "SYMMETRIES", "N_SYMMETRIES", "BINOMIAL", "symmetric", "canonical", "rank_of", "index_of", "set_of_rank",
           "HEADER_WORDS", "HEADER_BYTES", "MAX_STONES_PER_SIDE"]

#: The code of a position whose mover has no legal move (see :mod:`engines.morabaraba.retrograde`).
LOST_NOW = -(1 << 15)
#: The code of an index that holds no position (see "Symmetries" above).
NO_POSITION = -(1 << 15) + 1
#: The longest distance a code holds.
MAX_DISTANCE = (1 << 15) - 2
#: What :func:`code_at` returns for a position that the database does not hold.
NO_CODE = 1 << 20

N_SYMMETRIES = 16
#: Sectors exist for 3..12 cows a side (Morabaraba's 12 at most).
MAX_STONES_PER_SIDE = 12


def _symmetries() -> np.ndarray:
    """The 16 symmetries as permutations of the points (identity first). On the rings' layout
    (``board.RING_POINTS``: point ``i`` of ring ``r``, clockwise from its top-left corner, corners
    even) a rotation adds 2 to ``i``, the mirror negates it and the swap maps ring ``r`` to
    ``2 - r``."""
    ring_of = {int(p): divmod(b, 8) for b, p in enumerate(RING_POINTS)}
    perms = []
    for swap in (0, 1):
        for mirror in (0, 1):
            for turn in range(4):
                perm = np.zeros(N_POINTS, np.int64)
                for p, (r, i) in ring_of.items():
                    i2 = ((-i if mirror else i) + 2 * turn) % 8
                    perm[p] = RING_POINTS[8 * (2 - r if swap else r) + i2]
                perms.append(perm)
    for diagonals in (False, True):
        lines = {frozenset(line) for line in lines_of(diagonals)}
        assert all({frozenset(int(perm[p]) for p in line) for line in lines} == lines for perm in perms)
    assert len({tuple(p) for p in perms}) == N_SYMMETRIES and list(perms[0]) == list(range(N_POINTS))
    return np.array(perms)


SYMMETRIES = _symmetries()  # int64[16, 24]: point p goes to SYMMETRIES[s, p]


def _byte_tables() -> np.ndarray:
    table = np.zeros((N_SYMMETRIES, 3, 256), np.uint64)
    for s in range(N_SYMMETRIES):
        for byte in range(3):
            for value in range(256):
                table[s, byte, value] = sum(1 << int(SYMMETRIES[s, 8 * byte + i]) for i in range(8) if value >> i & 1)
    return table


_SYMMETRY_BYTES = _byte_tables()  # uint64[16, 3, 256]: the image of each byte of a board


def _binomials() -> np.ndarray:
    table = np.zeros((N_POINTS + 2, N_POINTS + 2), np.int64)
    for n in range(N_POINTS + 2):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


BINOMIAL = _binomials()  # int64[26, 26]: BINOMIAL[n, k] = C(n, k)

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_BYTE = np.uint64(0xFF)
_ALL = np.uint64((1 << N_POINTS) - 1)


@kernel(inline="always")
def symmetric(bb, s):
    """The image of bitboard ``bb`` under symmetry ``s``."""
    return (_SYMMETRY_BYTES[s, 0, bb & _BYTE] | _SYMMETRY_BYTES[s, 1, (bb >> np.uint64(8)) & _BYTE]
            | _SYMMETRY_BYTES[s, 2, (bb >> np.uint64(16)) & _BYTE])


@kernel(inline="always")
def canonical(x, y):
    """The canonical form of position ``(x, y)``: its image smallest in ``x``, then ``y``."""
    best_x = x
    best_y = y
    for s in range(1, N_SYMMETRIES):
        sx = symmetric(x, s)
        if sx < best_x:
            best_x = sx
            best_y = symmetric(y, s)
        elif sx == best_x:
            sy = symmetric(y, s)
            if sy < best_y:
                best_y = sy
    return best_x, best_y


@kernel(inline="always")
def rank_of(bb):
    """The rank of the set ``bb`` among the sets of as many points (colexicographic order)."""
    rank = np.int64(0)
    j = 1
    while bb != _U0:
        rank += BINOMIAL[lowest_bit_index(bb), j]
        bb &= bb - _U1
        j += 1
    return rank


@kernel(inline="always")
def set_of_rank(rank, k):
    """The ``k``-point set of the given colexicographic rank (inverse of :func:`rank_of`)."""
    bb = _U0
    for j in range(k, 0, -1):
        p = j - 1
        while BINOMIAL[p + 1, j] <= rank:
            p += 1
        rank -= BINOMIAL[p, j]
        bb |= _U1 << np.uint64(p)
    return bb


@kernel(inline="always")
def _rank_within(y, free):
    """The rank of ``y`` (a subset of ``free``) among the same-size subsets of ``free``: ``y``
    renumbered onto ``free``'s points in order, then ranked."""
    rank = np.int64(0)
    j = 1
    while y != _U0:
        below = (_U1 << np.uint64(lowest_bit_index(y))) - _U1
        rank += BINOMIAL[np.int64(popcount(free & below)), j]
        y &= y - _U1
        j += 1
    return rank


@kernel(inline="always")
def spread(compact, free):
    """The subset of ``free`` whose renumbering onto ``free``'s points is ``compact``."""
    out = _U0
    while compact != _U0:
        out |= _U1 << np.uint64(nth_set_bit(free, lowest_bit_index(compact)))
        compact &= compact - _U1
    return out


@kernel(inline="always")
def index_of(x, y, classes, class_base):
    """The index within its sector of position ``(x, y)`` (mover ``x``): ``classes`` (int32) from
    ``class_base`` on is the class table of ``popcount(x)``-cow sets."""
    cx, cy = canonical(x, y)
    m = np.int64(popcount(cx))
    o = np.int64(popcount(cy))
    cls = np.int64(classes[class_base + rank_of(cx)])
    return cls * BINOMIAL[N_POINTS - m, o] + _rank_within(cy, _ALL & ~cx)


@kernel
def class_table(m):
    """The class table of ``m``-cow sets: for each set (by rank) the number of its canonical form
    among the canonical forms in rank order (int32), and the canonical forms (uint64)."""
    n = BINOMIAL[N_POINTS, m]
    canon_rank = np.empty(n, np.int64)
    for r in range(n):
        bb = set_of_rank(r, m)
        best = bb
        for s in range(1, N_SYMMETRIES):
            image = symmetric(bb, s)
            if image < best:
                best = image
        canon_rank[r] = rank_of(best)
    number = np.full(n, -1, np.int32)
    count = 0
    for r in range(n):
        if canon_rank[r] == r:
            number[r] = count
            count += 1
    forms = np.empty(count, np.uint64)
    classes = np.empty(n, np.int32)
    for r in range(n):
        classes[r] = number[canon_rank[r]]
        if canon_rank[r] == r:
            forms[number[r]] = set_of_rank(r, m)
    return classes, forms


# The header of a database array: int64 words.
H_MAGIC = 0
H_VERSION = 1
H_STONES = 2  # the most cows on the board of the positions it holds
H_DIAGONALS = 3
H_FLYING = 4
H_THREE_COW = 5  # the three-cow draw's limit (0: no such rule)
H_FULL_BOARD_DRAW = 6
H_MOST_PER_SIDE = 7
H_BOUND = 8  # [t] for t = 0..24: plies within which a game from t stones ends under perfect play
H_CLASS_TABLE = H_BOUND + N_POINTS + 1  # [m] for m = 0..12: byte offset of the class table, -1: none
H_SECTOR = H_CLASS_TABLE + MAX_STONES_PER_SIDE + 1  # [13 m + o]: byte offset of sector (m, o), -1: none
HEADER_WORDS = H_SECTOR + (MAX_STONES_PER_SIDE + 1) ** 2 + 1
HEADER_BYTES = 8 * HEADER_WORDS
#: The first header word of every morris database array.
MAGIC = 0x4D4F_5252_4953_4442  # "MORRISDB"

assert len(LINES) == 20


@kernel(inline="always")
def code_result(code, counter, limit):
    """The result (1 win, 0 draw, -1 loss, for the mover) of a position of ``code`` whose
    three-cow counter stands at ``counter`` under a limit ``limit`` (0: the counter does not run)."""
    if code == LOST_NOW:
        return -1
    if code == 0:
        return 0
    d = code if code > 0 else -code
    if limit > 0 and d > limit - counter:
        return 0
    return 1 if code > 0 else -1


@kernel(inline="always")
def header_of(db):
    """The header words of database array ``db``."""
    return db[:HEADER_BYTES].view(np.int64)


@kernel(inline="always")
def code_at(db, x, y):
    """The code of position ``(x, y)`` (mover ``x``) in database array ``db``, or NO_CODE."""
    words = header_of(db)
    m = np.int64(popcount(x))
    o = np.int64(popcount(y))
    if m < 3 or o < 3 or m > MAX_STONES_PER_SIDE or o > MAX_STONES_PER_SIDE or m + o > words[H_STONES]:
        return NO_CODE
    sector = words[H_SECTOR + (MAX_STONES_PER_SIDE + 1) * m + o]
    table = words[H_CLASS_TABLE + m]
    if sector < 0 or table < 0:
        return NO_CODE
    classes = db[table:table + 4 * BINOMIAL[N_POINTS, m]].view(np.int32)
    at = sector + 2 * index_of(x, y, classes, 0)
    code = (np.int64(db[at + 1]) << 8) | (np.int64(db[at]) & 0xFF)  # the high byte carries the sign
    return code
