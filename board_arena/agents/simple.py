"""The baselines: ``random`` (a uniform legal move) and ``greedy`` (the best move by the game's
heuristic one ply ahead, a win first, ties broken at random)."""

from __future__ import annotations

import numpy as np

from board_arena.agents.base import Agent, SearchInfo, register_agent
from board_arena.agents.scores import horizon_score, terminal_score, to_value
from board_arena.engines import contract
from board_arena.kernels import kernel, rng_below


@kernel
def random_move(root: np.void, rng: np.ndarray) -> int:
    """A uniformly random legal move of ``root`` (the contract's ``random_legal_move``)."""
    scratch = np.empty(contract.max_moves(root), contract.MOVE_DTYPE)
    return contract.random_legal_move(root, rng, scratch)


@kernel
def greedy_move(root: np.void, rng: np.ndarray) -> tuple[int, float]:
    """(move, score): the legal move whose resulting position scores best for the mover.

    A terminal child scores its result (a win beats any heuristic), any other child the game's
    heuristic; ties are broken uniformly at random (reservoir sampling), so that a greedy player
    does not always pick the first of equal moves.
    """
    moves = np.empty(contract.max_moves(root), contract.MOVE_DTYPE)
    n = contract.legal_moves(root, moves)
    if n == 1:
        # Nothing to choose (and in a hidden-information view a forced draw could not be played
        # out: the drawn tile is unknown).
        return moves[0], 0.0
    me = contract.current_player(root)
    child = contract.new_states(root, 1)
    best_move = moves[0]
    best = -np.inf
    ties = 0
    for i in range(n):
        child[0] = root
        contract.apply_move(child[0], moves[i])
        if contract.is_terminal(child[0]):
            score = terminal_score(child[0], me, 1)
        else:
            score = horizon_score(child[0], me)
        if score > best:
            best = score
            best_move = moves[i]
            ties = 1
        elif score == best:
            ties += 1
            if rng_below(rng, ties) == 0:
                best_move = moves[i]
    return best_move, best


@register_agent
class RandomAgent(Agent):
    name = "random"
    summary = "a uniformly random legal move"
    plays_hidden_information = True  # needs nothing but the mover's legal moves

    def _select(self, state, limit):
        return SearchInfo(move=int(random_move(state.data, self.rng)))


@register_agent
class GreedyAgent(Agent):
    name = "greedy"
    summary = "best heuristic value one ply ahead, random tie-break"
    plays_hidden_information = True  # scores the position after its own move, in its view

    def _select(self, state, limit):
        move, score = greedy_move(state.data, self.rng)
        return SearchInfo(move=int(move), value=float(to_value(score)), depth=1)
