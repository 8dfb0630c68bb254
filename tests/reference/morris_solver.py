"""A plain retrograde solver of the morris games after placing, for the small sectors (three and
four cows a side), written apart from ``board_arena/engines/morabaraba/retrograde.py`` and meant
to be obviously right: numpy arrays, one pass per distance, the rules of
``tests/reference/morabaraba.py`` (its mill list, adjacency along the lines, the shooting rule).

A position is ``(mover, opponent)``: two 24-bit masks over the points numbered as in
docs/games/morabaraba.md, the mover to move, no cows in hand. A sector's positions are kept one
per class of the board's 16 symmetries, as sorted keys ``mover << 24 | opponent`` (the least key
of the class). A value, for the mover: ``+d`` a win whose next decisive event (a shot, or a
player left without a move) comes ``d`` plies from now under perfect play; ``-d`` a loss likewise
(``0``: the mover has no move now); :data:`DRAW` a draw.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from tests.reference.morabaraba import ALL_MILLS, ORTHOGONAL_MILLS

DRAW = 1 << 20  # beyond every distance
BIG = 4 * DRAW  # a score beyond every value's
# The points by their names (docs/games/morabaraba.md): a file letter and a rank digit, so that a
# point's place on the drawn board is (file, rank), the centre d4 at (0, 0).
NAMES = "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1".split()


def symmetries(mills) -> list[list[int]]:
    """The 16 maps of the board onto itself: the square's 8 turns and reflections, each with and
    without swapping the inner and outer squares; each checked to map the mills onto mills."""
    place = [(ord(n[0]) - ord("a") - 3, int(n[1]) - 4) for n in NAMES]
    point = {xy: p for p, xy in enumerate(place)}
    lines = {frozenset(m) for m in mills}
    found = []
    for turns, mirror, swap in itertools.product(range(4), (False, True), (False, True)):
        perm = []
        for x, y in place:
            if mirror:
                x = -x
            for _ in range(turns):
                x, y = -y, x
            if swap:
                ring = max(abs(x), abs(y))
                x, y = x // ring * (4 - ring), y // ring * (4 - ring)
            perm.append(point[(x, y)])
        assert {frozenset(perm[q] for q in m) for m in mills} == lines
        found.append(perm)
    assert len({tuple(p) for p in found}) == 16
    return found


def masks_with(k: int) -> np.ndarray:
    """Every 24-bit mask with ``k`` bits set, in increasing order."""
    return np.sort(np.array([sum(1 << p for p in c) for c in itertools.combinations(range(24), k)], np.int64))


class Rules:
    """The rules that decide values after placing, and the board's symmetries as maps of masks."""

    def __init__(self, diagonals: bool, three_cow_plies: int = 0):
        self.mills = ALL_MILLS if diagonals else ORTHOGONAL_MILLS
        self.mill_masks = [sum(1 << p for p in m) for m in self.mills]
        self.neighbours = np.zeros(24, np.int64)
        for a, b, c in self.mills:  # adjacency follows the drawn lines
            self.neighbours[a] |= 1 << b
            self.neighbours[b] |= (1 << a) | (1 << c)
            self.neighbours[c] |= 1 << b
        self.three_cow_plies = three_cow_plies  # 0: no such draw
        # Each symmetry as three lookups, one per byte of a mask.
        self.tables = np.zeros((16, 3, 256), np.int64)
        for s, perm in enumerate(symmetries(self.mills)):
            for part, byte in itertools.product(range(3), range(256)):
                self.tables[s, part, byte] = sum(1 << perm[8 * part + b] for b in range(8) if byte >> b & 1)
        # The rank of a mask among the masks of its size, indexed by the mask itself.
        self.rank = np.zeros(1 << 24, np.int32)
        for k in range(1, 5):
            self.rank[masks_with(k)] = np.arange(comb(24, k))

    def image(self, s: int, masks: np.ndarray) -> np.ndarray:
        t = self.tables[s]
        return t[0][masks & 255] | t[1][(masks >> 8) & 255] | t[2][masks >> 16]

    def shootable(self, cows: np.ndarray) -> np.ndarray:
        """The cows that a shot may take: those outside mills, or every one if all are in mills."""
        in_mills = np.zeros_like(cows)
        for mill in self.mill_masks:
            in_mills |= np.where(cows & mill == mill, mill, 0)
        outside = cows & ~in_mills
        return np.where(outside != 0, outside, cows)


class Sector:
    """The positions of ``m`` cows to move against ``o``: ``keys`` (sorted, one per class) and
    :meth:`ids`, which finds the class of any position."""

    def __init__(self, rules: Rules, m: int, o: int):
        self.rules, self.m, self.o = rules, m, o
        # The least key of a class has the least image of the mover's cows; its opponent's part is
        # the least image under the symmetries that keep that mover's part.
        movers, opponents = masks_with(m), masks_with(o)
        images = np.stack([rules.image(s, movers) for s in range(16)])
        keys = []
        for i in np.flatnonzero(images.min(axis=0) == movers):
            x = movers[i]
            y = opponents[opponents & x == 0]
            least = np.min([rules.image(s, y) for s in range(16) if images[s, i] == x], axis=0)
            keys.append((x << 24) | np.unique(least))
        self.keys = np.concatenate(keys)
        # Every image of every class, at its place in a table over all (mover, opponent) ranks.
        self.table = np.full(comb(24, m) * comb(24, o), -1, np.int32)
        x, y = self.keys >> 24, self.keys & 0xFFFFFF
        for s in range(16):
            self.table[self._place(rules.image(s, x), rules.image(s, y))] = np.arange(len(self.keys))
        assert np.count_nonzero(self.table >= 0) == comb(24, m) * comb(24 - m, o)

    def _place(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self.rules.rank[x].astype(np.int64) * comb(24, self.o) + self.rules.rank[y]

    def ids(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        found = self.table[self._place(x, y)]
        assert np.all(found >= 0)
        return found


# Values are computed as scores, larger being better for the mover: a win in d is BIG - d, a draw
# 0, a loss in d -BIG + d. Moving into a position of score s scores -s + sign(s) (a ply further).
def to_scores(values: np.ndarray) -> np.ndarray:
    return np.where(values == DRAW, 0, np.where(values > 0, BIG - values, -BIG - values))


def to_values(scores: np.ndarray) -> np.ndarray:
    return np.where(scores == 0, DRAW, np.where(scores > 0, BIG - scores, -(scores + BIG)))


class Moves:
    """A sector's moves: each position's quiet moves as a row of ids in the sector ``(o, m)`` (-1
    past the last), and the score of its best shot, read from the sector below (a win at once
    when the opponent is left with two); -BIG where it has no shot."""

    def __init__(self, sector: Sector, other: Sector, below: tuple[Sector, np.ndarray] | None):
        self.sector = sector
        rules, m, o = sector.rules, sector.m, sector.o
        x, y = sector.keys >> 24, sector.keys & 0xFFFFFF
        empty = ~(x | y) & 0xFFFFFF
        n = len(x)
        width = m * (24 - m - o) if m == 3 else m * 4
        self.children = np.full((n, width), -1, np.int32)
        filled = np.zeros(n, np.int64)
        self.shot = np.full(n, -BIG, np.int64)
        self.any_move = np.zeros(n, bool)
        rest = x.copy()
        for _ in range(m):
            lowest = rest & -rest  # one cow of each position at a time
            rest ^= lowest
            reach = empty if m == 3 else rules.neighbours[np.log2(lowest).astype(np.int64)] & empty  # three cows fly
            for to in range(24):
                where = np.flatnonzero(reach >> to & 1)
                self.any_move[where] = True
                after = (x[where] ^ lowest[where]) | (1 << to)
                formed = np.zeros(len(where), bool)
                for mill in rules.mill_masks:
                    if mill >> to & 1:
                        formed |= after & mill == mill
                quiet = where[~formed]
                self.children[quiet, filled[quiet]] = other.ids(y[quiet], after[~formed])
                filled[quiet] += 1
                shoots = where[formed]
                self.shot[shoots] = np.maximum(self.shot[shoots], _best_shot(rules, after[formed], y[shoots], o, below))
        self.children = self.children[:, : max(1, filled.max())].astype(np.intp)  # as wide as the most quiet moves

    def best(self, scores: np.ndarray, known: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The best score of positions ``rows`` from their known children's ``scores`` and their
        best shot, and whether all their children are known."""
        moving_in = np.full(len(scores) + 1, -2 * BIG, np.int32)  # an unknown child and none: no move yet
        moving_in[:-1][known] = -scores[known] + np.sign(scores[known])
        children = self.children[rows]
        best = np.maximum(moving_in[children].max(axis=1), self.shot[rows])
        best[~self.any_move[rows]] = -BIG  # no move: lost now
        return best, np.append(known, True)[children].all(axis=1)


def _best_shot(rules: Rules, after: np.ndarray, y: np.ndarray, o: int, below) -> np.ndarray:
    """The best shot's score where the mover's cows are ``after`` with a mill just formed, the
    opponent's ``y``."""
    if o == 3:
        return np.full(len(after), BIG - 1)  # two cows left: the shot wins
    sector, scores = below
    best = np.full(len(after), -BIG, np.int64)
    targets = rules.shootable(y)
    for point in range(24):
        can = targets >> point & 1 == 1
        child = scores[sector.ids(y[can] & ~(1 << point), after[can])]
        best[can] = np.maximum(best[can], -np.sign(child) * (BIG - 1))  # the shot is the event
    return best


def _pair(rules: Rules, m: int, o: int, below: dict) -> dict:
    sectors = {(m, o): Sector(rules, m, o)}
    sectors[(o, m)] = sectors[(m, o)] if m == o else Sector(rules, o, m)
    return {(a, b): Moves(sectors[(a, b)], sectors[(b, a)], below.get((b - 1, a))) for a, b in sectors}


def solve_pair(rules: Rules, m: int, o: int, below: dict) -> dict:
    """The values of sectors ``(m, o)`` and ``(o, m)`` with no draw counter: ``{(m, o): (sector,
    values), ...}``. ``below``: ``{(a, b): (sector, scores)}`` of the sectors that shots lead to.

    Pass ``d`` settles the values at distance ``d`` from the values settled before it: a win when
    the nearest known losing child is ``d - 1`` plies away, a loss when every child is a known
    win, the farthest ``d - 1`` plies away. When a pass settles nothing the rest are draws."""
    moves = _pair(rules, m, o, below)
    scores = {s: np.zeros(len(moves[s].children), np.int64) for s in moves}
    known = {s: np.zeros(len(moves[s].children), bool) for s in moves}
    for distance in itertools.count():
        rows = {s: np.flatnonzero(~known[s]) for s in moves}
        found = {s: moves[s].best(scores[(s[1], s[0])], known[(s[1], s[0])], rows[s]) for s in moves}
        settled = 0
        for s, (best, complete) in found.items():
            now = (best == BIG - distance) | (complete & (best == -BIG + distance))
            scores[s][rows[s][now]], known[s][rows[s][now]] = best[now], True
            settled += int(now.sum())
        if settled == 0 and distance > 0:
            break
    return {s: (moves[s].sector, to_values(np.where(known[s], scores[s], 0))) for s in moves}


def solve_pair_counted(rules: Rules, m: int, o: int, below: dict) -> dict:
    """The values of sectors ``(m, o)`` and ``(o, m)`` at each value ``c`` of the three-cow
    counter (a draw once ``rules.three_cow_plies`` plies have passed without a shot while a
    player has three cows, as in every position of these sectors): ``{(m, o): (sector,
    values[c])}``. At the limit a position is drawn, or lost if the mover cannot move; below it,
    its score is the best of its children's at ``c + 1`` and of its shots (which reset the
    counter: ``below`` holds the scores at counter 0)."""
    moves = _pair(rules, m, o, below)
    layers = {s: [np.where(moves[s].any_move, 0, -BIG)] for s in moves}
    for _ in range(rules.three_cow_plies):
        above = {s: layers[s][0] for s in moves}
        for s in moves:
            other = (s[1], s[0])
            every = np.arange(len(layers[s][0]))
            layers[s].insert(0, moves[s].best(above[other], np.ones(len(above[other]), bool), every)[0])
    return {s: (moves[s].sector, to_values(np.stack(layers[s]))) for s in moves}
