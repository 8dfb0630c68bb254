"""The compiled calls of the Python face (:mod:`engines.game`): each a kernel around the
contract's function of the same name.

The face could call a game's kernels directly, but those that a game marks ``inline="always"``
would then compile a standalone copy beside the one that the contract links into every agent:
through the contract, the face shares it (a cold start compiles each of them once per game).
They live here, not in ``game.py``, so that an edit of the face recompiles nothing.
"""

from __future__ import annotations

from board_arena.engines import contract
from board_arena.engines._jit import kernel


@kernel
def legal_moves(s, out):
    return contract.legal_moves(s, out)


@kernel
def apply_move(s, move):
    contract.apply_move(s, move)


@kernel
def is_terminal(s):
    return contract.is_terminal(s)


@kernel
def current_player(s):
    return contract.current_player(s)


@kernel
def outcome(s):
    return contract.outcome(s)


@kernel
def score(s):
    return contract.score(s)


@kernel
def heuristic(s):
    return contract.heuristic(s)


@kernel
def state_hash(s):
    return contract.state_hash(s)


@kernel
def illegal_reason(s, move):
    return contract.illegal_reason(s, move)


@kernel
def observe(s, player, view):
    contract.observe(s, player, view)


@kernel
def write_observation(s, player, out):
    contract.write_observation(s, player, out)
