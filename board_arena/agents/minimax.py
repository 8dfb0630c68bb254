"""``minimax``: plain depth-limited minimax with the game's heuristic at the horizon.

It is the reference the other searches are checked against: no pruning, no tables, no ordering.
Values are from the root player's point of view at every node, maximised where that player is
to move and minimised elsewhere, so a player who moves twice in a row (an extra turn, a pass) is
handled by who is to move, never by the parity of the ply.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from board_arena.agents.base import DEPTH, Agent, SearchInfo, register_agent
from board_arena.agents.scores import horizon_score, is_proven, terminal_score, to_value
from board_arena.engines import contract
from board_arena.kernels import kernel, rng_below


@kernel
def _minimax(stack, moves, count, following, best, top, depth, me, nodes):
    """Minimax score of ``stack[top]`` for player ``me``, ``depth`` plies deep, by an explicit
    depth-first walk (numba cannot cache recursive kernels that other kernels call).

    Per ply: ``moves``/``count`` its legal moves, ``following`` the index of the next child to
    visit, ``best`` the best score of its children so far; ``nodes[0]`` counts positions.
    """
    ply = top
    while True:
        s = stack[ply]
        if contract.is_terminal(s):
            value = terminal_score(s, me, ply)
        elif ply - top == depth:
            value = horizon_score(s, me)
        else:  # descend into the first child
            count[ply] = contract.legal_moves(s, moves[ply])
            best[ply] = -np.inf if contract.current_player(s) == me else np.inf
            following[ply] = 0
            ply = _enter_next_child(stack, moves, following, ply, nodes)
            continue
        # ``value`` is the score of stack[ply]: fold it into the parents until one has a child
        # left to visit.
        while ply > top:
            ply -= 1
            if contract.current_player(stack[ply]) == me:
                best[ply] = max(best[ply], value)
            else:
                best[ply] = min(best[ply], value)
            if following[ply] < count[ply]:
                ply = _enter_next_child(stack, moves, following, ply, nodes)
                break
            value = best[ply]
        else:
            return value


@kernel(inline="always")
def _enter_next_child(stack, moves, following, ply, nodes):
    stack[ply + 1] = stack[ply]
    contract.apply_move(stack[ply + 1], moves[ply, following[ply]])
    following[ply] += 1
    nodes[0] += 1
    return ply + 1


@kernel
def minimax_search(root: np.void, depth: int, rng: np.ndarray, nodes: np.ndarray) -> tuple[int, float]:
    """(move, score) of a depth-``depth`` minimax from the non-terminal ``root``; ties between
    best moves are broken uniformly at random."""
    stack = contract.new_states(root, depth + 1)
    moves = np.empty((depth + 1, contract.max_moves(root)), contract.MOVE_DTYPE)
    count = np.zeros(depth + 1, np.int64)
    following = np.zeros(depth + 1, np.int64)
    best_at = np.zeros(depth + 1, np.float64)
    me = contract.current_player(root)
    stack[0] = root
    n = contract.legal_moves(root, moves[0])
    best_move = moves[0, 0]
    best = -np.inf
    ties = 0
    for i in range(n):
        stack[1] = root
        contract.apply_move(stack[1], moves[0, i])
        nodes[0] += 1
        score = _minimax(stack, moves, count, following, best_at, 1, depth - 1, me, nodes)
        if score > best:
            best, best_move, ties = score, moves[0, i], 1
        elif score == best:
            ties += 1
            if rng_below(rng, ties) == 0:
                best_move = moves[0, i]
    return best_move, best


@register_agent
class MinimaxAgent(Agent):
    name = "minimax"
    summary = "plain depth-limited minimax (the reference for the other searches)"
    PARAMS = (replace(DEPTH, default=3, allow_none=False),)

    def _select(self, state, limit):
        depth = limit.depth or self.params["depth"]
        nodes = np.zeros(1, np.int64)
        move, score = minimax_search(state.data, depth, self.rng, nodes)
        return SearchInfo(
            move=int(move), value=float(to_value(score)), exact=bool(is_proven(score)), depth=depth, nodes=int(nodes[0])
        )
