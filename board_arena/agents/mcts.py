"""``mcts``: UCT (Kocsis and Szepesvari 2006) with random rollouts, MCTS-Solver, heuristic leaf
evaluations with implicit minimax backups, and root parallelism.

Each simulation descends the tree from the root by UCB1 (mean reward + ``c`` * sqrt(ln N / n)),
tries one child for a move not tried yet (chosen uniformly at random), evaluates the new leaf and
backs the result up. A node's statistics are from the point of view of the player who made the
move into it (whoever that was: an extra turn or a pass changes nothing), so the parent always
maximises over its children. The move played is the most visited child, ties broken uniformly at
random. The parameters (docs/benchmarks.md, "MCTS parameters", has the runs behind each default):

* ``solver`` (on): MCTS-Solver (Winands, Bjornsson and Saito 2008, "Monte-Carlo Tree Search
  Solver"), with draws. A new leaf that ends the game is proven; a node is proven a win for its
  player to move as soon as one child is, and proven at the best of its children's values once
  every move is tried and proven (children and node values from their movers' sides, so Kalah's
  extra turns need nothing more). Selection never enters a proven loss, scores a proven draw 0
  without exploration, and a simulation that reaches a proven node backs up its exact value
  without a rollout. A root with a proven win child plays it at once and stops
  (``SearchInfo.exact``). A loss or a draw is not marked at the root or its children: there the
  search goes on with their means (the proofs below stay), so a lost position is played for the
  move a fallible opponent is likeliest to get wrong rather than the first one proven lost.
* ``eval`` (``rollout``): the value of a new leaf: a uniformly random game to the end, the game's
  ``heuristic`` (the one alpha-beta uses at its horizon, player 0's view in (-1, 1)), or
  ``mix``: ``(1 - weight) rollout + weight heuristic``.
* ``minimax``: implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant 2014,
  "Monte Carlo Tree Search with Heuristic Evaluations using Implicit Minimax Backups"): every
  record also keeps the heuristic of its leaf backed up by minimax (a float32 ``value`` field,
  for which ``total`` narrows to float32: :func:`node_dtype`, the same 24 bytes), and selection
  uses ``(1 - minimax) mean + minimax value``; the rollouts stay. By default the weight the game
  declares for its heuristic (``Game.implicit_minimax``: Mancala and Morabaraba declare 0.6), 0
  (off) for a game that declares none.
* ``threads`` (1): root parallelism (Chaslot, Winands and van den Herik 2008): that many
  independent trees, each in a thread of its own (the kernel releases the interpreter lock),
  each with its own generator drawn from the agent's; the root children's visits are summed by
  move and the most visited played. An iteration budget is shared between the trees, so the
  search is reproducible for a seed and a thread count; a time budget gives each tree the whole
  time. The default of 1 keeps tournaments that run a game per core fair.

The tree is one array of 24-byte ``NODE`` records (32 bytes when move ids need 64 bits; 20
bytes, :data:`COMPACT_MINIMAX_NODE`, for implicit minimax on games whose move ids fit 16 bits
and whose positions have at most 255 moves: Mancala and Kalah, by default). A node's children
are one contiguous block, made the first time a simulation passes through the node: a record
per legal move, the tried ones first (trying a child swaps its move to the front of
the untried part), so UCB1 is one loop over ``tree[children : children + tried]``. Records have
no parent link: a simulation backs up along the path it selected. A proven value needs no field:
it is kept in ``total`` as a value no sum of rewards reaches (+inf, -inf, nan: see
:data:`PROVEN_WIN`). The array grows in place (see :func:`grow_tree`).

Memory: beyond each tried node's own record, a search holds the untried records of the child
blocks (a block is made whole the first time a simulation passes through its node) and the
slack of the array's growth; ``experiments/mcts_memory.py`` measures both.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, replace
from functools import partial
from typing import Callable, ClassVar, NamedTuple

import numpy as np

from board_arena.agents.base import (
    ITERATIONS,
    TIME,
    Agent,
    Limit,
    SearchInfo,
    register_agent,
)
from board_arena.agents.params import AgentParam
from board_arena.engines import Game, contract
from board_arena.kernels import (
    deadline_after,
    kernel,
    monotonic_ns,
    rng_below,
    rng_from_seed,
)


def node_dtype(move_dtype: np.dtype, minimax: bool = False, count_dtype: np.dtype = np.dtype(np.uint16)) -> np.dtype:
    """The tree record of a game whose move ids fit ``move_dtype`` and whose positions have at
    most ``count_dtype``'s maximum of legal moves (24 bytes with int32 moves, 32 with int64), with
    a float32 implicit minimax ``value`` when ``minimax`` (the same size: ``total`` is then
    float32, exact for sums of rollout results up to 2**24 visits of a node; beyond, and for
    heuristic rewards, rounded to 24 bits, far below what UCB1 tells apart). The minimax record
    with uint16 moves and uint8 counts is 20 bytes (:data:`COMPACT_MINIMAX_NODE`)."""
    total = [("total", np.float32), ("value", np.float32)] if minimax else [("total", np.float64)]
    return np.dtype(
        [
            # ``total``: sum of rewards for the player who made ``move`` (1 win, 0 draw, -1 loss)
            # ``value``: the implicit minimax value for that player (see mcts_run)
            *total,
            ("visits", np.int32),  # simulations through this node (0: a move not tried yet)
            ("children", np.int32),  # index of the first record of the child block, NO_NODE until expanded
            ("move", move_dtype),  # the move from the parent into this node
            ("legal", count_dtype),  # size of the child block: the legal moves of the node's state
            ("tried", count_dtype),  # children tried so far: the first ``tried`` records of the block
        ],
        align=True,
    )


#: The record of games whose move ids fit 32 bits (all but Konane), and of the others; with the
#: implicit minimax value; and that one for games with move ids below 2**16 and at most 255 legal
#: moves (Mancala, Kalah: 20 bytes, with a uint16 move and uint8 counts).
NODE = node_dtype(np.dtype(np.int32))
WIDE_NODE = node_dtype(np.dtype(np.int64))
MINIMAX_NODE = node_dtype(np.dtype(np.int32), minimax=True)
WIDE_MINIMAX_NODE = node_dtype(np.dtype(np.int64), minimax=True)
COMPACT_MINIMAX_NODE = node_dtype(np.dtype(np.uint16), minimax=True, count_dtype=np.dtype(np.uint8))
#: Child blocks count their records in uint16 (uint8 in the compact record).
MAX_BLOCK = 2**16 - 1
MAX_COMPACT_BLOCK = 2**8 - 1
NO_NODE = -1
ROOT = 0


def tree_record(root: np.void, minimax: bool) -> np.dtype:
    """The smallest of the records above that holds the moves of ``root``'s game, with the implicit
    minimax value if ``minimax``."""
    bound = contract.move_bound(root)
    if minimax and bound <= 2**16 and contract.max_moves(root) <= MAX_COMPACT_BLOCK:
        return COMPACT_MINIMAX_NODE
    if bound <= 2**31:
        return MINIMAX_NODE if minimax else NODE
    return WIDE_MINIMAX_NODE if minimax else WIDE_NODE


# Slots of the ``counters`` array, kept between calls when the tree grows.
COUNT_NODES = 0  # nodes the simulations created (tried children and the root)
COUNT_SIMULATIONS = 1
COUNT_MAX_DEPTH = 2
COUNT_RECORDS = 3  # records of the tree array in use (tried and untried children, the root)
N_COUNTERS = 4


@kernel
def init_tree(tree: np.ndarray, counters: np.ndarray) -> None:
    _init_node(tree, ROOT, -1)
    counters[:] = 0
    counters[COUNT_NODES] = 1
    counters[COUNT_RECORDS] = 1


@kernel(inline="always")
def _init_node(tree, node, move):
    record = tree[node]
    record["total"] = 0.0
    record["move"] = move
    record["visits"] = 0
    record["children"] = NO_NODE
    record["legal"] = 0
    record["tried"] = 0


@kernel(inline="always")
def _expand(tree, node, moves, n, counters):
    """Gives ``node`` its block of children: one untried record per legal move, at the end of
    the records in use."""
    first = counters[COUNT_RECORDS]
    counters[COUNT_RECORDS] += n
    for i in range(n):
        _init_node(tree, first + i, moves[i])
    tree[node]["children"] = first
    tree[node]["legal"] = n


@kernel(inline="always")
def _try_child(tree, node, rng):
    """Tries an untried child of ``node`` chosen uniformly at random: swaps it to the end of the
    tried part of the block (untried records differ only in their move) and returns it."""
    first = tree[node]["children"]
    tried = np.int64(tree[node]["tried"])
    child = first + tried
    pick = child + rng_below(rng, np.int64(tree[node]["legal"]) - tried)
    move = tree[pick]["move"]
    tree[pick]["move"] = tree[child]["move"]
    tree[child]["move"] = move
    tree[node]["tried"] = tried + 1
    return child


#: Visit counts below which UCB1's terms come from tables rather than a division, a square root
#: and a logarithm per child and level (the same numbers: Python's ``math`` calls the C library
#: numba's code calls, and IEEE division and square roots are exact roundings).
SMALL_COUNTS = 4096
INVERSE = np.array([0.0] + [1.0 / n for n in range(1, SMALL_COUNTS)])
SQRT_INVERSE = np.array([0.0] + [math.sqrt(1.0 / n) for n in range(1, SMALL_COUNTS)])
SQRT_LOG = np.array([0.0] + [math.sqrt(math.log(n)) for n in range(1, SMALL_COUNTS)])


@kernel(inline="always")
def _select_child(tree, values, node, c, alpha):
    """The tried child of ``node`` maximising UCB1, mean + c sqrt(ln N) sqrt(1 / n), where the
    mean is ``(1 - alpha) mean + alpha values[child]`` with implicit minimax (``alpha > 0``): one
    pass over the contiguous tried part of the block, c sqrt(ln N) computed once. A proven child
    (its ``total`` not finite, see :func:`proven_value`) counts its exact value: a proven loss is
    never chosen, a proven draw scores 0 with no exploration bonus (visiting it teaches nothing:
    it is chosen when every unproven child looks worse than a draw), a proven win is chosen at
    once. Every tried child has a
    visit (a simulation created it); ties go to the first found, and children are tried in random
    order. NO_NODE when every tried child is a proven loss."""
    visits = tree[node]["visits"]
    explore = c * (SQRT_LOG[visits] if visits < SMALL_COUNTS else math.sqrt(math.log(visits)))  # once per level
    first = tree[node]["children"]
    best = NO_NODE
    best_score = -np.inf
    for child in range(first, first + np.int64(tree[node]["tried"])):
        n = tree[child]["visits"]
        if n < SMALL_COUNTS:
            inverse = INVERSE[n]
            root = SQRT_INVERSE[n]
        else:
            inverse = 1.0 / np.float64(n)
            root = math.sqrt(inverse)
        total = tree[child]["total"]
        if math.isfinite(total):  # always so without the solver
            mean = total * inverse
            if alpha > 0.0:
                mean = (1.0 - alpha) * mean + alpha * np.float64(values[child])
        elif total < 0.0:
            continue
        elif total > 0.0:
            return child
        else:
            mean = 0.0
            root = 0.0  # nothing left to learn there: no exploration bonus
        score = mean + explore * root
        if score > best_score:
            best_score = score
            best = child
    return best


#: How a proven result is kept in a record's ``total``, from the point of view of the player who
#: made the move into the node: the values no sum of finite rewards can reach, so a proven node
#: needs no field of its own and the backup's additions leave it as it is (inf + x = inf,
#: nan + x = nan). The root's is from the point of view of its player to move.
PROVEN_WIN = np.inf
PROVEN_LOSS = -np.inf
PROVEN_DRAW = np.nan
#: What :func:`_proof_of` returns for a node whose children do not decide it yet.
UNPROVEN = 2.0


@kernel(inline="always")
def proven_value(total):
    """The exact value (1, 0, -1) that a record's ``total`` holds, or UNPROVEN."""
    if math.isfinite(total):
        return UNPROVEN
    if total > 0.0:
        return 1.0
    if total < 0.0:
        return -1.0
    return 0.0


@kernel(inline="always")
def _proven_total(value):
    """The ``total`` that marks a node proven with ``value`` (1, 0, -1)."""
    if value > 0.0:
        return PROVEN_WIN
    if value < 0.0:
        return PROVEN_LOSS
    return PROVEN_DRAW


@kernel(inline="always")
def _mark_proven(tree, node, depth, value):
    """Marks ``node`` at ``depth`` proven with ``value`` (1, 0, -1; its mover's side, the root's
    player to move's at the root) and returns True, except a loss or a draw at the root or one of
    its children (returns False): those keep their means, so that the search goes on among
    the root's moves and plays the one that resists longest or draws most surely against an
    opponent who may err, instead of stopping with whichever move a perfect opponent beats.
    Below them, proofs are kept whatever they are: the move choice never reads those means."""
    if depth >= 2 or value == 1.0:
        tree[node]["total"] = _proven_total(value)
        return True
    return False


@kernel(inline="always")
def _proof_of(tree, node):
    """The value of ``node`` for its player to move that its children prove (MCTS-Solver,
    Winands, Bjornsson and Saito 2008, with draws): a win if one child is a proven win for that
    player (the mover of every child), else the best of the children's values once every legal
    move is tried and proven; UNPROVEN otherwise."""
    first = tree[node]["children"]
    tried = np.int64(tree[node]["tried"])
    best = -1.0
    decided = tried == np.int64(tree[node]["legal"])
    for child in range(first, first + tried):
        value = proven_value(tree[child]["total"])
        if value == 1.0:
            return 1.0
        if value == UNPROVEN:
            decided = False
        elif value > best:
            best = value
    return best if decided else UNPROVEN


@kernel(inline="always")
def _best_of_children(tree, values, node):
    """The implicit minimax value of ``node`` for its player to move: the best ``values`` of its
    tried children (each from that player's side)."""
    first = tree[node]["children"]
    best = -np.inf
    for child in range(first, first + np.int64(tree[node]["tried"])):
        best = max(best, np.float64(values[child]))
    return best


#: Leaf evaluations (``eval``): the result of a random game to the end, the game's heuristic of
#: the new leaf, or ``(1 - weight) rollout + weight heuristic``.
EVAL_ROLLOUT = 0
EVAL_HEURISTIC = 1
EVAL_MIX = 2
EVALUATIONS = ("rollout", "heuristic", "mix")


class Settings(NamedTuple):
    """What a search does with its simulations (the ``mcts`` parameters of the same names)."""

    c: float  # UCB1 exploration constant
    solver: bool  # prove results and back them up (MCTS-Solver)
    evaluation: int  # EVAL_ROLLOUT, EVAL_HEURISTIC or EVAL_MIX
    weight: float  # the heuristic's share of a leaf's value under EVAL_MIX
    alpha: float  # the implicit minimax value's share of a child's mean in selection (0: none)


#: Plain UCT: random rollouts, no solver, no heuristic (the search the tests compare with).
UCT = Settings(1.4, False, EVAL_ROLLOUT, 0.0, 0.0)


#: Levels of the first selection path buffer of an ``mcts_run`` call (doubled as needed).
PATH_ROOM = 16


@kernel(nogil=True)
def mcts_run(
    root: np.void,
    tree: np.ndarray,
    values: np.ndarray,
    counters: np.ndarray,
    settings: Settings,
    max_simulations: int,
    deadline_ns: int,
    rng: np.ndarray,
) -> int:
    """:func:`mcts_run_endgame` without an endgame database."""
    return mcts_run_endgame(root, tree, values, counters, settings, max_simulations, deadline_ns, rng,
                            np.zeros(0, np.int8), -1)


@kernel(nogil=True)
def mcts_run_endgame(
    root: np.void,
    tree: np.ndarray,
    values: np.ndarray,
    counters: np.ndarray,
    settings: Settings,
    max_simulations: int,
    deadline_ns: int,
    rng: np.ndarray,
    db: np.ndarray,
    db_k: int,
) -> int:
    """Runs simulations from ``root`` into ``tree`` until ``max_simulations`` in all, the
    ``deadline_ns`` (``monotonic_ns``; 0: none), a tree without room for one more child block or
    (with the solver) a proven root; returns the simulations run now. Releases the interpreter
    lock: independent trees search in threads of one process.

    tree: records of :func:`node_dtype`, grown by the caller between calls; values: float32, the
    implicit minimax value of each record (``settings.alpha > 0``: the view ``tree["value"]``,
    else empty); counters: int64[N_COUNTERS], kept between calls. Each simulation selects by UCB1 from
    the root while the node has tried every child, tries one untried child (giving a node its
    child block the first time it is passed through), evaluates the new leaf (a random game, the
    heuristic or both) and backs the result up along the selection path (nodes have no parent
    links: the path holds the nodes and who moved into each). With the solver, a terminal leaf
    is proven, a proof climbs the path while the children decide the parent, and a simulation
    that selects a proven node backs up its exact value without evaluating anything. ``db``
    with ``db_k``: an endgame database (``contract.endgame_value``; empty with -1: none), whose
    value of a new leaf is that leaf's exact result, proven with the solver.
    """
    work = contract.new_states(root, 1)
    moves = np.empty(contract.max_moves(root), contract.MOVE_DTYPE)
    width = len(moves)
    capacity = len(tree)
    c = settings.c
    solver = settings.solver
    alpha = settings.alpha
    minimax = alpha > 0.0
    plain = settings.evaluation == EVAL_ROLLOUT and not minimax
    done = 0
    room = PATH_ROOM
    path_full = True
    while path_full:
        # The selection path buffers, never rebound inside the simulation loop (rebinding them
        # there costs reference count updates at every level). A simulation that finds them full
        # stops before it changes anything and starts again on buffers twice as long.
        path = np.empty(room, np.int32)
        movers = np.empty(room, np.int8)
        room *= 2
        path_full = False
        while counters[COUNT_SIMULATIONS] < max_simulations and counters[COUNT_RECORDS] + width <= capacity:
            if deadline_ns != 0 and done & 31 == 1 and monotonic_ns() >= deadline_ns:
                break
            if solver and not math.isfinite(tree[ROOT]["total"]):
                break  # the root is proven: nothing left to search
            work[0] = root
            s = work[0]
            node = ROOT
            path[0] = ROOT
            movers[0] = -1
            depth = 0
            proved = False  # this simulation proved its leaf (a new one that ends the game)
            lost = -1  # the player who is lost at the leaf, if it is a decided root child
            # Selection and expansion.
            while not contract.is_terminal(s):
                if depth + 1 == len(path):
                    path_full = True  # before this simulation changed the tree or the generator
                    break
                if tree[node]["children"] == NO_NODE:
                    _expand(tree, node, moves, contract.legal_moves(s, moves), counters)
                mover = contract.current_player(s)
                if tree[node]["tried"] < tree[node]["legal"]:
                    node = _try_child(tree, node, rng)
                    counters[COUNT_NODES] += 1
                    contract.apply_move(s, tree[node]["move"])
                    depth += 1
                    path[depth] = node
                    movers[depth] = mover
                    break
                child = _select_child(tree, values, node, c, alpha)
                if child == NO_NODE:  # a root child lost whatever its mover (an extra turn) plays
                    lost = mover  # see _mark_proven: it keeps its mean, and this simulation a loss
                    break
                node = child
                contract.apply_move(s, tree[node]["move"])
                depth += 1
                path[depth] = node
                movers[depth] = mover
                if solver and not math.isfinite(tree[node]["total"]):
                    break
            if path_full:
                break
            # Evaluation: a proven leaf's exact value, else the rollout, the heuristic or both.
            leaf = path[depth]
            exact = proven_value(tree[leaf]["total"]) if solver else UNPROVEN
            known = contract.NO_ENDGAME_VALUE
            if db_k >= 0 and exact == UNPROVEN and lost < 0 and not contract.is_terminal(s):
                known = contract.endgame_value(s, db, db_k)
            if exact != UNPROVEN:
                result = exact if movers[depth] == 0 else -exact
                heuristic = result
            elif lost >= 0:
                result = -1.0 if lost == 0 else 1.0
                heuristic = result
            elif known != contract.NO_ENDGAME_VALUE:  # the database's exact result (player 0's)
                final = contract.margin(s) + (known if contract.current_player(s) == 0 else -known)
                result = 1.0 if final > 0 else (-1.0 if final < 0 else 0.0)
                heuristic = result
                if solver:
                    proved = _mark_proven(tree, leaf, depth, result if movers[depth] == 0 else -result)
            elif plain:  # the common case first, with no test that the playout makes anyway
                plies = contract.random_playout(s, rng, moves)
                result = contract.outcome(s)
                heuristic = 0.0
                if solver and plies == 0:  # the new leaf ends the game (older ones are proven)
                    proved = _mark_proven(tree, leaf, depth, result if movers[depth] == 0 else -result)
            elif contract.is_terminal(s):
                result = contract.outcome(s)
                heuristic = result
                if solver:
                    proved = _mark_proven(tree, leaf, depth, result if movers[depth] == 0 else -result)
            else:
                heuristic = contract.heuristic(s) if minimax or settings.evaluation != EVAL_ROLLOUT else 0.0
                if settings.evaluation == EVAL_HEURISTIC:
                    result = heuristic
                else:
                    contract.random_playout(s, rng, moves)
                    result = contract.outcome(s)  # player 0's
                    if settings.evaluation == EVAL_MIX:
                        result = (1.0 - settings.weight) * result + settings.weight * heuristic
            # A proof climbs while the children of the next node up decide it.
            i = depth - 1
            while proved and i >= 0:
                value = _proof_of(tree, path[i])
                if value == UNPROVEN:
                    break
                proved = _mark_proven(tree, path[i], i, value if i == 0 or movers[i] == movers[i + 1] else -value)
                i -= 1
            # Implicit minimax (Lanctot, Winands, Pepels and Sturtevant 2014): the leaf's heuristic,
            # then each node up the path the best of its children's, until one does not change.
            if minimax:
                values[leaf] = heuristic if movers[depth] == 0 else -heuristic
                for i in range(depth - 1, 0, -1):
                    best = _best_of_children(tree, values, path[i])
                    value = np.float32(best if movers[i] == movers[i + 1] else -best)
                    if values[path[i]] == value:
                        break
                    values[path[i]] = value
            # Back up, each node from its mover's side (a proven total stays as it is).
            for i in range(depth + 1):
                record = tree[path[i]]
                record["visits"] += 1
                record["total"] += result if movers[i] == 0 else -result
            counters[COUNT_SIMULATIONS] += 1
            counters[COUNT_MAX_DEPTH] = max(counters[COUNT_MAX_DEPTH], depth)
            done += 1
    return done


#: Records allocated at first; the tree grows whenever it fills, so a large or time-limited
#: budget costs memory only as the tree actually grows.
INITIAL_CAPACITY = 1 << 16


def grow_tree(
    run: Callable[[np.ndarray, np.ndarray, int, int], int],
    node_dtype: np.dtype,
    init: Callable[[np.ndarray, np.ndarray], None],
    limit: Limit,
    default_iterations: int,
    room: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """Runs a tree search to its budget in a tree that grows as needed; returns (tree, counters).

    ``run(tree, counters, target, deadline_ns)`` adds simulations until ``target`` in all, the
    deadline or a tree with fewer than ``room`` free records (the most one simulation adds) and
    returns how many it ran; ``init(tree, counters)`` makes the root. counters:
    int64[N_COUNTERS] (nodes, simulations, deepest selection, records in use).

    The tree grows by half in place (``ndarray.resize``): numpy reallocates, and the C library
    moves a large block's pages (``mremap``) instead of copying them, so the peak is the new tree,
    not the old one beside it, and a third of it at most is unused; under an iteration budget, by
    no more than the remaining simulations need at the records per simulation so far, and a
    fiftieth (another growth follows if that falls short: a resize in place costs little).
    """
    iterations = limit.iterations
    deadline = deadline_after(limit.time)
    if iterations is None and not deadline:
        iterations = default_iterations
    target = iterations or 2**62
    tree = np.empty(max(min(target * room + 1, INITIAL_CAPACITY), room + 1), node_dtype)
    counters = np.zeros(N_COUNTERS, np.int64)
    init(tree, counters)
    while True:
        ran = run(tree, counters, target, deadline)
        if counters[COUNT_SIMULATIONS] >= target or (deadline and monotonic_ns() >= deadline):
            break
        if len(tree) - counters[COUNT_RECORDS] < room:
            grow = len(tree) // 2
            done, records = int(counters[COUNT_SIMULATIONS]), int(counters[COUNT_RECORDS])
            if iterations and done:  # no more than the rest of the budget needs at the rate so far, and 2%
                grow = min(grow, (target - done) * records * 51 // (50 * done))
            tree.resize(len(tree) + max(grow, room), refcheck=False)  # nothing else refers to it
        elif ran == 0:
            break  # nothing more can run (a hidden-world sampler that keeps failing)
    return tree, counters


class TreeSearchAgent(Agent):
    """A tree search that runs ``RUN`` over a growing tree of ``NODE_DTYPE`` records and plays
    ``BEST(state data, tree, rng)``, the best root child."""

    RUN: ClassVar[Callable[..., int]]
    INIT: ClassVar[Callable[..., None]]
    BEST: ClassVar[Callable[..., int]]
    NODE_DTYPE: ClassVar[np.dtype]

    PARAMS: ClassVar[tuple[AgentParam, ...]] = (
        replace(ITERATIONS, doc="simulations per move (10,000 when neither iterations nor time is given)"),
        TIME,
        AgentParam("c", 1.4, "UCB1 exploration constant (rewards are in [-1, 1])", low=0.0, high=100.0, effect="setting"),
    )
    DEFAULT_ITERATIONS = 10_000

    def _records_per_simulation(self, state) -> int:
        """The most records one simulation adds to the tree (one node by default)."""
        return 1

    def _node_dtype(self, state) -> np.dtype:
        """The tree record for ``state``'s game."""
        return self.NODE_DTYPE

    def _select(self, state, limit):
        c = self.params["c"]
        run_kernel = type(self).RUN

        def run(tree, counters, target, deadline):
            return run_kernel(state.data, tree, counters, c, target, deadline, self.rng)

        room = self._records_per_simulation(state)
        tree, counters = grow_tree(run, self._node_dtype(state), type(self).INIT, limit, self.DEFAULT_ITERATIONS, room)
        best = type(self).BEST(state.data, tree, self.rng)
        if best == NO_NODE:
            raise ValueError(f"{state.game.name}: no world consistent with the view could be sampled")
        node = tree[best]
        return SearchInfo(
            move=int(node["move"]),
            value=float(node["total"] / node["visits"]),
            depth=int(counters[COUNT_MAX_DEPTH]),
            nodes=int(counters[COUNT_NODES]),
            simulations=int(counters[COUNT_SIMULATIONS]),
        )


def _seeds(rng: np.ndarray, n: int) -> list[int]:
    """``n`` seeds drawn from the agent's generator, one for each tree of a root-parallel search."""
    return [int(rng_below(rng, 2**32 - 1)) for _ in range(n)]


@dataclass
class RootChild:
    """One legal move of the root, over all the trees of a search: visits and the sum of the
    rewards (player to move's side) of the trees that have not proven it; 1.0 if a tree proved it
    a win (a proof is exact: no tree finds otherwise)."""

    move: int
    visits: int = 0
    total: float = 0.0
    proven: float | None = None


def merge_roots(trees: list[np.ndarray]) -> dict[int, RootChild]:
    """The root children of ``trees`` (searches of the same position), by move."""
    children: dict[int, RootChild] = {}
    for tree in trees:
        first = int(tree[ROOT]["children"])
        if first == NO_NODE:
            continue
        for record in tree[first : first + int(tree[ROOT]["tried"])]:
            child = children.setdefault(int(record["move"]), RootChild(int(record["move"])))
            child.visits += int(record["visits"])
            total = float(record["total"])
            if math.isfinite(total):
                child.total += total
            else:
                child.proven = float(proven_value(total))
    return children


def choose_root_child(children: dict[int, RootChild], rng: np.ndarray) -> RootChild:
    """The move to play: a proven win if any (the only proof a root child carries, see
    :func:`_mark_proven`), else the most visited move, ties broken uniformly at random (visit
    counts tie often in small searches, and the first found would always favour the same moves)."""
    wins = [child for child in children.values() if child.proven == 1.0]
    if wins:
        return max(wins, key=lambda child: child.visits)
    most = max(child.visits for child in children.values())
    tied = [child for child in children.values() if child.visits == most]
    return tied[int(rng_below(rng, len(tied)))] if len(tied) > 1 else tied[0]


def _run_in_threads(calls: list[Callable[[], object]]) -> list:
    """The results of ``calls``, each run in a thread of its own (kernels that release the
    interpreter lock run at once); the first error is raised once every thread has ended."""
    results: list = [None] * len(calls)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = calls[i]()
        except BaseException as error:  # noqa: BLE001 - raised in the caller's thread
            errors.append(error)

    workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(len(calls))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    return results


#: The most threads one ``mcts`` search grows at once (``threads``).
MAX_THREADS = 64


@register_agent
class MCTSAgent(TreeSearchAgent):
    name = "mcts"
    summary = "UCT with random rollouts, MCTS-Solver, heuristic leaves, root parallelism; move by visit count"
    PARAMS = (
        *TreeSearchAgent.PARAMS,
        AgentParam("solver", True, "prove wins, losses and draws and back them up (MCTS-Solver); "
              "a proven win is played, a proven root stops the search", effect="setting"),
        AgentParam("eval", "rollout", "leaf evaluation: a random game to the end, the game's heuristic, or both mixed",
              choices=EVALUATIONS, effect="setting"),
        AgentParam("weight", 0.5, "the heuristic's share of a leaf's value with eval=mix", low=0.0, high=1.0, effect="setting"),
        AgentParam("minimax", None, "implicit minimax: the share of a child's backed-up heuristic value in its "
              "selection score (Lanctot et al. 2014; 0: off; default: the weight the game declares, "
              "Game.implicit_minimax, else 0)", low=0.0, high=1.0, kind=float, allow_none=True, effect="setting"),
        AgentParam("threads", 1, "independent trees searched at once in threads, their root visits summed "
              "(root parallelism); an iterations budget is shared between them", low=1, high=MAX_THREADS, effect="work"),
        AgentParam("endgame", 0, "endgame database of every position up to this size (Kalah: seeds on the board; the "
              "morris games: cows on the board after placing; built once into the cache folder): a new leaf it holds "
              "takes its exact value, and a position it holds is played perfectly; 0: none",
              low=0, high=63, effect="database"),
    )
    NODE_DTYPE = NODE
    RUN = mcts_run
    INIT = init_tree

    def _records_per_simulation(self, state) -> int:
        width = contract.max_moves(state.data)  # one child block
        if width > MAX_BLOCK:
            raise ValueError(f"{self.name} handles at most {MAX_BLOCK} legal moves per position; {state.game.name} has up to {width}")
        return width

    def _node_dtype(self, state) -> np.dtype:
        return tree_record(state.data, self.settings(state.game).alpha > 0.0)

    def settings(self, game: Game) -> Settings:
        """The search's :class:`Settings` for ``game`` from the agent's parameters."""
        p = self.params
        minimax = p["minimax"] if p["minimax"] is not None else game.implicit_minimax
        return Settings(float(p["c"]), bool(p["solver"]), EVALUATIONS.index(p["eval"]), float(p["weight"]), float(minimax))

    def _grow(self, state, limit: Limit, rng: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One tree searched to ``limit`` with generator ``rng``: (tree, counters)."""
        settings = self.settings(state.game)
        data = state.data
        no_values = np.empty(0, np.float32)

        db, k = self._endgame(state) or (np.zeros(0, np.int8), -1)

        def run(tree, counters, target, deadline):
            # The records' minimax values, viewed anew after each growth (which may move the tree).
            values = tree["value"] if settings.alpha > 0.0 else no_values
            return mcts_run_endgame(data, tree, values, counters, settings, target, deadline, rng, db, k)

        room = self._records_per_simulation(state)
        return grow_tree(run, self._node_dtype(state), init_tree, limit, self.DEFAULT_ITERATIONS, room)

    def _select(self, state, limit):
        perfect = self._database_move(state, self._endgame(state))
        if perfect is not None:
            return perfect
        threads = self.params["threads"]
        if threads == 1:
            searches = [self._grow(state, limit, self.rng)]
        else:
            iterations = limit.iterations or (None if limit.time else self.DEFAULT_ITERATIONS)
            limits = [limit] * threads
            if iterations is not None:  # each tree its share, the first ones one more
                limits = [replace(limit, iterations=max(1, iterations // threads + (t < iterations % threads)))
                          for t in range(threads)]
            rngs = [rng_from_seed(seed) for seed in _seeds(self.rng, threads)]
            searches = _run_in_threads([partial(self._grow, state, limits[t], rngs[t]) for t in range(threads)])
        trees = [tree for tree, _ in searches]
        child = choose_root_child(merge_roots(trees), self.rng)
        return SearchInfo(
            move=child.move,
            value=child.proven if child.proven is not None else child.total / child.visits,
            exact=child.proven is not None,  # a proven win child proves the root
            depth=max(int(counters[COUNT_MAX_DEPTH]) for _, counters in searches),
            nodes=sum(int(counters[COUNT_NODES]) for _, counters in searches),
            simulations=sum(int(counters[COUNT_SIMULATIONS]) for _, counters in searches),
        )
