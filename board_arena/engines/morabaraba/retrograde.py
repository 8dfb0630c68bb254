"""Retrograde databases of the morris games after placing: the exact value of every position with
no cows in hand and at most ``k`` cows on the board, sector by sector.

**What a code means.** One ``int16`` a position (:mod:`engines.morabaraba.sectors` says where), for
the player to move:

==========  ====================================================================================
``0``       a draw
``+d``      a win; ``d`` (1..32767) plies until the next *decisive event* under perfect play
``-d``      a loss, likewise
``-32768``  the mover has no legal move: lost now
``-32767``  no position (an index that symmetry leaves unused)
==========  ====================================================================================

A decisive event, for the side that wins, is a shot (by either side) into a position that it
still wins, or the other side left to move without a move. The winner brings it about as soon as
it can, the loser as late as it can: the depth to conversion of endgame databases.
A shot changes sector for good (the cows only ever decrease), so the sectors are built in order of
cows on the board, each pair ``(m, o)`` and ``(o, m)`` at once (a quiet move swaps the roles).

**The three-cow rule** (Morabaraba: a draw after ``L`` plies without a shot while a player has
three cows) needs no counter in the files: in a sector where a player has three cows every quiet
move adds one to the counter and a shot resets it, so a position with counter ``c`` is won (lost)
exactly when its code is a win (loss) with ``d <= L - c``, and drawn otherwise. Values of the next
sector are read at counter 0. **The ply cap** (nine men's morris draws at 200 plies) is not in the
values, but the lookup reads it exactly: a decided position whose next decisive event lies
beyond the cap is a draw, one whose whole rest fits before the cap keeps its value (the header
bounds the plies to the end of a perfectly played game by the cows on the board), and the lookup
does not answer in between.

**Building.** For each position of a sector pair, its moves are generated once: a shot's value is
read from the finished sector below, the quiet moves' children (distinct up to symmetry) are
counted. Then levels: the positions decided at distance ``d`` are taken back one move
(``_predecessors``): a lost one makes each predecessor a win at ``d + 1``; a won one takes one
from each predecessor's count of undecided children, which is lost at ``d + 1`` when none is left
(or drawn, if a shot of its own draws). What is undecided at the end is a draw: the players can
keep out of every decisive event for ever. Generating the moves runs on every core (threads over
chunks, the compiled kernels releasing the interpreter lock); the levels run in one thread per
sector of the pair.

Files (``engines.datafile``): one per sector in the cache folder (:func:`cache_dir`), named by the
rules that decide values (diagonals, flying, the three-cow limit, the full-board rule) and not by
the cows a side starts with, so Morabaraba with 12 or 9 cows shares them. A build interrupted or
killed resumes at the sector it was in. Build once with::

    python -m board_arena.engines.morabaraba.retrograde --game nine-mens-morris --stones 8
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, Sequence

import numpy as np

from board_arena.commandline import OneLineParser
from board_arena.engines import datafile
from board_arena.engines.morabaraba import sectors
from board_arena.engines.morabaraba.board import N_POINTS, NEIGHBOUR_MASKS
from board_arena.engines.morabaraba.kernels import forms_mill, mills_through, shootable
from board_arena.engines.morabaraba.sectors import (
    BINOMIAL,
    H_BOUND,
    H_CLASS_TABLE,
    H_DIAGONALS,
    H_FLYING,
    H_FULL_BOARD_DRAW,
    H_MAGIC,
    H_MOST_PER_SIDE,
    H_SECTOR,
    H_STONES,
    H_THREE_COW,
    H_VERSION,
    HEADER_BYTES,
    HEADER_WORDS,
    LOST_NOW,
    MAGIC,
    MAX_DISTANCE,
    MAX_STONES_PER_SIDE,
    NO_POSITION,
    code_result,
    index_of,
    set_of_rank,
    spread,
)
from board_arena.kernels import kernel, lowest_bit_index

if TYPE_CHECKING:
    from board_arena.engines.game import Game

__all__ = ["Rules", "rules_of", "build_sector", "load", "lookup", "sector_size", "sector_list", "database_positions",
           "cache_dir", "sector_path", "DatabaseError", "FILE_KIND", "FORMAT_VERSION", "LOST_NOW", "MAX_DISTANCE",
           "forget_loaded", "main"]

#: The version of the file format (header and codes) that this module writes and reads.
FORMAT_VERSION = 1
#: The kind that a sector file's header names.
FILE_KIND = "board-arena morris sector database"
# Positions a thread takes at once when generating moves.
_CHUNK = 1 << 16

# Builder states of a position.
_UNDECIDED = 0
_WON = 1
_LOST = 2
_DRAWN = 3
_NOT_A_POSITION = 4

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_ALL = np.uint64((1 << N_POINTS) - 1)


class DatabaseError(datafile.DataFileError):
    """A sector file that cannot be used: one line saying which, what is wrong and how to build it again."""


class Rules(NamedTuple):
    """The rules that decide the values of positions after placing."""

    diagonals: bool
    flying: bool
    three_cow: int  # the three-cow draw's limit in plies, 0: no such rule
    full_board_draw: bool

    def stem(self) -> str:
        """The part of a file name that names these rules."""
        return (f"morris-{'diagonals' if self.diagonals else 'square'}-{'flying' if self.flying else 'sliding'}"
                f"-three{self.three_cow}-full{'draw' if self.full_board_draw else 'loss'}")

    def counted(self, m: int, o: int) -> bool:
        """Whether the three-cow counter runs in sector ``(m, o)``."""
        return self.three_cow > 0 and (m == 3 or o == 3)


def rules_of(game: Game) -> Rules:
    """The :class:`Rules` of a Morabaraba variant (``engines.make("nine-mens-morris")``).

    Raises:
        ValueError: a variant whose rules the databases do not cover (the message says which).
    """
    p = game.params
    if p["no_immediate_remill"] != "off":
        raise ValueError(f"{game.name}: the databases do not cover no_immediate_remill={p['no_immediate_remill']!r} yet")
    if p["no_shot_draw_plies"] is not None:
        raise ValueError(f"{game.name}: the databases do not cover the no-shot draw rule (no_shot_draw_plies)")
    return Rules(bool(p["diagonals"]), bool(p["flying"]), int(p["three_cow_draw_plies"] or 0), p["full_board"] == "draw")


def sector_size(m: int, o: int) -> int:
    """Indices of sector ``(m, o)``: canonical ``m``-cow sets times the ``o``-subsets of the rest."""
    return _class_count(m) * int(BINOMIAL[N_POINTS - m, o])


def sector_list(stones: int, most_per_side: int = MAX_STONES_PER_SIDE) -> list[tuple[int, int]]:
    """The sectors of a database of at most ``stones`` cows on the board, in build order."""
    return [(m, t - m) for t in range(6, stones + 1) for m in range(3, t - 2)
            if m <= most_per_side and t - m <= most_per_side]


def database_positions(stones: int, most_per_side: int = MAX_STONES_PER_SIDE) -> int:
    """Entries of a database of at most ``stones`` cows on the board."""
    return sum(sector_size(m, o) for m, o in sector_list(stones, most_per_side))


# -- class tables (one per number of cows), computed once per process ----------------------------

_TABLES: dict[int, tuple[np.ndarray, np.ndarray]] = {}
_TABLES_LOCK = threading.Lock()


def _class_tables(m: int) -> tuple[np.ndarray, np.ndarray]:
    with _TABLES_LOCK:
        if m not in _TABLES:
            _TABLES[m] = sectors.class_table(m)
        return _TABLES[m]


def _class_count(m: int) -> int:
    return len(_class_tables(m)[1])


def _flat_classes(most: int) -> tuple[np.ndarray, np.ndarray]:
    """The class tables of 0..``most`` cows end to end, and where each begins (-1: none)."""
    base = np.full(MAX_STONES_PER_SIDE + 1, -1, np.int64)
    parts = []
    at = 0
    for m in range(3, most + 1):
        base[m] = at
        parts.append(_class_tables(m)[0])
        at += len(parts[-1])
    return (np.concatenate(parts) if parts else np.zeros(0, np.int32)), base


# -- the compiled builder ------------------------------------------------------------------------


@kernel(inline="always")
def _position(i, m, o, forms):
    """Position ``i`` of sector ``(m, o)``: the mover's cows and the opponent's."""
    per_class = BINOMIAL[N_POINTS - m, o]
    x = forms[i // per_class]
    return x, spread(set_of_rank(i % per_class, o), _ALL & ~x)


@kernel(nogil=True)
def _generate(start, stop, m, o, forms, classes, class_base, state, dist, count, draws_by_shot,
              below, below_limit, d, fly, full_board_draw):
    """Generates the moves of positions ``start..stop-1`` of sector ``(m, o)`` (their states at
    ``i``): decides those a shot wins or that have no move, counts the distinct children of the
    others' quiet moves (in the pair's other sector), and
    notes whether a shot of theirs draws. ``below``: the codes of sector ``(o - 1, m)``, whose
    counter runs under ``below_limit`` (0: it does not)."""
    children = np.empty(400, np.int64)
    for i in range(start, stop):
        x, y = _position(i, m, o, forms)
        if index_of(x, y, classes, class_base[m]) != i:
            state[i] = _NOT_A_POSITION
            continue
        empty = _ALL & ~(x | y)
        flies = fly and m == 3
        n = 0
        moves = 0
        won = False
        drawn = False
        sources = x
        while sources != _U0 and not won:
            f = lowest_bit_index(sources)
            sources &= sources - _U1
            rest = x & ~(_U1 << np.uint64(f))
            dests = empty if flies else NEIGHBOUR_MASKS[d, f] & empty
            while dests != _U0:
                t = lowest_bit_index(dests)
                dests &= dests - _U1
                nx = rest | (_U1 << np.uint64(t))
                moves += 1
                if forms_mill(d, rest, t):
                    if o == 3:
                        won = True  # the opponent is left with two cows
                        break
                    targets = shootable(d, y)
                    while targets != _U0:
                        v = lowest_bit_index(targets)
                        targets &= targets - _U1
                        r = code_result(np.int64(below[index_of(y & ~(_U1 << np.uint64(v)), nx, classes, class_base[o - 1])]),
                                        0, below_limit)
                        if r < 0:
                            won = True
                            break
                        if r == 0:
                            drawn = True
                    if won:
                        break
                else:
                    children[n] = index_of(y, nx, classes, class_base[o])
                    n += 1
        if won:
            state[i] = _WON
            dist[i] = 1
            continue
        if moves == 0:
            if full_board_draw and empty == _U0:
                state[i] = _DRAWN
            else:
                state[i] = _LOST
                dist[i] = 0
            continue
        distinct = 0
        if n > 0:
            found = np.sort(children[:n])
            distinct = 1
            for j in range(1, n):
                if found[j] != found[j - 1]:
                    distinct += 1
        if distinct == 0:
            if drawn:
                state[i] = _DRAWN
            else:
                state[i] = _LOST
                dist[i] = 1
            continue
        count[i] = distinct
        draws_by_shot[i] = drawn


@kernel(inline="always")
def _predecessors(x, y, o, m, classes, class_base, d, fly, out):
    """The distinct indices (in sector ``(o, m)``) of the positions from which the opponent ``y``
    reached ``(x, y)`` with a quiet move; returns how many are in ``out``."""
    empty = _ALL & ~(x | y)
    flies = fly and o == 3
    n = 0
    cows = y
    while cows != _U0:
        t = lowest_bit_index(cows)
        cows &= cows - _U1
        if mills_through(d, y, t) != _U0:
            continue  # arriving there formed a mill: that move shot
        rest = y & ~(_U1 << np.uint64(t))
        sources = empty if flies else NEIGHBOUR_MASKS[d, t] & empty
        while sources != _U0:
            f = lowest_bit_index(sources)
            sources &= sources - _U1
            out[n] = index_of(rest | (_U1 << np.uint64(f)), x, classes, class_base[o])
            n += 1
    if n <= 1:
        return n
    found = np.sort(out[:n])
    distinct = 1
    out[0] = found[0]
    for j in range(1, n):
        if found[j] != found[j - 1]:
            out[distinct] = found[j]
            distinct += 1
    return distinct


@kernel(nogil=True)
def _take_back(level, m, o, forms, classes, class_base, state, dist, base_self, size, base_back, back_state,
               back_dist, back_count, back_draws, d, fly):
    """Takes back one move from every position of sector ``(m, o)`` (states from ``base_self``,
    ``size`` of them) decided at distance ``level``, deciding predecessors in the other sector of
    the pair (states from ``base_back``). Returns how many it decided."""
    out = np.empty(400, np.int64)
    decided = 0
    for i in range(size):
        s = state[base_self + i]
        if dist[base_self + i] != level or (s != _WON and s != _LOST):
            continue
        x, y = _position(i, m, o, forms)
        n = _predecessors(x, y, o, m, classes, class_base, d, fly, out)
        for j in range(n):
            p = base_back + out[j]
            if back_state[p] != _UNDECIDED:
                continue
            if s == _LOST:
                back_dist[p] = level + 1
                back_state[p] = _WON
                decided += 1
            else:
                back_count[p] -= 1
                if back_count[p] == 0:
                    if back_draws[p]:
                        back_state[p] = _DRAWN
                    else:
                        back_dist[p] = level + 1
                        back_state[p] = _LOST
                        decided += 1
    return decided


@kernel(nogil=True)
def _codes(state, dist, start, stop, out):
    """The codes of positions ``start..stop-1`` into ``out``; returns the longest distance of a
    win or loss (-1: none), which may exceed what a code holds."""
    longest = -1
    for i in range(start, stop):
        s = state[i]
        c = 0
        if s == _NOT_A_POSITION:
            c = NO_POSITION
        elif s == _WON or s == _LOST:
            k = np.int64(dist[i])
            longest = max(longest, k)
            if k > MAX_DISTANCE:
                k = MAX_DISTANCE
            if s == _WON:
                c = k
            else:
                c = LOST_NOW if k == 0 else -k
        out[i - start] = c
    return longest


# -- building a sector pair ----------------------------------------------------------------------


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _in_threads(jobs: list[tuple[Any, ...]], run, threads: int, stop: threading.Event, done_one=None) -> None:
    """Runs ``run(*job)`` for every job on ``threads`` threads; the calling thread waits (and sees
    Ctrl-C, which stops them after their current job)."""
    lock = threading.Lock()
    queue: Iterator[tuple[Any, ...]] = iter(jobs)
    failed: list[BaseException] = []

    def work():
        while not stop.is_set():
            with lock:
                job = next(queue, None)
            if job is None:
                return
            try:
                run(*job)
            except BaseException as error:  # noqa: BLE001 - handed to the calling thread
                failed.append(error)
                stop.set()
                return
            if done_one is not None:
                done_one(job)

    workers = [threading.Thread(target=work, daemon=True) for _ in range(max(1, min(threads, len(jobs))))]
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            while worker.is_alive():
                worker.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        for worker in workers:
            worker.join()
        raise
    if failed:
        raise failed[0]


def build_sector(rules: Rules, m: int, o: int, below: dict[tuple[int, int], np.ndarray], *, threads: int | None = None,
                 bar: Any = None) -> dict[tuple[int, int], np.ndarray]:
    """The codes of sectors ``(m, o)`` and ``(o, m)`` (one if ``m == o``), given the codes of the
    sectors below them (``below[(o - 1, m)]`` and ``below[(m - 1, o)]`` where those exist).
    ``bar``: a tqdm bar that the positions move on.

    Raises:
        ValueError: a distance too long for a code (then the format must change).
        KeyboardInterrupt: the build stops after the chunks under way (nothing is kept).
    """
    threads = threads or _cores()
    pair = [(m, o)] if m == o else [(m, o), (o, m)]
    classes, class_base = _flat_classes(max(m, o))
    sizes = [sector_size(a, b) for a, b in pair]
    bases = [0, sizes[0]]
    total = sum(sizes)
    state = np.zeros(total, np.int8)
    dist = np.zeros(total, np.int16)
    count = np.zeros(total, np.int16)
    draws = np.zeros(total, np.bool_)
    d, fly, full = int(rules.diagonals), bool(rules.flying), bool(rules.full_board_draw)
    stop = threading.Event()
    none = np.zeros(1, np.int16)
    jobs = []
    for k, (a, b) in enumerate(pair):
        under = below.get((b - 1, a), none) if b > 3 else none
        limit = rules.three_cow if rules.counted(b - 1, a) else 0
        forms = _class_tables(a)[1]
        views = (state[bases[k]:], dist[bases[k]:], count[bases[k]:], draws[bases[k]:])
        for start in range(0, sizes[k], _CHUNK):
            jobs.append((start, min(sizes[k], start + _CHUNK), a, b, forms, classes, class_base, *views,
                         under, limit, d, fly, full))

    def moved(job):
        if bar is not None:
            bar.update(job[1] - job[0])

    _in_threads(jobs, _generate, threads, stop, moved)
    level = 0
    while True:
        found = [0] * len(pair)

        def take_back(k, level=level):
            a, b = pair[k]
            back = bases[1 - k] if len(pair) == 2 else 0
            found[k] = _take_back(level, a, b, _class_tables(a)[1], classes, class_base, state, dist, bases[k], sizes[k],
                                  back, state, dist, count, draws, d, fly)

        # The two sectors of a pair at once from level 1 on: each thread reads its own sector's
        # positions of this level and writes only the other's undecided ones (their distance,
        # then their state, never this level's), so neither sees the other's writes as this
        # level's work. At level 0 a position written at level 1 could be read half written.
        _in_threads([(k,) for k in range(len(pair))], take_back, threads if level > 0 else 1, stop)
        decided = sum(found)
        if bar is not None:
            bar.set_postfix(sector=f"{m}-{o}", level=level)
        level += 1
        if decided == 0 and level > 1:  # the moves' generation decides positions at distances 0 and 1
            break
        if level > np.iinfo(np.int16).max - 2:
            raise ValueError(f"sector {m}-{o}: distances beyond {level} plies")
    result = {}
    for k, sector in enumerate(pair):
        codes = np.empty(sizes[k], np.int16)
        longest = _codes(state, dist, bases[k], bases[k] + sizes[k], codes)
        if longest > MAX_DISTANCE:
            raise ValueError(f"sector {sector[0]}-{sector[1]} has a distance of {longest} plies, beyond the "
                             f"{MAX_DISTANCE} that a code holds")
        result[sector] = codes
        if bar is not None:
            bar.update(sizes[k])
    return result


# -- files ---------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """Where sector files are kept: ``$BOARD_ARENA_CACHE/endgame`` or the user's cache folder."""
    return datafile.cache_root() / "endgame"


def sector_path(rules: Rules, m: int, o: int) -> Path:
    """The file of sector ``(m, o)`` under ``rules`` in the cache folder."""
    return cache_dir() / f"{rules.stem()}-s{m}-{o}.egdb"


def _fields(rules: Rules, m: int, o: int) -> dict[str, Any]:
    return {"game": "morris", "diagonals": rules.diagonals, "flying": rules.flying, "three_cow": rules.three_cow,
            "full_board_draw": rules.full_board_draw, "sector": [m, o]}


def _hint(rules: Rules, m: int, o: int) -> str:
    return f"delete it and build it again (python -m board_arena.engines.morabaraba.retrograde ... --stones {m + o})"


def _read_sector(rules: Rules, m: int, o: int) -> tuple[np.ndarray, int]:
    """The codes of a sector file, verified, and the longest distance that decides its values."""
    path = sector_path(rules, m, o)
    try:
        header = datafile.read_header(path, FILE_KIND)
        codes = datafile.read(path, FILE_KIND, FORMAT_VERSION, _fields(rules, m, o), np.dtype(np.int16))
    except datafile.DataFileError as error:
        raise DatabaseError(f"{error}; {_hint(rules, m, o)}") from None
    if len(codes) != sector_size(m, o):
        raise DatabaseError(f"{path} holds {len(codes):,} codes, not the {sector_size(m, o):,} of sector {m}-{o}; "
                            + _hint(rules, m, o))
    return codes, int(header.get("longest", MAX_DISTANCE))


def _longest_deciding(rules: Rules, m: int, o: int, codes: np.ndarray) -> int:
    """The longest distance of a win or loss that the three-cow rule lets stand (for the ply cap)."""
    decisive = np.abs(codes[(codes != 0) & (codes != LOST_NOW) & (codes != NO_POSITION)].astype(np.int64))
    if rules.counted(m, o):
        decisive = decisive[decisive <= rules.three_cow]
    return int(decisive.max()) if len(decisive) else 0


# Databases assembled in this process, by rules and stones: a second game does not read the files again.
_LOADED: dict[tuple[Rules, int, int], np.ndarray] = {}


def forget_loaded() -> None:
    """Forgets the databases assembled in this process: the next :func:`load` reads the files again."""
    _LOADED.clear()


def _assemble(rules: Rules, stones: int, most_per_side: int, parts: dict[tuple[int, int], tuple[np.ndarray, int]]) -> np.ndarray:
    """The database array: header, class tables, sectors (see :mod:`engines.morabaraba.sectors`)."""
    most = min(most_per_side, stones - 3)
    classes, _ = _flat_classes(most)
    header = np.zeros(HEADER_WORDS, np.int64)
    header[H_MAGIC] = MAGIC
    header[H_VERSION] = FORMAT_VERSION
    header[H_STONES] = stones
    header[H_DIAGONALS] = rules.diagonals
    header[H_FLYING] = rules.flying
    header[H_THREE_COW] = rules.three_cow
    header[H_FULL_BOARD_DRAW] = rules.full_board_draw
    header[H_MOST_PER_SIDE] = most_per_side
    header[H_CLASS_TABLE:H_CLASS_TABLE + MAX_STONES_PER_SIDE + 1] = -1
    header[H_SECTOR:H_SECTOR + (MAX_STONES_PER_SIDE + 1) ** 2] = -1
    at = HEADER_BYTES
    for m in range(3, most + 1):
        header[H_CLASS_TABLE + m] = at
        at += 4 * len(_class_tables(m)[0])
    for m, o in parts:
        header[H_SECTOR + (MAX_STONES_PER_SIDE + 1) * m + o] = at
        at += 2 * len(parts[(m, o)][0])
    bound = 0
    for t in range(N_POINTS + 1):
        bound += max((longest for (m, o), (_, longest) in parts.items() if m + o == t), default=0)
        header[H_BOUND + t] = bound
    db = np.empty(at, np.int8)
    db[:HEADER_BYTES] = header.view(np.int8)
    db[HEADER_BYTES:HEADER_BYTES + 4 * len(classes)] = classes.view(np.int8)
    for (m, o), (codes, _) in parts.items():
        start = header[H_SECTOR + (MAX_STONES_PER_SIDE + 1) * m + o]
        db[start:start + 2 * len(codes)] = codes.astype("<i2").view(np.int8)
    return db


def load(game: Game, stones: int, *, build_missing: bool = False, progress: bool = False, threads: int | None = None) -> np.ndarray | None:
    """The database of ``game``'s variant with every position of at most ``stones`` cows on the
    board (no cows in hand), from the sector files in the cache folder; None if one is missing
    and ``build_missing`` is false (else the missing ones are built and saved, in order).

    Raises:
        ValueError: the variant's rules are not covered, or ``stones`` is out of range.
        DatabaseError: a sector file fails its checks.
        OSError: the cache folder cannot be written.
    """
    rules = rules_of(game)
    most = int(game.params["cows"])
    check_stones(game, stones)
    key = (rules, stones, most)
    if key in _LOADED:
        return _LOADED[key]
    wanted = sector_list(stones, most)
    parts: dict[tuple[int, int], tuple[np.ndarray, int]] = {}
    missing = []
    for m, o in wanted:
        try:
            parts[(m, o)] = _read_sector(rules, m, o)
        except FileNotFoundError:
            missing.append((m, o))
    if missing and not build_missing:
        return None
    if missing:
        _build_missing(rules, missing, parts, progress=progress, threads=threads)
    db = _assemble(rules, stones, most, parts)
    _LOADED[key] = db
    return db


def check_stones(game: Game, stones: int) -> None:
    """Raises ValueError unless a database of ``stones`` cows on the board can serve ``game``."""
    most = 2 * int(game.params["cows"])
    if not isinstance(stones, (int, np.integer)) or not 6 <= stones <= most:
        raise ValueError(f"a morris database of {game.name} holds 6 to {most} cows on the board, not {stones!r}")


def _build_missing(rules: Rules, missing: list[tuple[int, int]], parts: dict, *, progress: bool, threads: int | None) -> None:
    bar = None
    todo = []
    for sector in missing:
        if (sector[1], sector[0]) not in todo:
            todo.append(sector)
    if progress:
        from tqdm import tqdm

        # Each position twice: once when its moves are generated, once when its code is written.
        total = 2 * sum(sector_size(m, o) + (sector_size(o, m) if m != o else 0) for m, o in todo)
        bar = tqdm(total=total, unit="pos", unit_scale=True, desc="morris databases", file=sys.stderr, smoothing=0.05)
    try:
        for m, o in todo:
            if bar is not None:
                bar.set_postfix(sector=f"{m}-{o}")
            below = {s: parts[s][0] for s in ((o - 1, m), (m - 1, o)) if s in parts}
            started = time.process_time()
            built = build_sector(rules, m, o, below, threads=threads, bar=bar)
            seconds = time.process_time() - started
            for (a, b), codes in built.items():
                longest = _longest_deciding(rules, a, b, codes)
                path = sector_path(rules, a, b)
                datafile.remove_stale_partials(path)
                datafile.write(path, FILE_KIND, FORMAT_VERSION, {**_fields(rules, a, b), "longest": longest,
                                                                 "build_cpu_seconds": round(seconds, 1)}, codes)
                parts[(a, b)] = (codes, longest)
    finally:
        if bar is not None:
            bar.close()


def lookup(db: np.ndarray, movers: np.ndarray, opponents: np.ndarray) -> np.ndarray:
    """The codes of positions ``(movers[i], opponents[i])`` (bitboards, the mover to move) in
    database ``db`` (:func:`load`'s); each must be in it."""
    movers = np.ascontiguousarray(movers, np.uint64)
    opponents = np.ascontiguousarray(opponents, np.uint64)
    if movers.shape != opponents.shape:
        raise ValueError("movers and opponents must have the same length")
    out = np.empty(len(movers), np.int16)
    _lookup_many(db, movers, opponents, out)
    return out


@kernel
def _lookup_many(db, movers, opponents, out):
    for i in range(len(movers)):
        out[i] = sectors.code_at(db, movers[i], opponents[i])


def main(argv: Sequence[str] | None = None) -> int:
    """The builder's command line: every bad input is one line and status 2; Ctrl-C is one line
    and status 130 (the sectors finished are kept, the one under way is built again next time)."""
    from board_arena.engines.registry import make

    prog = "python -m board_arena.engines.morabaraba.retrograde"
    parser = OneLineParser(prog=prog, description="Build the morris databases (positions after placing) into the "
                                                  f"cache folder ({cache_dir()}).")
    parser.add_argument("--game", default="nine-mens-morris",
                        help="nine-mens-morris, morabaraba or a variant with parameters (default nine-mens-morris)")
    parser.add_argument("--stones", type=int, default=8, help="the most cows on the board, 6.. (default 8)")
    parser.add_argument("--threads", type=int, default=None, help="threads generating moves (default: every core)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
    try:
        game = make(args.game)
        if game.family != "morabaraba":
            parser.error(f"--game must be a morris game (nine-mens-morris, morabaraba, ...), not {args.game!r}")
        if args.threads is not None and args.threads < 1:
            parser.error(f"--threads must be at least 1, not {args.threads}")
        rules_of(game)
        check_stones(game, args.stones)
        started, cpu = time.perf_counter(), time.process_time()
        db = load(game, args.stones, build_missing=True, progress=True, threads=args.threads)
        assert db is not None
        positions = database_positions(args.stones, int(game.params["cows"]))
        print(f"{game.name}: every position with at most {args.stones} cows on the board, {positions:,} entries (a "
              f"position up to symmetry each, a few unused) in {len(sector_list(args.stones, int(game.params['cows'])))} "
              f"sectors ({time.perf_counter() - started:.1f} s, "
              f"{time.process_time() - cpu:.1f} s of processor time), in {cache_dir()}")
        return 0
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 2
    except (ValueError, OSError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        print(f"\n{prog}: interrupted; the sectors finished are kept and the build resumes at the next", file=sys.stderr)
        if argv is not None:
            signal.signal(signal.SIGINT, previous)
        return 130


if __name__ == "__main__":
    sys.exit(main())
