"""Full-depth minimax on Kalah's final margin, in plain Python, written from docs/games/mancala.md: the
test-only reference of the exact solver (tests/agents/test_solver.py).

A position is the mover's pits then the opponent's (each from its owner's left); its value is the
seeds the mover will still bank minus those the opponent will, under perfect play. The rules never
look at the stores, so the value is memoised on the pits alone, which makes every Kalah(m, n) with
m <= 3, n <= 6 a matter of seconds (at most a quarter of a million positions).
"""

from __future__ import annotations

import sys
from functools import lru_cache


def kalah_minimax(pits: int, capture: str = "kalah", empty_capture: bool = False):
    """``value(mover_pits, opponent_pits)`` (tuples) for Kalah with ``pits`` pits a row."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    ring = 2 * pits + 1  # the mover's pits, the mover's store (index pits), the opponent's pits

    @lru_cache(maxsize=None)
    def value(mover: tuple, opponent: tuple) -> int:
        best = None
        for start in range(pits):
            seeds = mover[start]
            if seeds == 0:
                continue
            cells = list(mover) + [0] + list(opponent)
            cells[start] = 0
            at = start
            for _ in range(seeds):
                at = (at + 1) % ring
                cells[at] += 1
            banked = cells[pits]
            mine, theirs = cells[:pits], cells[pits + 1 :]
            if at < pits and mine[at] == 1:  # the last seed fell into an empty pit of the mover
                opposite = pits - 1 - at
                if capture == "kalah" and (theirs[opposite] > 0 or empty_capture):
                    banked += theirs[opposite] + 1
                    mine[at] = theirs[opposite] = 0
                elif capture == "opposite" and theirs[opposite] > 0:
                    banked += theirs[opposite]
                    theirs[opposite] = 0
            if not any(mine) or not any(theirs):
                result = banked + sum(mine) - sum(theirs)  # the game ends: each row to its owner
            elif at == pits:
                result = banked + value(tuple(mine), tuple(theirs))  # last seed in the store: again
            else:
                result = banked - value(tuple(theirs), tuple(mine))
            if best is None or result > best:
                best = result
        return best

    return value
