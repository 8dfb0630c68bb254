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
* Transposition table: buckets of four 16-byte entries (one cache line), each holding a proven
  lower and upper bound of a position's value, valid at any depth since every search goes to the
  end; the table's move is tried first. A new entry replaces the bucket's entry whose subtree cost
  the fewest positions (kept as log2), so that the costly proofs stay.
* Bounds cut at once: ``contract.margin_bounds`` (Kalah: the seeds still on the board), the
  table's bounds of the position and, before any child is searched, of every child (enhanced
  transposition cutoff), and the endgame database when one is given (``contract.endgame_value``).
* Move ordering: the table's move, then children whose known bounds are best, then by the margin
  the move gains at once, a move that keeps the turn, and the game's ``heuristic`` of the child
  (which orders normal-play Konane, whose moves gain nothing until the end).
* The first test value of MTD(f) comes from iterative-deepening estimates (MTD(f) to 2, 4, ...
  12 plies in a small table of its own, a position at the horizon estimated as no further change),
  for games with a margin.

The Python face is :func:`solve`; ``alphabeta:solve=true`` and ``experiments/solve.py`` use it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from board_arena.engines import State, contract
from board_arena.engines._jit import JIT_DISABLED, deadline_after, kernel, monotonic_ns

__all__ = ["SOLVER_ENTRY", "new_solver_table", "solve_position", "solve", "Solution"]

# One table entry: 16 bytes, four to a bucket (a 64-byte cache line).
SOLVER_ENTRY = np.dtype(
    [
        ("key", np.uint64),  # solve_key of the position; 0 with work 0: empty
        ("lower", np.int16),  # proven: the value (mover's view, change of the margin) >= lower
        ("upper", np.int16),  # proven: value <= upper
        ("move", np.int16),  # index in legal_moves order of the best move found, -1: none
        ("work", np.int16),  # 1 + log2 of the positions its last search visited; 0: empty
    ]
)
BUCKET = 4
# Stored bounds are clamped to int16 (a looser bound is still a true bound).
_BOUND_CAP = 32767
# Scores within the search: margins are small ints, so these never meet a real value.
_INF = np.int64(1 << 40)
# Enhanced transposition cutoff: probe every child's table entry before searching any (measured:
# fewer positions for a little more work per position; off only to measure it).
ETC = True

# Slots of the ``stats`` array.
STAT_NODES = 0
STAT_NODE_LIMIT = 1
STAT_DEADLINE = 2  # monotonic_ns deadline, 0: none
STAT_ABORTED = 3  # 1: a budget ran out; 2: the game was longer than the stack
STAT_SEARCHES = 4  # null-window searches run by MTD(f)
STAT_SIZE = 5

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
F_TT_MOVE = 9
F_SKIPPED_HIGH = 10  # the highest upper bound of the children skipped as unable to raise alpha
F_SIZE = 11


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
            pointer = cgutils.get_item_pointer(context, builder, array_type, data, [args[1]], wraparound=False)
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
    """A zeroed table of the largest power-of-two number of buckets within ``megabytes``."""
    buckets = max(1, int(megabytes * 2**20) // (SOLVER_ENTRY.itemsize * BUCKET))
    return np.zeros(BUCKET << (buckets.bit_length() - 1), SOLVER_ENTRY)


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
def _probe(table, key):
    """The slot of ``key`` in its bucket, or -1."""
    b = _bucket_of(table, key)
    for j in range(BUCKET):
        e = table[b + j]
        if e["key"] == key and e["work"] != 0:
            return b + j
    return -1


@kernel(inline="always")
def _store(table, key, lower, upper, move, nodes):
    """Records proven bounds of ``key``: merged into its entry if present, else in place of the
    bucket's cheapest entry."""
    work = _log2_work(nodes)
    lower = max(lower, -_BOUND_CAP)
    upper = min(upper, _BOUND_CAP)
    b = _bucket_of(table, key)
    victim = b
    for j in range(BUCKET):
        e = table[b + j]
        if e["work"] != 0 and e["key"] == key:
            e["lower"] = max(np.int64(e["lower"]), lower)
            e["upper"] = min(np.int64(e["upper"]), upper)
            if move >= 0:
                e["move"] = move
            e["work"] = max(np.int64(e["work"]), work)
            return
        if e["work"] < table[victim]["work"]:
            victim = b + j
    e = table[victim]
    e["key"] = key
    e["lower"] = lower
    e["upper"] = upper
    e["move"] = move
    e["work"] = work


@kernel(inline="always")
def _mover_bounds(s, me):
    """``margin_bounds`` of ``s`` seen by ``me`` (player 0 sees them as they are)."""
    lo, hi = contract.margin_bounds(s)
    if me == 0:
        return np.int64(lo), np.int64(hi)
    return np.int64(-hi), np.int64(-lo)


@kernel(inline="always")
def _count_node(stats):
    stats[STAT_NODES] += 1
    if stats[STAT_NODES] >= stats[STAT_NODE_LIMIT]:
        stats[STAT_ABORTED] = 1
    elif stats[STAT_NODES] & 4095 == 0 and stats[STAT_DEADLINE] != 0 and monotonic_ns() >= stats[STAT_DEADLINE]:
        stats[STAT_ABORTED] = 1


class _SearchStack(NamedTuple):
    """The arrays of the null-window search's explicit stack, made once per :func:`solve_position`
    and shared by its searches. ``P = max_ply + 1`` plies; ``W = contract.max_moves(root)``; row
    ``p`` of each array belongs to the position at ply ``p``, column ``i`` to its ``i``-th legal
    move (``legal_moves`` order)."""

    states: np.ndarray  # state records [P]: the position at each ply
    child: np.ndarray  # state records [1]: where a child is made to look at it
    moves: np.ndarray  # int64[P, W]: the legal moves
    deltas: np.ndarray  # int64[P, W]: the margin change of the move, mover's view
    same: np.ndarray  # int8[P, W]: 1 the mover moves again, 0 not, 2 the value is known and counted
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
        contract.new_states(root, 1),
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
def _known_value(w, ply, me, table, db, db_k, horizon):
    """What is known of the value of ``w.states[ply]`` (``me`` to move, whose view the value is)
    before searching it, within the window in ``w.frames[ply]``: returns ``(settled, value, lo,
    hi, tt_move)``, with ``settled`` when the database, the table's or the margin's bounds, or the
    horizon give a value that decides the window; else the bounds ``lo, hi`` known so far and the
    table's move.

    The root is never settled by what is known of its value: the search must name the child that
    reaches it. Below ``horizon`` plies a position is estimated as no further change of the margin.
    """
    s = w.states[ply]
    a = w.frames[ply, F_ALPHA]
    b = w.frames[ply, F_BETA]
    lo, hi = _mover_bounds(s, me)
    tt_move = np.int64(-1)
    exact = contract.endgame_value(s, db, db_k) if ply > 0 else contract.NO_ENDGAME_VALUE
    if exact != contract.NO_ENDGAME_VALUE:
        return True, np.int64(exact), lo, hi, tt_move
    slot = _probe(table, contract.solve_key(s))
    if slot >= 0:
        e = table[slot]
        lo = max(lo, np.int64(e["lower"]))
        hi = min(hi, np.int64(e["upper"]))
        tt_move = np.int64(e["move"])
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
def _look_at_children(w, ply, me, n, table, db, db_k):
    """Plays each of the ``n`` moves of ``w.states[ply]`` (``me`` to move) into ``w.child`` and
    notes, per move ``i``: ``deltas[ply, i]``, ``same[ply, i]``, ``hints[ply, i]`` and the
    child's bounds from the margin and the database in ``lows``/``highs[ply, i]`` (0 for a
    terminal child, whose move's value is its delta: ``same`` 2). Starts fetching each child's
    table bucket, so that the cache misses of all children overlap instead of following one
    another."""
    s = w.states[ply]
    base = contract.margin(s)
    child = w.child[0]
    for i in range(n):
        w.child[0] = s
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
        w.hints[ply, i] = np.int64((1.0 + (h if me == 0 else -h)) * 262144.0)
        k_lo, k_hi = _mover_bounds(child, them)
        v = contract.endgame_value(child, db, db_k)
        if v != contract.NO_ENDGAME_VALUE:
            k_lo = v
            k_hi = v
        elif ETC:
            ckey = contract.solve_key(child)
            w.child_keys[ply, i] = ckey
            prefetch(table, _bucket_of(table, ckey))
        w.lows[ply, i] = k_lo
        w.highs[ply, i] = k_hi


@kernel(inline="always")
def _bound_moves(w, ply, n, tt_move, b, table):
    """Turns the children's bounds noted by :func:`_look_at_children` (tightened by their table
    entries) into bounds of each move's value for the mover: ``highs[ply, i]`` becomes the
    move's upper bound, a move known exactly is marked ``same`` 2, and ``keys[ply, i]`` gets the
    move's sort key. Returns ``(best, best_i)``, the best lower bound of a move and its index;
    stops at a move proven to reach ``b``."""
    best = -_INF
    best_i = 0
    for i in range(n):
        d = w.deltas[ply, i]
        k_lo = w.lows[ply, i]
        k_hi = w.highs[ply, i]
        if ETC and w.same[ply, i] != 2 and k_lo != k_hi:
            cslot = _probe(table, w.child_keys[ply, i])
            if cslot >= 0:
                k_lo = max(k_lo, np.int64(table[cslot]["lower"]))
                k_hi = min(k_hi, np.int64(table[cslot]["upper"]))
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
        # Order: the table's move, then by the best proven lower bound, the upper bound, the
        # gain, keeping the turn, and the game's heuristic of the child (for games whose moves
        # gain nothing until the end, such as normal-play Konane).
        w.order[ply, i] = i
        if i == tt_move:
            w.keys[ply, i] = 1 << 62
        else:
            w.keys[ply, i] = (
                (min(max(c_lo, -(1 << 15)), 1 << 15) << 46)
                + ((min(max(c_hi, -(1 << 15)), (1 << 15) - 1) + (1 << 15)) << 30)
                + ((min(max(d, -127), 127) + 128) << 22)
                + ((w.same[ply, i] & 1) << 21)
                + w.hints[ply, i]
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
def _open(w, ply, me, lo, hi, tt_move, table, db, db_k, stats):
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
    w.frames[ply, F_TT_MOVE] = tt_move
    _look_at_children(w, ply, me, n, table, db, db_k)
    best, best_i = _bound_moves(w, ply, n, tt_move, b, table)
    if best >= b:
        w.frames[ply, F_BEST_I] = best_i
        return True, best
    _sort_moves(w, ply, n)
    w.frames[ply, F_ALPHA] = max(a, best)
    w.frames[ply, F_BETA] = b
    w.frames[ply, F_ALPHA0] = max(a, best)
    w.frames[ply, F_BEST] = best
    w.frames[ply, F_BEST_I] = best_i
    w.frames[ply, F_NEXT] = 0
    w.frames[ply, F_SKIPPED_HIGH] = -_INF
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
def _next_move(w, ply):
    """The index of the next move of ``ply`` to search, -1 when none is left. Moves known exactly
    are passed over (counted already), and so are moves proven unable to raise alpha, whose upper
    bounds a fail-low bound must still cover (``F_SKIPPED_HIGH``)."""
    while w.frames[ply, F_NEXT] < w.frames[ply, F_COUNT]:
        i = w.order[ply, w.frames[ply, F_NEXT]]
        w.frames[ply, F_NEXT] += 1
        if w.same[ply, i] == 2:
            continue
        if w.highs[ply, i] <= w.frames[ply, F_ALPHA]:
            w.frames[ply, F_SKIPPED_HIGH] = max(w.frames[ply, F_SKIPPED_HIGH], w.highs[ply, i])
            continue
        return i
    return np.int64(-1)


@kernel(inline="always")
def _finish(w, table, stats, ply):
    """Stores the proven bound of the position searched at ``ply`` and returns its (fail-soft)
    value."""
    best = w.frames[ply, F_BEST]
    if best <= w.frames[ply, F_ALPHA] and w.frames[ply, F_SKIPPED_HIGH] > best:
        best = w.frames[ply, F_SKIPPED_HIGH]  # failing low: the bound covers the skipped moves
    if best <= w.frames[ply, F_ALPHA0]:
        lower, upper = -_INF, best
    elif best >= w.frames[ply, F_BETA]:
        lower, upper = best, _INF
    else:
        lower, upper = best, best
    move = w.frames[ply, F_BEST_I] if best > w.frames[ply, F_ALPHA0] else w.frames[ply, F_TT_MOVE]
    _store(table, contract.solve_key(w.states[ply]), lower, upper, move, stats[STAT_NODES] - w.frames[ply, F_NODES0])
    return best


@kernel(inline="always")
def _enter(w, ply, i):
    """Makes the child reached by move ``i`` of ``ply`` the position at ``ply + 1``, with the
    parent's window seen by the child's mover."""
    w.states[ply + 1] = w.states[ply]
    contract.apply_move(w.states[ply + 1], w.moves[ply, i])
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
def _null_window(stack, table, db, db_k, stats, alpha, beta, horizon):
    """Fail-soft alpha-beta value of the non-terminal ``stack.states[0]`` (change of the margin,
    mover's view) within ``(alpha, beta)``; ``stack.frames[0, F_BEST_I]`` is then the best
    child's index. ``stack``: a :class:`_SearchStack`; ``table``: ``SOLVER_ENTRY[buckets *
    BUCKET]``; ``db``, ``db_k``: an endgame database (``int8[:]``, -1: none); ``stats:
    int64[STAT_SIZE]``.

    Returns 0 with ``stats[STAT_ABORTED]`` set when a budget ran out or the game was deeper than
    the stack. Below ``horizon`` plies a position is not searched but estimated: no change of
    the margin from there (for the estimates that seed MTD(f); the bounds it stores are then
    estimates too, so it gets a table of its own).
    """
    # numba reference-counts each array that a function binds, with an atomic operation, and the
    # steps below, inlined into this loop, bind the stack's twelve arrays at every position
    # (their pairs of counts cannot be pruned across the game's kernels, which may raise): views
    # that it does not count keep the search as fast as one flat function. They are safe here:
    # they never leave this call, and the caller's reference keeps ``stack`` alive throughout.
    w = _SearchStack(
        _uncounted(stack.states), _uncounted(stack.child), _uncounted(stack.moves), _uncounted(stack.deltas),
        _uncounted(stack.same), _uncounted(stack.lows), _uncounted(stack.highs), _uncounted(stack.hints),
        _uncounted(stack.child_keys), _uncounted(stack.order), _uncounted(stack.keys), _uncounted(stack.frames),
    )
    max_ply = w.states.shape[0] - 1
    ply = 0
    w.frames[0, F_ALPHA] = alpha
    w.frames[0, F_BETA] = beta
    while True:
        # Enter the position at ply with the window in its frame: settle it at once or open it.
        me = contract.current_player(w.states[ply])
        settled, value, lo, hi, tt_move = _known_value(w, ply, me, table, db, db_k, horizon)
        if not settled:
            settled, value = _open(w, ply, me, lo, hi, tt_move, table, db, db_k, stats)
        # Fold values up and step to the next child until one needs entering.
        while True:
            if settled:
                if ply == 0:
                    return value
                ply -= 1
                settled = _fold(w, ply, value)
                if settled:
                    value = _finish(w, table, stats, ply)
                    continue
            i = _next_move(w, ply)
            if i < 0:
                value = _finish(w, table, stats, ply)
                settled = True
                continue
            if ply + 1 > max_ply:
                stats[STAT_ABORTED] = 2
                return np.int64(0)
            _enter(w, ply, i)
            ply += 1
            _count_node(stats)
            if stats[STAT_ABORTED]:
                return np.int64(0)
            break


@kernel
def solve_position(
    root: np.void, table: np.ndarray, guess_table: np.ndarray, guess_depth: int, db: np.ndarray, db_k: int, guess: int,
    node_limit: int, deadline_ns: int, max_ply: int, stats: np.ndarray, result: np.ndarray,
) -> int:
    """MTD(f) from the non-terminal ``root``: returns the index (``legal_moves`` order) of a best
    move and fills ``result: int64[3]`` with (lower, upper) bounds of the root's value, the change
    of the margin from ``root`` to the end seen by its player to move (equal when solved), and the
    number of null-window searches. ``guess`` is the first test value, refined by estimates to
    ``guess_depth`` plies first (in ``guess_table``, 0: none); ``stats: int64[STAT_SIZE]``
    collects the counts; a node budget, a deadline (``monotonic_ns``, 0: none) or a game deeper
    than ``max_ply`` stops the search with the bounds proven so far.
    """
    w = _new_search_stack(root, max_ply)
    stats[STAT_NODE_LIMIT] = node_limit
    stats[STAT_DEADLINE] = deadline_ns
    stats[STAT_ABORTED] = 0
    me = contract.current_player(root)
    lower, upper = _mover_bounds(root, me)
    exact = contract.endgame_value(root, db, db_k)
    if exact != contract.NO_ENDGAME_VALUE:
        lower = exact
        upper = exact
    best_move = -1
    f = min(max(guess, lower), upper)
    # Iterative deepening of estimates (Irving et al.): MTD(f) to a horizon of 2, 4, ... plies in a
    # table of its own, each depth starting from the last one's value, gives the exact search a
    # first test value near the truth, and each null-window search far from it is wasted work.
    for depth in range(2, guess_depth + 1, 2):
        for i in range(len(guess_table)):
            guess_table[i]["work"] = 0  # empty (a probe needs work != 0)
        low, high = lower, upper
        while low < high:
            beta = f + 1 if f == low else f
            w.states[0] = root
            g = _null_window(w, guess_table, db, db_k, stats, beta - 1, beta, depth)
            if stats[STAT_ABORTED]:
                break
            if g >= beta:
                low = g
            else:
                high = g
            f = g
        if stats[STAT_ABORTED]:
            break
    while lower < upper and not stats[STAT_ABORTED]:
        beta = f + 1 if f == lower else f
        w.states[0] = root
        stats[STAT_SEARCHES] += 1
        g = _null_window(w, table, db, db_k, stats, beta - 1, beta, max_ply + 1)
        if stats[STAT_ABORTED]:
            break
        if g >= beta:
            lower = g
            best_move = w.frames[0, F_BEST_I]
        else:
            upper = g
        f = g
    if best_move < 0 and lower == upper:
        # Never failed high: the value is the bound that every continuation reaches, or it was
        # known before the search (database, margin bounds). A search just below it names a
        # move: the root is always searched, so a child proven to reach the value fails it high.
        w.states[0] = root
        g = _null_window(w, table, db, db_k, stats, lower - 1, lower, max_ply + 1)
        if not stats[STAT_ABORTED]:
            best_move = w.frames[0, F_BEST_I]
    result[0] = lower
    result[1] = upper
    result[2] = stats[STAT_SEARCHES]
    return best_move


@dataclass(frozen=True)
class Solution:
    """An exact solution (or the bounds proven within a budget) of a position.

    ``margin`` is the final margin under perfect play from player 0's side (Kalah: South's store
    minus North's; a game without a margin: 1 win, 0 draw, -1 loss for player 0); ``lower`` and
    ``upper`` bound it when the budget ran out (they are equal when ``exact``). ``move`` is a best
    move for the player to move (None at a terminal position or when the budget ran out first).
    """

    margin: int | None
    lower: int
    upper: int
    exact: bool
    move: int | None
    nodes: int
    searches: int
    seconds: float
    has_margin: bool
    #: Processor time of the search (on a shared machine the fair measure of one core's work).
    cpu_seconds: float = 0.0

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
    nodes: int | None = None,
    guess: int | None = None,
    guess_depth: int | None = None,
    max_ply: int = 1000,
) -> Solution:
    """Solves ``state`` (a perfect-information ``engines.State``) to its final margin.

    Args:
        state: the position; the game must have perfect information and no chance.
        table: a table from :func:`new_solver_table` to use (and keep filling); else one of
            ``table_mb`` MiB is made.
        endgame: an endgame database ``(db, k)`` of the game (``Game.endgame_database``), or None.
        time, nodes: a budget in seconds or positions; the result is then maybe not exact.
        guess: the first value MTD(f) tests (player 0's margin); default the margin so far,
            refined by estimates to ``guess_depth`` plies (default 12 for a game with a margin,
            none for a game solved to win, draw or loss).
        max_ply: the deepest line the search may follow.

    Returns:
        a :class:`Solution`.

    Raises:
        ValueError: for a game with hidden information, or a database not of this game.

    Example:
        >>> from board_arena import engines
        >>> from board_arena.agents.solver import solve
        >>> solve(engines.make("kalah", pits=2, seeds=2).new_initial_state(), table_mb=1).margin
        -2
    """
    if not state.game.perfect_information:
        raise ValueError(f"{state.game.name} has hidden information: the solver needs perfect information")
    record = state.data
    data = record[0] if record.ndim else record
    has = contract.has_margin(data)
    started = _now()
    cpu_started = _cpu()
    if contract.is_terminal(data):
        m = int(contract.margin(data))
        return Solution(m, m, m, True, None, 0, 0, 0.0, has)
    if table is None:
        table = new_solver_table(table_mb)
    if endgame is not None:
        state.game.check_endgame_database(state, *endgame)
    db, k = endgame if endgame is not None else (np.zeros(0, np.int8), -1)
    me = int(contract.current_player(data))
    sign = 1 if me == 0 else -1
    base = int(contract.margin(data))
    # The search's value is the change of the margin from here, seen by the mover.
    first = 0 if guess is None else sign * (int(guess) - base)
    stats = np.zeros(STAT_SIZE, np.int64)
    result = np.zeros(3, np.int64)
    deadline = deadline_after(time)
    if guess_depth is None:
        guess_depth = 12 if has and guess is None else 0
    guess_table = new_solver_table(min(64.0, max(0.01, table.nbytes / 2**20 / 16))) if guess_depth else table[:BUCKET]
    index = solve_position(data, table, guess_table, int(guess_depth), db, int(k), first, int(nodes or 2**62), deadline,
                           int(max_ply), stats, result)
    if stats[STAT_ABORTED] == 2:
        raise ValueError(f"a line of play is longer than max_ply={max_ply}: raise it")
    lo, hi = int(result[0]), int(result[1])
    lower, upper = (base + lo, base + hi) if me == 0 else (base - hi, base - lo)
    exact = lower == upper
    move = None
    if index >= 0:
        move = int(state.legal_moves()[index])
    return Solution(
        margin=lower if exact else None,
        lower=lower,
        upper=upper,
        exact=exact,
        move=move,
        nodes=int(stats[STAT_NODES]),
        searches=int(stats[STAT_SEARCHES]),
        seconds=_now() - started,
        has_margin=has,
        cpu_seconds=_cpu() - cpu_started,
    )


def _now() -> float:
    return time.perf_counter()


def _cpu() -> float:
    return time.process_time()
