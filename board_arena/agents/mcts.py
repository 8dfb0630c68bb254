"""``mcts``: UCT (Kocsis and Szepesvari 2006) with uniformly random rollouts.

Each simulation descends the tree from the root by UCB1 (mean reward + ``c`` * sqrt(ln N / n)),
adds one child for a move not tried yet (chosen uniformly at random), plays a random game to the
end from there and backs the result up. The tree is one preallocated array of node records
(after mctx's ``Tree``); each simulation adds at most one node, none when it ends in a terminal
node already in the tree. A node's statistics are from the point of view of the
player who made the move into it (whoever that was: an extra turn or a pass changes nothing), so
the parent always maximises over its children. The move played is the most visited child, ties
broken uniformly at random.
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

NODE = np.dtype(
    [
        ("total", np.float64),  # sum of rewards for ``mover`` (1 win, 0 draw, -1 loss)
        ("move", np.int64),  # the move from the parent into this node
        ("parent", np.int32),
        ("first_child", np.int32),
        ("next_sibling", np.int32),
        ("children", np.int32),  # children created so far
        ("legal", np.int32),  # legal moves of the node's state, NOT_COUNTED until needed
        ("legal_index", np.int32),  # index of ``move`` in the parent's legal-move list
        ("visits", np.int32),
        ("mover", np.int8),  # the player who made ``move``; -1 at the root
        ("_pad", np.uint8, (3,)),
    ],
    align=True,
)
NO_NODE = -1
NOT_COUNTED = -1
ROOT = 0

# Slots of the ``counters`` array, kept between calls when the tree grows.
COUNT_NODES = 0
COUNT_SIMULATIONS = 1
COUNT_MAX_DEPTH = 2


@kernel
def init_tree(tree: np.ndarray, counters: np.ndarray) -> None:
    root = tree[ROOT]
    root["total"] = 0.0
    root["move"] = -1
    root["parent"] = NO_NODE
    root["first_child"] = NO_NODE
    root["next_sibling"] = NO_NODE
    root["children"] = 0
    root["legal"] = NOT_COUNTED
    root["legal_index"] = -1
    root["visits"] = 0
    root["mover"] = -1
    counters[:] = 0
    counters[COUNT_NODES] = 1


@kernel(inline="always")
def _add_child(tree, parent, node, move, mover, legal_index):
    child = tree[node]
    child["total"] = 0.0
    child["move"] = move
    child["parent"] = parent
    child["first_child"] = NO_NODE
    child["next_sibling"] = tree[parent]["first_child"]
    child["children"] = 0
    child["legal"] = NOT_COUNTED
    child["legal_index"] = legal_index
    child["visits"] = 0
    child["mover"] = mover
    tree[parent]["first_child"] = node
    tree[parent]["children"] += 1


@kernel(inline="always")
def _untried_index(tree, node, n, tried, rng):
    """The legal-move index of a uniformly random move of ``node`` that has no child yet."""
    child = tree[node]["first_child"]
    while child != NO_NODE:
        tried[tree[child]["legal_index"]] = True
        child = tree[child]["next_sibling"]
    pick = rng_below(rng, n - tree[node]["children"])
    index = -1
    for i in range(n):
        if not tried[i]:
            if pick == 0:
                index = i
                break
            pick -= 1
    child = tree[node]["first_child"]
    while child != NO_NODE:
        tried[tree[child]["legal_index"]] = False
        child = tree[child]["next_sibling"]
    return index


@kernel(inline="always")
def _ucb_child(tree, node, c):
    """The child maximising UCB1. Every child has been visited once (it was created by a
    simulation); ties go to the first found, and children are created in random order."""
    log_n = math.log(tree[node]["visits"])
    best = NO_NODE
    best_score = -np.inf
    child = tree[node]["first_child"]
    while child != NO_NODE:
        visits = np.float64(tree[child]["visits"])
        score = tree[child]["total"] / visits + c * math.sqrt(log_n / visits)
        if score > best_score:
            best_score = score
            best = child
        child = tree[child]["next_sibling"]
    return best


@kernel
def mcts_run(
    root: np.void, tree: np.ndarray, counters: np.ndarray, c: float, max_simulations: int, deadline_ns: int, rng: np.ndarray
) -> int:
    """Runs simulations from ``root`` into ``tree`` until ``max_simulations`` in all, the
    ``deadline_ns`` (``monotonic_ns``; 0: none) or a full tree; returns the simulations run now.

    tree: NODE[capacity], grown by the caller between calls; counters: int64[3] (nodes,
    simulations, deepest selection), kept between calls.
    """
    work = contract.new_states(root, 1)
    moves = np.empty(contract.max_moves(root), contract.MOVE_DTYPE)
    tried = np.zeros(contract.max_moves(root), np.bool_)
    capacity = len(tree)
    done = 0
    while counters[COUNT_SIMULATIONS] < max_simulations and counters[COUNT_NODES] < capacity:
        if deadline_ns != 0 and done & 31 == 1 and monotonic_ns() >= deadline_ns:
            break
        work[0] = root
        s = work[0]
        node = ROOT
        depth = 0
        # Selection and expansion.
        while not contract.is_terminal(s):
            legal = tree[node]["legal"]
            if legal == NOT_COUNTED or tree[node]["children"] < legal:
                n = contract.legal_moves(s, moves)
                tree[node]["legal"] = n
                if tree[node]["children"] < n:
                    index = _untried_index(tree, node, n, tried, rng)
                    child = counters[COUNT_NODES]
                    counters[COUNT_NODES] += 1
                    _add_child(tree, node, child, moves[index], contract.current_player(s), index)
                    contract.apply_move(s, moves[index])
                    node = child
                    depth += 1
                    break
            node = _ucb_child(tree, node, c)
            contract.apply_move(s, tree[node]["move"])
            depth += 1
        # Rollout, then back up from the new node to the root.
        contract.random_playout(s, rng, moves)
        result = contract.outcome(s)  # player 0's
        while node != NO_NODE:
            tree[node]["visits"] += 1
            tree[node]["total"] += result if tree[node]["mover"] == 0 else -result
            node = tree[node]["parent"]
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
    child = tree[ROOT]["first_child"]
    while child != NO_NODE:
        visits = tree[child]["visits"]
        if visits > best_visits:
            best, best_visits, ties = child, visits, 1
        elif visits == best_visits:
            ties += 1
            if rng_below(rng, ties) == 0:
                best = child
        child = tree[child]["next_sibling"]
    return best


#: Nodes allocated at first; the tree doubles whenever it fills, so a large or time-limited budget
#: costs memory only as the tree actually grows.
INITIAL_CAPACITY = 1 << 16


def grow_tree(
    run: Callable[[np.ndarray, np.ndarray, int, int], int],
    node_dtype: np.dtype,
    init: Callable[[np.ndarray, np.ndarray], None],
    limit: Limit,
    default_iterations: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Runs a tree search to its budget in a tree that grows as needed; returns (tree, counters).

    ``run(tree, counters, target, deadline_ns)`` adds simulations until ``target`` in all, the
    deadline or a full tree and returns how many it ran; ``init(tree, counters)`` makes the root.
    counters: int64[3] (nodes, simulations, deepest selection).
    """
    iterations = limit.iterations
    deadline = deadline_after(limit.time)
    if iterations is None and not deadline:
        iterations = default_iterations
    target = iterations or 2**62
    tree = np.empty(min(target + 1, INITIAL_CAPACITY), node_dtype)
    counters = np.zeros(3, np.int64)
    init(tree, counters)
    while True:
        ran = run(tree, counters, target, deadline)
        if counters[COUNT_SIMULATIONS] >= target or (deadline and monotonic_ns() >= deadline):
            break
        if counters[COUNT_NODES] >= len(tree):
            tree = np.concatenate([tree, np.empty(len(tree), node_dtype)])
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

    def _select(self, state, limit):
        c = self.params["c"]
        run_kernel = type(self).RUN

        def run(tree, counters, target, deadline):
            return run_kernel(state.data, tree, counters, c, target, deadline, self.rng)

        tree, counters = grow_tree(run, self.NODE_DTYPE, type(self).INIT, limit, self.DEFAULT_ITERATIONS)
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
