"""Endgame databases for Kalah by retrograde analysis: the exact value of every position with at
most ``k`` seeds on the board, for one variant (pits per row, capture rule).

A value is the change of the margin from the position to the end of the game under perfect play,
seen by the player to move: the seeds that player will still bank minus those the opponent will.
It does not depend on the stores (the rules never look at them) nor on the seeds per pit of the
start, so one database serves every Kalah(m, n) with the same m and rules. Layout and lookup:
``kernels.endgame_value``: one byte a position, at level ``n`` (seeds on the board) the position's
rank among the compositions of ``n`` into the ``2m`` pits (the mover's row, then the opponent's)
in lexicographic order, a perfect hash by the combinatorial number system. A database of ``k``
seeds begins with the database of every smaller ``k``.

Why the levels can be built in order: seeds never come back from a store, so a move leads to a
position with as many or fewer seeds on the board. A move that keeps them all sows within the
mover's own row without reaching the store (else a seed is banked) and captures nothing, so it
moves the mover's seeds strictly closer to the store and leaves the opponent's alone: such moves
never cycle, and a depth-first walk within the level (``_solve_rank``) meets every child it
needs solved before the position itself. The positions of a level are split into chunks that
threads (all cores by default) solve at once, the compiled builder releasing the interpreter
lock: a walk that crosses into another thread's chunk solves what it needs itself, and both
threads write the same value.

Files (``engines.datafile``): ``kalah-p6-kalah-empty-k22.egdb`` in the cache folder
(:func:`cache_dir`), a header naming the format version, the variant (pits, capture rule), the
seeds ``k``, the entries and their checksum, verified on every load: a file that fails a check
is refused with one line (:class:`DatabaseError`) and built again only when asked
(``rebuild=True``, ``--rebuild``). Build once with::

    python -m board_arena.engines.mancala.endgame --pits 6 --seeds 16
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Sequence

import numpy as np

from board_arena.commandline import OneLineParser
from board_arena.engines import datafile
from board_arena.engines.mancala import kernels
from board_arena.engines.mancala.kernels import (
    CAPTURE_KALAH,
    MAX_DB_SEEDS,
    STATE_DTYPE,
    apply_move,
    level_offset,
    rank_position,
    row_sum,
)
from board_arena.kernels import kernel

__all__ = ["build", "load", "read", "check", "cache_dir", "database_path", "database_size", "available_sizes", "UNKNOWN",
           "MAX_BUILD_POSITIONS", "DatabaseError", "FORMAT_VERSION", "FILE_KIND", "forget_loaded", "main"]

#: The value of a position not solved yet (values lie in [-k, k], k <= 63).
UNKNOWN = -128
#: The version of the file format (the header and the layout of the values) that this module writes and reads.
FORMAT_VERSION = 2
#: The kind that a database file's header names.
FILE_KIND = "board-arena Kalah endgame database"
# The longest chain of same-level moves: each lowers the seeds' total distance to their stores,
# at most k * pits.
_CHAIN = MAX_DB_SEEDS * kernels.MAX_PITS + 2
# Positions a thread solves between two looks at the stop flag and the progress bar.
_CHUNK = 1 << 20

#: The largest database :func:`load` builds (one byte a position: 8 GiB, 6 pits and 29 seeds).
MAX_BUILD_POSITIONS = 1 << 33


class DatabaseError(datafile.DataFileError):
    """An endgame database file that cannot be used (empty, truncated, damaged, of another format
    version or variant, or not a database): one line saying which and how to build it again."""


def database_size(pits: int, k: int) -> int:
    """Entries of the database of every position with at most ``k`` seeds on ``2 * pits`` cells."""
    return int(level_offset(2 * pits, k + 1))


def _check_size(pits: int, k: int) -> None:
    if not 1 <= pits <= kernels.MAX_PITS:
        raise ValueError(f"an endgame database needs pits 1..{kernels.MAX_PITS}, not {pits}")
    if not 0 <= k <= MAX_DB_SEEDS:
        raise ValueError(f"an endgame database holds 0..{MAX_DB_SEEDS} seeds on the board, not {k}")


# The variant of each database array that build or load made, so that check() can tell a
# database of another capture rule (the array itself does not say).
_VARIANTS: dict[int, tuple[weakref.ref, tuple[int, int, int, bool]]] = {}


def _remember(db: np.ndarray, pits: int, k: int, capture: int, empty_capture: bool) -> np.ndarray:
    _VARIANTS[id(db)] = (weakref.ref(db), (pits, k, capture, bool(empty_capture)))
    return db


def check(pits: int, db: np.ndarray, k: int, capture: int | None = None, empty_capture: bool | None = None) -> None:
    """Raises ValueError unless ``(db, k)`` can be the database of a game of ``pits`` pits: as many
    entries as its pits and ``k`` make (the compiled lookup does not check its index), and, for an
    array that :func:`build` or :func:`load` made, the same capture rule."""
    if not isinstance(db, np.ndarray) or db.dtype != np.int8 or db.ndim != 1:
        raise ValueError("an endgame database is a one-dimensional int8 array (from game.endgame_database)")
    if not 0 <= k <= MAX_DB_SEEDS or len(db) != database_size(pits, k):
        raise ValueError(f"this endgame database ({len(db):,} entries, k={k}) is not one of {pits}-pit Kalah: "
                         f"make it with game.endgame_database(state, {k})")
    known = _VARIANTS.get(id(db))
    if known is not None and known[0]() is db and capture is not None:
        _, _, its_capture, its_empty = known[1]
        if (its_capture, its_empty) != (capture, bool(empty_capture)):
            raise ValueError(f"this endgame database is of {_rule_words(its_capture, its_empty)}, "
                             f"not of {_rule_words(capture, bool(empty_capture))}")


def _rule_words(capture: int, empty_capture: bool) -> str:
    rule = "Kalah captures" if capture == CAPTURE_KALAH else "opposite-pit captures"
    return rule + (" (also on an empty pit)" if empty_capture else "")


@kernel(inline="always")
def _rows_of(cells, pits):
    """The two row words of a composition ``cells`` (the mover's pits, then the opponent's)."""
    mover = np.uint64(0)
    other = np.uint64(0)
    for i in range(pits):
        mover |= np.uint64(cells[i]) << np.uint64(8 * i)
        other |= np.uint64(cells[pits + i]) << np.uint64(8 * i)
    return mover, other


@kernel
def _unrank(rank, n, cells):
    """Writes the composition of ``n`` seeds of lexicographic ``rank`` into ``cells``."""
    m = len(cells)
    rest = n
    for i in range(m):
        if i == m - 1:
            c = rest
        else:
            c = 0
            w = kernels.COMPOSITIONS[m - i, rest]
            while c < rest and rank >= w - kernels.COMPOSITIONS[m - i, rest - c - 1]:
                c += 1
            rank -= w - kernels.COMPOSITIONS[m - i, rest - c]
        cells[i] = c
        rest -= c


@kernel(inline="always")
def _next_composition(cells):
    """Steps ``cells`` to the next composition in lexicographic order (the next rank): the cell
    before the last non-empty one gains a seed, the rest of that one's seeds go to the last cell."""
    m = len(cells)
    last = m - 1
    while last > 0 and cells[last] == 0:
        last -= 1
    if last == 0:
        return
    seeds = cells[last]
    cells[last] = 0
    cells[last - 1] += 1
    cells[m - 1] = seeds - 1


@kernel(inline="always")
def _index_of(mover, other, pits):
    n = row_sum(mover) + row_sum(other)
    return level_offset(2 * pits, n) + rank_position(mover, other, pits, n)


@kernel
def _solve_rank(db, n, rank, work, cells, stack, children, gains, signs):
    """Solves position ``rank`` of level ``n`` and, first, every unsolved same-level position its
    moves lead to (depth first, explicit stack). Returns False if the chain outgrew the stack.
    ``work``: two state records of the variant (the first a template, South to move); ``cells:
    int64[2 pits]``: the composition of ``rank`` (overwritten); ``children``, ``gains``,
    ``signs``: int64[pits] scratch."""
    s = work[0]
    child = work[1]
    pits = np.int64(s["pits"])
    base = level_offset(2 * pits, n)
    stack[0] = rank
    top = 1
    in_cells = rank
    while top > 0:
        r = stack[top - 1]
        if r != in_cells:
            _unrank(r, n, cells)
            in_cells = r
        mover, other = _rows_of(cells, pits)
        if mover == 0 or other == 0:
            # Not a playable position (the game ended): the sweep gives each side its own row.
            db[base + r] = row_sum(mover) - row_sum(other)
            top -= 1
            continue
        s["rows"][0] = mover
        s["rows"][1] = other
        # Every child's index first (South moves: the seeds it banks are its gain), then their
        # values: the cache misses of the children's entries overlap.
        count = 0
        for j in range(pits):
            if (mover >> np.uint64(8 * j)) & np.uint64(0xFF) == 0:
                continue
            work[1] = work[0]
            apply_move(child, j)
            gains[count] = np.int64(child["stores"][0]) - np.int64(child["stores"][1])
            if child["terminal"]:
                children[count] = -1
            elif child["to_move"] == 0:
                children[count] = _index_of(child["rows"][0], child["rows"][1], pits)
                signs[count] = 1
            else:
                children[count] = _index_of(child["rows"][1], child["rows"][0], pits)
                signs[count] = -1
            count += 1
        best = np.int64(-1 << 20)
        pending = np.int64(-1)
        for c in range(count):
            v = gains[c]
            if children[c] >= 0:
                value = np.int64(db[children[c]])
                if value == UNKNOWN:
                    pending = children[c] - base
                    break
                v += signs[c] * value
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


@kernel(nogil=True)
def _build_range(db, n, start, stop, template):
    """Solves the positions ``start..stop-1`` of level ``n`` (lower levels solved already).
    ``template``: a state record of the variant with empty stores, South to move."""
    pits = np.int64(template["pits"])
    stack = np.empty(_CHAIN, np.int64)
    cells = np.empty(2 * pits, np.int64)
    walk = np.empty(2 * pits, np.int64)
    children = np.empty(pits, np.int64)
    gains = np.empty(pits, np.int64)
    signs = np.empty(pits, np.int64)
    work = np.empty(2, STATE_DTYPE)
    work[0] = template
    base = level_offset(2 * pits, n)
    _unrank(start, n, cells)
    for r in range(start, stop):
        if db[base + r] == UNKNOWN:
            walk[:] = cells
            if not _solve_rank(db, n, r, work, walk, stack, children, gains, signs):
                return False
        _next_composition(cells)
    return True


def _template(pits: int, capture: int, empty_capture: bool) -> np.ndarray:
    buf = np.zeros(1, STATE_DTYPE)
    kernels.init_state(buf[0], pits, 1, capture, int(empty_capture))
    return buf


def build(pits: int, k: int, capture: int = CAPTURE_KALAH, empty_capture: bool = True, progress: bool = False,
          threads: int | None = None) -> np.ndarray:
    """The database (``int8``) of every position with at most ``k`` seeds on the board.

    Args:
        pits: pits per row (1..8).
        k: the most seeds on the board (0..63).
        capture: ``kernels.CAPTURE_KALAH`` or ``kernels.CAPTURE_OPPOSITE``.
        empty_capture: whether a capture fires on an empty opposite pit.
        progress: show a progress bar (tqdm, on stderr).
        threads: threads building at once (default: every core this process may use).

    Raises:
        ValueError: pits or k out of range.
        KeyboardInterrupt: the build stops within a fraction of a second (nothing is kept).

    Example:
        >>> db = build(2, 3)
        >>> len(db) == database_size(2, 3)
        True
    """
    _check_size(pits, k)
    threads = threads or _cores()
    if threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    cells = 2 * pits
    db = np.full(database_size(pits, k), UNKNOWN, np.int8)
    template = _template(pits, capture, empty_capture)[0]
    bar = None
    if progress:
        from tqdm import tqdm

        # Level 0 (one position) before the bar: it compiles or loads the kernel, which the bar's
        # first rate would otherwise count as work (a first ETA of hundreds of hours).
        _build_range(db, 0, 0, 1, template)

        bar = tqdm(total=len(db), unit="pos", unit_scale=True, desc=f"Kalah endgame, {pits} pits, <= {k} seeds",
                   file=sys.stderr, smoothing=0.05)
    stop = threading.Event()
    failed: list[BaseException] = []
    try:
        for n in range(k + 1):
            size = int(level_offset(cells, n + 1) - level_offset(cells, n))
            chunks = [(start, min(size, start + _CHUNK)) for start in range(0, size, _CHUNK)]
            _run_level(db, n, chunks, template, min(threads, len(chunks)), stop, failed, bar)
            if failed:
                raise failed[0]
            if bar is not None:
                bar.set_postfix(level=n)
    finally:
        stop.set()
        if bar is not None:
            bar.close()
    return _remember(db, pits, k, capture, empty_capture)


def _run_level(db, n, chunks, template, threads, stop, failed, bar) -> None:
    """Solves the ``chunks`` of level ``n`` with ``threads`` threads taking the next chunk in turn;
    the calling thread updates the bar and stops them on Ctrl-C."""
    lock = threading.Lock()
    queue = iter(chunks)
    done: list[int] = []

    def work():
        while not stop.is_set():
            with lock:
                chunk = next(queue, None)
            if chunk is None:
                return
            try:
                if not _build_range(db, n, chunk[0], chunk[1], template):
                    raise RuntimeError("a chain of same-level moves outgrew the stack")  # see _CHAIN
            except BaseException as error:  # noqa: BLE001 - handed to the calling thread
                failed.append(error)
                stop.set()
                return
            done.append(chunk[1] - chunk[0])

    # Threads even for one: the calling thread stays free to see Ctrl-C and move the bar.
    workers = [threading.Thread(target=work, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    shown = 0
    try:
        for worker in workers:
            while worker.is_alive():
                worker.join(0.2)
                if bar is not None and len(done) > shown:
                    bar.update(sum(done[shown:]))
                    shown = len(done)
    except KeyboardInterrupt:
        stop.set()
        for worker in workers:
            worker.join()
        raise
    if bar is not None:
        bar.update(sum(done[shown:]))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cache_dir() -> Path:
    """Where databases are kept: ``$BOARD_ARENA_CACHE/endgame`` or the user's cache folder."""
    return datafile.cache_root() / "endgame"


# Databases read in this process, by file: a second game of the same variant does not read the
# file again (hundreds of megabytes).
_LOADED: dict[Path, np.ndarray] = {}


def forget_loaded() -> None:
    """Forgets the databases read in this process: the next :func:`load` reads its file again."""
    _LOADED.clear()


def database_path(pits: int, k: int, capture: int, empty_capture: bool) -> Path:
    """The file of a variant's database in the cache folder."""
    rule = "kalah" if capture == CAPTURE_KALAH else "opposite"
    return cache_dir() / f"kalah-p{pits}-{rule}{'-empty' if empty_capture else ''}-k{k}.egdb"


def available_sizes(pits: int, capture: int, empty_capture: bool) -> list[int]:
    """The seeds ``k`` of the variant's database files in the cache folder (not yet verified)."""
    found = []
    stem = database_path(pits, 0, capture, empty_capture).name.rsplit("-k", 1)[0]
    for path in cache_dir().glob(f"{stem}-k*.egdb"):
        digits = path.name[len(stem) + 2:-len(".egdb")]
        if digits.isdigit() and path.is_file():
            found.append(int(digits))
    return sorted(found)


def _header_fields(pits: int, k: int, capture: int, empty_capture: bool) -> dict:
    return {"game": "kalah", "pits": pits, "capture": "kalah" if capture == CAPTURE_KALAH else "opposite",
            "empty_capture": bool(empty_capture), "seeds": k}


def _rebuild_hint(pits: int, k: int, capture: int, empty_capture: bool) -> str:
    words = f"--pits {pits} --seeds {k}"
    if capture != CAPTURE_KALAH:
        words += " --capture opposite"
    if not empty_capture:
        words += " --no-empty-capture"
    return f"build it again with: python -m board_arena.engines.mancala.endgame {words} --rebuild"


def read(path: Path, pits: int, k: int, capture: int = CAPTURE_KALAH, empty_capture: bool = True) -> np.ndarray:
    """The database in ``path``, verified (format version, variant, seeds, size, checksum).

    Raises:
        FileNotFoundError: no such file.
        DatabaseError: the file fails a check.
    """
    try:
        db = datafile.read(path, FILE_KIND, FORMAT_VERSION, _header_fields(pits, k, capture, empty_capture), np.dtype(np.int8))
    except datafile.DataFileError as error:
        raise DatabaseError(f"{error}; {_rebuild_hint(pits, k, capture, empty_capture)}") from None
    if len(db) != database_size(pits, k):
        raise DatabaseError(f"{path} holds {len(db):,} entries, not the {database_size(pits, k):,} of its variant; "
                            + _rebuild_hint(pits, k, capture, empty_capture))
    return _remember(db, pits, k, capture, empty_capture)


def load(pits: int, k: int, capture: int = CAPTURE_KALAH, empty_capture: bool = True, *, build_missing: bool = False,
         rebuild: bool = False, progress: bool = False) -> tuple[np.ndarray, int] | None:
    """The database ``(db, k)`` of a variant from the cache folder, verified; None when it is not
    there. With ``build_missing``: built, saved and returned when it is not there. With
    ``rebuild``: built and saved in place of a file that fails its checks (or of any file).

    Raises:
        ValueError: pits or k out of range, or a database too large to build.
        DatabaseError: the file fails a check (and ``rebuild`` is not set).
        OSError: the cache folder cannot be written.
    """
    _check_size(pits, k)
    path = database_path(pits, k, capture, empty_capture)
    if path in _LOADED and not rebuild:
        return _LOADED[path], k
    if not rebuild:
        try:
            db = read(path, pits, k, capture, empty_capture)
        except FileNotFoundError:
            pass
        else:
            _LOADED[path] = db
            return db, k
    if not (build_missing or rebuild):
        return None
    if database_size(pits, k) > MAX_BUILD_POSITIONS:
        raise ValueError(f"the endgame database of {pits} pits and {k} seeds would hold {database_size(pits, k):,} "
                         f"positions (bytes); the most built is {MAX_BUILD_POSITIONS:,}: ask for fewer seeds")
    datafile.remove_stale_partials(path)
    if path.is_dir():
        raise DatabaseError(f"{path} is a folder, where the database file should be: move it away")
    db = build(pits, k, capture, empty_capture, progress=progress)
    datafile.write(path, FILE_KIND, FORMAT_VERSION, _header_fields(pits, k, capture, empty_capture), db)
    _LOADED[path] = db
    return db, k


def main(argv: Sequence[str] | None = None) -> int:
    """The builder's command line: every bad input is one line and status 2; Ctrl-C is one line
    and status 130 (nothing is left behind)."""
    prog = "python -m board_arena.engines.mancala.endgame"
    parser = OneLineParser(prog=prog, description="Build a Kalah endgame database into the cache folder "
                                            f"({cache_dir()}).")
    parser.add_argument("--pits", type=int, default=6, help=f"pits per row, 1..{kernels.MAX_PITS} (default 6)")
    parser.add_argument("--seeds", type=int, default=16, help=f"the most seeds on the board, 0..{MAX_DB_SEEDS} (default 16)")
    parser.add_argument("--capture", choices=("kalah", "opposite"), default="kalah")
    parser.add_argument("--no-empty-capture", action="store_true", help="captures need seeds opposite")
    parser.add_argument("--rebuild", action="store_true", help="build it again even if a file is there (a damaged one)")
    parser.add_argument("--threads", type=int, default=None, help="threads building at once (default: every core)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
    try:
        if not 1 <= args.pits <= kernels.MAX_PITS:
            parser.error(f"--pits must be 1..{kernels.MAX_PITS}, not {args.pits}")
        if not 0 <= args.seeds <= MAX_DB_SEEDS:
            parser.error(f"--seeds must be 0..{MAX_DB_SEEDS}, not {args.seeds}")
        if args.threads is not None and args.threads < 1:
            parser.error(f"--threads must be at least 1, not {args.threads}")
        capture = CAPTURE_KALAH if args.capture == "kalah" else kernels.CAPTURE_OPPOSITE
        empty = not args.no_empty_capture
        path = database_path(args.pits, args.seeds, capture, empty)
        if database_size(args.pits, args.seeds) > MAX_BUILD_POSITIONS:
            parser.error(f"{args.pits} pits and {args.seeds} seeds make {database_size(args.pits, args.seeds):,} positions; "
                         f"the most built is {MAX_BUILD_POSITIONS:,}: ask for fewer seeds")
        if not args.rebuild:
            try:
                read(path, args.pits, args.seeds, capture, empty)
                print(f"{path} is there and verified ({database_size(args.pits, args.seeds):,} positions)")
                return 0
            except FileNotFoundError:
                pass
        started = time.perf_counter()
        cpu = time.process_time()
        load(args.pits, args.seeds, capture, empty, rebuild=True, progress=True)
        print(f"wrote {path} ({database_size(args.pits, args.seeds):,} positions, {time.perf_counter() - started:.1f} s, "
              f"{time.process_time() - cpu:.1f} s of processor time)")
        return 0
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 2
    except (ValueError, OSError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        print(f"\n{prog}: interrupted; nothing was written", file=sys.stderr)
        if argv is not None:  # called from Python: its caller's Ctrl-C as it was
            signal.signal(signal.SIGINT, previous)
        return 130


if __name__ == "__main__":
    sys.exit(main())
