"""``az``: tree search guided by a policy and value network (:mod:`agents.network`), with
AlphaZero's PUCT or Gumbel MuZero's root and interior selection, entirely in compiled code.

Each simulation descends from the root to a position not evaluated yet, evaluates it with the
network (its value for the player to move, and a prior over its legal moves from the policy's
logits), and backs the value up; a position that ends the game is worth its result. The network
runs inside the search kernel: no simulation returns to Python.

* ``search=puct`` (Silver et al. 2018, "A general reinforcement learning algorithm that masters
  chess, shogi and Go through self-play"): a child maximises ``Q + c P sqrt(N) / (1 + n)``, where
  an unvisited child's ``Q`` is the network's value of its parent (the first-play urgency of
  mctx's and Leela's searches); the most visited root child is played.
* ``search=gumbel`` (Danihelka, Guez, Schrittwieser and Silver 2022, "Policy improvement by
  planning with Gumbel", ICLR; the default): at the root, Gumbel-top-k sampling of at most
  ``considered`` moves and sequential halving over the simulation budget, each round keeping the
  half with the best ``g + logits + sigma(q)``; below the root, the deterministic selection that
  matches the improved policy ``softmax(logits + sigma(completed q))``. ``sigma`` and the
  completed values are mctx's ``qtransform_completed_by_mix_value`` (``value_scale`` 0.1,
  ``maxvisit_init`` 50, values rescaled to [0, 1] among siblings). The move played is the
  considered move with the most visits and the best score, which improves on the network's
  policy even with a handful of simulations.

Values are from the point of view of the player who moved into a node (an extra turn changes
nothing, as in ``mcts``). Under a simulation budget the search is reproducible: the same seed
and network give the same move. Under a time budget, sequential halving is planned for the
simulations the agent's previous searches ran per second (64 on its first move) and stops at the
deadline in any case.
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import replace

import numpy as np

from board_arena.agents.base import (
    ITERATIONS,
    TIME,
    Agent,
    SearchInfo,
    register_agent,
)
from board_arena.agents.mcts import (
    COUNT_MAX_DEPTH,
    COUNT_NODES,
    COUNT_RECORDS,
    COUNT_SIMULATIONS,
    NO_NODE,
    PATH_ROOM,
    ROOT,
    grow_tree,
)
from board_arena.agents.network import Network, network_forward
from board_arena.agents.params import AgentParam
from board_arena.engines import Game, contract
from board_arena.engines.encoding import move_to_action
from board_arena.kernels import kernel, monotonic_ns, rng_uniform

__all__ = ["AZAgent", "AZ_NODE", "az_run", "considered_visits", "SEARCH_PUCT", "SEARCH_GUMBEL"]

#: A node of the search tree (40 bytes).
AZ_NODE = np.dtype(
    [
        ("total", np.float64),  # sum of backed-up values, for the player who moved into the node
        ("move", np.int64),  # the move from the parent
        ("visits", np.int32),
        ("children", np.int32),  # first record of the child block, NO_NODE until evaluated
        ("legal", np.int32),  # size of the child block
        ("prior", np.float32),  # the policy's probability of the move
        ("logit", np.float32),  # the policy's logit of the move, less the block's largest
        ("value", np.float32),  # the network's value of the node's position, for its player to move
    ],
    align=True,
)

SEARCH_PUCT = 0
SEARCH_GUMBEL = 1
SEARCHES = ("puct", "gumbel")

#: mctx's defaults for ``qtransform_completed_by_mix_value``.
VALUE_SCALE = 0.1
MAXVISIT_INIT = 50.0


def considered_visits(considered: int, simulations: int) -> np.ndarray:
    """Sequential halving's schedule (mctx's ``get_sequence_of_considered_visits``): for each
    simulation, the visit count a root move must have to be simulated next. ``considered``
    moves, halved each round, each round spending about ``simulations / log2(considered)``."""
    if considered <= 1:
        return np.arange(simulations, dtype=np.int64)
    rounds = int(math.ceil(math.log2(considered)))
    sequence: list[int] = []
    visits = [0] * considered
    alive = considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (rounds * alive)))
        for _ in range(extra):
            sequence.extend(visits[:alive])
            for i in range(alive):
                visits[i] += 1
        alive = max(2, alive // 2)
    return np.array(sequence[:simulations], np.int64)


@kernel
def init_az_tree(tree, counters):
    _init_record(tree, ROOT, -1, 1.0, 0.0)
    counters[:] = 0
    counters[COUNT_NODES] = 1
    counters[COUNT_RECORDS] = 1


@kernel(inline="always")
def _init_record(tree, node, move, prior, logit):
    record = tree[node]
    record["total"] = 0.0
    record["move"] = move
    record["visits"] = 0
    record["children"] = NO_NODE
    record["legal"] = 0
    record["prior"] = prior
    record["logit"] = logit
    record["value"] = 0.0


@kernel(inline="always")
def _evaluate(tree, node, s, moves, actions, logits, obs, h, t, weights, dims, dense, sorted_moves, sorted_actions,
              counters):
    """Evaluates ``node`` (position ``s``, not over) with the network: gives it its block of
    children with their priors and returns the network's value for its player to move."""
    n = contract.legal_moves(s, moves)
    for i in range(n):
        actions[i] = move_to_action(moves[i], dense, sorted_moves, sorted_actions)
    for i in range(obs.shape[0]):
        obs[i] = 0.0
    contract.write_observation(s, contract.current_player(s), obs)
    value = network_forward(weights, dims, obs, actions, n, logits, h, t)
    top = -np.inf
    for i in range(n):
        top = max(top, np.float64(logits[i]))
    norm = 0.0
    for i in range(n):
        norm += math.exp(np.float64(logits[i]) - top)
    first = counters[COUNT_RECORDS]
    counters[COUNT_RECORDS] += n
    for i in range(n):
        shifted = np.float64(logits[i]) - top
        _init_record(tree, first + i, moves[i], math.exp(shifted) / norm, shifted)
    record = tree[node]
    record["children"] = first
    record["legal"] = n
    record["value"] = value
    return value


@kernel(inline="always")
def _select_puct(tree, node, c):
    first = tree[node]["children"]
    explore = c * math.sqrt(np.float64(tree[node]["visits"]))
    urgency = np.float64(tree[node]["value"])  # an unvisited child's value: its parent's
    best = first
    best_score = -np.inf
    for child in range(first, first + tree[node]["legal"]):
        n = tree[child]["visits"]
        q = tree[child]["total"] / n if n > 0 else urgency
        score = q + explore * np.float64(tree[child]["prior"]) / (1.0 + n)
        if score > best_score:
            best_score = score
            best = child
    return best


@kernel(inline="always")
def _completed_q(tree, node, out):
    """mctx's ``qtransform_completed_by_mix_value`` of ``node``'s children into ``out``: each
    visited child's mean, the mixed value for the others, rescaled to [0, 1] among the
    children and scaled by ``(MAXVISIT_INIT + most visits) * VALUE_SCALE``; returns the children's
    total visits."""
    first = tree[node]["children"]
    legal = tree[node]["legal"]
    visited = 0
    most = 0
    probs = 0.0
    weighted = 0.0
    for i in range(legal):
        n = tree[first + i]["visits"]
        if n > 0:
            visited += n
            most = max(most, n)
            p = max(np.float64(tree[first + i]["prior"]), 1e-38)
            probs += p
            weighted += p * tree[first + i]["total"] / n
    mixed = np.float64(tree[node]["value"])
    if visited > 0:
        mixed = (mixed + visited * (weighted / probs)) / (visited + 1)
    low = np.inf
    high = -np.inf
    for i in range(legal):
        n = tree[first + i]["visits"]
        q = tree[first + i]["total"] / n if n > 0 else mixed
        out[i] = q
        low = min(low, q)
        high = max(high, q)
    scale = (MAXVISIT_INIT + most) * VALUE_SCALE
    width = max(high - low, 1e-8)
    for i in range(legal):
        out[i] = scale * (out[i] - low) / width
    return visited


@kernel(inline="always")
def _select_gumbel_interior(tree, node, sigma):
    """The child of ``argmax(pi'(a) - n(a) / (1 + N))``, ``pi' = softmax(logits + sigma(q))``."""
    first = tree[node]["children"]
    legal = tree[node]["legal"]
    visited = _completed_q(tree, node, sigma)
    top = -np.inf
    for i in range(legal):
        sigma[i] += np.float64(tree[first + i]["logit"])
        top = max(top, sigma[i])
    norm = 0.0
    for i in range(legal):
        sigma[i] = math.exp(sigma[i] - top)
        norm += sigma[i]
    best = first
    best_score = -np.inf
    for i in range(legal):
        score = sigma[i] / norm - tree[first + i]["visits"] / (1.0 + visited)
        if score > best_score:
            best_score = score
            best = first + i
    return best


@kernel(inline="always")
def _root_scores(tree, gumbel, sigma, target):
    """``g + logits + sigma(q)`` of each root child whose visits equal ``target`` (-inf for the
    others), in ``sigma``; ``target < 0``: the most visited children."""
    first = tree[ROOT]["children"]
    legal = tree[ROOT]["legal"]
    _completed_q(tree, ROOT, sigma)
    if target < 0:
        for i in range(legal):
            target = max(target, np.int64(tree[first + i]["visits"]))
    for i in range(legal):
        if tree[first + i]["visits"] == target:
            sigma[i] += gumbel[i] + np.float64(tree[first + i]["logit"])
        else:
            sigma[i] = -np.inf


@kernel(inline="always")
def _select_gumbel_root(tree, gumbel, sigma, schedule):
    legal = tree[ROOT]["legal"]
    done = np.int64(tree[ROOT]["visits"]) - 1  # simulations below the root so far
    target = schedule[min(done, schedule.shape[0] - 1)] if schedule.shape[0] > 0 else -1
    _root_scores(tree, gumbel, sigma, target)
    best = 0
    for i in range(1, legal):
        if sigma[i] > sigma[best]:
            best = i
    if sigma[best] == -np.inf:  # the schedule's target no child has (a budget past the plan)
        _root_scores(tree, gumbel, sigma, -1)
        for i in range(1, legal):
            if sigma[i] > sigma[best]:
                best = i
    return tree[ROOT]["children"] + best


@kernel(nogil=True)
def az_run(root, tree, counters, weights, dims, dense, sorted_moves, sorted_actions, search, c, gumbel, schedule,
           max_simulations, deadline_ns, rng):
    """Runs simulations from ``root`` into ``tree`` (records of :data:`AZ_NODE`) until
    ``max_simulations`` in all, the deadline (``monotonic_ns``; 0: none) or a tree without room
    for one more child block; returns the simulations run now. ``search``: SEARCH_PUCT or
    SEARCH_GUMBEL; ``c``: PUCT's constant; ``gumbel``: float64[>= max moves], the root's Gumbel
    noise, drawn from ``rng`` when the root is evaluated; ``schedule``: :func:`considered_visits`
    for the planned budget (Gumbel). The network is ``weights`` and ``dims``
    (:class:`agents.network.Network`); the action tables are the game's
    (``encoding.action_space.tables()``)."""
    work = contract.new_states(root, 1)
    width = contract.max_moves(root)
    moves = np.empty(width, contract.MOVE_DTYPE)
    actions = np.empty(width, np.int64)
    logits = np.empty(width, np.float32)
    sigma = np.empty(width, np.float64)
    obs = np.zeros(dims[0], np.float32)
    h = np.empty(dims[1], np.float32)
    t = np.empty(dims[1], np.float32)
    capacity = len(tree)
    done = 0
    room = PATH_ROOM
    path_full = True
    while path_full:
        path = np.empty(room, np.int32)
        movers = np.empty(room, np.int8)
        room *= 2
        path_full = False
        while counters[COUNT_SIMULATIONS] < max_simulations and counters[COUNT_RECORDS] + width <= capacity:
            if deadline_ns != 0 and done & 7 == 1 and monotonic_ns() >= deadline_ns:
                break
            work[0] = root
            s = work[0]
            path[0] = ROOT
            movers[0] = -1
            depth = 0
            if tree[ROOT]["children"] == NO_NODE:  # the first simulation evaluates the root
                value = _evaluate(tree, ROOT, s, moves, actions, logits, obs, h, t, weights, dims, dense,
                                  sorted_moves, sorted_actions, counters)
                for i in range(tree[ROOT]["legal"]):
                    if search == SEARCH_GUMBEL:
                        gumbel[i] = -math.log(-math.log(max(rng_uniform(rng), 1e-300)))
                    else:
                        gumbel[i] = 0.0
                result = value if contract.current_player(s) == 0 else -value
            else:
                node = ROOT
                while True:
                    if depth + 1 == len(path):
                        path_full = True
                        break
                    mover = contract.current_player(s)
                    if search == SEARCH_PUCT:
                        child = _select_puct(tree, node, c)
                    elif depth == 0:
                        child = _select_gumbel_root(tree, gumbel, sigma, schedule)
                    else:
                        child = _select_gumbel_interior(tree, node, sigma)
                    contract.apply_move(s, tree[child]["move"])
                    depth += 1
                    path[depth] = child
                    movers[depth] = mover
                    node = child
                    if contract.is_terminal(s):
                        result = contract.outcome(s)
                        break
                    if tree[child]["children"] == NO_NODE:
                        value = _evaluate(tree, child, s, moves, actions, logits, obs, h, t, weights, dims,
                                          dense, sorted_moves, sorted_actions, counters)
                        counters[COUNT_NODES] += 1
                        result = value if contract.current_player(s) == 0 else -value
                        break
                if path_full:
                    break
            for i in range(depth + 1):
                record = tree[path[i]]
                record["visits"] += 1
                record["total"] += result if movers[i] == 0 else -result
            counters[COUNT_SIMULATIONS] += 1
            counters[COUNT_MAX_DEPTH] = max(counters[COUNT_MAX_DEPTH], depth)
            done += 1
    return done


@kernel
def best_root_child(tree, search, gumbel):
    """The root child to play: Gumbel's most visited considered move with the best score, or
    PUCT's most visited (ties to the larger prior)."""
    first = tree[ROOT]["children"]
    legal = tree[ROOT]["legal"]
    if search == SEARCH_GUMBEL:
        sigma = np.empty(legal, np.float64)
        _root_scores(tree, gumbel, sigma, -1)
        best = 0
        for i in range(1, legal):
            if sigma[i] > sigma[best]:
                best = i
        return first + best
    best = first
    for child in range(first + 1, first + legal):
        n, m = tree[child]["visits"], tree[best]["visits"]
        if n > m or (n == m and tree[child]["prior"] > tree[best]["prior"]):
            best = child
    return best


@kernel
def improved_policy(tree, out):
    """Gumbel MuZero's improved policy at the root, ``softmax(logits + sigma(completed q))``, into
    ``out[i]`` for the root's i-th child (a training target)."""
    first = tree[ROOT]["children"]
    legal = tree[ROOT]["legal"]
    _completed_q(tree, ROOT, out)
    top = -np.inf
    for i in range(legal):
        out[i] += np.float64(tree[first + i]["logit"])
        top = max(top, out[i])
    norm = 0.0
    for i in range(legal):
        out[i] = math.exp(out[i] - top)
        norm += out[i]
    for i in range(legal):
        out[i] /= norm


@register_agent
class AZAgent(Agent):
    name = "az"
    summary = "network-guided tree search (PUCT or Gumbel root selection), the network evaluated in compiled code"
    PARAMS = (
        AgentParam("weights", "", "the network file to search with (agents.network.Network.save writes one)", effect="file"),
        replace(ITERATIONS, doc="simulations per move (200 when neither iterations nor time is given)"),
        TIME,
        AgentParam("search", "gumbel", "gumbel: Gumbel-top-k and sequential halving at the root (Danihelka et al. 2022); "
                   "puct: AlphaZero's PUCT", choices=SEARCHES, effect="setting"),
        AgentParam("c", 1.25, "PUCT's exploration constant (search=puct)", low=0.0, high=100.0, effect="setting"),
        AgentParam("considered", 16, "moves sampled at the root for sequential halving (search=gumbel)",
                   low=1, high=4096, effect="setting"),
    )
    DEFAULT_ITERATIONS = 200
    #: Simulations per second assumed by a time-limited Gumbel search before one has run.
    FIRST_PLAN = 64

    def _check_params(self) -> None:
        self._networks: dict[Game, Network] = {}
        self._rate: float | None = None

    def network(self, game: Game) -> Network:
        """The agent's network, read and checked for ``game`` (once per game).

        Raises:
            ValueError: no ``weights`` given, or a file that is no network of ``game`` (one line).
        """
        if not self.params["weights"]:
            raise ValueError("az needs a network: az:weights=FILE (a file written by agents.network.Network.save)")
        if game not in self._networks:
            self._networks[game] = Network.load(self.params["weights"], game)
        return self._networks[game]

    def check_game(self, game: Game) -> None:
        super().check_game(game)
        self.network(game)

    def _select(self, state, limit):
        net = self.network(state.game)
        search = SEARCHES.index(self.params["search"])
        legal = len(state.legal_moves())
        iterations = limit.iterations
        if iterations is None and not limit.time:
            iterations = self.DEFAULT_ITERATIONS
        schedule = np.zeros(0, np.int64)
        if search == SEARCH_GUMBEL:
            if iterations is None:  # a time budget alone: plan for the speed of the last searches
                iterations = max(legal, int(self._rate * limit.time)) if self._rate else self.FIRST_PLAN
            schedule = considered_visits(min(self.params["considered"], legal), iterations)
        gumbel = np.zeros(max(legal, 1), np.float64)
        tables = state.game.encoding.action_space.tables()
        dims = net.dims
        c = float(self.params["c"])
        data = state.data

        def run(tree, counters, target, deadline):
            return az_run(data, tree, counters, net.weights, dims, tables[1], tables[2], tables[3], search, c, gumbel,
                          schedule, target, deadline, self.rng)

        start = _time.perf_counter()
        tree, counters = grow_tree(run, AZ_NODE, init_az_tree, replace(limit, iterations=iterations), self.DEFAULT_ITERATIONS,
                                   contract.max_moves(data))
        seconds = _time.perf_counter() - start
        if seconds > 0 and counters[COUNT_SIMULATIONS] > 1:
            self._rate = float(counters[COUNT_SIMULATIONS]) / seconds
        if tree[ROOT]["children"] == NO_NODE:
            raise RuntimeError("az: the search ended before its first simulation")
        node = tree[best_root_child(tree, search, gumbel)]
        visits = int(node["visits"])
        return SearchInfo(
            move=int(node["move"]),
            value=float(node["total"] / visits) if visits else float(tree[ROOT]["value"]),
            depth=int(counters[COUNT_MAX_DEPTH]),
            nodes=int(counters[COUNT_NODES]),
            simulations=int(counters[COUNT_SIMULATIONS]),
        )
