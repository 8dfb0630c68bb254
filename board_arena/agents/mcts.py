"""``mcts``: UCT (Kocsis and Szepesvari 2006) with uniformly random rollouts.

Each simulation descends the tree from the root by UCB1 (mean reward + ``c`` * sqrt(ln N / n)),
tries one child for a move not tried yet (chosen uniformly at random), plays a random game to the
end from there and backs the result up. A node's statistics are from the point of view of the
player who made the move into it (whoever that was: an extra turn or a pass changes nothing), so
the parent always maximises over its children. The move played is the most visited child, ties
broken uniformly at random.

The tree is one array of 24-byte ``NODE`` records (32 bytes when move ids need 64 bits). A
node's children are one contiguous block, made the first time a simulation passes through the
node: a record per legal move, the tried ones first (trying a child swaps its move to the front of
the untried part), so UCB1 is one loop over ``tree[children : children + tried]``. Records have
no parent link: a simulation backs up along the path it selected. The array grows in place (see
:func:`grow_tree`); the memory figures are in the README. Extensions (a solver's proven values, leaf
evaluations, virtual loss) add fields to :func:`node_dtype` and steps to :func:`mcts_run`'s loop.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable, ClassVar

import numpy as np

from board_arena.agents.base import (
    ITERATIONS,
    TIME,
    Agent,
    Limit,
    SearchInfo,
    register_agent,
)
from board_arena.engines import Param, contract
from board_arena.engines._jit import deadline_after, kernel, monotonic_ns, rng_below


def node_dtype(move_dtype: np.dtype) -> np.dtype:
    """The tree record of a game whose move ids fit ``move_dtype`` (24 bytes with int32 moves,
    32 with int64)."""
    return np.dtype(
        [
            ("total", np.float64),  # sum of rewards for the player who made ``move`` (1 win, 0 draw, -1 loss)
            ("visits", np.int32),  # simulations through this node (0: a move not tried yet)
            ("children", np.int32),  # index of the first record of the child block, NO_NODE until expanded
            ("move", move_dtype),  # the move from the parent into this node
            ("legal", np.uint16),  # size of the child block: the legal moves of the node's state
            ("tried", np.uint16),  # children tried so far: the first ``tried`` records of the block
        ],
        align=True,
    )


#: The record of games whose move ids fit 32 bits (all but Konane), and of the others.
NODE = node_dtype(np.dtype(np.int32))
WIDE_NODE = node_dtype(np.dtype(np.int64))
#: Child blocks count their records in uint16.
MAX_BLOCK = 2**16 - 1
NO_NODE = -1
ROOT = 0

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


@kernel(inline="always")
def _ucb_child(tree, node, c):
    """The tried child maximising UCB1, mean + c sqrt(ln N) sqrt(1 / n): one pass over the
    contiguous tried part of the block, c sqrt(ln N) computed once. Every tried child has a visit
    (a simulation created it); ties go to the first found, and children are tried in random order."""
    explore = c * math.sqrt(math.log(tree[node]["visits"]))  # c sqrt(ln N), once per level
    first = tree[node]["children"]
    best = NO_NODE
    best_score = -np.inf
    for child in range(first, first + np.int64(tree[node]["tried"])):
        inverse = 1.0 / np.float64(tree[child]["visits"])  # one division per child
        score = tree[child]["total"] * inverse + explore * math.sqrt(inverse)
        if score > best_score:
            best_score = score
            best = child
    return best


@kernel(inline="always")
def _push(path, movers, depth, node, mover):
    """Appends ``(node, mover)`` at ``depth`` of the selection path, doubling the buffers when
    full; returns them (the old ones when there was room)."""
    if depth == len(path):
        wider = np.empty(2 * depth, path.dtype)
        wider[:depth] = path
        path = wider
        wider_movers = np.empty(2 * depth, movers.dtype)
        wider_movers[:depth] = movers
        movers = wider_movers
    path[depth] = node
    movers[depth] = mover
    return path, movers


@kernel
def mcts_run(
    root: np.void, tree: np.ndarray, counters: np.ndarray, c: float, max_simulations: int, deadline_ns: int, rng: np.ndarray
) -> int:
    """Runs simulations from ``root`` into ``tree`` until ``max_simulations`` in all, the
    ``deadline_ns`` (``monotonic_ns``; 0: none) or a tree without room for one more child block;
    returns the simulations run now.

    tree: records of :func:`node_dtype`, grown by the caller between calls; counters: int64[N_COUNTERS], kept
    between calls. Each simulation selects by UCB1 from the root while the node has tried every
    child, tries one untried child (giving a node its child block the first time it is passed
    through), plays a random game from there and backs the result up along the selection path
    (nodes have no parent links: the path holds the nodes and who moved into each).
    """
    work = contract.new_states(root, 1)
    width = contract.max_moves(root)
    moves = np.empty(width, contract.MOVE_DTYPE)
    path = np.empty(64, np.int32)
    movers = np.empty(64, np.int8)
    capacity = len(tree)
    done = 0
    while counters[COUNT_SIMULATIONS] < max_simulations and counters[COUNT_RECORDS] + width <= capacity:
        if deadline_ns != 0 and done & 31 == 1 and monotonic_ns() >= deadline_ns:
            break
        work[0] = root
        s = work[0]
        node = ROOT
        path[0] = ROOT
        movers[0] = -1
        depth = 0
        # Selection and expansion.
        while not contract.is_terminal(s):
            if tree[node]["children"] == NO_NODE:
                _expand(tree, node, moves, contract.legal_moves(s, moves), counters)
            mover = contract.current_player(s)
            if tree[node]["tried"] < tree[node]["legal"]:
                node = _try_child(tree, node, rng)
                counters[COUNT_NODES] += 1
                contract.apply_move(s, tree[node]["move"])
                depth += 1
                path, movers = _push(path, movers, depth, node, mover)
                break
            node = _ucb_child(tree, node, c)
            contract.apply_move(s, tree[node]["move"])
            depth += 1
            path, movers = _push(path, movers, depth, node, mover)
        # Rollout, then back up along the path, each node from its mover's side.
        contract.random_playout(s, rng, moves)
        result = contract.outcome(s)  # player 0's
        for i in range(depth + 1):
            record = tree[path[i]]
            record["visits"] += 1
            record["total"] += result if movers[i] == 0 else -result
        counters[COUNT_SIMULATIONS] += 1
        counters[COUNT_MAX_DEPTH] = max(counters[COUNT_MAX_DEPTH], depth)
        done += 1
    return done


@kernel
def most_visited_child(tree: np.ndarray, rng: np.ndarray) -> int:
    """The root child with the most visits, ties broken uniformly at random."""
    best = NO_NODE
    best_visits = -1
    ties = 0
    first = tree[ROOT]["children"]
    for child in range(first, first + np.int64(tree[ROOT]["tried"])):
        visits = tree[child]["visits"]
        if visits > best_visits:
            best, best_visits, ties = child, visits, 1
        elif visits == best_visits:
            ties += 1
            if rng_below(rng, ties) == 0:
                best = child
    return best


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
    not the old one beside it, and a third of it at most is unused.
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
            tree.resize(len(tree) + max(len(tree) // 2, room), refcheck=False)  # nothing else refers to it
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

    PARAMS = (
        replace(ITERATIONS, doc="simulations per move (10,000 when neither iterations nor time is given)"),
        TIME,
        Param("c", 1.4, "UCB1 exploration constant (rewards are in [-1, 1])", low=0.0, high=100.0, effect="setting"),
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


@kernel
def most_visited_root_child(root: np.void, tree: np.ndarray, rng: np.ndarray) -> int:
    """``most_visited_child`` with the search's signature (the root state is not needed)."""
    return most_visited_child(tree, rng)


@register_agent
class MCTSAgent(TreeSearchAgent):
    name = "mcts"
    summary = "UCT with random rollouts, move by visit count"
    NODE_DTYPE = NODE
    RUN = mcts_run
    INIT = init_tree
    BEST = most_visited_root_child

    def _records_per_simulation(self, state) -> int:
        width = contract.max_moves(state.data)  # one child block
        if width > MAX_BLOCK:
            raise ValueError(f"{self.name} handles at most {MAX_BLOCK} legal moves per position; {state.game.name} has up to {width}")
        return width

    def _node_dtype(self, state) -> np.dtype:
        return NODE if contract.move_bound(state.data) <= 2**31 else WIDE_NODE
