"""Agents for hidden-information games, written against the player's view, never the true state:

* ``pimc``: perfect-information Monte Carlo (determinized alpha-beta, after Ginsberg's GIB):
  sample worlds consistent with the view, solve each with alpha-beta, and play the move chosen in
  most worlds (ties: best mean value, then at random).
* ``ismcts``: single-observer information-set MCTS (Cowling, Powley and Whitehouse, "Information
  Set Monte Carlo Tree Search", IEEE TCIAIG 2012): one tree over the searcher's information set;
  every iteration samples a world from the view and descends through the children whose moves
  are legal in that world, by UCB1 with availability counts (how often a child could have been
  chosen) in place of the parent's visits.

Both get only the view (``contract.observe``) and draw hidden worlds with the game's own
``contract.sample_world``, which the game guarantees uniform over the worlds consistent with the
view. The ``cheat`` agent (tests and experiments only) is alpha-beta on the true state, the
reference that measures what hidden information costs.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from board_arena.agents.alphabeta import (
    MAX_DEPTH,
    TABLE_MB,
    AlphaBetaAgent,
    TableAgent,
    alphabeta_search_endgame,
)
from board_arena.agents.base import (
    DEPTH,
    ITERATIONS,
    NODES,
    TIME,
    Agent,
    SearchInfo,
    register_agent,
)
from board_arena.agents.mcts import COUNT_RECORDS, NO_NODE, ROOT, TreeSearchAgent
from board_arena.agents.params import AgentParam
from board_arena.agents.scores import to_value
from board_arena.engines import Game, contract
from board_arena.kernels import deadline_after, kernel, monotonic_ns, rng_below

#: Sampling attempts per world before a search gives up (a game's sampler may reject).
MAX_SAMPLE_FAILURES = 1000


@kernel
def pimc_search(
    view: np.void, worlds: int, depth: int, node_limit: int, deadline_ns: int, table: np.ndarray, history: np.ndarray,
    rng: np.ndarray, votes: np.ndarray, values: np.ndarray,
) -> int:
    """Runs alpha-beta in ``worlds`` worlds sampled from ``view`` (the mover's view).

    ``votes[i]`` counts the worlds whose best move is the view's ``i``-th legal move and
    ``values[i]`` sums their values (for the mover). Returns the worlds searched. With a deadline
    the first ``worlds`` worlds get an equal share of the time each; if they finish early (their
    searches solved, or ran out of depth), more worlds are sampled, with the same share, until
    the clock runs out: a time budget is the whole budget, as it is for the other agents.
    """
    moves = np.empty(contract.max_moves(view), contract.MOVE_DTYPE)
    n = contract.legal_moves(view, moves)
    world = contract.new_states(view, 1)
    result = np.zeros(4)
    # alphabeta_search_endgame without a database, called directly: through alphabeta_search, its
    # compiled code would be optimised and emitted once more, inside that kernel (seconds of compile).
    no_database = np.zeros(0, np.int8)
    start_ns = monotonic_ns()
    done = 0
    failures = 0
    share = (deadline_ns - start_ns) // worlds if deadline_ns != 0 else 0
    while (done < worlds or deadline_ns != 0) and failures < MAX_SAMPLE_FAILURES:
        if deadline_ns != 0 and done > 0 and monotonic_ns() >= deadline_ns:
            break
        if not contract.sample_world(view, rng, world[0]):
            failures += 1
            continue
        world_deadline = 0
        if deadline_ns != 0:
            if done < worlds:
                world_deadline = start_ns + share * (done + 1)
            else:
                world_deadline = min(deadline_ns, monotonic_ns() + share)
        best = alphabeta_search_endgame(world[0], depth, node_limit, world_deadline, table, history, rng, result, no_database, -1)
        for i in range(n):
            if moves[i] == best:
                votes[i] += 1
                values[i] += to_value(result[0])
                break
        done += 1
    return done


ISMCTS_NODE = np.dtype(
    [
        ("total", np.float64),  # sum of rewards for ``mover``
        ("move", np.int64),
        ("parent", np.int32),
        ("first_child", np.int32),
        ("next_sibling", np.int32),
        ("visits", np.int32),
        ("available", np.int32),  # iterations in which this move was legal at its parent
        ("mover", np.int8),
        ("_pad", np.uint8, (3,)),
    ],
    align=True,
)


@kernel
def ismcts_init(tree: np.ndarray, counters: np.ndarray) -> None:
    root = tree[ROOT]
    root["total"] = 0.0
    root["move"] = -1
    root["parent"] = NO_NODE
    root["first_child"] = NO_NODE
    root["next_sibling"] = NO_NODE
    root["visits"] = 0
    root["available"] = 0
    root["mover"] = -1
    counters[:] = 0
    counters[0] = 1
    counters[COUNT_RECORDS] = 1  # one record per node


@kernel
def ismcts_run(
    view: np.void, tree: np.ndarray, counters: np.ndarray, c: float, max_iterations: int, deadline_ns: int, rng: np.ndarray
) -> int:
    """Iterations of SO-ISMCTS from ``view`` into ``tree`` until ``max_iterations`` in all, the
    deadline or a full tree; returns the iterations run now. counters: int64[4] (nodes,
    iterations, deepest selection, records: the nodes again)."""
    world = contract.new_states(view, 1)
    moves = np.empty(contract.max_moves(view), contract.MOVE_DTYPE)
    child_of = np.empty(contract.max_moves(view), np.int32)
    capacity = len(tree)
    done = 0
    failures = 0
    while counters[1] < max_iterations and counters[0] < capacity and failures < MAX_SAMPLE_FAILURES:
        if deadline_ns != 0 and done & 15 == 1 and monotonic_ns() >= deadline_ns:
            break
        if not contract.sample_world(view, rng, world[0]):
            failures += 1
            continue
        s = world[0]
        node = ROOT
        depth = 0
        while not contract.is_terminal(s):
            n = contract.legal_moves(s, moves)
            untried = 0
            for i in range(n):  # the child of each legal move, if any (moves key the children)
                child_of[i] = NO_NODE
                child = tree[node]["first_child"]
                while child != NO_NODE:
                    if tree[child]["move"] == moves[i]:
                        child_of[i] = child
                        break
                    child = tree[child]["next_sibling"]
                if child_of[i] == NO_NODE:
                    untried += 1
            # Every child whose move is legal in this world was available for selection.
            for i in range(n):
                if child_of[i] != NO_NODE:
                    tree[child_of[i]]["available"] += 1
            if untried > 0:  # expand a legal move without a child, chosen at random
                pick = rng_below(rng, untried)
                for i in range(n):
                    if child_of[i] == NO_NODE:
                        if pick == 0:
                            new = counters[0]
                            counters[0] += 1
                            counters[COUNT_RECORDS] += 1
                            fresh = tree[new]
                            fresh["total"] = 0.0
                            fresh["move"] = moves[i]
                            fresh["parent"] = node
                            fresh["first_child"] = NO_NODE
                            fresh["next_sibling"] = tree[node]["first_child"]
                            fresh["visits"] = 0
                            fresh["available"] = 1
                            fresh["mover"] = contract.current_player(s)
                            tree[node]["first_child"] = new
                            contract.apply_move(s, moves[i])
                            node = new
                            break
                        pick -= 1
                depth += 1
                break
            # Every legal move has a child: UCB1 over them with availability counts.
            best = NO_NODE
            best_score = -np.inf
            for i in range(n):
                child = child_of[i]
                visits = np.float64(tree[child]["visits"])
                score = tree[child]["total"] / visits + c * math.sqrt(math.log(tree[child]["available"]) / visits)
                if score > best_score:
                    best_score = score
                    best = child
            contract.apply_move(s, tree[best]["move"])
            node = best
            depth += 1
        contract.random_playout(s, rng, moves)
        result = contract.outcome(s)
        while node != NO_NODE:
            tree[node]["visits"] += 1
            tree[node]["total"] += result if tree[node]["mover"] == 0 else -result
            node = tree[node]["parent"]
        counters[1] += 1
        counters[2] = max(counters[2], depth)
        done += 1
    return done


@kernel
def ismcts_best_child(view: np.void, tree: np.ndarray, rng: np.ndarray) -> int:
    """The most visited root child whose move is legal in the view, ties at random."""
    moves = np.empty(contract.max_moves(view), contract.MOVE_DTYPE)
    n = contract.legal_moves(view, moves)
    best = NO_NODE
    best_visits = -1
    ties = 0
    child = tree[ROOT]["first_child"]
    while child != NO_NODE:
        legal = False
        for i in range(n):
            if moves[i] == tree[child]["move"]:
                legal = True
                break
        visits = tree[child]["visits"]
        if legal and visits > best_visits:
            best, best_visits, ties = child, visits, 1
        elif legal and visits == best_visits:
            ties += 1
            if rng_below(rng, ties) == 0:
                best = child
        child = tree[child]["next_sibling"]
    return best


class _WorldSampler(Agent):
    """Agents that search sampled hidden worlds: they need a game that hides something."""

    plays_hidden_information = True

    def check_game(self, game: Game) -> None:
        if game.perfect_information:
            raise ValueError(
                f"{self.name} samples hidden worlds and {game.name} hides nothing; use alphabeta or mcts"
            )


@register_agent
class PIMCAgent(_WorldSampler, TableAgent):
    name = "pimc"
    summary = "determinized alpha-beta: sampled worlds vote for a move"
    PARAMS = (
        AgentParam("worlds", 20, "worlds sampled from the view per move", low=1, high=100_000, effect="work"),
        replace(DEPTH, doc="alpha-beta depth in each world"),
        replace(NODES, doc="positions per world (2,000 when neither depth, nodes nor time is given)"),
        replace(TIME, doc="seconds per move, shared by the worlds (not reproducible)"),
        TABLE_MB,
    )
    #: Positions per world when no depth or nodes is given: each world is cheap, many are sampled.
    DEFAULT_NODES = 2_000

    def _select(self, state, limit):
        moves = state.legal_moves()
        depth = limit.depth or MAX_DEPTH
        nodes = limit.nodes or (self.DEFAULT_NODES if limit.depth is None and limit.time is None else 2**62)
        worlds = limit.iterations or self.params["worlds"]
        deadline = deadline_after(limit.time)
        votes = np.zeros(len(moves))
        values = np.zeros(len(moves))
        done = pimc_search(state.data, worlds, depth, nodes, deadline, self.table, self.history, self.rng, votes, values)
        if done == 0:
            raise ValueError(f"{state.game.name}: no world consistent with the view could be sampled")
        # Most votes, then the best mean value, then at random.
        mean = values / np.maximum(votes, 1)
        ranked = [(votes[i], mean[i] if votes[i] else -2.0) for i in range(len(moves))]
        tied = [i for i, r in enumerate(ranked) if r == max(ranked)]
        choice = tied[rng_below(self.rng, len(tied))]
        return SearchInfo(move=moves[choice], value=float(mean[choice]), simulations=int(done))


@register_agent
class ISMCTSAgent(_WorldSampler, TreeSearchAgent):
    name = "ismcts"
    summary = "single-observer information-set MCTS over sampled worlds"
    PARAMS = (
        replace(ITERATIONS, doc="iterations per move, one sampled world each (10,000 when neither iterations nor time is given)"),
        *TreeSearchAgent.PARAMS[1:],
    )
    NODE_DTYPE = ISMCTS_NODE
    RUN = ismcts_run
    INIT = ismcts_init
    BEST = ismcts_best_child


@register_agent
class CheatingAgent(AlphaBetaAgent):
    """Alpha-beta on the true state: it sees every hand. The reference that prices hidden
    information in tests and experiments (``play_game`` and the arena give it the whole state);
    ``arena play`` refuses it as an opponent."""

    name = "cheat"
    summary = "alpha-beta that sees the whole hidden state (experiments and tests only)"
    plays_hidden_information = True
    sees_everything = True
