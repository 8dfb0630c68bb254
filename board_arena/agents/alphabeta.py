"""``alphabeta``: negamax alpha-beta with iterative deepening, a transposition table, move ordering,
budgets in depth, nodes and time, and a solve mode that searches to the end of the game.

Design notes:

* Negamax scores a position for its player to move. When a move leaves the same player to move
  (Mancala's extra turn, a pass), the child's score is taken as it is with the same window;
  otherwise it is negated with the window swapped. The side to move decides, not the ply parity.
* Transposition table: a fixed array of 32-byte ``TT_ENTRY`` records in buckets of two, one
  64-byte cache line, indexed by the low bits of the contract's ``state_hash``, the full hash kept
  to reject collisions. A bucket's first entry keeps the deepest search of the current root, the
  second is always replaced: with one always-replaced entry, the many shallow nodes would evict
  the few deep ones. Nodes
  with fewer than ``TABLE_DEPTH`` plies below neither probe nor store: a cache miss costs about
  as much as the few leaves a hit there would save, and their entries would evict deeper ones. A stored
  score is used for a cutoff only when it was searched to exactly the depth needed now, so that a
  depth-d search returns exactly depth-d minimax (what a researcher comparing algorithms expects),
  while entries of any depth still give the best move to try first. Win and loss scores are
  stored relative to the node (the "mate distance" adjustment of chess programs).
* Move ordering: the table's move, then the two killer moves of the ply, then by a history table
  (cutoffs weighted by depth squared), all generic over games.
* Principal variation search: a node's first child gets the node's window, the others the null
  window (alpha, alpha + SCOUT), searched again with the whole window only when they fail high
  inside it; at the root the null window sits just below the best so far, so that a tie fails
  high and gets its exact score for the tie-break. The scores are those of plain alpha-beta, for
  fewer nodes.
* Budgets: iterative deepening stops at ``depth``, when the ``nodes`` budget is spent (checked at
  every node) or the ``time`` runs out (checked every 1024 nodes inside the compiled search) or
  when the value is proven. An interrupted iteration still counts once its first root move (the
  previous iteration's best, always searched first) is done. Equally good root moves (their
  scores exact) are drawn from by rank, not in the order searched: the seed alone picks the move.
* Solve mode hands the position to the exact solver (``agents/solver.py``: MTD(f) on the final
  margin, a table of proven bounds, optional endgame databases) and reports the value and margin
  for the player to move.
"""

from __future__ import annotations

import mmap
from dataclasses import replace

import numpy as np

from board_arena.agents.base import (
    DEPTH,
    NODES,
    TIME,
    Agent,
    Limit,
    SearchInfo,
    register_agent,
)
from board_arena.agents.params import AgentParam
from board_arena.agents.scores import (
    INFINITY,
    PROVEN_SCORE,
    WIN_SCORE,
    horizon_score,
    is_proven,
    terminal_score,
    to_value,
)
from board_arena.engines import contract
from board_arena.kernels import deadline_after, kernel, monotonic_ns, rng_below

TT_ENTRY = np.dtype(
    [
        ("key", np.uint64),  # the full state hash
        ("score", np.float64),  # wins and losses relative to this node
        ("move", np.int64),  # best (or refuting) move found
        ("depth", np.int16),  # depth searched below this node
        ("bound", np.int8),  # BOUND_EXACT, BOUND_LOWER or BOUND_UPPER; 0: empty
        ("proven", np.int8),  # 1: no horizon cutoff below, the score is a game result
        ("age", np.uint8),  # the search that wrote it (_search_age of its root)
        ("_pad", np.uint8, (3,)),
    ],
    align=True,
)
BOUND_EXACT = 1
BOUND_LOWER = 2  # the score is at least the stored one (a beta cutoff)
BOUND_UPPER = 3  # the score is at most the stored one (no move reached alpha)

NO_MOVE = -1
#: Nodes with fewer plies below them do not use the table (see the module docstring).
TABLE_DEPTH = 2
HISTORY_SIZE = 1 << 16
MAX_DEPTH = 200
#: The width of a principal variation search's null window: any positive width proves the same
#: bounds (a score inside the window is returned exactly and searched again), the smallest cuts most.
SCOUT = 1e-9

# Slots of the ``stats`` array shared by the whole search.
STAT_NODES = 0
STAT_NODE_LIMIT = 1
STAT_DEADLINE = 2  # monotonic_ns deadline, 0: none
STAT_ABORTED = 3
STAT_HORIZON = 4  # set when a heuristic score was used: the result is not proven
STAT_SIZE = 5


@kernel(inline="always")
def _to_table(score, ply):
    if score >= PROVEN_SCORE:
        return score + ply
    if score <= -PROVEN_SCORE:
        return score - ply
    return score


@kernel(inline="always")
def _from_table(score, ply):
    if score >= PROVEN_SCORE:
        return score - ply
    if score <= -PROVEN_SCORE:
        return score + ply
    return score


@kernel(inline="always")
def _bucket(table, key):
    """The first of the two entries (one 64-byte cache line) where ``key`` may be stored."""
    return np.int64(key & np.uint64((len(table) >> 1) - 1)) << 1


@kernel(inline="always")
def find_entry(table, key):
    """The index of ``key``'s entry, or -1."""
    i = _bucket(table, key)
    if table[i]["key"] == key and table[i]["bound"] != 0:
        return i
    if table[i + 1]["key"] == key and table[i + 1]["bound"] != 0:
        return i + 1
    return -1


@kernel(inline="always")
def replaced_entry(table, key, depth, age):
    """The entry a search of ``depth`` below ``key`` overwrites: the bucket's first entry keeps
    the deepest search of the current root (or this key's), the second takes everything else."""
    i = _bucket(table, key)
    if table[i]["key"] == key or table[i]["depth"] <= depth or table[i]["age"] != age:
        return i
    return i + 1


@kernel(inline="always")
def _search_age(root):
    """A byte that tells the current search's entries from those of earlier searches (other
    roots: earlier moves of the game, other PIMC worlds), whose deep entries would otherwise hold
    the depth-preferred halves of the buckets for good."""
    return np.uint8(contract.state_hash(root) >> np.uint64(56))


@kernel(inline="always")
def _count_node(stats):
    """Counts a position; sets STAT_ABORTED when the node budget is spent or (checked every 1024
    positions, a system call being dearer than a node) the deadline has passed."""
    stats[STAT_NODES] += 1
    if stats[STAT_NODES] >= stats[STAT_NODE_LIMIT]:
        stats[STAT_ABORTED] = 1
    elif stats[STAT_NODES] & 1023 == 0 and stats[STAT_DEADLINE] != 0 and monotonic_ns() >= stats[STAT_DEADLINE]:
        stats[STAT_ABORTED] = 1


@kernel(inline="always")
def _order_moves(moves, keys, n, tt_move, killer0, killer1, history):
    """Sorts ``moves[:n]`` in place, best first: table move, killers, then history score."""
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            keys[i] = 1 << 62
        elif m == killer0:
            keys[i] = 1 << 61
        elif m == killer1:
            keys[i] = 1 << 60
        else:
            keys[i] = history[m & (HISTORY_SIZE - 1)]
    _sort_by_keys(moves, keys, n)


@kernel(inline="always")
def _sort_by_keys(moves, keys, n):
    """Sorts ``moves[:n]`` by ``keys[:n]``, largest first (insertion sort: n is small)."""
    for i in range(1, n):
        m = moves[i]
        k = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            moves[j + 1] = moves[j]
            keys[j + 1] = keys[j]
            j -= 1
        moves[j + 1] = m
        keys[j + 1] = k


FRAME = np.dtype(
    [
        ("alpha", np.float64),
        ("beta", np.float64),
        ("alpha0", np.float64),  # alpha on entry, to tell an exact score from an upper bound
        ("best", np.float64),
        ("key", np.uint64),  # state hash
        ("best_move", np.int64),
        ("count", np.int64),  # legal moves
        ("following", np.int64),  # index of the next move to search
        ("depth", np.int64),  # plies left to search
        ("me", np.int8),  # the player to move
        ("negate", np.int8),  # 1: the parent is the other player, so its score is -ours
        ("outer_horizon", np.int8),  # STAT_HORIZON of the enclosing search, restored on exit
        ("scout", np.int8),  # 1: the child being searched has the null window (alpha, alpha + SCOUT)
        ("_pad", np.uint8, (4,)),
    ],
    align=True,
)


@kernel(inline="always")
def _take_score(frame, killers, history, ply, move, score):
    """Folds a child's ``score`` (already from this node's side) into the node's frame;
    returns True on a beta cutoff."""
    if score > frame["best"]:
        frame["best"] = score
        frame["best_move"] = move
        if score > frame["alpha"]:
            frame["alpha"] = score
            if score >= frame["beta"]:
                if move != killers[ply, 0]:
                    killers[ply, 1] = killers[ply, 0]
                    killers[ply, 0] = move
                history[move & (HISTORY_SIZE - 1)] += frame["depth"] * frame["depth"]
                return True
    return False


@kernel(inline="always")
def _store(table, frame, stats, ply, age):
    """Writes the finished node to the table; returns its score."""
    best = frame["best"]
    proven = stats[STAT_HORIZON] == 0
    stats[STAT_HORIZON] |= frame["outer_horizon"]
    if frame["depth"] < TABLE_DEPTH:
        return best
    slot = table[replaced_entry(table, frame["key"], frame["depth"], age)]
    slot["age"] = age
    slot["key"] = frame["key"]
    slot["score"] = _to_table(best, ply)
    slot["move"] = frame["best_move"]
    slot["depth"] = frame["depth"]
    slot["proven"] = proven
    if best <= frame["alpha0"]:
        slot["bound"] = BOUND_UPPER
    elif best >= frame["beta"]:
        slot["bound"] = BOUND_LOWER
    else:
        slot["bound"] = BOUND_EXACT
    return best


@kernel(inline="always")
def _negamax(stack, moves, keys, frames, table, age, killers, history, stats, top, depth, alpha, beta, db, db_k):
    """Fail-soft negamax score of the non-terminal ``stack[top]`` for its player to move.

    A depth-first walk over explicit per-ply ``frames`` (numba cannot cache recursive kernels
    that other kernels call); terminal children are scored where they are generated, so every
    node entered is non-terminal. Returns 0 with ``stats[STAT_ABORTED]`` set when a budget ran out.
    """
    ply = top
    frames[top]["depth"] = depth
    frames[top]["alpha"] = alpha
    frames[top]["beta"] = beta
    frames[top]["negate"] = 0
    while True:
        # Enter stack[ply]: a horizon leaf, a table hit, or a node whose children we search.
        s = stack[ply]
        frame = frames[ply]
        have_value = False
        value = 0.0
        if frame["depth"] <= 0:
            value = _leaf_score(s, contract.current_player(s), stats, db, db_k)
            have_value = True
        else:
            tt_move = NO_MOVE
            key = np.uint64(0)
            if frame["depth"] >= TABLE_DEPTH:
                key = contract.state_hash(s)
                slot = find_entry(table, key)
                if slot >= 0:
                    entry = table[slot]
                    tt_move = entry["move"]
                    if entry["depth"] == frame["depth"]:
                        score = _from_table(entry["score"], ply)
                        bound = entry["bound"]
                        if (
                            bound == BOUND_EXACT
                            or (bound == BOUND_LOWER and score >= frame["beta"])
                            or (bound == BOUND_UPPER and score <= frame["alpha"])
                        ):
                            if entry["proven"] == 0:
                                stats[STAT_HORIZON] = 1
                            value = score
                            have_value = True
            if not have_value:
                n = contract.legal_moves(s, moves[ply])
                _order_moves(moves[ply], keys[ply], n, tt_move, killers[ply, 0], killers[ply, 1], history)
                frame["key"] = key
                frame["count"] = n
                frame["following"] = 0
                frame["alpha0"] = frame["alpha"]
                frame["best"] = -INFINITY
                frame["best_move"] = moves[ply, 0]
                frame["me"] = contract.current_player(s)
                frame["scout"] = 0
                frame["outer_horizon"] = stats[STAT_HORIZON]
                stats[STAT_HORIZON] = 0

        # Fold values up and step to the next child until a child needs entering.
        while True:
            if have_value:
                if ply == top:
                    return value
                negate = frames[ply]["negate"]
                ply -= 1
                frame = frames[ply]
                have_value = False
                move = moves[ply, frame["following"] - 1]
                score = -value if negate else value
                if frame["scout"]:
                    frame["scout"] = 0
                    if frame["alpha"] < score < frame["beta"]:
                        # The null window failed high: search the child again with the whole window
                        # (stack[ply + 1] still holds it: only this node writes that slot).
                        _child_window(frames[ply + 1], frame, negate, False)
                        ply += 1
                        break
                if _take_score(frame, killers, history, ply, move, score):
                    value = _store(table, frame, stats, ply, age)
                    have_value = True
                    continue
            if frame["following"] == frame["count"]:
                value = _store(table, frame, stats, ply, age)
                have_value = True
                continue
            move = moves[ply, frame["following"]]
            frame["following"] += 1
            child = stack[ply + 1]
            stack[ply + 1] = stack[ply]
            contract.apply_move(child, move)
            _count_node(stats)
            if stats[STAT_ABORTED]:
                return 0.0
            if contract.is_terminal(child):
                score = terminal_score(child, frame["me"], ply + 1)
                if _take_score(frame, killers, history, ply, move, score):
                    value = _store(table, frame, stats, ply, age)
                    have_value = True
                continue
            if frame["depth"] == 1:  # a horizon leaf, scored here as entering it would
                score = _leaf_score(child, frame["me"], stats, db, db_k)
                if _take_score(frame, killers, history, ply, move, score):
                    value = _store(table, frame, stats, ply, age)
                    have_value = True
                continue
            below = frames[ply + 1]
            below["depth"] = frame["depth"] - 1
            # Principal variation search: the first child gets the whole window; the others are
            # expected to be worse, which a null window at alpha proves at less cost.
            scout = frame["following"] > 1 and frame["alpha"] > -INFINITY and frame["alpha"] + SCOUT < frame["beta"]
            frame["scout"] = scout
            _child_window(below, frame, contract.current_player(child) != frame["me"], scout)
            ply += 1
            break


@kernel(inline="always")
def _child_window(below, frame, negate, scout):
    """Sets the window of the child ``below`` of ``frame``: the node's (alpha, beta), or with
    ``scout`` the null window (alpha, alpha + SCOUT); swapped and negated when the other player
    moves there."""
    alpha = frame["alpha"]
    beta = alpha + SCOUT if scout else frame["beta"]
    if negate:
        below["alpha"] = -beta
        below["beta"] = -alpha
        below["negate"] = 1
    else:
        below["alpha"] = alpha
        below["beta"] = beta
        below["negate"] = 0


@kernel(inline="always")
def _leaf_score(s, player, stats, db, db_k):
    """The score of the non-terminal horizon leaf ``s`` for ``player``: its endgame database
    value if it has one, else the heuristic (which marks the search as not proven)."""
    value = _endgame_score(s, db, db_k)
    if value == NO_SCORE:
        stats[STAT_HORIZON] = 1
        return horizon_score(s, player)
    return value if contract.current_player(s) == player else -value


@kernel
def _root_child(stack, moves, keys, frames, table, age, killers, history, stats, depth, alpha, beta, mover, db, db_k):
    """The score of the root's child ``stack[1]`` for the root's player, searched with the window
    (alpha, beta) of the root's side; ``mover``: the root's player moves again there.
    :func:`_negamax` has this one call site, inlined with its ply a constant; this helper is
    left to LLVM (out of line), so that a search holds one copy of the inner loop, not four."""
    sign = 1.0 if mover else -1.0
    low, high = (alpha, beta) if mover else (-beta, -alpha)
    return sign * _negamax(stack, moves, keys, frames, table, age, killers, history, stats, 1, depth - 1, low, high, db, db_k)


@kernel(inline="always")
def _tie_break(moves, scores, n, best, rng):
    """A uniformly drawn move among ``moves[:n]`` scoring ``best``: the k-th smallest, so that
    the choice does not depend on the order the search happened to try them in (that order
    follows bounds, which depend on the table's contents; the tied scores are exact)."""
    ties = 0
    for i in range(n):
        ties += scores[i] == best
    k = rng_below(rng, ties) if ties > 1 else 0
    for i in range(n):
        if scores[i] == best:
            smaller = 0
            for j in range(n):
                smaller += scores[j] == best and moves[j] < moves[i]
            if smaller == k:
                return moves[i]
    return moves[0]


@kernel
def alphabeta_search(
    root: np.void, max_depth: int, node_limit: int, deadline_ns: int, table: np.ndarray, history: np.ndarray,
    rng: np.ndarray, result: np.ndarray,
) -> int:
    """:func:`alphabeta_search_endgame` without an endgame database."""
    return alphabeta_search_endgame(
        root, max_depth, node_limit, deadline_ns, table, history, rng, result, np.zeros(0, np.int8), -1
    )


#: What ``_endgame_score`` returns for a position its database does not hold.
NO_SCORE = -2.0 * WIN_SCORE
#: A database result's final margin, in score per seed: it orders the results of one kind (two
#: margins of 1 and 200 seeds differ by less than a ply, and a proven result by far more).
DB_MARGIN_WEIGHT = 1e-3


@kernel(inline="always")
def _endgame_score(s, db, db_k):
    """The proven score of ``s`` for its player to move from an endgame database (the game's
    ``contract.endgame_value``: the change of the margin to the end), or NO_SCORE. The distance to
    the end is unknown, so a database win ranks just above the proven threshold: below any win
    the search sees itself, as a later win should. Among database results of one kind the final
    margin under perfect play decides: a lost side keeps the loss small (the most the opponent
    must still find: against a fallible opponent the best chance, where equal scores would leave
    the choice among losing moves to the tie-break's dice), a winning side takes the most."""
    change = contract.endgame_value(s, db, db_k)
    if change == contract.NO_ENDGAME_VALUE:
        return NO_SCORE
    final = change + (contract.margin(s) if contract.current_player(s) == 0 else -contract.margin(s))
    if final > 0:
        return PROVEN_SCORE + 1.0 + DB_MARGIN_WEIGHT * final
    if final < 0:
        return -(PROVEN_SCORE + 1.0) + DB_MARGIN_WEIGHT * final
    return 0.0


@kernel
def alphabeta_search_endgame(
    root: np.void, max_depth: int, node_limit: int, deadline_ns: int, table: np.ndarray, history: np.ndarray,
    rng: np.ndarray, result: np.ndarray, db: np.ndarray, db_k: int,
) -> int:
    """Iterative-deepening alpha-beta from the non-terminal ``root``.

    Returns the best move; fills ``result: float64[4]`` with (score, depth completed, nodes,
    proven). Deepening stops at ``max_depth``, after ``node_limit`` positions, at ``deadline_ns``
    (a ``monotonic_ns`` time, 0: none) or once the value is proven. Ties between equally scored
    root moves are broken uniformly at random. ``db`` (``int8[:]``) with ``db_k``: an endgame
    database the game reads at the horizon (``contract.endgame_value``), empty with -1: none.
    """
    stack = contract.new_states(root, MAX_DEPTH + 2)
    width = contract.max_moves(root)
    moves = np.empty((MAX_DEPTH + 1, width), contract.MOVE_DTYPE)
    keys = np.empty((MAX_DEPTH + 1, width), np.int64)
    killers = np.full((MAX_DEPTH + 1, 2), NO_MOVE, np.int64)
    frames = np.zeros(MAX_DEPTH + 2, FRAME)
    stats = np.zeros(STAT_SIZE, np.int64)
    stats[STAT_NODE_LIMIT] = node_limit
    stats[STAT_DEADLINE] = deadline_ns
    me = contract.current_player(root)
    age = _search_age(root)
    stack[0] = root
    n = contract.legal_moves(root, moves[0])
    root_moves = moves[0, :n].copy()
    root_keys = np.zeros(n, np.int64)
    root_scores = np.zeros(n, np.float64)

    best_move = root_moves[0]
    best_score = 0.0
    completed = 0
    proven = False
    child = stack[1]
    for depth in range(1, max_depth + 1):
        # Previous best first; the others in the order of the last iteration's scores.
        iteration_best = -INFINITY
        stats[STAT_HORIZON] = 0
        searched = 0
        for i in range(n):
            move = root_moves[i]
            stack[1] = root
            contract.apply_move(child, move)
            _count_node(stats)
            if stats[STAT_ABORTED]:
                break
            # A window just below the best so far, so that moves as good as it get an exact
            # score and can share the random tie-break; tried first with the null window up to
            # the best (principal variation search), which a worse move fails low on cheaply.
            alpha = iteration_best - SCOUT
            if contract.is_terminal(child):
                score = terminal_score(child, me, 1)
            else:
                scout = iteration_best > -INFINITY
                mover = contract.current_player(child) == me
                score = _root_child(
                    stack, moves, keys, frames, table, age, killers, history, stats, depth, alpha,
                    iteration_best if scout else INFINITY, mover, db, db_k,
                )
                if scout and score >= iteration_best and not stats[STAT_ABORTED]:
                    score = _root_child(
                        stack, moves, keys, frames, table, age, killers, history, stats, depth, alpha, INFINITY, mover, db, db_k
                    )
            if stats[STAT_ABORTED]:
                break
            searched += 1
            root_keys[i] = np.int64(score * 1e6)
            root_scores[i] = score
            iteration_best = max(iteration_best, score)
        iteration_move = _tie_break(root_moves, root_scores, searched, iteration_best, rng) if searched else root_moves[0]
        if searched == n:
            best_move, best_score, completed = iteration_move, iteration_best, depth
            proven = stats[STAT_HORIZON] == 0 or abs(best_score) >= PROVEN_SCORE
            # Next iteration: the best move first (whatever the tie-break chose), then the others
            # by this iteration's scores.
            _sort_by_keys(root_moves, root_keys, n)
            for i in range(n):
                if root_moves[i] == best_move:
                    for j in range(i, 0, -1):
                        root_moves[j] = root_moves[j - 1]
                    root_moves[0] = best_move
                    break
        elif searched > 0:
            # Interrupted after the previous best, searched first, was done: the deeper
            # iteration's choice among the moves it searched is the better informed.
            best_move, best_score = iteration_move, iteration_best
        if stats[STAT_ABORTED] or proven:
            break
    result[0] = best_score
    result[1] = completed
    result[2] = stats[STAT_NODES]
    result[3] = 1.0 if proven else 0.0
    return best_move


_HUGE_PAGE = 2**21
_CACHE_LINE = 64


def new_table(megabytes: float) -> np.ndarray:
    """A zeroed transposition table of the largest power-of-two size within ``megabytes`` (at
    least one bucket), its buckets aligned to cache lines.

    A table of 2 MiB or more lives in memory mapped for transparent huge pages where the system
    offers them (``madvise``): probes land anywhere in the table, and with 4 KiB pages nearly
    every probe of a 16 MiB table would also miss the TLB.
    """
    entries = max(2, int(megabytes * 2**20) // TT_ENTRY.itemsize)  # at least one bucket
    count = 1 << (entries.bit_length() - 1)
    size = count * TT_ENTRY.itemsize
    if size < _HUGE_PAGE or not hasattr(mmap, "MADV_HUGEPAGE"):
        memory = np.zeros(size + _CACHE_LINE, np.uint8)
        first = -memory.ctypes.data % _CACHE_LINE  # a bucket per cache line
        return memory[first : first + size].view(TT_ENTRY)
    block = mmap.mmap(-1, size + _HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # zeroed; kept alive by the array
    start = -np.frombuffer(block, np.uint8, 1).ctypes.data % _HUGE_PAGE  # the first 2 MiB boundary
    try:
        block.madvise(mmap.MADV_HUGEPAGE, start, size)
    except OSError:
        pass  # huge pages are an optimisation
    return np.frombuffer(block, TT_ENTRY, count, start)


def clear(table: np.ndarray) -> None:
    """Zeroes a table in place as one block of bytes (assigning 0 to a structured array goes field
    by field, far slower)."""
    table.view(np.uint8)[:] = 0


TABLE_MB = AgentParam("table_mb", 16.0, "transposition table size in MiB", low=0.001, high=16384.0, effect="memory_mb")


class TableAgent(Agent):
    """An agent that owns a transposition table and a history table, allocated once, kept between
    the moves of a game and cleared by ``reset``."""

    def _check_params(self):
        self.table = new_table(self.params["table_mb"])
        self.history = np.zeros(HISTORY_SIZE, np.int64)

    def reset(self, seed: int | None = None) -> None:
        if self._searched:  # a table no search has touched is zero already (and maybe not yet paged in)
            clear(self.table)
            self.history[:] = 0
        super().reset(seed)


@register_agent
class AlphaBetaAgent(TableAgent):
    name = "alphabeta"
    summary = "negamax alpha-beta, iterative deepening, transposition table, move ordering"
    PARAMS = (
        DEPTH,
        replace(NODES, doc="positions visited per move (100,000 when no depth, nodes or time is given)"),
        TIME,
        AgentParam("solve", False, "solve exactly (agents/solver.py: MTD(f) on the final margin) and report the margin", effect="work"),
        AgentParam("endgame", 0, "endgame database of every position up to this size (Kalah: seeds on the board; "
              "the morris games: cows on the board after placing; built once into the cache folder), read at the "
              "horizon and by solve, and played perfectly where it holds the position; 0: none",
              low=0, high=63, effect="database"),
        TABLE_MB,
    )
    #: The budget when no depth, nodes or time is given and the agent does not solve.
    DEFAULT_LIMIT = Limit(nodes=100_000)

    @property
    def limit(self) -> Limit:
        limit = super().limit
        if limit == Limit() and not self.params["solve"]:
            return self.DEFAULT_LIMIT
        return limit

    def _check_params(self):
        super()._check_params()
        self._solver_table: np.ndarray | None = None

    def reset(self, seed: int | None = None) -> None:
        if self._searched and self._solver_table is not None:
            clear(self._solver_table)
        super().reset(seed)

    def _solve(self, state, limit):
        """The exact solver's move and margin; when a budget stops it first, the proven bounds give
        the value if they decide the result, and the plain search picks the move if it has none."""
        from board_arena.agents.solver import new_solver_table, solve

        if self._solver_table is None:
            self._solver_table = new_solver_table(self.params["table_mb"])
        db = self._endgame(state)
        solution = solve(state, table=self._solver_table, endgame=db, time=limit.time, nodes=limit.nodes)
        sign = 1 if state.current_player == 0 else -1
        lower, upper = sorted((sign * solution.lower, sign * solution.upper))
        decided = lower > 0 or upper < 0 or lower == upper == 0
        move = solution.move
        if move is None:
            move = int(alphabeta_search(state.data, 4, 10_000, 0, self.table, self.history, self.rng, np.zeros(4)))
        return SearchInfo(
            move=int(move),
            value=float(np.sign(lower if lower > 0 else upper)) if decided else 0.0,
            exact=decided,
            nodes=solution.nodes,
            margin=sign * solution.margin if solution.margin is not None and solution.exact and solution.has_margin else None,
        )

    def _select(self, state, limit):
        database = self._endgame(state)
        perfect = self._database_move(state, database)
        if perfect is not None:
            return perfect
        if self.params["solve"]:
            return self._solve(state, limit)
        depth = limit.depth or MAX_DEPTH
        nodes = limit.nodes or 2**62
        deadline = deadline_after(limit.time)
        self.history >>= 1  # age the history between moves
        result = np.zeros(4)
        db, k = database or (np.zeros(0, np.int8), -1)
        move = alphabeta_search_endgame(
            state.data, depth, nodes, deadline, self.table, self.history, self.rng, result, db, k
        )
        score = float(result[0])
        return SearchInfo(
            move=int(move),
            value=0.0 if result[3] and not is_proven(score) else float(to_value(score)),
            exact=bool(result[3]),
            depth=int(result[1]),
            nodes=int(result[2]),
        )
