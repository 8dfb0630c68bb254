"""An exact solver: the final margin of a game under perfect play and a move that achieves it.

What it computes: the value of a position is the game's final ``margin`` (``engines.contract``:
Kalah's store difference, capture-scored Konane's capture difference, or the outcome 1 / 0 / -1
for a game without a margin) when both players play perfectly, the first player maximising it and
the second minimising it. The search works with the *change* of the margin from a position to the
end, seen by the player to move, so that a position reached with different scores (a Kalah board
with other stores) is one table entry (``contract.solve_key``).

How (the methods of Irving, Donkers and Uiterwijk, "Solving Kalah", ICGA Journal 2000, and of
Plaat et al.'s MTD(f), 1996), all in compiled code with an explicit stack (numba does not cache a
recursive kernel that other kernels call):

* MTD(f): a sequence of null-window searches ``(beta - 1, beta)`` over integer margins, each
  moving an exact lower or upper bound of the root's value, until they meet. A fail-soft search
  returns a bound beyond the window, which often skips many values at once.
* A table of proven bounds: buckets of four 16-byte entries (one cache line), each holding a
  lower and an upper bound of a position's value, valid at any depth since every search goes to
  the end, and the move that proved the best lower bound, tried first. A new entry replaces the
  bucket's entry whose subtree cost the fewest positions (kept as log2), so that the costly
  proofs stay; entries from an opening book (:class:`Book`) are never replaced. An entry is
  written as two words, its data and its key XOR its data (Hyatt's lockless hashing), so that
  threads share one table: an entry half-written by another thread reads as empty.
* Bounds cut at once: ``contract.margin_bounds`` (Kalah: the seeds still on the board), the
  table's bounds of the position and, before any child is searched, of every child (enhanced
  transposition cutoff), and the endgame database when one is given (``contract.endgame_value``).
* Move ordering (it decides most of the cost): the table's move; then the moves after which the
  same player moves again (Kalah's extra turns: free, and the other pits keep their counts);
  then by the best estimate of the move's value that the children's known bounds allow (its
  immediate gain, clamped into them), by the child's proven lower bound, by the game's
  ``heuristic`` of the child (which orders normal-play Konane, whose moves gain nothing until the
  end); ties go to the later move in ``legal_moves`` order (Kalah: the pit nearest the store, so
  that sowing it leaves the other pits as they were). The root mover's opponent, which must
  refute every move of the root's mover in a test that fails low (the costly test), breaks its
  ties by the move that leaves the fewest replies, so that fewer positions need every move
  refuted (for the root mover the same order costs more).
* The first test value of MTD(f) comes from iterative-deepening estimates (MTD(f) to 2, 4, ...
  12 plies in a small table of its own, a position at the horizon estimated as no further change),
  for games with a margin.
* Threads (``threads``) share the table and test the same value, splitting its moves as
  Weill's ABDADA (1996) does: a move other than the first whose position another thread is
  searching waits for a second pass over the moves (:func:`_next_move`), by when the table often
  holds its proof; with ``SPLIT`` off, each thread tests a value of its own instead (the second
  the value above the first's).
* Budgets: a node count, a wall-clock deadline (checked every 4096 positions) and a stop flag
  that another thread sets (a processor-time limit, Ctrl-C, another thread's finished solve);
  the search kernels release the interpreter lock.

The Python face is :func:`solve` (and the ``solver`` agent, which plays by it);
``alphabeta:solve=true`` and ``experiments/solve.py`` use it.
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from board_arena.agents.base import (
    NODES,
    TIME,
    Agent,
    Limit,
    SearchInfo,
    register_agent,
)
from board_arena.agents.params import AgentParam
from board_arena.engines import Game, State, contract, datafile
from board_arena.kernels import (
    JIT_DISABLED,
    deadline_after,
    kernel,
    monotonic_ns,
    rng_below,
)

__all__ = ["new_solver_table", "estimate", "prove", "name_move", "solve", "Solution", "Book", "book_path",
           "SolverAgent", "MAX_THREADS"]

# One table entry: two uint64 words, [check, data]; four to a bucket (a 64-byte cache line).
# data packs, from the low bits: lower + 2**15 (16 bits), upper + 2**15 (16), move + 1 (16: the
# index in legal_moves order of the move that proved the lower bound, 0: none), work (8: 1 + log2
# of the positions its last search visited; 0: an empty entry; WORK_PINNED: never replaced).
# check is the position's key XOR data.
BUCKET = 4
ENTRY_WORDS = 2
# Stored bounds are clamped to int16 (a looser bound is still a true bound).
_BOUND_CAP = 32767
#: The work of an entry that is never replaced (a value from an opening book).
WORK_PINNED = 255
_U16 = np.uint64(16)
_U32 = np.uint64(32)
_U48 = np.uint64(48)
_MASK16 = np.uint64(0xFFFF)
# Scores within the search: margins are small ints, so these never meet a real value.
_INF = np.int64(1 << 40)
# Enhanced transposition cutoff: probe every child's table entry before searching any (fewer
# positions for a little more work per position; off only to compare).
ETC = True
# Threads split each test's moves (ABDADA, see _next_move) rather than test neighbouring values
# (off only to compare); the marks of positions being searched, by the low bits of their keys.
SPLIT = True
BUSY_SLOTS = 1 << 15

# Slots of the ``stats`` array (one per searching thread).
STAT_NODES = 0
STAT_NODE_LIMIT = 1
STAT_DEADLINE = 2  # monotonic_ns deadline, 0: none
STAT_ABORTED = 3  # ABORTED_* or 0
STAT_SEARCHES = 4  # null-window searches run by MTD(f)
# Counters of the search's shape (measurements; a few increments per searched position):
STAT_CUT_FIRST = 5  # + mover: positions that failed high on the first move searched
STAT_CUT_LATER = 7  # + mover: positions that failed high on a later move
STAT_ALL = 9  # + mover: positions whose every move was searched (failed low or exact)
STAT_PROBE_HITS = 11  # table probes of a searched position that found its entry
STAT_PROBES = 12  # table probes of searched positions
STAT_EVICTIONS = 13  # stores that replaced another position's entry
STAT_STORES = 14  # stores
STAT_ETC_CUTS = 15  # positions settled by a child's known bounds before any child was searched
STAT_SIZE = 16
#: What :attr:`Solution.counters` holds (of the exact searches, not of the estimates that seed
#: them), by name: the stats slot of each counter; p0 and p1 are the player to move.
COUNTERS = {
    "cut_first_p0": STAT_CUT_FIRST, "cut_first_p1": STAT_CUT_FIRST + 1,
    "cut_later_p0": STAT_CUT_LATER, "cut_later_p1": STAT_CUT_LATER + 1,
    "all_p0": STAT_ALL, "all_p1": STAT_ALL + 1,
    "etc_cuts": STAT_ETC_CUTS, "probes": STAT_PROBES, "probe_hits": STAT_PROBE_HITS,
    "stores": STAT_STORES, "evictions": STAT_EVICTIONS,
}
ABORTED_BUDGET = 1  # a budget ran out or the search was stopped
ABORTED_DEPTH = 2  # the game was longer than the stack
ABORTED_DECIDED = 3  # another thread decided the value this search was testing

#: The most threads that one solve shares its table between.
MAX_THREADS = 8
# Slots of the ``control`` array (int64[CONTROL_SIZE]) shared by the threads of one solve.
CONTROL_STOP = 0  # set (by any thread or the caller) to stop every search at its next check
CONTROL_GUESS = 1  # the last value a null-window search returned: where the next tests go
CONTROL_DECIDED = 2  # + thread: set when another thread's bounds decided that thread's test
CONTROL_BETA = 2 + MAX_THREADS  # + thread: the value that thread is testing
CONTROL_SIZE = 2 + 2 * MAX_THREADS

# Per-ply frame fields (int64 columns of ``frames``).
F_ALPHA = 0
F_BETA = 1
F_ALPHA0 = 2  # alpha when the children's search began: tells an exact value from a bound
F_BEST = 3
F_BEST_I = 4  # index (legal_moves order) of the best child so far
F_COUNT = 5
F_NEXT = 6  # position in ``order`` of the next child to search
F_ME = 7
F_NODES0 = 8  # STAT_NODES on entry: the subtree's cost
F_KEY = 9  # the position's solve_key (as int64 bits)
F_SKIPPED_HIGH = 10  # the highest upper bound of the children skipped as unable to raise alpha
F_SEARCHED = 11  # moves handed out for searching so far (the first is never deferred)
F_PASS = 12  # 0: the first pass over the moves; 1: the second, over the deferred ones
F_DEFERRED = 13  # moves deferred in the first pass (another thread was searching them)
F_BUSY = 14  # the slot of ``busy`` that marks this position as being searched, -1: none
F_SIZE = 15
# ``same`` flag of a move deferred to the second pass.
_DEFERRED = 4


if JIT_DISABLED:

    def prefetch(array, index):
        """Pure-Python mode: nothing to fetch."""

    def _uncounted(array):
        """Pure-Python mode: the array itself."""
        return array

else:

    @intrinsic
    def prefetch(typingctx, array, index):
        """Starts loading ``array[index]`` into the cache (LLVM's prefetch: read, keep), so that
        the table lookups of all children of a position wait for memory once, together."""
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, signature, args):
            array_type = signature.args[0]
            data = context.make_array(array_type)(context, builder, args[0])
            index = [args[1]] + [context.get_constant(types.intp, 0)] * (array_type.ndim - 1)
            pointer = cgutils.get_item_pointer(context, builder, array_type, data, index, wraparound=False)
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
            builder.call(fn, [builder.bitcast(pointer, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return types.none(array, index), codegen

    @intrinsic
    def _uncounted(typingctx, array):
        """A view of ``array`` that numba does not reference-count (its meminfo is null), for a
        function that binds the array many times in a hot loop, on the condition that the view
        never outlives the array (see :func:`_null_window`)."""
        if not isinstance(array, types.Array):
            return None

        def codegen(context, builder, signature, args):
            view = context.make_array(signature.args[0])(context, builder, value=args[0])
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            return view._getvalue()

        return array(array), codegen


def new_solver_table(megabytes: float) -> np.ndarray:
    """A zeroed table (``uint64[entries, 2]``) of the largest power-of-two number of buckets
    within ``megabytes``."""
    buckets = max(1, int(megabytes * 2**20) // (8 * ENTRY_WORDS * BUCKET))
    return np.zeros((BUCKET << (buckets.bit_length() - 1), ENTRY_WORDS), np.uint64)


@kernel(inline="always")
def _bucket_of(table, key):
    return np.int64(key & np.uint64(len(table) // BUCKET - 1)) * BUCKET


@kernel(inline="always")
def _log2_work(nodes):
    work = 1
    while nodes > 1 and work < 60:
        nodes >>= 1
        work += 1
    return work


@kernel(inline="always")
def _pack(lower, upper, move, work):
    return (
        np.uint64(lower + 32768)
        | (np.uint64(upper + 32768) << _U16)
        | (np.uint64(move + 1) << _U32)
        | (np.uint64(work) << _U48)
    )


@kernel(inline="always")
def _lower_of(data):
    return np.int64(data & _MASK16) - 32768


@kernel(inline="always")
def _upper_of(data):
    return np.int64((data >> _U16) & _MASK16) - 32768


@kernel(inline="always")
def _move_of(data):
    return np.int64((data >> _U32) & _MASK16) - 1


@kernel(inline="always")
def _work_of(data):
    return np.int64(data >> _U48)


@kernel(inline="always")
def _probe(table, key):
    """The data word of ``key``'s entry, or 0 (none)."""
    b = _bucket_of(table, key)
    for j in range(BUCKET):
        data = table[b + j, 1]
        if data != 0 and table[b + j, 0] ^ data == key:
            return data
    return np.uint64(0)


@kernel(inline="always")
def _store(table, key, lower, upper, move, work):
    """Records proven bounds of ``key`` (and the move that proved ``lower``, -1: none): merged into
    its entry if present, else in place of the bucket's cheapest entry (``work``: see
    :func:`_log2_work`). Returns 1 when another position's entry was replaced, else 0."""
    lower = max(lower, -_BOUND_CAP)
    upper = min(upper, _BOUND_CAP)
    b = _bucket_of(table, key)
    victim = b
    victim_work = np.int64(1 << 20)
    for j in range(BUCKET):
        data = table[b + j, 1]
        if data != 0 and table[b + j, 0] ^ data == key:
            old_lower = _lower_of(data)
            # The move kept is the one that proved the best lower bound.
            if move < 0 or lower < old_lower:
                move = _move_of(data)
            new = _pack(max(old_lower, lower), min(_upper_of(data), upper), move, max(_work_of(data), work))
            table[b + j, 1] = new
            table[b + j, 0] = key ^ new
            return 0
        w = _work_of(data)
        if w < victim_work:
            victim = b + j
            victim_work = w
    evicted = 1 if table[victim, 1] != 0 else 0
    new = _pack(lower, upper, move, work)
    table[victim, 1] = new
    table[victim, 0] = key ^ new
    return evicted


@kernel(inline="always")
def _mover_bounds(s, me):
    """``margin_bounds`` of ``s`` seen by ``me`` (player 0 sees them as they are)."""
    lo, hi = contract.margin_bounds(s)
    if me == 0:
        return np.int64(lo), np.int64(hi)
    return np.int64(-hi), np.int64(-lo)


@kernel(inline="always")
def _count_node(stats, control, thread):
    stats[STAT_NODES] += 1
    if stats[STAT_NODES] >= stats[STAT_NODE_LIMIT]:
        stats[STAT_ABORTED] = ABORTED_BUDGET
    elif stats[STAT_NODES] & 4095 == 0:
        if control[CONTROL_STOP] != 0:
            stats[STAT_ABORTED] = ABORTED_BUDGET
        elif control[CONTROL_DECIDED + thread] != 0:
            stats[STAT_ABORTED] = ABORTED_DECIDED
        elif stats[STAT_DEADLINE] != 0 and monotonic_ns() >= stats[STAT_DEADLINE]:
            stats[STAT_ABORTED] = ABORTED_BUDGET


class _SearchStack(NamedTuple):
    """The arrays of the null-window search's explicit stack, made once per :func:`solve_position`
    and shared by its searches. ``P = max_ply + 1`` plies; ``W = contract.max_moves(root)``; row
    ``p`` of each array belongs to the position at ply ``p``, column ``i`` to its ``i``-th legal
    move (``legal_moves`` order)."""

    states: np.ndarray  # state records [P]: the position at each ply
    kids: np.ndarray  # state records [P * W]: the children of the position at ply p from p * W on
    moves: np.ndarray  # int64[P, W]: the legal moves
    deltas: np.ndarray  # int64[P, W]: the margin change of the move, mover's view
    same: np.ndarray  # int8[P, W]: 1 the mover moves again, 0 not, 2 the value is known and counted;
    # _DEFERRED added while a move waits for the second pass
    lows: np.ndarray  # int64[P, W]: proven lower bound of the child's value (its mover's view)
    highs: np.ndarray  # int64[P, W]: proven upper bound, then of the move's value (this mover's)
    hints: np.ndarray  # int64[P, W]: the child's heuristic, scaled, mover's view (move ordering)
    child_keys: np.ndarray  # uint64[P, W]: the child's table key
    order: np.ndarray  # int64[P, W]: the moves in search order
    keys: np.ndarray  # int64[P, W]: their sort keys
    frames: np.ndarray  # int64[P, F_SIZE]: the search's state at each ply (F_* columns)


@kernel
def _new_search_stack(root, max_ply):
    """A :class:`_SearchStack` for lines of up to ``max_ply`` plies from ``root``."""
    plies = max_ply + 1
    width = contract.max_moves(root)
    return _SearchStack(
        contract.new_states(root, plies),
        contract.new_states(root, plies * width),
        np.empty((plies, width), contract.MOVE_DTYPE),
        np.zeros((plies, width), np.int64),
        np.zeros((plies, width), np.int8),
        np.zeros((plies, width), np.int64),
        np.zeros((plies, width), np.int64),
        np.zeros((plies, width), np.int64),
        np.zeros((plies, width), np.uint64),
        np.zeros((plies, width), np.int64),
        np.zeros((plies, width), np.int64),
        np.zeros((plies, F_SIZE), np.int64),
    )


@kernel(inline="always")
def _known_value(w, ply, me, table, horizon, stats):
    """What is known of the value of ``w.states[ply]`` (``me`` to move, whose view the value is)
    before searching it, within the window in ``w.frames[ply]``: returns ``(settled, value, lo,
    hi, tt_move)``, with ``settled`` when the table's or the margin's bounds, or the horizon, give
    a value that decides the window; else the bounds ``lo, hi`` known so far and the table's move.
    (The endgame database was read when the parent looked at its children: a position it holds
    is never entered; the root's entry is read by :func:`solve_position`.)

    The root is never settled by what is known of its value: the search must name the child that
    reaches it. Below ``horizon`` plies a position is estimated as no further change of the margin.
    """
    s = w.states[ply]
    a = w.frames[ply, F_ALPHA]
    b = w.frames[ply, F_BETA]
    lo, hi = _mover_bounds(s, me)
    tt_move = np.int64(-1)
    data = _probe(table, np.uint64(w.frames[ply, F_KEY]))
    stats[STAT_PROBES] += 1
    if data != 0:
        stats[STAT_PROBE_HITS] += 1
        lo = max(lo, _lower_of(data))
        hi = min(hi, _upper_of(data))
        tt_move = _move_of(data)
    if ply == 0:
        lo = -_INF
        hi = _INF
    if lo >= b or lo == hi:
        return True, lo, lo, hi, tt_move
    if hi <= a:
        return True, hi, lo, hi, tt_move
    if ply >= horizon:
        return True, min(max(np.int64(0), lo), hi), lo, hi, tt_move
    return False, np.int64(0), lo, hi, tt_move


@kernel(inline="always")
def _look_at_children(w, ply, me, n, table, db, db_k, refuter):
    """Plays each of the ``n`` moves of ``w.states[ply]`` (``me`` to move) into ``w.kids`` and
    notes, per move ``i``: ``deltas[ply, i]``, ``same[ply, i]``, ``hints[ply, i]``,
    ``child_keys[ply, i]`` and the child's bounds from the margin and the database in
    ``lows``/``highs[ply, i]`` (0 for a terminal child, whose move's value is its delta: ``same``
    2). Starts fetching each child's table bucket, so that the cache misses of all children
    overlap instead of following one another. At a position of ``refuter`` (-1: none) the hint
    puts first the children that leave the opponent the fewest moves."""
    s = w.states[ply]
    base = contract.margin(s)
    width = w.moves.shape[1]
    for i in range(n):
        w.kids[ply * width + i] = s
        child = w.kids[ply * width + i]
        contract.apply_move(child, w.moves[ply, i])
        d = np.int64(contract.margin(child) - base)
        if me != 0:
            d = -d
        w.deltas[ply, i] = d
        if contract.is_terminal(child):
            w.same[ply, i] = 2  # terminal: the value of the move is d
            w.hints[ply, i] = 0
            w.lows[ply, i] = 0
            w.highs[ply, i] = 0
            continue
        them = contract.current_player(child)
        w.same[ply, i] = 1 if them == me else 0
        h = contract.heuristic(child)
        hint = np.int64((1.0 + (h if me == 0 else -h)) * 65536.0)
        if me == refuter and them != me and ply + 1 < w.moves.shape[0]:
            # Fewer replies first (the heuristic breaks ties): a refutation that leaves the
            # opponent fewer moves leaves fewer positions whose every move must be refuted.
            replies = contract.legal_moves(child, w.moves[ply + 1])
            hint = ((64 - min(replies, 63)) << 10) + (hint >> 8)
        w.hints[ply, i] = hint
        k_lo, k_hi = _mover_bounds(child, them)
        ckey = contract.solve_key(child)
        w.child_keys[ply, i] = ckey
        v = contract.endgame_value(child, db, db_k)
        if v != contract.NO_ENDGAME_VALUE:
            k_lo = v
            k_hi = v
        elif ETC:
            prefetch(table, _bucket_of(table, ckey))
        w.lows[ply, i] = k_lo
        w.highs[ply, i] = k_hi


@kernel(inline="always")
def _bound_moves(w, ply, n, tt_move, b, table):
    """Turns the children's bounds noted by :func:`_look_at_children` (tightened by their table
    entries) into bounds of each move's value for the mover: ``highs[ply, i]`` becomes the
    move's upper bound, a move known exactly is marked ``same`` 2, and ``keys[ply, i]`` gets the
    move's sort key (see the module's notes on move ordering). Returns ``(best, best_i)``, the
    best lower bound of a move and its index; stops at a move proven to reach ``b``."""
    best = -_INF
    best_i = 0
    for i in range(n):
        d = w.deltas[ply, i]
        k_lo = w.lows[ply, i]
        k_hi = w.highs[ply, i]
        if ETC and w.same[ply, i] != 2 and k_lo != k_hi:
            data = _probe(table, w.child_keys[ply, i])
            if data != 0:
                k_lo = max(k_lo, _lower_of(data))
                k_hi = min(k_hi, _upper_of(data))
        if w.same[ply, i] == 0:
            c_lo = d - k_hi
            c_hi = d - k_lo
        else:
            c_lo = d + k_lo
            c_hi = d + k_hi
        w.highs[ply, i] = c_hi
        if c_lo > best:
            best = c_lo
            best_i = i
        w.order[ply, i] = i
        if i == tt_move:
            w.keys[ply, i] = 1 << 62
        else:
            estimate = min(max(d, c_lo), c_hi)
            w.keys[ply, i] = (
                ((w.same[ply, i] & 1) << 58)
                + ((min(max(estimate, -(1 << 15)), (1 << 15) - 1) + (1 << 15)) << 40)
                + ((min(max(c_lo, -(1 << 15)), (1 << 15) - 1) + (1 << 15)) << 20)
                + (w.hints[ply, i] << 3)
                + min(i, 7)
            )
        if c_lo == c_hi:
            w.same[ply, i] = 2  # known exactly and counted in best: never searched
            if c_lo >= b:
                break
    return best, best_i


@kernel(inline="always")
def _sort_moves(w, ply, n):
    """Sorts ``order[ply, :n]`` by ``keys[ply, :n]``, largest first (insertion sort: n is small)."""
    for i in range(1, n):
        m = w.order[ply, i]
        kk = w.keys[ply, i]
        j = i - 1
        while j >= 0 and w.keys[ply, j] < kk:
            w.order[ply, j + 1] = w.order[ply, j]
            w.keys[ply, j + 1] = w.keys[ply, j]
            j -= 1
        w.order[ply, j + 1] = m
        w.keys[ply, j + 1] = kk


@kernel(inline="always")
def _open(w, ply, me, lo, hi, tt_move, table, db, db_k, stats, refuter):
    """Sets up the search of the children of ``w.states[ply]`` (``me`` to move; not settled by
    :func:`_known_value`, whose ``lo, hi, tt_move`` it takes), unless a child is proven good
    enough without a search (enhanced transposition cutoff). Returns ``(settled, value)``."""
    s = w.states[ply]
    a = max(w.frames[ply, F_ALPHA], lo)
    b = min(w.frames[ply, F_BETA], hi)
    n = contract.legal_moves(s, w.moves[ply])
    w.frames[ply, F_ME] = me
    w.frames[ply, F_COUNT] = n
    w.frames[ply, F_NODES0] = stats[STAT_NODES]
    _look_at_children(w, ply, me, n, table, db, db_k, refuter)
    best, best_i = _bound_moves(w, ply, n, tt_move, b, table)
    if best >= b:
        w.frames[ply, F_BEST_I] = best_i
        stats[STAT_ETC_CUTS] += 1
        return True, best
    _sort_moves(w, ply, n)
    w.frames[ply, F_ALPHA] = max(a, best)
    w.frames[ply, F_BETA] = b
    w.frames[ply, F_ALPHA0] = max(a, best)
    w.frames[ply, F_BEST] = best
    w.frames[ply, F_BEST_I] = best_i
    w.frames[ply, F_NEXT] = 0
    w.frames[ply, F_SKIPPED_HIGH] = -_INF
    w.frames[ply, F_SEARCHED] = 0
    w.frames[ply, F_PASS] = 0
    w.frames[ply, F_DEFERRED] = 0
    return False, np.int64(0)


@kernel(inline="always")
def _fold(w, ply, value):
    """Folds the value of the child just searched (its mover's view) into the frame of ``ply``;
    True when it reaches beta (a cutoff)."""
    i = w.order[ply, w.frames[ply, F_NEXT] - 1]
    c = w.deltas[ply, i] + (value if w.same[ply, i] == 1 else -value)
    if c > w.frames[ply, F_BEST]:
        w.frames[ply, F_BEST] = c
        w.frames[ply, F_BEST_I] = i
        if c > w.frames[ply, F_ALPHA]:
            w.frames[ply, F_ALPHA] = c
    return c >= w.frames[ply, F_BETA]


@kernel(inline="always")
def _next_move(w, ply, busy):
    """The index of the next move of ``ply`` to search, -1 when none is left. Moves known exactly
    are passed over (counted already), and so are moves proven unable to raise alpha, whose upper
    bounds a fail-low bound must still cover (``F_SKIPPED_HIGH``). With threads sharing the
    table (``busy`` not empty), a move other than the first whose position another thread is
    searching is deferred to a second pass over the moves (Weill's ABDADA, 1996): meanwhile this
    thread searches the others, and by the second pass the table often holds the deferred one's
    proof."""
    while True:
        while w.frames[ply, F_NEXT] < w.frames[ply, F_COUNT]:
            i = w.order[ply, w.frames[ply, F_NEXT]]
            w.frames[ply, F_NEXT] += 1
            if w.frames[ply, F_PASS] == 1:
                if w.same[ply, i] & _DEFERRED == 0:
                    continue  # searched in the first pass
                w.same[ply, i] -= _DEFERRED
            if w.same[ply, i] == 2:
                continue
            if w.highs[ply, i] <= w.frames[ply, F_ALPHA]:
                w.frames[ply, F_SKIPPED_HIGH] = max(w.frames[ply, F_SKIPPED_HIGH], w.highs[ply, i])
                continue
            if len(busy) and w.frames[ply, F_PASS] == 0 and w.frames[ply, F_SEARCHED] > 0:
                key = w.child_keys[ply, i]
                if busy[np.int64(key & np.uint64(len(busy) - 1))] == np.int64(key):
                    w.same[ply, i] += _DEFERRED
                    w.frames[ply, F_DEFERRED] += 1
                    continue
            w.frames[ply, F_SEARCHED] += 1
            return i
        if w.frames[ply, F_PASS] == 1 or w.frames[ply, F_DEFERRED] == 0:
            return np.int64(-1)
        w.frames[ply, F_PASS] = 1
        w.frames[ply, F_NEXT] = 0


@kernel(inline="always")
def _finish(w, table, stats, ply):
    """Stores the proven bound of the position searched at ``ply`` and returns its (fail-soft)
    value."""
    best = w.frames[ply, F_BEST]
    if best <= w.frames[ply, F_ALPHA] and w.frames[ply, F_SKIPPED_HIGH] > best:
        best = w.frames[ply, F_SKIPPED_HIGH]  # failing low: the bound covers the skipped moves
    move = np.int64(-1)
    me = w.frames[ply, F_ME]
    if best <= w.frames[ply, F_ALPHA0]:
        lower, upper = -_INF, best
        stats[STAT_ALL + me] += 1
    else:
        move = w.frames[ply, F_BEST_I]
        if best >= w.frames[ply, F_BETA]:
            lower, upper = best, _INF
            stats[(STAT_CUT_FIRST if w.frames[ply, F_NEXT] == 1 else STAT_CUT_LATER) + me] += 1
        else:
            lower, upper = best, best
            stats[STAT_ALL + me] += 1
    work = _log2_work(stats[STAT_NODES] - w.frames[ply, F_NODES0])
    stats[STAT_STORES] += 1
    stats[STAT_EVICTIONS] += _store(table, np.uint64(w.frames[ply, F_KEY]), lower, upper, move, work)
    return best


@kernel(inline="always")
def _enter(w, ply, i, busy):
    """Makes the child reached by move ``i`` of ``ply`` the position at ``ply + 1``, with the
    parent's window seen by the child's mover, marked in ``busy`` (if not empty) as being
    searched."""
    w.states[ply + 1] = w.kids[ply * w.moves.shape[1] + i]
    key = w.child_keys[ply, i]
    w.frames[ply + 1, F_KEY] = np.int64(key)
    w.frames[ply + 1, F_BUSY] = -1
    if len(busy):
        slot = np.int64(key & np.uint64(len(busy) - 1))
        busy[slot] = np.int64(key)
        w.frames[ply + 1, F_BUSY] = slot
    d = w.deltas[ply, i]
    a = w.frames[ply, F_ALPHA]
    b = w.frames[ply, F_BETA]
    if w.same[ply, i] == 1:
        w.frames[ply + 1, F_ALPHA] = a - d
        w.frames[ply + 1, F_BETA] = b - d
    else:
        w.frames[ply + 1, F_ALPHA] = d - b
        w.frames[ply + 1, F_BETA] = d - a


@kernel
def _null_window(stack, table, db, db_k, stats, control, thread, alpha, beta, horizon, refuter, busy):
    """Fail-soft alpha-beta value of the non-terminal ``stack.states[0]`` (change of the margin,
    mover's view) within ``(alpha, beta)``; ``stack.frames[0, F_BEST_I]`` is then the best
    child's index. ``stack``: a :class:`_SearchStack`; ``table``: from :func:`new_solver_table`;
    ``db``, ``db_k``: an endgame database (``int8[:]``, -1: none); ``stats: int64[STAT_SIZE]``;
    ``control: int64[CONTROL_SIZE]``, shared with the other threads; ``thread``: this one's index;
    ``busy``: int64[power of two] shared with the other threads testing the same value, marking
    the positions being searched (keys by their low bits; empty: no marks, see :func:`_next_move`).

    Returns 0 with ``stats[STAT_ABORTED]`` set when a budget ran out, the search was stopped or
    the game was deeper than the stack. Below ``horizon`` plies a position is not searched but
    estimated: no change of the margin from there (for the estimates that seed MTD(f); the bounds
    it stores are then estimates too, so it gets a table of its own).
    """
    # numba reference-counts each array that a function binds, with an atomic operation, and the
    # steps below, inlined into this loop, bind the stack's twelve arrays at every position
    # (their pairs of counts cannot be pruned across the game's kernels, which may raise): views
    # that it does not count keep the search as fast as one flat function. They are safe here:
    # they never leave this call, and the caller's reference keeps ``stack`` alive throughout.
    w = _SearchStack(
        _uncounted(stack.states), _uncounted(stack.kids), _uncounted(stack.moves), _uncounted(stack.deltas),
        _uncounted(stack.same), _uncounted(stack.lows), _uncounted(stack.highs), _uncounted(stack.hints),
        _uncounted(stack.child_keys), _uncounted(stack.order), _uncounted(stack.keys), _uncounted(stack.frames),
    )
    max_ply = w.states.shape[0] - 1
    ply = 0
    w.frames[0, F_ALPHA] = alpha
    w.frames[0, F_BETA] = beta
    w.frames[0, F_KEY] = np.int64(contract.solve_key(w.states[0]))
    while True:
        # Enter the position at ply with the window in its frame: settle it at once or open it.
        me = contract.current_player(w.states[ply])
        settled, value, lo, hi, tt_move = _known_value(w, ply, me, table, horizon, stats)
        if not settled:
            settled, value = _open(w, ply, me, lo, hi, tt_move, table, db, db_k, stats, refuter)
        # Fold values up and step to the next child until one needs entering.
        while True:
            if settled:
                if ply == 0:
                    return value
                slot = w.frames[ply, F_BUSY]
                if slot >= 0 and busy[slot] == w.frames[ply, F_KEY]:
                    busy[slot] = 0
                ply -= 1
                settled = _fold(w, ply, value)
                if settled:
                    value = _finish(w, table, stats, ply)
                    continue
            i = _next_move(w, ply, busy)
            if i < 0:
                value = _finish(w, table, stats, ply)
                settled = True
                continue
            if ply + 1 > max_ply:
                stats[STAT_ABORTED] = ABORTED_DEPTH
                return np.int64(0)
            _enter(w, ply, i, busy)
            ply += 1
            _count_node(stats, control, thread)
            if stats[STAT_ABORTED]:
                return np.int64(0)
            break


@kernel(inline="always")
def _start(stats, node_limit, deadline_ns):
    stats[STAT_NODE_LIMIT] = node_limit
    stats[STAT_DEADLINE] = deadline_ns
    stats[STAT_ABORTED] = 0


@kernel(nogil=True)
def estimate(
    root: np.void, guess_table: np.ndarray, depth_limit: int, db: np.ndarray, db_k: int, guess: int, lower: int,
    upper: int, node_limit: int, deadline_ns: int, stats: np.ndarray, control: np.ndarray,
) -> int:
    """A first test value for MTD(f) from the non-terminal ``root`` whose value lies in ``[lower,
    upper]``: iterative deepening of estimates (Irving et al.), MTD(f) to a horizon of 2, 4, ...
    ``depth_limit`` plies in ``guess_table`` (cleared first: its bounds are estimates), each depth
    starting from the last one's value and the first from ``guess``. Each null-window search of
    the exact solve far from the true value is wasted work. Stops early (with the last estimate)
    when a budget runs out."""
    w = _new_search_stack(root, depth_limit + 1)
    _start(stats, node_limit, deadline_ns)
    f = min(max(guess, lower), upper)
    for depth in range(2, depth_limit + 1, 2):
        guess_table[:] = 0
        low, high = np.int64(lower), np.int64(upper)
        while low < high:
            beta = f + 1 if f == low else f
            w.states[0] = root
            g = _null_window(w, guess_table, db, db_k, stats, control, 0, beta - 1, beta, depth, -1, np.empty(0, np.int64))
            if stats[STAT_ABORTED]:
                return f
            if g >= beta:
                low = g
            else:
                high = g
            f = g
    return f


@kernel(nogil=True)
def prove(
    root: np.void, table: np.ndarray, db: np.ndarray, db_k: int, node_limit: int, deadline_ns: int, max_ply: int,
    stats: np.ndarray, control: np.ndarray, bounds: np.ndarray, thread: int, busy: np.ndarray,
) -> None:
    """MTD(f) from the non-terminal ``root`` by one of ``len(bounds)`` threads sharing ``table``
    and ``control`` (whose ``CONTROL_GUESS`` holds the first test value): null-window searches
    until the root's proven bounds meet. ``bounds: int64[threads, 3]``: each thread's proven
    (lower, upper) bound of the root's value (the change of the margin to the end, its mover's
    view) and the index (``legal_moves`` order) of a move that reaches its lower bound (-1:
    none); the root's bounds are the best of all rows, this thread writes only row ``thread``.

    With one thread this is MTD(f). With more and an empty ``busy``, the second tests the value
    just above the first one's test: when the guess is right, the two searches that every MTD(f)
    ends with (the value is at least v; it is not v + 1) run at once, each also finding the
    other's proofs in the table. With ``busy`` (shared, see :func:`_null_window`), every thread
    tests MTD(f)'s value and they split each test's moves between them (ABDADA). A thread whose
    test another thread's bounds decided abandons it (its proofs stay in the table). Stops with
    the bounds proven so far when ``control``'s stop flag is set, the node budget or the deadline
    runs out (``stats``: this thread's), or the game is deeper than ``max_ply``
    (``stats[STAT_ABORTED]`` says which).
    """
    w = _new_search_stack(root, max_ply)
    _start(stats, node_limit, deadline_ns)
    threads = len(bounds)
    root_mover = np.int64(contract.current_player(root))
    while control[CONTROL_STOP] == 0:
        lower = bounds[0, 0]
        upper = bounds[0, 1]
        for t in range(1, threads):
            lower = max(lower, bounds[t, 0])
            upper = min(upper, bounds[t, 1])
        if lower >= upper:
            break
        f = min(max(control[CONTROL_GUESS], lower), upper)
        beta = f + 1 if f == lower else f
        # Thread t tests beta + 0, +1, -1, +2, -2, ... (thread 0: MTD(f)'s own test), within bounds.
        offset = (thread + 1) // 2 * (1 if thread % 2 == 1 else -1)
        if len(busy) == 0 and lower < beta + offset <= upper:
            beta += offset
        control[CONTROL_BETA + thread] = beta
        control[CONTROL_DECIDED + thread] = 0
        # The root mover's opponent orders its moves to leave the fewest replies: it refutes every
        # root move in a test that fails low, the costly one (see the module's notes).
        refuter = 1 - root_mover
        w.states[0] = root
        stats[STAT_SEARCHES] += 1
        g = _null_window(w, table, db, db_k, stats, control, thread, beta - 1, beta, max_ply + 1, refuter, busy)
        if stats[STAT_ABORTED] == ABORTED_DECIDED:
            stats[STAT_ABORTED] = 0
            continue
        if stats[STAT_ABORTED]:
            break
        if g >= beta:
            if g > bounds[thread, 0]:
                bounds[thread, 0] = g
                bounds[thread, 2] = w.frames[0, F_BEST_I]
        elif g < bounds[thread, 1]:
            bounds[thread, 1] = g
        control[CONTROL_GUESS] = g
        if threads > 1:
            lower = max(lower, bounds[thread, 0])
            upper = min(upper, bounds[thread, 1])
            for t in range(threads):
                if t != thread and not lower < control[CONTROL_BETA + t] <= upper:
                    control[CONTROL_DECIDED + t] = 1


@kernel(nogil=True)
def name_move(
    root: np.void, table: np.ndarray, db: np.ndarray, db_k: int, value: int, node_limit: int, deadline_ns: int,
    max_ply: int, stats: np.ndarray, control: np.ndarray,
) -> int:
    """The index (``legal_moves`` order) of a move of ``root`` that reaches its proven ``value``,
    -1 if a budget ran out first. For a solve in which no search failed high: the value is the
    bound that every continuation reaches, or it was known before the search (database, margin
    bounds). A search just below it names a move: the root is always searched, so a child proven
    to reach the value fails it high (quickly: the table holds the proofs)."""
    w = _new_search_stack(root, max_ply)
    _start(stats, node_limit, deadline_ns)
    w.states[0] = root
    _null_window(w, table, db, db_k, stats, control, 0, value - 1, value, max_ply + 1, -1, np.empty(0, np.int64))
    return np.int64(-1) if stats[STAT_ABORTED] else w.frames[0, F_BEST_I]


# ----------------------------------------------------------------------------------------------
# The Python face: solve(), the threads that run the kernels, processor-time limits.


@dataclass(frozen=True)
class Solution:
    """An exact solution (or the bounds proven within a budget) of a position.

    ``margin`` is the final margin under perfect play from player 0's side (Kalah: South's store
    minus North's; a game without a margin: 1 win, 0 draw, -1 loss for player 0); ``lower`` and
    ``upper`` bound it when the budget ran out (they are equal when ``exact``). ``move`` is a best
    move for the player to move (None at a terminal position or when the budget ran out first);
    when the budget ran out, ``fallback`` is a move proven to reach ``lower`` if a search found
    one, else the table's best guess (None if it has none).
    """

    margin: int | None
    lower: int
    upper: int
    exact: bool
    move: int | None
    nodes: int
    searches: int
    #: Wall-clock time of the solve.
    seconds: float
    has_margin: bool
    #: Processor time of the solve, summed over its threads (on a shared machine the fair
    #: measure of the work: it does not grow when other programs take turns on the cores).
    cpu_seconds: float = 0.0
    threads: int = 1
    fallback: int | None = None
    #: The search's shape, summed over its threads (see :data:`COUNTERS`).
    counters: dict[str, int] = field(default_factory=dict)

    @property
    def outcome(self) -> int | None:
        """Player 0's result: 1 win, 0 draw, -1 loss (None if unsolved)."""
        return None if self.margin is None else int(np.sign(self.margin))


def solve(
    state: State,
    *,
    table: np.ndarray | None = None,
    table_mb: float = 256.0,
    endgame: tuple[np.ndarray, int] | None = None,
    time: float | None = None,
    cpu_time: float | None = None,
    nodes: int | None = None,
    guess: int | None = None,
    guess_depth: int | None = None,
    max_ply: int = 1000,
    threads: int = 1,
    book: Book | None = None,
) -> Solution:
    """Solves ``state`` (a perfect-information ``engines.State``) to its final margin.

    Args:
        state: the position; the game must have perfect information and no chance.
        table: a table from :func:`new_solver_table` to use (and keep filling: every bound in it
            is proven, so it stays valid for every later position of the same game variant);
            else one of ``table_mb`` MiB is made.
        endgame: an endgame database ``(db, k)`` of the game (``game.endgame.database``), or None.
        time: a budget in seconds of wall-clock time; ``cpu_time``: in seconds of processor time
            summed over the threads (what a solve costs, whatever the machine's load);
            ``nodes``: in positions (per thread). The result is then maybe not exact.
        guess: the first value MTD(f) tests (player 0's margin); default the margin so far,
            refined by estimates to ``guess_depth`` plies (default 12 for a game with a margin,
            none for a game solved to win, draw or loss).
        max_ply: the deepest line the search may follow.
        threads: threads searching at once, sharing the table (1 to ``MAX_THREADS``; see
            :func:`prove` for how they split the work).
        book: an opening :class:`Book` of the game: its positions are written into the table
            first (never replaced there), and the bounds this solve proves at some cost (exact
            values, and bounds when the budget runs out first) are added to it
            (``book.save()`` writes them).

    Returns:
        a :class:`Solution`.

    Raises:
        ValueError: for a game with hidden information, a database or book not of this game,
            or a bad budget.
        KeyboardInterrupt: the search stops at once (the table keeps what it proved).

    Example:
        >>> from board_arena import engines
        >>> from board_arena.agents.solver import solve
        >>> solve(engines.make("kalah", pits=2, seeds=2).new_initial_state(), table_mb=1).margin
        -2
    """
    if not state.game.perfect_information:
        raise ValueError(f"{state.game.name} has hidden information: the solver needs perfect information")
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads must be 1..{MAX_THREADS}, not {threads}")
    for name, budget in (("time", time), ("cpu_time", cpu_time), ("nodes", nodes)):
        if budget is not None and not budget > 0:
            raise ValueError(f"{name} must be a positive budget or None, not {budget}")
    record = state.data
    data = record[0] if record.ndim else record
    has = contract.has_margin(data)
    started = _now()
    if contract.is_terminal(data):
        m = int(contract.margin(data))
        return Solution(m, m, m, True, None, 0, 0, 0.0, has)
    if table is None:
        table = new_solver_table(table_mb)
    if endgame is not None:
        if state.game.endgame is None:
            raise ValueError(f"{state.game.name} has no endgame databases")
        state.game.endgame.check_database(state, *endgame)
    if book is not None:
        book.check_game(state.game)
        book.load_into(table)
    db, k = endgame if endgame is not None else (np.zeros(0, np.int8), -1)
    k = int(k)
    me = int(contract.current_player(data))
    sign = 1 if me == 0 else -1
    base = int(contract.margin(data))
    lo, hi = (int(v) for v in contract.margin_bounds(data))
    lower, upper = (lo, hi) if me == 0 else (-hi, -lo)
    exact_value = int(contract.endgame_value(data, db, k))
    if exact_value != contract.NO_ENDGAME_VALUE:
        lower = upper = exact_value
    known = _probe(table, np.uint64(contract.solve_key(data)))  # an earlier solve's or the book's
    if known:
        lower, upper = max(lower, int(_lower_of(known))), min(upper, int(_upper_of(known)))
    # The search's value is the change of the margin from here, seen by the mover.
    first = 0 if guess is None else sign * (int(guess) - base)
    if guess_depth is None:
        guess_depth = 12 if has and guess is None else 0
    node_limit = int(nodes or 2**62)
    deadline = deadline_after(time)
    control = np.zeros(CONTROL_SIZE, np.int64)
    stats = np.zeros((threads, STAT_SIZE), np.int64)
    cpu = 0.0
    guess_table = None
    if guess_depth and lower < upper:
        guess_table = new_solver_table(min(64.0, max(0.01, table.nbytes / 2**20 / 16)))
        estimate_stats = np.zeros(STAT_SIZE, np.int64)
        out: list[int] = []
        cpu += _run_threads([lambda: out.append(estimate(data, guess_table, int(guess_depth), db, k, first, lower, upper,
                                                          node_limit, deadline, estimate_stats, control))],
                            control, cpu_time)
        first = out[0] if out else first
        stats[0, STAT_NODES] += estimate_stats[STAT_NODES]
        node_limit = max(1, node_limit - int(estimate_stats[STAT_NODES]))
    control[CONTROL_GUESS] = first
    bounds = np.empty((threads, 3), np.int64)
    bounds[:] = (lower, upper, -1)
    if lower < upper and not control[CONTROL_STOP]:
        busy = np.zeros(BUSY_SLOTS if threads > 1 and SPLIT else 0, np.int64)
        runs = [_prover(data, table, db, k, node_limit, deadline, max_ply, stats, control, bounds, t, busy)
                for t in range(threads)]
        cpu += _run_threads(runs, control, None if cpu_time is None else cpu_time - cpu)
    if (stats[:, STAT_ABORTED] == ABORTED_DEPTH).any():
        raise ValueError(f"a line of play is longer than max_ply={max_ply}: raise it")
    lower, upper = int(bounds[:, 0].max()), int(bounds[:, 1].min())
    index = -1
    for t in range(threads):
        if bounds[t, 0] == lower and bounds[t, 2] >= 0:
            index = int(bounds[t, 2])
    if index < 0 and lower == upper and not control[CONTROL_STOP]:
        found: list[int] = []
        control[CONTROL_DECIDED:CONTROL_DECIDED + MAX_THREADS] = 0
        name_stats = np.zeros(STAT_SIZE, np.int64)
        cpu += _run_threads([lambda: found.append(name_move(data, table, db, k, lower, node_limit, deadline, max_ply,
                                                            name_stats, control))],
                            control, None if cpu_time is None else cpu_time - cpu)
        index = found[0] if found else -1
        stats[0, STAT_NODES] += name_stats[STAT_NODES]
    exact = lower == upper and index >= 0
    legal = state.legal_moves()
    fallback = None
    if not exact:
        # The move that proved the best lower bound, else the table's move of the root, else the
        # estimates' (when the budget ran out before the exact search began).
        key = np.uint64(contract.solve_key(data))
        guess_index = index if index >= 0 else _move_of(_probe(table, key))
        if guess_index < 0 and guess_table is not None:
            guess_index = _move_of(_probe(guess_table, key))
        fallback = int(legal[guess_index]) if 0 <= guess_index < len(legal) else None
    if book is not None and stats[:, STAT_NODES].sum() >= 1 << (book.min_work - 1):
        # Also when the budget ran out: the bounds a long search proved are kept for the next.
        book.harvest(table)  # a solve this cheap cannot have proved anything the book keeps
    m_lower, m_upper = (base + lower, base + upper) if me == 0 else (base - upper, base - lower)
    return Solution(
        margin=m_lower if exact else None,
        lower=m_lower,
        upper=m_upper,
        exact=exact,
        move=int(legal[index]) if exact else None,
        nodes=int(stats[:, STAT_NODES].sum()),
        searches=int(stats[:, STAT_SEARCHES].sum()),
        seconds=_now() - started,
        has_margin=has,
        cpu_seconds=cpu,
        threads=threads,
        fallback=fallback,
        counters={name: int(stats[:, slot].sum()) for name, slot in COUNTERS.items()},
    )


def _prover(data, table, db, k, node_limit, deadline, max_ply, stats, control, bounds, thread, busy):
    def run():
        prove(data, table, db, k, node_limit, deadline, max_ply, stats[thread], control, bounds, thread, busy)

    return run


# How often the caller's thread looks at the searching threads' processor time (seconds).
_POLL = 0.01


def _run_threads(calls: list, control: np.ndarray, cpu_time: float | None) -> float:
    """Runs each of ``calls`` (a kernel that releases the interpreter lock and polls
    ``control[CONTROL_STOP]``) in a thread of its own and waits for them; returns the processor
    time they used. Sets the stop flag when their processor time reaches ``cpu_time`` or on
    Ctrl-C (then re-raised once every thread has stopped)."""
    used = [0.0] * len(calls)
    clocks: list[int | None] = [None] * len(calls)
    errors: list[BaseException] = []

    def work(i: int, call) -> None:
        started = _thread_cpu()
        try:
            call()
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            errors.append(error)
            control[CONTROL_STOP] = 1
        finally:
            used[i] = _thread_cpu() - started

    workers = [threading.Thread(target=work, args=(i, call), daemon=True) for i, call in enumerate(calls)]
    for worker in workers:
        worker.start()
    if cpu_time is not None:
        clocks = [_clock_of(worker) for worker in workers]
    starts = [_read_clock(clock, 0.0) for clock in clocks]
    try:
        for worker in workers:
            while worker.is_alive():
                worker.join(_POLL)
                if cpu_time is not None and not control[CONTROL_STOP]:
                    spent = sum(max(0.0, _read_clock(c, s) - s) if w.is_alive() else used[i]
                                for i, (w, c, s) in enumerate(zip(workers, clocks, starts)))
                    if spent >= cpu_time:
                        control[CONTROL_STOP] = 1
    except KeyboardInterrupt:
        control[CONTROL_STOP] = 1
        for worker in workers:
            worker.join()
        raise
    if errors:
        raise errors[0]
    return sum(used)


def _thread_cpu() -> float:
    return time.thread_time()


def _clock_of(worker: threading.Thread) -> int | None:
    """The processor-time clock of a running thread (POSIX), or None: then the process's."""
    try:
        return time.pthread_getcpuclockid(worker.ident)  # type: ignore[arg-type]
    except (AttributeError, OSError, TypeError):
        return None


def _read_clock(clock: int | None, otherwise: float) -> float:
    """The clock's seconds (the process's processor time for None); ``otherwise`` once the
    thread has ended."""
    if clock is None:
        return time.process_time()
    try:
        return time.clock_gettime(clock)
    except OSError:
        return otherwise


def _now() -> float:
    return time.perf_counter()


# ----------------------------------------------------------------------------------------------
# The opening book: positions solved once stay solved.

#: One entry of a book: a position's key and the proven bounds of its value (equal: solved).
BOOK_ENTRY = np.dtype([("key", np.uint64), ("lower", np.int16), ("upper", np.int16)])
# Version 1 held exact values only (key, value); it is still read.
BOOK_ENTRY_V1 = np.dtype([("key", np.uint64), ("value", np.int16)])
BOOK_KIND = "board-arena solved positions"
_BOOK_VERSION = 2


@kernel
def _pin(table, keys, lowers, uppers):
    """Writes each book entry into ``table`` as proven bounds that are never replaced (a search
    that proves tighter ones tightens the entry, which stays pinned)."""
    for i in range(len(keys)):
        _store(table, keys[i], np.int64(lowers[i]), np.int64(uppers[i]), np.int64(-1), np.int64(WORK_PINNED))


@kernel
def _proven_entries(table, min_work, keys, lowers, uppers):
    """The table's entries with a proven bound (an exact value, or a bound short of the margin's
    cap) whose proof cost at least ``2 ** (min_work - 1)`` positions, and the book's entries
    (pinned): written into ``keys``, ``lowers``, ``uppers`` when they are large enough; returns
    their count either way."""
    n = 0
    for i in range(len(table)):
        data = table[i, 1]
        if data == 0 or _work_of(data) < min_work:
            continue
        lower = _lower_of(data)
        upper = _upper_of(data)
        if lower <= -_BOUND_CAP and upper >= _BOUND_CAP:
            continue
        if n < len(keys):
            keys[n] = table[i, 0] ^ data
            lowers[n] = lower
            uppers[n] = upper
        n += 1
    return n


class Book:
    """The solved positions of one game variant: an opening book that the solver writes and
    reads, so that a position solved once stays solved, in later moves, games and processes.

    Each entry is a position's key (``contract.solve_key``) and the proven bounds of its value
    (the change of the margin from there to the end under perfect play, seen by its player to
    move): equal for a solved position, apart for one that a solve stopped by its budget proved
    only a bound of (so that a long run that does not finish is not wasted: the next solve starts
    from what it proved). The book takes the bounds a solve proved at a cost of at least
    ``2 ** (min_work - 1)`` positions (the expensive ones: the rest are quicker to prove again
    than to keep), and writes them into a solver's table as entries that are never replaced. It
    is kept in the cache folder (``$BOARD_ARENA_CACHE/book`` or the user's cache folder), one
    file per game variant, whose header (``engines.datafile``) is verified when it is read: a
    damaged file is refused with one line (a file of format version 1, exact values only, is
    still read). :meth:`save` merges with what other processes saved meanwhile.

    Example:
        >>> from board_arena import engines
        >>> from board_arena.agents.solver import Book, solve
        >>> game = engines.make("kalah", pits=3, seeds=3)
        >>> book = Book(game, path=None, min_work=1)
        >>> solve(game.new_initial_state(), table_mb=1, book=book).margin
        2
        >>> len(book) > 0
        True
    """

    #: Entries whose proof cost at least 2 ** 15 positions by default.
    MIN_WORK = 16

    def __init__(self, game: Game, path: Path | None | str = "default", *, min_work: int = MIN_WORK):
        """A book for ``game`` with what ``path`` holds (default: the variant's file in the cache
        folder; None: a book kept in memory only).

        Raises:
            ValueError: the game has hidden information, or the file fails its checks.
        """
        if not game.perfect_information:
            raise ValueError(f"{game.name} has hidden information: there is no book of solved positions")
        self.game = game
        self.min_work = int(min_work)
        self.path: Path | None = book_path(game) if path == "default" else (None if path is None else Path(path))
        # The entries, sorted by key.
        self.keys = np.zeros(0, np.uint64)
        self.lowers = np.zeros(0, np.int16)
        self.uppers = np.zeros(0, np.int16)
        # Counts the changes of the entries; each table remembers the count it was given (id ->
        # (weak reference, count)), so that an unchanged book is not written into it again.
        self._revision = 0
        self._given: dict[int, tuple[weakref.ref, int]] = {}
        if self.path is not None and self.path.exists():
            self._merge(self._read(self.path))

    def __len__(self) -> int:
        return len(self.keys)

    def __repr__(self) -> str:
        return f"Book({self.game!r}, {len(self)} positions, {self.solved()} solved, {self.path or 'in memory'})"

    def solved(self) -> int:
        """How many of the book's positions are solved (their bounds are equal)."""
        return int(np.count_nonzero(self.lowers == self.uppers))

    def _fields(self) -> dict:
        return {"game": self.game.name, "params": {k: v for k, v in sorted(self.game.params.items())}}

    def _read(self, path: Path) -> np.ndarray:
        try:
            if datafile.read_header(path, BOOK_KIND).get("version") == 1:
                old = datafile.read(path, BOOK_KIND, 1, self._fields(), BOOK_ENTRY_V1)
                entries = np.empty(len(old), BOOK_ENTRY)
                entries["key"] = old["key"]
                entries["lower"] = entries["upper"] = old["value"]
                return entries
            return datafile.read(path, BOOK_KIND, _BOOK_VERSION, self._fields(), BOOK_ENTRY)
        except datafile.DataFileError as error:
            raise datafile.DataFileError(f"{error}; delete it to start the book again") from None

    def _merge(self, entries: np.ndarray) -> int:
        """Adds ``entries`` (``BOOK_ENTRY``): a new position's bounds, or tighter bounds of a
        position in the book; returns how many entries were added or tightened."""
        if not len(entries):
            return 0
        keys = np.concatenate([self.keys, np.asarray(entries["key"], np.uint64)])
        lowers = np.concatenate([self.lowers, np.asarray(entries["lower"], np.int16)])
        uppers = np.concatenate([self.uppers, np.asarray(entries["upper"], np.int16)])
        order = np.argsort(keys, kind="stable")
        keys, lowers, uppers = keys[order], lowers[order], uppers[order]
        unique, starts = np.unique(keys, return_index=True)
        lowers = np.maximum.reduceat(lowers, starts)
        uppers = np.minimum.reduceat(uppers, starts)
        old = np.searchsorted(unique, self.keys)  # where the book's entries went (all still there)
        changed = len(unique) - len(self.keys) + int(np.count_nonzero(
            (lowers[old] != self.lowers) | (uppers[old] != self.uppers)))
        self.keys, self.lowers, self.uppers = unique, lowers, uppers
        if changed:
            self._revision += 1
        return changed

    def check_game(self, game: Game) -> None:
        """Raises ValueError unless ``game`` is the book's variant."""
        if game != self.game:
            raise ValueError(f"this book is of {self.game!r}, not of {game!r}")

    def load_into(self, table: np.ndarray) -> None:
        """Writes the book into ``table`` (unless it was given this book unchanged), its entries
        never to be replaced there."""
        ref, given = self._given.get(id(table), (None, -1))
        if ref is None or ref() is not table or given != self._revision:
            _pin(table, self.keys, self.lowers, self.uppers)
        self._given[id(table)] = (weakref.ref(table), self._revision)

    def harvest(self, table: np.ndarray) -> int:
        """Adds the table's expensive proven bounds (see the class); returns how many entries
        were added or tightened."""
        count = _proven_entries(table, self.min_work, np.zeros(0, np.uint64), np.zeros(0, np.int16), np.zeros(0, np.int16))
        if not count:
            return 0
        entries = np.empty(count, BOOK_ENTRY)
        keys = np.empty(count, np.uint64)
        lowers = np.empty(count, np.int16)
        uppers = np.empty(count, np.int16)
        _proven_entries(table, self.min_work, keys, lowers, uppers)
        entries["key"], entries["lower"], entries["upper"] = keys, lowers, uppers
        return self._merge(entries)

    def bounds(self, state: State) -> tuple[int, int] | None:
        """The book's proven bounds ``(lower, upper)`` of the final margin of ``state`` for player 0
        under perfect play (equal when it is solved), None if the book does not hold it."""
        self.check_game(state.game)
        data = state.data
        i = int(np.searchsorted(self.keys, np.uint64(contract.solve_key(data))))
        if i == len(self.keys) or self.keys[i] != np.uint64(contract.solve_key(data)):
            return None
        base = int(contract.margin(data))
        lower, upper = int(self.lowers[i]), int(self.uppers[i])
        if contract.current_player(data) == 0:
            return base + lower, base + upper
        return base - upper, base - lower

    def value(self, state: State) -> int | None:
        """The book's final margin of ``state`` for player 0 under perfect play, None if the book
        does not hold it solved."""
        bounds = self.bounds(state)
        return bounds[0] if bounds is not None and bounds[0] == bounds[1] else None

    def save(self) -> Path | None:
        """Writes the book to its file, with the entries that other processes saved there since
        it was read (a process that saves at the same moment may lose its latest entries to
        this one, never corrupt the file); returns the file (None for a book in memory).

        Raises:
            OSError: the file cannot be written.
        """
        if self.path is None:
            return None
        if self.path.exists():
            try:
                self._merge(self._read(self.path))
            except datafile.DataFileError:
                pass  # a damaged file is replaced by this book
        datafile.remove_stale_partials(self.path)
        entries = np.empty(len(self.keys), BOOK_ENTRY)
        entries["key"], entries["lower"], entries["upper"] = self.keys, self.lowers, self.uppers
        datafile.write(self.path, BOOK_KIND, _BOOK_VERSION, self._fields(), entries)
        return self.path


# The book of each variant read in this process, by file: the solver agents of a process share it
# (it only ever gains proven bounds), and the warm-up reads it before any clock runs.
_BOOKS: dict[Path, Book] = {}


# A table made (and its pages written) by a warm-up, by size in MiB, for the next agent to take.
SPARE_TABLES: dict[float, np.ndarray] = {}


def shared_book(game: Game) -> Book:
    path = book_path(game)
    book = _BOOKS.get(path)
    if book is None or book.game != game:
        book = _BOOKS[path] = Book(game, path)
    return book


def book_path(game: Game) -> Path:
    """The file of ``game``'s book in the cache folder (one per variant)."""
    params = "-".join(f"{key}={value}" for key, value in sorted(game.params.items()))
    return datafile.cache_root() / "book" / f"{game.name}-{params}.book"


# ----------------------------------------------------------------------------------------------
# The agent that plays by the solver.


@register_agent
class SolverAgent(Agent):
    """``solver``: plays a move that keeps the game-theoretic value, proven by the exact solver,
    whenever the solve finishes within the move's budget.

    Per move: :func:`solve` from the position with the agent's table (kept between moves and
    games: every bound in it is proven, so it never goes stale, and :meth:`reset` keeps it; it is
    cleared only when the agent meets another game variant), the game's endgame database (Kalah)
    and the variant's opening :class:`Book` (read once, added to after each expensive solve and
    saved). The move is exact when the solve finishes; when the budget runs out first it is the
    move that proved the best lower bound so far (else the table's guess), and the search reports
    the bounds it proved. Plays every perfect-information game without chance.
    """

    name = "solver"
    summary = "exact solver (MTD(f), proven-bounds table, endgame database, opening book): perfect play when it finishes"
    PARAMS = (
        replace(TIME, default=1.0, doc="seconds per move (wall clock); none: solve to the end, however long"),
        NODES,
        AgentParam("endgame", None, "Kalah: endgame database of every position up to this many seeds on the board "
              "(built once into the cache folder); none: the largest in the cache folder, else one of at most "
              f"{2**25:,} positions; 0: none", low=0, high=63, kind=int, allow_none=True,
              effect="database"),
        AgentParam("book", True, "read and write the variant's book of solved positions (cache folder)", effect="database"),
        AgentParam("table_mb", 256.0, "table of proven bounds, MiB (kept between moves and games)", low=0.001, high=16384.0,
              effect="memory_mb"),
        AgentParam("threads", 1, "threads searching at once (they share the table)", low=1, high=MAX_THREADS, effect="work"),
    )
    #: A book is saved after a move whose solve took at least this much processor time.
    SAVE_AFTER_CPU = 0.5

    def _check_params(self) -> None:
        self._table: np.ndarray | None = None
        self._game: Game | None = None
        self._book: Book | None = None
        self._db: tuple[np.ndarray, int] | None = None

    def reset(self, seed: int | None = None) -> None:
        # The table is not cleared: it holds only proven bounds, which a new game does not change.
        super().reset(seed)

    def _prepare(self, state: State) -> None:
        """Table, database and book for ``state``'s variant (made at the first move of a variant)."""
        game = state.game
        if self._game == game:
            return
        if self._table is None:
            spare = SPARE_TABLES.pop(self.params["table_mb"], None)
            self._table = spare if spare is not None else new_solver_table(self.params["table_mb"])
        else:
            self._table[:] = 0  # another variant: its bounds would be wrong here
        self._game = game
        self._db = self._database(state)
        self._book = shared_book(game) if self.params["book"] else None

    def _database(self, state: State) -> tuple[np.ndarray, int] | None:
        game = state.game
        size = self.params["endgame"]
        if game.endgame is None or size == 0:
            return None
        if size is None:
            size = game.endgame.default_size(state)
        return game.endgame.database(state, size, build_missing=True) if size else None

    def warm_up(self, game: Game) -> None:
        """Also loads, outside any clock, every kernel a move may run beyond the warm-up's search
        (naming the move of a position the table holds solved, the book's reads and writes of the
        table) and reads the game's database and book into this process's caches, so that the
        first move of a game spends its budget on the search (a kernel loaded or compiled inside
        a short move can lose the game on time)."""
        super().warm_up(game)
        key = (SolverAgent, "kernels", game.kernels.STATE_DTYPE, tuple(self.params.items()))
        if key in Agent._warmed:
            return
        state = game.new_initial_state(0)
        data = state.data
        root = data[0] if data.ndim else data
        db = self._database(state) if game.endgame is not None else None
        table = new_solver_table(0.001)
        stats = np.zeros(STAT_SIZE, np.int64)
        control = np.zeros(CONTROL_SIZE, np.int64)
        db_array, k = db if db is not None else (np.zeros(0, np.int8), -1)
        name_move(root, table, db_array, int(k), 0, 1, 0, 1, stats, control)
        _pin(table, np.zeros(1, np.uint64), np.zeros(1, np.int16), np.zeros(1, np.int16))
        _proven_entries(table, 1, np.zeros(0, np.uint64), np.zeros(0, np.int16), np.zeros(0, np.int16))
        if self.params["book"]:
            shared_book(game)
        # The table the first agent of these parameters takes, its pages written once here: the
        # first writes to a fresh table's pages (the kernel zeroes each huge page) would otherwise
        # be spent in its first move.
        spare = new_solver_table(self.params["table_mb"])
        spare.fill(0)
        SPARE_TABLES[self.params["table_mb"]] = spare
        Agent._warmed.add(key)

    def _select(self, state: State, limit: Limit) -> SearchInfo:
        self._prepare(state)
        assert self._table is not None
        perfect = self._database_move(state, self._db)
        if perfect is not None:
            return perfect
        # The book goes into the table here, and the table's expensive proofs into the book only
        # after a long solve: a scan of the table would take a good part of a short move, and a
        # short solve proves nothing that is dear to prove again.
        if self._book is not None:
            self._book.load_into(self._table)
        solution = solve(state, table=self._table, endgame=self._db, time=limit.time, nodes=limit.nodes,
                         threads=self.params["threads"])
        if self._book is not None and solution.cpu_seconds >= self.SAVE_AFTER_CPU:
            self._book.harvest(self._table)
            try:
                self._book.save()
            except OSError:
                pass  # a read-only cache folder: the book stays in memory
        sign = 1 if state.current_player == 0 else -1
        if solution.exact:
            move = solution.move
        else:
            move = solution.fallback
            if move is None:
                moves = state.legal_moves()
                move = int(moves[rng_below(self.rng, len(moves))])
        lower, upper = sorted((sign * solution.lower, sign * solution.upper))
        decided = lower > 0 or upper < 0 or lower == upper == 0
        return SearchInfo(
            move=int(move),  # type: ignore[arg-type]
            value=float(np.sign(lower if lower > 0 else upper)) if decided else 0.0,
            exact=decided,
            nodes=solution.nodes,
            margin=sign * solution.margin if solution.exact and solution.has_margin and solution.margin is not None else None,
        )
