"""The Morabaraba board as one readable source: the 24 points and the lines drawn between them.

Every table the kernels use (bit masks of mills, neighbours, the mills through each point) is
derived here from ``LINES``, so that nothing is typed twice. Points are numbered as in
``docs/games/morabaraba.md`` (row by row) and named on the 7x7 grid of that drawing, columns a-g from
left to right and rows 1-7 from bottom to top (the usual nine men's morris names)::

    7  a7----------d7----------g7        0-----------1-----------2
       |  \\        |        /  |        |  \\        |        /  |
    6  |   b6------d6------f6  |        |   3-------4-------5   |
       |   |  \\    |    /  |   |        |   | \\     |     / |   |
    5  |   |   c5--d5--e5  |   |        |   |   6---7---8   |   |
       |   |   |       |   |   |        |   |   |       |   |   |
    4  a4--b4--c4      e4--f4--g4        9--10--11      12--13--14
       |   |   |       |   |   |        |   |   |       |   |   |
    3  |   |   c3--d3--e3  |   |        |   |  15--16--17   |   |
       |   |  /    |    \\  |   |        |   | /     |     \\ |   |
    2  |   b2------d2------f2  |        |  18------19------20   |
       |  /        |        \\  |        | /         |         \\ |
    1  a1----------d1----------g1       21----------22----------23
       a   b   c   d   e   f   g

The diagonal lines exist only when ``diagonals`` is on (Morabaraba); nine men's morris has none.
"""

from __future__ import annotations

import numpy as np

POINT_NAMES = (
    "a7", "d7", "g7",
    "b6", "d6", "f6",
    "c5", "d5", "e5",
    "a4", "b4", "c4", "e4", "f4", "g4",
    "c3", "d3", "e3",
    "b2", "d2", "f2",
    "a1", "d1", "g1",
)  # fmt: skip
POINT_OF = {name: p for p, name in enumerate(POINT_NAMES)}
N_POINTS = 24

# The lines of the board, each listed point by point along the line: every line is a mill, and
# two consecutive points of a line are adjacent. The order is that of docs/games/morabaraba.md, which numbers the
# mills: rows, then columns, then the four diagonals.
ROW_LINES = ("a7 d7 g7", "b6 d6 f6", "c5 d5 e5", "a4 b4 c4", "e4 f4 g4", "c3 d3 e3", "b2 d2 f2", "a1 d1 g1")
COLUMN_LINES = ("a7 a4 a1", "b6 b4 b2", "c5 c4 c3", "d7 d6 d5", "d3 d2 d1", "e5 e4 e3", "f6 f4 f2", "g7 g4 g1")
DIAGONAL_LINES = ("a7 b6 c5", "g7 f6 e5", "c3 b2 a1", "e3 f2 g1")


def _points(line: str) -> tuple[int, int, int]:
    a, b, c = (POINT_OF[name] for name in line.split())
    return a, b, c


LINES = tuple(_points(line) for line in ROW_LINES + COLUMN_LINES + DIAGONAL_LINES)
N_MILLS = len(LINES)  # 20; the first 16 are the orthogonal ones
N_ORTHOGONAL_MILLS = len(ROW_LINES) + len(COLUMN_LINES)

# A mask that no player's cows ever cover: pads the tables of the board without diagonals, so
# that kernels loop over a fixed number of mills and a padded mill is never complete.
BB_NEVER = 1 << 63


def lines_of(diagonals: bool) -> tuple[tuple[int, int, int], ...]:
    """The lines (= mills) of the board with or without its diagonals."""
    return LINES if diagonals else LINES[:N_ORTHOGONAL_MILLS]


def neighbours(diagonals: bool) -> list[list[int]]:
    """Adjacency lists: consecutive points of a line are linked."""
    adjacent: list[set[int]] = [set() for _ in range(N_POINTS)]
    for a, b, c in lines_of(diagonals):
        adjacent[a] |= {b}
        adjacent[b] |= {a, c}
        adjacent[c] |= {b}
    return [sorted(s) for s in adjacent]


def _tables(diagonals: bool):
    lines = lines_of(diagonals)
    mills = [sum(1 << p for p in line) for line in lines]
    mills += [BB_NEVER] * (N_MILLS + 1 - len(mills))  # index N_MILLS: "no mill"
    neighbour_masks = [sum(1 << q for q in qs) for qs in neighbours(diagonals)]
    # For each point, up to three mills through it: the mill's index and the mask of its two
    # other points (a move to the point forms the mill iff the mover holds both).
    mill_ids = [[N_MILLS] * 3 for _ in range(N_POINTS)]
    partners = [[BB_NEVER] * 3 for _ in range(N_POINTS)]
    for m, line in enumerate(lines):
        for p in line:
            k = mill_ids[p].index(N_MILLS)
            mill_ids[p][k] = m
            partners[p][k] = mills[m] & ~(1 << p)
    return mills, neighbour_masks, mill_ids, partners


_BOTH = [_tables(False), _tables(True)]
# Indexed by [diagonals (0 or 1), ...]:
MILL_MASKS = np.array([t[0] for t in _BOTH], dtype=np.uint64)  # uint64[2, 21], 20 = none
NEIGHBOUR_MASKS = np.array([t[1] for t in _BOTH], dtype=np.uint64)  # uint64[2, 24]
POINT_MILLS = np.array([t[2] for t in _BOTH], dtype=np.int64)  # int64[2, 24, 3], 20 = none
MILL_PARTNERS = np.array([t[3] for t in _BOTH], dtype=np.uint64)  # uint64[2, 24, 3]
BIT = np.array([1 << p for p in range(N_POINTS)], dtype=np.uint64)  # uint64[24]
BB_ALL = (1 << N_POINTS) - 1


# Line layouts, for bit-parallel mill tests. In a layout, the points of a family of lines (the
# rows, the columns or the diagonals) are renumbered so that line i holds bits 3i, 3i+1, 3i+2 in
# the order of its points along the line: one shift then moves every cow of the board one step
# along its line, and a line is complete where a bit and the two above it are set
# (``LINE_STARTS`` marks bit 3i). The point numbering is the rows' layout already (row i is
# points 3i..3i+2); a board goes to the other layouts and back through byte tables.
LAYOUT_ROWS = 0
LAYOUT_COLUMNS = 1
LAYOUT_DIAGONALS = 2
LAYOUT_LINES = (ROW_LINES, COLUMN_LINES, DIAGONAL_LINES)


def _layout_tables():
    to_layout = np.zeros((3, 3, 256), dtype=np.uint64)  # [layout, byte of the board, value]
    from_layout = np.zeros((3, 3, 256), dtype=np.uint64)  # [layout, byte of the layout, value]
    starts = np.zeros(3, dtype=np.uint64)
    along = np.zeros((3, N_POINTS), dtype=np.uint64)  # neighbours along the layout's lines
    for layout, lines in enumerate(LAYOUT_LINES):
        position = {}
        for i, line in enumerate(lines):
            starts[layout] |= np.uint64(1 << 3 * i)
            a, b, c = _points(line)
            position.update({a: 3 * i, b: 3 * i + 1, c: 3 * i + 2})
            along[layout, a] |= np.uint64(1 << b)
            along[layout, b] |= np.uint64(1 << a | 1 << c)
            along[layout, c] |= np.uint64(1 << b)
        inverse = {bit: p for p, bit in position.items()}
        for byte in range(3):
            for value in range(256):
                bits = [8 * byte + i for i in range(8) if value >> i & 1]
                to_layout[layout, byte, value] = sum(1 << position[p] for p in bits if p in position)
                from_layout[layout, byte, value] = sum(1 << inverse[p] for p in bits if p in inverse)
    return to_layout, from_layout, starts, along


TO_LAYOUT, FROM_LAYOUT, LINE_STARTS, NEIGHBOURS_ALONG = _layout_tables()
# The kernels skip the rows' tables: they map a board to itself.
assert all(_points(line) == (3 * i, 3 * i + 1, 3 * i + 2) for i, line in enumerate(ROW_LINES))


# The rings' layout, for drawing a random move (``kernels.random_legal_move``): bit 8r + i is
# point i of ring r (0 the outer square), clockwise from its top-left corner, so corners are the
# even bits and the middles of the sides the odd ones. A step along a ring is then a rotation
# within a byte and a step across the rings a shift by 8, and every line is either three points
# i, i+1, i+2 (i even) of a ring or a "spoke", the points i, 8+i, 16+i: the middles of the sides
# (odd i), or the corners (even i), which are the diagonals.
RING_LINES = ("a7 d7 g7 g4 g1 d1 a1 a4", "b6 d6 f6 f4 f2 d2 b2 b4", "c5 d5 e5 e4 e3 d3 c3 c4")


def _ring_tables():
    ring_points = np.array([POINT_OF[name] for ring in RING_LINES for name in ring.split()], dtype=np.int64)
    to_rings = np.zeros((3, 256), dtype=np.uint64)  # [byte of the board, value]: the rings' bits
    for byte in range(3):
        for value in range(256):
            points = {8 * byte + i for i in range(8) if value >> i & 1}
            to_rings[byte, value] = sum(1 << b for b, p in enumerate(ring_points) if p in points)
    return ring_points, to_rings


RING_POINTS, TO_RINGS = _ring_tables()  # int64[24]: the point of each ring bit; uint64[3, 256]
_RING_SIDES = {frozenset(int(RING_POINTS[8 * r + (i + j) % 8]) for j in range(3)) for r in range(3) for i in (0, 2, 4, 6)}
_SPOKES = {i: frozenset(int(RING_POINTS[8 * r + i]) for r in range(3)) for i in range(8)}
assert sorted(RING_POINTS) == list(range(N_POINTS))
assert {frozenset(line) for line in LINES[:N_ORTHOGONAL_MILLS]} == _RING_SIDES | {_SPOKES[i] for i in (1, 3, 5, 7)}
assert {frozenset(line) for line in LINES[N_ORTHOGONAL_MILLS:]} == {_SPOKES[i] for i in (0, 2, 4, 6)}


def mill_name(m: int) -> str:
    """A mill written by its points along the line, e.g. ``a7-d7-g7``."""
    return "-".join(POINT_NAMES[p] for p in LINES[m])
