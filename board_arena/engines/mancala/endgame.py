"""Endgame databases for Kalah by retrograde analysis: the exact value of every position with at
most ``k`` seeds on the board, for one variant (pits per row, capture rule).

A value is the change of the margin from the position to the end of the game under perfect play,
seen by the player to move: the seeds that player will still bank minus those the opponent will.
It does not depend on the stores (the rules never look at them) nor on the seeds per pit of the
start, so one database serves every Kalah(m, n) with the same m and rules. Layout and lookup:
``kernels.endgame_value`` (level ``n`` = seeds on the board, then the lexicographic rank of the
mover's row followed by the opponent's).

Why the levels can be built in order: seeds never come back from a store, so a move leads to a
position with as many or fewer seeds on the board. A move that keeps them all sows within the
mover's own row without reaching the store (else a seed is banked) and captures nothing, so it
moves the mover's seeds strictly closer to the store and leaves the opponent's alone: such moves
never cycle, and a depth-first walk within the level (``_solve_rank``) meets every child it
needs solved before the position itself.

Build once with ``python -m board_arena.engines.mancala.endgame --pits 6 --seeds 16`` (a progress bar); the
file goes to the cache folder (:func:`cache_dir`) and :func:`load` finds it there.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from board_arena.engines._jit import kernel
from board_arena.engines.mancala import kernels
from board_arena.engines.mancala.kernels import (
    CAPTURE_KALAH,
    MAX_DB_SEEDS,
    STATE_DTYPE,
    _pit,
    _row_sum,
    apply_move,
    level_offset,
    rank_position,
)

__all__ = ["build", "load", "check", "cache_dir", "database_path", "database_size", "UNKNOWN",
           "MAX_BUILD_POSITIONS"]

#: The value of a position not solved yet (values lie in [-k, k], k <= 63).
UNKNOWN = -128
# The longest chain of same-level moves: each lowers the seeds' total distance to their stores,
# at most k * pits.
_CHAIN = MAX_DB_SEEDS * kernels.MAX_PITS + 2


#: The largest database :func:`load` builds (one byte a position: 8 GiB, 6 pits and 29 seeds).
MAX_BUILD_POSITIONS = 1 << 33


def database_size(pits: int, k: int) -> int:
    """Entries of the database of every position with at most ``k`` seeds on ``2 * pits`` cells."""
    return int(level_offset(2 * pits, k + 1))


def check(pits: int, db: np.ndarray, k: int) -> None:
    """Raises ValueError unless ``(db, k)`` can be the database of a game of ``pits`` pits: as many
    entries as its pits and ``k`` make (the compiled lookup does not check its index). The capture
    rule is not in the array: :func:`load` picks the right file."""
    if not 0 <= k <= MAX_DB_SEEDS or len(db) != database_size(pits, k):
        raise ValueError(f"this endgame database ({len(db):,} entries, k={k}) is not one of {pits}-pit Kalah: "
                         f"make it with game.endgame_database(state, {k})")


@kernel
def _unrank(rank, n, pits, s):
    """Writes the position of ``rank`` at level ``n`` into ``s`` (mover's row as South's)."""
    cells = 2 * pits
    rest = n
    mover = np.uint64(0)
    other = np.uint64(0)
    for i in range(cells):
        if i == cells - 1:
            c = rest
        else:
            c = 0
            w = kernels.COMPOSITIONS[cells - i, rest]
            while c < rest and rank >= w - kernels.COMPOSITIONS[cells - i, rest - c - 1]:
                c += 1
            rank -= w - kernels.COMPOSITIONS[cells - i, rest - c]
        if i < pits:
            mover |= np.uint64(c) << np.uint64(8 * i)
        else:
            other |= np.uint64(c) << np.uint64(8 * (i - pits))
        rest -= c
    s["rows"][0] = mover
    s["rows"][1] = other
    s["stores"][0] = 0
    s["stores"][1] = 0
    s["to_move"] = 0
    s["terminal"] = 0


@kernel
def _child_value(db, child):
    """The value of a move's result for the player who made it (South in the builder): the seeds
    it banked plus, unless the game ended, the child's database value from that side; UNKNOWN
    when the child is not solved yet. Also returns the child's index."""
    d = np.int64(child["stores"][0]) - np.int64(child["stores"][1])
    if child["terminal"]:
        return d, np.int64(-1)
    me = child["to_move"]
    mover = child["rows"][me]
    other = child["rows"][1 - me]
    pits = np.int64(child["pits"])
    n = _row_sum(mover) + _row_sum(other)
    index = level_offset(2 * pits, n) + rank_position(mover, other, pits, n)
    v = np.int64(db[index])
    if v == UNKNOWN:
        return np.int64(UNKNOWN), index
    return (d + v if me == 0 else d - v), index


@kernel
def _solve_rank(db, n, rank, template, stack):
    """Solves position ``rank`` of level ``n`` and, first, every unsolved same-level position its
    moves lead to (depth first, explicit stack). Returns False if the chain outgrew the stack."""
    pits = np.int64(template["pits"])
    base = level_offset(2 * pits, n)
    work = np.empty(2, STATE_DTYPE)
    work[0] = template
    s = work[0]
    child = work[1]
    stack[0] = rank
    top = 1
    while top > 0:
        r = stack[top - 1]
        _unrank(r, n, pits, s)
        mover = s["rows"][0]
        other = s["rows"][1]
        if mover == 0 or other == 0:
            # Not a playable position (the game ended): the sweep gives each side its own row.
            db[base + r] = _row_sum(mover) - _row_sum(other)
            top -= 1
            continue
        best = np.int64(-1 << 20)
        pending = np.int64(-1)
        for j in range(pits):
            if _pit(mover, j) == 0:
                continue
            work[1] = work[0]
            apply_move(child, j)
            v, index = _child_value(db, child)
            if v == UNKNOWN:
                pending = index - base
                break
            best = max(best, v)
        if pending >= 0:
            if top == len(stack):
                return False
            stack[top] = pending
            top += 1
        else:
            db[base + r] = best
            top -= 1
    return True


@kernel
def _build_range(db, n, start, stop, template):
    """Solves the positions ``start..stop-1`` of level ``n`` (lower levels solved already)."""
    stack = np.empty(_CHAIN, np.int64)
    base = level_offset(2 * np.int64(template["pits"]), n)
    for r in range(start, stop):
        if db[base + r] == UNKNOWN:
            if not _solve_rank(db, n, r, template, stack):
                return False
    return True


def _template(pits: int, capture: int, empty_capture: bool) -> np.ndarray:
    buf = np.zeros(1, STATE_DTYPE)
    kernels.init_state(buf[0], pits, 1, capture, int(empty_capture))
    return buf


def build(pits: int, k: int, capture: int = CAPTURE_KALAH, empty_capture: bool = True, progress: bool = False) -> np.ndarray:
    """The database (``int8``) of every position with at most ``k`` seeds on the board.

    Args:
        pits: pits per row (1..8).
        k: the most seeds on the board (0..63).
        capture: ``kernels.CAPTURE_KALAH`` or ``kernels.CAPTURE_OPPOSITE``.
        empty_capture: whether a capture fires on an empty opposite pit.
        progress: show a progress bar (tqdm, on stderr).

    Example:
        >>> db = build(2, 3)
        >>> len(db) == database_size(2, 3)
        True
    """
    if not 1 <= pits <= kernels.MAX_PITS or not 0 <= k <= MAX_DB_SEEDS:
        raise ValueError(f"pits must be 1..{kernels.MAX_PITS} and k 0..{MAX_DB_SEEDS}")
    cells = 2 * pits
    db = np.full(database_size(pits, k), UNKNOWN, np.int8)
    template = _template(pits, capture, empty_capture)[0]
    bar = None
    if progress:
        from tqdm import tqdm

        # Level 0 (one position) before the bar: it compiles or loads the kernel, which the bar's
        # first rate would otherwise count as work (a first ETA of hundreds of hours).
        _build_range(db, 0, 0, 1, template)

        bar = tqdm(total=len(db), unit="pos", unit_scale=True, desc=f"Kalah endgame, {pits} pits, <= {k} seeds", file=sys.stderr)
    chunk = 1 << 20
    for n in range(k + 1):
        size = int(level_offset(cells, n + 1) - level_offset(cells, n))
        for start in range(0, size, chunk):
            stop = min(size, start + chunk)
            if not _build_range(db, n, start, stop, template):
                raise RuntimeError("a chain of same-level moves outgrew the stack")  # see _CHAIN
            if bar is not None:
                bar.update(stop - start)
                bar.set_postfix(level=n)
    if bar is not None:
        bar.close()
    return db


def cache_dir() -> Path:
    """Where databases are kept: ``$BOARD_ARENA_CACHE/endgame`` or the user's cache folder."""
    root = os.environ.get("BOARD_ARENA_CACHE")
    if root:
        return Path(root) / "endgame"
    return Path(os.path.expanduser("~")) / ".cache" / "board-arena" / "endgame"


# Databases read in this process, by file: a second game of the same variant does not read the
# file again (hundreds of megabytes).
_LOADED: dict[Path, np.ndarray] = {}


def database_path(pits: int, k: int, capture: int, empty_capture: bool) -> Path:
    rule = "kalah" if capture == CAPTURE_KALAH else "opposite"
    return cache_dir() / f"kalah-p{pits}-{rule}{'-empty' if empty_capture else ''}-k{k}.npy"


def load(pits: int, k: int, capture: int = CAPTURE_KALAH, empty_capture: bool = True, *, build_missing: bool = False,
         progress: bool = False) -> tuple[np.ndarray, int] | None:
    """The database ``(db, k)`` of a variant from the cache folder, or None when it is not there
    (with ``build_missing``: built, saved and returned)."""
    path = database_path(pits, k, capture, empty_capture)
    if path in _LOADED:
        return _LOADED[path], k
    if path.is_file():
        db = np.load(path)
        if len(db) == database_size(pits, k):
            _LOADED[path] = db
            return db, k
    if not build_missing:
        return None
    if not 1 <= pits <= kernels.MAX_PITS or not 0 <= k <= MAX_DB_SEEDS:
        raise ValueError(f"an endgame database needs pits 1..{kernels.MAX_PITS} and seeds 0..{MAX_DB_SEEDS}, not {pits} and {k}")
    if database_size(pits, k) > MAX_BUILD_POSITIONS:
        raise ValueError(f"the endgame database of {pits} pits and {k} seeds would hold {database_size(pits, k):,} "
                         f"positions (bytes); the most built is {MAX_BUILD_POSITIONS:,}: ask for fewer seeds")
    db = build(pits, k, capture, empty_capture, progress=progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A name of its own: processes building the same database at once each publish a whole file.
    tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
    np.save(tmp, db)
    os.replace(tmp, path)
    _LOADED[path] = db
    return db, k


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Build a Kalah endgame database into the cache folder.")
    parser.add_argument("--pits", type=int, default=6)
    parser.add_argument("--seeds", type=int, default=16, help="the most seeds on the board (k)")
    parser.add_argument("--capture", choices=("kalah", "opposite"), default="kalah")
    parser.add_argument("--no-empty-capture", action="store_true", help="captures need seeds opposite")
    args = parser.parse_args(argv)
    capture = CAPTURE_KALAH if args.capture == "kalah" else kernels.CAPTURE_OPPOSITE
    empty = not args.no_empty_capture
    path = database_path(args.pits, args.seeds, capture, empty)
    if path.is_file():
        print(f"{path} exists already")
        return
    load(args.pits, args.seeds, capture, empty, build_missing=True, progress=True)
    print(f"wrote {path} ({database_size(args.pits, args.seeds):,} positions)")


if __name__ == "__main__":
    main()
