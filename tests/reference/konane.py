"""Konane rules in plain Python, written from docs/games/konane.md on a grid of points, for checking the engine.

``grid[row][col]`` is ``"B"``, ``"W"`` or ``None``; row 0 is the bottom row (rank 1), column 0 is
file a. Moves are found by following stones jump by jump (no bitboards), and named by the move
ids documented in ``engines/konane/kernels.py``, computed here from the path.
"""

from __future__ import annotations

import itertools

PASS = 832
REMOVE_BASE = 768
TURN_SHIFT = 13
DIRECTIONS = [(0, 1), (1, 0), (0, -1), (-1, 0)]  # east, north, west, south: the ids' order
COLOURS = ("B", "W")


def move_id(path):
    """The id of a jump through ``path``, a list of (row, col), from the documented layout."""
    row, col = path[0]
    directions = [DIRECTIONS.index(((r2 - r1) // 2, (c2 - c1) // 2)) for (r1, c1), (r2, c2) in zip(path, path[1:])]
    move = (8 * row + col) + (directions[0] << 6) + ((len(directions) - 1) << 8)
    for j in range(1, len(directions)):
        quarter_turns = (directions[j] - directions[j - 1]) % 4  # counter-clockwise
        code = {0: 0, 1: 1, 3: 2, 2: 3}[quarter_turns]  # straight, left, right, back
        move += code << (TURN_SHIFT + 2 * (j - 1))
    return move


class KonaneReference:
    def __init__(self, grid, to_move=0, turning=False, scoring="captures", captures=(0, 0), phase="play"):
        self.size = len(grid)
        self.grid = [list(row) for row in grid]
        self.to_move = to_move
        self.turning = turning
        self.scoring = scoring
        self.captures = list(captures)
        self.phase = phase  # "black removes", "white removes" or "play"
        self.over = False
        if phase == "play":
            self._check_end()

    @classmethod
    def full_board(cls, size, **kwargs):
        """The start of the classic opening: every point full, black on the top-left point."""
        grid = [[COLOURS[(r + c + size - 1) % 2] for c in range(size)] for r in range(size)]
        return cls(grid, phase="black removes", **kwargs)

    def on_board(self, row, col):
        return 0 <= row < self.size and 0 <= col < self.size

    def jump_paths(self, player):
        """Every jump move of ``player``: paths of (row, col), each prefix of a longer path too."""
        me, them = COLOURS[player], COLOURS[1 - player]
        paths = []
        for row in range(self.size):
            for col in range(self.size):
                if self.grid[row][col] == me:
                    self._extend([(row, col)], set(), None, me, them, paths)
        return paths

    def _extend(self, path, jumped, direction, me, them, paths):
        row, col = path[-1]
        start = path[0]
        for d, (dr, dc) in enumerate(DIRECTIONS):
            if direction is not None and not self.turning and d != direction:
                continue
            over, land = (row + dr, col + dc), (row + 2 * dr, col + 2 * dc)
            if not self.on_board(*land):
                continue
            if self.grid[over[0]][over[1]] != them or over in jumped:
                continue
            if self.grid[land[0]][land[1]] is not None and land != start:
                continue
            paths.append(path + [land])
            self._extend(path + [land], jumped | {over}, d, me, them, paths)

    def removals(self):
        n = self.size - 1
        if self.phase == "black removes":
            half = self.size // 2
            points = {(0, 0), (0, n), (n, 0), (n, n)}
            points |= {(half, half)} if self.size % 2 else {(r, c) for r in (half - 1, half) for c in (half - 1, half)}
            candidates = [p for p in points if self.grid[p[0]][p[1]] == "B"]
        else:
            (gap,) = [(r, c) for r in range(self.size) for c in range(self.size) if self.grid[r][c] is None]
            candidates = [
                (gap[0] + dr, gap[1] + dc)
                for dr, dc in DIRECTIONS
                if self.on_board(gap[0] + dr, gap[1] + dc) and self.grid[gap[0] + dr][gap[1] + dc] == "W"
            ]
        return [REMOVE_BASE + 8 * r + c for r, c in candidates]

    def can_jump(self, player):
        """True if one of ``player``'s stones can make a first jump."""
        me, them = COLOURS[player], COLOURS[1 - player]
        for row, col in itertools.product(range(self.size), repeat=2):
            if self.grid[row][col] != me:
                continue
            for dr, dc in DIRECTIONS:
                if (
                    self.on_board(row + 2 * dr, col + 2 * dc)
                    and self.grid[row + dr][col + dc] == them
                    and self.grid[row + 2 * dr][col + 2 * dc] is None
                ):
                    return True
        return False

    def moves(self):
        """{id: path, or None for a pass / removal} of the legal moves."""
        if self.over:
            return {}
        if self.phase != "play":
            return {m: None for m in self.removals()}
        paths = self.jump_paths(self.to_move)
        if not paths:
            return {PASS: None}  # not over, so the opponent has a jump
        return {move_id(p): p for p in paths}

    def legal_moves(self):
        return sorted(self.moves())

    def apply(self, move, moves=None):
        """Plays ``move``; ``moves`` may pass in this position's ``moves()`` to save finding them."""
        moves = self.moves() if moves is None else moves
        assert move in moves, f"illegal move {move}"
        me = self.to_move
        if self.phase != "play":
            sq = move - REMOVE_BASE
            self.grid[sq >> 3][sq & 7] = None
            self.phase = "white removes" if self.phase == "black removes" else "play"
        elif move != PASS:
            path = moves[move]
            (r0, c0), (r1, c1) = path[0], path[-1]
            for (ra, ca), (rb, cb) in zip(path, path[1:]):
                self.grid[(ra + rb) // 2][(ca + cb) // 2] = None
            self.grid[r0][c0] = None
            self.grid[r1][c1] = COLOURS[me]
            self.captures[me] += len(path) - 1
        self.to_move = 1 - me
        if self.phase == "play":
            self._check_end()

    def _check_end(self):
        if self.can_jump(self.to_move):
            return
        if self.scoring == "last-move" or not self.can_jump(1 - self.to_move):
            self.over = True

    def outcome(self):
        """Black's result at the end."""
        if self.scoring == "last-move":
            return -1.0 if self.to_move == 0 else 1.0
        margin = self.captures[0] - self.captures[1]
        return float((margin > 0) - (margin < 0))

    def bitboards(self):
        """(black, white) as the engine's bitboards (square 8 * row + col)."""
        boards = [0, 0]
        for r in range(self.size):
            for c in range(self.size):
                if self.grid[r][c] is not None:
                    boards[COLOURS.index(self.grid[r][c])] |= 1 << (8 * r + c)
        return tuple(boards)

    def perft(self, depth):
        """Move sequences of exactly ``depth`` moves (games that end sooner count 0)."""
        if depth == 0:
            return 1
        total = 0
        for move in self.legal_moves():
            child = self.copy()
            child.apply(move)
            total += child.perft(depth - 1)
        return total

    def copy(self):
        other = KonaneReference.__new__(KonaneReference)
        other.__dict__.update(self.__dict__)
        other.grid = [list(row) for row in self.grid]
        other.captures = list(self.captures)
        return other
