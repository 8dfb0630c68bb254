"""The compiled calls of the Python face (:mod:`engines.game`): each a kernel around the
contract's function of the same name.

Going through the contract, the face is typed against the same signatures as the agents (the
contract's forwarders fix the argument types, e.g. a move as int64), so it links the machine code
they compiled instead of compiling its own copy. The kernels live here, not in ``game.py``, so
that an edit of the face recompiles nothing.
"""

from __future__ import annotations

from board_arena.engines import contract
from board_arena.kernels import kernel


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
